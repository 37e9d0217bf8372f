/* 3-vectors of SVE lanes for the amoeba/pk pair kernels, written out as three svfloat64_t
 * named a##x, a##y, a##z, and the vector algebra on them as macros over the active lanes
 * pg. Not ACLE tuples (svfloat64x3_t): those must sit in consecutive registers, and GCC 12
 * then copies and spills them in these long pair loops. */
#ifndef AMOEBA_SVE_VEC3_H
#define AMOEBA_SVE_VEC3_H

#include "amoeba_sve.h"

/* products, a.b, o = a x b and o = Q v, in the active lanes pg */
#define MUL(a, b) svmul_f64_x(pg, a, b)
#define MLA(acc, a, b) svmla_f64_x(pg, acc, a, b)   /* acc + a b */
#define MLS(acc, a, b) svmls_f64_x(pg, acc, a, b)   /* acc - a b */
#define DOT(a, b) MLA(MLA(MUL(a##x, b##x), a##y, b##y), a##z, b##z)
#define CROSS(o, a, b)                                                                         \
    const svfloat64_t o##x = MLS(MUL(a##y, b##z), a##z, b##y);                                 \
    const svfloat64_t o##y = MLS(MUL(a##z, b##x), a##x, b##z);                                 \
    const svfloat64_t o##z = MLS(MUL(a##x, b##y), a##y, b##x)
/* o = Q v for the symmetric Q given as q##xx q##xy q##xz q##yy q##yz q##zz */
#define QMUL(o, q, v)                                                                          \
    const svfloat64_t o##x = MLA(MLA(MUL(q##xx, v##x), q##xy, v##y), q##xz, v##z);            \
    const svfloat64_t o##y = MLA(MLA(MUL(q##xy, v##x), q##yy, v##y), q##yz, v##z);            \
    const svfloat64_t o##z = MLA(MLA(MUL(q##xz, v##x), q##yz, v##y), q##zz, v##z)

/* A site's multipole as vectors, from its row of 13 (rpole order: charge, dipole x y z,
 * quadrupole xx xy xz yx yy yz zx zy zz): c##s, d##s##x.., q##s##xx.. (upper triangle), with
 * LOAD(n) giving component n for the lanes. */
#define SITE_VECTORS(s, LOAD)                                                                  \
    const svfloat64_t c##s = LOAD(0), d##s##x = LOAD(1), d##s##y = LOAD(2), d##s##z = LOAD(3); \
    const svfloat64_t q##s##xx = LOAD(4), q##s##xy = LOAD(5), q##s##xz = LOAD(6);              \
    const svfloat64_t q##s##yy = LOAD(8), q##s##yz = LOAD(9), q##s##zz = LOAD(12)

/* Adds the vector v to the rows k3 / 3 (k3: 3 k) of the live lanes, column col, of the
 * array of 3-rows a; the live lanes name distinct rows */
static inline void add_rows(svbool_t live, double *a, int col, svint64_t k3, svfloat64_t v)
{
    const svfloat64_t old = svld1_gather_s64index_f64(live, a + col, k3);
    svst1_scatter_s64index_f64(live, a + col, k3, svadd_f64_x(live, old, v));
}

#endif
