/* µs per atom-evaluation of the deepmd/pk C kernel (no LAMMPS) on a water-like box of n^3
 * molecules at 1 g/cm^3 (periodic, full neighbour list): the best of `reps` evaluations, wall
 * clock and CPU time, so a profile or an A/B comparison needs no LAMMPS run.
 * Usage: bench_deepmd model.yaml tabulate(0|1) [n = 4] [reps = 5]
 * Threads: OMP_NUM_THREADS. Model types are mapped in order (1 = O, 2 = H). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dp_run.h"
#include "pk_threads.h"
#include "pk_timer.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s model.yaml tabulate(0|1) [n] [reps]\n", argv[0]);
        return 2;
    }
    const int tab = atoi(argv[2]), n = argc > 3 ? atoi(argv[3]) : 4;
    const int reps = argc > 4 ? atoi(argv[4]) : 5, nat = 3 * n * n * n;
    pk_status st;
    pk_deepmd *dp = dp_load_path(argv[1], tab, 0, &st);
    if (!dp) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    const double L = 3.1043 * n, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    double *x = malloc(sizeof(double) * 3 * nat);
    int *type = malloc(sizeof(int) * nat);
    dp_water(n, L, 7, x, type);
    dp_sys sys;
    dp_sys_build(&sys, nat, x, type, box, pk_deepmd_cutoff(dp));
    double best = 1e30, best_cpu = 1e30, e = 0.0;
    for (int r = 0; r < reps; r++) {
        dp_result res;
        const double t0 = pk_wall_seconds();
        const clock_t c0 = clock();
        if (dp_run(dp, &sys, &res, &st)) {
            fprintf(stderr, "%s\n", st.msg);
            return 1;
        }
        const double t = pk_wall_seconds() - t0, c = (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (t < best) best = t;
        if (c < best_cpu) best_cpu = c;
        e = res.energy;
        dp_result_free(&res);
    }
    printf("%s  %s  atoms %d  threads %d  energy %.10f\n", argv[1], tab ? "tabulated" : "exact",
           nat, pk_max_threads(), e);
    printf("us/atom: wall %.2f  cpu %.2f (best of %d)  kernel bytes %zu\n", 1e6 * best / nat,
           1e6 * best_cpu / nat, reps, pk_deepmd_memory(dp));
    dp_sys_free(&sys);
    pk_deepmd_destroy(dp);
    free(x);
    free(type);
    return 0;
}
