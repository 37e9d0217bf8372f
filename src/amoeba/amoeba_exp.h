/* e^-a for the Thole damping factors, as an inline function that "omp simd" loops
 * vectorise (no call, no table, no branch).
 *
 * Method (Cody & Waite, "Software Manual for the Elementary Functions", 1980, ch. 6;
 * J.-M. Muller, "Elementary Functions", 3rd ed., 2016, sec. 11.3): with x = -a,
 * k = round(x / ln 2) and r = x - k ln 2 (ln 2 split into a high part with trailing zero
 * bits, so k ln2_hi is exact, and a low part), |r| <= ln(2)/2 and e^x = 2^k e^r. e^r is its
 * Taylor polynomial of degree 13 (the remainder r^14/14! < 5e-18 relative), its terms from
 * r^2 on summed by Estrin's scheme (Muller sec. 5.1; short dependency chains). k is
 * rounded by adding 1.5 2^52 (+ 1023, the exponent bias): the sum's low mantissa bits then
 * hold k + 1023, which shifted into the exponent field give 2^k exactly.
 *
 * Valid for 0 <= a < AMOEBA_THOLE_FAR (50; k >= -73 keeps 2^k normal): measured against libm
 * exp within 1 ulp (2.2e-16 relative; tests/unit/amoeba/test_amoeba_exp.c). */
#ifndef AMOEBA_EXP_H
#define AMOEBA_EXP_H

#include <stdint.h>
#include <string.h>

static inline double amoeba_exp_neg(double a)
{
    const double shift = 0x1.8p52 + 1023.0;
    const double ln2_hi = 0x1.62e42fefa3800p-1, ln2_lo = 0x1.ef35793c7673p-45;
    const double t = -a * 0x1.71547652b82fep0 + shift;   /* x log2(e) rounded, + bias */
    const double k = t - shift;
    const double r = (-a - k * ln2_hi) - k * ln2_lo;
    /* e^r = 1 + (r + r^2 P(r)), P = sum_{n=2}^{13} r^(n-2) / n! by Estrin's scheme: six
     * dependent operations instead of Horner's thirteen */
    const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const double q0 = 1.0 / 2 + r * (1.0 / 6), q1 = 1.0 / 24 + r * (1.0 / 120);
    const double q2 = 1.0 / 720 + r * (1.0 / 5040), q3 = 1.0 / 40320 + r * (1.0 / 362880);
    const double q4 = 1.0 / 3628800 + r * (1.0 / 39916800);
    const double q5 = 1.0 / 479001600 + r * (1.0 / 6227020800.0);
    const double s0 = q0 + r2 * q1, s1 = q2 + r2 * q3, s2 = q4 + r2 * q5;
    const double p = 1.0 + (r + r2 * (s0 + r4 * s1 + r8 * s2));
    uint64_t bits;
    memcpy(&bits, &t, sizeof bits);
    bits <<= 52;   /* the low 11 bits, k + 1023, into the exponent field */
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

#endif
