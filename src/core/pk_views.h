/* Plain C views of LAMMPS data handed to the cores (zero copy: cores never own them). */
#ifndef PK_VIEWS_H
#define PK_VIEWS_H

#include <stdint.h>

#include "pk_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LAMMPS's tagint in the default LAMMPS_SMALLBIG build; the adapter checks the size. */
typedef int pk_tag;

/* Low bits of a neighbour index; the top two bits carry the special-bond class. */
#define PK_NEIGHMASK 0x1FFFFFFF
#define PK_SBBITS 30
PK_HD int pk_neigh_index(int j) { return j & PK_NEIGHMASK; }
PK_HD int pk_neigh_special(int j) { return (j >> PK_SBBITS) & 3; }
/* Index j with special class cls (0..3), as LAMMPS stores it. Built in unsigned arithmetic:
 * cls << 30 overflows int for cls >= 2 (undefined behaviour), while the conversion back to
 * int is defined by GCC, Clang and nvcc as the two's-complement bit pattern. */
PK_HD int pk_neigh_entry(int j, int cls) { return (int)((unsigned)j | (unsigned)cls << PK_SBBITS); }

typedef struct {
    int nlocal;              /* owned atoms: indices [0, nlocal) */
    int nghost;              /* ghost atoms: indices [nlocal, nlocal + nghost) */
    const double (*x)[3];    /* positions, owned then ghosts */
    const double (*v)[3];    /* velocities, or NULL when the style needs none */
    const int *type;         /* LAMMPS atom types, 1-based */
    const pk_tag *tag;       /* atom IDs, or NULL */
    const double *mass;      /* per-type mass indexed by type, or NULL */
    const double *rmass;     /* per-atom mass, or NULL */
} pk_atoms;

typedef struct {
    int inum;                /* atoms whose neighbours are listed */
    const int *ilist;
    const int *numneigh;
    int *const *firstneigh;  /* neighbour indices, possibly with special bits set */
} pk_neigh;

/* What a compute fills. Null pointers mean "not requested". Forces, per-atom energy and
 * per-atom virial cover owned and ghost atoms (ghost parts are reverse-communicated by
 * LAMMPS when newton_pair is on). Virial order is LAMMPS's: xx yy zz xy xz yz. */
typedef struct {
    double (*f)[3];
    double energy;           /* accumulated, not reset by the core */
    double virial[6];        /* accumulated, not reset by the core */
    int want_energy, want_virial;
    double *eatom;
    double (*vatom)[6];
} pk_out;

#ifdef __cplusplus
}
#endif
#endif
