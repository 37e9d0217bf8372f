/* Log callback: the only way a core prints. The adapter routes it to LAMMPS's screen/log. */
#ifndef PK_LOG_H
#define PK_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*pk_log_fn)(void *ctx, const char *msg);

typedef struct {
    pk_log_fn fn;   /* may be NULL: messages are dropped */
    void *ctx;
} pk_logger;

void pk_log(const pk_logger *lg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
