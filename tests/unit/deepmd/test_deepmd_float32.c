/* A float32 model (DeePMD-kit trains those too): the cpu backend's tabulated kernel runs its
 * fitting nets in float (dp_fit_atoms_f), the rest in double.
 *
 * Model: the realistic-size synthetic water model written as float32 by
 * tools/deepmd_synthetic_model.py --precision float32 (weights rounded to float), generated
 * at build time; its path comes in PK_DEEPMD_WATER_F32_MODEL. Its twin declared float64 (the
 * same file with every "precision: float32" read as float64: the same weights) runs the
 * double path.
 *
 * Checks dp_tanh_nf (the float tanh of these nets) against libm's tanh in double over
 * [-12, 12] and at its clamp: within 4 units in the last place of float (measured 2.5).
 * Then, over 4 water-like boxes of 81 atoms (jittered, random orientations):
 *  - the log text says "fitting net float32" for the float32 model with the tabulated
 *    kernel, float64 for its twin and for the exact kernel;
 *  - float against double with the same weights and tables: atomic energies within 1e-5 eV
 *    (|E_atom| up to ~5 eV, where float rounds at ~2.4e-7 eV; measured 1.3e-6 eV, total
 *    energy of 81 atoms 6e-6 eV), forces within 1e-5 of the largest component (measured
 *    6.2e-7 of 0.2 eV/A);
 *  - the exact kernel (double for every model) gives the same bits for both files;
 *  - finite differences, loosely: the float energy is the sum of atomic energies each
 *    rounded at ~1e-7 relative, so a difference quotient over a step h carries rounding
 *    noise ~1e-6 eV / h, which grows as h shrinks (measured on 12 atoms: forces 4.7e-3 of
 *    the largest at h = 0.01 A, 3.3e-2 at 0.001, 0.22 at 1e-4; the double twin: 4.5e-5,
 *    4.9e-9, 7.4e-9). Checked at h = 0.01 A: forces within 2e-2 of the largest, virial
 *    within 2e-3 (measured 1.6e-4), and the global virial equal to the sum of the per-atom
 *    ones to 1e-13. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_internal.h"
#include "dp_run.h"
#include "pk_test.h"

enum { NCONF = 4, NMOL = 3, NAT = 3 * NMOL * NMOL * NMOL };

/* The model file with every "precision: float32" changed to float64 (same length), written
 * next to it; returns its path or NULL. */
static const char *float64_twin(const char *path)
{
    static char out[4096];
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = s ? fread(s, 1, (size_t)n, fp) : 0;
    fclose(fp);
    if (got != (size_t)n) {
        free(s);
        return NULL;
    }
    s[n] = 0;
    static const char from[] = "precision: float32";
    for (char *p = strstr(s, from); p; p = strstr(p, from)) memcpy(p + 16, "64", 2);
    snprintf(out, sizeof out, "%s.as-float64.yaml", path);
    fp = fopen(out, "wb");
    int ok = fp && fwrite(s, 1, (size_t)n, fp) == (size_t)n;
    if (fp) ok &= fclose(fp) == 0;
    free(s);
    return ok ? out : NULL;
}

/* Largest error of dp_tanh_nf in units of the float spacing at tanh(z) (libm's double tanh
 * as the reference). */
static double check_tanh_f(void)
{
    enum { N = 200001 };
    float *z = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) z[i] = (float)(-12.0 + 24.0 * i / (N - 1));
    z[0] = 10.0f, z[1] = -10.0f, z[2] = 9.99f, z[3] = 1e-30f, z[4] = 0.0f;
    float *t = malloc(sizeof(float) * N);
    memcpy(t, z, sizeof(float) * N);
    dp_tanh_nf(t, N);
    double worst = 0.0;
    for (int i = 0; i < N; i++) {
        const double ref = tanh((double)z[i]);
        const double ulp = ref == 0.0 ? 0x1p-149 : fmax(ldexp(1.0, ilogb(ref) - 23), 0x1p-149);
        worst = fmax(worst, fabs(t[i] - ref) / ulp);
    }
    free(z), free(t);
    return worst;
}

