/* Permanent multipole interactions (charge, dipole, traceless quadrupole) with a hard
 * cutoff, as LAMMPS amoeba computes them without Ewald (Tinker empole1.f / emreal1d), or
 * in SMOOTH mode with a shifted-force charge-charge term and each pair's energy, force
 * and torques switched by S(r) (pk_amoeba.h).
 *
 * For sites i, k with r = x_k - x_i and B_n = (2n-1)!! / r^(2n+1) (times the Coulomb
 * constant and the 1-n scale factor), the pair energy is (Ren & Ponder 2003, eq. 5-7;
 * Tinker's "term" form):
 *   E = T1 B_0 + T2 B_1 + T3 B_2 + T4 B_3 + T5 B_4,
 *   T1 = ci ck,
 *   T2 = ck (di.r) - ci (dk.r) + di.dk,
 *   T3 = ci r.Qk.r + ck r.Qi.r - (di.r)(dk.r) + 2 (dk.Qi.r - di.Qk.r + Qi:Qk),
 *   T4 = (di.r)(r.Qk.r) - (dk.r)(r.Qi.r) - 4 (Qi.r).(Qk.r),
 *   T5 = (r.Qi.r)(r.Qk.r),
 * where Q holds the quadrupole divided by 3 (as read). The force is -dE/dr at fixed
 * global moments; the torques are the derivatives with respect to rotating each site's
 * moments, turned into forces on the frame atoms by pk_amoeba_torque_forces.
 *
 * The pairs of one atom i run over its neighbour batch (amoeba_batch.c): a scalar loop
 * gathers the neighbours' moments into scratch arrays, a SIMD loop computes each pair's
 * energy, force and torque on k (in SMOOTH mode a second one shifts and switches them),
 * a third sums the energy, virial and force and torque on i, and a scalar loop adds the
 * results to the atoms k in list order. */
#include <math.h>

#include "amoeba_internal.h"

/* A site's moments: charge, dipole and the six distinct components of the symmetric
 * quadrupole, xx xy xz yy yz zz. */
typedef struct {
    double c, d[3], q[6];
} mpole_site;

static mpole_site mpole_site_of(const double *pole)
{
    const double *q = pole + 4;
    mpole_site s = {pole[0], {pole[1], pole[2], pole[3]}, {q[0], q[1], q[2], q[4], q[5], q[8]}};
    return s;
}

/* Q[a][b] of a symmetric Q given as xx xy xz yy yz zz is q[QIDX[a][b]] */
static const int QIDX[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};

/* out = Q v */
static inline void qmul(const double *q, const double v[3], double out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = q[QIDX[a][0]] * v[0] + q[QIDX[a][1]] * v[1] + q[QIDX[a][2]] * v[2];
}

/* One pair: energy, force on k (-force on i) and torque on k. b[n] are the radial kernels
 * B_n (including constants and scale factors); the force uses dB_n/dr = -r B_n+1, which the
 * plain (2n-1)!!/r^(2n+1) and the Thole-damped kernels both satisfy. The torque on i
 * follows from the invariance of E under rotating the pair as a whole:
 * ti + tk + r x frc = 0. */
