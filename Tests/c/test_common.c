/* C tests of versions, status names, handle misuse and the per-thread last error (mapcore/common.h). */
#include "test_support.h"

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
    mc_geojson_free(g);                      /* double free: ignored */
    mc_geojson_free(NULL);                   /* no-op */
    mc_geojson_free((mc_geojson *)&foreign); /* foreign: ignored */
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

/* Four threads that make their first library calls at the same moment, each failing, so each
 * creates its error record while the others do: the thread-local key's one-time setup must
 * serve all four (the ThreadSanitizer run, make tsan, watches this one; it runs first, before
 * any other call has set the key up). */
static pthread_barrier_t first_barrier;

static void *first_error(void *arg) {
    mc_geojson *g = NULL;
    int *ok = arg;
    pthread_barrier_wait(&first_barrier);
    *ok = mc_geojson_parse("{", 1, NULL, &g) == MC_E_PARSE && mc_last_error()->code == MC_E_PARSE &&
          mc_last_error()->offset == 1;
    return NULL;
}

static void test_first_errors_together(void) {
    pthread_t threads[4];
    int ok[4] = {0, 0, 0, 0};
    current_test = "first errors on four threads at once";
    pthread_barrier_init(&first_barrier, NULL, 4);
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, first_error, &ok[i]);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&first_barrier);
    CHECK(ok[0] && ok[1] && ok[2] && ok[3]);
}

static void run(void) {
    test_first_errors_together();
    test_versions();
    test_misuse();
    test_last_error();
}

int main(int argc, char **argv) { return run_tests(argc, argv, run); }
