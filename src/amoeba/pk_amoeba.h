/* amoeba/pk core: AMOEBA non-bonded terms without Ewald (C11, no LAMMPS).
 *
 * Design note
 * -----------
 * Model. pk_amoeba_read() parses a Tinker .prm force-field file and an optional .key file
 * into a pk_amoeba_model: per-type data (class, polarizability, Thole, polarization group
 * members, multipole frames), per-class van der Waals data, the mixed per-class-pair HAL
 * table (radius/epsilon rules, then vdwpr overrides), the force-field scale factors and
 * the key settings (cutoffs, tapers, solver options). Everything that would change the
 * energy and that this core does not implement (HIPPO sections and keywords, Ewald/PME,
 * OPT/TCG polarization, predictors) is rejected with
 * PK_ERR_UNSUPPORTED and a message naming the keyword, file and line. Units are Tinker's:
 * kcal/mol, Angstrom, elementary charge; multipoles are stored as LAMMPS does (dipoles in
 * e*A, quadrupoles in e*A^2 divided by 3, full symmetric 3x3).
 *
 * Inputs (zero copy, owned + ghost atoms; see pk_views.h):
 *  - pk_atoms           positions (tags for the topology helpers),
 *  - pk_amoeba_list     a half neighbour list (newton on) whose entries carry the special
 *                       class in 3 bits at PK_AMOEBA_SBBITS: 0 none, 1..4 for 1-2..1-5;
 *                       pk_amoeba_list_build() makes it from a LAMMPS list (2 bits) plus
 *                       the 1-5 partners, on reneighbouring steps,
 *  - pk_amoeba_sites    per-atom AMOEBA data: amtype (i_amtype), amgroup (i_amgroup), the
 *                       H-reduction partner, the multipole record and frame atoms (local
 *                       indices of the closest images),
 *  - pk_amoeba_topology LAMMPS's special/nspecial arrays and a tag -> local index map.
 * One-time topology work mirrors LAMMPS: pk_amoeba_assign_frames() (kmpole: multipole
 * record and frame atoms from the 1-2 and 1-3 partners; the adapter stores the frame tags
 * in d2_xyzaxis and the kind in i_polaxe so they migrate with the atoms, and finds the
 * record again with pk_amoeba_find_mpole), pk_amoeba_hred_partner() (d_redID),
 * pk_amoeba_groups_relax() (i_amgroup). On reneighbouring steps pk_amoeba_map_frames(),
 * pk_amoeba_map_hred() and pk_amoeba_list_build() refresh the local indices. amtype must
 * hold types the prm defines (checked for owned atoms by the topology helpers).
 *
 * One step, in order (pk_amoeba_compute() runs it all through the pk_amoeba_comm
 * callbacks and keeps per-term energies, PCG statistics and timers in pk_amoeba_state):
 *   pk_amoeba_hal_reach                   how far apart HAL's atoms can be
 *   pk_amoeba_pairs_build                 the list entries within the electrostatic cutoffs
 *                                         and HAL's candidates
 *   pk_amoeba_hal                         HAL energy, forces, virial
 *   pk_amoeba_rotate; forward rpole       global-frame multipoles (and frames), chirality
 *   pk_amoeba_mpole                       multipole energy, forces; torques (zeroed first)
 *   pk_amoeba_induce                      direct field, PCG; dipoles forward-communicated
 *   pk_amoeba_polar_energy, _polar_forces polarization energy, forces; torques added
 *   reverse torques; pk_amoeba_torque_forces   torques -> forces on frame atoms, virial
 * Terms: HAL buffered 14-7 with H reduction and the 5th-order energy taper (Halgren 1992;
 * Ren & Ponder 2003); multipoles up to mpole_cut and polarization (Thole damping, d/p
 * scalings, groups) up to polar_cut, cut as set.elec says (below). Torques become forces
 * by differentiating the frame construction (amoeba_frame.c); polarization forces are the
 * gradient at fixed dipoles (amoeba_polar.c). Outputs go to pk_out: forces and energy
 * accumulated, global virial, per-atom energy and virial (LAMMPS order xx yy zz xy xz yz,
 * owned + ghost atoms). Pair terms (HAL between the two atoms, multipole and polarization
 * pairs) are split half/half; the polarization energy is each atom's own -1/2 f u_d . E_p;
 * the virial of the forces a torque puts on a site's frame atoms, sum_a (x_a - x_i) (x)
 * F_a, goes to the site i. Summed over atoms they give the global values.
 *
 * Electrostatics at the cutoffs (set.elec; the caller sets it, pk_amoeba_read leaves
 * LAMMPS):
 *  - PK_AMOEBA_ELEC_LAMMPS: hard cutoffs at mpole_cut and polar_cut, as LAMMPS "amoeba"
 *    without Ewald (bit for bit the LAMMPS-validated kernels). The energy jumps whenever a
 *    pair crosses a cutoff.
 *  - PK_AMOEBA_ELEC_SMOOTH: the energy is a C2 function of the positions and the forces
 *    are its gradient. With x = (r - r_s) / (R - r_s), the switch
 *        S(r) = 1 (r <= r_s),  1 - 10 x^3 + 15 x^4 - 6 x^5 (r_s < r < R),  0 (r >= R)
 *    has S, S', S'' continuous (Tinker/LAMMPS's taper polynomial, written in x).
 *    Multipoles (R = mpole_cut, r_s = mpole_taper): each pair's AMOEBA energy E_ik (with
 *    its 1-n scale s_ik) becomes
 *        E'_ik = S(r) [E_ik - s_ik f q_i q_k (2R - r) / R^2],
 *    i.e. the charge-charge term s f q_i q_k / r is replaced by the shifted-force Coulomb
 *    s f q_i q_k (1/r - 1/R + (r - R)/R^2) (Fennell & Gezelter, J. Chem. Phys. 124,
 *    234104 (2006), without damping), whose value and slope vanish at R, and the whole
 *    pair is switched. Force on k: S F_ik - (S s f q_i q_k / R^2 + E dS/dr) r/|r| with E
 *    the bracket; torques S t. The shift matters: for neutral molecules straddling R, the
 *    -1/R terms cancel the net charge that atom-wise truncation sees. On the 216-water box
 *    (R = 7, r_s = 6) E_mpole is -2159 kcal/mol against -2199 with Ewald (force RMS
 *    difference 0.77 of an RMS force of 10.1), where the switch alone gives -2486 (RMS
 *    difference 26) and the hard cutoff -1764 (1.8).
 *    Polarization (R = polar_cut, r_s = polar_taper): every pair's permanent field (d and
 *    p sets) and dipole-dipole tensor T_ik is multiplied by S(r_ik): in the direct field,
 *    in the PCG matrix alpha^-1 - T' and in the preconditioner blocks (the per-step
 *    tensors every iteration reuses carry S). The dipoles solve (alpha^-1 - T') u = E',
 *    the matrix stays symmetric, and E_pol = -1/2 f u_d . E'_p, so the gradient at
 *    converged dipoles is, as without the switch, -1/2 f (u_p . dE'_d + u_d . dE'_p +
 *    u_p . dT' u_d): each pair's energy e of those three dipole interactions becomes S e
 *    (force S F - e dS/dr r/|r|, torques S t). The charges' fields are not shifted (that
 *    moved E_polar further from Ewald). Water box: E_polar -960 against -945 with Ewald
 *    (force RMS difference 0.91 of 5.9).
 *    The switches start at the key's taper distances: "cutoff X" sets both to 0.65 X (the
 *    Tinker/LAMMPS mpole-taper default), "taper Y" sets every taper (Y >= 1 a distance,
 *    below 1 a fraction of each cutoff), "mpole-taper Y" the multipole one,
 *    "mpole-cutoff"/"ewald-cutoff" reset theirs to 0.65 of the new cutoff. LAMMPS mode
 *    ignores them, as LAMMPS does without Ewald. A switch must start inside (0, R).
 *
 * Threads. Kernels loop over the list's atoms with OpenMP (static schedule); forces,
 * torques and fields go through pk_accum (per-thread copies reduced in thread order),
 * energies and virials through per-thread partial sums added in thread order, so a given
 * thread count is bitwise reproducible (the PCG's matrix-vector products too: each stored
 * pair tensor is applied to both of its atoms). Within a thread, each pair kernel gathers
 * an atom's neighbours inside the cutoff into arrays (amoeba_batch.c; from the step's
 * pairs, except HAL) and runs the pair math as an "omp simd" loop over them. No global
 * mutable state: every call works on the model and the workspaces passed in.
 *
 * Backends (DESIGN.md section 8). pk_amoeba_compute() dispatches the step through the
 * backend seam (pk_backend.h): pk_amoeba_backends[] holds one pk_backend_ops table per
 * kind, and the state's slot the one chosen with pk_amoeba_set_backend() (or the cpu one,
 * when nothing was chosen). The cpu backend is the step above, the reference every other
 * backend is tested against (tests/unit/amoeba/test_amoeba_agree.c). A backend receives
 * the step's inputs as a pk_amoeba_args and reports per-term energies and the solver's
 * statistics in args->state as the cpu backend does. */
