/*
 * MapCore Mapbox Vector Tiles: decoding MVT 2.1 tiles (plain or gzip-compressed) into GeoJSON
 * features. Writing MVT is part of the tile producers (mc_tile_index_get_tile_mvt in
 * mapcore/tile.h, mc_source_get_tile_mvt in mapcore/source.h).
 * Include <mapcore.h> rather than this file.
 */
#ifndef MAPCORE_VECTOR_TILE_H
#define MAPCORE_VECTOR_TILE_H

#include "common.h"
#include "geojson.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Coordinates of decoded features: tile coordinates (0..extent, y down) unless this flag is
 * given, then longitude/latitude computed from the tile's z/x/y as vector-tile-js's
 * toGeoJSON(x, y, z) does. */
#define MC_MVT_LNGLAT 0x100u

/* Decodes the `len` bytes at `data` (an MVT; gzip data, starting 0x1f 0x8b, is inflated first,
 * refused with MC_E_LIMIT beyond 64 MiB inflated) into
 *   {"layers": {"<name>": {"version": 2, "extent": 4096, "features": FeatureCollection}, ...}}
 * in the tile's layer order. Features keep their id (when present), properties and geometry:
 * points as Point/MultiPoint, lines as LineString/MultiLineString, polygons as Polygon/
 * MultiPolygon with rings grouped by their signed area (vector-tile-js's classifyRings).
 * `z`, `x`, `y` are used only with MC_MVT_LNGLAT (then z in 0..30 and x, y in 0..2^z-1).
 * `flags`: MC_MVT_LNGLAT, MC_SERIALIZE_PRETTY. A malformed or truncated tile is MC_E_PARSE with
 * a message naming what is wrong; a tile is never trusted to be well formed. Thread-safe. */
MC_API int mc_mvt_decode(const void *data, size_t len, int z, int x, int y, uint32_t flags, mc_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_VECTOR_TILE_H */
