/* The induced-dipole solve of amoeba/pk's CUDA backend kept on the device (amoeba_gpu_solve.h):
 * the PCG's sequence of passes (amoeba_induce_run's), with the scalars updated on the
 * device, and the passes as host loops, the tests' stand-in for the device.
 *
 * On one rank, where every ghost is an image of an owned atom (sites->owner), every row is
 * an owned atom's and nothing leaves the device but the residual, once an iteration. Else
 * the rows of ghosts that no owned atom stands for ("remote" rows) meet LAMMPS's
 * communication around each product, as amoeba_induce.c's products do: their values of the
 * product's input come by forward communication, their parts of its output go to their
 * owners by reverse communication, both through the host; the other ghosts never leave the
 * device. The sums of a pass then come to the host, to be summed over ranks, and go back for
 * the scalar update. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_gpu_lists.h"

/* A solve's device, rows and communication; buf holds nall rows of 6 on the host (the
 * callbacks' layout), rem the remote rows' values. */
typedef struct {
    const amoeba_gpu_solve_ops *o;
    void *dev;
    const amoeba_gpu_rowmap *map;
    const pk_amoeba_comm *comm;
    int nall, comm_on, precond;
    double (*buf)[6], (*rem)[6];
} solve_ctx;

/* The remote rows of vector vec get their owners' values (forward communication). */
static pk_code forward_rows(const solve_ctx *c, int vec, pk_status *st)
{
    const int n = c->map->n, nrem = c->map->nrows - n, *atom = c->map->atom.data;
    if (c->o->rows(c->dev, vec, 0, n, &c->buf[0][0], AG_GET, st)) return st->code;
    c->comm->forward(c->comm->ctx, &c->buf[0][0], 6);
    for (int r = 0; r < nrem; r++) memcpy(c->rem[r], c->buf[atom[n + r]], sizeof c->rem[r]);
    return c->o->rows(c->dev, vec, n, nrem, &c->rem[0][0], AG_SET, st);
}

/* The remote rows of vector vec are added onto their owners' rows (reverse communication). */
static pk_code reverse_rows(const solve_ctx *c, int vec, pk_status *st)
{
    const int n = c->map->n, nrem = c->map->nrows - n, *atom = c->map->atom.data;
    if (c->o->rows(c->dev, vec, n, nrem, &c->rem[0][0], AG_GET, st)) return st->code;
    memset(c->buf, 0, (size_t)c->nall * sizeof *c->buf);
    for (int r = 0; r < nrem; r++) memcpy(c->buf[atom[n + r]], c->rem[r], sizeof c->rem[r]);
    c->comm->reverse(c->comm->ctx, &c->buf[0][0], 6);
    return c->o->rows(c->dev, vec, 0, n, &c->buf[0][0], AG_ADD, st);
}

/* One pass: its product (with the communication of remote rows), its row work, its scalar
 * update (from sums over ranks when the rows communicate). */
static pk_code run_pass(const solve_ctx *c, int pass, pk_status *st)
{
    const int set = amoeba_gpu_pass_product(pass, c->precond);
    if (set >= 0) {
        const int vec = pass == AG_PRECOND ? AG_VEC_R : AG_VEC_CONJ;
        if ((c->comm_on && forward_rows(c, vec, st)) || c->o->product(c->dev, set, vec, st) ||
            (c->comm_on && reverse_rows(c, AG_VEC_Y, st)))
            return st->code;
    }
    if (!c->comm_on) return c->o->pass(c->dev, pass, NULL, st);
    double sums[4] = {0.0, 0.0, 0.0, 0.0};
    if (c->o->pass(c->dev, pass, sums, st)) return st->code;
    if (amoeba_gpu_pass_width(pass)) c->comm->allreduce(c->comm->ctx, sums, 4);
    return c->o->scalars(c->dev, pass, sums, st);
}

