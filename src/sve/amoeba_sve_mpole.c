/* The multipole pair kernel of amoeba/pk in SVE (amoeba_mpole_fn; the portable form is
 * mpole_simd_pair and amoeba_mpole_pair in amoeba_mpole.c, whose equations these are: the
 * pair energy E = T1 B_0 + ... + T5 B_4, its force and the torque on k, and in SMOOTH mode
 * the shifted charge-charge term and the switch): over the padded batch of atom i,
 * svcntd() pairs at a time, the partners' moments gathered from their rows of rpole, each
 * pair's energy, force on k and torque on k; then, as mpole_apply does, the force and
 * torque on k added to k's rows by gather, add and scatter over the batch's real pairs
 * (distinct atoms: one neighbour list entry each; the padding is left out), and the
 * energy, virial and force and torque on i summed per lane and across the lanes once per
 * batch.
 *
 * A quadrupole (divided by 3, symmetric) is its six components xx xy xz yy yz zz; 3-vectors
 * are three svfloat64_t (amoeba_sve_vec3.h). */
#include "amoeba_sve_vec3.h"

static inline __attribute__((always_inline)) void mpole_mode(const amoeba_mpole_ctx *c, int i,
                                                             const amoeba_batch *b, int npad,
                                                             double (*f)[3], double (*tq)[3],
                                                             double *eatom, double (*vatom)[6],
                                                             double sums[7], const int smooth)
{
    const double *rp = &c->rpole[0][0], *pi = c->rpole[i];
    const size_t cap = (size_t)b->cap;
    double *const sc = b->scratch;
    const int64_t *row = (const int64_t *)(sc + M_ROW * cap);
    const double *fsc = sc + M_FSCALE * cap;
    double *const pe = sc + M_E * cap;
    double *const fx = sc + M_F * cap, *const fy = fx + cap, *const fz = fy + cap;
    double *const fb = &f[0][0], *const tb = &tq[0][0];
    const int per_atom = eatom || vatom;
    const svfloat64_t one = svdup_f64(1.0), zero = svdup_f64(0.0);
    /* per lane: the energy, force on k and torque on i summed, the virial (off-diagonal
     * ones doubled) */
    svfloat64_t se = zero, sfx = zero, sfy = zero, sfz = zero, stx = zero, sty = zero;
    svfloat64_t stz = zero, v0 = zero, v1 = zero, v2 = zero, v3 = zero, v4 = zero, v5 = zero;
    for (int j = 0; j < npad; j += (int)svcntd()) {
        const svbool_t pg = svwhilelt_b64(j, npad);
        /* i's site, broadcast from memory in each pass (the stores below may alias it, so
         * it is not hoisted into registers, which would crowd out the pair's values) */
#define PI(m) svdup_f64(pi[m])
        SITE_VECTORS(i, PI);
#undef PI
        const svfloat64_t rx = svld1_f64(pg, b->rx + j), ry = svld1_f64(pg, b->ry + j);
        const svfloat64_t rz = svld1_f64(pg, b->rz + j), r2 = svld1_f64(pg, b->r2 + j);
        const svfloat64_t ir = svdiv_f64_x(pg, one, svsqrt_f64_x(pg, r2)), ir2 = MUL(ir, ir);
        const svfloat64_t fs = svld1_f64(pg, fsc + j);
        /* B_0 = fs / r, B_n = (2n - 1) B_n-1 / r^2 */
        const svfloat64_t b0 = MUL(fs, ir), b1 = MUL(b0, ir2);
        const svfloat64_t b2 = MUL(svmul_n_f64_x(pg, b1, 3.0), ir2);
        const svfloat64_t b3 = MUL(svmul_n_f64_x(pg, b2, 5.0), ir2);
        const svfloat64_t b4 = MUL(svmul_n_f64_x(pg, b3, 7.0), ir2);
        const svfloat64_t b5 = MUL(svmul_n_f64_x(pg, b4, 9.0), ir2);
        /* k's site from its row (13 k) */
        const svint64_t o = svld1_s64(pg, row + j);
#define RP(m) svld1_gather_s64index_f64(pg, rp + (m), o)
        SITE_VECTORS(k, RP);
#undef RP
        QMUL(qi, qi, r);   /* Qi r */
        QMUL(qk, qk, r);   /* Qk r */
        const svfloat64_t dir = DOT(di, r), dkr = DOT(dk, r), qir = DOT(qi, r), qkr = DOT(qk, r);
        const svfloat64_t dik = DOT(di, dk), qik = DOT(qi, qk);
        const svfloat64_t diqk = DOT(di, qk), dkqi = DOT(dk, qi);
        /* Qi:Qk */
        const svfloat64_t qoff = MLA(MLA(MUL(qixy, qkxy), qixz, qkxz), qiyz, qkyz);
        const svfloat64_t qq =
            svmla_n_f64_x(pg, MLA(MLA(MUL(qixx, qkxx), qiyy, qkyy), qizz, qkzz), qoff, 2.0);
        const svfloat64_t t1 = MUL(ci, ck);
        /* t2 = ck dir - ci dkr + dik */
        const svfloat64_t t2 = svadd_f64_x(pg, MLS(MUL(ck, dir), ci, dkr), dik);
        /* t3 = ci qkr + ck qir - dir dkr + 2 (dkqi - diqk + qq) */
        const svfloat64_t t3a =
            svmul_n_f64_x(pg, svadd_f64_x(pg, svsub_f64_x(pg, dkqi, diqk), qq), 2.0);
        const svfloat64_t t3 = svadd_f64_x(pg, MLS(MLA(MUL(ci, qkr), ck, qir), dir, dkr), t3a);
        /* t4 = dir qkr - dkr qir - 4 qik, t5 = qir qkr */
        const svfloat64_t t4 = svmls_n_f64_x(pg, MLS(MUL(dir, qkr), dkr, qir), qik, 4.0);
        const svfloat64_t t5 = MUL(qir, qkr);
        svfloat64_t e = MLA(MLA(MLA(MLA(MUL(t1, b0), t2, b1), t3, b2), t4, b3), t5, b4);
        const svfloat64_t de = MLA(MLA(MLA(MLA(MUL(t1, b1), t2, b2), t3, b3), t4, b4), t5, b5);
        /* g1 = -ck B1 + dkr B2 - qkr B3, g2 = ci B1 + dir B2 + qir B3, g3 = 2 B2,
         * g4 = 2 (-ck B2 + dkr B3 - qkr B4), g5 = 2 (-ci B2 - dir B3 - qir B4), g6 = 4 B3 */
        const svfloat64_t g1 = MLS(MLA(svneg_f64_x(pg, MUL(ck, b1)), dkr, b2), qkr, b3);
        const svfloat64_t g2 = MLA(MLA(MUL(ci, b1), dir, b2), qir, b3);
        const svfloat64_t g3 = svmul_n_f64_x(pg, b2, 2.0);
        const svfloat64_t g4 = svmul_n_f64_x(
            pg, MLS(MLA(svneg_f64_x(pg, MUL(ck, b2)), dkr, b3), qkr, b4), 2.0);
        const svfloat64_t g5 = svmul_n_f64_x(
            pg, MLS(MLS(svneg_f64_x(pg, MUL(ci, b2)), dir, b3), qir, b4), 2.0);
        const svfloat64_t g6 = svmul_n_f64_x(pg, b3, 4.0);
        const svfloat64_t ng3 = svneg_f64_x(pg, g3);
        /* u = g3 di + g6 Qi r, U = u + g5 r, W = g6 Qk r - g3 dk + g4 r, p2 = g2 dk */
        const svfloat64_t ux = MLA(MUL(g3, dix), g6, qix), uy = MLA(MUL(g3, diy), g6, qiy);
        const svfloat64_t uz = MLA(MUL(g3, diz), g6, qiz);
        const svfloat64_t uux = MLA(ux, g5, rx), uuy = MLA(uy, g5, ry), uuz = MLA(uz, g5, rz);
        const svfloat64_t wwx = MLA(MLA(MUL(g6, qkx), ng3, dkx), g4, rx);
        const svfloat64_t wwy = MLA(MLA(MUL(g6, qky), ng3, dky), g4, ry);
        const svfloat64_t wwz = MLA(MLA(MUL(g6, qkz), ng3, dkz), g4, rz);
        const svfloat64_t p2x = MUL(g2, dkx), p2y = MUL(g2, dky), p2z = MUL(g2, dkz);
        QMUL(qku, qk, uu);
        QMUL(qiw, qi, ww);
        /* frc = de r + g1 di + p2 + Qk U + Qi W */
#define FRC(c)                                                                                 \
    svadd_f64_x(pg,                                                                            \
                svadd_f64_x(pg, svadd_f64_x(pg, MLA(MUL(de, r##c), g1, di##c), p2##c), qku##c), \
                qiw##c)
        svfloat64_t frx = FRC(x), fry = FRC(y), frz = FRC(z);
#undef FRC
        /* axial(Qi Qk) (amoeba_mpole_pair), times 2 g3 */
        const svfloat64_t axx = MLA(MLA(MLS(MUL(qixy, qkxz), qixz, qkxy),
                                        svsub_f64_x(pg, qiyy, qizz), qkyz),
                                    qiyz, svsub_f64_x(pg, qkzz, qkyy));
        const svfloat64_t axy = MLA(MLA(MLS(MUL(qiyz, qkxy), qixy, qkyz),
                                        svsub_f64_x(pg, qizz, qixx), qkxz),
                                    qixz, svsub_f64_x(pg, qkxx, qkzz));
        const svfloat64_t axz = MLA(MLA(MLS(MUL(qixz, qkyz), qiyz, qkxz),
                                        svsub_f64_x(pg, qixx, qiyy), qkxy),
                                    qixy, svsub_f64_x(pg, qkyy, qkxx));
        const svfloat64_t g3x2 = svmul_n_f64_x(pg, g3, 2.0);
        /* tk = dk x (-B1 di - g3 Qi r) + Qk r x u - r x (p2 + Qk U) + 2 g3 axial */
        const svfloat64_t nb1 = svneg_f64_x(pg, b1);
        const svfloat64_t v1x = MLA(MUL(nb1, dix), ng3, qix), v1y = MLA(MUL(nb1, diy), ng3, qiy);
        const svfloat64_t v1z = MLA(MUL(nb1, diz), ng3, qiz);
        const svfloat64_t v2x = svadd_f64_x(pg, p2x, qkux), v2y = svadd_f64_x(pg, p2y, qkuy);
        const svfloat64_t v2z = svadd_f64_x(pg, p2z, qkuz);
        CROSS(x1, dk, v1);
        CROSS(x2, qk, u);
        CROSS(x3, r, v2);
        svfloat64_t tkx = MLA(svsub_f64_x(pg, svadd_f64_x(pg, x1x, x2x), x3x), g3x2, axx);
        svfloat64_t tky = MLA(svsub_f64_x(pg, svadd_f64_x(pg, x1y, x2y), x3y), g3x2, axy);
        svfloat64_t tkz = MLA(svsub_f64_x(pg, svadd_f64_x(pg, x1z, x2z), x3z), g3x2, axz);
        if (smooth) {
            /* the shifted charge-charge term and the switch (mpole_simd_pair) */
            const svfloat64_t rr = MUL(r2, ir), qqs = MUL(MUL(fs, ci), ck);
            const svfloat64_t es =
                MLS(e, svmul_n_f64_x(pg, qqs, c->iR2), svsubr_n_f64_x(pg, rr, 2.0 * c->R));
            const svfloat64_t x = amoeba_sve_switch_x(pg, rr, c->start, c->iw);
            const svfloat64_t sr = amoeba_sve_switch_s(pg, x);
            const svfloat64_t dsdr = svmul_n_f64_x(pg, amoeba_sve_switch_dsdx(pg, x), c->iw);
            /* radial = -(S qq / R^2 + es dS/dr) / r */
            const svfloat64_t radial = svneg_f64_x(
                pg, MUL(MLA(MUL(es, dsdr), sr, svmul_n_f64_x(pg, qqs, c->iR2)), ir));
            frx = MLA(MUL(sr, frx), radial, rx);
            fry = MLA(MUL(sr, fry), radial, ry);
            frz = MLA(MUL(sr, frz), radial, rz);
            tkx = MUL(sr, tkx), tky = MUL(sr, tky), tkz = MUL(sr, tkz);
            e = MUL(sr, es);
        }
        se = svadd_f64_m(pg, se, e);
        sfx = svadd_f64_m(pg, sfx, frx), sfy = svadd_f64_m(pg, sfy, fry);
        sfz = svadd_f64_m(pg, sfz, frz);
        /* torque on i: -tk - r x frc */
        stx = svsub_f64_m(pg, stx, svadd_f64_x(pg, tkx, MLS(MUL(ry, frz), rz, fry)));
        sty = svsub_f64_m(pg, sty, svadd_f64_x(pg, tky, MLS(MUL(rz, frx), rx, frz)));
        stz = svsub_f64_m(pg, stz, svadd_f64_x(pg, tkz, MLS(MUL(rx, fry), ry, frx)));
        v0 = svmla_f64_m(pg, v0, rx, frx), v1 = svmla_f64_m(pg, v1, ry, fry);
        v2 = svmla_f64_m(pg, v2, rz, frz);
        v3 = svadd_f64_m(pg, v3, MLA(MUL(ry, frx), rx, fry));
        v4 = svadd_f64_m(pg, v4, MLA(MUL(rz, frx), rx, frz));
        v5 = svadd_f64_m(pg, v5, MLA(MUL(rz, fry), ry, frz));
        /* onto the partners, the real pairs only */
        const svbool_t live = svwhilelt_b64(j, b->n);
        const svint64_t k3 = svmul_n_s64_x(pg, svld1sw_s64(pg, b->k + j), 3);
        add_rows(live, fb, 0, k3, frx), add_rows(live, fb, 1, k3, fry);
        add_rows(live, fb, 2, k3, frz);
        add_rows(live, tb, 0, k3, tkx), add_rows(live, tb, 1, k3, tky);
        add_rows(live, tb, 2, k3, tkz);
        if (per_atom) {
            svst1_f64(pg, pe + j, e);
            svst1_f64(pg, fx + j, frx), svst1_f64(pg, fy + j, fry), svst1_f64(pg, fz + j, frz);
        }
    }
    const svbool_t all = svptrue_b64();
    const double vir[6] = {svaddv_f64(all, v0),       svaddv_f64(all, v1),
                           svaddv_f64(all, v2),       0.5 * svaddv_f64(all, v3),
                           0.5 * svaddv_f64(all, v4), 0.5 * svaddv_f64(all, v5)};
    sums[0] = svaddv_f64(all, se);
    for (int q = 0; q < 6; q++) sums[1 + q] = vir[q];
    f[i][0] -= svaddv_f64(all, sfx), f[i][1] -= svaddv_f64(all, sfy);
    f[i][2] -= svaddv_f64(all, sfz);
    tq[i][0] += svaddv_f64(all, stx), tq[i][1] += svaddv_f64(all, sty);
    tq[i][2] += svaddv_f64(all, stz);
    if (per_atom) {   /* half each pair's energy and virial to k, the sums' halves to i */
        for (int j = 0; j < b->n; j++) {
            const int k = b->k[j];
            if (eatom) eatom[k] += 0.5 * pe[j];
            if (vatom) {
                const double r[3] = {b->rx[j], b->ry[j], b->rz[j]};
                const double frc[3] = {fx[j], fy[j], fz[j]};
                double v[6];
                amoeba_pair_virial(r, frc, v);
                for (int q = 0; q < 6; q++) vatom[k][q] += 0.5 * v[q];
            }
        }
        if (eatom) eatom[i] += 0.5 * sums[0];
        if (vatom)
            for (int q = 0; q < 6; q++) vatom[i][q] += 0.5 * vir[q];
    }
}

void amoeba_sve_mpole(const amoeba_mpole_ctx *c, int i, const amoeba_batch *b, int npad,
                      double (*f)[3], double (*tq)[3], double *eatom, double (*vatom)[6],
                      double sums[7])
{
    if (c->smooth)
        mpole_mode(c, i, b, npad, f, tq, eatom, vatom, sums, 1);
    else
        mpole_mode(c, i, b, npad, f, tq, eatom, vatom, sums, 0);
}
