/* C tests of parsing, errors with locations, limits on small stacks, serialization and shared reads
 * (mapcore/geojson.h). */
#include "test_support.h"

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

    g = parse("{\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"coordinates\":[[[0,0],[1,0],[1,1]"
              ",[0,0]]],\"type\":\"MultiLineString\"}}],\"type\":\"FeatureCollection\"}");
    CHECK_STATUS(mc_geojson_kind(g, &kind), MC_OK);
    CHECK(kind == MC_GEOJSON_FEATURE_COLLECTION);
    CHECK_STATUS(mc_geojson_feature_count(g, &count), MC_OK);
    CHECK(count == 1);
    CHECK_STATUS(mc_geojson_geometry_type(g, &type), MC_E_INVALID_ARGUMENT);
    mc_geojson_free(g);

    g = parse(
        "{\"type\":\"GeometryCollection\",\"geometries\":[{\"type\":\"MultiPolygon\",\"coordinates\":[[[[0,0],[1,0],[1,"
        "1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]]},{\"type\":\"GeometryCollection\",\"geometries\":[]}]}");
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
    const char *open = "{\"type\":\"GeometryCollection\",\"geometries\":[",
               *leaf = "{\"type\":\"Point\",\"coordinates\":[1,2]}";
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
    EXPECT_ERROR("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[0,0]]]}", MC_E_INVALID_GEOJSON,
                 "$.coordinates[0]", 0, 0);
    EXPECT_ERROR("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,1]]]}", MC_E_INVALID_GEOJSON,
                 "$.coordinates[0]", 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1,\"2\"]}", MC_E_INVALID_GEOJSON, "$.coordinates[1]", 1, 34);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[NaN,1]}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[Infinity,1]}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1e400,1]}", MC_E_PARSE, "$.coordinates[0]", 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1,2,3,4]}", MC_E_UNSUPPORTED, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Feature\"},\"properties\":null}", MC_E_INVALID_GEOJSON,
                 "$.geometry.type", 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"id\":true,\"geometry\":null,\"properties\":null}", MC_E_INVALID_GEOJSON,
                 "$.id", 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":[1]}", MC_E_INVALID_GEOJSON, "$.properties", 0,
                 0);
    EXPECT_ERROR("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Point\",\"coordinates\":[0,0]}]}",
                 MC_E_INVALID_GEOJSON, "$.features[0].type", 0, 0);
    EXPECT_ERROR("{\"type\":\"FeatureCollection\"}", MC_E_INVALID_GEOJSON, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Point\",\"coordinates\":[1,2]} trailing", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("", MC_E_PARSE, "$", 1, 1);
    EXPECT_ERROR("[1,2]", MC_E_INVALID_GEOJSON, "$", 1, 1);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"\xff\"}}", MC_E_PARSE,
                 "$.properties.a", 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"\xed\xa0\x80\"}}", MC_E_PARSE, NULL,
                 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"\\ud800\"}}", MC_E_PARSE, NULL, 0, 0);
    EXPECT_ERROR("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"a\":\"tab\there\"}}", MC_E_PARSE, NULL, 0,
                 0);
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
        "{\"type\":\"Feature\",\"id\":18446744073709551615,\"geometry\":{\"type\":\"Point\",\"coordinates\":[1.5,-2,"
        "100]},"
        "\"properties\":{\"i\":-9223372036854775808,\"u\":18446744073709551615,\"d\":0.1,\"e\":1e-7,\"big\":1e300,"
        "\"s\":\"\\u00e9\\ud83d\\ude00\\n\\\"\",\"n\":null,\"a\":[true,false,{}],\"dup\":1,\"dup\":2},\"foreign\":{"
        "\"x\":[1]}}";
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
    CHECK_STATUS(mc_geojson_serialize(g, MC_SERIALIZE_MSGPACK | MC_SERIALIZE_PRETTY, &buf), MC_E_INVALID_ARGUMENT);
    {
        /* MessagePack: a map 32 of 2, str keys, an integral coordinate as an int, 2.5 as float 64. */
        static const unsigned char expected[] = {0xDF, 0, 0, 0, 2, 0xA4, 't', 'y', 'p', 'e', 0xA5, 'P', 'o', 'i', 'n',
                                                 't', 0xAB, 'c', 'o', 'o', 'r', 'd', 'i', 'n', 'a', 't', 'e', 's',
                                                 0xDD, 0, 0, 0, 2, 0x01, 0xCB, 0x40, 0x04, 0, 0, 0, 0, 0, 0};
        const char *text = "{\"type\":\"Point\",\"coordinates\":[1,2.5]}";
        mc_geojson *point = NULL;
        CHECK_STATUS(mc_geojson_parse(text, strlen(text), NULL, &point), MC_OK);
        CHECK_STATUS(mc_geojson_serialize(point, MC_SERIALIZE_MSGPACK, &buf), MC_OK);
        CHECK(buf.len == sizeof expected && memcmp(buf.data, expected, sizeof expected) == 0);
        mc_buf_dispose(&buf);
        mc_geojson_free(point);
    }
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

/* Rings as MapLibre reads them: refused by default, kept as given with MC_PARSE_LENIENT; a
 * version 1 options struct has no flags member and is read without it. */
static void test_lenient_rings(void) {
    const char *three = "{\"type\":\"Polygon\",\"coordinates\":[[[3,3],[6,6],[3,3]]]}";
    const char *open_ring = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,1]]]}";
    const char *empty_ring = "{\"type\":\"Polygon\",\"coordinates\":[[]]}";
    mc_parse_options lenient = MC_PARSE_OPTIONS_INIT;
    struct {
        mc_parse_options v1;
        uint32_t after;
    } old = {{1, 0, 0x55}, 0x55}; /* a version 1 caller: what follows max_depth is not flags */
    mc_geojson *g = NULL;
    char *text;
    current_test = "lenient rings";
    lenient.flags = MC_PARSE_LENIENT;
    CHECK_STATUS(mc_geojson_parse(JS(three), NULL, &g), MC_E_INVALID_GEOJSON);
    CHECK_STATUS(mc_geojson_parse(JS(open_ring), NULL, &g), MC_E_INVALID_GEOJSON);
    CHECK_STATUS(mc_geojson_parse(JS(three), &old.v1, &g), MC_E_INVALID_GEOJSON);
    CHECK_STATUS(mc_geojson_parse(JS(three), &lenient, &g), MC_OK);
    text = serialize(g, 0);
    CHECK(text && strcmp(text, "{\"type\":\"Polygon\",\"coordinates\":[[[3,3],[6,6],[3,3]]]}") == 0);
    free(text);
    mc_geojson_free(g);
    CHECK_STATUS(mc_geojson_parse(JS(open_ring), &lenient, &g), MC_OK);
    text = serialize(g, 0);
    CHECK(text && strstr(text, "[[[0,0],[1,0],[1,1],[0,1]]]") != NULL); /* kept as given, not closed */
    free(text);
    mc_geojson_free(g);
    CHECK_STATUS(mc_geojson_parse(JS(empty_ring), &lenient, &g), MC_E_INVALID_GEOJSON);
    lenient.flags = 0x8;
    CHECK_STATUS(mc_geojson_parse(JS(three), &lenient, &g), MC_E_INVALID_ARGUMENT);
}

static void run(void) {
    test_lenient_rings();
    test_parse_kinds();
    test_parse_file();
    test_small_stack();
    test_parse_errors();
    test_deep_nesting();
    test_parse_arguments();
    test_serialize();
    test_threads();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
