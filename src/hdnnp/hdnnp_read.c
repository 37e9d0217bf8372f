/* Reader for n2p2 model directories: input.nn, scaling.data, weights.ZZZ.data.
 *
 * What n2p2 does and we reproduce (n2p2 Mode.cpp / Element.cpp / SymFnc*.cpp):
 * - elements are ordered by atomic number;
 * - each element's symmetry functions are sorted (cmp_sf: by type, then by the type's own
 *   parameters); that order is the network input order and the row order of scaling.data,
 *   whose rows come element after element;
 * - the output neuron is linear whatever the last activation letter says;
 * - weights files list, layer by layer, for each source neuron its weights to all target
 *   neurons, then the layer's biases; only the first column counts. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_math.h"
#include "hdnnp_model.h"
#include "pk_parse.h"

enum { MAX_TOK = 32, LINE_LEN = 1024 };

typedef struct {
    int line;
    int ntok;
    char *tok[MAX_TOK];     /* set once the whole file is read (the array may move) */
    int off[MAX_TOK];
    char buf[LINE_LEN];
} nn_line;

typedef struct {
    nn_line *v;
    int n, cap;
    int keyed;          /* lines start with a keyword (input.nn) rather than data columns */
    char path[600];
} nn_file;

static void split_line(nn_line *l)
{
    l->ntok = 0;
    char *s = l->buf;
    while (*s && l->ntok < MAX_TOK) {
        while (*s && isspace((unsigned char)*s)) s++;
        if (!*s) break;
        l->off[l->ntok++] = (int)(s - l->buf);
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = '\0';
    }
}

/* Read a file into non-empty, comment-stripped token lines. */
static pk_code read_lines(const char *path, nn_file *f, pk_status *st)
{
    snprintf(f->path, sizeof f->path, "%s", path);
    FILE *fp = fopen(path, "r");
    if (!fp) return pk_fail(st, PK_ERR_FILE, "cannot open %s: %s", path, strerror(errno));
    char buf[LINE_LEN];
    int lineno = 0;
    while (fgets(buf, sizeof buf, fp)) {
        lineno++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n' && !feof(fp)) {
            fclose(fp);
            return pk_fail_at(st, PK_ERR_FORMAT, path, lineno, "line longer than %d characters",
                              LINE_LEN - 2);
        }
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        if (f->n == f->cap) {
            int cap = f->cap ? 2 * f->cap : 256;
            nn_line *v = realloc(f->v, (size_t)cap * sizeof *v);
            if (!v) {
                fclose(fp);
                return pk_fail(st, PK_ERR_MEMORY, "out of memory reading %s", path);
            }
            f->v = v;
            f->cap = cap;
        }
        nn_line *l = &f->v[f->n];
        memcpy(l->buf, buf, strlen(buf) + 1);
        l->line = lineno;
        split_line(l);
        if (l->ntok > 0) f->n++;
    }
    fclose(fp);
    for (int i = 0; i < f->n; i++)
        for (int t = 0; t < f->v[i].ntok; t++) f->v[i].tok[t] = f->v[i].buf + f->v[i].off[t];
    return PK_OK;
}

/* "'keyword': 'value'" for input.nn, "column N: 'value'" for data files */
static pk_code bad_value(const nn_file *f, const nn_line *l, int t, const char *what,
                         pk_status *st)
{
    if (f->keyed)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "'%s': '%s' is not %s",
                          l->tok[0], l->tok[t], what);
    return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "column %d: '%s' is not %s", t + 1,
                      l->tok[t], what);
}

/* A number that is finite and representable (pk_parse_finite). */
static pk_code parse_double(const nn_file *f, const nn_line *l, int t, double *x, pk_status *st)
{
    if (t >= l->ntok)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "'%s': missing value %d",
                          l->tok[0], t);
    const char *problem = pk_parse_finite(l->tok[t], x);
    return problem ? bad_value(f, l, t, problem, st) : PK_OK;
}

/* Bounds on what a model may hold. They are far outside any trained HDNNP and only catch
 * damaged or mistyped files whose numbers would otherwise load and run to inf/NaN. */
/* Cutoff radii and other lengths, in the model's length unit (n2p2 models use Bohr or
 * Angstrom, cutoffs 6-20): no atomic environment of an HDNNP reaches 1000. */
#define HDNNP_MAX_LENGTH 1000.0
/* Gaussian exponent eta (1/length^2; published models stay below ~10): above 1e6 the
 * function is zero for every neighbour further than 0.003 length units. Near the largest
 * doubles, eta (r - rs)^2 and 2 eta (r - rs) overflow and the derivative becomes inf * 0. */
#define HDNNP_MAX_ETA 1.0e6
/* Angular exponent zeta (models use 1..64): (1 +- cos)^zeta stays below 2^256 and the norm
 * 2^(1-zeta) above 2^-255, far from overflow and underflow. */
#define HDNNP_MAX_ZETA 256.0
/* Network weights and biases. Trained n2p2 weights start within +-1 (Nguyen-Widrow) and
 * stay small; the reference water model's largest |w| is 43. With inputs scaled to ~[0, 1],
 * a weight of 1e6 would saturate every activation: the network would be meaningless. */
#define HDNNP_MAX_WEIGHT 1.0e6
/* Neurons per hidden layer (models use 5-100): larger is a typo that would allocate GBs. */
enum { HDNNP_MAX_NODES = 65536 };

/* Value x of token t on line l must lie within [lo, hi] (lo excluded where lo_open). The
 * message names file, line, keyword (input.nn) or column (data files), the value as written,
 * the allowed range and why. */
static pk_code check_range(const nn_file *f, const nn_line *l, int t, const char *name,
                           double x, double lo, int lo_open, double hi, const char *why,
                           pk_status *st)
{
    if ((lo_open ? x > lo : x >= lo) && x <= hi) return PK_OK;
    char where[96];
    if (f->keyed) snprintf(where, sizeof where, "'%s'", l->tok[0]);
    else snprintf(where, sizeof where, "column %d", t + 1);
    return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "%s: %s '%s' outside %c%g, %g]: %s",
                      where, name, l->tok[t], lo_open ? '(' : '[', lo, hi, why);
}

static pk_code parse_int(const nn_file *f, const nn_line *l, int t, int *x, pk_status *st)
{
    if (t >= l->ntok)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "'%s': missing value %d",
                          l->tok[0], t);
    char *end;
    errno = 0;
    long v = strtol(l->tok[t], &end, 10);
    if (end == l->tok[t] || *end || errno == ERANGE || v < -1000000000L || v > 1000000000L)
        return bad_value(f, l, t, "an integer", st);
    *x = (int)v;
    return PK_OK;
}

