#include "amoeba_testsys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ts_data(const char *name)
{
    static char buf[4][4096];   /* a few calls may be alive in one expression */
    static int k;
    k = (k + 1) % 4;
    const char *src = getenv("PAIRKIT_SOURCE");
    snprintf(buf[k], sizeof buf[k], "%s/tests/unit/amoeba/data/%s", src ? src : ".", name);
    return buf[k];
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* ---- topology ------------------------------------------------------------------------- */

/* Bond-graph distances up to 4 from each atom (breadth first) give the 1-2..1-5 lists. */
static void build_topology(test_system *s)
{
    const int n = s->n;
    int *deg = xcalloc((size_t)n, sizeof(int));
    int (*adj)[8] = xcalloc((size_t)n, sizeof *adj);
    for (int b = 0; b < s->nbond; b++) {
        const int i = s->bond[b][0], j = s->bond[b][1];
        if (deg[i] < 8) adj[i][deg[i]++] = j;
        if (deg[j] < 8) adj[j][deg[j]++] = i;
    }
    int *dist = xcalloc((size_t)n, sizeof(int));
    int *queue = xcalloc((size_t)n, sizeof(int));
    s->nspecial = xcalloc((size_t)n, sizeof *s->nspecial);
    s->special = xcalloc((size_t)n, sizeof *s->special);
    s->nspecial15 = xcalloc((size_t)n, sizeof(int));
    s->special15 = xcalloc((size_t)n, sizeof *s->special15);
    for (int i = 0; i < n; i++) dist[i] = -1;
    for (int i = 0; i < n; i++) {
        int head = 0, tail = 0;
        queue[tail++] = i;
        dist[i] = 0;
        while (head < tail) {
            const int a = queue[head++];
            if (dist[a] == 4) continue;
            for (int k = 0; k < deg[a]; k++)
                if (dist[adj[a][k]] < 0) {
                    dist[adj[a][k]] = dist[a] + 1;
                    queue[tail++] = adj[a][k];
                }
        }
        s->special[i] = xcalloc((size_t)tail, sizeof(pk_tag));
        s->special15[i] = xcalloc((size_t)tail, sizeof(pk_tag));
        int c = 0;
        for (int d = 1; d <= 3; d++) {
            for (int q = 0; q < tail; q++)
                if (dist[queue[q]] == d) s->special[i][c++] = s->tag[queue[q]];
            s->nspecial[i][d - 1] = c;
        }
        for (int q = 0; q < tail; q++)
            if (dist[queue[q]] == 4) s->special15[i][s->nspecial15[i]++] = s->tag[queue[q]];
        for (int q = 0; q < tail; q++) dist[queue[q]] = -1;
    }
    free(deg);
    free(adj);
    free(dist);
    free(queue);
}

/* Special class (1..3 for 1-2..1-4, else 0) of owned atom i and the atom with tag t. */
static int special_class(const test_system *s, int i, pk_tag t)
{
    for (int k = 0; k < s->nspecial[i][2]; k++)
        if (s->special[i][k] == t) return k < s->nspecial[i][0] ? 1 : k < s->nspecial[i][1] ? 2 : 3;
    return 0;
}

/* ---- ghosts and the neighbour list ---------------------------------------------------- */

static void refresh_ghosts(test_system *s)
{
    for (int g = s->n; g < s->nall; g++) {
        double t[3];
        for (int d = 0; d < 3; d++) t[d] = s->shift[g][d] * s->box[d];
        for (int d = 0; d < 3; d++)
            s->x[g][d] = s->x[s->owner[g]][d] + t[d] + s->strain[d][0] * t[0] +
                         s->strain[d][1] * t[1] + s->strain[d][2] * t[2];
    }
}

static void make_ghosts(test_system *s, double gc)
{
    int cap = s->n;
    for (int i = 0; i < s->n; i++)
        for (int d = 0; d < 3; d++) s->x[i][d] -= floor(s->x[i][d] / s->box[d]) * s->box[d];
    s->nall = s->n;
    for (int i = 0; i < s->n; i++)
        for (int sx = -1; sx <= 1; sx++)
            for (int sy = -1; sy <= 1; sy++)
                for (int sz = -1; sz <= 1; sz++) {
                    const int sh[3] = {sx, sy, sz};
                    if (!sx && !sy && !sz) continue;
                    int inside = 1;
                    for (int d = 0; d < 3; d++) {
                        const double p = s->x[i][d] + sh[d] * s->box[d];
                        if (p < -gc || p >= s->box[d] + gc) inside = 0;
                    }
                    if (!inside) continue;
                    if (s->nall == cap) {
                        cap *= 2;
                        s->x = realloc(s->x, (size_t)cap * sizeof *s->x);
                        s->amtype = realloc(s->amtype, (size_t)cap * sizeof *s->amtype);
                        s->tag = realloc(s->tag, (size_t)cap * sizeof *s->tag);
                        s->owner = realloc(s->owner, (size_t)cap * sizeof *s->owner);
                        s->shift = realloc(s->shift, (size_t)cap * sizeof *s->shift);
                        if (!s->x || !s->amtype || !s->tag || !s->owner || !s->shift) exit(2);
                    }
                    const int g = s->nall++;
                    s->amtype[g] = s->amtype[i];
                    s->tag[g] = s->tag[i];
                    s->owner[g] = i;
                    memcpy(s->shift[g], sh, sizeof sh);
                }
    refresh_ghosts(s);
}

/* LAMMPS half list with newton on: owned pairs once (j > i); an owned-ghost pair is kept
 * on i's list only when the ghost lies "above" i (z, then y, then x), so each periodic
 * pair appears exactly once. */
static int ghost_above(const double *xi, const double *xj)
{
    if (xj[2] != xi[2]) return xj[2] > xi[2];
    if (xj[1] != xi[1]) return xj[1] > xi[1];
    return xj[0] > xi[0];
}

static void build_list(test_system *s, double cut)
{
    const double cut2 = cut > 0 ? cut * cut : INFINITY;
    s->ilist = xcalloc((size_t)s->n, sizeof(int));
    s->numneigh = xcalloc((size_t)s->n, sizeof(int));
    s->firstneigh = xcalloc((size_t)s->n, sizeof(int *));
    int *buf = xcalloc((size_t)s->nall, sizeof(int));
    for (int i = 0; i < s->n; i++) {
        s->ilist[i] = i;
        int c = 0;
        for (int j = i + 1; j < s->nall; j++) {
            if (j >= s->n && !ghost_above(s->x[i], s->x[j])) continue;
            double r2 = 0;
            for (int d = 0; d < 3; d++) r2 += (s->x[j][d] - s->x[i][d]) * (s->x[j][d] - s->x[i][d]);
            if (r2 > cut2) continue;
            buf[c++] = pk_neigh_entry(j, special_class(s, i, s->tag[j]));
        }
        s->numneigh[i] = c;
        s->firstneigh[i] = xcalloc((size_t)c, sizeof(int));
        memcpy(s->firstneigh[i], buf, (size_t)c * sizeof(int));
    }
    free(buf);
}

static void init_common(test_system *s, int n, const int *amtype, const double (*x)[3],
                        int nbond, const int (*bond)[2])
{
    memset(s, 0, sizeof *s);
    s->n = s->nall = n;
    s->amtype = xcalloc((size_t)n, sizeof(int));
    s->tag = xcalloc((size_t)n, sizeof(pk_tag));
    s->x = xcalloc((size_t)n, sizeof *s->x);
    s->owner = xcalloc((size_t)n, sizeof(int));
    s->shift = xcalloc((size_t)n, sizeof *s->shift);
    for (int i = 0; i < n; i++) {
        s->amtype[i] = amtype[i];
        s->tag[i] = i + 1;
        s->owner[i] = i;
        memcpy(s->x[i], x[i], sizeof s->x[i]);
    }
    s->nbond = nbond;
    s->bond = xcalloc((size_t)nbond, sizeof *s->bond);
    memcpy(s->bond, bond, (size_t)nbond * sizeof *s->bond);
    for (int t = 0; t < TS_NREF; t++) {
        s->ref[t].energy = NAN;
        s->ref[t].has_f = xcalloc((size_t)n, sizeof(int));
        s->ref[t].f = xcalloc((size_t)n, sizeof *s->ref[t].f);
    }
    build_topology(s);
}

static void finish(test_system *s)
{
    s->hred = xcalloc((size_t)s->nall, sizeof(int));
    s->amgroup = xcalloc((size_t)s->nall, sizeof(int));
    s->mpole = xcalloc((size_t)s->n, sizeof(int));
    s->frame = xcalloc((size_t)s->n, sizeof *s->frame);
}

void ts_init(test_system *s, int n, const int *amtype, const double (*x)[3], int nbond,
             const int (*bond)[2])
{
    init_common(s, n, amtype, x, nbond, bond);
    build_list(s, 0.0);
    finish(s);
}

/* ---- file ----------------------------------------------------------------------------- */

/* Reference keys: energy_<name>, forces_<name> N + N lines, virial_<name> (6 values). */
static int ref_index(const char *name)
{
    static const char *const names[TS_NREF] = {"hal", "mpole", "polar", "polar_direct"};
    if (!strcmp(name, "polar_mutual")) return TS_REF_POLAR;
    for (int k = 0; k < TS_NREF; k++)
        if (!strcmp(name, names[k])) return k;
    return -1;
}

int ts_load(test_system *s, const char *path, double ghost_cut, double list_cut)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char word[64];
    int n = 0, nb = 0, rc = 0, periodic = 0;
    double box[3] = {0, 0, 0};
    int *amtype = NULL;
    double (*x)[3] = NULL;
    int (*bond)[2] = NULL;
    /* references are kept aside until the system exists */
    double energy[TS_NREF], virial[TS_NREF][6];
    int has_virial[TS_NREF] = {0}, nf[TS_NREF] = {0};
    int *fid[TS_NREF] = {NULL};
    double (*fv[TS_NREF])[3] = {NULL};
    for (int t = 0; t < TS_NREF; t++) energy[t] = NAN;
    while (rc == 0 && fscanf(fp, "%63s", word) == 1) {
        const char *us = strchr(word, '_');
        const int t = us ? ref_index(us + 1) : -1;
        if (word[0] == '#') {
            int c;
            while ((c = fgetc(fp)) != EOF && c != '\n') {}
        } else if (!strcmp(word, "box")) {
            periodic = fscanf(fp, "%lf %lf %lf", &box[0], &box[1], &box[2]) == 3;
            if (!periodic) rc = -1;
        } else if (!strcmp(word, "atoms")) {
            if (fscanf(fp, "%d", &n) != 1 || n < 1) {
                rc = -1;
                break;
            }
            amtype = xcalloc((size_t)n, sizeof(int));
            x = xcalloc((size_t)n, sizeof *x);
            for (int k = 0; rc == 0 && k < n; k++) {
                int id, ty;
                double v[3];
                if (fscanf(fp, "%d %d %lf %lf %lf", &id, &ty, &v[0], &v[1], &v[2]) != 5 || id < 1 || id > n) rc = -1;
                else {
                    amtype[id - 1] = ty;
                    memcpy(x[id - 1], v, sizeof v);
                }
            }
        } else if (!strcmp(word, "bonds")) {
            if (fscanf(fp, "%d", &nb) != 1 || nb < 0) {
                rc = -1;
                break;
            }
            bond = xcalloc((size_t)nb, sizeof *bond);
            for (int k = 0; rc == 0 && k < nb; k++) {
                if (fscanf(fp, "%d %d", &bond[k][0], &bond[k][1]) != 2) rc = -1;
                bond[k][0]--;
                bond[k][1]--;
            }
        } else if (t >= 0 && !strncmp(word, "energy_", 7)) {
            if (fscanf(fp, "%lf", &energy[t]) != 1) rc = -1;
        } else if (t >= 0 && !strncmp(word, "virial_", 7)) {
            has_virial[t] = 1;
            for (int k = 0; k < 6; k++)
                if (fscanf(fp, "%lf", &virial[t][k]) != 1) rc = -1;
        } else if (t >= 0 && !strncmp(word, "forces_", 7) && !fid[t]) {
            if (fscanf(fp, "%d", &nf[t]) != 1 || nf[t] < 0) {
                rc = -1;
                break;
            }
            fid[t] = xcalloc((size_t)nf[t], sizeof(int));
            fv[t] = xcalloc((size_t)nf[t], sizeof *fv[t]);
            for (int k = 0; rc == 0 && k < nf[t]; k++)
                if (fscanf(fp, "%d %lf %lf %lf", &fid[t][k], &fv[t][k][0], &fv[t][k][1], &fv[t][k][2]) != 4)
                    rc = -1;
        } else {
            fprintf(stderr, "%s: unexpected '%s'\n", path, word);
            rc = -1;
        }
    }
    fclose(fp);
    if (rc != 0 || n == 0) {
        fprintf(stderr, "%s: bad test system file\n", path);
        return -1;
    }
    init_common(s, n, amtype, (const double (*)[3])x, nb, (const int (*)[2])bond);
    if (periodic) {
        s->periodic = 1;
        memcpy(s->box, box, sizeof box);
        make_ghosts(s, ghost_cut);
    }
    build_list(s, periodic ? list_cut : 0.0);
    finish(s);
    for (int r = 0; r < TS_NREF; r++) {
        s->ref[r].energy = energy[r];
        s->ref[r].has_virial = has_virial[r];
        if (has_virial[r]) memcpy(s->ref[r].virial, virial[r], sizeof virial[r]);
        for (int k = 0; k < nf[r]; k++) {
            const int i = fid[r][k] - 1;
            if (i < 0 || i >= n) continue;
            s->ref[r].has_f[i] = 1;
            memcpy(s->ref[r].f[i], fv[r][k], sizeof fv[r][k]);
        }
        free(fid[r]);
        free(fv[r]);
    }
    free(amtype);
    free(x);
    free(bond);
    return 0;
}

