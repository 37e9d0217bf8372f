/* Host side of the hdnnp/pk CUDA backend (hdnnp_gpu.h): the model flattened into the arrays
 * the kernels read, and the neighbour list in CSR form with its reverse index (the list
 * slots naming each atom), from which every atom's force is gathered in a fixed order. Plain
 * C, so that the host emulation test builds the same arrays without CUDA. */
#include <stdlib.h>
#include <string.h>

#include "hdnnp_gpu.h"

void hdg_model_free(hdg_host_model *h)
{
    free(h->el);
    free(h->sf);
    free(h->cut);
    free(h->grp);
    free(h->mem);
    free(h->w);
    memset(h, 0, sizeof *h);
}

/* The distinct etas of an angular group of types 3, 9, 13 (hdg_group.eta, eidx), its
 * members ordered by eta (stable) so that a pair computes each eta's exponential once, when
 * its first member comes; the compact types have no exponential. */
static void group_etas(hdg_group *d, const hdnnp_sf *sf, int *mem, hdg_host_model *h)
{
    d->neta = 0;
    if (hdnnp_type_radial(d->type) || hdnnp_type_compact(d->type)) return;
    for (int m = 1; m < d->nsf; m++)
        for (int q = m; q > 0 && sf[mem[q - 1]].eta > sf[mem[q]].eta; q--) {
            const int keep = mem[q];
            mem[q] = mem[q - 1];
            mem[q - 1] = keep;
        }
    for (int m = 0; m < d->nsf; m++) {
        const double eta = sf[mem[m]].eta;
        if (d->neta == 0 || d->eta[d->neta - 1] != eta) d->eta[d->neta++] = eta;
        d->eidx[m] = d->neta - 1;
    }
    if (d->neta > h->m.maxneta) h->m.maxneta = d->neta;
}

/* The element's groups, each split into chunks of at most HDG_GROUP_MAX functions; returns
 * how many flat groups they make. */
static int add_groups(const hdnnp_group *src, int n, int cut0, const hdnnp_sf *sf,
                      hdg_host_model *h)
{
    int made = 0;
    for (int g = 0; g < n; g++)
        for (int m0 = 0; m0 < src[g].nsf; m0 += HDG_GROUP_MAX, made++) {
            hdg_group *d = &h->grp[h->ngrp++];
            d->type = src[g].type;
            d->e1 = src[g].e1;
            d->e2 = src[g].e2;
            d->cut = cut0 + src[g].cut;
            d->rs = src[g].rs;
            d->first = (int)h->nmem;
            d->nsf = src[g].nsf - m0 < HDG_GROUP_MAX ? src[g].nsf - m0 : HDG_GROUP_MAX;
            for (int m = m0; m < m0 + d->nsf; m++) h->mem[h->nmem++] = src[g].sf[m];
            group_etas(d, sf, h->mem + d->first, h);
        }
    return made;
}

pk_code hdg_model_build(const pk_hdnnp_model *m, hdg_host_model *h, pk_status *st)
{
    memset(h, 0, sizeof *h);
    size_t nsf = 0, ncut = 0, ngrp = 0, nw = 0, nwork = 0;
    int maxnsf = 0;
    for (int e = 0; e < m->nelements; e++) {
        const hdnnp_element *el = &m->el[e];
        nsf += (size_t)el->nsf;
        ncut += (size_t)el->ncut;
        ngrp += (size_t)el->nsf;   /* at least one function per flat group */
        maxnsf = el->nsf > maxnsf ? el->nsf : maxnsf;
        size_t work = (size_t)el->nsf, maxsize = 0;
        for (int l = 0; l < el->net.nlayers; l++) {
            const size_t sz = (size_t)el->net.size[l];
            maxsize = sz > maxsize ? sz : maxsize;
            if (l > 0) {
                work += 2 * sz;
                nw += sz * (size_t)el->net.size[l - 1] + sz;
            }
        }
        work += 2 * maxsize;
        nwork = work > nwork ? work : nwork;
    }
    h->el = calloc((size_t)m->nelements, sizeof *h->el);
    h->sf = calloc(nsf + 1, sizeof *h->sf);
    h->cut = calloc(ncut + 1, sizeof *h->cut);
    h->grp = calloc(ngrp + 1, sizeof *h->grp);
    h->mem = calloc(nsf + 1, sizeof *h->mem);
    h->w = calloc(nw + 1, sizeof *h->w);
    if (!h->el || !h->sf || !h->cut || !h->grp || !h->mem || !h->w) {
        hdg_model_free(h);
        return pk_fail(st, PK_ERR_MEMORY, "out of memory flattening the hdnnp model");
    }
    for (int e = 0; e < m->nelements; e++) {
        const hdnnp_element *el = &m->el[e];
        hdg_element *d = &h->el[e];
        d->nsf = el->nsf;
        d->sf0 = (int)h->nsf;
        d->cut0 = (int)h->ncut;
        d->ncut = el->ncut;
        if (el->ncut > h->m.maxcut) h->m.maxcut = el->ncut;
        memcpy(h->sf + h->nsf, el->sf, sizeof(hdnnp_sf) * (size_t)el->nsf);
        memcpy(h->cut + h->ncut, el->cut, sizeof(hdnnp_cutoff) * (size_t)el->ncut);
        h->nsf += (size_t)el->nsf;
        h->ncut += (size_t)el->ncut;
        d->radial0 = (int)h->ngrp;
        d->nradial = add_groups(el->radial, el->nradial, d->cut0, el->sf, h);
        d->angular0 = (int)h->ngrp;
        d->nangular = add_groups(el->angular, el->nangular, d->cut0, el->sf, h);
        d->rcmax = el->rcmax;
        d->atom_energy = el->atom_energy;
        const hdnnp_network *net = &el->net;
        d->nlayers = net->nlayers;
        d->normalize = net->normalize;
        for (int l = 0; l < net->nlayers; l++) {
            d->size[l] = net->size[l];
            d->act[l] = (int)net->act[l];
            if (l == 0) continue;
            const size_t nwl = (size_t)net->size[l] * (size_t)net->size[l - 1];
            d->woff[l] = h->nw;
            memcpy(h->w + h->nw, net->w[l], sizeof(double) * nwl);
            h->nw += nwl;
            d->boff[l] = h->nw;
            memcpy(h->w + h->nw, net->b[l], sizeof(double) * (size_t)net->size[l]);
            h->nw += (size_t)net->size[l];
        }
        h->m.z[e] = (double)el->z;
    }
    h->nel = (size_t)m->nelements;
    h->m.nelements = m->nelements;
    h->m.maxnsf = maxnsf;
    h->m.nwork = nwork;
    h->m.inv_conv = 1.0 / m->conv_energy;
    h->m.mean_energy = m->mean_energy;
    h->m.el = h->el;
    h->m.sf = h->sf;
    h->m.cut = h->cut;
    h->m.grp = h->grp;
    h->m.mem = h->mem;
    h->m.w = h->w;
    return PK_OK;
}

