/* The step of amoeba/pk's CUDA backend, on the host: the order of amoeba_compute.c's step,
 * with HAL, the permanent multipoles and the polarization forces run by gather kernels
 * (amoeba_gpu_pair.h) over the step's pairs by row (amoeba_gpu_lists.h), the induced dipoles
 * solved on the device where the step allows it (amoeba_gpu_solve.c), else by the cpu
 * backend's PCG with the device's products, and the rest on the cpu backend's code (the pair
 * search, the frames' rotation, the polarization energy, torques to forces). The rows'
 * results come back to the host, which adds them in row order: each sum has a fixed order,
 * so reruns are bitwise equal.
 *
 * Also the host loops that run the kernels' per-lane code (the tests' stand-in for the
 * device) and the test backend built on them, pk_amoeba_gpu_emulated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_gpu.h"
#include "amoeba_gpu_lists.h"
#include "amoeba_kernels.h"

struct amoeba_gpu_host {
    amoeba_gpu_rowmap map;     /* this step's rows */
    amoeba_gpu_rows hal;       /* HAL's site pairs within vdw_cut, by row */
    amoeba_gpu_rows elec;      /* the step's electrostatic pairs, by row */
    unsigned tags, hal_tag, elec_tag;   /* lists built so far; the tags of this step's lists
                                           (0: not built yet this step) */
    pk_buffer keep;            /* HAL: per candidate pair, whether its sites are in reach */
    pk_buffer site, cls;       /* HAL: H-reduced sites, classes */
    pk_buffer share;           /* HAL: the share of a site's force its own atom takes */
    pk_buffer out;             /* per-row results, AG_OUT each */
};

amoeba_gpu_host *amoeba_gpu_host_new(void) { return calloc(1, sizeof(amoeba_gpu_host)); }

static pk_buffer *host_buffers(amoeba_gpu_host *h, int k)
{
    pk_buffer *all[] = {&h->keep, &h->site, &h->cls, &h->share, &h->out, &h->map.row,
                        &h->map.atom};
    return k < (int)(sizeof all / sizeof *all) ? all[k] : NULL;
}

void amoeba_gpu_host_free(amoeba_gpu_host *h)
{
    if (!h) return;
    for (int k = 0; host_buffers(h, k); k++) pk_buffer_free(host_buffers(h, k));
    amoeba_gpu_rows_free(&h->hal);
    amoeba_gpu_rows_free(&h->elec);
    free(h);
}

double amoeba_gpu_host_bytes(const amoeba_gpu_host *h)
{
    double bytes = amoeba_gpu_rows_bytes(&h->hal) + amoeba_gpu_rows_bytes(&h->elec);
    for (int k = 0; host_buffers((amoeba_gpu_host *)h, k); k++)
        bytes += (double)host_buffers((amoeba_gpu_host *)h, k)->bytes;
    return bytes;
}

static pk_code results_room(amoeba_gpu_host *h, pk_status *st)
{
    return pk_buffer_reserve(&h->out, (size_t)h->map.nrows * AG_OUT + 1, sizeof(double), st);
}

/* Add the rows' energies and virials to the totals and to their atoms' per-atom arrays, in
 * row order. */
static void add_energy_virial(const amoeba_gpu_host *h, const double *res, pk_out *out)
{
    const int *atom = h->map.atom.data;
    for (int r = 0; r < h->map.nrows; r++) {
        const double *o = res + (size_t)r * AG_OUT;
        out->energy += o[AG_E];
        for (int c = 0; c < 6; c++) out->virial[c] += o[AG_V + c];
        if (out->eatom) out->eatom[atom[r]] += o[AG_E];
        if (out->vatom)
            for (int c = 0; c < 6; c++) out->vatom[atom[r]][c] += o[AG_V + c];
    }
}