#ifndef PK_AMOEBA_H
#define PK_AMOEBA_H

#include <stdint.h>

#include "pk_backend.h"
#include "pk_status.h"
#include "pk_threads.h"
#include "pk_timer.h"
#include "pk_views.h"
#include "pk_workspace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- model --------------------------------------------------------------------------- */

/* Local-frame kinds (Tinker polaxe). */
typedef enum {
    PK_AMOEBA_NOFRAME = 0,
    PK_AMOEBA_ZONLY,
    PK_AMOEBA_ZTHENX,
    PK_AMOEBA_BISECTOR,
    PK_AMOEBA_ZBISECT,
    PK_AMOEBA_THREEFOLD
} pk_amoeba_frame_kind;

typedef enum { PK_AMOEBA_RULE_ARITHMETIC, PK_AMOEBA_RULE_GEOMETRIC, PK_AMOEBA_RULE_CUBIC_MEAN,
               PK_AMOEBA_RULE_HARMONIC, PK_AMOEBA_RULE_HHG, PK_AMOEBA_RULE_W_H } pk_amoeba_rule;

typedef enum { PK_AMOEBA_POLAR_MUTUAL, PK_AMOEBA_POLAR_DIRECT } pk_amoeba_polar_kind;

/* Electrostatics at the cutoffs: LAMMPS = hard cutoffs at mpole_cut and polar_cut as LAMMPS
 * amoeba without Ewald; SMOOTH = every electrostatic interaction switched to zero at its
 * cutoff, so the energy is a smooth function of the positions (amoeba/pk's default; the
 * design note above gives the equations). */
