/* The vectorised tanh of the cpu fitting nets (dp_tanh_n, deepmd_vtanh.c) against libm's: on
 * a fine sweep of [-25, 25], on a logarithmic sweep of tiny to large |z| (both signs), at
 * 0, -0, +-inf and NaN. The error is counted in units in the last place of libm's value
 * (libm's own is within one); bound 4 ulp. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "deepmd_internal.h"
#include "pk_test.h"

static const double ULP_TOL = 4.0;

static double worst = 0.0, worst_at = 0.0;

static void check(const double *z, const double *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const double ref = tanh(z[i]);
        const double ulp = ref == 0.0 ? 0x1p-1074 : nextafter(fabs(ref), INFINITY) - fabs(ref);
        const double e = fabs(t[i] - ref) / ulp;
        if (e > worst) worst = e, worst_at = z[i];
    }
}

int main(void)
{
    enum { N = 2000001, NLOG = 2 * 1200 };
    double *z = malloc(sizeof(double) * N), *t = malloc(sizeof(double) * N);
    for (int k = 0; k < N; k++) z[k] = t[k] = -25.0 + 50.0 * k / (N - 1);
    dp_tanh_n(t, N);
    check(z, t, N);
    for (int k = 0; k < NLOG; k++) {   /* |z| from 1e-300 to 1e3, both signs */
        const double a = pow(10.0, -300.0 + 303.0 * (k / 2) / (NLOG / 2 - 1));
        z[k] = t[k] = k % 2 ? -a : a;
    }
    dp_tanh_n(t, NLOG);
    check(z, t, NLOG);
    printf("dp_tanh_n: largest error %.3g ulp of libm's tanh (at z = %.17g)\n", worst,
           worst_at);
    PK_CHECK(worst <= ULP_TOL, "error %.3g ulp at z = %.17g", worst, worst_at);

    double s[6] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 19.5};
    dp_tanh_n(s, 6);
    PK_CHECK(s[0] == 0.0 && !signbit(s[0]), "tanh(0) = %g", s[0]);
    PK_CHECK(s[1] == 0.0 && signbit(s[1]), "tanh(-0) = %g", s[1]);
    PK_CHECK(s[2] == 1.0 && s[3] == -1.0, "tanh(+-inf) = %g %g", s[2], s[3]);
    PK_CHECK(isnan(s[4]), "tanh(NaN) = %g", s[4]);
    PK_CHECK(s[5] == tanh(19.5), "tanh(19.5) = %.17g", s[5]);
    free(z), free(t);
    return pk_test_finish();
}