void ts_free(test_system *s)
{
    for (int i = 0; i < s->n; i++) {
        if (s->special) free(s->special[i]);
        if (s->special15) free(s->special15[i]);
        if (s->firstneigh) free(s->firstneigh[i]);
    }
    for (int t = 0; t < TS_NREF; t++) {
        free(s->ref[t].has_f);
        free(s->ref[t].f);
    }
    free(s->amtype);
    free(s->tag);
    free(s->x);
    free(s->owner);
    free(s->shift);
    free(s->bond);
    free(s->nspecial);
    free(s->special);
    free(s->nspecial15);
    free(s->special15);
    free(s->ilist);
    free(s->numneigh);
    free(s->firstneigh);
    free(s->hred);
    free(s->amgroup);
    free(s->mpole);
    free(s->frame);
    memset(s, 0, sizeof *s);
}

/* ---- views ---------------------------------------------------------------------------- */

pk_atoms ts_atoms(const test_system *s)
{
    pk_atoms a = {0};
    a.nlocal = s->n;
    a.nghost = s->nall - s->n;
    a.x = (const double (*)[3])s->x;
    a.tag = s->tag;
    return a;
}

pk_neigh ts_neigh(const test_system *s)
{
    pk_neigh nl = {s->n, s->ilist, s->numneigh, (int *const *)s->firstneigh};
    return nl;
}

