/* Tinker .key reader: cutoffs, tapers and solver options (LAMMPS amoeba read_keyfile
 * semantics). Unknown keywords are errors, as in LAMMPS; keywords that select Ewald/PME,
 * HIPPO terms or other polarization models are rejected as unsupported. */
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
        if (positive(t, r, &v, st)) return st->code;
        s->vdw_cut = s->mpole_cut = s->polar_cut = v;
        s->vdw_taper = 0.9 * v;
        s->mpole_taper = s->polar_taper = AMOEBA_ELEC_TAPER * v;
    } else if (amoeba_streq(k, "taper")) {
        if (one_value(t, r, &v, st)) return st->code;
        s->vdw_taper = taper_distance(v, s->vdw_cut);
        s->mpole_taper = taper_distance(v, s->mpole_cut);
        s->polar_taper = taper_distance(v, s->polar_cut);
    } else if (amoeba_streq(k, "vdw-cutoff")) {
        if (positive(t, r, &v, st)) return st->code;
        s->vdw_cut = v;
        s->vdw_taper = 0.9 * v;
    } else if (amoeba_streq(k, "vdw-taper")) {
        if (one_value(t, r, &v, st)) return st->code;
        s->vdw_taper = taper_distance(v, s->vdw_cut);
    } else if (amoeba_streq(k, "mpole-cutoff")) {
        if (positive(t, r, &s->mpole_cut, st)) return st->code;
        s->mpole_taper = AMOEBA_ELEC_TAPER * s->mpole_cut;
    } else if (amoeba_streq(k, "mpole-taper")) {
        /* LAMMPS reads it but, without Ewald, never applies it; SMOOTH mode does */
        if (one_value(t, r, &v, st)) return st->code;
        s->mpole_taper = taper_distance(v, s->mpole_cut);
    } else if (amoeba_streq(k, "ewald-cutoff")) {
        /* without Ewald, LAMMPS uses it as the induction/polarization cutoff */
        if (positive(t, r, &s->polar_cut, st)) return st->code;
        s->polar_taper = AMOEBA_ELEC_TAPER * s->polar_cut;
    } else if (amoeba_streq(k, "usolve-cutoff")) {
        if (one_value(t, r, &s->usolve_cut, st)) return st->code;
    } else if (amoeba_streq(k, "usolve-diag")) {
        if (one_value(t, r, &s->usolve_diag, st)) return st->code;
    } else if (amoeba_streq(k, "delta-halgren")) {
        if (one_value(t, r, &s->dhal, st)) return st->code;
    } else if (amoeba_streq(k, "gamma-halgren")) {
        if (one_value(t, r, &s->ghal, st)) return st->code;
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
        if (positive(t, r, &s->polar_eps, st)) return st->code;
    } else if (amoeba_streq(k, "pcg-precond") || amoeba_streq(k, "pcg-noprecond")) {
        if (nvalues(t, r, 0, st)) return st->code;
        s->pcg_precond = amoeba_streq(k, "pcg-precond");
    } else if (amoeba_streq(k, "pcg-guess") || amoeba_streq(k, "pcg-noguess")) {
        if (nvalues(t, r, 0, st)) return st->code;
        s->pcg_guess = amoeba_streq(k, "pcg-guess");
    } else if (amoeba_streq(k, "pcg-peek")) {
        if (one_value(t, r, &s->pcg_peek, st)) return st->code;
    } else if (amoeba_streq(k, "a-axis") || amoeba_streq(k, "b-axis") || amoeba_streq(k, "c-axis")) {
        if (positive(t, r, &s->box[k[0] - 'a'], st)) return st->code;
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
