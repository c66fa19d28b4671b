/* Tests of every exported function of include/mapcore.h, including NULL, misuse, limits and
 * threads. Expected values are worked out by hand from the inputs written here.
 * usage: test_mapcore DATA_DIR   (prints "N passed, M failed") */
#include <mapcore.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static const char *current_test = "";

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (cond) {                                                                          \
            passed++;                                                                        \
        } else {                                                                             \
            failed++;                                                                        \
            printf("FAIL %s:%d in %s: %s\n", __FILE__, __LINE__, current_test, #cond);      \
        }                                                                                    \
    } while (0)

#define CHECK_STATUS(call, expected)                                                         \
    do {                                                                                     \
        int st_ = (call);                                                                    \
        if (st_ == (expected)) {                                                             \
            passed++;                                                                        \
        } else {                                                                             \
            failed++;                                                                        \
            printf("FAIL %s:%d in %s: %s returned %d (%s), expected %d; last error: %s\n",  \
                   __FILE__, __LINE__, current_test, #call, st_, mc_errstr(st_), expected,   \
                   mc_last_error()->message);                                                \
        }                                                                                    \
    } while (0)

static const char *data_dir = ".";

static mc_geojson *parse(const char *json) {
    mc_geojson *g = NULL;
    if (mc_geojson_parse(json, strlen(json), NULL, &g) != MC_OK) {
        printf("  parse failed for %s: %s\n", json, mc_last_error()->message);
        return NULL;
    }
    return g;
}

/* Serialized text of a handle, malloc'd (caller frees), or NULL. */
static char *serialize(const mc_geojson *g, unsigned flags) {
    mc_buf buf = MC_BUF_INIT;
    char *copy;
    if (mc_geojson_serialize(g, flags, &buf) != MC_OK) return NULL;
    copy = malloc(buf.len + 1);
    memcpy(copy, buf.data, buf.len + 1);
    mc_buf_dispose(&buf);
    return copy;
}

static char *read_file(const char *name, size_t *len) {
    char path[4096];
    FILE *f;
    char *data = NULL;
    long size;
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)size + 1);
    *len = fread(data, 1, (size_t)size, f);
    fclose(f);
    return data;
}

/* ---- versions and status names -------------------------------------------------------- */

static void test_versions(void) {
    current_test = "versions";
    CHECK(strcmp(mc_version(), MC_VERSION) == 0);
    CHECK(mc_version_number() == MC_VERSION_NUMBER);
    CHECK(mc_abi_version() == MC_ABI_VERSION);
    CHECK(strncmp(mc_geos_version(), "3.", 2) == 0);
    CHECK(strcmp(mc_errstr(MC_OK), "ok") == 0);
    CHECK(strcmp(mc_errstr(MC_E_PARSE), "parse error") == 0);
    CHECK(strcmp(mc_errstr(MC_E_MISUSE), "library misuse") == 0);
    CHECK(strcmp(mc_errstr(12345), "unknown error") == 0);
    CHECK(strcmp(mc_errstr(-12345), "unknown error") == 0);
}

/* ---- parsing: success ------------------------------------------------------------------ */

