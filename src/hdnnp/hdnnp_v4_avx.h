/* x86 AVX forms (GCC builtins, one instruction each) of the four-lane operations whose
 * portable forms are in hdnnp_v4_generic.h; hdnnp_kernel.h includes this one instead where
 * GCC targets AVX (-march=native on an AVX CPU). The results are the same: for a NaN in
 * either lane maxpd and minpd return b, as b is returned where a > b (a < b) is false. */
#ifndef HDNNP_V4_AVX_H
#define HDNNP_V4_AVX_H

/* Bit l set where lane l of a comparison mask is true. */
HDNNP_V4_INLINE int v4_mask_bits(hdnnp_v4i m)
{
    return __builtin_ia32_movmskpd256((hdnnp_v4)m);
}

/* max(a, b), min(a, b) lane by lane */
HDNNP_V4_INLINE hdnnp_v4 v4_max(hdnnp_v4 a, hdnnp_v4 b)
{
    return __builtin_ia32_maxpd256(a, b);
}

HDNNP_V4_INLINE hdnnp_v4 v4_min(hdnnp_v4 a, hdnnp_v4 b)
{
    return __builtin_ia32_minpd256(a, b);
}

#endif
