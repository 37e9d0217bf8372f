/* Settings and coefficients of mdpd/pk, checked the way LAMMPS users expect. */
#include <math.h>
#include <stdlib.h>

#include "mdpd_internal.h"

pk_mdpd *pk_mdpd_create(int ntypes)
{
    pk_mdpd *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->ntypes = ntypes;
    m->pair = calloc((size_t)(ntypes + 1) * (size_t)(ntypes + 1), sizeof *m->pair);
    if (!m->pair) { free(m); return NULL; }
    return m;
}

void pk_mdpd_destroy(pk_mdpd *m)
{
    if (!m) return;
    pk_backend_release(&m->backend);
    pk_accum_free(&m->rho_acc);
    pk_accum_free(&m->f_acc);
    pk_accum_free(&m->eatom_acc);
    pk_accum_free(&m->vatom_acc);
    pk_buffer_free(&m->ev);
    pk_buffer_free(&m->pair_start);
    pk_buffer_free(&m->pair_count);
    pk_buffer_free(&m->pair_j);
    pk_buffer_free(&m->pair_r);
    free(m->pair);
    free(m);
}

/* Every number must be finite. LAMMPS's numeric() already refuses "nan", "inf" and "1e999"
 * in an input script, but values also arrive from restart files and other callers of this
 * API, and inf passes the sign tests. kT = 0 is allowed: no random force (pure
 * dissipation), as in LAMMPS mdpd. */
pk_code pk_mdpd_check_settings(double kT, double rc, uint32_t seed, pk_status *st)
{
    if (!(kT >= 0.0)) return pk_fail(st, PK_ERR_ARG, "temperature must be >= 0 (got %g)", kT);
    if (!isfinite(kT)) return pk_fail(st, PK_ERR_ARG, "temperature must be finite (got %g)", kT);
    if (!(rc > 0.0)) return pk_fail(st, PK_ERR_ARG, "cutoff must be > 0 (got %g)", rc);
    if (!isfinite(rc)) return pk_fail(st, PK_ERR_ARG, "cutoff must be finite (got %g)", rc);
    if (seed == 0) return pk_fail(st, PK_ERR_ARG, "seed must be a positive integer");
    return PK_OK;
}

pk_code pk_mdpd_settings(pk_mdpd *m, double kT, double rc, uint32_t seed,
                         pk_mdpd_kernel kernel, pk_status *st)
{
    if (pk_mdpd_check_settings(kT, rc, seed, st)) return st->code;
    m->kT = kT;
    m->rc_global = rc;
    m->seed = seed;
    m->kernel = kernel;
    return PK_OK;
}

pk_code pk_mdpd_coeff(pk_mdpd *m, int ilo, int ihi, int jlo, int jhi, double A, double B,
                      double gamma, double rc, double rd, pk_status *st)
{
    if (rc <= 0.0) rc = m->rc_global;
    if (!(rc > 0.0)) return pk_fail(st, PK_ERR_ARG, "cutoff rc must be > 0 (got %g)", rc);
    if (!isfinite(rc)) return pk_fail(st, PK_ERR_ARG, "cutoff rc must be finite (got %g)", rc);
    if (!(rd > 0.0)) return pk_fail(st, PK_ERR_ARG, "density cutoff rd must be > 0 (got %g)", rd);
    if (!isfinite(rd)) return pk_fail(st, PK_ERR_ARG, "density cutoff rd must be finite (got %g)", rd);
    if (rd > rc)
        return pk_fail(st, PK_ERR_ARG, "density cutoff rd = %g is larger than cutoff rc = %g", rd, rc);
    if (!(gamma >= 0.0)) return pk_fail(st, PK_ERR_ARG, "gamma must be >= 0 (got %g)", gamma);
    if (!isfinite(gamma)) return pk_fail(st, PK_ERR_ARG, "gamma must be finite (got %g)", gamma);
    if (!isfinite(A)) return pk_fail(st, PK_ERR_ARG, "A must be finite (got %g)", A);
    if (!isfinite(B)) return pk_fail(st, PK_ERR_ARG, "B must be finite (got %g)", B);
    int count = 0;
    for (int i = ilo; i <= ihi; i++) {
        for (int j = (jlo > i ? jlo : i); j <= jhi; j++) {
            pk_mdpd_pair p = {A, B, gamma, rc, rd, rd, 1, 0.0, 0.0, 0.0, 0.0, 0.0};
            m->pair[i * (m->ntypes + 1) + j] = p;
            m->pair[j * (m->ntypes + 1) + i] = p;
            count++;
        }
    }
    if (count == 0) return pk_fail(st, PK_ERR_ARG, "no type pair in the given ranges");
    return PK_OK;
}

