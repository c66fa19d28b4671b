/* What the C benchmark harnesses (tiles_encode.c, index_build.c) share: a monotonic clock, and
 * an input file parsed into a GeoJSON handle (exiting with a message when it cannot be). */
#ifndef MAPCORE_BENCH_HARNESS_H
#define MAPCORE_BENCH_HARNESS_H
#include <mapcore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The GeoJSON in the file at `path`; on failure the process exits (2 unreadable, 1 unparsable). */
static mc_geojson *parsed_file(const char *path) {
    FILE *f = fopen(path, "rb");
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = n > 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n) : NULL;
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    mc_geojson *data;
    if (mc_geojson_parse(text, (size_t)n, NULL, &data) != MC_OK) {
        fprintf(stderr, "%s: %s\n", path, mc_last_error()->message);
        exit(1);
    }
    free(text);
    return data;
}
#endif
