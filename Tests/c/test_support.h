/* Shared by the C tests, one file per header of include/mapcore/: the CHECK macros, the pass and
 * fail counts, and small helpers. Each test program prints "N passed, M failed" and exits 1 on a
 * failure. Expected values are worked out by hand from the inputs written in the tests.
 * usage: test_<header> DATA_DIR */
#ifndef MAPCORE_TEST_SUPPORT_H
#define MAPCORE_TEST_SUPPORT_H

#include <mapcore.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string literal and its length. */
#define JS(text) text, strlen(text)

static int passed, failed;
static const char *current_test = "";

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            passed++;                                                                                                  \
        } else {                                                                                                       \
            failed++;                                                                                                  \
            printf("FAIL %s:%d in %s: %s\n", __FILE__, __LINE__, current_test, #cond);                                 \
        }                                                                                                              \
    } while (0)

#define CHECK_STATUS(call, expected)                                                                                   \
    do {                                                                                                               \
        int st_ = (call);                                                                                              \
        if (st_ == (expected)) {                                                                                       \
            passed++;                                                                                                  \
        } else {                                                                                                       \
            failed++;                                                                                                  \
            printf("FAIL %s:%d in %s: %s returned %d (%s), expected %d; last error: %s\n", __FILE__, __LINE__,         \
                   current_test, #call, st_, mc_errstr(st_), expected, mc_last_error()->message);                      \
        }                                                                                                              \
    } while (0)

static const char *data_dir = ".";

static inline mc_geojson *parse(const char *json) {
    mc_geojson *g = NULL;
    if (mc_geojson_parse(json, strlen(json), NULL, &g) != MC_OK) {
        printf("  parse failed for %s: %s\n", json, mc_last_error()->message);
        return NULL;
    }
    return g;
}

/* Serialized text of a handle, malloc'd (caller frees), or NULL. */
static inline char *serialize(const mc_geojson *g, unsigned flags) {
    mc_buf buf = MC_BUF_INIT;
    char *copy;
    if (mc_geojson_serialize(g, flags, &buf) != MC_OK) return NULL;
    copy = malloc(buf.len + 1);
    memcpy(copy, buf.data, buf.len + 1);
    mc_buf_dispose(&buf);
    return copy;
}

static inline char *read_file(const char *name, size_t *len) {
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

/* Runs `fn(&ok)` on a thread with a 128 KB stack (musl's default) and returns ok. */
/* Runs fn on a thread with the 128 KB stack the library promises to fit in. AddressSanitizer
 * builds put redzones around every frame's locals, so make asan sets MAPCORE_TEST_STACK_KB to
 * give the same tests room; every other run uses 128. */
static inline int on_small_stack(void *(*fn)(void *)) {
    pthread_attr_t attr;
    pthread_t t;
    int ok = 0;
    const char *kb = getenv("MAPCORE_TEST_STACK_KB");
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)(kb ? atoi(kb) : 128) * 1024);
    if (pthread_create(&t, &attr, fn, &ok) == 0) pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    return ok;
}

static inline mc_geojson *parse_places(void) {
    size_t len = 0;
    char *json = read_file("places.geojson", &len);
    mc_geojson *g = NULL;
    if (json) mc_geojson_parse(json, len, NULL, &g);
    free(json);
    return g;
}

static inline int text_contains(const mc_buf *b, const char *needle) {
    return b->data && strstr(b->data, needle) != NULL;
}

/* Whether the bytes hold `needle` (binary results, which may hold zero bytes). */
static inline int bytes_contain(const mc_buf *b, const void *needle, size_t len) {
    for (size_t at = 0; b->data && len <= b->len && at <= b->len - len; at++)
        if (memcmp(b->data + at, needle, len) == 0) return 1;
    return 0;
}

static inline mc_expression *compile(const char *json, const char *spec) {
    mc_expression *e = NULL;
    int st = mc_expression_compile(json, strlen(json), spec, spec ? strlen(spec) : 0, &e);
    if (st != MC_OK) printf("compile %s: %s\n", json, mc_last_error()->message);
    return e;
}

/* Evaluates and returns the JSON text (malloc'd copy), or NULL with the status in *status. */
static inline char *eval_text(const mc_expression *e, const char *feature, const mc_eval_context *ctx, int *status) {
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

static inline int eval_equals(const mc_expression *e, const char *feature, const mc_eval_context *ctx,
                              const char *expected) {
    int st;
    char *text = eval_text(e, feature, ctx, &st);
    int ok = text && strcmp(text, expected) == 0;
    if (!ok)
        printf("  got %s (status %d: %s), expected %s\n", text ? text : "-", st, mc_last_error()->message, expected);
    free(text);
    return ok;
}

/* Runs the tests of one program and prints the closing line. */
static inline int run_tests(int argc, char **argv, void (*run)(void)) {
    if (argc > 1) data_dir = argv[1];
    run();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

#endif /* MAPCORE_TEST_SUPPORT_H */
