/* Reader for DeePMD-kit v3 .dp models: an HDF5 file whose root attribute "json" holds the
 * model dict, with every array under "@variables" replaced by the name of a root dataset
 * ("/variable_0000", ...). The JSON becomes a libyaml document (dp_doc_from_json,
 * deepmd_json.c) so that the YAML model builder (deepmd_model.c) reads both formats and
 * checks both alike; arrays are read from the datasets, converted to double by HDF5. HDF5's
 * own error printing is suspended around each call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_doc.h"

#ifndef PK_DEEPMD_HDF5

pk_code dp_model_read_dp(dp_model *m, const char *path, pk_status *st)
{
    memset(m, 0, sizeof *m);
    return pk_fail(st, PK_ERR_UNSUPPORTED, "%s: this PairKit was built without HDF5 or cJSON, "
                   "so .dp models cannot be read; convert it with `dp convert-backend %s "
                   "model.yaml`", path, path);
}

#else
#include <hdf5.h>

/* Most elements one dataset may have: 2^28 doubles (2 GiB). A se_e2_a model's largest array,
 * a fitting layer of ng * axis_neuron inputs, holds a few 10^5; a compressed dataset can claim
 * any size in a few bytes of file, so the claim is checked before memory is asked for. */
#define DP_DATASET_MAX_ELEMENTS ((size_t)1 << 28)

static char *read_json_attr(hid_t f)
{
    char *out = NULL;
    H5E_BEGIN_TRY {
        hid_t a = H5Aopen(f, "json", H5P_DEFAULT);
        hid_t t = a >= 0 ? H5Aget_type(a) : -1;
        if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
            if (H5Tis_variable_str(t) > 0) {
                char *v = NULL;
                hid_t mt = H5Tcopy(H5T_C_S1);
                H5Tset_size(mt, H5T_VARIABLE);
                H5Tset_cset(mt, H5Tget_cset(t));
                if (H5Aread(a, mt, &v) >= 0 && v) {
                    size_t n = strlen(v);
                    if ((out = malloc(n + 1))) memcpy(out, v, n + 1);
                    H5free_memory(v);
                }
                H5Tclose(mt);
            } else {
                size_t n = H5Tget_size(t);
                if ((out = calloc(n + 1, 1)) && H5Aread(a, t, out) < 0) {
                    free(out);
                    out = NULL;
                }
            }
        }
        if (t >= 0) H5Tclose(t);
        if (a >= 0) H5Aclose(a);
    } H5E_END_TRY;
    return out;
}

static pk_code read_dataset(void *ctx, const char *name, int *nd, int *dims, double **out,
                            char *why, size_t whylen)
{
    hid_t f = *(hid_t *)ctx, d = -1, sp = -1;
    pk_code c = PK_ERR_FORMAT;
    *out = NULL;
    H5E_BEGIN_TRY {
        d = H5Dopen2(f, name, H5P_DEFAULT);
        sp = d >= 0 ? H5Dget_space(d) : -1;
    } H5E_END_TRY;
    if (sp < 0) {
        snprintf(why, whylen, "no dataset '%s' in the file", name);
        goto done;
    }
    hsize_t h[DP_MAXDIM];
    int got = H5Sget_simple_extent_ndims(sp);
    if (got < 0 || got > DP_MAXDIM || H5Sget_simple_extent_dims(sp, h, NULL) < 0) {
        snprintf(why, whylen, "dataset '%s' has %d dimensions, at most %d are read", name, got,
                 DP_MAXDIM);
        goto done;
    }
    size_t count = 1;
    for (int k = 0; k < got; k++) {
        if (h[k] > DP_DATASET_MAX_ELEMENTS ||
            (h[k] && count > DP_DATASET_MAX_ELEMENTS / h[k])) {
            snprintf(why, whylen, "dataset '%s' claims more than %zu elements", name,
                     DP_DATASET_MAX_ELEMENTS);
            goto done;
        }
        dims[k] = (int)h[k];
        count *= (size_t)h[k];
    }
    *nd = got;
    if (!(*out = malloc(sizeof(double) * (count ? count : 1)))) {
        snprintf(why, whylen, "out of memory");
        c = PK_ERR_MEMORY;
        goto done;
    }
    herr_t rc;
    H5E_BEGIN_TRY {
        rc = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out);
    } H5E_END_TRY;
    if (rc < 0) {
        snprintf(why, whylen, "dataset '%s' cannot be read as numbers", name);
        free(*out);
        *out = NULL;
        goto done;
    }
    c = PK_OK;
done:
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return c;
}

pk_code dp_model_read_dp(dp_model *m, const char *path, pk_status *st)
{
    hid_t f;
    memset(m, 0, sizeof *m);
    H5E_BEGIN_TRY {
        f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    } H5E_END_TRY;
    if (f < 0) return pk_fail(st, PK_ERR_FILE, "%s: cannot open as an HDF5 file", path);
    char *json = read_json_attr(f);
    if (!json) {
        H5Fclose(f);
        return pk_fail(st, PK_ERR_FORMAT, "%s: no string attribute 'json' on the root group "
                       "(not a DeePMD-kit .dp model)", path);
    }
    yaml_document_t doc;
    pk_code c = dp_doc_from_json(&doc, json, strlen(json), path, st);
    if (!c) {
        c = dp_model_build(m, &doc, path, 0, read_dataset, &f, st);
        yaml_document_delete(&doc);
    }
    free(json);
    H5Fclose(f);
    return c;
}

#endif