static inline double amoeba_mpole_pair(const mpole_site *si, const mpole_site *sk,
                                       const double r[3], const double b[6], double frc[3],
                                       double tk[3])
{
    const double *di = si->d, *dk = sk->d;
    double qi[3], qk[3];
    qmul(si->q, r, qi);          /* Qi r */
    qmul(sk->q, r, qk);          /* Qk r */
    const double dir = dot3(di, r), dkr = dot3(dk, r);
    const double qir = dot3(qi, r), qkr = dot3(qk, r);
    const double dik = dot3(di, dk), qik = dot3(qi, qk);
    const double diqk = dot3(di, qk), dkqi = dot3(dk, qi);
    const double *a = si->q, *c = sk->q;
    const double qq = a[0] * c[0] + a[3] * c[3] + a[5] * c[5] +
                      2.0 * (a[1] * c[1] + a[2] * c[2] + a[4] * c[4]);   /* Qi:Qk */

    const double t1 = si->c * sk->c;
    const double t2 = sk->c * dir - si->c * dkr + dik;
    const double t3 = si->c * qkr + sk->c * qir - dir * dkr + 2.0 * (dkqi - diqk + qq);
    const double t4 = dir * qkr - dkr * qir - 4.0 * qik;
    const double t5 = qir * qkr;
    const double e = t1 * b[0] + t2 * b[1] + t3 * b[2] + t4 * b[3] + t5 * b[4];

    /* -dE/dr pieces: radial part plus the explicit r-dependence of the moment products,
     *   frc = de r + g1 di + g2 dk + g3 (Qk di - Qi dk) + g4 Qi r + g5 Qk r
     *         + g6 (Qi Qk r + Qk Qi r),
     * where the quadrupole terms regroup as Qk u + Qi w, u = g3 di + g6 Qi r,
     * w = g6 Qk r - g3 dk */
    const double de = t1 * b[1] + t2 * b[2] + t3 * b[3] + t4 * b[4] + t5 * b[5];
    const double g1 = -sk->c * b[1] + dkr * b[2] - qkr * b[3];
    const double g2 = si->c * b[1] + dir * b[2] + qir * b[3];
    const double g3 = 2.0 * b[2];
    const double g4 = 2.0 * (-sk->c * b[2] + dkr * b[3] - qkr * b[4]);
    const double g5 = 2.0 * (-si->c * b[2] - dir * b[3] - qir * b[4]);
    const double g6 = 4.0 * b[3];
    double u[3], w[3], qku[3], qiw[3];
    for (int d = 0; d < 3; d++) {
        u[d] = g3 * di[d] + g6 * qi[d];
        w[d] = g6 * qk[d] - g3 * dk[d];
    }
    qmul(sk->q, u, qku);
    qmul(si->q, w, qiw);
    for (int d = 0; d < 3; d++)
        frc[d] = de * r[d] + g1 * di[d] + g2 * dk[d] + g4 * qi[d] + g5 * qk[d] + qku[d] + qiw[d];

    /* torque on k: moment x field-like terms (Tinker emreal1d),
     *   tk = B1 di x dk + g2 dk x r - g5 r x Qk r - g6 (r x Qk Qi r - Qk r x Qi r)
     *        - g3 (di x Qk r + dk x Qi r - 2 axial(Qi Qk) + r x Qk di)
     *      = dk x (-B1 di - g3 Qi r) + Qk r x u + 2 g3 axial(Qi Qk)
     *        - r x (g2 dk + g5 Qk r + Qk u);
     * with symmetric Qi, Qk the axial vector of Qi Qk (its antisymmetric part) is
     * sum_c (Qi e_c) x (Qk e_c) */
    double ax[3] = {0.0, 0.0, 0.0};
    for (int col = 0; col < 3; col++) {
        const int *q = QIDX[col];
        const double qie[3] = {a[q[0]], a[q[1]], a[q[2]]}, qke[3] = {c[q[0]], c[q[1]], c[q[2]]};
        double x[3];
        cross3(qie, qke, x);
        for (int d = 0; d < 3; d++) ax[d] += x[d];
    }
    double v1[3], v2[3], x1[3], x2[3], x3[3];
    for (int d = 0; d < 3; d++) {
        v1[d] = -b[1] * di[d] - g3 * qi[d];
        v2[d] = g2 * dk[d] + g5 * qk[d] + qku[d];
    }
    cross3(dk, v1, x1);
    cross3(qk, u, x2);
    cross3(r, v2, x3);
    for (int d = 0; d < 3; d++) tk[d] = x1[d] + x2[d] - x3[d] + 2.0 * g3 * ax[d];
    return e;
}