pk_code amoeba_gpu_solve_run(const amoeba_gpu_device *d, const amoeba_gpu_rowmap *map,
                             const amoeba_gpu_rows *l, unsigned tag, const pk_amoeba_model *m,
                             const pk_atoms *a, const pk_amoeba_sites *s,
                             const double (*rpole)[13], const pk_amoeba_comm *comm,
                             double (*u)[6], pk_amoeba_induce_work *w,
                             pk_amoeba_induce_info *info, pk_status *st)
{
    const int n = a->nlocal, nall = n + a->nghost;
    const pk_amoeba_settings *set = &m->set;
    const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
    memset(info, 0, sizeof *info);
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");
    amoeba_switch sw;
    const size_t rows = (size_t)(nall > 0 ? nall : 1);
    if (amoeba_switch_init(m, 1, &sw, st) ||
        pk_buffer_reserve(&w->udir, rows * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->field, rows * 6, sizeof(double), st) ||
        pk_buffer_reserve(&w->rsd, rows * 6, sizeof(double), st))
        return st->code;
    /* the remote rows on any rank, and the atoms over all ranks */
    double global[2] = {(double)(map->nrows - map->n), (double)n};
    comm->allreduce(comm->ctx, global, 2);
    const solve_ctx c = {d->solve, d->solve_dev, map, comm, nall, global[0] > 0.0, set->pcg_precond,
                         w->field.data, w->rsd.data};

    amoeba_gpu_field g = {.list = {l->offset.data, l->self.data, l->other.data},
                          .row = map->row.data, .x = &a->x[0][0],
                          .rpole = &rpole[0][0], .amtype = s->amtype, .amgroup = s->amgroup,
                          .polarity = m->polarity, .pdamp = m->pdamp, .thole = m->thole,
                          .d11 = m->direct11_scale, .u11 = m->mutual11_scale,
                          .off2 = set->polar_cut * set->polar_cut,
                          .start = sw.on ? sw.start : 0.0,
                          .inv_width = sw.on ? 1.0 / sw.width : 1.0, .smooth = sw.on,
                          .mutual = mutual, .use_pc = mutual && set->pcg_precond};
    for (int k = 0; k < 5; k++) {
        g.intra[k] = m->polar_intra[k];
        g.pscale[k] = m->polar_scale[k];
    }
    const amoeba_gpu_pcg_rows consts = {.diag = set->usolve_diag, .peek = set->pcg_peek,
                                        .guess = set->pcg_guess || !mutual,
                                        .precond = set->pcg_precond};
    const amoeba_gpu_pcg_scalars s0 = {.natoms = global[1], .precond = set->pcg_precond};
    /* the direct field, the remote rows' parts of it onto their owners */
    if (c.o->field(c.dev, &g, n, map->nrows, nall, l->nentry, tag, m->ntypes, &consts, &s0,
                   st) ||
        (c.comm_on && reverse_rows(&c, AG_VEC_UDIR, st)) || c.o->start(c.dev, st))
        return st->code;

    if (mutual) {   /* amoeba_induce_run's PCG */
        const int first[] = {AG_RESIDUAL, AG_PRECOND, AG_DIRECTION};
        if (set->pcg_guess && run_pass(&c, AG_GUESS, st)) return st->code;
        for (int p = 0; p < 3; p++)
            if (run_pass(&c, first[p], st)) return st->code;
        double eps = 100.0;
        for (;;) {
            info->iterations++;
            if (run_pass(&c, AG_PRODUCT, st) || run_pass(&c, AG_STEP, st) ||
                c.o->eps(c.dev, &eps, st))
                return st->code;
            info->converged = eps < set->polar_eps;
            if (info->converged || info->iterations >= set->polar_iter) {
                if (run_pass(&c, AG_PEEK, st)) return st->code;
                break;
            }
            if (run_pass(&c, AG_PRECOND, st) || run_pass(&c, AG_DIRECTION, st))
                return st->code;
        }
        info->rms = eps;
        if (!isfinite(eps))
            return pk_fail(st, PK_ERR_NUMERIC,
                           "amoeba/pk: induced dipoles are not finite (PCG residual %g)", eps);
    } else {
        info->converged = 1;
    }
    /* u from the lanes order back to d then p, its ghost rows by communication */
    double (*ul)[6] = w->field.data;
    if (c.o->result(c.dev, &ul[0][0], w->udir.data, st)) return st->code;
    memset(u, 0, (size_t)nall * sizeof *u);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 6; j++) u[i][3 * (j & 1) + (j >> 1)] = ul[i][j];
    comm->forward(comm->ctx, &u[0][0], 6);
    return PK_OK;
}

/* ---- the passes as host loops (tests) ------------------------------------------------- */

struct amoeba_gpu_solve_emul {
    amoeba_gpu_field g;
    int n, nrows, mixed;
    pk_buffer ten, pten, vec, part;
    amoeba_gpu_pcg_rows v;
    amoeba_gpu_pcg_scalars s;
};

amoeba_gpu_solve_emul *amoeba_gpu_solve_emul_new(int mixed)
{
    amoeba_gpu_solve_emul *e = calloc(1, sizeof(amoeba_gpu_solve_emul));
    if (e) e->mixed = mixed;
    return e;
}

void amoeba_gpu_solve_emul_free(amoeba_gpu_solve_emul *e)
{
    if (!e) return;
    pk_buffer_free(&e->ten);
    pk_buffer_free(&e->pten);
    pk_buffer_free(&e->vec);
    pk_buffer_free(&e->part);
    free(e);
}

double amoeba_gpu_solve_emul_bytes(const amoeba_gpu_solve_emul *e)
{
    return (double)(e->ten.bytes + e->pten.bytes + e->vec.bytes + e->part.bytes);
}

/* vector vec of the PCG (AG_VEC_*) */
static double *emul_vec(const amoeba_gpu_solve_emul *e, int vec)
{
    double *const all[] = {e->v.u, e->v.r, e->v.conj, e->v.y, e->v.udir};
    return all[vec];
}

