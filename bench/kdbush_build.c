/* Baseline for the cluster build: kdbush 4's tree construction (mourner/kdbush, ISC), the
 * Floyd-Rivest select MapCore reproduces for supercluster's exact order, written plainly in C,
 * once with kdbush's scalar partition scans and once with the scans done eight pairs at a time
 * with SSE2 (as MapCore's Swift build does). Both must give the same tree; the program checks it.
 * It shows what one exact 1M-item tree costs on this machine, whatever the language.
 * usage: cc -O2 bench/kdbush_build.c -o /tmp/kdbush_build -lm && /tmp/kdbush_build [N] */
#include <emmintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int32_t *ids;
static float *coords;
static const int node_size = 64;
static int vector_scans;

static void swap_items(int i, int j) {
    int32_t id = ids[i];
    ids[i] = ids[j];
    ids[j] = id;
    float x = coords[2 * i];
    coords[2 * i] = coords[2 * j];
    coords[2 * j] = x;
    float y = coords[2 * i + 1];
    coords[2 * i + 1] = coords[2 * j + 1];
    coords[2 * j + 1] = y;
}

/* First i' >= i with coords[2i'+axis] >= t, reading pairs below `end` eight at a time. */
static int scan_up(int i, int end, int axis, float t) {
    const __m128 tv = _mm_set1_ps(t);
    for (; i + 8 <= end; i += 8) {
        const float *p = coords + 2 * i;
        int m = _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p), tv)) |
                _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p + 4), tv)) << 4 |
                _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p + 8), tv)) << 8 |
                _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p + 12), tv)) << 12;
        m &= axis ? 0xAAAA : 0x5555;
        if (m) return i + (__builtin_ctz((unsigned)m) >> 1);
    }
    while (coords[2 * i + axis] < t) i++;
    return i;
}

/* Last j' <= j with coords[2j'+axis] <= t, reading pairs from `start` up eight at a time. */
static int scan_down(int j, int start, int axis, float t) {
    const __m128 tv = _mm_set1_ps(t);
    for (; j - 7 >= start; j -= 8) {
        const float *p = coords + 2 * (j - 7);
        int m = _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p), tv)) |
                _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p + 4), tv)) << 4 |
                _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p + 8), tv)) << 8 |
                _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p + 12), tv)) << 12;
        m &= axis ? 0xAAAA : 0x5555;
        if (m) return j - 7 + ((31 - __builtin_clz((unsigned)m)) >> 1);
    }
    while (coords[2 * j + axis] > t) j--;
    return j;
}

static void select_k(int k, int left, int right, int axis) {
    while (right > left) {
        if (right - left > 600) {
            double n = right - left + 1, m = k - left + 1, z = log(n), s = 0.5 * exp(2 * z / 3);
            double sd = 0.5 * sqrt(z * s * (n - s) / n) * (m - n / 2 < 0 ? -1 : 1);
            int new_left = (int)fmax(left, floor(k - m * s / n + sd));
            int new_right = (int)fmin(right, floor(k + (n - m) * s / n + sd));
            select_k(k, new_left, new_right, axis);
        }
        float t = coords[2 * k + axis];
        int i = left, j = right;
        swap_items(left, k);
        if (coords[2 * right + axis] > t) swap_items(left, right);
        while (i < j) {
            swap_items(i, j);
            i++;
            j--;
            if (vector_scans) {
                i = scan_up(i, right + 1, axis, t);
                j = scan_down(j, left, axis, t);
            } else {
                while (coords[2 * i + axis] < t) i++;
                while (coords[2 * j + axis] > t) j--;
            }
        }
        if (coords[2 * left + axis] == t)
            swap_items(left, j);
        else {
            j++;
            swap_items(j, right);
        }
        if (j <= k) left = j + 1;
        if (k <= j) right = j - 1;
    }
}

static void sort_tree(int left, int right, int axis) {
    if (right - left <= node_size) return;
    int m = (left + right) >> 1;
    select_k(m, left, right, axis);
    sort_tree(left, m - 1, 1 - axis);
    sort_tree(m + 1, right, 1 - axis);
}

/* Builds the tree of the seeded points; returns milliseconds, leaves the result in ids. */
static double build(int n) {
    srand(1);
    for (int i = 0; i < n; i++) {
        ids[i] = i;
        coords[2 * i] = (float)rand() / (float)RAND_MAX;
        coords[2 * i + 1] = (float)rand() / (float)RAND_MAX;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    sort_tree(0, n - 1, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (n < 1) return 1;
    ids = malloc(sizeof *ids * (size_t)n);
    coords = malloc(sizeof *coords * 2 * (size_t)n);
    int32_t *scalar_ids = malloc(sizeof *ids * (size_t)n);
    if (!ids || !coords || !scalar_ids) return 1;
    double scalar = build(n);
    memcpy(scalar_ids, ids, sizeof *ids * (size_t)n);
    vector_scans = 1;
    double vector = build(n);
    int same = memcmp(scalar_ids, ids, sizeof *ids * (size_t)n) == 0;
    printf(
        "kdbush build of %d points in C (-O2, one thread): %.1f ms with scalar scans, %.1f ms with SSE2 scans (%s)\n",
        n, scalar, vector, same ? "same tree" : "DIFFERENT TREES");
    free(scalar_ids);
    free(ids);
    free(coords);
    return same ? 0 : 1;
}
