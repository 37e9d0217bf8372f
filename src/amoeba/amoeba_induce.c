/* Induced dipoles (AMOEBA polarization without Ewald, as LAMMPS amoeba / Tinker induce.f).
 *
 * Each polarizable site i gets dipoles u = alpha_i (E_perm + E_ind), E_ind the field of
 * all other induced dipoles, for two scalings of the permanent field (Ren & Ponder 2003;
 * Tinker's "d" set with direct-11-scale inside polarization groups, and "p" set with
 * polar-1n-scale / polar-1n-intra by special class). Interactions are Thole-damped:
 * with a = min(thole_i, thole_k) (r / (alpha_i alpha_k)^(1/6))^3 the 1/r^3, 1/r^5 and 1/r^7
 * kernels are multiplied by
 *   l3 = 1 - e^-a,   l5 = 1 - (1 + a) e^-a,   l7 = 1 - (1 + a + 3/5 a^2) e^-a
 * (Thole, Chem. Phys. 59, 341 (1981); Ren & Ponder eq. 8). Each factor satisfies
 * l_{n+2} = l_n - r/n dl_n/dr, so the damped kernels keep dB_n/dr = -r B_n+1; the next
 * one, l9 = 1 - (1 + a + 18/35 a^2 + 9/35 a^3) e^-a, is needed by forces. The mutual equations
 * (alpha^-1 - T) u = E_perm are solved by preconditioned conjugate gradients; the
 * dipole-dipole tensors T_ik = l5 3 r r^T / r^5 - l3 I / r^3 (times mutual-11-scale
 * inside a group) are computed once per call and reused by every iteration. In SMOOTH
 * mode the permanent fields, T_ik and the preconditioner blocks of a pair carry S(r_ik)
 * (pk_amoeba.h). */
#include <math.h>
#include <string.h>

#include "amoeba_internal.h"

#define POLMIN 1.0e-8   /* smallest polarizability used as a PCG weight (LAMMPS) */

void pk_amoeba_induce_work_free(pk_amoeba_induce_work *w)
{
    pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->zrsd, &w->conj, &w->vec, &w->poli,
                      &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors, &w->counts};
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) pk_buffer_free(b[k]);
    pk_accum_free(&w->acc);
}

void amoeba_thole(const pk_amoeba_model *m, int ti, int tk, double r, double l[4])
{
    l[0] = l[1] = l[2] = l[3] = 1.0;
    const double d = m->pdamp[ti] * m->pdamp[tk];
    if (d == 0.0) return;
    const double g = fmin(m->thole[ti], m->thole[tk]);
    const double u = r / d;
    const double a = g * u * u * u;
    if (a >= 50.0) return;
    const double e = exp(-a);
    l[0] = 1.0 - e;
    l[1] = 1.0 - e * (1.0 + a);
    l[2] = 1.0 - e * (1.0 + a + 0.6 * a * a);
    l[3] = 1.0 - e * (1.0 + a + (18.0 / 35.0) * a * a + (9.0 / 35.0) * a * a * a);
}

/* Field of site k's permanent moments at i (fi) and of i's at k (fk); r = x_k - x_i and
 * b[n] the damped, scaled kernels 1/r^3, 3/r^5, 15/r^7 (Tinker udirect2b). */
static void perm_field(const double *pi, const double *pk, const double r[3], const double b[3],
                       double fi[3], double fk[3])
{
    double qi[3], qk[3];
    for (int a = 0; a < 3; a++) {
        qi[a] = pi[4 + 3 * a] * r[0] + pi[5 + 3 * a] * r[1] + pi[6 + 3 * a] * r[2];
        qk[a] = pk[4 + 3 * a] * r[0] + pk[5 + 3 * a] * r[1] + pk[6 + 3 * a] * r[2];
    }
    const double dir = pi[1] * r[0] + pi[2] * r[1] + pi[3] * r[2];
    const double dkr = pk[1] * r[0] + pk[2] * r[1] + pk[3] * r[2];
    const double qir = qi[0] * r[0] + qi[1] * r[1] + qi[2] * r[2];
    const double qkr = qk[0] * r[0] + qk[1] * r[1] + qk[2] * r[2];
    const double ck = b[0] * pk[0] - b[1] * dkr + b[2] * qkr;
    const double ci = b[0] * pi[0] + b[1] * dir + b[2] * qir;
    for (int a = 0; a < 3; a++) {
        fi[a] = -r[a] * ck - b[0] * pk[1 + a] + 2.0 * b[1] * qk[a];
        fk[a] = r[a] * ci - b[0] * pi[1 + a] - 2.0 * b[1] * qi[a];
    }
}

