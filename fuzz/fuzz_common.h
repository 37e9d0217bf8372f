/* Shared by the libFuzzer harnesses: the readers take paths, so each input is written to a
 * file in a per-process scratch directory (under /dev/shm when there is one), created on
 * first use and removed at exit. Setup failures abort: they are harness bugs, not findings. */
#ifndef PK_FUZZ_COMMON_H
#define PK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "pk_views.h"

/* The scratch directory of this process. */
const char *fuzz_dir(void);
/* fuzz_dir()/name into out. */
void fuzz_path(char *out, size_t len, const char *name);
/* Write data to fuzz_dir()/name (truncating) and return the full path in out. */
void fuzz_write(const char *name, const uint8_t *data, size_t size, char *out, size_t len);
/* Copy the file src to fuzz_dir()/name. */
void fuzz_copy(const char *src, const char *name);
/* Directory of fixed companion files: the environment variable env if set, else fallback. */
const char *fuzz_data_dir(const char *env, const char *fallback);

/* Structured inputs: values taken from the front of the fuzz input (zeros once it ends). */
typedef struct {
    const uint8_t *p;
    size_t n;
} fuzz_bytes;
unsigned fuzz_u8(fuzz_bytes *b);
double fuzz_double(fuzz_bytes *b);   /* any bit pattern: nan, inf, denormals included */

/* A few atoms at given positions, of types 1..n, each a neighbour of all the others (a full
 * list), with the views a compute takes: forces, energy and virial wanted. The views point
 * into the struct, which must stay where it was initialised. */
enum { FUZZ_MAX_ATOMS = 4 };
typedef struct {
    int type[FUZZ_MAX_ATOMS], ilist[FUZZ_MAX_ATOMS], numneigh[FUZZ_MAX_ATOMS];
    int neigh[FUZZ_MAX_ATOMS][FUZZ_MAX_ATOMS - 1], *first[FUZZ_MAX_ATOMS];
    double x[FUZZ_MAX_ATOMS][3], f[FUZZ_MAX_ATOMS][3];
    pk_atoms atoms;
    pk_neigh list;
    pk_out out;
} fuzz_cluster;
void fuzz_cluster_init(fuzz_cluster *c, int n, const double (*x)[3]);

#endif
