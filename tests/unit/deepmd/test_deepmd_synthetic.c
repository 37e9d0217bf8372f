/* Synthetic models covering what deeppot_sea.yaml does not (data/gen_synthetic.py): three
 * types; (a) type_one_side false, exclude_types [[0, 2]], env_protection, idt in
 * embedding and fitting, a width-doubling resnet layer; (b) sigmoid embedding, softplus
 * fitting; both with nonzero out_bias; (c) a with davg/dstd varying from slot to slot.
 *
 * Checks, for a periodic box and a cluster of 24 atoms: the exact kernel's atomic energies
 * against DeePMD-kit's (numpy backend) within 1e-12 eV; the tabulated kernel (step 0.01)
 * against the exact one (energies 1e-11 eV, forces 1e-10 of the largest); both kernels'
 * forces and virial against finite differences (1e-6 of the largest component; DeePMD-kit's
 * numpy backend gives no forces), except for c, whose energy jumps when neighbours swap
 * slots (DeePMD-kit's own statistics are the same for all slots of a type pair). The .dp
 * (HDF5) files hold the same models and must give the same bits as the .yaml ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_run.h"
#include "pk_test.h"

static const char *data_path(const char *name)
{
    static char buf[4096];
    const char *src = getenv("PAIRKIT_SOURCE");
    snprintf(buf, sizeof buf, "%s/tests/unit/deepmd/data/%s", src ? src : ".", name);
    return buf;
}

static void one_model(const char *name, int fd)
{
    char yml[64], tcase[64];
    snprintf(yml, sizeof yml, "synth_%s.yaml", name);
    pk_status st;
    pk_deepmd *ex = dp_load_path(data_path(yml), 0, 0, &st);
    PK_CHECK(ex != NULL, "%s", st.msg);
    pk_deepmd *tb = dp_load_path(data_path(yml), 1, 0.01, &st);
    PK_CHECK(tb != NULL, "%s", st.msg);
    dp_case *cs;
    snprintf(tcase, sizeof tcase, "%s", name);
    int nc = dp_cases_read(data_path("synth-testcase.yaml"), tcase, &cs);
    PK_CHECK(nc == 2, "model %s: %d cases", name, nc);
    if (!ex || !tb || nc != 2) return;
    for (int c = 0; c < nc; c++) {
        int type[64];
        for (int i = 0; i < cs[c].natoms; i++) type[i] = cs[c].atype[i] + 1;
        dp_sys s;
        dp_sys_build(&s, cs[c].natoms, cs[c].coord, type, cs[c].box, 5.0);
        dp_result r, q;
        PK_CHECK(dp_run(ex, &s, &r, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(dp_run(tb, &s, &q, &st) == PK_OK, "%s", st.msg);
        double ee = dp_abserr(r.eatom, cs[c].energy, cs[c].natoms);
        double te = dp_abserr(q.eatom, r.eatom, cs[c].natoms);
        double tf = dp_relerr(q.f, r.f, 3 * cs[c].natoms);
        dp_config cf = {.n = cs[c].natoms, .x = cs[c].coord, .type = type, .box = cs[c].box};
        double ef[2] = {0, 0}, ew[2] = {0, 0}, el[2] = {0, 0};
        if (fd) dp_fd_errors(ex, &cf, 5.0, 1e-3, &ef[0], &ew[0], &el[0]);
        if (fd) dp_fd_errors(tb, &cf, 5.0, 1e-3, &ef[1], &ew[1], &el[1]);
        printf("model %s, %s: eatom vs DeePMD-kit %.2e eV; tabulated vs exact: eatom %.2e eV, "
               "f %.2e", name, cs[c].box ? "periodic" : "cluster", ee, te, tf);
        if (fd)
            printf("; finite differences exact/tabulated: f %.2e/%.2e, W %.2e/%.2e", ef[0],
                   ef[1], ew[0], ew[1]);
        printf("\n");
        PK_CHECK(ee <= 1e-12, "model %s case %d: atomic energies off by %.3g eV", name, c, ee);
        PK_CHECK(te <= 1e-11 && tf <= 1e-10, "model %s case %d: tabulated %.3g eV, f %.3g",
                 name, c, te, tf);
        for (int k = 0; k < 2; k++) {
            PK_CHECK(ef[k] <= 1e-6 && ew[k] <= 1e-6 && el[k] <= 1e-14,
                     "model %s case %d kernel %d: fd f %.3g W %.3g", name, c, k, ef[k], ew[k]);
        }
        dp_result_free(&r);
        dp_result_free(&q);
        dp_sys_free(&s);
    }
    /* The .dp file holds the same model: same bits. */
    char dpf[64];
    snprintf(dpf, sizeof dpf, "synth_%s.dp", name);
    pk_deepmd *h5 = dp_load_path(data_path(dpf), 0, 0, &st);
    if (!h5 && st.code == PK_ERR_UNSUPPORTED && strstr(st.msg, "built without HDF5"))
        printf("model %s: .dp comparison skipped: %s\n", name, st.msg);
    else
        PK_CHECK(h5 != NULL, "%s", st.msg);
    if (h5) {
        int type[64];
        for (int i = 0; i < cs[0].natoms; i++) type[i] = cs[0].atype[i] + 1;
        dp_sys s;
        dp_sys_build(&s, cs[0].natoms, cs[0].coord, type, cs[0].box, 5.0);
        dp_result r, q;
        PK_CHECK(dp_run(ex, &s, &r, &st) == PK_OK && dp_run(h5, &s, &q, &st) == PK_OK, "%s",
                 st.msg);
        PK_CHECK(dp_abserr(r.f, q.f, 3 * cs[0].natoms) == 0.0 &&
                     dp_abserr(r.eatom, q.eatom, cs[0].natoms) == 0.0,
                 "model %s: .dp and .yaml differ", name);
        dp_result_free(&r);
        dp_result_free(&q);
        dp_sys_free(&s);
        pk_deepmd_destroy(h5);
    }
    dp_cases_free(cs, nc);
    pk_deepmd_destroy(ex);
    pk_deepmd_destroy(tb);
}

int main(void)
{
    one_model("a", 1);
    one_model("b", 1);
    one_model("c", 0);
    return pk_test_finish();
}
