/* Local density of mdpd/pk over a half neighbour list. */
#include <math.h>

#include "mdpd_internal.h"
#include "pk_math.h"

/* Warren (PRE 68, 066702, eq. 9): w(r) = 15/(2 pi h^3) (1 - r/h)^2, normalised in 3D. */
static inline double warren_weight(double r, double h)
{
    const double c = 15.0 / (2.0 * PK_PI);
    double u = 1.0 - r / h;
    return c / (h * h * h) * u * u;
}

/* Lucy kernel of LAMMPS mdpd/rhosum: w(r) = 105/(16 pi h^3) (1 + 3r/h)(1 - r/h)^3. */
static inline double lucy_weight(double r, double h)
{
    const double c = 105.0 / (16.0 * PK_PI);
    double u = 1.0 - r / h;
    return c / (h * h * h) * (1.0 + 3.0 * r / h) * u * u * u;
}

static inline double atom_mass(const pk_atoms *a, int i)
{
    return a->rmass ? a->rmass[i] : a->mass[a->type[i]];
}

pk_code pk_mdpd_density(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list, int newton,
                        double *rho, pk_status *st)
{
    const int nall = atoms->nlocal + atoms->nghost;
    const int lucy = (m->kernel == PK_MDPD_LUCY);
    if (lucy && !atoms->mass && !atoms->rmass)
        return pk_fail(st, PK_ERR_ARG, "the lucy density kernel needs atom masses");
    for (int i = 0; i < nall; i++) rho[i] = 0.0;

    const int nthreads = pk_max_threads();
    if (pk_accum_begin(&m->rho_acc, nthreads, rho, (size_t)nall, st)) return st->code;
    const int stride = m->ntypes + 1;

#pragma omp parallel num_threads(nthreads)
    {
        double *acc = pk_accum_slice(&m->rho_acc, pk_thread_id());
#pragma omp for schedule(static)
        for (int ii = 0; ii < list->inum; ii++) {
            const int i = list->ilist[ii];
            const double *xi = atoms->x[i];
            const int itype = atoms->type[i];
            const pk_mdpd_pair *prow = &m->pair[itype * stride];
            const int *jlist = list->firstneigh[i];
            const int jnum = list->numneigh[i];
            double rho_i = 0.0;
            for (int jj = 0; jj < jnum; jj++) {
                const int j = pk_neigh_index(jlist[jj]);
                const double dx = xi[0] - atoms->x[j][0];
                const double dy = xi[1] - atoms->x[j][1];
                const double dz = xi[2] - atoms->x[j][2];
                const double rsq = dx * dx + dy * dy + dz * dz;
                const double h = prow[atoms->type[j]].h;
                if (rsq >= h * h) continue;
                const double r = sqrt(rsq);
                if (lucy) {
                    const double w = lucy_weight(r, h);
                    rho_i += atom_mass(atoms, j) * w;
                    if (newton || j < atoms->nlocal) acc[j] += atom_mass(atoms, i) * w;
                } else {
                    const double w = warren_weight(r, h);
                    rho_i += w;
                    if (newton || j < atoms->nlocal) acc[j] += w;
                }
            }
            acc[i] += rho_i;
        }
    }
    pk_accum_reduce(&m->rho_acc);
    return PK_OK;
}
