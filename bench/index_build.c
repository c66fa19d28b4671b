/* A tile index's first build in a fresh process, from C (bench/ab_tiles_c.py --build builds and
 * runs this against two libraries): FILE is parsed, then `mc_tile_index_new` is timed once (the
 * first build: fresh pages, cold caches, as geojson_vt_node.mjs's first build of geojson-vt) and
 * eight times more (the warm builds, which reuse freed memory), each with its CPU time (user and
 * system, both threads) and minor page faults. Then the first index's z0 tile as MVT is timed: its
 * first write simplifies every line (mc_tile_index_new leaves that to the tiles), so a world view's
 * first tile costs the build and this. The second and third indexes' first z4 and z6 tiles near the
 * middle of the world (x, y = 2^z / 2 + 3, 2^z / 2 - 5) are timed too: a first tile over part of the
 * data, which the tiles the build stopped splitting are cut from (and which they give back first,
 * where they keep their lines packed). OPTIONS: the index's options as JSON (geojson-vt's defaults
 * without).
 * usage: index_build FILE [OPTIONS] */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { WARM = 8 };

/* CPU seconds of the process so far, and its minor page faults. */
static double cpu(long *faults) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    *faults = r.ru_minflt;
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: index_build FILE [OPTIONS]\n");
        return 2;
    }
    const char *options = argc > 2 && argv[2][0] ? argv[2] : NULL;
    mc_geojson *data = parsed_file(argv[1]);
    double seconds[1 + WARM], cpuSeconds = 0, z0Seconds = 0, partSeconds[2] = {0, 0};
    long faults[1 + WARM];
    for (int i = 0; i <= WARM; i++) {
        long before, after;
        double c = cpu(&before), s = now();
        mc_tile_index *index;
        if (mc_tile_index_new(data, options, options ? strlen(options) : 0, &index) != MC_OK) {
            fprintf(stderr, "%s\n", mc_last_error()->message);
            return 1;
        }
        seconds[i] = now() - s;
        double used = cpu(&after) - c;
        if (i == 0) cpuSeconds = used;
        faults[i] = after - before;
        if (i == 0) {
            mc_buf tile = {0};
            s = now();
            if (mc_tile_index_get_tile_mvt(index, 0, 0, 0, "layer", &tile) != MC_OK) {
                fprintf(stderr, "%s\n", mc_last_error()->message);
                return 1;
            }
            z0Seconds = now() - s;
            mc_buf_dispose(&tile);
        } else if (i <= 2) {
            int z = i == 1 ? 4 : 6, half = 1 << (z - 1);
            mc_buf tile = {0};
            s = now();
            if (mc_tile_index_get_tile_mvt(index, z, half + 3, half - 5, "layer", &tile) != MC_OK) {
                fprintf(stderr, "%s\n", mc_last_error()->message);
                return 1;
            }
            partSeconds[i - 1] = now() - s;
            mc_buf_dispose(&tile);
        }
        mc_tile_index_free(index);
    }
    long warmFaults = faults[WARM];
    qsort(seconds + 1, WARM, sizeof *seconds, ascending);
    printf("first %.1f ms, cpu %.1f ms, faults %ld; warm median %.1f ms, min %.1f ms, faults %ld; "
           "first z0 tile %.1f ms; first z4 tile %.2f ms, first z6 tile %.2f ms\n",
           1e3 * seconds[0], 1e3 * cpuSeconds, faults[0], 1e3 * (seconds[WARM / 2] + seconds[WARM / 2 + 1]) / 2,
           1e3 * seconds[1], warmFaults, 1e3 * z0Seconds, 1e3 * partSeconds[0], 1e3 * partSeconds[1]);
    mc_geojson_free(data);
    return 0;
}