/* The single line holding a keyword (NULL if absent); duplicates are an error as in n2p2. */
static pk_code find_unique(const nn_file *f, const char *kw, const nn_line **out, pk_status *st)
{
    *out = NULL;
    for (int i = 0; i < f->n; i++) {
        if (strcmp(f->v[i].tok[0], kw) != 0) continue;
        if (*out)
            return pk_fail_at(st, PK_ERR_FORMAT, f->path, f->v[i].line,
                              "keyword '%s' repeated (first on line %d)", kw, (*out)->line);
        *out = &f->v[i];
    }
    return PK_OK;
}

static pk_code require(const nn_file *f, const char *kw, const nn_line **out, pk_status *st)
{
    if (find_unique(f, kw, out, st)) return st->code;
    if (!*out) return pk_fail(st, PK_ERR_FORMAT, "%s: required keyword '%s' missing", f->path, kw);
    return PK_OK;
}

static int element_of(const pk_hdnnp_model *m, const char *sym)
{
    for (int e = 0; e < m->nelements; e++)
        if (strcmp(m->el[e].symbol, sym) == 0) return e;
    return -1;
}

static pk_code need_element(const pk_hdnnp_model *m, const nn_file *f, const nn_line *l, int t,
                            int *e, pk_status *st)
{
    if (t >= l->ntok)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "'%s': missing element",
                          l->tok[0]);
    *e = element_of(m, l->tok[t]);
    if (*e < 0)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "'%s': element '%s' is not in 'elements'", l->tok[0], l->tok[t]);
    return PK_OK;
}

/* ---- keywords ------------------------------------------------------------------------------ */

/* n2p2 keywords that only matter for training, data handling or output: ignored. */
static const char *const training_keywords[] = {
    "random_seed", "epochs", "updater_type", "parallel_mode", "jacobian_mode",
    "update_strategy", "selection_mode", "task_batch_size_energy", "task_batch_size_force",
    "memorize_symfunc_results", "test_fraction", "use_short_forces", "force_weight",
    "short_energy_fraction", "short_force_fraction", "short_energy_error_threshold",
    "short_force_error_threshold", "rmse_threshold", "rmse_threshold_energy",
    "rmse_threshold_force", "rmse_threshold_trials", "rmse_threshold_trials_energy",
    "rmse_threshold_trials_force", "weights_min", "weights_max", "nguyen_widrow_weights_short",
    "precondition_weights", "write_trainpoints", "write_trainforces", "write_weights_epoch",
    "write_neuronstats", "write_trainlog", "write_traincharges", "kalman_type",
    "kalman_epsilon", "kalman_q0", "kalman_qtau", "kalman_qmin", "kalman_eta",
    "kalman_etatau", "kalman_etamax", "kalman_lambda_short", "kalman_nue_short",
    "gradient_type", "gradient_eta", "gradient_adam_eta", "gradient_adam_beta1",
    "gradient_adam_beta2", "gradient_adam_epsilon", "main_error_metric",
    "repeated_energy_update", "normalize_data_set", "force_energy_ratio", "use_old_weights_short",
    "use_old_weights_charge", "use_short_nn", "runner_mode", "debug_mode", "detailed_timing",
    "check_forces", "print_date_and_time", "calculate_forces", "regularize_fit_param",
    "fitting_unit", "mix_all_points", "random_number_type", "optmode_short_energy",
    "optmode_short_force", "points_in_memory", "analyze_error", "analyze_composition",
    "write_symfunctions", "parallel_mode_short", "update_single_element", "energy_threshold",
    "bond_threshold", "max_energy", "max_force", "nn_type_short", "remove_atom_energies",
    "initialization_only", "timing", "test_sets", "validation", "write_pruned_settings",
    "data_clustering", "use_damping", "fix_weights", "center_symmetry_functions_charge",
    "scale_symmetry_functions_charge", "global_hidden_layers_charge", "global_nodes_charge",
    "global_activation_charge", "element_nodes_charge", "symfunction_charge",
    "scale_min_charge", "scale_max_charge",
};

static int is_training_keyword(const char *kw)
{
    for (size_t i = 0; i < sizeof training_keywords / sizeof training_keywords[0]; i++)
        if (strcmp(kw, training_keywords[i]) == 0) return 1;
    return 0;
}

static const char *const model_keywords[] = {
    "number_of_elements", "elements", "atom_energy", "cutoff_type", "scale_symmetry_functions",
    "center_symmetry_functions", "scale_symmetry_functions_sigma", "scale_min_short",
    "scale_max_short", "global_hidden_layers_short", "global_nodes_short",
    "global_activation_short", "element_nodes_short", "normalize_nodes", "symfunction_short",
    "mean_energy", "conv_energy", "conv_length", "nnp_type", "committee_mode",
};

static int is_model_keyword(const char *kw)
{
    for (size_t i = 0; i < sizeof model_keywords / sizeof model_keywords[0]; i++)
        if (strcmp(kw, model_keywords[i]) == 0) return 1;
    return 0;
}

static pk_code check_keywords(const nn_file *f, const pk_logger *log, pk_status *st)
{
    const nn_line *l;
    if (find_unique(f, "nnp_type", &l, st)) return st->code;
    /* n2p2 numbering: 2 = 2G-HDNNP (old versions: 0 = short range only). */
    if (l && !(l->ntok >= 2 && (strcmp(l->tok[1], "2") == 0 || strcmp(l->tok[1], "0") == 0)))
        return pk_fail_at(st, PK_ERR_UNSUPPORTED, f->path, l->line,
                          "'nnp_type %s' is not supported: hdnnp/pk evaluates short-range "
                          "2G-HDNNPs only (no charge NN, no 4G charge equilibration)",
                          l->ntok >= 2 ? l->tok[1] : "");
    if (find_unique(f, "committee_mode", &l, st)) return st->code;
    if (l && !(l->ntok >= 2 && strcmp(l->tok[1], "disabled") == 0))
        return pk_fail_at(st, PK_ERR_UNSUPPORTED, f->path, l->line,
                          "'committee_mode' is not supported (committee NNPs)");
    for (int i = 0; i < f->n; i++) {
        const char *kw = f->v[i].tok[0];
        if (is_model_keyword(kw) || is_training_keyword(kw)) continue;
        pk_log(log, "hdnnp/pk: %s:%d: unknown keyword '%s' ignored", f->path, f->v[i].line, kw);
    }
    return PK_OK;
}

static int cmp_z(const void *a, const void *b)
{
    const hdnnp_element *x = a, *y = b;
    return (x->z > y->z) - (x->z < y->z);
}

