/* The step of amoeba/pk's CUDA backend, on the host: the order of amoeba_compute.c's step,
 * with HAL, the permanent multipoles, the PCG's products and the polarization forces run by
 * gather kernels (amoeba_gpu_pair.h) over full lists built here from the step's half pairs,
 * and the rest on the cpu backend's code (the pair search, the frames' rotation, the direct
 * field and the pair tensors, the PCG's vector passes and communication, the polarization
 * energy, torques to forces). The per-atom results come back to the host, which adds them
 * in atom order: each sum has a fixed order, so reruns are bitwise equal.
 *
 * Also the host loop that runs the kernels' per-thread code (the tests' stand-in for the
 * device) and the test backend built on it, pk_amoeba_gpu_emulated. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_gpu.h"
#include "amoeba_kernels.h"

struct amoeba_gpu_host {
    pk_buffer half;            /* the kept half pairs: i, entry */
    pk_buffer count, offset;   /* full list: entries per atom, CSR offsets (nall + 1) */
    pk_buffer entry;           /* full list entries */
    pk_buffer site, cls;       /* HAL: H-reduced sites, classes */
    pk_buffer share;           /* HAL: the share of a site's force its own atom takes */
    pk_buffer out;             /* per-atom results, AG_OUT each */
    pk_buffer pcg_offset[2], pcg_entry[2], pcg_partner[2];   /* the PCG's pair sets' full
                                                                 lists */
    double elec_cut;           /* the full list holds this step's pairs within this cutoff
                                  (elec_list; < 0: it does not) */
    int elec_npair;
};

amoeba_gpu_host *amoeba_gpu_host_new(void) { return calloc(1, sizeof(amoeba_gpu_host)); }

static pk_buffer *host_buffers(amoeba_gpu_host *h, int k)
{
    pk_buffer *all[] = {&h->half,          &h->count,          &h->offset,
                        &h->entry,         &h->site,           &h->cls,
                        &h->share,         &h->out,            &h->pcg_offset[0],
                        &h->pcg_offset[1], &h->pcg_entry[0],   &h->pcg_entry[1],
                        &h->pcg_partner[0], &h->pcg_partner[1]};
    return k < (int)(sizeof all / sizeof *all) ? all[k] : NULL;
}

void amoeba_gpu_host_free(amoeba_gpu_host *h)
{
    if (!h) return;
    for (int k = 0; host_buffers(h, k); k++) pk_buffer_free(host_buffers(h, k));
    free(h);
}

double amoeba_gpu_host_bytes(const amoeba_gpu_host *h)
{
    double bytes = 0.0;
    for (int k = 0; host_buffers((amoeba_gpu_host *)h, k); k++)
        bytes += (double)host_buffers((amoeba_gpu_host *)h, k)->bytes;
    return bytes;
}

/* The full list of the npair kept half pairs (half: i, entry per pair, in the half list's
 * order): each pair in both atoms' rows, each row in that order. */
static pk_code full_list(amoeba_gpu_host *h, int nall, int npair, pk_status *st)
{
    if (pk_buffer_reserve(&h->count, (size_t)nall + 1, sizeof(int), st) ||
        pk_buffer_reserve(&h->offset, (size_t)nall + 1, sizeof(int), st) ||
        pk_buffer_reserve(&h->entry, 2 * (size_t)npair + 1, sizeof(int), st))
        return st->code;
    const int *half = h->half.data;
    int *count = h->count.data, *offset = h->offset.data, *entry = h->entry.data;
    memset(count, 0, (size_t)nall * sizeof(int));
    for (int p = 0; p < npair; p++) {
        count[half[2 * p]]++;
        count[half[2 * p + 1] & PK_AMOEBA_NEIGHMASK]++;
    }
    offset[0] = 0;
    for (int a = 0; a < nall; a++) {
        offset[a + 1] = offset[a] + count[a];
        count[a] = offset[a];   /* from here: where a's next entry goes */
    }
    for (int p = 0; p < npair; p++) {
        const int i = half[2 * p], e = half[2 * p + 1], k = e & PK_AMOEBA_NEIGHMASK;
        const int cls = e & ~PK_AMOEBA_NEIGHMASK;
        entry[count[i]++] = e;
        entry[count[k]++] = i | cls;
    }
    return PK_OK;
}

/* Room for the kept half pairs of a list of up to n entries (the full list's entries are
 * counted in int). */
