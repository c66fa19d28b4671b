/* Hand-written C for benchmark expressions (a)-(d), compiled with -O2 by bench_expressions.py:
 * the same logic over plain arrays, the floor any engine is measured against. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* (a) linear color ramp 0 → #ffff00, 5 → #ff0000, 10 → #ffffff, into 4 floats per feature */
void ramp(const double *mag, size_t n, float *out) {
    for (size_t i = 0; i < n; i++) {
        double m = mag[i], r, g, b;
        if (m <= 0) {
            r = 1;
            g = 1;
            b = 0;
        } else if (m >= 10) {
            r = 1;
            g = 1;
            b = 1;
        } else if (m < 5) {
            double t = m / 5;
            r = 1;
            g = 1 - t;
            b = 0;
        } else {
            double t = (m - 5) / 5;
            r = 1;
            g = t;
            b = t;
        }
        out[4 * i] = (float)r;
        out[4 * i + 1] = (float)g;
        out[4 * i + 2] = (float)b;
        out[4 * i + 3] = 1;
    }
}

/* (b) kind == "earthquake" && mag >= 4.5 */
void quake_filter(const char *const *kind, const double *mag, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = strcmp(kind[i], "earthquake") == 0 && mag[i] >= 4.5;
}

/* (c) match kind in [earthquake, explosion] → 1 else 0 */
void kind_match(const char *const *kind, size_t n, double *out) {
    for (size_t i = 0; i < n; i++)
        out[i] = (strcmp(kind[i], "earthquake") == 0 || strcmp(kind[i], "explosion") == 0) ? 1 : 0;
}

/* (d) step population: 1, 100000 → 2, 1000000 → 3 */
void population_step(const double *pop, size_t n, double *out) {
    for (size_t i = 0; i < n; i++) out[i] = pop[i] < 100000 ? 1 : pop[i] < 1000000 ? 2 : 3;
}
