/* What the deepmd harnesses do with a model that loaded: the queries the adapter makes and
 * one energy/force evaluation of a few atoms (one per model type, in a line 1.3 A apart,
 * all neighbours of each other), so that dimensions read from the file are also used. */
#ifndef PK_FUZZ_DEEPMD_USE_H
#define PK_FUZZ_DEEPMD_USE_H

#include "deepmd.h"

void fuzz_deepmd_use(pk_deepmd *dp);

#endif
