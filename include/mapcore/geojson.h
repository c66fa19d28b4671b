/*
 * MapCore GeoJSON: parse RFC 7946 GeoJSON into an immutable handle, and serialize it back.
 * Include <mapcore.h> rather than this file.
 *
 * What the parser accepts (and decides where the RFC leaves room):
 *   - Every geometry type, Feature and FeatureCollection, with "bbox" members (4 or 6 numbers).
 *   - Feature ids that are strings or numbers; "geometry": null; "properties": null. A Feature
 *     missing "geometry" or "properties" reads as null for that member.
 *   - Property values of any JSON type. Integers stay exact in 64 bits (signed, or unsigned up
 *     to 18446744073709551615); other numbers are doubles. Duplicate keys: the last one wins.
 *   - Foreign members (members GeoJSON does not define) are kept and serialized back.
 *   - Positions of 2 or 3 numbers (longitude, latitude, altitude).
 *   - `"coordinates": []` as the empty geometry of any type.
 *   - Nesting up to mc_parse_options.max_depth levels (default 256, at most 512), and
 *     GeometryCollections nested up to 16 deep. These bounds keep the stack a parse, serialize
 *     or free uses under about 64 KB, so it is safe on threads with small stacks (128 KB).
 * What it rejects, with the line, column and JSONPath of the offending value:
 *   - Invalid JSON, invalid UTF-8 (in strings, including lone surrogate escapes), trailing data,
 *     numbers outside the double range (MC_E_PARSE).
 *   - Unknown "type" names, a missing "type", wrong coordinate nesting, non-numeric
 *     coordinates, a LineString of one position, a line of fewer than 2 positions in a
 *     MultiLineString, linear rings of fewer than 4 positions, rings whose first and last
 *     positions differ (MapCore does not close them for you; MC_PARSE_LENIENT keeps such
 *     rings, see below) (MC_E_INVALID_GEOJSON).
 *   - Positions of more than 3 numbers (MC_E_UNSUPPORTED).
 *   - Nesting deeper than either limit (MC_E_LIMIT).
 * A failed parse creates nothing.
 *
 * Threads: a mc_geojson is immutable; any number of threads may read it at once. Free it only
 * when no other call is using it.
 */
#ifndef MAPCORE_GEOJSON_H
#define MAPCORE_GEOJSON_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed GeoJSON object (geometry, Feature or FeatureCollection). */
typedef struct mc_geojson mc_geojson;

/* What a mc_geojson holds. */
enum {
    MC_GEOJSON_GEOMETRY = 1,
    MC_GEOJSON_FEATURE = 2,
    MC_GEOJSON_FEATURE_COLLECTION = 3
};

/* Geometry types (MC_GEOMETRY_NONE for a feature whose geometry is null). */
enum {
    MC_GEOMETRY_NONE = 0,
    MC_GEOMETRY_POINT = 1,
    MC_GEOMETRY_MULTI_POINT = 2,
    MC_GEOMETRY_LINE_STRING = 3,
    MC_GEOMETRY_MULTI_LINE_STRING = 4,
    MC_GEOMETRY_POLYGON = 5,
    MC_GEOMETRY_MULTI_POLYGON = 6,
    MC_GEOMETRY_COLLECTION = 7
};

#define MC_PARSE_OPTIONS_VERSION 2
#define MC_MAX_DEPTH_DEFAULT 256
#define MC_MAX_DEPTH_LIMIT 512

/* Parse options. Initialise with MC_PARSE_OPTIONS_INIT, then set what you need; fields added
 * later come with a new version number, so old callers keep working. */
typedef struct mc_parse_options {
    uint32_t version;   /* MC_PARSE_OPTIONS_VERSION */
    uint32_t max_depth; /* deepest array/object nesting accepted; 0 = MC_MAX_DEPTH_DEFAULT,
                           at most MC_MAX_DEPTH_LIMIT */
    uint32_t flags;     /* version 2: MC_PARSE_LENIENT or 0; read only when version >= 2, so a
                           caller built against version 1 keeps working */
} mc_parse_options;

