/* Tinker .prm reader for the non-bonded AMOEBA terms, and the out-of-plane bend settings
 * LAMMPS's improper_style amoeba takes from the pair style.
 *
 * Sections (the "##  Title  ##" banners) decide what is read, as in LAMMPS amoeba:
 * literature text and valence sections are skipped, HIPPO sections are rejected, and the
 * records of the remaining sections are dispatched by keyword. The out-of-plane bend
 * section is checked (LAMMPS checks it too) though its constants come from the data file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_internal.h"

typedef enum { SEC_PARSE, SEC_SKIP, SEC_HIPPO } sec_kind;

static sec_kind classify_section(const char *title)
{
    static const char *const skip[] = {
        "Literature", "Bond Stretching", "Stretch-Bend", "Angle Bending", "Urey-Bradley",
        "Torsional", "Pi-Torsion", "Stretch-Torsion", "Angle-Torsion",
        "Torsion-Torsion", "Biopolymer", "Improper", "Bond Angle", "Angle-Angle"};
    static const char *const hippo[] = {"Pauli Repulsion", "Dispersion Param",
                                        "Charge Penetration", "Charge Transfer"};
    for (size_t k = 0; k < sizeof skip / sizeof *skip; k++)
        if (amoeba_startswith(title, skip[k])) return SEC_SKIP;
    for (size_t k = 0; k < sizeof hippo / sizeof *hippo; k++)
        if (amoeba_startswith(title, hippo[k])) return SEC_HIPPO;
    return SEC_PARSE;
}

/* Keywords of bonded terms and their settings: computed by other LAMMPS styles, which take
 * their constants from the data file (the opbend ones are read: see read_opbend). */
static int is_valence_keyword(const char *k)
{
    static const char *const v[] = {
        "bond", "bond-cubic", "bond-quartic", "angle", "anglep", "angle-cubic",
        "angle-quartic", "angle-pentic", "angle-sextic", "strbnd", "ureybrad", "torsion",
        "torsionunit", "pitors", "tortors", "strtors", "angtors", "improper", "imptors",
        "biotype", "bond3", "bond4", "bond5", "angle3", "angle4", "angle5", "electneg",
        "piatom", "pibond"};
    for (size_t n = 0; n < sizeof v / sizeof *v; n++)
        if (amoeba_streq(k, v[n])) return 1;
    return 0;
}

/* Terms and settings amoeba/pk does not implement and that change the energy. */
static int is_unsupported_keyword(const char *k)
{
    static const char *const v[] = {
        "repulsion", "dispersion", "chgpen", "chgtrn", "charge", "dipole", "solute",
        "exchpol", "polarize-14", "vdw14", "hbond", "metal", "mmffvdw", "multipole-14"};
    for (size_t n = 0; n < sizeof v / sizeof *v; n++)
        if (amoeba_streq(k, v[n])) return 1;
    return amoeba_startswith(k, "rep-") || amoeba_startswith(k, "disp-") ||
           amoeba_startswith(k, "chg-") || amoeba_startswith(k, "exch-");
}

/* Bounds on the numbers a prm file may hold. They lie far outside every Tinker force field
 * and only catch damaged or mistyped files whose values would load and run to inf/NaN. */
/* atom mass (amu): heavier than any element (294 u) tenfold; 0 is a massless site */
#define AMOEBA_MAX_MASS 3000.0
/* vdw radius/diameter (A): AMOEBA's largest R_min diameters are ~5 A (I-, Cs+) */
#define AMOEBA_MAX_VDW_RADIUS 50.0
/* vdw well depth |epsilon| (kcal/mol): AMOEBA's deepest are below 1 kcal/mol */
#define AMOEBA_MAX_VDW_EPS 100.0
/* multipole components (e, e bohr, e bohr^2): ions carry up to 2-3 e, dipoles and
 * quadrupoles are a few e bohr^n at most */
