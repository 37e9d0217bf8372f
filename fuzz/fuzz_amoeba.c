#include "fuzz_amoeba.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "pk_amoeba.h"

static void use(const pk_amoeba_model *m)
{
    volatile double sink = 0.0;
    for (int t = 1; t <= m->ntypes; t++) {
        if (!m->type_defined[t]) continue;
        const int c = m->type_class[t];
        if (c >= 1 && c <= m->nclasses)
            sink += pk_amoeba_radmin(m, c, c) + pk_amoeba_epsilon(m, c, 1) + m->vdw_red[c];
        sink += m->mass[t] + m->polarity[t] + m->thole[t] + m->pdamp[t];
        for (int g = 0; g < m->npolgroup[t]; g++) sink += m->polgroup[t][g];
    }
    for (int k = 0; k < m->nmpole; k++) {
        const pk_amoeba_mpole_param *p = &m->mpole[k];
        if (pk_amoeba_find_mpole(m, p->type, p->kind, p->zt, p->xt, p->yt) < 0) abort();
    }
    (void)sink;
}

int fuzz_amoeba_one(int fuzz_prm, const uint8_t *data, size_t size)
{
    static char fixed[512];
    if (!fixed[0])
        snprintf(fixed, sizeof fixed, "%s/%s",
                 fuzz_data_dir("PK_FUZZ_AMOEBA_DIR", PK_FUZZ_AMOEBA_DIR),
                 fuzz_prm ? "amoeba_water.key" : "amoeba_water.prm");
    char path[512];
    fuzz_write(fuzz_prm ? "fuzz.prm" : "fuzz.key", data, size, path, sizeof path);
    pk_amoeba_model m;
    pk_status st;
    if (pk_amoeba_read(&m, fuzz_prm ? path : fixed, fuzz_prm ? fixed : path, &st) == PK_OK) {
        use(&m);
        pk_amoeba_free(&m);
    }
    return 0;
}
