/*
 * MapCore geometry: bounding boxes, positions and convex hulls of GeoJSON values or of flat
 * position arrays. Include <mapcore.h> rather than this file.
 *
 * Flat positions are `count` longitude/latitude pairs interleaved in one array of 2*count
 * doubles: x0, y0, x1, y1, ...
 *
 * Threads: every function here is safe to call from any number of threads at once.
 */
#ifndef MAPCORE_GEOMETRY_H
#define MAPCORE_GEOMETRY_H

#include "common.h"
#include "geojson.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A longitude/latitude box. west > east means it crosses the antimeridian and covers
 * [west, 180] and [-180, east]. */
typedef struct mc_bbox {
    double west;
    double south;
    double east;
    double north;
} mc_bbox;

/* ---- Bounding boxes -------------------------------------------------------------------- */

/* The box of every position of a GeoJSON value (the SDK's BoundingBox.fromData), computed from
 * the coordinates ("bbox" members are not trusted). A value without positions (an empty
 * collection, null geometries, empty coordinates) has no box: *out_found = 0 and *out_box is
 * left untouched; that is a result, not an error.
 * Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT (an out pointer NULL). */
MC_API int mc_geojson_bbox(const mc_geojson *geojson, mc_bbox *out_box, int *out_found);

/* The box of `count` flat positions; *out_found = 0 when count is 0.
 * Errors: MC_E_INVALID_ARGUMENT (xy NULL with count > 0, an out pointer NULL, a value NaN or
 * infinite). */
MC_API int mc_bbox_of_positions(const double *xy, size_t count, mc_bbox *out_box, int *out_found);

/* The smallest box holding both. Boxes that do not cross the antimeridian merge by plain
 * min/max; when one does, the result goes the shorter way around the globe.
 * Errors: MC_E_INVALID_ARGUMENT (NULL, NaN, south > north). */
MC_API int mc_bbox_merge(const mc_bbox *a, const mc_bbox *b, mc_bbox *out_box);

/* *out_contains = 1 when the position is in the box, edges included.
 * Errors: MC_E_INVALID_ARGUMENT. */
MC_API int mc_bbox_contains(const mc_bbox *box, double lon, double lat, int *out_contains);

/* *out_intersects = 1 when the boxes share a point (touching counts).
 * Errors: MC_E_INVALID_ARGUMENT. */
MC_API int mc_bbox_intersects(const mc_bbox *a, const mc_bbox *b, int *out_intersects);

/* *out_crosses = 1 when west > east. Errors: MC_E_INVALID_ARGUMENT. */
MC_API int mc_bbox_crosses_antimeridian(const mc_bbox *box, int *out_crosses);

/* Splits a box that crosses the antimeridian into its western part [west, 180] and its
 * eastern part [-180, east] (*out_count = 2); any other box is copied as is (*out_count = 1).
 * out_parts must have room for 2 boxes. Errors: MC_E_INVALID_ARGUMENT. */
MC_API int mc_bbox_split_antimeridian(const mc_bbox *box, mc_bbox out_parts[2], size_t *out_count);

/* ---- Positions ------------------------------------------------------------------------- */

/* How many positions mc_geojson_positions() gives. Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT. */
MC_API int mc_geojson_position_count(const mc_geojson *geojson, size_t *out_count);

/* Copies every position of the value (the SDK's Math.positions(from:)) in document order as
 * flat longitude/latitude pairs into the caller's `out_xy`, which has room for `capacity`
 * positions (2*capacity doubles). Altitudes are left out. Allocates nothing.
 * *out_count receives the number of positions. When capacity is too small, nothing is written,
 * *out_count is the capacity needed, and the status is MC_E_BUFFER_TOO_SMALL.
 * Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT (out_count NULL, out_xy NULL with capacity > 0),
 *         MC_E_BUFFER_TOO_SMALL. */
MC_API int mc_geojson_positions(const mc_geojson *geojson, double *out_xy, size_t capacity,
                                size_t *out_count);

/* ---- Convex hull ----------------------------------------------------------------------- */

/* The convex hull of every position of the value (the SDK's Math.convexHull(from:)), as a new
 * geometry handle: a Point when all positions are equal, a LineString between the two extreme
 * points when they are collinear (the SDK draws a line for a two-point cluster), otherwise a
 * Polygon with one closed counter-clockwise ring (RFC 7946 right-hand rule) starting at the
 * vertex with the smallest longitude, then latitude. Duplicates and points on hull edges are
 * dropped. The result is exact: orientation is decided with robust predicates.
 * A value without positions has no hull: *out_hull = NULL with MC_OK.
 * out_hull: receives a new handle owned by the caller (mc_geojson_free), or NULL.
 * Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT (out NULL, a coordinate above 1e100 in
 *         magnitude), MC_E_NO_MEMORY. */
MC_API int mc_geojson_convex_hull(const mc_geojson *geojson, mc_geojson **out_hull);

/* The convex hull of `count` flat positions, written as flat positions into the caller's
 * `out_hull_xy` (room for `capacity` positions; count + 1 always suffices). *out_count gets:
 * 0 for no input, 1 for a point, 2 for a segment, or n >= 4 for a closed counter-clockwise
 * ring (first position repeated last), with the same rules as mc_geojson_convex_hull().
 * When capacity is too small, nothing is written, *out_count is the capacity needed and the
 * status is MC_E_BUFFER_TOO_SMALL.
 * Errors: MC_E_INVALID_ARGUMENT (NULL pointers with non-zero sizes, NaN, infinity, magnitude
 *         above 1e100), MC_E_BUFFER_TOO_SMALL, MC_E_NO_MEMORY. */
MC_API int mc_convex_hull_positions(const double *xy, size_t count, double *out_hull_xy,
                                    size_t capacity, size_t *out_count);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_GEOMETRY_H */
