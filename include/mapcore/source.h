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

/* A GeoJSON data source. Its features live in persistent structures (a B-tree in insertion
 * order, a hash trie of ids): a write of k features to a source of n copies O(k log n), builds
 * the next state aside and publishes it at once, with the next version number; a failed write
 * leaves the source exactly as it was. Reads and writes may come from any number of threads: a
 * read sees the state before or after a write, never a mix. Writes are serialised among
 * themselves; readers never wait for a writer.
 *
 * Indexes are lazy: the cluster index (clustering on) and the geojson-vt tile index (off) of a
 * state are built by the first query that needs them (mc_source_get_clusters, _get_tile,
 * _cluster_index) and kept with that state. So many writes between two frames cost one index
 * build, paid by the first query after them; a write itself never builds an index.
 *
 * Versions: a new source is version 0; every write that changes something makes the next
 * version (a removal of an unknown id changes nothing and keeps the version).
 * mc_source_version() reports the current one, mc_source_snapshot() freezes one for several
 * reads, and mc_source_changes() / mc_source_tile_changed() say which tiles the writes since a
 * version may have changed. Free with mc_source_free(). */
typedef struct mc_source mc_source;

/* Creates an empty source. `options_json` (NULL with len 0 for every default) is a JSON object with
 * the SDK names; what it leaves out takes the default below (tests check these are the effective
 * defaults; mc_source_get_options() reports the effective values):
 *   option             default  meaning
 *   cluster            false    cluster the Point features
 *   clusterRadius      50       cluster radius in pixels at tile size 512
 *   clusterMaxZoom     null     highest zoom with clusters; null means the renderer's default
 *                               for tileCompatibility: MapLibre Native's 17 whatever maxZoom
 *                               ("maplibre-native"; its style conversion keeps GeoJSONOptions'
 *                               17), or maxZoom - 1 as GL JS and the style spec ("geojson-vt")
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
 *                               Native's GeoJSON source's, or "geojson-vt" (JS 4.0.2's, with
 *                               supercluster JS's clusters); see the compatibility option in
 *                               mapcore/tile.h and mc_source_get_tile
 * Features failing the filter stay in the source but are left out of the index and of
 * mc_source_get_clusters. The cluster index uses extent 8192 and radius = clusterRadius * 16, with
 * clusterRadius cut to an integer first in "maplibre-native" compatibility (MapLibre Native
 * keeps it as one: 50.7 px clusters as 50, below 1 px only exact duplicates), as given in
 * "geojson-vt" (GL JS). buffer, tolerance and lineMetrics shape the tiles (mc_source_get_tile).
 * Unknown keys and bad values: MC_E_INVALID_ARGUMENT naming the
 * option; a filter that does not compile: MC_E_EXPRESSION (path = the failing node's key path in
 * the filter, e.g. [2][1]). */
MC_API int mc_source_new(const char *options_json, size_t len, mc_source **out);

/* Frees the source. NULL and already-freed handles are ignored. */
MC_API void mc_source_free(mc_source *source);

/* Changes the options named in `options_json`; others keep their value. Every feature is
 * filtered again and the indexes are rebuilt when next queried.
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

/* Adds the GeoJSON at `location`, read leniently as MapLibre's GeoJSON source reads it
 * (MC_PARSE_LENIENT, mapcore/geojson.h): a file path, a file:// URL, or an http:// or https:// URL
 * (fetched with libcurl: redirects followed, 60 s timeout, gzip/deflate decoded; HTTPS trusts the
 * bundle named by CURL_CA_BUNDLE or SSL_CERT_FILE when set (it must exist), else libcurl's built-in
 * bundle where that file exists, else the first bundle found in the common distributions' places
 * (/etc/ssl/certs, /etc/pki, /etc/ssl among them), else none where a directory stands in; beside
 * it the directory SSL_CERT_DIR names, else libcurl's built-in one; an HTTPS proxy the same; read
 * once per process, and every fetch of the library does the same).
 * At most the option maxImportBytes is read (decoded bytes counted): a larger file, or a larger
 * HTTP Content-Length, is refused before reading, and a body that grows past it while arriving is
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

/* The source's current cluster index (built now if no query has built it for this version) as
 * a new handle: a frozen view that later writes to the source do not change, so several
 * queries (children, leaves, expansion zoom, tiles) agree with each other. Free it with
 * mc_cluster_index_free(). Loading into it replaces only the view. Clustering off: MC_E_NOT_FOUND. */
MC_API int mc_source_cluster_index(mc_source *source, mc_cluster_index **out);