/* Closest image of the atom with this tag to atom near_i (LAMMPS map + closest_image). */
static int map_tag(void *ctx, pk_tag tag, int near_i)
{
    const test_system *s = ctx;
    if (tag < 1 || tag > s->n) return -1;
    int best = (int)tag - 1;
    if (near_i < 0) return best;
    double bd = INFINITY;
    for (int j = 0; j < s->nall; j++) {
        if (s->owner[j] != (int)tag - 1) continue;
        double r2 = 0;
        for (int d = 0; d < 3; d++) r2 += (s->x[j][d] - s->x[near_i][d]) * (s->x[j][d] - s->x[near_i][d]);
        if (r2 < bd) {
            bd = r2;
            best = j;
        }
    }
    return best;
}

pk_amoeba_topology ts_topology(test_system *s)
{
    pk_amoeba_topology t = {0};
    t.nspecial = (const int (*)[3])s->nspecial;
    t.special = (const pk_tag *const *)s->special;
    t.nspecial15 = s->nspecial15;
    t.special15 = (const pk_tag *const *)s->special15;
    t.map = map_tag;
    t.map_ctx = s;
    return t;
}

pk_code ts_assign(test_system *s, const pk_amoeba_model *m, pk_status *st)
{
    pk_atoms a = ts_atoms(s);
    pk_amoeba_topology t = ts_topology(s);
    pk_tag *hred_tag = xcalloc((size_t)s->nall, sizeof(pk_tag));
    pk_code rc = pk_amoeba_hred_partner(m, &a, &t, s->amtype, hred_tag, NULL, st);
    /* ghosts carry their owner's partner tag (LAMMPS: d_redID, ghost yes) */
    for (int g = s->n; g < s->nall; g++) hred_tag[g] = hred_tag[s->owner[g]];
    if (!rc) pk_amoeba_map_hred(&a, &t, hred_tag, s->hred);
    free(hred_tag);
    if (rc) return rc;
    /* polarization groups: relax, copy owners' ids to ghosts, until ghosts settle */
    for (int i = 0; i < s->nall; i++) s->amgroup[i] = (int)s->tag[i];
    for (int changed = 1; changed;) {
        if (pk_amoeba_groups_relax(m, &a, &t, s->amtype, s->amgroup, &changed, st)) return st->code;
        for (int g = s->n; g < s->nall; g++) s->amgroup[g] = s->amgroup[s->owner[g]];
    }
    /* frames by tag (what the adapter keeps in d2_xyzaxis), then mapped as on reneighbouring */
    pk_tag (*frame_tag)[3] = xcalloc((size_t)s->n, sizeof *frame_tag);
    int (*frame)[3] = xcalloc((size_t)s->n, sizeof *frame);
    rc = pk_amoeba_assign_frames(m, &a, &t, s->amtype, s->mpole, frame_tag, frame, st);
    if (!rc) rc = pk_amoeba_map_frames(&a, &t, (const pk_tag (*)[3])frame_tag, s->frame, st);
    for (int i = 0; !rc && i < s->n; i++)
        if (memcmp(frame[i], s->frame[i], sizeof frame[i]))
            rc = pk_fail(st, PK_ERR_ARG, "ts_assign: mapped frame of atom %d differs", i + 1);
    free(frame_tag);
    free(frame);
    return rc;
}

