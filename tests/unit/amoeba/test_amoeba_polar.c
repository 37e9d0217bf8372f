/* Induced dipoles and the polarization energy against LAMMPS amoeba (E_polar, mutual and
 * direct) for water clusters and the periodic water box; polarization groups; the PCG
 * solution against a tightly converged one; an unconverged solve is reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_check.h"

static void polar_against_lammps(const char *file, const char *key, double gc, double lc)
{
    for (int kind = 0; kind < 2; kind++) {
        pk_amoeba_model m;
        pk_status st;
        if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data(key), &st)) {
            PK_CHECK(0, "%s", st.msg);
            return;
        }
        m.polarization = kind ? PK_AMOEBA_POLAR_DIRECT : PK_AMOEBA_POLAR_MUTUAL;
        test_system s;
        if (ts_load(&s, ts_data(file), gc, lc)) {
            PK_CHECK(0, "load %s", file);
            pk_amoeba_free(&m);
            return;
        }
        pk_code rc = ts_assign(&s, &m, &st);
        PK_CHECK(rc == PK_OK, "%s assign: %s", file, st.msg);
        /* one polarization group per water, named by its oxygen (the smallest tag) */
        int ngroups = 0, bad = 0;
        for (int i = 0; i < s.n; i++) {
            if (s.amgroup[i] == (int)s.tag[i]) ngroups++;
            const int o = s.amtype[i] == 1 ? i : s.frame[i][0];   /* H frames: z = own O */
            if (s.amgroup[i] != (int)s.tag[o]) bad++;
        }
        PK_CHECK(ngroups == s.n / 3 && bad == 0, "%s groups: %d (want %d), %d misassigned", file,
                 ngroups, s.n / 3, bad);

        /* energy, forces (of the atoms listed) and virial (if given) against LAMMPS */
        ts_errors err;
        rc = ts_against_reference(&s, &m, TS_POLAR, &err, &st);
        PK_CHECK(rc == PK_OK && s.info.converged, "%s induce: %s", file, st.msg);
        printf("%-18s %s: E_polar = %.12f (LAMMPS %.12f, rel %.2e), %d PCG iterations (rms %.2e D); "
               "max |dF| %.2e of %.3g; max |dW| %.2e of %.3g\n",
               file, kind ? "direct" : "mutual", err.energy, err.ref_energy,
               fabs(err.energy - err.ref_energy) / fabs(err.ref_energy), s.info.iterations, s.info.rms,
               err.fdev, err.fmax, err.vdev, err.vmax);
        PK_CHECK_CLOSE(err.energy, err.ref_energy, 1e-10, 1e-12);
        PK_CHECK(err.fmax > 0 || kind == 1, "%s has reference polarization forces", file);
        PK_CHECK(err.fdev <= 1e-9 * err.fmax, "%s polar forces: %g of %g", file, err.fdev, err.fmax);
        PK_CHECK(err.vdev <= 1e-9 * err.vmax, "%s polar virial: %g of %g", file, err.vdev, err.vmax);
        ts_free(&s);
        pk_amoeba_free(&m);
    }
}

/* The PCG result at polar-eps 1e-5 (plus peek) against a solve converged to 1e-12 without
 * preconditioner: the dipoles agree to about the requested tolerance, and the energy is
 * stationary-accurate. Also: no convergence within polar-iter is reported, not hidden. */
static void pcg_checks(void)
{
    pk_amoeba_model m;
    pk_status st;
    if (read_water_model(&m)) return;
    test_system s;
    if (ts_load(&s, ts_data("water_hexamer.txt"), 0, 0)) {
        PK_CHECK(0, "load water_hexamer.txt");
        pk_amoeba_free(&m);
        return;
    }
    ts_assign(&s, &m, &st);
    double (*u1)[6] = calloc((size_t)s.nall, sizeof *u1), (*u2)[6] = calloc((size_t)s.nall, sizeof *u2);
    double e1, e2;
    pk_amoeba_induce_info i1, i2, i3;
    ts_polar(&s, &m, u1, &e1, &i1, &st);
    m.set.polar_eps = 1e-12;
    m.set.pcg_precond = 0;
    m.set.pcg_guess = 0;
    pk_code rc = ts_polar(&s, &m, u2, &e2, &i2, &st);
    PK_CHECK(rc == PK_OK && i2.converged && i2.rms < 1e-12, "tight solve: rms %g", i2.rms);
    double du = 0, umax = 0;
    for (int i = 0; i < s.n; i++)
        for (int d = 0; d < 6; d++) {
            du = fmax(du, fabs(u1[i][d] - u2[i][d]));
            umax = fmax(umax, fabs(u2[i][d]));
        }
    printf("hexamer PCG: eps 1e-5 in %d iterations vs 1e-12 unpreconditioned in %d: max |du| %.2e "
           "(of %.3g e*A), E %.12f vs %.12f\n", i1.iterations, i2.iterations, du, umax, e1, e2);
    PK_CHECK(du < 1e-5 / 4.80321 * 10, "dipoles agree to the tolerance: %g", du);
    PK_CHECK_CLOSE(e1, e2, 1e-7, 1.0);
    m.set.polar_iter = 2;
    rc = ts_polar(&s, &m, u2, &e2, &i3, &st);
    PK_CHECK(rc == PK_OK && !i3.converged && i3.iterations == 2 && isfinite(e2),
             "unconverged solve is flagged: converged %d after %d", i3.converged, i3.iterations);
    free(u1);
    free(u2);
    ts_free(&s);
    pk_amoeba_free(&m);
}

