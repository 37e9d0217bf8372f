/* mdpd/pk backend agreement (DESIGN.md §8): the backend named on the command line against the
 * cpu backend on the same beads, both density kernels, noise on, special bonds, a step with a
 * fresh neighbour list and one that reuses it with moved atoms. Also: a rerun gives bitwise
 * equal forces, and asking for no energy or virial leaves the forces' bits unchanged.
 * Gaussian and uniform noise (the latter refused by sve: sve_refuses_uniform).
 * The sve kind is held to SVE_RTOL (1e-12) instead of DOUBLE_RTOL, and its pair noise must
 * equal the scalar generator's bit for bit (sve_noise_bitwise). */
#include <stdlib.h>
#include <string.h>

#include "mdpd.h"
#include "mdpd_compare.h"
#include "mdpd_internal.h"
#include "mdpd_random.h"
#include "mdpd_system.h"
#include "pk_agree.h"

static pk_mdpd *make_model(pk_mdpd_kernel kernel, pk_mdpd_noise noise,
                           const pk_backend_request *req)
{
    pk_status st;
    pk_status_clear(&st);
    pk_mdpd *m = mdpd_two_type_model(kernel);
    if (pk_mdpd_set_noise(m, noise, &st) || pk_mdpd_set_backend(m, req, &st)) {
        fprintf(stderr, "backend: %s\n", st.msg);
        exit(2);
    }
    return m;
}

static void run_case(const char *name, pk_mdpd_kernel kernel, pk_mdpd_noise noise,
                     const pk_backend_request *req)
{
    const int mixed = req->precision == PK_PRECISION_MIXED;
    const double double_rtol = req->kind == PK_BACKEND_SVE ? SVE_RTOL : DOUBLE_RTOL;
    pk_backend_request cpu;
    pk_backend_request_cpu(&cpu);
    pk_mdpd *ref = make_model(kernel, noise, &cpu), *test = make_model(kernel, noise, req);

    mdpd_system s;
    mdpd_system_liquid(&s, 11u + (unsigned)kernel);
    const double special[4] = MDPD_LIQUID_SPECIAL;
    pk_mdpd_step step = {100, 0.01, special};

    mdpd_result want, got, again, quiet;
    mdpd_result_alloc(&want, &s);
    mdpd_result_alloc(&got, &s);
    char label[128];
    mdpd_system_step(ref, &s, &step, 1, 1, &want);
    mdpd_system_step(test, &s, &step, 1, 1, &got);
    snprintf(label, sizeof label, "%s, fresh neighbour list:", name);
    mdpd_compare_rtol(label, &s, &got, &want, mixed, double_rtol);
    mdpd_result_free(&want);
    mdpd_result_free(&got);

    /* the next step: atoms moved within the skin, the same list */
    mdpd_system_jiggle(&s, 0.05, 99u);
    step.timestep++;
    mdpd_result_alloc(&want, &s);
    mdpd_result_alloc(&got, &s);
    mdpd_result_alloc(&again, &s);
    mdpd_result_alloc(&quiet, &s);
    mdpd_system_step(ref, &s, &step, 0, 1, &want);
    mdpd_system_step(test, &s, &step, 0, 1, &got);
    snprintf(label, sizeof label, "%s, next step on the same list:", name);
    mdpd_compare_rtol(label, &s, &got, &want, mixed, double_rtol);

    mdpd_system_step(test, &s, &step, 0, 1, &again);
    pk_agree_bitwise("rerun forces", &again.f[0][0], &got.f[0][0], 3 * (size_t)s.nlocal);
    pk_agree_bitwise("rerun energy", &again.energy, &got.energy, 1);
    mdpd_system_step(test, &s, &step, 0, 0, &quiet);
    pk_agree_bitwise("forces without energy/virial", &quiet.f[0][0], &got.f[0][0],
                     3 * (size_t)s.nlocal);

    mdpd_result_free(&want);
    mdpd_result_free(&got);
    mdpd_result_free(&again);
    mdpd_result_free(&quiet);
    mdpd_system_free(&s);
    pk_mdpd_destroy(ref);
    pk_mdpd_destroy(test);
}

#ifdef PK_HAVE_SVE
/* The SVE noise (pk_mdpd_sve_gaussians) against pk_mdpd_gaussian_keyed, bit for bit, for
 * many steps and seeds (high timestep bits included) and partner arrays whose lengths are not
 * multiples of the vector length; tags cover both orders of a pair, equal tags, 0 and the
 * extremes of the 32-bit range. Pair symmetry: swapping the two tags gives the same bits. */