/* ---- evaluation ----------------------------------------------------------------------- */

pk_amoeba_comm ts_comm(test_system *s);

pk_code ts_compute(test_system *s, const pk_amoeba_model *m, int terms, double *energy,
                   double (*f)[3], double virial[6], pk_status *st)
{
    refresh_ghosts(s);
    pk_atoms a = ts_atoms(s);
    pk_neigh nl = ts_neigh(s);
    pk_amoeba_topology t = ts_topology(s);
    pk_amoeba_list list = {0};
    pk_amoeba_state state = {0};
    pk_amoeba_sites sites = {.amtype = s->amtype, .amgroup = s->amgroup, .hred = s->hred,
                             .mpole = s->mpole, .frame = (const int (*)[3])s->frame,
                             .owner = s->pcg_comm ? NULL : s->owner};
    pk_amoeba_comm comm = ts_comm(s);
    const pk_amoeba_terms which = {.hal = !!(terms & TS_HAL), .mpole = !!(terms & TS_MPOLE),
                                   .polar = !!(terms & TS_POLAR)};
    pk_out out = {0};
    double (*fall)[3] = xcalloc((size_t)s->nall, sizeof *fall);
    double *eall = s->eatom ? xcalloc((size_t)s->nall, sizeof *eall) : NULL;
    double (*vall)[6] = s->vatom ? xcalloc((size_t)s->nall, sizeof *vall) : NULL;
    out.f = fall;
    out.eatom = eall;
    out.vatom = vall;
    out.want_energy = out.want_virial = 1;
    pk_code rc = pk_amoeba_list_build(&list, m, &nl, &a, &t, st);
    if (!rc) rc = pk_amoeba_compute(m, &a, &sites, &list, &comm, which, &state, &out, st);
    s->info = state.last;
    comm.reverse(comm.ctx, &fall[0][0], 3);   /* ghost forces onto their owners */
    if (eall) {
        comm.reverse(comm.ctx, eall, 1);
        memcpy(s->eatom, eall, (size_t)s->n * sizeof *eall);
        free(eall);
    }
    if (vall) {
        comm.reverse(comm.ctx, &vall[0][0], 6);
        memcpy(s->vatom, vall, (size_t)s->n * sizeof *vall);
        free(vall);
    }
    memcpy(f, fall, (size_t)s->n * sizeof *f);
    *energy = out.energy;
    if (virial) memcpy(virial, out.virial, sizeof out.virial);
    free(fall);
    pk_amoeba_list_free(&list);
    pk_amoeba_state_free(&state);
    return rc;
}

