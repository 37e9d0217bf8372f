/* hdnnp/pk against n2p2's own prediction for the RPBE-D3 water model (1080 atoms, periodic):
 * energy and all forces to 1e-10 relative; consistency of virial, per-atom energy and
 * per-atom virial; 1 vs 2 threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "hdnnp_system.h"
#include "pk_hdnnp.h"
#include "pk_test.h"


typedef struct {
    double energy, virial[6];
    double (*f)[3];
    double *eatom;
    double (*vatom)[6];
} result;

static void run(pk_hdnnp_context *ctx, const hd_system *s, const int *t2e, result *r)
{
    const size_t nall = (size_t)s->nlocal + (size_t)s->nghost;
    r->f = calloc(nall, sizeof *r->f);
    r->eatom = calloc(nall, sizeof *r->eatom);
    r->vatom = calloc(nall, sizeof *r->vatom);
    pk_out out = {0};
    out.f = r->f;
    out.want_energy = out.want_virial = 1;
    out.eatom = r->eatom;
    out.vatom = r->vatom;
    pk_atoms atoms = hd_atoms(s);
    pk_neigh nl = hd_neigh(s);
    pk_status st;
    pk_code rc = pk_hdnnp_compute(ctx, &atoms, &nl, t2e, &out, &st);
    PK_CHECK(rc == PK_OK, "compute: %s", st.msg);
    r->energy = out.energy;
    memcpy(r->virial, out.virial, sizeof r->virial);
}

int main(void)
{
    char dir[HD_PATH], path[HD_PATH + 32];
    pk_status st;
    pk_hdnnp_model *m;
    hd_system s;
    PK_CHECK(hd_water_reference(dir, &m, &s) == 0, "the n2p2 water reference");
    if (!m) return pk_test_finish();
    PK_CHECK(pk_hdnnp_num_elements(m) == 2 && pk_hdnnp_element_index(m, "H") == 0 &&
                 pk_hdnnp_element_index(m, "O") == 1, "element order by atomic number");
    PK_CHECK(pk_hdnnp_num_symfuncs(m, 0) == 27 && pk_hdnnp_num_symfuncs(m, 1) == 30,
             "symmetry function counts %d %d", pk_hdnnp_num_symfuncs(m, 0),
             pk_hdnnp_num_symfuncs(m, 1));
    PK_CHECK_CLOSE(pk_hdnnp_max_cutoff(m), 12.0, 0.0, 1.0);

    PK_CHECK(s.nlocal == 1080, "input.data: %d atoms", s.nlocal);
    hd_make_ghosts(&s);
    hd_make_neigh(&s, pk_hdnnp_max_cutoff(m) + 0.5);   /* a skin, as LAMMPS has */

    /* reference: energy line then one force line per atom */
    snprintf(path, sizeof path, "%s/reference-prediction.txt", dir);
    FILE *fp = fopen(path, "r");
    PK_CHECK(fp != NULL, "open %s", path);
    if (!fp) return pk_test_finish();
    double eref = 0.0, (*fref)[3] = calloc((size_t)s.nlocal, sizeof *fref);
    char line[512];
    int nf = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#') continue;
        if (strncmp(line, "energy", 6) == 0) { eref = atof(line + 6); continue; }
        if (nf < s.nlocal &&
            sscanf(line, "%lf %lf %lf", &fref[nf][0], &fref[nf][1], &fref[nf][2]) == 3)
            nf++;
    }
    fclose(fp);
    PK_CHECK(nf == s.nlocal, "reference forces %d", nf);

    const int t2e[3] = {-1, 0, 1};
    pk_hdnnp_context *ctx = NULL;
    PK_CHECK(pk_hdnnp_context_create(m, &ctx, &st) == PK_OK, "context: %s", st.msg);

