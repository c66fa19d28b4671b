/*
 * MapCore vector tile sources: what a renderer, a tile server or a script needs of a MapLibre
 * vector source without drawing it. Options and TileJSON as MapLibre reads them, tile URLs with
 * every placeholder computed as MapLibre Native computes them, the tiles a view needs (tile
 * cover), fetching (files, file://, http(s):// through libcurl, MBTiles and PMTiles archives),
 * decoding into features and querying them with a filter.
 * Include <mapcore.h> rather than this file.
 *
 * JSON results are library-owned mc_buf text (dispose with mc_buf_dispose); tile bytes are
 * library-owned mc_buf bytes (`len` bytes, then a NUL byte not counted). Tiles are named z/x/y
 * in the XYZ grid (y down from the north) with z in 0..30, x and y in 0..2^z-1; anything else
 * is MC_E_INVALID_ARGUMENT.
 */
#ifndef MAPCORE_TILESOURCE_H
#define MAPCORE_TILESOURCE_H

#include "common.h"
#include "source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A vector tile source. Immutable once made: every function may be called from any number of
 * threads at once. Free with mc_tile_source_free(). */
typedef struct mc_tile_source mc_tile_source;

/* Makes a source from `options_json` (a JSON object with the style spec's names; the iOS SDKs'
 * names of the same options are accepted too, in brackets). Defaults (tests check these are the
 * effective ones):
 *   option             default  meaning
 *   tiles              []       URL templates [tileURLTemplates]
 *   url                null     a TileJSON document or an archive, see below [configurationURL]
 *   minzoom            0        [minimumZoomLevel, minSourceZoom]
 *   maxzoom            22       [maximumZoomLevel, maxSourceZoom]
 *   bounds             [-180,-85.051129,180,85.051129]  west, south, east, north [coordinateBounds]
 *   scheme             "xyz"    "xyz", or "tms" (rows counted from the south) [tileCoordinateSystem]
 *   tileSize           512      tile size in pixels; 256 makes a map at zoom z use tiles of z+1
 *   attribution        null     [attributionHTMLString]
 *   encoding           null     kept for raster-dem sources [demEncoding]
 *   promoteId          null     a property whose value becomes the feature id in queries
 * `url` is a TileJSON document (a path, file:// or http(s)://) or an archive: mbtiles://PATH,
 * pmtiles://PATH (PATH may be a file:// URL) or a path ending in .mbtiles or .pmtiles (local
 * files only). It is read now (blocking) and fills every option the caller left out, as MapLibre
 * merges a source's options over its TileJSON; relative templates in a TileJSON file resolve
 * against its directory. Either `tiles` or `url` is needed.
 * Errors: MC_E_INVALID_ARGUMENT (bad option, naming it), MC_E_IO / MC_E_NOT_FOUND (document or
 * archive unreadable or missing), MC_E_PARSE (not JSON, no tiles, not an archive),
 * MC_E_UNSUPPORTED (a remote archive), MC_E_LIMIT (a document above 16 MiB). */
MC_API int mc_tile_source_new(const char *options_json, size_t len, mc_tile_source **out);

/* Frees the source. NULL or an already freed handle does nothing. */
MC_API void mc_tile_source_free(mc_tile_source *source);

/* {"options": {the effective options, style spec names}, "tilejson": the document or the
 * archive's metadata as TileJSON (vector_layers included), or null}. `flags`: MC_SERIALIZE_PRETTY. */
MC_API int mc_tile_source_info(mc_tile_source *source, uint32_t flags, mc_buf *out);

/* The URL of tile z/x/y: among several templates the one GL JS picks (index (x + y) mod count;
 * MapLibre Native always takes the first), expanded by mc_tile_url_expand with the source's
 * scheme. Archive sources name tiles as mbtiles://PATH/z/x/y or pmtiles://PATH/z/x/y. */
MC_API int mc_tile_source_url(mc_tile_source *source, int z, int x, int y, double pixel_ratio, mc_buf *out);

/* The tiles a map at `zoom` (0..30) showing `bbox` (west, south, east, north in degrees;
 * west > east crosses the antimeridian) loads from the source, closest to the box's centre
 * first, as JSON [[z, x, y, overscaled_z], ...]: MapLibre's covering zoom for the source's
 * tileSize (floor of zoom + log2(512 / tileSize)), nothing below minzoom, tiles capped at maxzoom
 * and overzoomed beyond it (overscaled_z > z), tiles outside the source bounds left out.
 * MC_E_LIMIT when more than 1,048,576 tiles would be listed. */
MC_API int mc_tile_source_cover(mc_tile_source *source, const double bbox[4], double zoom, mc_buf *out);

/* Keep fetched bytes as stored (gzip-compressed tiles are not inflated). */
#define MC_FETCH_RAW 0x200u

/* The bytes of tile z/x/y, inflated when gzip-compressed unless `flags` has MC_FETCH_RAW. No tile
 * is an empty buffer (len 0), not an error: a tile outside the zoom range or bounds (MapLibre
 * would not ask for it), absent from an archive or a directory, or answered with HTTP 404 or 204.
 * Blocking. Errors: MC_E_IO (transport failure, other HTTP errors, naming the status), MC_E_LIMIT
 * (a tile above 64 MiB, fetched or inflated), MC_E_PARSE (corrupt gzip or archive). */
MC_API int mc_tile_source_fetch(mc_tile_source *source, int z, int x, int y, uint32_t flags, mc_buf *out);

