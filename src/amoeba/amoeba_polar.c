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
 * up -e dS/dr r/|r| (e the pair's sum of the three energies); torques scale with S. */
#include <math.h>

#include "amoeba_internal.h"

/* Point dipole p at i with the multipole site m at k (r = x_k - x_i): adds the force on k
 * to frc and the torque on k to tk; returns the pair energy. */
static double dipole_multipole(const double p[3], const amoeba_site *m, const double r[3],
                               const double b[6], double frc[3], double tk[3])
{
    double qk[3], qkp[3];
    for (int a = 0; a < 3; a++) {
        qk[a] = m->q[3 * a] * r[0] + m->q[3 * a + 1] * r[1] + m->q[3 * a + 2] * r[2];
        qkp[a] = m->q[3 * a] * p[0] + m->q[3 * a + 1] * p[1] + m->q[3 * a + 2] * p[2];
    }
    const double dir = dot3(p, r), dkr = dot3(m->d, r), qkr = dot3(qk, r);
    const double dik = dot3(p, m->d), diqk = dot3(p, qk);
    const double t2 = m->c * dir + dik;
    const double t3 = -dir * dkr - 2.0 * diqk;
    const double t4 = dir * qkr;
    const double de = t2 * b[2] + t3 * b[3] + t4 * b[4];
    const double g1 = -m->c * b[1] + dkr * b[2] - qkr * b[3];
    const double g2 = dir * b[2];
    const double g3 = 2.0 * b[2];
    const double g5 = -2.0 * dir * b[3];
    double pxd[3], dxr[3], pxq[3], rxqp[3], rxq[3];
    cross3(p, m->d, pxd);
    cross3(m->d, r, dxr);
    cross3(p, qk, pxq);
    cross3(r, qkp, rxqp);
    cross3(r, qk, rxq);
    for (int a = 0; a < 3; a++) {
        frc[a] += de * r[a] + g1 * p[a] + g2 * m->d[a] + g3 * qkp[a] + g5 * qk[a];
        tk[a] += b[1] * pxd[a] + g2 * dxr[a] - g3 * (pxq[a] + rxqp[a]) - g5 * rxq[a];
    }
    return t2 * b[1] + t3 * b[2] + t4 * b[3];
}

/* Point dipoles p at i and q at k: adds the force on k to frc; returns the pair energy. */
static double dipole_dipole(const double p[3], const double q[3], const double r[3],
                            const double b[6], double frc[3])
{
    const double dir = dot3(p, r), dkr = dot3(q, r), dik = dot3(p, q);
    const double de = dik * b[2] - dir * dkr * b[3];
    for (int a = 0; a < 3; a++) frc[a] += de * r[a] + dkr * b[2] * p[a] + dir * b[2] * q[a];
    return dik * b[1] - dir * dkr * b[2];
}

pk_code pk_amoeba_polar_forces(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                               const double (*rpole)[13], const double (*u)[6],
                               double (*torque)[3], pk_amoeba_work *w, pk_out *out,
                               pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();
    const double hf = 0.5 * PK_AMOEBA_ELECTRIC / m->dielectric;
    const double off2 = m->set.polar_cut * m->set.polar_cut;
    const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
    amoeba_switch sw;

    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk polar: no force array");
    if (amoeba_switch_init(m, 1, &sw, st)) return st->code;
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        pk_accum_begin(&w->acc_t, nt, &torque[0][0], (size_t)nall * 3, st) ||
        (out->vatom && pk_accum_begin(&w->acc_v, nt, &out->vatom[0][0], (size_t)nall * 6, st)) ||
        amoeba_partials_begin(w, nt, st))
        return st->code;

#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double (*tq)[3] = (double (*)[3])pk_accum_slice(&w->acc_t, tid);
        double (*vatom)[6] = out->vatom ? (double (*)[6])pk_accum_slice(&w->acc_v, tid) : NULL;
        double *part = amoeba_partials_slice(w, tid);
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const amoeba_site mi = amoeba_site_of(rpole[i]);
            const int *jlist = nl->firstneigh[i];
            for (int jj = 0; jj < nl->numneigh[i]; jj++) {
                const int k = jlist[jj] & PK_AMOEBA_NEIGHMASK;
                const int cls = pk_amoeba_special(jlist[jj]);
                const double r[3] = {x[k][0] - x[i][0], x[k][1] - x[i][1], x[k][2] - x[i][2]};
                const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                if (r2 > off2) continue;
                const int same = s->amgroup[i] == s->amgroup[k];
                const double dscale = same ? m->direct11_scale : 1.0;
                const double pscale = same ? m->polar_intra[cls] : m->polar_scale[cls];
                const double uscale = mutual ? (same ? m->mutual11_scale : 1.0) : 0.0;
                if (dscale == 0.0 && pscale == 0.0 && uscale == 0.0) continue;

                const double rr = sqrt(r2);
                double l[4];
                amoeba_thole(m, s->amtype[i], s->amtype[k], rr, l);
                /* undamped 1/r^3, 3/r^5, 15/r^7, 105/r^9 times the damping factors */
                double kern[4];
                kern[0] = l[0] / (rr * r2);
                kern[1] = 3.0 * l[1] / (rr * r2 * r2);
                kern[2] = 15.0 * l[2] / (rr * r2 * r2 * r2);
                kern[3] = 105.0 * l[3] / (rr * r2 * r2 * r2 * r2);
                double b[6] = {0}, bu[6] = {0};
                for (int n = 0; n < 4; n++) {
                    b[1 + n] = hf * kern[n];
                    bu[1 + n] = hf * uscale * kern[n];
                }
                const amoeba_site mk = amoeba_site_of(rpole[k]);
                double frc[3] = {0, 0, 0}, ti[3] = {0, 0, 0}, tk[3] = {0, 0, 0}, e = 0.0;
                if (dscale != 0.0 || pscale != 0.0) {   /* u_p in the d field, u_d in the p field */
                    double ci[3], ck[3], back[3] = {0, 0, 0};
                    const double mr[3] = {-r[0], -r[1], -r[2]};
                    for (int d = 0; d < 3; d++) {
                        ci[d] = dscale * u[i][3 + d] + pscale * u[i][d];
                        ck[d] = dscale * u[k][3 + d] + pscale * u[k][d];
                    }
                    e += dipole_multipole(ci, &mk, r, b, frc, tk);
                    /* k's dipole with i's moments: the same kernel seen from k */
                    e += dipole_multipole(ck, &mi, mr, b, back, ti);
                    for (int d = 0; d < 3; d++) frc[d] -= back[d];
                }
                if (uscale != 0.0) {   /* u_p with u_d */
                    e += dipole_dipole(u[i] + 3, u[k], r, bu, frc);
                    e += dipole_dipole(u[i], u[k] + 3, r, bu, frc);
                }
                /* SMOOTH: the fields and T of the solve were switched by S(r), so the pair's
                 * part of the energy above is S e: force S F - e dS/dr r/|r|, torques S t */
                double dsdr;
                const double sr = amoeba_switch_eval(&sw, rr, r2, &dsdr);
                if (sr != 1.0 || dsdr != 0.0)
                    for (int d = 0; d < 3; d++) {
                        frc[d] = sr * frc[d] - e * dsdr * r[d] / rr;
                        ti[d] *= sr;
                        tk[d] *= sr;
                    }
                amoeba_pair_apply(f, tq, part + 1, vatom, i, k, r, frc, ti, tk);
            }
        }
    }
    pk_accum_reduce(&w->acc_f);
    pk_accum_reduce(&w->acc_t);
    if (out->vatom) pk_accum_reduce(&w->acc_v);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
