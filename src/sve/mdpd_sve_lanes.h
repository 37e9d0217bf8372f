/* Gathers through a vector of addresses for mdpd/pk's SVE kernels: one address per lane
 * (base + index * size), plus a constant byte offset in the load itself (LD1D/ST1D with
 * vector base and immediate), so that one address vector serves the three components of a
 * position or force, or every coefficient of a type pair. */
#ifndef PK_MDPD_SVE_LANES_H
#define PK_MDPD_SVE_LANES_H

#include <arm_sve.h>
#include <stddef.h>
#include <stdint.h>

static inline svuint64_t mdpd_lanes(svbool_t pg, const void *base, svint64_t index,
                                    uint64_t size)
{
    return svmad_n_u64_x(pg, svreinterpret_u64_s64(index), svdup_n_u64(size),
                         (uint64_t)(uintptr_t)base);
}

static inline svfloat64_t mdpd_load(svbool_t pg, svuint64_t address, size_t offset)
{
    return svld1_gather_u64base_offset_f64(pg, address, (int64_t)offset);
}

#endif