static pk_code half_room(amoeba_gpu_host *h, size_t n, pk_status *st)
{
    if (n > (size_t)INT_MAX / 2)
        return pk_fail(st, PK_ERR_RANGE,
                       "amoeba/pk cuda: %zu neighbour entries on one rank exceed the backend's "
                       "32-bit full lists; use more MPI ranks", n);
    return pk_buffer_reserve(&h->half, 2 * n + 2, sizeof(int), st);
}

static pk_code results_room(amoeba_gpu_host *h, int nall, pk_status *st)
{
    return pk_buffer_reserve(&h->out, (size_t)nall * AG_OUT + 1, sizeof(double), st);
}

/* Add the per-atom energies and virials to the totals and the per-atom arrays, in atom
 * order. */
static void add_energy_virial(const double *res, int nall, pk_out *out)
{
    for (int a = 0; a < nall; a++) {
        const double *o = res + (size_t)a * AG_OUT;
        out->energy += o[AG_E];
        for (int c = 0; c < 6; c++) out->virial[c] += o[AG_V + c];
        if (out->eatom) out->eatom[a] += o[AG_E];
        if (out->vatom)
            for (int c = 0; c < 6; c++) out->vatom[a][c] += o[AG_V + c];
    }
}

/* HAL (amoeba_hal.c): the sites and classes, the candidate pairs whose sites are within
 * vdw_cut, the gather, then each site's force shared between its atom and its partner. */
static pk_code gpu_hal(const amoeba_gpu_device *d, amoeba_gpu_host *h, const pk_amoeba_model *m,
                       const pk_atoms *a, const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                       const pk_amoeba_pairs *pairs, pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost, ncls = m->nclasses + 1;
    const double (*x)[3] = a->x;
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk hal: no force array");
    if (pk_buffer_reserve(&h->site, (size_t)nall * 3 + 1, sizeof(double), st) ||
        pk_buffer_reserve(&h->share, (size_t)nall + 1, sizeof(double), st) ||
        pk_buffer_reserve(&h->cls, (size_t)nall + 1, sizeof(int), st) ||
        results_room(h, nall, st))
        return st->code;
    double *site = h->site.data, *share = h->share.data;
    int *cls = h->cls.data;
    for (int i = 0; i < nall; i++) {   /* the H-reduction (hal_reduction) */
        const int p = s->hred[i];
        const double f = p >= 0 && p != i ? m->vdw_red[m->type_class[s->amtype[i]]] : 1.0;
        cls[i] = m->type_class[s->amtype[i]];
        share[i] = f;
        for (int c = 0; c < 3; c++)
            site[3 * i + c] = f == 1.0 ? x[i][c] : f * (x[i][c] - x[p][c]) + x[p][c];
    }
    amoeba_taper tp;
    amoeba_taper_init(&tp, m->set.vdw_taper, m->set.vdw_cut);

    const int candidates = pairs && pairs->hal_cut2 > 0.0;
    size_t most = 0;
    for (int ii = 0; ii < nl->inum; ii++)
        most += (size_t)(candidates ? ((const int *)pairs->hal_count.data)[ii]
                                    : nl->numneigh[nl->ilist[ii]]);
    if (half_room(h, most, st)) return st->code;
    h->elec_cut = -1.0;   /* the full list is HAL's from here on */
    int *half = h->half.data, npair = 0, missing = -1;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii];
        const int *jlist = candidates ? (const int *)pairs->hal_entries.data +
                                            ((const int *)pairs->hal_first.data)[ii]
                                      : nl->firstneigh[i];
        const int nn = candidates ? ((const int *)pairs->hal_count.data)[ii] : nl->numneigh[i];
        for (int jj = 0; jj < nn; jj++) {
            const int e = jlist[jj], k = e & PK_AMOEBA_NEIGHMASK;
            double r2 = 0.0;
            for (int c = 0; c < 3; c++)
                r2 += (site[3 * k + c] - site[3 * i + c]) * (site[3 * k + c] - site[3 * i + c]);
            if (!(r2 <= tp.off2)) continue;
            const double eps =
                m->epsmix[cls[i] * ncls + cls[k]] * m->vdw_scale[pk_amoeba_special(e)];
            if (eps != 0.0 && (s->hred[i] < 0 || s->hred[k] < 0)) missing = s->hred[i] < 0 ? i : k;
            half[2 * npair] = i;
            half[2 * npair + 1] = e;
            npair++;
        }
    }
    if (missing >= 0)
        return pk_fail(st, PK_ERR_RANGE,
                       "amoeba/pk hal: H-reduction partner of atom %d missing (lost, its bond "
                       "stretched beyond 3 A, or the ghost cutoff too short?)",
                       a->tag ? (int)a->tag[missing] : missing + 1);
    if (full_list(h, nall, npair, st)) return st->code;

    amoeba_gpu_hal g = {.list = {h->offset.data, h->entry.data}, .site = site, .cls = cls,
                        .radmin = m->radmin, .epsmix = m->epsmix, .ncls = ncls,
                        .cut2 = tp.cut2, .dhal = m->set.dhal, .ghal = m->set.ghal};
    for (int c = 0; c < 5; c++) g.vdw_scale[c] = m->vdw_scale[c];
    for (int c = 0; c < 6; c++) g.c[c] = tp.c[c];
    double *res = h->out.data;
    if (d->hal(d->dev, &g, nall, 2 * npair, res, st)) return st->code;

    for (int k = 0; k < nall; k++) {   /* site forces: f to the H, 1 - f to its partner */
        const double *fs = res + (size_t)k * AG_OUT + AG_F;
        if (share[k] == 1.0)
            for (int c = 0; c < 3; c++) out->f[k][c] += fs[c];
        else
            for (int c = 0; c < 3; c++) {
                out->f[k][c] += share[k] * fs[c];
                out->f[s->hred[k]][c] += (1.0 - share[k]) * fs[c];
            }
    }
    add_energy_virial(res, nall, out);
    return PK_OK;
}

