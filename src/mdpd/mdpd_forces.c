/* Conservative, dissipative and random forces of mdpd/pk over a half neighbour list. */
#include <math.h>
#include <string.h>

#include "mdpd_internal.h"
#include "mdpd_random.h"

/* Pairs closer than this are skipped, as in LAMMPS mdpd (r can be 0 in mDPD systems). */
#define PK_MDPD_RMIN 1.0e-10

typedef struct {
    double *f, *eatom, *vatom; /* this thread's accumulation targets (eatom/vatom may be NULL) */
    double ev[7];              /* energy, virial */
} thread_sums;

/* Tally one pair as LAMMPS's ev_tally does: the full value when both atoms are counted on
 * this rank, half for an owned-ghost pair stored on both ranks (newton off). */
static inline void tally(thread_sums *t, int i, int j, int nlocal, int newton, double e,
                         double fpair, double dx, double dy, double dz, int want_e, int want_v)
{
    const int jcount = newton || j < nlocal;
    const double w = jcount ? 1.0 : 0.5;
    const double v[6] = {dx * dx * fpair, dy * dy * fpair, dz * dz * fpair,
                         dx * dy * fpair, dx * dz * fpair, dy * dz * fpair};
    if (want_e) t->ev[0] += w * e;
    if (want_v) for (int k = 0; k < 6; k++) t->ev[1 + k] += w * v[k];
    if (t->eatom) {
        t->eatom[i] += 0.5 * e;
        if (jcount) t->eatom[j] += 0.5 * e;
    }
    if (t->vatom) {
        for (int k = 0; k < 6; k++) t->vatom[6 * i + k] += 0.5 * v[k];
        if (jcount) for (int k = 0; k < 6; k++) t->vatom[6 * j + k] += 0.5 * v[k];
    }
}

pk_code pk_mdpd_forces(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list, int newton,
                       const double *rho, const pk_mdpd_step *step, pk_out *out,
                       pk_status *st)
{
    if (!atoms->v) return pk_fail(st, PK_ERR_ARG, "mdpd needs velocities of owned and ghost atoms");
    if (!atoms->tag) return pk_fail(st, PK_ERR_ARG, "mdpd needs atom IDs");
    if (!(step->dt > 0.0)) return pk_fail(st, PK_ERR_ARG, "timestep must be > 0");

    const int nlocal = atoms->nlocal;
    const size_t nall = (size_t)nlocal + (size_t)atoms->nghost;
    const int nthreads = pk_max_threads();
    const int want_e = out->want_energy, want_v = out->want_virial;
    const int lucy = (m->kernel == PK_MDPD_LUCY);
    const double dtinvsqrt = 1.0 / sqrt(step->dt);
    const int stride = m->ntypes + 1;

    if (pk_accum_begin(&m->f_acc, nthreads, &out->f[0][0], 3 * nall, st)) return st->code;
    if (out->eatom && pk_accum_begin(&m->eatom_acc, nthreads, out->eatom, nall, st)) return st->code;
    if (out->vatom && pk_accum_begin(&m->vatom_acc, nthreads, &out->vatom[0][0], 6 * nall, st))
        return st->code;
    if (pk_buffer_reserve(&m->ev, (size_t)nthreads * 7, sizeof(double), st)) return st->code;
    double *ev = m->ev.data;

#pragma omp parallel num_threads(nthreads)
    {
        const int tid = pk_thread_id();
        thread_sums t = {pk_accum_slice(&m->f_acc, tid),
                         out->eatom ? pk_accum_slice(&m->eatom_acc, tid) : NULL,
                         out->vatom ? pk_accum_slice(&m->vatom_acc, tid) : NULL,
                         {0, 0, 0, 0, 0, 0, 0}};
#pragma omp for schedule(static)
        for (int ii = 0; ii < list->inum; ii++) {
            const int i = list->ilist[ii];
            const double *xi = atoms->x[i], *vi = atoms->v[i];
            const int itype = atoms->type[i];
            const pk_tag tag_i = atoms->tag[i];
            const pk_mdpd_pair *prow = &m->pair[itype * stride];
            const int *jlist = list->firstneigh[i];
            const int jnum = list->numneigh[i];
            double fi[3] = {0.0, 0.0, 0.0};
            for (int jj = 0; jj < jnum; jj++) {
                const int jraw = jlist[jj];
                const int j = pk_neigh_index(jraw);
                const double dx = xi[0] - atoms->x[j][0];
                const double dy = xi[1] - atoms->x[j][1];
                const double dz = xi[2] - atoms->x[j][2];
                const double rsq = dx * dx + dy * dy + dz * dz;
                const pk_mdpd_pair *p = &prow[atoms->type[j]];
                if (rsq >= p->rc * p->rc) continue;
                const double r = sqrt(rsq);
                if (r < PK_MDPD_RMIN) continue;
                const double rinv = 1.0 / r;
                const double factor = step->special ? step->special[pk_neigh_special(jraw)] : 1.0;
                const double dot = dx * (vi[0] - atoms->v[j][0]) + dy * (vi[1] - atoms->v[j][1]) +
                                   dz * (vi[2] - atoms->v[j][2]);
                const double wc = 1.0 - r / p->rc;
                const double wd = r < p->rd ? 1.0 - r / p->rd : 0.0;
                const double rho_sum = rho[i] + rho[j];
                double fpair = p->A * wc + p->B * rho_sum * wd - p->gamma * wc * wc * dot * rinv;
                if (p->sigma > 0.0) {
                    const double xi_ij =
                        pk_mdpd_pair_gaussian(m->seed, step->timestep, tag_i, atoms->tag[j]);
                    fpair += p->sigma * wc * xi_ij * dtinvsqrt;
                }
                fpair *= factor * rinv;

                fi[0] += dx * fpair; fi[1] += dy * fpair; fi[2] += dz * fpair;
                if (newton || j < nlocal) {
                    t.f[3 * j + 0] -= dx * fpair;
                    t.f[3 * j + 1] -= dy * fpair;
                    t.f[3 * j + 2] -= dz * fpair;
                }
                if (want_e || want_v || t.eatom || t.vatom) {
                    const double e_b = (lucy ? 0.5 : 0.25) * p->B * p->rd * rho_sum * wd * wd;
                    const double e = factor * (0.5 * p->A * p->rc * wc * wc + e_b);
                    tally(&t, i, j, nlocal, newton, e, fpair, dx, dy, dz, want_e, want_v);
                }
            }
            t.f[3 * i + 0] += fi[0]; t.f[3 * i + 1] += fi[1]; t.f[3 * i + 2] += fi[2];
        }
        memcpy(&ev[7 * tid], t.ev, sizeof t.ev);
    }
    pk_accum_reduce(&m->f_acc);
    if (out->eatom) pk_accum_reduce(&m->eatom_acc);
    if (out->vatom) pk_accum_reduce(&m->vatom_acc);
    for (int p = 0; p < nthreads; p++) {
        out->energy += ev[7 * p];
        for (int k = 0; k < 6; k++) out->virial[k] += ev[7 * p + 1 + k];
    }
    return PK_OK;
}
