/* C tests of NSPredicate/NSExpression format strings (mapcore/format.h). */
#include "test_support.h"

/* ---- format strings ------------------------------------------------------------------------ */

static char *format_json(const char *format, const char *args, int kind, int *status) {
    mc_buf buf = MC_BUF_INIT;
    char *copy = NULL;
    *status = mc_format_to_json(format, strlen(format), args, args ? strlen(args) : 0, kind, &buf);
    if (*status == MC_OK) {
        copy = malloc(buf.len + 1);
        memcpy(copy, buf.data, buf.len + 1);
    }
    mc_buf_dispose(&buf);
    return copy;
}

static int format_json_equals(const char *format, const char *args, int kind, const char *expected) {
    int st;
    char *json = format_json(format, args, kind, &st);
    int ok = json && strcmp(json, expected) == 0;
    if (!ok) fprintf(stderr, "  %s -> %s (status %d), expected %s\n", format, json ? json : "(null)", st, expected);
    free(json);
    return ok;
}

static int predicate_matches(const char *format, const char *args, const char *feature) {
    mc_expression *e = NULL;
    int match = -1;
    if (mc_predicate_compile(format, strlen(format), args, args ? strlen(args) : 0, &e) != MC_OK) return -1;
    if (mc_expression_matches(e, feature, strlen(feature), NULL, &match) != MC_OK) match = -1;
    mc_expression_free(e);
    return match;
}

