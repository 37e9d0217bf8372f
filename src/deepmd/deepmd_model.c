/* DeePMD-kit v3 serialized models (what `dp convert-backend` writes) -> dp_model.
 *
 * The model is a nested dict: model -> {type: standard, type_map, descriptor, fitting,
 * @variables: {out_bias, out_std}}. In .yaml, arrays are {"@class": np.ndarray, dtype,
 * value: nested lists}; in .dp (deepmd_dp.c) the same dict is JSON and each array is the
 * name of an HDF5 dataset. Both arrive here as a libyaml document. Only what the se_e2_a +
 * ener model needs is read; anything that would change the physics and is not implemented
 * is refused with the key that asks for it. Every error names the file, the key path and,
 * for YAML, the line (libyaml marks).
 *
 * Every number read is checked: finite, and within the bounds below where a quantity has a
 * scale (a model that breaks them is a corrupt or mistyped file, and would otherwise run to
 * NaN or absurd energies without a word). The message names the value. Derived quantities
 * (tables) are checked where they are made (deepmd_table.c). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_doc.h"

/* ---- sanity bounds ------------------------------------------------------------------------
 * Lengths in Angstrom, energies in eV (DeePMD-kit's units). Each is far outside what trained
 * models hold, so only broken files are refused. */

/* rcut: se_e2_a models use 4-9 A. At 50 A a sphere holds ~5e4 atoms of liquid water: no
 * neighbour list or sel of a real model is that large. */
#define DP_RCUT_MAX 50.0
/* Entries of type_map: the periodic table has 118 elements; the ntypes^2 embedding nets of a
 * two-sided model and the ntypes x sum(sel) x 4 statistics grow with it. */
#define DP_NTYPES_MAX 128
/* sum(sel): published se_e2_a models use 100-600; 4096 neighbours within rcut need rcut ~21 A
 * in liquid water. Bounds the per-centre buffers (sum(sel) x ng x 4 doubles). */
#define DP_SEL_MAX 4096
/* Width of any network layer (and of `neuron` entries): trained models use <= 240; also bounds
 * the fitting input ng * axis_neuron. */
#define DP_WIDTH_MAX 4096
/* davg / dstd are statistics of the rows R = s (1, x/r, y/r, z/r), s ~ 1/r: |R| < 2 1/A for
 * r > 0.5 A, so |davg| is of order 1. dstd divides: DeePMD-kit raises every dstd below 1e-2
 * to 1e-2 when it computes them, so 1e-4 is two orders below anything it writes, and the
 * normalised inputs (R - davg) / dstd stay below ~1e8 (the embedding tables span them). */
#define DP_DAVG_MAX 1e4
#define DP_DSTD_MIN 1e-4
#define DP_DSTD_MAX 1e4
/* Per-atom energy shifts (bias_atom_e, out_bias): all-electron total energies of the heaviest
 * atoms are ~1e6 eV (Z^(7/3) scaling), pseudopotential ones ~1e3 eV. */
#define DP_ENERGY_MAX 1e7

/* A range of allowed values and what it protects, for messages. */
typedef struct {
    double lo, hi;
    const char *why;
} dp_range;

/* Network weights (w, b, idt) and out_std (read, never applied) have no scale: only
 * finiteness is required; what large weights do is checked on the tables built from them. */
static const dp_range ANY_FINITE = {-DBL_MAX, DBL_MAX, "must be finite"};
static const dp_range DAVG_RANGE = {-DP_DAVG_MAX, DP_DAVG_MAX,
                                    "a descriptor mean; |davg| is of order 1"};
static const dp_range DSTD_RANGE = {DP_DSTD_MIN, DP_DSTD_MAX,
                                    "a standard deviation that divides; DeePMD-kit writes "
                                    "none below 1e-2"};
static const dp_range ENERGY_RANGE = {-DP_ENERGY_MAX, DP_ENERGY_MAX,
                                      "an energy per atom in eV"};

typedef struct {
    yaml_document_t *doc;
    const char *file;
    int has_lines;
    dp_array_fn arrays;   /* loader for arrays given by name, or NULL */
    void *actx;
    pk_status *st;
} yctx;

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

static yaml_node_t *node_at(yctx *y, int id) { return yaml_document_get_node(y->doc, id); }

static const char *scalar(const yaml_node_t *n)
{
    return (n && n->type == YAML_SCALAR_NODE) ? (const char *)n->data.scalar.value : NULL;
}

static int is_null(const yaml_node_t *n)
{
    const char *s = scalar(n);
    return n == NULL || (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                         (!strcmp(s, "null") || !strcmp(s, "~") || !*s || !strcmp(s, "Null")
                          || !strcmp(s, "NULL")));
}

static pk_code fail(yctx *y, const yaml_node_t *n, pk_code c, const char *path,
                    const char *key, const char *what)
{
    const char *dot = key && *path ? "." : "";
    if (!y->has_lines)
        return pk_fail(y->st, c, "%s: %s%s%s: %s", y->file, path, dot, key ? key : "", what);
    return pk_fail_at(y->st, c, y->file, n ? line_of(n) : 0, "%s%s%s: %s", path, dot,
                      key ? key : "", what);
}

/* Value of key in a mapping node, or NULL. */
static yaml_node_t *lookup(yctx *y, const yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = scalar(node_at(y, p->key));
        if (k && !strcmp(k, key)) return node_at(y, p->value);
    }
    return NULL;
}

