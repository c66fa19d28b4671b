/* C tests of GeoJSON tiling (mapcore/tile.h) and vector tile decoding (mapcore/vector_tile.h).
 * Expected tiles are geojson-vt 4.0.2's own test facts (Tests/fixtures/geojson-vt/README.md). */
#include "test_support.h"

static mc_geojson *parse_fixture(const char *name) {
    char path[256];
    size_t len = 0;
    char *json;
    mc_geojson *g = NULL;
    snprintf(path, sizeof path, "../Tests/fixtures/geojson-vt/%s", name);
    json = read_file(path, &len);
    if (json) mc_geojson_parse(json, len, NULL, &g);
    if (!g) printf("  fixture %s not read\n", name);
    free(json);
    return g;
}

static void test_us_states(void) {
    mc_geojson *states = parse_fixture("us-states.json");
    mc_tile_index *index = NULL;
    mc_buf buf = MC_BUF_INIT, mvt = MC_BUF_INIT;
    current_test = "us-states getTile";
    CHECK_STATUS(mc_tile_index_new(states, NULL, 0, &index), MC_OK);
    /* getTile(7,37,48): six states, in input order. */
    CHECK_STATUS(mc_tile_index_get_tile(index, 7, 37, 48, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"id\":\"09\"") && text_contains(&buf, "\"id\":\"42\""));
    CHECK(buf.data && strstr(buf.data, "\"09\"") < strstr(buf.data, "\"10\"") &&
          strstr(buf.data, "\"36\"") < strstr(buf.data, "\"42\""));
    mc_buf_dispose(&buf);
    /* getTile(9,148,192): Pennsylvania clipped to the buffered square. */
    CHECK_STATUS(mc_tile_index_get_tile(index, 9, 148, 192, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "[[[-64,4160],[-64,-64],[4160,-64],[4160,4160],[-64,4160]]]"));
    CHECK(text_contains(&buf, "\"name\":\"Pennsylvania\"") && text_contains(&buf, "\"density\":284.3"));
    mc_buf_dispose(&buf);
    /* No tile there: "null", as geojson-vt returns null; not a tile at all: an error. */
    CHECK_STATUS(mc_tile_index_get_tile(index, 11, 800, 400, 0, &buf), MC_OK);
    CHECK(buf.data && strcmp(buf.data, "null") == 0);
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_index_get_tile(index, 25, 200, 200, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_get_tile(index, -5, 123, 400, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_get_tile(index, 2, 4, 0, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 2, 0, -1, NULL, &mvt), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_stats(index, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"total\":37") && text_contains(&buf, "\"compatibility\":\"geojson-vt\""));
    mc_buf_dispose(&buf);

    /* The same tile as MVT, decoded again: one polygon with its properties; the string id "42"
     * cannot be an MVT id and is left out. */
    current_test = "us-states MVT";
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 9, 148, 192, "states", &mvt), MC_OK);
    CHECK(mvt.len > 20);
    CHECK_STATUS(mc_mvt_decode(mvt.data, mvt.len, 0, 0, 0, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"states\"") && text_contains(&buf, "\"extent\":4096"));
    CHECK(text_contains(&buf, "\"type\":\"Polygon\"") && text_contains(&buf, "\"name\":\"Pennsylvania\""));
    CHECK(text_contains(&buf, "[[[-64,4160],[-64,-64],[4160,-64],[4160,4160],[-64,4160]]]"));
    CHECK(!text_contains(&buf, "\"42\""));
    mc_buf_dispose(&buf);
    /* In longitude/latitude: tile 9/148/192 spans lng -75.94 .. -75.23. */
    CHECK_STATUS(mc_mvt_decode(mvt.data, mvt.len, 9, 148, 192, MC_MVT_LNGLAT, &buf), MC_OK);
    CHECK(text_contains(&buf, "-75."));
    mc_buf_dispose(&buf);
    /* Every truncation of a tile is a parse error, never a crash. */
    {
        size_t cut;
        int all_refused = 1;
        for (cut = 1; cut < mvt.len; cut++) {
            int st = mc_mvt_decode(mvt.data, cut, 0, 0, 0, 0, &buf);
            if (st == MC_OK)
                mc_buf_dispose(&buf);
            else if (st != MC_E_PARSE)
                all_refused = 0;
        }
        CHECK(all_refused);
    }
    CHECK_STATUS(mc_mvt_decode(NULL, 3, 0, 0, 0, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_mvt_decode("\x1a\x05\x0a\x01", 4, 0, 0, 0, 0, &buf), MC_E_PARSE);
    mc_buf_dispose(&mvt);
    /* An empty tile is an empty buffer: library memory holding its NUL. */
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 11, 800, 400, NULL, &mvt), MC_OK);
    CHECK(mvt.len == 0 && mvt.data != NULL && mvt.data[0] == 0);
    mc_buf_dispose(&mvt);

    current_test = "tile index misuse";
    mc_tile_index_free(index);
    CHECK_STATUS(mc_tile_index_get_tile(index, 0, 0, 0, 0, &buf), MC_E_MISUSE);
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 0, 0, 0, NULL, &mvt), MC_E_MISUSE);
    mc_tile_index_free(index);
    mc_tile_index_free(NULL);
    mc_geojson_free(states);
}