#define AMOEBA_MAX_MPOLE 100.0
/* polarizability (A^3): the most polarizable free atom, Cs, has 59 A^3 */
#define AMOEBA_MAX_POLARITY 1000.0
/* Thole damping a: AMOEBA uses 0.39, AMOEBA+ variants stay below ~1 */
#define AMOEBA_MAX_THOLE 100.0
/* dielectric constant: water's is 78; AMOEBA runs at 1 */
#define AMOEBA_MAX_DIELECTRIC 1.0e4
/* out-of-plane bend force constant (kcal/mol/rad^2): AMOEBA-BIO-2009's stiffest is 133 */
#define AMOEBA_MAX_OPBEND_K 1.0e4
/* opbend-cubic .. -sextic (deg^-1 .. deg^-4): AMOEBA's are -0.014, 5.6e-5, -7e-7, 2.2e-8;
 * a magnitude of 1 would change the energy many times over at a 1-degree bend */
#define AMOEBA_MAX_OPBEND_ANHARMONIC 1.0
/* atom types and classes are dense indices (amoebabio18 uses 416 and 87). The two mixed
 * HAL tables hold classes^2 pairs each: 5000 classes take 400 MB; a class number of 20740
 * (found by fuzzing) asked for two tables of 3.4 GB. */
#define AMOEBA_MAX_TYPE 1000000
#define AMOEBA_MAX_CLASS 5000

typedef struct {
    const amoeba_text *t;
    pk_amoeba_model *m;
    amoeba_vdwpr *pr;
    int npr, prcap;
    int *vdw_line;     /* per class: line of its vdw record (0 if none), for messages */
    pk_status *st;
} prm_ctx;

#define FAIL(code, r, ...) pk_fail_at(c->st, (code), c->t->path, (r)->line, __VA_ARGS__)

static pk_code need(prm_ctx *c, const amoeba_record *r, int lo, int hi)
{
    if (r->ntok - 1 < lo || r->ntok - 1 > hi) {
        if (lo == hi) return FAIL(PK_ERR_FORMAT, r, "'%s' takes %d values, found %d", r->tok[0], lo, r->ntok - 1);
        return FAIL(PK_ERR_FORMAT, r, "'%s' takes %d to %d values, found %d", r->tok[0], lo, hi,
                    r->ntok - 1);
    }
    return PK_OK;
}

static pk_code get_type(prm_ctx *c, const amoeba_record *r, int k, int *v)
{
    if (amoeba_get_int(c->t, r, k, v, c->st)) return c->st->code;
    if (*v < 1 || *v > c->m->ntypes || !c->m->type_defined[*v])
        return FAIL(PK_ERR_FORMAT, r, "'%s': atom type %d is not defined by an 'atom' line",
                    r->tok[0], *v);
    return PK_OK;
}

static pk_code get_class(prm_ctx *c, const amoeba_record *r, int k, int *v)
{
    if (amoeba_get_int(c->t, r, k, v, c->st)) return c->st->code;
    if (*v < 1 || *v > c->m->nclasses)
        return FAIL(PK_ERR_FORMAT, r, "'%s': atom class %d is not defined by an 'atom' line",
                    r->tok[0], *v);
    return PK_OK;
}

/* atom type class symbol "description" atomic-number mass valence */
static pk_code read_atom(prm_ctx *c, const amoeba_record *r)
{
    pk_amoeba_model *m = c->m;
    int ty, cl, z, val;
    double mass;
    if (r->ntok < 8) return FAIL(PK_ERR_FORMAT, r, "'atom' takes at least 7 values, found %d", r->ntok - 1);
    if (amoeba_get_int(c->t, r, 1, &ty, c->st) || amoeba_get_int(c->t, r, 2, &cl, c->st) ||
        amoeba_get_int(c->t, r, r->ntok - 3, &z, c->st) ||
        amoeba_get_ranged(c->t, r, r->ntok - 2, "mass", 0.0, 0, AMOEBA_MAX_MASS,
                          "heavier than any element", &mass, c->st) ||
        amoeba_get_int(c->t, r, r->ntok - 1, &val, c->st))
        return c->st->code;
    if (m->type_defined[ty]) return FAIL(PK_ERR_FORMAT, r, "atom type %d defined twice", ty);
    m->type_defined[ty] = 1;
    m->type_class[ty] = cl;
    m->atomic_num[ty] = z;
    m->mass[ty] = mass;
    m->valence[ty] = val;
    return PK_OK;
}

