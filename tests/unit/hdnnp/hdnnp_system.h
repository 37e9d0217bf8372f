/* Test systems for hdnnp/pk: n2p2 input.data reader, periodic ghost images, full neighbour
 * lists (what LAMMPS would hand the adapter), and small synthetic model directories. */
#ifndef HDNNP_SYSTEM_H
#define HDNNP_SYSTEM_H

#include "pk_hdnnp.h"
#include "pk_views.h"

typedef struct hd_system_s {
    int nlocal, nghost;
    double (*x)[3];        /* owned then ghosts */
    int *type;             /* LAMMPS-style 1-based types */
    pk_tag *tag;
    int *owner;            /* owner[i] = local atom of which i is an image (i itself if local) */
    double lattice[3][3];  /* rows = cell vectors (periodic systems) */
    int periodic;
    int *ilist, *numneigh, **firstneigh, *neighbuf;
} hd_system;

/* First configuration of an n2p2 input.data; element symbols are mapped to types through
 * symbols[0..nsym) (type = position + 1). Returns 0 on success. */
int hd_read_n2p2(const char *path, const char *const *symbols, int nsym, hd_system *s);
/* Periodic images within one cell vector in each direction (ghosts), positions wrapped. */
void hd_make_ghosts(hd_system *s);
/* The same, keeping only the images within margin of the cell (what a domain decomposition
 * with that ghost cutoff holds). */
void hd_make_ghosts_within(hd_system *s, double margin);
/* Full neighbour list of all owned atoms over owned + ghost atoms (ascending indices). */
void hd_make_neigh(hd_system *s, double cutoff);
/* Sum ghost forces onto their owners. */
void hd_fold(const hd_system *s, double (*f)[3]);
void hd_free(hd_system *s);
pk_neigh hd_neigh(const hd_system *s);
pk_atoms hd_atoms(const hd_system *s);

/* n2p2's RPBE-D3 water, the reference these tests and benches use ($PAIRKIT_SHARED, default
 * ../shared): its folder into dir (HD_PATH chars), its model into *m and the first
 * configuration of its input.data into s (types 1 = H, 2 = O; no ghosts yet). Returns 0, or
 * -1 after printing why to stderr. */
enum { HD_PATH = 1024 };
int hd_water_reference(char *dir, pk_hdnnp_model **m, hd_system *s);

/* Write text to dir/name (dir created if needed). Returns 0 on success. */
int hd_write_file(const char *dir, const char *name, const char *text);
/* Remove a directory tree made by a test. */
void hd_remove_tree(const char *dir);

#endif
