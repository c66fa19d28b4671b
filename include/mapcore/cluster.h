/*
 * MapCore point clustering: mc_cluster_index, mapbox/supercluster 8 with its option names and
 * defaults. Same projection (with Math.sin, log, exp and atan as V8 computes them, where
 * supercluster's tests run: C's differ in the last bit of a few percent of latitudes), float32
 * rounding, KD tree order, cluster ids, cluster properties, expansion zoom rules and tile format;
 * results come in supercluster's order. A clustering data
 * source (mapcore/source.h) keeps one of these over its Point features.
 * Include <mapcore.h> rather than this file.
 *
 * Cluster ids follow supercluster: id = (index in the level above << 5) + (zoom formed + 1) + N,
 * N = number of input features (null-geometry features included). Ids are > N, so they never
 * collide with the 0..N-1 input indexes a point is known by. (The one exception, a data
 * source's index in its default compatibility, follows.)
 *
 * supercluster-cpp's index: the cluster index of a data source in tileCompatibility
 * "maplibre-native" (its default; mapcore/source.h) is the one supercluster-cpp 0.5.0 builds,
 * the clustering MapLibre Native runs, with the same answers as it to every query it has
 * (getClusters, which it lacks, answers as supercluster JS's over this index):
 *   - positions are doubles (supercluster JS rounds its trees' to float32), projected with C's
 *     sin and log and unprojected with its atan and exp (glibc's), in kdbush.hpp's trees,
 *     whose order (a node's lower half first) is the order of a tile's features, of a cluster's
 *     children and leaves, and of the sums and folds that make a cluster;
 *   - id = (index in the level above << 5) + (zoom formed + 1), without N: cluster ids overlap
 *     input indexes (a flat item's point_count tells them apart: 1 for a point), and
 *     mc_cluster_index_get_features names a cluster by -1 - id;
 *   - a cluster that takes in no neighbour is formed again one zoom down, with a new id (its
 *     children: the cluster it was), where supercluster JS keeps it;
 *   - clusterProperties are mapped and folded as MapLibre Native does: a point whose properties
 *     are empty maps to nothing and is not folded; a cluster whose first point had none starts
 *     from null; each map expression sees the properties alone (no geometry or id);
 *   - point_count_abbreviated is always a string, "%.1fk" from 1,000 and "%fk" from 10,000 as
 *     its stream writes them ("1.2k", "12.000000k"), and tile coordinates round as C's round;
 *   - a level's items past the 2^27 its ids can number take no turn and are dropped from the
 *     zooms below, as supercluster-cpp drops them.
 * Not reproduced: the id 0, which is no cluster's (not found here) but which supercluster-cpp
 * answers: getChildren(0) gives the z0 items at z0 item 0's exact position whose parent id was
 * never set (its default, 0), getLeaves(0) their leaves, and getClusterExpansionZoom(0) 255. Nor
 * tile coordinates past int16 (a cluster radius from 1,536 px), which supercluster-cpp's int16
 * points wrap to the tile's other side; here they are written as they are.
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
 * can be started the work runs on the calling thread, with the same result. So does writing a
 * compact FeatureCollection of 20,000 items or more (half of it on the helper thread; the same
 * bytes), here and in mc_source_get_clusters. */
typedef struct mc_cluster_index mc_cluster_index;

