/* Backend agreement for hdnnp/pk (pk_agree.h): the backend named on the command line
 * against the cpu backend on n2p2's RPBE-D3 water model and its reference structure (1080
 * atoms, periodic). Forces, energy, virial, per-atom energy and per-atom virial, on owned
 * and ghost atoms (before reverse communication, so a backend must place each contribution
 * where the cpu backend does); reruns bitwise equal; forces bitwise the same whether or not
 * energy and virials are asked for.
 *
 * The sve backend runs under qemu in the tests (three vector lengths), where all 1080 centres
 * take about 30 s per evaluation at 512 bits: it evaluates every SVE_STRIDE-th atom as a
 * centre (135 of them, O and H alike, each with its whole environment of O and H neighbours,
 * so every radial and angular group of both elements runs), the cpu reference the same.
 *
 * The water model has only types 2 and 3, cutoff type 2 and tanh neurons; synthetic models on
 * a 40-atom cluster (all neighbours within the cutoffs) add every other symmetry-function type
 * (9, 12, 13, 20-25; zeta 1, 2, 2.5 and 6), every cutoff type and every activation. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "hdnnp_synth.h"
#include "hdnnp_system.h"
#include "pk_agree.h"
#include "pk_hdnnp.h"

/* Double precision: a backend may sum neighbours, centres and threads in another order,
 * which moves results by round-off (~1e-15 relative per sum); 1e-10 leaves room for that
 * and still catches any wrong term. Elements near zero (cancelling force components,
 * off-diagonal virials) are measured against AGREE_FLOOR times the largest of their array. */
static const double AGREE_RTOL = 1e-10;
static const double AGREE_FLOOR = 1e-3;
/* The sve backend keeps the portable code's formulas lane by lane and differs only in the
 * order of its sums (vector lanes, then a reduction): the issue asks for 1e-12 relative. */
static const double AGREE_RTOL_SVE = 1e-12;
enum { SVE_STRIDE = 8 };

static const char *const symbols[] = {"H", "O"};
static const int t2e[3] = {-1, 0, 1};   /* LAMMPS type 1 = H, 2 = O */

/* One evaluation: everything requested (all = 1) or forces alone. */
static void run(pk_hdnnp_context *ctx, const hd_system *s, const pk_neigh *nl, int all,
                pk_agree_run *r)
{
    pk_out out = pk_agree_run_begin(r, (size_t)s->nlocal + (size_t)s->nghost, all);
    const pk_atoms atoms = hd_atoms(s);
    pk_status st;
    PK_CHECK(pk_hdnnp_compute(ctx, &atoms, nl, t2e, &out, &st) == PK_OK, "compute: %s",
             st.msg);
    pk_agree_run_end(r, &out);
}

static double rtol = AGREE_RTOL;

/* cpu and the chosen backend on one system: everything agrees, reruns are bitwise equal */
static void compare(pk_hdnnp_context *ctx, const pk_backend_request *cpu,
                    const pk_backend_request *req, const hd_system *s, const pk_neigh *nl,
                    const char *name)
{
    const size_t nall = (size_t)s->nlocal + (size_t)s->nghost;
    pk_agree_run want, got, again, forces;
    pk_status st;
    PK_CHECK(pk_hdnnp_set_backend(ctx, cpu, &st) == PK_OK, "cpu backend: %s", st.msg);
    run(ctx, s, nl, 1, &want);
    PK_CHECK(pk_hdnnp_set_backend(ctx, req, &st) == PK_OK, "%s backend: %s",
             pk_backend_name((pk_backend_kind)req->kind), st.msg);
    const pk_backend_kind kind = pk_hdnnp_backend(ctx)->info.kind;
    PK_CHECK((int)kind == req->kind, "backend %s chosen, asked for %s", pk_backend_name(kind),
             pk_backend_name((pk_backend_kind)req->kind));
    run(ctx, s, nl, 1, &got);
    run(ctx, s, nl, 1, &again);
    run(ctx, s, nl, 0, &forces);

    printf("%s\n", name);
    pk_agree_runs(&want, &got, &again, &forces, nall, rtol, AGREE_FLOOR);

    pk_agree_run_free(&want);
    pk_agree_run_free(&got);
    pk_agree_run_free(&again);
    pk_agree_run_free(&forces);
}

enum { SYNTH_NAT = 40 };