typedef enum { PK_AMOEBA_ELEC_LAMMPS, PK_AMOEBA_ELEC_SMOOTH } pk_amoeba_elec;

enum { PK_AMOEBA_MAX_POLGROUP = 8 };   /* types listed on one polarize line */

/* One "multipole" record: the frame is defined by atom types zt, xt, yt (0 = unused). */
typedef struct {
    int type;
    pk_amoeba_frame_kind kind;
    int zt, xt, yt;
    double pole[13];   /* q; dipole x y z (e*A); quadrupole xx xy xz yx yy yz zx zy zz (e*A^2/3) */
    int line;          /* where it was defined, for messages */
} pk_amoeba_mpole_param;

/* Cutoffs and options from the key file (defaults as LAMMPS amoeba). */
typedef struct {
    double vdw_cut, vdw_taper;       /* HAL: tapered between vdw_taper and vdw_cut */
    double mpole_cut;                /* permanent multipoles: cutoff */
    double polar_cut;                /* induction and polarization ("ewald-cutoff") */
    double mpole_taper, polar_taper; /* SMOOTH: switch from here to the cutoff (unused by
                                        LAMMPS mode) */
    double usolve_cut, usolve_diag;  /* PCG preconditioner */
    double dhal, ghal;               /* HAL buffering constants delta and gamma */
    double polar_eps;                /* RMS induced-dipole residual (Debye) */
    int polar_iter;
    int pcg_precond, pcg_guess;
    double pcg_peek;
    double box[3];                   /* a-, b-, c-axis if given (0 otherwise), for checks */
    pk_amoeba_elec elec;             /* set by the caller; pk_amoeba_read leaves LAMMPS */
} pk_amoeba_settings;

