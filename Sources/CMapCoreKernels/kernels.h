/* Kernels the Swift core needs an instruction for that Swift cannot spell: SSE2 compares with
 * movemask (part of every x86-64 CPU), Douglas-Peucker's scan in SSE2 or AVX2 lanes, and a
 * prefetch hint; and one hot loop Swift ran much slower (kdbush.hpp's `within`, docs/NOTES.md).
 * Header-only and static inline, so the Swift compiler emits them into its own code and
 * inlines them; other CPUs take the scalar loops, which give the same answers. Not part
 * of the public C ABI. */
#ifndef MAPCORE_KERNELS_H
#define MAPCORE_KERNELS_H

#include <math.h>
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

/* Douglas-Peucker's farthest vertex, as geojson-vt's `simplify` scans for it: over the x, y,
 * importance triples strictly between the ones at array offsets `first` and `last` (3k apart),
 * the squared distance of each to the segment between those two, with geojson-vt's operations
 * in its order in each lane (no FMA: contraction is off, and neither variant below may use FMA
 * instructions, so every lane's double equals the scalar loop's), and the farthest one beyond
 * `sq_tolerance`. Returns 1 with *index (its x's offset) and *sq_dist when the farthest distance
 * is met once; 0 when no vertex is beyond the tolerance; -1 when the farthest distance is met
 * more than once, where geojson-vt's tie-break decides: the caller then runs its own scalar loop
 * (as it does on CPUs without SSE2, where this always returns -1). The segment must not be a
 * point. Four vertices a step where the CPU has AVX2 (asked once, with CPUID), else two. */
#if defined(__SSE2__)
/* No a * b + c below may become one fused multiply-add (one rounding where geojson-vt has two):
 * clang honours the standard pragma (unless -ffp-contract=fast is given, which this project
 * never passes); GCC ignores it and contracts by default, so it is told apart. */
#pragma STDC FP_CONTRACT OFF
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Folds one vertex (offset i) into lane 0's farthest distance, offset and "met again" flag, with
 * the scalar loop's operations. */
static inline void mc_dp_fold(const double *c, intptr_t i, double ax, double ay, double bx, double by,
                              double dx, double dy, double sq_length, double *far, int64_t *at, int *again) {
    const double px = c[i], py = c[i + 1];
    const double t = ((px - ax) * dx + (py - ay) * dy) / sq_length;
    const double x = t > 1 ? bx : t > 0 ? ax + dx * t : ax;
    const double y = t > 1 ? by : t > 0 ? ay + dy * t : ay;
    const double ex = px - x, ey = py - y;
    const double d = ex * ex + ey * ey;
    if (d > *far) {
        *far = d;
        *at = i;
        *again = 0;
    } else if (d == *far) {
        *again = 1;
    }
}

/* The lanes' results (`lanes` of them) made into the answer. */
static inline int mc_dp_answer(const double *fars, const int64_t *ats, int agains, int lanes,
                               double sq_tolerance, intptr_t *index, double *sq_dist) {
    int best = 0;
    for (int k = 1; k < lanes; k++) {
        if (fars[k] > fars[best]) best = k;
    }
    if (!(fars[best] > sq_tolerance)) return 0; /* also for a NaN tolerance: no pivot */
    for (int k = 0; k < lanes; k++) {
        if (k != best && fars[k] == fars[best]) return -1;
    }
    if (agains >> best & 1) return -1;
    *index = (intptr_t)ats[best];
    *sq_dist = fars[best];
    return 1;
}