static pk_code need(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                    yaml_node_t **out)
{
    *out = NULL;
    if (!map || map->type != YAML_MAPPING_NODE)
        return fail(y, map, PK_ERR_FORMAT, path, NULL, "expected a mapping");
    *out = lookup(y, map, key);
    if (!*out) return fail(y, map, PK_ERR_FORMAT, path, key, "missing key");
    return PK_OK;
}

static pk_code get_str(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                       const char **out)
{
    yaml_node_t *n;
    if (need(y, map, path, key, &n)) return y->st->code;
    if (!(*out = scalar(n))) return fail(y, n, PK_ERR_FORMAT, path, key, "expected a string");
    return PK_OK;
}

/* YAML's spellings of the non-finite floats (.nan, .inf, -.inf: what Python's yaml writes),
 * read as such so that the range checks name them; 0 for anything else. */
static int yaml_nonfinite(const char *s, double *out)
{
    static const char *const nan[] = {".nan", ".NaN", ".NAN"};
    static const char *const inf[] = {".inf", ".Inf", ".INF"};
    const int neg = *s == '-';
    const char *t = s + (*s == '-' || *s == '+');
    for (int k = 0; k < 3; k++) {
        if (t == s && !strcmp(s, nan[k])) { *out = NAN; return 1; }
        if (!strcmp(t, inf[k])) { *out = neg ? -INFINITY : INFINITY; return 1; }
    }
    return 0;
}

static pk_code to_double(yctx *y, const yaml_node_t *n, const char *path, const char *key,
                         double *out)
{
    const char *s = scalar(n);
    char *end;
    if (!s) return fail(y, n, PK_ERR_FORMAT, path, key, "expected a number");
    if (yaml_nonfinite(s, out)) return PK_OK;
    *out = strtod(s, &end);
    if (end == s || *end) return fail(y, n, PK_ERR_FORMAT, path, key, "expected a number");
    return PK_OK;
}

static pk_code get_double(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                          double *out)
{
    yaml_node_t *n;
    if (need(y, map, path, key, &n)) return y->st->code;
    return to_double(y, n, path, key, out);
}

/* A number of node n (key at path) outside [lo, hi] or not finite: say which value and why. */
static pk_code out_of_range(yctx *y, const yaml_node_t *n, const char *path, const char *key,
                            double v, double lo, double hi, const char *why)
{
    char what[320];
    if (!isfinite(v))
        snprintf(what, sizeof what, "value %g is not finite", v);
    else
        snprintf(what, sizeof what, "value %g is outside [%g, %g] (%s)", v, lo, hi, why);
    return fail(y, n, PK_ERR_FORMAT, path, key, what);
}

/* A number of the mapping: present, finite, and in [lo, hi]. */
static pk_code get_double_in(yctx *y, const yaml_node_t *map, const char *path,
                             const char *key, double lo, double hi, const char *why,
                             double *out)
{
    if (get_double(y, map, path, key, out)) return y->st->code;
    if (isfinite(*out) && *out >= lo && *out <= hi) return PK_OK;
    return out_of_range(y, lookup(y, map, key), path, key, *out, lo, hi, why);
}

static pk_code to_int(yctx *y, const yaml_node_t *n, const char *path, const char *key,
                      int *out)
{
    const char *s = scalar(n);
    char *end;
    if (!s) return fail(y, n, PK_ERR_FORMAT, path, key, "expected an integer");
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < -1000000000L || v > 1000000000L)
        return fail(y, n, PK_ERR_FORMAT, path, key, "expected an integer");
    *out = (int)v;
    return PK_OK;
}

static pk_code get_int(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                       int *out)
{
    yaml_node_t *n;
    if (need(y, map, path, key, &n)) return y->st->code;
    return to_int(y, n, path, key, out);
}

/* Optional boolean (dflt when missing). */
static pk_code get_bool(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                        int dflt, int *out)
{
    yaml_node_t *n = lookup(y, map, key);
    const char *s = scalar(n);
    if (!n) { *out = dflt; return PK_OK; }
    if (s && (!strcmp(s, "true") || !strcmp(s, "True"))) { *out = 1; return PK_OK; }
    if (s && (!strcmp(s, "false") || !strcmp(s, "False"))) { *out = 0; return PK_OK; }
    return fail(y, n, PK_ERR_FORMAT, path, key, "expected true or false");
}

