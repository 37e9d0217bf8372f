/* mdpd/pk's pair noise in SVE: the unit Gaussian of src/mdpd/mdpd_random.h for a vector of
 * pairs, bit for bit (the agreement test checks it on every lane and vector length).
 *
 * Philox-2x32-10 runs on 32-bit lanes, twice as many pairs per vector as doubles: the
 * 32x32 -> 64-bit product of each round is UMULH (high word) and MUL (low word), the key is
 * the same scalar for every lane and bumped by W between rounds as in pk_philox2x32_10.
 * The two output words are then widened to 64-bit lanes, low and high half of the vector
 * apart, for Box-Muller in double, the two halves side by side so that each constant is
 * loaded once for both. Every floating-point step is the scalar one in the same
 * order, unfused (ISO C11 compiles with -ffp-contract=off, and the intrinsics used here are
 * single operations), and division and square root are IEEE-exact in both, so each lane
 * equals pk_mdpd_gaussian_keyed. Comparisons and selects replace the scalar's conditionals.
 * Lanes beyond the pairs compute on whatever they hold (no FP trap is enabled) and are
 * never stored. */
#ifndef PK_MDPD_SVE_NOISE_H
#define PK_MDPD_SVE_NOISE_H

#include <arm_sve.h>
#include <stdint.h>

#include "pk_hd.h"
#include "pk_math.h"

/* pk_philox2x32_10 on every lane: (L, R) -> (hi(M L) ^ k ^ R, lo(M L)), k += W. *key holds
 * the step's key in every lane, and holds it again on return: it is bumped ten times and set
 * back, which keeps the compiler from precomputing the ten round keys of a loop of calls
 * (more vectors than there are registers, so they would go to the stack and back). */
static inline void pk_mdpd_sve_philox(svuint32_t *c0, svuint32_t *c1, svuint32_t *key)
{
    const svbool_t all = svptrue_b32();
    const svuint32_t multiplier = svdup_n_u32(0xD256D193u), weyl = svdup_n_u32(0x9E3779B9u);
    svuint32_t l = *c0, r = *c1, k = *key;
    PK_UNROLL(10)
    for (int round = 0; round < 10; round++) {
        const svuint32_t lo = svmul_u32_x(all, l, multiplier);
        const svuint32_t hi = svmulh_u32_x(all, l, multiplier);
        l = sveor_u32_x(all, sveor_u32_x(all, k, r), hi);
        r = lo;
        k = svadd_u32_x(all, k, weyl);
    }
    *c0 = l;
    *c1 = r;
    *key = svsub_n_u32_x(all, k, 10u * 0x9E3779B9u);
}

/* The constants of pk_log_normal and pk_cos_two_pi, in one table so that each is one
 * broadcast load (LD1RD) from a single base address. */
enum {
    LOG_POLY = 0,        /* 1/23, 1/21, ..., 1/3 (Horner, innermost first; then 1/1) */
    LN2_HI = 11, LN2_LO, SQRT2, EXP_BIAS, TWO_PI, TWO_POW_M32, MINUS_TWO,
    SIN_POLY = 18,       /* -1/15!, 1/13!, ..., -1/3! (then 1) */
    COS_POLY = 25,       /* 1/16!, -1/14!, ..., 1/4! (then -1/2, 1) */
    NOISE_CONSTANTS = 32
};
/* Defined in mdpd_sve_noise.c: out of sight of the compiler here, so that it loads each
 * constant from this one base address instead of giving each its own literal. */
extern const double pk_mdpd_sve_noise_constants[NOISE_CONSTANTS];

/* Each of the series below loads the constants it uses itself (one LD1RD each), through a
 * copy of the table's address that the optimiser cannot see through. Otherwise it loads the
 * constants of the logarithm, the cosine and both halves of a vector together, more than
 * there are vector registers, and moves them to the stack and back, which costs more. */
#define PK_MDPD_SVE_OWN_CONSTANTS(c) __asm__ volatile("" : "+r"(c))

