/* The vector math of hdnnp/pk's SVE kernels (ACLE, any vector length): the same formulas as
 * hdnnp_math.h lane by lane, so that the sve backend agrees with the cpu backend to round-off
 * (exp: same range reduction, Taylor polynomial and exponent assembly; cutoffs and cores:
 * the same expressions). Inactive lanes of pg are don't-care in every result. */
#ifndef HDNNP_SVE_MATH_H
#define HDNNP_SVE_MATH_H

#include <arm_sve.h>

#include "hdnnp_math.h"

#define HDNNP_SVE_INLINE static inline __attribute__((always_inline))

/* a + b c, with b and c vectors or c a scalar */
HDNNP_SVE_INLINE svfloat64_t sve_fma(svbool_t pg, svfloat64_t a, svfloat64_t b, svfloat64_t c)
{
    return svmla_f64_x(pg, a, b, c);
}

HDNNP_SVE_INLINE svfloat64_t sve_fman(svbool_t pg, double a, svfloat64_t b, double c)
{
    return svmla_n_f64_x(pg, svdup_n_f64(a), b, c);
}

/* hdnnp_exp: x clamped to [-708, 709]; x = k ln2 + r (Cody-Waite), exp(r) by the degree-13
 * Taylor polynomial (Estrin, HDNNP_EXP_POLY), 2^k from the low bits of x/ln2 + 1.5 2^52 */
HDNNP_SVE_INLINE svfloat64_t sve_exp(svbool_t pg, svfloat64_t x)
{
    x = svmin_n_f64_x(pg, svmax_n_f64_x(pg, x, -708.0), 709.0);
    const svfloat64_t kd = sve_fma(pg, svdup_n_f64(HDNNP_EXP_SHIFT), x,
                                   svdup_n_f64(1.4426950408889634));
    const svfloat64_t k = svsub_n_f64_x(pg, kd, HDNNP_EXP_SHIFT);
    svfloat64_t r = svmls_n_f64_x(pg, x, k, 6.93147180369123816490e-01);
    r = svmls_n_f64_x(pg, r, k, 1.90821492927058770002e-10);
    const svfloat64_t r2 = svmul_f64_x(pg, r, r), r4 = svmul_f64_x(pg, r2, r2);
    const svfloat64_t r8 = svmul_f64_x(pg, r4, r4);
    /* ((1 + r) + r2 (1/2 + r/6)) + r4 ((1/24 + r/120) + r2 (1/720 + r/5040))
     *  + r8 (((1/8! + r/9!) + r2 (1/10! + r/11!)) + r4 (1/12! + r/13!)) */
    const svfloat64_t p01 = svadd_n_f64_x(pg, r, 1.0), p23 = sve_fman(pg, 0.5, r, 1.0 / 6.0);
    const svfloat64_t p45 = sve_fman(pg, 1.0 / 24.0, r, 1.0 / 120.0);
    const svfloat64_t p67 = sve_fman(pg, 1.0 / 720.0, r, 1.0 / 5040.0);
    const svfloat64_t p89 = sve_fman(pg, 1.0 / 40320.0, r, 1.0 / 362880.0);
    const svfloat64_t p1011 = sve_fman(pg, 1.0 / 3628800.0, r, 1.0 / 39916800.0);
    const svfloat64_t p1213 = sve_fman(pg, 1.0 / 479001600.0, r, 1.0 / 6227020800.0);
    const svfloat64_t lo = sve_fma(pg, sve_fma(pg, p01, r2, p23), r4, sve_fma(pg, p45, r2, p67));
    const svfloat64_t hi = sve_fma(pg, sve_fma(pg, p89, r2, p1011), r4, p1213);
    const svfloat64_t p = sve_fma(pg, lo, r8, hi);
    const svint64_t bits = svlsl_n_s64_x(pg, svadd_n_s64_x(pg, svreinterpret_s64_f64(kd), 1023), 52);
    return svmul_f64_x(pg, p, svreinterpret_f64_s64(bits));
}

