/* C tests of style expressions and filters: compile, evaluate, batches, errors, threads (mapcore/expression.h). */
#include "test_support.h"

/* ---- expressions ------------------------------------------------------------------------ */

static const char *quake = "{\"type\":\"Feature\",\"id\":3,\"geometry\":{\"type\":\"Point\",\"coordinates\":[2,3]},"
                           "\"properties\":{\"mag\":5.5,\"kind\":\"earthquake\",\"population\":250000}}";

static void test_expression_compile_and_evaluate(void) {
    mc_expression *e;
    mc_eval_context ctx = MC_EVAL_CONTEXT_INIT;
    mc_buf buf = MC_BUF_INIT;
    unsigned flags = 0;
    int st;
    current_test = "expression_evaluate";

    e = compile("[\"step\", [\"get\", \"population\"], 1, 100000, 2, 1000000, 3]", NULL);
    CHECK(e != NULL);
    CHECK(eval_equals(e, quake, NULL, "2"));
    CHECK(eval_equals(e, "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"population\":5}}", NULL, "1"));
    CHECK_STATUS(mc_expression_flags(e, &flags), MC_OK);
    CHECK(flags == (MC_EXPRESSION_ZOOM_CONSTANT | MC_EXPRESSION_STATE_CONSTANT));
    CHECK_STATUS(mc_expression_type(e, &buf), MC_OK);
    CHECK(strcmp(buf.data, "number") == 0);
    mc_buf_dispose(&buf);
    /* The property is missing: a run-time error, with the spec's message. */
    CHECK(eval_text(e, "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{}}", NULL, &st) == NULL);
    CHECK(st == MC_E_EVALUATION);
    CHECK(strcmp(mc_last_error()->message, "Expected value to be of type number, but found null instead.") == 0);
    mc_expression_free(e);

    /* A color property: strings become colors, results print as CSS. */
    e = compile("[\"interpolate\", [\"linear\"], [\"get\", \"mag\"], 0, \"#ffff00\", 5, \"#ff0000\", 10, \"#ffffff\"]",
                "{\"type\": \"color\"}");
    CHECK(e != NULL);
    CHECK(eval_equals(e, quake, NULL, "\"rgba(255,26,26,1)\""));
    mc_expression_free(e);

    /* Zoom and context values. */
    e = compile("[\"interpolate\", [\"exponential\", 2], [\"zoom\"], 1, 2, 19, 10000]", NULL);
    ctx.has_zoom = 1;
    ctx.zoom = 19;
    CHECK(eval_equals(e, NULL, &ctx, "10000"));
    CHECK_STATUS(mc_expression_flags(e, &flags), MC_OK);
    CHECK(flags == (MC_EXPRESSION_FEATURE_CONSTANT | MC_EXPRESSION_STATE_CONSTANT));
    mc_expression_free(e);
    e = compile("[\"concat\", [\"feature-state\", \"hover\"], \"/\", [\"global-state\", \"theme\"], \"/\", [\"id\"]]",
                NULL);
    ctx.feature_state = "{\"hover\": true}";
    ctx.feature_state_len = strlen(ctx.feature_state);
    ctx.global_state = "{\"theme\": \"dark\"}";
    ctx.global_state_len = strlen(ctx.global_state);
    CHECK(eval_equals(e, quake, &ctx, "\"true/dark/3\""));
    ctx.global_state = "[1]";
    ctx.global_state_len = 3;
    CHECK(eval_text(e, quake, &ctx, &st) == NULL && st == MC_E_INVALID_ARGUMENT);
    ctx.version = 0;
    CHECK(eval_text(e, quake, &ctx, &st) == NULL && st == MC_E_INVALID_ARGUMENT);
    mc_expression_free(e);

    /* Serialization folds constants. */
    e = compile("[\"+\", 1, [\"*\", 2, 3], [\"get\", \"mag\"]]", NULL);
    CHECK_STATUS(mc_expression_serialize(e, &buf), MC_OK);
    /* The inferred type assertion is part of the compiled form. */
    CHECK(strcmp(buf.data, "[\"+\",1,6,[\"number\",[\"get\",\"mag\"]]]") == 0);
    mc_buf_dispose(&buf);
    mc_expression_free(e);

    /* within (GEOS) on a feature given as a bare geometry. */
    e = compile("[\"within\", {\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}]", NULL);
    CHECK(eval_equals(e, "{\"type\":\"Point\",\"coordinates\":[5,5]}", NULL, "true"));
    CHECK(eval_equals(e, "{\"type\":\"Point\",\"coordinates\":[10,5]}", NULL, "false"));
    CHECK(eval_equals(e, NULL, NULL, "false"));
    mc_expression_free(e);
}

