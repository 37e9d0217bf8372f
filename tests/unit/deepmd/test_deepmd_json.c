/* The .dp model dict without HDF5: JSON text through dp_doc_from_json (cJSON) into the model
 * builder, with arrays served by name from memory as the HDF5 datasets would be. Checks
 * that syntax errors give the byte offset, line, column and the text around it; that the
 * conversion keeps strings (escapes decoded), numbers and booleans; and that arrays loaded by
 * name get the same value checks as YAML ones (file, key path with indices, value). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_doc.h"
#include "pk_test.h"

static const char *FILE_NAME = "model.dp";

/* One type, sel 4, a 1 -> 2 embedding layer, axis 1, a 2 -> 1 linear fitting layer. RCUT is
 * replaced by the rcut text of each case. */
static const char *MODEL =
    "{\"model\": {\"type\": \"standard\", \"type_map\": [\"O\\u0048\"],\n"
    " \"descriptor\": {\"type\": \"se_e2_a\", \"rcut\": RCUT, \"rcut_smth\": 0.5, \"sel\": [4],"
    " \"neuron\": [2], \"axis_neuron\": 1, \"type_one_side\": true, \"exclude_types\": [],"
    " \"env_protection\": 0.0,\n"
    "  \"@variables\": {\"davg\": \"/davg\", \"dstd\": \"/dstd\"},\n"
    "  \"embeddings\": {\"ndim\": 1, \"networks\": [{\"layers\": [{\"@variables\":"
    " {\"w\": \"/ew\", \"b\": \"/eb\", \"idt\": null}, \"activation_function\": \"tanh\","
    " \"resnet\": false}]}]}},\n"
    " \"fitting\": {\"type\": \"ener\", \"numb_fparam\": 0, \"@variables\": {\"bias_atom_e\":"
    " \"/bias\"},\n"
    "  \"nets\": {\"ndim\": 1, \"networks\": [{\"layers\": [{\"@variables\": {\"w\": \"/fw\","
    " \"b\": \"/fb\"}, \"activation_function\": \"none\", \"resnet\": false}]}]}},\n"
    " \"@variables\": {\"out_bias\": \"/out_bias\", \"out_std\": \"/out_std\"}}}\n";

/* The datasets: name, shape, value of every element; `bad` gets bad_value at element
 * bad_index; `shaped` is stored with shape dims (rank nd) instead of its own. */
typedef struct {
    const char *bad;
    size_t bad_index;
    double bad_value;
    const char *shaped;
    int nd, dims[3];
} arrays;

/* Serves the stored shape whatever the builder hints at, as the HDF5 reader does. */
static pk_code serve(void *ctx, const char *name, int *nd, int *dims, double **out, char *why,
                     size_t whylen)
{
    static const struct { const char *name; int nd, dims[3]; double v; } sets[] = {
        {"/davg", 3, {1, 4, 4}, 0.1},  {"/dstd", 3, {1, 4, 4}, 0.5}, {"/ew", 2, {1, 2}, 0.3},
        {"/eb", 1, {2}, 0.1},          {"/fw", 2, {2, 1}, 0.7},      {"/fb", 1, {1}, 0.2},
        {"/bias", 2, {1, 1}, -93.5},   {"/out_bias", 3, {1, 1, 1}, 0.0},
        {"/out_std", 3, {1, 1, 1}, 1.0},
    };
    const arrays *a = ctx;
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        if (strcmp(name, sets[s].name)) continue;
        const int reshaped = a->shaped && !strcmp(a->shaped, name);
        size_t count = 1;
        *nd = reshaped ? a->nd : sets[s].nd;
        for (int k = 0; k < *nd; k++) {
            dims[k] = reshaped ? a->dims[k] : sets[s].dims[k];
            count *= (size_t)dims[k];
        }
        *out = malloc(sizeof(double) * count);
        for (size_t k = 0; k < count; k++) (*out)[k] = sets[s].v;
        if (a->bad && !strcmp(a->bad, name)) (*out)[a->bad_index] = a->bad_value;
        return PK_OK;
    }
    snprintf(why, whylen, "no dataset '%s' in the file", name);
    return PK_ERR_FORMAT;
}

