/* Whether SVE runs here, and the SVE backends' log text. */
#include "pk_sve.h"

#include <arm_sve.h>
#include <stdio.h>
#include <sys/auxv.h>

#include "pk_threads.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)   /* Linux arm64 hwcap bit, <asm/hwcap.h> */
#endif

int pk_sve_available(char *why, size_t len)
{
    if (getauxval(AT_HWCAP) & HWCAP_SVE) return 1;
    snprintf(why, len, "this CPU has no SVE (the kernel's AT_HWCAP lacks HWCAP_SVE)");
    return 0;
}

int pk_sve_bits(void) { return (int)svcntb() * 8; }

pk_code pk_sve_init(void *model, const pk_backend_request *req, void **state,
                    pk_backend_info *info, pk_status *st)
{
    (void)model; (void)req; (void)st;
    *state = NULL;
    const int n = pk_max_threads();
    snprintf(info->device, sizeof info->device, "SVE %d-bit, %d OpenMP thread%s", pk_sve_bits(),
             n, n == 1 ? "" : "s");
    return PK_OK;
}