/* The field pass keeps g's host pointers: the caller's arrays outlive the solve. */
static pk_code emul_field(void *dev, const amoeba_gpu_field *g, int n, int nrows, int nall,
                          int nentry, unsigned tag, int ntypes,
                          const amoeba_gpu_pcg_rows *consts, const amoeba_gpu_pcg_scalars *s,
                          pk_status *st)
{
    (void)nall, (void)tag, (void)ntypes;
    amoeba_gpu_solve_emul *e = dev;
    const size_t rows = (size_t)(nrows > 0 ? nrows : 1), ents = (size_t)nentry + 1;
    if (pk_buffer_reserve(&e->ten, 4 * ents, sizeof(double), st) ||
        pk_buffer_reserve(&e->pten, 4 * ents, sizeof(double), st) ||
        pk_buffer_reserve(&e->vec, rows * 32, sizeof(double), st) ||
        pk_buffer_reserve(&e->part, rows * 4, sizeof(double), st))
        return st->code;
    e->g = *g;
    e->n = n;
    e->nrows = nrows;
    e->s = *s;
    e->v = *consts;
    double *vec = e->vec.data;   /* u r conj y udir (6 per row each), poli ipoli */
    e->v.u = vec;
    e->v.r = vec + 6 * rows;
    e->v.conj = vec + 12 * rows;
    e->v.y = vec + 18 * rows;
    e->v.udir = vec + 24 * rows;
    e->v.poli = vec + 30 * rows;
    e->v.ipoli = vec + 31 * rows;
    memset(vec, 0, rows * 32 * sizeof(double));
    double lanes[AG_LANES * 6];
    for (int a = 0; a < nrows; a++) {
        for (int l = 0; l < AG_LANES; l++)
            (e->mixed ? amoeba_gpu_field_lane_f : amoeba_gpu_field_lane_d)(
                g, a, l, lanes + 6 * l, e->ten.data, e->pten.data);
        amoeba_gpu_lanes_combine(lanes, 6);
        memcpy(e->v.udir + 6 * (size_t)a, lanes, 6 * sizeof(double));
    }
    return PK_OK;
}

static pk_code emul_start(void *dev, pk_status *st)
{
    (void)st;
    amoeba_gpu_solve_emul *e = dev;
    for (int a = 0; a < e->n; a++) amoeba_gpu_pcg_start(&e->g, &e->v, a);
    return PK_OK;
}

static pk_code emul_product(void *dev, int set, int vec, pk_status *st)
{
    (void)st;
    amoeba_gpu_solve_emul *e = dev;
    const amoeba_gpu_product p = {e->g.list, e->g.row, set ? e->pten.data : e->ten.data,
                                  emul_vec(e, vec)};
    double lanes[AG_LANES * 6];
    for (int a = 0; a < e->nrows; a++) {
        for (int l = 0; l < AG_LANES; l++) amoeba_gpu_product_lane(&p, a, l, lanes + 6 * l);
        amoeba_gpu_lanes_combine(lanes, 6);
        memcpy(e->v.y + 6 * (size_t)a, lanes, 6 * sizeof(double));
    }
    return PK_OK;
}

static pk_code emul_pass(void *dev, int pass, double *sums, pk_status *st)
{
    (void)st;
    amoeba_gpu_solve_emul *e = dev;
    const int width = amoeba_gpu_pass_width(pass);
    double *part = e->part.data, sum[4] = {0.0, 0.0, 0.0, 0.0};
    if (amoeba_gpu_pass_rows(pass, e->v.precond)) {
        for (int a = 0; a < e->n; a++)
            amoeba_gpu_pass_row(pass, &e->v, &e->s, a, part + (size_t)width * a);
        for (int a = 0; a < e->n; a++)
            for (int c = 0; c < width; c++) sum[c] += part[(size_t)width * a + c];
    }
    if (sums) memcpy(sums, sum, sizeof sum);
    else amoeba_gpu_pass_scalars(pass, &e->s, sum);
    return PK_OK;
}

static pk_code emul_scalars(void *dev, int pass, const double *sums, pk_status *st)
{
    (void)st;
    amoeba_gpu_pass_scalars(pass, &((amoeba_gpu_solve_emul *)dev)->s, sums);
    return PK_OK;
}

static pk_code emul_eps(void *dev, double *eps, pk_status *st)
{
    (void)st;
    *eps = ((amoeba_gpu_solve_emul *)dev)->s.eps;
    return PK_OK;
}

static pk_code emul_rows(void *dev, int vec, int r0, int nr, double *host, int mode,
                         pk_status *st)
{
    (void)st;
    double *v = emul_vec(dev, vec) + 6 * (size_t)r0;
    for (size_t k = 0; k < 6 * (size_t)nr; k++) {
        if (mode == AG_GET) host[k] = v[k];
        else v[k] = mode == AG_SET ? host[k] : v[k] + host[k];
    }
    return PK_OK;
}

static pk_code emul_result(void *dev, double *u, double *udir, pk_status *st)
{
    (void)st;
    const amoeba_gpu_solve_emul *e = dev;
    memcpy(u, e->v.u, 6 * (size_t)e->n * sizeof(double));
    memcpy(udir, e->v.udir, 6 * (size_t)e->n * sizeof(double));
    return PK_OK;
}

const amoeba_gpu_solve_ops amoeba_gpu_solve_emulated = {
    emul_field, emul_start, emul_product, emul_pass, emul_scalars, emul_eps, emul_rows,
    emul_result};
