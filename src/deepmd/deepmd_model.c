/* DeePMD-kit v3 serialized models (what `dp convert-backend` writes) -> dp_model.
 *
 * The model is a nested dict: model -> {type: standard, type_map, descriptor, fitting,
 * @variables: {out_bias, out_std}}. In .yaml, arrays are {"@class": np.ndarray, dtype,
 * value: nested lists}; in .dp (deepmd_dp.c) the same dict is JSON and each array is the
 * name of an HDF5 dataset. Both arrive here as a libyaml document. Only what the se_e2_a +
 * ener model needs is read; anything that would change the physics and is not implemented
 * is refused with the key that asks for it. Every error names the file, the key path and,
 * for YAML, the line (libyaml marks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_doc.h"

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

static pk_code to_double(yctx *y, const yaml_node_t *n, const char *path, const char *key,
                         double *out)
{
    const char *s = scalar(n);
    char *end;
    if (!s) return fail(y, n, PK_ERR_FORMAT, path, key, "expected a number");
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

/* Read an np.ndarray of nd dimensions. dims[k] > 0 are required sizes, dims[k] <= 0 are
 * inferred and returned. A null value gives *out = NULL when allow_null. */
static pk_code get_array(yctx *y, const yaml_node_t *map, const char *path, const char *key,
                         int nd, int *dims, int allow_null, double **out)
{
    yaml_node_t *a, *v;
    const char *cls = "";
    *out = NULL;
    if (need(y, map, path, key, &a)) return y->st->code;
    if (is_null(a)) {
        if (allow_null) return PK_OK;
        return fail(y, a, PK_ERR_FORMAT, path, key, "is null, an array is needed");
    }
    if (scalar(a) && y->arrays) {
        char why[256] = "";
        pk_code c = y->arrays(y->actx, scalar(a), nd, dims, out, why, sizeof why);
        return c ? fail(y, a, c, path, key, why) : PK_OK;
    }
    if (get_str(y, a, path, "@class", &cls)) return y->st->code;
    if (strcmp(cls, "np.ndarray"))
        return fail(y, a, PK_ERR_FORMAT, path, key, "expected an np.ndarray");
    if (need(y, a, path, "value", &v)) return y->st->code;
    int got[8] = {0};
    int gd = infer_shape(y, v, got, 8);
    if (gd != nd) {
        char what[128];
        snprintf(what, sizeof what, "expected a %d-dimensional array, found %d dimensions",
                 nd, gd);
        return fail(y, v, PK_ERR_FORMAT, path, key, what);
    }
    size_t count = 1;
    for (int k = 0; k < nd; k++) {
        if (dims[k] > 0 && dims[k] != got[k]) {
            char what[160];
            snprintf(what, sizeof what, "dimension %d has %d elements, expected %d", k, got[k],
                     dims[k]);
            return fail(y, v, PK_ERR_FORMAT, path, key, what);
        }
        dims[k] = got[k];
        count *= (size_t)got[k];
    }
    *out = malloc(sizeof(double) * (count ? count : 1));
    if (!*out) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    double *p = *out;
    if (fill(y, v, dims, nd, &p, path, key)) {
        free(*out);
        *out = NULL;
        return y->st->code;
    }
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
        if (get_array(y, vars, vp, "w", 2, wd, 0, &ly->w)) return y->st->code;
        ly->nin = wd[0];
        ly->nout = wd[1];
        if (!(ly->wt = malloc(sizeof(double) * ((size_t)ly->nin * ly->nout + 1))))
            return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
        for (int k = 0; k < ly->nin; k++)
            for (int o = 0; o < ly->nout; o++)
                ly->wt[(size_t)o * ly->nin + k] = ly->w[(size_t)k * ly->nout + o];
        int bd[1] = {ly->nout}, id[1] = {ly->nout};
        if (get_array(y, vars, vp, "b", 1, bd, 1, &ly->b)) return y->st->code;
        if (lookup(y, vars, "idt") && get_array(y, vars, vp, "idt", 1, id, 1, &ly->idt))
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

static pk_code check_precision(yctx *y, const yaml_node_t *map, const char *path)
{
    yaml_node_t *n = lookup(y, map, "precision");
    const char *s = scalar(n);
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
    if (check_precision(y, d, P)) return y->st->code;
    if (get_double(y, d, P, "rcut", &m->rcut)) return y->st->code;
    if (get_double(y, d, P, "rcut_smth", &m->rcut_smth)) return y->st->code;
    if (!(m->rcut > 0) || !(m->rcut_smth < m->rcut))
        return fail(y, lookup(y, d, "rcut"), PK_ERR_FORMAT, P, "rcut",
                    "need 0 < rcut and rcut_smth < rcut");
    m->protection = 0.0;
    if (lookup(y, d, "env_protection") &&
        get_double(y, d, P, "env_protection", &m->protection))
        return y->st->code;
    if (get_int_list(y, d, P, "sel", &m->sel, &nsel)) return y->st->code;
    if (nsel != m->ntypes)
        return fail(y, lookup(y, d, "sel"), PK_ERR_FORMAT, P, "sel",
                    "needs one entry per type of type_map");
    m->sec = calloc((size_t)m->ntypes + 1, sizeof(int));
    if (!m->sec) return pk_fail(y->st, PK_ERR_MEMORY, "out of memory reading %s", y->file);
    for (int t = 0; t < m->ntypes; t++) {
        if (m->sel[t] < 0)
            return fail(y, lookup(y, d, "sel"), PK_ERR_FORMAT, P, "sel", "negative entry");
        m->sec[t + 1] = m->sec[t] + m->sel[t];
    }
    m->nnei = m->sec[m->ntypes];
    if (m->nnei == 0)
        return fail(y, lookup(y, d, "sel"), PK_ERR_FORMAT, P, "sel", "sums to zero");

    int *neuron, nneuron;
    if (get_int_list(y, d, P, "neuron", &neuron, &nneuron)) return y->st->code;
    m->ng = nneuron > 0 ? neuron[nneuron - 1] : 0;
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
    if (get_array(y, vars, VP, "davg", 3, sd, 0, &m->davg)) return y->st->code;
    if (get_array(y, vars, VP, "dstd", 3, sd2, 0, &m->dstd)) return y->st->code;
    for (size_t k = 0; k < (size_t)m->ntypes * m->nnei * 4; k++)
        if (!(m->dstd[k] > 0.0))
            return fail(y, lookup(y, vars, "dstd"), PK_ERR_FORMAT, VP, "dstd",
                        "has an entry that is not positive");

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
        refuse_unless_empty(y, f, P, "atom_ener") || check_precision(y, f, P))
        return y->st->code;

    yaml_node_t *vars;
    if (need(y, f, P, "@variables", &vars)) return y->st->code;
    int bd[2] = {m->ntypes, 1};
    double *bias;
    if (get_array(y, vars, "model.fitting.@variables", "bias_atom_e", 2, bd, 0, &bias))
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

    /* out_bias (1 x ntypes x 1) is added to atomic energies; out_std is not applied. */
    if (need(y, mod, "model", "@variables", &vars)) return y->st->code;
    if (lookup(y, vars, "out_bias")) {
        int od[3] = {1, m->ntypes, 1};
        double *ob;
        if (get_array(y, vars, "model.@variables", "out_bias", 3, od, 1, &ob))
            return y->st->code;
        for (int t = 0; ob && t < m->ntypes; t++) m->bias[t] += ob[t];
        free(ob);
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
