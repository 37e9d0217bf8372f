/* Bad input and edge cases of deepmd/pk: each error must say what is wrong and where
 * (file, line, key). Also: neighbour overflow beyond sel is counted, and a neighbour
 * closer than the table is a PK_ERR_RANGE naming the atom and the distance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_run.h"
#include "pk_test.h"

/* Write the model with the first occurrence of `from` replaced by `to`, then load it and
 * check the code and that the message contains each of the expected pieces. */
static void expect(const char *model, const char *from, const char *to, pk_code code,
                   const char *piece1, const char *piece2)
{
    const char *path = "deepmd_bad_model.yaml";
    const char *at = strstr(model, from);
    PK_CHECK(at != NULL, "test setup: '%s' not in the model", from);
    if (!at) return;
    FILE *fp = fopen(path, "wb");
    fwrite(model, 1, (size_t)(at - model), fp);
    fputs(to, fp);
    fputs(at + strlen(from), fp);
    fclose(fp);
    pk_status st;
    pk_deepmd *dp = pk_deepmd_load(path, NULL, &st);
    PK_CHECK(dp == NULL && st.code == code, "'%s' -> '%s': code %d, want %d (%s)", from, to,
             st.code, code, st.msg);
    PK_CHECK(strstr(st.msg, path) && strstr(st.msg, piece1) && strstr(st.msg, piece2),
             "message '%s' lacks '%s' or '%s'", st.msg, piece1, piece2);
    pk_deepmd_destroy(dp);
    remove(path);
}

/* A number replaced by a non-finite or absurd one: the error must name the file, the line
 * of the value (that of `from`), the key path with the element's indices, and the value. */
static void expect_value(const char *model, const char *from, const char *to,
                         const char *key, const char *value)
{
    const char *at = strstr(model, from);
    int line = 1;
    for (const char *c = model; at && c < at; c++) line += *c == '\n';
    for (size_t k = 0; from[k] && from[k] == to[k]; k++) line += from[k] == '\n';
    char where[300], what[120];
    snprintf(where, sizeof where, ":%d: %s: ", line, key);
    snprintf(what, sizeof what, "value %s", value);
    expect(model, from, to, PK_ERR_FORMAT, where, what);
}

/* Issue 20: non-finite weights and statistics, absurd parameters. deeppot_sea.yaml's first
 * embedding layer has w = [[0.448.., -0.818.., -0.321..]], b = [-0.913.., ...]; davg and dstd
 * start with 0.0503.. and 0.1398..; out_bias is all 0.0 (the first value in the file). */
static void bad_values(const char *m)
{
    const char *L0 = "model.descriptor.embeddings.networks[0].layers[0].@variables";
    char key[200];
    snprintf(key, sizeof key, "%s.w[0][0]", L0);
    expect_value(m, "- - 0.4480607783689787", "- - .nan", key, "nan");
    snprintf(key, sizeof key, "%s.w[0][1]", L0);
    expect_value(m, "- -0.8184588710236892", "- nan", key, "nan");
    snprintf(key, sizeof key, "%s.b[0]", L0);
    expect_value(m, "- -0.9135780953141011", "- -.inf", key, "-inf");
    expect_value(m, "- - - 0.05033023990415701", "- - - 1e308",
                 "model.descriptor.@variables.davg[0][0][0]", "1e+308 is outside [-10000, 10000]");
    expect_value(m, "- - - 0.13983584883542127", "- - - 0",
                 "model.descriptor.@variables.dstd[0][0][0]", "0 is outside [0.0001, 10000]");
    expect_value(m, "- 0.08580324224912261", "- 1e308",
                 "model.descriptor.@variables.dstd[0][0][1]", "1e+308 is outside");
    expect_value(m, "value:\n        - - - 0.0", "value:\n        - - - 1e308",
                 "model.@variables.out_bias[0][0][0]", "1e+308 is outside [-1e+07, 1e+07]");
    expect_value(m, "          - - 1.0\n", "          - - .inf\n",
                 "model.@variables.out_std[0][1][0]", "inf is not finite");
    expect_value(m, "- - -93.57372029622398", "- - 1e400",
                 "model.fitting.@variables.bias_atom_e[0][0]", "inf is not finite");
    expect_value(m, "    rcut: 6.0\n    rcut_smth: 0.5\n    resnet_dt",
                 "    rcut: -6.0\n    rcut_smth: 0.5\n    resnet_dt", "model.descriptor.rcut",
                 "-6 is outside [0, 50]");
    expect_value(m, "    rcut: 6.0\n    rcut_smth: 0.5\n    resnet_dt",
                 "    rcut: 6.0\n    rcut_smth: .nan\n    resnet_dt", "model.descriptor.rcut_smth",
                 "nan is not finite");
    expect(m, "    rcut: 6.0\n    rcut_smth: 0.5\n    resnet_dt",
           "    rcut: 6.0\n    rcut_smth: 7.0\n    resnet_dt", PK_ERR_FORMAT,
           "model.descriptor.rcut", "rcut_smth 7, rcut 6");
    expect(m, "    env_protection: 0.0", "    env_protection: -1", PK_ERR_FORMAT,
           "model.descriptor.env_protection", "value -1 is outside [0, 6]");
    expect(m, "      - 46\n      - 92", "      - 46\n      - 92000", PK_ERR_FORMAT,
           "model.descriptor.sel[1]", "value 92000 is outside [0, 4096]");
    expect(m, "      - 3\n      - 6\n      - 12", "      - 3\n      - 0\n      - 12",
           PK_ERR_FORMAT, "model.descriptor.neuron[1]", "value 0 is outside [1, 4096]");
    /* A finite but huge weight loads (weights have no scale). With the first embedding
     * layer made linear, G(s) = 1e307 s + ... overflows for s > 18, inside the table's
     * coarse range (the table spans s up to ~70 here, from table_rmin 0.5 and 5x
     * extrapolation): an error naming the net and the interval. */
    expect(m, "- - 0.4480607783689787\n                      - -0.8184588710236892\n"
           "                      - -0.3212229262177685\n              \"@version\": 1\n"
           "              activation_function: tanh",
           "- - 1e307\n                      - -0.8184588710236892\n"
           "                      - -0.3212229262177685\n              \"@version\": 1\n"
           "              activation_function: none", PK_ERR_NUMERIC,
           "model.descriptor.embeddings.networks[0] (neighbour type O): its table has "
           "coefficient", "on s in [17.9616704, 18.0616704)");
}

