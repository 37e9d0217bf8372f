/* One-time topology work: multipole frame assignment (Tinker kmpole.f, LAMMPS kmpole) and
 * the hydrogen-reduction partners. */
#include <stdlib.h>
#include <string.h>

#include "amoeba_internal.h"

enum { MAX_PARTNERS = 64 };

typedef struct {
    pk_tag tag;
    int idx;    /* closest local image */
    int type;
} partner;

/* Tags in [lo, hi) of atom i's special list, sorted by tag as LAMMPS does before
 * matching (so the first match does not depend on the bond order in the data file). */
static pk_code partners(const pk_amoeba_topology *top, const int *amtype, int i, int lo, int hi,
                        partner *out, int *n, const pk_atoms *a, pk_status *st)
{
    if (hi - lo > MAX_PARTNERS)
        return pk_fail(st, PK_ERR_RANGE, "amoeba/pk: atom %d has more than %d special partners",
                       a->tag ? a->tag[i] : i + 1, MAX_PARTNERS);
    *n = 0;
    for (int k = lo; k < hi; k++) {
        partner p;
        p.tag = top->special[i][k];
        p.idx = top->map(top->map_ctx, p.tag, i);
        if (p.idx < 0)
            return pk_fail(st, PK_ERR_RANGE,
                           "amoeba/pk: bond partner %d of atom %d not found (lost, or the "
                           "ghost cutoff too short?)",
                           (int)p.tag, a->tag ? a->tag[i] : i + 1);
        p.type = amtype[p.idx];
        int m = (*n)++;
        while (m > 0 && out[m - 1].tag > p.tag) {
            out[m] = out[m - 1];
            m--;
        }
        out[m] = p;
    }
    return PK_OK;
}

/* Is atom k (a 1-3 partner of i) bonded to z? From k's 1-2 list when the caller gives
 * those of ghosts too; else from the bond list of whichever of the two is owned here (map
 * with near_i = -1 prefers the owned copy, as LAMMPS's atom->map), unknown if neither. */
static int bonded(const pk_amoeba_topology *top, const pk_atoms *a, const partner *k,
                  const partner *z, int *unknown)
{
    if (top->bond12) {
        for (int m = 0; m < top->nbond12[k->idx]; m++)
            if (top->bond12[k->idx][m] == z->tag) return 1;
        return 0;
    }
    const int ko = top->map(top->map_ctx, k->tag, -1);
    if (ko >= 0 && ko < a->nlocal) {
        for (int m = 0; m < top->nspecial[ko][0]; m++)
            if (top->special[ko][m] == z->tag) return 1;
        return 0;
    }
    const int zo = top->map(top->map_ctx, z->tag, -1);
    if (zo >= 0 && zo < a->nlocal) {
        for (int m = 0; m < top->nspecial[zo][0]; m++)
            if (top->special[zo][m] == k->tag) return 1;
        return 0;
    }
    *unknown = 1;
    return 0;
}

typedef struct {
    int rec;
    pk_tag z, x, y;
} frame_match;

/* The four passes of kmpole, each over the type's records in file order; the first
 * match wins. Returns 1 when found, 0 when not, -1 when a bond list was unavailable. */
static int match_frame(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_topology *top,
                       int itype, const partner *b12, int n12, const partner *b13, int n13,
                       frame_match *f)
{
    int unknown = 0;
    /* 1: z, x (and y) all bonded to i */
    for (int r = 0; r < m->nmpole; r++) {
        const pk_amoeba_mpole_param *p = &m->mpole[r];
        if (p->type != itype || p->zt == 0 || p->xt == 0) continue;
        for (int jz = 0; jz < n12; jz++) {
            if (b12[jz].type != p->zt) continue;
            for (int jx = 0; jx < n12; jx++) {
                if (jx == jz || b12[jx].type != p->xt) continue;
                if (p->yt == 0) {
                    *f = (frame_match){r, b12[jz].tag, b12[jx].tag, 0};
                    return 1;
                }
                for (int jy = 0; jy < n12; jy++) {
                    if (jy == jz || jy == jx || b12[jy].type != p->yt) continue;
                    *f = (frame_match){r, b12[jz].tag, b12[jx].tag, b12[jy].tag};
                    return 1;
                }
            }
        }
    }
    /* 2: z bonded to i, x (and y) 1-3 partners bonded to z */
    for (int r = 0; r < m->nmpole; r++) {
        const pk_amoeba_mpole_param *p = &m->mpole[r];
        if (p->type != itype || p->zt == 0 || p->xt == 0) continue;
        for (int jz = 0; jz < n12; jz++) {
            if (b12[jz].type != p->zt) continue;
            for (int jx = 0; jx < n13; jx++) {
                if (b13[jx].type != p->xt || !bonded(top, a, &b13[jx], &b12[jz], &unknown)) continue;
                if (p->yt == 0) {
                    *f = (frame_match){r, b12[jz].tag, b13[jx].tag, 0};
                    return 1;
                }
                for (int jy = 0; jy < n13; jy++) {
                    if (jy == jx || b13[jy].type != p->yt ||
                        !bonded(top, a, &b13[jy], &b12[jz], &unknown))
                        continue;
                    *f = (frame_match){r, b12[jz].tag, b13[jx].tag, b13[jy].tag};
                    return 1;
                }
            }
        }
    }
    /* 3: z-only frames */
    for (int r = 0; r < m->nmpole; r++) {
        const pk_amoeba_mpole_param *p = &m->mpole[r];
        if (p->type != itype || p->zt == 0 || p->xt != 0) continue;
        for (int jz = 0; jz < n12; jz++)
            if (b12[jz].type == p->zt) {
                *f = (frame_match){r, b12[jz].tag, 0, 0};
                return 1;
            }
    }
    /* 4: no frame */
    for (int r = 0; r < m->nmpole; r++)
        if (m->mpole[r].type == itype && m->mpole[r].zt == 0) {
            *f = (frame_match){r, 0, 0, 0};
            return 1;
        }
    return unknown ? -1 : 0;
}

