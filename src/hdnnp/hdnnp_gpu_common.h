/* Per-thread code of the hdnnp/pk CUDA backend that is the same in both precisions
 * (hdnnp_gpu.h): environments, the pair rule, the block kernels' ranges and work split,
 * networks, centre forces and the force gather. Double throughout; included by hdnnp_gpu.h
 * only. */
#ifndef HDNNP_GPU_COMMON_H
#define HDNNP_GPU_COMMON_H

#include <math.h>

#define HDG_PI 3.14159265358979323846
#define HDG_E 2.71828182845904523536

/* hdnnp_model.h's type properties, callable on the device */
PK_HD int hdg_type_radial(int t) { return t == 2 || t == 12 || t == 20 || t == 23; }
PK_HD int hdg_type_weighted(int t) { return t == 12 || t == 13 || t == 23 || t == 24 || t == 25; }
PK_HD int hdg_type_compact(int t) { return t >= 20; }
PK_HD int hdg_type_wide(int t) { return t == 9 || t == 22 || t == 25; }

/* Neighbours of centre ii within its element's largest cutoff, sorted by element (stable, as
 * hdnnp_env_build), into the env arrays; zeroes the centre's slot gradients. Returns 1 when
 * one of them is closer than HDNNP_OVERLAP_R (env_n is then -1), else 0. */
PK_HD int hdg_env(const hdg_step *s, int ii)
{
    const int i = s->centre[ii], ce = s->elem[i], off = s->offset[ii];
    const int nraw = s->offset[ii + 1] - off;
    int *start = s->env_start + (size_t)HDG_START_STRIDE * ii;
    for (int jj = 0; jj < nraw; jj++)
        for (int q = 0; q < 3; q++) s->g[3 * ((size_t)off + jj) + q] = 0.0;
    if (ce < 0) {
        s->env_n[ii] = 0;
        for (int e = 0; e < HDG_START_STRIDE; e++) start[e] = 0;
        return 0;
    }
    const int ne = s->m.nelements;
    const double rc = s->m.el[ce].rcmax, rc2 = rc * rc;
    const double xi = s->x[3 * i], yi = s->x[3 * i + 1], zi = s->x[3 * i + 2];
    int count[HDNNP_MAX_ELEMENTS];
    for (int e = 0; e < ne; e++) count[e] = 0;
    for (int jj = 0; jj < nraw; jj++) {
        const int j = s->neigh[off + jj], ej = s->elem[j];
        if (ej < 0) continue;
        const double dx = s->x[3 * j] - xi, dy = s->x[3 * j + 1] - yi, dz = s->x[3 * j + 2] - zi;
        if (dx * dx + dy * dy + dz * dz < rc2) count[ej]++;
    }
    start[0] = 0;
    for (int e = 0; e < ne; e++) start[e + 1] = start[e] + count[e];
    for (int e = ne + 1; e < HDG_START_STRIDE; e++) start[e] = start[ne];
    for (int e = 0; e < ne; e++) count[e] = start[e];   /* next free entry per element */
    int overlap = 0;
    for (int jj = 0; jj < nraw; jj++) {
        const int j = s->neigh[off + jj], ej = s->elem[j];
        if (ej < 0) continue;
        const double dx = s->x[3 * j] - xi, dy = s->x[3 * j + 1] - yi, dz = s->x[3 * j + 2] - zi;
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rc2) continue;
        const size_t p = (size_t)off + count[ej]++;
        double *d = s->env_d + 4 * p;
        d[0] = dx;
        d[1] = dy;
        d[2] = dz;
        d[3] = sqrt(r2);
        s->env_slot[p] = off + jj;
        s->env_el[p] = ej;
        overlap |= d[3] < HDNNP_OVERLAP_R;
    }
    s->env_n[ii] = overlap ? -1 : start[ne];
    return overlap;
}

/* Whether the pair (j, k) of env entries (j first in the group's order: j < k when both come
 * from one element list, else j of element e1) contributes to an angular function on the
 * radial factor cu: the rule of hdnnp_pair_window (every backend lists the same pairs); the
 * tests run in double in both precisions. */
