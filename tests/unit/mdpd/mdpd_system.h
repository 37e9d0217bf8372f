/* Test systems for the mdpd core: random beads in a periodic box, with ghost images and a
 * LAMMPS-style half neighbour list built by brute force (newton on or off). */
#ifndef TEST_MDPD_SYSTEM_H
#define TEST_MDPD_SYSTEM_H

#include <stdint.h>

#include "mdpd.h"
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
    /* full list (mdpd_system_full_list): every atom within the cutoff of each owned atom */
    int *full_numneigh, **full_firstneigh, *full_pairs;
} mdpd_system;

/* n beads, uniformly random in [0, box)^3 (box 0: in a cube of edge `span`), two types,
 * random velocities; deterministic for a given seed. */
void mdpd_system_make(mdpd_system *s, int n, double box, double span, unsigned seed);
/* (Re)build ghosts within `cut` of the box and the half list for `cut`. */
void mdpd_system_neighbors(mdpd_system *s, double cut, int newton);
void mdpd_system_free(mdpd_system *s);
pk_atoms mdpd_system_atoms(const mdpd_system *s);
pk_neigh mdpd_system_list(const mdpd_system *s);
/* The full list for the same cutoff and ghosts (after mdpd_system_neighbors). */
void mdpd_system_full_list(mdpd_system *s, double cut);
pk_neigh mdpd_system_full_view(const mdpd_system *s);
/* Mark the pairs whose tags sum to a multiple of `every` as special class `cls` in both
 * lists (the top bits of LAMMPS neighbour indices), so both lists agree on them. */
void mdpd_system_mark_special(mdpd_system *s, int every, int cls);
/* Fold per-atom values of `width` doubles from ghosts into their owners (reverse
 * communication); ghosts are zeroed. */
void mdpd_system_fold(const mdpd_system *s, double *per_atom, int width);
/* rho on ghosts: add ghost partial sums into owners (when newton), then copy owners out. */
void mdpd_system_complete(const mdpd_system *s, double *per_atom, int newton);
/* Fold forces on ghosts into their owners (newton on). */
void mdpd_system_fold_forces(const mdpd_system *s, double (*f)[3]);

/* Two bead types with different coefficients (the droplet's A=-40, B=25 among them), kT = 1
 * so that the noise is on, seed 4242; initialised, on the cpu backend. Exits on error. */
pk_mdpd *mdpd_two_type_model(pk_mdpd_kernel kernel);

/* The liquid of the backend tests: 750 beads in a periodic box of edge 5 (~6 per unit
 * volume, as the LAMMPS droplet), half and full lists for rc 1 with a 0.3 skin, and one pair
 * in seven (by tags) in special class 1. MDPD_LIQUID_SPECIAL are the factors to use. */
void mdpd_system_liquid(mdpd_system *s, unsigned seed);
#define MDPD_LIQUID_SPECIAL {1.0, 0.5, 0.0, 0.0}

/* One step's results, owned atoms and ghosts (ghost parts folded into owners). */
typedef struct {
    double (*f)[3];
    double *rho, *eatom, (*vatom)[6];
    double energy, virial[6];
} mdpd_result;

void mdpd_result_alloc(mdpd_result *r, const mdpd_system *s);
void mdpd_result_free(mdpd_result *r);
/* Displace every owned atom by up to `amount` in each direction (ghosts follow their
 * owners), as between two rebuilds of the neighbour list. */
void mdpd_system_jiggle(mdpd_system *s, double amount, unsigned seed);
/* One step of m through pk_mdpd_compute, with the list its backend takes, newton on, the
 * density completed on ghosts by this system's "communication", and forces, per-atom energy
 * and virial folded back into owners. want_ev = 0 asks for forces only. */
void mdpd_system_step(pk_mdpd *m, mdpd_system *s, const pk_mdpd_step *step, int list_changed,
                      int want_ev, mdpd_result *r);

#endif
