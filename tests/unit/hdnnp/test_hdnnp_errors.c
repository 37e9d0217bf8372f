/* hdnnp/pk on bad input: every error names the file (and line where there is one) and what
 * is wrong; unsupported prediction-changing keywords are refused by name; unknown keywords
 * only warn; extrapolation warnings say which atom, element and function and by how much.
 * Each case copies the reference water model to a temporary directory and breaks one thing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_system.h"
#include "pk_hdnnp.h"
#include "pk_test.h"

static char ref[1024], tmp[64];
static int ncase;

/* Replace the first occurrence of `from` by `to` (from == NULL: append to). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = from ? strstr(text, from) : text + strlen(text);
    if (!at) return NULL;
    const size_t pre = (size_t)(at - text), lf = from ? strlen(from) : 0;
    char *out = malloc(strlen(text) + strlen(to) + 1);
    memcpy(out, text, pre);
    strcpy(out + pre, to);
    strcat(out, at + lf);
    return out;
}

/* A copy of the reference model with file `name` edited (from -> to), or removed (to NULL
 * and from NULL). Returns the directory. */
static const char *variant(const char *name, const char *from, const char *to)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "%s/case%d", tmp, ncase++);
    static const char *const files[] = {"input.nn", "scaling.data", "weights.001.data",
                                        "weights.008.data"};
    for (int f = 0; f < 4; f++) {
        char src[1200];
        snprintf(src, sizeof src, "%s/%s", ref, files[f]);
        char *text = pk_test_slurp(src), *edited = text;
        if (strcmp(files[f], name) == 0) {
            if (!from && !to) { free(text); continue; }   /* file left out */
            edited = replace(text, from, to);
            PK_CHECK(edited != NULL, "test setup: '%s' not found in %s", from, name);
            if (!edited) edited = text;
        }
        hd_write_file(dir, files[f], edited);
        if (edited != text) free(edited);
        free(text);
    }
    return dir;
}

typedef struct {
    char text[8192];
} logbuf;

static void collect(void *ctx, const char *msg)
{
    logbuf *b = ctx;
    strncat(b->text, msg, sizeof b->text - strlen(b->text) - 2);
    strcat(b->text, "\n");
}

/* Load dir, expect code and every needle in the message. */
static void expect(const char *what, const char *dir, pk_code code, const char *n1,
                   const char *n2, const char *n3)
{
    pk_status st;
    pk_hdnnp_model *m = NULL;
    const pk_code rc = pk_hdnnp_model_load(dir, NULL, &m, &st);
    PK_CHECK(rc == code, "%s: code %d, want %d (%s)", what, rc, code, st.msg);
    PK_CHECK(m == NULL, "%s: no model on failure", what);
    const char *needles[3] = {n1, n2, n3};
    for (int k = 0; k < 3; k++)
        if (needles[k])
            PK_CHECK(strstr(st.msg, needles[k]) != NULL, "%s: message \"%s\" lacks \"%s\"", what,
                     st.msg, needles[k]);
    printf("%-34s -> %s\n", what, st.msg);
    pk_hdnnp_model_free(m);
}

