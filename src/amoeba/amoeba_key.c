/* Tinker .key reader: cutoffs, tapers and solver options (LAMMPS amoeba read_keyfile
 * semantics). Unknown keywords are errors, as in LAMMPS; keywords that select Ewald/PME,
 * HIPPO terms or other polarization models are rejected as unsupported. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "amoeba_internal.h"

/* Tinker/LAMMPS keywords with no effect on the non-bonded energy. */
static int is_ignored(const char *k)
{
    static const char *const v[] = {"parameters", "verbose", "openmp-threads", "digits",
                                     "neighbor-list", "tau-temperature", "tau-pressure",
                                     "archive", "printout", "randomseed"};
    for (size_t n = 0; n < sizeof v / sizeof *v; n++)
        if (amoeba_streq(k, v[n])) return 1;
    return 0;
}

static int is_unsupported(const char *k)
{
    static const char *const v[] = {
        "ewald", "dewald", "ewald-alpha", "pewald-alpha", "dewald-alpha", "pme-grid",
        "dpme-grid", "pme-order", "ppme-order", "dpme-order", "dewald-cutoff",
        "repulsion-cutoff", "repulsion-taper", "dispersion-cutoff", "dispersion-taper",
        "ctrn-cutoff", "ctrn-taper", "polar-predict", "vdw-correction",
        "neutralize", "boundary"};
    for (size_t n = 0; n < sizeof v / sizeof *v; n++)
        if (amoeba_streq(k, v[n])) return 1;
    return 0;
}

#define FAIL(code, ...) pk_fail_at(st, (code), t->path, r->line, __VA_ARGS__)

static pk_code nvalues(const amoeba_text *t, const amoeba_record *r, int n, pk_status *st)
{
    if (r->ntok - 1 != n)
        return FAIL(PK_ERR_FORMAT, "key '%s' takes %d value%s, found %d", r->tok[0], n,
                    n == 1 ? "" : "s", r->ntok - 1);
    return PK_OK;
}

static pk_code one_value(const amoeba_text *t, const amoeba_record *r, double *v, pk_status *st)
{
    if (nvalues(t, r, 1, st)) return st->code;
    return amoeba_get_double(t, r, 1, v, st);
}

static pk_code positive(const amoeba_text *t, const amoeba_record *r, double *v, pk_status *st)
{
    if (one_value(t, r, v, st)) return st->code;
    if (!(*v > 0.0)) return FAIL(PK_ERR_FORMAT, "key '%s' needs a positive value", r->tok[0]);
    return PK_OK;
}

/* Bounds on key values, far outside any Tinker/LAMMPS run; they catch damaged or mistyped
 * keys whose values would otherwise load and run to inf/NaN or never converge. */
/* cutoffs (A): Tinker runs use 7-12 A; beyond 1000 A no neighbour list is practical */
#define AMOEBA_MAX_CUTOFF 1000.0
/* preconditioner diagonal factor: Tinker's default 2, LAMMPS's example 1 */
#define AMOEBA_MAX_USOLVE_DIAG 100.0
/* HAL buffering delta, gamma: Halgren's 0.07 and 0.12; above 1 the 14-7 shape is gone */
#define AMOEBA_MAX_HALGREN 1.0
/* PCG convergence (RMS induced dipole change, Debye): 1e-4..1e-8 in practice; a water
 * molecule's whole dipole is 1.85 D */
#define AMOEBA_MAX_POLAR_EPS 1.0
/* PCG peek step: Tinker's default 1 */
#define AMOEBA_MAX_PCG_PEEK 10.0

/* One value within [lo, hi] (lo excluded where lo_open). */
static pk_code ranged(const amoeba_text *t, const amoeba_record *r, const char *name, double lo,
                      int lo_open, double hi, const char *why, double *v, pk_status *st)
{
    if (nvalues(t, r, 1, st)) return st->code;
    return amoeba_get_ranged(t, r, 1, name, lo, lo_open, hi, why, v, st);
}

static pk_code cutoff(const amoeba_text *t, const amoeba_record *r, double *v, pk_status *st)
{
    return ranged(t, r, "cutoff", 0.0, 1, AMOEBA_MAX_CUTOFF, "no neighbour list reaches that far",
                  v, st);
}

/* A taper value >= 1 is a distance; below 1 it is a fraction of the cutoff (Tinker). LAMMPS
 * computes -v * cutoff there, right for the negative fractions its examples use but a
 * negative distance for 0 < v < 1; the magnitude is taken for both. (For mpole-taper
 * LAMMPS takes the fraction of the vdW cutoff; here it is the multipole cutoff's.) */
static double taper_distance(double v, double cut)
{
    return v >= 1.0 ? v : fabs(v) * cut;
}