static size_t seq_len(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static pk_code get_seq(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                       yaml_node_t **out)
{
    if (need(y, map, path, key, out)) return y->st->code;
    if ((*out)->type != YAML_SEQUENCE_NODE)
        return fail(y, *out, PK_ERR_FORMAT, path, key, "expected a list");
    return PK_OK;
}

static pk_code get_int_list(yctx *y, const yaml_node_t *map, const char *path,
                            const char *key, int **out, int *n)
{
    yaml_node_t *s;
    if (get_seq(y, map, path, key, &s)) return y->st->code;
    *n = (int)seq_len(s);
    *out = calloc((size_t)*n + 1, sizeof(int));
    if (!*out) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    for (int i = 0; i < *n; i++)
        if (to_int(y, node_at(y, s->data.sequence.items.start[i]), path, key, &(*out)[i]))
            return y->st->code;
    return PK_OK;
}

/* Key absent, null, or an empty list. */
static int empty_or_null(yctx *y, const yaml_node_t *map, const char *key)
{
    yaml_node_t *n = lookup(y, map, key);
    return is_null(n) || (n->type == YAML_SEQUENCE_NODE && seq_len(n) == 0);
}

/* Find the shape of a nested list (following first elements). */
static int infer_shape(yctx *y, const yaml_node_t *n, int *dims, int maxdim)
{
    int nd = 0;
    while (n->type == YAML_SEQUENCE_NODE && nd < maxdim) {
        dims[nd++] = (int)seq_len(n);
        if (seq_len(n) == 0) break;
        n = node_at(y, n->data.sequence.items.start[0]);
    }
    return nd;
}

static pk_code fill(yctx *y, const yaml_node_t *n, const int *dims, int nd, double **p,
                    const char *path, const char *key)
{
    if (nd == 0) {
        if (to_double(y, n, path, key, *p)) return y->st->code;
        (*p)++;
        return PK_OK;
    }
    if (n->type != YAML_SEQUENCE_NODE || (int)seq_len(n) != dims[0]) {
        char what[128];
        snprintf(what, sizeof what, "array is ragged or has the wrong shape (expected %d "
                 "elements here)", dims[0]);
        return fail(y, n, PK_ERR_FORMAT, path, key, what);
    }
    for (int i = 0; i < dims[0]; i++)
        if (fill(y, node_at(y, n->data.sequence.items.start[i]), dims + 1, nd - 1, p, path,
                 key))
            return y->st->code;
    return PK_OK;
}

/* Element k (row-major) of the nested lists v of shape dims, for its line. */
static const yaml_node_t *element_node(yctx *y, const yaml_node_t *v, const int *dims, int nd,
                                       size_t k)
{
    size_t stride = 1;
    for (int d = 1; d < nd; d++) stride *= (size_t)dims[d];
    for (int d = 0; d < nd && v && v->type == YAML_SEQUENCE_NODE; d++) {
        size_t i = k / stride;
        k %= stride;
        if (d + 1 < nd) stride /= (size_t)dims[d + 1];
        v = node_at(y, v->data.sequence.items.start[i]);
    }
    return v;
}

/* Every element of a loaded array (count of them, shape dims) finite and in r; the message
 * names the element by its indices and, for YAML (value lists v), its line. */
static pk_code check_array(yctx *y, const yaml_node_t *holder, const yaml_node_t *v,
                           const char *path, const char *key, const double *a, int nd,
                           const int *dims, const dp_range *r)
{
    size_t count = 1;
    for (int d = 0; d < nd; d++) count *= (size_t)dims[d];
    for (size_t k = 0; k < count; k++) {
        if (isfinite(a[k]) && a[k] >= r->lo && a[k] <= r->hi) continue;
        char name[160];
        int n = snprintf(name, sizeof name, "%s", key);
        size_t rest = k, stride = count;
        for (int d = 0; d < nd && n > 0 && (size_t)n < sizeof name; d++) {
            stride /= (size_t)dims[d];
            n += snprintf(name + n, sizeof name - (size_t)n, "[%zu]", rest / stride);
            rest %= stride;
        }
        const yaml_node_t *at = v ? element_node(y, v, dims, nd, k) : holder;
        return out_of_range(y, at, path, name, a[k], r->lo, r->hi, r->why);
    }
    return PK_OK;
}

/* How the shape of a stored array must match the shape the model needs. These are the rules
 * of DeePMD-kit's dpmodel backend (deepmd/dpmodel, the NumPy reference that reads .yaml and
 * .dp; read in deepmd-kit 3.2.0: utils/network.py, utils/env_mat.py, fitting/general_fitting.py,
 * atomic_model/base_atomic_model.py), which keeps each array as stored and reshapes it only
 * where it is used:
 *  - DP_SHAPE_EXACT: the rank and every size given (w: NativeLayer.deserialize asserts a
 *    2-dimensional w and takes the layer's widths from it).
 *  - DP_SHAPE_FLAT: any shape holding the same number of elements, in row-major order (b and
 *    idt: NativeLayer.deserialize calls b.ravel() and idt.ravel(), so the 1 x n biases of
 *    TensorFlow checkpoints, n x 1 and 1 x 1 x n are all the n-vector).
 *  - DP_SHAPE_ROWS: the first dimension as given (one row per type), the rest of any shape
 *    holding the same number of elements (davg, dstd: EnvMat.call takes davg[atype] along
 *    axis 0 and reshapes it to nnei x 4; bias_atom_e: GeneralFitting takes bias_atom_e[atype]
 *    along axis 0 and reshapes it to the one energy per atom).
 *  - DP_SHAPE_STAT: three dimensions, the second one as given (one per type) and the energy's
 *    entries at [0][t][0] (out_bias, out_std: BaseAtomicModel._fetch_out_stat takes
 *    out_bias[idx, :, :size] with idx 0 and size 1 for the energy of an ener model, and
 *    reshapes it to ntypes x 1). */
typedef enum { DP_SHAPE_EXACT, DP_SHAPE_FLAT, DP_SHAPE_ROWS, DP_SHAPE_STAT } dp_shape;

static void shape_text(char *buf, size_t len, int nd, const int *dims)
{
    int n = snprintf(buf, len, "[");
    for (int k = 0; k < nd && n > 0 && (size_t)n < len; k++)
        n += snprintf(buf + n, len - (size_t)n, "%s%d", k ? ", " : "", dims[k]);
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, "]");
}