/* Symmetric 3x3 (xx xy xz yy yz zz) times vector. */
static inline void sym_apply(const double *t, const double *v, double *o)
{
    o[0] += t[0] * v[0] + t[1] * v[1] + t[2] * v[2];
    o[1] += t[1] * v[0] + t[3] * v[1] + t[4] * v[2];
    o[2] += t[2] * v[0] + t[4] * v[1] + t[5] * v[2];
}

/* Per listed atom ii: offset into the pair slots, dipole-pair and preconditioner counts. */
typedef struct {
    int off, ndip, npc;
} slot;

/* out_i += T_ik in_k and out_k += T_ik in_i over a stored pair list, for both dipole sets
 * (6 columns). out must be zeroed by the caller; scatter goes through pk_accum. */
static pk_code pair_apply(pk_amoeba_induce_work *w, const pk_amoeba_list *nl, int nall,
                          int use_pc, const double (*in)[6], double (*out)[6], pk_status *st)
{
    const int nt = pk_max_threads();
    const slot *sl = w->counts.data;
    const int *pairs = use_pc ? w->pc_pairs.data : w->pairs.data;
    const double *ten = use_pc ? w->pc_tensors.data : w->tensors.data;
    if (pk_accum_begin(&w->acc, nt, &out[0][0], (size_t)nall * 6, st)) return st->code;
#pragma omp parallel num_threads(nt)
    {
        double (*o)[6] = (double (*)[6])pk_accum_slice(&w->acc, pk_thread_id());
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int n = use_pc ? sl[ii].npc : sl[ii].ndip;
            const int *pk = pairs + sl[ii].off;
            const double *t = ten + 6 * (size_t)sl[ii].off;
            double vi[6], oi[6] = {0, 0, 0, 0, 0, 0};
            memcpy(vi, in[i], sizeof vi);
            for (int p = 0; p < n; p++, t += 6) {
                const int k = pk[p];
                sym_apply(t, in[k], oi);
                sym_apply(t, in[k] + 3, oi + 3);
                sym_apply(t, vi, o[k]);
                sym_apply(t, vi + 3, o[k] + 3);
            }
            for (int d = 0; d < 6; d++) o[i][d] += oi[d];
        }
    }
    pk_accum_reduce(&w->acc);
    return PK_OK;
}