typedef struct {
    char forcefield[64];
    /* per type, indices 1..ntypes (0 unused) */
    int ntypes;
    int *type_defined, *type_class, *atomic_num, *valence;
    double *mass;
    double *polarity, *thole;        /* polarize: alpha (A^3), Thole damping */
    double *pdamp;                   /* alpha^(1/6), the Thole length scale */
    int *polarize_defined;
    int *npolgroup;
    int (*polgroup)[PK_AMOEBA_MAX_POLGROUP];
    /* per class, indices 1..nclasses */
    int nclasses;
    double *vdw_radius, *vdw_eps, *vdw_red;   /* as read (radius before rules) */
    int *vdw_defined;
    /* mixed per-class-pair HAL parameters, (nclasses+1)^2, row-major [ci*(nclasses+1)+cj] */
    double *radmin, *epsmix;
    /* multipole records in file order */
    int nmpole;
    pk_amoeba_mpole_param *mpole;
    /* force-field section */
    pk_amoeba_rule radius_rule, epsilon_rule;
    int radius_is_sigma, radius_is_diameter;
    double dielectric;
    pk_amoeba_polar_kind polarization;
    /* scale factors by special class: [0] non-special (1.0), [1..4] for 1-2..1-5 */
    double vdw_scale[5], mpole_scale[5], polar_scale[5], polar_intra[5], induce_scale[5];
    double direct11_scale, mutual11_scale;
    /* out-of-plane bend anharmonicity (opbend-cubic .. opbend-sextic: coefficients of
     * powers of the Allinger angle in degrees, as Tinker writes them; 0 if absent). Not used
     * by amoeba/pk: LAMMPS's improper_style amoeba takes them from the pair style. */
    double opbend_cubic, opbend_quartic, opbend_pentic, opbend_sextic;
    pk_amoeba_settings set;
} pk_amoeba_model;

/* Coulomb constant LAMMPS amoeba uses (kcal/mol * A / e^2), divided by the dielectric. */
#define PK_AMOEBA_ELECTRIC 332.063713

/* Read prm (required) and key (may be NULL). On failure the model is left empty (safe to
 * free) and st names file, line and problem. */
pk_code pk_amoeba_read(pk_amoeba_model *m, const char *prm_path, const char *key_path,
                       pk_status *st);
void pk_amoeba_free(pk_amoeba_model *m);

/* Mixed HAL parameters of classes ci, cj. */
static inline double pk_amoeba_radmin(const pk_amoeba_model *m, int ci, int cj)
{
    return m->radmin[ci * (m->nclasses + 1) + cj];
}
static inline double pk_amoeba_epsilon(const pk_amoeba_model *m, int ci, int cj)
{
    return m->epsmix[ci * (m->nclasses + 1) + cj];
}

/* ---- topology (one-time and reneighbouring work) -------------------------------------- */

/* LAMMPS's special-neighbour layout for owned atoms: nspecial[i] = cumulative counts of
 * 1-2, 1-3, 1-4 partners, special[i] their tags in that order; map(ctx, tag, i) gives the
 * local index of the image of atom `tag` closest to atom i (LAMMPS atom->map followed by
 * domain->closest_image), or -1; with i = -1 it gives the owned copy when the atom is
 * owned here, else any copy (atom->map). Optionally nbond12/bond12, the 1-2 partners of
 * owned AND ghost atoms (LAMMPS keeps bond lists of owned atoms only; the caller forwards
 * them to the ghosts), which pk_amoeba_assign_frames needs on several ranks. */
typedef struct {
    const int (*nspecial)[3];
    const pk_tag *const *special;
    const int *nspecial15;             /* 1-5 partners (special_bonds one/five yes) */
    const pk_tag *const *special15;
    int (*map)(void *ctx, pk_tag tag, int near_i);
    void *map_ctx;
    const int *nbond12;                /* optional (NULL): 1-2 partners, owned + ghost */
    const pk_tag *const *bond12;
} pk_amoeba_topology;

/* Per-atom AMOEBA data the kernels read, owned + ghost unless stated. */
typedef struct {
    const int *amtype;                 /* Tinker atom type */
    const int *amgroup;                /* polarization group id (pk_amoeba_groups_relax) */
    const int *hred;                   /* H-reduction partner (local index; self if none) */
    const int *mpole;                  /* index into model->mpole; owned atoms */
    const int (*frame)[3];             /* z, x, y frame atoms (local index; self if unused);
                                          owned atoms */
    const int *owner;                  /* optional (NULL): local index of each atom's owned
                                          copy, -1 if another rank owns it (owned atoms:
                                          themselves); the PCG then needs no communication
                                          when every ghost is an image of a local atom */
} pk_amoeba_sites;

/* Choose each owned atom's multipole parameter (index into m->mpole) and frame atoms as
 * LAMMPS/Tinker kmpole: first frames whose z and x (and y) atoms are 1-2 partners, then z
 * a 1-2 and x (y) 1-3 partners bonded to z, then z-only, then no frame. Frame atoms are
 * returned as tags (0 unused) in frame_tag[i] = {z, x, y} and as closest-image local
 * indices in frame[i] (self if unused). Fails naming the atom tag when no record fits.
 * Whether a 1-3 partner is bonded to z is read from top->bond12 when given, else from the
 * bond list of whichever of the two is owned (fails when neither is: give bond12). */
