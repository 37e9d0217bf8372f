#include "dp_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static void inv3(const double *a, double *b)
{
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                 a[2] * (a[3] * a[7] - a[4] * a[6]);
    b[0] = (a[4] * a[8] - a[5] * a[7]) / det;
    b[1] = (a[2] * a[7] - a[1] * a[8]) / det;
    b[2] = (a[1] * a[5] - a[2] * a[4]) / det;
    b[3] = (a[5] * a[6] - a[3] * a[8]) / det;
    b[4] = (a[0] * a[8] - a[2] * a[6]) / det;
    b[5] = (a[2] * a[3] - a[0] * a[5]) / det;
    b[6] = (a[3] * a[7] - a[4] * a[6]) / det;
    b[7] = (a[1] * a[6] - a[0] * a[7]) / det;
    b[8] = (a[0] * a[4] - a[1] * a[3]) / det;
}

static double dist2(const double *a, const double *b)
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

int dp_sys_build(dp_sys *s, int n, const double *x, const int *type, const double *box,
                 double cut)
{
    memset(s, 0, sizeof *s);
    int nimg[3] = {0, 0, 0};
    double inv[9];
    if (box) {
        inv3(box, inv);
        /* Image range from the plane spacings 1/|row k of inverse^T|. */
        for (int k = 0; k < 3; k++) {
            double g = sqrt(inv[k] * inv[k] + inv[3 + k] * inv[3 + k] + inv[6 + k] * inv[6 + k]);
            nimg[k] = (int)ceil(cut * g) + 1;
        }
    }
    int cap = n * (2 * nimg[0] + 1) * (2 * nimg[1] + 1) * (2 * nimg[2] + 1);
    s->x = malloc(sizeof(double) * 3 * cap);
    s->type = malloc(sizeof(int) * cap);
    s->owner = malloc(sizeof(int) * cap);
    s->tag = malloc(sizeof(pk_tag) * cap);
    /* Local atoms, wrapped into the cell. */
    for (int i = 0; i < n; i++) {
        double p[3] = {x[3 * i], x[3 * i + 1], x[3 * i + 2]};
        if (box) {
            double f[3];
            for (int k = 0; k < 3; k++)
                f[k] = p[0] * inv[k] + p[1] * inv[3 + k] + p[2] * inv[6 + k];
            for (int k = 0; k < 3; k++) f[k] -= floor(f[k]);
            for (int k = 0; k < 3; k++)
                p[k] = f[0] * box[k] + f[1] * box[3 + k] + f[2] * box[6 + k];
        }
        memcpy(s->x[i], p, sizeof p);
        s->type[i] = type[i];
        s->owner[i] = i;
        s->tag[i] = i + 1;
    }
    int na = n;
    for (int a = -nimg[0]; a <= nimg[0]; a++)
        for (int b = -nimg[1]; b <= nimg[1]; b++)
            for (int c = -nimg[2]; c <= nimg[2]; c++) {
                if (!a && !b && !c) continue;
                for (int i = 0; i < n; i++) {
                    double p[3];
                    for (int k = 0; k < 3; k++)
                        p[k] = s->x[i][k] + a * box[k] + b * box[3 + k] + c * box[6 + k];
                    int near = 0;
                    for (int j = 0; j < n && !near; j++) near = dist2(p, s->x[j]) < cut * cut;
                    if (!near) continue;
                    memcpy(s->x[na], p, sizeof p);
                    s->type[na] = type[i];
                    s->owner[na] = i;
                    s->tag[na] = i + 1;
                    na++;
                }
            }
    s->nlocal = n;
    s->nall = na;
    s->ilist = malloc(sizeof(int) * n);
    s->numneigh = malloc(sizeof(int) * na);
    s->firstneigh = calloc((size_t)na, sizeof(int *));
    s->store = malloc(sizeof(int) * (size_t)n * na);
    for (int i = 0; i < n; i++) {
        int *list = s->store + (size_t)i * na, m = 0;
        for (int j = 0; j < na; j++)
            if (j != i && dist2(s->x[i], s->x[j]) < cut * cut) list[m++] = j;
        s->ilist[i] = i;
        s->numneigh[i] = m;
        s->firstneigh[i] = list;
    }
    s->atoms = (pk_atoms){.nlocal = n, .nghost = na - n, .x = (const double (*)[3])s->x,
                          .type = s->type, .tag = s->tag};
    s->nl = (pk_neigh){.inum = n, .ilist = s->ilist, .numneigh = s->numneigh,
                       .firstneigh = s->firstneigh};
    return na;
}