/* pk_log_normal(u) of u = a 2^-32 and b 2^-32, given a and b: u = 2^e m with
 * m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh((m-1)/(m+1)). Scaling by 2^-32 is exact and
 * leaves the mantissa as it is, so m is read from a and e is a's exponent - 32: the bias
 * subtracted is 1023 + 32. The exponent field (below 2^11) converts to double exactly, as
 * pk_small_uint_to_double does. */
static inline void pk_mdpd_sve_log_normal2(const double *c, svfloat64_t *a, svfloat64_t *b)
{
    PK_MDPD_SVE_OWN_CONSTANTS(c);
    const svbool_t all = svptrue_b64();
    const svuint64_t bits_a = svreinterpret_u64_f64(*a), bits_b = svreinterpret_u64_f64(*b);
    const svfloat64_t bias = svdup_f64(c[EXP_BIAS]);
    svfloat64_t e_a = svsub_f64_x(all, svcvt_f64_u64_x(all, svlsr_n_u64_x(all, bits_a, 52)), bias);
    svfloat64_t e_b = svsub_f64_x(all, svcvt_f64_u64_x(all, svlsr_n_u64_x(all, bits_b, 52)), bias);
    const uint64_t mantissa = UINT64_C(0x000FFFFFFFFFFFFF), one = UINT64_C(0x3FF0000000000000);
    svfloat64_t m_a = svreinterpret_f64_u64(
        svorr_n_u64_x(all, svand_n_u64_x(all, bits_a, mantissa), one));
    svfloat64_t m_b = svreinterpret_f64_u64(
        svorr_n_u64_x(all, svand_n_u64_x(all, bits_b, mantissa), one));
    const svfloat64_t sqrt2 = svdup_f64(c[SQRT2]);
    const svbool_t big_a = svcmpgt_f64(all, m_a, sqrt2), big_b = svcmpgt_f64(all, m_b, sqrt2);
    m_a = svmul_n_f64_m(big_a, m_a, 0.5);
    m_b = svmul_n_f64_m(big_b, m_b, 0.5);
    e_a = svadd_n_f64_m(big_a, e_a, 1.0);   /* + 0.0 elsewhere is e: a whole number, never -0 */
    e_b = svadd_n_f64_m(big_b, e_b, 1.0);
    const svfloat64_t s_a =
        svdiv_f64_x(all, svsub_n_f64_x(all, m_a, 1.0), svadd_n_f64_x(all, m_a, 1.0));
    const svfloat64_t s_b =
        svdiv_f64_x(all, svsub_n_f64_x(all, m_b, 1.0), svadd_n_f64_x(all, m_b, 1.0));
    const svfloat64_t s2_a = svmul_f64_x(all, s_a, s_a), s2_b = svmul_f64_x(all, s_b, s_b);
    svfloat64_t poly_a = svdup_f64(c[LOG_POLY]), poly_b = poly_a;
    PK_UNROLL(10)
    for (int k = 1; k <= 10; k++) {   /* poly = 1/(23 - 2k) + s2 poly */
        const svfloat64_t term = svdup_f64(c[LOG_POLY + k]);
        poly_a = svadd_f64_x(all, svmul_f64_x(all, s2_a, poly_a), term);
        poly_b = svadd_f64_x(all, svmul_f64_x(all, s2_b, poly_b), term);
    }
    poly_a = svadd_n_f64_x(all, svmul_f64_x(all, s2_a, poly_a), 1.0);
    poly_b = svadd_n_f64_x(all, svmul_f64_x(all, s2_b, poly_b), 1.0);
    /* e ln2_hi + (e ln2_lo + 2 s poly) */
    const svfloat64_t hi = svdup_f64(c[LN2_HI]), lo = svdup_f64(c[LN2_LO]);
    const svfloat64_t tail_a = svadd_f64_x(all, svmul_f64_x(all, e_a, lo),
                                           svmul_f64_x(all, svmul_n_f64_x(all, s_a, 2.0), poly_a));
    const svfloat64_t tail_b = svadd_f64_x(all, svmul_f64_x(all, e_b, lo),
                                           svmul_f64_x(all, svmul_n_f64_x(all, s_b, 2.0), poly_b));
    *a = svadd_f64_x(all, svmul_f64_x(all, e_a, hi), tail_a);
    *b = svadd_f64_x(all, svmul_f64_x(all, e_b, hi), tail_b);
}

