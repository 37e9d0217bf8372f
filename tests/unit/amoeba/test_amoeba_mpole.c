/* Permanent multipoles: energies and forces (with torque forces) against LAMMPS amoeba
 * for water clusters; every frame kind against central differences and rotational
 * invariance on a synthetic molecule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_testsys.h"
#include "amoeba_check.h"
#include "pk_test.h"

static void check_fd(test_system *s, const pk_amoeba_model *m, int terms, const char *what)
{
    pk_status st;
    double fdev, fbig, fd[6], vir[6];
    pk_code rc = ts_fd_forces(s, m, terms, 1e-5, &fdev, &fbig, &st);
    PK_CHECK(rc == PK_OK && fdev <= 1e-7 * fmax(fbig, 1.0), "%s finite differences: %g of %g (%s)", what, fdev,
             fbig, st.msg);
    rc = ts_fd_virial(s, m, terms, 1e-6, fd, vir, &st);
    double vdev = 0, vmax = 0;
    for (int k = 0; k < 6; k++) {
        vdev = fmax(vdev, fabs(fd[k] - vir[k]));
        vmax = fmax(vmax, fabs(vir[k]));
    }
    PK_CHECK(rc == PK_OK && vdev <= 1e-6 * vmax, "%s virial: %g of %g", what, vdev, vmax);
    printf("%-20s FD force dev %.2e of max |F| %.3g; FD virial dev %.2e of %.3g\n", what, fdev, fbig,
           vdev, vmax);
}

/* water: O is a bisector of its H atoms; H is z-then-x with z = O, x = the other H */
static void check_water_frames(const test_system *s, const pk_amoeba_model *m)
{
    for (int i = 0; i < s->n; i++) {
        const pk_amoeba_mpole_param *p = &m->mpole[s->mpole[i]];
        const int *fr = s->frame[i];
        if (s->amtype[i] == 1)
            PK_CHECK(p->kind == PK_AMOEBA_BISECTOR && s->amtype[fr[0]] == 2 && s->amtype[fr[1]] == 2 &&
                         s->tag[fr[0]] != s->tag[fr[1]] && fr[2] == i,
                     "O frame of atom %d", i + 1);
        else
            PK_CHECK(p->kind == PK_AMOEBA_ZTHENX && s->amtype[fr[0]] == 1 && s->amtype[fr[1]] == 2 &&
                         s->tag[fr[1]] != s->tag[i] && fr[2] == i,
                     "H frame of atom %d", i + 1);
    }
}

static void cluster(const pk_amoeba_model *m, const char *file)
{
    test_system s;
    pk_status st;
    if (ts_load(&s, ts_data(file), 0, 0)) {
        PK_CHECK(0, "load %s", file);
        return;
    }
    PK_CHECK(ts_assign(&s, m, &st) == PK_OK, "%s assign: %s", file, st.msg);
    check_water_frames(&s, m);
    check_term_reference(&s, m, TS_MPOLE, "MPOLE", file);
    /* the hard cutoff makes the energy discontinuous only at r = cutoff; away from it
     * forces are still the energy's gradient */
    check_fd(&s, m, TS_MPOLE, file);
    check_fd(&s, m, TS_HAL | TS_MPOLE, "hal+mpole");
    ts_free(&s);
}

/* 216 waters in a periodic box: frames through ghost images, torques on ghosts folded
 * back, forces of the first 96 atoms and the virial against LAMMPS. */
static void water_box(void)
{
    pk_amoeba_model m;
    pk_status st;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water_box_noewald.key"), &st)) {
        PK_CHECK(0, "%s", st.msg);
        return;
    }
    test_system s;
    if (ts_load(&s, ts_data("water_box.txt"), 9.0, 7.5)) {
        PK_CHECK(0, "load water_box.txt");
        pk_amoeba_free(&m);
        return;
    }
    PK_CHECK(ts_assign(&s, &m, &st) == PK_OK, "water box assign: %s", st.msg);
    check_water_frames(&s, &m);
    check_term_reference(&s, &m, TS_MPOLE, "MPOLE", "water_box.txt");
    ts_free(&s);
    pk_amoeba_free(&m);
}

