/* mdpd/pk's backends behind the seam: the portable C kernel as the cpu backend (the
 * reference), the CUDA one when built, and the dispatch of one step. */
#include <stdio.h>
#include <string.h>

#include "mdpd_internal.h"

/* Density over the half list, completed on ghosts by the caller's communication, then
 * forces: the order LAMMPS mdpd/rhosum + mdpd follow. */
pk_code pk_mdpd_host_step(pk_mdpd *m, const pk_mdpd_args *a, pk_out *out,
                          pk_mdpd_density_rows density_rows, pk_mdpd_force_rows force_rows,
                          pk_status *st)
{
    if (pk_mdpd_density_run(m, a->atoms, a->list, a->newton, a->rho, density_rows, st))
        return st->code;
    if (a->newton && a->comm.reverse_rho) a->comm.reverse_rho(a->comm.ctx);
    if (a->comm.forward_rho) a->comm.forward_rho(a->comm.ctx);
    return pk_mdpd_forces_run(m, a->atoms, a->list, a->newton, a->rho, a->step, out,
                              force_rows, st);
}

static pk_code cpu_compute(void *model, void *state, const void *args, pk_out *out,
                           pk_status *st)
{
    (void)state;
    return pk_mdpd_host_step(model, args, out, pk_mdpd_cpu_density_rows,
                             pk_mdpd_cpu_force_rows, st);
}

const pk_backend_ops pk_mdpd_backend_cpu = PK_BACKEND_CPU_OPS(cpu_compute);

const pk_backend_ops *const pk_mdpd_backends[PK_BACKEND_COUNT] = {
    [PK_BACKEND_CPU] = &pk_mdpd_backend_cpu,
#ifdef PK_HAVE_CUDA
    [PK_BACKEND_CUDA] = &pk_mdpd_backend_cuda,
#endif
#ifdef PK_HAVE_SVE
    [PK_BACKEND_SVE] = &pk_mdpd_backend_sve,
#endif
};

/* The SVE kernel draws only the Gaussian noise (src/sve/mdpd_sve_noise.h): with uniform noise
 * it is refused when asked for, and passed over by auto, which the log's note says. */
pk_code pk_mdpd_set_backend(pk_mdpd *m, const pk_backend_request *req, pk_status *st)
{
    if (m->noise == PK_MDPD_NOISE_GAUSSIAN)
        return pk_backend_select(&m->backend, "mdpd/pk", pk_mdpd_backends, m, req, st);
    if (req->kind == PK_BACKEND_SVE)
        return pk_fail(st, PK_ERR_UNSUPPORTED, "backend sve draws only gaussian noise; use noise "
                       "gaussian, or backend cpu (or auto) with noise uniform");
    const pk_backend_ops *usable[PK_BACKEND_COUNT];
    for (int k = 0; k < PK_BACKEND_COUNT; k++) usable[k] = pk_mdpd_backends[k];
    usable[PK_BACKEND_SVE] = NULL;
    if (pk_backend_select(&m->backend, "mdpd/pk", usable, m, req, st)) return st->code;
    /* the note auto wrote for the table without sve would read "no sve backend" */
    if (pk_mdpd_backends[PK_BACKEND_SVE] && req->kind == PK_BACKEND_AUTO &&
        m->backend.info.kind == PK_BACKEND_CPU &&
        (!m->backend.note[0] || strncmp(m->backend.note, "sve ", 4) == 0))
        snprintf(m->backend.note, sizeof m->backend.note,
                 "sve not used: it draws only gaussian noise (noise uniform)");
    return PK_OK;
}

const pk_backend_slot *pk_mdpd_backend(const pk_mdpd *m) { return &m->backend; }

int pk_mdpd_full_list(const pk_mdpd *m)
{
    return m->backend.ops && m->backend.ops->kind == PK_BACKEND_CUDA;
}

pk_code pk_mdpd_compute(pk_mdpd *m, const pk_mdpd_args *a, pk_out *out, pk_status *st)
{
    if (!m->backend.ops) {   /* nothing chosen: the reference */
        pk_backend_request req;
        pk_backend_request_cpu(&req);
        if (pk_mdpd_set_backend(m, &req, st)) return st->code;
    }
    return pk_backend_compute(&m->backend, m, a, out, st);
}
