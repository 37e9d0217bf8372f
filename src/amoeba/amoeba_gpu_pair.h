/* The HAL and permanent-multipole pair terms of amoeba/pk as one thread of the CUDA backend
 * computes them, written once for the device and the host test (PK_HD, DESIGN.md §8).
 *
 * Gather design (as mdpd_gather.h): the host turns the step's half pairs into a full list
 * over owned and ghost atoms (amoeba_gpu.c), each pair once in each of its atoms' rows, in
 * the order of the half list. One thread owns one atom and sums every pair of its row with
 * itself as "i": the force, torque, half the pair energy and half the pair virial on its own
 * atom. Every output has one writer and a fixed order, so reruns give the same bits without
 * atomics; each pair is computed twice, once from each side.
 *
 * The arithmetic is the cpu backend's (amoeba_hal.c, amoeba_mpole.c), scalar: the same
 * equations, evaluated per pair rather than in SIMD lanes and summed in another order, so
 * the results agree with the cpu backend to round-off (the agreement test's 1e-10). */
#ifndef AMOEBA_GPU_PAIR_H
#define AMOEBA_GPU_PAIR_H

#include <math.h>
#include <stddef.h>

#include "pk_hd.h"

/* A full-list entry: partner index | special class << AMOEBA_GPU_CLASS_SHIFT (the layout of
 * pk_amoeba_list: class 0 none, 1..4 for 1-2..1-5). */
#define AMOEBA_GPU_CLASS_SHIFT 29
#define AMOEBA_GPU_INDEX_MASK 0x1FFFFFFF

/* One atom's results, AG_OUT doubles: force (3), torque (3, multipoles only), half its
 * pairs' energy, half their virial (LAMMPS order xx yy zz xy xz yz). */
enum { AG_F = 0, AG_T = 3, AG_E = 6, AG_V = 7, AG_OUT = 13 };

/* The full list in CSR form: atom a's entries are entry[offset[a] .. offset[a + 1]). */
typedef struct {
    const int *offset, *entry;
} amoeba_gpu_list;

/* ---- HAL (amoeba_hal.c) ------------------------------------------------------------------ */

/* What a HAL thread reads: the list of site pairs within vdw_cut, the H-reduced sites (3
 * doubles per atom), each atom's vdW class, the mixed R_min and epsilon tables (ncls x ncls),
 * the 1-n scales, the taper (S = 1 below cut2, sum c_k r^k above) and the buffer constants. */
typedef struct {
    amoeba_gpu_list list;
    const double *site;
    const int *cls;
    const double *radmin, *epsmix;
    int ncls;
    double vdw_scale[5];
    double cut2, c[6];
    double dhal, ghal;
} amoeba_gpu_hal;

/* Atom a's HAL results: the force on its site (the host shares it between an H and its
 * partner), half its pairs' tapered energy and virial. */
PK_HD void amoeba_gpu_hal_atom(const amoeba_gpu_hal *g, int a, double out[AG_OUT])
{
    for (int c = 0; c < AG_OUT; c++) out[c] = 0.0;
    const double *sa = g->site + 3 * (size_t)a;
    const int ca = g->cls[a];
    const double dh = g->dhal, gh = g->ghal;
    const double *c = g->c;
    for (int e = g->list.offset[a]; e < g->list.offset[a + 1]; e++) {
        const int ent = g->list.entry[e], k = ent & AMOEBA_GPU_INDEX_MASK;
        const int sc = (int)((unsigned)ent >> AMOEBA_GPU_CLASS_SHIFT);
        const double *sk = g->site + 3 * (size_t)k;
        const double rx = sk[0] - sa[0], ry = sk[1] - sa[1], rz = sk[2] - sa[2];
        const double r2 = rx * rx + ry * ry + rz * rz, r = sqrt(r2);
        const int t = ca * g->ncls + g->cls[k];
        const double v = g->radmin[t], eps = g->epsmix[t] * g->vdw_scale[sc];
        /* E = eps tau^7 rv^7 ((1+g) s7 - 2), tau = (1+d) / (r + d rv),
         * s7 = rv^7 / (r^7 + g rv^7) (amoeba_hal.c) */
        const double rv2 = v * v, rv7 = rv2 * rv2 * rv2 * v;
        const double r6 = r2 * r2 * r2;
        const double s7 = rv7 / (r6 * r + gh * rv7), inv_a = 1.0 / (r + dh * v);
        const double tau = (dh + 1.0) * inv_a;
        const double tau2 = tau * tau, tau7 = tau2 * tau2 * tau2 * tau;
        const double en = eps * tau7 * rv7 * ((gh + 1.0) * s7 - 2.0);
        const double de = -7.0 * (inv_a * en + eps * tau7 * r6 * (gh + 1.0) * s7 * s7);
        double sw = 1.0, gr = de / r;
        if (r2 > g->cut2) {   /* the 5th-order taper S(r) and dS/dr (amoeba_taper_eval) */
            const double dsw =
                (((5.0 * c[5] * r + 4.0 * c[4]) * r + 3.0 * c[3]) * r + 2.0 * c[2]) * r + c[1];
            sw = ((((c[5] * r + c[4]) * r + c[3]) * r + c[2]) * r + c[1]) * r + c[0];
            gr = (en * dsw + de * sw) / r;
        }
        /* the force on k's site is -gr r; a's is +gr r */
        const double gx = -gr * rx, gy = -gr * ry, gz = -gr * rz;
        out[AG_F + 0] -= gx;
        out[AG_F + 1] -= gy;
        out[AG_F + 2] -= gz;
        out[AG_E] += 0.5 * (en * sw);
        out[AG_V + 0] += 0.5 * (rx * gx);
        out[AG_V + 1] += 0.5 * (ry * gy);
        out[AG_V + 2] += 0.5 * (rz * gz);
        out[AG_V + 3] += 0.5 * (rx * gy);
        out[AG_V + 4] += 0.5 * (rx * gz);
        out[AG_V + 5] += 0.5 * (ry * gz);
    }
}