/* Creates an empty index. `options_json` (NULL with len 0 for every default) is a JSON object with
 * supercluster's names; what it leaves out takes the default below (tests check these are the
 * effective defaults):
 *   option             default  meaning
 *   radius             40       cluster radius in pixels of a tile `extent` wide
 *   extent             512      tile extent the radius is measured against
 *   minZoom            0        lowest zoom with clusters
 *   maxZoom            16       highest zoom with clusters (at most 30: the id keeps the zoom in 5 bits)
 *   minPoints          2        fewest points that form a cluster
 *   nodeSize           64       KD tree leaf size
 *   generateId         false    tile features of points get their input index as id
 *   clusterProperties  null     aggregates {"name": [operator or reduce expression, map expression]}:
 *   {"sum": ["+", ["get", "scalerank"]]}                   operator + * max min all any
 *   {"sum": [["+", ["accumulated"], ["get", "sum"]], ["get", "scalerank"]]}   reduce expression
 * The map expression is evaluated on each point's feature; the reduce expression folds another
 * item in, with ["accumulated"] = the value so far and ["get", name] = the other item's value.
 * A failing evaluation gives null. Unknown keys and values of the wrong type or out of range are
 * errors (MC_E_INVALID_ARGUMENT, naming the option), bad expressions MC_E_EXPRESSION (path = the
 * failing node's key path). Thread-safe. */
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

/* As mc_cluster_index_get_children() into `items` (a child point's id is its input index), with
 * the buffer convention of _get_clusters_flat. */
MC_API int mc_cluster_index_get_children_flat(mc_cluster_index *index, int64_t cluster_id, mc_cluster_item *items,
                                              size_t capacity, size_t *out_count);

/* The input points of a cluster, depth-first in children order, skipping page->offset and
 * returning at most page->limit (NULL page: offset 0, limit 10), as a FeatureCollection.
 * Unknown id: MC_E_NOT_FOUND. */
MC_API int mc_cluster_index_get_leaves(mc_cluster_index *index, int64_t cluster_id, const mc_page *page,
                                       uint32_t flags, mc_buf *out);

/* As mc_cluster_index_get_leaves() into `items`, with the buffer convention of _get_clusters_flat. */
MC_API int mc_cluster_index_get_leaves_flat(mc_cluster_index *index, int64_t cluster_id, const mc_page *page,
                                            mc_cluster_item *items, size_t capacity, size_t *out_count);

/* The items `ids` name (count of them, in that order; NULL only with count 0) as a
 * FeatureCollection written as the calls above write them: an id in 0..N-1 is the point of that
 * input index (its input feature); -1 - c the cluster with cluster id c (its feature with its
 * properties); in supercluster JS's numbering a cluster id itself too (it is above N). In
 * supercluster-cpp's numbering (above) ids past N name nothing: use -1 - c for clusters.
 * With the _flat queries this answers a query in two steps, fetching only the features a caller
 * does not hold yet: the Python binding keeps each point's dict once fetched, as supercluster JS
 * hands back its input features. `flags`: MC_SERIALIZE_PRETTY, or MC_SERIALIZE_MSGPACK for
 * the same FeatureCollection as MessagePack (what the Python binding reads; MC_E_LIMIT as
 * mapcore/geojson.h says); both, or other bits: MC_E_INVALID_ARGUMENT. An id that names
 * neither: MC_E_NOT_FOUND naming it, and nothing is written. */
MC_API int mc_cluster_index_get_features(mc_cluster_index *index, const int64_t *ids, size_t count, uint32_t flags,
                                         mc_buf *out);

/* The zoom at which the cluster splits into several items: the zoom to fly to on a click. Can
 * be maxZoom + 1. Unknown id: MC_E_NOT_FOUND. */
MC_API int mc_cluster_index_get_expansion_zoom(mc_cluster_index *index, int64_t cluster_id, int *out_zoom);

/* The convex hull of a cluster's points as a GeoJSON geometry: a Polygon, or a LineString /
 * Point when they are collinear / coincident (the SDKs' "show cluster area"). */
MC_API int mc_cluster_index_get_cluster_hull(mc_cluster_index *index, int64_t cluster_id, mc_buf *out);

/* Per zoom level, the number of items and of clusters, and the index's memory:
 * {"levels":[{"zoom":0,"items":32,"clusters":20},...],"points":162,"indexBytes":...}.
 * indexBytes counts the trees' and tables' elements (not allocator slack), so the same data and
 * options always give the same stats. */
MC_API int mc_cluster_index_stats(mc_cluster_index *index, mc_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_CLUSTER_H */
