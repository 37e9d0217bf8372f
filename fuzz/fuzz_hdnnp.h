/* The n2p2 harnesses: one file of the model directory comes from the fuzzer, the others are
 * the small synthetic model's (fuzz/data/n2p2, made by make_n2p2_seeds.py; the environment
 * variable PK_FUZZ_DATA_DIR overrides fuzz/data), copied once per process into the scratch
 * directory. A model that loads gets a context (workspaces sized from the model) and
 * computes three atoms. */
#ifndef PK_FUZZ_HDNNP_H
#define PK_FUZZ_HDNNP_H

#include <stddef.h>
#include <stdint.h>

/* name: "input.nn", "scaling.data" or "weights.001.data". */
int fuzz_hdnnp_one(const char *name, const uint8_t *data, size_t size);

#endif
