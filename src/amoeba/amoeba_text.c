#include "amoeba_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk_parse.h"

int amoeba_streq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

int amoeba_startswith(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix)) return 0;
    return 1;
}

static int is_number(const char *s)
{
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    return end != s && *end == '\0';
}

/* Grow *arr (elements of size elem) to hold n+1 elements. */
static int grow(void *arr, int n, int *cap, size_t elem)
{
    if (n < *cap) return 0;
    int nc = *cap ? 2 * *cap : 64;
    void *p = realloc(*(void **)arr, (size_t)nc * elem);
    if (!p) return -1;
    *(void **)arr = p;
    *cap = nc;
    return 0;
}

/* "##  Title  ##": returns the title (trimmed, in place) or NULL. */
static char *section_title(char *s)
{
    size_t n = strlen(s);
    if (n < 5 || strncmp(s, "##", 2) != 0 || strcmp(s + n - 2, "##") != 0) return NULL;
    s[n - 2] = '\0';
    s += 2;
    while (*s == '#' || isspace((unsigned char)*s)) s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == '#' || isspace((unsigned char)s[n - 1]))) s[--n] = '\0';
    return n ? s : NULL;
}

static pk_code oom(pk_status *st, const char *path)
{
    return pk_fail(st, PK_ERR_MEMORY, "%s: out of memory while reading", path);
}

pk_code amoeba_text_read(amoeba_text *t, const char *path, pk_status *st)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    FILE *fp = fopen(path, "rb");
    if (!fp) return pk_fail(st, PK_ERR_FILE, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    t->buf = malloc(cap);
    if (!t->buf) {
        fclose(fp);
        return oom(st, path);
    }
    for (;;) {
        if (len + 1 >= cap) {
            char *p = realloc(t->buf, cap *= 2);
            if (!p) {
                fclose(fp);
                return oom(st, path);
            }
            t->buf = p;
        }
        size_t got = fread(t->buf + len, 1, cap - 1 - len, fp);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) return pk_fail(st, PK_ERR_FILE, "error reading %s", path);
    t->buf[len] = '\0';
    if (len > (size_t)INT_MAX / 2) return pk_fail(st, PK_ERR_FILE, "%s is too large", path);

    int tokcap = 0, reccap = 0, seccap = 0;
    int *first = NULL;      /* first token index of each record, fixed up at the end */
    int firstcap = 0;
    int in_comment = 0;     /* inside a commented-out record: skip numeric continuations */
    int lineno = 0;
    char *p = t->buf;
    while (*p) {
        char *line = p;
        char *nl = strchr(p, '\n');
        if (nl) {
            *nl = '\0';
            p = nl + 1;
        } else {
            p += strlen(p);
        }
        lineno++;
        char *bang = strstr(line, "!!");
        if (bang) *bang = '\0';
        while (isspace((unsigned char)*line)) line++;
        size_t n = strlen(line);
        while (n > 0 && isspace((unsigned char)line[n - 1])) line[--n] = '\0';
        if (n == 0) continue;

        if (line[0] == '#') {
            char *title = section_title(line);
            if (title) {
                if (grow(&t->section, t->nsection, &seccap, sizeof *t->section)) goto nomem;
                t->section[t->nsection++] = title;
            }
            in_comment = 1;
            continue;
        }

        /* tokenize in place */
        int start = t->ntokens;
        char *q = line;
        while (*q) {
            while (isspace((unsigned char)*q)) q++;
            if (!*q) break;
            char *tok = q;
            if (*q == '"') {
                tok = ++q;
                while (*q && *q != '"') q++;
            } else {
                while (*q && !isspace((unsigned char)*q)) q++;
            }
            if (*q) *q++ = '\0';
            if (grow(&t->tokens, t->ntokens, &tokcap, sizeof *t->tokens)) goto nomem;
            t->tokens[t->ntokens++] = tok;
        }
        if (t->ntokens == start) continue;

        if (is_number(t->tokens[start])) {
            if (in_comment) {
                t->ntokens = start;
            } else if (t->nrec > 0) {
                t->rec[t->nrec - 1].ntok += t->ntokens - start;
            } else {
                free(first);
                return pk_fail_at(st, PK_ERR_FORMAT, path, lineno,
                                  "numbers before any keyword: '%s'", t->tokens[start]);
            }
            continue;
        }
        in_comment = 0;
        if (grow(&t->rec, t->nrec, &reccap, sizeof *t->rec)) goto nomem;
        if (grow(&first, t->nrec, &firstcap, sizeof *first)) goto nomem;
        first[t->nrec] = start;
        t->rec[t->nrec].line = lineno;
        t->rec[t->nrec].section = t->nsection - 1;
        t->rec[t->nrec].ntok = t->ntokens - start;
        t->rec[t->nrec].tok = NULL;
        t->nrec++;
    }
    for (int r = 0; r < t->nrec; r++) t->rec[r].tok = t->tokens + first[r];
    free(first);
    return PK_OK;
nomem:
    free(first);
    return oom(st, path);
}

void amoeba_text_free(amoeba_text *t)
{
    free(t->buf);
    free(t->tokens);
    free(t->rec);
    free(t->section);
    memset(t, 0, sizeof *t);
}

pk_code amoeba_get_double(const amoeba_text *t, const amoeba_record *r, int k, double *v,
                          pk_status *st)
{
    if (k >= r->ntok)
        return pk_fail_at(st, PK_ERR_FORMAT, t->path, r->line, "'%s' needs at least %d values",
                          r->tok[0], k);
    double x;
    const char *problem = pk_parse_finite(r->tok[k], &x);
    if (problem)
        return pk_fail_at(st, PK_ERR_FORMAT, t->path, r->line, "'%s': value %d '%s' is not %s",
                          r->tok[0], k, r->tok[k], problem);
    *v = x;
    return PK_OK;
}

pk_code amoeba_get_ranged(const amoeba_text *t, const amoeba_record *r, int k, const char *name,
                          double lo, int lo_open, double hi, const char *why, double *v,
                          pk_status *st)
{
    if (amoeba_get_double(t, r, k, v, st)) return st->code;
    if ((lo_open ? *v > lo : *v >= lo) && *v <= hi) return PK_OK;
    return pk_fail_at(st, PK_ERR_FORMAT, t->path, r->line, "'%s': %s '%s' outside %c%g, %g]: %s",
                      r->tok[0], name, r->tok[k], lo_open ? '(' : '[', lo, hi, why);
}

pk_code amoeba_get_int(const amoeba_text *t, const amoeba_record *r, int k, int *v,
                       pk_status *st)
{
    if (k >= r->ntok)
        return pk_fail_at(st, PK_ERR_FORMAT, t->path, r->line, "'%s' needs at least %d values",
                          r->tok[0], k);
    char *end;
    errno = 0;
    long x = strtol(r->tok[k], &end, 10);
    if (end == r->tok[k] || *end != '\0' || errno == ERANGE || x < INT_MIN || x > INT_MAX)
        return pk_fail_at(st, PK_ERR_FORMAT, t->path, r->line,
                          "'%s': value %d '%s' is not an integer", r->tok[0], k, r->tok[k]);
    *v = (int)x;
    return PK_OK;
}
