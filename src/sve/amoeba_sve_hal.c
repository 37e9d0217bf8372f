/* The HAL pair kernel of amoeba/pk in SVE (amoeba_hal_fn; the portable form is the pair
 * loop of pk_amoeba_hal in amoeba_hal.c, whose equations these are): over the padded batch
 * of sites, svcntd() pairs at a time, the buffered 14-7 energy
 * E = eps tau^7 rv^7 ((1 + g) s7 - 2), s7 = rv^7 / (r^7 + g rv^7), tau = (1 + d) / (r + d rv),
 * its radial derivative and the taper S(r) beyond its start; each pair's energy and the
 * force on k's site stored into the batch's result arrays, the energies summed per lane and
 * across the lanes at the end. The portable driver adds the forces to the sites. */
#include "amoeba_sve.h"

double amoeba_sve_hal(const amoeba_hal_ctx *c, const amoeba_batch *b, int npad)
{
    const size_t cap = (size_t)b->cap;
    const double *rvs = b->scratch + H_RV * cap, *epss = b->scratch + H_EPS * cap;
    double *const en = b->scratch + H_E * cap, *const gx = b->scratch + H_GX * cap;
    double *const gy = b->scratch + H_GY * cap, *const gz = b->scratch + H_GZ * cap;
    const double dh = c->dhal, gh = c->ghal, cut2 = c->taper.cut2;
    const double *tc = c->taper.c;
    const svfloat64_t one = svdup_f64(1.0), zero = svdup_f64(0.0);
    svfloat64_t esum = zero;
    for (int j = 0; j < npad; j += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(j, npad);
        const svfloat64_t r2 = svld1_f64(pg, b->r2 + j), v = svld1_f64(pg, rvs + j);
        const svfloat64_t eps = svld1_f64(pg, epss + j);
        const svfloat64_t r = svsqrt_f64_x(pg, r2);
        const svfloat64_t rv2 = svmul_f64_x(pg, v, v);
        const svfloat64_t rv7 = svmul_f64_x(pg, svmul_f64_x(pg, svmul_f64_x(pg, rv2, rv2), rv2), v);
        const svfloat64_t r6 = svmul_f64_x(pg, svmul_f64_x(pg, r2, r2), r2);
        /* s7 = rv^7 / (r^6 r + g rv^7), 1/a = 1 / (r + d rv), tau = (d + 1) / a */
        const svfloat64_t s7 =
            svdiv_f64_x(pg, rv7, svmla_n_f64_x(pg, svmul_f64_x(pg, r6, r), rv7, gh));
        const svfloat64_t inv_a = svdiv_f64_x(pg, one, svmla_n_f64_x(pg, r, v, dh));
        const svfloat64_t tau = svmul_n_f64_x(pg, inv_a, dh + 1.0);
        const svfloat64_t tau2 = svmul_f64_x(pg, tau, tau);
        const svfloat64_t tau7 =
            svmul_f64_x(pg, svmul_f64_x(pg, svmul_f64_x(pg, tau2, tau2), tau2), tau);
        const svfloat64_t et = svmul_f64_x(pg, eps, tau7);
        const svfloat64_t e = svmul_f64_x(pg, svmul_f64_x(pg, et, rv7),
                                          svmad_n_f64_x(pg, s7, svdup_f64(gh + 1.0), -2.0));
        /* dE/dr = -7 (e / a + eps tau^7 r^6 (g + 1) s7^2) */
        const svfloat64_t d2 = svmul_f64_x(
            pg, svmul_f64_x(pg, svmul_n_f64_x(pg, svmul_f64_x(pg, et, r6), gh + 1.0), s7), s7);
        const svfloat64_t de = svmul_n_f64_x(pg, svmla_f64_x(pg, d2, inv_a, e), -7.0);
        /* the taper beyond its start (S = 1, dS/dr = 0 inside) */
        svfloat64_t sw = one, dsw = zero;
        const svbool_t tapered = svcmpgt_n_f64(pg, r2, cut2);
        if (svptest_any(pg, tapered)) {
            svfloat64_t s = svdup_f64(tc[5]), ds = svdup_f64(5.0 * tc[5]);
            for (int n = 4; n >= 1; n--) {
                s = svmad_n_f64_x(pg, s, r, tc[n]);
                ds = svmad_n_f64_x(pg, ds, r, (double)n * tc[n]);
            }
            s = svmad_n_f64_x(pg, s, r, tc[0]);
            sw = svsel_f64(tapered, s, one);
            dsw = svsel_f64(tapered, ds, zero);
        }
        /* force on site k: -(dE/dr S + E dS/dr) r / |r| */
        const svfloat64_t gr =
            svdiv_f64_x(pg, svmla_f64_x(pg, svmul_f64_x(pg, de, sw), e, dsw), r);
        const svfloat64_t ng = svneg_f64_x(pg, gr);
        const svfloat64_t es = svmul_f64_x(pg, e, sw);
        svst1_f64(pg, en + j, es);
        svst1_f64(pg, gx + j, svmul_f64_x(pg, ng, svld1_f64(pg, b->rx + j)));
        svst1_f64(pg, gy + j, svmul_f64_x(pg, ng, svld1_f64(pg, b->ry + j)));
        svst1_f64(pg, gz + j, svmul_f64_x(pg, ng, svld1_f64(pg, b->rz + j)));
        esum = svadd_f64_m(pg, esum, es);
    }
    return svaddv_f64(svptrue_b64(), esum);
}
