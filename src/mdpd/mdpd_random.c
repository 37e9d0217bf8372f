#include "mdpd_random.h"

#include "pk_math.h"

#include <math.h>
#include <Random123/philox.h>

/* 53 random bits -> uniform in (0, 1]; never 0, so log() below is finite. */
static double uniform_open0(uint32_t hi, uint32_t lo)
{
    uint64_t bits = ((uint64_t)hi << 21) ^ (uint64_t)(lo >> 11);
    bits &= (UINT64_C(1) << 53) - 1;
    return ((double)bits + 1.0) * 0x1.0p-53;
}

double pk_mdpd_pair_gaussian(uint32_t seed, uint64_t timestep, pk_tag tag_i, pk_tag tag_j)
{
    uint32_t a = (uint32_t)tag_i, b = (uint32_t)tag_j;
    if (a > b) { uint32_t t = a; a = b; b = t; }
    philox4x32_ctr_t ctr = {{a, b, (uint32_t)timestep, (uint32_t)(timestep >> 32)}};
    philox4x32_key_t key = {{seed, 0x6d647064u /* "mdpd" */}};
    philox4x32_ctr_t r = philox4x32(ctr, key);
    /* Box-Muller: one of the pair of normal deviates is used. */
    double u1 = uniform_open0(r.v[0], r.v[1]);
    double u2 = uniform_open0(r.v[2], r.v[3]);
    return sqrt(-2.0 * log(u1)) * cos(PK_TWO_PI * u2);
}
