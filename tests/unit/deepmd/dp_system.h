/* Test systems for deepmd/pk: periodic images as ghost atoms and a LAMMPS-style FULL
 * neighbour list, built from a box and coordinates; and the reader of DeePMD-kit's
 * expected values (deeppot_sea-testcase.yaml). */
#ifndef DP_SYSTEM_H
#define DP_SYSTEM_H

#include "pk_views.h"

typedef struct {
    int nlocal, nall;
    double (*x)[3];
    int *type;         /* LAMMPS types, 1-based */
    int *owner;        /* local atom each atom is an image of */
    pk_tag *tag;
    int *ilist, *numneigh, *store;
    int **firstneigh;
    pk_atoms atoms;
    pk_neigh nl;
} dp_sys;

/* box: 3 lattice vectors as rows (9 numbers) or NULL for no periodicity. Ghosts are the
 * images within cut of some local atom; the list holds every atom within cut. */
int dp_sys_build(dp_sys *s, int n, const double *x, const int *type, const double *box,
                 double cut);
void dp_sys_free(dp_sys *s);
/* Add the ghost parts of an array of `width` doubles per atom onto their owners. */
void dp_sys_fold(const dp_sys *s, double *a, int width);

typedef struct {
    int natoms;
    double *coord, *box;   /* box NULL when not periodic */
    int *atype;
    double *energy, *force, *virial;  /* atomic energies, forces, atomic virials (9) */
} dp_case;

/* Reads all blocks of "results" in a test case file (under models.<model> when model is
 * not NULL); returns the count (0 on failure). Missing quantities are NULL. */
int dp_cases_read(const char *path, const char *model, dp_case **cases);
void dp_cases_free(dp_case *c, int n);

/* A water-like box: n^3 molecules on a jittered grid in a cube of side L with random
 * orientations (O-H 0.96 A, 104.5 degrees), deterministic for a seed. x holds 9 n^3
 * numbers, type 3 n^3 (1 = O, 2 = H). */
void dp_water(int n, double L, unsigned seed, double *x, int *type);

/* Finite-difference check of one configuration: max |F - F_fd| / max |F_fd| and the same
 * for the 3x3 virial against -dE/d(strain); el compares the LAMMPS-order global virial
 * with the sum of the per-atom ones. 4-point central stencil with step h. */
typedef struct {
    int n;
    const double *x;
    const int *type;     /* LAMMPS types */
    const double *box;   /* NULL: not periodic */
    int nfd;             /* forces checked on atoms [0, nfd); 0: all */
} dp_config;

struct pk_deepmd;
void dp_fd_errors(struct pk_deepmd *dp, const dp_config *c, double cut, double h, double *ef,
                  double *ew, double *el);

/* Path under $PAIRKIT_SHARED (or ../shared relative to the source). */
const char *dp_shared_path(const char *rel);

#endif
