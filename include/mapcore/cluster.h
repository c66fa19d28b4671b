/*
 * MapCore point clustering and GeoJSON data sources.
 * Include <mapcore.h> rather than this file.
 *
 * Two levels, as in the SDKs:
 *  - mc_cluster_index: mapbox/supercluster 8 with its option names and defaults. Same
 *    projection, float32 rounding, KD tree order, cluster ids, cluster properties, expansion zoom
 *    rules and tile format; results come in supercluster's order.
 *  - mc_source: the SDK's GeoJSON DataSource (features with identity, add/set/remove/clear,
 *    import from files and URLs, SDK option names and defaults). With "cluster": true it keeps a
 *    cluster index over its Point features; mc_source_cluster_index() hands out that index.
 *
 * Cluster ids follow supercluster: id = (index in the level above << 5) + (zoom formed + 1) + N,
 * N = number of input features (null-geometry features included). Ids are > N, so they never
 * collide with the 0..N-1 input indexes a point is known by.
 *
 * JSON results are library-owned mc_buf text (dispose with mc_buf_dispose); `flags` may be
 * MC_SERIALIZE_PRETTY. Points come back as the input features, clusters as
 *   {"type":"Feature","id":ID,"properties":{...aggregates, "cluster":true,"cluster_id":ID,
 *    "point_count":N,"point_count_abbreviated":N or "1.2k"},"geometry":{"type":"Point",...}}
 * Hot paths also fill caller arrays of mc_cluster_item.
 */
#ifndef MAPCORE_CLUSTER_H
#define MAPCORE_CLUSTER_H

#include "common.h"
#include "geojson.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Shared types ---------------------------------------------------------------------- */

/* One item of a flat result. */
typedef struct mc_cluster_item {
    int64_t id;          /* a cluster's cluster_id, or a point's input index (0-based) */
    double lng;          /* a point's input position; a cluster's point-count-weighted centre */
    double lat;
    int64_t point_count; /* 1 for a point, >= 2 for a cluster */
} mc_cluster_item;

/* Which leaves to return. Named fields, because the SDKs disagree on the argument order
 * (iOS: offset, limit; web: limit, offset). Use MC_LIMIT_ALL for every leaf. */
typedef struct mc_page {
    size_t offset; /* leaves to skip */
    size_t limit;  /* most leaves to return */
} mc_page;

#define MC_LIMIT_ALL SIZE_MAX

/* ---- Cluster index (supercluster) ------------------------------------------------------ */

/* A point cluster index. Loading replaces its content atomically: queries running on other
 * threads see the old or the new points, never a mix. Any number of threads may query and load
 * one handle at once. Free with mc_cluster_index_free().
 * Building an index of 65,536 points or more (a load, or a clustering source's write) runs part
 * of the work on one short-lived helper thread, joined before the call returns; when no thread
 * can be started the work runs on the calling thread, with the same result. */
typedef struct mc_cluster_index mc_cluster_index;

/* Creates an empty index. `options_json` (NULL with len 0 for the defaults) is a JSON object
 * with supercluster's names and defaults: radius 40, extent 512, minZoom 0, maxZoom 16
 * (at most 30: the id keeps the zoom in 5 bits), minPoints 2, nodeSize 64, generateId false, and
 * clusterProperties {"name": [operator or reduce expression, map expression]}:
 *   {"sum": ["+", ["get", "scalerank"]]}                   operator + * max min all any
 *   {"sum": [["+", ["accumulated"], ["get", "sum"]], ["get", "scalerank"]]}   reduce expression
 * The map expression is evaluated on each point's feature; the reduce expression folds another
 * item in, with ["accumulated"] = the value so far and ["get", name] = the other item's value.
 * A failing evaluation gives null. Unknown keys are errors (MC_E_INVALID_ARGUMENT), bad
 * expressions MC_E_EXPRESSION. Thread-safe. */
MC_API int mc_cluster_index_new(const char *options_json, size_t len, mc_cluster_index **out);

/* Frees the index. NULL and already-freed handles are ignored. */
MC_API void mc_cluster_index_free(mc_cluster_index *index);

/* Indexes the features of `data` (a FeatureCollection, a Feature, or a Point geometry), replacing
 * what the index held. Features with null geometry are skipped but counted in N. Any other
 * non-Point geometry fails with MC_E_UNSUPPORTED naming the feature, and the index keeps its
 * previous content. The index keeps its own reference to the data; `data` may be freed after. */
MC_API int mc_cluster_index_load(mc_cluster_index *index, const mc_geojson *data);

/* Indexes `count` bare points (lng, lat pairs in `lnglat`) without properties, replacing what the
 * index held. Non-finite coordinates are MC_E_INVALID_ARGUMENT. No feature is stored per point
 * (about 16 bytes each instead of ~180): results show each as a Point feature with null
 * properties and no id. */
MC_API int mc_cluster_index_load_points(mc_cluster_index *index, const double *lnglat, size_t count);

