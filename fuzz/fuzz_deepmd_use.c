#include "fuzz_deepmd_use.h"

#include <stdlib.h>
#include <string.h>

#define MAXA 4

void fuzz_deepmd_use(pk_deepmd *dp)
{
    pk_status st;
    pk_status_clear(&st);
    const int nt = pk_deepmd_ntypes(dp);
    for (int t = 0; t < nt; t++) {
        const char *name = pk_deepmd_type_name(dp, t);
        if (!name || pk_deepmd_type_index(dp, name) < 0) abort();  /* names must round-trip */
    }
    (void)pk_deepmd_cutoff(dp);
    (void)pk_deepmd_memory(dp);
    if (nt < 1) return;
    const int n = nt < MAXA ? nt : MAXA;
    int map[MAXA], type[MAXA], ilist[MAXA], numneigh[MAXA], neigh[MAXA][MAXA];
    int *first[MAXA];
    double x[MAXA][3], f[MAXA][3];
    memset(f, 0, sizeof f);
    for (int i = 0; i < n; i++) {
        map[i] = i;
        type[i] = i + 1;
        ilist[i] = i;
        x[i][0] = 1.3 * i;
        x[i][1] = 0.2 * i * i;
        x[i][2] = 0.0;
        numneigh[i] = 0;
        for (int j = 0; j < n; j++)
            if (j != i) neigh[i][numneigh[i]++] = j;
        first[i] = neigh[i];
    }
    if (pk_deepmd_set_type_map(dp, n, map, &st)) return;
    pk_atoms a = {0};
    a.nlocal = n;
    a.x = (const double(*)[3])x;
    a.type = type;
    pk_neigh nl = {n, ilist, numneigh, first};
    pk_out out = {0};
    out.f = f;
    out.want_energy = out.want_virial = 1;
    (void)pk_deepmd_compute(dp, &a, &nl, &out, NULL, &st);
}
