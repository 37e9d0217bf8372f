/* The step of amoeba/pk's CUDA backend (amoeba_gpu.c) and what runs its gather kernels: the
 * device (src/cuda/amoeba_cuda.cu) or, for the tests, the same per-thread code in a host
 * loop. C declarations only, so that the .cu includes them without the C core's headers. */
#ifndef AMOEBA_GPU_H
#define AMOEBA_GPU_H

#include "amoeba_gpu_pair.h"
#include "pk_backend.h"
#include "pk_status.h"
#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the gather kernels.
 *   hal, mpole, polar: one kernel over atoms 0..nall-1; g holds host pointers (the list has
 *     nentry entries; HAL's tables are g->ncls^2, polar's per-type arrays ntypes + 1), out
 *     receives nall * AG_OUT doubles on the host.
 *   pcg_pairs: keep pair set `set` (0 the dipole pairs, 1 the preconditioner's) of this
 *     step's PCG, g's list over nall rows with nentry entries and nten tensor doubles (g->v
 *     unused), for the products that follow.
 *   pcg_product: y = T v of that set over rows 0..nrows-1 (v and y: 8 doubles a row, host;
 *     *y is the device side's own memory, valid until its next call). */
typedef struct {
    pk_code (*hal)(void *dev, const amoeba_gpu_hal *g, int nall, int nentry, double *out,
                   pk_status *st);
    pk_code (*mpole)(void *dev, const amoeba_gpu_mpole *g, int nall, int nentry, double *out,
                     pk_status *st);
    pk_code (*polar)(void *dev, const amoeba_gpu_polar *g, int nall, int nentry, int ntypes,
                     double *out, pk_status *st);
    pk_code (*pcg_pairs)(void *dev, int set, const amoeba_gpu_pcg *g, int nall, int nentry,
                         size_t nten, pk_status *st);
    pk_code (*pcg_product)(void *dev, int set, int nrows, const double *v, const double **y,
                           pk_status *st);
    void *dev;
} amoeba_gpu_device;

/* The host side's workspace (full lists, sites, per-atom results), kept between steps. */
typedef struct amoeba_gpu_host amoeba_gpu_host;
amoeba_gpu_host *amoeba_gpu_host_new(void);
void amoeba_gpu_host_free(amoeba_gpu_host *h);
double amoeba_gpu_host_bytes(const amoeba_gpu_host *h);

/* One step, pk_amoeba_compute's contract; args is the step's pk_amoeba_args. HAL, the
 * permanent multipoles, the PCG's products and the polarization forces run on d; the rest
 * is the cpu backend's code (amoeba_gpu.c). */
pk_code amoeba_gpu_step(const amoeba_gpu_device *d, amoeba_gpu_host *h, const void *args,
                        pk_out *out, pk_status *st);

/* The CUDA backend's step with its kernels' per-thread code run by a host loop: a
 * backend of kind cpu, for tests only (tests/unit/amoeba, test_amoeba_gpu_emul). */
extern const pk_backend_ops pk_amoeba_gpu_emulated;

#ifdef PK_HAVE_CUDA
extern const pk_backend_ops pk_amoeba_backend_cuda;
#endif

#ifdef __cplusplus
}
#endif
#endif
