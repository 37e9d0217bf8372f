/* Per-atom kernel of hdnnp/pk: symmetry functions of one atomic environment, their
 * derivative coefficients, the contraction of those with dE/dG, and the element networks.
 * Internal; the unit tests call it directly. */
#ifndef HDNNP_KERNEL_H
#define HDNNP_KERNEL_H

#include <string.h>

#include "hdnnp_model.h"
#include "pk_workspace.h"

/* Hot loops are compiled twice on x86-64 (baseline SSE2 and x86-64-v3: AVX2 + FMA); the
 * loader picks the variant the CPU supports (GCC function multi-versioning). Not when the
 * build already targets AVX2 or better (-march=native, a packager's -march=icelake-client):
 * the clone would be a step down there, and GCC 12 stops with an internal compiler error
 * cloning these loops for an AVX-512 target. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__) && \
    !defined(PK_HDNNP_NO_CLONES)
#define HDNNP_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HDNNP_HOT
#endif

/* Four doubles as one value (GNU vector extension): an AVX2 register in the x86-64-v3
 * clones, two SSE2 registers otherwise. Used where the vectoriser would pick the wrong loop.
 * The helpers are always inlined: a vector passed by value between a default and an AVX
 * clone would not agree on the calling convention (unoptimised builds do not inline). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"   /* see above: the helpers never remain calls */
#endif
typedef double hdnnp_v4 __attribute__((vector_size(32)));
typedef long long hdnnp_v4i __attribute__((vector_size(32)));
#define HDNNP_V4_INLINE static inline __attribute__((always_inline))