/* ---- permanent multipoles (amoeba_mpole.c) ---------------------------------------------- */

/* What a multipole thread reads: the list of pairs within mpole_cut, positions (3 doubles
 * per atom), the global-frame multipoles (13 per atom, pk_amoeba_rotate's rows), the Coulomb
 * constant times the 1-n scale by class, and the SMOOTH mode's cutoff R, 1/R^2 and switch
 * (x = (r - start) iw clamped at 0). */
typedef struct {
    amoeba_gpu_list list;
    const double *x, *rpole;
    double fscale[5];
    double R, iR2, start, iw;
    int smooth;
} amoeba_gpu_mpole;

/* A site's charge, dipole and the six distinct quadrupole components xx xy xz yy yz zz. */
typedef struct {
    double c, d[3], q[6];
} amoeba_gpu_site;

PK_HD amoeba_gpu_site amoeba_gpu_site_of(const double *p)
{
    amoeba_gpu_site s = {p[0], {p[1], p[2], p[3]}, {p[4], p[5], p[6], p[8], p[9], p[12]}};
    return s;
}

/* out = Q v for the symmetric Q of six components */
PK_HD void amoeba_gpu_qmul(const double *q, const double v[3], double out[3])
{
    out[0] = q[0] * v[0] + q[1] * v[1] + q[2] * v[2];
    out[1] = q[1] * v[0] + q[3] * v[1] + q[4] * v[2];
    out[2] = q[2] * v[0] + q[4] * v[1] + q[5] * v[2];
}

PK_HD double amoeba_gpu_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

PK_HD void amoeba_gpu_cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Half of a pair's virial r (x) f, r = x_k - x_i and f the force on k (xx yy zz xy xz yz,
 * the off-diagonal terms symmetrised), added to v: each atom of the pair counts one half,
 * as the cpu kernels tally it. */
PK_HD void amoeba_gpu_half_virial(const double r[3], const double f[3], double v[6])
{
    v[0] += 0.5 * (r[0] * f[0]);
    v[1] += 0.5 * (r[1] * f[1]);
    v[2] += 0.5 * (r[2] * f[2]);
    v[3] += 0.5 * (0.5 * (r[1] * f[0] + r[0] * f[1]));
    v[4] += 0.5 * (0.5 * (r[2] * f[0] + r[0] * f[2]));
    v[5] += 0.5 * (0.5 * (r[2] * f[1] + r[1] * f[2]));
}

/* One pair i, k (r = x_k - x_i, radial kernels b[n] = (2n-1)!! fscale / r^(2n+1)): the
 * energy, the force on k and the torque on k — the "term" form of Ren & Ponder 2003,
 * eq. 5-7, and Tinker's emreal1d torques, as amoeba_mpole_pair derives them. */
