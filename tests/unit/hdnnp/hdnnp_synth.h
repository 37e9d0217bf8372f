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

/* symfunction_short lines of H and O using every type (2, 3, 9, 12, 13, 20-25), as
 * hd_synth.symfuncs; hd_synth_all_types_nsf: the function counts of H and O. */
#define HD_SYNTH_ALL_TYPES \
    "symfunction_short H 2 O 0.5 0.3 4.0\nsymfunction_short H 2 H 0.1 1.0 3.5\n" \
    "symfunction_short H 3 O H 0.1 -1 2.0 4.0\nsymfunction_short H 9 O O 0.05 1 1.0 4.0 0.5\n" \
    "symfunction_short H 12 0.3 0.5 4.0\nsymfunction_short H 13 0.05 0.0 1 2.0 4.0\n" \
    "symfunction_short O 2 H 0.5 0.0 4.0\nsymfunction_short O 3 H H 0.1 1 1.5 3.5\n" \
    "symfunction_short O 9 H O 0.02 -1 3.0 4.0\nsymfunction_short O 13 0.02 0.0 -1 1.0 4.0\n" \
    "symfunction_short O 2 O 0.3 1.5 3.5\n" \
    "symfunction_short H 20 O 0.5 4.0 p2\nsymfunction_short H 21 H O 0.0 4.0 30 150 p3a\n" \
    "symfunction_short H 24 0.0 3.5 -60 60 e\nsymfunction_short H 23 0.3 4.0 p1\n" \
    "symfunction_short O 22 H H 0.8 4.0 60 180 p4\nsymfunction_short O 25 0.0 4.0 90 270 p2a\n" \
    "symfunction_short O 20 O 0.0 3.5 p1a\nsymfunction_short O 23 -4.0 4.0 e\n"
extern const int hd_synth_all_types_nsf[2];

/* Deterministic pseudo-random number in [0, 1). */
double hd_rand(unsigned *state);

/* 1 if no distance between two of the n atoms lies within margin of one of dist[0..nd) and no
 * angle j-i-k (any vertex i) within margin (radians) of one of deg[0..na) (degrees). Finite
 * differences across a point where a function is only once differentiable (the edges of
 * compact windows) are wrong by O(h), so the test clusters keep away from them. */
int hd_cluster_avoids(const double (*x)[3], int n, const double *dist, int nd, const double *deg,
                      int na, double margin);

/* The agreement tests' synthetic cases: a random 40-atom H/O cluster (no two atoms closer
 * than 0.9, all neighbours within the cutoffs) with its full list (HD_AGREE_NAT atoms, no
 * ghosts), and per cutoff type 0-8 a model using every symmetry-function type (plus a
 * non-integer zeta, a large integer one and a function with its own cutoff) and a set of
 * activations, written to dir; *activations receives their letters. Returns 0 on success. */
enum { HD_AGREE_NAT = 40, HD_AGREE_NCUT = 9 };
struct hd_system_s;
void hd_agree_cluster(struct hd_system_s *s);
int hd_agree_model_write(const char *dir, int cutoff_type, const char **activations);

#endif
