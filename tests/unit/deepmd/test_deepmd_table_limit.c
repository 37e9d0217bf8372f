/* The embedding tables have a size limit (1 GiB per net): a table_step or table_rmin so
 * small that the tables would not fit is an error naming the file, the net and the size,
 * found by fuzzing the options (a table_rmin of 7.8e-5 A asked for 2.7 GB in one malloc;
 * smaller steps could also overflow the int interval count). Ordinary steps still load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd.h"
#include "pk_test.h"

static pk_deepmd *load(const char *path, double step, double rmin, pk_status *st)
{
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    o.table_step = step;
    o.table_rmin = rmin;
    pk_status_clear(st);
    return pk_deepmd_load(path, &o, st);
}

static void expect_too_big(const char *path, double step, double rmin)
{
    pk_status st;
    pk_deepmd *dp = load(path, step, rmin, &st);
    PK_CHECK(dp == NULL && st.code == PK_ERR_ARG, "step %g rmin %g: code %d (%s)", step, rmin,
             st.code, st.msg);
    PK_CHECK(strstr(st.msg, "synth_b.yaml") && strstr(st.msg, "embeddings.networks[0]") &&
             strstr(st.msg, "GiB") && strstr(st.msg, "use a larger table_step or table_rmin"),
             "message: %s", st.msg);
    pk_deepmd_destroy(dp);
}

int main(void)
{
    const char *src = getenv("PAIRKIT_SOURCE");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/unit/deepmd/data/synth_b.yaml", src ? src : ".");
    expect_too_big(path, 0.01, 7.8e-5);
    expect_too_big(path, 1e-7, 0.5);
    expect_too_big(path, 1e-300, 0.5);
    pk_status st;
    pk_deepmd *dp = load(path, 0.001, 0.5, &st);
    PK_CHECK(dp != NULL, "table_step 0.001 must load: %s", st.msg);
    pk_deepmd_destroy(dp);
    return pk_test_finish();
}
