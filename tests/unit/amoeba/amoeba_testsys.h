/* Small molecular systems for the amoeba/pk unit tests: atoms, bonds, LAMMPS-style special
 * lists and half neighbour lists (with periodic ghost images when a box is given),
 * optional LAMMPS reference energies, forces and virials. */
#ifndef AMOEBA_TESTSYS_H
#define AMOEBA_TESTSYS_H

#include "pk_amoeba.h"

enum { TS_HAL = 1, TS_MPOLE = 2, TS_POLAR = 4 };   /* term selection bits */
/* reference sets in the data files: hal, mpole, polar (mutual), polar_direct */
enum { TS_REF_HAL, TS_REF_MPOLE, TS_REF_POLAR, TS_REF_POLAR_DIRECT, TS_NREF };

typedef struct {
    double energy;           /* NAN when absent */
    int has_virial;
    double virial[6];
    int *has_f;              /* per owned atom: reference force given */
    double (*f)[3];
} ts_reference;

typedef struct {
    int n, nall;             /* owned atoms; owned + ghost images */
    int *amtype;             /* nall */
    pk_tag *tag;             /* nall */
    double (*x)[3];          /* nall; ghosts follow their owners (ts_refresh) */
    int *owner;              /* nall: owned atom a ghost images (self for owned) */
    int pcg_comm;            /* 1: the PCG works through ts_comm (owner not given to it) */
    int (*shift)[3];         /* nall: image shift in box lengths */
    int periodic;
    double box[3];
    double strain[3][3];     /* homogeneous strain of the periodic images (ts_fd_virial) */
    int nbond;
    int (*bond)[2];          /* 0-based owned indices */
    ts_reference ref[TS_NREF];
    pk_amoeba_induce_info info;   /* of the last ts_compute with TS_POLAR */
    double *eatom;           /* if set (n doubles): per-atom energies of ts_compute */
    double (*vatom)[6];      /* if set (n): per-atom virials of ts_compute */
    /* topology (LAMMPS layout, owned atoms) */
    int (*nspecial)[3];
    pk_tag **special;
    int *nspecial15;
    pk_tag **special15;
    /* half list over owned atoms (newton on), LAMMPS 2-bit special classes for 1-2..1-4 */
    int *ilist, *numneigh;
    int **firstneigh;
    /* derived per-atom data for the kernels */
    int *hred;               /* nall */
    int *amgroup;            /* nall: polarization groups */
    int *mpole;              /* n */
    int (*frame)[3];         /* n */
} test_system;

/* Load the "box, atoms, bonds, energy_..., forces_..., virial_..." text (see
 * data/water_dimer.txt). With a box, ghost images within ghost_cut are made and the
 * neighbour list holds pairs within list_cut; without one, all pairs. 0 on success. */
int ts_load(test_system *s, const char *path, double ghost_cut, double list_cut);
/* Build a non-periodic system from arrays (bonds 0-based). */
void ts_init(test_system *s, int n, const int *amtype, const double (*x)[3], int nbond,
             const int (*bond)[2]);
void ts_free(test_system *s);

pk_atoms ts_atoms(const test_system *s);
pk_neigh ts_neigh(const test_system *s);
pk_amoeba_topology ts_topology(test_system *s);
/* Assign H partners (all atoms) and frames (owned). Returns the pk code. */
pk_code ts_assign(test_system *s, const pk_amoeba_model *m, pk_status *st);

/* Energy, forces on owned atoms (ghost forces and torques folded onto their owners, as
 * LAMMPS's reverse communication does) and virial of the selected terms at s->x. */
pk_code ts_compute(test_system *s, const pk_amoeba_model *m, int terms, double *energy,
                   double (*f)[3], double virial[6], pk_status *st);

/* Compare one term (TS_HAL, TS_MPOLE or TS_POLAR: mutual or direct as the model says)
 * with the system's reference: the energy, the
 * worst force deviation over atoms with reference forces (and the largest such force),
 * and the worst virial deviation (and the largest component; 0, 0 when absent). */
typedef struct {
    double energy, ref_energy;
    double fdev, fmax;
    double vdev, vmax;
} ts_errors;
pk_code ts_against_reference(test_system *s, const pk_amoeba_model *m, int term, ts_errors *err,
                             pk_status *st);

/* The single-rank communication of this system (ghost images <-> owners). */
pk_amoeba_comm ts_comm(test_system *s);
/* Rotated multipoles and induced dipoles (u: nall x 6) at s->x; energy = E_polar. */
pk_code ts_polar(test_system *s, const pk_amoeba_model *m, double (*u)[6], double *energy,
                 pk_amoeba_induce_info *info, pk_status *st);

/* Central finite differences of the energy over the owned atoms' coordinates: worst
 * |F + dE/dx| (maxdev) and the largest |F| (maxf). */
pk_code ts_fd_forces(test_system *s, const pk_amoeba_model *m, int terms, double h,
                     double *maxdev, double *maxf, pk_status *st);
/* The same over the coordinates of the owned atoms listed in atoms[0..natoms). */
pk_code ts_fd_forces_of(test_system *s, const pk_amoeba_model *m, int terms, double h,
                        const int *atoms, int natoms, double *maxdev, double *maxf,
                        pk_status *st);
/* Virial from the energy under homogeneous strain (symmetric off-diagonal strains; a
 * periodic system's images are strained with it): fd[k] vs the computed virial vir[k],
 * order xx yy zz xy xz yz. */
pk_code ts_fd_virial(test_system *s, const pk_amoeba_model *m, int terms, double h,
                     double fd[6], double vir[6], pk_status *st);

/* Path of a data file: $PAIRKIT_SOURCE/tests/unit/amoeba/data/<name>. */
const char *ts_data(const char *name);

#endif