PK_HD int hdg_pair_in(const double *dj, const double *dk, const hdnnp_cutoff *cu, int narrow,
                      int compact, int test_r)
{
    const double rcut = cu->rc, rlo = compact ? cu->rl : -1.0;
    const double rlo2 = rlo > 0.0 ? rlo * rlo : -1.0;
    if (dj[3] >= rcut || dj[3] <= rlo) return 0;
    const double cx = dk[0] - dj[0], cy = dk[1] - dj[1], cz = dk[2] - dj[2];
    const double d2 = cx * cx + cy * cy + cz * cz;
    if (test_r && !(dk[3] < rcut)) return 0;
    if (narrow && !(d2 < rcut * rcut)) return 0;
    if (compact && !(dk[3] > rlo)) return 0;
    if (compact && narrow && !(d2 > rlo2)) return 0;
    return 1;
}

/* Env entries [*q0, *q1) of centre ii's neighbours of element e (all of them for weighted
 * types): the radial terms of a group, or the first or second members of its pairs. */
PK_HD void hdg_range(const hdg_step *s, int ii, int weighted, int e, int *q0, int *q1)
{
    const int *start = s->env_start + (size_t)HDG_START_STRIDE * ii;
    *q0 = weighted ? 0 : start[e];
    *q1 = weighted ? s->env_n[ii] : start[e + 1];
}

/* Whether block ii of the values kernel runs (the centre has an element and no overlap: with
 * no neighbours its functions are 0), of the gradient kernel (and it has neighbours); the
 * same answer for every thread of the block. */
PK_HD int hdg_blk_values_run(const hdg_step *s, int ii)
{
    return s->elem[s->centre[ii]] >= 0 && s->env_n[ii] >= 0;
}
PK_HD int hdg_blk_grad_run(const hdg_step *s, int ii)
{
    return s->elem[s->centre[ii]] >= 0 && s->env_n[ii] > 0;
}

/* Group g (element-local: radial groups first, then angular) of centre ii's element, and how
 * many the element has. */
PK_HD const hdg_group *hdg_blk_group(const hdg_step *s, int ii, int g)
{
    return &s->m.grp[s->m.el[s->elem[s->centre[ii]]].radial0 + g];
}
PK_HD int hdg_blk_ngroups(const hdg_step *s, int ii)
{
    const hdg_element *el = &s->m.el[s->elem[s->centre[ii]]];
    return el->nradial + el->nangular;
}

/* The work of an angular group's gradient (hdg_blk_grad): every env entry that is a member
 * of one of its pairs owns its own sum. Owners 0 .. n1 - 1 (the group's first element, or
 * all of one list) have p1 partners each, owners n1 .. n1 + n2 - 1 (the second element of
 * a two-element group) p2. Each owner's partners are cut into chunks of len (c1 or c2
 * chunks) and the (chunk, owner) items dealt to the threads: item u < n1 c1 is chunk
 * u / n1 of owner u % n1, the others chunk v / n2 of owner n1 + v % n2, v = u - n1 c1. len
 * is the one of ceil(max(p1, p2) / c), c = 1 .. HDG_SPLIT_MAX, that needs the fewest
 * partner steps of a thread (the block's time: ceil(items / bd) len), with at most
 * max(ncap, HDG_SPLIT_ROUNDS bd) items (hdg_shared's part columns). */
enum { HDG_SPLIT_MAX = 8, HDG_SPLIT_ROUNDS = 4 };
typedef struct {
    int n1, p1, n2, p2, len, c1, c2, items;
} hdg_split;

PK_HD int hdg_split_cap(int ncap, int bd)
{
    return ncap > HDG_SPLIT_ROUNDS * bd ? ncap : HDG_SPLIT_ROUNDS * bd;
}