pk_code pk_amoeba_assign_frames(const pk_amoeba_model *m, const pk_atoms *a,
                                const pk_amoeba_topology *top, const int *amtype,
                                int *mpole, pk_tag (*frame_tag)[3], int (*frame)[3],
                                pk_status *st);

/* On reneighbouring steps: local indices (closest images, LAMMPS find_multipole_neighbors)
 * of the frame atoms given by tag (frame_tag[i] = {z, x, y}, 0 unused -> i itself) for
 * owned atoms, and of the H-reduction partners (hred_tag, 0 -> the atom itself) for owned
 * and ghost atoms, where a partner that is not present gives -1 (an error only if HAL
 * needs it, as in LAMMPS); so does a closest image farther than a bond can be, another
 * copy of a partner whose bonded copy is not present (a ghost at the shell's edge). A
 * missing frame atom is an error naming both tags. */
pk_code pk_amoeba_map_frames(const pk_atoms *a, const pk_amoeba_topology *top,
                             const pk_tag (*frame_tag)[3], int (*frame)[3], pk_status *st);
void pk_amoeba_map_hred(const pk_atoms *a, const pk_amoeba_topology *top, const pk_tag *hred_tag,
                        int *hred);

/* The multipole record of an atom whose frame is already known (e.g. after migration:
 * kind from i_polaxe, the frame atoms' types from d2_xyzaxis; 0 for unused axes): the
 * first record of that type, kind and frame-atom types, or -1. */
int pk_amoeba_find_mpole(const pk_amoeba_model *m, int type, pk_amoeba_frame_kind kind, int zt,
                         int xt, int yt);

/* Hydrogen-reduction partner of each owned atom (LAMMPS init_style): the single 1-2
 * partner when the atom's class has a nonzero reduction factor. hred_tag[i] gets its tag
 * (0 when none: LAMMPS's redID), hred[i] its closest local image (i itself when none);
 * either may be NULL. Ghost atoms' partners are the caller's (LAMMPS: redID is
 * communicated to ghosts and mapped to the closest image). */
pk_code pk_amoeba_hred_partner(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_topology *top, const int *amtype,
                               pk_tag *hred_tag, int *hred, pk_status *st);

/* Polarization groups (Tinker/LAMMPS): atoms joined by bonds whose partner's type is in
 * the atom's "polarize" group list share a group; its id is the smallest atom tag in it.
 * Start with amgroup[i] = tag[i] for owned and ghost atoms, then repeat
 *   pk_amoeba_groups_relax(); forward-communicate amgroup; sum ghost_changed over ranks
 * until no rank changed a ghost's id (LAMMPS assign_groups). One rank with no ghosts
 * needs one pass. */
pk_code pk_amoeba_groups_relax(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_topology *top, const int *amtype, int *amgroup,
                               int *ghost_changed, pk_status *st);

/* ---- neighbour list with 1-5 classes -------------------------------------------------- */

#define PK_AMOEBA_SBBITS 29
#define PK_AMOEBA_NEIGHMASK 0x1FFFFFFF
static inline int pk_amoeba_special(int j) { return (j >> PK_AMOEBA_SBBITS) & 7; }

typedef struct {
    int inum;
    const int *ilist;                  /* aliases the source list's ilist and numneigh */
    const int *numneigh;
    int **firstneigh;                  /* entries j | (class << PK_AMOEBA_SBBITS) */
    const unsigned char *precond;      /* per entry (same order): within usolve_cut when the
                                          list was built (the PCG preconditioner's pairs) */
    pk_buffer entries, heads, pc;      /* storage owned by this list */
} pk_amoeba_list;

/* The pairs of one step (amoeba_batch.c): the neighbours of each listed atom within a
 * cutoff, found once per step for the multipole, direct-field and polarization kernels.
 * Per listed atom ii: entries first[ii] .. first[ii] + count[ii] - 1, in list order, each
 * the partner and special class as in the list (k | class << PK_AMOEBA_SBBITS) and whether
 * it is a preconditioner pair. Optionally (hal_cut2 > 0) HAL's candidates: the entries
 * within hal_cut2, hal_first[ii] ... alike, from which HAL keeps those whose H-reduced
 * sites are within its cutoff. */
