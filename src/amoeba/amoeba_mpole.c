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
 * The pairs of one atom i run over its neighbour batch (amoeba_batch.c): a SIMD loop
 * reads the neighbours' moments from their rpole rows and computes each pair's energy,
 * force and torque on k (in SMOOTH mode also shifted and switched) into scratch arrays;
 * a loop over groups of four pairs adds the forces and torques to the atoms k in list
 * order and sums the energy, virial and force and torque on i. A backend's
 * amoeba_mpole_fn (amoeba_kernels.h) may take the place of both loops. */
#include <math.h>

#include "amoeba_kernels.h"
#include "amoeba_lanes.h"

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
static inline __attribute__((always_inline)) double
amoeba_mpole_pair(const mpole_site *si, const mpole_site *sk, const double r[3], const double b[6],
                  double frc[3], double tk[3])
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
     * where the quadrupole terms regroup as Qk U + Qi W with u = g3 di + g6 Qi r,
     * U = u + g5 r and W = g6 Qk r - g3 dk + g4 r */
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
    qmul(sk->q, uu, qku);
    qmul(si->q, ww, qiw);
    for (int d = 0; d < 3; d++) frc[d] = de * r[d] + g1 * di[d] + p2[d] + qku[d] + qiw[d];

    /* torque on k: moment x field-like terms (Tinker emreal1d),
     *   tk = B1 di x dk + g2 dk x r - g5 r x Qk r - g6 (r x Qk Qi r - Qk r x Qi r)
     *        - g3 (di x Qk r + dk x Qi r - 2 axial(Qi Qk) + r x Qk di)
     *      = dk x (-B1 di - g3 Qi r) + Qk r x u + 2 g3 axial(Qi Qk)
     *        - r x (g2 dk + Qk U);
     * with symmetric Qi, Qk the axial vector of Qi Qk (its antisymmetric part) is
     * sum_c (Qi e_c) x (Qk e_c), written out below in the six components of each */
    const double ax[3] = {a[1] * c[2] - a[2] * c[1] + (a[3] - a[5]) * c[4] + a[4] * (c[5] - c[3]),
                          a[4] * c[1] - a[1] * c[4] + (a[5] - a[0]) * c[2] + a[2] * (c[0] - c[5]),
                          a[2] * c[4] - a[4] * c[2] + (a[0] - a[3]) * c[1] + a[1] * (c[3] - c[0])};
    double v1[3], v2[3], x1[3], x2[3], x3[3];
    for (int d = 0; d < 3; d++) {
        v1[d] = -b[1] * di[d] - g3 * qi[d];
        v2[d] = p2[d] + qku[d];
    }
    cross3(dk, v1, x1);
    cross3(qk, u, x2);
    cross3(r, v2, x3);
    for (int d = 0; d < 3; d++) tk[d] = x1[d] + x2[d] - x3[d] + 2.0 * g3 * ax[d];
    return e;
}

/* The batch's scratch arrays are M_ROW..M_COUNT (amoeba_kernels.h). */

/* The SIMD loops run over whole vectors of 4 pairs, the batch's padding included
 * (amoeba_padded; r = (1, 0, 0), partner 0): a padding pair gets scale factor 0, so B_n = 0
 * and its results are exactly 0. */

/* Sums over one atom's batch: energy, force on the neighbours (minus that on i), torque on
 * i (sum of -tk - r x frc), virial (the pairs' r (x) frc, symmetrised as in
 * amoeba_pair_virial). */
typedef struct {
    double e, f[3], t[3], vir[6];
} mpole_sums;

/* What the batch kernel of one atom i reads besides the batch: i's moments, the partners'
 * rows (rpole), the Coulomb constant times the 1-n scale factor by special class, and the
 * SMOOTH mode parameters (pk_amoeba.h): the cutoff R and the switch. */
typedef struct {
    mpole_site si;
    const double *rpole;
    double fscale[5];
    double R, iR2, start, iw;
} mpole_ctx;

/* Pair s of the batch of atom i: energy, force on k and torque on k into the scratch. The
 * partner's moments are read from its rpole row. With smooth (a constant after inlining)
 * the pair's energy e gets its charge-charge part shifted, qq/r -> qq (1/r - 1/R +
 * (r - R)/R^2) (qq: the scaled charge product times the Coulomb constant), then all of it
 * times S(r) = 1 - 10 x^3 + 15 x^4 - 6 x^5, x = (r - start) / width clamped at 0
 * (amoeba_switch_x); the force on k picks up the shift's and the switch's radial terms, the
 * torque on k (and so that on i) scales with S. Always inlined into the SIMD loop, which
 * must not take the addresses of its own locals (GCC then keeps them in memory per lane
 * and does not vectorize): all arrays live in here. */