static pk_code read_elements(pk_hdnnp_model *m, const nn_file *f, pk_status *st)
{
    const nn_line *ln, *le;
    if (require(f, "number_of_elements", &ln, st) || require(f, "elements", &le, st))
        return st->code;
    int n;
    if (parse_int(f, ln, 1, &n, st)) return st->code;
    if (n < 1 || n > HDNNP_MAX_ELEMENTS)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, ln->line,
                          "number_of_elements %d outside 1..%d", n, HDNNP_MAX_ELEMENTS);
    if (le->ntok - 1 != n)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, le->line,
                          "'elements' lists %d symbols but number_of_elements is %d",
                          le->ntok - 1, n);
    m->nelements = n;
    for (int e = 0; e < n; e++) {
        const char *s = le->tok[e + 1];
        hdnnp_element *el = &m->el[e];
        el->z = hdnnp_atomic_number(s);
        if (!el->z)
            return pk_fail_at(st, PK_ERR_FORMAT, f->path, le->line, "unknown element '%s'", s);
        snprintf(el->symbol, sizeof el->symbol, "%s", s);
        for (int p = 0; p < e; p++)
            if (m->el[p].z == el->z)
                return pk_fail_at(st, PK_ERR_FORMAT, f->path, le->line,
                                  "element '%s' listed twice", s);
    }
    qsort(m->el, (size_t)n, sizeof m->el[0], cmp_z);
    for (int i = 0; i < f->n; i++) {
        const nn_line *l = &f->v[i];
        if (strcmp(l->tok[0], "atom_energy") != 0) continue;
        int e;
        double x;
        if (need_element(m, f, l, 1, &e, st) || parse_double(f, l, 2, &x, st)) return st->code;
        m->el[e].atom_energy = x;
    }
    return PK_OK;
}

static pk_code read_normalization(pk_hdnnp_model *m, const nn_file *f, pk_status *st)
{
    const nn_line *a, *b, *c;
    if (find_unique(f, "mean_energy", &a, st) || find_unique(f, "conv_energy", &b, st) ||
        find_unique(f, "conv_length", &c, st))
        return st->code;
    m->mean_energy = 0.0;
    m->conv_energy = 1.0;
    m->conv_length = 1.0;
    if (!a && !b && !c) return PK_OK;
    if (!a || !b || !c)
        return pk_fail(st, PK_ERR_FORMAT, "%s: use all or none of mean_energy, conv_energy "
                       "and conv_length", f->path);
    if (parse_double(f, a, 1, &m->mean_energy, st) || parse_double(f, b, 1, &m->conv_energy, st) ||
        parse_double(f, c, 1, &m->conv_length, st))
        return st->code;
    if (m->conv_energy == 0.0 || m->conv_length <= 0.0)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, b->line, "conv_energy/conv_length invalid");
    m->normalize = 1;
    return PK_OK;
}

static pk_code read_cutoff_and_scaling(pk_hdnnp_model *m, const nn_file *f, pk_status *st)
{
    const nn_line *l;
    int t;
    if (require(f, "cutoff_type", &l, st) || parse_int(f, l, 1, &t, st)) return st->code;
    if (t < 0 || t > 8)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line, "unknown cutoff_type %d", t);
    m->cutoff_type = (hdnnp_cutoff_type)t;
    m->cutoff_alpha = 0.0;
    if (l->ntok > 2 && parse_double(f, l, 2, &m->cutoff_alpha, st)) return st->code;
    if (m->cutoff_alpha < 0.0 || m->cutoff_alpha >= 1.0)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "cutoff_type: inner cutoff parameter %g outside [0, 1)", m->cutoff_alpha);

    const nn_line *sc, *ce, *sg, *lo, *hi;
    if (find_unique(f, "scale_symmetry_functions", &sc, st) ||
        find_unique(f, "center_symmetry_functions", &ce, st) ||
        find_unique(f, "scale_symmetry_functions_sigma", &sg, st) ||
        find_unique(f, "scale_min_short", &lo, st) || find_unique(f, "scale_max_short", &hi, st))
        return st->code;
    /* Same precedence as n2p2 Mode::setupSymmetryFunctionScaling. */
    if (sc && !ce) m->scaling = HDNNP_ST_SCALE;
    else if (!sc && ce) m->scaling = HDNNP_ST_CENTER;
    else if (sc && ce) m->scaling = HDNNP_ST_SCALECENTER;
    else if (sg) m->scaling = HDNNP_ST_SCALESIGMA;
    else m->scaling = HDNNP_ST_NONE;
    m->smin = 0.0;
    m->smax = 1.0;
    if (lo && parse_double(f, lo, 1, &m->smin, st)) return st->code;
    if (hi && parse_double(f, hi, 1, &m->smax, st)) return st->code;
    /* where scaling maps onto [Smin, Smax], an empty range would make every network input
     * the constant Smin (Smax < Smin only mirrors the map and is allowed, as in n2p2) */
    if (m->scaling != HDNNP_ST_NONE && m->scaling != HDNNP_ST_CENTER && m->smax == m->smin)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, hi ? hi->line : lo->line,
                          "scale_max_short equals scale_min_short (%g): every scaled symmetry "
                          "function would be constant", m->smax);
    return PK_OK;
}

/* ---- symmetry functions -------------------------------------------------------------------- */

/* Compact-function subtype of types 20-25, accepted as n2p2's
 * SymFncBaseComp::setCompactFunction does: "p1".."p4" with an optional "a" (asymmetric
 * radial window), or any word of at most 3 characters starting with "e" (exponential core). */
static pk_code parse_compact(const nn_file *f, const nn_line *l, int t, hdnnp_sf *s,
                             pk_status *st)
{
    const char *w = l->tok[t];
    const size_t len = strlen(w);
    s->asym = 0;
    if (len >= 1 && len <= 3 && w[0] == 'e') {
        s->core = HDNNP_CORE_EXP;
    } else if (len >= 2 && len <= 3 && w[0] == 'p' && w[1] >= '1' && w[1] <= '4' &&
               (len == 2 || w[2] == 'a')) {
        s->core = (hdnnp_core)(HDNNP_CORE_POLY1 + (w[1] - '1'));
        s->asym = len == 3;
    } else {
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "symfunction_short type %d: unknown compact function '%s' (n2p2 "
                          "subtypes: p1 p2 p3 p4, p1a p2a p3a p4a, e)", s->type, w);
    }
    memcpy(s->subtype, w, len + 1);
    return PK_OK;
}

/* Parameter ranges of the compact types as n2p2 checks them; the angular window in radians. */
static pk_code check_compact(const nn_file *f, const nn_line *l, hdnnp_sf *s, pk_status *st)
{
    if (!(s->rl < s->rc))
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "symfunction_short type %d: need rl < rc (rl %g, rc %g)", s->type, s->rl,
                          s->rc);
    if (hdnnp_type_radial(s->type)) return PK_OK;
    const double al = s->aleft, ar = s->aright, centre = 0.5 * (al + ar);
    if (!(al < ar))
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "symfunction_short type %d: left angle %g must be below right angle %g",
                          s->type, al, ar);
    if ((al < 0.0 && centre != 0.0) || (ar > 180.0 && centre != 180.0) || ar - al > 360.0)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "symfunction_short type %d: angle window [%g, %g] leaves [0, 180] "
                          "without being centred on 0 or 180 (or spans more than 360)", s->type,
                          al, ar);
    s->rad_left = al * HDNNP_PI / 180.0;
    s->rad_right = ar * HDNNP_PI / 180.0;
    s->rad_center = 0.5 * (s->rad_left + s->rad_right);
    s->rad_hw = 1.0 / (0.5 * (s->rad_right - s->rad_left));
    return PK_OK;
}