/* pk_cos_two_pi of a and b: fold u to t in [0, 1/8] with the sign, then the sine series
 * x P(x^2) where t was folded once more (use_sin), the cosine series Q(x^2) elsewhere. Each
 * lane runs only its own Horner recurrence, innermost coefficient first as the scalar's
 * nested expression: Q has one step more, taken first on the cosine lanes alone; then both
 * take seven steps with their coefficients chosen per lane, the last adding 1. */
static inline void pk_mdpd_sve_cos_two_pi2(const double *c, svfloat64_t *a, svfloat64_t *b)
{
    PK_MDPD_SVE_OWN_CONSTANTS(c);
    const svbool_t all = svptrue_b64();
    svfloat64_t t_a = svabs_f64_x(all, svsub_n_f64_x(all, *a, 0.5));
    svfloat64_t t_b = svabs_f64_x(all, svsub_n_f64_x(all, *b, 0.5));
    const svfloat64_t quarter = svdup_f64(0.25), eighth = svdup_f64(0.125);
    const svbool_t far_a = svcmpgt_f64(all, t_a, quarter), far_b = svcmpgt_f64(all, t_b, quarter);
    t_a = svsubr_n_f64_m(far_a, t_a, 0.5);   /* 0.5 - t where far */
    t_b = svsubr_n_f64_m(far_b, t_b, 0.5);
    const svbool_t sin_a = svcmpgt_f64(all, t_a, eighth), sin_b = svcmpgt_f64(all, t_b, eighth);
    const svbool_t cos_a = svnot_b_z(all, sin_a), cos_b = svnot_b_z(all, sin_b);
    t_a = svsubr_f64_m(sin_a, t_a, quarter);   /* 0.25 - t where use_sin */
    t_b = svsubr_f64_m(sin_b, t_b, quarter);
    const svfloat64_t two_pi = svdup_f64(c[TWO_PI]);
    const svfloat64_t x_a = svmul_f64_x(all, t_a, two_pi), x_b = svmul_f64_x(all, t_b, two_pi);
    const svfloat64_t x2_a = svmul_f64_x(all, x_a, x_a), x2_b = svmul_f64_x(all, x_b, x_b);
    const svfloat64_t sin0 = svdup_f64(c[SIN_POLY]), cos0 = svdup_f64(c[COS_POLY]);
    svfloat64_t h_a = svsel_f64(sin_a, sin0, cos0), h_b = svsel_f64(sin_b, sin0, cos0);
    const svfloat64_t cos1 = svdup_f64(c[COS_POLY + 1]);
    h_a = svadd_f64_m(cos_a, svmul_f64_m(cos_a, h_a, x2_a), cos1);
    h_b = svadd_f64_m(cos_b, svmul_f64_m(cos_b, h_b, x2_b), cos1);
    PK_UNROLL(5)
    for (int k = 1; k <= 5; k++) {
        const svfloat64_t sk = svdup_f64(c[SIN_POLY + k]), ck = svdup_f64(c[COS_POLY + k + 1]);
        h_a = svadd_f64_x(all, svmul_f64_x(all, x2_a, h_a), svsel_f64(sin_a, sk, ck));
        h_b = svadd_f64_x(all, svmul_f64_x(all, x2_b, h_b), svsel_f64(sin_b, sk, ck));
    }
    /* sine's 1/3! against cosine's 1/2 */
    const svfloat64_t s6 = svdup_f64(c[SIN_POLY + 6]), half = svdup_f64(-0.5);
    h_a = svadd_f64_x(all, svmul_f64_x(all, x2_a, h_a), svsel_f64(sin_a, s6, half));
    h_b = svadd_f64_x(all, svmul_f64_x(all, x2_b, h_b), svsel_f64(sin_b, s6, half));
    h_a = svadd_n_f64_x(all, svmul_f64_x(all, x2_a, h_a), 1.0);
    h_b = svadd_n_f64_x(all, svmul_f64_x(all, x2_b, h_b), 1.0);
    /* sign (use_sin ? x P : Q) with sign 1 where far, -1 elsewhere: a negation, exactly */
    const svfloat64_t v_a = svmul_f64_m(sin_a, h_a, x_a), v_b = svmul_f64_m(sin_b, h_b, x_b);
    *a = svneg_f64_m(v_a, svnot_b_z(all, far_a), v_a);
    *b = svneg_f64_m(v_b, svnot_b_z(all, far_b), v_b);
}