static inline int mc_dp_farthest_two_lanes(const double *c, intptr_t first, intptr_t last, double sq_tolerance,
                                           intptr_t *index, double *sq_dist) {
    const double ax = c[first], ay = c[first + 1], bx = c[last], by = c[last + 1];
    const double dx = bx - ax, dy = by - ay, sq_length = dx * dx + dy * dy;
    const __m128d vax = _mm_set1_pd(ax), vay = _mm_set1_pd(ay), vbx = _mm_set1_pd(bx), vby = _mm_set1_pd(by);
    const __m128d vdx = _mm_set1_pd(dx), vdy = _mm_set1_pd(dy), vlength = _mm_set1_pd(sq_length);
    const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0);
    /* Per lane: the farthest distance so far (from the tolerance up), its offset, and whether
     * it was met more than once (all ones). Lane 0 takes vertices i, i + 6, ...; lane 1 i + 3, ... */
    __m128d far = _mm_set1_pd(sq_tolerance), again = zero;
    __m128i at = _mm_set1_epi64x(-1);
    intptr_t i = first + 3;
    for (; i + 3 < last; i += 6) {
        const __m128d p0 = _mm_loadu_pd(c + i), p1 = _mm_loadu_pd(c + i + 3);
        const __m128d px = _mm_unpacklo_pd(p0, p1), py = _mm_unpackhi_pd(p0, p1);
        const __m128d t = _mm_div_pd(
            _mm_add_pd(_mm_mul_pd(_mm_sub_pd(px, vax), vdx), _mm_mul_pd(_mm_sub_pd(py, vay), vdy)), vlength);
        const __m128d beyond = _mm_cmpgt_pd(t, one), inside = _mm_cmpgt_pd(t, zero);
        const __m128d ix = _mm_or_pd(_mm_and_pd(inside, _mm_add_pd(vax, _mm_mul_pd(vdx, t))),
                                     _mm_andnot_pd(inside, vax));
        const __m128d iy = _mm_or_pd(_mm_and_pd(inside, _mm_add_pd(vay, _mm_mul_pd(vdy, t))),
                                     _mm_andnot_pd(inside, vay));
        const __m128d x = _mm_or_pd(_mm_and_pd(beyond, vbx), _mm_andnot_pd(beyond, ix));
        const __m128d y = _mm_or_pd(_mm_and_pd(beyond, vby), _mm_andnot_pd(beyond, iy));
        const __m128d ex = _mm_sub_pd(px, x), ey = _mm_sub_pd(py, y);
        const __m128d d = _mm_add_pd(_mm_mul_pd(ex, ex), _mm_mul_pd(ey, ey));
        const __m128d farther = _mm_cmpgt_pd(d, far), same = _mm_cmpeq_pd(d, far);
        again = _mm_andnot_pd(farther, _mm_or_pd(again, same));
        far = _mm_or_pd(_mm_and_pd(farther, d), _mm_andnot_pd(farther, far));
        const __m128i mask = _mm_castpd_si128(farther);
        at = _mm_or_si128(_mm_and_si128(mask, _mm_set_epi64x(i + 3, i)), _mm_andnot_si128(mask, at));
    }
    double fars[2];
    int64_t ats[2];
    _mm_storeu_pd(fars, far);
    _mm_storeu_si128((__m128i *)ats, at);
    int agains = _mm_movemask_pd(again), again0 = agains & 1;
    if (i < last) mc_dp_fold(c, i, ax, ay, bx, by, dx, dy, sq_length, &fars[0], &ats[0], &again0);
    agains = (agains & ~1) | again0;
    return mc_dp_answer(fars, ats, agains, 2, sq_tolerance, index, sq_dist);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>

/* The same four vertices a step, with AVX2 (`target` adds it to what the file is built for; the
 * contraction being off keeps FMA out even where that includes FMA). The last one to three
 * vertices take one more step whose spare lanes read the range's end vertex (inside the array)
 * and are masked out, and the lanes are folded without branches: a scan of a short range then
 * costs little more than its vertices, so shorter ranges come here than to the two-lane kernel
 * (`mc_dp_vector_from`). */
__attribute__((target("avx2"))) static inline int mc_dp_farthest_avx2(
    const double *c, intptr_t first, intptr_t last, double sq_tolerance, intptr_t *index, double *sq_dist) {
    const double ax = c[first], ay = c[first + 1], bx = c[last], by = c[last + 1];
    const double dx = bx - ax, dy = by - ay, sq_length = dx * dx + dy * dy;
    const __m256d vax = _mm256_set1_pd(ax), vay = _mm256_set1_pd(ay);
    const __m256d vbx = _mm256_set1_pd(bx), vby = _mm256_set1_pd(by);
    const __m256d vdx = _mm256_set1_pd(dx), vdy = _mm256_set1_pd(dy), vlength = _mm256_set1_pd(sq_length);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), tolerance = _mm256_set1_pd(sq_tolerance);
    const __m256d every = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __m256d far = tolerance, again = zero;
    __m256i at = _mm256_set1_epi64x(-1);
    /* Lane k takes vertex i + 3k; `offsets` holds those offsets. */
    __m256i offsets = _mm256_set_epi64x(first + 12, first + 9, first + 6, first + 3);
    const __m256i step = _mm256_set1_epi64x(12);
    intptr_t i = first + 3;
    /* One step over the vertices whose (x, y) pairs are p02 (lanes 0 and 2) and p13 (1 and 3),
     * `valid` masking the lanes that hold none. */