/* Whether the stored shape got (rank gd) fits want (rank nd) under rule; if not, what is
 * wrong goes to what. For DP_SHAPE_EXACT, sizes want[k] <= 0 are taken from got. */
static int shape_fits(dp_shape rule, int nd, int *want, int gd, const int *got, char *what,
                      size_t len)
{
    size_t need = 1, have = 1;
    char gs[96], ws[96];
    for (int k = 0; k < gd; k++) have *= (size_t)got[k];
    for (int k = 0; k < nd; k++) need *= (size_t)(want[k] > 0 ? want[k] : 1);
    shape_text(gs, sizeof gs, gd, got);
    shape_text(ws, sizeof ws, nd, want);
    switch (rule) {
    case DP_SHAPE_EXACT:
        if (gd != nd) {
            snprintf(what, len, "expected a %d-dimensional array, found %d dimensions", nd, gd);
            return 0;
        }
        for (int k = 0; k < nd; k++) {
            if (want[k] > 0 && want[k] != got[k]) {
                snprintf(what, len, "dimension %d has %d elements, expected %d", k, got[k],
                         want[k]);
                return 0;
            }
            want[k] = got[k];
        }
        return 1;
    case DP_SHAPE_FLAT:
        if (have == need) return 1;
        snprintf(what, len, "has shape %s (%zu elements), expected %zu elements (shape %s or "
                 "any other holding as many)", gs, have, need, ws);
        return 0;
    case DP_SHAPE_ROWS:
        if (gd >= 1 && got[0] == want[0] && have == need) return 1;
        snprintf(what, len, "has shape %s, expected %d rows (one per type) of %zu elements "
                 "each (shape %s, the rows in any shape)", gs, want[0], need / (size_t)want[0],
                 ws);
        return 0;
    case DP_SHAPE_STAT:
        if (gd == 3 && got[0] >= 1 && got[1] == want[1] && got[2] >= 1) return 1;
        snprintf(what, len, "has shape %s, expected 3 dimensions with %d (one per type) in "
                 "the second (shape %s)", gs, want[1], ws);
        return 0;
    }
    return 0;
}

/* Read an np.ndarray whose elements must lie in r and whose shape fits dims (rank nd) under
 * rule; on success *out holds it in the shape dims (dims[k] <= 0 are filled in). A null value
 * gives *out = NULL when allow_null. Values are checked before the shape is adapted, so a
 * message names the element by its stored indices and, for YAML, its line. */
static pk_code get_array(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                         dp_shape rule, int nd, int *dims, int allow_null, const dp_range *r,
                         double **out)
{
    yaml_node_t *a, *v = NULL;
    const char *cls = "";
    int got[DP_MAXDIM] = {0}, gd = nd;
    char what[320];
    *out = NULL;
    if (need(y, map, path, key, &a)) return y->st->code;
    if (is_null(a)) {
        if (allow_null) return PK_OK;
        return fail(y, a, PK_ERR_FORMAT, path, key, "is null, an array is needed");
    }
    if (scalar(a) && y->arrays) {
        for (int k = 0; k < nd; k++) got[k] = dims[k];
        pk_code c = y->arrays(y->actx, scalar(a), &gd, got, out, what, sizeof what);
        if (c) return fail(y, a, c, path, key, what);
        if (!shape_fits(rule, nd, dims, gd, got, what, sizeof what)) {
            free(*out);
            *out = NULL;
            return fail(y, a, PK_ERR_FORMAT, path, key, what);
        }
    } else {
        if (get_str(y, a, path, "@class", &cls)) return y->st->code;
        if (strcmp(cls, "np.ndarray"))
            return fail(y, a, PK_ERR_FORMAT, path, key, "expected an np.ndarray");
        if (need(y, a, path, "value", &v)) return y->st->code;
        gd = infer_shape(y, v, got, DP_MAXDIM);
        if (!shape_fits(rule, nd, dims, gd, got, what, sizeof what))
            return fail(y, v, PK_ERR_FORMAT, path, key, what);
        size_t count = 1;
        for (int k = 0; k < gd; k++) count *= (size_t)got[k];
        *out = malloc(sizeof(double) * (count ? count : 1));
        if (!*out) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
        double *p = *out;
        if (fill(y, v, got, gd, &p, path, key)) {
            free(*out);
            *out = NULL;
            return y->st->code;
        }
    }
    if (check_array(y, a, v, path, key, *out, gd, got, r)) {
        free(*out);
        *out = NULL;
        return y->st->code;
    }
    /* DP_SHAPE_STAT keeps [0][t][0] of each type t; the other rules keep the row-major order. */
    if (rule == DP_SHAPE_STAT)
        for (int t = 0; t < got[1]; t++) (*out)[t] = (*out)[(size_t)t * got[2]];
    return PK_OK;
}

static pk_code parse_act(yctx *y, const yaml_node_t *map, const char *path, dp_act *out)
{
    const char *s = "";
    if (get_str(y, map, path, "activation_function", &s)) return y->st->code;
    static const struct { const char *name; dp_act act; } names[] = {
        {"tanh", DP_ACT_TANH},       {"relu", DP_ACT_RELU},       {"relu6", DP_ACT_RELU6},
        {"softplus", DP_ACT_SOFTPLUS}, {"sigmoid", DP_ACT_SIGMOID}, {"none", DP_ACT_NONE},
        {"linear", DP_ACT_NONE},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(s, names[k].name)) { *out = names[k].act; return PK_OK; }
    char what[160];
    snprintf(what, sizeof what, "activation '%s' is not supported (tanh, relu, relu6, "
             "softplus, sigmoid, none)", s);
    return fail(y, lookup(y, map, "activation_function"), PK_ERR_UNSUPPORTED, path,
                "activation_function", what);
}

