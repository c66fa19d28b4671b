/* Baseline for the cluster build: kdbush 4's tree construction (mourner/kdbush, ISC), the
 * Floyd-Rivest select MapCore reproduces for supercluster's exact order, written plainly in C.
 * It shows what one exact 1M-item tree costs on this machine, whatever the language.
 * usage: cc -O2 bench/kdbush_build.c -o /tmp/kdbush_build -lm && /tmp/kdbush_build [N] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int32_t *ids;
static float *coords;
static const int node_size = 64;

static void swap_items(int i, int j) {
    int32_t id = ids[i]; ids[i] = ids[j]; ids[j] = id;
    float x = coords[2 * i]; coords[2 * i] = coords[2 * j]; coords[2 * j] = x;
    float y = coords[2 * i + 1]; coords[2 * i + 1] = coords[2 * j + 1]; coords[2 * j + 1] = y;
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
            while (coords[2 * i + axis] < t) i++;
            while (coords[2 * j + axis] > t) j--;
        }
        if (coords[2 * left + axis] == t) swap_items(left, j);
        else { j++; swap_items(j, right); }
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

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    ids = malloc(sizeof *ids * (size_t)n);
    coords = malloc(sizeof *coords * 2 * (size_t)n);
    if (!ids || !coords || n < 1) return 1;
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
    printf("kdbush build of %d points in C (-O2, one thread): %.1f ms\n", n,
           (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    free(ids);
    free(coords);
    return 0;
}