#define MC_DP_STEP(p02, p13, valid)                                                                              \
    do {                                                                                                         \
        const __m256d px = _mm256_unpacklo_pd(p02, p13), py = _mm256_unpackhi_pd(p02, p13);                      \
        const __m256d t = _mm256_div_pd(                                                                         \
            _mm256_add_pd(_mm256_mul_pd(_mm256_sub_pd(px, vax), vdx), _mm256_mul_pd(_mm256_sub_pd(py, vay), vdy)), \
            vlength);                                                                                            \
        const __m256d beyond = _mm256_cmp_pd(t, one, _CMP_GT_OQ), inside = _mm256_cmp_pd(t, zero, _CMP_GT_OQ);   \
        const __m256d ix = _mm256_blendv_pd(vax, _mm256_add_pd(vax, _mm256_mul_pd(vdx, t)), inside);             \
        const __m256d iy = _mm256_blendv_pd(vay, _mm256_add_pd(vay, _mm256_mul_pd(vdy, t)), inside);             \
        const __m256d x = _mm256_blendv_pd(ix, vbx, beyond), y = _mm256_blendv_pd(iy, vby, beyond);              \
        const __m256d ex = _mm256_sub_pd(px, x), ey = _mm256_sub_pd(py, y);                                      \
        const __m256d d = _mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey));                           \
        const __m256d farther = _mm256_and_pd(valid, _mm256_cmp_pd(d, far, _CMP_GT_OQ));                         \
        const __m256d same = _mm256_and_pd(valid, _mm256_cmp_pd(d, far, _CMP_EQ_OQ));                           \
        again = _mm256_andnot_pd(farther, _mm256_or_pd(again, same));                                           \
        far = _mm256_blendv_pd(far, d, farther);                                                                 \
        at = _mm256_castpd_si256(                                                                                \
            _mm256_blendv_pd(_mm256_castsi256_pd(at), _mm256_castsi256_pd(offsets), farther));                   \
        offsets = _mm256_add_epi64(offsets, step);                                                               \
    } while (0)
    for (; i + 9 < last; i += 12) {
        const __m256d p02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c + i)),
                                                 _mm_loadu_pd(c + i + 6), 1);
        const __m256d p13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c + i + 3)),
                                                 _mm_loadu_pd(c + i + 9), 1);
        MC_DP_STEP(p02, p13, every);
    }
    if (i < last) {
        const intptr_t i1 = i + 3 < last ? i + 3 : last, i2 = i + 6 < last ? i + 6 : last;
        const __m256d p02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c + i)),
                                                 _mm_loadu_pd(c + i2), 1);
        const __m256d p13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(c + i1)),
                                                 _mm_loadu_pd(c + last), 1);
        const __m256d valid = _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(last), offsets));
        MC_DP_STEP(p02, p13, valid);
    }
#undef MC_DP_STEP
    /* The farthest over the lanes (no lane is NaN: a lane only takes a distance greater than
     * what it holds), the lanes that hold it, and the answer as mc_dp_answer gives it. */
    __m256d top = _mm256_max_pd(far, _mm256_permute_pd(far, 5));
    top = _mm256_max_pd(top, _mm256_permute2f128_pd(top, top, 1));
    if (!_mm256_movemask_pd(_mm256_cmp_pd(top, tolerance, _CMP_GT_OQ))) return 0; /* also a NaN tolerance */
    const int holders = _mm256_movemask_pd(_mm256_cmp_pd(far, top, _CMP_EQ_OQ));
    if ((holders & (holders - 1)) || (_mm256_movemask_pd(again) & holders)) return -1;
    int64_t ats[4];
    _mm256_storeu_si256((__m256i *)ats, at);
    *index = (intptr_t)ats[__builtin_ctz((unsigned)holders)];
    *sq_dist = _mm256_cvtsd_f64(top);
    return 1;
}

/* 1 when the CPU and the OS give AVX2 (CPUID leaf 7's bit, and YMM state saved per XGETBV), else
 * 0; asked once per process (a race between two first callers stores the same answer). */