/* vdw class radius epsilon [reduction] */
static pk_code read_vdw(prm_ctx *c, const amoeba_record *r)
{
    pk_amoeba_model *m = c->m;
    int cl;
    if (need(c, r, 3, 4) || get_class(c, r, 1, &cl)) return c->st->code;
    double red = 0.0;
    /* radius 0: a class without vdW site (its pairs get R_min 0 where both are 0); the sign
     * of epsilon is ignored, as Tinker and LAMMPS take |epsilon| when mixing */
    if (amoeba_get_ranged(c->t, r, 2, "radius", 0.0, 0, AMOEBA_MAX_VDW_RADIUS,
                          "larger than any atom", &m->vdw_radius[cl], c->st) ||
        amoeba_get_ranged(c->t, r, 3, "epsilon", -AMOEBA_MAX_VDW_EPS, 0, AMOEBA_MAX_VDW_EPS,
                          "deeper than any vdW well", &m->vdw_eps[cl], c->st) ||
        (r->ntok == 5 &&
         amoeba_get_ranged(c->t, r, 4, "reduction factor", 0.0, 0, 1.0,
                           "the H site lies between its atom and the bonded partner", &red,
                           c->st)))
        return c->st->code;
    m->vdw_red[cl] = red;
    m->vdw_defined[cl] = 1;
    c->vdw_line[cl] = r->line;
    return PK_OK;
}

/* vdwpr class1 class2 radius epsilon */
static pk_code read_vdwpr(prm_ctx *c, const amoeba_record *r)
{
    amoeba_vdwpr p;
    /* the pair's epsilon is used as written (no |epsilon|): a negative one would turn the
     * HAL well into a barrier and the repulsive wall into a pit */
    if (need(c, r, 4, 4) || get_class(c, r, 1, &p.c1) || get_class(c, r, 2, &p.c2) ||
        amoeba_get_ranged(c->t, r, 3, "pair radius", 0.0, 0, AMOEBA_MAX_VDW_RADIUS,
                          "larger than any atom pair", &p.r, c->st) ||
        amoeba_get_ranged(c->t, r, 4, "pair epsilon", 0.0, 0, AMOEBA_MAX_VDW_EPS,
                          "a well depth is not negative and not deeper than any vdW well",
                          &p.eps, c->st))
        return c->st->code;
    if (c->npr == c->prcap) {
        int nc = c->prcap ? 2 * c->prcap : 16;
        amoeba_vdwpr *q = realloc(c->pr, (size_t)nc * sizeof *q);
        if (!q) return pk_fail(c->st, PK_ERR_MEMORY, "out of memory reading %s", c->t->path);
        c->pr = q;
        c->prcap = nc;
    }
    c->pr[c->npr++] = p;
    return PK_OK;
}

/* multipole type [z [x [y]]] q dx dy dz qxx qyx qyy qzx qzy qzz (Tinker kmpole.f).
 * The signs of the frame atom types encode the frame: z or x negative = bisector, x and y
 * negative = z-bisector, all three negative = 3-fold; z only = z-only; none = no frame. */
