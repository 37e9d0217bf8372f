/* Driver of hdnnp/pk: the context, dispatch to its backend, and the loop over centre atoms
 * (OpenMP) that the cpu and sve backends share, each with its own per-atom kernels
 * (hdnnp_kernels): symmetry functions, scaling and extrapolation check, element network,
 * force contraction, energy and virial.
 *
 * Forces: F_n = -dE_i/dx_n = -sum_s (dE_i/dGs_s) factor_s dG_s/dx_n for every neighbour n of
 * centre i (ghosts included; hdnnp_contract), and F_i = -sum_n F_n (translation invariance).
 * The virial of centre i is sum_n (x_n - x_i) (x) F_n, which needs no other centre. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_gpu.h"
#include "hdnnp_kernel.h"
#include "pk_threads.h"
#include "pk_timer.h"

typedef struct {
    hdnnp_scratch s;
    pk_buffer ew;          /* this thread's warnings of the current call */
    size_t new;
    long ewcount;
    double energy, virial[6];
    double t_sf, t_nn, t_f;
    pk_status st;
} hdnnp_thread;

struct pk_hdnnp_context {
    const pk_hdnnp_model *m;
    int nthreads;
    hdnnp_thread *th;
    pk_accum facc, vacc;
    pk_hdnnp_ew *ew;
    size_t new;
    long ewcount;
    double t_sf, t_nn, t_f;
    pk_backend_slot backend;
    int list_kept;     /* pk_hdnnp_list_kept: the next compute's list is the last one's */
};

pk_code pk_hdnnp_context_create(const pk_hdnnp_model *m, pk_hdnnp_context **out, pk_status *st)
{
    pk_status_clear(st);
    pk_hdnnp_context *c = calloc(1, sizeof *c);
    if (c) c->ew = malloc(sizeof(pk_hdnnp_ew) * PK_HDNNP_EW_KEEP);
    if (!c || !c->ew) {
        free(c);
        return pk_fail(st, PK_ERR_MEMORY, "out of memory creating the hdnnp/pk context");
    }
    c->m = m;
    pk_backend_request cpu;
    pk_backend_request_cpu(&cpu);
    if (pk_hdnnp_set_backend(c, &cpu, st)) {
        pk_hdnnp_context_free(c);
        return st->code;
    }
    *out = c;
    return PK_OK;
}

pk_code pk_hdnnp_set_backend(pk_hdnnp_context *c, const pk_backend_request *req, pk_status *st)
{
    pk_status_clear(st);
    return pk_backend_select(&c->backend, "hdnnp/pk", pk_hdnnp_backends, c, req, st);
}

const pk_backend_slot *pk_hdnnp_backend(const pk_hdnnp_context *c) { return &c->backend; }

static void free_threads(pk_hdnnp_context *c)
{
    for (int t = 0; t < c->nthreads; t++) {
        hdnnp_scratch_free(&c->th[t].s);
        pk_buffer_free(&c->th[t].ew);
    }
    free(c->th);
    c->th = NULL;
    c->nthreads = 0;
}

void pk_hdnnp_context_free(pk_hdnnp_context *c)
{
    if (!c) return;
    pk_backend_release(&c->backend);
    free_threads(c);
    pk_accum_free(&c->facc);
    pk_accum_free(&c->vacc);
    free(c->ew);
    free(c);
}

size_t pk_hdnnp_memory_usage(const pk_hdnnp_context *c)
{
    size_t b = c->facc.copies.bytes + c->vacc.copies.bytes +
               sizeof(pk_hdnnp_ew) * PK_HDNNP_EW_KEEP + (size_t)pk_backend_memory(&c->backend);
    for (int t = 0; t < c->nthreads; t++) {
        const hdnnp_scratch *s = &c->th[t].s;
        b += s->env_buf.bytes + s->raw_buf.bytes + s->sf_buf.bytes + s->tmp_buf.bytes +
             s->nn_buf.bytes + s->pair_buf.bytes + s->coef_buf.bytes + s->grp_buf.bytes +
             s->wts_buf.bytes + c->th[t].ew.bytes;
    }
    return b;
}

