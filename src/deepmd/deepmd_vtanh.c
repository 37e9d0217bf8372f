/* tanh of an array in plain arithmetic that the compiler vectorises (libm's tanh is one call
 * per element: in the fitting nets it cost as much as a fifth of the matrix products).
 *
 * tanh|z| = -u / (u + 2) with u = expm1(-2|z|), which has no cancellation for small |z|.
 * expm1(y), y in [-40, 0] (|z| is clamped at 20, where tanh rounds to 1): y = k ln2 + r with
 * k = nearest(y / ln2) and |r| <= ln2 / 2 (Cody-Waite: ln2 in two parts, the first with
 * trailing zeros so that k ln2_hi is exact), expm1(r) by its Taylor series to r^14 (the
 * remainder is below 2^-56 of expm1(r) there), then expm1(y) = 2^k expm1(r) + (2^k - 1),
 * where 2^k - 1 is exact and both terms share a sign or the second dominates. The sign of
 * z is put back at the end. Error against libm measured by unit.deepmd_vtanh (a few units
 * in the last place). */
#include <stdint.h>
#include <string.h>

#include "deepmd_internal.h"

void dp_tanh_n(double *z, size_t n)
{
    static const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;
    static const double INV_LN2 = 0x1.71547652b82fep0, SHIFTER = 0x1.8p52;
    for (size_t i = 0; i < n; i++) {
        const double a = fabs(z[i]), x = a > 20.0 ? 20.0 : a, y = -2.0 * x;   /* NaN stays */
        /* k = nearest integer to y / ln2: adding 1.5 * 2^52 rounds to an integer, which
         * then sits in the low bits of the sum */
        const double t = y * INV_LN2 + SHIFTER, k = t - SHIFTER;
        int64_t tb, sb;
        memcpy(&tb, &t, sizeof tb);
        memcpy(&sb, &SHIFTER, sizeof sb);
        /* bits of 2^k, k in [-58, 0] (unsigned: a NaN's garbage k shifts without overflow) */
        const uint64_t e = (uint64_t)(tb - sb + 1023) << 52;
        double p2k;
        memcpy(&p2k, &e, sizeof p2k);
        const double r = (y - k * LN2_HI) - k * LN2_LO;
        /* expm1(r) = r + r^2 (1/2! + r (1/3! + ... + r / 14!)) */
        double q = 1.0 / 87178291200.0;
        q = 1.0 / 6227020800.0 + r * q;
        q = 1.0 / 479001600.0 + r * q;
        q = 1.0 / 39916800.0 + r * q;
        q = 1.0 / 3628800.0 + r * q;
        q = 1.0 / 362880.0 + r * q;
        q = 1.0 / 40320.0 + r * q;
        q = 1.0 / 5040.0 + r * q;
        q = 1.0 / 720.0 + r * q;
        q = 1.0 / 120.0 + r * q;
        q = 1.0 / 24.0 + r * q;
        q = 1.0 / 6.0 + r * q;
        q = 0.5 + r * q;
        const double em1 = r + r * r * q;
        const double u = p2k * em1 + (p2k - 1.0);
        z[i] = copysign(-u / (u + 2.0), z[i]);
    }
}

/* The same in float for the float32 fitting nets: |z| clamped at 10 (1 - tanh 10 = 4e-9 rounds
 * to 1 in float), k in [-29, 0], ln2_hi with 9 trailing zero bits (k ln2_hi exact), and
 * expm1(r) by its Taylor series to r^8 (remainder below 2^-30 of expm1(r) for |r| <=
 * ln2 / 2). Error against libm measured by unit.deepmd_float32. */
void dp_tanh_nf(float *z, size_t n)
{
    static const float LN2_HI = 0x1.62e400p-1f, LN2_LO = 0x1.7f7d1cp-20f;
    static const float INV_LN2 = 0x1.715476p0f, SHIFTER = 0x1.8p23f;
    for (size_t i = 0; i < n; i++) {
        const float a = fabsf(z[i]), x = a > 10.0f ? 10.0f : a, y = -2.0f * x;   /* NaN stays */
        const float t = y * INV_LN2 + SHIFTER, k = t - SHIFTER;
        int32_t tb, sb;
        memcpy(&tb, &t, sizeof tb);
        memcpy(&sb, &SHIFTER, sizeof sb);
        const uint32_t e = (uint32_t)(tb - sb + 127) << 23;   /* bits of 2^k */
        float p2k;
        memcpy(&p2k, &e, sizeof p2k);
        const float r = (y - k * LN2_HI) - k * LN2_LO;
        float q = 1.0f / 40320.0f;
        q = 1.0f / 5040.0f + r * q;
        q = 1.0f / 720.0f + r * q;
        q = 1.0f / 120.0f + r * q;
        q = 1.0f / 24.0f + r * q;
        q = 1.0f / 6.0f + r * q;
        q = 0.5f + r * q;
        const float em1 = r + r * r * q;
        const float u = p2k * em1 + (p2k - 1.0f);
        z[i] = copysignf(-u / (u + 2.0f), z[i]);
    }
}
