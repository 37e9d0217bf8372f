/* Checks shared by the amoeba unit tests. Included by test files only (uses pk_test.h). */
#ifndef AMOEBA_CHECK_H
#define AMOEBA_CHECK_H

#include "amoeba_testsys.h"
#include "pk_test.h"

/* The water force field the tests share (data/amoeba_water.prm and .key); a failed read is a
 * failed check, never a silent skip. Returns nonzero on failure. */
static inline int read_water_model(pk_amoeba_model *m)
{
    pk_status st;
    pk_code rc = pk_amoeba_read(m, ts_data("amoeba_water.prm"), ts_data("amoeba_water.key"), &st);
    PK_CHECK(rc == PK_OK, "read amoeba_water.prm/.key: %s", st.msg);
    return rc != PK_OK;
}

/* One term of a test system against its LAMMPS reference, as the HAL and multipole tests
 * check it: energy to 1e-10 relative (the references carry 15 digits), forces and virial
 * to 1e-10 of their largest component. */
static inline void check_term_reference(test_system *s, const pk_amoeba_model *m, int term,
                                        const char *label, const char *file)
{
    pk_status st;
    ts_errors err;
    pk_code rc = ts_against_reference(s, m, term, &err, &st);
    PK_CHECK(rc == PK_OK, "%s %s: %s", file, label, st.msg);
    PK_CHECK_CLOSE(err.energy, err.ref_energy, 1e-10, 1e-12);
    PK_CHECK(err.fdev <= 1e-10 * err.fmax, "%s forces: max dev %g of %g", file, err.fdev, err.fmax);
    PK_CHECK(err.vdev <= 1e-10 * err.vmax, "%s virial: max dev %g of %g", file, err.vdev, err.vmax);
    printf("%-18s %-5s E = %.12f (LAMMPS %.12f, rel %.2e), max |dF| %.2e of max |F| %.3g, "
           "max |dW| %.2e of %.3g\n",
           file, label, err.energy, err.ref_energy,
           fabs(err.energy - err.ref_energy) / fabs(err.ref_energy), err.fdev, err.fmax, err.vdev,
           err.vmax);
}

#endif