static void test_parse_kinds(void) {
    mc_geojson *g;
    int kind = -1, type = -1;
    size_t count = 99;
    current_test = "parse_kinds";

    g = parse("{\"type\":\"Point\",\"coordinates\":[1,2]}");
    CHECK(g != NULL);
    CHECK_STATUS(mc_geojson_kind(g, &kind), MC_OK);
    CHECK(kind == MC_GEOJSON_GEOMETRY);
    CHECK_STATUS(mc_geojson_geometry_type(g, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_POINT);
    CHECK_STATUS(mc_geojson_feature_count(g, &count), MC_OK);
    CHECK(count == 0);
    mc_geojson_free(g);

    g = parse("{\"type\":\"Feature\",\"geometry\":null,\"properties\":null}");
    CHECK_STATUS(mc_geojson_kind(g, &kind), MC_OK);
    CHECK(kind == MC_GEOJSON_FEATURE);
    CHECK_STATUS(mc_geojson_geometry_type(g, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_NONE);
    CHECK_STATUS(mc_geojson_feature_count(g, &count), MC_OK);
    CHECK(count == 1);
    mc_geojson_free(g);

    g = parse("{\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]],\"type\":\"MultiLineString\"}}],\"type\":\"FeatureCollection\"}");
    CHECK_STATUS(mc_geojson_kind(g, &kind), MC_OK);
    CHECK(kind == MC_GEOJSON_FEATURE_COLLECTION);
    CHECK_STATUS(mc_geojson_feature_count(g, &count), MC_OK);
    CHECK(count == 1);
    CHECK_STATUS(mc_geojson_geometry_type(g, &type), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);

    g = parse("{\"type\":\"GeometryCollection\",\"geometries\":[{\"type\":\"MultiPolygon\",\"coordinates\":[[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]]},{\"type\":\"GeometryCollection\",\"geometries\":[]}]}");
    CHECK(g != NULL);
    CHECK_STATUS(mc_geojson_geometry_type(g, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_COLLECTION);
    mc_geojson_free(g);
}

static void test_parse_file(void) {
    size_t len = 0, count = 0;
    char *json = read_file("places.geojson", &len);
    mc_geojson *g = NULL;
    current_test = "parse_file";
    CHECK(json != NULL);
    if (!json) return;
    CHECK_STATUS(mc_geojson_parse(json, len, NULL, &g), MC_OK);
    CHECK_STATUS(mc_geojson_feature_count(g, &count), MC_OK);
    CHECK(count == 163); /* 162 points and Null Island (fixtures/supercluster/README.md) */
    CHECK_STATUS(mc_geojson_position_count(g, &count), MC_OK);
    CHECK(count == 162);
    mc_geojson_free(g);

    /* A truncated file fails cleanly wherever it is cut. */
    {
        size_t cut;
        int all_failed = 1;
        for (cut = 0; cut < len; cut += len / 97 + 1) {
            g = NULL;
            if (mc_geojson_parse(json, cut, NULL, &g) != MC_E_PARSE || g != NULL) all_failed = 0;
        }
        CHECK(all_failed);
    }
    free(json);
}

/* ---- small thread stacks ------------------------------------------------------------------ */

struct stack_probe {
    int collections_limited, deep_values_ok;
};

static char *nested_collections(int levels, size_t *len) {
    const char *open = "{\"type\":\"GeometryCollection\",\"geometries\":[", *leaf = "{\"type\":\"Point\",\"coordinates\":[1,2]}";
    size_t n = 0, cap = (size_t)levels * 48 + 64;
    char *buf = malloc(cap);
    int k;
    for (k = 0; k < levels; k++) n += (size_t)sprintf(buf + n, "%s", open);
    n += (size_t)sprintf(buf + n, "%s", leaf);
    for (k = 0; k < levels; k++) n += (size_t)sprintf(buf + n, "]}");
    *len = n;
    return buf;
}

static void *parse_at_the_limits(void *arg) {
    struct stack_probe *p = arg;
    mc_parse_options options = MC_PARSE_OPTIONS_INIT;
    mc_geojson *g = NULL;
    size_t len, i;
    char *json = nested_collections(500, &len);
    mc_buf buf = MC_BUF_INIT;
    options.max_depth = MC_MAX_DEPTH_LIMIT;
    p->collections_limited = mc_geojson_parse(json, len, &options, &g) == MC_E_LIMIT && g == NULL;
    free(json);
    /* Values nested to the cap: parse, serialize and free on this small stack. */
    {
        const char *head = "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":";
        size_t depth = MC_MAX_DEPTH_LIMIT - 2, hl = strlen(head);
        len = hl + 2 * depth + 2;
        json = malloc(len);
        memcpy(json, head, hl);
        for (i = 0; i < depth; i++) json[hl + i] = '[';
        for (i = 0; i < depth; i++) json[hl + depth + i] = ']';
        json[len - 2] = '}';
        json[len - 1] = '}';
        p->deep_values_ok = mc_geojson_parse(json, len, &options, &g) == MC_OK &&
                            mc_geojson_serialize(g, MC_SERIALIZE_PRETTY, &buf) == MC_OK && buf.len > 2 * depth;
        mc_buf_dispose(&buf);
        mc_geojson_free(g);
        free(json);
    }
    return NULL;
}

static void test_small_stack(void) {
    pthread_attr_t attr;
    pthread_t t;
    struct stack_probe probe = {0, 0};
    mc_geojson *g = NULL;
    size_t len;
    char *json;
    current_test = "small_stack";
    /* 16 nested collections are fine; 17 are a limit error. */
    json = nested_collections(16, &len);
    CHECK_STATUS(mc_geojson_parse(json, len, NULL, &g), MC_OK);
    mc_geojson_free(g);
    free(json);
    json = nested_collections(17, &len);
    CHECK_STATUS(mc_geojson_parse(json, len, NULL, &g), MC_E_LIMIT);
    free(json);
    /* The worst inputs the limits allow, on a 128 KB stack (musl's default thread size). */
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 128 * 1024);
    CHECK(pthread_create(&t, &attr, parse_at_the_limits, &probe) == 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    CHECK(probe.collections_limited);
    CHECK(probe.deep_values_ok);
}

/* ---- parsing: errors -------------------------------------------------------------------- */

static void expect_error(const char *json, size_t len, int code, const char *path, long line, long column) {
    mc_geojson *sentinel = (mc_geojson *)&passed; /* must stay untouched on failure */
    mc_geojson *g = sentinel;
    const mc_error *e;
    CHECK_STATUS(mc_geojson_parse(json, len, NULL, &g), code);
    CHECK(g == sentinel);
    e = mc_last_error();
    CHECK(e->code == code);
    CHECK(e->message != NULL && e->message[0] != '\0');
    if (path && strcmp(e->path, path) != 0) {
        failed++;
        printf("FAIL path for %.60s: got %s, expected %s\n", json, e->path, path);
    } else if (path) {
        passed++;
    }
    if (line > 0) {
        CHECK(e->line == line);
        CHECK(e->column == column);
        CHECK(e->offset >= 0);
    }
}

#define EXPECT_ERROR(json, code, path, line, column) expect_error(json, strlen(json), code, path, line, column)

static void test_parse_errors(void) {
    current_test = "parse_errors";
    EXPECT_ERROR("{\n  \"type\": \"Point\",\n  \"coordinates\": [1, x]\n}", MC_E_PARSE, "$.coordinates[1]", 3, 22);
    EXPECT_ERROR("{\"type\":\"Pointe\",\"coordinates\":[1,2]}", MC_E_INVALID_GEOJSON, "$.type", 1, 9);
    EXPECT_ERROR("{\"coordinates\":[1,2]}", MC_E_INVALID_GEOJSON, "$", 1, 1);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1]}", MC_E_INVALID_GEOJSON, "$.coordinates", 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[[1,2]]}", MC_E_INVALID_GEOJSON, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"LineString\",\"coordinates\":[1,2]}", MC_E_INVALID_GEOJSON, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"LineString\",\"coordinates\":[[1,2]]}", MC_E_INVALID_GEOJSON, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[0,0]]]}", MC_E_INVALID_GEOJSON, "$.coordinates[0]", 0, 0);
    EXPECT_ERROR("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,1]]]}", MC_E_INVALID_GEOJSON, "$.coordinates[0]", 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1,\"2\"]}", MC_E_INVALID_GEOJSON, "$.coordinates[1]", 1, 34);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[NaN,1]}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[Infinity,1]}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1e400,1]}", MC_E_PARSE, "$.coordinates[0]", 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1,2,3,4]}", MC_E_UNSUPPORTED, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Feature\"},\"properties\":null}", MC_E_INVALID_GEOJSON, "$.geometry.type", 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"id\":true,\"geometry\":null,\"properties\":null}", MC_E_INVALID_GEOJSON, "$.id", 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":[1]}", MC_E_INVALID_GEOJSON, "$.properties", 0, 0);
    EXPECT_ERROR("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Point\",\"coordinates\":[0,0]}]}", MC_E_INVALID_GEOJSON, "$.features[0].type", 0, 0);
    EXPECT_ERROR("{\"type\":\"FeatureCollection\"}", MC_E_INVALID_GEOJSON, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1,2]} trailing", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("", MC_E_PARSE, "$", 1, 1);
    EXPECT_ERROR("[1,2]", MC_E_INVALID_GEOJSON, "$", 1, 1);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"\xff\"}}", MC_E_PARSE, "$.properties.a", 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"\xed\xa0\x80\"}}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"\\ud800\"}}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"tab\there\"}}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":01}}", MC_E_PARSE, NULL, 0, 0);
    /* An embedded NUL byte ends nothing: it is invalid where it stands. */
    expect_error("{\"type\":\"Point\"\0,\"coordinates\":[1,2]}", 37, MC_E_PARSE, NULL, 0, 0);
}

