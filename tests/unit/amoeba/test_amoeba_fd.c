/* Forces (with the torque and polarization contributions) and the virial against central
 * finite differences of the energy, term by term and for the total, in both electrostatics
 * modes: water clusters, and a few atoms of the periodic 216-water box (images, ghost
 * torques). The induced dipoles are converged to polar-eps 1e-10 so that the forces, the
 * gradient at fixed converged dipoles, are the energy's gradient to that accuracy.
 *
 * LAMMPS mode cuts electrostatics hard, so its energy jumps where a pair crosses a cutoff;
 * its configurations are checked to hold no pair within GAP of a cutoff, so that no
 * difference step crosses one. SMOOTH mode needs no such care: its windows are chosen to
 * hold many pairs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "amoeba_check.h"

#define GAP 1e-4   /* closest approach of a pair distance to a hard cutoff (A): 10 steps */

static const char *const MODE[2] = {"lammps", "smooth"};

typedef struct {
    int terms;
    const char *name;
    int direct;   /* direct instead of mutual polarization */
} term_case;

static const term_case TERMS[] = {{TS_HAL, "hal", 0},
                                  {TS_MPOLE, "mpole", 0},
                                  {TS_POLAR, "polar", 0},
                                  {TS_POLAR, "polar-direct", 1},
                                  {TS_HAL | TS_MPOLE | TS_POLAR, "total", 0}};
enum { NTERMS = sizeof TERMS / sizeof *TERMS };

/* Closest |r - cut| over the listed pairs of the atoms in atoms[] (all when NULL). */
static double cutoff_gap(const test_system *s, const int *atoms, int natoms, double cut)
{
    double gap = INFINITY;
    for (int i = 0; i < s->n; i++) {
        for (int jj = 0; jj < s->numneigh[i]; jj++) {
            const int j = s->firstneigh[i][jj] & PK_NEIGHMASK;
            int mine = atoms == NULL;
            for (int a = 0; a < natoms && !mine; a++)
                mine = atoms[a] == i || atoms[a] == (j < s->n ? j : s->owner[j]);
            if (!mine) continue;
            double r2 = 0;
            for (int d = 0; d < 3; d++) r2 += (s->x[j][d] - s->x[i][d]) * (s->x[j][d] - s->x[i][d]);
            gap = fmin(gap, fabs(sqrt(r2) - cut));
        }
    }
    return gap;
}

/* Pairs whose distance lies in (lo, hi]. */
static int pairs_between(const test_system *s, double lo, double hi)
{
    int c = 0;
    for (int i = 0; i < s->n; i++)
        for (int jj = 0; jj < s->numneigh[i]; jj++) {
            const int j = s->firstneigh[i][jj] & PK_NEIGHMASK;
            double r2 = 0;
            for (int d = 0; d < 3; d++) r2 += (s->x[j][d] - s->x[i][d]) * (s->x[j][d] - s->x[i][d]);
            c += r2 > lo * lo && r2 <= hi * hi;
        }
    return c;
}

/* FD of the terms in one mode over the listed atoms (atoms == NULL: all owned atoms):
 * forces to ftol of max(|F|, 1) kcal/mol/A; with virial set, the strain derivative too (to
 * 1e-6 of its largest component). short_list: only mutual polarization and the total. */
static void fd_terms(test_system *s, pk_amoeba_model *m, const char *label, const int *atoms,
                     int natoms, double h, double ftol, int virial, int short_list)
{
    pk_status st;
    for (int t = 0; t < NTERMS; t++) {
        const term_case *c = &TERMS[t];
        const int is_total = c->terms == (TS_HAL | TS_MPOLE | TS_POLAR);
        if (short_list && !is_total && !(c->terms == TS_POLAR && !c->direct)) continue;
        m->polarization = c->direct ? PK_AMOEBA_POLAR_DIRECT : PK_AMOEBA_POLAR_MUTUAL;
        double fdev, fbig;
        pk_code rc = ts_fd_forces_of(s, m, c->terms, h, atoms, natoms, &fdev, &fbig, &st);
        PK_CHECK(rc == PK_OK && fdev <= ftol * fmax(fbig, 1.0), "%s %s %s: FD force dev %g of %g (%s)",
                 label, MODE[m->set.elec], c->name, fdev, fbig, rc ? st.msg : "");
        if (c->terms & TS_POLAR)
            PK_CHECK(s->info.converged && s->info.rms < m->set.polar_eps, "%s %s: PCG rms %g", label,
                     c->name, s->info.rms);
        double vdev = 0, vmax = 0;
        if (virial) {
            double fd[6], vir[6];
            rc = ts_fd_virial(s, m, c->terms, 1e-6, fd, vir, &st);
            for (int k = 0; k < 6; k++) {
                vdev = fmax(vdev, fabs(fd[k] - vir[k]));
                vmax = fmax(vmax, fabs(vir[k]));
            }
            PK_CHECK(rc == PK_OK && vdev <= 1e-6 * fmax(vmax, 1.0), "%s %s %s: FD virial dev %g of %g",
                     label, MODE[m->set.elec], c->name, vdev, vmax);
        }
        printf("%-16s %-6s %-12s FD force dev %.2e of max |F| %8.3g", label, MODE[m->set.elec], c->name,
               fdev, fbig);
        if (virial) printf("; FD virial dev %.2e of %8.3g", vdev, vmax);
        printf("\n");
    }
    m->polarization = PK_AMOEBA_POLAR_MUTUAL;
}

/* Water clusters with the example key (cutoff 10, taper 8), and the hexamer with short
 * electrostatic cutoffs so that many pairs lie in SMOOTH's switching windows and beyond
 * the cutoffs: multipoles switched over (3.5, 5], polarization over (3, 4.5]. */