/* The full list of the step's electrostatic pairs within cut (the step's pairs hold those
 * within the larger of the two electrostatic cutoffs, and the preconditioner's); *npair
 * half pairs. Kept when it is there already (multipoles and polarization at one cutoff). */
static pk_code elec_list(amoeba_gpu_host *h, const pk_atoms *a, const pk_amoeba_list *nl,
                         const pk_amoeba_pairs *pairs, double cut, int *npair, pk_status *st)
{
    if (h->elec_cut == cut) {
        *npair = h->elec_npair;
        return PK_OK;
    }
    const double (*x)[3] = a->x;
    const int *first = pairs->first.data, *count = pairs->count.data;
    const int *entries = pairs->entries.data;
    size_t most = 0;
    for (int ii = 0; ii < nl->inum; ii++) most += (size_t)count[ii];
    if (half_room(h, most, st)) return st->code;
    int *half = h->half.data, n = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii];
        for (int jj = 0; jj < count[ii]; jj++) {
            const int e = entries[first[ii] + jj], k = e & PK_AMOEBA_NEIGHMASK;
            double r2 = 0.0;
            for (int c = 0; c < 3; c++) r2 += (x[k][c] - x[i][c]) * (x[k][c] - x[i][c]);
            if (!(r2 <= cut * cut)) continue;
            half[2 * n] = i;
            half[2 * n + 1] = e;
            n++;
        }
    }
    *npair = n;
    if (full_list(h, a->nlocal + a->nghost, n, st)) return st->code;
    h->elec_cut = cut;
    h->elec_npair = n;
    return PK_OK;
}

/* Permanent multipoles (amoeba_mpole.c): the step's electrostatic pairs within mpole_cut,
 * the gather, then forces and torques onto the atoms (torque: all nall rows set). */
static pk_code gpu_mpole(const amoeba_gpu_device *d, amoeba_gpu_host *h,
                         const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                         const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                         double (*torque)[3], pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x, cut = m->set.mpole_cut;
    amoeba_switch sw;
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk mpole: no force array");
    int npair;
    if (amoeba_switch_init(m, 0, &sw, st) || results_room(h, nall, st) ||
        elec_list(h, a, nl, pairs, cut, &npair, st))
        return st->code;

    const double felec = PK_AMOEBA_ELECTRIC / m->dielectric;
    amoeba_gpu_mpole g = {.list = {h->offset.data, h->entry.data}, .x = &x[0][0],
                          .rpole = &rpole[0][0], .R = cut, .iR2 = 1.0 / (cut * cut),
                          .start = sw.on ? sw.start : 0.0, .iw = sw.on ? 1.0 / sw.width : 1.0,
                          .smooth = sw.on};
    for (int c = 0; c < 5; c++) g.fscale[c] = felec * m->mpole_scale[c];
    double *res = h->out.data;
    if (d->mpole(d->dev, &g, nall, 2 * npair, res, st)) return st->code;
    for (int k = 0; k < nall; k++) {
        const double *o = res + (size_t)k * AG_OUT;
        for (int c = 0; c < 3; c++) {
            out->f[k][c] += o[AG_F + c];
            torque[k][c] = o[AG_T + c];
        }
    }
    add_energy_virial(res, nall, out);
    return PK_OK;
}

