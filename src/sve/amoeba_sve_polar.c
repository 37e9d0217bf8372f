/* The polarization pair kernel of amoeba/pk in SVE (amoeba_polar_fn; the portable form is
 * polar_pairs_mode in amoeba_polar.c, whose equations these are): over the padded batch of
 * atom i, svcntd() pairs at a time, the Thole-damped kernels B_1..B_4, the partners'
 * moments and dipoles gathered from their rows of rpole and u, and each pair's force on k
 * and torques on i and k; then, as polar_apply does, the force and torque on k added to
 * k's rows by gather, add and scatter over the batch's real pairs (distinct atoms: one
 * neighbour list entry each; the padding is left out), and those on i and the virial summed
 * per lane and across the lanes once per batch.
 *
 * 3-vectors are three svfloat64_t, a##x a##y a##z (amoeba_sve_vec3.h). */
#include "amoeba_sve_vec3.h"

/* Point dipole p at i with the site (ch, d, Q) at k, r = x_k - x_i, kernels b1..b4
 * (dipole_multipole of amoeba_polar.c): the force on k o##f, the torque on the site o##t
 * and, when with_energy, the energy o##e (declared by the caller). */
#define DIPOLE_MULTIPOLE(o, p, ch, d, q, r, with_energy)                                       \
    do {                                                                                       \
        QMUL(qk, q, r);                                                                        \
        QMUL(qkp, q, p);                                                                       \
        const svfloat64_t dir = DOT(p, r), dkr = DOT(d, r), qkr = DOT(qk, r);                  \
        const svfloat64_t dik = DOT(p, d), diqk = DOT(p, qk);                                  \
        const svfloat64_t t2 = MLA(dik, ch, dir);                                              \
        /* t3 = -dir dkr - 2 diqk, t4 = dir qkr */                                             \
        const svfloat64_t t3 = svmls_n_f64_x(pg, svneg_f64_x(pg, MUL(dir, dkr)), diqk, 2.0);   \
        const svfloat64_t t4 = MUL(dir, qkr);                                                  \
        const svfloat64_t de = MLA(MLA(MUL(t2, b2), t3, b3), t4, b4);                          \
        /* g1 = -c b1 + dkr b2 - qkr b3, g2 = dir b2, g3 = 2 b2, g5 = -2 dir b3 */             \
        const svfloat64_t g1 = MLS(MLA(svneg_f64_x(pg, MUL(ch, b1)), dkr, b2), qkr, b3);       \
        const svfloat64_t g2 = MUL(dir, b2), g3 = svmul_n_f64_x(pg, b2, 2.0);                  \
        const svfloat64_t g5 = MUL(svmul_n_f64_x(pg, dir, -2.0), b3);                          \
        /* w = g2 d + g3 Qp + g5 Qr; f = de r + g1 p + w; t = p x (b1 d - g3 Qr) - r x w */    \
        const svfloat64_t wx = MLA(MLA(MUL(g2, d##x), g3, qkp##x), g5, qk##x);                 \
        const svfloat64_t wy = MLA(MLA(MUL(g2, d##y), g3, qkp##y), g5, qk##y);                 \
        const svfloat64_t wz = MLA(MLA(MUL(g2, d##z), g3, qkp##z), g5, qk##z);                 \
        o##fx = svadd_f64_x(pg, MLA(MUL(de, r##x), g1, p##x), wx);                             \
        o##fy = svadd_f64_x(pg, MLA(MUL(de, r##y), g1, p##y), wy);                             \
        o##fz = svadd_f64_x(pg, MLA(MUL(de, r##z), g1, p##z), wz);                             \
        const svfloat64_t vx = MLS(MUL(b1, d##x), g3, qk##x);                                  \
        const svfloat64_t vy = MLS(MUL(b1, d##y), g3, qk##y);                                  \
        const svfloat64_t vz = MLS(MUL(b1, d##z), g3, qk##z);                                  \
        CROSS(pv, p, v);                                                                       \
        CROSS(rw, r, w);                                                                       \
        o##tx = svsub_f64_x(pg, pvx, rwx);                                                     \
        o##ty = svsub_f64_x(pg, pvy, rwy);                                                     \
        o##tz = svsub_f64_x(pg, pvz, rwz);                                                     \
        if (with_energy) o##e = MLA(MLA(MUL(t2, b1), t3, b2), t4, b3);                         \
    } while (0)

/* Point dipoles p at i and q at k under the mutual kernels u1..u3 (dipole_dipole of
 * amoeba_polar.c): the force on k o##f and, when with_energy, the energy o##e (declared
 * by the caller); no torque. */
#define DIPOLE_DIPOLE(o, p, q, with_energy)                                                    \
    do {                                                                                       \
        const svfloat64_t dir = DOT(p, r), dkr = DOT(q, r), dik = DOT(p, q);                   \
        const svfloat64_t dd = MUL(dir, dkr), de = MLS(MUL(dik, u2), dd, u3);                  \
        const svfloat64_t cp = MUL(dkr, u2), cq = MUL(dir, u2);                                \
        o##fx = MLA(MLA(MUL(de, rx), cp, p##x), cq, q##x);                                     \
        o##fy = MLA(MLA(MUL(de, ry), cp, p##y), cq, q##y);                                     \
        o##fz = MLA(MLA(MUL(de, rz), cp, p##z), cq, q##z);                                     \
        if (with_energy) o##e = MLS(MUL(dik, u1), dd, u2);                                     \
    } while (0)

static inline __attribute__((always_inline)) void polar_mode(const amoeba_polar_ctx *c, int i,
                                                             const amoeba_batch *b, int npad,
                                                             double (*f)[3], double (*tq)[3],
                                                             double *vir, double (*vatom)[6],
                                                             const int smooth)
{
    const double *rp = &c->rpole[0][0], *ud = &c->u[0][0];
    const double *pi = c->rpole[i], *ui = c->u[i];
    const size_t cap = (size_t)b->cap;
    double *const sc = b->scratch;
    const int64_t *row = (const int64_t *)(sc + P_ROW * cap);
    const double *dsc = sc + P_DS * cap, *psc = sc + P_PS * cap, *usc = sc + P_US * cap;
    const double *pdk = sc + P_PDAMP * cap, *thk = sc + P_THOLE * cap;
    double *const fx = sc + P_F * cap, *const fy = fx + cap, *const fz = fy + cap;
    double *const fb = &f[0][0], *const tb = &tq[0][0];
    const double hf = c->hf, pdi = c->pdi, thi = c->thi;
    const svfloat64_t zero = svdup_f64(0.0), one = svdup_f64(1.0);
    /* per lane: the force (minus) and torque on i, the virial (off-diagonal ones doubled) */
    svfloat64_t sfx = zero, sfy = zero, sfz = zero, stx = zero, sty = zero, stz = zero;
    svfloat64_t v0 = zero, v1 = zero, v2 = zero, v3 = zero, v4 = zero, v5 = zero;
    for (int j = 0; j < npad; j += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(j, npad);
        const svfloat64_t rx = svld1_f64(pg, b->rx + j), ry = svld1_f64(pg, b->ry + j);
        const svfloat64_t rz = svld1_f64(pg, b->rz + j);
        const svfloat64_t ds = svld1_f64(pg, dsc + j), ps = svld1_f64(pg, psc + j);
        const svfloat64_t us = svld1_f64(pg, usc + j);
        const svfloat64_t rr = svsqrt_f64_x(pg, svld1_f64(pg, b->r2 + j));
        const svfloat64_t ir = svdiv_f64_x(pg, one, rr), ir2 = MUL(ir, ir);
        /* Thole's a and e^-a (amoeba_thole_damp): 0 where undamped */
        const svfloat64_t d = svmul_n_f64_x(pg, svld1_f64(pg, pdk + j), pdi);
        const svfloat64_t u = svdiv_f64_x(pg, rr, d);
        const svfloat64_t au =
            MUL(MUL(MUL(svmin_n_f64_x(pg, svld1_f64(pg, thk + j), thi), u), u), u);
        const svbool_t damped =
            svand_b_z(pg, svcmpne_n_f64(pg, d, 0.0), svcmplt_n_f64(pg, au, AMOEBA_THOLE_FAR));
        const svfloat64_t a = svsel_f64(damped, au, zero);
        const svfloat64_t e = svsel_f64(damped, amoeba_sve_exp_neg(pg, a), zero);
        const svfloat64_t a2 = MUL(a, a), a1 = svadd_n_f64_x(pg, a, 1.0);
        /* l3 = 1 - e, l5 = 1 - e (1 + a), l7 = 1 - e (1 + a + 0.6 a^2),
         * l9 = 1 - e (1 + a + 18/35 a^2 + 9/35 a^3) */
        const svfloat64_t l3 = svsub_f64_x(pg, one, e);
        const svfloat64_t l5 = MLS(one, e, a1);
        const svfloat64_t l7 = MLS(one, e, svmla_n_f64_x(pg, a1, a2, 0.6));
        const svfloat64_t l9a = svmla_n_f64_x(pg, a1, a2, 18.0 / 35.0);
        const svfloat64_t l9 = MLS(one, e, MLA(l9a, svmul_n_f64_x(pg, a2, 9.0 / 35.0), a));
        /* hf/r^3, 3 hf/r^5, 15 hf/r^7, 105 hf/r^9 times the damping factors */
        const svfloat64_t rr3 = MUL(svmul_n_f64_x(pg, ir, hf), ir2);
        const svfloat64_t rr5 = MUL(svmul_n_f64_x(pg, rr3, 3.0), ir2);
        const svfloat64_t rr7 = MUL(svmul_n_f64_x(pg, rr5, 5.0), ir2);
        const svfloat64_t rr9 = MUL(svmul_n_f64_x(pg, rr7, 7.0), ir2);
        const svfloat64_t b1 = MUL(l3, rr3), b2 = MUL(l5, rr5);
        const svfloat64_t b3 = MUL(l7, rr7), b4 = MUL(l9, rr9);
        /* k's and i's dipoles: u_p in the d field, u_d in the p field, one per site */
        const svint64_t k = svld1_s64(pg, row + j);
        const svint64_t o13 = svmul_n_s64_x(pg, k, 13), o6 = svmul_n_s64_x(pg, k, 6);
#define RP(m) svld1_gather_s64index_f64(pg, rp + (m), o13)
#define UD(m) svld1_gather_s64index_f64(pg, ud + (m), o6)
        const svfloat64_t ukdx = UD(0), ukdy = UD(1), ukdz = UD(2);
        const svfloat64_t ukpx = UD(3), ukpy = UD(4), ukpz = UD(5);
        const svfloat64_t dipkx = svmla_f64_x(pg, MUL(ds, ukpx), ps, ukdx);
        const svfloat64_t dipky = svmla_f64_x(pg, MUL(ds, ukpy), ps, ukdy);
        const svfloat64_t dipkz = svmla_f64_x(pg, MUL(ds, ukpz), ps, ukdz);
        const svfloat64_t dipix = svmla_n_f64_x(pg, svmul_n_f64_x(pg, ds, ui[3]), ps, ui[0]);
        const svfloat64_t dipiy = svmla_n_f64_x(pg, svmul_n_f64_x(pg, ds, ui[4]), ps, ui[1]);
        const svfloat64_t dipiz = svmla_n_f64_x(pg, svmul_n_f64_x(pg, ds, ui[5]), ps, ui[2]);
        /* i's dipole with k's moments (k's site from its row, the quadrupole's upper
         * triangle as site_row) */
        svfloat64_t ikfx, ikfy, ikfz, iktx, ikty, iktz, ike = zero;
        {
            SITE_VECTORS(k, RP);
            DIPOLE_MULTIPOLE(ik, dipi, ck, dk, qk, r, smooth);
        }
#undef RP
#undef UD
        /* k's dipole with i's moments: the same kernel seen from k (r -> -r) */
        svfloat64_t kifx, kify, kifz, kitx, kity, kitz, kie = zero;
        {
            const svfloat64_t nrx = svneg_f64_x(pg, rx), nry = svneg_f64_x(pg, ry);
            const svfloat64_t nrz = svneg_f64_x(pg, rz);
#define PI(m) svdup_f64(pi[m])
            SITE_VECTORS(i, PI);
#undef PI
            DIPOLE_MULTIPOLE(ki, dipk, ci, di, qi, nr, smooth);
        }
        /* u_p with u_d under the mutual scale (0 for direct polarization) */
        svfloat64_t pdfx, pdfy, pdfz, pde = zero, dpfx, dpfy, dpfz, dpe = zero;
        {
            const svfloat64_t u1 = MUL(us, b1), u2 = MUL(us, b2), u3 = MUL(us, b3);
            const svfloat64_t uipx = svdup_f64(ui[3]), uipy = svdup_f64(ui[4]);
            const svfloat64_t uipz = svdup_f64(ui[5]), uidx = svdup_f64(ui[0]);
            const svfloat64_t uidy = svdup_f64(ui[1]), uidz = svdup_f64(ui[2]);
            DIPOLE_DIPOLE(pd, uip, ukd, smooth);
            DIPOLE_DIPOLE(dp, uid, ukp, smooth);
        }
        /* (ik - ki) + (pd + dp), as polar_pairs_mode sums them */
#define FRC(c)                                                                                 \
    svadd_f64_x(pg, svsub_f64_x(pg, ikf##c, kif##c), svadd_f64_x(pg, pdf##c, dpf##c))
        svfloat64_t frx = FRC(x), fry = FRC(y), frz = FRC(z);
#undef FRC
        const svfloat64_t en =
            svadd_f64_x(pg, svadd_f64_x(pg, svadd_f64_x(pg, ike, kie), pde), dpe);
        if (smooth) {
            /* S times the force and torques, less e dS/dr r/|r| (polar_pairs_mode) */
            const svfloat64_t x = amoeba_sve_switch_x(pg, rr, c->start, c->inv_width);
            const svfloat64_t sr = amoeba_sve_switch_s(pg, x);
            const svfloat64_t dsdr =
                svmul_n_f64_x(pg, amoeba_sve_switch_dsdx(pg, x), c->inv_width);
            const svfloat64_t ge = MUL(svneg_f64_x(pg, en), MUL(dsdr, ir));
            frx = MLA(MUL(sr, frx), ge, rx);
            fry = MLA(MUL(sr, fry), ge, ry);
            frz = MLA(MUL(sr, frz), ge, rz);
            kitx = MUL(sr, kitx), kity = MUL(sr, kity), kitz = MUL(sr, kitz);
            iktx = MUL(sr, iktx), ikty = MUL(sr, ikty), iktz = MUL(sr, iktz);
        }
        sfx = svadd_f64_m(pg, sfx, frx), sfy = svadd_f64_m(pg, sfy, fry);
        sfz = svadd_f64_m(pg, sfz, frz);
        stx = svadd_f64_m(pg, stx, kitx), sty = svadd_f64_m(pg, sty, kity);
        stz = svadd_f64_m(pg, stz, kitz);
        /* amoeba_pair_virial */
        v0 = svmla_f64_m(pg, v0, rx, frx), v1 = svmla_f64_m(pg, v1, ry, fry);
        v2 = svmla_f64_m(pg, v2, rz, frz);
        v3 = svadd_f64_m(pg, v3, MLA(MUL(ry, frx), rx, fry));
        v4 = svadd_f64_m(pg, v4, MLA(MUL(rz, frx), rx, frz));
        v5 = svadd_f64_m(pg, v5, MLA(MUL(rz, fry), ry, frz));
        /* onto the partners, the real pairs only */
        const svbool_t live = svwhilelt_b64(j, b->n);
        const svint64_t k3 = svmul_n_s64_x(pg, k, 3);
        add_rows(live, fb, 0, k3, frx), add_rows(live, fb, 1, k3, fry);
        add_rows(live, fb, 2, k3, frz);
        add_rows(live, tb, 0, k3, iktx), add_rows(live, tb, 1, k3, ikty);
        add_rows(live, tb, 2, k3, iktz);
        if (vatom)
            svst1_f64(pg, fx + j, frx), svst1_f64(pg, fy + j, fry), svst1_f64(pg, fz + j, frz);
    }
    const svbool_t all = svptrue_b64();
    f[i][0] -= svaddv_f64(all, sfx), f[i][1] -= svaddv_f64(all, sfy);
    f[i][2] -= svaddv_f64(all, sfz);
    tq[i][0] += svaddv_f64(all, stx), tq[i][1] += svaddv_f64(all, sty);
    tq[i][2] += svaddv_f64(all, stz);
    vir[0] += svaddv_f64(all, v0), vir[1] += svaddv_f64(all, v1), vir[2] += svaddv_f64(all, v2);
    vir[3] += 0.5 * svaddv_f64(all, v3), vir[4] += 0.5 * svaddv_f64(all, v4);
    vir[5] += 0.5 * svaddv_f64(all, v5);
    if (vatom)   /* each pair's virial, half to each atom (polar_apply) */
        for (int j = 0; j < b->n; j++) {
            const double r[3] = {b->rx[j], b->ry[j], b->rz[j]}, frc[3] = {fx[j], fy[j], fz[j]};
            double vp[6];
            amoeba_pair_virial(r, frc, vp);
            amoeba_vatom_pair(vatom, i, b->k[j], vp);
        }
}

void amoeba_sve_polar(const amoeba_polar_ctx *c, int i, const amoeba_batch *b, int npad,
                      double (*f)[3], double (*tq)[3], double *vir, double (*vatom)[6])
{
    if (c->smooth)
        polar_mode(c, i, b, npad, f, tq, vir, vatom, 1);
    else
        polar_mode(c, i, b, npad, f, tq, vir, vatom, 0);
}
