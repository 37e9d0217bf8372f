#include "fuzz_deepmd_use.h"

#include <stdlib.h>

#include "fuzz_common.h"

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
    /* up to four atoms of types 1..n, one per model type, on a parabola */
    const int n = nt < FUZZ_MAX_ATOMS ? nt : FUZZ_MAX_ATOMS;
    int map[FUZZ_MAX_ATOMS];
    double x[FUZZ_MAX_ATOMS][3];
    for (int i = 0; i < n; i++) {
        map[i] = i;
        x[i][0] = 1.3 * i;
        x[i][1] = 0.2 * i * i;
        x[i][2] = 0.0;
    }
    if (pk_deepmd_set_type_map(dp, n, map, &st)) return;
    fuzz_cluster c;
    fuzz_cluster_init(&c, n, (const double(*)[3])x);
    (void)pk_deepmd_compute(dp, &c.atoms, &c.list, &c.out, NULL, &st);
}