/* The periodic box solved with the ghosts mapped onto their owned copies (no communication
 * in the PCG, as on one rank) and through the ghost communication (as on several ranks):
 * the same iterations, dipoles and energy up to round-off. */
static void pcg_local_vs_comm(void)
{
    pk_amoeba_model m;
    pk_status st;
    test_system s;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water_box_noewald.key"), &st) ||
        ts_load(&s, ts_data("water_box.txt"), 9.0, 7.5)) {
        PK_CHECK(0, "box setup");
        return;
    }
    ts_assign(&s, &m, &st);
    double (*u[2])[6], e[2];
    pk_amoeba_induce_info info[2];
    for (int k = 0; k < 2; k++) {
        u[k] = calloc((size_t)s.nall, sizeof *u[k]);
        s.pcg_comm = k;
        PK_CHECK(ts_polar(&s, &m, u[k], &e[k], &info[k], &st) == PK_OK, "box PCG: %s", st.msg);
    }
    double du = 0, umax = 0;
    for (int i = 0; i < s.nall; i++)
        for (int d = 0; d < 6; d++) {
            du = fmax(du, fabs(u[0][i][d] - u[1][i][d]));
            umax = fmax(umax, fabs(u[1][i][d]));
        }
    printf("box PCG without / with ghost communication: %d / %d iterations, max |du| %.2e of "
           "%.3g, E %.12f / %.12f\n", info[0].iterations, info[1].iterations, du, umax, e[0], e[1]);
    PK_CHECK(info[0].iterations == info[1].iterations, "iterations %d vs %d", info[0].iterations,
             info[1].iterations);
    PK_CHECK(du <= 1e-12 * umax, "dipoles differ by %g", du);
    PK_CHECK_CLOSE(e[0], e[1], 1e-12, 1.0);
    free(u[0]);
    free(u[1]);
    ts_free(&s);
    pk_amoeba_free(&m);
}

/* Forces and virial are the gradient of E_polar when the dipoles are converged tightly,
 * for water and for the synthetic molecule with every frame kind. */
static void polar_fd(const char *file)
{
    pk_amoeba_model m;
    pk_status st;
    if (read_water_model(&m)) return;
    m.set.polar_eps = 1e-11;
    test_system s;
    if (ts_load(&s, ts_data(file), 0, 0)) {
        PK_CHECK(0, "load %s", file);
        pk_amoeba_free(&m);
        return;
    }
    ts_assign(&s, &m, &st);
    double fdev, fbig, fd[6], vir[6];
    pk_code rc = ts_fd_forces(&s, &m, TS_POLAR, 1e-5, &fdev, &fbig, &st);
    PK_CHECK(rc == PK_OK && fdev <= 1e-7 * fmax(fbig, 1.0), "%s polar FD: %g of %g (%s)", file, fdev, fbig, st.msg);
    rc = ts_fd_virial(&s, &m, TS_POLAR, 1e-6, fd, vir, &st);
    double vdev = 0, vmax = 0;
    for (int k = 0; k < 6; k++) {
        vdev = fmax(vdev, fabs(fd[k] - vir[k]));
        vmax = fmax(vmax, fabs(vir[k]));
    }
    printf("%-18s polar FD force dev %.2e of max |F| %.3g; FD virial dev %.2e of %.3g (%d PCG it.)\n",
           file, fdev, fbig, vdev, vmax, s.info.iterations);
    PK_CHECK(rc == PK_OK && vdev <= 1e-6 * vmax, "%s polar virial: %g of %g", file, vdev, vmax);
    ts_free(&s);
    pk_amoeba_free(&m);
}

