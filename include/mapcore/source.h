/*
 * MapCore GeoJSON data sources: mc_source, the SDKs' GeoJSON DataSource (features with
 * identity, add/set/remove/clear, import from files and URLs, SDK option names and defaults).
 * With "cluster": true it keeps a cluster index (mapcore/cluster.h) over its Point features;
 * mc_source_cluster_index() hands out that index.
 * Include <mapcore.h> rather than this file.
 *
 * JSON results are library-owned mc_buf text (dispose with mc_buf_dispose); `flags` may be
 * MC_SERIALIZE_PRETTY. Cluster results have the form described in mapcore/cluster.h.
 */
#ifndef MAPCORE_SOURCE_H
#define MAPCORE_SOURCE_H

#include "common.h"
#include "geojson.h"
#include "cluster.h"
#include "tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A GeoJSON data source. Every write builds the next state (cluster index included) aside and
 * publishes it at once; a failed write leaves the source exactly as it was. Reads and writes
 * may come from any number of threads: a read sees the state before or after a write, never a
 * mix. Free with mc_source_free(). */
typedef struct mc_source mc_source;

/* Creates an empty source. `options_json` (NULL with len 0 for every default) is a JSON object with
 * the SDK names; what it leaves out takes the default below (tests check these are the effective
 * defaults; mc_source_get_options() reports the effective values):
 *   option             default  meaning
 *   cluster            false    cluster the Point features
 *   clusterRadius      50       cluster radius in pixels at tile size 512
 *   clusterMaxZoom     null     highest zoom with clusters; null means maxZoom - 1
 *   clusterMinPoints   2        fewest points that form a cluster
 *   clusterProperties  null     aggregates, as for mc_cluster_index_new()
 *   maxZoom            18       the source's maxzoom
 *   buffer             128      tile buffer in pixels at tile size 512 (0..512)
 *   tolerance          0.375    simplification tolerance in pixels at tile size 512
 *   lineMetrics        false    line distance metrics on tiled lines
 *   generateId         false    give each added feature a new integer id
 *   promoteId          null     a property whose value becomes the feature id
 *   filter             null     an expression or legacy filter
 *   maxImportBytes     536870912  the most bytes mc_source_import reads (decompressed), 512 MiB
 *   tileCompatibility  "maplibre-native"  whose tiles mc_source_get_tile makes: MapLibre
 *                               Native's GeoJSON source's, or "geojson-vt" (JS 4.0.2's); see
 *                               the compatibility option in mapcore/tile.h
 * Features failing the filter stay in the source but are left out of the index and of
 * mc_source_get_clusters. The cluster index uses GL JS's derivation: extent 8192, radius =
 * clusterRadius * 16. buffer, tolerance and lineMetrics shape the tiles (mc_source_get_tile).
 * Unknown keys and bad values: MC_E_INVALID_ARGUMENT naming the
 * option; a filter that does not compile: MC_E_EXPRESSION (path = the failing node's key path in
 * the filter, e.g. [2][1]). */
MC_API int mc_source_new(const char *options_json, size_t len, mc_source **out);

/* Frees the source. NULL and already-freed handles are ignored. */
MC_API void mc_source_free(mc_source *source);

/* Changes the options named in `options_json`; others keep their value. The index is rebuilt.
 * Turning clustering on while a non-point feature is present fails with MC_E_UNSUPPORTED and
 * changes nothing. */
MC_API int mc_source_set_options(mc_source *source, const char *options_json, size_t len);

/* The current options as JSON (clusterMaxZoom resolved). */
MC_API int mc_source_get_options(mc_source *source, mc_buf *out);

/* Adds the features of `data`: a FeatureCollection, a Feature, or a bare geometry (added as a
 * feature with empty properties). With generateId, each gets a new integer id never used before
 * in this source; with promoteId, the named property becomes the id. With clustering on, a
 * non-point feature fails with MC_E_UNSUPPORTED and nothing is added. */
MC_API int mc_source_add(mc_source *source, const mc_geojson *data);

/* Replaces every feature with those of `data` (same rules as mc_source_add). */
MC_API int mc_source_set(mc_source *source, const mc_geojson *data);

