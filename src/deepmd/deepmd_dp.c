/* Reader for DeePMD-kit v3 .dp models: an HDF5 file whose root attribute "json" holds the
 * model dict, with every array under "@variables" replaced by the name of a root dataset
 * ("/variable_0000", ...). The JSON is parsed into a libyaml document so that the YAML
 * model builder (deepmd_model.c) reads both formats; arrays are read from the datasets,
 * converted to double by HDF5. HDF5's own error printing is suspended around each call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deepmd_doc.h"

#ifndef PK_DEEPMD_HDF5

pk_code dp_model_read_dp(dp_model *m, const char *path, pk_status *st)
{
    memset(m, 0, sizeof *m);
    return pk_fail(st, PK_ERR_UNSUPPORTED, "%s: this PairKit was built without HDF5, so .dp "
                   "models cannot be read; convert it with `dp convert-backend %s model.yaml`",
                   path, path);
}

#else
#include <hdf5.h>

/* ---- JSON -> libyaml document ----------------------------------------------------------- */

typedef struct {
    const char *s;
    size_t i, n;
    yaml_document_t *doc;
    char *buf;         /* decoded string scratch, n + 1 bytes */
} jparse;

static void skip_ws(jparse *p)
{
    while (p->i < p->n && strchr(" \t\r\n", p->s[p->i])) p->i++;
}

static int put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static int hex4(jparse *p, unsigned *v)
{
    if (p->i + 4 > p->n) return 0;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->i++];
        *v = *v * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0'
                                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99);
        if (*v > 0xFFFF) return 0;
    }
    return 1;
}

/* A JSON string (after the opening quote) into p->buf; returns its length or -1. */
static long jstring(jparse *p)
{
    long o = 0;
    while (p->i < p->n) {
        char c = p->s[p->i++];
        if (c == '"') { p->buf[o] = 0; return o; }
        if (c != '\\') { p->buf[o++] = c; continue; }
        if (p->i >= p->n) return -1;
        c = p->s[p->i++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *e = strchr(from, c);
        if (c && e) { p->buf[o++] = to[e - from]; continue; }
        unsigned cp, lo;
        if (c != 'u' || !hex4(p, &cp)) return -1;
        if (cp >= 0xD800 && cp < 0xDC00 && p->i + 2 <= p->n && p->s[p->i] == '\\' &&
            p->s[p->i + 1] == 'u') {
            p->i += 2;
            if (!hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) return -1;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        o += put_utf8(p->buf + o, cp);
    }
    return -1;
}

/* One JSON value as a document node; returns its id, 0 on a syntax error. */
static int jvalue(jparse *p, int depth)
{
    skip_ws(p);
    if (p->i >= p->n || depth > 256) return 0;
    char c = p->s[p->i];
    if (c == '{' || c == '[') {
        int obj = c == '{';
        int id = obj ? yaml_document_add_mapping(p->doc, NULL, YAML_BLOCK_MAPPING_STYLE)
                     : yaml_document_add_sequence(p->doc, NULL, YAML_BLOCK_SEQUENCE_STYLE);
        p->i++;
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) { p->i++; return id; }
        for (;;) {
            int key = 0, val;
            if (obj) {
                skip_ws(p);
                if (p->i >= p->n || p->s[p->i++] != '"') return 0;
                long len = jstring(p);
                if (len < 0) return 0;
                key = yaml_document_add_scalar(p->doc, NULL, (yaml_char_t *)p->buf, (int)len,
                                               YAML_DOUBLE_QUOTED_SCALAR_STYLE);
                skip_ws(p);
                if (p->i >= p->n || p->s[p->i++] != ':') return 0;
            }
            if (!(val = jvalue(p, depth + 1))) return 0;
            if (obj ? !yaml_document_append_mapping_pair(p->doc, id, key, val)
                    : !yaml_document_append_sequence_item(p->doc, id, val))
                return 0;
            skip_ws(p);
            if (p->i >= p->n) return 0;
            c = p->s[p->i++];
            if (c == ',') continue;
            return c == (obj ? '}' : ']') ? id : 0;
        }
    }
    if (c == '"') {
        p->i++;
        long len = jstring(p);
        return len < 0 ? 0 : yaml_document_add_scalar(p->doc, NULL, (yaml_char_t *)p->buf,
                                                      (int)len, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    }
    /* numbers, true, false, null (and Python's NaN / Infinity): a plain token */
    size_t start = p->i;
    while (p->i < p->n && !strchr(" \t\r\n,]}", p->s[p->i])) p->i++;
    if (p->i == start) return 0;
    return yaml_document_add_scalar(p->doc, NULL, (yaml_char_t *)(p->s + start),
                                    (int)(p->i - start), YAML_PLAIN_SCALAR_STYLE);
}

/* ---- HDF5 -------------------------------------------------------------------------------- */

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

static pk_code read_dataset(void *ctx, const char *name, int nd, int *dims, double **out,
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
    hsize_t h[8];
    int got = H5Sget_simple_extent_ndims(sp);
    if (got != nd || got > 8 || H5Sget_simple_extent_dims(sp, h, NULL) < 0) {
        snprintf(why, whylen, "dataset '%s' has %d dimensions, expected %d", name, got, nd);
        goto done;
    }
    size_t count = 1;
    for (int k = 0; k < nd; k++) {
        if (dims[k] > 0 && (hsize_t)dims[k] != h[k]) {
            snprintf(why, whylen, "dataset '%s': dimension %d has %llu elements, expected %d",
                     name, k, (unsigned long long)h[k], dims[k]);
            goto done;
        }
        dims[k] = (int)h[k];
        count *= (size_t)h[k];
    }
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
    jparse p = {.s = json, .n = strlen(json), .doc = &doc, .buf = malloc(strlen(json) + 1)};
    pk_code c;
    if (!p.buf || !yaml_document_initialize(&doc, NULL, NULL, NULL, 1, 1)) {
        c = pk_fail(st, PK_ERR_MEMORY, "%s: out of memory", path);
    } else {
        int root = jvalue(&p, 0);
        skip_ws(&p);
        if (!root || p.i != p.n)
            c = pk_fail(st, PK_ERR_FORMAT, "%s: malformed JSON in attribute 'json' near "
                        "character %zu", path, p.i);
        else
            c = dp_model_build(m, &doc, path, 0, read_dataset, &f, st);
        yaml_document_delete(&doc);
    }
    free(p.buf);
    free(json);
    H5Fclose(f);
    return c;
}

#endif
