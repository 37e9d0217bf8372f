/* Issue 19: arrays stored in other shapes than DeePMD-kit writes them, such as the 1 x n
 * biases of models converted from TensorFlow checkpoints. Every shape that DeePMD-kit reads
 * the same way (the rules are in deepmd_model.c, dp_shape) must load and give bitwise the
 * energy, forces and virial of the unmodified reference model; a shape DeePMD-kit cannot use
 * must be refused with a message naming the file, the line, the key and both shapes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_run.h"
#include "pk_test.h"

static const char *PATH = "deepmd_shaped_model.yaml";

/* Two water molecules 3 A apart (O, H, H, O, H, H). */
static const double X[18] = {12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                             3.36,  3.00, 1.81, 3.51,  2.51, 2.60, 4.27, 3.22, 1.56};
static const int TYPE[6] = {1, 2, 2, 1, 2, 2};

/* Write model with [at, end) replaced by `to`. */
static void write_range(const char *model, const char *at, const char *end, const char *to)
{
    FILE *fp = fopen(PATH, "wb");
    fwrite(model, 1, (size_t)(at - model), fp);
    fputs(to, fp);
    fputs(end, fp);
    fclose(fp);
}

/* Write model with the first `from` after `anchor` replaced by `to`. */
static int write_edit(const char *model, const char *anchor, const char *from, const char *to)
{
    const char *a = strstr(model, anchor);
    const char *at = a ? strstr(a, from) : NULL;
    PK_CHECK(at != NULL, "test setup: '%s' after '%s' not in the model", from, anchor);
    if (at) write_range(model, at, at + strlen(from), to);
    return at != NULL;
}

/* Write the model with the block-style list that follows the first "value:\n" after anchor
 * stored as a flow list of shape dims (rank nd). The numbers are copied as text, so they
 * parse to the same doubles. */
static int write_shaped(const char *model, const char *anchor, int nd, const int *dims)
{
    static char text[65536];
    static const char *num[4096];
    static int numlen[4096];
    const char *v = strstr(strstr(model, anchor), "value:\n"), *p = v + 7;
    int indent = 0, n = 0, count = 1;
    while (v[-1 - indent] == ' ') indent++;
    for (;;) {   /* lines indented deeper than "value:" end with "- <number>" */
        int d = 0;
        while (p[d] == ' ') d++;
        if (d <= indent || n == 4096) break;
        const char *eol = strchr(p, '\n');
        num[n] = p;
        for (const char *c = p; c < eol; c++)
            if (c[0] == '-' && c[1] == ' ') num[n] = c + 2;
        numlen[n] = (int)(eol - num[n]);
        n++;
        p = eol + 1;
    }
    for (int k = 0; k < nd; k++) count *= dims[k];
    PK_CHECK(n == count, "test setup: %d numbers after '%s', the shape has %d", n, anchor,
             count);
    if (n != count) return 0;
    size_t w = (size_t)snprintf(text, sizeof text, "value: ");
    for (int k = 0; k < n; k++) {
        int stride = count;   /* a bracket opens for each dimension starting at element k */
        for (int d = 0; d < nd; d++) {
            if (k % stride == 0) w += (size_t)snprintf(text + w, sizeof text - w, "[");
            stride /= dims[d];
        }
        w += (size_t)snprintf(text + w, sizeof text - w, "%.*s", numlen[k], num[k]);
        stride = 1;           /* and closes for each dimension ending there */
        for (int d = nd - 1; d >= 0; d--) {
            stride *= dims[d];
            if ((k + 1) % stride == 0) w += (size_t)snprintf(text + w, sizeof text - w, "]");
        }
        w += (size_t)snprintf(text + w, sizeof text - w, k + 1 < n ? ", " : "\n");
    }
    write_range(model, v, p, text);
    return 1;
}

static void run(const char *path, dp_result *r, pk_status *st, pk_code *c)
{
    dp_sys s;
    dp_sys_build(&s, 6, X, TYPE, NULL, 6.5);
    pk_deepmd *dp = dp_load_path(path, 0, 0, st);
    *c = dp ? dp_run(dp, &s, r, st) : st->code;
    pk_deepmd_destroy(dp);
    dp_sys_free(&s);
}

/* The written model loads and gives bitwise the reference results. */
static void same(const dp_result *ref, const char *what)
{
    dp_result r = {0};
    pk_status st;
    pk_code c;
    run(PATH, &r, &st, &c);
    PK_CHECK(c == PK_OK, "%s: %s", what, st.msg);
    if (c == PK_OK) {
        PK_CHECK(r.energy == ref->energy && !memcmp(r.f, ref->f, sizeof(double) * 18) &&
                     !memcmp(r.virial, ref->virial, sizeof r.virial),
                 "%s: energy %.17g vs %.17g, or forces/virial differ", what, r.energy,
                 ref->energy);
        printf("loads, same results: %s\n", what);
    }
    dp_result_free(&r);
    remove(PATH);
}

