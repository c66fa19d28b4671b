/* Kernels the Swift core needs an instruction for that Swift cannot spell: an SSE2 compare with
 * movemask (part of every x86-64 CPU) and a prefetch hint. Header-only and static inline, so the
 * Swift compiler emits them into its own code and inlines them; other CPUs take the scalar loops,
 * which give the same answers. Not part of the public C ABI. */
#ifndef MAPCORE_KERNELS_H
#define MAPCORE_KERNELS_H

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* kdbush's partition scans over interleaved x, y pairs, eight pairs per step. The answers are
 * exactly those of the scalar loops `while (c[2i+axis] < t) i++` and `while (c[2j+axis] > t) j--`
 * (NaN stops both), so the tree's swap sequence is unchanged. As in kdbush, the caller guarantees
 * a stopping element inside the range being partitioned; the vector loads stay inside that range
 * too, so two threads partitioning disjoint ranges never read each other's pairs. */

/* The first pair index k >= i whose coordinate on `axis` is not less than t; pairs up to `end`
 * (exclusive) may be read. */
static inline intptr_t mc_kd_scan_up(const float *coords, intptr_t i, intptr_t end, int axis, float t) {
#if defined(__SSE2__)
    const int lanes = axis ? 0xAAAA : 0x5555;
    const __m128 tv = _mm_set1_ps(t);
    while (i + 8 <= end) {
        const float *p = coords + 2 * i;
        int m = _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p), tv))
              | _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p + 4), tv)) << 4
              | _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p + 8), tv)) << 8
              | _mm_movemask_ps(_mm_cmpnlt_ps(_mm_loadu_ps(p + 12), tv)) << 12;
        m &= lanes;
        if (m) return i + (__builtin_ctz((unsigned)m) >> 1);
        i += 8;
    }
#endif
    while (coords[2 * i + axis] < t) i++;
    return i;
}

/* The last pair index k <= j whose coordinate on `axis` is not greater than t; pairs down to
 * `start` may be read. */
static inline intptr_t mc_kd_scan_down(const float *coords, intptr_t j, intptr_t start, int axis, float t) {
#if defined(__SSE2__)
    const int lanes = axis ? 0xAAAA : 0x5555;
    const __m128 tv = _mm_set1_ps(t);
    while (j - 7 >= start) {
        const float *p = coords + 2 * (j - 7);
        int m = _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p), tv))
              | _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p + 4), tv)) << 4
              | _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p + 8), tv)) << 8
              | _mm_movemask_ps(_mm_cmpngt_ps(_mm_loadu_ps(p + 12), tv)) << 12;
        m &= lanes;
        if (m) return j - 7 + ((31 - __builtin_clz((unsigned)m)) >> 1);
        j -= 8;
    }
#endif
    while (coords[2 * j + axis] > t) j--;
    return j;
}

/* A hint to start loading the cache line at p; never faults, whatever p is. */
static inline void mc_prefetch(const void *p) {
    __builtin_prefetch(p);
}

/* The same, for a line about to be written. */
static inline void mc_prefetch_write(const void *p) {
    __builtin_prefetch(p, 1);
}

#endif