pk_code ts_fd_forces(test_system *s, const pk_amoeba_model *m, int terms, double h,
                     double *maxdev, double *maxf, pk_status *st)
{
    return ts_fd_forces_of(s, m, terms, h, NULL, s->n, maxdev, maxf, st);
}

pk_code ts_fd_forces_of(test_system *s, const pk_amoeba_model *m, int terms, double h,
                        const int *atoms, int natoms, double *maxdev, double *maxf,
                        pk_status *st)
{
    double (*f)[3] = xcalloc((size_t)s->n, sizeof *f);
    double (*g)[3] = xcalloc((size_t)s->n, sizeof *g);
    double e, ep, em;
    pk_code rc = ts_compute(s, m, terms, &e, f, NULL, st);
    *maxdev = *maxf = 0.0;
    for (int a = 0; !rc && a < natoms; a++) {
        const int i = atoms ? atoms[a] : a;
        for (int d = 0; !rc && d < 3; d++) {
            const double x0 = s->x[i][d];
            s->x[i][d] = x0 + h;
            rc = ts_compute(s, m, terms, &ep, g, NULL, st);
            s->x[i][d] = x0 - h;
            if (!rc) rc = ts_compute(s, m, terms, &em, g, NULL, st);
            s->x[i][d] = x0;
            const double dedx = (ep - em) / (2.0 * h);
            if (fabs(f[i][d] + dedx) > *maxdev) *maxdev = fabs(f[i][d] + dedx);
            if (fabs(f[i][d]) > *maxf) *maxf = fabs(f[i][d]);
        }
    }
    refresh_ghosts(s);
    free(f);
    free(g);
    return rc;
}

