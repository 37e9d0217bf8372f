/* µs per atom-evaluation of deepmd/pk (no LAMMPS) on a periodic box with a full neighbour
 * list: the best of `reps` evaluations after the untimed warm-up, wall clock and CPU time,
 * so a profile or an A/B comparison needs no LAMMPS run. Warm-up: one evaluation, and on the
 * cuda backend as many as its launch tuner may take (deepmd_launch.h), so that the timed
 * ones run the tuned shape. The model's log lines (the tuner's choice among them) are
 * printed with the prefix "log: ".
 * Usage: bench_deepmd model.yaml tabulate(0|1) [n = 4] [reps = 5] [backend = cpu]
 *                     [precision = double] [system = water]
 *   system water: n^3 molecules at 1 g/cm^3 (3 n^3 atoms; model types 1 = O, 2 = H)
 *   system fcc:   n^3 fcc cells of a = 3.634 A (4 n^3 atoms, copper), each atom displaced by
 *                 up to 0.05 A (deterministic), model type 1
 *   backend cpu|cuda|sve, precision double|mixed: pk_deepmd_set_backend (the log line names
 *   what ran, to be checked by the caller).
 * Threads: OMP_NUM_THREADS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_box.h"
#include "deepmd_launch.h"
#include "dp_run.h"
#include "pk_threads.h"
#include "pk_timer.h"

static void print_log(void *ctx, const char *msg)
{
    (void)ctx;
    printf("log: %s\n", msg);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s model.yaml tabulate(0|1) [n] [reps] [backend] [precision] "
                "[water|fcc]\n", argv[0]);
        return 2;
    }
    const int tab = atoi(argv[2]), n = argc > 3 ? atoi(argv[3]) : 4;
    const int reps = argc > 4 ? atoi(argv[4]) : 5;
    const char *backend = argc > 5 ? argv[5] : "cpu", *precision = argc > 6 ? argv[6] : "double";
    const char *system = argc > 7 ? argv[7] : "water";
    const int fcc = !strcmp(system, "fcc");
    if (!fcc && strcmp(system, "water")) {
        fprintf(stderr, "system must be water or fcc, not %s\n", system);
        return 2;
    }
    pk_status st;
    pk_backend_request req;
    pk_backend_request_default(&req);
    /* the arguments win over PAIRKIT_BACKEND/PAIRKIT_PRECISION; PAIRKIT_GPU_MEMORY_CAP applies
     * (bench/deepmd_gpu.py --memory-limit under a V100-sized cap) */
    if (pk_backend_parse(backend, &req.kind, &st) ||
        pk_precision_parse(precision, &req.precision, &st) ||
        pk_backend_request_env(&req, 1, 1, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 2;
    }
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    o.tabulate = tab;
    o.log = (pk_logger){print_log, NULL};
    pk_deepmd *dp = pk_deepmd_load(argv[1], &o, &st);
    int map[16];
    for (int t = 0; dp && t < pk_deepmd_ntypes(dp) && t < 16; t++) map[t] = t;
    if (!dp || pk_deepmd_set_type_map(dp, pk_deepmd_ntypes(dp), map, &st) ||
        pk_deepmd_set_backend(dp, &req, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    const pk_backend_slot *slot = pk_deepmd_backend(dp);
    const int warm = slot->info.kind == PK_BACKEND_CUDA ? 1 + DP_TUNE_ROUNDS * DP_LAUNCH_MAX : 1;
    const int nat = fcc ? 4 * n * n * n : 3 * n * n * n;
    const double side = fcc ? 3.634 * n : 3.1043 * n, L[3] = {side, side, side};
    double *x = malloc(sizeof(double) * 3 * nat);
    int *type = malloc(sizeof(int) * nat);
    if (fcc) {
        bench_fcc(n, 3.634, x, type);
        unsigned s = 12345u;
        for (int k = 0; k < 3 * nat; k++) {
            s = s * 1664525u + 1013904223u;
            x[k] += 0.05 * ((s >> 8) / 16777216.0 * 2.0 - 1.0);
        }
    } else {
        dp_water(n, side, 7, x, type);
    }
    bench_box box;
    if (bench_box_build(&box, nat, x, type, L, pk_deepmd_cutoff(dp))) return 1;
    const size_t na = (size_t)box.nall;
    double *f = malloc(sizeof(double) * 3 * na);
    double best = 1e30, best_cpu = 1e30, e = 0.0, fsum = 0.0;
    for (int r = 1 - warm; r <= reps; r++) {   /* r <= 0: warm-up, not timed */
        memset(f, 0, sizeof(double) * 3 * na);
        pk_out out = {.f = (double (*)[3])f, .want_energy = 1, .want_virial = 1};
        const double t0 = pk_wall_seconds();
        const clock_t c0 = clock();
        if (pk_deepmd_compute(dp, &box.atoms, &box.nl, &out, NULL, &st)) {
            fprintf(stderr, "%s\n", st.msg);
            return 1;
        }
        const double t = pk_wall_seconds() - t0, c = (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (r > 0 && t < best) best = t;
        if (r > 0 && c < best_cpu) best_cpu = c;
        e = out.energy;
    }
    for (size_t k = 0; k < 3 * na; k++) fsum += f[k] * f[k];
    printf("%s  %s  %s  atoms %d  ghosts %d  threads %d  energy %.10f  |f|^2 %.10e\n", argv[1],
           system, tab ? "tabulated" : "exact", nat, box.nall - nat, pk_max_threads(), e, fsum);
    printf("backend %s  precision %s  device %s\n", pk_backend_name(slot->info.kind),
           pk_precision_name(slot->info.precision), slot->info.device);
    printf("us/atom: wall %.4f  cpu %.4f (best of %d)  kernel bytes %zu\n", 1e6 * best / nat,
           1e6 * best_cpu / nat, reps, pk_deepmd_memory(dp));
    bench_box_free(&box);
    pk_deepmd_destroy(dp);
    free(x);
    free(type);
    free(f);
    return 0;
}