/* One EmbeddingNetwork / FittingNetwork: a list of layers with in/out widths chained. */
static pk_code parse_net(yctx *y, const yaml_node_t *nn, const char *path, int nin,
                         dp_net *net)
{
    yaml_node_t *layers;
    char lp[280];
    if (get_seq(y, nn, path, "layers", &layers)) return y->st->code;
    net->nlayer = (int)seq_len(layers);
    if (net->nlayer == 0) return fail(y, layers, PK_ERR_FORMAT, path, "layers", "no layers");
    net->layer = calloc((size_t)net->nlayer, sizeof(dp_layer));
    if (!net->layer) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    net->nin = nin;
    net->width = nin;
    for (int l = 0; l < net->nlayer; l++) {
        yaml_node_t *L = node_at(y, layers->data.sequence.items.start[l]), *vars;
        dp_layer *ly = &net->layer[l];
        snprintf(lp, sizeof lp, "%s.layers[%d]", path, l);
        if (need(y, L, lp, "@variables", &vars)) return y->st->code;
        char vp[320];
        snprintf(vp, sizeof vp, "%s.@variables", lp);
        int wd[2] = {nin, 0};
        if (get_array(y, vars, vp, "w", DP_SHAPE_EXACT, 2, wd, 0, &ANY_FINITE, &ly->w))
            return y->st->code;
        ly->nin = wd[0];
        ly->nout = wd[1];
        if (ly->nout < 1 || ly->nout > DP_WIDTH_MAX) {
            char what[96];
            snprintf(what, sizeof what, "has %d columns (layer width), need 1 to %d", ly->nout,
                     DP_WIDTH_MAX);
            return fail(y, lookup(y, vars, "w"), PK_ERR_FORMAT, vp, "w", what);
        }
        if (!(ly->wt = malloc(sizeof(double) * ((size_t)ly->nin * ly->nout + 1))))
            return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
        for (int k = 0; k < ly->nin; k++)
            for (int o = 0; o < ly->nout; o++)
                ly->wt[(size_t)o * ly->nin + k] = ly->w[(size_t)k * ly->nout + o];
        int bd[1] = {ly->nout}, id[1] = {ly->nout};
        if (get_array(y, vars, vp, "b", DP_SHAPE_FLAT, 1, bd, 1, &ANY_FINITE, &ly->b))
            return y->st->code;
        if (lookup(y, vars, "idt") &&
            get_array(y, vars, vp, "idt", DP_SHAPE_FLAT, 1, id, 1, &ANY_FINITE, &ly->idt))
            return y->st->code;
        if (parse_act(y, L, lp, &ly->act)) return y->st->code;
        if (get_bool(y, L, lp, "resnet", 0, &ly->resnet)) return y->st->code;
        nin = ly->nout;
        if (nin > net->width) net->width = nin;
    }
    net->nout = nin;
    return PK_OK;
}

/* NetworkCollection with the expected ndim; networks[k] for k < ntypes^ndim. */
static pk_code parse_collection(yctx *y, const yaml_node_t *map, const char *path,
                                const char *key, int ndim, int ntypes, int nin, dp_net **nets,
                                int *count)
{
    yaml_node_t *c, *list;
    char cp[200], np[240];
    int nd;
    snprintf(cp, sizeof cp, "%s.%s", path, key);
    if (need(y, map, path, key, &c)) return y->st->code;
    if (get_int(y, c, cp, "ndim", &nd)) return y->st->code;
    if (nd != ndim) {
        char what[96];
        snprintf(what, sizeof what, "is %d, expected %d for this model", nd, ndim);
        return fail(y, lookup(y, c, "ndim"), PK_ERR_UNSUPPORTED, cp, "ndim", what);
    }
    if (get_seq(y, c, cp, "networks", &list)) return y->st->code;
    int n = ndim == 2 ? ntypes * ntypes : ntypes;
    if ((int)seq_len(list) != n) {
        char what[96];
        snprintf(what, sizeof what, "has %d networks, expected %d", (int)seq_len(list), n);
        return fail(y, list, PK_ERR_FORMAT, cp, "networks", what);
    }
    *nets = calloc((size_t)n, sizeof(dp_net));
    if (!*nets) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    *count = n;
    for (int k = 0; k < n; k++) {
        snprintf(np, sizeof np, "%s.networks[%d]", cp, k);
        yaml_node_t *nn = node_at(y, list->data.sequence.items.start[k]);
        if (is_null(nn))
            return fail(y, nn, PK_ERR_UNSUPPORTED, np, NULL, "missing network");
        if (parse_net(y, nn, np, nin, &(*nets)[k])) return y->st->code;
    }
    return PK_OK;
}

/* *f32 (when not NULL) = 1 for precision float32 (DeePMD-kit's default is float64). */
static pk_code check_precision(yctx *y, const yaml_node_t *map, const char *path, int *f32)
{
    yaml_node_t *n = lookup(y, map, "precision");
    const char *s = scalar(n);
    if (f32) *f32 = s && !strcmp(s, "float32");
    if (!n || (s && (!strcmp(s, "float64") || !strcmp(s, "float32") || !strcmp(s, "default"))))
        return PK_OK;
    return fail(y, n, PK_ERR_UNSUPPORTED, path, "precision",
                "only float64 and float32 weights are supported");
}

