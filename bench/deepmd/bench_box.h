/* Periodic orthorhombic boxes of bench size for bench_deepmd: ghost atoms by sweeping the
 * faces one dimension at a time (as LAMMPS's border exchange does) and a full neighbour list
 * by cell binning, both linear in the atom count (dp_sys of the unit tests is quadratic,
 * fine for a hundred atoms, not for ten thousand). Needs cut < each box length. */
#ifndef BENCH_BOX_H
#define BENCH_BOX_H

#include "pk_views.h"

typedef struct {
    int nlocal, nall;
    double (*x)[3];
    int *type, *tag;
    int *ilist, *numneigh, *store;
    int **firstneigh;
    pk_atoms atoms;
    pk_neigh nl;
} bench_box;

/* n atoms at x (3n) with LAMMPS types in [0, L[0]) x [0, L[1]) x [0, L[2]); 0 on success,
 * -1 with a message on stderr. */
int bench_box_build(bench_box *b, int n, const double *x, const int *type, const double L[3],
                    double cut);
void bench_box_free(bench_box *b);

/* fcc lattice of a^3 cells, n per side: 4 n^3 atoms of type 1, box side n a. */
void bench_fcc(int n, double a, double *x, int *type);

#endif