void dp_sys_free(dp_sys *s)
{
    free(s->x);
    free(s->type);
    free(s->owner);
    free(s->tag);
    free(s->ilist);
    free(s->numneigh);
    free(s->firstneigh);
    free(s->store);
    memset(s, 0, sizeof *s);
}

void dp_sys_fold(const dp_sys *s, double *a, int width)
{
    for (int g = s->nlocal; g < s->nall; g++)
        for (int k = 0; k < width; k++) {
            a[(size_t)s->owner[g] * width + k] += a[(size_t)g * width + k];
            a[(size_t)g * width + k] = 0.0;
        }
}

static double uniform(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

void dp_water(int n, double L, unsigned seed, double *x, int *type)
{
    unsigned long long st = seed * 2654435761ULL + 1;
    const double a = L / n, roh = 0.96, half = 0.5 * 104.5 * 3.14159265358979323846 / 180;
    int m = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++, m++) {
                double o[3] = {(i + 0.5) * a, (j + 0.5) * a, (k + 0.5) * a};
                for (int c = 0; c < 3; c++) o[c] += 0.3 * (uniform(&st) - 0.5);
                /* Random orthonormal pair (u, v) for the molecular plane. */
                double u[3], v[3], nu = 0, dot = 0, nv = 0;
                for (int c = 0; c < 3; c++) u[c] = uniform(&st) - 0.5, nu += u[c] * u[c];
                for (int c = 0; c < 3; c++) u[c] /= sqrt(nu);
                for (int c = 0; c < 3; c++) v[c] = uniform(&st) - 0.5, dot += v[c] * u[c];
                for (int c = 0; c < 3; c++) v[c] -= dot * u[c], nv += v[c] * v[c];
                for (int c = 0; c < 3; c++) v[c] /= sqrt(nv);
                for (int c = 0; c < 3; c++) {
                    x[9 * m + c] = o[c];
                    x[9 * m + 3 + c] = o[c] + roh * (cos(half) * u[c] + sin(half) * v[c]);
                    x[9 * m + 6 + c] = o[c] + roh * (cos(half) * u[c] - sin(half) * v[c]);
                }
                type[3 * m] = 1;
                type[3 * m + 1] = type[3 * m + 2] = 2;
            }
}

/* ---- test case reader ---------------------------------------------------------------- */

static yaml_node_t *get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static double *numbers(yaml_document_t *d, yaml_node_t *seq, int *n)
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE) return NULL;
    *n = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    double *v = malloc(sizeof(double) * (*n + 1));
    for (int i = 0; i < *n; i++)
        v[i] = strtod((char *)yaml_document_get_node(d, seq->data.sequence.items.start[i])
                          ->data.scalar.value, NULL);
    return v;
}

int dp_cases_read(const char *path, const char *model, dp_case **cases)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, fp);
    int nc = 0;
    if (yaml_parser_load(&p, &d)) {
        yaml_node_t *top = yaml_document_get_root_node(&d);
        if (model) top = get(&d, get(&d, top, "models"), model);
        yaml_node_t *res = get(&d, top, "results");
        if (!res || res->type != YAML_SEQUENCE_NODE) {
            yaml_document_delete(&d);
            yaml_parser_delete(&p);
            fclose(fp);
            return 0;
        }
        nc = (int)(res->data.sequence.items.top - res->data.sequence.items.start);
        *cases = calloc((size_t)nc, sizeof(dp_case));
        for (int c = 0; c < nc; c++) {
            yaml_node_t *b = yaml_document_get_node(&d, res->data.sequence.items.start[c]);
            dp_case *k = &(*cases)[c];
            int n = 0, nt = 0;
            k->coord = numbers(&d, get(&d, b, "coord"), &n);
            k->natoms = n / 3;
            double *t = numbers(&d, get(&d, b, "atype"), &nt);
            k->atype = malloc(sizeof(int) * nt);
            for (int i = 0; i < nt; i++) k->atype[i] = (int)t[i];
            free(t);
            k->box = numbers(&d, get(&d, b, "box"), &n);
            k->energy = numbers(&d, get(&d, b, "atomic_energy"), &n);
            k->force = numbers(&d, get(&d, b, "force"), &n);
            k->virial = numbers(&d, get(&d, b, "atomic_virial"), &n);
        }
        yaml_document_delete(&d);
    }
    yaml_parser_delete(&p);
    fclose(fp);
    return nc;
}

void dp_cases_free(dp_case *c, int n)
{
    for (int i = 0; i < n; i++) {
        free(c[i].coord);
        free(c[i].box);
        free(c[i].atype);
        free(c[i].energy);
        free(c[i].force);
        free(c[i].virial);
    }
    free(c);
}

const char *dp_shared_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("PAIRKIT_SHARED");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : "../shared", rel);
    return buf;
}
