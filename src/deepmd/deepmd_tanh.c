/* Tabulated tanh for the fitting nets (Guo et al., PPoPP'22 §3.5.3: the activation from a
 * table instead of libm). Quintic Hermite pieces of width h = 1/DP_TANH_PER_UNIT on
 * [0, DP_TANH_ZMAX], from y = tanh, y' = 1 - y^2, y'' = -2 y y' at both nodes (the formulas
 * of deepmd_table.c), so the pieces join with continuous value, slope and curvature; tanh is
 * odd, so |z| is looked up and the sign put back, and |z| is clamped to DP_TANH_ZMAX where
 * 1 - tanh = 8.5e-18 and tanh' = 1.7e-17.
 *
 * Accuracy against libm over 4e6 + 1 points of |z| <= 24 (tests/unit/deepmd/test_deepmd_tanh.c
 * checks it): max |p - tanh| = 1.7e-14, max |p' - tanh'| = 3.6e-12, both near |z| = 0.32
 * where tanh's high derivatives peak; the table is 61 KB (1280 pieces; A64FX's L1 holds
 * 64 KB). Width 1/32 gives 1.1e-12 and 1.2e-10 in 31 KB, 1/128 gives 4e-16 and 1.3e-13 in
 * 123 KB. */
#include <math.h>
#include <stdlib.h>

#include "deepmd_internal.h"

pk_code dp_tanh_table_build(dp_tanh_table *t, pk_status *st)
{
    const double h = 1.0 / DP_TANH_PER_UNIT;
    t->coef = malloc(sizeof(double) * 6 * DP_TANH_N);
    if (!t->coef) return pk_fail(st, PK_ERR_MEMORY, "cannot allocate the tanh table");
    double y0 = 0.0, d0 = 1.0, s0 = 0.0;
    for (int k = 0; k < DP_TANH_N; k++) {
        const double y1 = tanh((k + 1) * h), d1 = 1.0 - y1 * y1, s1 = -2.0 * y1 * d1;
        const double D0 = y1 - y0 - d0 * h - 0.5 * s0 * h * h;
        const double D1 = d1 - d0 - s0 * h, D2 = s1 - s0;
        const double h2 = h * h, h3 = h2 * h;
        double *c = t->coef + 6 * k;
        c[0] = y0;
        c[1] = d0;
        c[2] = 0.5 * s0;
        c[3] = (10.0 * D0 - 4.0 * h * D1 + 0.5 * h2 * D2) / h3;
        c[4] = (-15.0 * D0 + 7.0 * h * D1 - h2 * D2) / (h3 * h);
        c[5] = (6.0 * D0 - 3.0 * h * D1 + 0.5 * h2 * D2) / (h3 * h2);
        y0 = y1; d0 = d1; s0 = s1;
    }
    return PK_OK;
}

void dp_tanh_table_free(dp_tanh_table *t)
{
    free(t->coef);
    t->coef = NULL;
}

void dp_tanh_table_eval(const dp_tanh_table *t, double z, double *a, double *a1)
{
    const double h = 1.0 / DP_TANH_PER_UNIT;
    const double u = fmin(fabs(z), (double)DP_TANH_ZMAX);
    int k = (int)(u * DP_TANH_PER_UNIT);
    if (k > DP_TANH_N - 1) k = DP_TANH_N - 1;
    const double x = u - k * h, *c = t->coef + 6 * k;
    const double p = c[0] + x * (c[1] + x * (c[2] + x * (c[3] + x * (c[4] + x * c[5]))));
    *a = z < 0 ? -p : p;
    *a1 = c[1] + x * (2 * c[2] + x * (3 * c[3] + x * (4 * c[4] + x * 5 * c[5])));
}
