#define _POSIX_C_SOURCE 200809L  /* setenv */
/* libFuzzer harness: the backend keywords every style accepts (backend, precision) and the
 * environment that can stand in for them (PAIRKIT_BACKEND, PAIRKIT_PRECISION,
 * PAIRKIT_GPU_MEMORY_CAP), then the choice of mdpd/pk's backend for that request. The input
 * is up to three words separated by NUL bytes, in that order; each word is used both as a
 * keyword and as the value of its environment variable. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "mdpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 3);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = text[size + 1] = text[size + 2] = '\0';
    const char *word[3];
    char *p = text;
    for (int k = 0; k < 3; k++) {
        word[k] = p;
        if (p < text + size) p += strlen(p) + 1;
    }
    pk_status st;
    pk_status_clear(&st);
    pk_backend_request req;
    pk_backend_request_default(&req);
    int kind_set = pk_backend_parse(word[0], &req.kind, &st) == PK_OK;
    int precision_set = pk_precision_parse(word[1], &req.precision, &st) == PK_OK;
    setenv("PAIRKIT_BACKEND", word[0], 1);
    setenv("PAIRKIT_PRECISION", word[1], 1);
    setenv("PAIRKIT_GPU_MEMORY_CAP", word[2], 1);
    if (pk_backend_request_env(&req, kind_set, precision_set, &st) == PK_OK) {
        pk_backend_kind chosen;
        char note[256];
        (void)pk_backend_choose("mdpd/pk", pk_mdpd_backends, &req, &chosen, note, sizeof note,
                                &st);
    }
    free(text);
    return 0;
}