/* Polarization forces (amoeba_polar.c): the step's electrostatic pairs within polar_cut, the
 * gather, then forces, torques (added) and virials. */
static pk_code gpu_polar(const amoeba_gpu_device *d, amoeba_gpu_host *h,
                         const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const pk_amoeba_pairs *pairs,
                         const double (*rpole)[13], const double (*u)[6], double (*torque)[3],
                         pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double cut = m->set.polar_cut;
    const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
    amoeba_switch sw;
    int npair;
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk polar: no force array");
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    if (amoeba_switch_init(m, 1, &sw, st) || results_room(h, nall, st) ||
        elec_list(h, a, nl, pairs, cut, &npair, st))
        return st->code;
    amoeba_gpu_polar g = {.list = {h->offset.data, h->entry.data}, .x = &a->x[0][0],
                          .rpole = &rpole[0][0], .u = &u[0][0], .amtype = s->amtype,
                          .amgroup = s->amgroup, .pdamp = m->pdamp, .thole = m->thole,
                          .d11 = m->direct11_scale, .u11 = mutual ? m->mutual11_scale : 0.0,
                          .u1 = mutual ? 1.0 : 0.0, .hf = 0.5 * PK_AMOEBA_ELECTRIC / m->dielectric,
                          .start = sw.on ? sw.start : 0.0,
                          .inv_width = sw.on ? 1.0 / sw.width : 1.0, .smooth = sw.on};
    for (int c = 0; c < 5; c++) {
        g.intra[c] = m->polar_intra[c];
        g.pscale[c] = m->polar_scale[c];
    }
    double *res = h->out.data;
    if (d->polar(d->dev, &g, nall, 2 * npair, m->ntypes, res, st)) return st->code;
    for (int k = 0; k < nall; k++) {
        const double *o = res + (size_t)k * AG_OUT;
        for (int c = 0; c < 3; c++) {
            out->f[k][c] += o[AG_F + c];
            torque[k][c] += o[AG_T + c];
        }
    }
    add_energy_virial(res, nall, out);   /* its energies are 0 */
    return PK_OK;
}

/* ---- the PCG's products ------------------------------------------------------------------ */

/* The products hooks of amoeba_kernels.h take no context: the device and workspace of the
 * step this thread runs (set around amoeba_induce_run), and the first failure, which the
 * step reports after the solve (a failed set falls back to the portable products). */
typedef struct {
    const amoeba_gpu_device *d;
    amoeba_gpu_host *h;
    int nall;
    pk_code rc;
    pk_status st;
} pcg_ctx;
static _Thread_local pcg_ctx *pcg_now;

/* Called once per step and pair set with its stored tensors: their full list (each stored
 * pair in both its atoms' rows, in storage order) and the tensors to the device. */
static int gpu_products_fit(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc,
                            const int *col, const double *ten)
{
    pcg_ctx *c = pcg_now;
    amoeba_gpu_host *h = c->h;
    const int nall = c->nall;
    if (c->rc) return 0;
    size_t total = 0, end_max = 0;
    for (int ii = 0; ii < nl->inum; ii++) {
        const size_t begin = (size_t)(pc ? sl[ii].poff : sl[ii].off);
        const size_t n = (size_t)(pc ? sl[ii].npc : sl[ii].ndip);
        total += n;
        if (begin + n > end_max) end_max = begin + n;
    }
    if (total > (size_t)INT_MAX / 2) {
        c->rc = pk_fail(&c->st, PK_ERR_RANGE,
                        "amoeba/pk cuda: %zu PCG pairs on one rank exceed the backend's 32-bit "
                        "full lists; use more MPI ranks", total);
        return 0;
    }
    if (pk_buffer_reserve(&h->count, (size_t)nall + 1, sizeof(int), &c->st) ||
        pk_buffer_reserve(&h->pcg_offset[pc], (size_t)nall + 1, sizeof(int), &c->st) ||
        pk_buffer_reserve(&h->pcg_entry[pc], 2 * total + 1, sizeof(int), &c->st) ||
        pk_buffer_reserve(&h->pcg_partner[pc], 2 * total + 1, sizeof(int), &c->st)) {
        c->rc = c->st.code;
        return 0;
    }
    int *count = h->count.data, *offset = h->pcg_offset[pc].data;
    int *entry = h->pcg_entry[pc].data, *partner = h->pcg_partner[pc].data;
    memset(count, 0, (size_t)nall * sizeof(int));
    for (int pass = 0; pass < 2; pass++) {   /* count, then fill */
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii], begin = pc ? sl[ii].poff : sl[ii].off;
            const int end = begin + (pc ? sl[ii].npc : sl[ii].ndip);
            for (int e = begin; e < end; e++) {
                const int k = col[e] / (int)sizeof(lane8);
                if (pass == 0) {
                    count[i]++;
                    count[k]++;
                    continue;
                }
                entry[count[i]] = e;
                partner[count[i]++] = k;
                entry[count[k]] = e;
                partner[count[k]++] = i;
            }
        }
        if (pass == 1) break;
        offset[0] = 0;
        for (int a = 0; a < nall; a++) {
            offset[a + 1] = offset[a] + count[a];
            count[a] = offset[a];
        }
    }
    const amoeba_gpu_pcg g = {offset, entry, partner, ten, NULL};
    if (c->d->pcg_pairs(c->d->dev, pc, &g, nall, (int)(2 * total), 4 * end_max, &c->st)) {
        c->rc = c->st.code;
        return 0;
    }
    return 1;
}