int main(void)
{
    const double eu = check_tanh_f();
    printf("dp_tanh_nf against libm's tanh: %.2f float ulp at most\n", eu);
    PK_CHECK(eu <= 4.0, "dp_tanh_nf is %.2f ulp off", eu);

    const char *path = getenv("PK_DEEPMD_WATER_F32_MODEL");
    PK_CHECK(path != NULL, "PK_DEEPMD_WATER_F32_MODEL is not set (ctest sets it)");
    if (!path) return pk_test_finish();
    const char *twin = float64_twin(path);
    PK_CHECK(twin != NULL, "cannot write the float64 twin of %s", path);
    if (!twin) return pk_test_finish();
    pk_status st;
    pk_deepmd *f32 = dp_load_path(path, 1, 0, &st);
    PK_CHECK(f32 != NULL, "%s", st.msg);
    pk_deepmd *f64 = dp_load_path(twin, 1, 0, &st);
    PK_CHECK(f64 != NULL, "%s", st.msg);
    pk_deepmd *x32 = dp_load_path(path, 0, 0, &st);
    PK_CHECK(x32 != NULL, "%s", st.msg);
    pk_deepmd *x64 = dp_load_path(twin, 0, 0, &st);
    PK_CHECK(x64 != NULL, "%s", st.msg);
    if (!f32 || !f64 || !x32 || !x64) return pk_test_finish();
    PK_CHECK(!strcmp(pk_deepmd_fit_precision(f32), "fitting net float32"), "got '%s'",
             pk_deepmd_fit_precision(f32));
    PK_CHECK(!strcmp(pk_deepmd_fit_precision(f64), "fitting net float64"), "got '%s'",
             pk_deepmd_fit_precision(f64));
    PK_CHECK(strstr(pk_deepmd_fit_precision(x32), "float64 (float32 model") != NULL,
             "got '%s'", pk_deepmd_fit_precision(x32));

    double ee = 0.0, ef = 0.0, eE = 0.0, emag = 0.0, fmag = 0.0;
    int exact_same = 1;
    for (int c = 0; c < NCONF; c++) {
        double x[3 * NAT], L = 9.313, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
        int type[NAT];
        dp_water(NMOL, L, 300 + c, x, type);
        dp_sys s;
        dp_sys_build(&s, NAT, x, type, box, pk_deepmd_cutoff(f32));
        dp_result a, b, xa, xb;
        PK_CHECK(dp_run(f32, &s, &a, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(dp_run(f64, &s, &b, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(dp_run(x32, &s, &xa, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(dp_run(x64, &s, &xb, &st) == PK_OK, "%s", st.msg);
        ee = fmax(ee, dp_abserr(a.eatom, b.eatom, NAT));
        ef = fmax(ef, dp_relerr(a.f, b.f, 3 * NAT));
        eE = fmax(eE, fabs(a.energy - b.energy));
        for (int i = 0; i < NAT; i++) emag = fmax(emag, fabs(b.eatom[i]));
        for (int k = 0; k < 3 * NAT; k++) fmag = fmax(fmag, fabs(b.f[k]));
        exact_same &= !memcmp(xa.eatom, xb.eatom, sizeof(double) * NAT) &&
                      !memcmp(xa.f, xb.f, sizeof(double) * 3 * NAT);
        dp_result_free(&a), dp_result_free(&b), dp_result_free(&xa), dp_result_free(&xb);
        dp_sys_free(&s);
    }
    printf("float32 fitting nets against float64 with the same weights, %d boxes of %d atoms: "
           "atomic energy %.3g eV (largest |E_atom| %.3g), total %.3g eV, forces %.3g of the "
           "largest (%.3g eV/A)\n", NCONF, NAT, ee, emag, eE, ef, fmag);
    PK_CHECK(ee <= 1e-5, "atomic energies differ by %.3g eV", ee);
    PK_CHECK(ef <= 1e-5, "forces differ by %.3g of the largest", ef);
    PK_CHECK(exact_same, "the exact kernel differs between the float32 file and its twin");
    /* Finite differences of the float energy, step 0.01 A (see above). */
    double x[3 * NAT], L = 9.313, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    int type[NAT];
    dp_water(NMOL, L, 300, x, type);
    dp_config cf = {.n = NAT, .x = x, .type = type, .box = box, .nfd = 12};
    double fd_f, fd_w, fd_l;
    dp_fd_errors(f32, &cf, pk_deepmd_cutoff(f32), 1e-2, &fd_f, &fd_w, &fd_l);
    printf("float32 forces and virial against finite differences (h 0.01 A): %.3g, %.3g of "
           "the largest; global virial against the per-atom sum %.3g\n", fd_f, fd_w, fd_l);
    PK_CHECK(fd_f <= 2e-2 && fd_w <= 2e-3 && fd_l <= 1e-13, "fd f %.3g W %.3g sum %.3g", fd_f,
             fd_w, fd_l);
    pk_deepmd_destroy(f32), pk_deepmd_destroy(f64);
    pk_deepmd_destroy(x32), pk_deepmd_destroy(x64);
    remove(twin);
    return pk_test_finish();
}