/* The whole step (all three terms at once, one torque pass) against the sum of the LAMMPS
 * per-term references: E_pair of the water box without Ewald is -1770.2537 kcal/mol. */
static void full_step(const char *file, const char *key, double gc, double lc)
{
    pk_amoeba_model m;
    pk_status st;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data(key), &st)) return;
    test_system s;
    if (ts_load(&s, ts_data(file), gc, lc)) return;
    ts_assign(&s, &m, &st);
    double (*f)[3] = calloc((size_t)s.n, sizeof *f), e, vir[6];
    pk_code rc = ts_compute(&s, &m, TS_HAL | TS_MPOLE | TS_POLAR, &e, f, vir, &st);
    const ts_reference *r = s.ref;
    const double want = r[TS_REF_HAL].energy + r[TS_REF_MPOLE].energy + r[TS_REF_POLAR].energy;
    double dev = 0, fmx = 0, vdev = 0, vmax = 0;
    for (int i = 0; i < s.n; i++) {
        if (!r[TS_REF_HAL].has_f[i] || !r[TS_REF_MPOLE].has_f[i] || !r[TS_REF_POLAR].has_f[i]) continue;
        for (int d = 0; d < 3; d++) {
            const double w = r[TS_REF_HAL].f[i][d] + r[TS_REF_MPOLE].f[i][d] + r[TS_REF_POLAR].f[i][d];
            dev = fmax(dev, fabs(f[i][d] - w));
            fmx = fmax(fmx, fabs(w));
        }
    }
    if (r[TS_REF_HAL].has_virial && r[TS_REF_MPOLE].has_virial && r[TS_REF_POLAR].has_virial)
        for (int k = 0; k < 6; k++) {
            const double w = r[TS_REF_HAL].virial[k] + r[TS_REF_MPOLE].virial[k] + r[TS_REF_POLAR].virial[k];
            vdev = fmax(vdev, fabs(vir[k] - w));
            vmax = fmax(vmax, fabs(w));
        }
    printf("%-18s full step: E_pair = %.10f (LAMMPS terms %.10f), max |dF| %.2e of %.3g, max |dW| %.2e of %.3g\n",
           file, e, want, dev, fmx, vdev, vmax);
    PK_CHECK(rc == PK_OK, "%s full step: %s", file, st.msg);
    PK_CHECK_CLOSE(e, want, 1e-10, 1e-12);
    PK_CHECK(dev <= 1e-9 * fmx && vdev <= 1e-9 * vmax, "%s full step forces %g, virial %g", file, dev, vdev);
    /* per-atom energies add up to the total */
    s.eatom = calloc((size_t)s.n, sizeof *s.eatom);
    double e3, esum = 0;
    ts_compute(&s, &m, TS_HAL | TS_MPOLE | TS_POLAR, &e3, f, vir, &st);
    for (int i = 0; i < s.n; i++) esum += s.eatom[i];
    PK_CHECK_CLOSE(esum, e3, 1e-12, 1.0);
    free(s.eatom);
    s.eatom = NULL;
    /* a rerun with the same thread count gives the same bits */
    double (*f2)[3] = calloc((size_t)s.n, sizeof *f2), e2, vir2[6];
    ts_compute(&s, &m, TS_HAL | TS_MPOLE | TS_POLAR, &e2, f2, vir2, &st);
    PK_CHECK(e2 == e && !memcmp(f, f2, (size_t)s.n * sizeof *f) && !memcmp(vir, vir2, sizeof vir),
             "%s rerun is bitwise identical", file);
    free(f2);
    free(f);
    ts_free(&s);
    pk_amoeba_free(&m);
}

int main(void)
{
    polar_against_lammps("water_dimer.txt", "amoeba_water.key", 0, 0);
    polar_against_lammps("water_hexamer.txt", "amoeba_water.key", 0, 0);
    polar_against_lammps("water_far.txt", "amoeba_water.key", 0, 0);
    polar_against_lammps("water_box.txt", "amoeba_water_box_noewald.key", 9.0, 7.5);
    full_step("water_hexamer.txt", "amoeba_water.key", 0, 0);
    full_step("water_box.txt", "amoeba_water_box_noewald.key", 9.0, 7.5);
    pcg_checks();
    pcg_local_vs_comm();
    polar_fd("water_dimer.txt");
    polar_fd("water_hexamer.txt");
    return pk_test_finish();
}