/* Token index of each number of a symfunction_short line (-1 where the type has none;
 * rs of types 3 and 9 is optional, token 9). */
typedef struct {
    int eta, rs, zeta, rc, rl;
} sf_fields;

static sf_fields sf_field_index(int type)
{
    switch (type) {
    case 2: return (sf_fields){4, 5, -1, 6, -1};
    case 3: case 9: return (sf_fields){5, 9, 7, 8, -1};
    case 12: return (sf_fields){3, 4, -1, 5, -1};
    case 13: return (sf_fields){3, 4, 6, 7, -1};
    case 20: return (sf_fields){-1, -1, -1, 5, 4};
    case 21: case 22: return (sf_fields){-1, -1, -1, 6, 5};
    default: return (sf_fields){-1, -1, -1, 4, 3};   /* 23, 24, 25 */
    }
}

static pk_code parse_symfunc(pk_hdnnp_model *m, const nn_file *f, const nn_line *l, int *elem,
                             hdnnp_sf *s, pk_status *st)
{
    memset(s, 0, sizeof *s);
    s->line = l->line;
    s->e1 = s->e2 = -1;
    if (need_element(m, f, l, 1, elem, st) || parse_int(f, l, 2, &s->type, st)) return st->code;
    int need;
    switch (s->type) {
    case 2: /* ec 2 e1 eta rs rc */
        need = 7;
        if (l->ntok != need) break;
        if (need_element(m, f, l, 3, &s->e1, st) || parse_double(f, l, 4, &s->eta, st) ||
            parse_double(f, l, 5, &s->rs, st) || parse_double(f, l, 6, &s->rc, st))
            return st->code;
        break;
    case 3: case 9: /* ec t e1 e2 eta lambda zeta rc [rs] */
        need = 9;
        if (l->ntok != 9 && l->ntok != 10) break;
        need = l->ntok;
        if (need_element(m, f, l, 3, &s->e1, st) || need_element(m, f, l, 4, &s->e2, st) ||
            parse_double(f, l, 5, &s->eta, st) || parse_double(f, l, 6, &s->lambda, st) ||
            parse_double(f, l, 7, &s->zeta, st) || parse_double(f, l, 8, &s->rc, st))
            return st->code;
        if (l->ntok == 10 && parse_double(f, l, 9, &s->rs, st)) return st->code;
        if (s->e1 > s->e2) { int t = s->e1; s->e1 = s->e2; s->e2 = t; }
        break;
    case 12: /* ec 12 eta rs rc */
        need = 6;
        if (l->ntok != need) break;
        if (parse_double(f, l, 3, &s->eta, st) || parse_double(f, l, 4, &s->rs, st) ||
            parse_double(f, l, 5, &s->rc, st))
            return st->code;
        break;
    case 13: /* ec 13 eta rs lambda zeta rc */
        need = 8;
        if (l->ntok != need) break;
        if (parse_double(f, l, 3, &s->eta, st) || parse_double(f, l, 4, &s->rs, st) ||
            parse_double(f, l, 5, &s->lambda, st) || parse_double(f, l, 6, &s->zeta, st) ||
            parse_double(f, l, 7, &s->rc, st))
            return st->code;
        break;
    case 20: /* ec 20 e1 rl rc subtype */
        need = 7;
        if (l->ntok != need) break;
        if (need_element(m, f, l, 3, &s->e1, st) || parse_double(f, l, 4, &s->rl, st) ||
            parse_double(f, l, 5, &s->rc, st) || parse_compact(f, l, 6, s, st))
            return st->code;
        break;
    case 21: case 22: /* ec t e1 e2 rl rc left right subtype */
        need = 10;
        if (l->ntok != need) break;
        if (need_element(m, f, l, 3, &s->e1, st) || need_element(m, f, l, 4, &s->e2, st) ||
            parse_double(f, l, 5, &s->rl, st) || parse_double(f, l, 6, &s->rc, st) ||
            parse_double(f, l, 7, &s->aleft, st) || parse_double(f, l, 8, &s->aright, st) ||
            parse_compact(f, l, 9, s, st))
            return st->code;
        if (s->e1 > s->e2) { int t = s->e1; s->e1 = s->e2; s->e2 = t; }
        break;
    case 23: /* ec 23 rl rc subtype */
        need = 6;
        if (l->ntok != need) break;
        if (parse_double(f, l, 3, &s->rl, st) || parse_double(f, l, 4, &s->rc, st) ||
            parse_compact(f, l, 5, s, st))
            return st->code;
        break;
    case 24: case 25: /* ec t rl rc left right subtype */
        need = 8;
        if (l->ntok != need) break;
        if (parse_double(f, l, 3, &s->rl, st) || parse_double(f, l, 4, &s->rc, st) ||
            parse_double(f, l, 5, &s->aleft, st) || parse_double(f, l, 6, &s->aright, st) ||
            parse_compact(f, l, 7, s, st))
            return st->code;
        break;
    default:
        return pk_fail_at(st, PK_ERR_UNSUPPORTED, f->path, l->line,
                          "symmetry function type %d is not supported by hdnnp/pk "
                          "(supported: 2, 3, 9, 12, 13, 20-25)", s->type);
    }
    if (l->ntok != need)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "symfunction_short type %d: expected %d fields, found %d", s->type,
                          need - 1, l->ntok - 1);
    if (!(s->rc > 0.0) || s->eta < 0.0)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "symfunction_short: need rc > 0 and eta >= 0");
    const sf_fields fi = sf_field_index(s->type);
    if (check_range(f, l, fi.rc, "cutoff rc", s->rc, 0.0, 1, HDNNP_MAX_LENGTH,
                    "not a cutoff radius of any model", st))
        return st->code;
    if (hdnnp_type_compact(s->type)) {
        if (check_range(f, l, fi.rl, "lower radius rl", s->rl, -HDNNP_MAX_LENGTH, 0,
                        HDNNP_MAX_LENGTH, "not a radius of any model", st))
            return st->code;
        return check_compact(f, l, s, st);
    }
    if (check_range(f, l, fi.eta, "eta", s->eta, 0.0, 0, HDNNP_MAX_ETA,
                    "a Gaussian narrower than any interatomic distance", st))
        return st->code;
    /* a shift beyond the cutoff puts the Gaussian's centre where it is never evaluated */
    if (fi.rs >= 0 && fi.rs < l->ntok &&
        check_range(f, l, fi.rs, "shift rs", s->rs, -s->rc, 0, s->rc,
                    "the shift must lie within -rc..rc", st))
        return st->code;
    if (s->type == 3 || s->type == 9 || s->type == 13) {
        if (s->lambda != 1.0 && s->lambda != -1.0)
            return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                              "symfunction_short: lambda must be 1 or -1");
        if (!(s->zeta >= 1.0))
            return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                              "symfunction_short: zeta must be >= 1");
        if (check_range(f, l, fi.zeta, "zeta", s->zeta, 1.0, 0, HDNNP_MAX_ZETA,
                        "(1 +- cos)^zeta would approach overflow", st))
            return st->code;
        s->zeta_int = (int)lround(s->zeta);
        s->int_pow = fabs(s->zeta - s->zeta_int) <= DBL_MIN;
        s->norm = pow(2.0, 1.0 - s->zeta);
    }
    return PK_OK;
}