static pk_code refuse_unless_empty(yctx *y, const yaml_node_t *map, const char *path,
                                   const char *key)
{
    if (empty_or_null(y, map, key)) return PK_OK;
    return fail(y, lookup(y, map, key), PK_ERR_UNSUPPORTED, path, key,
                "must be empty or null: not supported by deepmd/pk");
}

static pk_code parse_descriptor(yctx *y, const yaml_node_t *d, dp_model *m)
{
    const char *P = "model.descriptor", *type = "";
    int nsel;
    if (get_str(y, d, P, "type", &type)) return y->st->code;
    if (strcmp(type, "se_e2_a") && strcmp(type, "se_a")) {
        char what[160];
        snprintf(what, sizeof what, "descriptor '%s' is not supported (only se_e2_a / se_a)",
                 type);
        return fail(y, lookup(y, d, "type"), PK_ERR_UNSUPPORTED, P, "type", what);
    }
    if (refuse_unless_empty(y, d, P, "spin")) return y->st->code;
    /* float32 embedding nets run in double here (their tables are double) */
    if (check_precision(y, d, P, NULL)) return y->st->code;
    if (get_double_in(y, d, P, "rcut", 0.0, DP_RCUT_MAX, "a cutoff radius in A; se_e2_a "
                      "models use 4 to 9", &m->rcut) ||
        get_double_in(y, d, P, "rcut_smth", 0.0, DP_RCUT_MAX, "where the switching to zero "
                      "at rcut starts, in A", &m->rcut_smth))
        return y->st->code;
    if (!(m->rcut > 0) || !(m->rcut_smth < m->rcut)) {
        char what[128];
        snprintf(what, sizeof what, "need 0 <= rcut_smth < rcut, 0 < rcut (got rcut_smth %g, "
                 "rcut %g)", m->rcut_smth, m->rcut);
        return fail(y, lookup(y, d, "rcut"), PK_ERR_FORMAT, P, "rcut", what);
    }
    m->protection = 0.0;
    if (lookup(y, d, "env_protection") &&
        get_double_in(y, d, P, "env_protection", 0.0, m->rcut, "a length added to r before "
                      "dividing by it", &m->protection))
        return y->st->code;
    if (get_int_list(y, d, P, "sel", &m->sel, &nsel)) return y->st->code;
    if (nsel != m->ntypes)
        return fail(y, lookup(y, d, "sel"), PK_ERR_FORMAT, P, "sel",
                    "needs one entry per type of type_map");
    m->sec = calloc((size_t)m->ntypes + 1, sizeof(int));
    if (!m->sec) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    for (int t = 0; t < m->ntypes; t++) {
        if (m->sel[t] < 0 || m->sel[t] > DP_SEL_MAX) {
            char key[32];
            snprintf(key, sizeof key, "sel[%d]", t);
            return out_of_range(y, lookup(y, d, "sel"), P, key, m->sel[t], 0, DP_SEL_MAX,
                                "most neighbours of a type within rcut");
        }
        m->sec[t + 1] = m->sec[t] + m->sel[t];
    }
    m->nnei = m->sec[m->ntypes];
    if (m->nnei < 1 || m->nnei > DP_SEL_MAX) {
        char what[96];
        snprintf(what, sizeof what, "sums to %d, need 1 to %d", m->nnei, DP_SEL_MAX);
        return fail(y, lookup(y, d, "sel"), PK_ERR_FORMAT, P, "sel", what);
    }

    int *neuron = NULL, nneuron;
    if (get_int_list(y, d, P, "neuron", &neuron, &nneuron)) {
        free(neuron);
        return y->st->code;
    }
    m->ng = nneuron > 0 ? neuron[nneuron - 1] : 0;
    for (int k = 0; k < nneuron; k++)
        if (neuron[k] < 1 || neuron[k] > DP_WIDTH_MAX) {
            char key[32];
            snprintf(key, sizeof key, "neuron[%d]", k);
            pk_code c = out_of_range(y, lookup(y, d, "neuron"), P, key, neuron[k], 1,
                                     DP_WIDTH_MAX, "a layer width");
            free(neuron);
            return c;
        }
    free(neuron);
    if (get_int(y, d, P, "axis_neuron", &m->axis)) return y->st->code;
    if (m->ng <= 0 || m->axis <= 0 || m->axis > m->ng)
        return fail(y, lookup(y, d, "axis_neuron"), PK_ERR_FORMAT, P, "axis_neuron",
                    "needs 0 < axis_neuron <= last embedding width");
    if (get_bool(y, d, P, "type_one_side", 1, &m->one_side)) return y->st->code;

    /* exclude_types: list of [ti, tj] pairs, both orders excluded. */
    m->excl = calloc((size_t)m->ntypes * m->ntypes, 1);
    if (!m->excl) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    yaml_node_t *ex = lookup(y, d, "exclude_types");
    if (!is_null(ex)) {
        if (ex->type != YAML_SEQUENCE_NODE)
            return fail(y, ex, PK_ERR_FORMAT, P, "exclude_types", "expected a list of pairs");
        for (size_t k = 0; k < seq_len(ex); k++) {
            yaml_node_t *pr = node_at(y, ex->data.sequence.items.start[k]);
            int a, b;
            if (pr->type != YAML_SEQUENCE_NODE || seq_len(pr) != 2 ||
                to_int(y, node_at(y, pr->data.sequence.items.start[0]), P, "exclude_types",
                       &a) ||
                to_int(y, node_at(y, pr->data.sequence.items.start[1]), P, "exclude_types",
                       &b) ||
                a < 0 || b < 0 || a >= m->ntypes || b >= m->ntypes)
                return fail(y, pr, PK_ERR_FORMAT, P, "exclude_types",
                            "entries must be pairs of type indices");
            m->excl[a * m->ntypes + b] = m->excl[b * m->ntypes + a] = 1;
        }
    }

    yaml_node_t *vars;
    const char *VP = "model.descriptor.@variables";
    if (need(y, d, P, "@variables", &vars)) return y->st->code;
    int sd[3] = {m->ntypes, m->nnei, 4}, sd2[3] = {m->ntypes, m->nnei, 4};
    if (get_array(y, vars, VP, "davg", DP_SHAPE_ROWS, 3, sd, 0, &DAVG_RANGE, &m->davg) ||
        get_array(y, vars, VP, "dstd", DP_SHAPE_ROWS, 3, sd2, 0, &DSTD_RANGE, &m->dstd))
        return y->st->code;

    if (parse_collection(y, d, P, "embeddings", m->one_side ? 1 : 2, m->ntypes, 1, &m->emb,
                         &m->nemb))
        return y->st->code;
    for (int k = 0; k < m->nemb; k++)
        if (m->emb[k].nout != m->ng) {
            char path[96];
            snprintf(path, sizeof path, "%s.embeddings.networks[%d]", P, k);
            return fail(y, lookup(y, d, "embeddings"), PK_ERR_FORMAT, path, NULL,
                        "output width differs from the descriptor's last neuron");
        }
    return PK_OK;
}

