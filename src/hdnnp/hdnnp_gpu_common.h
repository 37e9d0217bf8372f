/* Per-thread code of the hdnnp/pk CUDA backend that is the same in both precisions
 * (hdnnp_gpu.h): environments, networks, centre forces and the force gather. Double
 * throughout; included by hdnnp_gpu.h only. */
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

/* Chunks per group for lists of at most maxneigh entries (hdg_step.nchunk). */
PK_HD int hdg_chunks(int maxneigh)
{
    const int n = (maxneigh + HDG_CHUNK - 1) / HDG_CHUNK;
    return n > 1 ? n : 1;
}

/* Index of chunk c of group g of centre ii in hdg_step.part (in units of HDG_GROUP_MAX). */
PK_HD size_t hdg_chunk_index(const hdg_step *s, int ii, int g, int c)
{
    return ((size_t)ii * (size_t)s->m.maxgroups + (size_t)g) * (size_t)s->nchunk + (size_t)c;
}

/* The values of group g of centre ii: its chunks' sums (hdg_symfuncs_*) in chunk order. */
PK_HD void hdg_symfuncs_sum(const hdg_step *s, int ii, int g)
{
    const int ce = s->elem[s->centre[ii]];
    if (ce < 0) return;
    const hdg_element *el = &s->m.el[ce];
    if (g >= el->nradial + el->nangular) return;
    const hdg_group *grp = &s->m.grp[el->radial0 + g];
    const double *part = s->part + HDG_GROUP_MAX * hdg_chunk_index(s, ii, g, 0);
    double *G = s->G + (size_t)s->m.maxnsf * ii;
    for (int m = 0; m < grp->nsf; m++) {
        double v = 0.0;
        for (int c = 0; c < s->nchunk; c++) v += part[HDG_GROUP_MAX * (size_t)c + m];
        G[s->m.mem[grp->first + m]] = v;
    }
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
 * c_s = dE/dGs_s factor_s / conv_energy of the force contraction (C). */
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
    double *C = s->C + (size_t)s->m.maxnsf * ii, *a = s->work + s->m.nwork * ii;
    const int nsf = el->nsf;
    int count = 0;
    for (int q = 0; q < nsf; q++) {
        a[q] = sf[q].smin + sf[q].factor * (G[q] - sf[q].gref);
        count += G[q] < sf[q].gmin || G[q] > sf[q].gmax;
    }
    /* layer l's values at a + lo[l], derivatives after them */
    size_t lo[HDNNP_MAX_LAYERS];
    lo[0] = 0;
    size_t next = (size_t)nsf;
    const int L = el->nlayers - 1;
    for (int l = 1; l <= L; l++) {
        const int nin = el->size[l - 1], nout = el->size[l];
        const double scale = el->normalize ? 1.0 / nin : 1.0;
        const double *w = s->m.w + el->woff[l], *b = s->m.w + el->boff[l], *ain = a + lo[l - 1];
        lo[l] = next;
        double *aout = a + next, *daout = aout + nout;
        next += 2 * (size_t)nout;
        for (int o = 0; o < nout; o++) {
            double x = b[o];
            for (int i = 0; i < nin; i++) x += w[(size_t)o * nin + i] * ain[i];
            hdg_activate(el->act[l], x * scale, &aout[o], &daout[o]);
        }
    }
    /* back-propagation: d = dE/dx of layer l, gin = dE/da of layer l - 1 */
    int maxsize = 0;
    for (int l = 0; l <= L; l++) maxsize = el->size[l] > maxsize ? el->size[l] : maxsize;
    double *d = a + next, *gin = d + maxsize;
    d[0] = a[lo[L] + 1];   /* the output's derivative */
    for (int l = L; l >= 1; l--) {
        const int nin = el->size[l - 1], nout = el->size[l];
        const double scale = el->normalize ? 1.0 / nin : 1.0;
        const double *w = s->m.w + el->woff[l];
        double *out = l == 1 ? C : gin;
        for (int i = 0; i < nin; i++) out[i] = 0.0;
        for (int o = 0; o < nout; o++) {
            const double c = d[o] * scale;
            for (int i = 0; i < nin; i++) out[i] += c * w[(size_t)o * nin + i];
        }
        if (l > 1) {
            const double *da = a + lo[l - 1] + el->size[l - 1];
            for (int i = 0; i < nin; i++) d[i] = gin[i] * da[i];
        }
    }
    for (int q = 0; q < nsf; q++) C[q] *= sf[q].factor * s->m.inv_conv;
    ev[0] = a[lo[L]] * s->m.inv_conv + s->m.mean_energy + el->atom_energy;
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