/* The features of tile z/x/y as a FeatureCollection, of the layer `source_layer` (UTF-8,
 * NUL-terminated) or of every layer (NULL). Each feature carries the foreign member
 * "sourceLayer"; ids come from the tile or, with promoteId, from that property. Positions in
 * longitude/latitude with MC_MVT_LNGLAT (see mapcore/vector_tile.h), else tile coordinates.
 * No tile is an empty collection. `flags`: MC_MVT_LNGLAT, MC_SERIALIZE_PRETTY. Errors as
 * mc_tile_source_fetch, and MC_E_PARSE for a malformed tile. */
MC_API int mc_tile_source_features(mc_tile_source *source, int z, int x, int y, const char *source_layer,
                                   uint32_t flags, mc_buf *out);

/* MapLibre's querySourceFeatures: the features of `source_layer` (NULL: every layer) in the
 * tiles mc_tile_source_cover lists for `bbox` at `zoom`, that `filter_json` keeps (a filter
 * expression or legacy filter, evaluated at `zoom`; NULL with filter_len 0 keeps all; an
 * evaluation error counts as no match, as in MapLibre), as a FeatureCollection in longitude/
 * latitude. A feature with an id appears once however many tiles hold it (the copy of the tile
 * closest to the centre); features without id appear once per tile. Geometries are those of the
 * tile they came from (clipped to its buffer); the whole of every covering tile is returned, not
 * only what lies in `bbox`. Blocking (fetches tiles). `flags`: MC_SERIALIZE_PRETTY. Errors as
 * mc_tile_source_fetch; MC_E_EXPRESSION for a filter that does not compile (mc_error path set). */
MC_API int mc_tile_source_query(mc_tile_source *source, const double bbox[4], double zoom,
                                const char *source_layer, const char *filter_json, size_t filter_len,
                                uint32_t flags, mc_buf *out);

/* Expands a tile URL template as MapLibre Native does: {z}, {x}, {y} (counted from the south
 * when `tms` is non-zero), {quadkey} (Bing), {bbox-epsg-3857} (west,south,east,north in
 * EPSG:3857 metres, shortest round-trip numbers), {prefix} (x mod 16 and y mod 16 as two hex
 * digits), {ratio} ("@2x" when pixel_ratio > 1, else empty). With tms, the flipped row is what
 * every placeholder sees. Unknown {tokens} stay as written. Thread-safe. */
MC_API int mc_tile_url_expand(const char *url_template, size_t len, int z, int x, int y, int tms, double pixel_ratio,
                              mc_buf *out);

/* The tiles at zoom `z` (0..30) that `bbox` touches, as JSON [[z, x, y], ...], closest to the
 * box's centre first (then by x, then y): MapLibre Native's tileCover(LatLngBounds, z).
 * Latitudes are clamped to ±85.0511287798; a box of zero area covers nothing; west > east
 * crosses the antimeridian and columns past it wrap. MC_E_LIMIT beyond 1,048,576 tiles. */
MC_API int mc_tile_cover(const double bbox[4], int z, mc_buf *out);

/* The camera that shows `bbox` in a viewport of `width` x `height` pixels less `padding` (top,
 * left, bottom, right; NULL for none), as MapLibre's cameraForLatLngBounds without rotation:
 * out[0] longitude and out[1] latitude of the box's centre, out[2] the zoom (the world is 512
 * pixels wide at zoom 0) clamped to min_zoom..max_zoom. MapLibre sets the padding on the camera
 * too, which moves where that centre is drawn. MC_E_INVALID_ARGUMENT when the padding leaves no
 * room or a number is not finite. */
MC_API int mc_camera_fit(const double bbox[4], double width, double height, const double padding[4],
                         double min_zoom, double max_zoom, double out[3]);

/* Writes the tiles of a data source as a tileset at `path`: a directory (z/x/y.pbf files and a
 * metadata.json TileJSON whose relative template mc_tile_source_new resolves), or an archive
 * when the path ends in .mbtiles (MBTiles 1.3: TMS rows, metadata rows, vector_layers in `json`)
 * or .pmtiles (PMTiles v3: clustered, identical tiles stored once, leaf directories as needed;
 * an existing file is replaced). Every non-empty tile from minzoom to maxzoom, made as
 * mc_source_get_tile_mvt makes it (MapLibre Native's GeoJSON source: clusters when clustering,
 * extent 8192), on two threads. Metadata: vector_layers (the layer, its fields with types String/
 * Number/Boolean/Mixed, zooms), bounds and center of the data, min/max zoom. `options_json` (NULL
 * with len 0 for every default; tests check these are the effective ones):
 *   option             default  meaning
 *   minzoom            0        the shallowest zoom written
 *   maxzoom            null     the deepest zoom written (at most 24); null: min(source maxZoom, 14)
 *   layer              "geojson"  the vector layer name (a style's source-layer)
 *   gzip               null     compress tiles; null: yes for archives, no for a directory
 *   name               "MapCore"  the name in the metadata
 * `summary` (may be NULL) receives {"format", "tiles", "bytes", "minzoom", "tilesPerZoom": [...]}.
 * Blocking; the source may be changed by other threads meanwhile (the tiles are of the state
 * when the call began). Errors: MC_E_INVALID_ARGUMENT (options, path), MC_E_IO (cannot create
 * or write), MC_E_UNSUPPORTED (clustering of non-point data as for tiles). */
MC_API int mc_tileset_write(mc_source *source, const char *path, const char *options_json, size_t len,
                            mc_buf *summary);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_TILESOURCE_H */
