/* The rows of amoeba/pk's CUDA backend (amoeba_gpu_lists.h): which row each atom's results go
 * to, and the lists of the step's pairs by row, built in parallel in an order that does not
 * depend on the number of threads. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_gpu_lists.h"
#include "pk_threads.h"

void amoeba_gpu_rowmap_free(amoeba_gpu_rowmap *m)
{
    pk_buffer_free(&m->row);
    pk_buffer_free(&m->atom);
}

pk_code amoeba_gpu_rowmap_build(amoeba_gpu_rowmap *m, const pk_atoms *a, const int *owner,
                                pk_status *st)
{
    const int n = a->nlocal, nall = n + a->nghost;
    if (pk_buffer_reserve(&m->row, (size_t)nall + 1, sizeof(int), st) ||
        pk_buffer_reserve(&m->atom, (size_t)nall + 1, sizeof(int), st))
        return st->code;
    int *row = m->row.data, *atom = m->atom.data, nrows = n;
    for (int k = 0; k < nall; k++) {
        const int o = k < n ? k : owner ? owner[k] : -1;
        row[k] = o >= 0 ? o : nrows++;
        atom[row[k]] = o >= 0 ? o : k;
    }
    m->n = n;
    m->nrows = nrows;
    return PK_OK;
}

void amoeba_gpu_rows_free(amoeba_gpu_rows *l)
{
    pk_buffer_free(&l->offset);
    pk_buffer_free(&l->self);
    pk_buffer_free(&l->other);
    pk_buffer_free(&l->counts);
}

double amoeba_gpu_rows_bytes(const amoeba_gpu_rows *l)
{
    return (double)(l->offset.bytes + l->self.bytes + l->other.bytes + l->counts.bytes);
}

/* Entry j of listed atom ii is kept */
static inline int kept(const amoeba_gpu_pairs_in *in, int ii, int j)
{
    return !in->keep || in->keep[in->first[ii] + j];
}

/* Each kept pair (i, k) of `in` goes into i's row as (i, k) and into k's row as (k, i), the
 * entries of a row in the order of the pairs. Each thread takes a contiguous range of listed
 * atoms: it counts its entries per row, the offsets follow from the counts in thread order,
 * and each thread places its entries from its own start in each row. */
pk_code amoeba_gpu_rows_build(amoeba_gpu_rows *l, const amoeba_gpu_rowmap *m,
                              const amoeba_gpu_pairs_in *in, pk_status *st)
{
    const int nt = pk_max_threads(), nrows = m->nrows;
    const int *row = m->row.data;
    size_t most = 0;
    for (int ii = 0; ii < in->inum; ii++) most += (size_t)in->count[ii];
    if (most > (size_t)INT_MAX / 2)
        return pk_fail(st, PK_ERR_RANGE,
                       "amoeba/pk cuda: %zu pairs on one rank exceed the backend's 32-bit "
                       "lists; use more MPI ranks", most);
    if (pk_buffer_reserve(&l->offset, (size_t)nrows + 1, sizeof(int), st) ||
        pk_buffer_reserve(&l->self, 2 * most + 1, sizeof(int), st) ||
        pk_buffer_reserve(&l->other, 2 * most + 1, sizeof(int), st) ||
        pk_buffer_reserve(&l->counts, (size_t)nt * (size_t)(nrows + 1), sizeof(int), st))
        return st->code;
    int *offset = l->offset.data, *self = l->self.data, *other = l->other.data;
    int *counts = l->counts.data;   /* thread t's cursor of row r at counts[t (nrows + 1) + r] */
    memset(counts, 0, (size_t)nt * (size_t)(nrows + 1) * sizeof(int));
#pragma omp parallel num_threads(nt)
    {
        int *mine = counts + (size_t)pk_thread_id() * (size_t)(nrows + 1);
#pragma omp for schedule(static)
        for (int ii = 0; ii < in->inum; ii++) {
            const int i = in->ilist[ii], *e = in->entries + in->first[ii];
            for (int j = 0; j < in->count[ii]; j++)
                if (kept(in, ii, j)) {
                    mine[row[i]]++;
                    mine[row[e[j] & PK_AMOEBA_NEIGHMASK]]++;
                }
        }
#pragma omp single
        {   /* row r's entries: thread 0's, then thread 1's, ... */
            int total = 0;
            for (int r = 0; r < nrows; r++) {
                offset[r] = total;
                for (int t = 0; t < nt; t++) {
                    int *c = counts + (size_t)t * (size_t)(nrows + 1) + r;
                    const int nr = *c;
                    *c = total;
                    total += nr;
                }
            }
            offset[nrows] = total;
            l->nentry = total;
        }
#pragma omp for schedule(static)
        for (int ii = 0; ii < in->inum; ii++) {
            const int i = in->ilist[ii], *e = in->entries + in->first[ii];
            for (int j = 0; j < in->count[ii]; j++) {
                if (!kept(in, ii, j)) continue;
                const int k = e[j] & PK_AMOEBA_NEIGHMASK;
                const int flag = in->pc && in->pc[in->first[ii] + j] ? AMOEBA_GPU_PC_FLAG : 0;
                const int cls = pk_amoeba_special(e[j]) << AMOEBA_GPU_CLASS_SHIFT;
                const int a = mine[row[i]]++, b = mine[row[k]]++;
                self[a] = i | flag;
                other[a] = k | cls;
                self[b] = k | flag;
                other[b] = i | cls;
            }
        }
    }
    return PK_OK;
}