static inline __attribute__((always_inline)) void
mpole_simd_pair(const mpole_ctx *c, const double *rpole, const amoeba_batch *b, int s,
                int smooth)
{
    double *io = b->scratch;
    const size_t cap = (size_t)b->cap;
    const long o = ((const long *)io)[M_ROW * cap + s];   /* rpole indexed: a gather */
    const mpole_site sk = {rpole[o], {rpole[o + 1], rpole[o + 2], rpole[o + 3]},
                           {rpole[o + 4], rpole[o + 5], rpole[o + 6], rpole[o + 8], rpole[o + 9],
                            rpole[o + 12]}};
    const double r[3] = {b->rx[s], b->ry[s], b->rz[s]};
    const double ir = 1.0 / sqrt(b->r2[s]), ir2 = ir * ir;
    const double fs = io[M_FSCALE * cap + s];
    double bn[6], frc[3], tk[3];
    bn[0] = fs * ir;
    for (int n = 1; n < 6; n++) bn[n] = (2 * n - 1) * bn[n - 1] * ir2;
    double e = amoeba_mpole_pair(&c->si, &sk, r, bn, frc, tk);
    if (smooth) {
        const double rr = b->r2[s] * ir, qq = fs * c->si.c * sk.c;
        const double es = e - qq * (2.0 * c->R - rr) * c->iR2;
        const double x = amoeba_switch_x(rr, c->start, c->iw);
        const double sr = amoeba_switch_s(x), dsdr = amoeba_switch_dsdx(x) * c->iw;
        /* the shift adds -qq/R^2 r/|r| to the force on k; the switch -e dS/dr r/|r| */
        const double radial = -(sr * qq * c->iR2 + es * dsdr) * ir;
        for (int d = 0; d < 3; d++) {
            frc[d] = sr * frc[d] + radial * r[d];
            tk[d] *= sr;
        }
        e = sr * es;
    }
    io[M_E * cap + s] = e;
    for (int d = 0; d < 3; d++) {
        io[(M_F + d) * cap + s] = frc[d];
        io[(M_TK + d) * cap + s] = tk[d];
    }
}

/* The inputs of the pairs of atom i with its batch: the partners' rows, the scale factors
 * (0 for the padding). */
static inline __attribute__((always_inline)) void mpole_inputs(const mpole_ctx *c,
                                                               const amoeba_batch *b)
{
    const size_t cap = (size_t)b->cap;
    const double *fscale = c->fscale;
    long *row = (long *)b->scratch + M_ROW * cap;
    double *fs = b->scratch + M_FSCALE * cap;
    const int *ks = b->k, *cls = b->cls, n = b->n;
#pragma omp simd
    for (int s = 0; s < amoeba_padded(n); s++) {
        const double f = fscale[cls[s]];
        row[s] = 13 * (long)ks[s];
        fs[s] = s < n ? f : 0.0;
    }
}

/* The pairs of atom i with its batch: their inputs, then the pairs themselves in one SIMD
 * loop (mpole_simd_pair). */
static inline __attribute__((always_inline)) void mpole_batch(const mpole_ctx *c,
                                                              const amoeba_batch *b, int smooth)
{
    const double *rpole = c->rpole;
    const int n = b->n;
    mpole_inputs(c, b);
#pragma omp simd
    for (int s = 0; s < amoeba_padded(n); s++) mpole_simd_pair(c, rpole, b, s, smooth);
}

/* Add the batch's results: the force and torque on each partner k, four pairs at a time
 * (amoeba_add_force_torque4; the padding adds zeros to partner 0), while summing them
 * (mpole_sums); when per-atom values are asked for, half each pair's energy and virial to
 * k; then the sums on i. */
