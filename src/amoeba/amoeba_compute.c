/* One step of amoeba/pk: the kernels in order, with the communication between them (the
 * driver every CPU backend runs, with its table of pair kernels: amoeba_kernels.h), and the
 * dispatch of pk_amoeba_compute to the state's backend. */
#include <math.h>
#include <string.h>

#include "amoeba_kernels.h"

const amoeba_kernels AMOEBA_PORTABLE = {0};

void pk_amoeba_state_free(pk_amoeba_state *state)
{
    pk_amoeba_work_free(&state->work);
    pk_amoeba_induce_work_free(&state->induce);
    pk_buffer_free(&state->rpole);
    pk_buffer_free(&state->torque);
    pk_buffer_free(&state->u);
    pk_amoeba_pairs_free(&state->pairs);
    pk_backend_release(&state->backend);
}

double pk_amoeba_state_bytes(const pk_amoeba_state *state)
{
    const pk_buffer *b[] = {&state->rpole, &state->torque, &state->u};
    double bytes = pk_amoeba_work_bytes(&state->work) + pk_amoeba_induce_work_bytes(&state->induce) +
                   pk_amoeba_pairs_bytes(&state->pairs);
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) bytes += (double)b[k]->bytes;
    return bytes + pk_backend_memory(&state->backend);
}

static pk_code step(const amoeba_terms_ops *ops, const pk_amoeba_args *g, pk_out *out,
                    pk_status *st)
{
    const pk_amoeba_model *m = g->model;
    const pk_atoms *a = g->atoms;
    const pk_amoeba_sites *s = g->sites;
    const pk_amoeba_comm *comm = g->comm;
    const pk_amoeba_terms terms = g->terms;
    pk_amoeba_state *state = g->state;
    const size_t nall = (size_t)a->nlocal + (size_t)a->nghost;
    pk_code rc;
    state->energy[0] = state->energy[1] = state->energy[2] = 0.0;
    state->steps++;

    if (!terms.hal && !terms.mpole && !terms.polar) return PK_OK;

    /* the pairs within the electrostatic cutoffs (and the preconditioner's), and HAL's
     * candidates, found once */
    const double cut = fmax(terms.mpole ? m->set.mpole_cut : 0.0,
                            terms.polar ? m->set.polar_cut : 0.0);
    const int with_pc =
        terms.polar && m->polarization == PK_AMOEBA_POLAR_MUTUAL && m->set.pcg_precond;
    pk_timer_start(&state->t_hal);
    const double hal_cut = terms.hal ? pk_amoeba_hal_reach(m, a, s) : 0.0;
    pk_timer_stop(&state->t_hal);
    pk_timer_start(&state->t_mpole);
    rc = pk_amoeba_pairs_build(&state->pairs, g->list, a, cut,
                               terms.polar ? m->set.polar_cut : 0.0, with_pc, hal_cut, st);
    pk_timer_stop(&state->t_mpole);
    if (rc) return rc;

    if (terms.hal) {
        out->energy = 0.0;
        pk_timer_start(&state->t_hal);
        rc = ops->hal(ops->ctx, g, out, st);
        pk_timer_stop(&state->t_hal);
        if (rc) return rc;
        state->energy[0] = out->energy;
    }
    if (!terms.mpole && !terms.polar) return PK_OK;

    if (pk_buffer_reserve(&state->rpole, nall * 13, sizeof(double), st) ||
        pk_buffer_reserve(&state->torque, nall * 3, sizeof(double), st) ||
        pk_buffer_reserve(&state->u, nall * 6, sizeof(double), st))
        return st->code;
    double (*rpole)[13] = state->rpole.data;
    double (*torque)[3] = state->torque.data;
    double (*u)[6] = state->u.data;

    pk_timer_start(&state->t_mpole);
    rc = pk_amoeba_rotate(m, a, s, rpole, &state->work, st);
    if (!rc) comm->forward(comm->ctx, &rpole[0][0], 13);
    memset(torque, 0, nall * sizeof *torque);
    out->energy = 0.0;
    if (!rc && terms.mpole)
        rc = ops->mpole(ops->ctx, g, (const double (*)[13])rpole, torque, out, st);
    state->energy[1] = out->energy;
    pk_timer_stop(&state->t_mpole);
    if (rc) return rc;

    if (terms.polar) {
        pk_timer_start(&state->t_induce);
        rc = ops->induce(ops->ctx, g, (const double (*)[13])rpole, u, st);
        pk_timer_stop(&state->t_induce);
        if (rc) return rc;
        state->pcg_iterations += state->last.iterations;
        if (state->last.iterations > state->pcg_max) state->pcg_max = state->last.iterations;
        if (!state->last.converged) state->unconverged++;

        pk_timer_start(&state->t_polar);
        out->energy = 0.0;
        pk_amoeba_polar_energy(m, a, s, (const double (*)[6])u, &state->induce, out);
        state->energy[2] = out->energy;
        rc = ops->polar(ops->ctx, g, (const double (*)[13])rpole, (const double (*)[6])u, torque,
                        out, st);
        pk_timer_stop(&state->t_polar);
        if (rc) return rc;
    }

    /* torques of both terms: onto the owners, then onto the frame atoms */
    pk_timer_start(&state->t_mpole);
    comm->reverse(comm->ctx, &torque[0][0], 3);
    rc = pk_amoeba_torque_forces(a, s, (const double (*)[3])torque, &state->work, out, st);
    pk_timer_stop(&state->t_mpole);
    return rc;
}