/* Scratch arrays of a batch: the neighbour's moments and the pair's Coulomb constant times
 * its 1-n scale factor (inputs); the pair energy, force on k and torque on k (results). */
enum {
    IN_C, IN_D, IN_Q = IN_D + 3, IN_FSCALE = IN_Q + 6,
    OUT_E, OUT_F, OUT_TK = OUT_F + 3, NSCRATCH = OUT_TK + 3
};

/* The SIMD loops run over whole vectors of 4 pairs: the batch's padding pairs at
 * r = (1, 0, 0) get scale factor 0 here (mpole_fill), so their results are exactly 0. */
static inline int padded(int n)
{
    return (n + 3) & ~3;
}

/* The moments of the neighbours and the pair scale factors into the batch's scratch. */
static void mpole_fill(const amoeba_batch *b, const double (*rpole)[13], const double *scale,
                       double felec)
{
    double *in = b->scratch;
    const size_t cap = (size_t)b->cap;
    for (int s = 0; s < b->n; s++) {
        const mpole_site sk = mpole_site_of(rpole[b->k[s]]);
        in[IN_C * cap + s] = sk.c;
        for (int d = 0; d < 3; d++) in[(IN_D + d) * cap + s] = sk.d[d];
        for (int c = 0; c < 6; c++) in[(IN_Q + c) * cap + s] = sk.q[c];
        in[IN_FSCALE * cap + s] = felec * scale[b->cls[s]];
    }
    for (int s = b->n; s < padded(b->n); s++)
        for (int c = IN_C; c <= IN_FSCALE; c++) in[c * cap + s] = 0.0;
}

/* Pair s of site si with its batch: energy, force on k and torque on k from the scratch
 * inputs into the scratch results. A pair with scale factor 0 has B_n = 0 and gives
 * exactly 0. Inlined into the SIMD loop, which must not take the addresses of its own
 * locals (GCC then keeps them in memory per lane and does not vectorize): all arrays
 * live in here. */
static inline void mpole_simd_pair(const mpole_site *si, const amoeba_batch *b, int s)
{
    double *io = b->scratch;
    const size_t cap = (size_t)b->cap;
    mpole_site sk;
    sk.c = io[IN_C * cap + s];
    for (int d = 0; d < 3; d++) sk.d[d] = io[(IN_D + d) * cap + s];
    for (int c = 0; c < 6; c++) sk.q[c] = io[(IN_Q + c) * cap + s];
    const double r[3] = {b->rx[s], b->ry[s], b->rz[s]};
    const double ir = 1.0 / sqrt(b->r2[s]), ir2 = ir * ir;
    double bn[6], frc[3], tk[3];
    bn[0] = io[IN_FSCALE * cap + s] * ir;
    for (int n = 1; n < 6; n++) bn[n] = (2 * n - 1) * bn[n - 1] * ir2;
    io[OUT_E * cap + s] = amoeba_mpole_pair(si, &sk, r, bn, frc, tk);
    for (int d = 0; d < 3; d++) {
        io[(OUT_F + d) * cap + s] = frc[d];
        io[(OUT_TK + d) * cap + s] = tk[d];
    }
}

/* SMOOTH mode (pk_amoeba.h), applied to the batch's results of site i (charge ci): each
 * pair's energy e with its charge-charge part shifted, qq/r -> qq (1/r - 1/R + (r - R)/R^2)
 * (qq: the scaled charge product times the Coulomb constant), then all of it times
 * S(r) = 1 - 10 x^3 + 15 x^4 - 6 x^5, x = (r - start) / width clamped at 0 (as
 * amoeba_switch_eval, but branch-free); the force on k picks up the shift's and the
 * switch's radial terms, the torque on k (and so that on i) scales with S. */