static void test_deep_nesting(void) {
    const size_t depth = 100000;
    const char *head = "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"deep\":";
    size_t head_len = strlen(head), len = head_len + 2 * depth + 2, i;
    char *json = malloc(len);
    mc_parse_options options = MC_PARSE_OPTIONS_INIT;
    mc_geojson *g = NULL;
    const char *three_levels = "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":[[1]]}}";
    current_test = "deep_nesting";
    memcpy(json, head, head_len);
    for (i = 0; i < depth; i++) json[head_len + i] = '[';
    for (i = 0; i < depth; i++) json[head_len + depth + i] = ']';
    json[len - 2] = '}';
    json[len - 1] = '}';
    CHECK_STATUS(mc_geojson_parse(json, len, NULL, &g), MC_E_LIMIT);
    CHECK(g == NULL);
    /* The limit is configurable, within bounds. */
    options.max_depth = MC_MAX_DEPTH_LIMIT + 1;
    CHECK_STATUS(mc_geojson_parse(json, len, &options, &g), MC_E_INVALID_ARGUMENT);
    options.max_depth = 4;
    /* Feature object, properties object and two arrays: 4 levels. */
    CHECK_STATUS(mc_geojson_parse(three_levels, strlen(three_levels), &options, &g), MC_OK);
    mc_geojson_free(g);
    options.max_depth = 3;
    CHECK_STATUS(mc_geojson_parse(three_levels, strlen(three_levels), &options, &g), MC_E_LIMIT);
    mc_geojson_free(g);
    g = NULL;
    options.version = 0;
    CHECK_STATUS(mc_geojson_parse("{}", 2, &options, &g), MC_E_INVALID_ARGUMENT);
    /* Deep but legal nesting of geometry collections. */
    {
        char buf[8192];
        size_t n = 0, k;
        for (k = 0; k < 16; k++) n += (size_t)sprintf(buf + n, "{\"type\":\"GeometryCollection\",\"geometries\":[");
        n += (size_t)sprintf(buf + n, "{\"type\":\"Point\",\"coordinates\":[3,4]}");
        for (k = 0; k < 16; k++) n += (size_t)sprintf(buf + n, "]}");
        CHECK_STATUS(mc_geojson_parse(buf, n, NULL, &g), MC_OK);
        {
            mc_bbox box;
            int found = 0;
            CHECK_STATUS(mc_geojson_bbox(g, &box, &found), MC_OK);
            CHECK(found == 1 && box.west == 3 && box.north == 4);
        }
        mc_geojson_free(g);
        g = NULL;
    }
    free(json);
}

