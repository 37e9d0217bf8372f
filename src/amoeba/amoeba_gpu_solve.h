/* The induced-dipole solve of amoeba/pk's CUDA backend kept on the device (issue 17, item 2):
 * the direct field, the pair tensors and every PCG pass, as the device runs them, written once
 * for the device and for the host test (PK_HD, DESIGN.md §8). The sequence of passes is the
 * host's (amoeba_gpu_solve.c); the equations are amoeba_induce.c's, whose comments derive them.
 *
 * Work layout: one warp per PCG row (amoeba_gpu_lists.h: an owned atom, its periodic images'
 * pairs folded in, or a ghost whose owner is on another rank), over the step's electrostatic
 * list by row, whose entries name the position index of the row's own end of the pair (the
 * atom or one of its images: the field there is computed with the right separation) and of
 * the partner, whose PCG row a product reads. A warp's lanes take the row's entries lane,
 * lane + 32, ...; their partial sums combine in a fixed tree (amoeba_gpu_lanes_combine: on
 * the device the same additions as register shuffles), so reruns give the same bits, and
 * the owned rows' partial dot products are summed in a fixed order too. The rows of ghosts
 * meet LAMMPS's communication through the host (amoeba_gpu_solve.c).
 *
 * PCG vectors are rows of 6 doubles in the lanes order of amoeba_induce.c (x_d x_p y_d y_p
 * z_d z_p: column j belongs to set j & 1); the field and udir are rows of 6 in the d-then-p
 * order the rest of the step uses. */
#ifndef AMOEBA_GPU_SOLVE_H
#define AMOEBA_GPU_SOLVE_H

#include <math.h>
#include <stddef.h>

#include "amoeba_gpu_pair.h"
#include "pk_hd.h"

/* A list entry's `self` with this bit set: the pair is one of the preconditioner's. */
#define AMOEBA_GPU_PC_FLAG 0x40000000
/* The smallest polarizability used as a PCG weight (amoeba_induce.c's POLMIN, LAMMPS). */
#define AMOEBA_GPU_POLMIN 1.0e-8

/* What the field pass reads: the step's electrostatic list by row (the pairs within
 * polar_cut count, and the preconditioner's, marked in self), each atom's PCG row
 * (row[k]: its owned copy), positions (3 per atom), global-frame multipoles (13 per atom),
 * types and polarization groups (owned and ghost atoms), the types' polarizability, pdamp
 * and Thole parameter, the scales (d: direct-11 inside a group, p: polar-intra inside,
 * polar-scale outside, by 1-n class; u: mutual-11 inside), polar_cut^2 and the SMOOTH switch
 * x = (r - start) inv_width. */
typedef struct {
    amoeba_gpu_list list;
    const int *row;
    const double *x, *rpole;
    const int *amtype, *amgroup;
    const double *polarity, *pdamp, *thole;
    double intra[5], pscale[5], d11, u11;
    double off2, start, inv_width;
    int smooth, mutual, use_pc;
} amoeba_gpu_field;

/* What a product pass reads: the electrostatic list, each atom's PCG row, a pair set's
 * tensors (4 per entry) and the input rows v. */
typedef struct {
    amoeba_gpu_list list;
    const int *row;
    const double *ten, *v;
} amoeba_gpu_product;

/* Lane `lane` of row a of y = T v (both sets, lanes order): its entries' T_ak v_k. */
PK_HD void amoeba_gpu_product_lane(const amoeba_gpu_product *g, int a, int lane, double y[6])
{
    for (int c = 0; c < 6; c++) y[c] = 0.0;
    for (int e = g->list.offset[a] + lane; e < g->list.offset[a + 1]; e += AG_LANES) {
        const double *t = g->ten + 4 * (size_t)e;
        const double sx = t[0], sy = t[1], sz = t[2], nb = t[3];
        const double *v = g->v + 6 * (size_t)g->row[g->list.other[e] & AMOEBA_GPU_INDEX_MASK];
        for (int set = 0; set < 2; set++) {
            const double vx = v[set], vy = v[2 + set], vz = v[4 + set];
            const double sv = sx * vx + sy * vy + sz * vz;
            y[set] += sx * sv + nb * vx;
            y[2 + set] += sy * sv + nb * vy;
            y[4 + set] += sz * sv + nb * vz;
        }
    }
}

