/* The tabulated tanh of the sve backend's fitting nets (deepmd_tanh.c) against libm: the
 * value and the slope on a fine sweep of z (both signs, beyond the clamp, zero), and the
 * slope against a central difference of the tabulated value (the forces are the derivative
 * of the energy the table gives). The bounds are those stated in deepmd.h. */
#include <math.h>
#include <stdio.h>

#include "deepmd_internal.h"
#include "pk_test.h"

static const double VALUE_TOL = 2e-14;    /* |p(z) - tanh(z)| */
static const double SLOPE_TOL = 5e-12;    /* |p'(z) - (1 - tanh(z)^2)| */

int main(void)
{
    dp_tanh_table t;
    pk_status st;
    PK_CHECK(dp_tanh_table_build(&t, &st) == PK_OK, "%s", st.msg);
    if (!t.coef) return pk_test_finish();
    double ev = 0.0, es = 0.0, ev_at = 0.0, es_at = 0.0, efd = 0.0;
    const int n = 2000000;
    for (int k = -n; k <= n; k++) {
        const double z = 24.0 * k / n, y = tanh(z);
        double a, a1;
        dp_tanh_table_eval(&t, z, &a, &a1);
        if (fabs(a - y) > ev) { ev = fabs(a - y); ev_at = z; }
        if (fabs(a1 - (1 - y * y)) > es) { es = fabs(a1 - (1 - y * y)); es_at = z; }
        if (k % 1000 == 0 && fabs(z) < 19.0) {
            const double hz = 1e-5;
            double ap, am, d;
            dp_tanh_table_eval(&t, z + hz, &ap, &d);
            dp_tanh_table_eval(&t, z - hz, &am, &d);
            const double fd = (ap - am) / (2 * hz);
            if (fabs(fd - a1) > efd) efd = fabs(fd - a1);
        }
    }
    printf("tabulated tanh: max |p - tanh| %.3g (at z = %.6g), max |p' - tanh'| %.3g (at z = "
           "%.6g), max |p' - central difference of p| %.3g\n", ev, ev_at, es, es_at, efd);
    PK_CHECK(ev <= VALUE_TOL, "value error %.3g > %.3g", ev, VALUE_TOL);
    PK_CHECK(es <= SLOPE_TOL, "slope error %.3g > %.3g", es, SLOPE_TOL);
    PK_CHECK(efd <= 1e-9, "slope against the central difference %.3g > 1e-9", efd);
    double a, a1;
    dp_tanh_table_eval(&t, 0.0, &a, &a1);
    PK_CHECK(a == 0.0 && fabs(a1 - 1.0) <= 1e-15, "tanh(0) %.17g, tanh'(0) %.17g", a, a1);
    dp_tanh_table_eval(&t, 1e3, &a, &a1);
    PK_CHECK(a == 1.0 && a1 < 1e-16, "tanh(1000) %.17g, tanh'(1000) %.3g", a, a1);
    dp_tanh_table_free(&t);
    return pk_test_finish();
}