/* The source's tile z/x/y as MapLibre Native's GeoJSON source makes it inside the renderer
 * (maplibre-native style/sources/geojson_source_impl.cpp, GeoJSONData::create), on tiles 8192
 * wide (util::EXTENT), from the features that pass the filter:
 *   - clustering: supercluster's getTile over the cluster index (extent 8192, radius =
 *     clusterRadius * 16, maxZoom = clusterMaxZoom): points and clusters with their properties
 *     (cluster, cluster_id, point_count, point_count_abbreviated, clusterProperties). With
 *     tileCompatibility "maplibre-native" the index is the one MapLibre Native's supercluster-cpp
 *     0.5.0 builds (mapcore/cluster.h, "supercluster-cpp's index"), in tiles and in every cluster
 *     query: the radius from the integer clusterRadius (above); positions in doubles; its KD tree's
 *     order of features in a tile, children and folds; its cluster ids, which a cluster that
 *     takes in no neighbour changes at every zoom and which overlap input indexes; aggregates
 *     mapped and folded as MapLibre Native does (a point without properties adds nothing);
 *     point_count_abbreviated always a string ("1.2k" for 1,250 and "12.000000k" for 12,000,
 *     where supercluster JS writes "1.3k" and "12k"); tile coordinates rounded as C's round.
 *     With "geojson-vt" it is supercluster JS's (GL JS).
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

/* Applies a GL JS source diff (maplibre-gl-js GeoJSONSourceDiff) as one write, atomically: all of
 * it, or on any error none of it. `diff_json` is an object whose members are all optional:
 *   "removeAll": true            remove every feature
 *   "remove": [id, ...]          remove the features with these ids ("removed" is read too)
 *   "add": [Feature, ...]        add features; each needs an id (its own, or one promoteId or
 *                                generateId gives it); a held id is replaced in place (same
 *                                position) and its other holders removed
 *   "update": [{"id": id,        change the features with this id:
 *       "newGeometry": Geometry,             the geometry (null: unchanged)
 *       "removeAllProperties": true,         clear the properties, then
 *       "removeProperties": ["k", ...],      remove these, then
 *       "addOrUpdateProperties": [{"key": "k", "value": v}, ...]}]   set these, in order
 * applied in GL JS's order: removeAll, remove, add, update. Features and geometries are read
 * leniently, as MapLibre's GeoJSON source reads them (MC_PARSE_LENIENT, mapcore/geojson.h).
 * An id is a JSON string or number (7 and 7.0 are one id). Removing or updating an id the
 * source does not hold is skipped, as GL JS skips it. With promoteId, an update that changes the
 * promoted property changes the id (one that removes it keeps the old id), and an added feature
 * without the property keeps its own id where GL JS would skip it. The features are checked as
 * mc_source_add checks them (clustering: Points the index can project).
 * Errors: MC_E_PARSE (not JSON), MC_E_INVALID_GEOJSON (a bad feature or geometry, or a member
 * of the wrong JSON shape such as "remove": 5; path = its place in the diff, e.g.
 * $.add[2].geometry.coordinates), MC_E_INVALID_ARGUMENT (an unknown member, a feature without
 * id, an update without "id", a position too large to cluster), MC_E_UNSUPPORTED (a non-point
 * feature with clustering on; any write on a snapshot). Cost: O(k log n) for k changed features
 * in a source of n, plus O(m) for an id that m features share. */
MC_API int mc_source_update_data(mc_source *source, const char *diff_json, size_t len);

/* The version of the source's current state (of a snapshot: its frozen state). */
MC_API int mc_source_version(mc_source *source, uint64_t *out_version);

/* A read-only source frozen at `source`'s current state: every read function of this header
 * works on it and answers from that one version, whatever is written to `source` meanwhile
 * (mc_source_version tells which). Writes to it fail with MC_E_UNSUPPORTED. It shares the
 * state's memory (O(1)); free it with mc_source_free() like any source. */
MC_API int mc_source_snapshot(mc_source *source, mc_source **out);

/* What the writes after version `since` (up to the current version, or a snapshot's) may have
 * changed, as JSON {"version": V, "since": S, "all": bool, "bounds": [[w, s, e, n], ...]}:
 * `bounds` are the longitude/latitude boxes of the features written, as they were and as they
 * are (features the filter leaves out do not count). "all": every tile may have changed: the
 * source clusters (supercluster's clusters and their ids depend on every point and on input
 * order), or a write replaced everything (mc_source_set, _clear, removeAll, an options
 * change), or `since` is older than the log keeps (the last 65,536 bounds; a write of more than
 * 256 features records their union). This is GL JS's rule for reloading GeoJSON tiles
 * (geojson_source.ts, shouldReloadTile). `since` later than the version: MC_E_INVALID_ARGUMENT. */
MC_API int mc_source_changes(mc_source *source, uint64_t since, uint32_t flags, mc_buf *out);

/* Whether tile z/x/y may have changed since version `since`: *out_changed = 1 when its bounds,
 * widened by the tile buffer (buffer / 512 of the tile on each side, the geojson-vt buffer the
 * source's tiles are cut with), meet one of mc_source_changes' bounds (also across the
 * antimeridian), or when all tiles changed; else 0. A renderer keeps the version it last
 * loaded tiles at and reloads exactly the tiles this names. On a source being written, each
 * call answers up to the version current at that moment: take mc_source_snapshot() first and
 * ask it (tile_changed, get_tile, version) so the answers and the version you keep are one.
 * z outside 0..24, x or y outside 0..2^z-1, or `since` later than the version:
 * MC_E_INVALID_ARGUMENT. */
MC_API int mc_source_tile_changed(mc_source *source, uint64_t since, int z, int x, int y, int *out_changed);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_SOURCE_H */
