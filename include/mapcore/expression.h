/*
 * MapCore style expressions and filters: the JSON expression language of the MapLibre/Mapbox
 * style spec, compiled once into an immutable handle and evaluated against features.
 * Include <mapcore.h> rather than this file.
 *
 * Semantics follow maplibre-style-spec (435-case conformance suite: see README). Beyond it:
 *  - `within` accepts every feature geometry type: true when every position of the feature lies
 *    in the interior of the polygons (a position on a boundary is not within). Empty or missing
 *    geometry: false. The interior is GEOS's: rays crossing an odd number of ring edges, over all
 *    rings of all polygons given (so where two given polygons overlap, the overlap is outside).
 *    Points are located by MapCore itself with that exact rule and exact arithmetic (the answers
 *    equal GEOS prepared containsProperly), other geometries by GEOS.
 *  - `distance` accepts every geometry type on both sides and returns meters, measured in the
 *    "cheap ruler" flat frame at the latitude of the feature's first position (0 when touching
 *    or containing). Missing or empty geometry: NaN (null in JSON results).
 *  - With a canonical tile id in the context, within/distance first quantize the feature to
 *    that tile's 8192-unit grid, as renderers do; without one, coordinates are used as given.
 *  - `collator` compares without ICU: Latin-script base letters, then accents, then case, with
 *    German and Nordic tailorings; `number-format` knows common separators and currencies.
 *  - Numbers are doubles, as in the style spec: integer properties above 2^53 lose precision.
 */
#ifndef MAPCORE_EXPRESSION_H
#define MAPCORE_EXPRESSION_H

#include "common.h"
#include "geojson.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A compiled expression or filter. Immutable: any number of threads may evaluate one handle
 * at once. Free with mc_expression_free(). */
typedef struct mc_expression mc_expression;

/* Flags of mc_expression_flags(). */
#define MC_EXPRESSION_FEATURE_CONSTANT 1u /* the result does not depend on the feature */
#define MC_EXPRESSION_ZOOM_CONSTANT 2u    /* the result does not depend on zoom */
#define MC_EXPRESSION_STATE_CONSTANT 4u   /* the result does not depend on feature state */

/* Compiles `json` (UTF-8, `len` bytes): an expression array, a bare constant, or a legacy
 * property function object ({"stops": ...}). `property_spec` (may be NULL, then `spec_len` must
 * be 0) is a style-spec property specification as JSON, e.g.
 *   {"type": "color", "property-type": "data-driven",
 *    "expression": {"interpolated": true, "parameters": ["zoom", "feature"]}}
 * Its "type" decides how the result is coerced (`color`, `string`, `number`, `boolean`,
 * `formatted`, `padding`, `numberArray`, `colorArray`, `resolvedImage`, `array` with
 * "value"/"length", `enum` with "values"); "property-type" and "parameters" decide whether data
 * and zoom may drive it; an optional "name" (e.g. "heatmap-color", "line-gradient") limits
 * heatmap-density and line-progress to those properties. Without a spec: data-driven,
 * interpolated, zoom and feature allowed, any result type.
 * Constant sub-expressions are folded at compile time.
 * On success *out receives a new handle. Errors: MC_E_PARSE (not JSON; location in the error
 * record), MC_E_EXPRESSION (does not type-check; the message uses the style spec's wording,
 * the record's `path` is the failing node's key path such as "[2][1]"; several errors are
 * joined with "; "), MC_E_INVALID_ARGUMENT (bad property spec, NULL out). Nesting deeper than
 * the JSON depth limit (256) is MC_E_LIMIT. Thread-safe. */
MC_API int mc_expression_compile(const char *json, size_t len, const char *property_spec, size_t spec_len,
                                 mc_expression **out);

/* Compiles a filter: an expression that must produce a boolean, or a legacy filter
 * (["==", "key", v], ["in", "$type", ...], ["has", "k"], ["all"/"any"/"none", ...], $type, $id)
 * as the iOS SDKs document them. feature-state is not allowed in filters. Errors and ownership
 * as mc_expression_compile(). Thread-safe. */
MC_API int mc_filter_compile(const char *json, size_t len, mc_expression **out);

/* Frees a compiled expression. NULL and already-freed handles are ignored. Do not free a handle
 * while another thread still evaluates it. */
MC_API void mc_expression_free(mc_expression *expr);

/* What an evaluation may read besides the feature. Zero-initialise with
 * MC_EVAL_CONTEXT_INIT, then set what you have; `has_*` say which numbers are set. JSON members
 * are UTF-8 text with explicit lengths (NULL with length 0 when absent). */
typedef struct mc_eval_context {
    int version; /* MC_EVAL_CONTEXT_VERSION */
    int has_zoom;
    double zoom;
    int has_heatmap_density;
    double heatmap_density;
    int has_line_progress;
    double line_progress;
    int has_elevation;
    double elevation;
    const char *feature_state; /* JSON object read by ["feature-state", key] */
    size_t feature_state_len;
    const char *global_state; /* JSON object read by ["global-state", key] */
    size_t global_state_len;
    const char *available_images; /* JSON array of image names for ["image", name] */
    size_t available_images_len;
    const char *accumulated; /* JSON value of ["accumulated"] (cluster reduce expressions) */
    size_t accumulated_len;
    int has_canonical; /* the tile the feature is in, for within/distance quantization */
    int canonical_z, canonical_x, canonical_y;
} mc_eval_context;

