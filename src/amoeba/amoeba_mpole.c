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
 * moments, turned into forces on the frame atoms by pk_amoeba_torque_forces. */
#include <math.h>

#include "amoeba_internal.h"

static inline void matvec(const double *q, const double v[3], double out[3])
{
    for (int a = 0; a < 3; a++) out[a] = q[3 * a] * v[0] + q[3 * a + 1] * v[1] + q[3 * a + 2] * v[2];
}

/* One pair: energy, force on k (-force on i), torques on i and k. b[n] are the radial
 * kernels B_n (including constants and scale factors); the force uses dB_n/dr = -r B_n+1,
 * which the plain (2n-1)!!/r^(2n+1) and the Thole-damped kernels both satisfy. */
double amoeba_mpole_pair(const amoeba_site *si, const amoeba_site *sk, const double r[3],
                         const double b[6], double frc[3], double ti[3], double tk[3])
{
    double qi[3], qk[3], qid[3], qkd[3], qiqk[3], qkqi[3];
    matvec(si->q, r, qi);          /* Qi r */
    matvec(sk->q, r, qk);          /* Qk r */
    matvec(si->q, sk->d, qid);     /* Qi dk */
    matvec(sk->q, si->d, qkd);     /* Qk di */
    matvec(si->q, qk, qiqk);       /* Qi Qk r */
    matvec(sk->q, qi, qkqi);       /* Qk Qi r */
    const double dir = dot3(si->d, r), dkr = dot3(sk->d, r);
    const double qir = dot3(qi, r), qkr = dot3(qk, r);
    const double dik = dot3(si->d, sk->d), qik = dot3(qi, qk);
    const double diqk = dot3(si->d, qk), dkqi = dot3(sk->d, qi);
    double qq = 0.0;
    for (int a = 0; a < 9; a++) qq += si->q[a] * sk->q[a];

    const double t1 = si->c * sk->c;
    const double t2 = sk->c * dir - si->c * dkr + dik;
    const double t3 = si->c * qkr + sk->c * qir - dir * dkr + 2.0 * (dkqi - diqk + qq);
    const double t4 = dir * qkr - dkr * qir - 4.0 * qik;
    const double t5 = qir * qkr;
    const double e = t1 * b[0] + t2 * b[1] + t3 * b[2] + t4 * b[3] + t5 * b[4];

    /* -dE/dr pieces: radial part plus the explicit r-dependence of the moment products */
    const double de = t1 * b[1] + t2 * b[2] + t3 * b[3] + t4 * b[4] + t5 * b[5];
    const double g1 = -sk->c * b[1] + dkr * b[2] - qkr * b[3];
    const double g2 = si->c * b[1] + dir * b[2] + qir * b[3];
    const double g3 = 2.0 * b[2];
    const double g4 = 2.0 * (-sk->c * b[2] + dkr * b[3] - qkr * b[4]);
    const double g5 = 2.0 * (-si->c * b[2] - dir * b[3] - qir * b[4]);
    const double g6 = 4.0 * b[3];
    for (int a = 0; a < 3; a++)
        frc[a] = de * r[a] + g1 * si->d[a] + g2 * sk->d[a] + g3 * (qkd[a] - qid[a]) +
                 g4 * qi[a] + g5 * qk[a] + g6 * (qiqk[a] + qkqi[a]);

    /* torques: moment x field-like terms (Tinker emreal1d) */
    double dxd[3], dixr[3], dkxr[3], rxqi[3], rxqk[3], rxqid[3], rxqkd[3], rxqiqk[3], rxqkqi[3],
        qkxqi[3], dqik[3], tmp[3];
    cross3(si->d, sk->d, dxd);
    cross3(si->d, r, dixr);
    cross3(sk->d, r, dkxr);
    cross3(r, qi, rxqi);
    cross3(r, qk, rxqk);
    cross3(r, qid, rxqid);
    cross3(r, qkd, rxqkd);
    cross3(r, qiqk, rxqiqk);
    cross3(r, qkqi, rxqkqi);
    cross3(qk, qi, qkxqi);
    /* di x Qk r + dk x Qi r - 2 axial(Qi Qk) */
    cross3(si->d, qk, dqik);
    cross3(sk->d, qi, tmp);
    double m[9];
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            m[3 * a + c] = si->q[3 * a] * sk->q[c] + si->q[3 * a + 1] * sk->q[3 + c] +
                           si->q[3 * a + 2] * sk->q[6 + c];
    const double ax[3] = {m[5] - m[7], m[6] - m[2], m[1] - m[3]};
    for (int a = 0; a < 3; a++) dqik[a] += tmp[a] - 2.0 * ax[a];
    for (int a = 0; a < 3; a++) {
        ti[a] = -b[1] * dxd[a] + g1 * dixr[a] + g3 * (dqik[a] + rxqid[a]) - g4 * rxqi[a] -
                g6 * (rxqiqk[a] + qkxqi[a]);
        tk[a] = b[1] * dxd[a] + g2 * dkxr[a] - g3 * (dqik[a] + rxqkd[a]) - g5 * rxqk[a] -
                g6 * (rxqkqi[a] - qkxqi[a]);
    }
    return e;
}