/* n2p2 operator< of the SymFnc classes (same element, so ec is equal): by type, then for
 * the compact types by subtype (as a string), e1, e2, rc, rl, left and right angle, for the
 * others by rc, eta, rs, zeta, lambda, e1, e2. */
static int cmp_sf(const void *a, const void *b)
{
    const hdnnp_sf *x = a, *y = b;
#define HDNNP_CMP(field) if (x->field != y->field) return x->field < y->field ? -1 : 1
    HDNNP_CMP(type);
    if (hdnnp_type_compact(x->type)) {
        const int c = strcmp(x->subtype, y->subtype);
        if (c) return c < 0 ? -1 : 1;
        HDNNP_CMP(e1);
        HDNNP_CMP(e2);
        HDNNP_CMP(rc);
        HDNNP_CMP(rl);
        HDNNP_CMP(aleft);
        HDNNP_CMP(aright);
        HDNNP_CMP(line);
        return 0;
    }
    HDNNP_CMP(rc);
    HDNNP_CMP(eta);
    HDNNP_CMP(rs);
    HDNNP_CMP(zeta);
    HDNNP_CMP(lambda);
    HDNNP_CMP(e1);
    HDNNP_CMP(e2);
    HDNNP_CMP(line);
#undef HDNNP_CMP
    return 0;
}

/* The radial factor (cutoff function or compact window) of a symmetry function. */
static hdnnp_cutoff radial_factor(const pk_hdnnp_model *m, const hdnnp_sf *sf)
{
    hdnnp_cutoff cu = {0};
    cu.rc = sf->rc;
    cu.irc = 1.0 / sf->rc;
    cu.rl = -1.0;
    if (hdnnp_type_compact(sf->type)) {
        cu.type = HDNNP_CT_COMPACT;
        cu.rl = sf->rl;
        cu.center = 0.5 * (sf->rl + sf->rc);
        cu.hw = 1.0 / (0.5 * (sf->rc - sf->rl));
        cu.core = sf->core;
        cu.asym = sf->asym;
        return cu;
    }
    cu.type = m->cutoff_type;
    cu.alpha = m->cutoff_alpha;
    cu.rci = cu.alpha * cu.rc;
    cu.iw = 1.0 / (cu.rc - cu.rci);
    cu.pre = cu.type == HDNNP_CT_TANH ? 1.0 / (tanh(1.0) * tanh(1.0) * tanh(1.0)) : 1.0;
    return cu;
}

static int same_factor(const hdnnp_cutoff *a, const hdnnp_cutoff *b)
{
    return a->type == b->type && a->rc == b->rc && a->rl == b->rl && a->core == b->core &&
           a->asym == b->asym;
}

/* The exponential slots of a group (hdnnp_group) for its distinct etas eta[0..neta): slot of
 * each in slot_of. A multiple n of the base eta is built from the powers already there: as a
 * sum of two of them, else from n/2 (even n) or n - 1 (odd n); where that takes more than
 * HDNNP_MAX_EXP_OPS new products, a direct exponential is cheaper. */
enum { HDNNP_MAX_EXP_OPS = 4 };

typedef struct {
    hdnnp_group *g;
    int memo[HDNNP_MAX_EXP_POW + 1];   /* slot holding base^n, or -1 */
} exp_plan;

static int product_slot(hdnnp_group *g, int a, int b)
{
    g->op_a[g->nslot] = a;
    g->op_b[g->nslot] = b;
    return g->nslot++;
}

static int power_slot(exp_plan *p, int n)
{
    if (p->memo[n] >= 0) return p->memo[n];
    for (int a = 1; a <= n / 2; a++)
        if (p->memo[a] >= 0 && p->memo[n - a] >= 0)
            return p->memo[n] = product_slot(p->g, p->memo[a], p->memo[n - a]);
    const int a = n % 2 ? power_slot(p, n - 1) : power_slot(p, n / 2);
    return p->memo[n] = product_slot(p->g, a, n % 2 ? p->memo[1] : a);
}

static int direct_slot(hdnnp_group *g, double eta)
{
    g->op_a[g->nslot] = g->op_b[g->nslot] = -1;
    g->slot_eta[g->nslot] = eta;
    return g->nslot++;
}

static void plan_exps(hdnnp_group *g, const double *eta, int neta, int *slot_of)
{
    int base = -1;
    for (int x = 0; x < neta; x++)
        if (eta[x] > 0.0 && (base < 0 || eta[x] < eta[base])) base = x;
    exp_plan p = {g, {0}};
    for (int n = 0; n <= HDNNP_MAX_EXP_POW; n++) p.memo[n] = -1;
    for (int x = 0; x < neta; x++) slot_of[x] = -1;
    g->nslot = 0;
    if (base >= 0) p.memo[1] = slot_of[base] = direct_slot(g, eta[base]);
    for (int n = 2; base >= 0 && n <= HDNNP_MAX_EXP_POW; n++)   /* multiples, increasing */
        for (int x = 0; x < neta; x++) {
            const double ratio = eta[x] / eta[base];
            if (lround(ratio) != n || fabs(ratio - n) > 1e-12 * ratio) continue;
            const exp_plan before = p;
            const int nslot = g->nslot;
            slot_of[x] = power_slot(&p, n);
            if (g->nslot - nslot > HDNNP_MAX_EXP_OPS) {   /* undo: a direct one is cheaper */
                p = before;
                g->nslot = nslot;
                slot_of[x] = -1;
            }
        }
    for (int x = 0; x < neta; x++)
        if (slot_of[x] < 0) slot_of[x] = direct_slot(g, eta[x]);
}

/* Add symmetry function s to the group of its kind in groups[0..*n), opening one if needed. */
static pk_code add_to_group(hdnnp_element *el, hdnnp_group *groups, int *n, int s,
                            pk_status *st)
{
    const hdnnp_sf *sf = &el->sf[s];
    int g;
    for (g = 0; g < *n; g++) {
        const hdnnp_group *a = &groups[g];
        if (a->type == sf->type && a->e1 == sf->e1 && a->e2 == sf->e2 && a->cut == sf->cut &&
            a->rs == sf->rs)
            break;
    }
    hdnnp_group *a = &groups[g];
    if (g == *n) {
        (*n)++;
        a->type = sf->type;
        a->e1 = sf->e1;
        a->e2 = sf->e2;
        a->cut = sf->cut;
        a->rs = sf->rs;
        /* slots: at most one per distinct eta and one per power 2..HDNNP_MAX_EXP_POW */
        const size_t nslot_max = (size_t)el->nsf + HDNNP_MAX_EXP_POW;
        a->sf = malloc(sizeof(int) * (size_t)el->nsf);
        a->sf_slot = malloc(sizeof(int) * (size_t)el->nsf);
        a->slot_eta = calloc(nslot_max, sizeof(double));
        a->op_a = calloc(nslot_max, sizeof(int));
        a->op_b = calloc(nslot_max, sizeof(int));
        if (!a->sf || !a->sf_slot || !a->slot_eta || !a->op_a || !a->op_b)
            return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    }
    a->sf[a->nsf++] = s;
    return PK_OK;
}

