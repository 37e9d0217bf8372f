/* Tinker parameter/key file text: lines, comments, records (internal to amoeba/pk).
 *
 * A record is a line whose first token is not a number together with the following lines
 * whose first token is a number (multipole and torsion-torsion records span lines).
 * "!!" starts a comment; a line starting with '#' is a comment and swallows its numeric
 * continuation lines (a commented-out record); a line "##  Title  ##" is a section
 * header. Tokens are separated by blanks; a double-quoted string is one token. */
#ifndef AMOEBA_TEXT_H
#define AMOEBA_TEXT_H

#include "pk_status.h"

typedef struct {
    int line;          /* 1-based line of the record's first line */
    int section;       /* index of the most recent section header, -1 before any */
    int ntok;
    char **tok;        /* points into amoeba_text.tokens */
} amoeba_record;

typedef struct {
    const char *path;
    char *buf;         /* file contents, tokens are NUL-terminated in place */
    char **tokens;
    int ntokens;
    amoeba_record *rec;
    int nrec;
    char **section;    /* section titles (trimmed, inside the ## marks) */
    int nsection;
} amoeba_text;

pk_code amoeba_text_read(amoeba_text *t, const char *path, pk_status *st);
void amoeba_text_free(amoeba_text *t);

/* Case-insensitive equality / prefix test. */
int amoeba_streq(const char *a, const char *b);
int amoeba_startswith(const char *s, const char *prefix);

/* Parse token k of a record as a number; failures name file, line and token. */
pk_code amoeba_get_double(const amoeba_text *t, const amoeba_record *r, int k, double *v,
                          pk_status *st);
/* The same, then within [lo, hi] (lo excluded where lo_open); the message names file, line,
 * keyword, what the value is (name), the value as written, the range and why. */
pk_code amoeba_get_ranged(const amoeba_text *t, const amoeba_record *r, int k, const char *name,
                          double lo, int lo_open, double hi, const char *why, double *v,
                          pk_status *st);
pk_code amoeba_get_int(const amoeba_text *t, const amoeba_record *r, int k, int *v,
                       pk_status *st);

#endif