/* The written model is refused with a message holding each piece. */
static void refused(const char *what, const char *p1, const char *p2, const char *p3)
{
    pk_status st;
    pk_deepmd *dp = pk_deepmd_load(PATH, NULL, &st);
    PK_CHECK(dp == NULL && st.code == PK_ERR_FORMAT, "%s: loads (code %d)", what, st.code);
    PK_CHECK(strstr(st.msg, PATH) && strstr(st.msg, p1) && strstr(st.msg, p2) &&
                 strstr(st.msg, p3), "%s: message '%s' lacks '%s', '%s' or '%s'", what, st.msg,
             p1, p2, p3);
    printf("refused: %s: %s\n", what, st.msg);
    pk_deepmd_destroy(dp);
    remove(PATH);
}

int main(void)
{
    const char *ref_path = dp_shared_path("reference/deepmd/deeppot_sea.yaml");
    char *m = pk_test_slurp(ref_path);
    PK_CHECK(m != NULL, "cannot read the reference model");
    if (!m) return pk_test_finish();
    dp_result ref = {0};
    pk_status st;
    pk_code c;
    run(ref_path, &ref, &st, &c);
    PK_CHECK(c == PK_OK, "reference model: %s", st.msg);
    if (c) return pk_test_finish();

    /* The first embedding layer's b (3 values), the first fitting layer with idt (b and idt
     * of 10 values), davg and dstd (2 x 138 x 4), bias_atom_e (2 x 1). */
    const char *FB = "              \"@variables\":\n"
                     "                b:\n                  \"@class\": np.ndarray\n"
                     "                  \"@is_variable\": true\n                  \"@version\": 1\n"
                     "                  dtype: float64\n                  value:\n"
                     "                    - 0.6163330784017647";
    static const struct { const char *what, *anchor; int nd, dims[4]; } ok[] = {
        {"embedding b as 1 x 3", "                b:\n", 2, {1, 3}},
        {"embedding b as 3 x 1", "                b:\n", 2, {3, 1}},
        {"embedding b as 1 x 1 x 3", "                b:\n", 3, {1, 1, 3}},
        {"fitting b as 1 x 10", NULL, 2, {1, 10}},
        {"fitting b as 2 x 5 (DeePMD-kit ravels b)", NULL, 2, {2, 5}},
        {"idt as 1 x 10", "                idt:\n                  \"@class\"", 2, {1, 10}},
        {"idt as 10 x 1", "                idt:\n                  \"@class\"", 2, {10, 1}},
        {"davg as 2 x 138 x 4 x 1", "      davg:\n", 4, {2, 138, 4, 1}},
        {"davg as 2 x 1 x 138 x 4", "      davg:\n", 4, {2, 1, 138, 4}},
        {"dstd as 2 x 552", "      dstd:\n", 2, {2, 552}},
        {"bias_atom_e as 2", "      bias_atom_e:\n", 1, {2}},
        {"bias_atom_e as 2 x 1 x 1", "      bias_atom_e:\n", 3, {2, 1, 1}},
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
        if (write_shaped(m, ok[k].anchor ? ok[k].anchor : FB, ok[k].nd, ok[k].dims))
            same(&ref, ok[k].what);

    /* out_bias and out_std with more outputs and sizes: DeePMD-kit uses [0][t][0]. */
    if (write_edit(m, "    out_bias:\n", "value:\n        - - - 0.0\n          - - 0.0\n",
                   "value: [[[0.0, 5.0], [0.0, 5.0]], [[7.0, 7.0], [7.0, 7.0]]]\n"))
        same(&ref, "out_bias as 2 x 2 x 2");
    if (write_edit(m, "    out_std:\n", "value:\n        - - - 1.0\n          - - 1.0\n",
                   "value: [[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]]\n"))
        same(&ref, "out_std as 1 x 2 x 3");

    /* Shapes DeePMD-kit cannot use. */
    if (write_shaped(m, "      davg:\n", 3, (int[]){1, 276, 4}))
        refused("davg as 1 x 276 x 4", ":32: model.descriptor.@variables.davg: ",
                "has shape [1, 276, 4]", "expected 2 rows (one per type) of 552 elements");
    if (write_shaped(m, "      bias_atom_e:\n", 2, (int[]){1, 2}))
        refused("bias_atom_e as 1 x 2", "model.fitting.@variables.bias_atom_e: ",
                "has shape [1, 2]", "expected 2 rows");
    if (write_edit(m, "                b:\n", "\n                    - -0.4665052129042189", ""))
        refused("embedding b of 2 values", ":2270: model.descriptor.embeddings.networks[0]"
                ".layers[0].@variables.b: ", "has shape [2] (2 elements)",
                "expected 3 elements");
    if (write_edit(m, "    out_bias:\n", "value:\n        - - - 0.0\n          - - 0.0\n",
                   "value: [[0.0], [0.0]]\n"))
        refused("out_bias as 2 x 1", "model.@variables.out_bias: ", "has shape [2, 1]",
                "expected 3 dimensions with 2 (one per type) in the second");
    dp_result_free(&ref);
    free(m);
    return pk_test_finish();
}