/* Add the rows' forces and torques to their atoms, then their energies and virials. */
static void add_results(const amoeba_gpu_host *h, const double *res, double (*torque)[3],
                        pk_out *out)
{
    const int *atom = h->map.atom.data;
    for (int r = 0; r < h->map.nrows; r++) {
        const double *o = res + (size_t)r * AG_OUT;
        for (int c = 0; c < 3; c++) {
            out->f[atom[r]][c] += o[AG_F + c];
            torque[atom[r]][c] += o[AG_T + c];
        }
    }
    add_energy_virial(h, res, out);
}

/* HAL (amoeba_hal.c): the sites and classes, the candidate pairs whose sites are within
 * vdw_cut, by row, the gather, then each row's site force shared between its atom and its
 * H-reduction partner (for an atom with images, the images' partners are images of the
 * same atom as its own: the same after LAMMPS's reverse communication). */
static pk_code gpu_hal(const amoeba_gpu_device *d, amoeba_gpu_host *h, const pk_amoeba_model *m,
                       const pk_atoms *a, const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                       const pk_amoeba_pairs *pairs, pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost, ncls = m->nclasses + 1;
    const double (*x)[3] = a->x;
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk hal: no force array");
    if (!(pairs->hal_cut2 > 0.0))
        return pk_fail(st, PK_ERR_ARG, "amoeba/pk cuda: the step's pairs lack HAL's candidates");
    const int *hfirst = pairs->hal_first.data, *hcount = pairs->hal_count.data;
    size_t room = 1;
    for (int ii = 0; ii < nl->inum; ii++) {
        const size_t end = (size_t)hfirst[ii] + (size_t)hcount[ii];
        if (end > room) room = end;
    }
    if (pk_buffer_reserve(&h->site, (size_t)nall * 3 + 1, sizeof(double), st) ||
        pk_buffer_reserve(&h->share, (size_t)nall + 1, sizeof(double), st) ||
        pk_buffer_reserve(&h->cls, (size_t)nall + 1, sizeof(int), st) ||
        pk_buffer_reserve(&h->keep, room, 1, st) || results_room(h, st))
        return st->code;
    double *site = h->site.data, *share = h->share.data;
    int *cls = h->cls.data;
    unsigned char *keep = h->keep.data;
    amoeba_taper tp;
    amoeba_taper_init(&tp, m->set.vdw_taper, m->set.vdw_cut);
    int missing = -1;   /* the first listed atom with a pair whose H partner is not here */
#pragma omp parallel num_threads(pk_max_threads()) reduction(max : missing)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < nall; i++) {   /* the H-reduction (hal_reduction) */
            const int p = s->hred[i];
            const double f = p >= 0 && p != i ? m->vdw_red[m->type_class[s->amtype[i]]] : 1.0;
            cls[i] = m->type_class[s->amtype[i]];
            share[i] = f;
            for (int c = 0; c < 3; c++)
                site[3 * i + c] = f == 1.0 ? x[i][c] : f * (x[i][c] - x[p][c]) + x[p][c];
        }
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int *e = (const int *)pairs->hal_entries.data + hfirst[ii];
            for (int j = 0; j < hcount[ii]; j++) {
                const int k = e[j] & PK_AMOEBA_NEIGHMASK;
                double r2 = 0.0;
                for (int c = 0; c < 3; c++)
                    r2 += (site[3 * k + c] - site[3 * i + c]) * (site[3 * k + c] - site[3 * i + c]);
                keep[hfirst[ii] + j] = r2 <= tp.off2;
                const double eps =
                    m->epsmix[cls[i] * ncls + cls[k]] * m->vdw_scale[pk_amoeba_special(e[j])];
                if (r2 <= tp.off2 && eps != 0.0 && (s->hred[i] < 0 || s->hred[k] < 0))
                    missing = nl->inum - ii > missing ? nl->inum - ii : missing;
            }
        }
    }
    if (missing >= 0) {   /* the first such pair's atom without its partner */
        const int ii = nl->inum - missing, i = nl->ilist[ii];
        const int *e = (const int *)pairs->hal_entries.data + hfirst[ii];
        int lost = i;
        for (int j = 0; j < hcount[ii] && s->hred[i] >= 0; j++)
            if (keep[hfirst[ii] + j] && s->hred[e[j] & PK_AMOEBA_NEIGHMASK] < 0) {
                lost = e[j] & PK_AMOEBA_NEIGHMASK;
                break;
            }
        return pk_fail(st, PK_ERR_RANGE,
                       "amoeba/pk hal: H-reduction partner of atom %d missing (lost, its bond "
                       "stretched beyond 3 A, or the ghost cutoff too short?)",
                       a->tag ? (int)a->tag[lost] : lost + 1);
    }
    const amoeba_gpu_pairs_in in = {nl->inum, nl->ilist, hfirst, hcount,
                                    pairs->hal_entries.data, keep, NULL};
    if (amoeba_gpu_rows_build(&h->hal, &h->map, &in, st)) return st->code;
    h->hal_tag = ++h->tags;

    const amoeba_gpu_rows *l = &h->hal;
    amoeba_gpu_hal g = {.list = {l->offset.data, l->self.data, l->other.data}, .site = site,
                        .cls = cls, .radmin = m->radmin, .epsmix = m->epsmix, .ncls = ncls,
                        .cut2 = tp.cut2, .start = tp.cut, .inv_width = 1.0 / (tp.off - tp.cut),
                        .dhal = m->set.dhal, .ghal = m->set.ghal};
    for (int c = 0; c < 5; c++) g.vdw_scale[c] = m->vdw_scale[c];
    for (int c = 0; c < 6; c++) g.c[c] = tp.c[c];
    double *res = h->out.data;
    if (d->hal(d->dev, &g, h->map.nrows, nall, l->nentry, h->hal_tag, res, st)) return st->code;

    const int *atom = h->map.atom.data;
    for (int r = 0; r < h->map.nrows; r++) {   /* site forces: f to the H, 1 - f to its partner */
        const double *fs = res + (size_t)r * AG_OUT + AG_F;
        const int k = atom[r];
        if (share[k] == 1.0)
            for (int c = 0; c < 3; c++) out->f[k][c] += fs[c];
        else
            for (int c = 0; c < 3; c++) {
                out->f[k][c] += share[k] * fs[c];
                out->f[s->hred[k]][c] += (1.0 - share[k]) * fs[c];
            }
    }
    add_energy_virial(h, res, out);
    return PK_OK;
}

