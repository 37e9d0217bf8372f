/* The pair terms of amoeba/pk (HAL, permanent multipoles, polarization forces) as one lane
 * of the CUDA backend computes them, written once for the device and the host test (PK_HD,
 * DESIGN.md §8).
 *
 * Gather design (as mdpd_gather.h): the host puts the step's half pairs into rows
 * (amoeba_gpu_lists.h: a row per owned atom, and per ghost that is not an image of one),
 * each pair once in each of its ends' rows, in the order of the half list. One warp owns one
 * row and sums every pair of it with the row's end as "i": the force, torque, half the pair
 * energy and half the pair virial on the row. Lane l takes the row's entries l, l + 32, ...;
 * the lanes' sums combine in a fixed tree (amoeba_gpu_lanes_combine), so every output has
 * one writer and a fixed order and reruns give the same bits without atomics; each pair is
 * computed twice, once from each side. A warp per row rather than a thread: a ~20k-atom box
 * gives the GPU ~20k warps instead of ~600 (a few per SM, too few to hide the latency of the
 * pair loads).
 *
 * The arithmetic is the cpu backend's (amoeba_hal.c, amoeba_mpole.c, amoeba_polar.c),
 * scalar: the same equations, evaluated per pair rather than in SIMD lanes and summed in
 * another order, so in double the results agree with the cpu backend to round-off (the
 * agreement test's 1e-10). Precision mixed (the _f functions of amoeba_gpu_pair_body.h)
 * does each pair's arithmetic in float from a separation subtracted in double, and every
 * sum in double: with one writer per sum and a fixed order there are no atomics, so the
 * fixed-point accumulators GPU codes use for reproducible atomic sums are not needed. */
#ifndef AMOEBA_GPU_PAIR_H
#define AMOEBA_GPU_PAIR_H

#include <math.h>
#include <stddef.h>

#include "pk_hd.h"

/* A list entry's partner: index | special class << AMOEBA_GPU_CLASS_SHIFT (the layout of
 * pk_amoeba_list: class 0 none, 1..4 for 1-2..1-5). */
#define AMOEBA_GPU_CLASS_SHIFT 29
#define AMOEBA_GPU_INDEX_MASK 0x1FFFFFFF

/* Lanes per atom (a warp). */
#define AG_LANES 32

/* The combining tree of a warp's partial sums (width values per lane, lane l's at
 * acc[width l + c]): for s = 16, 8, ..., 1, lane l < s adds lane l + s; lane 0 ends with the
 * sum. The device does the same additions with __shfl_down_sync. */
PK_HD void amoeba_gpu_lanes_combine(double *acc, int width)
{
    for (int s = AG_LANES / 2; s > 0; s /= 2)
        for (int l = 0; l < s; l++)
            for (int c = 0; c < width; c++) acc[width * l + c] += acc[width * (l + s) + c];
}

/* One atom's results, AG_OUT doubles: force (3), torque (3, multipoles only), half its
 * pairs' energy, half their virial (LAMMPS order xx yy zz xy xz yz). */
enum { AG_F = 0, AG_T = 3, AG_E = 6, AG_V = 7, AG_OUT = 13 };

/* A list by row in CSR form: row a's entries are offset[a] .. offset[a + 1] - 1, each the
 * position index of the row's own end of the pair (self, its low bits) and of the partner
 * (other, with the pair's 1-n class). */
typedef struct {
    const int *offset, *self, *other;
} amoeba_gpu_list;

/* ---- HAL (amoeba_hal.c) ------------------------------------------------------------------ */

/* What a HAL lane reads: the list of site pairs within vdw_cut, the H-reduced sites (3
 * doubles per atom), each atom's vdW class, the mixed R_min and epsilon tables (ncls x ncls),
 * the 1-n scales, the taper (S = 1 below cut2 = start^2, above it sum c_k r^k, or the same
 * quintic of x = (r - start) inv_width) and the buffer constants. */
typedef struct {
    amoeba_gpu_list list;
    const double *site;
    const int *cls;
    const double *radmin, *epsmix;
    int ncls;
    double vdw_scale[5];
    double cut2, c[6], start, inv_width;
    double dhal, ghal;
} amoeba_gpu_hal;

/* ---- permanent multipoles (amoeba_mpole.c) ---------------------------------------------- */

/* What a multipole lane reads: the step's electrostatic list (the pairs within cut2 =
 * mpole_cut^2 count), positions (3 doubles per atom), the global-frame multipoles (13 per
 * atom, pk_amoeba_rotate's rows), the Coulomb constant times the 1-n scale by class, and the
 * SMOOTH mode's cutoff R, 1/R^2 and switch (x = (r - start) iw clamped at 0). */
typedef struct {
    amoeba_gpu_list list;
    const double *x, *rpole;
    double fscale[5];
    double cut2, R, iR2, start, iw;
    int smooth;
} amoeba_gpu_mpole;

/* ---- polarization forces (amoeba_polar.c) ------------------------------------------------ */

/* What a polarization lane reads: the step's electrostatic list (the pairs within cut2 =
 * polar_cut^2 count), positions, multipoles, the induced dipoles (6 per atom, d then p set),
 * each atom's type and polarization group, the types' pdamp and Thole parameters, and the
 * scales: d = same group ? direct-11 : 1, p = same ? polar-intra : polar-scale (by class),
 * u = same ? u11 : u1 (both 0 for direct polarization); hf = 1/2 the electric constant over
 * the dielectric; the SMOOTH switch x = (r - start) inv_width. */
typedef struct {
    amoeba_gpu_list list;
    const double *x, *rpole, *u;
    const int *amtype, *amgroup;
    const double *pdamp, *thole;
    double intra[5], pscale[5];
    double cut2, d11, u11, u1, hf, start, inv_width;
    int smooth;
} amoeba_gpu_polar;

/* The per-lane functions in both precisions: amoeba_gpu_hal_row_d, ..._f, amoeba_gpu_mpole_row_d,
 * ..._f, amoeba_gpu_polar_row_d, ..._f (amoeba_gpu_pair_body.h). */
#define AG_BODY "amoeba_gpu_pair_body.h"
#include "amoeba_gpu_precisions.h"
#undef AG_BODY

#endif