HDNNP_V4_INLINE hdnnp_v4 v4_load(const double *p)
{
    hdnnp_v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

HDNNP_V4_INLINE void v4_store(double *p, hdnnp_v4 v) { memcpy(p, &v, sizeof v); }

/* mask ? v : 0 for the lane masks of vector comparisons */
HDNNP_V4_INLINE hdnnp_v4 v4_select(hdnnp_v4i mask, hdnnp_v4 v)
{
    return (hdnnp_v4)(mask & (hdnnp_v4i)v);
}

HDNNP_V4_INLINE double v4_sum(hdnnp_v4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

/* m ? a : b lane by lane, for the lane masks of vector comparisons */
HDNNP_V4_INLINE hdnnp_v4 v4_blend(hdnnp_v4i m, hdnnp_v4 a, hdnnp_v4 b)
{
    return (hdnnp_v4)((m & (hdnnp_v4i)a) | (~m & (hdnnp_v4i)b));
}

/* v4_mask_bits (bit l set where lane l of a comparison mask is true), v4_max and v4_min
 * (lane by lane): one AVX instruction each where GCC targets AVX, portable elsewhere. */
#if defined(__AVX__) && defined(__GNUC__) && !defined(__clang__)
#include "hdnnp_v4_avx.h"
#else
#include "hdnnp_v4_generic.h"
#endif

/* (v[i[0]], v[i[1]], v[i[2]], v[i[3]]) */
HDNNP_V4_INLINE hdnnp_v4 v4_gather(const double *v, const int *i)
{
    return (hdnnp_v4){v[i[0]], v[i[1]], v[i[2]], v[i[3]]};
}

/* (a[i0], a[i1], a[i2], a[i3]) with indices 4..7 taking lanes of b */
#if defined(__clang__)
#define HDNNP_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define HDNNP_SHUFFLE(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (hdnnp_v4i){i0, i1, i2, i3})
#endif

/* Rows of 4x4 doubles to columns: on return v[q] holds lane q of each row. */
HDNNP_V4_INLINE void v4_transpose(hdnnp_v4 v[4])
{
    const hdnnp_v4 t0 = HDNNP_SHUFFLE(v[0], v[1], 0, 4, 2, 6);
    const hdnnp_v4 t1 = HDNNP_SHUFFLE(v[0], v[1], 1, 5, 3, 7);
    const hdnnp_v4 t2 = HDNNP_SHUFFLE(v[2], v[3], 0, 4, 2, 6);
    const hdnnp_v4 t3 = HDNNP_SHUFFLE(v[2], v[3], 1, 5, 3, 7);
    v[0] = HDNNP_SHUFFLE(t0, t2, 0, 1, 4, 5);
    v[1] = HDNNP_SHUFFLE(t1, t3, 0, 1, 4, 5);
    v[2] = HDNNP_SHUFFLE(t0, t2, 2, 3, 6, 7);
    v[3] = HDNNP_SHUFFLE(t1, t3, 2, 3, 6, 7);
}

/* g[4 idx[l] + 0..3] += (vx[l], vy[l], vz[l], vw[l]) for the four lanes l, one lane after
 * the other (indices may repeat): a 4x4 transpose, then one vector add per lane. */
HDNNP_V4_INLINE void v4_add_lanes(double *g, const int *idx, hdnnp_v4 vx, hdnnp_v4 vy,
                                  hdnnp_v4 vz, hdnnp_v4 vw)
{
    hdnnp_v4 r[4] = {vx, vy, vz, vw};
    v4_transpose(r);
    for (int l = 0; l < 4; l++) {
        double *p = g + 4 * (size_t)idx[l];
        v4_store(p, v4_load(p) + r[l]);
    }
}

/* One centre atom's neighbours within the element's largest cutoff, sorted by element
 * (structure of arrays). */
typedef struct {
    int n, cap;
    int start[HDNNP_MAX_ELEMENTS + 1];   /* neighbours of element e: [start[e], start[e+1]) */
    double *x, *y, *z;                   /* x_n - x_i */
    double *r, *rinv, *wz;               /* distance, 1/distance, atomic number (weights) */
    int *idx;                            /* atom index in the caller's arrays */
} hdnnp_env;

/* Neighbours [n0, n1) of element e1 in an environment (all of them for e1 < 0). */
static inline void hdnnp_group_range(const hdnnp_env *e, int e1, int *n0, int *n1)
{
    *n0 = e1 < 0 ? 0 : e->start[e1];
    *n1 = e1 < 0 ? e->n : e->start[e1 + 1];
}

/* Contributing pairs (j, k) of one angular group, padded to a multiple of 4 with pairs of
 * zero weight. Per pair the group keeps HDNNP_PAIR_N geometric factors and, per function,
 * Y = 2^(1-zeta) E P^(zeta-1); with a = x_j - x_i, b = x_k - x_i, T = Y F P, q = zeta lambda
 * Y F, T2 = 2 eta T and YP = Y P, the gradients of one term are
 *   dT/dx_j = A a + B b,  dT/dx_k = B a + C b,
 *   A = -q CA - T2 UA + YP GA,  B = q IAB + T2 UC - YP GC,  C = -q CB - T2 UB + YP GB
 * (derivation in hdnnp_symfunc.c), where CA = cos/r_a^2, CB = cos/r_b^2, IAB = 1/(r_a r_b),
 * UA = 1 - rs/r_a + UC and UB = 1 - rs/r_b + UC follow from cos, 1/r_a and 1/r_b (IB).
 * Compact groups (types 21-25) keep per function Y = C_a (angular window) and then per
 * function D = dC_a/dcos; there T = F Y, q = F D, T2 = 0, YP -> Y, and the U factors are
 * unused. Arrays of n doubles each, at coef + index * n. Pairs are listed by increasing j;
 * the padding repeats the last pair. */
enum {
    HDNNP_PAIR_COS, HDNNP_PAIR_F, HDNNP_PAIR_IB, HDNNP_PAIR_UC, HDNNP_PAIR_GA, HDNNP_PAIR_GB,
    HDNNP_PAIR_GC, HDNNP_PAIR_BX, HDNNP_PAIR_BY, HDNNP_PAIR_BZ,   /* b = x_k - x_i */
    HDNNP_PAIR_N
};
typedef struct {
    int off, n, nreal;   /* first pair in the scratch pair arrays, padded and real count */
    size_t coef;         /* offset of the group's factors, then Y of each function */
} hdnnp_pairs;

/* Which pairs (j, k) of an environment an angular group lists (the rule every backend's
 * lister follows, so that all list the same pairs): j of element e1 in [j0, j1) with
 * rlo < r_j < rcut; k of element e2 in [k0, k1), after j when both come from one element
 * (same), with r_k < rcut (tested only when rcut is below the environment's rcmax: test_r),
 * r_k > rlo for compact groups, and for narrow types r_jk < rcut (and r_jk > rlo when
 * compact: squared as rcut2, rlo2). Compact windows also vanish at and below rl (n2p2 drops
 * r_jk <= rl only for rl > 0), so rlo is rl for compact groups and -1 otherwise. */
typedef struct {
    double rcut, rcut2, rlo, rlo2;
    int narrow, same, test_r;
    int j0, j1, k0, k1;
} hdnnp_pair_window;

static inline hdnnp_pair_window hdnnp_pair_window_of(const hdnnp_env *e, const hdnnp_element *el,
                                                     const hdnnp_group *grp, int compact)
{
    hdnnp_pair_window w;
    w.rcut = el->cut[grp->cut].rc;
    w.rcut2 = w.rcut * w.rcut;
    w.rlo = compact ? el->cut[grp->cut].rl : -1.0;
    w.rlo2 = w.rlo > 0.0 ? w.rlo * w.rlo : -1.0;
    const int weighted = hdnnp_type_weighted(grp->type);
    w.narrow = !hdnnp_type_wide(grp->type);
    w.same = weighted || grp->e1 == grp->e2;
    w.test_r = w.rcut < el->rcmax;   /* the environment holds r < rcmax only */
    w.j0 = weighted ? 0 : e->start[grp->e1];
    w.j1 = weighted ? e->n : e->start[grp->e1 + 1];
    w.k0 = weighted ? 0 : e->start[grp->e2];
    w.k1 = weighted ? e->n : e->start[grp->e2 + 1];
    return w;
}

/* Pads n listed pairs to a multiple of 4 with copies of the last pair (j stays
 * non-decreasing; pair_data gives them zero weight) and sets pr's counts. */
static inline void hdnnp_pairs_pad(int *pj, int *pk, int n, hdnnp_pairs *pr)
{
    const int np = (n + 3) & ~3;
    for (int q = n; q < np; q++) {
        pj[q] = pj[n - 1];
        pk[q] = pk[n - 1];
    }
    pr->nreal = n;
    pr->n = np;
}

/* Per-neighbour record of the angular pair loop, one per cutoff slot: the fields of
 * neighbour n at nb + HDNNP_NB_N n (GC: fc'(r)/r, WZ: atomic number), read four neighbours at
 * a time as two 4x4 transposes rather than as eight element-wise gathers. */
enum {
    HDNNP_NB_X, HDNNP_NB_Y, HDNNP_NB_Z, HDNNP_NB_R, HDNNP_NB_RINV, HDNNP_NB_FC, HDNNP_NB_GC,
    HDNNP_NB_WZ, HDNNP_NB_N
};

enum { HDNNP_FN_WEIGHTS_BYTES = 4 * sizeof(hdnnp_v4) };

/* Scratch of one thread, grown on demand and reused. */
typedef struct {
    hdnnp_env env;
    pk_buffer env_buf, raw_buf;
    pk_buffer sf_buf;       /* G and radial coefficients */
    pk_buffer pair_buf;     /* pair indices */
    pk_buffer coef_buf;     /* angular pair factors and Y */
    pk_buffer tmp_buf;      /* cutoff values, pair temporaries */
    pk_buffer nn_buf;       /* network input, dE/dG, activations */
    pk_buffer grp_buf;      /* hdnnp_pairs of the angular groups */
    pk_buffer wts_buf;      /* hdnnp_contract: weights per function, HDNNP_FN_WEIGHTS_BYTES each */
    int cap;                /* env capacity the sf buffers were laid out for */
    double *G;              /* raw (unscaled) symmetry functions */
    double *rcoef;          /* radial SF s: dG_s/dx_n = rcoef[s * cap + n] (x_n - x_i), for the
                             * neighbours n of its group (hdnnp_group_range) */
    double *fc, *dfc;       /* cutoff slot c: fc[c * cap + n] */
    double *nb;             /* neighbour records of cutoff slot c at nb + HDNNP_NB_N c cap
                             * (hdnnp_symfuncs; read for non-compact angular groups only) */
    int *pj, *pk;
    hdnnp_pairs *grp;       /* one per angular group */
    double *coef;           /* angular pair factors and Y per function (hdnnp_pairs) */
    double *t;              /* pair temporaries */
    size_t tcap;            /* pairs the temporaries hold */
} hdnnp_scratch;

/* Gather the neighbours of a centre of element ce at xi from a LAMMPS-style list jlist[jnum]
 * (neighbour-mask bits allowed), keeping those of handled types (t2e[type] >= 0) closer than
 * the element's largest cutoff; sort them by element. */
pk_code hdnnp_env_build(hdnnp_scratch *s, const pk_hdnnp_model *m, int ce, const double xi[3],
                        const double (*x)[3], const int *jlist, int jnum, const int *type,
                        const int *t2e, pk_status *st);

/* Raw symmetry functions of the environment into s->G, and the coefficients from which
 * hdnnp_contract builds their gradients. */
pk_code hdnnp_symfuncs(hdnnp_scratch *s, const hdnnp_element *el, pk_status *st);
/* Lists the contributing pairs of angular group grp into s->pj, s->pk from pr->off (by
 * increasing j, then k; padded to a multiple of 4 with copies of the last pair) and sets
 * pr->n and pr->nreal. */
typedef void (*hdnnp_list_pairs_fn)(hdnnp_scratch *s, const hdnnp_element *el,
                                    const hdnnp_group *grp, hdnnp_pairs *pr);
/* The first part of hdnnp_symfuncs, shared with other backends: the per-atom buffers laid
 * out for the environment, and the contributing pairs of every angular group listed by
 * `list` (s->grp, s->pj, s->pk; room for 4 pairs more than a group can have). */
pk_code hdnnp_symfuncs_layout(hdnnp_scratch *s, const hdnnp_element *el,
                              hdnnp_list_pairs_fn list, pk_status *st);
/* Functions of angular group g whose pairs are listed (s->grp[g].n > 0): the portable
 * kernel of one group, for backends that do not override every group type. */
void hdnnp_angular_group(hdnnp_scratch *s, const hdnnp_element *el, int g);

/* g[4 n + q] = sum_s c[s] dG_s/dx_n,q (q = 0, 1, 2; g[4 n + 3] unused) for every neighbour n
 * of the environment. The gradient with respect to the centre is minus the sum over n. */
void hdnnp_contract(hdnnp_scratch *s, const hdnnp_element *el, const double *c, double *g);

/* Network of an element: energy output for scaled input Gs, and dE/dGs into dEdG. */
double hdnnp_network_eval(const hdnnp_network *net, const double *Gs, double *dEdG,
                          double *work);
/* Doubles of work hdnnp_network_eval needs. */
size_t hdnnp_network_work_size(const hdnnp_network *net);

void hdnnp_scratch_free(hdnnp_scratch *s);

/* The per-atom kernels a backend running on the CPU may override (the BLIS pattern of
 * DESIGN.md section 8): the driver below calls them once per centre atom. */
typedef struct {
    pk_code (*symfuncs)(hdnnp_scratch *s, const hdnnp_element *el, pk_status *st);
    void (*contract)(hdnnp_scratch *s, const hdnnp_element *el, const double *c, double *g);
    double (*network_eval)(const hdnnp_network *net, const double *Gs, double *dEdG,
                           double *work);
} hdnnp_kernels;

/* The portable kernels above. */
extern const hdnnp_kernels hdnnp_kernels_cpu;

/* The driver behind pk_hdnnp_compute with the given per-atom kernels: OpenMP over centre
 * atoms, environments, scaling and extrapolation warnings, energies, forces and virials.
 * With hdnnp_kernels_cpu it is the cpu backend (hdnnp_backend.c). */
pk_code hdnnp_compute_with(pk_hdnnp_context *c, const pk_atoms *atoms, const pk_neigh *nl,
                           const int *t2e, const hdnnp_kernels *k, pk_out *out, pk_status *st);

#ifdef PK_HAVE_SVE
/* The sve backend (src/sve/hdnnp_sve*.c): this driver with SVE kernels. */
extern const pk_backend_ops pk_hdnnp_backend_sve;
#endif

#endif