/* A synthetic force field with every frame kind: a tetrahedral centre C (type 1, 3-fold
 * frame on types 2, 3, 4) bonded to four distinct substituents: type 2 z-only, type 3
 * bisector (C and a 1-3 type 2), type 4 z-bisector (C, 1-3 types 2 and 3), type 5
 * z-then-x with a chirality atom (C, 1-3 types 2 and 3). Moments are arbitrary but
 * traceless. Two copies, one of them mirrored, so the chirality flip is exercised. */
static const char *SYNTH_PRM =
    "      ##############################\n"
    "      ##  Force Field Definition  ##\n"
    "      ##############################\n"
    "forcefield   SYNTHETIC-FRAMES\n"
    "vdwtype      BUFFERED-14-7\n"
    "radiusrule   CUBIC-MEAN\n"
    "radiustype   R-MIN\n"
    "radiussize   DIAMETER\n"
    "epsilonrule  HHG\n"
    "vdw-12-scale 0.0\n"
    "vdw-13-scale 0.0\n"
    "mpole-12-scale 0.0\n"
    "mpole-13-scale 0.0\n"
    "mpole-14-scale 0.4\n"
    "mpole-15-scale 0.8\n"
    "      ##############################\n"
    "      ##  Atom Type Definitions   ##\n"
    "      ##############################\n"
    "atom 1 1 C \"centre\" 6 12.0 4\n"
    "atom 2 2 A \"z-only\" 1 1.0 1\n"
    "atom 3 2 B \"bisector\" 1 1.0 1\n"
    "atom 4 2 D \"z-bisector\" 1 1.0 1\n"
    "atom 5 2 E \"z-then-x chiral\" 1 1.0 1\n"
    "vdw 1 3.8 0.10\n"
    "vdw 2 2.9 0.02 0.92\n"
    "multipole 1 -2 -3 -4  -0.30\n"
    "       0.05 -0.07 0.11\n"
    "       0.21\n"
    "       0.13 -0.35\n"
    "      -0.09 0.17 0.14\n"
    "multipole 2 1  0.12  0.0 0.0 -0.08  0.10  0.0 0.10  0.0 0.0 -0.20\n"  /* axial */
    "multipole 3 -1 -2  0.06  -0.04 0.05 0.09  -0.12  0.07 0.25  0.03 0.08 -0.13\n"
    "multipole 4 1 -2 -3  0.05  0.06 -0.03 0.07  0.18  -0.05 -0.08  0.02 0.09 -0.10\n"
    "multipole 5 1 2 3  0.07  0.03 0.08 -0.06  -0.15  0.09 0.11  -0.04 0.06 0.04\n"
    "polarize 1 1.3 0.39 2 3 4 5\n"
    "polarize 2 0.5 0.39 1\n"
    "polarize 3 0.6 0.30 1\n"
    "polarize 4 0.4 0.39\n"             /* lists no group types (joined through C) */
    "polarize 5 0.0 0.39 1\n";          /* not polarizable, still polarizes the others */

