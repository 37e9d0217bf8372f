/* Synthetic n2p2 model directories and atom clusters for the hdnnp/pk unit tests. */
#ifndef HDNNP_SYNTH_H
#define HDNNP_SYNTH_H

typedef struct {
    const char *elements;      /* "H O" */
    int nelements;
    int cutoff_type;
    double alpha;
    const char *scaling;       /* keywords lines, e.g. "scale_symmetry_functions\n" */
    const char *network;       /* "global_hidden_layers_short 2\n..." */
    const char *extra;         /* more input.nn lines (normalize_nodes, atom_energy, ...) */
    const char *symfuncs;      /* symfunction_short lines */
    unsigned seed;             /* weights */
} hd_synth;

/* Write input.nn, scaling.data (nsf rows per element, counts given) and weights files with
 * pseudo-random values. nsf[e] and the network sizes must match what the reader will build;
 * hidden holds the hidden layer sizes (nhidden of them). Returns 0 on success. */
int hd_synth_write(const char *dir, const hd_synth *m, const int *nsf, const int *z,
                   const int *hidden, int nhidden);

/* Deterministic pseudo-random number in [0, 1). */
double hd_rand(unsigned *state);

/* 1 if no distance between two of the n atoms lies within margin of one of dist[0..nd) and no
 * angle j-i-k (any vertex i) within margin (radians) of one of deg[0..na) (degrees). Finite
 * differences across a point where a function is only once differentiable (the edges of
 * compact windows) are wrong by O(h), so the test clusters keep away from them. */
int hd_cluster_avoids(const double (*x)[3], int n, const double *dist, int nd, const double *deg,
                      int na, double margin);

#endif
