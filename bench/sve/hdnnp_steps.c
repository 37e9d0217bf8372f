/* Step driver of hdnnp/pk for the SVE instruction counts: `sve_steps_hdnnp cpu|sve STEPS`
 * evaluates forces STEPS times (no energy or virial, as most MD steps) on n2p2's RPBE-D3
 * water model and its 1080-atom periodic structure (from PAIRKIT_SHARED, default
 * ../shared), positions and neighbour list fixed. Every CENTRE_STRIDE-th atom is a centre
 * (135 of them, O and H, each with its full environment), so that three steps run in seconds
 * under qemu at 512-bit SVE; "atoms" in the output counts those centres. */
#include <stdio.h>
#include <stdlib.h>

#include "hdnnp_system.h"
#include "pk_hdnnp.h"
#include "sve_steps.h"

enum { CENTRE_STRIDE = 8 };

int main(int argc, char **argv)
{
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request req;
    int steps;
    if (sve_steps_args(argc, argv, &req, &steps)) return 2;
    const char *shared = getenv("PAIRKIT_SHARED");
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/reference/n2p2/H2O_RPBE-D3", shared ? shared : "../shared");
    pk_hdnnp_model *m = NULL;
    if (pk_hdnnp_model_load(dir, NULL, &m, &st)) {
        fprintf(stderr, "load: %s\n", st.msg);
        return 1;
    }
    static const char *const symbols[] = {"H", "O"};
    static const int t2e[3] = {-1, 0, 1};   /* LAMMPS type 1 = H, 2 = O */
    hd_system s;
    snprintf(path, sizeof path, "%s/input.data", dir);
    if (hd_read_n2p2(path, symbols, 2, &s)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    hd_make_ghosts(&s);
    hd_make_neigh(&s, pk_hdnnp_max_cutoff(m) + 0.5);
    pk_neigh nl = hd_neigh(&s);
    int *centres = malloc(sizeof(int) * (size_t)s.nlocal), n = 0;
    for (int i = 0; i < s.nlocal; i += CENTRE_STRIDE) centres[n++] = i;
    nl.inum = n;
    nl.ilist = centres;
    pk_hdnnp_context *ctx = NULL;
    if (pk_hdnnp_context_create(m, &ctx, &st) || pk_hdnnp_set_backend(ctx, &req, &st)) {
        fprintf(stderr, "backend: %s\n", st.msg);
        return 2;
    }
    const size_t nall = (size_t)s.nlocal + (size_t)s.nghost;
    double(*f)[3] = calloc(nall, sizeof *f);
    const pk_atoms atoms = hd_atoms(&s);
    for (int k = 0; k < steps; k++) {
        pk_out out = {.f = f};
        if (pk_hdnnp_compute(ctx, &atoms, &nl, t2e, &out, &st)) {
            fprintf(stderr, "compute: %s\n", st.msg);
            return 1;
        }
    }
    printf("atoms=%d steps=%d\n", n, steps);
    free(f);
    free(centres);
    pk_hdnnp_context_free(ctx);
    hd_free(&s);
    pk_hdnnp_model_free(m);
    return 0;
}
