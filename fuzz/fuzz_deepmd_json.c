/* libFuzzer harness: the JSON model dict of a .dp file (dp_doc_from_json, cJSON) and the
 * model builder behind it (dp_model_build, shared with .yaml), without HDF5: an array given
 * by name ("/variable_0003", as in a .dp) is made up here with the shape the builder
 * hints at (those it leaves open: 1 + the name's last digit); arrays written out in the
 * dict ({"@class": "np.ndarray", "value": ...}, as the seeds converted from .yaml) are read
 * from the text. Needs a build with PK_DEEPMD_JSON (HDF5 and cJSON found). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_doc.h"
#include "fuzz_common.h"

static pk_code made_up(void *ctx, const char *name, int *nd, int *dims, double **out, char *why,
                       size_t whylen)
{
    (void)ctx;
    const size_t len = strlen(name);
    const int open = 1 + (len ? (unsigned char)name[len - 1] % 10 : 0);
    size_t count = 1;
    for (int k = 0; k < *nd; k++) {
        if (dims[k] <= 0) dims[k] = open;
        count *= (size_t)dims[k];
        if (count > 100000) {
            snprintf(why, whylen, "array '%s' too large for the harness", name);
            return PK_ERR_FORMAT;
        }
    }
    if (!(*out = malloc(sizeof(double) * count))) return PK_ERR_MEMORY;
    for (size_t i = 0; i < count; i++) (*out)[i] = 0.25 + 0.01 * (double)(i % 17);
    return PK_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_status st;
    pk_status_clear(&st);
    yaml_document_t doc;
    if (dp_doc_from_json(&doc, (const char *)data, size, "fuzz.dp", &st) != PK_OK) return 0;
    dp_model m;
    if (dp_model_build(&m, &doc, "fuzz.dp", 0, made_up, NULL, &st) == PK_OK) dp_model_free(&m);
    yaml_document_delete(&doc);
    return 0;
}
