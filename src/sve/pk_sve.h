/* The SVE backends' common part (DESIGN.md §8): whether this CPU runs SVE, and the backend
 * table of a style's SVE kernel. Every SVE kernel is vector-length agnostic (ACLE intrinsics
 * with svcntd() and predicated tails), so one binary runs on 128- to 2048-bit SVE; A64FX
 * is 512-bit. Built only with -DPAIRKIT_SVE=ON (an SVE-capable compiler and -march). */
#ifndef PK_SVE_H
#define PK_SVE_H

#include <stddef.h>

#include "pk_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the CPU (or the emulator) runs SVE; otherwise 0 and why. */
int pk_sve_available(char *why, size_t len);
/* Names the vector length and the OpenMP thread count in info->device, e.g.
 * "SVE 512-bit, 48 OpenMP threads". */
pk_code pk_sve_init(void *model, const pk_backend_request *req, void **state,
                    pk_backend_info *info, pk_status *st);
/* Vector length in bits (svcntb() * 8) of the running CPU. */
int pk_sve_bits(void);

/* The table of a style's SVE kernel: double precision, no state of its own (its workspaces
 * belong to the style's model, as the cpu backend's do). */
#define PK_BACKEND_SVE_OPS(compute_fn)                                                    \
    {PK_BACKEND_SVE, PK_PRECISION_BIT(PK_PRECISION_DOUBLE), pk_sve_available, pk_sve_init, \
     compute_fn, NULL, NULL}

#ifdef __cplusplus
}
#endif
#endif