static pk_code key_record(pk_amoeba_model *m, const amoeba_text *t, const amoeba_record *r,
                          pk_status *st)
{
    pk_amoeba_settings *s = &m->set;
    const char *k = r->tok[0];
    double v;

    if (!((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z'))) return PK_OK;
    if (is_ignored(k)) return PK_OK;
    if (is_unsupported(k))
        return FAIL(PK_ERR_UNSUPPORTED, "key '%s' is not supported by amoeba/pk "
                    "(no Ewald/PME, HIPPO terms or predictors)", k);

    if (amoeba_streq(k, "cutoff")) {
        /* all cutoffs; default tapers 0.9 (vdW) and 0.65 (electrostatics) of the cutoff */
        if (cutoff(t, r, &v, st)) return st->code;
        s->vdw_cut = s->mpole_cut = s->polar_cut = v;
        s->vdw_taper = 0.9 * v;
        s->mpole_taper = s->polar_taper = AMOEBA_ELEC_TAPER * v;
    } else if (amoeba_streq(k, "taper")) {
        if (one_value(t, r, &v, st)) return st->code;
        s->vdw_taper = taper_distance(v, s->vdw_cut);
        s->mpole_taper = taper_distance(v, s->mpole_cut);
        s->polar_taper = taper_distance(v, s->polar_cut);
    } else if (amoeba_streq(k, "vdw-cutoff")) {
        if (cutoff(t, r, &v, st)) return st->code;
        s->vdw_cut = v;
        s->vdw_taper = 0.9 * v;
    } else if (amoeba_streq(k, "vdw-taper")) {
        if (one_value(t, r, &v, st)) return st->code;
        s->vdw_taper = taper_distance(v, s->vdw_cut);
    } else if (amoeba_streq(k, "mpole-cutoff")) {
        if (cutoff(t, r, &s->mpole_cut, st)) return st->code;
        s->mpole_taper = AMOEBA_ELEC_TAPER * s->mpole_cut;
    } else if (amoeba_streq(k, "mpole-taper")) {
        /* LAMMPS reads it but, without Ewald, never applies it; SMOOTH mode does */
        if (one_value(t, r, &v, st)) return st->code;
        s->mpole_taper = taper_distance(v, s->mpole_cut);
    } else if (amoeba_streq(k, "ewald-cutoff")) {
        /* without Ewald, LAMMPS uses it as the induction/polarization cutoff */
        if (cutoff(t, r, &s->polar_cut, st)) return st->code;
        s->polar_taper = AMOEBA_ELEC_TAPER * s->polar_cut;
    } else if (amoeba_streq(k, "usolve-cutoff")) {
        if (ranged(t, r, "cutoff", 0.0, 0, AMOEBA_MAX_CUTOFF, "no neighbour list reaches that far",
                   &s->usolve_cut, st))
            return st->code;
    } else if (amoeba_streq(k, "usolve-diag")) {
        if (ranged(t, r, "diagonal factor", 0.0, 1, AMOEBA_MAX_USOLVE_DIAG,
                   "the preconditioner needs a positive diagonal of sane size", &s->usolve_diag, st))
            return st->code;
    } else if (amoeba_streq(k, "delta-halgren")) {
        if (ranged(t, r, "HAL delta", 0.0, 0, AMOEBA_MAX_HALGREN, "Halgren's value is 0.07",
                   &s->dhal, st))
            return st->code;
    } else if (amoeba_streq(k, "gamma-halgren")) {
        if (ranged(t, r, "HAL gamma", 0.0, 0, AMOEBA_MAX_HALGREN, "Halgren's value is 0.12",
                   &s->ghal, st))
            return st->code;
    } else if (amoeba_streq(k, "polarization")) {
        if (nvalues(t, r, 1, st)) return st->code;
        if (amoeba_streq(r->tok[1], "mutual")) m->polarization = PK_AMOEBA_POLAR_MUTUAL;
        else if (amoeba_streq(r->tok[1], "direct")) m->polarization = PK_AMOEBA_POLAR_DIRECT;
        else return FAIL(PK_ERR_UNSUPPORTED, "polarization '%s' is not supported by amoeba/pk "
                         "(MUTUAL or DIRECT)", r->tok[1]);
    } else if (amoeba_streq(k, "polar-iter")) {
        if (nvalues(t, r, 1, st) || amoeba_get_int(t, r, 1, &s->polar_iter, st)) return st->code;
        if (s->polar_iter < 1) return FAIL(PK_ERR_FORMAT, "polar-iter must be at least 1");
    } else if (amoeba_streq(k, "polar-eps")) {
        if (ranged(t, r, "convergence criterion", 0.0, 1, AMOEBA_MAX_POLAR_EPS,
                   "an RMS dipole change in Debye, 1e-4 to 1e-8 in practice", &s->polar_eps, st))
            return st->code;
    } else if (amoeba_streq(k, "pcg-precond") || amoeba_streq(k, "pcg-noprecond")) {
        if (nvalues(t, r, 0, st)) return st->code;
        s->pcg_precond = amoeba_streq(k, "pcg-precond");
    } else if (amoeba_streq(k, "pcg-guess") || amoeba_streq(k, "pcg-noguess")) {
        if (nvalues(t, r, 0, st)) return st->code;
        s->pcg_guess = amoeba_streq(k, "pcg-guess");
    } else if (amoeba_streq(k, "pcg-peek")) {
        if (ranged(t, r, "peek step", 0.0, 0, AMOEBA_MAX_PCG_PEEK, "Tinker's default is 1",
                   &s->pcg_peek, st))
            return st->code;
    } else if (amoeba_streq(k, "a-axis") || amoeba_streq(k, "b-axis") || amoeba_streq(k, "c-axis")) {
        /* keywords match in any case: "C-axis" is the c axis (k[0] - 'a' was -30) */
        if (positive(t, r, &s->box[tolower((unsigned char)k[0]) - 'a'], st)) return st->code;
    } else {
        return FAIL(PK_ERR_UNSUPPORTED, "key keyword '%s' is not recognized by amoeba/pk", k);
    }
    return PK_OK;
}

pk_code amoeba_read_key(pk_amoeba_model *m, const char *path, pk_status *st)
{
    amoeba_text t;
    pk_code rc = amoeba_text_read(&t, path, st);
    for (int i = 0; rc == PK_OK && i < t.nrec; i++) rc = key_record(m, &t, &t.rec[i], st);
    if (rc == PK_OK && (m->set.vdw_taper > m->set.vdw_cut || !(m->set.vdw_taper > 0.0)))
        rc = pk_fail(st, PK_ERR_FORMAT, "%s: vdW taper %g is not within (0, vdW cutoff %g]", path,
                     m->set.vdw_taper, m->set.vdw_cut);
    amoeba_text_free(&t);
    return rc;
}
