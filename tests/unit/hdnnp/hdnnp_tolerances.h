/* Tolerances of the hdnnp/pk backend tests against the cpu backend. */
#ifndef HDNNP_TOLERANCES_H
#define HDNNP_TOLERANCES_H

/* Double precision: a backend may sum neighbours, centres and threads in another order,
 * which moves results by round-off (~1e-15 relative per sum); 1e-10 leaves room for that
 * and still catches any wrong term. Elements near zero (cancelling force components,
 * off-diagonal virials) are measured against AGREE_FLOOR times the largest of their array. */
static const double AGREE_RTOL = 1e-10;
static const double AGREE_FLOOR = 1e-3;
/* Precision mixed of the cuda backend (float per-pair arithmetic, double sums). Measured by
 * test_hdnnp_gpu_emul over all its cases (block kernels, 128 and 5 threads a block): energy
 * 2.4e-7, per-atom energy 1.7e-6, virial 3.2e-5, per-atom virial 6.3e-4, forces 1.7e-3.
 * Forces and virials are sums of many pair terms each rounded to ~1e-7 that cancel to a
 * small net value: 6.3e-4 on the water with every atom a centre, 1.7e-3 with a third of
 * them, against the floor of 1e-3 of the largest force, i.e. ~2e-6 of the largest force. 5e-3 leaves room for the device's float
 * functions (expf, acosf: 1-2 ulp) and FMA contraction. */
static const double HDG_MIXED_RTOL = 5e-3;

#endif