/* Build the model with rcut text `rcut` and the arrays of a: code of the first failing step,
 * the model kept in *m on success. */
static pk_code build(const char *rcut, const arrays *a, dp_model *m, pk_status *st)
{
    char text[2048];
    const char *at = strstr(MODEL, "RCUT");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - MODEL), MODEL, rcut, at + 4);
    yaml_document_t doc;
    pk_code c = dp_doc_from_json(&doc, text, strlen(text), FILE_NAME, st);
    if (c) return c;
    c = dp_model_build(m, &doc, FILE_NAME, 0, serve, (void *)a, st);
    yaml_document_delete(&doc);
    return c;
}

static void good_model(void)
{
    dp_model m;
    pk_status st;
    arrays none = {0};
    pk_code c = build("4.25", &none, &m, &st);
    PK_CHECK(c == PK_OK, "%s", st.msg);
    if (c) return;
    PK_CHECK(m.ntypes == 1 && !strcmp(m.type_map[0], "OH"), "type_map[0] '%s'", m.type_map[0]);
    PK_CHECK(m.rcut == 4.25 && m.rcut_smth == 0.5 && m.nnei == 4 && m.ng == 2 && m.axis == 1 &&
                 m.one_side == 1, "descriptor parameters");
    PK_CHECK(m.emb[0].layer[0].w[1] == 0.3 && m.fit[0].layer[0].b[0] == 0.2 &&
                 m.bias[0] == -93.5 && m.dstd[15] == 0.5, "arrays");
    dp_model_free(&m);
}

/* A bad number reaching the builder: code, and the message names the file, key and value. */
static void bad_value(const char *rcut, const arrays *a, const char *key, const char *value)
{
    dp_model m;
    pk_status st;
    pk_code c = build(rcut, a, &m, &st);
    PK_CHECK(c == PK_ERR_FORMAT, "%s: code %d (%s)", key, c, st.msg);
    char want[400];
    snprintf(want, sizeof want, "%s: %s: value %s", FILE_NAME, key, value);
    PK_CHECK(strstr(st.msg, want) != NULL, "message '%s' lacks '%s'", st.msg, want);
}

/* Datasets stored in other shapes (issue 19): those DeePMD-kit reads the same way load with
 * the same values (deepmd_model.c, dp_shape); a wrong one is refused naming the shapes. */
static void shapes(void)
{
    static const arrays same[] = {
        {.shaped = "/eb", .nd = 2, .dims = {1, 2}},  {.shaped = "/eb", .nd = 2, .dims = {2, 1}},
        {.shaped = "/fb", .nd = 3, .dims = {1, 1, 1}}, {.shaped = "/fb", .nd = 0},
        {.shaped = "/davg", .nd = 2, .dims = {1, 16}}, {.shaped = "/bias", .nd = 1, .dims = {1}},
        {.shaped = "/out_bias", .nd = 3, .dims = {2, 1, 3}},
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        dp_model m;
        pk_status st;
        pk_code c = build("4.25", &same[k], &m, &st);
        PK_CHECK(c == PK_OK, "%s stored with rank %d: %s", same[k].shaped, same[k].nd, st.msg);
        if (c) continue;
        PK_CHECK(m.emb[0].layer[0].b[1] == 0.1 && m.fit[0].layer[0].b[0] == 0.2 &&
                     m.bias[0] == -93.5 && m.davg[15] == 0.1, "%s: values", same[k].shaped);
        dp_model_free(&m);
    }
    dp_model m;
    pk_status st;
    pk_code c = build("4.25", &(arrays){.shaped = "/eb", .nd = 2, .dims = {1, 3}}, &m, &st);
    PK_CHECK(c == PK_ERR_FORMAT && strstr(st.msg, "model.dp: ") &&
                 strstr(st.msg, "layers[0].@variables.b: has shape [1, 3] (3 elements), "
                        "expected 2 elements"), "1 x 3 bias of a 2-wide layer: %s", st.msg);
    c = build("4.25", &(arrays){.shaped = "/out_bias", .nd = 2, .dims = {1, 1}}, &m, &st);
    PK_CHECK(c == PK_ERR_FORMAT && strstr(st.msg, "model.@variables.out_bias: has shape "
                                          "[1, 1], expected 3 dimensions"), "%s", st.msg);
}