static pk_code read_multipole(prm_ctx *c, const amoeba_record *r)
{
    pk_amoeba_model *m = c->m;
    if (need(c, r, 11, 14)) return c->st->code;
    pk_amoeba_mpole_param p;
    memset(&p, 0, sizeof p);
    p.line = r->line;
    if (get_type(c, r, 1, &p.type)) return c->st->code;
    int nax = r->ntok - 12;   /* 0..3 frame atoms */
    int ax[3] = {0, 0, 0};    /* z, x, y as written */
    for (int k = 0; k < nax; k++)
        if (amoeba_get_int(c->t, r, 2 + k, &ax[k], c->st)) return c->st->code;
    double v[10];
    static const char *const comp[10] = {"charge", "dipole x", "dipole y", "dipole z",
                                         "quadrupole xx", "quadrupole yx", "quadrupole yy",
                                         "quadrupole zx", "quadrupole zy", "quadrupole zz"};
    for (int k = 0; k < 10; k++)
        if (amoeba_get_ranged(c->t, r, 2 + nax + k, comp[k], -AMOEBA_MAX_MPOLE, 0,
                              AMOEBA_MAX_MPOLE, "no atom carries such a multipole", &v[k],
                              c->st))
            return c->st->code;

    if (ax[0] == 0) p.kind = PK_AMOEBA_NOFRAME;
    else if (ax[1] == 0) p.kind = PK_AMOEBA_ZONLY;
    else p.kind = PK_AMOEBA_ZTHENX;
    if (ax[0] < 0 || ax[1] < 0) p.kind = PK_AMOEBA_BISECTOR;
    if (ax[1] < 0 && ax[2] < 0) p.kind = PK_AMOEBA_ZBISECT;
    if (ax[0] < 0 && ax[1] < 0 && ax[2] < 0) p.kind = PK_AMOEBA_THREEFOLD;
    if (ax[0] == 0 && (ax[1] != 0 || ax[2] != 0))
        return FAIL(PK_ERR_FORMAT, r, "multipole for type %d names x/y frame atoms without a z atom",
                    p.type);
    if ((p.kind == PK_AMOEBA_ZBISECT || p.kind == PK_AMOEBA_THREEFOLD) && ax[2] == 0)
        return FAIL(PK_ERR_FORMAT, r, "multipole for type %d: frame needs a y atom", p.type);
    p.zt = abs(ax[0]);
    p.xt = abs(ax[1]);
    p.yt = abs(ax[2]);
    const int *axes[3] = {&p.zt, &p.xt, &p.yt};
    for (int k = 0; k < 3; k++) {
        int t = *axes[k];
        if (t != 0 && (t > m->ntypes || !m->type_defined[t]))
            return FAIL(PK_ERR_FORMAT, r, "multipole for type %d: frame atom type %d is not defined",
                        p.type, t);
    }

    /* charge; dipole (bohr -> A); quadrupole (bohr^2 -> A^2, /3 for the traceless form
     * used in the energy, as LAMMPS and Tinker do), symmetrized to a full 3x3 */
    const double b = AMOEBA_BOHR, q3 = AMOEBA_BOHR * AMOEBA_BOHR / 3.0;
    p.pole[0] = v[0];
    p.pole[1] = v[1] * b;
    p.pole[2] = v[2] * b;
    p.pole[3] = v[3] * b;
    double xx = v[4], yx = v[5], yy = v[6], zx = v[7], zy = v[8], zz = v[9];
    p.pole[4] = xx * q3;
    p.pole[5] = p.pole[7] = yx * q3;
    p.pole[6] = p.pole[10] = zx * q3;
    p.pole[8] = yy * q3;
    p.pole[9] = p.pole[11] = zy * q3;
    p.pole[12] = zz * q3;

    pk_amoeba_mpole_param *q = realloc(m->mpole, (size_t)(m->nmpole + 1) * sizeof *q);
    if (!q) return pk_fail(c->st, PK_ERR_MEMORY, "out of memory reading %s", c->t->path);
    m->mpole = q;
    m->mpole[m->nmpole++] = p;
    return PK_OK;
}