/* tanh(x) = sign(x) (1 - e)/(1 + e), e = exp(-2|x|) (as the portable network) */
HDNNP_SVE_INLINE svfloat64_t sve_tanh(svbool_t pg, svfloat64_t x)
{
    const svfloat64_t e = sve_exp(pg, svmul_n_f64_x(pg, svabs_f64_x(pg, x), -2.0));
    const svfloat64_t t = svdiv_f64_x(pg, svsubr_n_f64_x(pg, e, 1.0), svadd_n_f64_x(pg, e, 1.0));
    return svsel_f64(svcmplt_n_f64(pg, x, 0.0), svneg_f64_x(pg, t), t);
}

/* hdnnp_core_fdf for the polynomial and exponential cores */
HDNNP_SVE_INLINE void sve_core_fdf(svbool_t pg, hdnnp_core core, svfloat64_t x, svfloat64_t *f,
                                   svfloat64_t *df)
{
    const svfloat64_t u = svsubr_n_f64_x(pg, x, 1.0), xu = svmul_f64_x(pg, x, u);
    const svfloat64_t u2 = svmul_f64_x(pg, u, u);
    switch (core) {
    case HDNNP_CORE_EXP: {   /* f = e exp(t), t = 1/((x - 1)(x + 1)); f' = -2 x t^2 f */
        const svfloat64_t t = svdivr_n_f64_x(
            pg, svmul_f64_x(pg, svsub_n_f64_x(pg, x, 1.0), svadd_n_f64_x(pg, x, 1.0)), 1.0);
        *f = svmul_n_f64_x(pg, sve_exp(pg, t), HDNNP_E);
        *df = svmul_f64_x(pg, svmul_f64_x(pg, svmul_n_f64_x(pg, x, -2.0), svmul_f64_x(pg, t, t)), *f);
        return;
    }
    case HDNNP_CORE_POLY1:   /* u^2 (1 + 2x), -6 x u */
        *f = svmul_f64_x(pg, u2, sve_fman(pg, 1.0, x, 2.0));
        *df = svmul_n_f64_x(pg, xu, -6.0);
        return;
    case HDNNP_CORE_POLY2:   /* u^3 (1 + x (3 + 6x)), -30 (x u)^2 */
        *f = svmul_f64_x(pg, svmul_f64_x(pg, u2, u),
                         sve_fma(pg, svdup_n_f64(1.0), x, sve_fman(pg, 3.0, x, 6.0)));
        *df = svmul_n_f64_x(pg, svmul_f64_x(pg, xu, xu), -30.0);
        return;
    case HDNNP_CORE_POLY3: { /* u^4 (1 + x (4 + x (10 + 20 x))), -140 (x u)^3 */
        const svfloat64_t p = sve_fma(pg, svdup_n_f64(4.0), x, sve_fman(pg, 10.0, x, 20.0));
        *f = svmul_f64_x(pg, svmul_f64_x(pg, u2, u2), sve_fma(pg, svdup_n_f64(1.0), x, p));
        *df = svmul_n_f64_x(pg, svmul_f64_x(pg, svmul_f64_x(pg, xu, xu), xu), -140.0);
        return;
    }
    case HDNNP_CORE_POLY4: { /* u^5 (1 + x (5 + x (15 + x (35 + 70 x)))), -630 (x u)^4 */
        const svfloat64_t xu2 = svmul_f64_x(pg, xu, xu);
        svfloat64_t p = sve_fma(pg, svdup_n_f64(15.0), x, sve_fman(pg, 35.0, x, 70.0));
        p = sve_fma(pg, svdup_n_f64(1.0), x, sve_fma(pg, svdup_n_f64(5.0), x, p));
        *f = svmul_f64_x(pg, svmul_f64_x(pg, svmul_f64_x(pg, u2, u2), u), p);
        *df = svmul_n_f64_x(pg, svmul_f64_x(pg, xu2, xu2), -630.0);
        return;
    }
    }
    *f = *df = svdup_n_f64(0.0);   /* not reached: every core is handled */
}

/* tanh(u) for u in [0, 1]: HDNNP_TANH_POLY (hdnnp_math.h) in SVE operations, the same
 * coefficients and order of evaluation. */
