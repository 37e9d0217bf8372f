/* Neighbour batches: the neighbours of one atom within a cutoff, gathered into arrays so
 * that a pair kernel runs over them as a SIMD loop (#pragma omp simd) and applies the
 * per-pair results in a scalar loop afterwards. */
#include "amoeba_internal.h"

enum { BATCH_INTS = 2, BATCH_DOUBLES = 4 };   /* k, cls; rx, ry, rz, r2 (then scratch) */

static size_t batch_bytes(const pk_amoeba_batches *b)
{
    return (size_t)b->cap * ((size_t)b->ndouble * sizeof(double) + BATCH_INTS * sizeof(int));
}

pk_code amoeba_batches_begin(pk_amoeba_batches *b, const pk_amoeba_list *nl, int nthreads,
                             int nscratch, pk_status *st)
{
    int longest = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int n = nl->numneigh[nl->ilist[ii]];
        if (n > longest) longest = n;
    }
    b->cap = (longest + 7) / 8 * 8;
    b->ndouble = BATCH_DOUBLES + nscratch;
    return pk_buffer_reserve(&b->mem, (size_t)nthreads * batch_bytes(b), 1, st);
}

amoeba_batch amoeba_batch_slice(const pk_amoeba_batches *b, int tid)
{
    const size_t cap = (size_t)b->cap;
    double *d = (double *)((char *)b->mem.data + (size_t)tid * batch_bytes(b));
    int *k = (int *)(d + (size_t)b->ndouble * cap);
    amoeba_batch out = {0, b->cap, k, k + cap, d, d + cap, d + 2 * cap, d + 3 * cap,
                        d + BATCH_DOUBLES * cap};
    return out;
}

void amoeba_batch_gather(amoeba_batch *b, const pk_amoeba_list *nl, const double (*x)[3], int i,
                         double off2)
{
    const int *jlist = nl->firstneigh[i];
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
    int *bk = b->k, *bcls = b->cls, n = 0;
    double *rx = b->rx, *ry = b->ry, *rz = b->rz, *rr = b->r2;
    for (int jj = 0; jj < nl->numneigh[i]; jj++) {
        const int k = jlist[jj] & PK_AMOEBA_NEIGHMASK;
        const double dx = x[k][0] - xi, dy = x[k][1] - yi, dz = x[k][2] - zi;
        const double r2 = dx * dx + dy * dy + dz * dz;
        /* written always, kept by advancing n: no branch to mispredict */
        bk[n] = k;
        bcls[n] = pk_amoeba_special(jlist[jj]);
        rx[n] = dx;
        ry[n] = dy;
        rz[n] = dz;
        rr[n] = r2;
        n += r2 <= off2;
    }
    b->n = n;
}