/* Distinct etas of a group, then its exponential slots. */
static pk_code plan_group_exps(const hdnnp_element *el, hdnnp_group *a, pk_status *st)
{
    double *eta = malloc(sizeof(double) * (size_t)a->nsf);
    int *which = malloc(sizeof(int) * 2 * (size_t)a->nsf);   /* then the slot of each eta */
    if (!eta || !which) {
        free(eta);
        free(which);
        return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    }
    int *slot_of = which + a->nsf, neta = 0;
    for (int m = 0; m < a->nsf; m++) {
        const double e = el->sf[a->sf[m]].eta;
        int x;
        for (x = 0; x < neta && eta[x] != e; x++) {}
        if (x == neta) eta[neta++] = e;
        which[m] = x;
    }
    plan_exps(a, eta, neta, slot_of);
    for (int m = 0; m < a->nsf; m++) a->sf_slot[m] = slot_of[which[m]];
    free(eta);
    free(which);
    return PK_OK;
}

static pk_code build_groups(pk_hdnnp_model *m, hdnnp_element *el, pk_status *st)
{
    el->rcmax = 0.0;
    el->ncut = 0;
    el->cut = calloc((size_t)el->nsf, sizeof *el->cut);
    if (!el->cut) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    for (int s = 0; s < el->nsf; s++) {
        hdnnp_sf *sf = &el->sf[s];
        const hdnnp_cutoff cu = radial_factor(m, sf);
        int c;
        for (c = 0; c < el->ncut && !same_factor(&el->cut[c], &cu); c++) {}
        if (c == el->ncut) el->cut[el->ncut++] = cu;
        sf->cut = c;
        if (sf->rc > el->rcmax) el->rcmax = sf->rc;
    }
    el->radial = calloc((size_t)el->nsf, sizeof *el->radial);
    el->angular = calloc((size_t)el->nsf, sizeof *el->angular);
    if (!el->radial || !el->angular) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    for (int s = 0; s < el->nsf; s++) {
        const int radial = hdnnp_type_radial(el->sf[s].type);
        if (add_to_group(el, radial ? el->radial : el->angular,
                         radial ? &el->nradial : &el->nangular, s, st))
            return st->code;
    }
    for (int g = 0; g < el->nradial; g++)
        if (plan_group_exps(el, &el->radial[g], st)) return st->code;
    for (int g = 0; g < el->nangular; g++)
        if (plan_group_exps(el, &el->angular[g], st)) return st->code;
    if (el->rcmax > m->rcmax) m->rcmax = el->rcmax;
    return PK_OK;
}

static pk_code read_symfuncs(pk_hdnnp_model *m, const nn_file *f, pk_status *st)
{
    for (int e = 0; e < m->nelements; e++) {
        m->el[e].sf = calloc((size_t)f->n, sizeof(hdnnp_sf));
        if (!m->el[e].sf) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    }
    for (int i = 0; i < f->n; i++) {
        const nn_line *l = &f->v[i];
        if (strcmp(l->tok[0], "symfunction_short") != 0) continue;
        hdnnp_sf s;
        int e;
        if (parse_symfunc(m, f, l, &e, &s, st)) return st->code;
        m->el[e].sf[m->el[e].nsf++] = s;
    }
    for (int e = 0; e < m->nelements; e++) {
        hdnnp_element *el = &m->el[e];
        if (el->nsf == 0)
            return pk_fail(st, PK_ERR_FORMAT, "%s: no symfunction_short for element %s", f->path,
                           el->symbol);
        qsort(el->sf, (size_t)el->nsf, sizeof el->sf[0], cmp_sf);
        if (build_groups(m, el, st)) return st->code;
    }
    return PK_OK;
}

/* ---- networks ------------------------------------------------------------------------------ */

static pk_code parse_activation(const nn_file *f, const nn_line *l, const char *s,
                                hdnnp_activation *a, pk_status *st)
{
    static const char letters[] = "ltsprgcSeh";
    const char *p = strlen(s) == 1 ? strchr(letters, s[0]) : NULL;
    if (!p)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "unknown activation function '%s' (n2p2 letters: l t s p r g c S e h)",
                          s);
    *a = (hdnnp_activation)(p - letters);
    return PK_OK;
}

static pk_code read_networks(pk_hdnnp_model *m, const nn_file *f, const pk_logger *log,
                             pk_status *st)
{
    const nn_line *lh, *ln, *la, *lnorm;
    int nh;
    if (require(f, "global_hidden_layers_short", &lh, st) ||
        require(f, "global_nodes_short", &ln, st) ||
        require(f, "global_activation_short", &la, st) ||
        find_unique(f, "normalize_nodes", &lnorm, st) || parse_int(f, lh, 1, &nh, st))
        return st->code;
    if (nh < 1 || nh > HDNNP_MAX_LAYERS - 2)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, lh->line,
                          "global_hidden_layers_short %d outside 1..%d", nh, HDNNP_MAX_LAYERS - 2);
    if (ln->ntok - 1 < nh)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, ln->line,
                          "global_nodes_short: %d values for %d hidden layers", ln->ntok - 1, nh);
    if (la->ntok - 1 < nh)
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, la->line,
                          "global_activation_short: %d letters for %d hidden layers",
                          la->ntok - 1, nh);
    if (la->ntok - 1 > nh && strcmp(la->tok[nh + 1], "l") != 0)
        pk_log(log, "hdnnp/pk: %s:%d: output activation '%s' ignored: n2p2 uses a linear "
               "output neuron", f->path, la->line, la->tok[nh + 1]);
    for (int e = 0; e < m->nelements; e++) {
        hdnnp_network *n = &m->el[e].net;
        n->nlayers = nh + 2;
        n->normalize = lnorm != NULL;
        n->size[0] = m->el[e].nsf;
        n->act[0] = HDNNP_AF_IDENTITY;
        for (int l = 1; l <= nh; l++) {
            if (parse_int(f, ln, l, &n->size[l], st) ||
                parse_activation(f, la, la->tok[l], &n->act[l], st))
                return st->code;
            if (n->size[l] < 1 || n->size[l] > HDNNP_MAX_NODES)
                return pk_fail_at(st, PK_ERR_FORMAT, f->path, ln->line,
                                  "global_nodes_short: layer %d has %d nodes (1..%d)", l,
                                  n->size[l], HDNNP_MAX_NODES);
        }
        n->size[nh + 1] = 1;
        n->act[nh + 1] = HDNNP_AF_IDENTITY;
    }
    for (int i = 0; i < f->n; i++) {
        const nn_line *l = &f->v[i];
        if (strcmp(l->tok[0], "element_nodes_short") != 0) continue;
        int e, layer, nodes;
        if (need_element(m, f, l, 1, &e, st) || parse_int(f, l, 2, &layer, st) ||
            parse_int(f, l, 3, &nodes, st))
            return st->code;
        if (layer < 1 || layer > nh || nodes < 1 || nodes > HDNNP_MAX_NODES)
            return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                              "element_nodes_short: need hidden layer 1..%d and nodes 1..%d", nh,
                              HDNNP_MAX_NODES);
        m->el[e].net.size[layer] = nodes;
    }
    for (int e = 0; e < m->nelements; e++) {
        hdnnp_network *n = &m->el[e].net;
        n->nconnections = 0;
        n->maxsize = 0;
        for (int l = 0; l < n->nlayers; l++) {
            if (n->size[l] > n->maxsize) n->maxsize = n->size[l];
            if (l == 0) continue;
            n->nconnections += (size_t)n->size[l] * (size_t)(n->size[l - 1] + 1);
            n->w[l] = malloc(sizeof(double) * (size_t)n->size[l] * (size_t)n->size[l - 1]);
            n->wt[l] = malloc(sizeof(double) * (size_t)n->size[l] * (size_t)n->size[l - 1]);
            n->b[l] = malloc(sizeof(double) * (size_t)n->size[l]);
            if (!n->w[l] || !n->wt[l] || !n->b[l])
                return pk_fail(st, PK_ERR_MEMORY, "out of memory");
        }
    }
    return PK_OK;
}

