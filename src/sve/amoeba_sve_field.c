/* The direct field of amoeba/pk in SVE (amoeba_field_fn; the portable form is pair_kernels
 * and pair_fields_mode in amoeba_induce.c, whose equations these are): over the padded
 * batch of atom i, svcntd() pairs at a time, the Thole-damped kernels, the permanent
 * fields of k's moments at i and of i's at k (Tinker udirect2b), and for mutual
 * polarization the pairs' tensors {s, -b3} and preconditioner blocks. The partners'
 * moments are gathered from their rows of rpole; the fields at the partners are added to
 * their rows of fl by gather, add and scatter over the batch's real pairs (distinct atoms;
 * the padding, all on atom 0, is left out). */
#include <math.h>

#include "amoeba_sve.h"

/* a x + b y + c z with vectors a, b, c and scalars x, y, z, or the other way round */
static inline svfloat64_t lin3_n(svbool_t pg, svfloat64_t a, double x, svfloat64_t b, double y,
                                 svfloat64_t c, double z)
{
    return svmla_n_f64_x(pg, svmla_n_f64_x(pg, svmul_n_f64_x(pg, a, x), b, y), c, z);
}

static inline svfloat64_t lin3(svbool_t pg, svfloat64_t a, svfloat64_t x, svfloat64_t b,
                               svfloat64_t y, svfloat64_t c, svfloat64_t z)
{
    return svmla_f64_x(pg, svmla_f64_x(pg, svmul_f64_x(pg, a, x), b, y), c, z);
}

/* One component of the two fields (d set: ds, p set: ps) of a vector of pairs: e_i =
 * -r gk - b0 dk + 2 b1 Qk r, summed at i (*fd, *fp), and e_k = r gi - b0 di - 2 b1 Qi r,
 * added to the partners' components fdk[6 k] and fdk[6 k + 3] of the real pairs. */
static inline void field_component(svbool_t pg, svbool_t real, svfloat64_t r, svfloat64_t gk,
                                   svfloat64_t gi, svfloat64_t b0, svfloat64_t b1x2,
                                   svfloat64_t dk, double di, svfloat64_t qk, svfloat64_t qi,
                                   svfloat64_t ds, svfloat64_t ps, svfloat64_t *fd,
                                   svfloat64_t *fp, double *fdk, svint64_t frow)
{
    const svfloat64_t ei = svmla_f64_x(
        pg, svmls_f64_x(pg, svneg_f64_x(pg, svmul_f64_x(pg, r, gk)), b0, dk), b1x2, qk);
    const svfloat64_t ek =
        svmls_f64_x(pg, svmls_n_f64_x(pg, svmul_f64_x(pg, r, gi), b0, di), b1x2, qi);
    *fd = svmla_f64_m(pg, *fd, ds, ei);
    *fp = svmla_f64_m(pg, *fp, ps, ei);
    double *const fpk = fdk + 3;
    const svfloat64_t od = svld1_gather_s64index_f64(real, fdk, frow);
    const svfloat64_t op = svld1_gather_s64index_f64(real, fpk, frow);
    svst1_scatter_s64index_f64(real, fdk, frow, svmla_f64_x(real, od, ds, ek));
    svst1_scatter_s64index_f64(real, fpk, frow, svmla_f64_x(real, op, ps, ek));
}