PK_HD hdg_split hdg_owners(const hdg_step *s, int ii, const hdg_group *grp, int ncap, int bd)
{
    const int weighted = hdg_type_weighted(grp->type), one = weighted || grp->e1 == grp->e2;
    int j0, j1, k0, k1;
    hdg_range(s, ii, weighted, grp->e1, &j0, &j1);
    hdg_range(s, ii, weighted, grp->e2, &k0, &k1);
    hdg_split w;
    w.n1 = j1 - j0;
    w.p1 = one ? j1 - j0 : k1 - k0;
    w.n2 = one ? 0 : k1 - k0;
    w.p2 = one ? 0 : j1 - j0;
    const int pmax = w.p1 > w.p2 ? w.p1 : w.p2, cap = hdg_split_cap(ncap, bd);
    w.len = pmax > 0 ? pmax : 1;
    w.c1 = w.n1 > 0 ? 1 : 0;
    w.c2 = w.n2 > 0 ? 1 : 0;
    w.items = w.n1 + w.n2;
    long best = (long)((w.items + bd - 1) / bd) * w.len;
    for (int c = 2; c <= HDG_SPLIT_MAX && c <= pmax; c++) {
        const int len = (pmax + c - 1) / c;
        const int c1 = (w.p1 + len - 1) / len, c2 = (w.p2 + len - 1) / len;
        const int items = w.n1 * c1 + w.n2 * c2;
        const long steps = (long)((items + bd - 1) / bd) * len;
        if (items > cap || steps >= best) continue;
        best = steps;
        w.len = len;
        w.c1 = c1;
        w.c2 = c2;
        w.items = items;
    }
    return w;
}

/* Item u of the split: its owner's env entry *j, the partners [*k0, *k1) of its chunk and
 * whether the owner comes first in their pairs (the order hdg_pair_in tests in; j < k within
 * one element list). */
PK_HD void hdg_item(const hdg_step *s, int ii, const hdg_group *grp, const hdg_split *w, int u,
                    int *j, int *k0, int *k1, int *first)
{
    const int weighted = hdg_type_weighted(grp->type);
    int j0, j1, q0, q1;
    hdg_range(s, ii, weighted, grp->e1, &j0, &j1);
    hdg_range(s, ii, weighted, grp->e2, &q0, &q1);
    int c;
    if (u < w->n1 * w->c1) {
        c = u / w->n1;
        *j = j0 + u % w->n1;
        *first = 1;
        if (w->n2 == 0) {   /* one list: partners from the same list */
            q0 = j0;
            q1 = j1;
        }
    } else {
        const int v = u - w->n1 * w->c1;
        c = v / w->n2;
        *j = q0 + v % w->n2;   /* a member of element e2 != e1: partners of e1 */
        q0 = j0;
        q1 = j1;
        *first = 0;
    }
    *k0 = q0 + c * w->len;
    *k1 = *k0 + w->len < q1 ? *k0 + w->len : q1;
}

/* The items of owner o (0 .. n1 + n2 - 1) in chunk order (hdg_blk_grad_sum): *count of them
 * at u0 + c stride. */
PK_HD void hdg_owner_items(const hdg_split *w, int o, int *u0, int *stride, int *count)
{
    const int second = o >= w->n1;
    *u0 = second ? w->n1 * w->c1 + (o - w->n1) : o;
    *stride = second ? w->n2 : w->n1;
    *count = second ? w->c2 : w->c1;
}

/* hdnnp_activate on the device (n2p2's functions, EXP_LIMIT 35 saturation) */
PK_HD void hdg_activate(int a, double x, double *y, double *dy)
{
    switch (a) {
    case HDNNP_AF_TANH: { const double t = tanh(x); *y = t; *dy = 1.0 - t * t; return; }
    case HDNNP_AF_LOGISTIC:
        if (x > 35.0) { *y = 1.0; *dy = 0.0; }
        else if (x < -35.0) { *y = 0.0; *dy = 0.0; }
        else { const double s = 1.0 / (1.0 + exp(-x)); *y = s; *dy = s * (1.0 - s); }
        return;
    case HDNNP_AF_SOFTPLUS:
        if (x > 35.0) { *y = x; *dy = 1.0; }
        else if (x < -35.0) { *y = 0.0; *dy = 0.0; }
        else { const double e = exp(x); *y = log(1.0 + e); *dy = 1.0 / (1.0 + 1.0 / e); }
        return;
    case HDNNP_AF_RELU: *y = x > 0.0 ? x : 0.0; *dy = x > 0.0 ? 1.0 : 0.0; return;
    case HDNNP_AF_GAUSSIAN: { const double g = exp(-0.5 * x * x); *y = g; *dy = -x * g; return; }
    case HDNNP_AF_COS: *y = cos(x); *dy = -sin(x); return;
    case HDNNP_AF_REVLOGISTIC: {
        const double s = 1.0 / (1.0 + exp(-x));
        *y = 1.0 - s; *dy = s * (s - 1.0); return;
    }
    case HDNNP_AF_EXP: { const double e = exp(-x); *y = e; *dy = -e; return; }
    case HDNNP_AF_HARMONIC: *y = x * x; *dy = 2.0 * x; return;
    default: *y = x; *dy = 1.0; return;   /* identity */
    }
}