static inline int mc_has_avx2(void) {
    static int known = -1;
    int has = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (has >= 0) return has;
    unsigned a, b, c2, d;
    has = 0;
    if (__get_cpuid(1, &a, &b, &c2, &d) && (c2 & bit_OSXSAVE) && (c2 & bit_AVX)) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        (void)hi;
        if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c2, &d) && (b & bit_AVX2)) has = 1;
    }
    __atomic_store_n(&known, has, __ATOMIC_RELAXED);
    return has;
}
#endif
#else
static inline int mc_dp_farthest_two_lanes(const double *c, intptr_t first, intptr_t last, double sq_tolerance,
                                           intptr_t *index, double *sq_dist) {
    (void)c; (void)first; (void)last; (void)sq_tolerance; (void)index; (void)sq_dist;
    return -1;
}
#endif

/* geojson-vt's projectY with V8's Math.sin and Math.log (Swift's `JSMath`, whose comments give
 * fdlibm's steps and constants), four latitudes a vector with AVX2: values[p * stride] for p in
 * 0..<count, latitude in, y out (clamped to 0...1), in groups of four. Every lane takes every
 * branch's operations in their order and the branches are blended, so each lane's double is the
 * scalar one (no FMA: contraction is off above, and `target` adds no FMA). A group holding a
 * latitude off that common path is left as it is, its first position written to left[] (room for
 * count / 4), and the number of such groups is returned; the last count % 4 positions are always
 * left to the caller. Off the path: a sine's argument below 2^-27 (latitudes within about 4e-7
 * degrees of 0) or beyond 3pi/4 (135 degrees), not finite, or with π/2's high word (within about
 * 4e-5 degrees of ±90); a ratio within about 2^-19 of a power of two, or not a positive normal.
 * Two passes over a block of groups, sines, then logarithms and y: one position's chain of four
 * divisions and four polynomials is long, and shorter chains let more groups overlap (perf log,
 * twenty-eighth session: about three quarters of the time of a pass a group at a time). */
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MC_D(x) _mm256_set1_pd(x)
#define MC_I(x) _mm256_set1_epi64x(x)
#define MC_ADD _mm256_add_pd
#define MC_SUB _mm256_sub_pd
#define MC_MUL _mm256_mul_pd
#define MC_LT(a, b) _mm256_cmpgt_epi64(b, a)

/* Math.sin(lat * pi / 180); lanes off its common path are set in *off. */
__attribute__((target("avx2"), always_inline)) static inline __m256d mc_js_sine4(__m256d lat, __m256i *off) {
    const __m256d one = MC_D(1.0), half = MC_D(0.5);
    const __m256i low31 = MC_I(0x7fffffff);
    const __m256d a = _mm256_div_pd(MC_MUL(lat, MC_D(3.141592653589793)), MC_D(180.0));
    const __m256i ix = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(a), 32), low31);
    __m256i out = _mm256_or_si256(MC_LT(ix, MC_I(0x3e400000)), MC_LT(MC_I(0x4002d97b), ix));
    out = _mm256_or_si256(out, _mm256_cmpeq_epi64(ix, MC_I(0x3ff921fb)));
    const __m256d small = _mm256_castsi256_pd(MC_LT(ix, MC_I(0x3fe921fc))); /* |a| <= pi/4 */
    /* kernelSin(a, 0) for the small ones */
    __m256d z = MC_MUL(a, a);
    const __m256d za = MC_MUL(z, a);
    __m256d r = MC_ADD(MC_D(-2.50507602534068634195e-08), MC_MUL(z, MC_D(1.58969099521155010221e-10)));
    r = MC_ADD(MC_D(2.75573137070700676789e-06), MC_MUL(z, r));
    r = MC_ADD(MC_D(-1.98412698298579493134e-04), MC_MUL(z, r));
    r = MC_ADD(MC_D(8.33333333332248946124e-03), MC_MUL(z, r));
    const __m256d sin_small = MC_ADD(a, MC_MUL(za, MC_ADD(MC_D(-1.66666666666666324348e-01), MC_MUL(z, r))));
    /* the others: a - sign * pi/2 as y0 + y1, then sign * kernelCos(y0, y1) */
    const __m256d sign = _mm256_or_pd(one, _mm256_and_pd(a, MC_D(-0.0)));
    const __m256d ra = MC_SUB(a, MC_MUL(sign, MC_D(1.57079632673412561417e+00)));
    const __m256d tail = MC_MUL(sign, MC_D(6.07710050650619224932e-11));
    const __m256d y0 = MC_SUB(ra, tail), y1 = MC_SUB(MC_SUB(ra, y0), tail);
    const __m256i cx = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(y0), 32), low31);
    out = _mm256_or_si256(out, _mm256_andnot_si256(_mm256_castpd_si256(small), MC_LT(cx, MC_I(0x3e400000))));
    z = MC_MUL(y0, y0);
    r = MC_ADD(MC_D(2.08757232129817482790e-09), MC_MUL(z, MC_D(-1.13596475577881948265e-11)));
    r = MC_ADD(MC_D(-2.75573143513906633035e-07), MC_MUL(z, r));
    r = MC_ADD(MC_D(2.48015872894767294178e-05), MC_MUL(z, r));
    r = MC_ADD(MC_D(-1.38888888888741095749e-03), MC_MUL(z, r));
    r = MC_MUL(z, MC_ADD(MC_D(4.16666666666666019037e-02), MC_MUL(z, r)));
    const __m256d zr = MC_SUB(MC_MUL(z, r), MC_MUL(y0, y1)), hz0 = MC_MUL(half, z);
    const __m256d cos_near = MC_SUB(one, MC_SUB(hz0, zr));
    const __m256d q = _mm256_blendv_pd(
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_sub_epi64(cx, MC_I(0x00200000)), 32)), MC_D(0.28125),
        _mm256_castsi256_pd(MC_LT(MC_I(0x3fe90000), cx)));
    const __m256d cos_far = MC_SUB(MC_SUB(one, q), MC_SUB(MC_SUB(hz0, q), zr));
    const __m256d cosine = _mm256_blendv_pd(cos_far, cos_near, _mm256_castsi256_pd(MC_LT(cx, MC_I(0x3fd33333))));
    *off = out;
    return _mm256_blendv_pd(MC_MUL(sign, cosine), sin_small, small);
}