PK_HD double amoeba_gpu_mpole_pair(const amoeba_gpu_site *si, const amoeba_gpu_site *sk,
                                   const double r[3], const double b[6], double frc[3],
                                   double tk[3])
{
    const double *di = si->d, *dk = sk->d, *a = si->q, *c = sk->q;
    double qi[3], qk[3];
    amoeba_gpu_qmul(a, r, qi);
    amoeba_gpu_qmul(c, r, qk);
    const double dir = amoeba_gpu_dot(di, r), dkr = amoeba_gpu_dot(dk, r);
    const double qir = amoeba_gpu_dot(qi, r), qkr = amoeba_gpu_dot(qk, r);
    const double dik = amoeba_gpu_dot(di, dk), qik = amoeba_gpu_dot(qi, qk);
    const double diqk = amoeba_gpu_dot(di, qk), dkqi = amoeba_gpu_dot(dk, qi);
    const double qq = a[0] * c[0] + a[3] * c[3] + a[5] * c[5] +
                      2.0 * (a[1] * c[1] + a[2] * c[2] + a[4] * c[4]);   /* Qi:Qk */
    const double t1 = si->c * sk->c;
    const double t2 = sk->c * dir - si->c * dkr + dik;
    const double t3 = si->c * qkr + sk->c * qir - dir * dkr + 2.0 * (dkqi - diqk + qq);
    const double t4 = dir * qkr - dkr * qir - 4.0 * qik;
    const double t5 = qir * qkr;
    const double e = t1 * b[0] + t2 * b[1] + t3 * b[2] + t4 * b[3] + t5 * b[4];
    /* -dE/dr = de r + g1 di + g2 dk + Qk U + Qi W (amoeba_mpole.c) */
    const double de = t1 * b[1] + t2 * b[2] + t3 * b[3] + t4 * b[4] + t5 * b[5];
    const double g1 = -sk->c * b[1] + dkr * b[2] - qkr * b[3];
    const double g2 = si->c * b[1] + dir * b[2] + qir * b[3];
    const double g3 = 2.0 * b[2];
    const double g4 = 2.0 * (-sk->c * b[2] + dkr * b[3] - qkr * b[4]);
    const double g5 = 2.0 * (-si->c * b[2] - dir * b[3] - qir * b[4]);
    const double g6 = 4.0 * b[3];
    double u[3], uu[3], ww[3], qku[3], qiw[3], p2[3];
    for (int d = 0; d < 3; d++) {
        u[d] = g3 * di[d] + g6 * qi[d];
        uu[d] = u[d] + g5 * r[d];
        ww[d] = g6 * qk[d] - g3 * dk[d] + g4 * r[d];
        p2[d] = g2 * dk[d];
    }
    amoeba_gpu_qmul(c, uu, qku);
    amoeba_gpu_qmul(a, ww, qiw);
    for (int d = 0; d < 3; d++) frc[d] = de * r[d] + g1 * di[d] + p2[d] + qku[d] + qiw[d];
    /* tk = dk x (-B1 di - g3 Qi r) + Qk r x u + 2 g3 axial(Qi Qk) - r x (g2 dk + Qk U) */
    const double ax[3] = {a[1] * c[2] - a[2] * c[1] + (a[3] - a[5]) * c[4] + a[4] * (c[5] - c[3]),
                          a[4] * c[1] - a[1] * c[4] + (a[5] - a[0]) * c[2] + a[2] * (c[0] - c[5]),
                          a[2] * c[4] - a[4] * c[2] + (a[0] - a[3]) * c[1] + a[1] * (c[3] - c[0])};
    double v1[3], v2[3], x1[3], x2[3], x3[3];
    for (int d = 0; d < 3; d++) {
        v1[d] = -b[1] * di[d] - g3 * qi[d];
        v2[d] = p2[d] + qku[d];
    }
    amoeba_gpu_cross(dk, v1, x1);
    amoeba_gpu_cross(qk, u, x2);
    amoeba_gpu_cross(r, v2, x3);
    for (int d = 0; d < 3; d++) tk[d] = x1[d] + x2[d] - x3[d] + 2.0 * g3 * ax[d];
    return e;
}

/* Atom a's multipole results: with itself as i, each pair's force on i (-frc), torque on i
 * (-tk - r x frc: the pair's energy is invariant under rotating it as a whole), half the
 * energy and half the virial r (x) frc, symmetrised. In SMOOTH mode the charge-charge part
 * is shifted, qq/r -> qq (1/r - 1/R + (r - R)/R^2), and the whole pair switched by S(r)
 * (amoeba_mpole.c, mpole_simd_pair). */