/* Direct field of the permanent multipoles (both sets) and the pair tensors. */
static pk_code direct_field(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const pk_amoeba_list *nl, const double (*rpole)[13],
                            pk_amoeba_induce_work *w, double (*field)[6], pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const double off2 = m->set.polar_cut * m->set.polar_cut;
    const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
    const int use_pc = mutual && m->set.pcg_precond;
    const int *entries = nl->entries.data;   /* precond flags are indexed like the entries */
    const int nt = pk_max_threads();
    slot *sl = w->counts.data;
    int *pairs = w->pairs.data, *pcp = w->pc_pairs.data;
    double *ten = w->tensors.data, *pct = w->pc_tensors.data;
    amoeba_switch sw;
    if (amoeba_switch_init(m, 1, &sw, st)) return st->code;

    memset(field, 0, (size_t)nall * sizeof *field);
    if (pk_accum_begin(&w->acc, nt, &field[0][0], (size_t)nall * 6, st)) return st->code;
#pragma omp parallel num_threads(nt)
    {
        double (*fl)[6] = (double (*)[6])pk_accum_slice(&w->acc, pk_thread_id());
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int ti = s->amtype[i];
            const int *jlist = nl->firstneigh[i];
            int ndip = 0, npc = 0;
            for (int jj = 0; jj < nl->numneigh[i]; jj++) {
                const int k = jlist[jj] & PK_AMOEBA_NEIGHMASK;
                const int cls = pk_amoeba_special(jlist[jj]);
                const int tk = s->amtype[k];
                const double r[3] = {x[k][0] - x[i][0], x[k][1] - x[i][1], x[k][2] - x[i][2]};
                const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                const int same = s->amgroup[i] == s->amgroup[k];
                const double uscale = same ? m->mutual11_scale : 1.0;
                const double rr = sqrt(r2);
                /* SMOOTH: every pair tensor below is switched by S(r) (1 in LAMMPS mode) */
                double dsdr;
                const double sr = sw.on && r2 >= off2 ? 0.0 : amoeba_switch_eval(&sw, rr, r2, &dsdr);
                const int in_pc = use_pc && nl->precond[jlist + jj - entries] && sr != 0.0;
                double l[4] = {1.0, 1.0, 1.0, 1.0};
                if (in_pc || r2 <= off2) amoeba_thole(m, ti, tk, rr, l);

                /* preconditioner block alpha_i alpha_k T_ik (LAMMPS uscale0b), for the pairs
                 * the list marked at reneighbouring */
                if (in_pc) {
                    const double pol = m->polarity[ti] * m->polarity[tk];
                    const double b3 = sr * uscale * l[0] * pol / (rr * r2);
                    const double b5 = sr * 3.0 * uscale * l[1] * pol / (rr * r2 * r2);
                    double *t = pct + 6 * ((size_t)sl[ii].off + (size_t)npc);
                    t[0] = b5 * r[0] * r[0] - b3;
                    t[1] = b5 * r[0] * r[1];
                    t[2] = b5 * r[0] * r[2];
                    t[3] = b5 * r[1] * r[1] - b3;
                    t[4] = b5 * r[1] * r[2];
                    t[5] = b5 * r[2] * r[2] - b3;
                    pcp[sl[ii].off + npc++] = k;
                }
                if (r2 > off2) continue;

                const double rr1 = 1.0 / rr, rr2 = rr1 * rr1;
                const double rr3 = rr2 * rr1, rr5 = 3.0 * rr2 * rr3, rr7 = 5.0 * rr2 * rr5;
                const double dscale = same ? m->direct11_scale : 1.0;
                const double pscale = same ? m->polar_intra[cls] : m->polar_scale[cls];
                const double ds = sr * dscale, ps = sr * pscale;
                const double bd[3] = {ds * l[0] * rr3, ds * l[1] * rr5, ds * l[2] * rr7};
                const double bp[3] = {ps * l[0] * rr3, ps * l[1] * rr5, ps * l[2] * rr7};
                double fi[3], fk[3];
                perm_field(rpole[i], rpole[k], r, bd, fi, fk);
                for (int d = 0; d < 3; d++) {
                    fl[i][d] += fi[d];
                    fl[k][d] += fk[d];
                }
                perm_field(rpole[i], rpole[k], r, bp, fi, fk);
                for (int d = 0; d < 3; d++) {
                    fl[i][3 + d] += fi[d];
                    fl[k][3 + d] += fk[d];
                }
                if (mutual) {
                    const double b3 = sr * uscale * l[0] * rr3, b5 = sr * uscale * l[1] * rr5;
                    double *t = ten + 6 * ((size_t)sl[ii].off + (size_t)ndip);
                    t[0] = -b3 + b5 * r[0] * r[0];
                    t[1] = b5 * r[0] * r[1];
                    t[2] = b5 * r[0] * r[2];
                    t[3] = -b3 + b5 * r[1] * r[1];
                    t[4] = b5 * r[1] * r[2];
                    t[5] = -b3 + b5 * r[2] * r[2];
                    pairs[sl[ii].off + ndip++] = k;
                }
            }
            sl[ii].ndip = ndip;
            sl[ii].npc = npc;
        }
    }
    pk_accum_reduce(&w->acc);
    return PK_OK;
}

