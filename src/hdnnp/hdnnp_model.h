/* Internal model representation of hdnnp/pk (not part of the public API). */
#ifndef HDNNP_MODEL_H
#define HDNNP_MODEL_H

#include <stddef.h>

#include "pk_hdnnp.h"

enum { HDNNP_MAX_ELEMENTS = 16, HDNNP_MAX_LAYERS = 16 };

/* Atoms closer than this (model length units) are an error: the derivatives of the symmetry
 * functions are undefined at r = 0. */
#define HDNNP_OVERLAP_R 1e-10

/* n2p2 CutoffFunction::CutoffType numbering; HDNNP_CT_COMPACT (not an n2p2 cutoff type) is
 * the radial window of the compact-support symmetry functions 20-25. */
typedef enum {
    HDNNP_CT_HARD = 0, HDNNP_CT_COS, HDNNP_CT_TANHU, HDNNP_CT_TANH, HDNNP_CT_EXP,
    HDNNP_CT_POLY1, HDNNP_CT_POLY2, HDNNP_CT_POLY3, HDNNP_CT_POLY4, HDNNP_CT_COMPACT
} hdnnp_cutoff_type;

/* Core functions f(x) on [0, 1], f(0) = 1, f(1) = 0 (n2p2 CoreFunction): the polynomials
 * shared by cutoff types 5-8 and the compact subtypes p1-p4, and exp(1 - 1/(1 - x^2)) of
 * cutoff type 4 and compact subtype e. */
typedef enum {
    HDNNP_CORE_POLY1 = 0, HDNNP_CORE_POLY2, HDNNP_CORE_POLY3, HDNNP_CORE_POLY4, HDNNP_CORE_EXP
} hdnnp_core;

/* A radial factor evaluated once per neighbour (and per neighbour pair r_jk): a cutoff
 * function, or a compact window C(r) = core(|r - (rl + rc)/2| / ((rc - rl)/2)) on (rl, rc),
 * zero outside; with asym the core's argument x is replaced by x (2 - x). */
typedef struct {
    hdnnp_cutoff_type type;
    double rc, irc;      /* rc and 1/rc */
    double alpha;        /* inner cutoff rci = alpha * rc (ignored by TANH/TANHU/HARD) */
    double rci, iw;      /* rci and 1/(rc - rci) */
    double pre;          /* TANH: 1/tanh^3(1) so that f(0) = 1; otherwise 1 */
    double rl;           /* COMPACT: lower end of the window; -1 (no lower end) otherwise */
    double center, hw;   /* COMPACT: centre and 1/half-width of the window */
    hdnnp_core core;     /* COMPACT */
    int asym;            /* COMPACT */
} hdnnp_cutoff;

/* n2p2 SymFnc::ScalingType. */
typedef enum {
    HDNNP_ST_NONE = 0, HDNNP_ST_SCALE, HDNNP_ST_CENTER, HDNNP_ST_SCALECENTER,
    HDNNP_ST_SCALESIGMA
} hdnnp_scaling;

/* Activation letters of n2p2 (NeuralNetwork::ActivationFunction). */
typedef enum {
    HDNNP_AF_IDENTITY = 0, /* l */
    HDNNP_AF_TANH,         /* t */
    HDNNP_AF_LOGISTIC,     /* s */
    HDNNP_AF_SOFTPLUS,     /* p */
    HDNNP_AF_RELU,         /* r */
    HDNNP_AF_GAUSSIAN,     /* g */
    HDNNP_AF_COS,          /* c */
    HDNNP_AF_REVLOGISTIC,  /* S */
    HDNNP_AF_EXP,          /* e */
    HDNNP_AF_HARMONIC      /* h */
} hdnnp_activation;

