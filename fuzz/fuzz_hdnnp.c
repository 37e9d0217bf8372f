#include "fuzz_hdnnp.h"

#include <stdio.h>

#include "fuzz_common.h"
#include "pk_hdnnp.h"

static const char *const FILES[] = {"input.nn", "scaling.data", "weights.001.data",
                                    "weights.008.data"};

/* Three atoms, 1.0 A apart on a bent line, of types cycling over the elements; each is a
 * neighbour of the others. */
static void evaluate(const pk_hdnnp_model *m, pk_hdnnp_context *ctx)
{
    enum { N = 3 };
    const int nel = pk_hdnnp_num_elements(m);
    if (nel < 1) return;
    const double x[N][3] = {{0, 0, 0}, {1.0, 0, 0}, {1.3, 0.95, 0}};
    int t2e[N + 1];
    t2e[0] = -1;
    for (int i = 0; i < N; i++) t2e[i + 1] = i % nel;
    fuzz_cluster c;
    fuzz_cluster_init(&c, N, x);
    pk_status st;
    pk_status_clear(&st);
    (void)pk_hdnnp_compute(ctx, &c.atoms, &c.list, t2e, &c.out, &st);
}

int fuzz_hdnnp_one(const char *name, const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        const char *src = fuzz_data_dir("PK_FUZZ_DATA_DIR", PK_FUZZ_DATA_DIR);
        char p[512];
        for (size_t k = 0; k < sizeof FILES / sizeof FILES[0]; k++) {
            snprintf(p, sizeof p, "%s/n2p2/%s", src, FILES[k]);
            fuzz_copy(p, FILES[k]);
        }
        ready = 1;
    }
    char path[512];
    fuzz_write(name, data, size, path, sizeof path);
    pk_status st;
    pk_hdnnp_model *m = NULL;
    if (pk_hdnnp_model_load(fuzz_dir(), NULL, &m, &st) == PK_OK) {
        for (int e = 0; e < pk_hdnnp_num_elements(m); e++) {
            char buf[256];
            for (int s = 0; s < pk_hdnnp_num_symfuncs(m, e); s++)
                (void)pk_hdnnp_describe_symfunc(m, e, s, buf, sizeof buf);
        }
        (void)pk_hdnnp_max_cutoff(m);
        pk_hdnnp_context *ctx = NULL;
        if (pk_hdnnp_context_create(m, &ctx, &st) == PK_OK) {
            evaluate(m, ctx);
            pk_hdnnp_context_free(ctx);
        }
    }
    pk_hdnnp_model_free(m);
    return 0;
}
