/* The SVE pair kernels of amoeba/pk (amoeba_kernels.h contracts) and the vector helpers
 * they share. ACLE intrinsics, vector-length agnostic: every loop runs svcntd() pairs at a
 * time with an svwhilelt predicate for the tail. */
#ifndef AMOEBA_SVE_H
#define AMOEBA_SVE_H

#include <arm_sve.h>

#include "amoeba_kernels.h"

amoeba_field_fn amoeba_sve_field;
amoeba_products_fn amoeba_sve_products;
amoeba_products_fit_fn amoeba_sve_products_fit;
amoeba_polar_fn amoeba_sve_polar;
amoeba_mpole_fn amoeba_sve_mpole;
amoeba_hal_fn amoeba_sve_hal;

/* The lanes' indices into a pair set's tensors (amoeba_tensor_at) for the entries e0,
 * e0 + 1, ...: 16 floor(e / 4) + e % 4, component 0; component c is 4 c further. */
static inline svuint64_t amoeba_sve_tensor_index(svbool_t pg, uint64_t e0)
{
    const svuint64_t e = svindex_u64(e0, 1);
    return svadd_u64_x(pg, svlsl_n_u64_x(pg, svlsr_n_u64_x(pg, e, 2), 4),
                       svand_n_u64_x(pg, e, 3));
}

/* e^-a for 0 <= a < AMOEBA_THOLE_FAR, amoeba_exp_neg (amoeba_exp.h) lane by lane: the same
 * reduction (k = round(-a / ln 2) by the 1.5 2^52 + 1023 shift, r = -a - k ln 2 in two
 * parts), the same Taylor polynomial of degree 13 by Estrin's scheme, and 2^k built in
 * the exponent field. */
static inline svfloat64_t amoeba_sve_exp_neg(svbool_t pg, svfloat64_t a)
{
    const double shift = 0x1.8p52 + 1023.0;
    const double ln2_hi = 0x1.62e42fefa3800p-1, ln2_lo = 0x1.ef35793c7673p-45;
    const svfloat64_t na = svneg_f64_x(pg, a);
    const svfloat64_t t = svmad_n_f64_x(pg, na, svdup_f64(0x1.71547652b82fep0), shift);
    const svfloat64_t k = svsub_n_f64_x(pg, t, shift);
    const svfloat64_t r = svmls_n_f64_x(pg, svmls_n_f64_x(pg, na, k, ln2_hi), k, ln2_lo);
    const svfloat64_t r2 = svmul_f64_x(pg, r, r), r4 = svmul_f64_x(pg, r2, r2);
    const svfloat64_t r8 = svmul_f64_x(pg, r4, r4);
#define AMOEBA_SVE_PAIR(c0, c1) svmad_n_f64_x(pg, r, svdup_f64(c1), c0)   /* c0 + r c1 */
    const svfloat64_t q0 = AMOEBA_SVE_PAIR(1.0 / 2, 1.0 / 6);
    const svfloat64_t q1 = AMOEBA_SVE_PAIR(1.0 / 24, 1.0 / 120);
    const svfloat64_t q2 = AMOEBA_SVE_PAIR(1.0 / 720, 1.0 / 5040);
    const svfloat64_t q3 = AMOEBA_SVE_PAIR(1.0 / 40320, 1.0 / 362880);
    const svfloat64_t q4 = AMOEBA_SVE_PAIR(1.0 / 3628800, 1.0 / 39916800);
    const svfloat64_t q5 = AMOEBA_SVE_PAIR(1.0 / 479001600, 1.0 / 6227020800.0);
#undef AMOEBA_SVE_PAIR
    const svfloat64_t s0 = svmla_f64_x(pg, q0, r2, q1), s1 = svmla_f64_x(pg, q2, r2, q3);
    const svfloat64_t s2 = svmla_f64_x(pg, q4, r2, q5);
    /* s0 + r4 s1 + r8 s2, then 1 + (r + r2 that) */
    const svfloat64_t s = svmla_f64_x(pg, svmla_f64_x(pg, s0, r4, s1), r8, s2);
    const svfloat64_t p = svadd_n_f64_x(pg, svmla_f64_x(pg, r, r2, s), 1.0);
    const svuint64_t bits = svlsl_n_u64_x(pg, svreinterpret_u64_f64(t), 52);
    return svmul_f64_x(pg, p, svreinterpret_f64_u64(bits));
}

/* The SMOOTH-mode switch in the lanes, as amoeba_switch_x/_s/_dsdx (amoeba_internal.h):
 * x = max(r - start, 0) / width, S = 1 - x^3 (10 - x (15 - 6 x)), dS/dx = -30 x^2 (1 - x)^2 */
static inline svfloat64_t amoeba_sve_switch_x(svbool_t pg, svfloat64_t r, double start,
                                              double inv_width)
{
    return svmax_n_f64_x(pg, svmul_n_f64_x(pg, svsub_n_f64_x(pg, r, start), inv_width), 0.0);
}

static inline svfloat64_t amoeba_sve_switch_s(svbool_t pg, svfloat64_t x)
{
    const svfloat64_t x3 = svmul_f64_x(pg, svmul_f64_x(pg, x, x), x);
    const svfloat64_t poly =
        svmls_f64_x(pg, svdup_f64(10.0), x, svmls_n_f64_x(pg, svdup_f64(15.0), x, 6.0));
    return svmls_f64_x(pg, svdup_f64(1.0), x3, poly);
}

static inline svfloat64_t amoeba_sve_switch_dsdx(svbool_t pg, svfloat64_t x)
{
    const svfloat64_t y = svsubr_n_f64_x(pg, x, 1.0);
    return svmul_f64_x(pg, svmul_n_f64_x(pg, svmul_f64_x(pg, x, x), -30.0), svmul_f64_x(pg, y, y));
}

#endif