static void test_parse_arguments(void) {
    mc_geojson *g = NULL;
    current_test = "parse_arguments";
    CHECK_STATUS(mc_geojson_parse(NULL, 5, NULL, &g), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_parse(NULL, 0, NULL, &g), MC_E_PARSE);
    CHECK_STATUS(mc_geojson_parse("{}", 2, NULL, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_parse("{}", SIZE_MAX, NULL, &g), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_parse("{}", (size_t)INT64_MAX + 1, NULL, &g), MC_E_INVALID_ARGUMENT);
    CHECK(g == NULL);
    /* Input need not be NUL-terminated: only len bytes are read. */
    CHECK_STATUS(mc_geojson_parse("{\"type\":\"Point\",\"coordinates\":[1,2]}garbage", 36, NULL, &g), MC_OK);
    mc_geojson_free(g);
}

/* ---- serialization ------------------------------------------------------------------------ */

static void test_serialize(void) {
    const char *input =
        "{\"type\":\"Feature\",\"id\":18446744073709551615,\"geometry\":{\"type\":\"Point\",\"coordinates\":[1.5,-2,100]},"
        "\"properties\":{\"i\":-9223372036854775808,\"u\":18446744073709551615,\"d\":0.1,\"e\":1e-7,\"big\":1e300,"
        "\"s\":\"\\u00e9\\ud83d\\ude00\\n\\\"\",\"n\":null,\"a\":[true,false,{}],\"dup\":1,\"dup\":2},\"foreign\":{\"x\":[1]}}";
    mc_geojson *g = parse(input), *again;
    char *text, *text2, *pretty;
    mc_buf buf = MC_BUF_INIT;
    current_test = "serialize";
    CHECK(g != NULL);
    text = serialize(g, 0);
    CHECK(text != NULL);
    CHECK(strstr(text, "\"id\":18446744073709551615") != NULL);
    CHECK(strstr(text, "\"i\":-9223372036854775808") != NULL);
    CHECK(strstr(text, "\"u\":18446744073709551615") != NULL);
    CHECK(strstr(text, "\"d\":0.1,") != NULL);
    CHECK(strstr(text, "\"e\":1e-07") != NULL);
    CHECK(strstr(text, "\"big\":1e+300") != NULL);
    CHECK(strstr(text, "\"coordinates\":[1.5,-2,100]") != NULL);
    CHECK(strstr(text, "\"s\":\"\xc3\xa9\xf0\x9f\x98\x80\\n\\\"\"") != NULL);
    CHECK(strstr(text, "\"dup\":2") != NULL && strstr(text, "\"dup\":1") == NULL);
    CHECK(strstr(text, "\"foreign\":{\"x\":[1]}") != NULL);
    /* parse(serialize(x)) serializes to the same text again. */
    again = parse(text);
    text2 = serialize(again, 0);
    CHECK(text2 != NULL && strcmp(text, text2) == 0);
    pretty = serialize(g, MC_SERIALIZE_PRETTY);
    CHECK(pretty != NULL && strstr(pretty, "\n  \"geometry\": {\n") != NULL);
    CHECK(pretty != NULL && strstr(pretty, "\"coordinates\": [1.5, -2, 100]") != NULL);
    CHECK_STATUS(mc_geojson_serialize(g, 0x80, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_serialize(g, 0, NULL), MC_E_INVALID_ARGUMENT);
    CHECK(buf.data == NULL);
    mc_buf_dispose(&buf);
    mc_buf_dispose(NULL);
    free(text);
    free(text2);
    free(pretty);
    mc_geojson_free(again);
    mc_geojson_free(g);

    g = parse("{\"type\":\"Point\",\"coordinates\":[]}");
    text = serialize(g, 0);
    CHECK(text && strcmp(text, "{\"type\":\"Point\",\"coordinates\":[]}") == 0);
    free(text);
    mc_geojson_free(g);
}

/* ---- handles ------------------------------------------------------------------------------ */

static void test_misuse(void) {
    mc_geojson *g = parse("{\"type\":\"Point\",\"coordinates\":[1,2]}");
    int foreign = 0, kind;
    size_t n;
    mc_bbox box;
    mc_buf buf = MC_BUF_INIT;
    mc_geojson *hull = NULL;
    double xy[4];
    current_test = "misuse";
    CHECK_STATUS(mc_geojson_kind(NULL, &kind), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_kind((const mc_geojson *)&foreign, &kind), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_kind(g, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);
    /* Every handle-taking call refuses a freed handle. */
    CHECK_STATUS(mc_geojson_kind(g, &kind), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_feature_count(g, &n), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_geometry_type(g, &kind), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_serialize(g, 0, &buf), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_bbox(g, &box, &kind), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_position_count(g, &n), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_positions(g, xy, 2, &n), MC_E_MISUSE);
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_E_MISUSE);
    CHECK(strstr(mc_last_error()->message, "not a live handle") != NULL);
    mc_geojson_free(g);                                 /* double free: ignored */
    mc_geojson_free(NULL);                              /* no-op */
    mc_geojson_free((mc_geojson *)&foreign);            /* foreign: ignored */
    CHECK(buf.data == NULL);
}

/* ---- last error ---------------------------------------------------------------------------- */

static void *fail_on_thread(void *arg) {
    mc_geojson *g = NULL;
    int *ok = arg;
    /* A fresh thread starts with a clean record, whatever the main thread did. */
    *ok = mc_last_error()->code == MC_OK && strcmp(mc_last_error()->message, "") == 0;
    *ok = *ok && mc_geojson_parse("{", 1, NULL, &g) == MC_E_PARSE && mc_last_error()->code == MC_E_PARSE;
    return NULL;
}

static void test_last_error(void) {
    mc_geojson *g = NULL;
    pthread_t t;
    int ok = 0;
    current_test = "last_error";
    mc_clear_error();
    CHECK(mc_last_error()->code == MC_OK);
    CHECK(mc_last_error()->offset == -1);
    CHECK_STATUS(mc_geojson_parse("{\"type\":1}", 10, NULL, &g), MC_E_INVALID_GEOJSON);
    pthread_create(&t, NULL, fail_on_thread, &ok);
    pthread_join(t, NULL);
    CHECK(ok);
    /* The other thread's failure did not touch this thread's record. */
    CHECK(mc_last_error()->code == MC_E_INVALID_GEOJSON);
    /* Successful calls leave the record alone. */
    g = parse("{\"type\":\"Point\",\"coordinates\":[0,0]}");
    CHECK(mc_last_error()->code == MC_E_INVALID_GEOJSON);
    mc_geojson_free(g);
    mc_clear_error();
    CHECK(mc_last_error()->code == MC_OK && mc_last_error()->path[0] == '\0');
}

/* ---- bounding boxes ------------------------------------------------------------------------ */

static void test_bbox(void) {
    mc_geojson *g;
    mc_bbox box = {7, 7, 7, 7}, parts[2], out;
    int found = -1, flag = -1;
    size_t n = 0;
    double xy[] = {-10, 5, 20, -3, 7, 40};
    double bad[] = {1, 2, NAN, 4};
    current_test = "bbox";

    g = parse("{\"type\":\"LineString\",\"coordinates\":[[-10,5],[20,-3],[7,40]]}");
    CHECK_STATUS(mc_geojson_bbox(g, &box, &found), MC_OK);
    CHECK(found == 1 && box.west == -10 && box.south == -3 && box.east == 20 && box.north == 40);
    CHECK_STATUS(mc_geojson_bbox(g, NULL, &found), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_bbox(g, &box, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);

    /* No positions: no box, and the out box is not touched. */
    g = parse("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":null,\"properties\":null}]}");
    box.west = 7;
    CHECK_STATUS(mc_geojson_bbox(g, &box, &found), MC_OK);
    CHECK(found == 0 && box.west == 7);
    mc_geojson_free(g);

    CHECK_STATUS(mc_bbox_of_positions(xy, 3, &box, &found), MC_OK);
    CHECK(found == 1 && box.west == -10 && box.south == -3 && box.east == 20 && box.north == 40);
    CHECK_STATUS(mc_bbox_of_positions(xy, 1, &box, &found), MC_OK);
    CHECK(found == 1 && box.west == -10 && box.east == -10 && box.south == 5 && box.north == 5);
    CHECK_STATUS(mc_bbox_of_positions(NULL, 0, &box, &found), MC_OK);
    CHECK(found == 0);
    CHECK_STATUS(mc_bbox_of_positions(NULL, 3, &box, &found), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_bbox_of_positions(bad, 2, &box, &found), MC_E_INVALID_ARGUMENT);
    bad[2] = INFINITY;
    CHECK_STATUS(mc_bbox_of_positions(bad, 2, &box, &found), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_bbox_of_positions((const double *)xy, SIZE_MAX / 2 + 5, &box, &found), MC_E_INVALID_ARGUMENT);

    {
        mc_bbox a = {-10, -5, 10, 5}, b = {0, 0, 30, 20}, far = {40, 40, 50, 50};
        mc_bbox cross = {170, -10, -170, 10}, east = {-175, 0, -160, 5}, west = {160, 0, 165, 5};
        mc_bbox bad_box = {0, 10, 1, 0}, nan_box = {NAN, 0, 1, 1};
        CHECK_STATUS(mc_bbox_merge(&a, &b, &out), MC_OK);
        CHECK(out.west == -10 && out.south == -5 && out.east == 30 && out.north == 20);
        /* Merging across the antimeridian keeps the short way round: 160..-160 (40 degrees). */
        CHECK_STATUS(mc_bbox_merge(&cross, &west, &out), MC_OK);
        CHECK(out.west == 160 && out.east == -170 && out.south == -10 && out.north == 10);
        CHECK_STATUS(mc_bbox_merge(&cross, &east, &out), MC_OK);
        CHECK(out.west == 170 && out.east == -160);
        CHECK_STATUS(mc_bbox_merge(&a, &bad_box, &out), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_bbox_merge(&a, &nan_box, &out), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_bbox_merge(NULL, &a, &out), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_bbox_merge(&a, &a, NULL), MC_E_INVALID_ARGUMENT);

        CHECK_STATUS(mc_bbox_contains(&a, 10, 5, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_contains(&a, 10.0001, 0, &flag), MC_OK);
        CHECK(flag == 0);
        CHECK_STATUS(mc_bbox_contains(&cross, 179, 0, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_contains(&cross, -175, 0, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_contains(&cross, 0, 0, &flag), MC_OK);
        CHECK(flag == 0);
        CHECK_STATUS(mc_bbox_contains(&a, NAN, 0, &flag), MC_E_INVALID_ARGUMENT);

        CHECK_STATUS(mc_bbox_intersects(&a, &b, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_intersects(&a, &far, &flag), MC_OK);
        CHECK(flag == 0);
        CHECK_STATUS(mc_bbox_intersects(&cross, &east, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_intersects(&cross, &west, &flag), MC_OK);
        CHECK(flag == 0);

        CHECK_STATUS(mc_bbox_crosses_antimeridian(&cross, &flag), MC_OK);
        CHECK(flag == 1);
        CHECK_STATUS(mc_bbox_crosses_antimeridian(&a, &flag), MC_OK);
        CHECK(flag == 0);

        CHECK_STATUS(mc_bbox_split_antimeridian(&cross, parts, &n), MC_OK);
        CHECK(n == 2 && parts[0].west == 170 && parts[0].east == 180 && parts[1].west == -180 && parts[1].east == -170);
        CHECK_STATUS(mc_bbox_split_antimeridian(&a, parts, &n), MC_OK);
        CHECK(n == 1 && parts[0].west == -10 && parts[0].east == 10);
        CHECK_STATUS(mc_bbox_split_antimeridian(&a, NULL, &n), MC_E_INVALID_ARGUMENT);
    }
}

/* ---- positions ----------------------------------------------------------------------------- */

static void test_positions(void) {
    mc_geojson *g = parse(
        "{\"type\":\"FeatureCollection\",\"features\":["
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2,3]},\"properties\":null},"
        "{\"type\":\"Feature\",\"geometry\":null,\"properties\":null},"
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"GeometryCollection\",\"geometries\":["
        "{\"type\":\"LineString\",\"coordinates\":[[3,4],[5,6]]},{\"type\":\"MultiPoint\",\"coordinates\":[[7,8]]}]},\"properties\":null}]}");
    double xy[8] = {0}, small[4] = {-1, -1, -1, -1};
    size_t n = 0;
    int ok = 1, i;
    current_test = "positions";
    CHECK_STATUS(mc_geojson_position_count(g, &n), MC_OK);
    CHECK(n == 4);
    CHECK_STATUS(mc_geojson_positions(g, xy, 4, &n), MC_OK);
    CHECK(n == 4);
    for (i = 0; i < 8; i++) ok = ok && xy[i] == (double)(i + 1);
    CHECK(ok);
    CHECK_STATUS(mc_geojson_positions(g, small, 2, &n), MC_E_BUFFER_TOO_SMALL);
    CHECK(n == 4 && small[0] == -1); /* nothing written */
    CHECK_STATUS(mc_geojson_positions(g, NULL, 0, &n), MC_E_BUFFER_TOO_SMALL);
    CHECK(n == 4);
    CHECK_STATUS(mc_geojson_positions(g, NULL, 4, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_positions(g, xy, SIZE_MAX, &n), MC_OK); /* huge capacity is plenty */
    CHECK(n == 4 && xy[7] == 8);
    CHECK_STATUS(mc_geojson_positions(g, xy, 4, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_geojson_position_count(g, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);
}

/* ---- convex hull --------------------------------------------------------------------------- */

static void test_hull(void) {
    /* A square with an interior point, a point on an edge and a duplicate corner. */
    double square[] = {0, 0, 2, 0, 2, 2, 0, 2, 1, 1, 1, 0, 2, 2};
    double expected[] = {0, 0, 2, 0, 2, 2, 0, 2, 0, 0};
    double line[] = {0, 0, 3, 3, 1, 1, 2, 2};
    double same[] = {5, 5, 5, 5};
    double out[16], huge[] = {0, 0, 1e200, 0, 0, 1};
    double nan_in[] = {0, 0, NAN, 0, 0, 1};
    size_t n = 0;
    int i, ok = 1, type = -1;
    mc_geojson *g, *hull = NULL;
    char *text;
    current_test = "hull";

    CHECK_STATUS(mc_convex_hull_positions(square, 7, out, 8, &n), MC_OK);
    CHECK(n == 5);
    for (i = 0; i < 10; i++) ok = ok && out[i] == expected[i];
    CHECK(ok);
    CHECK_STATUS(mc_convex_hull_positions(line, 4, out, 8, &n), MC_OK);
    CHECK(n == 2 && out[0] == 0 && out[1] == 0 && out[2] == 3 && out[3] == 3);
    CHECK_STATUS(mc_convex_hull_positions(same, 2, out, 8, &n), MC_OK);
    CHECK(n == 1 && out[0] == 5 && out[1] == 5);
    CHECK_STATUS(mc_convex_hull_positions(NULL, 0, NULL, 0, &n), MC_OK);
    CHECK(n == 0);
    out[0] = -1;
    CHECK_STATUS(mc_convex_hull_positions(square, 7, out, 4, &n), MC_E_BUFFER_TOO_SMALL);
    CHECK(n == 5 && out[0] == -1);
    CHECK_STATUS(mc_convex_hull_positions(huge, 3, out, 8, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(nan_in, 3, out, 8, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(square, 7, out, 8, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(NULL, 3, out, 8, &n), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_convex_hull_positions(square, SIZE_MAX, out, 8, &n), MC_E_INVALID_ARGUMENT);

    g = parse("{\"type\":\"MultiPoint\",\"coordinates\":[[0,0],[2,0],[2,2],[0,2],[1,1]]}");
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_OK);
    CHECK(hull != NULL);
    CHECK_STATUS(mc_geojson_geometry_type(hull, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_POLYGON);
    text = serialize(hull, 0);
    CHECK(text && strcmp(text, "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}") == 0);
    free(text);
    mc_geojson_free(hull);
    mc_geojson_free(g);

    g = parse("{\"type\":\"MultiPoint\",\"coordinates\":[[0,0],[4,2]]}");
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_OK);
    CHECK_STATUS(mc_geojson_geometry_type(hull, &type), MC_OK);
    CHECK(type == MC_GEOMETRY_LINE_STRING);
    mc_geojson_free(hull);
    mc_geojson_free(g);

    g = parse("{\"type\":\"FeatureCollection\",\"features\":[]}");
    hull = (mc_geojson *)&passed;
    CHECK_STATUS(mc_geojson_convex_hull(g, &hull), MC_OK);
    CHECK(hull == NULL);
    CHECK_STATUS(mc_geojson_convex_hull(g, NULL), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);
}

/* ---- threads ------------------------------------------------------------------------------- */

struct shared_read {
    const mc_geojson *g;
    const char *expected;
    int ok;
};

static void *read_many(void *arg) {
    struct shared_read *s = arg;
    int i;
    s->ok = 1;
    for (i = 0; i < 200 && s->ok; i++) {
        mc_bbox box;
        int found = 0;
        char *text = serialize(s->g, 0);
        s->ok = text && strcmp(text, s->expected) == 0;
        s->ok = s->ok && mc_geojson_bbox(s->g, &box, &found) == MC_OK && found && box.west == -10 && box.north == 40;
        free(text);
        /* Errors on this thread stay on this thread. */
        s->ok = s->ok && mc_geojson_kind(NULL, &found) == MC_E_MISUSE && mc_last_error()->code == MC_E_MISUSE;
    }
    return NULL;
}

static void test_threads(void) {
    mc_geojson *g = parse("{\"type\":\"LineString\",\"coordinates\":[[-10,5],[20,-3],[7,40]]}");
    char *expected = serialize(g, 0);
    pthread_t threads[4];
    struct shared_read s[4];
    int i, all = 1;
    current_test = "threads";
    for (i = 0; i < 4; i++) {
        s[i].g = g;
        s[i].expected = expected;
        pthread_create(&threads[i], NULL, read_many, &s[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        all = all && s[i].ok;
    }
    CHECK(all);
    free(expected);
    mc_geojson_free(g);
}

/* ---- expressions ------------------------------------------------------------------------ */

static mc_expression *compile(const char *json, const char *spec) {
    mc_expression *e = NULL;
    int st = mc_expression_compile(json, strlen(json), spec, spec ? strlen(spec) : 0, &e);
    if (st != MC_OK) printf("compile %s: %s\n", json, mc_last_error()->message);
    return e;
}

/* Evaluates and returns the JSON text (malloc'd copy), or NULL with the status in *status. */
static char *eval_text(const mc_expression *e, const char *feature, const mc_eval_context *ctx, int *status) {
    mc_buf out = MC_BUF_INIT;
    char *copy = NULL;
    *status = mc_expression_evaluate(e, feature, feature ? strlen(feature) : 0, ctx, &out);
    if (*status == MC_OK) {
        copy = malloc(out.len + 1);
        memcpy(copy, out.data, out.len + 1);
    }
    mc_buf_dispose(&out);
    return copy;
}

static int eval_equals(const mc_expression *e, const char *feature, const mc_eval_context *ctx, const char *expected) {
    int st;
    char *text = eval_text(e, feature, ctx, &st);
    int ok = text && strcmp(text, expected) == 0;
    if (!ok) printf("  got %s (status %d: %s), expected %s\n", text ? text : "-", st, mc_last_error()->message, expected);
    free(text);
    return ok;
}

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
    e = compile("[\"concat\", [\"feature-state\", \"hover\"], \"/\", [\"global-state\", \"theme\"], \"/\", [\"id\"]]", NULL);
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
    CHECK_STATUS(mc_expression_compile("[\"get\", \"a\"]", strlen("[\"get\", \"a\"]"), "{\"type\": 3}", strlen("{\"type\": 3}"), &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_compile("\xff\"", strlen("\xff\""), NULL, 0, &e), MC_E_PARSE);
    CHECK_STATUS(mc_expression_compile(NULL, 5, NULL, 0, &e), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_compile("1", strlen("1"), NULL, 0, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_expression_compile("1", (size_t)-1, NULL, 0, &e), MC_E_INVALID_ARGUMENT);
    /* Zoom outside a top-level curve; data in a data-constant property. */
    CHECK_STATUS(mc_expression_compile("[\"+\", [\"zoom\"], 1]", strlen("[\"+\", [\"zoom\"], 1]"), NULL, 0, &e), MC_E_EXPRESSION);
    CHECK_STATUS(mc_expression_compile("[\"get\", \"a\"]", strlen("[\"get\", \"a\"]"), "{\"property-type\": \"data-constant\"}",
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
    CHECK(eval_text(e, "{\"type\":\"FeatureCollection\",\"features\":[]}", NULL, &st) == NULL && st == MC_E_INVALID_ARGUMENT);
    mc_expression_free(e);
}

static void test_filters(void) {
    mc_expression *f;
    int match = -1;
    current_test = "filters";
    f = NULL;
    CHECK_STATUS(mc_filter_compile("[\"all\", [\"==\", \"kind\", \"earthquake\"], [\">=\", \"mag\", 4.5]]", strlen("[\"all\", [\"==\", \"kind\", \"earthquake\"], [\">=\", \"mag\", 4.5]]"), &f), MC_OK);
    CHECK_STATUS(mc_expression_matches(f, quake, strlen(quake), NULL, &match), MC_OK);
    CHECK(match == 1);
    mc_expression_free(f);
    CHECK_STATUS(mc_filter_compile("[\"in\", \"$type\", \"LineString\"]", strlen("[\"in\", \"$type\", \"LineString\"]"), &f), MC_OK);
    CHECK_STATUS(mc_expression_matches(f, quake, strlen(quake), NULL, &match), MC_OK);
    CHECK(match == 0);
    mc_expression_free(f);
    /* A filter must be boolean; feature-state is refused in filters. */
    CHECK_STATUS(mc_filter_compile("[\"get\", \"kind\"]", strlen("[\"get\", \"kind\"]"), &f), MC_OK); /* value: asserted boolean at run time */
    CHECK_STATUS(mc_expression_matches(f, quake, strlen(quake), NULL, &match), MC_E_EVALUATION);
    CHECK(match == 0);
    mc_expression_free(f);
    CHECK_STATUS(mc_filter_compile("[\"+\", 1, 2]", strlen("[\"+\", 1, 2]"), &f), MC_E_EXPRESSION);
    CHECK_STATUS(mc_filter_compile("[\"==\", [\"feature-state\", \"x\"], 1]", strlen("[\"==\", [\"feature-state\", \"x\"], 1]"), &f), MC_E_EXPRESSION);
}

static void test_expression_batches(void) {
    const char *fc = "{\"type\":\"FeatureCollection\",\"features\":["
                     "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"mag\":0}},"
                     "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"mag\":5}},"
                     "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"mag\":\"x\"}}]}";
    mc_geojson *g = parse(fc);
    mc_expression *num = compile("[\"*\", [\"get\", \"mag\"], 2]", NULL);
    mc_expression *col = compile("[\"interpolate\", [\"linear\"], [\"get\", \"mag\"], 0, \"rgba(255,0,0,0.5)\", 5, \"#0000ff\"]",
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
    CHECK_STATUS(mc_filter_compile("[\">\", [\"get\", \"mag\"], 1]", strlen("[\">\", [\"get\", \"mag\"], 1]"), &flt), MC_OK);
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
        snprintf(feature, sizeof feature,
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
    mc_expression *e = compile("[\"case\", [\"within\", {\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}],"
                               " [\"*\", [\"get\", \"v\"], 2], -1]", NULL);
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

/* Runs `fn(&ok)` on a thread with a 128 KB stack (musl's default) and returns ok. */
static int on_small_stack(void *(*fn)(void *)) {
    pthread_attr_t attr;
    pthread_t t;
    int ok = 0;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 128 * 1024);
    if (pthread_create(&t, &attr, fn, &ok) == 0) pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    return ok;
}

static void test_expression_small_stack(void) {
    current_test = "expression_small_stack";
    CHECK(on_small_stack(deep_expression));
}


/* A string literal and its length. */
#define JS(text) text, strlen(text)

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
    const char *cincinnati = "[{\"type\":\"Polygon\",\"coordinates\":[[[-85,39],[-84,39],[-84,40],[-85,40],[-85,39]]]}]";
    const char *deli = "class = 'food_and_drink' AND name CONTAINS 'Izzy' AND SELF IN %@";
    mc_expression *sentinel = (mc_expression *)&passed, *e = sentinel;
    mc_buf text = MC_BUF_INIT, args = MC_BUF_INIT;
    char *deep;
    int st, i;
    current_test = "format_strings";

    CHECK(format_json_equals("temperature != nil && temperature >= 100", NULL, MC_FORMAT_PREDICATE,
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
    CHECK_STATUS(mc_expression_compile_format(JS("mgl_interpolate:withCurveType:parameters:stops:(temperature, 'linear', nil, %@)"),
                                              JS("[{\"0\": \"yellow\", \"100\": \"red\"}]"), JS("{\"type\": \"color\"}"), &e), MC_OK);
    CHECK(eval_equals(e, izzys, NULL, "\"rgba(255,92,0,1)\""));
    mc_expression_free(e);
    e = sentinel;

    /* JSON back to a format string, with the arguments its placeholders need. */
    CHECK_STATUS(mc_format_from_json(JS("[\"all\", [\"==\", [\"get\", \"a b\"], 1], [\"within\", {\"type\":\"Polygon\",\"coordinates\":[]}]]"),
                                     MC_FORMAT_PREDICATE, &text, &args), MC_OK);
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
    *ok = *ok && mc_expression_matches(e, JS("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"x\":1}}"), NULL, &match) == MC_OK && match == 1;
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
        *ok = *ok && mc_format_from_json(text, (size_t)n, MC_FORMAT_EXPRESSION, &f, &a) == (i == 64 ? MC_OK : MC_E_LIMIT);
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

/* ---- clustering and data sources --------------------------------------------------------- */


static mc_geojson *parse_places(void) {
    size_t len = 0;
    char *json = read_file("places.geojson", &len);
    mc_geojson *g = NULL;
    if (json) mc_geojson_parse(json, len, NULL, &g);
    free(json);
    return g;
}

static int text_contains(const mc_buf *b, const char *needle) { return b->data && strstr(b->data, needle) != NULL; }

static void test_cluster_index(void) {
    static const double world[4] = {-180, -85, 180, 85};
    mc_geojson *places = parse_places();
    mc_cluster_index *index = NULL;
    mc_cluster_item items[64];
    mc_cluster_item *all = NULL;
    mc_buf buf = MC_BUF_INIT;
    size_t count = 0, i;
    int64_t sum = 0;
    int zoom = -1;
    mc_page page = {5, 10};
    current_test = "cluster index";
    CHECK(places != NULL);
    CHECK_STATUS(mc_cluster_index_new(NULL, 0, &index), MC_OK);
    CHECK_STATUS(mc_cluster_index_load(index, places), MC_OK);
    /* Buffer convention: ask, then fill. */
    CHECK_STATUS(mc_cluster_index_get_clusters_flat(index, world, 0, NULL, 0, &count), MC_E_BUFFER_TOO_SMALL);
    CHECK(count == 32);
    CHECK_STATUS(mc_cluster_index_get_clusters_flat(index, world, 0, items, 10, &count), MC_E_BUFFER_TOO_SMALL);
    CHECK_STATUS(mc_cluster_index_get_clusters_flat(index, world, 0, items, 64, &count), MC_OK);
    for (i = 0; i < count; i++) sum += items[i].point_count;
    CHECK(count == 32 && sum == 162 && items[0].id == 164 && items[0].point_count == 16);
    CHECK_STATUS(mc_cluster_index_get_children(index, 164, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"point_count\":6") && text_contains(&buf, "\"cluster_id\""));
    mc_buf_dispose(&buf);
    /* Leaves: named offset/limit; page {5, 10} starts at Niagara Falls. */
    CHECK_STATUS(mc_cluster_index_get_leaves(index, 164, &page, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "Niagara Falls") && !text_contains(&buf, "Cape Cod"));
    mc_buf_dispose(&buf);
    page.offset = 0;
    page.limit = MC_LIMIT_ALL;
    CHECK_STATUS(mc_cluster_index_get_leaves_flat(index, 164, &page, items, 64, &count), MC_OK);
    CHECK(count == 16 && items[0].point_count == 1);
    CHECK_STATUS(mc_cluster_index_get_expansion_zoom(index, 4134, &zoom), MC_OK);
    CHECK(zoom == 3);
    CHECK_STATUS(mc_cluster_index_get_tile(index, 0, 0, 0, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "{\"features\":[{\"type\":1,\"geometry\":[[150,205]]"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_cluster_index_get_tile(index, 12, 0, 0, 0, &buf), MC_OK);
    CHECK(buf.data && strcmp(buf.data, "null") == 0);
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_cluster_index_get_cluster_hull(index, 164, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"Polygon\""));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_cluster_index_stats(index, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"points\":163"));
    mc_buf_dispose(&buf);
    /* Errors leave the index as it was. */
    CHECK_STATUS(mc_cluster_index_get_children(index, 12, 0, &buf), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_cluster_index_get_expansion_zoom(index, INT64_MAX, &zoom), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_cluster_index_get_expansion_zoom(index, INT64_MIN, &zoom), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_cluster_index_get_tile(index, 41, 0, 0, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_cluster_index_get_tile(index, 1, -1, 0, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_cluster_index_get_clusters(index, NULL, 0, 0, &buf), MC_E_INVALID_ARGUMENT);
    {
        double nan_box[4] = {0, 0, 0, 0};
        double points[4] = {1, 2, 3, 0};
        nan_box[2] = 0.0 / 0.0;
        CHECK_STATUS(mc_cluster_index_get_clusters(index, nan_box, 0, 0, &buf), MC_E_INVALID_ARGUMENT);
        points[3] = 1.0 / 0.0;
        CHECK_STATUS(mc_cluster_index_load_points(index, points, 2), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_load_points(index, NULL, 2), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_load_points(index, NULL, SIZE_MAX), MC_E_INVALID_ARGUMENT);
    }
    CHECK_STATUS(mc_cluster_index_get_clusters_flat(index, world, 0, NULL, 0, &count), MC_E_BUFFER_TOO_SMALL);
    CHECK(count == 32);
    CHECK_STATUS(mc_cluster_index_get_clusters(index, world, 0.0 / 0.0, 0, &buf), MC_E_INVALID_ARGUMENT);
    all = malloc(200 * sizeof *all);
    CHECK_STATUS(mc_cluster_index_get_clusters_flat(index, world, 1e300, all, 200, &count), MC_OK);
    CHECK(count == 162);
    free(all);
    /* Options. */
    {
        mc_cluster_index *bad = NULL;
        CHECK_STATUS(mc_cluster_index_new(JS("{\"radius\": -1}"), &bad), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_new(JS("{\"maxZoom\": 31}"), &bad), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_new(JS("{\"radios\": 1}"), &bad), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_new(JS("{\"clusterProperties\": {\"s\": [\"+\", [\"nope\"]]}}"), &bad), MC_E_EXPRESSION);
        CHECK_STATUS(mc_cluster_index_new(JS("{"), &bad), MC_E_PARSE);
        CHECK(bad == NULL);
    }
    /* Misuse: NULL and freed handles, wrong kinds. */
    mc_cluster_index_free(index);
    CHECK_STATUS(mc_cluster_index_get_clusters(index, world, 0, 0, &buf), MC_E_MISUSE);
    CHECK_STATUS(mc_cluster_index_load(NULL, places), MC_E_MISUSE);
    CHECK_STATUS(mc_cluster_index_load((mc_cluster_index *)places, places), MC_E_MISUSE);
    mc_cluster_index_free(index);
    mc_cluster_index_free(NULL);
    mc_geojson_free(places);
}

/* An index of 70,000 points builds its trees with a helper thread (from 65,536 items): run under
 * valgrind, this checks that path for invalid accesses and leaks. Every point is counted once
 * at every zoom, whatever the thread did. */
static void test_cluster_index_large(void) {
    enum { N = 70000 };
    double *xy = malloc(sizeof(double) * 2 * N);
    mc_cluster_index *index = NULL;
    mc_cluster_item *items = malloc(sizeof(mc_cluster_item) * N);
    const double world[4] = {-180, -85, 180, 85};
    unsigned seed = 12345;
    size_t count = 0, i;
    int zoom;
    current_test = "cluster index, two-thread build";
    CHECK(xy != NULL && items != NULL);
    if (!xy || !items) { free(xy); free(items); return; }
    for (i = 0; i < 2 * N; i++) {
        seed = seed * 1103515245u + 12345u;
        xy[i] = (double)(seed >> 8) / (double)(1u << 24) * (i % 2 ? 170.0 : 360.0) - (i % 2 ? 85.0 : 180.0);
    }
    CHECK_STATUS(mc_cluster_index_new(NULL, 0, &index), MC_OK);
    CHECK_STATUS(mc_cluster_index_load_points(index, xy, N), MC_OK);
    for (zoom = 0; zoom <= 17; zoom += 17) {
        int64_t total = 0;
        CHECK_STATUS(mc_cluster_index_get_clusters_flat(index, world, zoom, items, N, &count), MC_OK);
        for (i = 0; i < count; i++) total += items[i].point_count;
        CHECK(total == N);
        CHECK(zoom == 17 ? count == N : count < N / 100);
    }
    mc_cluster_index_free(index);
    free(items);
    free(xy);
}

static void test_source(void) {
    static const double world[4] = {-180, -85, 180, 85};
    mc_geojson *places = parse_places();
    mc_geojson *line = parse("{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}");
    mc_source *source = NULL;
    mc_cluster_index *view = NULL;
    mc_cluster_item items[64];
    mc_buf buf = MC_BUF_INIT;
    size_t count = 0, removed = 0;
    char location[4200];
    current_test = "data source";
    CHECK_STATUS(mc_source_new(JS("{\"cluster\": true, \"clusterProperties\": {\"rank\": [\"+\", [\"get\", \"scalerank\"]]}}"), &source), MC_OK);
    CHECK_STATUS(mc_source_add(source, places), MC_OK);
    CHECK_STATUS(mc_source_count(source, &count), MC_OK);
    CHECK(count == 163);
    /* Non-points are refused while clustering; nothing changes. */
    CHECK_STATUS(mc_source_add(source, line), MC_E_UNSUPPORTED);
    CHECK_STATUS(mc_source_set(source, line), MC_E_UNSUPPORTED);
    CHECK_STATUS(mc_source_count(source, &count), MC_OK);
    CHECK(count == 163);
    CHECK_STATUS(mc_source_get(source, JS("737"), 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "Cape Reinga"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_source_get(source, JS("\"737\""), 0, &buf), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_source_get(source, JS("[1]"), 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_get(source, JS("\xff"), 0, &buf), MC_E_PARSE);
    CHECK_STATUS(mc_source_get_clusters(source, world, 0, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"rank\":") && text_contains(&buf, "\"point_count_abbreviated\""));
    mc_buf_dispose(&buf);
    /* A frozen view keeps answering for the old data after the source changes. */
    CHECK_STATUS(mc_source_cluster_index(source, &view), MC_OK);
    CHECK_STATUS(mc_source_remove(source, JS("737.0"), &removed), MC_OK);
    CHECK(removed == 1);
    CHECK_STATUS(mc_source_remove_at(source, 100000), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_source_clear(source), MC_OK);
    CHECK_STATUS(mc_cluster_index_get_clusters_flat(view, world, 0, items, 64, &count), MC_OK);
    CHECK(count > 0);
    mc_cluster_index_free(view);
    CHECK_STATUS(mc_source_count(source, &count), MC_OK);
    CHECK(count == 0);
    /* Import: a path and a file:// URL; a missing file is an I/O error that changes nothing. */
    snprintf(location, sizeof location, "%s/places.geojson", data_dir);
    CHECK_STATUS(mc_source_import(source, location), MC_OK);
    CHECK_STATUS(mc_source_import(source, "/nonexistent/file.geojson"), MC_E_IO);
    CHECK_STATUS(mc_source_import(source, "ftp://example.com/x"), MC_E_UNSUPPORTED);
    CHECK_STATUS(mc_source_import(source, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_count(source, &count), MC_OK);
    CHECK(count == 163);
    /* Options change: clustering off accepts lines; turning it back on fails and keeps it off. */
    CHECK_STATUS(mc_source_set_options(source, "{\"cluster\": false}", 18), MC_OK);
    CHECK_STATUS(mc_source_add(source, line), MC_OK);
    CHECK_STATUS(mc_source_set_options(source, "{\"cluster\": true}", 17), MC_E_UNSUPPORTED);
    CHECK_STATUS(mc_source_cluster_index(source, &view), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_source_get_options(source, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"cluster\":false") && text_contains(&buf, "\"clusterMaxZoom\":17"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_source_set_options(source, "{\"maxZoom\": \"x\"}", 16), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_set_options(source, "{\"filter\": [\"==\", [\"get\"], 1]}", 30), MC_E_EXPRESSION);
    CHECK_STATUS(mc_source_to_geojson(source, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "LineString"));
    mc_buf_dispose(&buf);
    mc_source_free(source);
    CHECK_STATUS(mc_source_count(source, &count), MC_E_MISUSE);
    CHECK_STATUS(mc_source_add(NULL, places), MC_E_MISUSE);
    mc_source_free(source);
    mc_geojson_free(line);
    mc_geojson_free(places);
}

int main(int argc, char **argv) {
    if (argc > 1) data_dir = argv[1];
    test_versions();
    test_parse_kinds();
    test_parse_file();
    test_parse_errors();
    test_deep_nesting();
    test_parse_arguments();
    test_serialize();
    test_misuse();
    test_last_error();
    test_bbox();
    test_positions();
    test_hull();
    test_threads();
    test_small_stack();
    test_expression_compile_and_evaluate();
    test_expression_errors();
    test_filters();
    test_expression_batches();
    test_expression_threads();
    test_cluster_index();
    test_cluster_index_large();
    test_source();
    test_expression_small_stack();
    test_format_strings();
    test_format_small_stack();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