static void bad_files(void)
{
    pk_status st;
    PK_CHECK(!pk_deepmd_load("no/such/model.yaml", NULL, &st) && st.code == PK_ERR_FILE &&
                 strstr(st.msg, "no/such/model.yaml"), "missing file: %s", st.msg);
    FILE *fp = fopen("deepmd_bad_model.dp", "wb");
    fputs("\211HDF\r\n\032\n not really", fp);
    fclose(fp);
    PK_CHECK(!pk_deepmd_load("deepmd_bad_model.dp", NULL, &st) &&
                 (st.code == PK_ERR_FILE || st.code == PK_ERR_UNSUPPORTED) &&
                 strstr(st.msg, "deepmd_bad_model.dp"), "broken HDF5: %s", st.msg);
    remove("deepmd_bad_model.dp");
    char *m = pk_test_slurp(dp_shared_path("reference/deepmd/deeppot_sea.yaml"));
    PK_CHECK(m != NULL, "cannot read the reference model");
    if (!m) return;
    expect(m, "backend: PyTorch\nmodel:", "backend: PyTorch\nmodel: [1, 2\n  x:", PK_ERR_FORMAT,
           "malformed YAML", ":");
    expect(m, "    type: se_e2_a", "    type: dpa1", PK_ERR_UNSUPPORTED,
           ":2654: model.descriptor.type", "'dpa1'");
    expect(m, "    rcut_smth: 0.5\n    resnet_dt", "    resnet_dt", PK_ERR_FORMAT,
           "model.descriptor.rcut_smth", "missing key");
    expect(m, "numb_fparam: 0", "numb_fparam: 2", PK_ERR_UNSUPPORTED, ":3911:",
           "model.fitting.numb_fparam");
    expect(m, "    type_one_side: true", "    type_one_side: false", PK_ERR_UNSUPPORTED,
           "model.descriptor.embeddings.ndim", "expected 2");
    expect(m, "      - 46\n      - 92", "      - 46\n      - 90", PK_ERR_FORMAT,
           "model.descriptor.@variables.davg", "has shape [2, 138, 4], expected 2 rows (one "
           "per type) of 544 elements each (shape [2, 136, 4]");
    expect(m, "activation_function: tanh\n              bias: true",
           "activation_function: gelu\n              bias: true", PK_ERR_UNSUPPORTED,
           "model.descriptor.embeddings.networks[0].layers[0].activation_function", "gelu");
    expect(m, "    numb_aparam: 0", "    numb_aparam: 0\n    dim_case_embd: 3",
           PK_ERR_UNSUPPORTED, "model.fitting.dim_case_embd", "not supported");
    expect(m, "  type: standard", "  type: zbl", PK_ERR_UNSUPPORTED, "model.type", "'zbl'");
    expect(m, "    type: ener", "    type: dipole", PK_ERR_UNSUPPORTED, "model.fitting.type",
           "dipole");
    expect(m, "  pair_exclude_types: []", "  pair_exclude_types: [[0, 1]]", PK_ERR_UNSUPPORTED,
           "model.pair_exclude_types", "not supported");
    expect(m, "- -93.57372029622398", "- -93.5737202x9622398", PK_ERR_FORMAT,
           "model.fitting.@variables.bias_atom_e", "expected a number");
    bad_values(m);
    free(m);
}

