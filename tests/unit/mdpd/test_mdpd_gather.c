/* The CUDA backend's per-atom code (mdpd_gather.h: one thread's density and force over a full
 * list in CSR form, and the host's CSR flattening), run here on the host in both precisions
 * and compared with the cpu backend. It checks the GPU path's physics on machines without a
 * GPU; the CUDA agreement test checks the same code on the device. */
#include <stdlib.h>
#include <string.h>

#include "mdpd_compare.h"
#include "mdpd_internal.h"
#include "mdpd_system.h"

PK_MDPD_PAIR_FUNCTIONS(_f, float)
PK_MDPD_GATHER_FUNCTIONS(, double)
PK_MDPD_GATHER_FUNCTIONS(_f, float)

/* What the CUDA backend does, thread by thread, on the host: density per list entry, the
 * ghosts' copies, then forces with per-atom energy and virial. */
static void gather_step(const pk_mdpd *m, const mdpd_system *s, const pk_mdpd_step *step,
                        int mixed, mdpd_result *r)
{
    const pk_neigh full = mdpd_system_full_view(s);
    const size_t total = pk_mdpd_csr_size(&full);
    int *centre = malloc(sizeof(int) * (size_t)full.inum);
    int *offset = malloc(sizeof(int) * ((size_t)full.inum + 1));
    int *neigh = malloc(sizeof(int) * (total + 1));
    const int interior = pk_mdpd_csr_fill(&full, s->nlocal, centre, offset, neigh);
    double *mass = malloc(sizeof(double) * (size_t)s->nall);
    for (int i = 0; i < s->nall; i++) mass[i] = s->mass[s->type[i]];

    pk_mdpd_gather g;
    pk_mdpd_gather_params(m, step, &g);
    g.x = (const double(*)[3])s->x;
    g.v = (const double(*)[3])s->v;
    g.type = s->type;
    g.tag = s->tag;
    g.mass = pk_mdpd_kernel_of(m) == PK_MDPD_LUCY ? mass : NULL;
    g.centre = centre;
    g.offset = offset;
    g.neigh = neigh;
    g.pair = m->pair;

    PK_CHECK(interior > 0 && interior < full.inum, "interior entries %d of %d", interior, full.inum);
    for (int ii = 0; ii < interior; ii++)
        for (int k = offset[ii]; k < offset[ii + 1]; k++)
            PK_CHECK(pk_neigh_index(neigh[k]) < s->nlocal, "interior entry %d lists a ghost", ii);

    for (int ii = 0; ii < full.inum; ii++)
        r->rho[centre[ii]] = mixed ? pk_mdpd_gather_density_f(&g, ii) : pk_mdpd_gather_density(&g, ii);
    for (int gh = s->nlocal; gh < s->nall; gh++) r->rho[gh] = r->rho[s->owner[gh]];
    r->energy = 0.0;
    memset(r->virial, 0, sizeof r->virial);
    for (int ii = 0; ii < full.inum; ii++) {
        const int i = centre[ii];
        double ev[7] = {0, 0, 0, 0, 0, 0, 0};
        if (mixed) pk_mdpd_gather_force_f(&g, r->rho, ii, 1, r->f[i], ev);
        else pk_mdpd_gather_force(&g, r->rho, ii, 1, r->f[i], ev);
        r->eatom[i] = ev[0];
        memcpy(r->vatom[i], &ev[1], sizeof r->vatom[i]);
        r->energy += ev[0];
        for (int k = 0; k < 6; k++) r->virial[k] += ev[1 + k];
    }
    free(centre); free(offset); free(neigh); free(mass);
}

static void run_case(const char *name, pk_mdpd_kernel kernel, pk_mdpd_noise noise)
{
    pk_mdpd *m = mdpd_two_type_model(kernel);
    pk_status st;
    pk_status_clear(&st);
    PK_CHECK(pk_mdpd_set_noise(m, noise, &st) == PK_OK, "%s", st.msg);
    mdpd_system s;
    mdpd_system_liquid(&s, 11u + (unsigned)kernel);
    const double special[4] = MDPD_LIQUID_SPECIAL;
    const pk_mdpd_step step = {100, 0.01, special};

    mdpd_result want;
    mdpd_result_alloc(&want, &s);
    mdpd_system_step(m, &s, &step, 1, 1, &want);   /* m is on the cpu backend */
    for (int mixed = 0; mixed <= 1; mixed++) {
        mdpd_result got;
        mdpd_result_alloc(&got, &s);
        gather_step(m, &s, &step, mixed, &got);
        char label[128];
        snprintf(label, sizeof label, "%s, gather in %s:", name, mixed ? "mixed precision" : "double");
        mdpd_compare(label, &s, &got, &want, mixed);
        mdpd_result_free(&got);
    }
    mdpd_result_free(&want);
    mdpd_system_free(&s);
    pk_mdpd_destroy(m);
}

int main(void)
{
    run_case("warren density", PK_MDPD_WARREN, PK_MDPD_NOISE_GAUSSIAN);
    run_case("lucy density (mass-weighted)", PK_MDPD_LUCY, PK_MDPD_NOISE_GAUSSIAN);
    run_case("warren density, uniform noise", PK_MDPD_WARREN, PK_MDPD_NOISE_UNIFORM);
    run_case("lucy density, uniform noise", PK_MDPD_LUCY, PK_MDPD_NOISE_UNIFORM);
    return pk_test_finish();
}