/* Field of the dipoles v (ghosts current) at every site, summed onto owners. */
static pk_code mutual_field(pk_amoeba_induce_work *w, const pk_amoeba_list *nl, int nall,
                            const pk_amoeba_comm *comm, const double (*v)[6], double (*field)[6],
                            pk_status *st)
{
    memset(field, 0, (size_t)nall * sizeof *field);
    if (pair_apply(w, nl, nall, 0, v, field, st)) return st->code;
    comm->reverse(comm->ctx, &field[0][0], 6);
    return PK_OK;
}

/* z = M r: usolve_diag * alpha_i on the diagonal plus the neighbour blocks (LAMMPS
 * uscale0b APPLY); r's ghosts are refreshed first, z's ghost parts summed onto owners. */
static pk_code precondition(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            pk_amoeba_induce_work *w, const pk_amoeba_list *nl,
                            const pk_amoeba_comm *comm, double (*r)[6], double (*z)[6],
                            pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    comm->forward(comm->ctx, &r[0][0], 6);
    memset(z, 0, (size_t)nall * sizeof *z);
    for (int i = 0; i < a->nlocal; i++) {
        const double p = m->set.usolve_diag * fmax(POLMIN, m->polarity[s->amtype[i]]);
        for (int d = 0; d < 6; d++) z[i][d] = p * r[i][d];
    }
    if (pair_apply(w, nl, nall, 1, (const double (*)[6])r, z, st)) return st->code;
    comm->reverse(comm->ctx, &z[0][0], 6);
    return PK_OK;
}

/* Sums over owned atoms of a.b for the d (out[0]) and p (out[1]) columns. */
static void dot2(int n, const double (*x)[6], const double (*y)[6], double out[2])
{
    out[0] = out[1] = 0.0;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            out[0] += x[i][d] * y[i][d];
            out[1] += x[i][3 + d] * y[i][3 + d];
        }
}

