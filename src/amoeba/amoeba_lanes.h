/* SIMD vectors of four and two doubles (GCC/Clang vector extensions) and the loads, stores
 * and sums that the amoeba pair kernels share (memcpy: unaligned access stays defined and
 * compiles to one vector move). The operations with an x86 form (lane4_mask, keep4,
 * keep4_lane4, lane4_sqrt_pos, the lane moves of the PCG products) come from
 * amoeba_lanes_avx.h where the compiler targets AVX, and from amoeba_lanes_generic.h (portable
 * GNU C, the same results) for whatever that does not define, and on every other CPU. */
#ifndef AMOEBA_LANES_H
#define AMOEBA_LANES_H

#include <stdint.h>
#include <string.h>

#include "pk_amoeba.h"

typedef double lane4 __attribute__((vector_size(4 * sizeof(double))));
typedef double lane2 __attribute__((vector_size(2 * sizeof(double))));
/* the bits of a lane4, as in the lane masks of vector comparisons */
typedef long long lane4_bits __attribute__((vector_size(4 * sizeof(long long))));

static inline lane4 lane4_load(const double *p)
{
    lane4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void lane4_store(double *p, lane4 v)
{
    memcpy(p, &v, sizeof v);
}

static inline lane2 lane2_load(const double *p)
{
    lane2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* p[0..1] += v */
static inline void lane2_add(double *p, lane2 v)
{
    lane2 o = lane2_load(p);
    o += v;
    memcpy(p, &o, sizeof o);
}

/* p[0..3] += v */
static inline void lane4_add(double *p, lane4 v)
{
    lane4 o = lane4_load(p);
    o += v;
    memcpy(p, &o, sizeof o);
}

static inline lane4 lane4_bcast(double v)
{
    const lane4 r = {v, v, v, v};
    return r;
}

/* {a0, b0, a2, b2} and {a1, b1, a3, b3} */
static inline lane4 lane4_even(lane4 a, lane4 b)
{
    return __builtin_shufflevector(a, b, 0, 4, 2, 6);
}

static inline lane4 lane4_odd(lane4 a, lane4 b)
{
    return __builtin_shufflevector(a, b, 1, 5, 3, 7);
}

/* Components c and c + 1 of the rows r[0..3] as the vectors {r0[c] r1[c] r2[c] r3[c]} (*a)
 * and the same of c + 1 (*b): two-wide loads joined and interleaved, instead of gathers. */
static inline void rows_to_lanes(const double *const r[4], int c, lane4 *a, lane4 *b)
{
    const lane2 r0 = lane2_load(r[0] + c), r1 = lane2_load(r[1] + c);
    const lane2 r2 = lane2_load(r[2] + c), r3 = lane2_load(r[3] + c);
    const lane4 lo = __builtin_shufflevector(r0, r2, 0, 1, 2, 3);
    const lane4 hi = __builtin_shufflevector(r1, r3, 0, 1, 2, 3);
    *a = lane4_even(lo, hi);
    *b = lane4_odd(lo, hi);
}

/* a0 + a1 + a2 + a3, as (a0 + a2) + (a1 + a3) */
static inline double lane4_sum(lane4 a)
{
    return (a[0] + a[2]) + (a[1] + a[3]);
}

/* Bit l set where the 0/1 byte f[l] is 1 (little-endian byte order): byte l times
 * 2^(24 - 7 l) lands on bit 24 + l, the other products on distinct bits, so nothing
 * carries. */
static inline unsigned flags4_mask(const unsigned char *f)
{
    uint32_t v;
    memcpy(&v, f, sizeof v);
    return (uint32_t)(v * 0x01020408u) >> 24 & 15u;
}

/* The vectors from c to rows[k] for the list entries e[0..3] (k | class bits; rows: a
 * {x y z .} per atom), transposed into x = {x0 x1 x2 x3}, y and z. */
static inline void entries_rows4(const lane4 *rows, const int *e, lane4 c, lane4 *x, lane4 *y,
                                 lane4 *z)
{
    const lane4 d0 = rows[e[0] & PK_AMOEBA_NEIGHMASK] - c;
    const lane4 d1 = rows[e[1] & PK_AMOEBA_NEIGHMASK] - c;
    const lane4 d2 = rows[e[2] & PK_AMOEBA_NEIGHMASK] - c;
    const lane4 d3 = rows[e[3] & PK_AMOEBA_NEIGHMASK] - c;
    /* {x0 x1 z0 z1} {y0 y1 .} {x2 x3 z2 z3} {y2 y3 .} */
    const lane4 t0 = __builtin_shufflevector(d0, d1, 0, 4, 2, 6);
    const lane4 t1 = __builtin_shufflevector(d0, d1, 1, 5, 3, 7);
    const lane4 t2 = __builtin_shufflevector(d2, d3, 0, 4, 2, 6);
    const lane4 t3 = __builtin_shufflevector(d2, d3, 1, 5, 3, 7);
    *x = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    *y = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    *z = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
}

/* Six values of four pairs, v[c] = {value c of pair 0, 1, 2, 3}, transposed into each
 * pair's rows: head[l] = its values 0..3, tail[l] = its values 4 and 5. */
static inline void lanes_to_rows6(const lane4 v[6], lane4 head[4], lane2 tail[4])
{
    const lane4 e01 = lane4_even(v[0], v[1]), o01 = lane4_odd(v[0], v[1]);   /* x0 y0 x2 y2 */
    const lane4 e23 = lane4_even(v[2], v[3]), o23 = lane4_odd(v[2], v[3]);
    const lane4 e45 = lane4_even(v[4], v[5]), o45 = lane4_odd(v[4], v[5]);
    head[0] = __builtin_shufflevector(e01, e23, 0, 1, 4, 5);
    head[1] = __builtin_shufflevector(o01, o23, 0, 1, 4, 5);
    head[2] = __builtin_shufflevector(e01, e23, 2, 3, 6, 7);
    head[3] = __builtin_shufflevector(o01, o23, 2, 3, 6, 7);
    tail[0] = __builtin_shufflevector(e45, e45, 0, 1);
    tail[1] = __builtin_shufflevector(o45, o45, 0, 1);
    tail[2] = __builtin_shufflevector(e45, e45, 2, 3);
    tail[3] = __builtin_shufflevector(o45, o45, 2, 3);
}

/* Add four pairs' forces and torques, res = {fx, fy, fz, tx, ty, tz} by pair (lane), onto
 * their partners k[0..3]: transposed into each pair's rows {fx fy fz tx} and {ty tz}, so
 * that a pair takes two 2-wide and two scalar additions instead of six scalar ones. */
static inline void amoeba_add_force_torque4(const lane4 res[6], const int *k, double (*f)[3],
                                            double (*tq)[3])
{
    lane4 row[4];
    lane2 tyz[4];
    lanes_to_rows6(res, row, tyz);
    for (int l = 0; l < 4; l++) {
        lane2_add(f[k[l]], __builtin_shufflevector(row[l], row[l], 0, 1));
        f[k[l]][2] += row[l][2];
        tq[k[l]][0] += row[l][3];
        lane2_add(tq[k[l]] + 1, tyz[l]);
    }
}

#ifdef __AVX__
#include "amoeba_lanes_avx.h"
#endif
#include "amoeba_lanes_generic.h"

#endif
