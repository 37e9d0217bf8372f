#include "pk_log.h"

#include <stdarg.h>
#include <stdio.h>

void pk_log(const pk_logger *lg, const char *fmt, ...)
{
    if (!lg || !lg->fn) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    lg->fn(lg->ctx, buf);
}