pk_code pk_mdpd_density_cutoff(pk_mdpd *m, int itype, int jtype, double h, pk_status *st)
{
    if (h < 0.0) return pk_fail(st, PK_ERR_ARG, "density cutoff must be >= 0 (got %g; 0 means rd)", h);
    if (!isfinite(h)) return pk_fail(st, PK_ERR_ARG, "density cutoff must be finite (got %g)", h);
    pk_mdpd_pair *a = &m->pair[itype * (m->ntypes + 1) + jtype];
    pk_mdpd_pair *b = &m->pair[jtype * (m->ntypes + 1) + itype];
    a->h = b->h = (h > 0.0 ? h : a->rd);
    return PK_OK;
}

/* The constants derived from finite coefficients can still overflow (gamma kT beyond 1e308,
 * a cutoff of 1e-320 or 1e200): each must be finite, named with the inputs it comes from. */
static pk_code check_derived(const pk_mdpd_pair *p, int i, int j, double kT, pk_status *st)
{
    if (!isfinite(p->sigma))
        return pk_fail(st, PK_ERR_NUMERIC, "type pair %d %d: random force amplitude sqrt(2 gamma kT) "
                       "is not finite (gamma %g, kT %g)", i, j, p->gamma, kT);
    if (!isfinite(p->inv_rc) || !isfinite(p->inv_rd) || !isfinite(p->inv_h) || !isfinite(p->cutsq))
        return pk_fail(st, PK_ERR_NUMERIC, "type pair %d %d: 1/cutoff or cutoff^2 is not finite "
                       "(rc %g, rd %g, density cutoff %g)", i, j, p->rc, p->rd, p->h);
    return PK_OK;
}

pk_code pk_mdpd_init(pk_mdpd *m, pk_status *st)
{
    m->noisy = 0;
    for (int i = 1; i <= m->ntypes; i++) {
        for (int j = i; j <= m->ntypes; j++) {
            pk_mdpd_pair *p = &m->pair[i * (m->ntypes + 1) + j];
            if (!p->set)
                return pk_fail(st, PK_ERR_ARG, "coefficients for type pair %d %d are not set", i, j);
            p->sigma = sqrt(2.0 * p->gamma * m->kT);
            if (p->sigma > 0.0) m->noisy = 1;
            p->inv_rc = 1.0 / p->rc;
            p->inv_rd = 1.0 / p->rd;
            p->inv_h = 1.0 / p->h;
            const double cut = p->rc > p->h ? p->rc : p->h;
            p->cutsq = cut * cut;
            if (check_derived(p, i, j, m->kT, st)) return st->code;
            m->pair[j * (m->ntypes + 1) + i] = *p;
        }
    }
    return PK_OK;
}

double pk_mdpd_cutoff(const pk_mdpd *m, int itype, int jtype)
{
    const pk_mdpd_pair *p = pk_mdpd_pair_of(m, itype, jtype);
    return p->rc > p->h ? p->rc : p->h;
}

pk_code pk_mdpd_set_noise(pk_mdpd *m, pk_mdpd_noise noise, pk_status *st)
{
    if (noise != PK_MDPD_NOISE_GAUSSIAN && noise != PK_MDPD_NOISE_UNIFORM)
        return pk_fail(st, PK_ERR_ARG, "unknown noise distribution %d (expected gaussian or uniform)",
                       (int)noise);
    m->noise = noise;
    return PK_OK;
}

pk_mdpd_noise pk_mdpd_noise_of(const pk_mdpd *m) { return m->noise; }
pk_mdpd_kernel pk_mdpd_kernel_of(const pk_mdpd *m) { return m->kernel; }
void pk_mdpd_set_kernel(pk_mdpd *m, pk_mdpd_kernel kernel) { m->kernel = kernel; }
double pk_mdpd_kT(const pk_mdpd *m) { return m->kT; }
uint32_t pk_mdpd_seed(const pk_mdpd *m) { return m->seed; }

int pk_mdpd_get_coeff(const pk_mdpd *m, int itype, int jtype, double *A, double *B,
                      double *gamma, double *rc, double *rd)
{
    const pk_mdpd_pair *p = pk_mdpd_pair_of(m, itype, jtype);
    *A = p->A; *B = p->B; *gamma = p->gamma; *rc = p->rc; *rd = p->rd;
    return p->set;
}

double pk_mdpd_memory_usage(const pk_mdpd *m)
{
    return (double)(m->rho_acc.copies.bytes + m->f_acc.copies.bytes + m->eatom_acc.copies.bytes +
                    m->vatom_acc.copies.bytes + m->ev.bytes + m->pair_start.bytes +
                    m->pair_count.bytes + m->pair_j.bytes + m->pair_r.bytes) +
           pk_backend_memory(&m->backend);
}
