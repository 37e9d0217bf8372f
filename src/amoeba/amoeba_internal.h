/* Internal declarations shared by the amoeba/pk sources. */
#ifndef AMOEBA_INTERNAL_H
#define AMOEBA_INTERNAL_H

#include "amoeba_exp.h"
#include "amoeba_text.h"
#include "pk_amoeba.h"

/* Bohr radius in Angstrom (the value LAMMPS amoeba uses to convert multipoles). */
#define AMOEBA_BOHR 0.52917721067

/* Defaults for a model before any file is read (Tinker/LAMMPS defaults). */
void amoeba_model_defaults(pk_amoeba_model *m);
/* Allocate the per-type and per-class arrays (zeroed). */
pk_code amoeba_model_alloc(pk_amoeba_model *m, int ntypes, int nclasses, pk_status *st);
/* A "vdwpr" record: the R_min and epsilon of one class pair. */
typedef struct {
    int c1, c2;
    double r, eps;
} amoeba_vdwpr;
/* Fill the mixed HAL table from the per-class values, rules and vdwpr overrides. */
void amoeba_model_mix(pk_amoeba_model *m, const amoeba_vdwpr *pr, int npr);

pk_code amoeba_read_prm(pk_amoeba_model *m, const char *path, pk_status *st);
pk_code amoeba_read_key(pk_amoeba_model *m, const char *path, pk_status *st);

#ifdef PK_HAVE_SVE
/* The SVE backend (src/sve/amoeba_sve.c): the portable step with the SVE pair kernels. */
extern const pk_backend_ops pk_amoeba_backend_sve;
#endif

/* 5th-order taper S(r) = sum c_k r^k between cut (S=1) and off (S=0), LAMMPS choose(). */
typedef struct {
    double cut, off, cut2, off2;
    double c[6];
} amoeba_taper;
void amoeba_taper_init(amoeba_taper *tp, double cut, double off);

/* S(r) and dS/dr inside (cut, off). */
static inline double amoeba_taper_eval(const amoeba_taper *tp, double r, double *dsdr)
{
    const double *c = tp->c;
    *dsdr = (((5.0 * c[5] * r + 4.0 * c[4]) * r + 3.0 * c[3]) * r + 2.0 * c[2]) * r + c[1];
    return ((((c[5] * r + c[4]) * r + c[3]) * r + c[2]) * r + c[1]) * r + c[0];
}

/* Default start of the electrostatic switch as a fraction of the cutoff (Tinker/LAMMPS
 * mpole-taper default). */
#define AMOEBA_ELEC_TAPER 0.65

/* The switch of one electrostatic term in SMOOTH mode: every pair of the term is
 * multiplied by S(r) = 1 - 10 x^3 + 15 x^4 - 6 x^5, x = (r - start) / (cut - start), from
 * start to the cutoff (pk_amoeba.h). It is LAMMPS's taper polynomial written in x, which
 * keeps S and dS/dr accurate to round-off (the power form in r cancels to ~1e-12). */
typedef struct {
    int on;
    double start, width;
} amoeba_switch;

/* The multipole (polar = 0) or polarization (polar = 1) switch of the model; fails in
 * SMOOTH mode unless 0 < taper < cutoff. */
pk_code amoeba_switch_init(const pk_amoeba_model *m, int polar, amoeba_switch *sw, pk_status *st);

/* The switch of a pair within the cutoff at distance r, branch-free for the SIMD pair loops:
 * x = (r - start) / width clamped at 0, so that inside the start S = 1 and dS/dx = 0
 * exactly; S(x) and dS/dx (dS/dr = dS/dx / width). */
static inline __attribute__((always_inline)) double amoeba_switch_x(double r, double start,
                                                                    double inv_width)
{
    const double x = (r - start) * inv_width;
    return x > 0.0 ? x : 0.0;
}

static inline __attribute__((always_inline)) double amoeba_switch_s(double x)
{
    return 1.0 - x * x * x * (10.0 - x * (15.0 - 6.0 * x));
}

static inline __attribute__((always_inline)) double amoeba_switch_dsdx(double x)
{
    const double y = 1.0 - x;
    return -30.0 * x * x * y * y;
}