static pk_code ensure_threads(pk_hdnnp_context *c, int n, pk_status *st)
{
    if (n == c->nthreads) return PK_OK;
    free_threads(c);
    c->th = calloc((size_t)n, sizeof *c->th);
    if (!c->th) return pk_fail(st, PK_ERR_MEMORY, "out of memory for %d thread workspaces", n);
    c->nthreads = n;
    return PK_OK;
}

static void record_ew(hdnnp_thread *th, const pk_atoms *atoms, int i, int ce, int s,
                      const hdnnp_sf *sf, double G)
{
    th->ewcount++;
    if (th->new >= PK_HDNNP_EW_KEEP) return;
    /* full capacity at the first warning: pk_buffer does not keep contents when it grows */
    pk_status dummy;
    if (pk_buffer_reserve(&th->ew, PK_HDNNP_EW_KEEP, sizeof(pk_hdnnp_ew), &dummy)) return;
    pk_hdnnp_ew *w = (pk_hdnnp_ew *)th->ew.data + th->new++;
    w->atom = i;
    w->tag = atoms->tag ? atoms->tag[i] : 0;
    w->element = ce;
    w->sf = s;
    w->value = G;
    w->gmin = sf->gmin;
    w->gmax = sf->gmax;
}

/* Atoms at one point (closer than HDNNP_OVERLAP_R, hdnnp_model.h): the unit vectors d/r of
 * the symmetry functions' derivatives and the angles are undefined at r = 0, so this is an
 * error, not NaN. */
static pk_code overlap_fail(const pk_hdnnp_model *m, const pk_atoms *atoms, int i, int ce, int j,
                            double r, const int *t2e, pk_status *st)
{
    const pk_tag *tag = atoms->tag;
    return pk_fail(st, PK_ERR_RANGE,
                   "atoms %ld (%s) and %ld (%s) overlap: r = %.6g < %g (model length "
                   "units), where the symmetry functions' derivatives are undefined",
                   tag ? (long)tag[i] : (long)i + 1, pk_hdnnp_element_symbol(m, ce),
                   tag ? (long)tag[j] : (long)j + 1,
                   pk_hdnnp_element_symbol(m, t2e[atoms->type[j]]), r, HDNNP_OVERLAP_R);
}

static pk_code check_overlap(const pk_hdnnp_model *m, const hdnnp_env *e, const pk_atoms *atoms,
                             int i, int ce, const int *t2e, pk_status *st)
{
    for (int p = 0; p < e->n; p++)
        if (e->r[p] < HDNNP_OVERLAP_R)
            return overlap_fail(m, atoms, i, ce, e->idx[p], e->r[p], t2e, st);
    return PK_OK;
}

pk_code hdnnp_overlap_fail(const pk_hdnnp_model *m, const pk_atoms *atoms, const pk_neigh *nl,
                           int ii, const int *t2e, pk_status *st)
{
    const int i = nl->ilist[ii], ce = t2e[atoms->type[i]], *jlist = nl->firstneigh[i];
    const double *xi = atoms->x[i];
    for (int e = 0; e < m->nelements; e++)   /* element order, as the environments */
        for (int jj = 0; jj < nl->numneigh[i]; jj++) {
            const int j = pk_neigh_index(jlist[jj]);
            if (t2e[atoms->type[j]] != e) continue;
            const double dx = atoms->x[j][0] - xi[0], dy = atoms->x[j][1] - xi[1];
            const double dz = atoms->x[j][2] - xi[2], r = sqrt(dx * dx + dy * dy + dz * dz);
            if (r < HDNNP_OVERLAP_R) return overlap_fail(m, atoms, i, ce, j, r, t2e, st);
        }
    return pk_fail(st, PK_ERR_RANGE, "overlapping atoms near atom %d", i + 1);
}