/* The unit Gaussians of the pairs {tag_i[q], tag_j[q]} for the key in every lane of *key
 * and the constants c of pk_mdpd_sve_noise_constants (Box-Muller on the two Philox words,
 * as pk_mdpd_gaussian_keyed: u1 in (0, 1], u2 in [0, 1)): lanes [0, svcntd()) of the 32-bit
 * vectors in *lo, the rest in *hi. The counter is the sorted tag pair, so the number is the
 * same for either order of the pair. */
static inline void pk_mdpd_sve_noise(const double *c, svuint32_t *key, svuint32_t tag_i,
                                     svuint32_t tag_j, svfloat64_t *lo, svfloat64_t *hi)
{
    const svbool_t all32 = svptrue_b32();
    svuint32_t c0 = svmin_u32_x(all32, tag_i, tag_j), c1 = svmax_u32_x(all32, tag_i, tag_j);
    pk_mdpd_sve_philox(&c0, &c1, key);
    const svbool_t all = svptrue_b64();
    const svfloat64_t scale = svdup_f64(c[TWO_POW_M32]);
    /* u1 = (c0 + 1) 2^-32 (the log takes c0 + 1), u2 = c1 2^-32, the words below 2^32
     * converted exactly */
    svfloat64_t u1_lo = svadd_n_f64_x(all, svcvt_f64_u64_x(all, svunpklo_u64(c0)), 1.0);
    svfloat64_t u1_hi = svadd_n_f64_x(all, svcvt_f64_u64_x(all, svunpkhi_u64(c0)), 1.0);
    svfloat64_t u2_lo = svmul_f64_x(all, svcvt_f64_u64_x(all, svunpklo_u64(c1)), scale);
    svfloat64_t u2_hi = svmul_f64_x(all, svcvt_f64_u64_x(all, svunpkhi_u64(c1)), scale);
    pk_mdpd_sve_log_normal2(c, &u1_lo, &u1_hi);
    pk_mdpd_sve_cos_two_pi2(c, &u2_lo, &u2_hi);
    /* sqrt(-2 ln u1) cos(2 pi u2) */
    const svfloat64_t minus_two = svdup_f64(c[MINUS_TWO]);
    *lo = svmul_f64_x(all, svsqrt_f64_x(all, svmul_f64_x(all, u1_lo, minus_two)), u2_lo);
    *hi = svmul_f64_x(all, svsqrt_f64_x(all, svmul_f64_x(all, u1_hi, minus_two)), u2_hi);
}

/* xi[q] = the unit Gaussian of {tag_i[q], tag_j[q]} for q < n. */
static inline void pk_mdpd_sve_noise_array(uint32_t key, const uint32_t *tag_i,
                                           const uint32_t *tag_j, int64_t n, double *xi)
{
    const int64_t nw = (int64_t)svcntw(), nd = (int64_t)svcntd();
    svuint32_t keys = svdup_n_u32(key);
    for (int64_t q = 0; q < n; q += nw) {
        const svbool_t pg32 = svwhilelt_b32_s64(q, n);
        svfloat64_t lo, hi;
        pk_mdpd_sve_noise(pk_mdpd_sve_noise_constants, &keys, svld1_u32(pg32, tag_i + q),
                          svld1_u32(pg32, tag_j + q), &lo, &hi);
        svst1_f64(svwhilelt_b64_s64(q, n), xi + q, lo);
        svst1_f64(svwhilelt_b64_s64(q + nd, n), xi + q + nd, hi);
    }
}

#endif