/* y from a sine s: 0.5 - 0.25 * Math.log((1 + s) / (1 - s)) / pi, clamped; lanes off log's
 * common path are added to *off. */
__attribute__((target("avx2"), always_inline)) static inline __m256d mc_js_y4(__m256d s, __m256i *off) {
    const __m256d one = MC_D(1.0), half = MC_D(0.5);
    const __m256d ratio = _mm256_div_pd(MC_ADD(one, s), MC_SUB(one, s));
    const __m256i bits = _mm256_castpd_si256(ratio);
    const __m256i hx = _mm256_srli_epi64(bits, 32); /* unsigned: a negative ratio is above 0x7ff00000 */
    __m256i out = _mm256_or_si256(*off, _mm256_or_si256(MC_LT(hx, MC_I(0x00100000)), MC_LT(MC_I(0x7fefffff), hx)));
    const __m256i m = _mm256_and_si256(hx, MC_I(0x000fffff));
    const __m256i i = _mm256_and_si256(_mm256_add_epi64(m, MC_I(0x95f64)), MC_I(0x100000));
    const __m256i k =
        _mm256_add_epi64(_mm256_sub_epi64(_mm256_srli_epi64(hx, 20), MC_I(1023)), _mm256_srli_epi64(i, 20));
    const __m256i high = _mm256_or_si256(m, _mm256_xor_si256(i, MC_I(0x3ff00000)));
    const __m256d x = _mm256_castsi256_pd(
        _mm256_or_si256(_mm256_slli_epi64(high, 32), _mm256_and_si256(bits, MC_I(0xffffffff))));
    const __m256d f = MC_SUB(x, one);
    *off = _mm256_or_si256(out, MC_LT(_mm256_and_si256(MC_I(0x000fffff), _mm256_add_epi64(m, MC_I(2))), MC_I(3)));
    /* k (between -1023 and 1024) to doubles: the low halves of the lanes, as four int32 */
    const __m128i k32 =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(k, _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0)));
    const __m256d dk = _mm256_cvtepi32_pd(k32);
    const __m256d kzero = _mm256_castsi256_pd(_mm256_cmpeq_epi64(k, _mm256_setzero_si256()));
    const __m256d sl = _mm256_div_pd(f, MC_ADD(MC_D(2.0), f));
    const __m256d zl = MC_MUL(sl, sl), w = MC_MUL(zl, zl);
    const __m256d t1 = MC_MUL(
        w, MC_ADD(MC_D(3.999999999940941908e-01),
                  MC_MUL(w, MC_ADD(MC_D(2.222219843214978396e-01), MC_MUL(w, MC_D(1.531383769920937332e-01))))));
    const __m256d t2 = MC_MUL(
        zl, MC_ADD(MC_D(6.666666666666735130e-01),
                   MC_MUL(w, MC_ADD(MC_D(2.857142874366239149e-01),
                                    MC_MUL(w, MC_ADD(MC_D(1.818357216161805012e-01),
                                                     MC_MUL(w, MC_D(1.479819860511658591e-01))))))));
    const __m256d rl = MC_ADD(t2, t1);
    const __m256d hi = MC_MUL(dk, MC_D(6.93147180369123816490e-01));
    const __m256d lo = MC_MUL(dk, MC_D(1.90821492927058770002e-10));
    const __m256d hfsq = MC_MUL(MC_MUL(half, f), f), shr = MC_MUL(sl, MC_ADD(hfsq, rl));
    const __m256d sfr = MC_MUL(sl, MC_SUB(f, rl));
    const __m256d with_hfsq =
        _mm256_blendv_pd(MC_SUB(hi, MC_SUB(MC_SUB(hfsq, MC_ADD(shr, lo)), f)), MC_SUB(f, MC_SUB(hfsq, shr)), kzero);
    const __m256d without = _mm256_blendv_pd(MC_SUB(hi, MC_SUB(MC_SUB(sfr, lo), f)), MC_SUB(f, sfr), kzero);
    /* fdlibm's ((m - 0x6147a) | (0x6b851 - m)) > 0: m within 0x6147a...0x6b851 */
    const __m256i band = _mm256_or_si256(_mm256_sub_epi64(m, MC_I(0x6147a)), _mm256_sub_epi64(MC_I(0x6b851), m));
    const __m256d l =
        _mm256_blendv_pd(without, with_hfsq, _mm256_castsi256_pd(_mm256_cmpgt_epi64(band, _mm256_setzero_si256())));
    __m256d y = MC_SUB(half, _mm256_div_pd(MC_MUL(MC_D(0.25), l), MC_D(3.141592653589793)));
    y = _mm256_blendv_pd(y, _mm256_setzero_pd(), _mm256_cmp_pd(y, _mm256_setzero_pd(), _CMP_LT_OQ));
    return _mm256_blendv_pd(y, one, _mm256_cmp_pd(y, one, _CMP_GT_OQ));
}
#undef MC_D
#undef MC_I
#undef MC_ADD
#undef MC_SUB
#undef MC_MUL
#undef MC_LT

