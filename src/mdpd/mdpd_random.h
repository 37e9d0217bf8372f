/* Pair-symmetric random numbers for DPD noise: unit Gaussian (default) or uniform with the
 * Gaussian's mean and variance.
 *
 * A counter-based generator, Philox-2x32-10 (Salmon, Moraes, Dror & Shaw, SC'11), with the
 * two atom IDs in sorted order as the counter and a key made from the seed and the
 * timestep. The number for a pair therefore depends only on (seed, step, {tag_i, tag_j}):
 * the same on every rank and thread, whatever the neighbour order or newton setting, so a
 * pair seen from both sides gets the same xi and F_ij = -F_ji holds exactly.
 *
 * Box-Muller turns the two 32-bit words into one normal deviate. u1 >= 2^-32 bounds |xi|
 * by sqrt(64 ln 2) = 6.66, a tail of probability 3e-11 per draw. Everything here is
 * branch-free straight-line arithmetic so that the batch loop vectorises, and PK_HD, so
 * that the CUDA kernels draw the same numbers bit for bit. */
#ifndef PK_MDPD_RANDOM_H
#define PK_MDPD_RANDOM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pk_hd.h"
#include "pk_math.h"
#include "pk_views.h"

/* Bijective 32-bit mixer (the MurmurHash3 finaliser); fmix32(0) = 0. */
PK_HD uint32_t pk_fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Philox-2x32 has a 32-bit key: step XOR a hash of the seed, so within a run every step has
 * its own key, and two seeds share a key only for steps ~2^31 apart on average. */
PK_HD uint32_t pk_mdpd_noise_key(uint32_t seed, uint64_t timestep)
{
    return pk_fmix32(seed) ^ (uint32_t)timestep ^ pk_fmix32((uint32_t)(timestep >> 32));
}

/* Philox-2x32-10: ten rounds of (L, R) -> (hi(M L) ^ k ^ R, lo(M L)), k += W between rounds. */
PK_HD void pk_philox2x32_10(uint32_t *c0, uint32_t *c1, uint32_t key)
{
    uint32_t l = *c0, r = *c1;
    PK_UNROLL(10)
    for (int round = 0; round < 10; round++) {
        const uint64_t p = (uint64_t)0xD256D193u * l;
        const uint32_t hi = (uint32_t)(p >> 32), lo = (uint32_t)p;
        l = hi ^ key ^ r;
        r = lo;
        key += 0x9E3779B9u;
    }
    *c0 = l;
    *c1 = r;
}

/* Exact conversion of an integer below 2^52 to double through the bits of 2^52 + n: plain
 * 64-bit integer and FP arithmetic, which vectorises where int-to-double conversions of
 * unsigned or 64-bit lanes do not (AVX2). */
PK_HD double pk_small_uint_to_double(uint64_t n)
{
    const uint64_t bits = UINT64_C(0x4330000000000000) | n;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d - 4503599627370496.0;
}

/* ln(x) for normal x > 0: x = 2^e m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with
 * s = (m-1)/(m+1), |s| <= 0.172, summed to s^23 (truncation < 1e-18 relative). */
PK_HD double pk_log_normal(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    double e = pk_small_uint_to_double(bits >> 52) - 1023.0;
    uint64_t mbits = (bits & UINT64_C(0x000FFFFFFFFFFFFF)) | UINT64_C(0x3FF0000000000000);
    double m;
    memcpy(&m, &mbits, sizeof m);
    const int big = m > 1.4142135623730951;
    m = big ? 0.5 * m : m;
    e += big ? 1.0 : 0.0;
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double poly = 1.0 / 23;
    PK_UNROLL(11)
    for (int k = 21; k >= 1; k -= 2) poly = 1.0 / k + s2 * poly;
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    return e * ln2_hi + (e * ln2_lo + 2.0 * s * poly);
}

/* cos(2 pi u) for u in [0, 1): fold to x = 2 pi t with t in [0, 1/8] and Taylor series to
 * x^16 (truncation < 2e-16 there). */
