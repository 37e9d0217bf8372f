/* Shared by the libFuzzer harnesses: the readers take paths, so each input is written to a
 * file in a per-process scratch directory (under /dev/shm when there is one), created on
 * first use and removed at exit. Setup failures abort: they are harness bugs, not findings. */
#ifndef PK_FUZZ_COMMON_H
#define PK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

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

#endif
