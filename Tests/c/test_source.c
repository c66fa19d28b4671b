/* C tests of GeoJSON data sources (mapcore/source.h). */
#include <stdatomic.h>

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
    /* The source's index is supercluster-cpp's (maplibre-native, the default): cluster ids
     * overlap the 163 input indexes. point_count tells a flat item's kind, and the features call
     * names a cluster as -1 - id, a point by its index; an id past the inputs names nothing. */
    {
        int64_t cluster[1] = {0}, point[1] = {-1}, past[1] = {0};
        char expected[64];
        for (size_t k = 0; k < count && point[0] < 0; k++) {
            if (items[k].point_count > 1 && items[k].id < 163) point[0] = items[k].id;
        }
        CHECK(point[0] >= 0);
        cluster[0] = -1 - point[0];
        past[0] = 163 + point[0];
        snprintf(expected, sizeof expected, "\"cluster_id\":%lld,", (long long)point[0]);
        CHECK_STATUS(mc_cluster_index_get_features(view, cluster, 1, 0, &buf), MC_OK);
        CHECK(text_contains(&buf, expected));
        mc_buf_dispose(&buf);
        CHECK_STATUS(mc_cluster_index_get_features(view, point, 1, 0, &buf), MC_OK);
        CHECK(!text_contains(&buf, "cluster_id") && text_contains(&buf, "scalerank"));
        mc_buf_dispose(&buf);
        CHECK_STATUS(mc_cluster_index_get_features(view, past, 1, 0, &buf), MC_E_NOT_FOUND);
    }
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