static void bad_values(void)
{
    const char *L0 = "model.descriptor.embeddings.networks[0].layers[0].@variables";
    char key[200];
    bad_value("4", &(arrays){.bad = "/dstd", .bad_index = 6, .bad_value = 0.0},
              "model.descriptor.@variables.dstd[0][1][2]", "0 is outside [0.0001, 10000]");
    bad_value("4", &(arrays){.bad = "/davg", .bad_index = 0, .bad_value = 1e308},
              "model.descriptor.@variables.davg[0][0][0]", "1e+308 is outside [-10000, 10000]");
    snprintf(key, sizeof key, "%s.w[0][1]", L0);
    bad_value("4", &(arrays){.bad = "/ew", .bad_index = 1, .bad_value = NAN}, key,
              "nan is not finite");
    bad_value("4", &(arrays){.bad = "/fb", .bad_index = 0, .bad_value = INFINITY},
              "model.fitting.nets.networks[0].layers[0].@variables.b[0]", "inf is not finite");
    bad_value("4", &(arrays){.bad = "/out_bias", .bad_index = 0, .bad_value = -2e7},
              "model.@variables.out_bias[0][0][0]", "-2e+07 is outside [-1e+07, 1e+07]");
    bad_value("4", &(arrays){.bad = "/out_std", .bad_index = 0, .bad_value = NAN},
              "model.@variables.out_std[0][0][0]", "nan is not finite");
    /* JSON numbers beyond double range: cJSON reads inf, the range check names it. */
    bad_value("1e400", &(arrays){0}, "model.descriptor.rcut", "inf is not finite");
    bad_value("-4", &(arrays){0}, "model.descriptor.rcut", "-4 is outside [0, 50]");
}

/* Malformed text: the message names the file, the byte, line and column, the text around
 * the error (marked >>) and, where it applies, why. */
static void syntax(const char *text, const char *where, const char *piece)
{
    yaml_document_t doc;
    pk_status st;
    pk_code c = dp_doc_from_json(&doc, text, strlen(text), FILE_NAME, &st);
    PK_CHECK(c == PK_ERR_FORMAT, "'%s': code %d", text, c);
    if (c == PK_OK) yaml_document_delete(&doc);
    PK_CHECK(strstr(st.msg, FILE_NAME) && strstr(st.msg, where) && strstr(st.msg, piece),
             "message '%s' lacks '%s' or '%s'", st.msg, where, piece);
}

static void syntax_errors(void)
{
    /* cJSON's error pointer is where it gave up: the byte after a stray '}', the start of
     * the value that a truncated text leaves unfinished. */
    syntax("{\"model\": {\"rcut\": 6.0,}}", "at byte 24 (line 1, column 25)", "6.0,}>>}");
    syntax("{\"model\":\n {\"rcut\": NaN}}", "at byte 20 (line 2, column 11)",
           "a non-finite number");
    syntax("{\"a\": [1, -Infinity]}", "at byte 10", "a non-finite number");
    syntax("{\"model\": {\"rcut\": 6", "at byte 19", "\"rcut\": >>6\"");
    syntax("{\"model\": {}} x", "at byte 14 (line 1, column 15)", "{}} >>x");
    syntax("", "at byte 0", "truncated?");
    /* The length bounds the text: no NUL needed, nothing read beyond it. */
    yaml_document_t doc;
    pk_status st;
    const char whole[] = "[1, 2]garbage";
    pk_code c = dp_doc_from_json(&doc, whole, 6, FILE_NAME, &st);
    PK_CHECK(c == PK_OK, "%s", st.msg);
    if (c == PK_OK) {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        PK_CHECK(root && root->type == YAML_SEQUENCE_NODE &&
                     root->data.sequence.items.top - root->data.sequence.items.start == 2,
                 "[1, 2] is not a list of two");
        yaml_document_delete(&doc);
    }
}

int main(void)
{
    good_model();
    bad_values();
    shapes();
    syntax_errors();
    return pk_test_finish();
}
