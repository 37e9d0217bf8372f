/* Support for the backend-agreement tests (DESIGN.md §8): one test body per style runs the
 * backend named on its command line against the style's cpu backend, on the same inputs.
 * CMake's pk_add_agreement_test registers the body once per backend kind that the style has
 * and the build holds: a new backend of a style adds its kind to the style's BACKENDS list,
 * and no test code.
 *
 *   test_<style>_agree <backend> [double|mixed]
 *
 * A backend that is built but cannot run here (no GPU) makes the test print why and exit
 * with PK_AGREE_SKIP, which ctest reports as skipped. */
#ifndef PK_AGREE_H
#define PK_AGREE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk_backend.h"
#include "pk_test.h"

enum { PK_AGREE_SKIP = 77 };

/* Parse argv into req (kind, precision). Returns -1 to go on, or an exit code: the usage
 * error, or PK_AGREE_SKIP when the backend cannot run on this machine. */
static inline int pk_agree_start(int argc, char **argv, const char *style,
                                 const pk_backend_ops *const by_kind[PK_BACKEND_COUNT],
                                 pk_backend_request *req)
{
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request_default(req);
    if (argc < 2 || pk_backend_parse(argv[1], &req->kind, &st) || req->kind == PK_BACKEND_AUTO ||
        (argc > 2 && pk_precision_parse(argv[2], &req->precision, &st))) {
        fprintf(stderr, "usage: %s cpu|cuda|sve [double|mixed] %s\n", argv[0], st.msg);
        return 2;
    }
    pk_backend_kind chosen;
    if (pk_backend_choose(style, by_kind, req, &chosen, NULL, 0, &st)) {
        printf("SKIP: %s\n", st.msg);
        return PK_AGREE_SKIP;
    }
    printf("%s: %s backend, %s precision against the cpu backend\n", style, argv[1],
           pk_precision_name(req->precision == PK_PRECISION_DEFAULT ? PK_PRECISION_DOUBLE
                                                                   : (pk_precision)req->precision));
    return -1;
}

/* Every got[k] within rtol * max(|want[k]|, floor) of want[k]; one check, reporting the
 * worst element. */
static inline void pk_agree_close(const char *what, const double *got, const double *want,
                                  size_t n, double rtol, double floor)
{
    double worst = 0.0;
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        const double scale = fabs(want[k]) > floor ? fabs(want[k]) : floor;
        const double dev = fabs(got[k] - want[k]) / scale;
        if (!(dev <= worst)) { worst = dev; at = k; }   /* NaN counts as worst */
    }
    PK_CHECK(worst <= rtol, "%s: element %zu of %zu: got %.17g want %.17g (rel %.3g > %.3g)",
             what, at, n, n ? got[at] : 0.0, n ? want[at] : 0.0, worst, rtol);
    printf("  %-28s max rel. deviation %.3g (tolerance %.3g)\n", what, worst, rtol);
}

/* pk_agree_close with the floor at floor_fraction times the largest |want[k]|: a component
 * that cancels to near zero is compared on the scale of the whole quantity. */
static inline void pk_agree_close_scaled(const char *what, const double *got, const double *want,
                                         size_t n, double rtol, double floor_fraction)
{
    double largest = 0.0;
    for (size_t k = 0; k < n; k++) largest = fabs(want[k]) > largest ? fabs(want[k]) : largest;
    pk_agree_close(what, got, want, n, rtol, floor_fraction * largest + 1e-300);
}

/* Two runs of the same input: bitwise equal. */
static inline void pk_agree_bitwise(const char *what, const double *a, const double *b, size_t n)
{
    size_t differ = 0;
    for (size_t k = 0; k < n; k++) differ += memcmp(&a[k], &b[k], sizeof(double)) != 0;
    PK_CHECK(differ == 0, "%s: %zu of %zu values differ between two runs of the same input",
             what, differ, n);
}

/* One evaluation's results for nall atoms (owned and ghost): forces, energy, virial and,
 * when everything is asked for, per-atom energy and virial. */
typedef struct {
    double energy, virial[6];
    double *f, *eatom, *vatom;
} pk_agree_run;

/* Allocates r's arrays and returns the pk_out a compute call fills: everything (all = 1) or
 * forces alone. pk_agree_run_end keeps the totals of that call. */
static inline pk_out pk_agree_run_begin(pk_agree_run *r, size_t nall, int all)
{
    r->f = calloc(3 * nall, sizeof(double));
    r->eatom = all ? calloc(nall, sizeof(double)) : NULL;
    r->vatom = all ? calloc(6 * nall, sizeof(double)) : NULL;
    pk_out out = {.f = (double (*)[3])r->f, .want_energy = all, .want_virial = all,
                  .eatom = r->eatom, .vatom = (double (*)[6])r->vatom};
    return out;
}

static inline void pk_agree_run_end(pk_agree_run *r, const pk_out *out)
{
    r->energy = out->energy;
    memcpy(r->virial, out->virial, sizeof r->virial);
}

static inline void pk_agree_run_free(pk_agree_run *r)
{
    free(r->f);
    free(r->eatom);
    free(r->vatom);
}

/* The tested backend's runs against the cpu backend's (want): got and its rerun again with
 * everything asked for, forces with forces alone. Every quantity of got within rtol
 * (pk_agree_close_scaled, floor_fraction), again and forces bitwise equal to got's forces. */
static inline void pk_agree_runs(const pk_agree_run *want, const pk_agree_run *got,
                                 const pk_agree_run *again, const pk_agree_run *forces,
                                 size_t nall, double rtol, double floor_fraction)
{
    pk_agree_close_scaled("forces", got->f, want->f, 3 * nall, rtol, floor_fraction);
    pk_agree_close_scaled("energy", &got->energy, &want->energy, 1, rtol, floor_fraction);
    pk_agree_close_scaled("virial", got->virial, want->virial, 6, rtol, floor_fraction);
    pk_agree_close_scaled("per-atom energy", got->eatom, want->eatom, nall, rtol,
                          floor_fraction);
    pk_agree_close_scaled("per-atom virial", got->vatom, want->vatom, 6 * nall, rtol,
                          floor_fraction);
    pk_agree_bitwise("forces, rerun", again->f, got->f, 3 * nall);
    pk_agree_bitwise("forces without energy/virial", forces->f, got->f, 3 * nall);
}

#endif