/* Adds the GeoJSON at `location`: a file path, a file:// URL, or an http:// or https:// URL
 * (fetched with libcurl: redirects followed, 60 s timeout, gzip/deflate decoded). At most the
 * option maxImportBytes is read (decoded bytes counted): a larger file, or a larger HTTP
 * Content-Length, is refused before reading, and a body that grows past it while arriving is
 * refused at that point, so memory never holds more. Only regular files are read: a device
 * (/dev/zero), a FIFO or a directory is MC_E_UNSUPPORTED without reading or blocking.
 * Errors: MC_E_IO (missing file, network failure, HTTP status >= 400, with the reason),
 * MC_E_LIMIT (over maxImportBytes), MC_E_PARSE / MC_E_INVALID_GEOJSON (bad payload). On error
 * the source is unchanged. Blocks while fetching; other threads keep reading the previous
 * state. */
MC_API int mc_source_import(mc_source *source, const char *location);

/* Removes every feature whose id equals `id_json` (a JSON string or number: "\"a\"" or "7";
 * 7 and 7.0 are the same id). *out_removed (may be NULL) receives how many. None: MC_OK, 0. */
MC_API int mc_source_remove(mc_source *source, const char *id_json, size_t len, size_t *out_removed);

/* Removes the feature at an insertion-order index. Out of range: MC_E_NOT_FOUND. */
MC_API int mc_source_remove_at(mc_source *source, size_t index);

/* Removes every feature. */
MC_API int mc_source_clear(mc_source *source);

/* Number of features held (filtered-out ones included). */
MC_API int mc_source_count(mc_source *source, size_t *out_count);

/* The first feature whose id equals `id_json`, as GeoJSON. None: MC_E_NOT_FOUND. */
MC_API int mc_source_get(mc_source *source, const char *id_json, size_t len, uint32_t flags, mc_buf *out);

/* Every feature as a FeatureCollection, in insertion order. */
MC_API int mc_source_to_geojson(mc_source *source, uint32_t flags, mc_buf *out);

/* What the source shows in `bbox` at `zoom`, as a FeatureCollection: clusters and points when
 * clustering is on (as mc_cluster_index_get_clusters), else the features (passing the filter)
 * whose bounding box intersects `bbox`. */
MC_API int mc_source_get_clusters(mc_source *source, const double bbox[4], double zoom, uint32_t flags, mc_buf *out);

/* The source's current cluster index as a new handle: a frozen view that later writes to the
 * source do not change, so several queries (children, leaves, expansion zoom, tiles) agree
 * with each other. Free it with mc_cluster_index_free(). Loading into it replaces only the
 * view. Clustering off: MC_E_NOT_FOUND. */
MC_API int mc_source_cluster_index(mc_source *source, mc_cluster_index **out);

/* The source's tile z/x/y as MapLibre Native's GeoJSON source makes it inside the renderer
 * (maplibre-native style/sources/geojson_source_impl.cpp, GeoJSONData::create), on tiles 8192
 * wide (util::EXTENT), from the features that pass the filter:
 *   - clustering: supercluster's getTile over the cluster index (extent 8192, radius =
 *     clusterRadius * 16, maxZoom = clusterMaxZoom): points and clusters with their properties
 *     (cluster, cluster_id, point_count, point_count_abbreviated, clusterProperties).
 *   - otherwise: geojson-vt's getTile with maxZoom = the source's maxZoom (at most 24), extent
 *     8192, buffer = round(buffer * 16), tolerance = tolerance * 16, lineMetrics; indexMaxZoom 5
 *     and indexMaxPoints 100000 as geojson-vt's defaults; compatibility = tileCompatibility.
 *     Ids are the source's own (promoteId and generateId were applied when the features were
 *     added; MapLibre Native passes neither to geojson-vt).
 * The geojson-vt index of a state is made on its first tile request and kept with that state;
 * a write makes a new state, whose index is made again when asked for.
 * JSON: geojson-vt's tile object (mapcore/tile.h), or "null" where there is no tile (z beyond
 * maxZoom, nothing there). z outside 0..24 or x, y outside 0..2^z-1: MC_E_INVALID_ARGUMENT. */
MC_API int mc_source_get_tile(mc_source *source, int z, int x, int y, uint32_t flags, mc_buf *out);

/* The same tile as a Mapbox Vector Tile 2.1 with one layer named `layer` (NULL: "geojson"),
 * extent 8192, written as mc_tile_index_get_tile_mvt writes (mapcore/tile.h); an empty buffer
 * (len 0) where there is no tile. A renderer's vector source with these tiles draws what its
 * GeoJSON source draws (bindings/python/tests/test_render.py compares MapLibre Native's images). */
MC_API int mc_source_get_tile_mvt(mc_source *source, int z, int x, int y, const char *layer, mc_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_SOURCE_H */
