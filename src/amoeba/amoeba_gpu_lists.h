/* The host side of amoeba/pk's CUDA backend besides its step (amoeba_gpu.c): the rows its
 * kernels write (amoeba_gpu_rows.c), the lists of the step's pairs by row, and the device
 * solve's driver and host stand-in (amoeba_gpu_solve.c). C only (it needs the core's
 * headers); the device side's declarations are in amoeba_gpu.h.
 *
 * Rows. Every owned atom has a row, and so has every ghost that is not an image of an atom
 * owned here (sites->owner; on one rank with periodic images, none). A pair (i, k) of the
 * step sits in the rows of both i and k: an image's pairs land in its owned atom's row,
 * whose results are then those of the atom and its images together, which is what LAMMPS's
 * reverse communication would make of them. Each entry names the position index of the
 * row's own end of the pair (the atom or an image: the separation is the pair's own) and of
 * the partner. */
#ifndef AMOEBA_GPU_LISTS_H
#define AMOEBA_GPU_LISTS_H

#include "amoeba_gpu.h"
#include "amoeba_internal.h"

/* row[k]: atom k's row (owned and ghost atoms); atom[r]: row r's atom (owned: itself, else the
 * ghost); n owned atoms (rows 0..n-1), nrows rows in all. */
typedef struct {
    pk_buffer row, atom;
    int n, nrows;
} amoeba_gpu_rowmap;

/* The map of this step's atoms; owner may be NULL (every ghost its own row). */
pk_code amoeba_gpu_rowmap_build(amoeba_gpu_rowmap *m, const pk_atoms *a, const int *owner,
                                pk_status *st);
void amoeba_gpu_rowmap_free(amoeba_gpu_rowmap *m);

/* Pairs to put into rows: per listed atom ii (atom ilist[ii]) count[ii] entries at
 * entries + first[ii], each partner | class << PK_AMOEBA_SBBITS; keep and pc (per entry, at
 * the same place, or NULL) say which are kept (NULL: all) and which are the PCG
 * preconditioner's. */
typedef struct {
    int inum;
    const int *ilist, *first, *count, *entries;
    const unsigned char *keep, *pc;
} amoeba_gpu_pairs_in;

/* A list by row (CSR over the map's rows; amoeba_gpu_list on the device side): row r's
 * entries offset[r] .. offset[r + 1], self = own end | AMOEBA_GPU_PC_FLAG for a
 * preconditioner pair, other = partner | class << AMOEBA_GPU_CLASS_SHIFT. */
typedef struct {
    pk_buffer offset, self, other, counts;
    int nentry;
} amoeba_gpu_rows;

pk_code amoeba_gpu_rows_build(amoeba_gpu_rows *l, const amoeba_gpu_rowmap *m,
                              const amoeba_gpu_pairs_in *in, pk_status *st);
void amoeba_gpu_rows_free(amoeba_gpu_rows *l);
double amoeba_gpu_rows_bytes(const amoeba_gpu_rows *l);

/* pk_amoeba_induce's contract (u: owned and ghost rows; w->udir filled for the polarization
 * energy) with the solve on d's solve ops, over the step's electrostatic list l (the step's
 * pairs, the preconditioner's marked; the host's tag for it). */
pk_code amoeba_gpu_solve_run(const amoeba_gpu_device *d, const amoeba_gpu_rowmap *map,
                             const amoeba_gpu_rows *l, unsigned tag, const pk_amoeba_model *m,
                             const pk_atoms *a, const pk_amoeba_sites *s,
                             const double (*rpole)[13], const pk_amoeba_comm *comm,
                             double (*u)[6], pk_amoeba_induce_work *w,
                             pk_amoeba_induce_info *info, pk_status *st);

/* The solve's passes as host loops (the tests' device), and their state; mixed: the field
 * pass's pair arithmetic in float. */
typedef struct amoeba_gpu_solve_emul amoeba_gpu_solve_emul;
amoeba_gpu_solve_emul *amoeba_gpu_solve_emul_new(int mixed);
void amoeba_gpu_solve_emul_free(amoeba_gpu_solve_emul *e);
double amoeba_gpu_solve_emul_bytes(const amoeba_gpu_solve_emul *e);
extern const amoeba_gpu_solve_ops amoeba_gpu_solve_emulated;

#endif