/* SMOOTH mode (pk_amoeba.h): the pair energy e with its charge-charge part shifted,
 * qq/r -> qq (1/r - 1/R + (r - R)/R^2), then all of it times S(r); frc (force on k) and the
 * torques follow. qq is the scaled charge product times the Coulomb constant. */
static double smooth_pair(const amoeba_switch *sw, double R, double qq, const double r[3], double rr,
                          double e, double frc[3], double ti[3], double tk[3])
{
    const double iR2 = 1.0 / (R * R);
    e -= qq * (2.0 * R - rr) * iR2;
    double dsdr;
    const double s = amoeba_switch_eval(sw, rr, rr * rr, &dsdr);
    /* the shift adds -qq/R^2 r/|r| to the force on k; the switch -e dS/dr r/|r| */
    const double radial = -(s * qq * iR2 + e * dsdr) / rr;
    for (int d = 0; d < 3; d++) {
        frc[d] = s * frc[d] + radial * r[d];
        ti[d] *= s;
        tk[d] *= s;
    }
    return s * e;
}

pk_code pk_amoeba_mpole(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl, const double (*rpole)[13],
                        double (*torque)[3], pk_amoeba_work *w, pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();
    const double felec = PK_AMOEBA_ELECTRIC / m->dielectric;
    const double off2 = m->set.mpole_cut * m->set.mpole_cut;
    amoeba_switch sw;

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk mpole: no force array");
    if (amoeba_switch_init(m, 0, &sw, st)) return st->code;
    for (int i = 0; i < nall; i++) torque[i][0] = torque[i][1] = torque[i][2] = 0.0;
    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        pk_accum_begin(&w->acc_t, nt, &torque[0][0], (size_t)nall * 3, st) ||
        (out->eatom && pk_accum_begin(&w->acc_e, nt, out->eatom, (size_t)nall, st)) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
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
        double esum = 0.0, vir[6] = {0, 0, 0, 0, 0, 0};
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const amoeba_site si = amoeba_site_of(rpole[i]);
            const int *jlist = nl->firstneigh[i];
            for (int jj = 0; jj < nl->numneigh[i]; jj++) {
                const int k = jlist[jj] & PK_AMOEBA_NEIGHMASK;
                const double scale = m->mpole_scale[pk_amoeba_special(jlist[jj])];
                if (scale == 0.0) continue;
                const double r[3] = {x[k][0] - x[i][0], x[k][1] - x[i][1], x[k][2] - x[i][2]};
                const double r2 = dot3(r, r);
                if (r2 > off2) continue;
                const amoeba_site sk = amoeba_site_of(rpole[k]);
                double b[6], frc[3], ti[3], tk[3];
                const double rr = sqrt(r2);
                b[0] = felec * scale / rr;
                for (int n = 1; n < 6; n++) b[n] = (2 * n - 1) * b[n - 1] / r2;
                double e = amoeba_mpole_pair(&si, &sk, r, b, frc, ti, tk);
                if (sw.on)
                    e = smooth_pair(&sw, m->set.mpole_cut, felec * scale * si.c * sk.c, r, rr, e,
                                    frc, ti, tk);
                esum += e;
                if (eatom) {
                    eatom[i] += 0.5 * e;
                    eatom[k] += 0.5 * e;
                }
                amoeba_pair_apply(f, tq, vir, vatom, i, k, r, frc, ti, tk);
            }
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