HDNNP_SVE_INLINE svfloat64_t sve_tanh_poly(svbool_t pg, svfloat64_t u)
{
    const svfloat64_t v = svmul_f64_x(pg, u, u), v2 = svmul_f64_x(pg, v, v);
    const svfloat64_t v4 = svmul_f64_x(pg, v2, v2), v8 = svmul_f64_x(pg, v4, v4);
#define SVE_TANH_PAIR(k) svmla_n_f64_x(pg, svdup_n_f64(hdnnp_tanh_c[k]), v, hdnnp_tanh_c[(k) + 1])
    const svfloat64_t q0 = svmla_f64_x(pg, SVE_TANH_PAIR(0), v2, SVE_TANH_PAIR(2));
    const svfloat64_t q1 = svmla_f64_x(pg, SVE_TANH_PAIR(4), v2, SVE_TANH_PAIR(6));
    const svfloat64_t q2 = svmla_f64_x(pg, SVE_TANH_PAIR(8), v2, SVE_TANH_PAIR(10));
    const svfloat64_t q3 = svmla_f64_x(pg, SVE_TANH_PAIR(12), v2, SVE_TANH_PAIR(14));
#undef SVE_TANH_PAIR
    const svfloat64_t p = svmla_f64_x(pg, svmla_f64_x(pg, q0, v4, q1), v8,
                                      svmla_f64_x(pg, q2, v4, q3));
    return svmul_f64_x(pg, u, p);
}

/* hdnnp_cutoff_fdf of the distances r: 0 for r >= rc; the cosine cutoff and the compact
 * windows lane by lane through the scalar function. */
HDNNP_SVE_INLINE void sve_cutoff_fdf(svbool_t pg, const hdnnp_cutoff *c, svfloat64_t r,
                                     svfloat64_t *f, svfloat64_t *df)
{
    const svbool_t in = svcmplt_n_f64(pg, r, c->rc);
    const svfloat64_t zero = svdup_n_f64(0.0);
    switch (c->type) {
    case HDNNP_CT_HARD:
        *f = svsel_f64(in, svdup_n_f64(1.0), zero);
        *df = zero;
        return;
    case HDNNP_CT_TANHU:
    case HDNNP_CT_TANH: {   /* f = pre tanh^3(1 - r/rc), f' = 3 pre tanh^2 (tanh^2 - 1) / rc */
        /* 1 - r/rc as the portable code rounds it (it cancels), tanh as its polynomial */
        const svfloat64_t t =
            sve_tanh_poly(pg, svmls_n_f64_x(pg, svdup_n_f64(1.0), r, c->irc));
        const svfloat64_t t2 = svmul_f64_x(pg, t, t);
        *f = svmul_f64_z(in, svmul_n_f64_x(pg, t, c->pre), t2);
        *df = svmul_f64_z(in, svmul_n_f64_x(pg, t2, 3.0 * c->pre * c->irc),
                          svsub_n_f64_x(pg, t2, 1.0));
        return;
    }
    case HDNNP_CT_EXP:
    case HDNNP_CT_POLY1:
    case HDNNP_CT_POLY2:
    case HDNNP_CT_POLY3:
    case HDNNP_CT_POLY4: {   /* 1 below rci (x clamped to 0: f(0) = 1, f'(0) = 0) */
        const svfloat64_t x =
            svmax_n_f64_x(pg, svmul_n_f64_x(pg, svsub_n_f64_x(pg, r, c->rci), c->iw), 0.0);
        svfloat64_t fx, dfx;
        sve_core_fdf(pg, hdnnp_cutoff_core(c->type), x, &fx, &dfx);
        *f = svsel_f64(in, fx, zero);
        *df = svmul_n_f64_z(in, dfx, c->iw);
        return;
    }
    default: {
        double rl[64], fl[64], dl[64];   /* 2048-bit SVE holds 32 doubles */
        svst1_f64(pg, rl, r);
        const int n = (int)svcntp_b64(svptrue_b64(), pg);
        for (int l = 0; l < n; l++) hdnnp_cutoff_fdf(c, rl[l], &fl[l], &dl[l]);
        *f = svld1_f64(pg, fl);
        *df = svld1_f64(pg, dl);
        return;
    }
    }
}

#endif