/* The neighbours k of one atom i within a cutoff, as arrays for SIMD pair kernels
 * (amoeba_batch.c): local index, special class (0 none, 1..4 for 1-2..1-5), r = x_k - x_i
 * and |r|^2, in neighbour-list order, and (electrostatic batches with_pc) whether the pair
 * is one of the preconditioner's; entries n up to the next multiple of 4 are padding at
 * r = (1, 0, 0), class 0, for the kernels' whole SIMD vectors. scratch holds the kernel's
 * own nscratch arrays of cap doubles each (array s at scratch + s * cap), e.g. per-pair
 * inputs and results. */
typedef struct {
    int n, cap;
    int *k, *cls;
    double *rx, *ry, *rz, *r2;
    unsigned char *pc;
    double *scratch;
} amoeba_batch;

/* n rounded up to the batches' padding, a whole number of 4-pair vectors. */
static inline int amoeba_padded(int n)
{
    return (n + 3) & ~3;
}

/* Size the batches of nthreads threads for the longest neighbour list of nl, each with
 * nscratch scratch arrays. */
pk_code amoeba_batches_begin(pk_amoeba_batches *b, const pk_amoeba_list *nl, int nthreads,
                             int nscratch, pk_status *st);
/* Thread tid's batch (empty). */
amoeba_batch amoeba_batch_slice(const pk_amoeba_batches *b, int tid);
/* Fill the batch with the step's pairs of listed atom ii (atom i) at r^2 <= off2 and,
 * with_pc, the preconditioner's (b->pc marks them). */
void amoeba_batch_pairs(amoeba_batch *b, const pk_amoeba_pairs *p, int i, int ii, double off2,
                        int with_pc);

/* Per-atom virial of a pair (LAMMPS order): half to each atom (va may be NULL). */
static inline void amoeba_vatom_pair(double (*va)[6], int i, int k, const double v[6])
{
    if (!va) return;
    for (int c = 0; c < 6; c++) {
        va[i][c] += 0.5 * v[c];
        va[k][c] += 0.5 * v[c];
    }
}

/* The virial of a pair with force frc on k (minus on i), r = x_k - x_i: r (x) frc
 * symmetrised, LAMMPS order. */
static inline void amoeba_pair_virial(const double r[3], const double frc[3], double v[6])
{
    v[0] = r[0] * frc[0];
    v[1] = r[1] * frc[1];
    v[2] = r[2] * frc[2];
    v[3] = 0.5 * (r[1] * frc[0] + r[0] * frc[1]);
    v[4] = 0.5 * (r[2] * frc[0] + r[0] * frc[2]);
    v[5] = 0.5 * (r[2] * frc[1] + r[1] * frc[2]);
}

/* Per-thread partial sums (energy + 6 virial) in w->partial: nthreads * 8 doubles. */
pk_code amoeba_partials_begin(pk_amoeba_work *w, int nthreads, pk_status *st);
double *amoeba_partials_slice(pk_amoeba_work *w, int tid);
/* Sum the per-thread partials in thread order into out. */
void amoeba_partials_reduce(pk_amoeba_work *w, int nthreads, pk_out *out);

/* Thole damping of a pair at distance r (the factors: amoeba_induce.c): a = g (r/d)^3 with
 * d = pdamp_i pdamp_k, g = min(thole_i, thole_k), and e^-a; both 0 where the kernels are
 * undamped (d = 0, or a >= AMOEBA_THOLE_FAR: e^-a < 2e-22, every factor is 1 to double
 * precision). Inline and by value, for the SIMD pair loops. */
#define AMOEBA_THOLE_FAR 50.0
typedef struct {
    double a, e;
} amoeba_thole_ae;

static inline amoeba_thole_ae amoeba_thole_damp(double pdi, double pdk, double thi, double thk,
                                                double r)
{
    const double d = pdi * pdk, u = r / d;
    const double au = (thi < thk ? thi : thk) * u * u * u;
    const int damped = d != 0.0 && au < AMOEBA_THOLE_FAR;
    amoeba_thole_ae t;
    t.a = damped ? au : 0.0;
    t.e = damped ? amoeba_exp_neg(t.a) : 0.0;
    return t;
}

/* 3-vector helpers shared by the frame and multipole kernels. */
static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

#endif
