/* The Tinker harnesses: one of prm/key comes from the fuzzer, the other is the AMOEBA water
 * force field of the unit tests (PK_FUZZ_AMOEBA_DIR; the environment variable of the same
 * name overrides). A force field that loads is then looked up the way the pair style does:
 * each defined type's class in the mixed HAL tables, each multipole record by its frame. */
#ifndef PK_FUZZ_AMOEBA_H
#define PK_FUZZ_AMOEBA_H

#include <stddef.h>
#include <stdint.h>

/* fuzz_prm: the input is the prm file (else the key file). */
int fuzz_amoeba_one(int fuzz_prm, const uint8_t *data, size_t size);

#endif