static void test_expression_errors(void) {
    mc_expression *sentinel = (mc_expression *)&passed, *e = sentinel;
    const char *bad_type = "[\"+\", 1, [\"*\", 2, \"x\"]]";
    char deep[8192];
    int i, n = 0, st;
    mc_buf buf = MC_BUF_INIT;
    current_test = "expression_errors";
    CHECK_STATUS(mc_expression_compile(bad_type, strlen(bad_type), NULL, 0, &e), MC_E_EXPRESSION);
    CHECK(e == sentinel);
    CHECK(strcmp(mc_last_error()->path, "[2][2]") == 0);
    CHECK(strstr(mc_last_error()->message, "Expected number but found string instead.") != NULL);
    CHECK_STATUS(mc_expression_compile("[\"nope\"]", strlen("[\"nope\"]"), NULL, 0, &e), MC_E_EXPRESSION);
    CHECK_STATUS(mc_expression_compile("[\"get\"", strlen("[\"get\""), NULL, 0, &e), MC_E_PARSE);
    CHECK_STATUS(mc_expression_compile("[\"get\", \"a\"]", strlen("[\"get\", \"a\"]"), "{\"type\": 3}",
                                       strlen("{\"type\": 3}"), &e),
                 MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_compile("\xff\"", strlen("\xff\""), NULL, 0, &e), MC_E_PARSE);
    CHECK_STATUS(mc_expression_compile(NULL, 5, NULL, 0, &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_compile("1", strlen("1"), NULL, 0, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_compile("1", (size_t)-1, NULL, 0, &e), MC_E_INVALID_ARGUMENT);
    /* Zoom outside a top-level curve; data in a data-constant property. */
    CHECK_STATUS(mc_expression_compile("[\"+\", [\"zoom\"], 1]", strlen("[\"+\", [\"zoom\"], 1]"), NULL, 0, &e),
                 MC_E_EXPRESSION);
    CHECK_STATUS(mc_expression_compile("[\"get\", \"a\"]", strlen("[\"get\", \"a\"]"),
                                       "{\"property-type\": \"data-constant\"}",
                                       strlen("{\"property-type\": \"data-constant\"}"), &e),
                 MC_E_EXPRESSION);
    /* 1,000 levels: the JSON depth limit answers, never the stack. */
    for (i = 0; i < 1000; i++) n += sprintf(deep + n, "[\"-\",");
    n += sprintf(deep + n, "1");
    for (i = 0; i < 1000; i++) deep[n++] = ']';
    CHECK_STATUS(mc_expression_compile(deep, (size_t)n, NULL, 0, &e), MC_E_LIMIT);
    CHECK(e == sentinel);
    /* Misuse: NULL and freed handles, a GeoJSON handle passed as an expression. */
    CHECK_STATUS(mc_expression_evaluate(NULL, NULL, 0, NULL, &buf), MC_E_MISUSE);
    e = compile("1", NULL);
    mc_expression_free(e);
    CHECK_STATUS(mc_expression_evaluate(e, NULL, 0, NULL, &buf), MC_E_MISUSE);
    mc_expression_free(e); /* double free is ignored */
    {
        mc_geojson *g = parse("{\"type\":\"Point\",\"coordinates\":[1,2]}");
        CHECK_STATUS(mc_expression_evaluate((mc_expression *)g, NULL, 0, NULL, &buf), MC_E_MISUSE);
        mc_geojson_free(g);
    }
    mc_expression_free(NULL);
    /* Bad feature text. */
    e = compile("[\"get\", \"a\"]", NULL);
    CHECK(eval_text(e, "{\"type\":\"Feature\"", NULL, &st) == NULL && st == MC_E_PARSE);
    CHECK(eval_text(e, "{\"type\":\"FeatureCollection\",\"features\":[]}", NULL, &st) == NULL &&
          st == MC_E_INVALID_ARGUMENT);
    mc_expression_free(e);
}

static void test_filters(void) {
    mc_expression *f;
    int match = -1;
    current_test = "filters";
    f = NULL;
    CHECK_STATUS(mc_filter_compile("[\"all\", [\"==\", \"kind\", \"earthquake\"], [\">=\", \"mag\", 4.5]]",
                                   strlen("[\"all\", [\"==\", \"kind\", \"earthquake\"], [\">=\", \"mag\", 4.5]]"), &f),
                 MC_OK);
    CHECK_STATUS(mc_expression_matches(f, quake, strlen(quake), NULL, &match), MC_OK);
    CHECK(match == 1);
    mc_expression_free(f);
    CHECK_STATUS(
        mc_filter_compile("[\"in\", \"$type\", \"LineString\"]", strlen("[\"in\", \"$type\", \"LineString\"]"), &f),
        MC_OK);
    CHECK_STATUS(mc_expression_matches(f, quake, strlen(quake), NULL, &match), MC_OK);
    CHECK(match == 0);
    mc_expression_free(f);
    /* A filter must be boolean; feature-state is refused in filters. */
    CHECK_STATUS(mc_filter_compile("[\"get\", \"kind\"]", strlen("[\"get\", \"kind\"]"), &f),
                 MC_OK); /* value: asserted boolean at run time */
    CHECK_STATUS(mc_expression_matches(f, quake, strlen(quake), NULL, &match), MC_E_EVALUATION);
    CHECK(match == 0);
    mc_expression_free(f);
    CHECK_STATUS(mc_filter_compile("[\"+\", 1, 2]", strlen("[\"+\", 1, 2]"), &f), MC_E_EXPRESSION);
    CHECK_STATUS(mc_filter_compile("[\"==\", [\"feature-state\", \"x\"], 1]",
                                   strlen("[\"==\", [\"feature-state\", \"x\"], 1]"), &f),
                 MC_E_EXPRESSION);
}

static void test_expression_batches(void) {
    const char *fc = "{\"type\":\"FeatureCollection\",\"features\":["
                     "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"mag\":0}},"
                     "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"mag\":5}},"
                     "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"mag\":\"x\"}}]}";
    mc_geojson *g = parse(fc);
    mc_expression *num = compile("[\"*\", [\"get\", \"mag\"], 2]", NULL);
    mc_expression *col =
        compile("[\"interpolate\", [\"linear\"], [\"get\", \"mag\"], 0, \"rgba(255,0,0,0.5)\", 5, \"#0000ff\"]",
                "{\"type\": \"color\"}");
    mc_expression *flt = NULL;
    double numbers[3];
    float colors[12];
    uint8_t bools[3], errors[3];
    size_t count = 0;
    current_test = "expression_batches";
    CHECK_STATUS(mc_expression_evaluate_numbers(num, g, NULL, NULL, NULL, 0, &count), MC_E_BUFFER_TOO_SMALL);
    CHECK(count == 3);
    CHECK_STATUS(mc_expression_evaluate_numbers(num, g, NULL, numbers, errors, 3, &count), MC_OK);
    CHECK(numbers[0] == 0 && numbers[1] == 10 && isnan(numbers[2]));
    CHECK(errors[0] == 0 && errors[1] == 0 && errors[2] == 1);
    CHECK_STATUS(mc_expression_evaluate_colors(col, g, NULL, colors, errors, 3, &count), MC_OK);
    /* premultiplied: rgba(255,0,0,0.5) is (0.5, 0, 0, 0.5) */
    CHECK(colors[0] == 0.5f && colors[1] == 0 && colors[2] == 0 && colors[3] == 0.5f);
    CHECK(colors[4] == 0 && colors[5] == 0 && colors[6] == 1 && colors[7] == 1);
    CHECK(errors[2] == 1 && isnan(colors[8]));
    CHECK_STATUS(mc_filter_compile("[\">\", [\"get\", \"mag\"], 1]", strlen("[\">\", [\"get\", \"mag\"], 1]"), &flt),
                 MC_OK);
    CHECK_STATUS(mc_expression_evaluate_booleans(flt, g, NULL, bools, NULL, 3, &count), MC_OK);
    CHECK(bools[0] == 0 && bools[1] == 1 && bools[2] == 0);
    CHECK_STATUS(mc_expression_evaluate_booleans(flt, g, NULL, NULL, NULL, 3, &count), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_evaluate_booleans(flt, NULL, NULL, bools, NULL, 3, &count), MC_E_MISUSE);
    CHECK_STATUS(mc_expression_evaluate_booleans(flt, g, NULL, bools, NULL, 3, NULL), MC_E_INVALID_ARGUMENT);
    mc_expression_free(flt);
    mc_expression_free(col);
    mc_expression_free(num);
    mc_geojson_free(g);
}

struct shared_expression {
    const mc_expression *e;
    int ok;
};

static void *evaluate_many(void *arg) {
    struct shared_expression *s = arg;
    int i;
    char feature[160];
    s->ok = 1;
    for (i = 0; i < 300 && s->ok; i++) {
        int st;
        char expected[32], *text;
        int inside = i % 2;
        snprintf(
            feature, sizeof feature,
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[%d,5]},\"properties\":{\"v\":%d}}",
            inside ? 5 : 15, i);
        snprintf(expected, sizeof expected, "%d", inside ? 2 * i : -1);
        text = eval_text(s->e, feature, NULL, &st);
        s->ok = text && strcmp(text, expected) == 0;
        free(text);
    }
    return NULL;
}

static void test_expression_threads(void) {
    mc_expression *e =
        compile("[\"case\", [\"within\", {\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}],"
                " [\"*\", [\"get\", \"v\"], 2], -1]",
                NULL);
    pthread_t threads[4];
    struct shared_expression s[4];
    int i, all = 1;
    current_test = "expression_threads";
    for (i = 0; i < 4; i++) {
        s[i].e = e;
        pthread_create(&threads[i], NULL, evaluate_many, &s[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        all = all && s[i].ok;
    }
    CHECK(all);
    mc_expression_free(e);
}

/* The deepest expression the limit allows (64 levels), compiled, evaluated and serialized on a
 * 128 KB stack (musl's default thread size); one level more is a compile error. */
static void *deep_expression(void *arg) {
    int *ok = arg, i, n = 0, st;
    char *json = malloc(256 * 8 + 64), *text;
    mc_expression *e = NULL;
    mc_buf buf = MC_BUF_INIT;
    for (i = 0; i < 63; i++) n += sprintf(json + n, "[\"-\",");
    n += sprintf(json + n, "[\"get\",\"x\"]");
    for (i = 0; i < 63; i++) json[n++] = ']';
    json[n] = 0;
    *ok = mc_expression_compile(json, (size_t)n, NULL, 0, &e) == MC_OK;
    text = eval_text(e, "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"x\":4}}", NULL, &st);
    *ok = *ok && text && strcmp(text, "-4") == 0;
    *ok = *ok && mc_expression_serialize(e, &buf) == MC_OK && buf.len > (size_t)n;
    mc_buf_dispose(&buf);
    free(text);
    mc_expression_free(e);
    e = NULL;
    /* 65 levels */
    n = 0;
    for (i = 0; i < 64; i++) n += sprintf(json + n, "[\"-\",");
    n += sprintf(json + n, "[\"get\",\"x\"]");
    for (i = 0; i < 64; i++) json[n++] = ']';
    *ok = *ok && mc_expression_compile(json, (size_t)n, NULL, 0, &e) == MC_E_EXPRESSION && e == NULL;
    free(json);
    return NULL;
}

static void test_expression_small_stack(void) {
    current_test = "expression_small_stack";
    CHECK(on_small_stack(deep_expression));
}

static void run(void) {
    test_expression_compile_and_evaluate();
    test_expression_errors();
    test_filters();
    test_expression_batches();
    test_expression_threads();
    test_expression_small_stack();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
