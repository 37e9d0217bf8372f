/* The model dict of a .dp file, JSON text, as a libyaml document (see deepmd_doc.h): cJSON
 * parses it, and the tree is copied node for node so that the YAML model builder
 * (deepmd_model.c) reads both formats. Strings (keys included) become double-quoted scalars;
 * numbers, true, false and null plain scalars, which the builder reads as YAML ones. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "deepmd_doc.h"

/* Bytes of the text shown on each side of a syntax error. */
enum { CONTEXT_BYTES = 24 };

/* Plain-scalar text of a number: %.17g gives back the double cJSON read, bit for bit, as
 * strtod of the YAML reader would from the original text; integers print as integers. */
static int add_number(yaml_document_t *doc, double v)
{
    char txt[40];
    int n = snprintf(txt, sizeof txt, "%.17g", v);
    return yaml_document_add_scalar(doc, NULL, (yaml_char_t *)txt, n, YAML_PLAIN_SCALAR_STYLE);
}

static int add_text(yaml_document_t *doc, const char *s, yaml_scalar_style_t style)
{
    return yaml_document_add_scalar(doc, NULL, (yaml_char_t *)s, (int)strlen(s), style);
}

/* Node id of a copy of item, 0 when libyaml runs out of memory. The depth is bounded by
 * cJSON's nesting limit (CJSON_NESTING_LIMIT, 1000). */
static int copy_item(yaml_document_t *doc, const cJSON *item)
{
    if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
        const int obj = cJSON_IsObject(item);
        int id = obj ? yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE)
                     : yaml_document_add_sequence(doc, NULL, YAML_BLOCK_SEQUENCE_STYLE);
        if (!id) return 0;
        for (const cJSON *c = item->child; c; c = c->next) {
            int val = copy_item(doc, c);
            if (!val) return 0;
            if (obj) {
                int key = add_text(doc, c->string ? c->string : "",
                                   YAML_DOUBLE_QUOTED_SCALAR_STYLE);
                if (!key || !yaml_document_append_mapping_pair(doc, id, key, val)) return 0;
            } else if (!yaml_document_append_sequence_item(doc, id, val)) {
                return 0;
            }
        }
        return id;
    }
    if (cJSON_IsString(item))
        return add_text(doc, item->valuestring, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    if (cJSON_IsNumber(item)) return add_number(doc, item->valuedouble);
    if (cJSON_IsTrue(item)) return add_text(doc, "true", YAML_PLAIN_SCALAR_STYLE);
    if (cJSON_IsFalse(item)) return add_text(doc, "false", YAML_PLAIN_SCALAR_STYLE);
    return add_text(doc, "null", YAML_PLAIN_SCALAR_STYLE);
}

/* Report a syntax error at byte `at`: line and column (Python writes the dict on one line,
 * so the byte offset is what locates it) and the text around it, non-printing bytes as
 * '?'. Python's json writes non-finite floats as NaN / Infinity, which JSON has not: said
 * so, since it means the model itself holds such a value. */
static pk_code syntax_error(const char *text, size_t len, size_t at, const char *path,
                            pk_status *st)
{
    int line = 1;
    size_t bol = 0;
    for (size_t k = 0; k < at; k++)
        if (text[k] == '\n') { line++; bol = k + 1; }
    size_t from = at > CONTEXT_BYTES ? at - CONTEXT_BYTES : 0;
    size_t to = len - at > CONTEXT_BYTES ? at + CONTEXT_BYTES : len;
    char ctx[2 * CONTEXT_BYTES + 8];
    size_t n = 0;
    for (size_t k = from; k < to; k++) {
        if (k == at) { ctx[n++] = '>'; ctx[n++] = '>'; }
        ctx[n++] = isprint((unsigned char)text[k]) ? text[k] : '?';
    }
    if (at >= len) { ctx[n++] = '>'; ctx[n++] = '>'; }
    ctx[n] = 0;
    const char *rest = text + at, *hint = "";
    size_t left = len - at;
    if ((left >= 3 && !strncmp(rest, "NaN", 3)) || (left >= 8 && !strncmp(rest, "Infinity", 8))
        || (left >= 9 && !strncmp(rest, "-Infinity", 9)))
        hint = " (a non-finite number: the model holds NaN or Infinity, which JSON cannot)";
    else if (at >= len)
        hint = " (the text ends early: truncated?)";
    return pk_fail(st, PK_ERR_FORMAT, "%s: malformed JSON in the model dict (attribute "
                   "'json') at byte %zu (line %d, column %zu), at '>>' in \"%s\"%s", path, at,
                   line, at - bol + 1, ctx, hint);
}

pk_code dp_doc_from_json(yaml_document_t *doc, const char *text, size_t len, const char *path,
                         pk_status *st)
{
    const char *end = NULL;
    if (!text) {   /* no text: parsed as the empty one */
        text = "";
        len = 0;
    }
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        return syntax_error(text, len, at, path, st);
    }
    /* cJSON stops after the first value: anything but white space after it is an error. */
    size_t at = (size_t)(end - text);
    while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' ||
                        text[at] == '\n'))
        at++;
    if (at < len && text[at] != '\0') {
        cJSON_Delete(root);
        return syntax_error(text, len, at, path, st);
    }
    if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
        cJSON_Delete(root);
        return pk_fail(st, PK_ERR_MEMORY, "%s: out of memory for the model dict", path);
    }
    int ok = copy_item(doc, root) != 0;
    cJSON_Delete(root);
    if (!ok) {
        yaml_document_delete(doc);
        return pk_fail(st, PK_ERR_MEMORY, "%s: out of memory for the model dict", path);
    }
    return PK_OK;
}