/* polarize type alpha thole [group member types...] */
static pk_code read_polarize(prm_ctx *c, const amoeba_record *r)
{
    pk_amoeba_model *m = c->m;
    int ty;
    if (r->ntok < 4) return FAIL(PK_ERR_FORMAT, r, "'polarize' takes at least 3 values, found %d", r->ntok - 1);
    if (get_type(c, r, 1, &ty) || amoeba_get_double(c->t, r, 2, &m->polarity[ty], c->st))
        return c->st->code;
    if (m->polarity[ty] < 0.0)
        return FAIL(PK_ERR_FORMAT, r, "negative polarizability %g for type %d", m->polarity[ty], ty);
    /* polarizability 0: a non-polarizable type, as in Tinker; thole 0: undamped */
    if (amoeba_get_ranged(c->t, r, 2, "polarizability", 0.0, 0, AMOEBA_MAX_POLARITY,
                          "more polarizable than any atom", &m->polarity[ty], c->st) ||
        amoeba_get_ranged(c->t, r, 3, "thole damping", 0.0, 0, AMOEBA_MAX_THOLE,
                          "far beyond AMOEBA's 0.39", &m->thole[ty], c->st))
        return c->st->code;
    int ng = r->ntok - 4;
    if (ng > PK_AMOEBA_MAX_POLGROUP)
        return FAIL(PK_ERR_FORMAT, r, "'polarize' lists %d group types, at most %d are supported", ng,
                    PK_AMOEBA_MAX_POLGROUP);
    for (int k = 0; k < ng; k++)
        if (get_type(c, r, 4 + k, &m->polgroup[ty][k])) return c->st->code;
    m->pdamp[ty] = pow(m->polarity[ty], 1.0 / 6.0);
    m->npolgroup[ty] = ng;
    m->polarize_defined[ty] = 1;
    return PK_OK;
}

/* opbend class-a class-b class-c class-d k (Tinker kopbend.f): atom a bent out of the plane
 * of its neighbour b and b's other neighbours, of classes c and d (0: any). Checked only:
 * LAMMPS's improper_style amoeba takes k from the data file's Improper Coeffs. */
static pk_code read_opbend(prm_ctx *c, const amoeba_record *r)
{
    int cl[4];
    double k;
    if (need(c, r, 5, 5) || get_class(c, r, 1, &cl[0]) || get_class(c, r, 2, &cl[1]))
        return c->st->code;
    for (int n = 2; n < 4; n++) {
        if (amoeba_get_int(c->t, r, n + 1, &cl[n], c->st)) return c->st->code;
        if (cl[n] != 0 && get_class(c, r, n + 1, &cl[n])) return c->st->code;
    }
    return amoeba_get_ranged(c->t, r, 5, "force constant", 0.0, 0, AMOEBA_MAX_OPBEND_K,
                             "stiffer than any out-of-plane bend", &k, c->st);
}

/* One of opbend-cubic .. opbend-sextic. */
static pk_code get_opbend_anharmonic(prm_ctx *c, const amoeba_record *r, double *v)
{
    const double lim = AMOEBA_MAX_OPBEND_ANHARMONIC;
    return amoeba_get_ranged(c->t, r, 1, "anharmonic coefficient", -lim, 0, lim,
                             "AMOEBA's are below 0.02 in magnitude", v, c->st);
}

/* "<term>-1N-scale" style keywords: returns N (1..5) or 0 if k does not match. The scale
 * arrays are indexed by special class (1-2 -> 1 ... 1-5 -> 4), i.e. N-1; index 0 is the
 * non-special factor 1, so "1-1" is accepted only where it has its own field. */
static int scale_index(const char *k, const char *prefix, const char *suffix)
{
    size_t np = strlen(prefix);
    if (!amoeba_startswith(k, prefix)) return 0;
    if (k[np] != '1' || k[np + 1] < '1' || k[np + 1] > '5') return 0;
    if (!amoeba_streq(k + np + 2, suffix)) return 0;
    return k[np + 1] - '0';
}

/* A 1-N scale factor: the fraction of an interaction kept, in [0, 1] in every AMOEBA file
 * (Tinker reads a value above 1 as its inverse, which amoeba/pk does not: refused). */
static pk_code get_scale(prm_ctx *c, const amoeba_record *r, double *v)
{
    return amoeba_get_ranged(c->t, r, 1, "scale factor", 0.0, 0, 1.0,
                             "the fraction of the interaction kept", v, c->st);
}

