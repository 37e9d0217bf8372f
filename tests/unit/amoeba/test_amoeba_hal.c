/* HAL van der Waals against LAMMPS amoeba (water dimer, hexamer, a dimer pulled apart into
 * the taper region, the periodic 216-water box) and central differences of the energy; the
 * error for a missing H-reduction partner. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_testsys.h"
#include "amoeba_check.h"
#include "pk_test.h"

static void cluster(const pk_amoeba_model *m, const char *file)
{
    test_system s;
    pk_status st;
    if (ts_load(&s, ts_data(file), 0, 0)) {
        PK_CHECK(0, "load %s", file);
        return;
    }
    PK_CHECK(ts_assign(&s, m, &st) == PK_OK, "%s assign: %s", file, st.msg);
    check_term_reference(&s, m, TS_HAL, "HAL", file);

    /* forces and virial are the energy's derivatives */
    double fdev, fmaxf, fd[6], vir[6];
    pk_code rc = ts_fd_forces(&s, m, TS_HAL, 1e-5, &fdev, &fmaxf, &st);
    PK_CHECK(rc == PK_OK && fdev <= 1e-7 * fmax(fmaxf, 1.0), "%s finite differences: %g of %g", file,
             fdev, fmaxf);
    rc = ts_fd_virial(&s, m, TS_HAL, 1e-6, fd, vir, &st);
    double vdev = 0, vmax = 0;
    for (int k = 0; k < 6; k++) {
        vdev = fmax(vdev, fabs(fd[k] - vir[k]));
        vmax = fmax(vmax, fabs(vir[k]));
    }
    printf("%-18s HAL  FD force dev %.2e, FD virial dev %.2e of %.3g\n", file, fdev, vdev, vmax);
    PK_CHECK(rc == PK_OK && vdev <= 1e-6 * vmax, "%s virial: %g of %g", file, vdev, vmax);
    ts_free(&s);
}

/* 216 waters in a periodic box: ghost images, H partners across the boundary, a half
 * list with newton on; forces of the first 96 atoms and the virial against LAMMPS. */
static void water_box(void)
{
    pk_amoeba_model m;
    pk_status st;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water_box_noewald.key"), &st)) {
        PK_CHECK(0, "%s", st.msg);
        return;
    }
    PK_CHECK(m.set.vdw_cut == 7.0 && m.set.vdw_taper == 6.0, "box cutoffs");
    test_system s;
    if (ts_load(&s, ts_data("water_box.txt"), 9.0, 7.5)) {
        PK_CHECK(0, "load water_box.txt");
        pk_amoeba_free(&m);
        return;
    }
    PK_CHECK(ts_assign(&s, &m, &st) == PK_OK, "water box assign: %s", st.msg);
    check_term_reference(&s, &m, TS_HAL, "HAL", "water_box.txt");
    ts_free(&s);
    pk_amoeba_free(&m);
}

/* Per-atom energies sum to the total. */
static void eatom_and_scaling(const pk_amoeba_model *m)
{
    test_system s;
    pk_status st;
    if (ts_load(&s, ts_data("water_hexamer.txt"), 0, 0)) return;
    ts_assign(&s, m, &st);
    pk_atoms a = ts_atoms(&s);
    pk_neigh nl = ts_neigh(&s);
    pk_amoeba_topology t = ts_topology(&s);
    pk_amoeba_list list = {0};
    pk_amoeba_work w = {0};
    pk_amoeba_sites sites = {.amtype = s.amtype, .amgroup = s.amgroup, .hred = s.hred, .mpole = s.mpole, .frame = (const int (*)[3])s.frame};
    double (*f)[3] = calloc((size_t)s.n, sizeof *f);
    double *eatom = calloc((size_t)s.n, sizeof *eatom);
    pk_out out = {0};
    out.f = f;
    out.eatom = eatom;
    out.want_energy = 1;
    pk_code rc = pk_amoeba_list_build(&list, m, &nl, &a, &t, &st);
    if (!rc) rc = pk_amoeba_hal(m, &a, &sites, &list, NULL, &w, &out, &st);
    double sum = 0;
    for (int i = 0; i < s.n; i++) sum += eatom[i];
    PK_CHECK(rc == PK_OK, "hal with eatom: %s", st.msg);
    PK_CHECK_CLOSE(sum, out.energy, 1e-13, 1.0);
    free(f);
    free(eatom);
    pk_amoeba_list_free(&list);
    pk_amoeba_work_free(&w);
    ts_free(&s);
}

/* HAL alone on s (forces discarded): the pk code, the energy in *energy. */
static pk_code hal_once(const pk_amoeba_model *m, test_system *s, double *energy, pk_status *st)
{
    double (*f)[3] = calloc((size_t)s->n, sizeof *f);
    const pk_code rc = ts_compute(s, m, TS_HAL, energy, f, NULL, st);
    free(f);
    return rc;
}

/* An H whose reduction partner is unknown (-1, as for a ghost beyond the ghost cutoff) is
 * an error naming its tag when the energy of one of its pairs within the cutoff depends on
 * its site (scale and epsilon nonzero), whether it is the listing atom or the neighbour;
 * with pairs within its own water only (scale 0) it is not. */
static void missing_partner(const pk_amoeba_model *m)
{
    test_system s;
    pk_status st;
    if (ts_load(&s, ts_data("water_far.txt"), 0, 0)) {
        PK_CHECK(0, "load water_far.txt");
        return;
    }
    PK_CHECK(ts_assign(&s, m, &st) == PK_OK, "water_far assign: %s", st.msg);
    const int hs[2] = {1, 5};   /* an H of each water: tags 2 and 6 */
    for (int q = 0; q < 2; q++) {
        const int h = hs[q], keep = s.hred[h];
        char want[64];
        snprintf(want, sizeof want, "partner of atom %d missing", (int)s.tag[h]);
        s.hred[h] = -1;
        double e;
        pk_code rc = hal_once(m, &s, &e, &st);
        PK_CHECK(rc == PK_ERR_RANGE && strstr(st.msg, want), "missing partner of tag %d: %s",
                 (int)s.tag[h], st.msg);
        pk_amoeba_model near = *m;   /* cutoff 3 A: intramolecular pairs only */
        near.set.vdw_cut = 3.0;
        near.set.vdw_taper = 2.5;
        rc = hal_once(&near, &s, &e, &st);
        PK_CHECK(rc == PK_OK && e == 0.0, "missing partner, scale-0 pairs only: %s, E = %g",
                 st.msg, e);
        s.hred[h] = keep;
    }
    ts_free(&s);
}

int main(void)
{
    pk_amoeba_model m;
    if (read_water_model(&m)) return pk_test_finish();
    cluster(&m, "water_dimer.txt");
    cluster(&m, "water_hexamer.txt");
    cluster(&m, "water_far.txt");
    eatom_and_scaling(&m);
    missing_partner(&m);
    pk_amoeba_free(&m);
    water_box();
    return pk_test_finish();
}
