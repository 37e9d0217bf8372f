/* Backend agreement for hdnnp/pk (pk_agree.h): the backend named on the command line
 * against the cpu backend on n2p2's RPBE-D3 water model and its reference structure (1080
 * atoms, periodic). Forces, energy, virial, per-atom energy and per-atom virial, on owned
 * and ghost atoms (before reverse communication, so a backend must place each contribution
 * where the cpu backend does); reruns bitwise equal; forces bitwise the same whether or not
 * energy and virials are asked for. */
#include <stdlib.h>

#include "hdnnp_system.h"
#include "pk_agree.h"
#include "pk_hdnnp.h"

/* Double precision: a backend may sum neighbours, centres and threads in another order,
 * which moves results by round-off (~1e-15 relative per sum); 1e-10 leaves room for that
 * and still catches any wrong term. Elements near zero (cancelling force components,
 * off-diagonal virials) are measured against AGREE_FLOOR times the largest of their array. */
static const double AGREE_RTOL = 1e-10;
static const double AGREE_FLOOR = 1e-3;

static const char *const symbols[] = {"H", "O"};
static const int t2e[3] = {-1, 0, 1};   /* LAMMPS type 1 = H, 2 = O */

typedef struct {
    double energy, virial[6];
    double *f, *eatom, *vatom;
} run_out;

/* One evaluation: everything requested (all = 1) or forces alone. */
static void run(pk_hdnnp_context *ctx, const hd_system *s, int all, run_out *r)
{
    const size_t nall = (size_t)s->nlocal + (size_t)s->nghost;
    r->f = calloc(3 * nall, sizeof(double));
    r->eatom = all ? calloc(nall, sizeof(double)) : NULL;
    r->vatom = all ? calloc(6 * nall, sizeof(double)) : NULL;
    pk_out out = {.f = (double (*)[3])r->f, .want_energy = all, .want_virial = all,
                  .eatom = r->eatom, .vatom = (double (*)[6])r->vatom};
    const pk_atoms atoms = hd_atoms(s);
    const pk_neigh nl = hd_neigh(s);
    pk_status st;
    PK_CHECK(pk_hdnnp_compute(ctx, &atoms, &nl, t2e, &out, &st) == PK_OK, "compute: %s",
             st.msg);
    r->energy = out.energy;
    memcpy(r->virial, out.virial, sizeof r->virial);
}

static void run_free(run_out *r)
{
    free(r->f);
    free(r->eatom);
    free(r->vatom);
}

static void agree(const char *what, const double *got, const double *want, size_t n)
{
    pk_agree_close_scaled(what, got, want, n, AGREE_RTOL, AGREE_FLOOR);
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
    const size_t nall = (size_t)s.nlocal + (size_t)s.nghost;

    pk_hdnnp_context *ctx = NULL;
    PK_CHECK(pk_hdnnp_context_create(m, &ctx, &st) == PK_OK, "context: %s", st.msg);
    if (!ctx) return pk_test_finish();
    run_out want, got, again, forces;
    PK_CHECK(pk_hdnnp_set_backend(ctx, &cpu, &st) == PK_OK, "cpu backend: %s", st.msg);
    run(ctx, &s, 1, &want);
    PK_CHECK(pk_hdnnp_set_backend(ctx, &req, &st) == PK_OK, "%s backend: %s", argv[1], st.msg);
    const pk_backend_kind kind = pk_hdnnp_backend(ctx)->info.kind;
    PK_CHECK((int)kind == req.kind, "backend %s chosen, asked for %s", pk_backend_name(kind),
             argv[1]);
    run(ctx, &s, 1, &got);
    run(ctx, &s, 1, &again);
    run(ctx, &s, 0, &forces);

    agree("forces", got.f, want.f, 3 * nall);
    agree("energy", &got.energy, &want.energy, 1);
    agree("virial", got.virial, want.virial, 6);
    agree("per-atom energy", got.eatom, want.eatom, nall);
    agree("per-atom virial", got.vatom, want.vatom, 6 * nall);
    pk_agree_bitwise("forces, rerun", again.f, got.f, 3 * nall);
    pk_agree_bitwise("forces without energy/virial", forces.f, got.f, 3 * nall);

    run_free(&want);
    run_free(&got);
    run_free(&again);
    run_free(&forces);
    pk_hdnnp_context_free(ctx);
    hd_free(&s);
    pk_hdnnp_model_free(m);
    return pk_test_finish();
}