static void type_maps(void)
{
    pk_status st;
    pk_deepmd *dp = pk_deepmd_load(dp_shared_path("reference/deepmd/deeppot_sea.yaml"), NULL,
                                   &st);
    PK_CHECK(dp != NULL, "%s", st.msg);
    if (!dp) return;
    PK_CHECK(pk_deepmd_type_index(dp, "C") == -1, "unknown name");
    int bad[2] = {0, 2};
    PK_CHECK(pk_deepmd_set_type_map(dp, 2, bad, &st) == PK_ERR_ARG &&
                 strstr(st.msg, "LAMMPS type 2 maps to model type 2"), "%s", st.msg);
    double x[3] = {0, 0, 0}, f[3];
    int type[1] = {1};
    pk_atoms at = {.nlocal = 1, .x = (const double (*)[3])x, .type = type};
    pk_out out = {.f = (double (*)[3])f};
    PK_CHECK(pk_deepmd_compute(dp, &at, &(pk_neigh){0}, &out, NULL, &st) == PK_ERR_ARG &&
                 strstr(st.msg, "type map is not set"), "%s", st.msg);
    pk_deepmd_destroy(dp);
}

static const double *sort_x;
static int by_distance(const void *a, const void *b)
{
    const int i = 171, *p = a, *q = b;
    double ra = 0, rb = 0;
    for (int k = 0; k < 3; k++) {
        ra += (sort_x[3 * *p + k] - sort_x[3 * i + k]) * (sort_x[3 * *p + k] - sort_x[3 * i + k]);
        rb += (sort_x[3 * *q + k] - sort_x[3 * i + k]) * (sort_x[3 * *q + k] - sort_x[3 * i + k]);
    }
    return (ra > rb) - (ra < rb);
}

/* A jittered simple-cubic O lattice (spacing 2 A, 7^3 atoms, no PBC): the centre atom sees
 * about 120 O within 6 A, more than sel[O] = 46. The centre's energy must be the one it
 * has with only its 46 nearest neighbours listed. */
