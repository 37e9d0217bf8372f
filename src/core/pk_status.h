/* Status and error reporting for PairKit cores.
 *
 * Cores never abort or print: a failing function fills a pk_status with a code and a
 * message that names the file, line and problem, and returns the code. The LAMMPS
 * adapter turns a non-OK status into error->all / error->one. */
#ifndef PK_STATUS_H
#define PK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PK_OK = 0,
    PK_ERR_ARG,         /* bad argument or coefficient */
    PK_ERR_FILE,        /* a file cannot be opened or read */
    PK_ERR_FORMAT,      /* a file is malformed */
    PK_ERR_UNSUPPORTED, /* valid input that this style does not implement */
    PK_ERR_RANGE,       /* input outside what the model allows (neighbours, distances) */
    PK_ERR_NUMERIC,     /* NaN/Inf or a solver that did not converge */
    PK_ERR_MEMORY
} pk_code;

enum { PK_MSG_LEN = 1024 };

typedef struct {
    pk_code code;
    char msg[PK_MSG_LEN];
} pk_status;

void pk_status_clear(pk_status *st);

/* Set code and a printf-style message; returns the code so callers can `return pk_fail(...)`. */
pk_code pk_fail(pk_status *st, pk_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Same, prefixed with "file:line: " for errors found while reading an input file. */
pk_code pk_fail_at(pk_status *st, pk_code code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