typedef struct {
    pk_buffer first, count;      /* ints per listed atom */
    pk_buffer entries, pc;       /* an int and a byte per entry */
    pk_buffer hal_first, hal_count, hal_entries;
    pk_buffer x4;                /* the positions as {x y z 0} per owned and ghost atom */
    pk_buffer polar_count;       /* ints per listed atom: its entries within polar_cut (by
                                    a margin of 1e-9 in r^2: a bound) or marked */
    pk_buffer pc_count;          /* ints per listed atom: its marked entries */
    double hal_cut2;             /* 0: no HAL candidates */
    double cut2;                 /* entries are within cut2, except preconditioner pairs */
    int with_pc;                 /* the preconditioner pairs are in */
    int beyond;                  /* how many preconditioner pairs lie beyond cut2 */
} pk_amoeba_pairs;

/* The pairs of nl within cut at the positions a->x, plus (with_pc) the list's
 * preconditioner pairs at any distance, marked, with per row the counts that size the
 * PCG's pair storage (polar_count within polar_cut <= cut, pc_count); and, for
 * hal_cut > 0, HAL's candidates within hal_cut (pk_amoeba_hal_reach). */
pk_code pk_amoeba_pairs_build(pk_amoeba_pairs *p, const pk_amoeba_list *nl, const pk_atoms *a,
                              double cut, double polar_cut, int with_pc, double hal_cut,
                              pk_status *st);
void pk_amoeba_pairs_free(pk_amoeba_pairs *p);
double pk_amoeba_pairs_bytes(const pk_amoeba_pairs *p);

/* Re-encode a LAMMPS half list (newton on): 1-2/1-3/1-4 bits move to 3-bit classes and
 * 1-5 partners (tags in top->special15 of the list's atom i) get class 4. a->tag is
 * required when top->special15 is given; without 1-5 lists the call fails if the model
 * scales 1-5 pairs (LAMMPS needs special_bonds one/five yes). It also marks the pairs
 * closer than set.usolve_cut now: as in LAMMPS (precond_neigh) the preconditioner keeps
 * those pairs until the next reneighbouring. The result aliases nl's ilist and numneigh,
 * so it is valid until then. */
pk_code pk_amoeba_list_build(pk_amoeba_list *out, const pk_amoeba_model *m, const pk_neigh *nl,
                             const pk_atoms *a, const pk_amoeba_topology *top, pk_status *st);
void pk_amoeba_list_free(pk_amoeba_list *l);
double pk_amoeba_list_bytes(const pk_amoeba_list *l);

/* ---- per-step kernels ----------------------------------------------------------------- */

/* Per-thread neighbour batches for the SIMD pair kernels (amoeba_internal.h). */
typedef struct {
    pk_buffer mem;
    int cap;                     /* entries per batch, a multiple of 8 */
    int ndouble;                 /* double arrays per batch (4 + scratch) */
} pk_amoeba_batches;

/* Workspace reused between steps (zero-initialize before first use). */
typedef struct {
    pk_buffer xred;              /* HAL per-step atom data: H-reduced sites, site forces */
    pk_amoeba_batches batches;   /* neighbours within a cutoff, per thread */
    pk_buffer partial;           /* per-thread energy and virial */
    pk_buffer frames;            /* the owned atoms' frames of this step (pk_amoeba_rotate),
                                    which pk_amoeba_torque_forces differentiates */
    pk_accum acc_f, acc_t, acc_e, acc_v; /* per-thread forces, torques, per-atom energies
                                            and virials */
} pk_amoeba_work;

void pk_amoeba_work_free(pk_amoeba_work *w);
double pk_amoeba_work_bytes(const pk_amoeba_work *w);

/* The atom distance within which HAL's pairs lie: set.vdw_cut plus twice the largest
 * distance of an H-reduced site from its atom. */
double pk_amoeba_hal_reach(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s);

/* HAL van der Waals: adds energy, forces on owned and ghost atoms, global virial and
 * per-atom energy and virial to out. The pairs are looked for among pairs' HAL candidates
 * (pk_amoeba_pairs_build with hal_cut >= pk_amoeba_hal_reach) or, with pairs NULL, in the
 * whole list nl. */
pk_code pk_amoeba_hal(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                      const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs, pk_amoeba_work *w,
                      pk_out *out, pk_status *st);

/* Rotate the owned atoms' multipoles into the global frame (with the chirality check for
 * z-then-x frames that name a y atom), keeping the frames in w for
 * pk_amoeba_torque_forces. rpole must hold 13 doubles per owned + ghost atom; ghost
 * entries are left for the caller to fill by forward communication. */
pk_code pk_amoeba_rotate(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         double (*rpole)[13], pk_amoeba_work *w, pk_status *st);