/* ---- the PCG's passes over the rows -------------------------------------------------- */

/* The passes, in the order of amoeba_induce_run: GUESS y = T u (u = conj = u_dir);
 * RESIDUAL r = alpha^-1 (u_dir - u) + T u, or alpha^-1 u_dir without the guess;
 * PRECOND z = M r = p r + P r and r.z (P r through y); DIRECTION conj = z + beta conj;
 * PRODUCT y = T conj, al = r.z / conj.((alpha^-1 - T) conj); STEP u += al conj,
 * r -= al (alpha^-1 conj - y), the RMS residual; PEEK u += peek poli r. GUESS, PRECOND
 * (with the preconditioner) and PRODUCT start with a product over all rows
 * (amoeba_gpu_product_lane), the rest is row work over the owned rows. */
enum { AG_GUESS, AG_RESIDUAL, AG_PRECOND, AG_DIRECTION, AG_PRODUCT, AG_STEP, AG_PEEK };

/* The PCG's vectors, rows of 6 doubles (u_dir first holds the field, d then p). */
enum { AG_VEC_U, AG_VEC_R, AG_VEC_CONJ, AG_VEC_Y, AG_VEC_UDIR };

/* The PCG vectors of the rows and its constants. poli = max(alpha, POLMIN), ipoli its
 * inverse; p = diag poli is the preconditioner's diagonal. */
typedef struct {
    double *u, *r, *conj, *y, *udir, *poli, *ipoli;
    double diag, peek;
    int guess, precond;
} amoeba_gpu_pcg_rows;

/* Owned row a's start, its field complete in u_dir (d then p): u_dir = alpha field, the
 * weights, and the PCG's start u = conj = u_dir (lanes order) with the guess, else 0. */
PK_HD void amoeba_gpu_pcg_start(const amoeba_gpu_field *g, const amoeba_gpu_pcg_rows *v, int a)
{
    const double alpha = g->polarity[g->amtype[a]];
    const double poli = alpha > AMOEBA_GPU_POLMIN ? alpha : AMOEBA_GPU_POLMIN;
    const size_t o = 6 * (size_t)a;
    v->poli[a] = poli;
    v->ipoli[a] = 1.0 / poli;
    for (int d = 0; d < 6; d++) v->udir[o + d] *= alpha;
    for (int j = 0; j < 6; j++) {
        v->u[o + j] = v->guess ? v->udir[o + 3 * (j & 1) + (j >> 1)] : 0.0;
        v->conj[o + j] = v->u[o + j];
    }
}

/* The scalars the passes carry (one copy, on the device): rz = r.z, cc = conj.(alpha^-1
 * conj), the step al and beta of each set, rr = r.r and rpr = r.(p r), the RMS residual
 * eps (Debye), and whether rz holds a value yet. */
typedef struct {
    double rz[2], cc[2], al[2], beta[2], rr[2], rpr[2], eps, natoms;
    int have_rz, precond;
} amoeba_gpu_pcg_scalars;

/* How many partial sums a pass's rows give (0: none). */
PK_HD int amoeba_gpu_pass_width(int pass)
{
    return pass == AG_RESIDUAL || pass == AG_STEP ? 4 : pass == AG_PEEK || pass == AG_GUESS ? 0 : 2;
}

/* Whether a pass has row work (GUESS is its product alone; PRECOND without the
 * preconditioner only its scalar update). */
PK_HD int amoeba_gpu_pass_rows(int pass, int precond)
{
    return pass != AG_GUESS && (pass != AG_PRECOND || precond);
}

/* Whether a pass starts with a product, and of which pair set (0: T, 1: the
 * preconditioner's P), or -1. */
PK_HD int amoeba_gpu_pass_product(int pass, int precond)
{
    return pass == AG_GUESS || pass == AG_PRODUCT ? 0 : pass == AG_PRECOND && precond ? 1 : -1;
}

/* Owned row a's work of a pass, with the scalars s, y holding the pass's product; its
 * partial sums into part (amoeba_gpu_pass_width). */