/* The step's electrostatic pairs by row (all of the step's pairs: those within the larger of
 * the electrostatic cutoffs, each kernel keeping its own, and the preconditioner's, marked),
 * built once a step. */
static pk_code elec_rows(amoeba_gpu_host *h, const pk_amoeba_list *nl,
                         const pk_amoeba_pairs *pairs, pk_status *st)
{
    if (h->elec_tag) return PK_OK;
    const amoeba_gpu_pairs_in in = {nl->inum, nl->ilist, pairs->first.data, pairs->count.data,
                                    pairs->entries.data, NULL,
                                    pairs->with_pc ? pairs->pc.data : NULL};
    if (amoeba_gpu_rows_build(&h->elec, &h->map, &in, st)) return st->code;
    h->elec_tag = ++h->tags;
    return PK_OK;
}

/* Permanent multipoles (amoeba_mpole.c): the gather over the electrostatic rows, then forces
 * and torques onto the rows' atoms (torque: zeroed by the caller). */
static pk_code gpu_mpole(const amoeba_gpu_device *d, amoeba_gpu_host *h,
                         const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_list *nl,
                         const pk_amoeba_pairs *pairs, const double (*rpole)[13],
                         double (*torque)[3], pk_out *out, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x, cut = m->set.mpole_cut;
    amoeba_switch sw;
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk mpole: no force array");
    if (amoeba_switch_init(m, 0, &sw, st) || results_room(h, st) ||
        elec_rows(h, nl, pairs, st))
        return st->code;

    const double felec = PK_AMOEBA_ELECTRIC / m->dielectric;
    const amoeba_gpu_rows *l = &h->elec;
    amoeba_gpu_mpole g = {.list = {l->offset.data, l->self.data, l->other.data},
                          .x = &x[0][0], .rpole = &rpole[0][0], .cut2 = cut * cut, .R = cut,
                          .iR2 = 1.0 / (cut * cut), .start = sw.on ? sw.start : 0.0,
                          .iw = sw.on ? 1.0 / sw.width : 1.0, .smooth = sw.on};
    for (int c = 0; c < 5; c++) g.fscale[c] = felec * m->mpole_scale[c];
    double *res = h->out.data;
    if (d->mpole(d->dev, &g, h->map.nrows, nall, l->nentry, h->elec_tag, res, st))
        return st->code;
    add_results(h, res, torque, out);
    return PK_OK;
}