PK_HD void amoeba_gpu_mpole_atom(const amoeba_gpu_mpole *g, int a, double out[AG_OUT])
{
    for (int c = 0; c < AG_OUT; c++) out[c] = 0.0;
    const double *xa = g->x + 3 * (size_t)a;
    const amoeba_gpu_site si = amoeba_gpu_site_of(g->rpole + 13 * (size_t)a);
    for (int e = g->list.offset[a]; e < g->list.offset[a + 1]; e++) {
        const int ent = g->list.entry[e], k = ent & AMOEBA_GPU_INDEX_MASK;
        const int sc = (int)((unsigned)ent >> AMOEBA_GPU_CLASS_SHIFT);
        const double *xk = g->x + 3 * (size_t)k;
        const amoeba_gpu_site sk = amoeba_gpu_site_of(g->rpole + 13 * (size_t)k);
        const double r[3] = {xk[0] - xa[0], xk[1] - xa[1], xk[2] - xa[2]};
        const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        const double ir = 1.0 / sqrt(r2), ir2 = ir * ir, fs = g->fscale[sc];
        double bn[6], frc[3], tk[3];
        bn[0] = fs * ir;
        for (int n = 1; n < 6; n++) bn[n] = (2 * n - 1) * bn[n - 1] * ir2;
        double en = amoeba_gpu_mpole_pair(&si, &sk, r, bn, frc, tk);
        if (g->smooth) {
            const double rr = r2 * ir, qq = fs * si.c * sk.c;
            const double es = en - qq * (2.0 * g->R - rr) * g->iR2;
            const double xs = (rr - g->start) * g->iw, x = xs > 0.0 ? xs : 0.0;
            const double sr = 1.0 - x * x * x * (10.0 - x * (15.0 - 6.0 * x));
            const double y = 1.0 - x, dsdr = -30.0 * x * x * y * y * g->iw;
            const double radial = -(sr * qq * g->iR2 + es * dsdr) * ir;
            for (int d = 0; d < 3; d++) {
                frc[d] = sr * frc[d] + radial * r[d];
                tk[d] *= sr;
            }
            en = sr * es;
        }
        double rxf[3];
        amoeba_gpu_cross(r, frc, rxf);
        for (int d = 0; d < 3; d++) {
            out[AG_F + d] -= frc[d];
            out[AG_T + d] -= tk[d] + rxf[d];
        }
        out[AG_E] += 0.5 * en;
        amoeba_gpu_half_virial(r, frc, out + AG_V);
    }
}

/* ---- polarization forces (amoeba_polar.c) ------------------------------------------------ */

/* What a polarization thread reads: the list of pairs within polar_cut, positions,
 * multipoles, the induced dipoles (6 per atom, d then p set), each atom's type and
 * polarization group, the types' pdamp and Thole parameters, and the scales: d = same group
 * ? direct-11 : 1, p = same ? polar-intra : polar-scale (by class), u = same ? u11 : u1
 * (both 0 for direct polarization); hf = 1/2 the electric constant over the dielectric; the
 * SMOOTH switch x = (r - start) inv_width. */
typedef struct {
    amoeba_gpu_list list;
    const double *x, *rpole, *u;
    const int *amtype, *amgroup;
    const double *pdamp, *thole;
    double intra[5], pscale[5];
    double d11, u11, u1, hf, start, inv_width;
    int smooth;
} amoeba_gpu_polar;

/* A point dipole p at i with the multipole site m at k (r = x_k - x_i), kernels b[0..3] =
 * B_1..B_4: the force on k, the torque on k's site, the energy (amoeba_polar.c,
 * dipole_multipole). */