/* Centre ii after its symmetry functions: scaling and the extrapolation count (ewn), the
 * element network forward and back (hdnnp_network_eval), the energy (ev[0]) and the weights
 * c_s = dE/dGs_s factor_s / conv_energy of the force contraction (C). The centre's work
 * vector is a column: its entry k at work[k inum + ii], so that the threads of a warp
 * (neighbouring centres) read and write neighbouring doubles. */
PK_HD void hdg_network(const hdg_step *s, int ii)
{
    const int ce = s->elem[s->centre[ii]];
    double *ev = s->ev + 7 * (size_t)ii;
    s->ewn[ii] = 0;
    ev[0] = 0.0;
    if (ce < 0 || s->env_n[ii] < 0) return;
    const hdg_element *el = &s->m.el[ce];
    const hdnnp_sf *sf = s->m.sf + el->sf0;
    const double *G = s->G + (size_t)s->m.maxnsf * ii;
    double *C = s->C + (size_t)s->m.maxnsf * ii, *a = s->work + ii;
    const size_t st = (size_t)s->inum;
    const int nsf = el->nsf;
    int count = 0;
    for (int q = 0; q < nsf; q++) {
        a[q * st] = sf[q].smin + sf[q].factor * (G[q] - sf[q].gref);
        count += G[q] < sf[q].gmin || G[q] > sf[q].gmax;
    }
    /* layer l's values at entries lo[l] .., their derivatives after them */
    size_t lo[HDNNP_MAX_LAYERS];
    lo[0] = 0;
    size_t next = (size_t)nsf;
    const int L = el->nlayers - 1;
    for (int l = 1; l <= L; l++) {
        const int nin = el->size[l - 1], nout = el->size[l];
        const double scale = el->normalize ? 1.0 / nin : 1.0;
        const double *w = s->m.w + el->woff[l], *b = s->m.w + el->boff[l];
        const size_t in = lo[l - 1];
        lo[l] = next;
        for (int o = 0; o < nout; o++) {
            double x = b[o], y, dy;
            for (int i = 0; i < nin; i++) x += w[(size_t)o * nin + i] * a[(in + i) * st];
            hdg_activate(el->act[l], x * scale, &y, &dy);
            a[(next + o) * st] = y;
            a[(next + nout + o) * st] = dy;
        }
        next += 2 * (size_t)nout;
    }
    /* back-propagation: d = dE/dx of layer l (entries dn ..), gin = dE/da of layer l - 1
     * (entries gn ..; C for the input layer), each a sum over o in ascending order */
    int maxsize = 0;
    for (int l = 0; l <= L; l++) maxsize = el->size[l] > maxsize ? el->size[l] : maxsize;
    const size_t dn = next, gn = next + (size_t)maxsize;
    a[dn * st] = a[(lo[L] + 1) * st];   /* the output's derivative */
    for (int l = L; l >= 1; l--) {
        const int nin = el->size[l - 1], nout = el->size[l];
        const double scale = el->normalize ? 1.0 / nin : 1.0;
        const double *w = s->m.w + el->woff[l];
        for (int i = 0; i < nin; i++) {
            double v = 0.0;
            for (int o = 0; o < nout; o++) v += a[(dn + o) * st] * scale * w[(size_t)o * nin + i];
            if (l == 1) C[i] = v;
            else a[(gn + i) * st] = v;
        }
        if (l > 1) {
            const size_t da = lo[l - 1] + (size_t)el->size[l - 1];
            for (int i = 0; i < nin; i++) a[(dn + i) * st] = a[(gn + i) * st] * a[(da + i) * st];
        }
    }
    for (int q = 0; q < nsf; q++) C[q] *= sf[q].factor * s->m.inv_conv;
    ev[0] = a[lo[L] * st] * s->m.inv_conv + s->m.mean_energy + el->atom_energy;
    s->ewn[ii] = count;
}

