/* libFuzzer harness: a DeePMD-kit .yaml model, loaded with the default options and then
 * used (fuzz_deepmd_use). Three inputs in four (by length) take the tabulated kernel, whose
 * embedding tables are built at load; the rest the exact kernel. */
#include "deepmd.h"
#include "fuzz_common.h"
#include "fuzz_deepmd_use.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_write("model.yaml", data, size, path, sizeof path);
    pk_deepmd_options o;
    pk_deepmd_options_default(&o);
    o.tabulate = size % 4 != 0;
    o.table_step = 0.05;   /* 5x coarser than the default: the same code, 5x faster to build */
    pk_status st;
    pk_status_clear(&st);
    pk_deepmd *dp = pk_deepmd_load(path, &o, &st);
    if (dp) fuzz_deepmd_use(dp);
    pk_deepmd_destroy(dp);
    return 0;
}