PK_HD double amoeba_gpu_dipole_multipole(const double p[3], const amoeba_gpu_site *m,
                                         const double r[3], const double b[4], double f[3],
                                         double t[3])
{
    double qk[3], qkp[3];
    amoeba_gpu_qmul(m->q, r, qk);
    amoeba_gpu_qmul(m->q, p, qkp);
    const double dir = amoeba_gpu_dot(p, r), dkr = amoeba_gpu_dot(m->d, r);
    const double qkr = amoeba_gpu_dot(qk, r), dik = amoeba_gpu_dot(p, m->d);
    const double diqk = amoeba_gpu_dot(p, qk);
    const double t2 = m->c * dir + dik, t3 = -dir * dkr - 2.0 * diqk, t4 = dir * qkr;
    const double de = t2 * b[1] + t3 * b[2] + t4 * b[3];
    const double g1 = -m->c * b[0] + dkr * b[1] - qkr * b[2];
    const double g2 = dir * b[1], g3 = 2.0 * b[1], g5 = -2.0 * dir * b[2];
    /* w = g2 d + g3 Q p + g5 Q r; f = de r + g1 p + w; t = p x (b1 d - g3 Q r) - r x w */
    double w[3], v[3], pxv[3], rxw[3];
    for (int d = 0; d < 3; d++) {
        w[d] = (g2 * m->d[d] + g3 * qkp[d]) + g5 * qk[d];
        f[d] = (de * r[d] + g1 * p[d]) + w[d];
        v[d] = b[0] * m->d[d] - g3 * qk[d];
    }
    amoeba_gpu_cross(p, v, pxv);
    amoeba_gpu_cross(r, w, rxw);
    for (int d = 0; d < 3; d++) t[d] = pxv[d] - rxw[d];
    return t2 * b[0] + t3 * b[1] + t4 * b[2];
}

/* Point dipoles p at i and q at k: the force on k (no torque), the energy (dipole_dipole). */
PK_HD double amoeba_gpu_dipole_dipole(const double p[3], const double q[3], const double r[3],
                                      const double b[4], double f[3])
{
    const double dir = amoeba_gpu_dot(p, r), dkr = amoeba_gpu_dot(q, r);
    const double dik = amoeba_gpu_dot(p, q);
    const double de = dik * b[1] - dir * dkr * b[2];
    for (int d = 0; d < 3; d++) f[d] = (de * r[d] + dkr * b[1] * p[d]) + dir * b[1] * q[d];
    return dik * b[0] - dir * dkr * b[1];
}

/* Atom a's polarization results: with itself as i, each pair's force on i (-frc), the torque
 * on i's site and half the virial r (x) frc, symmetrised (no energy: the host computes it
 * from the dipoles). The pair: u_p in the d field and u_d in the p field as one dipole per
 * site, with the other's multipoles, both ways, and u_p with u_d under the mutual scale;
 * Thole-damped kernels l3/r^3 .. 105 l9/r^9 (amoeba_polar.c, polar_pairs_mode). */