#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    result r1;
    run(ctx, &s, t2e, &r1);
    const size_t nall = (size_t)s.nlocal + (size_t)s.nghost;

    /* virial = sum over owned and ghost atoms of x (x) f, before folding ghosts */
    double fdotr[6] = {0}, esum = 0.0, vsum[6] = {0};
    for (size_t i = 0; i < nall; i++) {
        const double *x = s.x[i], *f = r1.f[i];
        const double w[6] = {x[0] * f[0], x[1] * f[1], x[2] * f[2], x[0] * f[1], x[0] * f[2],
                             x[1] * f[2]};
        for (int q = 0; q < 6; q++) { fdotr[q] += w[q]; vsum[q] += r1.vatom[i][q]; }
        esum += r1.eatom[i];
    }
    double vscale = 0.0;
    for (int q = 0; q < 6; q++) vscale = fmax(vscale, fabs(r1.virial[q]));
    for (int q = 0; q < 6; q++) {
        PK_CHECK_CLOSE(r1.virial[q], fdotr[q], 1e-10, vscale);
        PK_CHECK_CLOSE(vsum[q], r1.virial[q], 1e-10, vscale);
    }
    PK_CHECK_CLOSE(esum, r1.energy, 1e-12, 1.0);

    hd_fold(&s, r1.f);
    const double erel = fabs(r1.energy - eref) / fabs(eref);
    PK_CHECK(erel <= 1e-10, "energy %.17g, n2p2 %.17g, rel %.3g", r1.energy, eref, erel);
    double fmaxref = 0.0, errmax = 0.0, relmax = 0.0;
    for (int i = 0; i < s.nlocal; i++)
        for (int c = 0; c < 3; c++) fmaxref = fmax(fmaxref, fabs(fref[i][c]));
    int bad = 0;
    for (int i = 0; i < s.nlocal; i++)
        for (int c = 0; c < 3; c++) {
            const double d = fabs(r1.f[i][c] - fref[i][c]);
            errmax = fmax(errmax, d);
            /* relative to the component, with the largest force as floor 1e-3 below */
            const double rel = d / fmax(fabs(fref[i][c]), 1e-3 * fmaxref);
            relmax = fmax(relmax, rel);
            if (rel > 1e-10 && bad++ < 5)
                fprintf(stderr, "atom %d comp %d: %.17g vs n2p2 %.17g\n", i, c, r1.f[i][c],
                        fref[i][c]);
        }
    PK_CHECK(bad == 0, "%d force components off by more than 1e-10 relative", bad);
    printf("energy %.17g (n2p2 %.17g) rel err %.3g\n", r1.energy, eref, erel);
    printf("forces: max abs err %.3g, max rel err %.3g (largest force %.3g)\n", errmax, relmax,
           fmaxref);
    printf("extrapolation warnings: %ld\n", pk_hdnnp_ew_count(ctx));
    PK_CHECK(pk_hdnnp_ew_count(ctx) == 0, "no extrapolation for the training-like structure");

#ifdef _OPENMP
    omp_set_num_threads(2);
    result r2;
    run(ctx, &s, t2e, &r2);
    hd_fold(&s, r2.f);
    double d2 = 0.0;
    for (int i = 0; i < s.nlocal; i++)
        for (int c = 0; c < 3; c++) d2 = fmax(d2, fabs(r2.f[i][c] - r1.f[i][c]) / fmaxref);
    PK_CHECK_CLOSE(r2.energy, r1.energy, 1e-13, 1.0);
    PK_CHECK(d2 <= 1e-12, "1 vs 2 threads: forces differ by %.3g", d2);
    printf("1 vs 2 threads: energy diff %.3g, max force diff %.3g (rel. to largest)\n",
           fabs(r2.energy - r1.energy), d2);
    free(r2.f); free(r2.eatom); free(r2.vatom);
#endif

    free(r1.f); free(r1.eatom); free(r1.vatom);
    free(fref);
    hd_free(&s);
    pk_hdnnp_context_free(ctx);
    pk_hdnnp_model_free(m);
    return pk_test_finish();
}
