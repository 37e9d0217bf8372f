/* libFuzzer harness: a Tinker .key file read by pk_amoeba_read (the other file fixed). */
#include "fuzz_amoeba.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_amoeba_one(0, data, size);
}
