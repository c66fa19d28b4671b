/* MVT encoding from C, without Python's calls and copies (bench/ab_tiles_c.py builds and runs
 * this against two libraries): a geojson-vt index with its defaults over FILE, every tile of
 * zooms 0..8 that has data asked for as MVT once, depth first (making, interning, encoding),
 * then all of them again seven times (encoding only; the fastest of the seven per zoom group is
 * printed, as this VM's page faults and neighbours make single passes vary by 30%), then one
 * tile of about 900 bytes at the deepest zoom asked for as many times as that zoom has tiles
 * (its data in cache: what is left is instructions and per-call costs).
 * With --making, also issue 23's split: making = a fresh index's first MVT requests (T1) minus the
 * same requests on a fresh index whose tiles a JSON pass made first (T2: interning and encoding),
 * interning = T2 minus encoding only, each the fastest of three fresh indexes.
 * usage: tiles_encode FILE [--making] */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { MAXZOOM = 8, PASSES = 7 };

typedef struct {
    int z, x, y;
} tile;

static double cpu(int system) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    struct timeval t = system ? r.ru_stime : r.ru_utime;
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* The tile's MVT length, or (size_t)-1 on error. */
static size_t mvt(mc_tile_index *index, tile t) {
    mc_buf b = MC_BUF_INIT;
    if (mc_tile_index_get_tile_mvt(index, t.z, t.x, t.y, NULL, &b) != MC_OK) return (size_t)-1;
    size_t len = b.len;
    mc_buf_dispose(&b);
    return len;
}

/* Seconds of `count` MVT requests on a fresh index over `data`, after a JSON request of each
 * tile when `json` (which makes the tiles). */
static double requests(mc_geojson *data, const tile *tiles, size_t count, int json) {
    mc_tile_index *index;
    if (mc_tile_index_new(data, NULL, 0, &index) != MC_OK) {
        fprintf(stderr, "tile index: %s\n", mc_last_error()->message);
        exit(1);
    }
    if (json)
        for (size_t i = 0; i < count; i++) {
            mc_buf b = MC_BUF_INIT;
            mc_tile_index_get_tile(index, tiles[i].z, tiles[i].x, tiles[i].y, 0, &b);
            mc_buf_dispose(&b);
        }
    double s = now();
    for (size_t i = 0; i < count; i++) mvt(index, tiles[i]);
    double t = now() - s;
    mc_tile_index_free(index);
    return t;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: tiles_encode FILE [--making]\n");
        return 2;
    }
    mc_geojson *data = parsed_file(argv[1]);
    mc_tile_index *index;
    if (mc_tile_index_new(data, NULL, 0, &index) != MC_OK) {
        fprintf(stderr, "%s\n", mc_last_error()->message);
        return 1;
    }
    size_t room = 1 << 22;
    tile *tiles = malloc(room * sizeof *tiles), *stack = malloc(room * sizeof *stack);
    if (!tiles || !stack) return 2;
    size_t count = 0, top = 0;
    stack[top++] = (tile){0, 0, 0};
    double user = cpu(0), sys = cpu(1), start = now();
    while (top > 0) {
        tile t = stack[--top];
        size_t len = mvt(index, t);
        if (len == (size_t)-1) {
            fprintf(stderr, "tile %d/%d/%d: %s\n", t.z, t.x, t.y, mc_last_error()->message);
            return 1;
        }
        if (len == 0) continue;
        tiles[count++] = t;
        if (t.z < MAXZOOM && top + 4 <= room)
            for (int dx = 0; dx < 2; dx++)
                for (int dy = 0; dy < 2; dy++) stack[top++] = (tile){t.z + 1, 2 * t.x + dx, 2 * t.y + dy};
    }
    double first = now() - start, firstUser = cpu(0) - user, firstSys = cpu(1) - sys;
    double best[4] = {1e9, 1e9, 1e9, 1e9}; /* z0, z1-4, z5-7, z8 */
    for (int p = 0; p < PASSES; p++) {
        double group[4] = {0};
        for (size_t i = 0; i < count; i++) {
            double s = now();
            mvt(index, tiles[i]);
            int z = tiles[i].z;
            group[z == 0 ? 0 : z <= 4 ? 1 : z < MAXZOOM ? 2 : 3] += now() - s;
        }
        for (int g = 0; g < 4; g++)
            if (group[g] < best[g]) best[g] = group[g];
    }
    tile hot = {-1, 0, 0};
    size_t deepest = 0, nearest = (size_t)-1;
    for (size_t i = 0; i < count; i++) {
        if (tiles[i].z != MAXZOOM) continue;
        deepest++;
        size_t len = mvt(index, tiles[i]), off = len > 900 ? len - 900 : 900 - len;
        if (off < nearest) {
            nearest = off;
            hot = tiles[i];
        }
    }
    double hotTime = 0; /* 0 when no tile has the deepest zoom */
    if (hot.z >= 0) hotTime = 1e9;
    for (int p = 0; p < 3 && hot.z >= 0; p++) {
        double s = now();
        for (size_t i = 0; i < deepest; i++) mvt(index, hot);
        double t = now() - s;
        if (t < hotTime) hotTime = t;
    }
    printf("%zu tiles; first requests %.0f ms (user %.0f, sys %.0f); encoding only, fastest of %d: z0 %.0f, z1-4 %.0f, "
           "z5-7 %.0f, z8 %.0f, all %.0f ms; one z8 tile %zu times %.0f ms\n",
           count, 1e3 * first, 1e3 * firstUser, 1e3 * firstSys, PASSES, 1e3 * best[0], 1e3 * best[1], 1e3 * best[2],
           1e3 * best[3], 1e3 * (best[0] + best[1] + best[2] + best[3]), deepest, 1e3 * hotTime);
    mc_tile_index_free(index);
    if (argc > 2 && strcmp(argv[2], "--making") == 0) {
        double t1 = 1e9, t2 = 1e9;
        for (int p = 0; p < 3; p++) {
            double a = requests(data, tiles, count, 0), b = requests(data, tiles, count, 1);
            if (a < t1) t1 = a;
            if (b < t2) t2 = b;
        }
        double e = best[0] + best[1] + best[2] + best[3];
        printf("making %.0f ms, interning %.0f ms, encoding %.0f ms (T1 %.0f, T2 %.0f; fastest of three)\n",
               1e3 * (t1 - t2), 1e3 * (t2 - e), 1e3 * e, 1e3 * t1, 1e3 * t2);
    }
    mc_geojson_free(data);
    free(tiles);
    free(stack);
    return 0;
}