typedef struct {
    int type;             /* 2, 3, 9, 12, 13, 20-25 */
    int e1, e2;           /* neighbour elements (e1 <= e2); -1 for weighted types */
    double eta, rs, lambda, zeta, rc;
    int zeta_int, int_pow; /* integer exponent used when zeta is integral */
    double norm;          /* 2^(1 - zeta) */
    /* compact types 20-25: radial window (rl, rc) with core and asym, angular window
     * [aleft, aright] in degrees as written (radians: rad_*), same core, never asym */
    char subtype[4];      /* as written in input.nn: it orders the functions */
    hdnnp_core core;
    int asym;
    double rl, aleft, aright;
    double rad_left, rad_right, rad_center, rad_hw;   /* hw: 1/half-width */
    int line;             /* line in input.nn */
    int cut;              /* index of the element's cutoff slot */
    /* scaling: Gs = smin + factor * (G - gref); gref = Gmin or Gmean as n2p2 does */
    double gmin, gmax, gmean, gsigma;
    double smin, factor, gref;
} hdnnp_sf;

/* Symmetry functions sharing type, neighbour elements, radial factor (cutoff or compact
 * window) and shift rs. Radial groups share the neighbours' distances and exponentials,
 * angular groups one list of neighbour pairs and per pair one set of geometric factors.
 *
 * The exponentials exp(-eta S) of the group's distinct etas live in slots, computed in order:
 * slot q is hdnnp_exp(-slot_eta[q] S) where op_a[q] < 0, else the product of the earlier slots
 * op_a[q] and op_b[q]. An eta that is an integer multiple n <= HDNNP_MAX_EXP_POW of the
 * smallest positive eta gets its exponential as the n-th power of that one where a few
 * products make it (relative error ~n ulp): exp(-0.07 S) = exp(-0.01 S)^7. */
typedef struct {
    int type;             /* radial: 2, 12, 20, 23; angular: 3, 21 (narrow), 9, 22 (wide),
                           * 13, 24 (narrow, weighted), 25 */
    int e1, e2;           /* -1 where unused (weighted types: all neighbours) */
    int cut;
    double rs;
    int nsf, *sf;         /* indices into the element's sf array */
    int *sf_slot;         /* per member: the slot of its exponential */
    int nslot;
    double *slot_eta;     /* eta of the direct slots */
    int *op_a, *op_b;     /* factors of the product slots; -1 for direct slots */
} hdnnp_group;

enum { HDNNP_MAX_EXP_POW = 64 };

typedef struct {
    int nlayers;                       /* including input and output layer */
    int size[HDNNP_MAX_LAYERS];
    hdnnp_activation act[HDNNP_MAX_LAYERS];   /* act[0] unused */
    int normalize;                     /* n2p2 normalize_nodes */
    double *w[HDNNP_MAX_LAYERS];       /* w[l][o * size[l-1] + i], l >= 1 */
    double *wt[HDNNP_MAX_LAYERS];      /* the same transposed: wt[l][i * size[l] + o] */
    double *b[HDNNP_MAX_LAYERS];
    size_t nconnections;
    int maxsize;
} hdnnp_network;

typedef struct {
    char symbol[4];
    int z;
    double atom_energy;
    int nsf;
    hdnnp_sf *sf;                      /* sorted in n2p2 order */
    int ncut;
    hdnnp_cutoff *cut;                 /* distinct cutoff radii and compact windows */
    double rcmax;
    int nradial, nangular;
    hdnnp_group *radial, *angular;
    hdnnp_network net;
} hdnnp_element;

struct pk_hdnnp_model {
    int nelements;
    hdnnp_element el[HDNNP_MAX_ELEMENTS];
    double rcmax;
    int normalize;
    double mean_energy, conv_energy, conv_length;
    hdnnp_scaling scaling;
    double smin, smax;
    hdnnp_cutoff_type cutoff_type;
    double cutoff_alpha;
    char dir[512];
};

/* Properties of the symmetry-function types. */
static inline int hdnnp_type_radial(int t) { return t == 2 || t == 12 || t == 20 || t == 23; }
static inline int hdnnp_type_weighted(int t)
{
    return t == 12 || t == 13 || t == 23 || t == 24 || t == 25;
}
static inline int hdnnp_type_compact(int t) { return t >= 20; }
static inline int hdnnp_type_wide(int t) { return t == 9 || t == 22 || t == 25; }

/* Periodic table: atomic number of a symbol (0 if unknown). */
int hdnnp_atomic_number(const char *symbol);

#endif