static void clusters(void)
{
    static const struct {
        const char *file;
        double mpole_taper, mpole_cut, polar_taper, polar_cut;   /* 0: as the key says */
    } sys[] = {{"water_dimer.txt", 0, 0, 0, 0},
               {"water_far.txt", 0, 0, 0, 0},
               {"water_hexamer.txt", 3.5, 5.0, 3.0, 4.5}};
    for (size_t k = 0; k < sizeof sys / sizeof *sys; k++) {
        pk_amoeba_model m;
        pk_status st;
        if (read_water_model(&m)) return;
        m.set.polar_eps = 1e-10;
        if (sys[k].mpole_cut > 0) {
            m.set.mpole_taper = sys[k].mpole_taper;
            m.set.mpole_cut = sys[k].mpole_cut;
            m.set.polar_taper = sys[k].polar_taper;
            m.set.polar_cut = sys[k].polar_cut;
        }
        test_system s;
        if (ts_load(&s, ts_data(sys[k].file), 0, 0)) {
            PK_CHECK(0, "load %s", sys[k].file);
            pk_amoeba_free(&m);
            return;
        }
        pk_code rc = ts_assign(&s, &m, &st);
        PK_CHECK(rc == PK_OK, "%s assign: %s", sys[k].file, st.msg);
        const double gap = fmin(cutoff_gap(&s, NULL, 0, m.set.mpole_cut), cutoff_gap(&s, NULL, 0, m.set.polar_cut));
        const int nm = pairs_between(&s, m.set.mpole_taper, m.set.mpole_cut);
        const int np = pairs_between(&s, m.set.polar_taper, m.set.polar_cut);
        printf("%s: %d pairs in the multipole window, %d in the polarization window, closest "
               "approach to a cutoff %.3g A\n", sys[k].file, nm, np, gap);
        PK_CHECK(gap > GAP, "%s: a pair lies within %g A of a hard cutoff", sys[k].file, gap);
        if (k > 0) PK_CHECK(nm > 0 && np > 0, "%s: pairs in the switching windows", sys[k].file);
        for (int mode = 0; mode < 2 && !rc; mode++) {
            m.set.elec = mode ? PK_AMOEBA_ELEC_SMOOTH : PK_AMOEBA_ELEC_LAMMPS;
            fd_terms(&s, &m, sys[k].file, NULL, s.n, 1e-5, 1e-7, 1, 0);
        }
        ts_free(&s);
        pk_amoeba_free(&m);
    }
}

/* The periodic box (cutoff 7, taper 6): four waters, all three atoms of each; mutual
 * polarization and the total (the other terms are cheap and covered on the clusters), then
 * the virial of the total under strain of the whole periodic system. */
static void water_box(void)
{
    pk_amoeba_model m;
    pk_status st;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water_box_noewald.key"), &st)) {
        PK_CHECK(0, "%s", st.msg);
        return;
    }
    m.set.polar_eps = 1e-10;
    test_system s;
    if (ts_load(&s, ts_data("water_box.txt"), 9.0, 7.5)) {
        PK_CHECK(0, "load water_box.txt");
        pk_amoeba_free(&m);
        return;
    }
    pk_code rc = ts_assign(&s, &m, &st);
    PK_CHECK(rc == PK_OK, "box assign: %s", st.msg);
    static const int atoms[] = {0, 1, 2, 99, 100, 101, 300, 301, 302, 645, 646, 647};
    const int na = sizeof atoms / sizeof *atoms;
    const double gap = cutoff_gap(&s, atoms, na, 7.0);
    printf("water box: %d pairs in the (6, 7] window; closest approach of the tested atoms' "
           "pairs to the cutoff %.3g A\n", pairs_between(&s, 6.0, 7.0), gap);
    PK_CHECK(gap > GAP, "box: a pair of the tested atoms lies within %g A of the cutoff", gap);
    for (int mode = 0; mode < 2 && !rc; mode++) {
        m.set.elec = mode ? PK_AMOEBA_ELEC_SMOOTH : PK_AMOEBA_ELEC_LAMMPS;
        fd_terms(&s, &m, "water_box.txt", atoms, na, 1e-5, 1e-7, 0, 1);
    }
    /* virial: a strain of hv changes a pair distance r by at most hv r, so in LAMMPS mode
     * no pair of the box may lie within 7.5 hv of the cutoff (checked) */
    const double gap_all = cutoff_gap(&s, NULL, 0, 7.0), hv = 2e-7;
    PK_CHECK(gap_all > 2 * 7.5 * hv, "box: a pair lies %g A from the cutoff", gap_all);
    for (int mode = 0; mode < 2 && !rc; mode++) {
        m.set.elec = mode ? PK_AMOEBA_ELEC_SMOOTH : PK_AMOEBA_ELEC_LAMMPS;
        double fd[6], vir[6], vdev = 0, vmax = 0;
        rc = ts_fd_virial(&s, &m, TS_HAL | TS_MPOLE | TS_POLAR, hv, fd, vir, &st);
        for (int k = 0; k < 6; k++) {
            vdev = fmax(vdev, fabs(fd[k] - vir[k]));
            vmax = fmax(vmax, fabs(vir[k]));
        }
        printf("water_box.txt    %-6s total        FD virial dev %.2e of %8.3g\n", MODE[mode], vdev, vmax);
        PK_CHECK(rc == PK_OK && vdev <= 1e-6 * vmax, "box %s virial: %g of %g", MODE[mode], vdev, vmax);
    }
    ts_free(&s);
    pk_amoeba_free(&m);
}

int main(void)
{
    clusters();
    water_box();
    return pk_test_finish();
}
