/* Polarization forces and torques from the induced dipoles.
 *
 * With A = alpha^-1 - T, u_d = A^-1 E_d and u_p = A^-1 E_p (pk_amoeba_induce), the energy
 * E = -1/2 f u_d . E_p changes as
 *   dE = -1/2 f (u_p . dE_d + u_d . dE_p + u_p . dT u_d)
 * (A symmetric; exact when the dipoles are converged). Each term is the change at fixed
 * dipoles of an interaction energy of point dipoles: u_p with the permanent moments
 * under the d scaling, u_d with them under the p scaling, and u_p with u_d under the
 * mutual scaling, so
 *   dE = 1/2 f d[ U(u_p; M, d) + U(u_d; M, p) + U(u_p; u_d, u) ],
 * all with Thole-damped kernels B_1 = l3/r^3, B_2 = 3 l5/r^5, B_3 = 15 l7/r^7,
 * B_4 = 105 l9/r^9 (amoeba_induce.c), which keep dB_n/dr = -r B_n+1. The pair energy,
 * force and torque are those of amoeba_mpole_pair with a dipole-only site; only the
 * permanent sites take torques (the induced dipoles are not attached to frames). The
 * pair terms are bilinear in the two sites' moments and linear in the kernels, so the
 * first two combine into one dipole per site, dscale u_p + pscale u_d. The kernels below
 * are amoeba_mpole_pair with the vanishing moments of a dipole-only site dropped.
 *
 * SMOOTH mode: pk_amoeba_induce multiplies each pair's fields and dipole-dipole tensor by
 * S(r), so every pair term above is S(r) times its unswitched value and its gradient picks
 * up -e dS/dr r/|r| (e the pair's sum of the three energies); torques scale with S.
 *
 * Layout (amoeba_batch): per atom i, its neighbours within the cutoff are gathered and padded
 * to whole AVX2 vectors with inert pairs (zero scales); a SIMD pass fills the per-pair inputs
 * that need the neighbour's type and group (scales, Thole parameters); the SIMD pair loop
 * loads the neighbour's moments and dipoles itself, computes the Thole damping (an inline
 * exp, amoeba_exp.h) and each pair's force and torques; a vectorised reduction sums what
 * lands on i (force, torque, virial) and the forces and torques on the partners are added in
 * list order, four pairs at a time. The pair loop holds only 8-byte values (GCC then runs
 * it four pairs at a time; an int in it doubles that and spills), and it is compiled once
 * per mode: without the switch (LAMMPS mode) the pair energy is not computed. Pairs whose
 * three scales are all 0 are computed too: their force and torques are 0. A backend's
 * amoeba_polar_fn (amoeba_kernels.h) may take the place of the pair loop and the sums. */
#include <math.h>

#include "amoeba_kernels.h"
#include "amoeba_lanes.h"

enum { LANES = 4 };   /* doubles in an AVX2 vector */

/* 3-vectors and sites as plain values, which the SIMD loop keeps in registers. */
typedef struct {
    double x, y, z;
} vec3;

static inline vec3 vec3_of(double x, double y, double z)
{
    vec3 v = {x, y, z};
    return v;
}