/* Permanent multipole energy up to set.mpole_cut (hard or smooth, set.elec), over the step's
 * pairs of nl (pk_amoeba_pairs_build with a cutoff >= mpole_cut). rpole:
 * global-frame multipoles of owned and ghost atoms (from pk_amoeba_rotate plus
 * communication).
 * torque: 3 doubles per owned + ghost atom, zeroed and filled here; the caller sums ghost
 * torques onto their owners (reverse communication) and then calls
 * pk_amoeba_torque_forces. */
pk_code pk_amoeba_mpole(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                        const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                        double (*torque)[3], pk_amoeba_work *w, pk_out *out, pk_status *st);

/* Turn the torques on owned atoms into forces on the atoms that define their frames, and
 * add the matching virial; the frames are those pk_amoeba_rotate kept in w at the same
 * positions. */
pk_code pk_amoeba_torque_forces(const pk_atoms *a, const pk_amoeba_sites *s,
                                const double (*torque)[3], pk_amoeba_work *w, pk_out *out,
                                pk_status *st);

/* ---- induced dipoles ------------------------------------------------------------------ */

/* What the solver needs from the parallel environment (LAMMPS comm). v holds ncol
 * doubles per atom, owned then ghost. forward: copy owned values onto their ghost images;
 * reverse: add ghost values onto their owners; allreduce: in-place sum over ranks. */
typedef struct {
    void (*forward)(void *ctx, double *v, int ncol);
    void (*reverse)(void *ctx, double *v, int ncol);
    void (*allreduce)(void *ctx, double *v, int n);
    void *ctx;
} pk_amoeba_comm;

/* Conversion of e*A to Debye used for the convergence test (LAMMPS/Tinker). */
#define PK_AMOEBA_DEBYE 4.80321

typedef struct {
    int iterations;      /* PCG iterations (0 for direct polarization) */
    double rms;          /* final RMS residual in Debye */
    int converged;       /* rms < set.polar_eps within set.polar_iter iterations */
} pk_amoeba_induce_info;

/* Workspace of the induced-dipole solver: per-atom vectors (field, udir: 6 doubles, the d
 * and p sets; the PCG's rsd, conj: rows of 8 as the products use them; poli:
 * the PCG weights and their inverses) and the per-step pair tensors that every PCG
 * iteration reuses. */
typedef struct {
    pk_buffer field, udir, rsd, conj, poli;
    pk_buffer pairs, tensors;         /* dipole-dipole pairs, each once, in groups of 4 of
                                         one atom: partner, tensor (amoeba_induce.c) */
    pk_amoeba_batches batches;        /* neighbours within a cutoff, per thread (direct field) */
    pk_buffer pc_pairs, pc_tensors;   /* preconditioner pairs within usolve_cut, the same */
    pk_buffer counts;                 /* per listed atom: where its pairs are, how many */
    pk_buffer padded;                 /* a product's output, 8 doubles per atom */
    int local;                        /* the products need no communication */
    pk_accum acc;                     /* per-thread copies of the direct field and of the
                                         products */
} pk_amoeba_induce_work;

void pk_amoeba_induce_work_free(pk_amoeba_induce_work *w);
double pk_amoeba_induce_work_bytes(const pk_amoeba_induce_work *w);

/* Induced dipoles from the permanent multipoles rpole (owned + ghost, global frame), over
 * the step's pairs of nl (built with a cutoff >= polar_cut and, for mutual polarization
 * with the preconditioner, with_pc):
 * direct field with Thole damping and the d/p (direct/polarization) scalings by special
 * class and polarization group (sites->amgroup needed), then mutual dipoles by
 * preconditioned conjugate gradients as LAMMPS amoeba without Ewald (up to set.polar_cut,
 * hard or switched as set.elec says; preconditioner usolve_diag * alpha plus neighbour
 * blocks within
 * set.usolve_cut; stop when DEBYE * sqrt(max(|r_d|^2, |r_p|^2) / natoms) < polar_eps,
 * then one "peek" step). u receives, per owned and ghost atom, the d dipole (0..2) and
 * the p dipole (3..5), ghosts forward-communicated. An unconverged solve returns PK_OK
 * with info->converged = 0 (the caller warns or fails). */
pk_code pk_amoeba_induce(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                         const double (*rpole)[13], const pk_amoeba_comm *comm, double (*u)[6],
                         pk_amoeba_induce_work *w, pk_amoeba_induce_info *info, pk_status *st);