/* One centre atom: everything from neighbours to forces. */
static pk_code centre(pk_hdnnp_context *c, hdnnp_thread *th, const pk_atoms *atoms,
                      const pk_neigh *nl, int i, int ce, const int *t2e, const hdnnp_kernels *k,
                      double *f, pk_out *out, double *vatom, pk_status *st)
{
    const pk_hdnnp_model *m = c->m;
    const hdnnp_element *el = &m->el[ce];
    hdnnp_scratch *s = &th->s;
    double t0 = pk_wall_seconds();
    if (hdnnp_env_build(s, m, ce, atoms->x[i], atoms->x, nl->firstneigh[i], nl->numneigh[i],
                        atoms->type, t2e, st) ||
        check_overlap(m, &s->env, atoms, i, ce, t2e, st))
        return st->code;
    if (k->symfuncs(s, el, st)) return st->code;
    double t1 = pk_wall_seconds();

    const int nsf = el->nsf;
    const hdnnp_env *e = &s->env;
    const size_t nwork = hdnnp_network_work_size(&el->net);
    if (pk_buffer_reserve(&s->nn_buf, nwork + 2 * (size_t)nsf + 4 * (size_t)e->n, sizeof(double),
                          st))
        return st->code;
    double *Gs = s->nn_buf.data, *dEdG = Gs + nsf, *g = dEdG + nsf, *work = g + 4 * (size_t)e->n;
    for (int q = 0; q < nsf; q++) {
        const hdnnp_sf *sf = &el->sf[q];
        const double G = s->G[q];
        Gs[q] = sf->smin + sf->factor * (G - sf->gref);
        if (G < sf->gmin || G > sf->gmax) record_ew(th, atoms, i, ce, q, sf, G);
    }
    const double enn = k->network_eval(&el->net, Gs, dEdG, work);
    const double ie = 1.0 / m->conv_energy;
    const double ei = enn * ie + m->mean_energy + el->atom_energy;
    th->energy += ei;
    if (out->eatom) out->eatom[i] += ei;
    double t2 = pk_wall_seconds();

    /* dE_i/dx_n = sum_s c_s dG_s/dx_n, c_s = dE/dGs_s * factor_s / conv_energy; F_n = -that */
    for (int q = 0; q < nsf; q++) dEdG[q] *= el->sf[q].factor * ie;
    k->contract(s, el, dEdG, g);
    double fix = 0.0, fiy = 0.0, fiz = 0.0;
    double *v = th->virial;
    for (int n = 0; n < e->n; n++) {
        const int j = e->idx[n];
        const double fx = -g[4 * n], fy = -g[4 * n + 1], fz = -g[4 * n + 2];
        f[3 * j] += fx;
        f[3 * j + 1] += fy;
        f[3 * j + 2] += fz;
        fix -= fx;
        fiy -= fy;
        fiz -= fz;
        if (out->want_virial || vatom) {
            const double w[6] = {e->x[n] * fx, e->y[n] * fy, e->z[n] * fz,
                                 e->x[n] * fy, e->x[n] * fz, e->y[n] * fz};
            for (int q = 0; q < 6; q++) v[q] += w[q];
            if (vatom)
                for (int q = 0; q < 6; q++) vatom[6 * j + q] += w[q];
        }
    }
    f[3 * i] += fix;
    f[3 * i + 1] += fiy;
    f[3 * i + 2] += fiz;
    double t3 = pk_wall_seconds();
    th->t_sf += t1 - t0;
    th->t_nn += t2 - t1;
    th->t_f += t3 - t2;
    return PK_OK;
}

pk_code pk_hdnnp_compute(pk_hdnnp_context *c, const pk_atoms *atoms, const pk_neigh *nl,
                         const int *t2e, pk_out *out, pk_status *st)
{
    const pk_hdnnp_args args = {.atoms = atoms, .nl = nl, .type_to_element = t2e,
                                .list_changed = !c->list_kept};
    c->list_kept = 0;
    pk_status_clear(st);
    return pk_backend_compute(&c->backend, c, &args, out, st);
}

void pk_hdnnp_list_kept(pk_hdnnp_context *c) { c->list_kept = 1; }

const hdnnp_kernels hdnnp_kernels_cpu = {hdnnp_symfuncs, hdnnp_contract, hdnnp_network_eval};