static void synthetic_frames(void)
{
    FILE *fp = fopen("amoeba_mpole_synth.prm", "w");
    if (!fp) {
        PK_CHECK(0, "cannot write prm");
        return;
    }
    fputs(SYNTH_PRM, fp);
    fclose(fp);
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, "amoeba_mpole_synth.prm", NULL, &st);
    PK_CHECK(rc == PK_OK, "synthetic prm: %s", st.msg);
    if (rc) return;
    m.set.mpole_cut = m.set.vdw_cut = m.set.polar_cut = 20.0;
    m.set.vdw_taper = 18.0;
    m.set.polar_eps = 1e-11;

    /* molecule 1 (slightly distorted tetrahedron), molecule 2 = mirror image, shifted */
    const double mol[5][3] = {{0.00, 0.00, 0.00},   {0.63, 0.62, 0.66}, {-0.61, -0.64, 0.60},
                              {-0.66, 0.61, -0.63}, {0.60, -0.65, -0.58}};
    const int types[5] = {1, 2, 3, 4, 5};
    double x[10][3];
    int amtype[10], bonds[8][2];
    for (int k = 0; k < 5; k++) {
        for (int d = 0; d < 3; d++) x[k][d] = mol[k][d];
        x[5 + k][0] = -mol[k][0] + 3.1;
        x[5 + k][1] = mol[k][1] + 0.4;
        x[5 + k][2] = mol[k][2] - 0.7;
        amtype[k] = amtype[5 + k] = types[k];
    }
    for (int k = 0; k < 4; k++) {
        bonds[k][0] = 0;
        bonds[k][1] = 1 + k;
        bonds[4 + k][0] = 5;
        bonds[4 + k][1] = 6 + k;
    }
    test_system s;
    ts_init(&s, 10, amtype, (const double (*)[3])x, 8, (const int (*)[2])bonds);
    rc = ts_assign(&s, &m, &st);
    PK_CHECK(rc == PK_OK, "synthetic assign: %s", st.msg);
    if (!rc) {
        const pk_amoeba_frame_kind want[5] = {PK_AMOEBA_THREEFOLD, PK_AMOEBA_ZONLY, PK_AMOEBA_BISECTOR,
                                              PK_AMOEBA_ZBISECT, PK_AMOEBA_ZTHENX};
        for (int k = 0; k < 10; k++) {
            const pk_amoeba_frame_kind kind = m.mpole[s.mpole[k]].kind;
            PK_CHECK(kind == want[k % 5], "atom %d kind %d", k + 1, kind);
            /* the record is found again from the kind and the frame atoms' types */
            int ft[3];
            for (int a = 0; a < 3; a++) ft[a] = s.frame[k][a] == k ? 0 : s.amtype[s.frame[k][a]];
            PK_CHECK(pk_amoeba_find_mpole(&m, s.amtype[k], kind, ft[0], ft[1], ft[2]) == s.mpole[k],
                     "find_mpole for atom %d", k + 1);
        }
        /* frame atoms: z of every substituent is its centre; 3-fold uses types 2,3,4 */
        PK_CHECK(s.frame[0][0] == 1 && s.frame[0][1] == 2 && s.frame[0][2] == 3, "3-fold atoms");
        PK_CHECK(s.frame[4][0] == 0 && s.frame[4][1] == 1 && s.frame[4][2] == 2, "chiral atoms");
        PK_CHECK(s.frame[1][1] == 1 && s.frame[1][2] == 1, "z-only leaves x, y on itself");
        check_fd(&s, &m, TS_MPOLE, "synthetic mpole");
        check_fd(&s, &m, TS_HAL | TS_MPOLE, "synthetic hal+mpole");
        check_fd(&s, &m, TS_POLAR, "synthetic polar");
        PK_CHECK(s.info.converged, "synthetic PCG converged (rms %g)", s.info.rms);
        m.polarization = PK_AMOEBA_POLAR_DIRECT;
        check_fd(&s, &m, TS_POLAR, "synthetic polar direct");
        m.polarization = PK_AMOEBA_POLAR_MUTUAL;

        /* the chirality flip: mirrored copies have mirrored y dipole components */
        double (*rp)[13] = calloc(10, sizeof *rp);
        pk_atoms a = ts_atoms(&s);
        pk_amoeba_sites sites = {.amtype = s.amtype, .amgroup = s.amgroup, .hred = s.hred, .mpole = s.mpole, .frame = (const int (*)[3])s.frame};
        pk_amoeba_work frames = {0};
        pk_amoeba_rotate(&m, &a, &sites, rp, &frames, &st);
        pk_amoeba_work_free(&frames);
        /* site 5 (z-then-x + chirality) vs its mirror image (x -> -x): the global dipole of
         * the mirror is the mirror of the dipole, so dx flips and dy, dz stay */
        PK_CHECK_CLOSE(rp[9][1], -rp[4][1], 1e-12, 1e-3);
        PK_CHECK_CLOSE(rp[9][2], rp[4][2], 1e-12, 1e-3);
        PK_CHECK_CLOSE(rp[9][3], rp[4][3], 1e-12, 1e-3);
        free(rp);

        /* rigid rotation of everything leaves the energy unchanged */
        double e0, e1;
        double (*f)[3] = calloc(10, sizeof *f);
        ts_compute(&s, &m, TS_HAL | TS_MPOLE, &e0, f, NULL, &st);
        const double c = cos(0.7), sn = sin(0.7);
        for (int i = 0; i < 10; i++) {
            const double x0 = s.x[i][0], y0 = s.x[i][1], z0 = s.x[i][2];
            s.x[i][0] = c * x0 - sn * z0 + 1.0;
            s.x[i][1] = y0 - 2.0;
            s.x[i][2] = sn * x0 + c * z0 + 0.5;
        }
        ts_compute(&s, &m, TS_HAL | TS_MPOLE, &e1, f, NULL, &st);
        printf("synthetic: E = %.12f, after rigid rotation %.12f\n", e0, e1);
        PK_CHECK_CLOSE(e1, e0, 1e-12, 1.0);
        /* net force and net torque vanish (no external field) */
        double F[3] = {0, 0, 0}, T[3] = {0, 0, 0};
        for (int i = 0; i < 10; i++) {
            for (int d = 0; d < 3; d++) F[d] += f[i][d];
            T[0] += s.x[i][1] * f[i][2] - s.x[i][2] * f[i][1];
            T[1] += s.x[i][2] * f[i][0] - s.x[i][0] * f[i][2];
            T[2] += s.x[i][0] * f[i][1] - s.x[i][1] * f[i][0];
        }
        PK_CHECK(fabs(F[0]) + fabs(F[1]) + fabs(F[2]) < 1e-11, "net force %g %g %g", F[0], F[1], F[2]);
        PK_CHECK(fabs(T[0]) + fabs(T[1]) + fabs(T[2]) < 1e-10, "net torque %g %g %g", T[0], T[1], T[2]);
        free(f);
    }

    /* a frame that cannot be built: type 3 without any type 2 neighbour */
    const int lone_types[2] = {1, 3};
    const double lone_x[2][3] = {{0, 0, 0}, {1, 0, 0}};
    const int lone_bond[1][2] = {{0, 1}};
    test_system bad;
    ts_init(&bad, 2, lone_types, lone_x, 1, lone_bond);
    rc = ts_assign(&bad, &m, &st);
    PK_CHECK(rc == PK_ERR_ARG && strstr(st.msg, "atom 1") && strstr(st.msg, "frame"),
             "missing frame atoms: %s", st.msg);
    ts_free(&bad);
    ts_free(&s);
    pk_amoeba_free(&m);
}

