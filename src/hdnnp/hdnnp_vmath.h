/* Four-lane versions of hdnnp_math.h for the explicit block loops of the kernel: the same
 * formulas lane by lane (the unit tests compare them with the scalar functions). */
#ifndef HDNNP_VMATH_H
#define HDNNP_VMATH_H

#include <math.h>

#include "hdnnp_kernel.h"
#include "hdnnp_math.h"

HDNNP_V4_INLINE hdnnp_v4 v4_sqrt(hdnnp_v4 a)
{
    return (hdnnp_v4){sqrt(a[0]), sqrt(a[1]), sqrt(a[2]), sqrt(a[3])};
}

/* hdnnp_exp on four lanes (same range reduction, polynomial and exponent assembly) */
HDNNP_V4_INLINE hdnnp_v4 v4_exp(hdnnp_v4 x)
{
    const hdnnp_v4 zero = {0.0, 0.0, 0.0, 0.0};
    x = v4_min(v4_max(x, zero - 708.0), zero + 709.0);
    const hdnnp_v4 kd = x * 1.4426950408889634 + HDNNP_EXP_SHIFT, k = kd - HDNNP_EXP_SHIFT;
    const hdnnp_v4 r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
    const hdnnp_v4 r2 = r * r, r4 = r2 * r2, r8 = r4 * r4, p = HDNNP_EXP_POLY(r, r2, r4, r8);
    const hdnnp_v4i bits = ((hdnnp_v4i)kd + 1023) << 52;   /* biased exponent k + 1023 */
    return p * (hdnnp_v4)bits;
}

/* hdnnp_core_fdf for the polynomial and exponential cores */
HDNNP_V4_INLINE void v4_core_fdf(hdnnp_core core, hdnnp_v4 x, hdnnp_v4 *f, hdnnp_v4 *df)
{
    const hdnnp_v4 u = 1.0 - x, xu = x * u, u2 = u * u;
    switch (core) {
    case HDNNP_CORE_EXP: {
        const hdnnp_v4 t = 1.0 / ((x - 1.0) * (x + 1.0));
        *f = HDNNP_E * v4_exp(t);
        *df = -2.0 * x * t * t * *f;
        return;
    }
    case HDNNP_CORE_POLY1:
        *f = u2 * (1.0 + 2.0 * x);
        *df = -6.0 * xu;
        return;
    case HDNNP_CORE_POLY2:
        *f = u2 * u * (1.0 + x * (3.0 + 6.0 * x));
        *df = -30.0 * xu * xu;
        return;
    case HDNNP_CORE_POLY3:
        *f = u2 * u2 * (1.0 + x * (4.0 + x * (10.0 + 20.0 * x)));
        *df = -140.0 * xu * xu * xu;
        return;
    case HDNNP_CORE_POLY4: {
        const hdnnp_v4 xu2 = xu * xu;
        *f = u2 * u2 * u * (1.0 + x * (5.0 + x * (15.0 + x * (35.0 + 70.0 * x))));
        *df = -630.0 * xu2 * xu2;
        return;
    }
    }
    *f = *df = x - x;   /* not reached: every core is handled */
}

/* hdnnp_cutoff_fdf on four distances; the cosine cutoff and the compact windows lane by
 * lane through the scalar function. */
HDNNP_V4_INLINE void v4_cutoff_fdf(const hdnnp_cutoff *c, hdnnp_v4 r, hdnnp_v4 *f, hdnnp_v4 *df)
{
    const hdnnp_v4 zero = {0.0, 0.0, 0.0, 0.0};
    const hdnnp_v4i in = r < c->rc;
    switch (c->type) {
    case HDNNP_CT_HARD:
        *f = v4_select(in, zero + 1.0);
        *df = zero;
        return;
    case HDNNP_CT_TANHU:
    case HDNNP_CT_TANH: {   /* f = pre * tanh^3(1 - r/rc) */
        const double irc = c->irc;
        const hdnnp_v4 u = 1.0 - r * irc, v = u * u, v2 = v * v, v4 = v2 * v2;
        const hdnnp_v4 t = u * HDNNP_TANH_POLY(v, v2, v4, v4 * v4), t2 = t * t;
        *f = v4_select(in, c->pre * t * t2);
        *df = v4_select(in, 3.0 * c->pre * t2 * (t2 - 1.0) * irc);
        return;
    }
    case HDNNP_CT_EXP:
    case HDNNP_CT_POLY1:
    case HDNNP_CT_POLY2:
    case HDNNP_CT_POLY3:
    case HDNNP_CT_POLY4: {   /* 1 below rci (x clamped to 0: f(0) = 1, f'(0) = 0) */
        const hdnnp_v4 x = v4_max((r - c->rci) * c->iw, zero);
        hdnnp_v4 fx, dfx;
        v4_core_fdf(hdnnp_cutoff_core(c->type), x, &fx, &dfx);
        *f = v4_select(in, fx);
        *df = v4_select(in, dfx * c->iw);
        return;
    }
    default:
        for (int l = 0; l < 4; l++) {
            double fl, dfl;
            hdnnp_cutoff_fdf(c, r[l], &fl, &dfl);
            (*f)[l] = fl;
            (*df)[l] = dfl;
        }
        return;
    }
}

#endif
