#include "pk_status.h"

#include <stdarg.h>
#include <stdio.h>

void pk_status_clear(pk_status *st)
{
    st->code = PK_OK;
    st->msg[0] = '\0';
}

pk_code pk_fail(pk_status *st, pk_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    st->code = code;
    return code;
}

pk_code pk_fail_at(pk_status *st, pk_code code, const char *file, int line, const char *fmt, ...)
{
    int n = snprintf(st->msg, sizeof st->msg, "%s:%d: ", file, line);
    if (n < 0 || n >= (int)sizeof st->msg) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg + n, sizeof st->msg - (size_t)n, fmt, ap);
    va_end(ap);
    st->code = code;
    return code;
}