/* Live updates: GL JS diffs, versions, snapshots, the tiles a write changed. */
static void test_update_data(void) {
    mc_source *source = NULL, *frozen = NULL;
    mc_buf buf = MC_BUF_INIT;
    uint64_t version = 99;
    size_t count = 0;
    int changed = -1;
    current_test = "update data";
    CHECK_STATUS(mc_source_new(NULL, 0, &source), MC_OK);
    CHECK_STATUS(mc_source_version(source, &version), MC_OK);
    CHECK(version == 0);
    const char *add = "{\"add\": [{\"type\": \"Feature\", \"id\": 1, \"properties\": {\"n\": 1},"
                      " \"geometry\": {\"type\": \"Point\", \"coordinates\": [10, 20]}}]}";
    CHECK_STATUS(mc_source_update_data(source, JS(add)), MC_OK);
    CHECK_STATUS(mc_source_snapshot(source, &frozen), MC_OK);
    const char *update =
        "{\"update\": [{\"id\": 1, \"newGeometry\": {\"type\": \"Point\", \"coordinates\": [-30, -40]},"
        " \"addOrUpdateProperties\": [{\"key\": \"n\", \"value\": 2}]}], \"remove\": [\"zz\"]}";
    CHECK_STATUS(mc_source_update_data(source, JS(update)), MC_OK);
    CHECK_STATUS(mc_source_version(source, &version), MC_OK);
    CHECK(version == 2);
    CHECK_STATUS(mc_source_get(source, JS("1"), 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "[-30,-40]") && text_contains(&buf, "\"n\":2"));
    mc_buf_dispose(&buf);
    /* The snapshot answers from version 1 and refuses writes. */
    CHECK_STATUS(mc_source_version(frozen, &version), MC_OK);
    CHECK(version == 1);
    CHECK_STATUS(mc_source_get(frozen, JS("1"), 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "[10,20]"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_source_update_data(frozen, JS("{\"removeAll\": true}")), MC_E_UNSUPPORTED);
    CHECK_STATUS(mc_source_clear(frozen), MC_E_UNSUPPORTED);
    /* Refused before fetching anything: a missing file would otherwise be MC_E_IO. */
    CHECK_STATUS(mc_source_import(frozen, "/nonexistent/file.geojson"), MC_E_UNSUPPORTED);
    mc_source_free(frozen);
    /* Changes since version 1: the feature as it was and as it is. */
    CHECK_STATUS(mc_source_changes(source, 1, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "\"all\":false") && text_contains(&buf, "[10,20,10,20]") &&
          text_contains(&buf, "[-30,-40,-30,-40]"));
    mc_buf_dispose(&buf);
    CHECK_STATUS(mc_source_changes(source, 3, 0, &buf), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_tile_changed(source, 1, 0, 0, 0, &changed), MC_OK);
    CHECK(changed == 1);
    CHECK_STATUS(mc_source_tile_changed(source, 1, 5, 0, 0, &changed), MC_OK);
    CHECK(changed == 0);
    CHECK_STATUS(mc_source_tile_changed(source, 2, 0, 0, 0, &changed), MC_OK);
    CHECK(changed == 0);
    CHECK_STATUS(mc_source_tile_changed(source, 1, 1, 2, 0, &changed), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_tile_changed(source, 1, 0, 0, 0, NULL), MC_E_INVALID_ARGUMENT);
    /* A bad diff changes nothing and names where it failed. */
    const char *bad = "{\"remove\": [1], \"add\": [{\"type\": \"Feature\", \"id\": 2, \"properties\": {},"
                      " \"geometry\": {\"type\": \"Point\", \"coordinates\": [1]}}]}";
    CHECK_STATUS(mc_source_update_data(source, JS(bad)), MC_E_INVALID_GEOJSON);
    CHECK(strcmp(mc_last_error()->path, "$.add[0].geometry.coordinates") == 0);
    CHECK_STATUS(mc_source_update_data(source, JS("{\"add\": [{\"type\": \"Feature\", \"geometry\": null}]}")),
                 MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_update_data(source, NULL, 5), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_update_data(source, JS("\xff")), MC_E_PARSE);
    CHECK_STATUS(mc_source_count(source, &count), MC_OK);
    CHECK_STATUS(mc_source_version(source, &version), MC_OK);
    CHECK(count == 1 && version == 2);
    CHECK_STATUS(mc_source_version(source, NULL), MC_E_INVALID_ARGUMENT);
    CHECK_STATUS(mc_source_snapshot(source, NULL), MC_E_INVALID_ARGUMENT);
    mc_source_free(source);
    CHECK_STATUS(mc_source_update_data(source, JS("{}")), MC_E_MISUSE);
    CHECK_STATUS(mc_source_version(source, &version), MC_E_MISUSE);
    CHECK_STATUS(mc_source_snapshot(NULL, &frozen), MC_E_MISUSE);
}

/* Readers on four threads take snapshots while a writer adds feature v at version v: a snapshot
 * of version v must hold exactly v features, ids 0..v-1. */
enum { LIVE_WRITES = 400 };
static mc_source *live_source;
static atomic_int live_done;

static void *live_reader(void *arg) {
    int *bad = arg;
    char id[32];
    while (!live_done) {
        mc_source *view = NULL;
        uint64_t v = 0;
        size_t n = 0;
        mc_buf buf = MC_BUF_INIT;
        if (mc_source_snapshot(live_source, &view) != MC_OK) {
            ++*bad;
            break;
        }
        mc_source_version(view, &v);
        mc_source_count(view, &n);
        if (n != v) ++*bad;
        if (v > 0) {
            snprintf(id, sizeof id, "%llu", (unsigned long long)(v - 1));
            if (mc_source_get(view, id, strlen(id), 0, &buf) != MC_OK) ++*bad;
            mc_buf_dispose(&buf);
        }
        snprintf(id, sizeof id, "%llu", (unsigned long long)v);
        if (mc_source_get(view, id, strlen(id), 0, &buf) != MC_E_NOT_FOUND) ++*bad;
        mc_buf_dispose(&buf);
        mc_source_free(view);
    }
    return NULL;
}

static void test_update_data_threads(void) {
    pthread_t readers[4];
    int bad[4] = {0, 0, 0, 0};
    char diff[256];
    current_test = "update data under readers";
    CHECK_STATUS(mc_source_new(NULL, 0, &live_source), MC_OK);
    live_done = 0;
    for (int i = 0; i < 4; i++) pthread_create(&readers[i], NULL, live_reader, &bad[i]);
    for (int v = 0; v < LIVE_WRITES; v++) {
        snprintf(diff, sizeof diff,
                 "{\"add\": [{\"type\": \"Feature\", \"id\": %d, \"properties\": null,"
                 " \"geometry\": {\"type\": \"Point\", \"coordinates\": [%d, 0]}}]}",
                 v, v % 180);
        CHECK_STATUS(mc_source_update_data(live_source, diff, strlen(diff)), MC_OK);
    }
    live_done = 1;
    for (int i = 0; i < 4; i++) pthread_join(readers[i], NULL);
    CHECK(bad[0] + bad[1] + bad[2] + bad[3] == 0);
    mc_source_free(live_source);
}

static void run(void) {
    test_source();
    test_update_data();
    test_update_data_threads();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