PK_HD void amoeba_gpu_pass_row(int pass, const amoeba_gpu_pcg_rows *v,
                               const amoeba_gpu_pcg_scalars *s, int a, double *part)
{
    const size_t o = 6 * (size_t)a;
    const double poli = v->poli[a], ip = v->ipoli[a], p = v->diag * poli;
    double *u = v->u + o, *r = v->r + o, *cj = v->conj + o, *y = v->y + o;
    const double *ud = v->udir + o;
    switch (pass) {
    case AG_PRECOND:   /* r.(P r) */
    case AG_PRODUCT:   /* conj.(T conj) */
        part[0] = part[1] = 0.0;
        for (int j = 0; j < 6; j++) part[j & 1] += (pass == AG_PRECOND ? r[j] : cj[j]) * y[j];
        break;
    case AG_RESIDUAL:
        part[0] = part[1] = part[2] = part[3] = 0.0;
        for (int j = 0; j < 6; j++) {
            const double d = ud[3 * (j & 1) + (j >> 1)];   /* d-then-p to lanes */
            r[j] = v->guess ? (d - u[j]) * ip + y[j] : d * ip;
            part[j & 1] += r[j] * r[j];
            part[2 + (j & 1)] += p * r[j] * r[j];
        }
        break;
    case AG_DIRECTION:
        part[0] = part[1] = 0.0;
        for (int j = 0; j < 6; j++) {
            const double z = v->precond ? p * r[j] + y[j] : r[j];
            cj[j] = z + s->beta[j & 1] * cj[j];
            part[j & 1] += ip * cj[j] * cj[j];
        }
        break;
    case AG_STEP:
        part[0] = part[1] = part[2] = part[3] = 0.0;
        for (int j = 0; j < 6; j++) {
            const double al = s->al[j & 1];
            u[j] += al * cj[j];
            r[j] -= al * (cj[j] * ip - y[j]);
            part[j & 1] += r[j] * r[j];
            part[2 + (j & 1)] += p * r[j] * r[j];
        }
        break;
    case AG_PEEK:
        for (int j = 0; j < 6; j++) u[j] += v->peek * poli * r[j];
        break;
    default:
        break;
    }
}

/* The scalars after a pass, from the sum of its rows' partial sums (sum; the RMS residual
 * divides by natoms): as amoeba_induce_run. */
PK_HD void amoeba_gpu_pass_scalars(int pass, amoeba_gpu_pcg_scalars *s, const double *sum)
{
    switch (pass) {
    case AG_RESIDUAL:
    case AG_STEP:
        for (int k = 0; k < 2; k++) {
            s->rr[k] = sum[k];
            s->rpr[k] = sum[2 + k];
        }
        if (pass == AG_STEP) {
            const double m = s->rr[0] > s->rr[1] ? s->rr[0] : s->rr[1];
            s->eps = 4.80321 * sqrt(m / s->natoms);   /* PK_AMOEBA_DEBYE */
        }
        break;
    case AG_PRECOND:   /* sum: r.(P r), unused without the preconditioner */
        for (int k = 0; k < 2; k++) {
            const double rz = s->precond ? s->rpr[k] + sum[k] : s->rr[k];
            s->beta[k] = !s->have_rz ? 0.0 : s->rz[k] != 0.0 ? rz / s->rz[k] : rz;
            s->rz[k] = rz;
        }
        s->have_rz = 1;
        break;
    case AG_DIRECTION:
        s->cc[0] = sum[0], s->cc[1] = sum[1];
        break;
    case AG_PRODUCT:   /* sum: conj.(T conj) */
        for (int k = 0; k < 2; k++) {
            const double cv = s->cc[k] - sum[k];
            s->al[k] = cv != 0.0 ? s->rz[k] / cv : cv;
        }
        break;
    default:
        break;
    }
}

/* The field pass's lanes in both precisions: amoeba_gpu_field_lane_d, ..._f
 * (amoeba_gpu_solve_body.h). */
#define AG_BODY "amoeba_gpu_solve_body.h"
#include "amoeba_gpu_precisions.h"
#undef AG_BODY

#endif