static void sve_noise_bitwise(void)
{
    enum { N = 997 };
    static pk_tag tag_j[N];
    static double got[N], swapped[N];
    uint32_t state = 12345u;
    long compared = 0, differ = 0, asymmetric = 0;
    for (int trial = 0; trial < 120; trial++) {
        const uint32_t seed = 1u + 7919u * (uint32_t)trial;
        const uint64_t timestep = (uint64_t)trial * 1000003u + ((uint64_t)(trial % 3) << 33);
        const uint32_t key = pk_mdpd_noise_key(seed, timestep);
        const pk_tag tag_i = trial == 0 ? 0 : trial == 1 ? 0x7FFFFFFF : (pk_tag)(state >> 1);
        const int n = N - trial % 17;
        for (int q = 0; q < n; q++) {
            state = state * 1664525u + 1013904223u;   /* LCG: varied partners */
            tag_j[q] = q % 97 == 0 ? tag_i : q % 89 == 0 ? 0 : q % 83 == 0 ? 0x7FFFFFFF
                     : (pk_tag)(state >> 1);
        }
        pk_mdpd_sve_gaussians(key, tag_i, tag_j, n, got);
        for (int q = 0; q < n; q++) {
            const double want = pk_mdpd_gaussian_keyed(key, tag_i, tag_j[q]);
            if (memcmp(&got[q], &want, sizeof want)) {
                if (!differ)
                    printf("  first difference: key %u tags %d %d: sve %.17g scalar %.17g\n",
                           key, tag_i, tag_j[q], got[q], want);
                differ++;
            }
            pk_mdpd_sve_gaussians(key, tag_j[q], &tag_i, 1, &swapped[q]);
            if (memcmp(&got[q], &swapped[q], sizeof got[q])) asymmetric++;
        }
        compared += n;
    }
    PK_CHECK(differ == 0, "SVE noise differs from the scalar's in %ld of %ld pairs", differ,
             compared);
    PK_CHECK(asymmetric == 0, "SVE noise depends on the order of the pair in %ld of %ld pairs",
             asymmetric, compared);
    if (!differ && !asymmetric)
        printf("SVE noise: %ld pairs bitwise equal to the scalar generator and pair-symmetric\n",
               compared);
}

/* Density forwarded to ghosts, as LAMMPS's forward communication does with newton off. */
typedef struct {
    mdpd_system *s;
    double *rho;
} forward_ctx;

static void forward_rho(void *ctx)
{
    forward_ctx *c = ctx;
    mdpd_system_complete(c->s, c->rho, 0);
}

/* One step on a newton-off list, owned atoms' results only (nothing is folded back); with
 * per-atom masses rmass when not NULL. */
static void step_newton_off(pk_mdpd *m, mdpd_system *s, const pk_mdpd_step *step, int want_ev,
                            const double *rmass, mdpd_result *r)
{
    pk_atoms a = mdpd_system_atoms(s);
    if (rmass) a.rmass = rmass;
    const pk_neigh l = mdpd_system_list(s);
    forward_ctx c = {s, r->rho};
    const pk_mdpd_args args = {&a, &l, 0, 1, r->rho, step, {NULL, forward_rho, &c}};
    pk_out out = {r->f, 0.0, {0}, want_ev, want_ev, want_ev ? r->eatom : NULL,
                  want_ev ? r->vatom : NULL};
    pk_status st;
    pk_status_clear(&st);
    if (pk_mdpd_compute(m, &args, &out, &st)) {
        fprintf(stderr, "pk_mdpd_compute: %s\n", st.msg);
        exit(2);
    }
    r->energy = out.energy;
    memcpy(r->virial, out.virial, sizeof r->virial);
}

/* m at kT = 0, on the backend of req again. */
static void without_noise(pk_mdpd *m, const pk_backend_request *req)
{
    pk_status st;
    pk_status_clear(&st);
    if (pk_mdpd_settings(m, 0.0, 1.0, 4242, PK_MDPD_WARREN, &st) || pk_mdpd_init(m, &st) ||
        pk_mdpd_set_backend(m, req, &st)) {
        fprintf(stderr, "model: %s\n", st.msg);
        exit(2);
    }
}

/* The SVE kernel's instances that run_case does not reach: newton off, and no noise (kT = 0),
 * each with and without energy and virial; the lucy kernel with per-atom masses. */