PK_HD double pk_cos_two_pi(double u)
{
    double t = fabs(u - 0.5);                 /* cos(2 pi u) = -cos(2 pi t), t in [0, 1/2] */
    const int far = t > 0.25;                 /* cos(2 pi t) = -cos(2 pi (1/2 - t)) */
    t = far ? 0.5 - t : t;
    const double sign = far ? 1.0 : -1.0;
    const int use_sin = t > 0.125;            /* cos(x) = sin(pi/2 - x) */
    t = use_sin ? 0.25 - t : t;
    const double x = PK_TWO_PI * t, x2 = x * x;
    const double s = x * (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 +
                     x2 * (1.0 / 362880 + x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800.0 +
                     x2 * (-1.0 / 1307674368000.0))))))));
    const double c = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320 +
                     x2 * (-1.0 / 3628800 + x2 * (1.0 / 479001600.0 + x2 * (-1.0 / 87178291200.0 +
                     x2 * (1.0 / 20922789888000.0))))))));
    return sign * (use_sin ? s : c);
}

/* The pair's two Philox words: the counter is the two tags in sorted order. */
PK_HD void pk_mdpd_pair_words(uint32_t key, pk_tag tag_i, pk_tag tag_j, uint32_t *c0,
                              uint32_t *c1)
{
    const uint32_t a = (uint32_t)tag_i, b = (uint32_t)tag_j;
    *c0 = a < b ? a : b;
    *c1 = a < b ? b : a;
    pk_philox2x32_10(c0, c1, key);
}

PK_HD double pk_mdpd_gaussian_keyed(uint32_t key, pk_tag tag_i, pk_tag tag_j)
{
    uint32_t c0, c1;
    pk_mdpd_pair_words(key, tag_i, tag_j, &c0, &c1);
    const double u1 = (pk_small_uint_to_double(c0) + 1.0) * 0x1.0p-32;   /* (0, 1] */
    const double u2 = pk_small_uint_to_double(c1) * 0x1.0p-32;           /* [0, 1) */
    return sqrt(-2.0 * pk_log_normal(u1)) * pk_cos_two_pi(u2);
}

/* The uniform alternative (pair_style mdpd/pk ... noise uniform): xi = sqrt(3) (2u - 1), with
 * u = (c0 + 1/2) 2^-32 from the first Philox word, is uniform on (-sqrt 3, sqrt 3) with mean 0
 * and variance 1 (to 2^-64). The fluctuation-dissipation theorem of DPD fixes only these two
 * moments, so Groot & Warren (J. Chem. Phys. 107, 4423 (1997), sec. II) and DL_MESO use it in
 * place of the Gaussian: it saves the logarithm, square root and cosine of Box-Muller. The
 * 2^32 values of c0 map to pairs of exact opposites, so the mean is exactly 0 over the
 * period. 2u - 1 = c0 2^-31 + (2^-32 - 1) is exact in double (33 significant bits, fused or
 * not), leaving one rounding, the product with sqrt 3, on every backend. */
PK_HD double pk_mdpd_uniform_of_word(uint32_t c0)
{
    const double two_u_minus_1 = pk_small_uint_to_double(c0) * 0x1.0p-31 + (0x1.0p-32 - 1.0);
    return 1.7320508075688772 * two_u_minus_1;
}

PK_HD double pk_mdpd_uniform_keyed(uint32_t key, pk_tag tag_i, pk_tag tag_j)
{
    uint32_t c0, c1;
    pk_mdpd_pair_words(key, tag_i, tag_j, &c0, &c1);
    return pk_mdpd_uniform_of_word(c0);
}

/* The pair's noise of either kind: `uniform` is 0 for the Gaussian (the default stream), 1
 * for pk_mdpd_uniform_keyed. */
PK_HD double pk_mdpd_noise_keyed(int uniform, uint32_t key, pk_tag tag_i, pk_tag tag_j)
{
    return uniform ? pk_mdpd_uniform_keyed(key, tag_i, tag_j)
                   : pk_mdpd_gaussian_keyed(key, tag_i, tag_j);
}

/* The unit Gaussian shared by the pair {tag_i, tag_j} at this step. */
PK_HD double pk_mdpd_pair_gaussian(uint32_t seed, uint64_t timestep, pk_tag tag_i,
                                           pk_tag tag_j)
{
    return pk_mdpd_gaussian_keyed(pk_mdpd_noise_key(seed, timestep), tag_i, tag_j);
}

#endif