/* A weight or bias: first column, finite and within +-HDNNP_MAX_WEIGHT. */
static pk_code read_weight(const nn_file *f, const nn_line *l, double *w, pk_status *st)
{
    if (parse_double(f, l, 0, w, st)) return st->code;
    return check_range(f, l, 0, "weight", *w, -HDNNP_MAX_WEIGHT, 0, HDNNP_MAX_WEIGHT,
                       "no trained network holds such a weight", st);
}

static pk_code read_weights(pk_hdnnp_model *m, const char *dir, pk_status *st)
{
    for (int e = 0; e < m->nelements; e++) {
        hdnnp_network *n = &m->el[e].net;
        char path[600];
        snprintf(path, sizeof path, "%s/weights.%03d.data", dir, m->el[e].z);
        nn_file f = {0};
        if (read_lines(path, &f, st)) { free(f.v); return st->code; }
        if ((size_t)f.n != n->nconnections) {
            pk_fail(st, PK_ERR_FORMAT, "%s: %d weights found, the network of %s needs %zu",
                    path, f.n, m->el[e].symbol, n->nconnections);
            free(f.v);
            return st->code;
        }
        int k = 0;
        for (int l = 1; l < n->nlayers && !st->code; l++) {
            const int nin = n->size[l - 1], nout = n->size[l];
            for (int i = 0; i < nin && !st->code; i++)
                for (int o = 0; o < nout && !st->code; o++, k++)
                    if (!read_weight(&f, &f.v[k], &n->w[l][o * nin + i], st))
                        n->wt[l][i * nout + o] = n->w[l][o * nin + i];
            for (int o = 0; o < nout && !st->code; o++, k++)
                read_weight(&f, &f.v[k], &n->b[l][o], st);
        }
        free(f.v);
        if (st->code) return st->code;
    }
    return PK_OK;
}

/* ---- scaling.data -------------------------------------------------------------------------- */

/* Relative slack for Gmean against [Gmin, Gmax]: n2p2 writes 16 digits, and the mean of a
 * constant function can differ from its min and max by a few ulp. */
#define HDNNP_STAT_SLACK 1e-9

/* A row's statistics (columns 3-6: Gmin, Gmax, Gmean, sigma) must be possible statistics of
 * one data set: Gmin <= Gmean <= Gmax and sigma >= 0. Gmin == Gmax (a constant function) is
 * allowed here; scaling by the range refuses it below, as before. */
static pk_code check_statistics(const nn_file *f, const nn_line *l, const hdnnp_sf *sf,
                                pk_status *st)
{
    if (!(sf->gmin <= sf->gmax))
        return pk_fail_at(st, PK_ERR_FORMAT, f->path, l->line,
                          "column 4: Gmax '%s' is below Gmin '%s' (column 3)", l->tok[3],
                          l->tok[2]);
    const double slack = HDNNP_STAT_SLACK * (fabs(sf->gmin) + fabs(sf->gmax));
    if (check_range(f, l, 4, "Gmean", sf->gmean, sf->gmin - slack, 0, sf->gmax + slack,
                    "a mean lies between the minimum and maximum (columns 3, 4)", st))
        return st->code;
    if (l->ntok > 5 && check_range(f, l, 5, "sigma", sf->gsigma, 0.0, 0, DBL_MAX,
                                   "a standard deviation is not negative", st))
        return st->code;
    return PK_OK;
}

/* The scaling factor derived from a row must be finite (a range or sigma of 1e-310 would
 * make it inf and every energy NaN). */
static pk_code check_factor(const char *path, const nn_line *l, const hdnnp_sf *sf,
                            const char *formula, pk_status *st)
{
    if (isfinite(sf->factor)) return PK_OK;
    return pk_fail_at(st, PK_ERR_NUMERIC, path, l->line,
                      "scaling factor %s = %g is not finite (Gmin %s, Gmax %s, sigma %s)",
                      formula, sf->factor, l->tok[2], l->tok[3], l->ntok > 5 ? l->tok[5] : "-");
}

