/* Model readers of deepmd/pk: a DeePMD-kit model dict, held as a libyaml document whatever
 * the file format, is turned into a dp_model by dp_model_build. */
#ifndef PK_DEEPMD_DOC_H
#define PK_DEEPMD_DOC_H

#include <stddef.h>
#include <yaml.h>

#include "deepmd_internal.h"

/* Most dimensions of an array the builder reads. */
#define DP_MAXDIM 8

/* Loads the array called `name` (a .dp dataset) into *out (malloc'd) and returns its rank in
 * *nd and its shape in dims[0 .. *nd) (room for DP_MAXDIM). On entry *nd and dims hold the
 * shape the builder needs (dims[k] <= 0: any size), a hint only: the builder checks the shape
 * returned. Returns PK_OK, or a code with `why` filled. */
typedef pk_code (*dp_array_fn)(void *ctx, const char *name, int *nd, int *dims, double **out,
                           char *why, size_t whylen);

/* has_lines: the document's marks are file lines (YAML), so errors cite them. */
pk_code dp_model_build(dp_model *m, yaml_document_t *doc, const char *file, int has_lines,
                       dp_array_fn arrays, void *actx, pk_status *st);

#ifdef PK_DEEPMD_JSON
/* The model dict of a .dp file: JSON text (len bytes, not necessarily NUL-terminated; a NUL
 * ends it) into *doc, for dp_model_build with has_lines 0 and an array loader for the
 * dataset names it holds. path only names the file in messages. On PK_OK the caller owns
 * *doc (yaml_document_delete); otherwise *doc holds nothing and st says where the text is
 * malformed: byte offset, line, column and the text around it. Defined (deepmd_json.c,
 * cJSON) when PK_DEEPMD_JSON is, which builds with HDF5 have. */
pk_code dp_doc_from_json(yaml_document_t *doc, const char *text, size_t len, const char *path,
                         pk_status *st);
#endif

#endif
