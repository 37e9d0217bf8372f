/* Include the file named by AG_BODY twice: with AGB(name) = name_d and per-pair arithmetic
 * in double (AGR, AG_SQRT, AG_EXP), then with name_f in float (precision mixed; the bodies
 * keep their sums in double). No include guard: each body that needs both precisions
 * includes it. */
#define AG_CAT2(a, b) a##b
#define AG_CAT(a, b) AG_CAT2(a, b)
#define AGB(name) AG_CAT(name, AG_SUFFIX)

#define AG_SUFFIX _d
#define AGR double
#define AG_SQRT sqrt
#define AG_EXP exp
#include AG_BODY
#undef AG_SUFFIX
#undef AGR
#undef AG_SQRT
#undef AG_EXP

#define AG_SUFFIX _f
#define AGR float
#define AG_SQRT sqrtf
#define AG_EXP expf
#include AG_BODY
#undef AG_SUFFIX
#undef AGR
#undef AG_SQRT
#undef AG_EXP

#undef AGB
#undef AG_CAT
#undef AG_CAT2
