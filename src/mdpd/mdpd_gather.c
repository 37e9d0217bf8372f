/* Host side of the gather kernels (mdpd_gather.h): their parameters for one step and the
 * neighbour list flattened for a device. */
#include <math.h>

#include "mdpd_internal.h"
#include "mdpd_random.h"

void pk_mdpd_gather_params(const pk_mdpd *m, const pk_mdpd_step *step, pk_mdpd_gather *g)
{
    g->stride = m->ntypes + 1;
    g->noisy = m->noisy;
    g->uniform = m->noise == PK_MDPD_NOISE_UNIFORM;
    g->key = pk_mdpd_noise_key(m->seed, step->timestep);
    g->dtinvsqrt = 1.0 / sqrt(step->dt);
    g->energy_b = (m->kernel == PK_MDPD_LUCY) ? 0.5 : 0.25;
    for (int k = 0; k < 4; k++) g->special[k] = (k && step->special) ? step->special[k] : 1.0;
}

size_t pk_mdpd_csr_size(const pk_neigh *list)
{
    size_t total = 0;
    for (int ii = 0; ii < list->inum; ii++) total += (size_t)list->numneigh[list->ilist[ii]];
    return total;
}

/* An atom is interior when none of its listed neighbours is a ghost: its force needs no
 * density from another rank. Interior entries come first so that their forces can be
 * computed while the ghosts' densities travel. */
int pk_mdpd_csr_fill(const pk_neigh *list, int nlocal, int *centre, int *offset, int *neigh)
{
    int placed = 0, interior = 0;
    size_t used = 0;
    /* two passes keep each group in list order: interior entries, then border ones */
    for (int pass = 0; pass < 2; pass++) {
        for (int ii = 0; ii < list->inum; ii++) {
            const int i = list->ilist[ii];
            const int *jlist = list->firstneigh[i];
            const int jnum = list->numneigh[i];
            int border = 0;
            for (int k = 0; k < jnum && !border; k++) border = pk_neigh_index(jlist[k]) >= nlocal;
            if (border != pass) continue;
            centre[placed] = i;
            offset[placed] = (int)used;
            placed++;
            for (int k = 0; k < jnum; k++) neigh[used++] = jlist[k];
        }
        if (pass == 0) interior = placed;
    }
    offset[placed] = (int)used;
    return interior;
}