pk_code hdnnp_compute_with(pk_hdnnp_context *c, const pk_atoms *atoms, const pk_neigh *nl,
                           const int *t2e, const hdnnp_kernels *k, pk_out *out, pk_status *st)
{
    pk_status_clear(st);
    const int nthreads = pk_max_threads();
    const size_t nall = (size_t)atoms->nlocal + (size_t)atoms->nghost;
    if (ensure_threads(c, nthreads, st)) return st->code;
    if (pk_accum_begin(&c->facc, nthreads, &out->f[0][0], 3 * nall, st)) return st->code;
    if (out->vatom && pk_accum_begin(&c->vacc, nthreads, &out->vatom[0][0], 6 * nall, st))
        return st->code;
    for (int t = 0; t < nthreads; t++) {
        hdnnp_thread *th = &c->th[t];
        th->new = 0;
        th->ewcount = 0;
        th->energy = 0.0;
        memset(th->virial, 0, sizeof th->virial);
        pk_status_clear(&th->st);
    }
#pragma omp parallel num_threads(nthreads)
    {
        const int tid = pk_thread_id();
        hdnnp_thread *th = &c->th[tid];
        double *f = pk_accum_slice(&c->facc, tid);
        double *vatom = out->vatom ? pk_accum_slice(&c->vacc, tid) : NULL;
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int ce = t2e[atoms->type[i]];
            if (ce < 0 || th->st.code) continue;
            centre(c, th, atoms, nl, i, ce, t2e, k, f, out, vatom, &th->st);
        }
    }
    pk_accum_reduce(&c->facc);
    if (out->vatom) pk_accum_reduce(&c->vacc);
    double energy = 0.0, virial[6] = {0};
    for (int t = 0; t < nthreads; t++) {
        hdnnp_thread *th = &c->th[t];
        if (th->st.code && !st->code) *st = th->st;
        energy += th->energy;
        for (int q = 0; q < 6; q++) virial[q] += th->virial[q];
        c->ewcount += th->ewcount;
        for (size_t k = 0; k < th->new && c->new < PK_HDNNP_EW_KEEP; k++)
            c->ew[c->new++] = ((pk_hdnnp_ew *)th->ew.data)[k];
        c->t_sf += th->t_sf / nthreads;
        c->t_nn += th->t_nn / nthreads;
        c->t_f += th->t_f / nthreads;
        th->t_sf = th->t_nn = th->t_f = 0.0;
    }
    if (st->code) return st->code;
    if (out->want_energy) out->energy += energy;
    if (out->want_virial)
        for (int q = 0; q < 6; q++) out->virial[q] += virial[q];
    return PK_OK;
}

const pk_hdnnp_model *hdnnp_context_model(const pk_hdnnp_context *c) { return c->m; }

void hdnnp_context_ew_add(pk_hdnnp_context *c, const pk_hdnnp_ew *w, size_t n, long count)
{
    c->ewcount += count;
    for (size_t k = 0; k < n && c->new < PK_HDNNP_EW_KEEP; k++) c->ew[c->new++] = w[k];
}

long pk_hdnnp_ew_count(const pk_hdnnp_context *c) { return c->ewcount; }

const pk_hdnnp_ew *pk_hdnnp_ew_get(const pk_hdnnp_context *c, size_t *n)
{
    *n = c->new;
    return c->ew;
}

void pk_hdnnp_ew_reset(pk_hdnnp_context *c)
{
    c->new = 0;
    c->ewcount = 0;
}

const char *pk_hdnnp_ew_format(const pk_hdnnp_model *m, const pk_hdnnp_ew *w, char *buf,
                               size_t len)
{
    char sf[256];
    pk_hdnnp_describe_symfunc(m, w->element, w->sf, sf, sizeof sf);
    const int above = w->value > w->gmax;
    snprintf(buf, len, "extrapolation: atom %d (tag %d, %s), %s: G = %.8g %s %s %.8g by %.3g",
             w->atom, (int)w->tag, pk_hdnnp_element_symbol(m, w->element), sf, w->value,
             above ? "above" : "below", above ? "Gmax" : "Gmin", above ? w->gmax : w->gmin,
             above ? w->value - w->gmax : w->gmin - w->value);
    return buf;
}

void pk_hdnnp_timing(const pk_hdnnp_context *c, double *sf, double *nn, double *f)
{
    *sf = c->t_sf;
    *nn = c->t_nn;
    *f = c->t_f;
}
