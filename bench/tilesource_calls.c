/* Per-call cost of tile cover and URL expansion as a C caller pays it (bench_tilesource.py builds
 * and runs this): median of 5 rounds of N calls, each including mc_buf_dispose. */
#include <mapcore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#include <stdlib.h>

int main(int argc, char **argv) {
    double box[4];
    const char *template_text = "https://tiles.example.com/{z}/{x}/{y}{ratio}.pbf?key={quadkey}";
    double rounds[5];
    int n = 20000;
    if (argc < 5) return 2;
    for (int i = 0; i < 4; i++) box[i] = atof(argv[i + 1]);
    for (int r = 0; r < 5; r++) {
        double start = now();
        for (int i = 0; i < n; i++) {
            mc_buf buf = MC_BUF_INIT;
            if (mc_tile_cover(box, 16, &buf) != MC_OK) return 1;
            mc_buf_dispose(&buf);
        }
        rounds[r] = (now() - start) / n;
    }
    qsort(rounds, 5, sizeof rounds[0], compare);
    printf("%.3f", rounds[2] * 1e6);
    for (int r = 0; r < 5; r++) {
        double start = now();
        for (int i = 0; i < n; i++) {
            mc_buf buf = MC_BUF_INIT;
            if (mc_tile_url_expand(template_text, strlen(template_text), 16, 33196, 22545, 0, 2.0, &buf) != MC_OK)
                return 1;
            mc_buf_dispose(&buf);
        }
        rounds[r] = (now() - start) / n;
    }
    qsort(rounds, 5, sizeof rounds[0], compare);
    printf(" %.3f\n", rounds[2] * 1e6);
    return 0;
}
