/* amoeba_exp_neg (the Thole damping's e^-a) against libm exp over the range the damping uses,
 * 0 <= a < AMOEBA_THOLE_FAR: evenly spaced and pseudo-random arguments and both sides of each
 * range-reduction boundary (a = (k + 1/2) ln 2), evaluated in an "omp simd" loop as the pair
 * kernels do. The largest relative difference must stay within 3e-16, about 1 ulp of e^-a
 * near a power of two (measured 2.2e-16; a Taylor polynomial one degree short gives 3.2e-16). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "amoeba_exp.h"
#include "amoeba_internal.h"
#include "pk_test.h"

enum { NGRID = 1 << 21, NRAND = 1 << 20, NEDGE = 2 * 80 };

static double max_rel_error(const double *a, int n, double *worst_a)
{
    double *e = malloc((size_t)n * sizeof *e), worst = 0.0;
#pragma omp simd
    for (int j = 0; j < n; j++) e[j] = amoeba_exp_neg(a[j]);
    for (int j = 0; j < n; j++) {
        const double want = exp(-a[j]), rel = fabs(e[j] - want) / want;
        if (rel > worst) worst = rel, *worst_a = a[j];
    }
    free(e);
    return worst;
}

int main(void)
{
    const double far = AMOEBA_THOLE_FAR;
    const int n = NGRID + NRAND + NEDGE;
    double *a = malloc((size_t)n * sizeof *a);
    int m = 0;
    for (int j = 0; j < NGRID; j++) a[m++] = far * j / NGRID;
    uint64_t s = 88172645463325252u;   /* xorshift64 */
    for (int j = 0; j < NRAND; j++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[m++] = far * (double)(s >> 11) * 0x1p-53;
    }
    for (int k = 0; m < n; k++) {   /* where round(-a / ln 2) steps */
        const double b = (k + 0.5) * log(2.0);
        a[m++] = nextafter(b, 0.0);
        a[m++] = fmin(nextafter(b, far), nextafter(far, 0.0));
    }
    double worst_a = 0.0;
    const double worst = max_rel_error(a, n, &worst_a);
    printf("amoeba_exp_neg vs exp over [0, %g): %d arguments, max relative error %.3g at a = %.17g\n",
           far, n, worst, worst_a);
    PK_CHECK(worst <= 3e-16, "max relative error %.3g at a = %.17g (tolerance 3e-16)", worst,
             worst_a);
    PK_CHECK(amoeba_exp_neg(0.0) == 1.0, "e^-0 = %.17g", amoeba_exp_neg(0.0));
    const double last = nextafter(far, 0.0), top = amoeba_exp_neg(last);
    PK_CHECK(top >= DBL_MIN && fabs(top - exp(-last)) <= 3e-16 * exp(-last),
             "e^-a just below the far limit %.17g (want %.17g)", top, exp(-last));
    free(a);
    return pk_test_finish();
}