/* Read rings as MapLibre reads them where RFC 7946 is stricter: a polygon ring of 1 to 3
 * positions, or one whose last position differs from its first, is kept as given instead of
 * refused (MapLibre's GeoJSON sources and tiles carry such rings and its expressions evaluate
 * them; GEOS-based operations on them, such as `distance`, report an error). MapCore reads
 * leniently where MapLibre does: the feature text of mc_expression_evaluate and
 * mc_expression_matches, mc_source_import and mc_source_update_data. Everything else in this
 * list holds in both modes. */
#define MC_PARSE_LENIENT 0x1u

#define MC_PARSE_OPTIONS_INIT {MC_PARSE_OPTIONS_VERSION, 0, 0}

/* Parses `len` bytes of GeoJSON text at `json` (need not be NUL-terminated).
 * options: NULL for defaults.
 * out: receives a new handle, owned by the caller, freed with mc_geojson_free(); set only on
 *      success.
 * Errors: MC_E_INVALID_ARGUMENT (json NULL with len > 0, out NULL, bad options),
 *         MC_E_PARSE, MC_E_INVALID_GEOJSON, MC_E_UNSUPPORTED, MC_E_LIMIT (see above),
 *         MC_E_NO_MEMORY. The error record gives line, column, byte offset and JSONPath.
 * Thread-safe. */
MC_API int mc_geojson_parse(const char *json, size_t len, const mc_parse_options *options,
                            mc_geojson **out);

/* Frees a handle. NULL does nothing; a pointer that is not a live handle is ignored. */
MC_API void mc_geojson_free(mc_geojson *geojson);

/* Which kind of object the handle holds (MC_GEOJSON_*).
 * Errors: MC_E_MISUSE (not a live handle), MC_E_INVALID_ARGUMENT (out NULL). */
MC_API int mc_geojson_kind(const mc_geojson *geojson, int *out_kind);

/* Number of features: the collection's size, 1 for a Feature, 0 for a bare geometry.
 * Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT. */
MC_API int mc_geojson_feature_count(const mc_geojson *geojson, size_t *out_count);

/* The geometry type (MC_GEOMETRY_*) of a bare geometry, or of the Feature's geometry
 * (MC_GEOMETRY_NONE when null). For a FeatureCollection: MC_E_INVALID_ARGUMENT.
 * Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT. */
MC_API int mc_geojson_geometry_type(const mc_geojson *geojson, int *out_type);

/* Serialization flags. */
#define MC_SERIALIZE_PRETTY 1u /* two-space indentation, positions on one line */
/* The same value as MessagePack (msgpack.org) instead of JSON text, where a call says it takes
 * this flag (with MC_SERIALIZE_PRETTY: MC_E_INVALID_ARGUMENT). Objects are maps with str keys in
 * the text's member order, arrays are arrays, strings str (UTF-8), null nil, booleans bool.
 * Every number has the type the text reads back as: an integer where the text has an integer,
 * integral coordinates included (the smallest form: fixint, else uint 8-64 when positive, int
 * 8-64 when negative), else float64. Maps and arrays use the map 32 / array 32 forms. The
 * mc_buf then holds binary bytes (read `len`). A string of 4 GiB or more, or a container of more
 * than 2^32 - 1 items, has no MessagePack form: MC_E_LIMIT, nothing written. For hosts that
 * build their objects from bytes faster than from text (the Python binding). */
#define MC_SERIALIZE_MSGPACK 2u

/* Writes the handle back as GeoJSON text into `out` (overwritten; see mc_buf_dispose).
 * Numbers use the shortest text that reads back to the same double; integers stay exact.
 * Parsing the output gives an equal value. Members come in a fixed order ("type", "id",
 * "bbox", "geometry"/"coordinates"/"geometries", "properties"), foreign members after them.
 * `flags`: MC_SERIALIZE_PRETTY, or MC_SERIALIZE_MSGPACK for the same value as MessagePack.
 * Errors: MC_E_MISUSE, MC_E_INVALID_ARGUMENT (out NULL, unknown flags, both flags),
 * MC_E_LIMIT (MessagePack only, see above), MC_E_NO_MEMORY. */
MC_API int mc_geojson_serialize(const mc_geojson *geojson, unsigned flags, mc_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_GEOJSON_H */