void amoeba_sve_field(const amoeba_field_ctx *c, int i, const amoeba_batch *b, int npad,
                      double fi[6], double (*fl)[6], double *ten)
{
    const double *rp = &c->rpole[0][0], *pi = c->rpole[i];
    const double ci = pi[0], dix = pi[1], diy = pi[2], diz = pi[3];
    const double qxx = pi[4], qxy = pi[5], qxz = pi[6], qyy = pi[8], qyz = pi[9], qzz = pi[12];
    const int smooth = c->sw.on;
    const double sw0 = c->sw.start, inv_width = 1.0 / c->sw.width;
    const size_t cap = (size_t)b->cap;
    const double *sc = b->scratch;
    const double *dsc = sc + S_DSC * cap, *psc = sc + S_PSC * cap, *usc = sc + S_USC * cap;
    const double *polk = sc + S_POL * cap, *spolk = sc + S_SPOL * cap, *tha = sc + S_THOLE * cap;
    double *const pk = b->scratch + S_PX * cap;
    const svfloat64_t zero = svdup_f64(0.0), one = svdup_f64(1.0);
    svfloat64_t fdx = zero, fdy = zero, fdz = zero, fpx = zero, fpy = zero, fpz = zero;
    for (int j = 0; j < npad; j += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(j, npad);
        const svfloat64_t rx = svld1_f64(pg, b->rx + j), ry = svld1_f64(pg, b->ry + j);
        const svfloat64_t rz = svld1_f64(pg, b->rz + j), r2 = svld1_f64(pg, b->r2 + j);
        /* damped kernels: Thole's a and e^-a (0 where undamped), B0 = l3/r^3,
         * B1 = 3 l5/r^5, B2 = 15 l7/r^7 */
        const svfloat64_t rr = svsqrt_f64_x(pg, r2), rr1 = svdiv_f64_x(pg, one, rr);
        const svfloat64_t rr2 = svmul_f64_x(pg, rr1, rr1);
        const svfloat64_t au = svmul_f64_x(pg, svld1_f64(pg, tha + j), svmul_f64_x(pg, r2, rr));
        const svbool_t damped = svcmplt_n_f64(pg, au, AMOEBA_THOLE_FAR);
        const svfloat64_t a = svsel_f64(damped, au, zero);
        const svfloat64_t e = svsel_f64(damped, amoeba_sve_exp_neg(pg, a), zero);
        const svfloat64_t rr3 = svmul_f64_x(pg, rr2, rr1);
        const svfloat64_t rr5 = svmul_f64_x(pg, svmul_n_f64_x(pg, rr2, 3.0), rr3);
        const svfloat64_t rr7 = svmul_f64_x(pg, svmul_n_f64_x(pg, rr2, 5.0), rr5);
        const svfloat64_t a1 = svadd_n_f64_x(pg, a, 1.0);
        const svfloat64_t a2 = svmla_f64_x(pg, a1, svmul_n_f64_x(pg, a, 0.6), a);
        const svfloat64_t b0 = svmul_f64_x(pg, svsub_f64_x(pg, one, e), rr3);
        const svfloat64_t b1 = svmul_f64_x(pg, svmls_f64_x(pg, one, e, a1), rr5);
        const svfloat64_t b2 = svmul_f64_x(pg, svmls_f64_x(pg, one, e, a2), rr7);
        /* the field and T_ik only within polar_cut (a preconditioner pair may be farther
         * in LAMMPS mode); in SMOOTH mode they and the preconditioner block carry S(r) */
        const svfloat64_t in = svsel_f64(svcmple_n_f64(pg, r2, c->off2), one, zero);
        svfloat64_t sr = one;
        if (smooth)
            sr = svmul_f64_x(pg, in, amoeba_sve_switch_s(
                                         pg, amoeba_sve_switch_x(pg, rr, sw0, inv_width)));
        const svfloat64_t fm = smooth ? sr : in;
        /* k's moments, gathered from its rpole row: components 0..6, 8, 9, 12 (the
         * quadrupole's upper triangle) */
        const svint64_t row = svmul_n_s64_x(pg, svld1sw_s64(pg, b->k + j), 13);
        const svfloat64_t ck = svld1_gather_s64index_f64(pg, rp, row);
        const svfloat64_t dkx = svld1_gather_s64index_f64(pg, rp + 1, row);
        const svfloat64_t dky = svld1_gather_s64index_f64(pg, rp + 2, row);
        const svfloat64_t dkz = svld1_gather_s64index_f64(pg, rp + 3, row);
        const svfloat64_t kxx = svld1_gather_s64index_f64(pg, rp + 4, row);
        const svfloat64_t kxy = svld1_gather_s64index_f64(pg, rp + 5, row);
        const svfloat64_t kxz = svld1_gather_s64index_f64(pg, rp + 6, row);
        const svfloat64_t kyy = svld1_gather_s64index_f64(pg, rp + 8, row);
        const svfloat64_t kyz = svld1_gather_s64index_f64(pg, rp + 9, row);
        const svfloat64_t kzz = svld1_gather_s64index_f64(pg, rp + 12, row);
        const svfloat64_t qix = lin3_n(pg, rx, qxx, ry, qxy, rz, qxz);
        const svfloat64_t qiy = lin3_n(pg, rx, qxy, ry, qyy, rz, qyz);
        const svfloat64_t qiz = lin3_n(pg, rx, qxz, ry, qyz, rz, qzz);
        const svfloat64_t qkx = lin3(pg, kxx, rx, kxy, ry, kxz, rz);
        const svfloat64_t qky = lin3(pg, kxy, rx, kyy, ry, kyz, rz);
        const svfloat64_t qkz = lin3(pg, kxz, rx, kyz, ry, kzz, rz);
        const svfloat64_t dir = lin3_n(pg, rx, dix, ry, diy, rz, diz);
        const svfloat64_t dkr = lin3(pg, dkx, rx, dky, ry, dkz, rz);
        const svfloat64_t qir = lin3(pg, qix, rx, qiy, ry, qiz, rz);
        const svfloat64_t qkr = lin3(pg, qkx, rx, qky, ry, qkz, rz);
        /* gk = b0 ck - b1 dk.r + b2 r.Qk.r, gi = b0 ci + b1 di.r + b2 r.Qi.r */
        const svfloat64_t gk = svmla_f64_x(
            pg, svmls_f64_x(pg, svmul_f64_x(pg, b0, ck), b1, dkr), b2, qkr);
        const svfloat64_t gi = svmla_f64_x(
            pg, svmla_f64_x(pg, svmul_n_f64_x(pg, b0, ci), b1, dir), b2, qir);
        const svfloat64_t b1x2 = svmul_n_f64_x(pg, b1, 2.0);
        const svfloat64_t ds = svmul_f64_x(pg, fm, svld1_f64(pg, dsc + j));
        const svfloat64_t ps = svmul_f64_x(pg, fm, svld1_f64(pg, psc + j));
        /* the partners' rows of fl: 6 k (the batch's real pairs are distinct atoms) */
        const svbool_t real = svwhilelt_b64(j, b->n);
        const svint64_t frow = svmul_n_s64_x(pg, svld1sw_s64(pg, b->k + j), 6);
        double *const f0 = &fl[0][0];
        field_component(pg, real, rx, gk, gi, b0, b1x2, dkx, dix, qkx, qix, ds, ps, &fdx, &fpx,
                        f0, frow);
        field_component(pg, real, ry, gk, gi, b0, b1x2, dky, diy, qky, qiy, ds, ps, &fdy, &fpy,
                        f0 + 1, frow);
        field_component(pg, real, rz, gk, gi, b0, b1x2, dkz, diz, qkz, qiz, ds, ps, &fdz, &fpz,
                        f0 + 2, frow);
        if (!ten) continue;
        /* T_ik = b5 r r^T - b3 I with b3 = S u l3 / r^3, b5 = S u 3 l5 / r^5, stored as
         * {s = sqrt(b5) r, -b3} in the groups of four (0 beyond polar_cut); the
         * preconditioner block alpha_i alpha_k T_ik, its s sqrt(alpha_i alpha_k) times T's */
        const svfloat64_t us = svmul_f64_x(pg, sr, svld1_f64(pg, usc + j));
        const svfloat64_t b5 = svmul_f64_x(pg, us, b1);
        const svfloat64_t q = svsel_f64(svcmpgt_n_f64(pg, b5, 0.0), svsqrt_f64_x(pg, b5), zero);
        const svfloat64_t inq = svmul_f64_x(pg, in, q), usb0 = svmul_f64_x(pg, us, b0);
        const svuint64_t ti = amoeba_sve_tensor_index(pg, (uint64_t)j);
        svst1_scatter_u64index_f64(pg, ten, ti, svmul_f64_x(pg, inq, rx));
        svst1_scatter_u64index_f64(pg, ten + 4, ti, svmul_f64_x(pg, inq, ry));
        svst1_scatter_u64index_f64(pg, ten + 8, ti, svmul_f64_x(pg, inq, rz));
        svst1_scatter_u64index_f64(pg, ten + 12, ti, svneg_f64_x(pg, svmul_f64_x(pg, in, usb0)));
        const svfloat64_t qp = svmul_f64_x(pg, q, svld1_f64(pg, spolk + j));
        svst1_f64(pg, pk + j, svmul_f64_x(pg, qp, rx));
        svst1_f64(pg, pk + cap + j, svmul_f64_x(pg, qp, ry));
        svst1_f64(pg, pk + 2 * cap + j, svmul_f64_x(pg, qp, rz));
        const svfloat64_t pb = svmul_f64_x(pg, usb0, svld1_f64(pg, polk + j));
        svst1_f64(pg, pk + 3 * cap + j, svneg_f64_x(pg, pb));
    }
    const svbool_t all = svptrue_b64();
    fi[0] += svaddv_f64(all, fdx);
    fi[1] += svaddv_f64(all, fdy);
    fi[2] += svaddv_f64(all, fdz);
    fi[3] += svaddv_f64(all, fpx);
    fi[4] += svaddv_f64(all, fpy);
    fi[5] += svaddv_f64(all, fpz);
}