#define MC_EVAL_CONTEXT_VERSION 1
#define MC_EVAL_CONTEXT_INIT                                                                            \
    {MC_EVAL_CONTEXT_VERSION, 0, 0.0, 0, 0.0, 0, 0.0, 0, 0.0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0, 0, 0, 0}

/* Evaluates against one feature: `feature` is GeoJSON text (a Feature, or a bare geometry), read
 * leniently as MapLibre reads features (MC_PARSE_LENIENT, mapcore/geojson.h), or NULL with
 * length 0 for no feature. `ctx` may be NULL (no zoom, no state).
 * *out receives the result as JSON text in a library-owned buffer (release with
 * mc_buf_dispose()): numbers, strings, booleans, null, arrays and objects as JSON; colors as
 * "rgba(r,g,b,a)" strings (what to-string gives; r, g, b 0..255); formatted text as
 * {"sections": [...]}; images as {"name", "available"}; padding/numberArray/colorArray as
 * {"values": [...]}. NaN and infinities are null.
 * Errors: MC_E_EVALUATION (the spec's run-time error, e.g. "Expected value to be of type
 * number, but found null instead."), MC_E_PARSE / MC_E_INVALID_GEOJSON (bad feature or
 * context JSON), MC_E_MISUSE (bad handle). Thread-safe, also on one handle. */
MC_API int mc_expression_evaluate(const mc_expression *expr, const char *feature, size_t feature_len,
                                  const mc_eval_context *ctx, mc_buf *out);

/* Evaluates a boolean expression (usually from mc_filter_compile()) against one feature.
 * *out_match is 1 or 0. A run-time error returns MC_E_EVALUATION with *out_match 0; a result
 * that is not a boolean is MC_E_TYPE. Other errors and threads as mc_expression_evaluate(). */
MC_API int mc_expression_matches(const mc_expression *expr, const char *feature, size_t feature_len,
                                 const mc_eval_context *ctx, int *out_match);

/* Batch evaluation over the features of a parsed GeoJSON handle (a FeatureCollection, a single
 * Feature, or a geometry counted as one feature), into arrays a renderer can upload directly.
 * `capacity` is the number of features the arrays hold; *out_count receives the number of
 * features. When capacity is too small nothing is written and MC_E_BUFFER_TOO_SMALL is returned
 * with *out_count set to what is needed (pass capacity 0 and NULL arrays to ask).
 * `errors` (may be NULL) receives per feature 0, or 1 when that feature's evaluation failed or
 * gave a value of another type; the value written is then NaN (numbers, colors) or 0 (booleans).
 * The call itself fails only for bad arguments or handles. Thread-safe, also on one handle.
 * Speed: common data-driven shapes (a property compared, matched, stepped or interpolated over
 * literal outputs; all/any/!; has; + - * /; `within` for Point features) run as kernels over
 * per-property columns, and only the features they cannot decide go through the expression
 * tree, with identical results. The first batch that reads a property of a GeoJSON handle
 * builds its column (about 13 bytes per feature; Point positions 16 bytes per feature), which
 * stays with the handle and serves every later batch over it.
 *  - _numbers: one double per feature.
 *  - _colors: four floats per feature (r, g, b, a in 0..1, r/g/b premultiplied by alpha, as GL
 *    renderers upload them); `out` holds 4 * capacity floats. Strings are parsed as CSS colors.
 *  - _booleans: one byte (0/1) per feature. */
MC_API int mc_expression_evaluate_numbers(const mc_expression *expr, const mc_geojson *features,
                                          const mc_eval_context *ctx, double *out, uint8_t *errors,
                                          size_t capacity, size_t *out_count);
MC_API int mc_expression_evaluate_colors(const mc_expression *expr, const mc_geojson *features,
                                         const mc_eval_context *ctx, float *out, uint8_t *errors,
                                         size_t capacity, size_t *out_count);
MC_API int mc_expression_evaluate_booleans(const mc_expression *expr, const mc_geojson *features,
                                           const mc_eval_context *ctx, uint8_t *out, uint8_t *errors,
                                           size_t capacity, size_t *out_count);

/* The compiled expression as JSON text (constants folded, legacy forms converted); compiling it
 * again gives an equivalent expression. Library-owned buffer. Thread-safe. */
MC_API int mc_expression_serialize(const mc_expression *expr, mc_buf *out);

/* The result type in the style spec's spelling ("number", "color", "array<number, 2>", ...),
 * into a library-owned buffer. Thread-safe. */
MC_API int mc_expression_type(const mc_expression *expr, mc_buf *out);

/* MC_EXPRESSION_* flags of the compiled expression. Thread-safe. */
MC_API int mc_expression_flags(const mc_expression *expr, unsigned *out_flags);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_EXPRESSION_H */