static mpole_sums mpole_apply(const amoeba_batch *b, int i, double (*f)[3], double (*tq)[3],
                              double *eatom, double (*vatom)[6])
{
    const size_t cap = (size_t)b->cap;
    const double *out = b->scratch;
    const int *ks = b->k;
    const lane4 zero = {0.0, 0.0, 0.0, 0.0};
    lane4 se = zero, sf[3] = {zero, zero, zero}, st[3] = {zero, zero, zero};
    lane4 sv[6] = {zero, zero, zero, zero, zero, zero};
    for (int s = 0; s < amoeba_padded(b->n); s += 4) {
        lane4 v[6];
        for (int d = 0; d < 6; d++) v[d] = lane4_load(out + (M_F + d) * cap + s);
        const lane4 rx = lane4_load(b->rx + s), ry = lane4_load(b->ry + s),
                    rz = lane4_load(b->rz + s);
        se += lane4_load(out + M_E * cap + s);
        for (int d = 0; d < 3; d++) sf[d] += v[d];
        /* torque on i: -tk - r x frc */
        st[0] -= v[3] + ry * v[2] - rz * v[1];
        st[1] -= v[4] + rz * v[0] - rx * v[2];
        st[2] -= v[5] + rx * v[1] - ry * v[0];
        sv[0] += rx * v[0], sv[1] += ry * v[1], sv[2] += rz * v[2];
        sv[3] += ry * v[0] + rx * v[1];
        sv[4] += rz * v[0] + rx * v[2];
        sv[5] += rz * v[1] + ry * v[2];
        amoeba_add_force_torque4(v, ks + s, f, tq);
    }
    mpole_sums sum;
    sum.e = lane4_sum(se);
    for (int d = 0; d < 3; d++) {
        sum.f[d] = lane4_sum(sf[d]);
        sum.t[d] = lane4_sum(st[d]);
        sum.vir[d] = lane4_sum(sv[d]);
        sum.vir[3 + d] = 0.5 * lane4_sum(sv[3 + d]);
    }
    if (eatom || vatom) {
        const double *pe = out + M_E * cap, *fk = out + M_F * cap;
        for (int s = 0; s < b->n; s++) {
            const int k = ks[s];
            if (eatom) eatom[k] += 0.5 * pe[s];
            if (vatom) {
                const double r[3] = {b->rx[s], b->ry[s], b->rz[s]};
                const double frc[3] = {fk[s], fk[cap + s], fk[2 * cap + s]};
                double v[6];
                amoeba_pair_virial(r, frc, v);
                for (int c = 0; c < 6; c++) vatom[k][c] += 0.5 * v[c];
            }
        }
    }
    for (int d = 0; d < 3; d++) {
        f[i][d] -= sum.f[d];
        tq[i][d] += sum.t[d];
    }
    if (eatom) eatom[i] += 0.5 * sum.e;
    if (vatom)
        for (int c = 0; c < 6; c++) vatom[i][c] += 0.5 * sum.vir[c];
    return sum;
}

pk_code pk_amoeba_mpole(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                        const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                        double (*torque)[3], pk_amoeba_work *w, pk_out *out, pk_status *st)
{
    return amoeba_mpole_run(&AMOEBA_PORTABLE, m, a, nl, pairs, rpole, torque, w, out, st);
}

pk_code amoeba_mpole_run(const amoeba_kernels *kern, const pk_amoeba_model *m, const pk_atoms *a,
                         const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                         const double (*rpole)[13], double (*torque)[3], pk_amoeba_work *w,
                         pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
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
        amoeba_batches_begin(&w->batches, nl, nt, M_COUNT, st) ||
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
        mpole_ctx ctx = {.rpole = &rpole[0][0], .R = cut, .iR2 = 1.0 / (cut * cut),
                         .start = sw.on ? sw.start : 0.0, .iw = sw.on ? 1.0 / sw.width : 1.0};
        for (int k = 0; k < 5; k++) ctx.fscale[k] = felec * m->mpole_scale[k];
        const amoeba_mpole_ctx kc = {.rpole = rpole, .R = ctx.R, .iR2 = ctx.iR2,
                                     .start = ctx.start, .iw = ctx.iw, .smooth = sw.on};
        double esum = 0.0, vir[6] = {0, 0, 0, 0, 0, 0};
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            ctx.si = mpole_site_of(rpole[i]);
            amoeba_batch_pairs(&b, pairs, i, ii, cut * cut, 0);
            if (kern->mpole) {
                double sums[7];
                mpole_inputs(&ctx, &b);
                kern->mpole(&kc, i, &b, amoeba_padded(b.n), f, tq, eatom, vatom, sums);
                esum += sums[0];
                for (int c = 0; c < 6; c++) vir[c] += sums[1 + c];
                continue;
            }
            if (sw.on) mpole_batch(&ctx, &b, 1);
            else mpole_batch(&ctx, &b, 0);
            const mpole_sums sum = mpole_apply(&b, i, f, tq, eatom, vatom);
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
