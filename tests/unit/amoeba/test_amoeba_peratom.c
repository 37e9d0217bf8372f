/* Per-atom energies and virials (LAMMPS order xx yy zz xy xz yz) add up to the global
 * energy and virial, term by term and for the whole step, in both electrostatics modes:
 * the hexamer and the periodic box (ghost parts folded onto their owners as LAMMPS's
 * reverse communication does). The global virial itself is checked against LAMMPS and
 * finite differences in the other tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "amoeba_testsys.h"
#include "pk_test.h"

static void sums(const char *file, const char *key, double gc, double lc)
{
    static const struct {
        int terms;
        const char *name;
    } cases[] = {{TS_HAL, "hal"},
                 {TS_MPOLE, "mpole"},
                 {TS_POLAR, "polar"},
                 {TS_HAL | TS_MPOLE | TS_POLAR, "total"}};
    pk_amoeba_model m;
    pk_status st;
    test_system s;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data(key), &st) ||
        ts_load(&s, ts_data(file), gc, lc)) {
        PK_CHECK(0, "%s setup: %s", file, st.msg);
        return;
    }
    PK_CHECK(ts_assign(&s, &m, &st) == PK_OK, "%s assign: %s", file, st.msg);
    s.eatom = calloc((size_t)s.n, sizeof *s.eatom);
    s.vatom = calloc((size_t)s.n, sizeof *s.vatom);
    double (*f)[3] = calloc((size_t)s.n, sizeof *f);
    for (int mode = 0; mode < 2; mode++) {
        m.set.elec = mode ? PK_AMOEBA_ELEC_SMOOTH : PK_AMOEBA_ELEC_LAMMPS;
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            double e, vir[6], esum = 0, vsum[6] = {0, 0, 0, 0, 0, 0}, vdev = 0, vmax = 0;
            pk_code rc = ts_compute(&s, &m, cases[c].terms, &e, f, vir, &st);
            PK_CHECK(rc == PK_OK, "%s %s: %s", file, cases[c].name, st.msg);
            for (int i = 0; i < s.n; i++) {
                esum += s.eatom[i];
                for (int k = 0; k < 6; k++) vsum[k] += s.vatom[i][k];
            }
            for (int k = 0; k < 6; k++) {
                vdev = fmax(vdev, fabs(vsum[k] - vir[k]));
                vmax = fmax(vmax, fabs(vir[k]));
            }
            printf("%-18s %-6s %-6s sum of per-atom energies - E = %.1e (E %.6f); sum of per-atom "
                   "virials - W: %.1e of %.4g\n", file, mode ? "smooth" : "lammps", cases[c].name,
                   esum - e, e, vdev, vmax);
            PK_CHECK_CLOSE(esum, e, 1e-12, 1.0);
            PK_CHECK(vmax > 0 && vdev <= 1e-12 * vmax, "%s %s virial sum: %g of %g", file,
                     cases[c].name, vdev, vmax);
        }
    }
    free(f);
    free(s.eatom);
    free(s.vatom);
    s.eatom = NULL;
    s.vatom = NULL;
    ts_free(&s);
    pk_amoeba_free(&m);
}

int main(void)
{
    sums("water_hexamer.txt", "amoeba_water.key", 0, 0);
    sums("water_box.txt", "amoeba_water_box_noewald.key", 9.0, 7.5);
    return pk_test_finish();
}
