/* libFuzzer harness: the pair_style deepmd/pk options that reach the core (tabulate,
 * table_step >= 0.005, table_rmin >= 0.2 A; the adapter checks both > 0), applied to a fixed
 * small model (fuzz/data/deepmd_tiny.yaml) that is then used (fuzz_deepmd_use). Input: one byte
 * (tabulate) and two doubles (any bit pattern). */
#include <stdio.h>

#include "deepmd.h"
#include "fuzz_common.h"
#include "fuzz_deepmd_use.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char model[512];
    if (!model[0])
        snprintf(model, sizeof model, "%s/deepmd_tiny.yaml",
                 fuzz_data_dir("PK_FUZZ_DATA_DIR", PK_FUZZ_DATA_DIR));
    fuzz_bytes b = {data, size};
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    o.tabulate = fuzz_u8(&b) & 1;
    o.table_step = fuzz_double(&b);
    o.table_rmin = fuzz_double(&b);
    if (!(o.table_step > 0.0) || !(o.table_rmin > 0.0)) return 0;  /* the adapter refuses */
    /* Finer tables are valid but take seconds to build (the core refuses them beyond 1 GiB
     * per net); keep each input fast. */
    if (o.table_step < 5e-3 || o.table_rmin < 0.2) return 0;
    pk_status st;
    pk_status_clear(&st);
    pk_deepmd *dp = pk_deepmd_load(model, &o, &st);
    if (dp) fuzz_deepmd_use(dp);
    pk_deepmd_destroy(dp);
    return 0;
}
