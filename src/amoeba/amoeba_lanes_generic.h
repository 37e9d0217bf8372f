/* Portable forms (GNU C vector extensions) of the lane operations of amoeba_lanes.h that an
 * architecture header may provide as intrinsics (amoeba_lanes_avx.h): each operation that
 * header did not define is defined here, with the same results. On CPUs other than x86
 * with AVX all of them come from here. */
#ifndef AMOEBA_LANES_GENERIC_H
#define AMOEBA_LANES_GENERIC_H

#include <math.h>

#ifndef AMOEBA_LANES_AVX
/* Bit l set where lane l of a vector comparison (all ones in a lane where true) is. */
static inline unsigned lane4_mask(lane4 cmp_true)
{
    unsigned m = 0;
    for (int l = 0; l < 4; l++) m |= (unsigned)(cmp_true[l] != 0.0) << l;   /* all ones: a NaN */
    return m;
}

/* Store e[l] for the lanes l set in keep (4 bits) at out[0], out[1], ... in order and
 * return how many; out must have room for four. */
static inline int keep4(const int *e, unsigned keep, int *out)
{
    int n = 0;
    for (int l = 0; l < 4; l++) {   /* written always, kept by advancing n */
        out[n] = e[l];
        n += keep >> l & 1;
    }
    return n;
}

/* sqrt(x) where x > 0, else 0 */
static inline lane4 lane4_sqrt_pos(lane4 x)
{
    lane4 r;
    for (int l = 0; l < 4; l++) r[l] = sqrt(x[l]);
    return (lane4)((lane4_bits)r & (x > lane4_bcast(0.0)));
}

/* Lane moves of the PCG products (amoeba_induce.c). */
static inline lane4 lane4_bcast2(const double *p)   /* {p0 p1 p0 p1} */
{
    const lane2 h = lane2_load(p);
    return __builtin_shufflevector(h, h, 0, 1, 0, 1);
}

static inline lane4 lane4_dup_even(const double *p)   /* {p0 p0 p2 p2} */
{
    const lane4 v = lane4_load(p);
    return __builtin_shufflevector(v, v, 0, 0, 2, 2);
}

static inline lane4 lane4_blend(lane4 a, lane4 b)   /* {a0 a1 b2 b3} */
{
    return __builtin_shufflevector(a, b, 0, 1, 6, 7);
}

static inline lane2 lane4_high(lane4 a)   /* {a2 a3} */
{
    return __builtin_shufflevector(a, a, 2, 3);
}
#endif

#ifndef AMOEBA_LANES_AVX2
/* keep4 for doubles: v[l] for the lanes l set in keep at out[0], out[1], ... in order; out
 * must have room for four. */
static inline void keep4_lane4(lane4 v, unsigned keep, double *out)
{
    int n = 0;
    for (int l = 0; l < 4; l++) {   /* written always, kept by advancing n */
        out[n] = v[l];
        n += keep >> l & 1;
    }
}
#endif

#endif