/* 1-n scaling through the list's special classes, including 1-5 partners (which the
 * LAMMPS list does not flag): a 7-atom chain of point charges with distinct scale factors,
 * against a direct sum written independently of the kernels (Coulomb, and HAL in the
 * rho = r/rv form of Halgren 1992). */
static const char *CHAIN_PRM =
    "forcefield     CHAIN\n"
    "vdwtype        BUFFERED-14-7\n"
    "radiusrule     ARITHMETIC\n"
    "radiustype     R-MIN\n"
    "radiussize     RADIUS\n"
    "epsilonrule    GEOMETRIC\n"
    "vdw-12-scale   0.0\n"
    "vdw-13-scale   0.25\n"
    "vdw-14-scale   0.5\n"
    "vdw-15-scale   0.75\n"
    "mpole-12-scale 0.1\n"
    "mpole-13-scale 0.2\n"
    "mpole-14-scale 0.4\n"
    "mpole-15-scale 0.8\n"
    "atom 1 1 X \"plus\" 6 12.0 2\n"
    "atom 2 2 Y \"minus\" 7 14.0 2\n"
    "vdw 1 1.9 0.10\n"
    "vdw 2 1.7 0.06\n"
    "multipole 1  0.30 0 0 0 0 0 0 0 0 0\n"
    "multipole 2 -0.25 0 0 0 0 0 0 0 0 0\n";

