/* Local density of mdpd/pk over a half neighbour list; also records the pairs within
 * cutoff and their distances for the force pass. */
#include <math.h>

#include "mdpd_internal.h"

/* Slots for the pair cache: one per listed neighbour, laid out in list order. */
static pk_code reserve_pair_cache(pk_mdpd *m, const pk_neigh *list, pk_status *st)
{
    const int inum = list->inum;
    if (pk_buffer_reserve(&m->pair_start, (size_t)inum + 1, sizeof(size_t), st) ||
        pk_buffer_reserve(&m->pair_count, (size_t)inum + 1, sizeof(int), st))
        return st->code;
    size_t *start = m->pair_start.data;
    size_t total = 0;
    for (int ii = 0; ii < inum; ii++) {
        start[ii] = total;
        total += (size_t)list->numneigh[list->ilist[ii]];
    }
    if (pk_buffer_reserve(&m->pair_j, total + 1, sizeof(int), st) ||
        pk_buffer_reserve(&m->pair_r, total + 1, sizeof(double), st))
        return st->code;
    m->pairs_inum = inum;
    return PK_OK;
}

/* The cpu kernel: each entry's neighbours in list order. */
void pk_mdpd_cpu_density_rows(const pk_mdpd_density_pass *pass, double *restrict acc)
{
    pk_mdpd *m = pass->m;
    const pk_neigh *list = pass->list;
    const int nlocal = pass->atoms->nlocal, newton = pass->newton, lucy = pass->lucy;
    const int stride = m->ntypes + 1;
    const double (*restrict x)[3] = pass->atoms->x;
    const int *restrict type = pass->atoms->type;
    const double *restrict rmass = pass->atoms->rmass, *restrict tmass = pass->atoms->mass;
    const size_t *restrict start = m->pair_start.data;
    int *restrict count = m->pair_count.data;
    int *restrict pj = m->pair_j.data;
    double *restrict pr = m->pair_r.data;

#pragma omp for schedule(static)
    for (int ii = 0; ii < list->inum; ii++) {
        const int i = list->ilist[ii];
        const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
        const pk_mdpd_pair *prow = &m->pair[type[i] * stride];
        const double mi = lucy ? (rmass ? rmass[i] : tmass[type[i]]) : 1.0;
        const int *jlist = list->firstneigh[i];
        const int jnum = list->numneigh[i];
        size_t slot = start[ii];
        double rho_i = 0.0;
        for (int jj = 0; jj < jnum; jj++) {
            const int jraw = jlist[jj];
            const int j = pk_neigh_index(jraw);
            const double dx = xi - x[j][0], dy = yi - x[j][1], dz = zi - x[j][2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            const pk_mdpd_pair *p = &prow[type[j]];
            if (rsq >= p->cutsq) continue;
            const double r = sqrt(rsq);
            pj[slot] = jraw;
            pr[slot] = r;
            slot++;
            if (r >= p->h) continue;
            double wi, wj;   /* what j adds to rho_i, and i to rho_j */
            if (lucy) {
                const double w = pk_mdpd_lucy(r, p->inv_h);
                wi = (rmass ? rmass[j] : tmass[type[j]]) * w;
                wj = mi * w;
            } else {
                wi = wj = pk_mdpd_warren(r, p->inv_h);
            }
            rho_i += wi;
            if (newton || j < nlocal) acc[j] += wj;
        }
        count[ii] = (int)(slot - start[ii]);
        acc[i] += rho_i;
    }
}

pk_code pk_mdpd_density_run(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list,
                            int newton, double *rho, pk_mdpd_density_rows rows, pk_status *st)
{
    const int nall = atoms->nlocal + atoms->nghost;
    const int lucy = (m->kernel == PK_MDPD_LUCY);
    if (lucy && !atoms->mass && !atoms->rmass)
        return pk_fail(st, PK_ERR_ARG, "the lucy density kernel needs atom masses");
    if (reserve_pair_cache(m, list, st)) return st->code;
    for (int i = 0; i < nall; i++) rho[i] = 0.0;

    const int nthreads = pk_max_threads();
    if (pk_accum_begin(&m->rho_acc, nthreads, rho, (size_t)nall, st)) return st->code;
    const pk_mdpd_density_pass pass = {m, atoms, list, newton, lucy};
#pragma omp parallel num_threads(nthreads)
    rows(&pass, pk_accum_slice(&m->rho_acc, pk_thread_id()));
    pk_accum_reduce(&m->rho_acc);
    return PK_OK;
}

pk_code pk_mdpd_density(pk_mdpd *m, const pk_atoms *atoms, const pk_neigh *list, int newton,
                        double *rho, pk_status *st)
{
    return pk_mdpd_density_run(m, atoms, list, newton, rho, pk_mdpd_cpu_density_rows, st);
}
