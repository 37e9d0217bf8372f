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
 * Layout (amoeba_batch): per atom i, its neighbours within the cutoff are gathered, a scalar
 * pass drops the pairs whose three scales are all 0 and fills the per-pair inputs (scales,
 * Thole factors, the neighbour's moments and dipoles), a SIMD loop computes each pair's
 * force and torques, a vectorised reduction sums what lands on i (force, torque, virial)
 * and a scalar pass applies each pair's force and torque on k in list order. The scratch
 * holds the pairs in blocks of LANES (one AVX2 vector of doubles), each block NSCRATCH rows
 * of LANES values, so that every value sits at a fixed offset from the block: the SIMD
 * loop runs over whole blocks (the last one padded with inert pairs) from one pointer. */
#include <float.h>
#include <math.h>

#include "amoeba_internal.h"

/* The values of a pair in its block (pair_slot): inputs, then results. */
enum {
    IN_DSCALE,
    IN_PSCALE,
    IN_USCALE,
    IN_THOLE,                /* l3, l5, l7, l9 */
    IN_POLE = IN_THOLE + 4,  /* the neighbour's 13 multipole components */
    IN_U = IN_POLE + 13,     /* its dipoles u_d (3), u_p (3) */
    OUT_F = IN_U + 6,        /* force on k */
    OUT_TI = OUT_F + 3,      /* torque on i */
    OUT_TK = OUT_TI + 3,     /* torque on k */
    NSCRATCH = OUT_TK + 3
};

enum { LANES = 4 };

/* Pair j's values in the scratch: value v at pair_slot(...)[v * LANES]. The batch's
 * NSCRATCH * cap doubles hold cap pairs (cap is a multiple of 8). */
static inline double *pair_slot(double *scratch, int j)
{
    /* block j / LANES starts at (j / LANES) * NSCRATCH * LANES, lane j % LANES after it */
    return scratch + (size_t)j + (size_t)((unsigned)j / LANES) * (NSCRATCH - 1) * LANES;
}

/* The scales of a pair by whether both atoms are in one polarization group and by special
 * class: d (direct), p (polarization) and u (mutual, 0 for direct polarization); keep = 0
 * when all are 0. */
typedef struct {
    double d, p, u;
    int keep;
} pair_scales;

static void pair_scales_fill(const pk_amoeba_model *m, pair_scales tab[2][5])
{
    const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
    for (int same = 0; same < 2; same++)
        for (int cls = 0; cls < 5; cls++) {
            pair_scales *ps = &tab[same][cls];
            ps->d = same ? m->direct11_scale : 1.0;
            ps->p = same ? m->polar_intra[cls] : m->polar_scale[cls];
            ps->u = mutual ? (same ? m->mutual11_scale : 1.0) : 0.0;
            ps->keep = ps->d != 0.0 || ps->p != 0.0 || ps->u != 0.0;
        }
}

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

/* The 13 multipole components pole[c * stride] as a site. */
static inline site_v site_at(const double *pole, size_t stride)
{
    site_v s;
    s.c = pole[0];
    s.d = vec3_of(pole[stride], pole[2 * stride], pole[3 * stride]);
    s.qx = vec3_of(pole[4 * stride], pole[5 * stride], pole[6 * stride]);
    s.qy = vec3_of(pole[7 * stride], pole[8 * stride], pole[9 * stride]);
    s.qz = vec3_of(pole[10 * stride], pole[11 * stride], pole[12 * stride]);
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

/* What the pairs of one atom i share: its moments and dipoles, the energy prefactor and
 * the switch as x = (r - start) / width (start beyond any pair when the switch is off). */
typedef struct {
    site_v mi;
    vec3 ud, up;
    double hf, start, inv_width;
} polar_site;

/* The largest damping length pdamp and the smallest Thole parameter over the types. */
typedef struct {
    double pdamp_max, thole_min;
} thole_range;

static thole_range thole_range_of(const pk_amoeba_model *m)
{
    thole_range tr = {0.0, HUGE_VAL};
    for (int t = 1; t <= m->ntypes; t++) {
        tr.pdamp_max = fmax(tr.pdamp_max, m->pdamp[t]);
        tr.thole_min = fmin(tr.thole_min, m->thole[t]);
    }
    return tr;
}

/* A squared distance from which on amoeba_thole returns 1 for every partner of an atom of
 * type ti: a = g (r/d)^3 with d = pdamp_i pdamp_k <= pdamp_i pdamp_max and
 * g = min(thole_i, thole_k) >= min(thole_i, thole_min) reaches AMOEBA_THOLE_FAR there
 * (with a 1e-6 margin for rounding). */
static double thole_far2(const pk_amoeba_model *m, const thole_range *tr, int ti)
{
    const double d = m->pdamp[ti] * tr->pdamp_max, g = fmin(m->thole[ti], tr->thole_min);
    if (g <= 0.0) return HUGE_VAL;
    return d * d * pow((1.0 + 1e-6) * AMOEBA_THOLE_FAR / g, 2.0 / 3.0);
}

/* The scalar pass: keeps the pairs with a nonzero scale (in list order) and fills their
 * inputs; pads the last block with pairs at r = (1, 0, 0) with no moments and no scales.
 * Pairs at r^2 >= far2 have all Thole factors 1 (thole_far2), which skips the call. */
static void polar_inputs(const pk_amoeba_model *m, const pk_amoeba_sites *s,
                         const pair_scales tab[2][5], const double (*rpole)[13],
                         const double (*u)[6], int i, double far2, amoeba_batch *b)
{
    const int gi = s->amgroup[i], ti = s->amtype[i];
    int n = 0;
    for (int j = 0; j < b->n; j++) {
        const int k = b->k[j];
        const pair_scales *sc = &tab[s->amgroup[k] == gi][b->cls[j]];
        if (!sc->keep) continue;
        if (n < j) {   /* a pair was dropped: move this one down */
            b->k[n] = k;
            b->rx[n] = b->rx[j];
            b->ry[n] = b->ry[j];
            b->rz[n] = b->rz[j];
            b->r2[n] = b->r2[j];
        }
        double *in = pair_slot(b->scratch, n);
        in[IN_DSCALE * LANES] = sc->d;
        in[IN_PSCALE * LANES] = sc->p;
        in[IN_USCALE * LANES] = sc->u;
        double l[4] = {1.0, 1.0, 1.0, 1.0};
        if (b->r2[n] < far2) amoeba_thole(m, ti, s->amtype[k], sqrt(b->r2[n]), l);
        for (int c = 0; c < 4; c++) in[(IN_THOLE + c) * LANES] = l[c];
        for (int c = 0; c < 13; c++) in[(IN_POLE + c) * LANES] = rpole[k][c];
        for (int c = 0; c < 6; c++) in[(IN_U + c) * LANES] = u[k][c];
        n++;
    }
    b->n = n;
    for (int j = n; j % LANES; j++) {
        b->rx[j] = b->r2[j] = 1.0;
        b->ry[j] = b->rz[j] = 0.0;
        double *in = pair_slot(b->scratch, j);
        for (int v = 0; v < OUT_F; v++) in[v * LANES] = 0.0;
    }
}

/* The SIMD pass: force on k and torques on i and k of each pair, block by block. */
static void polar_pairs(const polar_site *ps, amoeba_batch *b)
{
    const site_v mi = ps->mi;
    const vec3 uid = ps->ud, uip = ps->up;
    const double hf = ps->hf, start = ps->start, inv_width = ps->inv_width;
    for (int j0 = 0; j0 < b->n; j0 += LANES) {
        double *blk = pair_slot(b->scratch, j0);
        const double *rx = b->rx + j0, *ry = b->ry + j0, *rz = b->rz + j0, *rsq = b->r2 + j0;
#pragma omp simd
        for (int j = 0; j < LANES; j++) {
            const double *in = blk + j;
            const vec3 r = vec3_of(rx[j], ry[j], rz[j]);
            const double r2 = rsq[j], rr = sqrt(r2), ir = 1.0 / rr, ir2 = ir * ir;
            /* undamped 1/r^3, 3/r^5, 15/r^7, 105/r^9 times the damping factors */
            const double rr3 = hf * ir * ir2, rr5 = 3.0 * rr3 * ir2;
            const double rr7 = 5.0 * rr5 * ir2, rr9 = 7.0 * rr7 * ir2;
            const double *l = in + IN_THOLE * LANES, *uk = in + IN_U * LANES;
            const kern4 kb = {l[0] * rr3, l[LANES] * rr5, l[2 * LANES] * rr7, l[3 * LANES] * rr9};
            const double ds = in[IN_DSCALE * LANES], pscl = in[IN_PSCALE * LANES];
            const double us = in[IN_USCALE * LANES];
            const kern4 ku = {us * kb.b1, us * kb.b2, us * kb.b3, us * kb.b4};
            const site_v mk = site_at(in + IN_POLE * LANES, LANES);
            const vec3 ukd = vec3_of(uk[0], uk[LANES], uk[2 * LANES]);
            const vec3 ukp = vec3_of(uk[3 * LANES], uk[4 * LANES], uk[5 * LANES]);

            /* u_p in the d field, u_d in the p field: one dipole per site */
            const vec3 ci = vlin(ds, uip, pscl, uid), ck = vlin(ds, ukp, pscl, ukd);
            const pair_term ik = dipole_multipole(ci, mk, r, kb);
            /* k's dipole with i's moments: the same kernel seen from k */
            const pair_term ki = dipole_multipole(ck, mi, vec3_of(-r.x, -r.y, -r.z), kb);
            /* u_p with u_d (ku = 0 for direct polarization) */
            const pair_term pd = dipole_dipole(uip, ukd, r, ku);
            const pair_term dp = dipole_dipole(uid, ukp, r, ku);
            const vec3 frc =
                vlin(1.0, vlin(1.0, ik.f, -1.0, ki.f), 1.0, vlin(1.0, pd.f, 1.0, dp.f));
            const double e = ik.e + ki.e + pd.e + dp.e;

            /* SMOOTH: the fields and T of the solve were switched by S(r), so the pair's
             * part of the energy above is S e: force S F - e dS/dr r/|r|, torques S t.
             * Inside the start x = 0 gives S = 1, dS/dr = 0 exactly. */
            double x = (rr - start) * inv_width;
            x = x > 0.0 ? x : 0.0;
            const double y = 1.0 - x;
            const double sr = 1.0 - x * x * x * (10.0 - x * (15.0 - 6.0 * x));
            const double ge = -e * (-30.0 * x * x * y * y * inv_width) * ir;
            double *out = blk + j;
            out[OUT_F * LANES] = sr * frc.x + ge * r.x;
            out[(OUT_F + 1) * LANES] = sr * frc.y + ge * r.y;
            out[(OUT_F + 2) * LANES] = sr * frc.z + ge * r.z;
            out[OUT_TI * LANES] = sr * ki.t.x;
            out[(OUT_TI + 1) * LANES] = sr * ki.t.y;
            out[(OUT_TI + 2) * LANES] = sr * ki.t.z;
            out[OUT_TK * LANES] = sr * ik.t.x;
            out[(OUT_TK + 1) * LANES] = sr * ik.t.y;
            out[(OUT_TK + 2) * LANES] = sr * ik.t.z;
        }
    }
}

/* Apply the results: the force on i, its torque and the virial summed over the pairs by lane
 * (the compiler vectorises this loop by itself; "omp simd" would privatise the small local
 * arrays and fail), then over the lanes in a fixed order; then each pair's force and torque
 * on k and, when asked, its per-atom virial in list order. */
static void polar_apply(const amoeba_batch *b, int i, double (*f)[3], double (*tq)[3],
                        double *vir, double (*vatom)[6])
{
    double fi[3][LANES] = {{0}}, ti[3][LANES] = {{0}}, v[6][LANES] = {{0}};
    for (int j0 = 0; j0 < b->n; j0 += LANES) {
        const double *out = pair_slot(b->scratch, j0);
        const double *rx = b->rx + j0, *ry = b->ry + j0, *rz = b->rz + j0;
        for (int j = 0; j < LANES; j++) {
            const double r[3] = {rx[j], ry[j], rz[j]};
            const double frc[3] = {out[OUT_F * LANES + j], out[(OUT_F + 1) * LANES + j],
                                   out[(OUT_F + 2) * LANES + j]};
            double vp[6];
            amoeba_pair_virial(r, frc, vp);
            for (int c = 0; c < 3; c++) {
                fi[c][j] += frc[c];
                ti[c][j] += out[(OUT_TI + c) * LANES + j];
            }
            for (int c = 0; c < 6; c++) v[c][j] += vp[c];
        }
    }
    for (int j = 0; j < LANES; j++) {
        for (int c = 0; c < 3; c++) {
            f[i][c] -= fi[c][j];
            tq[i][c] += ti[c][j];
        }
        for (int c = 0; c < 6; c++) vir[c] += v[c][j];
    }
    for (int j = 0; j < b->n; j++) {
        const int k = b->k[j];
        const double *out = pair_slot(b->scratch, j);
        for (int c = 0; c < 3; c++) {
            f[k][c] += out[(OUT_F + c) * LANES];
            tq[k][c] += out[(OUT_TK + c) * LANES];
        }
        if (vatom) {
            const double r[3] = {b->rx[j], b->ry[j], b->rz[j]};
            const double frc[3] = {out[OUT_F * LANES], out[(OUT_F + 1) * LANES],
                                   out[(OUT_F + 2) * LANES]};
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
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();
    const double off2 = m->set.polar_cut * m->set.polar_cut;
    const thole_range tr = thole_range_of(m);
    pair_scales tab[2][5];
    amoeba_switch sw;

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk polar: no force array");
    if (amoeba_switch_init(m, 1, &sw, st)) return st->code;
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    pair_scales_fill(m, tab);
    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        pk_accum_begin(&w->acc_t, nt, &torque[0][0], (size_t)nall * 3, st) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
        amoeba_partials_begin(w, nt, st) ||
        amoeba_batches_begin(&w->batches, nl, nt, NSCRATCH, st))
        return st->code;

#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double (*tq)[3] = (double (*)[3])pk_accum_slice(&w->acc_t, tid);
        double (*vatom)[6] = out->vatom ? (double (*)[6])pk_accum_slice(&w->acc_v, tid) : NULL;
        double *part = amoeba_partials_slice(w, tid);
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        polar_site ps;
        ps.hf = 0.5 * PK_AMOEBA_ELECTRIC / m->dielectric;
        ps.start = sw.on ? sw.start : DBL_MAX;
        ps.inv_width = sw.on ? 1.0 / sw.width : 1.0;
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            ps.mi = site_at(rpole[i], 1);
            ps.ud = vec3_of(u[i][0], u[i][1], u[i][2]);
            ps.up = vec3_of(u[i][3], u[i][4], u[i][5]);
            amoeba_batch_pairs(&b, pairs, x, i, ii, off2, 0);
            polar_inputs(m, s, tab, rpole, u, i, thole_far2(m, &tr, s->amtype[i]), &b);
            polar_pairs(&ps, &b);
            polar_apply(&b, i, f, tq, part + 1, vatom);
        }
    }
    pk_accum_reduce(&w->acc_f);
    pk_accum_reduce(&w->acc_t);
    if (out->vatom) pk_accum_reduce(&w->acc_v);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