pk_code pk_amoeba_assign_frames(const pk_amoeba_model *m, const pk_atoms *a,
                                const pk_amoeba_topology *top, const int *amtype,
                                int *mpole, pk_tag (*frame_tag)[3], int (*frame)[3],
                                pk_status *st)
{
    partner b12[MAX_PARTNERS], b13[MAX_PARTNERS];
    for (int i = 0; i < a->nlocal; i++) {
        const pk_tag itag = a->tag ? a->tag[i] : i + 1;
        const int itype = amtype[i];
        if (itype < 1 || itype > m->ntypes || !m->type_defined[itype])
            return pk_fail(st, PK_ERR_ARG, "amoeba/pk: atom %d has undefined AMOEBA type %d",
                           (int)itag, itype);
        int n12, n13;
        if (partners(top, amtype, i, 0, top->nspecial[i][0], b12, &n12, a, st) ||
            partners(top, amtype, i, top->nspecial[i][0], top->nspecial[i][1], b13, &n13, a, st))
            return st->code;
        frame_match f;
        int found = match_frame(m, a, top, itype, b12, n12, b13, n13, &f);
        if (found < 0)
            return pk_fail(st, PK_ERR_RANGE,
                           "amoeba/pk: frame of atom %d needs the bond list of a ghost atom "
                           "(pk_amoeba_topology.bond12)", (int)itag);
        if (!found)
            return pk_fail(st, PK_ERR_ARG,
                           "amoeba/pk: no multipole record of type %d fits the bonds of atom %d "
                           "(frame atoms not found)", itype, (int)itag);
        mpole[i] = f.rec;
        const pk_tag tags[3] = {f.z, f.x, f.y};
        for (int k = 0; k < 3; k++) {
            if (frame_tag) frame_tag[i][k] = tags[k];
            if (frame) frame[i][k] = tags[k] ? top->map(top->map_ctx, tags[k], i) : i;
        }
    }
    return PK_OK;
}

int pk_amoeba_find_mpole(const pk_amoeba_model *m, int type, pk_amoeba_frame_kind kind, int zt,
                         int xt, int yt)
{
    for (int r = 0; r < m->nmpole; r++) {
        const pk_amoeba_mpole_param *p = &m->mpole[r];
        if (p->type == type && p->kind == kind && p->zt == zt && p->xt == xt && p->yt == yt) return r;
    }
    return -1;
}

pk_code pk_amoeba_hred_partner(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_topology *top, const int *amtype,
                               pk_tag *hred_tag, int *hred, pk_status *st)
{
    for (int i = 0; i < a->nlocal; i++) {
        const int t = amtype[i];
        if (t < 1 || t > m->ntypes || !m->type_defined[t])
            return pk_fail(st, PK_ERR_ARG, "amoeba/pk: atom %d has undefined AMOEBA type %d",
                           a->tag ? (int)a->tag[i] : i + 1, t);
        pk_tag partner_tag = 0;
        if (m->vdw_red[m->type_class[t]] != 0.0 && top->nspecial[i][0] == 1)
            partner_tag = top->special[i][0];
        if (hred_tag) hred_tag[i] = partner_tag;
        if (hred) {
            hred[i] = partner_tag ? top->map(top->map_ctx, partner_tag, i) : i;
            if (hred[i] < 0)
                return pk_fail(st, PK_ERR_RANGE, "amoeba/pk: H-reduction partner %d of atom %d not found",
                               (int)partner_tag, a->tag ? (int)a->tag[i] : i + 1);
        }
    }
    return PK_OK;
}

