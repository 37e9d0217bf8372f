/* libFuzzer harness: the mdpd/pk settings and coefficients as pair_style mdpd/pk,
 * pair_coeff and pair_style mdpd/rhosum/pk hand them to the core (numbers LAMMPS has
 * already parsed, type ranges within 1..ntypes as utils::bounds gives them), then one
 * density and force evaluation of three atoms. The input is a byte stream: ntypes, the
 * settings, then commands until it ends (see below). */
#include <string.h>

#include "fuzz_common.h"
#include "mdpd.h"

static int type_in(fuzz_bytes *b, int ntypes) { return 1 + (int)(fuzz_u8(b) % (unsigned)ntypes); }

static void step(pk_mdpd *m, fuzz_bytes *b, int ntypes)
{
    enum { N = 3 };
    double x[N][3] = {{0, 0, 0}, {0.4, 0, 0}, {0.5, 0.3, 0}}, v[N][3] = {{0}}, f[N][3];
    double rho[N];
    int type[N], ilist[N] = {0, 1, 2}, numneigh[N] = {2, 1, 0}, n0[2] = {1, 2}, n1[1] = {2};
    int *first[N] = {n0, n1, NULL};
    pk_tag tag[N] = {1, 2, 3};
    for (int i = 0; i < N; i++) {
        type[i] = type_in(b, ntypes);
        v[i][0] = fuzz_double(b);
    }
    memset(f, 0, sizeof f);
    pk_atoms a = {0};
    a.nlocal = N;
    a.x = (const double(*)[3])x;
    a.v = (const double(*)[3])v;
    a.type = type;
    a.tag = tag;
    pk_neigh nl = {N, ilist, numneigh, first};
    pk_mdpd_step s = {7, fuzz_double(b), NULL};
    pk_out out = {0};
    out.f = f;
    out.want_energy = out.want_virial = 1;
    pk_status st;
    pk_status_clear(&st);
    if (pk_mdpd_density(m, &a, &nl, 1, rho, &st) == PK_OK)
        (void)pk_mdpd_forces(m, &a, &nl, 1, rho, &s, &out, &st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = {data, size};
    const int ntypes = 1 + (int)(fuzz_u8(&b) % 3);
    pk_mdpd *m = pk_mdpd_create(ntypes);
    if (!m) return 0;
    pk_status st;
    pk_status_clear(&st);
    const double kT = fuzz_double(&b), rc = fuzz_double(&b);
    uint32_t seed = fuzz_u8(&b);
    const pk_mdpd_kernel kernel = fuzz_u8(&b) & 1 ? PK_MDPD_LUCY : PK_MDPD_WARREN;
    if (pk_mdpd_settings(m, kT, rc, seed, kernel, &st)) goto done;
    /* commands: 0 = pair_coeff ilo ihi jlo jhi A B gamma rc rd, 1 = rhosum i j h */
    while (b.n) {
        if (fuzz_u8(&b) & 1) {
            const int i = type_in(&b, ntypes), j = type_in(&b, ntypes);
            if (pk_mdpd_density_cutoff(m, i, j, fuzz_double(&b), &st)) goto done;
        } else {
            int r[4];
            for (int k = 0; k < 4; k++) r[k] = type_in(&b, ntypes);
            double c[5];
            for (int k = 0; k < 5; k++) c[k] = fuzz_double(&b);
            if (pk_mdpd_coeff(m, r[0], r[1], r[2], r[3], c[0], c[1], c[2], c[3], c[4], &st))
                goto done;
        }
    }
    if (pk_mdpd_init(m, &st)) goto done;
    for (int i = 1; i <= ntypes; i++)
        for (int j = 1; j <= ntypes; j++) (void)pk_mdpd_cutoff(m, i, j);
    b.p = data;
    b.n = size;
    step(m, &b, ntypes);
done:
    pk_mdpd_destroy(m);
    return 0;
}