static void mpole_smooth_batch(const amoeba_batch *b, double ci, const amoeba_switch *sw,
                               double R)
{
    const size_t cap = (size_t)b->cap;
    double *io = b->scratch;
    const double *ck = io + IN_C * cap, *fscale = io + IN_FSCALE * cap;
    double *pe = io + OUT_E * cap, *fx = io + OUT_F * cap, *fy = fx + cap, *fz = fy + cap,
           *tx = io + OUT_TK * cap, *ty = tx + cap, *tz = ty + cap;
    const double iR2 = 1.0 / (R * R), iw = 1.0 / sw->width;
#pragma omp simd
    for (int s = 0; s < padded(b->n); s++) {
        const double rr = sqrt(b->r2[s]), qq = fscale[s] * ci * ck[s];
        const double e = pe[s] - qq * (2.0 * R - rr) * iR2;
        const double xs = (rr - sw->start) * iw, x = xs > 0.0 ? xs : 0.0, y = 1.0 - x;
        const double sr = 1.0 - x * x * x * (10.0 - x * (15.0 - 6.0 * x));
        const double dsdr = -30.0 * x * x * y * y * iw;
        /* the shift adds -qq/R^2 r/|r| to the force on k; the switch -e dS/dr r/|r| */
        const double radial = -(sr * qq * iR2 + e * dsdr) / rr;
        fx[s] = sr * fx[s] + radial * b->rx[s];
        fy[s] = sr * fy[s] + radial * b->ry[s];
        fz[s] = sr * fz[s] + radial * b->rz[s];
        tx[s] *= sr;
        ty[s] *= sr;
        tz[s] *= sr;
        pe[s] = sr * e;
    }
}

/* Sums over one atom's batch: energy, force on the neighbours (minus that on i), torque on
 * i (sum of -tk - r x frc), virial (the pairs' r (x) frc, symmetrised as in
 * amoeba_pair_apply). */
typedef struct {
    double e, f[3], t[3], vir[6];
} mpole_sums;

static mpole_sums mpole_sum(const amoeba_batch *b)
{
    const size_t cap = (size_t)b->cap;
    const double *pe = b->scratch + OUT_E * cap, *pf = b->scratch + OUT_F * cap,
                 *pt = b->scratch + OUT_TK * cap;
    const double *rx = b->rx, *ry = b->ry, *rz = b->rz;
    double e = 0, fx = 0, fy = 0, fz = 0, tx = 0, ty = 0, tz = 0;
    double vxx = 0, vyy = 0, vzz = 0, vxy = 0, vxz = 0, vyz = 0;
#pragma omp simd reduction(+ : e, fx, fy, fz, tx, ty, tz, vxx, vyy, vzz, vxy, vxz, vyz)
    for (int s = 0; s < padded(b->n); s++) {
        const double f0 = pf[s], f1 = pf[cap + s], f2 = pf[2 * cap + s];
        e += pe[s];
        fx += f0;
        fy += f1;
        fz += f2;
        tx -= pt[s] + ry[s] * f2 - rz[s] * f1;
        ty -= pt[cap + s] + rz[s] * f0 - rx[s] * f2;
        tz -= pt[2 * cap + s] + rx[s] * f1 - ry[s] * f0;
        vxx += rx[s] * f0;
        vyy += ry[s] * f1;
        vzz += rz[s] * f2;
        vxy += 0.5 * (ry[s] * f0 + rx[s] * f1);
        vxz += 0.5 * (rz[s] * f0 + rx[s] * f2);
        vyz += 0.5 * (rz[s] * f1 + ry[s] * f2);
    }
    const mpole_sums sum = {e, {fx, fy, fz}, {tx, ty, tz}, {vxx, vyy, vzz, vxy, vxz, vyz}};
    return sum;
}

/* Add a batch's results: each pair's force and torque on k (and half its energy and virial
 * when per-atom values are asked for) in list order, then the sums on i. */
