/* The command line of the step drivers (bench/sve/<style>_steps.c):
 *   sve_steps_<style> cpu|sve STEPS
 * Fills req (the backend asked for, other fields at their defaults) and *steps; returns 0,
 * or 2 after printing the usage. */
#ifndef PK_SVE_STEPS_H
#define PK_SVE_STEPS_H

#include <stdio.h>
#include <stdlib.h>

#include "pk_backend.h"

static inline int sve_steps_args(int argc, char **argv, pk_backend_request *req, int *steps)
{
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request_default(req);
    *steps = argc == 3 ? atoi(argv[2]) : 0;
    if (argc != 3 || pk_backend_parse(argv[1], &req->kind, &st) || *steps < 1) {
        fprintf(stderr, "usage: %s cpu|sve STEPS %s\n", argv[0], st.msg);
        return 2;
    }
    return 0;
}

#endif
