/* Host-side preparation of the CUDA backend's inputs (deepmd_hd_host.h): the tables packed
 * for upload and one step's list in CSR form. Shared by src/cuda/deepmd_cuda.cu and the
 * host emulation test, so the test runs the device kernels on exactly what is uploaded. */
#include <stdlib.h>
#include <string.h>

#include "deepmd_hd_host.h"

pk_code dp_hd_tables_build(dp_hd_tables *h, const dp_model *m, const dp_tables *tb,
                           pk_status *st)
{
    const int nt = m->ntypes, ng = m->ng;
    memset(h, 0, sizeof *h);
    h->range = calloc((size_t)m->nemb, sizeof *h->range);
    h->coef_off = calloc((size_t)m->nemb, sizeof *h->coef_off);
    if (!h->range || !h->coef_off) goto oom;
    for (int e = 0; e < m->nemb; e++) {
        const dp_table *t = &tb->tab[e];
        h->coef_off[e] = h->ncoef;
        if (!t->coef) continue;   /* never evaluated (sel 0) */
        const dp_hd_range r = {t->s0, t->s1, t->s2, t->h0, t->h1, t->n0, t->n1};
        h->range[e] = r;
        h->ncoef += (size_t)(t->n0 + t->n1) * 6 * ng;
    }
    h->coef = malloc(sizeof(double) * (h->ncoef + 1));
    h->coef_f = malloc(sizeof(float) * (h->ncoef + 1));
    if (!h->coef || !h->coef_f) goto oom;
    for (int e = 0; e < m->nemb; e++) {
        const dp_table *t = &tb->tab[e];
        if (!t->coef) continue;
        const size_t n = (size_t)(t->n0 + t->n1) * 6 * ng;
        memcpy(h->coef + h->coef_off[e], t->coef, sizeof(double) * n);
        for (size_t k = 0; k < n; k++) h->coef_f[h->coef_off[e] + k] = (float)t->coef[k];
    }
    /* padding sums: one row per uniform block, sel + 1 suffix sums otherwise */
    for (int ti = 0; ti < nt; ti++)
        for (int tj = 0; tj < nt; tj++) {
            const size_t rows = tb->pad_uniform[ti * nt + tj] ? 1 : (size_t)m->sel[tj] + 1;
            const size_t end = tb->pad_off[ti * nt + tj] + rows * 4 * ng;
            if (end > h->npad) h->npad = end;
        }
    return PK_OK;
oom:
    dp_hd_tables_free(h);
    return pk_fail(st, PK_ERR_MEMORY, "out of memory for the CUDA backend's tables");
}

void dp_hd_tables_free(dp_hd_tables *h)
{
    free(h->range);
    free(h->coef_off);
    free(h->coef);
    free(h->coef_f);
    memset(h, 0, sizeof *h);
}

void dp_hd_model_host(dp_hd_model *v, const dp_model *m, const dp_tables *tb,
                      const dp_hd_tables *h)
{
    v->ntypes = m->ntypes;
    v->nnei = m->nnei;
    v->ng = m->ng;
    v->axis = m->axis;
    v->one_side = m->one_side;
    v->rcut = m->rcut;
    v->rcut_smth = m->rcut_smth;
    v->protection = m->protection;
    v->sel = m->sel;
    v->sec = m->sec;
    v->excl = m->excl;
    v->davg = m->davg;
    v->dstd = m->dstd;
    v->range = h->range;
    v->coef_off = h->coef_off;
    v->coef = h->coef;
    v->coef_f = h->coef_f;
    v->pad = tb->pad;
    v->pad_off = tb->pad_off;
    v->pad_uniform = tb->pad_uniform;
}

size_t dp_hd_list_size(const pk_neigh *nl)
{
    size_t n = 0;
    for (int ii = 0; ii < nl->inum; ii++) n += (size_t)nl->numneigh[nl->ilist[ii]];
    return n;
}

void dp_hd_list_fill(const pk_neigh *nl, const int *mtype, int ntypes, int nall, int *centre,
                     int *offset, int *neigh, int *centre_of, int *perm, int *first,
                     int *count)
{
    for (int t = 0; t < ntypes; t++) count[t] = 0;
    for (int ii = 0; ii < nl->inum; ii++)
        if (mtype[nl->ilist[ii]] >= 0) count[mtype[nl->ilist[ii]]]++;
    for (int t = 0; t < ntypes; t++) first[t] = t ? first[t - 1] + count[t - 1] : 0;
    for (int a = 0; a < nall; a++) centre_of[a] = -1;
    offset[0] = 0;
    for (int t = 0; t < ntypes; t++) count[t] = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii], jnum = nl->numneigh[i], ti = mtype[i];
        centre[ii] = i;
        centre_of[i] = ii;
        if (ti >= 0) perm[first[ti] + count[ti]++] = ii;
        for (int jj = 0; jj < jnum; jj++)
            neigh[offset[ii] + jj] = pk_neigh_index(nl->firstneigh[i][jj]);
        offset[ii + 1] = offset[ii] + jnum;
    }
}

size_t dp_hd_fit_scratch(const dp_model *m, int t, int nb)
{
    const dp_net *net = &m->fit[t];
    size_t n = 2 * (size_t)net->width + net->nout;
    for (int l = 0; l < net->nlayer; l++) n += (size_t)net->layer[l].nin + net->layer[l].nout;
    return n * (size_t)nb;
}