static inline double vdot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static inline vec3 vcross(vec3 a, vec3 b)
{
    return vec3_of(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/* a u + b v */
static inline vec3 vlin(double a, vec3 u, double b, vec3 v)
{
    return vec3_of(a * u.x + b * v.x, a * u.y + b * v.y, a * u.z + b * v.z);
}

/* Moments of a site: charge, dipole, quadrupole rows (/3 convention). */
typedef struct {
    double c;
    vec3 d, qx, qy, qz;
} site_v;

/* The 13 multipole components from pole[o] on as a site, the quadrupole taken as symmetric
 * (its upper triangle, as the field of amoeba_induce.c does; the rotated rows agree to
 * rounding). An index, not a pointer, so that GCC vectorises the loads as gathers. */
static inline site_v site_row(const double *pole, long o)
{
    const double qxx = pole[o + 4], qxy = pole[o + 5], qxz = pole[o + 6];
    const double qyy = pole[o + 8], qyz = pole[o + 9], qzz = pole[o + 12];
    site_v s;
    s.c = pole[o];
    s.d = vec3_of(pole[o + 1], pole[o + 2], pole[o + 3]);
    s.qx = vec3_of(qxx, qxy, qxz);
    s.qy = vec3_of(qxy, qyy, qyz);
    s.qz = vec3_of(qxz, qyz, qzz);
    return s;
}

static inline vec3 qmul(const site_v *m, vec3 v)
{
    return vec3_of(vdot(m->qx, v), vdot(m->qy, v), vdot(m->qz, v));
}

/* Damped kernels B_1..B_4 of a pair (times the energy prefactor). */
typedef struct {
    double b1, b2, b3, b4;
} kern4;

/* A pair term: force on k, torque on the site at k, energy. */
typedef struct {
    vec3 f, t;
    double e;
} pair_term;

/* Point dipole p at i with the multipole site m at k (r = x_k - x_i). Always inlined and
 * by value: the SIMD loop must neither call it nor take addresses. */
static inline __attribute__((always_inline)) pair_term dipole_multipole(vec3 p, site_v m,
                                                                         vec3 r, kern4 b)
{
    const vec3 qk = qmul(&m, r), qkp = qmul(&m, p);
    const double dir = vdot(p, r), dkr = vdot(m.d, r), qkr = vdot(qk, r);
    const double dik = vdot(p, m.d), diqk = vdot(p, qk);
    const double t2 = m.c * dir + dik;
    const double t3 = -dir * dkr - 2.0 * diqk;
    const double t4 = dir * qkr;
    const double de = t2 * b.b2 + t3 * b.b3 + t4 * b.b4;
    const double g1 = -m.c * b.b1 + dkr * b.b2 - qkr * b.b3;
    const double g2 = dir * b.b2;
    const double g3 = 2.0 * b.b2;
    const double g5 = -2.0 * dir * b.b3;
    /* with w = g2 d + g3 Qp + g5 Qr the force is de r + g1 p + w and the torque
     * b1 p x d + g2 d x r - g3 (p x Qr + r x Qp) - g5 r x Qr = p x (b1 d - g3 Qr) - r x w */
    const vec3 w = vlin(1.0, vlin(g2, m.d, g3, qkp), g5, qk);
    pair_term out;
    out.f = vlin(1.0, vlin(de, r, g1, p), 1.0, w);
    out.t = vlin(1.0, vcross(p, vlin(b.b1, m.d, -g3, qk)), -1.0, vcross(r, w));
    out.e = t2 * b.b1 + t3 * b.b2 + t4 * b.b3;
    return out;
}

/* Point dipoles p at i and q at k: force on k and energy (no torque: t = 0). */
static inline pair_term dipole_dipole(vec3 p, vec3 q, vec3 r, kern4 b)
{
    const double dir = vdot(p, r), dkr = vdot(q, r), dik = vdot(p, q);
    const double de = dik * b.b2 - dir * dkr * b.b3;
    pair_term out;
    out.f = vlin(1.0, vlin(de, r, dkr * b.b2, p), dir * b.b2, q);
    out.t = vec3_of(0.0, 0.0, 0.0);
    out.e = dik * b.b1 - dir * dkr * b.b2;
    return out;
}

/* What the pair kernel reads: the model's per-type and per-class tables, the sites' moments
 * and dipoles, and what the pairs of one atom i share (its moments, dipoles, type data and
 * group). The scales of a pair by whether both atoms are in one polarization group (same) and
 * by special class: d = same ? direct-11 : 1, p = same ? polar-intra : polar-scale, u = same
 * ? mutual-11 : 1 (0 for direct polarization). The switch, when on, is x = (r - start) /
 * width. */
typedef struct {
    const double *pdamp, *thole, *intra, *pscale;
    const int *amtype, *amgroup;
    const double (*rpole)[13], (*u)[6];
    double d11, u11, u1, hf, start, inv_width;
    int smooth;   /* the switch is on */
    site_v mi;
    vec3 ud, up;
    double pdi, thi;
    int gi;
} polar_ctx;

/* The per-pair inputs of the padded batch that need k's type and group (SIMD): k as a long,
 * the scales (0 in the padding) and k's Thole parameters. Kept apart from the kernel, whose
 * loop then holds only 8-byte values: one int there makes GCC process 8 pairs at a time
 * and spill. */
static void polar_inputs(const polar_ctx *pc, const amoeba_batch *b, int npad)
{
    const double *pdamp = pc->pdamp, *thole = pc->thole, *intra = pc->intra;
    const double *pscale = pc->pscale;
    const int *amtype = pc->amtype, *amgroup = pc->amgroup, *ks = b->k, *cls = b->cls;
    const double d11 = pc->d11, u11 = pc->u11, u1 = pc->u1;
    const int gi = pc->gi, n = b->n;
    const size_t cap = (size_t)b->cap;
    double *const sc = b->scratch;
    long *const row = (long *)(sc + P_ROW * cap);
#pragma omp simd
    for (int j = 0; j < npad; j++) {
        const int k = ks[j], tk = amtype[k], c = cls[j];
        /* as sums with one term zero (selects become branches and masked loads, which
         * GCC 12 does not vectorise) */
        const double same = amgroup[k] == gi ? 1.0 : 0.0, other = 1.0 - same;
        const double live = j < n ? 1.0 : 0.0;
        row[j] = k;
        sc[P_DS * cap + j] = live * (same * d11 + other);
        sc[P_PS * cap + j] = live * (same * intra[c] + other * pscale[c]);
        sc[P_US * cap + j] = live * (same * u11 + other * u1);
        sc[P_PDAMP * cap + j] = pdamp[tk];
        sc[P_THOLE * cap + j] = thole[tk];
    }
}

/* The SIMD pass over the padded batch (npad pairs): force on k and torques on i and k of
 * each pair, the neighbour's moments and dipoles loaded in the loop. smooth is a constant
 * in each of the two copies (polar_pairs): without the switch the pair energy is not
 * needed. */
static inline __attribute__((always_inline)) void polar_pairs_mode(const polar_ctx *pc,
                                                                    const amoeba_batch *b,
                                                                    int npad, const int smooth)
{
    const double *rpole = &pc->rpole[0][0], *udip = &pc->u[0][0];
    const site_v mi = pc->mi;
    const vec3 uid = pc->ud, uip = pc->up;
    const double hf = pc->hf, start = pc->start, inv_width = pc->inv_width;
    const double pdi = pc->pdi, thi = pc->thi;
    const double *rx = b->rx, *ry = b->ry, *rz = b->rz;
    const size_t cap = (size_t)b->cap;
    double *const sc = b->scratch;
    const long *row = (const long *)(sc + P_ROW * cap);
    const double *dsc = sc + P_DS * cap, *psc = sc + P_PS * cap, *usc = sc + P_US * cap;
    const double *pdk = sc + P_PDAMP * cap, *thk = sc + P_THOLE * cap, *rsq = b->r2;
    double *const fx = sc + P_F * cap, *const fy = fx + cap, *const fz = fy + cap;
    double *const tix = sc + P_TI * cap, *const tiy = tix + cap, *const tiz = tiy + cap;
    double *const tkx = sc + P_TK * cap, *const tky = tkx + cap, *const tkz = tky + cap;
#pragma omp simd
    for (int j = 0; j < npad; j++) {
        const long k = row[j];
        const double ds = dsc[j], pscl = psc[j], us = usc[j];
        const vec3 r = vec3_of(rx[j], ry[j], rz[j]);
        const double rr = sqrt(rsq[j]), ir = 1.0 / rr, ir2 = ir * ir;
        /* Thole factors l3, l5, l7, l9 (amoeba_induce.c) */
        const amoeba_thole_ae th = amoeba_thole_damp(pdi, pdk[j], thi, thk[j], rr);
        const double e = th.e, a = th.a, a2 = a * a;
        const double l3 = 1.0 - e, l5 = 1.0 - e * (1.0 + a);
        const double l7 = 1.0 - e * (1.0 + a + 0.6 * a2);
        const double l9 = 1.0 - e * (1.0 + a + (18.0 / 35.0) * a2 + (9.0 / 35.0) * a2 * a);
        /* undamped 1/r^3, 3/r^5, 15/r^7, 105/r^9 times the damping factors */
        const double rr3 = hf * ir * ir2, rr5 = 3.0 * rr3 * ir2;
        const double rr7 = 5.0 * rr5 * ir2, rr9 = 7.0 * rr7 * ir2;
        const kern4 kb = {l3 * rr3, l5 * rr5, l7 * rr7, l9 * rr9};
        const kern4 ku = {us * kb.b1, us * kb.b2, us * kb.b3, us * kb.b4};
        const site_v mk = site_row(rpole, 13 * k);
        const long o = 6 * k;
        const vec3 ukd = vec3_of(udip[o], udip[o + 1], udip[o + 2]);
        const vec3 ukp = vec3_of(udip[o + 3], udip[o + 4], udip[o + 5]);

        /* u_p in the d field, u_d in the p field: one dipole per site */
        const vec3 ci = vlin(ds, uip, pscl, uid), ck = vlin(ds, ukp, pscl, ukd);
        const pair_term ik = dipole_multipole(ci, mk, r, kb);
        /* k's dipole with i's moments: the same kernel seen from k */
        const pair_term ki = dipole_multipole(ck, mi, vec3_of(-r.x, -r.y, -r.z), kb);
        /* u_p with u_d (ku = 0 for direct polarization) */
        const pair_term pd = dipole_dipole(uip, ukd, r, ku);
        const pair_term dp = dipole_dipole(uid, ukp, r, ku);
        const vec3 frc = vlin(1.0, vlin(1.0, ik.f, -1.0, ki.f), 1.0, vlin(1.0, pd.f, 1.0, dp.f));
        if (smooth) {
            /* the fields and T of the solve were switched by S(r), so the pair's part of the
             * energy above is S e: force S F - e dS/dr r/|r|, torques S t. Inside the start
             * x = 0 gives S = 1, dS/dr = 0 exactly. */
            const double en = ik.e + ki.e + pd.e + dp.e;
            const double x = amoeba_switch_x(rr, start, inv_width), sr = amoeba_switch_s(x);
            const double ge = -en * (amoeba_switch_dsdx(x) * inv_width) * ir;
            fx[j] = sr * frc.x + ge * r.x;
            fy[j] = sr * frc.y + ge * r.y;
            fz[j] = sr * frc.z + ge * r.z;
            tix[j] = sr * ki.t.x, tiy[j] = sr * ki.t.y, tiz[j] = sr * ki.t.z;
            tkx[j] = sr * ik.t.x, tky[j] = sr * ik.t.y, tkz[j] = sr * ik.t.z;
        } else {
            fx[j] = frc.x, fy[j] = frc.y, fz[j] = frc.z;
            tix[j] = ki.t.x, tiy[j] = ki.t.y, tiz[j] = ki.t.z;
            tkx[j] = ik.t.x, tky[j] = ik.t.y, tkz[j] = ik.t.z;
        }
    }
}

static void polar_pairs(const polar_ctx *pc, const amoeba_batch *b, int npad)
{
    if (pc->smooth)
        polar_pairs_mode(pc, b, npad, 1);
    else
        polar_pairs_mode(pc, b, npad, 0);
}

/* Apply the results: the force on i, its torque and the virial summed over the padded batch
 * as vectors, then over the lanes in a fixed order; then each pair's force and torque on k
 * (four at a time unless per-atom virials are asked) and its per-atom virial, in list
 * order. */
static void polar_apply(const amoeba_batch *b, int npad, int i, double (*f)[3],
                        double (*tq)[3], double *vir, double (*vatom)[6])
{
    const size_t cap = (size_t)b->cap;
    const double *out[P_COUNT];
    for (int v = P_F; v < P_COUNT; v++) out[v] = b->scratch + v * cap;
    lane4 fi[3] = {0}, ti[3] = {0}, v[6] = {0};
    for (int j = 0; j < npad; j += LANES) {
        const lane4 rx = lane4_load(b->rx + j), ry = lane4_load(b->ry + j);
        const lane4 rz = lane4_load(b->rz + j);
        const lane4 fx = lane4_load(out[P_F] + j), fy = lane4_load(out[P_F + 1] + j);
        const lane4 fz = lane4_load(out[P_F + 2] + j);
        fi[0] += fx, fi[1] += fy, fi[2] += fz;
        for (int c = 0; c < 3; c++) ti[c] += lane4_load(out[P_TI + c] + j);
        /* amoeba_pair_virial */
        v[0] += rx * fx, v[1] += ry * fy, v[2] += rz * fz;
        v[3] += 0.5 * (ry * fx + rx * fy);
        v[4] += 0.5 * (rz * fx + rx * fz);
        v[5] += 0.5 * (rz * fy + ry * fz);
    }
    for (int l = 0; l < LANES; l++) {
        for (int c = 0; c < 3; c++) {
            f[i][c] -= fi[c][l];
            tq[i][c] += ti[c][l];
        }
        for (int c = 0; c < 6; c++) vir[c] += v[c][l];
    }
    int j = 0;
    if (!vatom)
        for (; j + LANES <= b->n; j += LANES) {
            lane4 res[6];
            for (int c = 0; c < 3; c++) {
                res[c] = lane4_load(out[P_F + c] + j);
                res[3 + c] = lane4_load(out[P_TK + c] + j);
            }
            amoeba_add_force_torque4(res, b->k + j, f, tq);
        }
    for (; j < b->n; j++) {
        const int k = b->k[j];
        for (int c = 0; c < 3; c++) {
            f[k][c] += out[P_F + c][j];
            tq[k][c] += out[P_TK + c][j];
        }
        if (vatom) {
            const double r[3] = {b->rx[j], b->ry[j], b->rz[j]};
            const double frc[3] = {out[P_F][j], out[P_F + 1][j], out[P_F + 2][j]};
            double vp[6];
            amoeba_pair_virial(r, frc, vp);
            amoeba_vatom_pair(vatom, i, k, vp);
        }
    }
}

pk_code pk_amoeba_polar_forces(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                               const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                               const double (*u)[6],
                               double (*torque)[3], pk_amoeba_work *w, pk_out *out,
                               pk_status *st)
{
    return amoeba_polar_forces_run(&AMOEBA_PORTABLE, m, a, s, nl, pairs, rpole, u, torque, w,
                                   out, st);
}

pk_code amoeba_polar_forces_run(const amoeba_kernels *kern, const pk_amoeba_model *m,
                                const pk_atoms *a, const pk_amoeba_sites *s,
                                const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                                const double (*rpole)[13], const double (*u)[6],
                                double (*torque)[3], pk_amoeba_work *w, pk_out *out,
                                pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const int nt = pk_max_threads();
    const double off2 = m->set.polar_cut * m->set.polar_cut;
    amoeba_switch sw;

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk polar: no force array");
    if (amoeba_switch_init(m, 1, &sw, st)) return st->code;
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        pk_accum_begin(&w->acc_t, nt, &torque[0][0], (size_t)nall * 3, st) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
        amoeba_partials_begin(w, nt, st) ||
        amoeba_batches_begin(&w->batches, nl, nt, P_COUNT, st))
        return st->code;

#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double (*tq)[3] = (double (*)[3])pk_accum_slice(&w->acc_t, tid);
        double (*vatom)[6] = out->vatom ? (double (*)[6])pk_accum_slice(&w->acc_v, tid) : NULL;
        double *part = amoeba_partials_slice(w, tid);
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
        polar_ctx pc;
        pc.pdamp = m->pdamp, pc.thole = m->thole;
        pc.intra = m->polar_intra, pc.pscale = m->polar_scale;
        pc.amtype = s->amtype, pc.amgroup = s->amgroup;
        pc.rpole = rpole, pc.u = u;
        pc.d11 = m->direct11_scale;
        pc.u11 = mutual ? m->mutual11_scale : 0.0;
        pc.u1 = mutual ? 1.0 : 0.0;
        pc.hf = 0.5 * PK_AMOEBA_ELECTRIC / m->dielectric;
        pc.smooth = sw.on;
        pc.start = sw.on ? sw.start : 0.0;
        pc.inv_width = sw.on ? 1.0 / sw.width : 1.0;
        amoeba_polar_ctx kc = {.rpole = rpole, .u = u, .hf = pc.hf, .start = pc.start,
                               .inv_width = pc.inv_width, .smooth = pc.smooth};
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii], ti = s->amtype[i];
            pc.mi = site_row(&rpole[0][0], 13 * (long)i);
            pc.ud = vec3_of(u[i][0], u[i][1], u[i][2]);
            pc.up = vec3_of(u[i][3], u[i][4], u[i][5]);
            pc.pdi = m->pdamp[ti], pc.thi = m->thole[ti], pc.gi = s->amgroup[i];
            amoeba_batch_pairs(&b, pairs, i, ii, off2, 0);
            const int npad = amoeba_padded(b.n);
            polar_inputs(&pc, &b, npad);
            if (kern->polar) {
                kc.pdi = pc.pdi, kc.thi = pc.thi;
                kern->polar(&kc, i, &b, npad, f, tq, part + 1, vatom);
                continue;
            }
            polar_pairs(&pc, &b, npad);
            polar_apply(&b, npad, i, f, tq, part + 1, vatom);
        }
    }
    pk_accum_reduce(&w->acc_f);
    pk_accum_reduce(&w->acc_t);
    if (out->vatom) pk_accum_reduce(&w->acc_v);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