__attribute__((target("avx2"))) static inline intptr_t mc_js_mercator_y_avx2(double *values, intptr_t stride,
                                                                           intptr_t count, intptr_t *left) {
    enum { BLOCK = 16 }; /* groups of four a block */
    __m256d y[BLOCK];
    __m256i off[BLOCK];
    intptr_t p = 0, left_count = 0;
    while (p + 4 <= count) {
        const intptr_t groups = (count - p) / 4 < BLOCK ? (count - p) / 4 : BLOCK;
        for (intptr_t g = 0; g < groups; g++) {
            const double *v = values + (p + 4 * g) * stride;
            y[g] = mc_js_sine4(_mm256_set_pd(v[3 * stride], v[2 * stride], v[stride], v[0]), &off[g]);
        }
        for (intptr_t g = 0; g < groups; g++) y[g] = mc_js_y4(y[g], &off[g]);
        for (intptr_t g = 0; g < groups; g++, p += 4) {
            if (!_mm256_testz_si256(off[g], off[g])) {
                left[left_count++] = p;
                continue;
            }
            double out[4], *v = values + p * stride;
            _mm256_storeu_pd(out, y[g]);
            v[0] = out[0];
            v[stride] = out[1];
            v[2 * stride] = out[2];
            v[3 * stride] = out[3];
        }
    }
    return left_count;
}
#endif

/* 1 where mc_js_mercator_y converts (x86-64 with AVX2), else 0. */
static inline int mc_js_mercator_y_vectorized(void) {
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    return mc_has_avx2();
#else
    return 0;
#endif
}

/* mc_js_mercator_y_avx2 where mc_js_mercator_y_vectorized(); elsewhere it converts none and lists
 * every group as left. */
static inline intptr_t mc_js_mercator_y(double *values, intptr_t stride, intptr_t count, intptr_t *left) {
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (mc_has_avx2()) return mc_js_mercator_y_avx2(values, stride, count, left);
#endif
    (void)values; (void)stride;
    for (intptr_t g = 0; g < count / 4; g++) left[g] = 4 * g;
    return count / 4;
}

