/* The step of amoeba/pk's CUDA backend (amoeba_gpu.c) and what runs its kernels: the device
 * (src/cuda/amoeba_cuda.cu) or, for the tests, the same per-lane code in host loops. C
 * declarations only, so that the .cu includes them without the C core's headers. */
#ifndef AMOEBA_GPU_H
#define AMOEBA_GPU_H

#include "amoeba_gpu_pair.h"
#include "amoeba_gpu_solve.h"
#include "pk_backend.h"
#include "pk_status.h"
#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Modes of amoeba_gpu_solve_ops.rows */
enum { AG_GET, AG_SET, AG_ADD };

/* The induced-dipole solve on the device (amoeba_gpu_solve.h, amoeba_gpu_solve.c), over
 * nrows rows of which the first n are the owned atoms':
 *   field: g's inputs (host pointers: the electrostatic list by row with nentry entries,
 *     tagged as for the gathers below, nall atoms, types 0..ntypes) to the device, and the
 *     field pass over all rows into u_dir; consts' constants (its pointers unused) and the
 *     scalars s kept for the passes;
 *   start: the owned rows' start (amoeba_gpu_pcg_start), their fields complete;
 *   product: y = T v (set 0) or P v (set 1) over all rows, v the vector vec (AG_VEC_*);
 *   pass: a pass's row work over the owned rows; with sums NULL its scalar update follows on
 *     the device, else the device waits and returns the owned rows' sums
 *     (amoeba_gpu_pass_width of them) for the host to sum over ranks and give to scalars;
 *   scalars: a pass's scalar update from its sums over ranks;
 *   eps: the RMS residual after the work queued so far (waits for it);
 *   rows: nr rows of vector vec from row r0 to the host (AG_GET), or from the host into
 *     them (AG_SET) or added to them (AG_ADD), 6 doubles a row;
 *   result: u (lanes order) and u_dir (d then p) of the n owned rows to the host. */
typedef struct {
    pk_code (*field)(void *dev, const amoeba_gpu_field *g, int n, int nrows, int nall,
                     int nentry, unsigned tag, int ntypes, const amoeba_gpu_pcg_rows *consts,
                     const amoeba_gpu_pcg_scalars *s, pk_status *st);
    pk_code (*start)(void *dev, pk_status *st);
    pk_code (*product)(void *dev, int set, int vec, pk_status *st);
    pk_code (*pass)(void *dev, int pass, double *sums, pk_status *st);
    pk_code (*scalars)(void *dev, int pass, const double *sums, pk_status *st);
    pk_code (*eps)(void *dev, double *eps, pk_status *st);
    pk_code (*rows)(void *dev, int vec, int r0, int nr, double *host, int mode,
                    pk_status *st);
    pk_code (*result)(void *dev, double *u, double *udir, pk_status *st);
} amoeba_gpu_solve_ops;

/* Runs the gather kernels: one kernel over rows 0..nrows-1 of nall atoms; g holds host
 * pointers (the list has nentry entries and the host's tag for it: a list the device holds
 * under that tag already is not sent again; HAL's tables are g->ncls^2, polar's per-type
 * arrays ntypes + 1), out receives nrows * AG_OUT doubles on the host. And the solve. */
typedef struct {
    pk_code (*hal)(void *dev, const amoeba_gpu_hal *g, int nrows, int nall, int nentry,
                   unsigned tag, double *out, pk_status *st);
    pk_code (*mpole)(void *dev, const amoeba_gpu_mpole *g, int nrows, int nall, int nentry,
                     unsigned tag, double *out, pk_status *st);
    pk_code (*polar)(void *dev, const amoeba_gpu_polar *g, int nrows, int nall, int nentry,
                     unsigned tag, int ntypes, double *out, pk_status *st);
    void *dev;
    const amoeba_gpu_solve_ops *solve;   /* with its own context */
    void *solve_dev;
} amoeba_gpu_device;

/* The host side's workspace (rows, lists, sites, per-row results), kept between steps. */
typedef struct amoeba_gpu_host amoeba_gpu_host;
amoeba_gpu_host *amoeba_gpu_host_new(void);
void amoeba_gpu_host_free(amoeba_gpu_host *h);
double amoeba_gpu_host_bytes(const amoeba_gpu_host *h);

/* One step, pk_amoeba_compute's contract; args is the step's pk_amoeba_args. HAL, the
 * permanent multipoles, the induced dipoles and the polarization forces run on d; the rest
 * is the cpu backend's code (amoeba_gpu.c). */
pk_code amoeba_gpu_step(const amoeba_gpu_device *d, amoeba_gpu_host *h, const void *args,
                        pk_out *out, pk_status *st);

/* The CUDA backend's step with its kernels' per-lane code run by host loops: a backend of
 * kind cpu, for tests only (tests/unit/amoeba, test_amoeba_gpu_emul). */
extern const pk_backend_ops pk_amoeba_gpu_emulated;

#ifdef PK_HAVE_CUDA
extern const pk_backend_ops pk_amoeba_backend_cuda;
#endif

#ifdef __cplusplus
}
#endif
#endif