pk_code amoeba_step_terms(const amoeba_terms_ops *ops, const pk_amoeba_args *g, pk_out *out,
                          pk_status *st)
{
    /* each term's energy is collected from zero, then added to the caller's total */
    const double e_in = out->energy;
    pk_code rc = step(ops, g, out, st);
    const pk_amoeba_state *state = g->state;
    out->energy = e_in + state->energy[0] + state->energy[1] + state->energy[2];
    return rc;
}

/* ---- the portable terms, with a table of pair kernels (ctx) ---------------------------- */

static pk_code kernels_hal(const void *ctx, const pk_amoeba_args *g, pk_out *out, pk_status *st)
{
    return amoeba_hal_run(ctx, g->model, g->atoms, g->sites, g->list, &g->state->pairs,
                          &g->state->work, out, st);
}

static pk_code kernels_mpole(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                             double (*torque)[3], pk_out *out, pk_status *st)
{
    return amoeba_mpole_run(ctx, g->model, g->atoms, g->list, &g->state->pairs, rpole, torque,
                            &g->state->work, out, st);
}

static pk_code kernels_induce(const void *ctx, const pk_amoeba_args *g,
                              const double (*rpole)[13], double (*u)[6], pk_status *st)
{
    return amoeba_induce_run(ctx, g->model, g->atoms, g->sites, g->list, &g->state->pairs,
                             rpole, g->comm, u, &g->state->induce, &g->state->last, st);
}

static pk_code kernels_polar(const void *ctx, const pk_amoeba_args *g, const double (*rpole)[13],
                             const double (*u)[6], double (*torque)[3], pk_out *out,
                             pk_status *st)
{
    return amoeba_polar_forces_run(ctx, g->model, g->atoms, g->sites, g->list, &g->state->pairs,
                                   rpole, u, torque, &g->state->work, out, st);
}

pk_code amoeba_step(const amoeba_kernels *k, const pk_amoeba_model *m, const pk_atoms *a,
                    const pk_amoeba_sites *s, const pk_amoeba_list *nl,
                    const pk_amoeba_comm *comm, pk_amoeba_terms terms, pk_amoeba_state *state,
                    pk_out *out, pk_status *st)
{
    const amoeba_terms_ops ops = {k, kernels_hal, kernels_mpole, kernels_induce, kernels_polar};
    const pk_amoeba_args g = {m, a, s, nl, comm, terms, state};
    return amoeba_step_terms(&ops, &g, out, st);
}

pk_code pk_amoeba_compute(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                          const pk_amoeba_list *nl, const pk_amoeba_comm *comm,
                          pk_amoeba_terms terms, pk_amoeba_state *state, pk_out *out,
                          pk_status *st)
{
    /* a state nobody chose a backend for (zero-initialised) runs on the cpu backend */
    if (!state->backend.ops) {
        pk_backend_request req;
        pk_backend_request_cpu(&req);
        if (pk_amoeba_set_backend(state, m, &req, st)) return st->code;
    }
    const pk_amoeba_args args = {m, a, s, nl, comm, terms, state};
    /* the seam's model is not const; no amoeba backend writes to it */
    return pk_backend_compute(&state->backend, (void *)m, &args, out, st);
}