PK_HD void amoeba_gpu_polar_atom(const amoeba_gpu_polar *g, int a, double out[AG_OUT])
{
    for (int c = 0; c < AG_OUT; c++) out[c] = 0.0;
    const double *xa = g->x + 3 * (size_t)a, *ua = g->u + 6 * (size_t)a;
    const amoeba_gpu_site mi = amoeba_gpu_site_of(g->rpole + 13 * (size_t)a);
    const int ta = g->amtype[a], ga = g->amgroup[a];
    const double pdi = g->pdamp[ta], thi = g->thole[ta];
    for (int e = g->list.offset[a]; e < g->list.offset[a + 1]; e++) {
        const int ent = g->list.entry[e], k = ent & AMOEBA_GPU_INDEX_MASK;
        const int sc = (int)((unsigned)ent >> AMOEBA_GPU_CLASS_SHIFT), tk = g->amtype[k];
        const double *xk = g->x + 3 * (size_t)k, *uk = g->u + 6 * (size_t)k;
        const double r[3] = {xk[0] - xa[0], xk[1] - xa[1], xk[2] - xa[2]};
        const double mr[3] = {-r[0], -r[1], -r[2]};
        const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        const double rr = sqrt(r2), ir = 1.0 / rr, ir2 = ir * ir;
        const int same = g->amgroup[k] == ga;
        const double ds = same ? g->d11 : 1.0, ps = same ? g->intra[sc] : g->pscale[sc];
        const double us = same ? g->u11 : g->u1;
        /* Thole damping (amoeba_thole_damp): a = min(thole) (r / (pdamp_i pdamp_k))^3 */
        const double dd = pdi * g->pdamp[tk], th = thi < g->thole[tk] ? thi : g->thole[tk];
        double ea = 0.0, aa = 0.0;
        if (dd != 0.0) {
            const double uu = rr / dd, au = th * uu * uu * uu;
            if (au < 50.0) {
                aa = au;
                ea = exp(-au);
            }
        }
        const double a2 = aa * aa;
        const double l3 = 1.0 - ea, l5 = 1.0 - ea * (1.0 + aa);
        const double l7 = 1.0 - ea * (1.0 + aa + 0.6 * a2);
        const double l9 = 1.0 - ea * (1.0 + aa + (18.0 / 35.0) * a2 + (9.0 / 35.0) * a2 * aa);
        const double rr3 = g->hf * ir * ir2, rr5 = 3.0 * rr3 * ir2;
        const double rr7 = 5.0 * rr5 * ir2, rr9 = 7.0 * rr7 * ir2;
        const double kb[4] = {l3 * rr3, l5 * rr5, l7 * rr7, l9 * rr9};
        const double ku[4] = {us * kb[0], us * kb[1], us * kb[2], us * kb[3]};
        const amoeba_gpu_site mk = amoeba_gpu_site_of(g->rpole + 13 * (size_t)k);
        double ci[3], ck[3];
        for (int d = 0; d < 3; d++) {
            ci[d] = ds * ua[3 + d] + ps * ua[d];
            ck[d] = ds * uk[3 + d] + ps * uk[d];
        }
        double fik[3], tik[3], fki[3], tki[3], fpd[3], fdp[3];
        double en = amoeba_gpu_dipole_multipole(ci, &mk, r, kb, fik, tik);
        en += amoeba_gpu_dipole_multipole(ck, &mi, mr, kb, fki, tki);
        en += amoeba_gpu_dipole_dipole(ua + 3, uk, r, ku, fpd);   /* u_p,i with u_d,k */
        en += amoeba_gpu_dipole_dipole(ua, uk + 3, r, ku, fdp);   /* u_d,i with u_p,k */
        double frc[3], ti[3];
        for (int d = 0; d < 3; d++) {
            frc[d] = (fik[d] - fki[d]) + (fpd[d] + fdp[d]);
            ti[d] = tki[d];
        }
        if (g->smooth) {   /* S e: force S F - e dS/dr r/|r|, torques S t */
            const double xs = (rr - g->start) * g->inv_width, x = xs > 0.0 ? xs : 0.0;
            const double sr = 1.0 - x * x * x * (10.0 - x * (15.0 - 6.0 * x));
            const double y = 1.0 - x, dsdx = -30.0 * x * x * y * y;
            const double ge = -en * (dsdx * g->inv_width) * ir;
            for (int d = 0; d < 3; d++) {
                frc[d] = sr * frc[d] + ge * r[d];
                ti[d] *= sr;
            }
        }
        for (int d = 0; d < 3; d++) {
            out[AG_F + d] -= frc[d];
            out[AG_T + d] += ti[d];
        }
        amoeba_gpu_half_virial(r, frc, out + AG_V);
    }
}

/* ---- the PCG products (amoeba_induce.c) ------------------------------------------------- */

/* What a product thread reads: the full list of one pair set's stored tensors (atom a's
 * entries entry[offset[a] .. offset[a + 1]) name a tensor index e, partner[] its partner
 * row), the tensors as amoeba_induce.c stores them (component c of entry e at
 * 4 (e - e % 4) + 4 c + e % 4: s_x, s_y, s_z and nb = -b3, so that T v = s (s.v) + nb v),
 * and the input rows v, 8 doubles each in the lanes order x_d x_p y_d y_p z_d z_p. */
typedef struct {
    const int *offset, *entry, *partner;
    const double *ten, *v;
} amoeba_gpu_pcg;

/* Row a of y = T v for both dipole sets: the sum over a's pairs of T_ak v_k, each stored
 * pair applied from both of its atoms' rows (T_ka = T_ak); y[0..5] in the lanes order. */
PK_HD void amoeba_gpu_pcg_row(const amoeba_gpu_pcg *g, int a, double y[6])
{
    for (int c = 0; c < 6; c++) y[c] = 0.0;
    for (int q = g->offset[a]; q < g->offset[a + 1]; q++) {
        const size_t e = (size_t)g->entry[q], t0 = 4 * (e - e % 4) + e % 4;
        const double sx = g->ten[t0], sy = g->ten[t0 + 4], sz = g->ten[t0 + 8];
        const double nb = g->ten[t0 + 12];
        const double *v = g->v + 8 * (size_t)g->partner[q];
        for (int set = 0; set < 2; set++) {   /* d (even lanes), then p (odd) */
            const double vx = v[set], vy = v[2 + set], vz = v[4 + set];
            const double sv = sx * vx + sy * vy + sz * vz;
            y[set] += sx * sv + nb * vx;
            y[2 + set] += sy * sv + nb * vy;
            y[4 + set] += sz * sv + nb * vz;
        }
    }
}

#endif
