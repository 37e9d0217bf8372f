/* Pair-symmetric Gaussian random numbers for DPD noise.
 *
 * A counter-based generator (Philox-4x32-10, Salmon et al., SC'11) keyed by the user seed,
 * with the counter built from the timestep and the two atom IDs in sorted order. The number
 * for a pair therefore depends only on (seed, step, {tag_i, tag_j}): the same on every rank
 * and thread, whatever the neighbour order or newton setting, so a pair seen from both
 * sides gets the same xi and F_ij = -F_ji holds exactly. */
#ifndef PK_MDPD_RANDOM_H
#define PK_MDPD_RANDOM_H

#include <stdint.h>

#include "pk_views.h"

#ifdef __cplusplus
extern "C" {
#endif

double pk_mdpd_pair_gaussian(uint32_t seed, uint64_t timestep, pk_tag tag_i, pk_tag tag_j);

#ifdef __cplusplus
}
#endif
#endif