/* Clusters and points in `bbox` = {west, south, east, north} (degrees) at `zoom` (floored,
 * clamped to minZoom..maxZoom+1), as a FeatureCollection. West > east crosses the antimeridian;
 * a box 360 degrees wide or more is the whole world. Non-finite values: MC_E_INVALID_ARGUMENT. */
MC_API int mc_cluster_index_get_clusters(mc_cluster_index *index, const double bbox[4], double zoom,
                                         uint32_t flags, mc_buf *out);

/* As mc_cluster_index_get_clusters() into `items` (room for `capacity`). *out_count receives the
 * number of items; when capacity is too small nothing is written and MC_E_BUFFER_TOO_SMALL is
 * returned with *out_count set to what is needed (pass capacity 0 and NULL to ask). */
MC_API int mc_cluster_index_get_clusters_flat(mc_cluster_index *index, const double bbox[4], double zoom,
                                              mc_cluster_item *items, size_t capacity, size_t *out_count);

/* supercluster's getTile(z, x, y): {"features":[{"type":1,"geometry":[[x,y]],"tags":{...},"id":..}]}
 * in tile pixels (0..extent, plus the radius margin and the antimeridian copies), or the text
 * "null" for an empty tile. z in 0..40, x and y in 0..2^z-1, else MC_E_INVALID_ARGUMENT. */
MC_API int mc_cluster_index_get_tile(mc_cluster_index *index, int z, int x, int y, uint32_t flags, mc_buf *out);

/* The items a cluster was formed from (the next zoom's view of it), as a FeatureCollection.
 * Unknown id: MC_E_NOT_FOUND. */
MC_API int mc_cluster_index_get_children(mc_cluster_index *index, int64_t cluster_id, uint32_t flags, mc_buf *out);

/* The input points of a cluster, depth-first in children order, skipping page->offset and
 * returning at most page->limit (NULL page: offset 0, limit 10), as a FeatureCollection.
 * Unknown id: MC_E_NOT_FOUND. */
MC_API int mc_cluster_index_get_leaves(mc_cluster_index *index, int64_t cluster_id, const mc_page *page,
                                       uint32_t flags, mc_buf *out);

/* As mc_cluster_index_get_leaves() into `items`, with the buffer convention of _get_clusters_flat. */
MC_API int mc_cluster_index_get_leaves_flat(mc_cluster_index *index, int64_t cluster_id, const mc_page *page,
                                            mc_cluster_item *items, size_t capacity, size_t *out_count);

/* The zoom at which the cluster splits into several items: the zoom to fly to on a click. Can
 * be maxZoom + 1. Unknown id: MC_E_NOT_FOUND. */
MC_API int mc_cluster_index_get_expansion_zoom(mc_cluster_index *index, int64_t cluster_id, int *out_zoom);

/* The convex hull of a cluster's points as a GeoJSON geometry: a Polygon, or a LineString /
 * Point when they are collinear / coincident (the SDKs' "show cluster area"). */
MC_API int mc_cluster_index_get_cluster_hull(mc_cluster_index *index, int64_t cluster_id, mc_buf *out);

/* Per zoom level, the number of items and of clusters, and the index's memory:
 * {"levels":[{"zoom":0,"items":32,"clusters":20},...],"points":162,"indexBytes":...}. */
MC_API int mc_cluster_index_stats(mc_cluster_index *index, mc_buf *out);

/* ---- Data source ----------------------------------------------------------------------- */

/* A GeoJSON data source. Every write builds the next state (cluster index included) aside and
 * publishes it at once; a failed write leaves the source exactly as it was. Reads and writes
 * may come from any number of threads: a read sees the state before or after a write, never a
 * mix. Free with mc_source_free(). */
typedef struct mc_source mc_source;

/* Creates an empty source. `options_json` (NULL with len 0 for the defaults) uses the SDK names
 * and defaults: cluster false, clusterRadius 50 (pixels at tile size 512), clusterMaxZoom
 * maxZoom - 1, clusterMinPoints 2, clusterProperties (as for mc_cluster_index_new), maxZoom 18,
 * buffer 128, tolerance 0.375, lineMetrics false, generateId false, promoteId null, filter null
 * (an expression or legacy filter; features failing it stay in the source but are left out of
 * the index and of mc_source_get_clusters). The cluster index uses GL JS's derivation: extent
 * 8192, radius = clusterRadius * 16. buffer, tolerance and lineMetrics are kept for tiling
 * non-point data, which MapCore does not do yet. Unknown keys: MC_E_INVALID_ARGUMENT. */
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
 * (fetched with libcurl: redirects followed, 60 s timeout). Errors: MC_E_IO (missing file,
 * network failure, HTTP status >= 400, with the reason), MC_E_PARSE / MC_E_INVALID_GEOJSON
 * (bad payload). On error the source is unchanged. Blocks while fetching; other threads keep
 * reading the previous state. */
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

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_CLUSTER_H */
