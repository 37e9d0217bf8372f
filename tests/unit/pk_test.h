/* Minimal assertion helpers for the C unit tests. Each failed check prints where and why;
 * pk_test_finish() prints "N passed, N failed" and gives the exit status for ctest. */
#ifndef PK_TEST_H
#define PK_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int pk_test_passed, pk_test_failed;

#define PK_CHECK(cond, ...)                                                      \
    do {                                                                         \
        if (cond) {                                                              \
            pk_test_passed++;                                                    \
        } else {                                                                 \
            pk_test_failed++;                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

/* |got - want| <= rtol * max(|want|, floor): relative with an absolute floor near zero. */
#define PK_CHECK_CLOSE(got, want, rtol, floor)                                   \
    do {                                                                         \
        double g_ = (got), w_ = (want);                                          \
        double s_ = fabs(w_) > (floor) ? fabs(w_) : (floor);                     \
        PK_CHECK(fabs(g_ - w_) <= (rtol) * s_, "got %.17g want %.17g (rel %.3g, tol %.3g)", \
                 g_, w_, fabs(g_ - w_) / s_, (double)(rtol));                    \
    } while (0)

/* Whole file as a NUL-terminated string (caller frees), or NULL if it cannot be opened. */
static inline char *pk_test_slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t got = buf ? fread(buf, 1, (size_t)(n > 0 ? n : 0), fp) : 0;
    if (buf) buf[got] = '\0';
    fclose(fp);
    return buf;
}

static inline int pk_test_finish(void)
{
    printf("%d passed, %d failed\n", pk_test_passed, pk_test_failed);
    return pk_test_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