/* One relaxation pass of LAMMPS assign_groups: from every owned atom, follow bonds to
 * partners whose type is in the atom's group list and give both the smaller group id;
 * owned atoms that change are revisited (explicit stack), changed ghosts are reported. */
pk_code pk_amoeba_groups_relax(const pk_amoeba_model *m, const pk_atoms *a,
                               const pk_amoeba_topology *top, const int *amtype, int *amgroup,
                               int *ghost_changed, pk_status *st)
{
    int *stack = malloc((size_t)(a->nlocal > 0 ? a->nlocal : 1) * 4 * sizeof(int));
    int cap = (a->nlocal > 0 ? a->nlocal : 1) * 4;
    if (!stack) return pk_fail(st, PK_ERR_MEMORY, "amoeba/pk: out of memory (groups)");
    *ghost_changed = 0;
    for (int i = 0; i < a->nlocal; i++) {
        int n = 0;
        stack[n++] = i;
        while (n > 0) {
            const int k = stack[--n];
            const int kt = amtype[k];
            for (int b = 0; b < top->nspecial[k][0]; b++) {
                const pk_tag jt = top->special[k][b];
                const int j = top->map(top->map_ctx, jt, -1);
                if (j < 0) {
                    free(stack);
                    return pk_fail(st, PK_ERR_RANGE, "amoeba/pk: bond partner %d of atom %d not found "
                                   "(polarization groups)", (int)jt, a->tag ? (int)a->tag[k] : k + 1);
                }
                int member = 0;
                for (int g = 0; g < m->npolgroup[kt]; g++)
                    if (m->polgroup[kt][g] == amtype[j]) member = 1;
                if (!member || amgroup[k] == amgroup[j]) continue;
                int push;
                if (amgroup[k] > amgroup[j]) {
                    amgroup[k] = amgroup[j];
                    push = k;
                } else {
                    amgroup[j] = amgroup[k];
                    if (j >= a->nlocal) {
                        *ghost_changed = 1;
                        continue;
                    }
                    push = j;
                }
                if (n == cap) {
                    int *p = realloc(stack, (size_t)(cap *= 2) * sizeof(int));
                    if (!p) {
                        free(stack);
                        return pk_fail(st, PK_ERR_MEMORY, "amoeba/pk: out of memory (groups)");
                    }
                    stack = p;
                }
                stack[n++] = push;
            }
        }
    }
    free(stack);
    return PK_OK;
}

pk_code pk_amoeba_map_frames(const pk_atoms *a, const pk_amoeba_topology *top,
                             const pk_tag (*frame_tag)[3], int (*frame)[3], pk_status *st)
{
    for (int i = 0; i < a->nlocal; i++)
        for (int k = 0; k < 3; k++) {
            const pk_tag t = frame_tag[i][k];
            frame[i][k] = t ? top->map(top->map_ctx, t, i) : i;
            if (frame[i][k] < 0)
                return pk_fail(st, PK_ERR_RANGE, "amoeba/pk: frame atom %d of atom %d not found "
                               "(lost, or the ghost cutoff too short?)", (int)t,
                               a->tag ? (int)a->tag[i] : i + 1);
        }
    return PK_OK;
}

/* Farthest a bonded H-reduction partner (an X-H bond, ~1 A) can be from its atom. The
 * closest image that map() finds is the bonded copy if that copy is present. A ghost atom
 * near the edge of the ghost shell may lack it; map() then returns another copy, at least
 * a box length minus the bond away in a periodic box, which must not be used: the partner
 * is absent (-1). Any bound between the longest bond and the shortest box length minus it
 * tells the two apart. */
#define HRED_MAXDIST 3.0

void pk_amoeba_map_hred(const pk_atoms *a, const pk_amoeba_topology *top, const pk_tag *hred_tag,
                        int *hred)
{
    const int nall = a->nlocal + a->nghost;
    for (int i = 0; i < nall; i++) {
        hred[i] = hred_tag[i] ? top->map(top->map_ctx, hred_tag[i], i) : i;
        if (hred[i] < 0 || hred[i] == i) continue;
        double r2 = 0.0;
        for (int d = 0; d < 3; d++) {
            const double dx = a->x[hred[i]][d] - a->x[i][d];
            r2 += dx * dx;
        }
        if (r2 > HRED_MAXDIST * HRED_MAXDIST) hred[i] = -1;
    }
}