/* The shortest range (in array offsets, 3 per vertex) worth handing to mc_dp_farthest: 15 (four
 * vertices between the ends) where it scans with AVX2, 27 where it takes the two-lane kernel,
 * whose scalar tail and folding cost more than a short range's scalar scan. */
static inline intptr_t mc_dp_vector_from(void) {
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (mc_has_avx2()) return 15;
#endif
    return 27;
}

static inline int mc_dp_farthest(const double *c, intptr_t first, intptr_t last, double sq_tolerance,
                                 intptr_t *index, double *sq_dist) {
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (mc_has_avx2()) return mc_dp_farthest_avx2(c, first, last, sq_tolerance, index, sq_dist);
#endif
    return mc_dp_farthest_two_lanes(c, first, last, sq_tolerance, index, sq_dist);
}

/* kdbush.hpp's `within` (supercluster-cpp's neighbour query) over the interleaved double x, y
 * of a tree's n slots and their ids: writes the ids within r of (qx, qy) to `out` (room for
 * `limit`, at most n) in its recursion's order (a node's middle item, then its lower half, then
 * its upper; a bucket of at most node_size + 1 slots in slot order) and returns how many; stops
 * at `limit` ids (returning limit). The recursion becomes an
 * explicit stack of pending ranges, at most one per tree level plus one: 64 cover any n.
 * Contraction into fused multiply-adds is off (above), as in a build for x86-64. */
static inline intptr_t mc_kdcpp_within(const int32_t *ids, const double *c, intptr_t n, intptr_t node_size,
                                       double qx, double qy, double r, int32_t *out, intptr_t limit) {
    intptr_t stack[3 * 64];
    intptr_t top = 3, count = 0;
    const double r2 = r * r;
    if (n <= 0) return 0;
    stack[0] = 0;
    stack[1] = n - 1;
    stack[2] = 0;
    while (top > 0) {
        top -= 3;
        const intptr_t left = stack[top], right = stack[top + 1], axis = stack[top + 2];
        if (right - left <= node_size) {
            for (intptr_t i = left; i <= right; i++) {
                const double dx = c[2 * i] - qx, dy = c[2 * i + 1] - qy;
                if (dx * dx + dy * dy <= r2) {
                    out[count++] = ids[i];
                    if (count == limit) return count;
                }
            }
            continue;
        }
        const intptr_t m = (left + right) >> 1;
        const double x = c[2 * m], y = c[2 * m + 1];
        const double dx = x - qx, dy = y - qy;
        if (dx * dx + dy * dy <= r2) {
            out[count++] = ids[m];
            if (count == limit) return count;
        }
        if (axis == 0 ? qx + r >= x : qy + r >= y) {
            stack[top] = m + 1;
            stack[top + 1] = right;
            stack[top + 2] = 1 - axis;
            top += 3;
        }
        if (axis == 0 ? qx - r <= x : qy - r <= y) {
            stack[top] = left;
            stack[top + 1] = m - 1;
            stack[top + 2] = 1 - axis;
            top += 3;
        }
    }
    return count;
}

/* kdbush.hpp's partition scans over interleaved double x, y pairs, four pairs a step: the
 * answers of `while (c[2i+axis] < t) i++` and `while (c[2j+axis] > t) j--` exactly (NaN stops
 * both), reading only pairs in [i, end) and [start, j], as the float scans above. */
static inline intptr_t mc_kd2_scan_up(const double *c, intptr_t i, intptr_t end, int axis, double t) {
#if defined(__SSE2__)
    const int lanes = axis ? 0xAA : 0x55;
    const __m128d tv = _mm_set1_pd(t);
    while (i + 4 <= end) {
        const double *p = c + 2 * i;
        int m = _mm_movemask_pd(_mm_cmpnlt_pd(_mm_loadu_pd(p), tv))
              | _mm_movemask_pd(_mm_cmpnlt_pd(_mm_loadu_pd(p + 2), tv)) << 2
              | _mm_movemask_pd(_mm_cmpnlt_pd(_mm_loadu_pd(p + 4), tv)) << 4
              | _mm_movemask_pd(_mm_cmpnlt_pd(_mm_loadu_pd(p + 6), tv)) << 6;
        m &= lanes;
        if (m) return i + (__builtin_ctz((unsigned)m) >> 1);
        i += 4;
    }
#endif
    while (c[2 * i + axis] < t) i++;
    return i;
}

