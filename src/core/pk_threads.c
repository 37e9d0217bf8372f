#include "pk_threads.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int pk_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int pk_thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

pk_code pk_accum_begin(pk_accum *a, int nthreads, double *target, size_t n, pk_status *st)
{
    a->nthreads = nthreads;
    a->n = n;
    a->target = target;
    if (nthreads == 1) return PK_OK;
    if (pk_buffer_reserve(&a->copies, (size_t)nthreads * n, sizeof(double), st)) return st->code;
    double *c = a->copies.data;
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (long k = 0; k < (long)(n * (size_t)nthreads); k++) c[k] = 0.0;
    return PK_OK;
}

double *pk_accum_slice(pk_accum *a, int tid)
{
    if (a->nthreads == 1) return a->target;
    return (double *)a->copies.data + (size_t)tid * a->n;
}

void pk_accum_reduce(pk_accum *a)
{
    if (a->nthreads == 1) return;
    const double *c = a->copies.data;
    const size_t n = a->n;
    const int nt = a->nthreads;
    double *t = a->target;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (long k = 0; k < (long)n; k++) {
        double s = t[k];
        for (int p = 0; p < nt; p++) s += c[(size_t)p * n + (size_t)k];
        t[k] = s;
    }
}

void pk_accum_free(pk_accum *a)
{
    pk_buffer_free(&a->copies);
}