static pk_code read_setting(prm_ctx *c, const amoeba_record *r)
{
    pk_amoeba_model *m = c->m;
    const char *k = r->tok[0];
    if (r->ntok < 2) return FAIL(PK_ERR_FORMAT, r, "'%s' needs a value", k);
    const char *w = r->tok[1];
    int n;

    if (amoeba_streq(k, "forcefield")) {
        snprintf(m->forcefield, sizeof m->forcefield, "%s", w);
        if (amoeba_startswith(w, "hippo"))
            return FAIL(PK_ERR_UNSUPPORTED, r, "force field '%s': HIPPO is not supported by amoeba/pk", w);
    } else if (amoeba_streq(k, "vdwtype")) {
        if (!amoeba_streq(w, "buffered-14-7"))
            return FAIL(PK_ERR_UNSUPPORTED, r, "vdwtype '%s' is not supported by amoeba/pk (only BUFFERED-14-7)", w);
    } else if (amoeba_streq(k, "vdwindex")) {
        if (!amoeba_streq(w, "class"))
            return FAIL(PK_ERR_UNSUPPORTED, r, "vdwindex '%s' is not supported by amoeba/pk (only CLASS)", w);
    } else if (amoeba_streq(k, "radiusrule")) {
        if (amoeba_streq(w, "arithmetic")) m->radius_rule = PK_AMOEBA_RULE_ARITHMETIC;
        else if (amoeba_streq(w, "geometric")) m->radius_rule = PK_AMOEBA_RULE_GEOMETRIC;
        else if (amoeba_streq(w, "cubic-mean")) m->radius_rule = PK_AMOEBA_RULE_CUBIC_MEAN;
        else return FAIL(PK_ERR_UNSUPPORTED, r, "radiusrule '%s' is not supported", w);
    } else if (amoeba_streq(k, "radiustype")) {
        if (amoeba_streq(w, "r-min")) m->radius_is_sigma = 0;
        else if (amoeba_streq(w, "sigma")) m->radius_is_sigma = 1;
        else return FAIL(PK_ERR_UNSUPPORTED, r, "radiustype '%s' is not supported", w);
    } else if (amoeba_streq(k, "radiussize")) {
        if (amoeba_streq(w, "diameter")) m->radius_is_diameter = 1;
        else if (amoeba_streq(w, "radius")) m->radius_is_diameter = 0;
        else return FAIL(PK_ERR_UNSUPPORTED, r, "radiussize '%s' is not supported", w);
    } else if (amoeba_streq(k, "epsilonrule")) {
        if (amoeba_streq(w, "arithmetic")) m->epsilon_rule = PK_AMOEBA_RULE_ARITHMETIC;
        else if (amoeba_streq(w, "geometric")) m->epsilon_rule = PK_AMOEBA_RULE_GEOMETRIC;
        else if (amoeba_streq(w, "harmonic")) m->epsilon_rule = PK_AMOEBA_RULE_HARMONIC;
        else if (amoeba_streq(w, "hhg")) m->epsilon_rule = PK_AMOEBA_RULE_HHG;
        else if (amoeba_streq(w, "w-h")) m->epsilon_rule = PK_AMOEBA_RULE_W_H;
        else return FAIL(PK_ERR_UNSUPPORTED, r, "epsilonrule '%s' is not supported", w);
    } else if (amoeba_streq(k, "dielectric")) {
        if (amoeba_get_ranged(c->t, r, 1, "dielectric constant", 0.0, 1, AMOEBA_MAX_DIELECTRIC,
                              "beyond any medium", &m->dielectric, c->st))
            return c->st->code;
    } else if (amoeba_streq(k, "polarization")) {
        if (amoeba_streq(w, "mutual")) m->polarization = PK_AMOEBA_POLAR_MUTUAL;
        else if (amoeba_streq(w, "direct")) m->polarization = PK_AMOEBA_POLAR_DIRECT;
        else return FAIL(PK_ERR_UNSUPPORTED, r, "polarization '%s' is not supported by amoeba/pk (MUTUAL or DIRECT)", w);
    } else if (amoeba_streq(k, "opbendtype")) {
        /* LAMMPS's improper_style amoeba computes the Allinger angle only, and LAMMPS
         * amoeba refuses the file otherwise */
        if (!amoeba_streq(w, "allinger"))
            return FAIL(PK_ERR_UNSUPPORTED, r, "opbendtype '%s' is not supported (LAMMPS's "
                        "improper_style amoeba computes the ALLINGER out-of-plane angle only)", w);
    } else if (amoeba_streq(k, "opbend-cubic")) {
        return get_opbend_anharmonic(c, r, &m->opbend_cubic);
    } else if (amoeba_streq(k, "opbend-quartic")) {
        return get_opbend_anharmonic(c, r, &m->opbend_quartic);
    } else if (amoeba_streq(k, "opbend-pentic")) {
        return get_opbend_anharmonic(c, r, &m->opbend_pentic);
    } else if (amoeba_streq(k, "opbend-sextic")) {
        return get_opbend_anharmonic(c, r, &m->opbend_sextic);
    } else if ((n = scale_index(k, "vdw-", "-scale")) > 1) {
        return get_scale(c, r, &m->vdw_scale[n - 1]);
    } else if ((n = scale_index(k, "mpole-", "-scale")) > 1) {
        return get_scale(c, r, &m->mpole_scale[n - 1]);
    } else if ((n = scale_index(k, "polar-", "-scale")) > 1) {
        return get_scale(c, r, &m->polar_scale[n - 1]);
    } else if ((n = scale_index(k, "polar-", "-intra")) > 1) {
        return get_scale(c, r, &m->polar_intra[n - 1]);
    } else if ((n = scale_index(k, "induce-", "-scale")) > 1) {
        return get_scale(c, r, &m->induce_scale[n - 1]);
    } else if ((n = scale_index(k, "direct-", "-scale")) || (n = scale_index(k, "mutual-", "-scale"))) {
        double v;
        if (amoeba_get_double(c->t, r, 1, &v, c->st)) return c->st->code;
        if (n == 1 && !(v < 0.0 && amoeba_startswith(k, "mutual")) && get_scale(c, r, &v))
            return c->st->code;
        if (n == 1) {
            if (amoeba_startswith(k, "direct")) m->direct11_scale = v;
            else if (v < 0.0)   /* the solver stores its tensors as s s^T - b3 I, s ~ sqrt(v) */
                return FAIL(PK_ERR_UNSUPPORTED, r, "'%s %g': a negative dipole-dipole scale is not "
                            "supported by amoeba/pk", k, v);
            else m->mutual11_scale = v;
        } else if (v != 1.0) {
            return FAIL(PK_ERR_UNSUPPORTED, r, "'%s %g': only 1.0 is supported for 1-2..1-5 (as LAMMPS amoeba)", k, v);
        }
    } else {
        return FAIL(PK_ERR_UNSUPPORTED, r, "keyword '%s' is not recognized by amoeba/pk", k);
    }
    return PK_OK;
}

