/*
 * MapCore format strings: the NSPredicate/NSExpression syntax of the Mapbox and MapLibre iOS SDKs
 * ("temperature != nil && temperature >= 100", "MGL_MATCH(x, 0, 'zero', 'default')"), read into
 * the same compiled expressions as the JSON form, and JSON expressions written back as format
 * strings. Include <mapcore.h> rather than this file.
 *
 * Grammar: the subset the SDK documents. Literals (numbers, '…'/"…" strings with C escapes,
 * TRUE/FALSE/YES/NO, NIL/NULL, aggregates {1, 2}), key paths (a.b, #reserved), %K and %@
 * placeholders, SELF, $variables ($zoomLevel, $heatmapDensity, $lineProgress, $geometryType,
 * $featureIdentifier, $featureAttributes, $featureAccumulated, MGL_LET names), comparisons
 * (= == != <> < <= =< > >= => BETWEEN IN CONTAINS) with [c]/[d]/[cd], ANY/SOME/ALL/NONE,
 * AND/&&/OR/||/NOT/!, TRUEPREDICATE/FALSEPREDICATE, arithmetic (+ - * / ** and unary minus),
 * array[index] (with FIRST/LAST/SIZE), TERNARY, CAST, FUNCTION(target, 'selector', …), the
 * Foundation functions style expressions can express and the SDK's mgl_/MGL_ functions, in
 * either the Mapbox (MGL_, mgl_) or MapLibre (MLN_, mln_) spelling. The conversion to JSON is
 * the MapLibre SDK's (tested against the 90 pairs of its own darwin tests).
 * Rejected with MC_E_UNSUPPORTED and a message naming the construct: BEGINSWITH, ENDSWITH, LIKE,
 * MATCHES, the [l] and [n] options, options combined with ANY/ALL, ANY with an operator other
 * than =, ALL with one other than !=, median: mode: stddev: random randomn: now bitwise*:
 * leftshift:by: rightshift:by: onesComplement: distanceToLocation:fromLocation:, SUBQUERY, CAST
 * to other types.
 * No automatic type conversion: `x == 5` does not match the string "5"; CAST converts.
 *
 * Arguments: `args_json` is a JSON array with one value per placeholder, in order (NULL with
 * length 0 for none). `%K` takes a string, the name of one property (a dot in it is part of the
 * name). `%@` takes any JSON value: scalars are constants, arrays aggregates, GeoJSON objects
 * shapes (SELF IN %@, mgl_distanceFrom(%@)), {"$expression": E} the JSON expression E (the SDK's
 * NSExpression arguments, e.g. {"$expression": ["geometry-type"]}), and other objects
 * dictionaries: stops ({"0": 1, "10": 5}; outputs are JSON expressions, so an array constant is
 * written ["literal", [...]]), a mgl_expressionWithContext: context, text attributes.
 *
 * Errors of every function here: MC_E_PARSE for syntax errors and text that is not UTF-8 (the
 * error record's offset/line/column point into the format string; the message ends with
 * "(at offset N)"), MC_E_UNSUPPORTED as above, MC_E_LIMIT for nesting deeper than 32 levels
 * (parentheses, calls, aggregates, prefix operators, and chained arithmetic: a + b + c nests
 * twice), MC_E_INVALID_ARGUMENT when the number of arguments differs from the number of placeholders or
 * args_json is not a JSON array, MC_E_EXPRESSION when the result does not convert or compile.
 * All functions are thread-safe.
 */
#ifndef MAPCORE_FORMAT_H
#define MAPCORE_FORMAT_H

#include "common.h"
#include "expression.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which grammar a format string is read with. */
#define MC_FORMAT_PREDICATE 1  /* NSPredicate: a condition such as "x > 1 AND y = 'a'" */
#define MC_FORMAT_EXPRESSION 2 /* NSExpression: a value such as "uppercase(name)" */

/* Compiles a predicate format string into a filter, as mc_filter_compile() does for JSON: the
 * handle evaluates with mc_expression_matches() and the batch functions. On success *out receives
 * a new handle (free with mc_expression_free()). */
MC_API int mc_predicate_compile(const char *format, size_t len, const char *args_json, size_t args_len,
                                mc_expression **out);

/* Compiles an expression format string, as mc_expression_compile() does for JSON, with the same
 * optional `property_spec` (NULL with spec_len 0 for none; e.g. {"type": "color"} for stops
 * whose outputs are color strings). $zoomLevel is allowed only as the input of a top-level
 * interpolation or step. On success *out receives a new handle. */
MC_API int mc_expression_compile_format(const char *format, size_t len, const char *args_json, size_t args_len,
                                        const char *property_spec, size_t spec_len, mc_expression **out);

/* The style-spec JSON expression a format string converts to (`kind` MC_FORMAT_PREDICATE or
 * MC_FORMAT_EXPRESSION), into a library-owned buffer (release with mc_buf_dispose()). It is not
 * compiled: operators the engine does not know, passed through MGL_FUNCTION, are kept. */
MC_API int mc_format_to_json(const char *format, size_t len, const char *args_json, size_t args_len, int kind,
                             mc_buf *out);

/* A format string for a JSON expression (`kind` MC_FORMAT_PREDICATE reads legacy filters as the
 * iOS SDK documents them). *format_out receives the text, *args_out the JSON array of arguments
 * its placeholders need (often "[]": dictionaries, shapes and property names that are not key
 * paths travel as arguments). Reading the text back with those arguments gives an equivalent
 * expression. Both buffers are library-owned; on error neither is set. Forms without a format
 * syntax of their own are written as MGL_FUNCTION('operator', …). */
MC_API int mc_format_from_json(const char *json, size_t len, int kind, mc_buf *format_out, mc_buf *args_out);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_FORMAT_H */
