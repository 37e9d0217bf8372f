/* Portable forms (GNU C vector extensions) of the four-lane operations that have an x86 AVX
 * form in hdnnp_v4_avx.h; hdnnp_kernel.h includes one of the two. */
#ifndef HDNNP_V4_GENERIC_H
#define HDNNP_V4_GENERIC_H

/* Bit l set where lane l of a comparison mask is true. */
HDNNP_V4_INLINE int v4_mask_bits(hdnnp_v4i m)
{
    const hdnnp_v4i b = m & (hdnnp_v4i){1, 2, 4, 8};
    return (int)((b[0] | b[1]) | (b[2] | b[3]));
}

/* max(a, b), min(a, b) lane by lane */
HDNNP_V4_INLINE hdnnp_v4 v4_max(hdnnp_v4 a, hdnnp_v4 b)
{
    return v4_blend(a > b, a, b);
}

HDNNP_V4_INLINE hdnnp_v4 v4_min(hdnnp_v4 a, hdnnp_v4 b)
{
    return v4_blend(a < b, a, b);
}

#endif
