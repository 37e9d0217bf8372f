#define _POSIX_C_SOURCE 199309L
#include "pk_timer.h"

#include <time.h>

double pk_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