static void overflow(void)
{
    enum { N = 343, MID = 171 };
    double x[3 * N];
    int type[N];
    for (int i = 0; i < N; i++) {
        x[3 * i] = 2.0 * (i % 7) + 0.01 * (i % 5);
        x[3 * i + 1] = 2.0 * (i / 7 % 7) + 0.013 * (i % 3);
        x[3 * i + 2] = 2.0 * (i / 49) + 0.007 * (i % 11);
        type[i] = 1;
    }
    int most = 0;
    for (int i = 0; i < N; i++) {
        int c = 0;
        for (int j = 0; j < N; j++) {
            double d0 = x[3 * j] - x[3 * i], d1 = x[3 * j + 1] - x[3 * i + 1];
            double d2 = x[3 * j + 2] - x[3 * i + 2];
            c += j != i && d0 * d0 + d1 * d1 + d2 * d2 < 36.0;
        }
        if (c > most) most = c;
    }
    dp_sys s;
    dp_sys_build(&s, N, x, type, NULL, 6.5);
    pk_status st;
    pk_deepmd *ex = dp_load(0, 0, &st), *tb = dp_load(1, 0.01, &st);
    PK_CHECK(ex && tb, "%s", st.msg);
    if (!ex || !tb) return;
    dp_result a, b;
    PK_CHECK(dp_run(ex, &s, &a, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(dp_run(tb, &s, &b, &st) == PK_OK, "%s", st.msg);
    long n;
    int maxt[2];
    pk_deepmd_overflow(ex, &n, maxt);
    printf("overflow: %ld centres over sel, most O neighbours %d (brute force %d)\n", n,
           maxt[0], most);
    PK_CHECK(n > 0 && maxt[0] == most && maxt[1] == 0, "overflow %ld, max %d / %d", n, maxt[0],
             most);
    double ef = dp_relerr(b.f, a.f, 3 * N);
    PK_CHECK(ef < 1e-10, "kernels disagree under overflow: %.3g", ef);
    /* Keep only the 46 nearest in the centre's list. */
    sort_x = &s.x[0][0];
    qsort(s.firstneigh[MID], (size_t)s.numneigh[MID], sizeof(int), by_distance);
    s.numneigh[MID] = 46;
    for (int k = 0; k < 2; k++) {
        dp_result c;
        PK_CHECK(dp_run(k ? tb : ex, &s, &c, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(c.eatom[MID] == (k ? b : a).eatom[MID], "kernel %d: truncation does not keep "
                 "the nearest: %.17g vs %.17g", k, c.eatom[MID], (k ? b : a).eatom[MID]);
        dp_result_free(&c);
    }
    pk_deepmd_overflow_reset(ex);
    pk_deepmd_overflow(ex, &n, maxt);
    PK_CHECK(n == 0 && maxt[0] == 0, "reset");
    dp_result_free(&a);
    dp_result_free(&b);
    pk_deepmd_destroy(ex);
    pk_deepmd_destroy(tb);
    dp_sys_free(&s);
}

/* Two atoms 0.05 A apart are beyond the table (table_rmin 0.5, 5x extrapolation). */
static void out_of_table(void)
{
    double x[6] = {1, 1, 1, 1.05, 1, 1};
    int type[2] = {1, 2};
    dp_sys s;
    dp_sys_build(&s, 2, x, type, NULL, 6.5);
    pk_status st;
    pk_deepmd *ex = dp_load(0, 0, &st), *tb = dp_load(1, 0.01, &st);
    PK_CHECK(ex && tb, "%s", st.msg);
    if (!ex || !tb) return;
    dp_result a, b;
    PK_CHECK(dp_run(ex, &s, &a, &st) == PK_OK, "exact kernel has no range: %s", st.msg);
    PK_CHECK(dp_run(tb, &s, &b, &st) == PK_ERR_RANGE && strstr(st.msg, "atom 1 (O)") &&
                 strstr(st.msg, "H neighbour at r = 0.05"), "%s", st.msg);
    printf("out of table: %s\n", st.msg);
    dp_result_free(&a);
    dp_result_free(&b);
    pk_deepmd_destroy(ex);
    pk_deepmd_destroy(tb);
    dp_sys_free(&s);
}

/* LAMMPS types mapped to -1 (e.g. other sub-styles of pair hybrid) are ignored both as
 * centres and as neighbours; special-bond bits on neighbour indices are masked off. */
static void unmapped_and_special(void)
{
    double x[3 * 7] = {12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68, 3.36, 3.00, 1.81,
                       3.51, 2.51, 2.60, 4.27, 3.22, 1.56, 3.0, 2.8, 2.0};
    int type[7] = {1, 2, 2, 1, 2, 2, 3};
    pk_status st;
    pk_deepmd *dp = dp_load(1, 0.01, &st);
    PK_CHECK(dp != NULL, "%s", st.msg);
    if (!dp) return;
    dp_sys s6, s7;
    dp_sys_build(&s6, 6, x, type, NULL, 6.5);
    dp_sys_build(&s7, 7, x, type, NULL, 6.5);
    int map[3] = {0, 1, -1};
    PK_CHECK(pk_deepmd_set_type_map(dp, 3, map, &st) == PK_OK, "%s", st.msg);
    dp_result a, b, c;
    PK_CHECK(dp_run(dp, &s6, &a, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(dp_run(dp, &s7, &b, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(!memcmp(a.f, b.f, sizeof(double) * 18) && !memcmp(a.eatom, b.eatom, 6 * 8) &&
                 b.eatom[6] == 0.0 && b.f[18] == 0.0 && b.f[19] == 0.0 && b.f[20] == 0.0,
             "an unmapped atom changed the result");
    for (int i = 0; i < s6.nlocal; i++)
        for (int k = 0; k < s6.numneigh[i]; k++) s6.firstneigh[i][k] |= 1 << PK_SBBITS;
    PK_CHECK(dp_run(dp, &s6, &c, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(!memcmp(a.f, c.f, sizeof(double) * 18), "special bits changed the forces");
    dp_result_free(&a);
    dp_result_free(&b);
    dp_result_free(&c);
    dp_sys_free(&s6);
    dp_sys_free(&s7);
    pk_deepmd_destroy(dp);
}

int main(void)
{
    bad_files();
    type_maps();
    unmapped_and_special();
    overflow();
    out_of_table();
    return pk_test_finish();
}
