/* Deterministic per-thread accumulation for scatter updates (forces on neighbours, densities).
 *
 * Each thread adds into its own copy; the copies are then summed element by element in
 * thread order, so a run gives the same bits every time for a given thread count, and
 * results differ between thread counts only by round-off. With one thread the caller's
 * array is used directly and nothing is copied. */
#ifndef PK_THREADS_H
#define PK_THREADS_H

#include <stddef.h>

#include "pk_workspace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    pk_buffer copies;
    int nthreads;
    size_t n;        /* doubles per copy */
    double *target;  /* where the reduction lands */
} pk_accum;

int pk_max_threads(void);
int pk_thread_id(void);

/* Prepare nthreads zeroed copies of n doubles that will be added into target. */
pk_code pk_accum_begin(pk_accum *a, int nthreads, double *target, size_t n, pk_status *st);
/* The array thread tid adds into (target itself when there is one thread). */
double *pk_accum_slice(pk_accum *a, int tid);
/* target[k] += sum over threads in order of copy[k]. Call outside a parallel region. */
void pk_accum_reduce(pk_accum *a);
void pk_accum_free(pk_accum *a);

#ifdef __cplusplus
}
#endif
#endif