/* One product (amoeba_products_fn): y = T v on the device, added to the caller's first
 * per-thread copy (the others stay 0); vty = v.y of each set over the rows (every stored
 * pair of this rank counted from both its rows, as the portable products count it twice). */
static void gpu_products(const pk_amoeba_list *nl, const amoeba_slot *sl, int pc, const int *col,
                         const double *ten, pk_accum *acc, const lane8 *in, double vty[2])
{
    (void)nl, (void)sl, (void)col, (void)ten;
    pcg_ctx *c = pcg_now;
    const int nrows = (int)(acc->n / 8);
    vty[0] = vty[1] = 0.0;
    if (c->rc) return;
    const double *y;
    if (c->d->pcg_product(c->d->dev, pc, nrows, &in[0][0], &y, &c->st)) {
        c->rc = c->st.code;
        return;
    }
    double *out = pk_accum_slice(acc, 0);
    for (size_t a = 0; a < (size_t)nrows; a++)
        for (int j = 0; j < 6; j++) {
            out[8 * a + j] += y[8 * a + j];
            vty[j & 1] += in[a][j] * y[8 * a + j];
        }
}

static const amoeba_kernels GPU_KERNELS = {.products = gpu_products,
                                           .products_fit = gpu_products_fit};

/* ---- the step: amoeba_compute.c's, with HAL, multipoles, polarization forces and the
 * PCG's products through the device ----------------------------------------------------- */

typedef struct {
    const amoeba_gpu_device *d;
    amoeba_gpu_host *h;
} gpu_terms;

static pk_code terms_hal(const void *ctx, const pk_amoeba_args *g, pk_out *out, pk_status *st)
{
    const gpu_terms *t = ctx;
    return gpu_hal(t->d, t->h, g->model, g->atoms, g->sites, g->list, &g->state->pairs, out, st);
}

static pk_code terms_mpole(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                           double (*torque)[3], pk_out *out, pk_status *st)
{
    const gpu_terms *t = ctx;
    return gpu_mpole(t->d, t->h, g->model, g->atoms, g->list, &g->state->pairs, rpole, torque,
                     out, st);
}

/* the cpu backend's solve with the device's products */
static pk_code terms_induce(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                            double (*u)[6], pk_status *st)
{
    const gpu_terms *t = ctx;
    const pk_atoms *a = g->atoms;
    pcg_ctx pc = {t->d, t->h, a->nlocal + a->nghost, PK_OK, {0}};
    pcg_now = &pc;
    pk_code rc = amoeba_induce_run(&GPU_KERNELS, g->model, a, g->sites, g->list,
                                   &g->state->pairs, rpole, g->comm, u, &g->state->induce,
                                   &g->state->last, st);
    pcg_now = NULL;
    if (!rc && pc.rc) {
        *st = pc.st;
        rc = pc.rc;
    }
    return rc;
}

static pk_code terms_polar(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                           const double (*u)[6], double (*torque)[3], pk_out *out, pk_status *st)
{
    const gpu_terms *t = ctx;
    return gpu_polar(t->d, t->h, g->model, g->atoms, g->sites, g->list, &g->state->pairs, rpole,
                     u, torque, out, st);
}

