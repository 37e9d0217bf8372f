/* The SVE pair noise over an array of partners, for the test that holds it to the scalar
 * generator bit for bit (the force kernel draws its noise with the same functions). */
#include "mdpd_internal.h"
#include "mdpd_sve_noise.h"

const double pk_mdpd_sve_noise_constants[NOISE_CONSTANTS] = {
    1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7,
    1.0 / 5, 1.0 / 3,
    6.93147180369123816490e-01, 1.90821492927058770002e-10, 1.4142135623730951, 1023.0 + 32,
    PK_TWO_PI, 0x1.0p-32, -2.0,
    -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800, 1.0 / 362880, -1.0 / 5040,
    1.0 / 120, -1.0 / 6,
    1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800,
    1.0 / 40320, -1.0 / 720, 1.0 / 24};

void pk_mdpd_sve_gaussians(uint32_t key, pk_tag tag_i, const pk_tag *tag_j, int n, double *xi)
{
    enum { BLOCK = 256 };
    uint32_t same_i[BLOCK];
    for (int q = 0; q < BLOCK; q++) same_i[q] = (uint32_t)tag_i;
    for (int q0 = 0; q0 < n; q0 += BLOCK)
        pk_mdpd_sve_noise_array(key, same_i, (const uint32_t *)tag_j + q0,
                                n - q0 < BLOCK ? n - q0 : BLOCK, xi + q0);
}