/* Polarization forces (amoeba_polar.c): the gather over the electrostatic rows, then forces,
 * torques (added) and virials. */
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
    if (!out->f) return pk_fail(st, PK_ERR_ARG, "amoeba/pk polar: no force array");
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    if (amoeba_switch_init(m, 1, &sw, st) || results_room(h, st) ||
        elec_rows(h, nl, pairs, st))
        return st->code;
    const amoeba_gpu_rows *l = &h->elec;
    amoeba_gpu_polar g = {.list = {l->offset.data, l->self.data, l->other.data},
                          .x = &a->x[0][0], .rpole = &rpole[0][0], .u = &u[0][0],
                          .amtype = s->amtype, .amgroup = s->amgroup, .pdamp = m->pdamp,
                          .thole = m->thole, .cut2 = cut * cut, .d11 = m->direct11_scale,
                          .u11 = mutual ? m->mutual11_scale : 0.0, .u1 = mutual ? 1.0 : 0.0,
                          .hf = 0.5 * PK_AMOEBA_ELECTRIC / m->dielectric,
                          .start = sw.on ? sw.start : 0.0,
                          .inv_width = sw.on ? 1.0 / sw.width : 1.0, .smooth = sw.on};
    for (int c = 0; c < 5; c++) {
        g.intra[c] = m->polar_intra[c];
        g.pscale[c] = m->polar_scale[c];
    }
    double *res = h->out.data;
    if (d->polar(d->dev, &g, h->map.nrows, nall, l->nentry, h->elec_tag, m->ntypes, res, st))
        return st->code;
    add_results(h, res, torque, out);   /* its energies are 0 */
    return PK_OK;
}

/* ---- the step: amoeba_compute.c's, with HAL, multipoles, the induced dipoles and the
 * polarization forces through the device ------------------------------------------------ */

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

/* the induced dipoles: the solve on the device over the electrostatic rows */
static pk_code terms_induce(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                            double (*u)[6], pk_status *st)
{
    const gpu_terms *t = ctx;
    if (elec_rows(t->h, g->list, &g->state->pairs, st)) return st->code;
    return amoeba_gpu_solve_run(t->d, &t->h->map, &t->h->elec, t->h->elec_tag, g->model,
                                g->atoms, g->sites, rpole, g->comm, u, &g->state->induce,
                                &g->state->last, st);
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
    const pk_amoeba_args *g = args;
    h->hal_tag = h->elec_tag = 0;   /* new positions: no lists yet */
    if (amoeba_gpu_rowmap_build(&h->map, g->atoms, g->sites->owner, st)) return st->code;
    return amoeba_step_terms(&ops, args, out, st);
}

/* ---- the per-lane code in host loops (tests) ----------------------------------------- */

/* The emulated device: the host workspace, the solve's state, and whether the pair
 * arithmetic is float (precision mixed). */
typedef struct {
    amoeba_gpu_host *h;
    amoeba_gpu_solve_emul *solve;
    int mixed;
} emulated;

/* Every row's lanes of a gather kernel (ROW_D or, mixed, ROW_F) one after the other, then
 * combined as the device's warp combines them, into out (AG_OUT doubles per row). */
