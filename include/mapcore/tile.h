/*
 * MapCore GeoJSON tiling: mc_tile_index cuts GeoJSON into vector tiles with the algorithm,
 * options, defaults and output of mapbox/geojson-vt 4.0.2 (projection to the unit square,
 * Douglas-Peucker simplification with per-zoom tolerance, clipping with a buffer, antimeridian
 * wrapping, integer tile coordinates; an index built down to indexMaxZoom/indexMaxPoints at
 * creation and drilled down on demand). Tiles come as geojson-vt's tile object (JSON) or as a
 * Mapbox Vector Tile 2.1 (see mapcore/vector_tile.h for decoding).
 * Include <mapcore.h> rather than this file.
 *
 * JSON results are library-owned mc_buf text (dispose with mc_buf_dispose); `flags` may be
 * MC_SERIALIZE_PRETTY. MVT results are library-owned mc_buf bytes: `len` bytes of protobuf
 * (which may contain NUL bytes), followed by a NUL byte not counted in len.
 */
#ifndef MAPCORE_TILE_H
#define MAPCORE_TILE_H

#include "common.h"
#include "geojson.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tile index over one GeoJSON value. Creating it tiles the data down to indexMaxZoom; a tile
 * below that is cut from its nearest indexed ancestor when first asked for and kept, as
 * geojson-vt does. Unlike geojson-vt, a feature's lines are simplified (Douglas-Peucker) the
 * first time a tile holding them is written, not at creation: creation takes about two thirds of
 * the time, a first tile over part of the data pays only for that part, and the first low-zoom
 * tile over all of it pays for all (the tiles are the same either way). The tiles where creation
 * stops splitting keep their clipped lines as stretches of the projected input lines, not copies,
 * and get them back when first written or cut from: a country dataset's index holds 1.2x the
 * memory of its parsed features (1.6x with MapLibre's buffer; copies took 1.9x and 3.2x). Its
 * methods may be called from any number of threads at once (tile creation, simplification and
 * the interning of ids and tags for MVT are serialised inside; writing MVT geometry is not).
 * Free with mc_tile_index_free(). */
typedef struct mc_tile_index mc_tile_index;

/* Tiles `data` (any GeoJSON: FeatureCollection, Feature, geometry; GeometryCollections, null
 * geometries and empty coordinates are handled as geojson-vt handles them). `options_json`
 * (NULL with len 0 for every default) is a JSON object with geojson-vt's names; what it leaves
 * out takes the default below (tests check these are the effective defaults):
 *   option             default  meaning
 *   maxZoom            14       max zoom to preserve detail on (0..24)
 *   indexMaxZoom       5        max zoom of the tiles made at creation (0..maxZoom)
 *   indexMaxPoints     100000   a tile with more points is split at creation (0: index to indexMaxZoom)
 *   tolerance          3        simplification tolerance in tile pixels (higher is simpler)
 *   extent             4096     tile extent (coordinates run 0..extent)
 *   buffer             64       tile buffer on each side, in tile pixels
 *   lineMetrics        false    keep each line whole and write mapbox_clip_start/_end
 *   promoteId          null     a property whose value becomes the tile feature id
 *   generateId         false    give each feature its input index as tile feature id
 *   compatibility      "geojson-vt"  "geojson-vt": geojson-vt JS 4.0.2's tiles (its tests', in
 *                               node: positions projected with Math.sin and Math.log as V8
 *                               computes them); "maplibre-native": MapLibre Native's (C's sin
 *                               and log; geojson-vt-cpp 6.6.5's simplification tie-break;
 *                               at tolerance 0 (maxZoom, or the option 0) only lines and
 *                               rings of some size and the vertices simplification marked,
 *                               where JS keeps all; with lineMetrics, a MultiLineString
 *                               kept whole and untagged while clips take it whole, as one
 *                               line feature per part with its metrics once a clip's edge
 *                               crosses its box, where JS makes a feature of each line; a
 *                               GeometryCollection clipped as one feature (its box
 *                               all its members'; its Point members never clipped, so they
 *                               stay in its box and are written outside the tiles its other
 *                               members reach, where their tile coordinates fit an int16,
 *                               geojson-vt-cpp's type (past it, its cast is undefined, and
 *                               MapCore writes nothing); a collection left with only such
 *                               points goes no further, where geojson-vt-cpp fills every tile
 *                               of its box with them; a member line cut in several parts one
 *                               MultiLineString, untagged under lineMetrics) and written as one
 *                               tile feature per member, where JS makes a feature of each
 *                               member; a polygon boxed by
 *                               all its rings for the clips' trivial cases (JS: by its outer
 *                               ring; they differ for a ring outside its outer ring); its
 *                               older line and ring clip, which differs where a vertex lies
 *                               exactly on a clip's edge (a slice, and its line metrics, start
 *                               at that vertex) and takes no ring's last vertex from an inside
 *                               segment (the ring is closed with a copy of its first); line
 *                               lengths summed with
 *                               hypot; coordinates rounded as C's round (JS: Math.round);
 *                               boxes started at x 2 and -1 (JS: from nothing), so a feature
 *                               lying wholly past longitude 540° east or west, and a Point
 *                               there, which geojson-vt-cpp never cuts, wrap and clip as in
 *                               geojson-vt-cpp (such a Point is written only where its tile
 *                               coordinates fit an int16, as above); no LineString written
 *                               that keeps none of its vertices (JS writes it empty: only
 *                               an extent below the tolerance does that); children's stripes
 *                               summed as geojson-vt-cpp sums them (they round otherwise
 *                               where buffer / extent is no binary fraction);
 *                               polygon rings in their input orientation as geojson-vt-cpp
 *                               leaves them (a ring wound against the feature's first ring's
 *                               sense is reversed, so decoders that group rings by winding still
 *                               read holes), MVT written as version 1 so that MapLibre Native
 *                               fixes polygons up as for its own GeoJSON tiles)
 * `data` may be freed at once: the index keeps its own projected copy, and the features' ids
 * and properties, shared with `data`'s parsed value (not copied) while both live. Unknown keys
 * and bad values: MC_E_INVALID_ARGUMENT naming the option (promoteId and generateId together
 * included); more than 2^31 - 2 features: MC_E_LIMIT. */
MC_API int mc_tile_index_new(const mc_geojson *data, const char *options_json, size_t len,
                             mc_tile_index **out);

/* Frees the index. NULL or an already freed handle does nothing. */
MC_API void mc_tile_index_free(mc_tile_index *index);

/* geojson-vt's getTile(z, x, y) as its tile object:
 *   {"features":[{"type":1|2|3,"geometry":[...],"tags":{...},"id":...}, ...]}
 * with geometry in integer tile coordinates (type 1: [[x,y],...]; 2 and 3: [[[x,y],...],...],
 * rings closed, outer rings clockwise in tile coordinates), tags = the feature's properties
 * (null when it has none), id only when the feature has one. The text "null" where geojson-vt
 * returns null (no tile there and no ancestor to cut it from, z beyond maxZoom): an empty tile is
 * not an error. z outside 0..24 or x, y outside 0..2^z-1: MC_E_INVALID_ARGUMENT (geojson-vt
 * returns null for such z and wraps x). */
MC_API int mc_tile_index_get_tile(mc_tile_index *index, int z, int x, int y, uint32_t flags, mc_buf *out);

/* The same tile as a Mapbox Vector Tile 2.1 with one layer named `layer` (UTF-8, NUL-terminated;
 * NULL for "geojson"), extent = the index's extent, layer version 2 (1 with compatibility
 * "maplibre-native"). Arguments as for mc_tile_index_get_tile. Feature ids: non-negative integers only (MVT
 * ids are uint64; other ids are left out). Properties: strings, numbers (integers as int/uint,
 * others as double) and booleans as MVT values; null properties are left out; arrays and objects
 * are written as their JSON text, as MapLibre and vt-pbf do. An empty tile is an empty buffer
 * (len 0), which renderers read as "no content". Memory: the first MVT a feature is written in
 * interns its id and properties in the index, kept until the index is freed (for 1M points of
 * five properties about 90 MB, less than the parsed features), so each later tile
 * holding it is written without looking its values up again. MC_E_INVALID_ARGUMENT when the
 * index's extent + 2 x buffer is more than 2^31 - 3: an MVT's extent is a uint32 and its geometry's
 * steps between vertices sint32 (the JSON tiles of such an index have no such limit). */
MC_API int mc_tile_index_get_tile_mvt(mc_tile_index *index, int z, int x, int y, const char *layer,
                                      mc_buf *out);

/* {"total": tiles made so far, "options": {effective options}, "indexedTiles": [[z,x,y], ...]}
 * (geojson-vt's `total` and `tileCoords`). */
MC_API int mc_tile_index_stats(mc_tile_index *index, uint32_t flags, mc_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_TILE_H */
