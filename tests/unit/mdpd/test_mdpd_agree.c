/* mdpd/pk backend agreement (DESIGN.md §8): the backend named on the command line against the
 * cpu backend on the same beads, both density kernels, noise on, special bonds, a step with a
 * fresh neighbour list and one that reuses it with moved atoms. Also: a rerun gives bitwise
 * equal forces, and asking for no energy or virial leaves the forces' bits unchanged. */
#include <stdlib.h>
#include <string.h>

#include "mdpd.h"
#include "mdpd_compare.h"
#include "mdpd_system.h"
#include "pk_agree.h"

static pk_mdpd *make_model(pk_mdpd_kernel kernel, const pk_backend_request *req)
{
    pk_status st;
    pk_status_clear(&st);
    pk_mdpd *m = mdpd_two_type_model(kernel);
    if (pk_mdpd_set_backend(m, req, &st)) {
        fprintf(stderr, "backend: %s\n", st.msg);
        exit(2);
    }
    return m;
}

static void run_case(const char *name, pk_mdpd_kernel kernel, const pk_backend_request *req)
{
    const int mixed = req->precision == PK_PRECISION_MIXED;
    pk_backend_request cpu;
    pk_backend_request_cpu(&cpu);
    pk_mdpd *ref = make_model(kernel, &cpu), *test = make_model(kernel, req);

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
    mdpd_compare(label, &s, &got, &want, mixed);
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
    mdpd_compare(label, &s, &got, &want, mixed);

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

int main(int argc, char **argv)
{
    pk_backend_request req;
    const int rc = pk_agree_start(argc, argv, "mdpd/pk", pk_mdpd_backends, &req);
    if (rc >= 0) return rc;
    run_case("warren density", PK_MDPD_WARREN, &req);
    run_case("lucy density (mass-weighted)", PK_MDPD_LUCY, &req);
    return pk_test_finish();
}