#define HOST_GATHER(ROW_D, ROW_F, dev, g, nrows, out)                                      \
    do {                                                                                   \
        const int mixed_ = ((const emulated *)(dev))->mixed;                               \
        double lanes_[AG_LANES * AG_OUT];                                                  \
        for (int a_ = 0; a_ < (nrows); a_++) {                                             \
            for (int l_ = 0; l_ < AG_LANES; l_++)                                          \
                (mixed_ ? ROW_F : ROW_D)((g), a_, l_, lanes_ + AG_OUT * l_);               \
            amoeba_gpu_lanes_combine(lanes_, AG_OUT);                                      \
            memcpy((out) + (size_t)a_ * AG_OUT, lanes_, sizeof lanes_[0] * AG_OUT);        \
        }                                                                                  \
    } while (0)

static pk_code host_hal(void *dev, const amoeba_gpu_hal *g, int nrows, int nall, int nentry,
                        unsigned tag, double *out, pk_status *st)
{
    (void)nall, (void)nentry, (void)tag, (void)st;
    HOST_GATHER(amoeba_gpu_hal_row_d, amoeba_gpu_hal_row_f, dev, g, nrows, out);
    return PK_OK;
}

static pk_code host_mpole(void *dev, const amoeba_gpu_mpole *g, int nrows, int nall,
                          int nentry, unsigned tag, double *out, pk_status *st)
{
    (void)nall, (void)nentry, (void)tag, (void)st;
    HOST_GATHER(amoeba_gpu_mpole_row_d, amoeba_gpu_mpole_row_f, dev, g, nrows, out);
    return PK_OK;
}

static pk_code host_polar(void *dev, const amoeba_gpu_polar *g, int nrows, int nall,
                          int nentry, unsigned tag, int ntypes, double *out, pk_status *st)
{
    (void)nall, (void)nentry, (void)tag, (void)ntypes, (void)st;
    HOST_GATHER(amoeba_gpu_polar_row_d, amoeba_gpu_polar_row_f, dev, g, nrows, out);
    return PK_OK;
}

static pk_code emulated_init(void *model, const pk_backend_request *req, void **state,
                             pk_backend_info *info, pk_status *st)
{
    (void)model, (void)req;
    emulated *e = calloc(1, sizeof *e);
    if (e) {
        e->mixed = info->precision == PK_PRECISION_MIXED;
        e->h = amoeba_gpu_host_new();
        e->solve = amoeba_gpu_solve_emul_new(e->mixed);
    }
    if (!e || !e->h || !e->solve) {
        if (e) {
            amoeba_gpu_host_free(e->h);
            amoeba_gpu_solve_emul_free(e->solve);
        }
        free(e);
        return pk_fail(st, PK_ERR_MEMORY, "out of host memory for the emulated backend");
    }
    *state = e;
    snprintf(info->device, sizeof info->device, "the CUDA kernels' per-lane code on the host");
    return PK_OK;
}

static pk_code emulated_compute(void *model, void *state, const void *args, pk_out *out,
                                pk_status *st)
{
    (void)model;
    emulated *e = state;
    const amoeba_gpu_device loop = {host_hal, host_mpole, host_polar, e,
                                    &amoeba_gpu_solve_emulated, e->solve};
    return amoeba_gpu_step(&loop, e->h, args, out, st);
}

static double emulated_memory(const void *state)
{
    const emulated *e = state;
    return amoeba_gpu_host_bytes(e->h) + amoeba_gpu_solve_emul_bytes(e->solve);
}

static void emulated_release(void *state)
{
    emulated *e = state;
    if (!e) return;
    amoeba_gpu_host_free(e->h);
    amoeba_gpu_solve_emul_free(e->solve);
    free(e);
}

const pk_backend_ops pk_amoeba_gpu_emulated = {
    PK_BACKEND_CPU, PK_PRECISION_BIT(PK_PRECISION_DOUBLE) | PK_PRECISION_BIT(PK_PRECISION_MIXED),
    NULL, emulated_init,
    emulated_compute, emulated_memory, emulated_release};
