/* Pair-symmetric Gaussian random numbers for DPD noise.
 *
 * A counter-based generator (Philox-2x32-10, Salmon et al., SC'11) keyed by the user seed
 * and the timestep, with the two atom IDs in sorted order as the counter. The number for a
 * pair therefore depends only on (seed, step, {tag_i, tag_j}): the same on every rank and
 * thread, whatever the neighbour order or newton setting, so a pair seen from both sides
 * gets the same xi and F_ij = -F_ji holds exactly.
 *
 * Box-Muller turns the two 32-bit words into one normal deviate. u1 >= 2^-32 bounds |xi|
 * by sqrt(64 ln 2) = 6.66, a tail of probability 3e-11 per draw. Inline: it is called once
 * per pair in the force loop. */
#ifndef PK_MDPD_RANDOM_H
#define PK_MDPD_RANDOM_H

#include <math.h>
#include <stdint.h>
#include <Random123/philox.h>

#include "pk_math.h"
#include "pk_views.h"

/* cos(2 pi u) for u in [0, 1): fold to x in [0, pi/4] and use Taylor series to x^16
 * (truncation < 2e-16 there); cheaper than libm's general range reduction. */
static inline double pk_cos_two_pi(double u)
{
    double t = fabs(u - 0.5);             /* cos(2 pi u) = -cos(2 pi t), t in [0, 0.5] */
    double sign = -1.0;
    if (t > 0.25) { t = 0.5 - t; sign = 1.0; }   /* cos(2 pi t) = -cos(2 pi (0.5 - t)) */
    const int use_sin = t > 0.125;        /* cos(x) = sin(pi/2 - x) */
    if (use_sin) t = 0.25 - t;
    const double x = PK_TWO_PI * t, x2 = x * x;
    double r;
    if (use_sin)
        r = x * (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880 +
                 x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800.0 + x2 * (-1.0 / 1307674368000.0))))))));
    else
        r = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320 +
                 x2 * (-1.0 / 3628800 + x2 * (1.0 / 479001600.0 + x2 * (-1.0 / 87178291200.0 +
                 x2 * (1.0 / 20922789888000.0))))))));
    return sign * r;
}

/* Bijective 32-bit mixer (the MurmurHash3 finaliser); fmix32(0) = 0. */
static inline uint32_t pk_fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static inline double pk_mdpd_pair_gaussian(uint32_t seed, uint64_t timestep, pk_tag tag_i,
                                           pk_tag tag_j)
{
    uint32_t a = (uint32_t)tag_i, b = (uint32_t)tag_j;
    if (a > b) { uint32_t t = a; a = b; b = t; }
    /* Philox-2x32 has a 32-bit key: step XOR a hash of the seed, so within a run every step
     * has its own key, and two seeds share a key only for steps ~2^31 apart on average. */
    philox2x32_ctr_t ctr = {{a, b}};
    philox2x32_key_t key = {{pk_fmix32(seed) ^ (uint32_t)timestep ^
                             pk_fmix32((uint32_t)(timestep >> 32))}};
    philox2x32_ctr_t r = philox2x32(ctr, key);
    const double u1 = ((double)r.v[0] + 1.0) * 0x1.0p-32;   /* (0, 1] */
    const double u2 = (double)r.v[1] * 0x1.0p-32;          /* [0, 1) */
    return sqrt(-2.0 * log(u1)) * pk_cos_two_pi(u2);
}

#endif