static pk_code parse_fitting(yctx *y, const yaml_node_t *f, dp_model *m)
{
    const char *P = "model.fitting", *type = "";
    int mixed, nf = 0, na = 0, nce = 0, nnet, dim_out = 1;
    if (get_str(y, f, P, "type", &type)) return y->st->code;
    if (strcmp(type, "ener")) {
        char what[160];
        snprintf(what, sizeof what, "fitting '%s' is not supported (only ener)", type);
        return fail(y, lookup(y, f, "type"), PK_ERR_UNSUPPORTED, P, "type", what);
    }
    if (lookup(y, f, "numb_fparam") && get_int(y, f, P, "numb_fparam", &nf)) return y->st->code;
    if (nf != 0)
        return fail(y, lookup(y, f, "numb_fparam"), PK_ERR_UNSUPPORTED, P, "numb_fparam",
                    "frame parameters are not supported");
    if (lookup(y, f, "numb_aparam") && get_int(y, f, P, "numb_aparam", &na)) return y->st->code;
    if (na != 0)
        return fail(y, lookup(y, f, "numb_aparam"), PK_ERR_UNSUPPORTED, P, "numb_aparam",
                    "atomic parameters are not supported");
    if (lookup(y, f, "dim_case_embd") && get_int(y, f, P, "dim_case_embd", &nce))
        return y->st->code;
    if (nce != 0)
        return fail(y, lookup(y, f, "dim_case_embd"), PK_ERR_UNSUPPORTED, P, "dim_case_embd",
                    "case embeddings (multi-task models) are not supported");
    if (lookup(y, f, "dim_out") && get_int(y, f, P, "dim_out", &dim_out)) return y->st->code;
    if (dim_out != 1)
        return fail(y, lookup(y, f, "dim_out"), PK_ERR_UNSUPPORTED, P, "dim_out",
                    "must be 1 for an energy fitting");
    if (get_bool(y, f, P, "mixed_types", 0, &mixed)) return y->st->code;
    if (mixed)
        return fail(y, lookup(y, f, "mixed_types"), PK_ERR_UNSUPPORTED, P, "mixed_types",
                    "a shared fitting net is not supported");
    if (refuse_unless_empty(y, f, P, "spin") || refuse_unless_empty(y, f, P, "exclude_types") ||
        refuse_unless_empty(y, f, P, "atom_ener") || check_precision(y, f, P, &m->fit_f32))
        return y->st->code;

    yaml_node_t *vars;
    if (need(y, f, P, "@variables", &vars)) return y->st->code;
    int bd[2] = {m->ntypes, 1};
    double *bias;
    if (get_array(y, vars, "model.fitting.@variables", "bias_atom_e", DP_SHAPE_ROWS, 2, bd, 0,
                  &ENERGY_RANGE, &bias))
        return y->st->code;
    for (int t = 0; t < m->ntypes; t++) m->bias[t] += bias[t];
    free(bias);

    if (parse_collection(y, f, P, "nets", 1, m->ntypes, m->ng * m->axis, &m->fit, &nnet))
        return y->st->code;
    for (int t = 0; t < m->ntypes; t++)
        if (m->fit[t].nout != 1) {
            char path[96];
            snprintf(path, sizeof path, "%s.nets.networks[%d]", P, t);
            return fail(y, lookup(y, f, "nets"), PK_ERR_FORMAT, path, NULL,
                        "fitting net must end with one output");
        }
    for (int t = 0; t < m->ntypes; t++)   /* the panels of the batched products */
        if (dp_net_pack(&m->fit[t]) || (m->fit_f32 && dp_net_pack_f(&m->fit[t])))
            return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    return PK_OK;
}