static pk_code dispatch(prm_ctx *c, const amoeba_record *r)
{
    const char *k = r->tok[0];
    if (amoeba_streq(k, "atom")) return read_atom(c, r);
    if (amoeba_streq(k, "vdw")) return read_vdw(c, r);
    if (amoeba_streq(k, "vdwpr") || amoeba_streq(k, "vdwpair")) return read_vdwpr(c, r);
    if (amoeba_streq(k, "multipole")) return read_multipole(c, r);
    if (amoeba_streq(k, "polarize")) return read_polarize(c, r);
    if (amoeba_streq(k, "opbend")) return read_opbend(c, r);
    if (is_valence_keyword(k)) return PK_OK;
    if (is_unsupported_keyword(k))
        return FAIL(PK_ERR_UNSUPPORTED, r, "'%s' (HIPPO or other term) is not supported by amoeba/pk", k);
    return read_setting(c, r);
}

/* The mixed HAL table derived at load must be finite. With bounded inputs only a rule that
 * divides by the radii can fail: W-H epsilon for two classes of radius 0 and epsilon != 0. */
static pk_code check_mixed(prm_ctx *c)
{
    const pk_amoeba_model *m = c->m;
    const int nc = m->nclasses;
    for (int i = 1; i <= nc; i++)
        for (int j = i; j <= nc; j++) {
            const double rv = m->radmin[i * (nc + 1) + j], ev = m->epsmix[i * (nc + 1) + j];
            if (isfinite(rv) && isfinite(ev)) continue;
            return pk_fail(c->st, PK_ERR_NUMERIC,
                           "%s: the combined vdW radius %g / epsilon %g of classes %d and %d is "
                           "not finite (vdw records on lines %d and %d, radiusrule/epsilonrule "
                           "of the file)", c->t->path, rv, ev, i, j, c->vdw_line[i],
                           c->vdw_line[j]);
        }
    return PK_OK;
}