static inline intptr_t mc_kd2_scan_down(const double *c, intptr_t j, intptr_t start, int axis, double t) {
#if defined(__SSE2__)
    const int lanes = axis ? 0xAA : 0x55;
    const __m128d tv = _mm_set1_pd(t);
    while (j - 3 >= start) {
        const double *p = c + 2 * (j - 3);
        int m = _mm_movemask_pd(_mm_cmpngt_pd(_mm_loadu_pd(p), tv))
              | _mm_movemask_pd(_mm_cmpngt_pd(_mm_loadu_pd(p + 2), tv)) << 2
              | _mm_movemask_pd(_mm_cmpngt_pd(_mm_loadu_pd(p + 4), tv)) << 4
              | _mm_movemask_pd(_mm_cmpngt_pd(_mm_loadu_pd(p + 6), tv)) << 6;
        m &= lanes;
        if (m) return j - 3 + ((31 - __builtin_clz((unsigned)m)) >> 1);
        j -= 4;
    }
#endif
    while (c[2 * j + axis] > t) j--;
    return j;
}

static inline void mc_kdcpp_swap(int32_t *ids, double *c, intptr_t a, intptr_t b) {
    const int32_t id = ids[a];
    ids[a] = ids[b];
    ids[b] = id;
    const double x = c[2 * a], y = c[2 * a + 1];
    c[2 * a] = c[2 * b];
    c[2 * a + 1] = c[2 * b + 1];
    c[2 * b] = x;
    c[2 * b + 1] = y;
}

/* A Floyd-Rivest bound as kdbush.hpp converts it to its unsigned index type (truncated), held
 * in 0...INT32_MAX (an index never needs more). Both bounds are positive where `sort` selects
 * (k is the range's middle, so k >= left and s < n); 0 stands for what its conversion leaves
 * undefined. */
static inline intptr_t mc_kdcpp_truncated(double v) {
    if (!(v > 0) || isinf(v)) return 0;
    return v >= 2147483647.0 ? 2147483647 : (intptr_t)v;
}

/* kdbush.hpp's `select`: puts the k-th smallest coordinate on `axis` of slots left...right at
 * k, smaller ones before it and larger after, with its swap sequence (so its tree), including
 * its Floyd-Rivest bounds from glibc's log, exp and sqrt in its expressions' order. The
 * recursion narrows to about n^(2/3) slots a call, so its depth stays below ten. */
static inline void mc_kdcpp_select(int32_t *ids, double *c, intptr_t k, intptr_t left, intptr_t right, int axis) {
    while (right > left) {
        if (right - left > 600) {
            const double n = (double)(right - left + 1);
            const double m = (double)(k - left + 1);
            const double z = log(n);
            const double s = 0.5 * exp(2 * z / 3);
            const double r = (double)k - m * s / n + 0.5 * sqrt(z * s * (1 - s / n)) * (2 * m < n ? -1 : 1);
            const intptr_t lo = mc_kdcpp_truncated(r), hi = mc_kdcpp_truncated(r + s);
            mc_kdcpp_select(ids, c, k, lo > left ? lo : left, hi < right ? hi : right, axis);
        }
        const double t = c[2 * k + axis];
        intptr_t i = left, j = right;
        mc_kdcpp_swap(ids, c, left, k);
        if (c[2 * right + axis] > t) mc_kdcpp_swap(ids, c, left, right);
        while (i < j) {
            mc_kdcpp_swap(ids, c, i, j);
            i++;
            j--;
            i = mc_kd2_scan_up(c, i, right + 1, axis, t);
            j = mc_kd2_scan_down(c, j, left, axis, t);
        }
        if (c[2 * left + axis] == t) {
            mc_kdcpp_swap(ids, c, left, j);
        } else {
            j++;
            mc_kdcpp_swap(ids, c, j, right);
        }
        if (j <= k) left = j + 1;
        if (k <= j) right = j - 1;
    }
}

/* kdbush.hpp's `sortKD` of slots left...right: the middle slot selected on `axis`, then each
 * half on the other axis, down to ranges of node_size + 1 slots. Depth log2(n / node_size). */
static inline void mc_kdcpp_sort(int32_t *ids, double *c, intptr_t left, intptr_t right, int axis, intptr_t node_size) {
    if (right - left <= node_size) return;
    const intptr_t m = (left + right) >> 1;
    mc_kdcpp_select(ids, c, m, left, right, axis);
    mc_kdcpp_sort(ids, c, left, m - 1, 1 - axis, node_size);
    mc_kdcpp_sort(ids, c, m + 1, right, 1 - axis, node_size);
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
