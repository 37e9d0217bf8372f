/* The backend seam (DESIGN.md §8): one shape, declared once, through which every style
 * dispatches its compute.
 *
 * A style keeps one table of entry points (pk_backend_ops) per backend kind (cpu, cuda,
 * sve) and an array of them indexed by kind, NULL where the backend is not built or not
 * written; a pk_backend_slot in its model holds the chosen one. The portable C kernel is
 * always the cpu table: the reference every other backend is tested against. pk_backend_choose() turns what the user asked for
 * (`backend auto|cpu|cuda|sve`, `precision double|mixed`, or PAIRKIT_BACKEND and
 * PAIRKIT_PRECISION in the environment) into one kind, or a message saying why not. */
#ifndef PK_BACKEND_H
#define PK_BACKEND_H

#include <stddef.h>

#include "pk_status.h"
#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PK_BACKEND_CPU = 0, PK_BACKEND_CUDA, PK_BACKEND_SVE, PK_BACKEND_COUNT } pk_backend_kind;
enum { PK_BACKEND_AUTO = -1 };

typedef enum { PK_PRECISION_DOUBLE = 0, PK_PRECISION_MIXED } pk_precision;
enum { PK_PRECISION_DEFAULT = -1 };

/* What the input (or the environment) asked for, and what device selection needs. */
typedef struct {
    int kind;                 /* pk_backend_kind or PK_BACKEND_AUTO */
    int precision;            /* pk_precision or PK_PRECISION_DEFAULT (double) */
    int device;               /* GPU index, or -1: round-robin by node-local rank */
    int local_rank;           /* this rank's index among the ranks of its node */
    int local_size;           /* ranks on this node */
    size_t device_memory_cap; /* bytes a GPU backend may hold (0: no cap); lets tests reach
                                 the out-of-memory path on any GPU */
} pk_backend_request;

/* What runs, for the style's log line. */
typedef struct {
    pk_backend_kind kind;
    pk_precision precision;
    char device[192];         /* e.g. "NVIDIA H100 80GB HBM3 (device 0 of 1, 4 ranks on it)" */
} pk_backend_info;

/* One backend of one style: the entry points its dispatcher calls. `model` is the style's
 * model (or context) object and `args` its struct of one step's inputs; each backend casts
 * them to the style's types. `state` is the backend's own per-instance data (device buffers,
 * streams), made by init and given back by release.
 *   precisions  bit PK_PRECISION_BIT(p) for each precision it computes in
 *   available   NULL: can always run; otherwise 1, or 0 with why it cannot run here
 *   init        called when the backend is chosen; fills info->device
 *   compute     one step: adds forces, energy and virials to out as the cpu backend does
 *   memory      bytes held by state (host and device) */
typedef struct pk_backend_ops {
    pk_backend_kind kind;
    unsigned precisions;
    int (*available)(char *why, size_t len);
    pk_code (*init)(void *model, const pk_backend_request *req, void **state,
                    pk_backend_info *info, pk_status *st);
    pk_code (*compute)(void *model, void *state, const void *args, pk_out *out, pk_status *st);
    double (*memory)(const void *state);
    void (*release)(void *state);
} pk_backend_ops;

#define PK_PRECISION_BIT(p) (1u << (p))

/* The backend a style instance runs on. Zero-initialise; pk_backend_select fills it. */
typedef struct {
    const pk_backend_ops *ops;
    void *state;
    pk_backend_info info;
    char note[256];           /* for auto: why a faster backend was passed over, or "" */
} pk_backend_slot;

const char *pk_backend_name(pk_backend_kind kind);
const char *pk_precision_name(pk_precision precision);
/* "auto", "cpu", "cuda", "sve" -> request->kind; "double", "mixed" -> request->precision.
 * On an unknown word: PK_ERR_ARG naming the word and the choices. */
pk_code pk_backend_parse(const char *word, int *kind, pk_status *st);
pk_code pk_precision_parse(const char *word, int *precision, pk_status *st);
/* Defaults: auto, precision default, device -1, rank 0 of 1, no cap. */
void pk_backend_request_default(pk_backend_request *req);
/* The defaults with kind cpu: what a style runs on until someone chooses. */
void pk_backend_request_cpu(pk_backend_request *req);
/* Fill what the input left at its default from PAIRKIT_BACKEND and PAIRKIT_PRECISION
 * (`input_kind_set`/`input_precision_set`: the input gave the keyword, which wins), and the
 * GPU memory cap from PAIRKIT_GPU_MEMORY_CAP (bytes; for testing out-of-memory handling). */
pk_code pk_backend_request_env(pk_backend_request *req, int input_kind_set,
                               int input_precision_set, pk_status *st);

/* Pick the backend of `style` for req among by_kind[k] (NULL: kind k not built or not
 * written for this style). auto: cuda if present and available, then sve likewise, else
 * cpu. An explicit kind that cannot run, or a precision the chosen backend lacks, is an
 * error that says why and what to do. `note` (may be NULL) receives, for auto, why a
 * faster backend was passed over ("" when none was). */
pk_code pk_backend_choose(const char *style, const pk_backend_ops *const by_kind[PK_BACKEND_COUNT],
                          const pk_backend_request *req, pk_backend_kind *chosen,
                          char *note, size_t note_len, pk_status *st);
/* Choose as above, release the slot's previous backend and initialise the chosen one for
 * `model`. On failure the slot is left empty. */
pk_code pk_backend_select(pk_backend_slot *slot, const char *style,
                          const pk_backend_ops *const by_kind[PK_BACKEND_COUNT], void *model,
                          const pk_backend_request *req, pk_status *st);
static inline pk_code pk_backend_compute(pk_backend_slot *slot, void *model, const void *args,
                                         pk_out *out, pk_status *st)
{
    if (!slot->ops) return pk_fail(st, PK_ERR_ARG, "no backend selected");
    return slot->ops->compute(model, slot->state, args, out, st);
}
double pk_backend_memory(const pk_backend_slot *slot);
/* init of a backend without state of its own (the portable C kernels): names the CPU and
 * its OpenMP thread count in info->device. */
pk_code pk_backend_cpu_init(void *model, const pk_backend_request *req, void **state,
                            pk_backend_info *info, pk_status *st);
/* The table of a style's portable C kernel: double precision, always available, no state
 * of its own (its workspaces belong to the style's model and are counted there). */
#define PK_BACKEND_CPU_OPS(compute_fn)                                                     \
    {PK_BACKEND_CPU, PK_PRECISION_BIT(PK_PRECISION_DOUBLE), NULL, pk_backend_cpu_init,    \
     compute_fn, NULL, NULL}
void pk_backend_release(pk_backend_slot *slot);

/* Whether this build contains a backend kind at all (PAIRKIT_CUDA / PAIRKIT_SVE). */
int pk_backend_compiled(pk_backend_kind kind);

#ifdef __cplusplus
}
#endif
#endif