static void sve_variants(const pk_backend_request *req)
{
    pk_backend_request cpu;
    pk_backend_request_cpu(&cpu);
    for (int noisy = 0; noisy <= 1; noisy++)
        for (int newton = 0; newton <= 1; newton++) {
            if (noisy && newton) continue;   /* run_case's */
            pk_mdpd *ref = make_model(PK_MDPD_WARREN, PK_MDPD_NOISE_GAUSSIAN, &cpu);
            pk_mdpd *test = make_model(PK_MDPD_WARREN, PK_MDPD_NOISE_GAUSSIAN, req);
            if (!noisy) {
                without_noise(ref, &cpu);
                without_noise(test, req);
            }
            mdpd_system s;
            mdpd_system_make(&s, 750, 5.0, 0.0, 23u);
            mdpd_system_neighbors(&s, 1.3, newton);
            mdpd_system_mark_special(&s, 7, 1);
            const double special[4] = MDPD_LIQUID_SPECIAL;
            const pk_mdpd_step step = {300, 0.01, special};
            for (int want_ev = 0; want_ev <= 1; want_ev++) {
                mdpd_result want, got;
                mdpd_result_alloc(&want, &s);
                mdpd_result_alloc(&got, &s);
                if (newton) {
                    mdpd_system_step(ref, &s, &step, 1, want_ev, &want);
                    mdpd_system_step(test, &s, &step, 1, want_ev, &got);
                } else {
                    step_newton_off(ref, &s, &step, want_ev, NULL, &want);
                    step_newton_off(test, &s, &step, want_ev, NULL, &got);
                }
                char label[128];
                snprintf(label, sizeof label, "sve variant: noise %s, newton %s, %s:",
                         noisy ? "on" : "off", newton ? "on" : "off",
                         want_ev ? "energy and virial" : "forces only");
                mdpd_compare_rtol(label, &s, &got, &want, 0, SVE_RTOL);
                mdpd_result_free(&want);
                mdpd_result_free(&got);
            }
            mdpd_system_free(&s);
            pk_mdpd_destroy(ref);
            pk_mdpd_destroy(test);
        }

    /* the lucy kernel with per-atom masses (rmass), the same on an atom and its images */
    pk_mdpd *ref = make_model(PK_MDPD_LUCY, PK_MDPD_NOISE_GAUSSIAN, &cpu);
    pk_mdpd *test = make_model(PK_MDPD_LUCY, PK_MDPD_NOISE_GAUSSIAN, req);
    mdpd_system s;
    mdpd_system_make(&s, 750, 5.0, 0.0, 29u);
    mdpd_system_neighbors(&s, 1.3, 0);
    double *rmass = malloc((size_t)s.nall * sizeof *rmass);
    for (int k = 0; k < s.nall; k++) rmass[k] = s.mass[s.type[k]] * (1.0 + 0.1 * (s.tag[k] % 5));
    const pk_mdpd_step step = {400, 0.01, NULL};
    mdpd_result want, got;
    mdpd_result_alloc(&want, &s);
    mdpd_result_alloc(&got, &s);
    step_newton_off(ref, &s, &step, 1, rmass, &want);
    step_newton_off(test, &s, &step, 1, rmass, &got);
    mdpd_compare_rtol("sve variant: lucy density with per-atom masses, newton off:", &s, &got,
                      &want, 0, SVE_RTOL);
    mdpd_result_free(&want);
    mdpd_result_free(&got);
    free(rmass);
    mdpd_system_free(&s);
    pk_mdpd_destroy(ref);
    pk_mdpd_destroy(test);
}

/* The SVE kernel draws only Gaussian noise: asked for with uniform noise it refuses, saying
 * so, and auto then runs the cpu backend. */
static void sve_refuses_uniform(const pk_backend_request *req)
{
    pk_status st;
    pk_status_clear(&st);
    pk_mdpd *m = mdpd_two_type_model(PK_MDPD_WARREN);
    PK_CHECK(pk_mdpd_set_noise(m, PK_MDPD_NOISE_UNIFORM, &st) == PK_OK, "%s", st.msg);
    PK_CHECK(pk_mdpd_set_backend(m, req, &st) == PK_ERR_UNSUPPORTED,
             "sve backend accepted uniform noise");
    PK_CHECK(strstr(st.msg, "backend sve draws only gaussian noise") != NULL, "message: %s",
             st.msg);
    printf("sve with uniform noise refused: %s\n", st.msg);
    pk_backend_request any = *req;
    any.kind = PK_BACKEND_AUTO;
    pk_status_clear(&st);
    PK_CHECK(pk_mdpd_set_backend(m, &any, &st) == PK_OK, "auto: %s", st.msg);
    PK_CHECK(pk_mdpd_backend(m)->info.kind == PK_BACKEND_CPU, "auto with uniform noise chose %d",
             pk_mdpd_backend(m)->info.kind);
    PK_CHECK(strstr(pk_mdpd_backend(m)->note, "only gaussian noise") != NULL, "auto's note: %s",
             pk_mdpd_backend(m)->note);
    printf("auto with uniform noise: cpu (%s)\n", pk_mdpd_backend(m)->note);
    pk_mdpd_destroy(m);
}
#endif

int main(int argc, char **argv)
{
    pk_backend_request req;
    const int rc = pk_agree_start(argc, argv, "mdpd/pk", pk_mdpd_backends, &req);
    if (rc >= 0) return rc;
#ifdef PK_HAVE_SVE
    if (req.kind == PK_BACKEND_SVE) {
        sve_noise_bitwise();
        sve_variants(&req);
        sve_refuses_uniform(&req);
    }
#endif
    run_case("warren density", PK_MDPD_WARREN, PK_MDPD_NOISE_GAUSSIAN, &req);
    run_case("lucy density (mass-weighted)", PK_MDPD_LUCY, PK_MDPD_NOISE_GAUSSIAN, &req);
    if (req.kind != PK_BACKEND_SVE) {   /* refused there: sve_refuses_uniform */
        run_case("warren density, uniform noise", PK_MDPD_WARREN, PK_MDPD_NOISE_UNIFORM, &req);
        run_case("lucy density, uniform noise", PK_MDPD_LUCY, PK_MDPD_NOISE_UNIFORM, &req);
    }
    return pk_test_finish();
}
