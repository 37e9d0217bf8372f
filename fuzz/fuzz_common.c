#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "fuzz harness setup: %s %s\n", what, path);
    abort();
}

/* Remove the scratch directory and the files in it (it holds no subdirectories). */
static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", scratch, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(scratch);
}

const char *fuzz_dir(void)
{
    if (!scratch[0]) {
        struct stat sb;
        const char *base = stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp";
        snprintf(scratch, sizeof scratch, "%s/pkfuzz-XXXXXX", base);
        if (!mkdtemp(scratch)) die("cannot create", scratch);
        atexit(remove_scratch);
    }
    return scratch;
}

void fuzz_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", fuzz_dir(), name);
}

void fuzz_write(const char *name, const uint8_t *data, size_t size, char *out, size_t len)
{
    fuzz_path(out, len, name);
    FILE *fp = fopen(out, "wb");
    if (!fp) die("cannot write", out);
    if (size && fwrite(data, 1, size, fp) != size) die("cannot write", out);
    if (fclose(fp)) die("cannot write", out);
}

void fuzz_copy(const char *src, const char *name)
{
    FILE *in = fopen(src, "rb");
    if (!in) die("cannot read", src);
    char dst[512];
    fuzz_path(dst, sizeof dst, name);
    FILE *out = fopen(dst, "wb");
    if (!out) die("cannot write", dst);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) die("cannot write", dst);
    fclose(in);
    if (fclose(out)) die("cannot write", dst);
}

const char *fuzz_data_dir(const char *env, const char *fallback)
{
    const char *v = getenv(env);
    return v && *v ? v : fallback;
}

unsigned fuzz_u8(fuzz_bytes *b)
{
    if (!b->n) return 0;
    b->n--;
    return *b->p++;
}

double fuzz_double(fuzz_bytes *b)
{
    unsigned char raw[sizeof(double)] = {0};
    for (size_t k = 0; k < sizeof raw; k++) raw[k] = (unsigned char)fuzz_u8(b);
    double x;
    memcpy(&x, raw, sizeof x);
    return x;
}

void fuzz_cluster_init(fuzz_cluster *c, int n, const double (*x)[3])
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < n; i++) {
        c->type[i] = i + 1;
        c->ilist[i] = i;
        memcpy(c->x[i], x[i], sizeof c->x[i]);
        for (int j = 0; j < n; j++)
            if (j != i) c->neigh[i][c->numneigh[i]++] = j;
        c->first[i] = c->neigh[i];
    }
    c->atoms.nlocal = n;
    c->atoms.x = (const double(*)[3])c->x;
    c->atoms.type = c->type;
    c->list = (pk_neigh){n, c->ilist, c->numneigh, c->first};
    c->out.f = c->f;
    c->out.want_energy = c->out.want_virial = 1;
}
