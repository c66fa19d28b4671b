/* C tests of the supercluster index (mapcore/cluster.h). */
#include "test_support.h"

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
    CHECK_STATUS(mc_cluster_index_get_children_flat(index, 164, NULL, 0, &count), MC_E_BUFFER_TOO_SMALL);
    CHECK_STATUS(mc_cluster_index_get_children_flat(index, 164, items, 64, &count), MC_OK);
    for (i = 0, sum = 0; i < count; i++) sum += items[i].point_count;
    CHECK(count >= 2 && sum == 16);
    CHECK_STATUS(mc_cluster_index_get_children_flat(index, 5, items, 64, &count), MC_E_NOT_FOUND);
    /* Leaves: named offset/limit; page {5, 10} starts at Niagara Falls. */
    CHECK_STATUS(mc_cluster_index_get_leaves(index, 164, &page, 0, &buf), MC_OK);
    CHECK(text_contains(&buf, "Niagara Falls") && !text_contains(&buf, "Cape Cod"));
    mc_buf_dispose(&buf);
    page.offset = 0;
    page.limit = MC_LIMIT_ALL;
    CHECK_STATUS(mc_cluster_index_get_leaves_flat(index, 164, &page, items, 64, &count), MC_OK);
    CHECK(count == 16 && items[0].point_count == 1);
    /* Features by id, in the order asked: a cluster, then input points 7 and 0. */
    {
        const int64_t ids[3] = {164, 7, 0}, unknown[2] = {0, INT64_MAX}, negative[1] = {-1};
        const int64_t both_forms[2] = {164, -165};
        CHECK_STATUS(mc_cluster_index_get_features(index, ids, 3, 0, &buf), MC_OK);
        CHECK(text_contains(&buf, "\"features\":[{\"type\":\"Feature\",\"id\":164,"));
        CHECK(buf.data && strstr(buf.data, "Newman I.") && strstr(buf.data, "Niagara Falls") &&
              strstr(buf.data, "Newman I.") < strstr(buf.data, "Niagara Falls"));
        mc_buf_dispose(&buf);
        CHECK_STATUS(mc_cluster_index_get_features(index, NULL, 0, 0, &buf), MC_OK);
        CHECK(text_contains(&buf, "\"features\":[]"));
        mc_buf_dispose(&buf);
        /* As MessagePack: {"type": "FeatureCollection", "features": [one feature]}, maps and
         * arrays with 32-bit counts, the point's name among its bytes. */
        CHECK_STATUS(mc_cluster_index_get_features(index, ids + 2, 1, MC_SERIALIZE_MSGPACK, &buf), MC_OK);
        CHECK(buf.len > 42 && memcmp(buf.data,
                                     "\xdf\x00\x00\x00\x02\xa4type\xb1"
                                     "FeatureCollection\xa8"
                                     "features\xdd\x00\x00\x00\x01\xdf",
                                     43) == 0);
        CHECK(bytes_contain(&buf, "\xadNiagara Falls", 14));
        mc_buf_dispose(&buf);
        CHECK_STATUS(mc_cluster_index_get_features(index, ids, 3, MC_SERIALIZE_MSGPACK | MC_SERIALIZE_PRETTY, &buf),
                     MC_E_INVALID_ARGUMENT);
        CHECK(buf.data == NULL);
        CHECK_STATUS(mc_cluster_index_get_features(index, unknown, 2, 0, &buf), MC_E_NOT_FOUND);
        CHECK(buf.data == NULL);
        CHECK_STATUS(mc_cluster_index_get_features(index, negative, 1, 0, &buf), MC_E_NOT_FOUND);
        /* -1 - id names the same cluster as its id (the only form in supercluster-cpp's ids). */
        CHECK_STATUS(mc_cluster_index_get_features(index, both_forms, 2, 0, &buf), MC_OK);
        CHECK(text_contains(&buf, "\"cluster_id\":164,") && buf.data &&
              strstr(strstr(buf.data, "\"cluster_id\":164,") + 1, "\"cluster_id\":164,"));
        mc_buf_dispose(&buf);
        CHECK_STATUS(mc_cluster_index_get_features(index, NULL, 1, 0, &buf), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_get_features(index, ids, SIZE_MAX, 0, &buf), MC_E_INVALID_ARGUMENT);
        CHECK_STATUS(mc_cluster_index_get_features(index, ids, 3, 0, NULL), MC_E_INVALID_ARGUMENT);
    }
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
        CHECK_STATUS(mc_cluster_index_new(JS("{\"clusterProperties\": {\"s\": [\"+\", [\"nope\"]]}}"), &bad),
                     MC_E_EXPRESSION);
        CHECK_STATUS(mc_cluster_index_new(JS("{"), &bad), MC_E_PARSE);
        CHECK(bad == NULL);
    }
    /* Misuse: NULL and freed handles, wrong kinds. */
    mc_cluster_index_free(index);
    CHECK_STATUS(mc_cluster_index_get_clusters(index, world, 0, 0, &buf), MC_E_MISUSE);
    CHECK_STATUS(mc_cluster_index_get_children_flat(index, 164, items, 64, &count), MC_E_MISUSE);
    CHECK_STATUS(mc_cluster_index_get_children_flat(NULL, 164, items, 64, &count), MC_E_MISUSE);
    {
        const int64_t ids[1] = {0};
        CHECK_STATUS(mc_cluster_index_get_features(index, ids, 1, 0, &buf), MC_E_MISUSE);
        CHECK_STATUS(mc_cluster_index_get_features(NULL, ids, 1, 0, &buf), MC_E_MISUSE);
    }
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
    if (!xy || !items) {
        free(xy);
        free(items);
        return;
    }
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

static void run(void) {
    test_cluster_index();
    test_cluster_index_large();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