/* The synthetic models, one per cutoff type (0-8), on one random cluster. */
static void synthetic_models(const pk_backend_request *cpu, const pk_backend_request *req)
{
    char tmp[] = "/tmp/pk_hdnnp_agreeXXXXXX";
    PK_CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    hd_system s = {0};
    s.nlocal = SYNTH_NAT;
    s.x = malloc(sizeof(double[3]) * SYNTH_NAT);
    s.type = malloc(sizeof(int) * SYNTH_NAT);
    unsigned seed = 7u;
    for (int i = 0; i < SYNTH_NAT; i++) {   /* no two atoms closer than 0.9 */
        for (int tries = 0; tries < 1000; tries++) {
            for (int q = 0; q < 3; q++) s.x[i][q] = 6.5 * hd_rand(&seed);
            int ok = 1;
            for (int j = 0; j < i && ok; j++) {
                const double dx = s.x[i][0] - s.x[j][0], dy = s.x[i][1] - s.x[j][1];
                const double dz = s.x[i][2] - s.x[j][2];
                ok = dx * dx + dy * dy + dz * dz > 0.81;
            }
            if (ok) break;
        }
        s.type[i] = i % 3 == 0 ? 2 : 1;
    }
    hd_make_neigh(&s, 4.5);
    const pk_neigh nl = hd_neigh(&s);
    /* every type, plus a non-integer zeta and a large integer one (P^(zeta-1) by pow), and
     * a function with its own cutoff radius */
    static const char *const symfuncs =
        HD_SYNTH_ALL_TYPES "symfunction_short O 3 H O 0.05 1 2.5 4.0\n"
                           "symfunction_short H 9 H H 0.03 -1 6.0 3.8 0.2\n";
    const int nsf[2] = {hd_synth_all_types_nsf[0] + 1, hd_synth_all_types_nsf[1] + 1};
    static const int zs[2] = {1, 8}, hidden[2] = {6, 5};
    static const char *const activations[] = {"t t l", "s p l", "g c l", "S e l", "h r l"};
    for (int cut = 0; cut <= 8; cut++) {
        char dir[512], net[256], name[128];
        snprintf(dir, sizeof dir, "%s/cut%d", tmp, cut);
        const char *act = activations[cut % 5];
        snprintf(net, sizeof net,
                 "global_hidden_layers_short 2\nglobal_nodes_short 6 5\n"
                 "global_activation_short %s\n", act);
        const hd_synth syn = {"H O", 2, cut, cut == 1 || cut >= 4 ? 0.2 : 0.0,
                              "scale_symmetry_functions\n", net,
                              cut == 5 ? "normalize_nodes\n" : "", symfuncs, 31u + (unsigned)cut};
        PK_CHECK(hd_synth_write(dir, &syn, nsf, zs, hidden, 2) == 0, "write %s", dir);
        pk_hdnnp_model *m = NULL;
        pk_status st;
        PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "load %s: %s", dir, st.msg);
        if (!m) continue;
        pk_hdnnp_context *ctx = NULL;
        PK_CHECK(pk_hdnnp_context_create(m, &ctx, &st) == PK_OK, "context: %s", st.msg);
        if (ctx) {
            snprintf(name, sizeof name, "synthetic model, cutoff type %d, activations %s", cut, act);
            compare(ctx, cpu, req, &s, &nl, name);
        }
        pk_hdnnp_context_free(ctx);
        pk_hdnnp_model_free(m);
    }
    hd_free(&s);
    hd_remove_tree(tmp);
}

int main(int argc, char **argv)
{
    pk_backend_request req, cpu;
    const int code = pk_agree_start(argc, argv, "hdnnp/pk", pk_hdnnp_backends, &req);
    if (code >= 0) return code;
    pk_backend_request_cpu(&cpu);

    const char *shared = getenv("PAIRKIT_SHARED");
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/reference/n2p2/H2O_RPBE-D3", shared ? shared : "../shared");
    pk_status st;
    pk_hdnnp_model *m = NULL;
    PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "load: %s", st.msg);
    if (!m) return pk_test_finish();
    hd_system s;
    snprintf(path, sizeof path, "%s/input.data", dir);
    PK_CHECK(hd_read_n2p2(path, symbols, 2, &s) == 0, "read %s", path);
    hd_make_ghosts(&s);
    hd_make_neigh(&s, pk_hdnnp_max_cutoff(m) + 0.5);   /* a skin, as LAMMPS has */
    pk_neigh nl = hd_neigh(&s);
    int *centres = NULL;
    if (req.kind == PK_BACKEND_SVE) {
        rtol = AGREE_RTOL_SVE;
        centres = malloc(sizeof(int) * (size_t)s.nlocal);
        int n = 0;
        for (int i = 0; i < s.nlocal; i += SVE_STRIDE) centres[n++] = i;
        nl.inum = n;
        nl.ilist = centres;
        printf("  %d of %d atoms as centres (every %dth)\n", n, s.nlocal, SVE_STRIDE);
    }

    pk_hdnnp_context *ctx = NULL;
    PK_CHECK(pk_hdnnp_context_create(m, &ctx, &st) == PK_OK, "context: %s", st.msg);
    if (!ctx) return pk_test_finish();
    compare(ctx, &cpu, &req, &s, &nl, "RPBE-D3 water");
    pk_hdnnp_context_free(ctx);
    free(centres);
    hd_free(&s);
    pk_hdnnp_model_free(m);
    synthetic_models(&cpu, &req);
    return pk_test_finish();
}