void hdg_list_free(hdg_host_list *L)
{
    free(L->elem);
    free(L->centre);
    free(L->offset);
    free(L->neigh);
    free(L->slot_centre);
    free(L->rev_off);
    free(L->rev);
    free(L->atom_centre);
    memset(L, 0, sizeof *L);
}

/* The int arrays of one size class holding at least need entries (contents not kept). */
static int grow(size_t need, size_t *cap, int **const arrays[], int n)
{
    if (need <= *cap) return 0;
    const size_t want = need + need / 2 + 16;
    for (int k = 0; k < n; k++) {
        int *q = realloc(*arrays[k], want * sizeof(int));
        if (!q) return 1;
        *arrays[k] = q;
    }
    *cap = want;
    return 0;
}

pk_code hdg_list_build(hdg_host_list *L, const pk_atoms *atoms, const pk_neigh *nl,
                       const int *t2e, pk_status *st)
{
    const int nall = atoms->nlocal + atoms->nghost, inum = nl->inum;
    size_t nslot = 0;
    for (int ii = 0; ii < inum; ii++) nslot += (size_t)nl->numneigh[nl->ilist[ii]];
    if (nslot >= (size_t)2147483647)
        return pk_fail(st, PK_ERR_RANGE, "%zu neighbour entries on this rank exceed the CUDA "
                       "backend's 32-bit offsets; use more ranks or GPUs", nslot);
    int **const atom_arrays[] = {&L->elem, &L->rev_off, &L->atom_centre};
    int **const centre_arrays[] = {&L->centre, &L->offset};
    int **const slot_arrays[] = {&L->neigh, &L->slot_centre, &L->rev};
    if (grow((size_t)nall + 1, &L->cap_atoms, atom_arrays, 3) ||
        grow((size_t)inum + 1, &L->cap_centres, centre_arrays, 2) ||
        grow(nslot + 1, &L->cap_slots, slot_arrays, 3)) {
        hdg_list_free(L);
        return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the neighbour list copy");
    }
    L->inum = inum;
    L->nall = nall;
    L->nslot = nslot;
    for (int j = 0; j < nall; j++) {
        L->elem[j] = t2e[atoms->type[j]];
        L->atom_centre[j] = -1;
        L->rev_off[j] = 0;
    }
    L->rev_off[nall] = 0;
    int p = 0;
    for (int ii = 0; ii < inum; ii++) {
        const int i = nl->ilist[ii];
        const int *jl = nl->firstneigh[i];
        L->centre[ii] = i;
        L->offset[ii] = p;
        L->atom_centre[i] = ii;
        for (int jj = 0; jj < nl->numneigh[i]; jj++, p++) {
            const int j = pk_neigh_index(jl[jj]);
            L->neigh[p] = j;
            L->slot_centre[p] = ii;
            L->rev_off[j + 1]++;
        }
    }
    L->offset[inum] = p;
    L->maxneigh = 0;
    for (int ii = 0; ii < inum; ii++) {
        const int nn = L->offset[ii + 1] - L->offset[ii];
        L->maxneigh = nn > L->maxneigh ? nn : L->maxneigh;
    }
    /* counting sort of the slots by atom: ascending slots within each atom */
    for (int j = 0; j < nall; j++) L->rev_off[j + 1] += L->rev_off[j];
    for (int q = 0; q < p; q++) L->rev[L->rev_off[L->neigh[q]]++] = q;
    for (int j = nall; j > 0; j--) L->rev_off[j] = L->rev_off[j - 1];
    L->rev_off[0] = 0;
    return PK_OK;
}
