/* The kernels' neighbour list: a LAMMPS half list with 3-bit special classes (1-5 too). */
#include "amoeba_internal.h"

pk_code pk_amoeba_list_build(pk_amoeba_list *out, const pk_amoeba_model *m, const pk_neigh *nl,
                             const pk_atoms *a, const pk_amoeba_topology *top, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    if (nall > PK_AMOEBA_NEIGHMASK)
        return pk_fail(st, PK_ERR_RANGE, "amoeba/pk: %d atoms overflow the neighbour index bits", nall);
    const int with15 = top && top->special15 && top->nspecial15;
    if (!with15 && (m->vdw_scale[4] != 1.0 || m->mpole_scale[4] != 1.0 ||
                    m->polar_scale[4] != 1.0 || m->polar_intra[4] != 1.0))
        return pk_fail(st, PK_ERR_ARG, "amoeba/pk: the force field scales 1-5 pairs but no 1-5 "
                       "partners were given (LAMMPS: special_bonds ... one/five yes)");
    if (with15 && !a->tag) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: 1-5 partners need atom tags");
    size_t total = 0;
    int maxi = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii];
        total += (size_t)nl->numneigh[i];
        if (i + 1 > maxi) maxi = i + 1;
    }
    if (pk_buffer_reserve(&out->entries, total ? total : 1, sizeof(int), st) ||
        pk_buffer_reserve(&out->pc, total ? total : 1, 1, st) ||
        pk_buffer_reserve(&out->heads, (size_t)(maxi ? maxi : 1), sizeof(int *), st))
        return st->code;
    int *e = out->entries.data;
    unsigned char *pc = out->pc.data;
    int **heads = out->heads.data;
    const double pc2 = m->set.usolve_cut * m->set.usolve_cut;
    size_t pos = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii];
        const int *src = nl->firstneigh[i];
        heads[i] = e + pos;
        for (int k = 0; k < nl->numneigh[i]; k++) {
            const int j = pk_neigh_index(src[k]);
            int cls = pk_neigh_special(src[k]);
            if (cls == 0 && with15) {
                for (int m = 0; m < top->nspecial15[i]; m++)
                    if (top->special15[i][m] == a->tag[j]) {
                        cls = 4;
                        break;
                    }
            }
            double r2 = 0.0;
            for (int d = 0; d < 3; d++) r2 += (a->x[i][d] - a->x[j][d]) * (a->x[i][d] - a->x[j][d]);
            pc[pos] = r2 < pc2;
            /* unsigned: class 4 (1-5) << 29 would overflow int */
            e[pos++] = (int)((unsigned)j | (unsigned)cls << PK_AMOEBA_SBBITS);
        }
    }
    out->inum = nl->inum;
    out->ilist = nl->ilist;
    out->numneigh = nl->numneigh;
    out->firstneigh = heads;
    out->precond = pc;
    return PK_OK;
}

void pk_amoeba_list_free(pk_amoeba_list *l)
{
    pk_buffer_free(&l->entries);
    pk_buffer_free(&l->heads);
    pk_buffer_free(&l->pc);
    l->precond = NULL;
    l->inum = 0;
    l->firstneigh = NULL;
}

double pk_amoeba_list_bytes(const pk_amoeba_list *l)
{
    return (double)(l->entries.bytes + l->heads.bytes + l->pc.bytes);
}