static void scaling_chain(void)
{
    FILE *fp = fopen("amoeba_mpole_chain.prm", "w");
    if (!fp) return;
    fputs(CHAIN_PRM, fp);
    fclose(fp);
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, "amoeba_mpole_chain.prm", NULL, &st);
    PK_CHECK(rc == PK_OK, "chain prm: %s", st.msg);
    if (rc) return;
    m.set.vdw_cut = m.set.mpole_cut = 50.0;
    m.set.vdw_taper = 49.0;
    enum { N = 7 };
    double x[N][3];
    int types[N], bonds[N - 1][2];
    for (int k = 0; k < N; k++) {
        x[k][0] = 1.45 * k;
        x[k][1] = 0.5 * (k % 2) + 0.03 * k * k;
        x[k][2] = 0.11 * k * k - 0.2 * k;
        types[k] = 1 + k % 2;
        if (k < N - 1) {
            bonds[k][0] = k;
            bonds[k][1] = k + 1;
        }
    }
    test_system s;
    ts_init(&s, N, types, (const double (*)[3])x, N - 1, (const int (*)[2])bonds);
    rc = ts_assign(&s, &m, &st);
    PK_CHECK(rc == PK_OK, "chain assign: %s", st.msg);
    double emp, ehal, (*f)[3] = calloc(N, sizeof *f);
    ts_compute(&s, &m, TS_MPOLE, &emp, f, NULL, &st);
    ts_compute(&s, &m, TS_HAL, &ehal, f, NULL, &st);
    const double q[3] = {0, 0.30, -0.25}, rad[3] = {0, 1.9, 1.7}, eps[3] = {0, 0.10, 0.06};
    const double smp[6] = {0, 0.1, 0.2, 0.4, 0.8, 1.0}, svdw[6] = {0, 0.0, 0.25, 0.5, 0.75, 1.0};
    double wmp = 0, whal = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            const int sep = j - i < 5 ? j - i : 5;
            const double r = sqrt(pow(x[j][0] - x[i][0], 2) + pow(x[j][1] - x[i][1], 2) +
                                  pow(x[j][2] - x[i][2], 2));
            wmp += smp[sep] * PK_AMOEBA_ELECTRIC * q[types[i]] * q[types[j]] / r;
            const double rv = rad[types[i]] + rad[types[j]], e = sqrt(eps[types[i]] * eps[types[j]]);
            const double rho = r / rv, d = 0.07, g = 0.12;
            whal += svdw[sep] * e * pow((1 + d) / (rho + d), 7) * ((1 + g) / (pow(rho, 7) + g) - 2);
        }
    printf("chain: E_mpole %.12f (direct sum %.12f), E_hal %.12f (direct sum %.12f)\n", emp, wmp, ehal, whal);
    PK_CHECK_CLOSE(emp, wmp, 1e-12, 1e-12);
    PK_CHECK_CLOSE(ehal, whal, 1e-12, 1e-12);
    check_fd(&s, &m, TS_HAL | TS_MPOLE, "chain hal+mpole");
    /* the chain scales 1-5 pairs: a list without 1-5 partners is refused */
    pk_atoms a = ts_atoms(&s);
    pk_neigh nl = ts_neigh(&s);
    pk_amoeba_topology t = ts_topology(&s);
    t.special15 = NULL;
    pk_amoeba_list list = {0};
    rc = pk_amoeba_list_build(&list, &m, &nl, &a, &t, &st);
    PK_CHECK(rc == PK_ERR_ARG && strstr(st.msg, "one/five"), "missing 1-5 lists: %s", st.msg);
    pk_amoeba_list_free(&list);
    free(f);
    ts_free(&s);
    pk_amoeba_free(&m);
}

int main(void)
{
    pk_amoeba_model m;
    if (read_water_model(&m)) return pk_test_finish();
    cluster(&m, "water_dimer.txt");
    cluster(&m, "water_hexamer.txt");
    cluster(&m, "water_far.txt");
    pk_amoeba_free(&m);
    water_box();
    synthetic_frames();
    scaling_chain();
    return pk_test_finish();
}