pk_code pk_amoeba_induce(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const double (*rpole)[13],
                         const pk_amoeba_comm *comm, double (*u)[6], pk_amoeba_induce_work *w,
                         pk_amoeba_induce_info *info, pk_status *st)
{
    const int n = a->nlocal, nall = n + a->nghost;
    const pk_amoeba_settings *set = &m->set;
    memset(info, 0, sizeof *info);
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");

    /* pair slots: one per entry of the list, in list order */
    size_t total = 0;
    if (pk_buffer_reserve(&w->counts, (size_t)(nl->inum > 0 ? nl->inum : 1), sizeof(slot), st))
        return st->code;
    slot *sl = w->counts.data;
    for (int ii = 0; ii < nl->inum; ii++) {
        sl[ii].off = (int)total;
        total += (size_t)nl->numneigh[nl->ilist[ii]];
    }
    if (total == 0) total = 1;
    size_t nv = (size_t)nall * 6;
    if (pk_buffer_reserve(&w->pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->tensors, total * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->pc_pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->pc_tensors, total * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->field, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->udir, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->rsd, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->zrsd, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->conj, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->vec, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->poli, (size_t)(n > 0 ? n : 1), sizeof(double), st))
        return st->code;
    double (*field)[6] = w->field.data, (*udir)[6] = w->udir.data;
    double (*rsd)[6] = w->rsd.data, (*zrsd)[6] = w->zrsd.data;
    double (*conj)[6] = w->conj.data, (*vec)[6] = w->vec.data;
    double *poli = w->poli.data;

    /* direct dipoles u_dir = alpha E_perm (also the starting guess) */
    if (direct_field(m, a, s, nl, rpole, w, field, st)) return st->code;
    comm->reverse(comm->ctx, &field[0][0], 6);
    memset(u, 0, (size_t)nall * sizeof *u);
    memset(udir, 0, (size_t)nall * sizeof *udir);
    const int guess = set->pcg_guess || m->polarization == PK_AMOEBA_POLAR_DIRECT;
    for (int i = 0; i < n; i++) {
        const double alpha = m->polarity[s->amtype[i]];
        for (int d = 0; d < 6; d++) {
            udir[i][d] = alpha * field[i][d];
            if (guess) u[i][d] = udir[i][d];
        }
    }
    if (m->polarization == PK_AMOEBA_POLAR_DIRECT) {
        info->converged = 1;
        comm->forward(comm->ctx, &u[0][0], 6);
        return PK_OK;
    }

    /* mutual: PCG on (alpha^-1 - T) u = E_perm for both sets at once (LAMMPS induce) */
    double natoms = (double)n;
    comm->allreduce(comm->ctx, &natoms, 1);
    comm->forward(comm->ctx, &u[0][0], 6);
    if (mutual_field(w, nl, nall, comm, (const double (*)[6])u, field, st)) return st->code;
    for (int i = 0; i < n; i++) {
        poli[i] = fmax(POLMIN, m->polarity[s->amtype[i]]);
        for (int d = 0; d < 6; d++) {
            rsd[i][d] = set->pcg_guess ? (udir[i][d] - u[i][d]) / poli[i] + field[i][d]
                                       : udir[i][d] / poli[i];
            zrsd[i][d] = rsd[i][d];
        }
    }
    if (set->pcg_precond && precondition(m, a, s, w, nl, comm, rsd, zrsd, st)) return st->code;
    memcpy(conj, zrsd, (size_t)n * sizeof *conj);

    double eps = 100.0;
    for (int done = 0; !done;) {
        info->iterations++;
        /* vec = alpha^-1 conj - T conj */
        comm->forward(comm->ctx, &conj[0][0], 6);
        if (mutual_field(w, nl, nall, comm, (const double (*)[6])conj, field, st)) return st->code;
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) vec[i][d] = conj[i][d] / poli[i] - field[i][d];
        double red[4], cv[2], rz[2];
        dot2(n, (const double (*)[6])conj, (const double (*)[6])vec, cv);
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])zrsd, rz);
        red[0] = cv[0], red[1] = cv[1], red[2] = rz[0], red[3] = rz[1];
        comm->allreduce(comm->ctx, red, 4);
        const double sum[2] = {red[2], red[3]};
        double step[2];
        for (int k = 0; k < 2; k++) step[k] = red[k] != 0.0 ? sum[k] / red[k] : red[k];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) {
                const double al = step[d / 3];
                u[i][d] += al * conj[i][d];
                rsd[i][d] -= al * vec[i][d];
                zrsd[i][d] = rsd[i][d];
            }
        if (set->pcg_precond && precondition(m, a, s, w, nl, comm, rsd, zrsd, st)) return st->code;
        double beta[2];
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])zrsd, beta);
        comm->allreduce(comm->ctx, beta, 2);
        for (int k = 0; k < 2; k++)
            if (sum[k] != 0.0) beta[k] /= sum[k];
        double ee[2];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) conj[i][d] = zrsd[i][d] + beta[d / 3] * conj[i][d];
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])rsd, ee);
        comm->allreduce(comm->ctx, ee, 2);
        eps = PK_AMOEBA_DEBYE * sqrt(fmax(ee[0], ee[1]) / natoms);
        info->converged = eps < set->polar_eps;
        done = info->converged || info->iterations >= set->polar_iter;
        if (done)   /* one "peek" step along the preconditioned residual */
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 6; d++) u[i][d] += set->pcg_peek * poli[i] * rsd[i][d];
    }
    info->rms = eps;
    if (!isfinite(eps))
        return pk_fail(st, PK_ERR_NUMERIC, "amoeba/pk: induced dipoles are not finite (PCG residual %g)", eps);
    comm->forward(comm->ctx, &u[0][0], 6);
    return PK_OK;
}

void pk_amoeba_polar_energy(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const double (*u)[6], const pk_amoeba_induce_work *w, pk_out *out)
{
    const double f = -0.5 * PK_AMOEBA_ELECTRIC / m->dielectric;
    const double (*udir)[6] = w->udir.data;
    double e = 0.0;
    for (int i = 0; i < a->nlocal; i++) {
        const double alpha = m->polarity[s->amtype[i]];
        if (alpha == 0.0) continue;   /* no dipole, no energy (LAMMPS would divide by 0) */
        const double ei = f / alpha * (u[i][0] * udir[i][3] + u[i][1] * udir[i][4] + u[i][2] * udir[i][5]);
        e += ei;
        if (out->eatom) out->eatom[i] += ei;
    }
    out->energy += e;
}