static void test_format_strings(void) {
    const char *izzys = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[-84.5,39.1]},"
                        "\"properties\":{\"class\":\"food_and_drink\",\"name\":\"Izzy's\",\"temperature\":64}}";
    const char *cincinnati =
        "[{\"type\":\"Polygon\",\"coordinates\":[[[-85,39],[-84,39],[-84,40],[-85,40],[-85,39]]]}]";
    const char *deli = "class = 'food_and_drink' AND name CONTAINS 'Izzy' AND SELF IN %@";
    mc_expression *sentinel = (mc_expression *)&passed, *e = sentinel;
    mc_buf text = MC_BUF_INIT, args = MC_BUF_INIT;
    char *deep;
    int st, i;
    current_test = "format_strings";

    CHECK(
        format_json_equals("temperature != nil && temperature >= 100", NULL, MC_FORMAT_PREDICATE,
                           "[\"all\",[\"!=\",[\"get\",\"temperature\"],null],[\">=\",[\"get\",\"temperature\"],100]]"));
    CHECK(format_json_equals("MGL_MATCH(x, 0, 'zero', 'default')", NULL, MC_FORMAT_EXPRESSION,
                             "[\"match\",[\"get\",\"x\"],0,\"zero\",\"default\"]"));
    CHECK(format_json_equals("%K == 'US-OH'", "[\"ISO 3166-1:2006\"]", MC_FORMAT_PREDICATE,
                             "[\"==\",[\"get\",\"ISO 3166-1:2006\"],\"US-OH\"]"));
    CHECK(format_json_equals("%@ == 'Point'", "[{\"$expression\": [\"geometry-type\"]}]", MC_FORMAT_PREDICATE,
                             "[\"==\",[\"geometry-type\"],\"Point\"]"));
    /* MGL_FUNCTION keeps operators the engine does not know: conversion is not compilation. */
    CHECK(format_json_equals("MGL_FUNCTION('random', 1)", NULL, MC_FORMAT_EXPRESSION, "[\"random\",1]"));

    CHECK(predicate_matches(deli, cincinnati, izzys) == 1);
    CHECK(predicate_matches("temperature != nil && temperature >= 100", NULL, izzys) == 0);
    CHECK(predicate_matches("'QUEBEC' =[c] 'Quebec'", NULL, izzys) == 1);

    /* An expression format with a property spec: color stops. */
    CHECK_STATUS(mc_expression_compile_format(
                     JS("mgl_interpolate:withCurveType:parameters:stops:(temperature, 'linear', nil, %@)"),
                     JS("[{\"0\": \"yellow\", \"100\": \"red\"}]"), JS("{\"type\": \"color\"}"), &e),
                 MC_OK);
    CHECK(eval_equals(e, izzys, NULL, "\"rgba(255,92,0,1)\""));
    mc_expression_free(e);
    e = sentinel;

    /* JSON back to a format string, with the arguments its placeholders need. */
    CHECK_STATUS(
        mc_format_from_json(
            JS("[\"all\", [\"==\", [\"get\", \"a b\"], 1], [\"within\", {\"type\":\"Polygon\",\"coordinates\":[]}]]"),
            MC_FORMAT_PREDICATE, &text, &args),
        MC_OK);
    CHECK(text.data && strcmp(text.data, "%K == 1 AND SELF IN %@") == 0);
    CHECK(args.data && strcmp(args.data, "[\"a b\",{\"type\":\"Polygon\",\"coordinates\":[]}]") == 0);
    mc_buf_dispose(&text);
    mc_buf_dispose(&args);
    CHECK_STATUS(mc_format_from_json(JS("[\"+\", 1, [\"*\", 2, 3]]"), MC_FORMAT_EXPRESSION, &text, &args), MC_OK);
    CHECK(text.data && strcmp(text.data, "1 + 2 * 3") == 0);
    CHECK(args.data && strcmp(args.data, "[]") == 0);
    mc_buf_dispose(&text);
    mc_buf_dispose(&args);

    /* Errors: a code, a message naming the problem, the offset in the format string; no handle. */
    CHECK_STATUS(mc_predicate_compile(JS("name == 'Izzy"), NULL, 0, &e), MC_E_PARSE);
    CHECK(e == sentinel);
    CHECK(mc_last_error()->offset == 8 && mc_last_error()->line == 1 && mc_last_error()->column == 9);
    CHECK(strstr(mc_last_error()->message, "Unterminated string") != NULL);
    CHECK_STATUS(mc_predicate_compile(JS("(a == 1"), NULL, 0, &e), MC_E_PARSE);
    CHECK(mc_last_error()->offset == 7);
    CHECK_STATUS(mc_predicate_compile(JS("a BEGINSWITH 'x'"), NULL, 0, &e), MC_E_UNSUPPORTED);
    CHECK(strstr(mc_last_error()->message, "BEGINSWITH") != NULL);
    CHECK_STATUS(mc_expression_compile_format(JS("median:({1, 2})"), NULL, 0, NULL, 0, &e), MC_E_UNSUPPORTED);
    CHECK(strstr(mc_last_error()->message, "median:") != NULL);
    CHECK_STATUS(mc_expression_compile_format(JS("nosuch(1)"), NULL, 0, NULL, 0, &e), MC_E_PARSE);
    CHECK(strstr(mc_last_error()->message, "Unknown function 'nosuch'") != NULL);
    CHECK_STATUS(mc_predicate_compile(JS("a == %@"), NULL, 0, &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_predicate_compile(JS("a == %@"), JS("[1, 2]"), &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_predicate_compile(JS("a == %@"), JS("{\"not\": \"an array\"}"), &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_predicate_compile(JS("a == %@"), JS("[1"), &e), MC_E_PARSE);
    CHECK_STATUS(mc_predicate_compile(JS("name == '\xc3\x28'"), NULL, 0, &e), MC_E_PARSE);
    CHECK(mc_last_error()->offset == 9);
    CHECK_STATUS(mc_predicate_compile(JS("$zoomLevel + 1 > 2"), NULL, 0, &e), MC_E_EXPRESSION);
    CHECK_STATUS(mc_expression_compile_format(JS("a == 1"), NULL, 0, NULL, 0, &e), MC_E_PARSE);
    CHECK(e == sentinel);
    CHECK_STATUS(mc_predicate_compile(NULL, 3, NULL, 0, &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_predicate_compile(JS("a == 1"), NULL, 0, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_format_to_json(JS("a == 1"), NULL, 0, 7, &text), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_format_from_json(JS("[\"get\", \"a\"]"), MC_FORMAT_EXPRESSION, &text, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_format_from_json(JS("[\"get\""), MC_FORMAT_EXPRESSION, &text, &args), MC_E_PARSE);
    CHECK(text.data == NULL && args.data == NULL);

    /* 100,000 nested parentheses: a limit error at the 33rd, not a stack overflow. */
    deep = malloc(200020);
    for (i = 0; i < 100000; i++) deep[i] = '(';
    memcpy(deep + 100000, "a == 1", 6);
    for (i = 0; i < 100000; i++) deep[100006 + i] = ')';
    st = mc_predicate_compile(deep, 200006, NULL, 0, &e);
    CHECK(st == MC_E_LIMIT);
    CHECK(mc_last_error()->offset == 32);
    free(deep);
}

/* The deepest format string the limit allows (32 levels), on a 128 KB stack. */
static void *deep_format(void *arg) {
    int *ok = arg, i, n = 0, match = 0;
    char *text = malloc(8192);
    mc_expression *e = NULL;
    for (i = 0; i < 31; i++) text[n++] = '(';
    n += sprintf(text + n, "x == 1");
    for (i = 0; i < 31; i++) text[n++] = ')';
    *ok = mc_predicate_compile(text, (size_t)n, NULL, 0, &e) == MC_OK;
    *ok = *ok &&
          mc_expression_matches(e, JS("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"x\":1}}"), NULL,
                                &match) == MC_OK &&
          match == 1;
    mc_expression_free(e);
    e = NULL;
    n = 0;
    for (i = 0; i < 31; i++) n += sprintf(text + n, "uppercase(");
    n += sprintf(text + n, "x");
    for (i = 0; i < 31; i++) text[n++] = ')';
    *ok = *ok && mc_expression_compile_format(text, (size_t)n, NULL, 0, NULL, 0, &e) == MC_OK;
    mc_expression_free(e);
    e = NULL;
    /* JSON as deep as the engine compiles (64 levels) back to a format string; one more is refused. */
    for (i = 64; i <= 65; i++) {
        mc_buf f = MC_BUF_INIT, a = MC_BUF_INIT;
        int k;
        n = 0;
        for (k = 0; k < i; k++) n += sprintf(text + n, "[\"-\",");
        n += sprintf(text + n, "1");
        for (k = 0; k < i; k++) text[n++] = ']';
        *ok =
            *ok && mc_format_from_json(text, (size_t)n, MC_FORMAT_EXPRESSION, &f, &a) == (i == 64 ? MC_OK : MC_E_LIMIT);
        mc_buf_dispose(&f);
        mc_buf_dispose(&a);
    }
    n = 0;
    free(text);
    return NULL;
}

static void test_format_small_stack(void) {
    current_test = "format_small_stack";
    CHECK(on_small_stack(deep_format));
}

static void run(void) {
    test_format_strings();
    test_format_small_stack();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