static void strain(test_system *s, const double (*x0)[3], const double eps[3][3])
{
    memcpy(s->strain, eps, sizeof s->strain);
    for (int i = 0; i < s->n; i++)
        for (int a = 0; a < 3; a++)
            s->x[i][a] = x0[i][a] + eps[a][0] * x0[i][0] + eps[a][1] * x0[i][1] + eps[a][2] * x0[i][2];
}

pk_code ts_fd_virial(test_system *s, const pk_amoeba_model *m, int terms, double h,
                     double fd[6], double vir[6], pk_status *st)
{
    static const int ab[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    double (*f)[3] = xcalloc((size_t)s->n, sizeof *f);
    double (*x0)[3] = xcalloc((size_t)s->n, sizeof *x0);
    memcpy(x0, s->x, (size_t)s->n * sizeof *x0);
    double e, ep, em;
    pk_code rc = ts_compute(s, m, terms, &e, f, vir, st);
    for (int k = 0; !rc && k < 6; k++) {
        double eps[3][3] = {{0}};
        const int a = ab[k][0], b = ab[k][1];
        const double t = a == b ? h : 0.5 * h;
        eps[a][b] = eps[b][a] = t;
        strain(s, (const double (*)[3])x0, (const double (*)[3])eps);
        rc = ts_compute(s, m, terms, &ep, f, NULL, st);
        eps[a][b] = eps[b][a] = -t;
        strain(s, (const double (*)[3])x0, (const double (*)[3])eps);
        if (!rc) rc = ts_compute(s, m, terms, &em, f, NULL, st);
        fd[k] = -(ep - em) / (2.0 * h);
    }
    memcpy(s->x, x0, (size_t)s->n * sizeof *x0);
    memset(s->strain, 0, sizeof s->strain);
    refresh_ghosts(s);
    free(f);
    free(x0);
    return rc;
}

pk_code ts_against_reference(test_system *s, const pk_amoeba_model *m, int term, ts_errors *err,
                             pk_status *st)
{
    const int r = term == TS_HAL ? TS_REF_HAL : term == TS_MPOLE ? TS_REF_MPOLE
                : m->polarization == PK_AMOEBA_POLAR_DIRECT ? TS_REF_POLAR_DIRECT : TS_REF_POLAR;
    const ts_reference *ref = &s->ref[r];
    double (*f)[3] = xcalloc((size_t)s->n, sizeof *f);
    double vir[6];
    memset(err, 0, sizeof *err);
    pk_code rc = ts_compute(s, m, term, &err->energy, f, vir, st);
    err->ref_energy = ref->energy;
    for (int i = 0; i < s->n; i++) {
        if (!ref->has_f[i]) continue;
        for (int d = 0; d < 3; d++) {
            err->fdev = fmax(err->fdev, fabs(f[i][d] - ref->f[i][d]));
            err->fmax = fmax(err->fmax, fabs(ref->f[i][d]));
        }
    }
    if (ref->has_virial)
        for (int k = 0; k < 6; k++) {
            err->vdev = fmax(err->vdev, fabs(vir[k] - ref->virial[k]));
            err->vmax = fmax(err->vmax, fabs(ref->virial[k]));
        }
    free(f);
    return rc;
}

/* ---- communication and polarization ------------------------------------------------- */

static void comm_forward(void *ctx, double *v, int ncol)
{
    const test_system *s = ctx;
    for (int g = s->n; g < s->nall; g++)
        memcpy(v + (size_t)g * ncol, v + (size_t)s->owner[g] * ncol, (size_t)ncol * sizeof *v);
}

static void comm_reverse(void *ctx, double *v, int ncol)
{
    const test_system *s = ctx;
    for (int g = s->n; g < s->nall; g++)
        for (int c = 0; c < ncol; c++) v[(size_t)s->owner[g] * ncol + c] += v[(size_t)g * ncol + c];
}

static void comm_allreduce(void *ctx, double *v, int n)
{
    (void)ctx;
    (void)v;
    (void)n;
}

pk_amoeba_comm ts_comm(test_system *s)
{
    pk_amoeba_comm c = {comm_forward, comm_reverse, comm_allreduce, s};
    return c;
}

pk_code ts_polar(test_system *s, const pk_amoeba_model *m, double (*u)[6], double *energy,
                 pk_amoeba_induce_info *info, pk_status *st)
{
    refresh_ghosts(s);
    pk_atoms a = ts_atoms(s);
    pk_neigh nl = ts_neigh(s);
    pk_amoeba_topology t = ts_topology(s);
    pk_amoeba_comm comm = ts_comm(s);
    pk_amoeba_list list = {0};
    pk_amoeba_pairs pairs = {0};
    pk_amoeba_induce_work w = {0};
    pk_amoeba_work frames = {0};
    pk_amoeba_sites sites = {.amtype = s->amtype, .amgroup = s->amgroup, .hred = s->hred,
                             .mpole = s->mpole, .frame = (const int (*)[3])s->frame,
                             .owner = s->pcg_comm ? NULL : s->owner};
    pk_out out = {0};
    double (*rpole)[13] = xcalloc((size_t)s->nall, sizeof *rpole);
    pk_code rc = pk_amoeba_list_build(&list, m, &nl, &a, &t, st);
    if (!rc)
        rc = pk_amoeba_pairs_build(&pairs, &list, &a, m->set.polar_cut, m->set.polar_cut,
                                   m->set.pcg_precond, 0.0,
                                   st);
    if (!rc) rc = pk_amoeba_rotate(m, &a, &sites, rpole, &frames, st);
    comm_forward(s, &rpole[0][0], 13);
    if (!rc)
        rc = pk_amoeba_induce(m, &a, &sites, &list, &pairs, (const double (*)[13])rpole, &comm, u, &w,
                              info, st);
    if (!rc) pk_amoeba_polar_energy(m, &a, &sites, (const double (*)[6])u, &w, &out);
    *energy = out.energy;
    free(rpole);
    pk_amoeba_list_free(&list);
    pk_amoeba_pairs_free(&pairs);
    pk_amoeba_induce_work_free(&w);
    pk_amoeba_work_free(&frames);
    return rc;
}
