/* C tests of GeoJSON data sources (mapcore/source.h). */
#include "test_support.h"

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
    CHECK_STATUS(
        mc_source_new(JS("{\"cluster\": true, \"clusterProperties\": {\"rank\": [\"+\", [\"get\", \"scalerank\"]]}}"),
                      &source),
        MC_OK);
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
    /* A bad filter reports the key path of the failing node, as mc_filter_compile does. */
    const char *bad_filter = "{\"filter\": [\"==\", [\"get\", \"a\"], [\"+\", 1, \"x\"]]}";
    CHECK_STATUS(mc_source_set_options(source, bad_filter, strlen(bad_filter)), MC_E_EXPRESSION);
    CHECK(strcmp(mc_last_error()->path, "[2][2]") == 0);
    CHECK(strstr(mc_last_error()->message, "filter: ") == mc_last_error()->message);
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

static void run(void) { test_source(); }

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
