/* x86 AVX and AVX2 forms of the lane operations of amoeba_lanes.h (intrinsics), included by
 * it only where the compiler targets AVX; amoeba_lanes_generic.h defines the same operations
 * in portable GNU C, with identical results, for everything this file leaves out. It says
 * what it defined with AMOEBA_LANES_AVX (lane4_mask, keep4, keep4_bytes, lane4_sqrt_pos
 * and the lane moves) and AMOEBA_LANES_AVX2 (keep4_lane4). x86 is little-endian, which the
 * byte and 32-bit lane permutations below rely on. */
#ifndef AMOEBA_LANES_AVX_H
#define AMOEBA_LANES_AVX_H

#include <immintrin.h>

#define AMOEBA_LANES_AVX 1

/* Bit l set where lane l of a vector comparison (all ones in a lane where true) is. */
static inline unsigned lane4_mask(lane4 cmp_true)
{
    return (unsigned)_mm256_movemask_pd((__m256d)cmp_true);
}

/* The 32-bit lanes that bring the lanes l set in keep (4 bits) to the front, in order (for
 * _mm_permutevar_ps). */
static inline __m128i keep4_order(unsigned keep)
{
    static const int front[16][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
                                     {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
                                     {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
                                     {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
    return _mm_loadu_si128((const __m128i *)front[keep]);
}

/* Store e[l] for the lanes l set in keep (4 bits) at out[0], out[1], ... in order and
 * return how many; out must have room for four (one whole store). */
static inline int keep4(const int *e, unsigned keep, int *out)
{
    const __m128 v = _mm_permutevar_ps(_mm_loadu_ps((const float *)e), keep4_order(keep));
    _mm_storeu_ps((float *)out, v);
    return __builtin_popcount(keep);
}

/* keep4 for bytes: f[l] for the lanes l set in keep at out[0], out[1], ... in order; out
 * must have room for four (one whole store). Widened to 32-bit lanes, permuted as keep4,
 * narrowed back. Only the four-at-a-time batch filter (amoeba_batch.c) uses it, and only
 * with AVX, so it has no portable form. */
static inline void keep4_bytes(const unsigned char *f, unsigned keep, unsigned char *out)
{
    /* bytes 0, 4, 8, 12 (each lane's low byte) to the front */
    const __m128i low_bytes = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,
                                            -1, -1, -1, -1);
    int m4;
    memcpy(&m4, f, sizeof m4);
    const __m128 m = _mm_castsi128_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(m4)));
    const __m128i front = _mm_castps_si128(_mm_permutevar_ps(m, keep4_order(keep)));
    m4 = _mm_cvtsi128_si32(_mm_shuffle_epi8(front, low_bytes));
    memcpy(out, &m4, sizeof m4);
}

/* sqrt(x) where x > 0, else 0 */
static inline lane4 lane4_sqrt_pos(lane4 x)
{
    const lane4 r = (lane4)_mm256_sqrt_pd((__m256d)x);
    return (lane4)((lane4_bits)r & (x > lane4_bcast(0.0)));
}

/* Lane moves of the PCG products (amoeba_induce.c). As intrinsics they compile to
 * broadcasting and duplicating loads and blends, which cost no shuffle unit: GCC turns the
 * equivalent generic shuffles into cross-lane permutes, which on Zen 3 take a slot of an FMA
 * pipe each. */
static inline lane4 lane4_bcast2(const double *p)   /* {p0 p1 p0 p1} */
{
    return (lane4)_mm256_broadcast_pd((const __m128d *)p);
}

static inline lane4 lane4_dup_even(const double *p)   /* {p0 p0 p2 p2} */
{
    return (lane4)_mm256_movedup_pd(_mm256_loadu_pd(p));
}

static inline lane4 lane4_blend(lane4 a, lane4 b)   /* {a0 a1 b2 b3} */
{
    return (lane4)_mm256_blend_pd((__m256d)a, (__m256d)b, 12);
}

static inline lane2 lane4_high(lane4 a)   /* {a2 a3} */
{
    return (lane2)_mm256_extractf128_pd((__m256d)a, 1);
}

#ifdef __AVX2__
#define AMOEBA_LANES_AVX2 1

/* keep4 for doubles: v[l] for the lanes l set in keep at out[0], out[1], ... in order; out
 * must have room for four (one whole store). */
static inline void keep4_lane4(lane4 v, unsigned keep, double *out)
{
    /* the 32-bit halves of the kept lanes to the front (_mm256_permutevar8x32_epi32) */
#define PK_LANES(a, b, c, d) \
    {2 * a, 2 * a + 1, 2 * b, 2 * b + 1, 2 * c, 2 * c + 1, 2 * d, 2 * d + 1}
    static const int perm[16][8] = {
        PK_LANES(0, 0, 0, 0), PK_LANES(0, 0, 0, 0), PK_LANES(1, 0, 0, 0), PK_LANES(0, 1, 0, 0),
        PK_LANES(2, 0, 0, 0), PK_LANES(0, 2, 0, 0), PK_LANES(1, 2, 0, 0), PK_LANES(0, 1, 2, 0),
        PK_LANES(3, 0, 0, 0), PK_LANES(0, 3, 0, 0), PK_LANES(1, 3, 0, 0), PK_LANES(0, 1, 3, 0),
        PK_LANES(2, 3, 0, 0), PK_LANES(0, 2, 3, 0), PK_LANES(1, 2, 3, 0), PK_LANES(0, 1, 2, 3)};
#undef PK_LANES
    const __m256i idx = _mm256_loadu_si256((const __m256i *)perm[keep]);
    const __m256i x = _mm256_permutevar8x32_epi32(_mm256_castpd_si256((__m256d)v), idx);
    _mm256_storeu_pd(out, _mm256_castsi256_pd(x));
}
#endif

#endif