static pk_code parse_model(yctx *y, const yaml_node_t *root, dp_model *m)
{
    yaml_node_t *mod, *tm, *d, *f, *vars;
    const char *type = "";
    if (need(y, root, "", "model", &mod)) return y->st->code;
    if (get_str(y, mod, "model", "type", &type)) return y->st->code;
    if (strcmp(type, "standard")) {
        char what[160];
        snprintf(what, sizeof what, "model type '%s' is not supported (only standard)", type);
        return fail(y, lookup(y, mod, "type"), PK_ERR_UNSUPPORTED, "model", "type", what);
    }
    if (refuse_unless_empty(y, mod, "model", "atom_exclude_types") ||
        refuse_unless_empty(y, mod, "model", "pair_exclude_types") ||
        refuse_unless_empty(y, mod, "model", "spin"))
        return y->st->code;
    if (get_seq(y, mod, "model", "type_map", &tm)) return y->st->code;
    m->ntypes = (int)seq_len(tm);
    if (m->ntypes == 0) return fail(y, tm, PK_ERR_FORMAT, "model", "type_map", "is empty");
    if (m->ntypes > DP_NTYPES_MAX) {
        char what[96];
        snprintf(what, sizeof what, "has %d names, at most %d are supported", m->ntypes,
                 DP_NTYPES_MAX);
        return fail(y, tm, PK_ERR_FORMAT, "model", "type_map", what);
    }
    m->type_map = calloc((size_t)m->ntypes, sizeof(char *));
    m->bias = calloc((size_t)m->ntypes, sizeof(double));
    if (!m->type_map || !m->bias)
        return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    for (int t = 0; t < m->ntypes; t++) {
        const char *s = scalar(node_at(y, tm->data.sequence.items.start[t]));
        if (!s) return fail(y, tm, PK_ERR_FORMAT, "model", "type_map", "expected names");
        if (!(m->type_map[t] = dup_str(s)))
            return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    }
    if (need(y, mod, "model", "descriptor", &d) || parse_descriptor(y, d, m)) return y->st->code;
    if (need(y, mod, "model", "fitting", &f) || parse_fitting(y, f, m)) return y->st->code;

    /* out_bias (nout x ntypes x size, the energy's at [0][t][0]) is added to atomic
     * energies; out_std is not applied, only checked (a non-finite entry means a broken
     * file). */
    if (need(y, mod, "model", "@variables", &vars)) return y->st->code;
    if (lookup(y, vars, "out_bias")) {
        int od[3] = {1, m->ntypes, 1};
        double *ob;
        if (get_array(y, vars, "model.@variables", "out_bias", DP_SHAPE_STAT, 3, od, 1,
                      &ENERGY_RANGE, &ob))
            return y->st->code;
        for (int t = 0; ob && t < m->ntypes; t++) m->bias[t] += ob[t];
        free(ob);
    }
    if (lookup(y, vars, "out_std")) {
        int sd[3] = {1, m->ntypes, 1};
        double *os;
        if (get_array(y, vars, "model.@variables", "out_std", DP_SHAPE_STAT, 3, sd, 1,
                      &ANY_FINITE, &os))
            return y->st->code;
        free(os);
    }
    return PK_OK;
}

pk_code dp_model_build(dp_model *m, yaml_document_t *doc, const char *file, int has_lines,
                       dp_array_fn arrays, void *actx, pk_status *st)
{
    yctx y = {.doc = doc, .file = file, .has_lines = has_lines, .arrays = arrays,
              .actx = actx, .st = st};
    memset(m, 0, sizeof *m);
    yaml_node_t *root = yaml_document_get_root_node(doc);
    pk_code c = root ? parse_model(&y, root, m)
                     : pk_fail(st, PK_ERR_FORMAT, "%s: the model is empty", file);
    if (c) dp_model_free(m);
    return c;
}

pk_code dp_model_read_yaml(dp_model *m, const char *path, pk_status *st)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    FILE *fp = fopen(path, "rb");
    memset(m, 0, sizeof *m);
    if (!fp) return pk_fail(st, PK_ERR_FILE, "%s: cannot open the model file", path);
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        return pk_fail(st, PK_ERR_MEMORY, "%s: cannot initialise the YAML parser", path);
    }
    yaml_parser_set_input_file(&parser, fp);
    pk_code c;
    if (!yaml_parser_load(&parser, &doc)) {
        c = pk_fail_at(st, PK_ERR_FORMAT, path, (int)parser.problem_mark.line + 1,
                       "malformed YAML: %s", parser.problem ? parser.problem : "unknown error");
    } else {
        c = dp_model_build(m, &doc, path, 1, NULL, NULL, st);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(fp);
    return c;
}

void dp_model_free(dp_model *m)
{
    for (int t = 0; m->type_map && t < m->ntypes; t++) free(m->type_map[t]);
    free(m->type_map);
    for (int k = 0; m->emb && k < m->nemb; k++) dp_net_free(&m->emb[k]);
    free(m->emb);
    for (int t = 0; m->fit && t < m->ntypes; t++) dp_net_free(&m->fit[t]);
    free(m->fit);
    free(m->sel);
    free(m->sec);
    free(m->excl);
    free(m->davg);
    free(m->dstd);
    free(m->bias);
    memset(m, 0, sizeof *m);
}
