/* Test systems for the mdpd core: random beads in a periodic box, with ghost images and a
 * LAMMPS-style half neighbour list built by brute force (newton on or off). */
#ifndef TEST_MDPD_SYSTEM_H
#define TEST_MDPD_SYSTEM_H

#include "pk_views.h"

typedef struct {
    int nlocal, nall;
    double box;                 /* cubic box edge; 0 for an isolated cluster */
    double (*x)[3], (*v)[3];
    int *type;
    pk_tag *tag;
    int *owner;                 /* owned atom each ghost images */
    double mass[3];             /* per-type mass, types 1..2 */
    int *numneigh, *ilist, **firstneigh, *pairs;
} mdpd_system;

/* n beads, uniformly random in [0, box)^3 (box 0: in a cube of edge `span`), two types,
 * random velocities; deterministic for a given seed. */
void mdpd_system_make(mdpd_system *s, int n, double box, double span, unsigned seed);
/* (Re)build ghosts within `cut` of the box and the half list for `cut`. */
void mdpd_system_neighbors(mdpd_system *s, double cut, int newton);
void mdpd_system_free(mdpd_system *s);
pk_atoms mdpd_system_atoms(const mdpd_system *s);
pk_neigh mdpd_system_list(const mdpd_system *s);
/* rho on ghosts: add ghost partial sums into owners (when newton), then copy owners out. */
void mdpd_system_complete(const mdpd_system *s, double *per_atom, int newton);
/* Fold forces on ghosts into their owners (newton on). */
void mdpd_system_fold_forces(const mdpd_system *s, double (*f)[3]);

#endif
