/* libFuzzer harness: the n2p2 input.nn of a model directory (the other files fixed). */
#include "fuzz_hdnnp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_hdnnp_one("input.nn", data, size);
}
