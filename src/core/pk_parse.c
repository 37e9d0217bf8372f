#include "pk_parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

const char *pk_parse_finite(const char *s, double *x)
{
    char *end;
    errno = 0;
    *x = strtod(s, &end);
    if (end == s || *end) return "a number";
    if (!isfinite(*x)) return "a finite number";
    if (errno == ERANGE) return "within the range of a double";
    return NULL;
}