pk_code amoeba_read_prm(pk_amoeba_model *m, const char *path, pk_status *st)
{
    amoeba_text t;
    if (amoeba_text_read(&t, path, st)) {
        amoeba_text_free(&t);
        return st->code;
    }
    prm_ctx c = {.t = &t, .m = m, .st = st};
    pk_code rc = PK_OK;

    /* pass 1: sizes from the atom records */
    int ntypes = 0, nclasses = 0;
    for (int i = 0; i < t.nrec; i++) {
        const amoeba_record *r = &t.rec[i];
        if (r->section >= 0 && classify_section(t.section[r->section]) != SEC_PARSE) continue;
        if (!amoeba_streq(r->tok[0], "atom")) continue;
        int ty, cl;
        if (r->ntok < 3 || amoeba_get_int(&t, r, 1, &ty, st) || amoeba_get_int(&t, r, 2, &cl, st)) {
            rc = st->code ? st->code
                          : pk_fail_at(st, PK_ERR_FORMAT, path, r->line, "'atom' takes at least 7 values");
            goto done;
        }
        if (ty < 1 || cl < 1 || ty > AMOEBA_MAX_TYPE || cl > AMOEBA_MAX_CLASS) {
            rc = pk_fail_at(st, PK_ERR_FORMAT, path, r->line, "atom type %d / class %d out of "
                            "range (types 1 to %d, classes 1 to %d)", ty, cl, AMOEBA_MAX_TYPE,
                            AMOEBA_MAX_CLASS);
            goto done;
        }
        if (ty > ntypes) ntypes = ty;
        if (cl > nclasses) nclasses = cl;
    }
    if (ntypes == 0) {
        rc = pk_fail(st, PK_ERR_FORMAT, "%s: no 'atom' definitions found", path);
        goto done;
    }
    if ((rc = amoeba_model_alloc(m, ntypes, nclasses, st))) goto done;
    c.vdw_line = calloc((size_t)nclasses + 1, sizeof *c.vdw_line);
    if (!c.vdw_line) {
        rc = pk_fail(st, PK_ERR_MEMORY, "out of memory reading %s", path);
        goto done;
    }

    /* pass 2: everything */
    for (int i = 0; i < t.nrec; i++) {
        const amoeba_record *r = &t.rec[i];
        if (r->section >= 0) {
            sec_kind sk = classify_section(t.section[r->section]);
            if (sk == SEC_SKIP) continue;
            if (sk == SEC_HIPPO) {
                rc = pk_fail_at(st, PK_ERR_UNSUPPORTED, path, r->line,
                                "section '%s' ('%s'): HIPPO terms are not supported by amoeba/pk",
                                t.section[r->section], r->tok[0]);
                goto done;
            }
        }
        if ((rc = dispatch(&c, r))) goto done;
    }
    amoeba_model_mix(m, c.pr, c.npr);
    rc = check_mixed(&c);
done:
    free(c.vdw_line);
    free(c.pr);
    amoeba_text_free(&t);
    return rc;
}
