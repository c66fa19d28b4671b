/* C tests of vector tile sources and tilesets (mapcore/tilesource.h). URL and cover expectations
 * are maplibre-native's own test facts (test/storage/resource.test.cpp, test/util/tile_cover.test.cpp). */
#include "test_support.h"

#include <unistd.h>

static void expect_url(const char *template_text, int z, int x, int y, int tms, double ratio, const char *want) {
    mc_buf buf = MC_BUF_INIT;
    CHECK_STATUS(mc_tile_url_expand(template_text, strlen(template_text), z, x, y, tms, ratio, &buf), MC_OK);
    CHECK(buf.data && strcmp(buf.data, want) == 0);
    if (buf.data && strcmp(buf.data, want) != 0) printf("  got %s, want %s\n", buf.data, want);
    mc_buf_dispose(&buf);
}

static void test_urls_and_cover(void) {
    mc_buf buf = MC_BUF_INIT;
    double sf[4] = {-122.5744, 37.6609, -122.3204, 37.8271};
    double world[4] = {-180, -85, 180, 85};
    double nan_box[4] = {0, 0, 0, 0};
    double camera[3] = {0, 0, 0};
    current_test = "tile URLs";
    expect_url("http://example.com/{z}/{x}/{y}{ratio}.png", 3, 1, 2, 0, 2.0, "http://example.com/3/1/2@2x.png");
    expect_url("http://example.com/{prefix}/{z}/{x}/{y}.mvt", 3, 1, 2, 0, 2.0, "http://example.com/12/3/1/2.mvt");
    expect_url("{quadkey}", 17, 22914, 52870, 0, 1.0, "02301322130000230");
    expect_url("?bbox={bbox-epsg-3857}", 1, 0, 0, 0, 1.0, "?bbox=-20037508.342789244,0,0,20037508.342789244");
    expect_url("http://example.com/{z}/{x}/{y}{ratio}.png", 3, 1, 2, 1, 1.0, "http://example.com/3/1/5.png");
    CHECK_STATUS(mc_tile_url_expand("{z}", 3, 2, 4, 0, 0, 1.0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_url_expand(NULL, 3, 2, 0, 0, 0, 1.0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_url_expand("\xff{z}", 4, 2, 0, 0, 0, 1.0, &buf), MC_E_INVALID_ARGUMENT);

    current_test = "tile cover";
    CHECK_STATUS(mc_tile_cover(sf, 10, &buf), MC_OK);
    CHECK(buf.data && strcmp(buf.data, "[[10,163,395],[10,163,396],[10,164,395],[10,164,396]]") == 0);
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_cover(world, 18, &buf), MC_E_LIMIT);
    CHECK_STATUS(mc_tile_cover(NULL, 1, &buf), MC_E_INVALID_ARGUMENT);
    nan_box[0] = 0.0 / 0.0;
    CHECK_STATUS(mc_tile_cover(nan_box, 1, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_camera_fit(world, 512, 512, NULL, 0, 22, camera), MC_OK);
    CHECK(fabs(camera[0]) < 1e-9 && camera[2] > -0.01 && camera[2] < 0.01);
    CHECK_STATUS(mc_camera_fit(world, 10, 10, (double[4]){5, 5, 5, 5}, 0, 22, camera), MC_E_INVALID_ARGUMENT);
}

static void test_source_options(void) {
    mc_tile_source *source = NULL;
    mc_buf buf = MC_BUF_INIT;
    double box[4] = {-1, -1, 1, 1};
    current_test = "tile source options";
    CHECK_STATUS(
        mc_tile_source_new(JS("{\"tiles\":[\"https://a/{z}/{x}/{y}.pbf\"],\"tileSize\":256,\"maxzoom\":3}"), &source),
        MC_OK);
    CHECK_STATUS(mc_tile_source_info(source, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"minzoom\":0") && text_contains(&buf, "\"scheme\":\"xyz\""));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_source_url(source, 2, 1, 3, 1.0, &buf), MC_OK);
    CHECK(buf.data && strcmp(buf.data, "https://a/2/1/3.pbf") == 0);
    mc_buf_dispose(&buf);
    /* A 256-pixel source at map zoom 5 wants zoom 6, capped at maxzoom 3 and overzoomed. */
    CHECK_STATUS(mc_tile_source_cover(source, box, 5.0, &buf), MC_OK);
    CHECK(text_contains(&buf, "[3,3,3,6]"));
    mc_buf_dispose(&buf);
    mc_tile_source_free(source);
    CHECK_STATUS(mc_tile_source_url(source, 0, 0, 0, 1.0, &buf), MC_E_MISUSE);
    mc_tile_source_free(source);
    CHECK_STATUS(mc_tile_source_new(JS("{\"minzoom\":5,\"maxzoom\":2,\"tiles\":[\"t\"]}"), &source),
                 MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_source_new(JS("{\"scheme\":\"wms\",\"tiles\":[\"t\"]}"), &source), MC_E_INVALID_ARGUMENT);
    CHECK(strstr(mc_last_error()->message, "scheme") != NULL);
    CHECK_STATUS(mc_tile_source_new(JS("{}"), &source), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tile_source_new(JS("{\"url\":\"/nonexistent/x.pmtiles\"}"), &source), MC_E_NOT_FOUND);
    CHECK_STATUS(mc_tile_source_new(NULL, 0, NULL), MC_E_INVALID_ARGUMENT);
}

static void test_tileset_round_trip(void) {
    char dir[] = "/tmp/mapcore-c-tileset-XXXXXX";
    char path[128], options[256];
    size_t len = 0;
    char *json = read_file("../Tests/fixtures/geojson-vt/us-states.json", &len);
    mc_geojson *states = NULL;
    mc_source *data = NULL;
    mc_tile_source *source = NULL;
    mc_buf buf = MC_BUF_INIT;
    double texas[4] = {-105, 27, -95, 35};
    FILE *f;
    current_test = "tileset round trip";
    CHECK(json != NULL && mkdtemp(dir) != NULL);
    CHECK_STATUS(mc_source_new(NULL, 0, &data), MC_OK);
    CHECK_STATUS(mc_geojson_parse(json, len, NULL, &states), MC_OK);
    CHECK_STATUS(mc_source_add(data, states), MC_OK);
    snprintf(path, sizeof path, "%s/states.pmtiles", dir);
    CHECK_STATUS(mc_tileset_write(data, path, JS("{\"maxzoom\":3,\"layer\":\"states\"}"), &buf), MC_OK);
    CHECK(text_contains(&buf, "\"format\":\"pmtiles\"") && text_contains(&buf, "\"tilesPerZoom\":[1,4,8,10]"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tileset_write(data, path, JS("{\"maxzoom\":30}"), &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_tileset_write(data, "/nonexistent/dir/x.mbtiles", NULL, 0, &buf), MC_E_IO);

    snprintf(options, sizeof options, "{\"url\":\"pmtiles://%s\"}", path);
    CHECK_STATUS(mc_tile_source_new(options, strlen(options), &source), MC_OK);
    CHECK_STATUS(mc_tile_source_info(source, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"maxzoom\":3") && text_contains(&buf, "\"vector_layers\""));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_source_fetch(source, 0, 0, 0, 0, &buf), MC_OK);
    CHECK(buf.len > 1000 && !(((unsigned char *)buf.data)[0] == 0x1f));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_source_fetch(source, 0, 0, 0, MC_FETCH_RAW, &buf), MC_OK);
    CHECK(buf.len > 100 && ((unsigned char *)buf.data)[0] == 0x1f);
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_source_fetch(source, 3, 7, 7, 0, &buf), MC_OK);
    CHECK(buf.len == 0); /* no tile there */
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_source_features(source, 0, 0, 0, "states", MC_MVT_LNGLAT, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"sourceLayer\":\"states\"") && text_contains(&buf, "\"name\":\"Texas\""));
    mc_buf_dispose(&buf);
    CHECK_STATUS(
        mc_tile_source_query(source, texas, 3.0, "states", JS("[\"==\",[\"get\",\"name\"],\"Texas\"]"), 0, &buf),
        MC_OK);
    CHECK(text_contains(&buf, "\"name\":\"Texas\"") && !text_contains(&buf, "Oklahoma"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_tile_source_query(source, texas, 3.0, NULL, JS("[\"get\"]"), 0, &buf), MC_E_EXPRESSION);
    CHECK_STATUS(mc_tile_source_features(source, 0, 0, 0, NULL, 0x4000, &buf), MC_E_INVALID_ARGUMENT);
    mc_tile_source_free(source);

    /* A truncated archive is an error, never a crash. */
    snprintf(path, sizeof path, "%s/cut.pmtiles", dir);
    f = fopen(path, "wb");
    if (f) {
        fwrite("PMTiles\x03", 1, 8, f);
        fclose(f);
    }
    snprintf(options, sizeof options, "{\"url\":\"%s\"}", path);
    CHECK_STATUS(mc_tile_source_new(options, strlen(options), &source), MC_E_PARSE);
    unlink(path);
    snprintf(path, sizeof path, "%s/states.pmtiles", dir);
    unlink(path);
    rmdir(dir);
    mc_source_free(data);
    mc_geojson_free(states);
    free(json);
}

static void run(void) {
    test_urls_and_cover();
    test_source_options();
    test_tileset_round_trip();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