/* Polarization energy -1/2 sum_i u_d,i . E_p,i (Tinker epolar1e) of the owned atoms from
 * the last pk_amoeba_induce (its direct p field is kept in w); adds to out->energy and
 * to eatom[i] (each atom's own term) when requested. */
void pk_amoeba_polar_energy(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const double (*u)[6], const pk_amoeba_induce_work *w, pk_out *out);

/* Polarization forces, torques and virial from the dipoles u of pk_amoeba_induce (owned +
 * ghost) and the multipoles rpole, as the gradient of E = -1/2 f u_d . E_p at fixed dipoles
 * (amoeba_polar.c; exact when converged, the expression Tinker's epolar1 evaluates), over
 * the step's pairs of nl (a cutoff >= polar_cut). The torques are added to torque (owned +
 * ghost, not zeroed: call after pk_amoeba_mpole so that one reverse communication and one
 * pk_amoeba_torque_forces serve both terms). */
pk_code pk_amoeba_polar_forces(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                               const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                               const double (*u)[6], double (*torque)[3], pk_amoeba_work *w,
                               pk_out *out, pk_status *st);

/* ---- one whole step -------------------------------------------------------------------- */

/* Terms to evaluate (LAMMPS pair_style amoeba include/exclude). */
typedef struct {
    int hal, mpole, polar;
} pk_amoeba_terms;

/* Everything a step keeps between calls: workspaces, the multipoles, torques and dipoles
 * (owned + ghost), the per-term energies of the last step (LAMMPS compute pair amoeba
 * order: hal, mpole, polar), the end-of-run statistics and the backend the steps run on
 * (empty until chosen: the cpu backend is chosen at the first compute). Zero-initialize. */
typedef struct {
    pk_amoeba_work work;
    pk_amoeba_induce_work induce;
    pk_buffer rpole, torque, u;        /* 13, 3 and 6 doubles per atom */
    pk_amoeba_pairs pairs;             /* the pairs of this step (electrostatic, HAL's
                                          candidates) */
    double energy[3];
    pk_amoeba_induce_info last;
    long steps, pcg_iterations, unconverged;
    int pcg_max;
    pk_timer t_hal, t_mpole, t_induce, t_polar;   /* t_mpole includes the pairs' search,
                                                     the rotation and the torques' forces */
    pk_backend_slot backend;
} pk_amoeba_state;

/* What one step needs besides the output, as each backend's compute receives it (its
 * `args`; `model` is the same model). state: the instance's step state, where every
 * backend leaves the per-term energies, state->last and the statistics; the cpu backend
 * also keeps its workspaces there. */
typedef struct {
    const pk_amoeba_model *model;
    const pk_atoms *atoms;
    const pk_amoeba_sites *sites;
    const pk_amoeba_list *list;
    const pk_amoeba_comm *comm;
    pk_amoeba_terms terms;
    pk_amoeba_state *state;
} pk_amoeba_args;

/* The backends of amoeba/pk by kind (pk_backend_kind), NULL where there is none: cpu
 * only for now. */
extern const pk_backend_ops *const pk_amoeba_backends[PK_BACKEND_COUNT];

/* Choose the backend the steps of this state run on (pk_backend_select over
 * pk_amoeba_backends): an explicit kind that cannot run here, or a precision it lacks, is
 * an error saying why. Call again to change it; pk_amoeba_state_free releases it. */
pk_code pk_amoeba_set_backend(pk_amoeba_state *state, const pk_amoeba_model *m,
                              const pk_backend_request *req, pk_status *st);
/* The chosen backend (its info and note name it for the log); ops is NULL until one is
 * chosen. */
const pk_backend_slot *pk_amoeba_backend(const pk_amoeba_state *state);

/* One step in the order of the design note, communicating through comm (forward rpole,
 * reverse torques, and the solver's own traffic), on the state's backend (the cpu one
 * when none was chosen). Forces, energy, virial and per-atom energy and virial are added
 * to out; the induced dipoles stay in state->u. An unconverged induced-dipole solve is
 * counted in state->unconverged and flagged in state->last. */
pk_code pk_amoeba_compute(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                          const pk_amoeba_list *nl, const pk_amoeba_comm *comm,
                          pk_amoeba_terms terms, pk_amoeba_state *state, pk_out *out,
                          pk_status *st);
void pk_amoeba_state_free(pk_amoeba_state *state);
double pk_amoeba_state_bytes(const pk_amoeba_state *state);

#ifdef __cplusplus
}
#endif
#endif