pk_code amoeba_gpu_step(const amoeba_gpu_device *d, amoeba_gpu_host *h, const void *args,
                        pk_out *out, pk_status *st)
{
    const gpu_terms t = {d, h};
    const amoeba_terms_ops ops = {&t, terms_hal, terms_mpole, terms_induce, terms_polar};
    h->elec_cut = -1.0;   /* new positions: no list yet */
    return amoeba_step_terms(&ops, args, out, st);
}

/* ---- the per-thread code in a host loop (tests) ----------------------------------------- */

static pk_code host_hal(void *dev, const amoeba_gpu_hal *g, int nall, int nentry, double *out,
                        pk_status *st)
{
    (void)dev, (void)nentry, (void)st;
    for (int a = 0; a < nall; a++) amoeba_gpu_hal_atom(g, a, out + (size_t)a * AG_OUT);
    return PK_OK;
}

static pk_code host_mpole(void *dev, const amoeba_gpu_mpole *g, int nall, int nentry,
                          double *out, pk_status *st)
{
    (void)dev, (void)nentry, (void)st;
    for (int a = 0; a < nall; a++) amoeba_gpu_mpole_atom(g, a, out + (size_t)a * AG_OUT);
    return PK_OK;
}

static pk_code host_polar(void *dev, const amoeba_gpu_polar *g, int nall, int nentry,
                          int ntypes, double *out, pk_status *st)
{
    (void)dev, (void)nentry, (void)ntypes, (void)st;
    for (int a = 0; a < nall; a++) amoeba_gpu_polar_atom(g, a, out + (size_t)a * AG_OUT);
    return PK_OK;
}

/* The emulated device keeps the pair sets' lists where the host built them. */
typedef struct {
    amoeba_gpu_host *h;
    amoeba_gpu_pcg set[2];
    pk_buffer y;   /* a product's rows */
} emulated;

static pk_code host_pcg_pairs(void *dev, int set, const amoeba_gpu_pcg *g, int nall, int nentry,
                              size_t nten, pk_status *st)
{
    (void)nall, (void)nentry, (void)nten, (void)st;
    ((emulated *)dev)->set[set] = *g;
    return PK_OK;
}

static pk_code host_pcg_product(void *dev, int set, int nrows, const double *v,
                                const double **yp, pk_status *st)
{
    emulated *em = dev;
    if (pk_buffer_reserve(&em->y, (size_t)nrows * 8 + 1, sizeof(double), st)) return st->code;
    double *y = em->y.data;
    *yp = y;
    amoeba_gpu_pcg g = em->set[set];
    g.v = v;
    for (int a = 0; a < nrows; a++) {
        amoeba_gpu_pcg_row(&g, a, y + 8 * (size_t)a);
        y[8 * (size_t)a + 6] = y[8 * (size_t)a + 7] = 0.0;
    }
    return PK_OK;
}

static pk_code emulated_init(void *model, const pk_backend_request *req, void **state,
                             pk_backend_info *info, pk_status *st)
{
    (void)model, (void)req;
    emulated *e = calloc(1, sizeof *e);
    if (e) e->h = amoeba_gpu_host_new();
    if (!e || !e->h) {
        free(e);
        return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the emulated backend");
    }
    *state = e;
    snprintf(info->device, sizeof info->device, "the CUDA kernels' per-thread code on the host");
    return PK_OK;
}

static pk_code emulated_compute(void *model, void *state, const void *args, pk_out *out,
                                pk_status *st)
{
    (void)model;
    emulated *e = state;
    const amoeba_gpu_device loop = {host_hal,       host_mpole,       host_polar,
                                    host_pcg_pairs, host_pcg_product, e};
    return amoeba_gpu_step(&loop, e->h, args, out, st);
}

static double emulated_memory(const void *state)
{
    const emulated *e = state;
    return amoeba_gpu_host_bytes(e->h) + (double)e->y.bytes;
}

static void emulated_release(void *state)
{
    emulated *e = state;
    if (!e) return;
    amoeba_gpu_host_free(e->h);
    pk_buffer_free(&e->y);
    free(e);
}

const pk_backend_ops pk_amoeba_gpu_emulated = {
    PK_BACKEND_CPU, PK_PRECISION_BIT(PK_PRECISION_DOUBLE), NULL, emulated_init,
    emulated_compute, emulated_memory, emulated_release};