static pk_code read_scaling(pk_hdnnp_model *m, const char *dir, pk_status *st)
{
    char path[600];
    snprintf(path, sizeof path, "%s/scaling.data", dir);
    nn_file f = {0};
    if (read_lines(path, &f, st)) { free(f.v); return st->code; }
    int row = 0;
    for (int e = 0; e < m->nelements && !st->code; e++) {
        hdnnp_element *el = &m->el[e];
        for (int s = 0; s < el->nsf && !st->code; s++, row++) {
            if (row >= f.n) {
                pk_fail(st, PK_ERR_FORMAT, "%s: %d rows, the model has more symmetry functions "
                        "(element %s needs %d)", path, f.n, el->symbol, el->nsf);
                break;
            }
            const nn_line *l = &f.v[row];
            int ie = 0, is = 0;
            hdnnp_sf *sf = &el->sf[s];
            if (parse_int(&f, l, 0, &ie, st) || parse_int(&f, l, 1, &is, st)) break;
            if (ie != e + 1 || is != s + 1) {
                pk_fail_at(st, PK_ERR_FORMAT, path, l->line, "expected element %d SF %d, found "
                           "%d %d", e + 1, s + 1, ie, is);
                break;
            }
            if (parse_double(&f, l, 2, &sf->gmin, st) || parse_double(&f, l, 3, &sf->gmax, st) ||
                parse_double(&f, l, 4, &sf->gmean, st))
                break;
            sf->gsigma = 0.0;
            if (l->ntok > 5 && parse_double(&f, l, 5, &sf->gsigma, st)) break;
            if (check_statistics(&f, l, sf, st)) break;
            sf->smin = 0.0;
            sf->factor = 1.0;
            sf->gref = 0.0;
            switch (m->scaling) {
            case HDNNP_ST_NONE: break;
            case HDNNP_ST_CENTER: sf->gref = sf->gmean; break;
            case HDNNP_ST_SCALE:
            case HDNNP_ST_SCALECENTER:
                if (!(sf->gmax > sf->gmin)) {
                    pk_fail_at(st, PK_ERR_FORMAT, path, l->line,
                               "Gmax <= Gmin: cannot scale this symmetry function");
                    break;
                }
                sf->smin = m->smin;
                sf->factor = (m->smax - m->smin) / (sf->gmax - sf->gmin);
                sf->gref = m->scaling == HDNNP_ST_SCALE ? sf->gmin : sf->gmean;
                check_factor(path, l, sf, "(Smax - Smin) / (Gmax - Gmin)", st);
                break;
            case HDNNP_ST_SCALESIGMA:
                if (!(sf->gsigma > 0.0)) {
                    pk_fail_at(st, PK_ERR_FORMAT, path, l->line,
                               "sigma missing or zero: cannot scale with sigma");
                    break;
                }
                sf->smin = m->smin;
                sf->factor = (m->smax - m->smin) / sf->gsigma;
                sf->gref = sf->gmean;
                check_factor(path, l, sf, "(Smax - Smin) / sigma", st);
                break;
            }
        }
    }
    if (!st->code && row != f.n)
        pk_fail_at(st, PK_ERR_FORMAT, path, f.v[row].line,
                   "%d rows but the model has %d symmetry functions", f.n, row);
    free(f.v);
    return st->code;
}

/* ---- entry points -------------------------------------------------------------------------- */

pk_code pk_hdnnp_model_load(const char *dir, const pk_logger *log, pk_hdnnp_model **out,
                            pk_status *st)
{
    pk_status_clear(st);
    *out = NULL;
    pk_hdnnp_model *m = calloc(1, sizeof *m);
    if (!m) return pk_fail(st, PK_ERR_MEMORY, "out of memory");
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    char path[600];
    snprintf(path, sizeof path, "%s/input.nn", dir);
    nn_file f = {0};
    f.keyed = 1;
    if (read_lines(path, &f, st) || check_keywords(&f, log, st) ||
        read_normalization(m, &f, st) || read_elements(m, &f, st) ||
        read_cutoff_and_scaling(m, &f, st) || read_symfuncs(m, &f, st) ||
        read_networks(m, &f, log, st) || read_scaling(m, dir, st) || read_weights(m, dir, st)) {
        free(f.v);
        pk_hdnnp_model_free(m);
        return st->code;
    }
    free(f.v);
    for (int e = 0; e < m->nelements; e++)
        pk_log(log, "hdnnp/pk: element %s (Z=%d): %d symmetry functions, cutoff %g, "
               "%zu network connections", m->el[e].symbol, m->el[e].z, m->el[e].nsf,
               m->el[e].rcmax, m->el[e].net.nconnections);
    *out = m;
    return PK_OK;
}

void pk_hdnnp_model_free(pk_hdnnp_model *m)
{
    if (!m) return;
    for (int e = 0; e < HDNNP_MAX_ELEMENTS; e++) {
        hdnnp_element *el = &m->el[e];
        for (int k = 0; k < el->nradial + el->nangular; k++) {
            hdnnp_group *g = k < el->nradial ? &el->radial[k] : &el->angular[k - el->nradial];
            free(g->sf);
            free(g->sf_slot);
            free(g->slot_eta);
            free(g->op_a);
            free(g->op_b);
        }
        free(el->angular);
        free(el->radial);
        free(el->cut);
        free(el->sf);
        for (int l = 0; l < HDNNP_MAX_LAYERS; l++) {
            free(el->net.w[l]);
            free(el->net.wt[l]);
            free(el->net.b[l]);
        }
    }
    free(m);
}

int pk_hdnnp_num_elements(const pk_hdnnp_model *m) { return m->nelements; }

int pk_hdnnp_element_index(const pk_hdnnp_model *m, const char *symbol)
{
    return element_of(m, symbol);
}

const char *pk_hdnnp_element_symbol(const pk_hdnnp_model *m, int e)
{
    return e >= 0 && e < m->nelements ? m->el[e].symbol : "?";
}

int pk_hdnnp_num_symfuncs(const pk_hdnnp_model *m, int e) { return m->el[e].nsf; }

double pk_hdnnp_max_cutoff(const pk_hdnnp_model *m) { return m->rcmax; }

const char *pk_hdnnp_describe_symfunc(const pk_hdnnp_model *m, int e, int s, char *buf,
                                      size_t len)
{
    const hdnnp_sf *sf = &m->el[e].sf[s];
    const char *e1 = sf->e1 >= 0 ? m->el[sf->e1].symbol : "*";
    const char *e2 = sf->e2 >= 0 ? m->el[sf->e2].symbol : "*";
    if (sf->type == 20 || sf->type == 23)
        snprintf(buf, len, "%s SF %d (input.nn line %d: type %d, neighbour %s, rl %g, rc %g, "
                 "subtype %s)", m->el[e].symbol, s + 1, sf->line, sf->type, e1, sf->rl, sf->rc,
                 sf->subtype);
    else if (hdnnp_type_compact(sf->type))
        snprintf(buf, len, "%s SF %d (input.nn line %d: type %d, neighbours %s %s, rl %g, rc %g, "
                 "angles %g to %g, subtype %s)", m->el[e].symbol, s + 1, sf->line, sf->type, e1,
                 e2, sf->rl, sf->rc, sf->aleft, sf->aright, sf->subtype);
    else if (sf->type == 2 || sf->type == 12)
        snprintf(buf, len, "%s SF %d (input.nn line %d: type %d, neighbour %s, eta %g, rs %g, "
                 "rc %g)", m->el[e].symbol, s + 1, sf->line, sf->type, e1, sf->eta, sf->rs, sf->rc);
    else
        snprintf(buf, len, "%s SF %d (input.nn line %d: type %d, neighbours %s %s, eta %g, "
                 "lambda %g, zeta %g, rs %g, rc %g)", m->el[e].symbol, s + 1, sf->line, sf->type,
                 e1, e2, sf->eta, sf->lambda, sf->zeta, sf->rs, sf->rc);
    return buf;
}
