/* µs per atom-step of hdnnp/pk on the n2p2 RPBE-D3 water (1080 atoms, periodic, full
 * neighbour list with a 0.5 Bohr skin), optionally replicated, on a chosen backend. For the
 * cpu backend the time is split into symmetry functions, networks and force contraction; on
 * a shared machine the CPU time is the steadier number. One untimed warm-up step first.
 * Usage: bench_hdnnp [steps] [replicas per direction] [backend cpu|cuda|sve] [double|mixed]
 * Threads: OMP_NUM_THREADS. The line "backend: ..." names what really ran (a bench script
 * checks it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hdnnp_system.h"
#include "pk_hdnnp.h"
#include "pk_threads.h"
#include "pk_timer.h"

static void replicate(hd_system *s, int k)
{
    const int n = s->nlocal, nn = n * k * k * k;
    s->x = realloc(s->x, sizeof(double[3]) * (size_t)nn);
    s->type = realloc(s->type, sizeof(int) * (size_t)nn);
    int m = n;
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
            for (int c = 0; c < k; c++) {
                if (!a && !b && !c) continue;
                for (int i = 0; i < n; i++, m++) {
                    for (int q = 0; q < 3; q++)
                        s->x[m][q] = s->x[i][q] + a * s->lattice[0][q] + b * s->lattice[1][q] +
                                     c * s->lattice[2][q];
                    s->type[m] = s->type[i];
                }
            }
    for (int q = 0; q < 3; q++)
        for (int c = 0; c < 3; c++) s->lattice[q][c] *= k;
    s->nlocal = nn;
}

int main(int argc, char **argv)
{
    const int steps = argc > 1 ? atoi(argv[1]) : 10;
    const int rep = argc > 2 ? atoi(argv[2]) : 1;
    char dir[HD_PATH];
    pk_status st;
    pk_hdnnp_model *m;
    hd_system s;
    if (hd_water_reference(dir, &m, &s)) return 1;
    if (rep > 1) replicate(&s, rep);
    hd_make_ghosts_within(&s, pk_hdnnp_max_cutoff(m) + 0.5);   /* LAMMPS's ghost shell */
    hd_make_neigh(&s, pk_hdnnp_max_cutoff(m) + 0.5);
    const size_t nall = (size_t)s.nlocal + (size_t)s.nghost;
    double (*f)[3] = calloc(nall, sizeof *f);
    pk_hdnnp_context *ctx;
    pk_hdnnp_context_create(m, &ctx, &st);
    pk_backend_request req;
    pk_backend_request_cpu(&req);
    if ((argc > 3 && pk_backend_parse(argv[3], &req.kind, &st)) ||
        (argc > 4 && pk_precision_parse(argv[4], &req.precision, &st)) ||
        pk_hdnnp_set_backend(ctx, &req, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    const pk_backend_info *info = &pk_hdnnp_backend(ctx)->info;
    printf("backend: %s, %s precision, %s\n", pk_backend_name(info->kind),
           pk_precision_name(info->precision), info->device);
    const int t2e[3] = {-1, 0, 1};
    pk_atoms atoms = hd_atoms(&s);
    pk_neigh nl = hd_neigh(&s);
    pk_out out = {0};
    out.f = f;
    out.want_energy = out.want_virial = 1;
    if (pk_hdnnp_compute(ctx, &atoms, &nl, t2e, &out, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    double tsf0, tnn0, tf0;
    pk_hdnnp_timing(ctx, &tsf0, &tnn0, &tf0);
    const double t0 = pk_wall_seconds();
    const clock_t c0 = clock();
    for (int k = 0; k < steps; k++) {
        memset(f, 0, nall * sizeof *f);
        out.energy = 0.0;
        pk_hdnnp_compute(ctx, &atoms, &nl, t2e, &out, &st);
    }
    const double t = pk_wall_seconds() - t0;
    const double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    double tsf, tnn, tf;
    pk_hdnnp_timing(ctx, &tsf, &tnn, &tf);
    const double per = 1e6 / ((double)steps * s.nlocal);
    printf("atoms %d  threads %d  steps %d  energy %.10f\n", s.nlocal, pk_max_threads(), steps,
           out.energy);
    if (info->kind == PK_BACKEND_CUDA)   /* the host waits for the device: no split */
        printf("us/atom-step: wall %.3f  (cpu %.2f over all threads)\n", t * per, cpu * per);
    else
        printf("us/atom-step: wall %.2f  (cpu %.2f over all threads)  symmetry functions %.2f  "
               "networks %.2f  forces %.2f (wall, per thread)\n",
               t * per, cpu * per, (tsf - tsf0) * per, (tnn - tnn0) * per, (tf - tf0) * per);
    printf("workspace bytes: %zu (host and device)\n", pk_hdnnp_memory_usage(ctx));
    free(f);
    hd_free(&s);
    pk_hdnnp_context_free(ctx);
    pk_hdnnp_model_free(m);
    return 0;
}