int main(void)
{
    const char *shared = getenv("PAIRKIT_SHARED");
    snprintf(ref, sizeof ref, "%s/reference/n2p2/H2O_RPBE-D3", shared ? shared : "../shared");
    strcpy(tmp, "/tmp/pk_hdnnp_errXXXXXX");
    PK_CHECK(mkdtemp(tmp) != NULL, "mkdtemp");

    /* missing files */
    expect("missing directory", "/nonexistent/model", PK_ERR_FILE, "/nonexistent/model/input.nn",
           "cannot open", NULL);
    expect("missing scaling.data", variant("scaling.data", NULL, NULL), PK_ERR_FILE,
           "scaling.data", "cannot open", NULL);
    expect("missing weights file", variant("weights.008.data", NULL, NULL), PK_ERR_FILE,
           "weights.008.data", "cannot open", NULL);

    /* malformed input.nn lines: file:line: what */
    expect("malformed number", variant("input.nn", "scale_max_short                 1.0",
                                       "scale_max_short                 1.0x"),
           PK_ERR_FORMAT, "input.nn:30:", "'1.0x' is not a number", NULL);
    expect("unknown element in symfunction",
           variant("input.nn", "symfunction_short H 2 H 0.001 0.0 12.00",
                   "symfunction_short H 2 C 0.001 0.0 12.00"),
           PK_ERR_FORMAT, "input.nn:", "element 'C' is not in 'elements'", NULL);
    expect("symfunction field count",
           variant("input.nn", "symfunction_short H 2 H 0.01  0.0 12.00",
                   "symfunction_short H 2 H 0.01  0.0"),
           PK_ERR_FORMAT, "input.nn:", "expected 6 fields, found 5", NULL);
    expect("unsupported symfunction type",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 5 H 0.03 0.0 12.00"),
           PK_ERR_UNSUPPORTED, "input.nn:", "type 5 is not supported", NULL);
    /* compact-support types 20-25: what n2p2 refuses when it reads them */
    expect("compact subtype",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 20 H 0.0 12.0 p5"),
           PK_ERR_FORMAT, "input.nn:", "unknown compact function 'p5'", NULL);
    expect("compact asymmetric letter",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 23 1.0 12.0 p2b"),
           PK_ERR_FORMAT, "input.nn:", "unknown compact function 'p2b'", NULL);
    expect("compact rl >= rc",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 20 O 12.0 12.0 p2"),
           PK_ERR_FORMAT, "input.nn:", "need rl < rc (rl 12, rc 12)", NULL);
    expect("compact angles reversed",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 21 H O 0.0 12.0 90 30 p1"),
           PK_ERR_FORMAT, "input.nn:", "left angle 90 must be below right angle 30", NULL);
    expect("compact angle window",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 25 0.0 12.0 -20 60 e"),
           PK_ERR_FORMAT, "input.nn:", "angle window [-20, 60] leaves [0, 180]", NULL);
    expect("compact field count",
           variant("input.nn", "symfunction_short H 2 H 0.03  0.0 12.00",
                   "symfunction_short H 22 H O 0.0 12.0 0 90"),
           PK_ERR_FORMAT, "input.nn:", "type 22: expected 9 fields, found 8", NULL);
    expect("4G-HDNNP", variant("input.nn", NULL, "nnp_type 4\n"), PK_ERR_UNSUPPORTED,
           "input.nn:", "nnp_type 4", "charge equilibration");
    expect("committee", variant("input.nn", NULL, "committee_mode prediction\n"),
           PK_ERR_UNSUPPORTED, "committee_mode", NULL, NULL);
    expect("repeated keyword", variant("input.nn", NULL, "cutoff_type 1\n"), PK_ERR_FORMAT,
           "keyword 'cutoff_type' repeated", "first on line 26", NULL);
    expect("unknown activation",
           variant("input.nn", "global_activation_short         t t l",
                   "global_activation_short         t x l"),
           PK_ERR_FORMAT, "input.nn:34:", "unknown activation function 'x'", NULL);
    expect("element count", variant("input.nn", "number_of_elements              2",
                                     "number_of_elements              3"),
           PK_ERR_FORMAT, "input.nn:", "lists 2 symbols but number_of_elements is 3", NULL);
    expect("partial normalisation", variant("input.nn", "conv_length   5.8038448995319847E+00",
                                            "#"),
           PK_ERR_FORMAT, "use all or none of mean_energy", NULL, NULL);
    expect("inner cutoff parameter", variant("input.nn", "cutoff_type                     2",
                                             "cutoff_type                     6 1.5"),
           PK_ERR_FORMAT, "input.nn:26:", "inner cutoff parameter 1.5", NULL);
    expect("missing required keyword",
           variant("input.nn", "global_nodes_short              25 25", "#"), PK_ERR_FORMAT,
           "required keyword 'global_nodes_short' missing", NULL, NULL);

    /* weights and scaling files */
    expect("weights count", variant("weights.001.data",
                                    "  1.2539155865352127E+00 a         1     0     1     1     1\n",
                                    ""),
           PK_ERR_FORMAT, "weights.001.data", "1375 weights found", "needs 1376");
    expect("weights malformed", variant("weights.001.data", "  2.2490365890661286E+00 a",
                                        "  2.24903658906612x6E+00 a"),
           PK_ERR_FORMAT, "weights.001.data:18:", "column 1: '2.24903658906612x6E+00' is not a number", NULL);
    expect("scaling row missing",
           variant("scaling.data",
                   "         1          1   1.0882016636170764E+00   9.6166419119419064E+00   "
                   "2.2691752247542194E+00   6.7883526611658462E-01\n",
                   ""),
           PK_ERR_FORMAT, "scaling.data:", "expected element 1 SF 1", NULL);
    expect("scaling wrong element index",
           variant("scaling.data", "         2          1 ", "         3          1 "),
           PK_ERR_FORMAT, "scaling.data:", "expected element 2 SF 1, found 3 1", NULL);

    /* non-finite and absurd numbers: nan, inf, overflow (1e999), underflow, out of range;
     * each names the file, the line and the value as written */
    const char *h2 = "symfunction_short H 2 H 0.01  0.0 12.00";       /* input.nn line 52 */
    const char *h3 = "symfunction_short H 3 O H 0.2  1.0 1.0  12.00000"; /* line 90 */
    const char *w18 = "  2.2490365890661286E+00 a";                    /* weights line 18 */
    const char *row1 = "1.0882016636170764E+00   9.6166419119419064E+00   "
                       "2.2691752247542194E+00   6.7883526611658462E-01"; /* scaling line 16 */
    expect("nan weight", variant("weights.001.data", w18, "  nan a"), PK_ERR_FORMAT,
           "weights.001.data:18:", "column 1: 'nan' is not a finite number", NULL);
    expect("inf eta", variant("input.nn", h2, "symfunction_short H 2 H inf  0.0 12.00"),
           PK_ERR_FORMAT, "input.nn:52:", "'symfunction_short': 'inf' is not a finite number",
           NULL);
    expect("overflowing Gmax",
           variant("scaling.data", "9.6166419119419064E+00", "1e999"), PK_ERR_FORMAT,
           "scaling.data:16:", "column 4: '1e999' is not a finite number", NULL);
    expect("underflowing weight", variant("weights.001.data", w18, "  1e-999 a"),
           PK_ERR_FORMAT, "weights.001.data:18:", "'1e-999' is not within the range of a double",
           NULL);
    expect("absurd weight", variant("weights.001.data", w18, "  -3e7 a"), PK_ERR_FORMAT,
           "weights.001.data:18:", "column 1: weight '-3e7' outside [-1e+06, 1e+06]", NULL);
    expect("absurd cutoff", variant("input.nn", h2, "symfunction_short H 2 H 0.01  0.0 1e5"),
           PK_ERR_FORMAT, "input.nn:52:", "cutoff rc '1e5' outside (0, 1000]", NULL);
    expect("absurd eta", variant("input.nn", h2, "symfunction_short H 2 H 2e7  0.0 12.00"),
           PK_ERR_FORMAT, "input.nn:52:", "eta '2e7' outside [0, 1e+06]", NULL);
    expect("shift beyond cutoff", variant("input.nn", h2, "symfunction_short H 2 H 0.01 13 12.00"),
           PK_ERR_FORMAT, "input.nn:52:", "shift rs '13' outside [-12, 12]", NULL);
    expect("absurd zeta", variant("input.nn", h3, "symfunction_short H 3 O H 0.2 1.0 1000 12.0"),
           PK_ERR_FORMAT, "input.nn:90:", "zeta '1000' outside [1, 256]", NULL);
    expect("absurd node count", variant("input.nn", "global_nodes_short              25 25",
                                         "global_nodes_short              25 1000000"),
           PK_ERR_FORMAT, "input.nn:33:", "layer 2 has 1000000 nodes (1..65536)", NULL);
    expect("empty scaled range", variant("input.nn", "scale_max_short                 1.0",
                                         "scale_max_short                 0.0"),
           PK_ERR_FORMAT, "input.nn:30:", "scale_max_short equals scale_min_short (0)", NULL);
    expect("Gmax below Gmin",
           variant("scaling.data", row1,
                   "9.6166419119419064E+00   1.0882016636170764E+00   2.2691752247542194E+00   "
                   "6.7883526611658462E-01"),
           PK_ERR_FORMAT, "scaling.data:16:",
           "Gmax '1.0882016636170764E+00' is below Gmin '9.6166419119419064E+00'", NULL);
    expect("Gmean outside the range", variant("scaling.data", "2.2691752247542194E+00", "20.5"),
           PK_ERR_FORMAT, "scaling.data:16:", "column 5: Gmean '20.5' outside [", NULL);
    expect("negative sigma",
           variant("scaling.data", "6.7883526611658462E-01", "-6.7883526611658462E-01"),
           PK_ERR_FORMAT, "scaling.data:16:", "sigma '-6.7883526611658462E-01' outside [0, ",
           NULL);
    /* a range of 2e-316 (subnormal) between two normal numbers: the derived factor is inf */
    expect("scaling factor overflow",
           variant("scaling.data", row1, "1e-300 1.0000000000000002e-300 1e-300 0.5"),
           PK_ERR_NUMERIC, "scaling.data:16:",
           "scaling factor (Smax - Smin) / (Gmax - Gmin) = inf is not finite", "Gmin 1e-300");

    /* warnings only: unknown keyword, output activation letter */
    {
        logbuf lb = {{0}};
        pk_logger lg = {collect, &lb};
        const char *dir = variant("input.nn", NULL, "my_new_keyword 3\nepochs 10\n");
        pk_status st;
        pk_hdnnp_model *m = NULL;
        PK_CHECK(pk_hdnnp_model_load(dir, &lg, &m, &st) == PK_OK, "unknown keyword: %s", st.msg);
        PK_CHECK(strstr(lb.text, "unknown keyword 'my_new_keyword' ignored") != NULL,
                 "warning logged: %s", lb.text);
        PK_CHECK(strstr(lb.text, "'epochs'") == NULL, "training keywords are silent");
        pk_hdnnp_model_free(m);
    }
    {
        logbuf lb = {{0}};
        pk_logger lg = {collect, &lb};
        const char *dir = variant("input.nn", "global_activation_short         t t l",
                                  "global_activation_short         t t t");
        pk_status st;
        pk_hdnnp_model *m = NULL;
        PK_CHECK(pk_hdnnp_model_load(dir, &lg, &m, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(strstr(lb.text, "output activation 't' ignored") != NULL, "warning: %s", lb.text);
        pk_hdnnp_model_free(m);
    }

    /* extrapolation: one water molecule compressed far below the training range */
    {
        pk_status st;
        pk_hdnnp_model *m = NULL;
        PK_CHECK(pk_hdnnp_model_load(ref, NULL, &m, &st) == PK_OK, "%s", st.msg);
        pk_hdnnp_context *ctx;
        pk_hdnnp_context_create(m, &ctx, &st);
        double x[3][3] = {{0, 0, 0}, {0.9, 0.0, 0.0}, {0.0, 0.9, 0.0}};   /* Bohr: O H H */
        int type[3] = {2, 1, 1};
        pk_tag tag[3] = {11, 12, 13};
        int nl0[2] = {1, 2}, nl1[2] = {0, 2}, nl2[2] = {0, 1}, *first[3] = {nl0, nl1, nl2};
        int numneigh[3] = {2, 2, 2}, ilist[3] = {0, 1, 2};
        const int t2e[3] = {-1, 0, 1};
        pk_atoms a = {0};
        a.nlocal = 3;
        a.x = (const double (*)[3])x;
        a.type = type;
        a.tag = tag;
        pk_neigh nl = {3, ilist, numneigh, first};
        double f[3][3] = {{0}};
        pk_out out = {0};
        out.f = f;
        out.want_energy = 1;
        PK_CHECK(pk_hdnnp_compute(ctx, &a, &nl, t2e, &out, &st) == PK_OK, "%s", st.msg);
        size_t n;
        const pk_hdnnp_ew *w = pk_hdnnp_ew_get(ctx, &n);
        PK_CHECK(pk_hdnnp_ew_count(ctx) > 0 && n == (size_t)pk_hdnnp_ew_count(ctx),
                 "extrapolation warnings counted: %ld", pk_hdnnp_ew_count(ctx));
        if (n > 0) {
            char msg[512];
            pk_hdnnp_ew_format(m, &w[0], msg, sizeof msg);
            printf("%s\n", msg);
            PK_CHECK(strstr(msg, "atom 0 (tag 11, O)") != NULL, "names atom: %s", msg);
            PK_CHECK(strstr(msg, "input.nn line") != NULL, "names SF line: %s", msg);
            PK_CHECK(strstr(msg, "above Gmax") || strstr(msg, "below Gmin"), "%s", msg);
            int bad = 0;
            for (size_t k = 0; k < n; k++)
                bad += !(w[k].value > w[k].gmax || w[k].value < w[k].gmin) || w[k].atom < 0 ||
                       w[k].atom > 2 || w[k].tag != tag[w[k].atom] ||
                       w[k].element != (w[k].atom == 0 ? 1 : 0);
            PK_CHECK(bad == 0, "%d of %zu records inconsistent", bad, n);
        }
        pk_hdnnp_ew_reset(ctx);
        PK_CHECK(pk_hdnnp_ew_count(ctx) == 0, "reset");
        pk_hdnnp_context_free(ctx);
        pk_hdnnp_model_free(m);
    }
    hd_remove_tree(tmp);
    return pk_test_finish();
}