/* Centre ii after the gradients: its own force -sum_n F_n and its virial
 * sum_n (x_n - x_i) (x) F_n (ev[1..6]), F_n = -dE_i/dx_n, in env order. */
PK_HD void hdg_centre(const hdg_step *s, int ii)
{
    const int off = s->offset[ii], n = s->env_n[ii] > 0 ? s->env_n[ii] : 0;
    double fi[3] = {0.0, 0.0, 0.0}, v[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int p = off; p < off + n; p++) {
        const double *g = s->g + 3 * (size_t)s->env_slot[p], *d = s->env_d + 4 * (size_t)p;
        const double fx = -g[0], fy = -g[1], fz = -g[2];
        fi[0] -= fx;
        fi[1] -= fy;
        fi[2] -= fz;
        v[0] += d[0] * fx;
        v[1] += d[1] * fy;
        v[2] += d[2] * fz;
        v[3] += d[0] * fy;
        v[4] += d[0] * fz;
        v[5] += d[1] * fz;
    }
    for (int q = 0; q < 3; q++) s->fcen[3 * (size_t)ii + q] = fi[q];
    for (int q = 0; q < 6; q++) s->ev[7 * (size_t)ii + 1 + q] = v[q];
}

/* Atom j (owned or ghost): the forces F_n = -g of every list slot naming it, in slot order,
 * plus its own centre force; with vatom, the per-atom virial (x_j - x_i) (x) F_n of those
 * slots (the cpu backend's convention: the term goes to the neighbour). */
PK_HD void hdg_gather(const hdg_step *s, int j, int want_vatom)
{
    double f[3] = {0.0, 0.0, 0.0}, v[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int r = s->rev_off[j]; r < s->rev_off[j + 1]; r++) {
        const int p = s->rev[r], i = s->centre[s->slot_centre[p]];
        const double *g = s->g + 3 * (size_t)p;
        const double fx = -g[0], fy = -g[1], fz = -g[2];
        f[0] += fx;
        f[1] += fy;
        f[2] += fz;
        if (want_vatom) {
            const double dx = s->x[3 * j] - s->x[3 * i], dy = s->x[3 * j + 1] - s->x[3 * i + 1];
            const double dz = s->x[3 * j + 2] - s->x[3 * i + 2];
            v[0] += dx * fx;
            v[1] += dy * fy;
            v[2] += dz * fz;
            v[3] += dx * fy;
            v[4] += dx * fz;
            v[5] += dy * fz;
        }
    }
    const int ii = s->atom_centre[j];
    if (ii >= 0)
        for (int q = 0; q < 3; q++) f[q] += s->fcen[3 * (size_t)ii + q];
    for (int q = 0; q < 3; q++) s->f[3 * (size_t)j + q] = f[q];
    if (want_vatom)
        for (int q = 0; q < 6; q++) s->vatom[6 * (size_t)j + q] = v[q];
}

/* The kept extrapolation records of centre ii: those of its functions outside [Gmin, Gmax],
 * in function order, at rec[first ..] while below limit. */
PK_HD void hdg_ew_write(const hdg_step *s, int ii, int first, int limit, hdg_ew_record *rec)
{
    const int ce = s->elem[s->centre[ii]];
    if (ce < 0 || s->ewn[ii] == 0) return;
    const hdg_element *el = &s->m.el[ce];
    const hdnnp_sf *sf = s->m.sf + el->sf0;
    const double *G = s->G + (size_t)s->m.maxnsf * ii;
    int k = first;
    for (int q = 0; q < el->nsf && k < limit; q++)
        if (G[q] < sf[q].gmin || G[q] > sf[q].gmax) {
            rec[k].ii = ii;
            rec[k].sf = q;
            rec[k].value = G[q];
            k++;
        }
}

#endif