static void mpole_apply(const amoeba_batch *b, int i, const mpole_sums *sum, double (*f)[3],
                        double (*tq)[3], double *eatom, double (*vatom)[6])
{
    const size_t cap = (size_t)b->cap;
    const double *e = b->scratch + OUT_E * cap, *fk = b->scratch + OUT_F * cap,
                 *tk = b->scratch + OUT_TK * cap;
    for (int s = 0; s < b->n; s++) {
        const int k = b->k[s];
        for (int d = 0; d < 3; d++) {
            f[k][d] += fk[d * cap + s];
            tq[k][d] += tk[d * cap + s];
        }
        if (eatom) eatom[k] += 0.5 * e[s];
        if (vatom) {
            const double r[3] = {b->rx[s], b->ry[s], b->rz[s]};
            const double frc[3] = {fk[s], fk[cap + s], fk[2 * cap + s]};
            const double v[6] = {r[0] * frc[0], r[1] * frc[1], r[2] * frc[2],
                                 0.5 * (r[1] * frc[0] + r[0] * frc[1]),
                                 0.5 * (r[2] * frc[0] + r[0] * frc[2]),
                                 0.5 * (r[2] * frc[1] + r[1] * frc[2])};
            for (int c = 0; c < 6; c++) vatom[k][c] += 0.5 * v[c];
        }
    }
    for (int d = 0; d < 3; d++) {
        f[i][d] -= sum->f[d];
        tq[i][d] += sum->t[d];
    }
    if (eatom) eatom[i] += 0.5 * sum->e;
    if (vatom)
        for (int c = 0; c < 6; c++) vatom[i][c] += 0.5 * sum->vir[c];
}

pk_code pk_amoeba_mpole(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                        const pk_amoeba_pairs *pairs, const double (*rpole)[13], double (*torque)[3], pk_amoeba_work *w, pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();
    const double felec = PK_AMOEBA_ELECTRIC / m->dielectric;
    const double cut = m->set.mpole_cut;
    amoeba_switch sw;

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk mpole: no force array");
    if (amoeba_switch_init(m, 0, &sw, st)) return st->code;
    for (int i = 0; i < nall; i++) torque[i][0] = torque[i][1] = torque[i][2] = 0.0;
    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        pk_accum_begin(&w->acc_t, nt, &torque[0][0], (size_t)nall * 3, st) ||
        (out->eatom && pk_accum_begin(&w->acc_e, nt, out->eatom, (size_t)nall, st)) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
        amoeba_batches_begin(&w->batches, nl, nt, NSCRATCH, st) ||
        amoeba_partials_begin(w, nt, st))
        return st->code;

#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double (*tq)[3] = (double (*)[3])pk_accum_slice(&w->acc_t, tid);
        double *eatom = out->eatom ? pk_accum_slice(&w->acc_e, tid) : NULL;
        double (*vatom)[6] = out->vatom ? (double (*)[6])pk_accum_slice(&w->acc_v, tid) : NULL;
        double *part = amoeba_partials_slice(w, tid);
        amoeba_batch b = amoeba_batch_slice(&w->batches, tid);
        double esum = 0.0, vir[6] = {0, 0, 0, 0, 0, 0};
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const mpole_site si = mpole_site_of(rpole[i]);
            amoeba_batch_pairs(&b, pairs, x, i, ii, cut * cut, 0);
            mpole_fill(&b, rpole, m->mpole_scale, felec);
#pragma omp simd
            for (int s = 0; s < padded(b.n); s++) mpole_simd_pair(&si, &b, s);
            if (sw.on) mpole_smooth_batch(&b, si.c, &sw, cut);
            const mpole_sums sum = mpole_sum(&b);
            mpole_apply(&b, i, &sum, f, tq, eatom, vatom);
            esum += sum.e;
            for (int c = 0; c < 6; c++) vir[c] += sum.vir[c];
        }
        part[0] = esum;
        for (int k = 0; k < 6; k++) part[1 + k] = vir[k];
    }
    pk_accum_reduce(&w->acc_f);
    pk_accum_reduce(&w->acc_t);
    if (out->eatom) pk_accum_reduce(&w->acc_e);
    if (out->vatom) pk_accum_reduce(&w->acc_v);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