static void test_options(void) {
    mc_geojson *feature = parse_fixture("feature.json");
    mc_geojson *empty = parse_fixture("empty.json");
    mc_tile_index *index = NULL;
    mc_buf buf = MC_BUF_INIT;
    current_test = "tile index options";
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"maxZoom\": 25}"), &index), MC_E_INVALID_ARGUMENT);
    CHECK(index == NULL && strstr(mc_last_error()->message, "maxZoom") != NULL);
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"promoteId\": \"a\", \"generateId\": true}"), &index),
                 MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"extent\": \"big\"}"), &index), MC_E_INVALID_ARGUMENT);
    CHECK(strstr(mc_last_error()->message, "extent") != NULL);
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"colour\": 1}"), &index), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_new(feature, JS("[1]"), &index), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_index_new(NULL, NULL, 0, &index), MC_E_MISUSE);
    CHECK_STATUS(mc_tile_index_new(feature, NULL, 0, NULL), MC_E_INVALID_ARGUMENT);
    /* feature.json at z0: one polygon, the fixture's ring, id 0. */
    CHECK_STATUS(mc_tile_index_new(feature, NULL, 0, &index), MC_OK);
    CHECK_STATUS(mc_tile_index_get_tile(index, 0, 0, 0, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "[[[3186,2048],[3186,2037],[3197,2037],[3197,2048],[3186,2048]]]"));
    CHECK(text_contains(&buf, "\"id\":0"));
    mc_buf_dispose(&buf);
    mc_tile_index_free(index);
    /* An extent in the billions has JSON tiles, but no MVT: its coordinates are not sint32. */
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"extent\": 8589934592}"), &index), MC_OK);
    CHECK_STATUS(mc_tile_index_get_tile(index, 0, 0, 0, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"id\":0"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 0, 0, 0, NULL, &buf), MC_E_INVALID_ARGUMENT);
    CHECK(strstr(mc_last_error()->message, "extent") != NULL);
    mc_tile_index_free(index);
    /* The largest extent an MVT holds with the default buffer of 64: extent + 2 x 64 + 2 = 2^31 - 1. */
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"extent\": 2147483517}"), &index), MC_OK);
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 0, 0, 0, NULL, &buf), MC_OK);
    CHECK(buf.len > 0);
    mc_buf_dispose(&buf);
    mc_tile_index_free(index);
    CHECK_STATUS(mc_tile_index_new(feature, JS("{\"extent\": 2147483518}"), &index), MC_OK);
    CHECK_STATUS(mc_tile_index_get_tile_mvt(index, 0, 0, 0, NULL, &buf), MC_E_INVALID_ARGUMENT);
    mc_tile_index_free(index);
    /* The index outlives its data: ids and tags come from the parsed features it shares. */
    {
        mc_geojson *owned = parse_fixture("feature.json");
        CHECK_STATUS(mc_tile_index_new(owned, NULL, 0, &index), MC_OK);
        mc_geojson_free(owned);
        CHECK_STATUS(mc_tile_index_get_tile(index, 0, 0, 0, 0, &buf), MC_OK);
        CHECK(text_contains(&buf, "\"id\":0") && text_contains(&buf, "\"prop1\":{\"this\":\"that\"}"));
        mc_buf_dispose(&buf);
        mc_tile_index_free(index);
    }
    /* No features: no tiles at all. */
    CHECK_STATUS(mc_tile_index_new(empty, NULL, 0, &index), MC_OK);
    CHECK_STATUS(mc_tile_index_get_tile(index, 0, 0, 0, 0, &buf), MC_OK);
    CHECK(buf.data && strcmp(buf.data, "null") == 0);
    mc_buf_dispose(&buf);
    mc_tile_index_free(index);
    mc_geojson_free(feature);
    mc_geojson_free(empty);
}

static void run(void) {
    test_us_states();
    test_options();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
