/* Workspace, per-thread partial sums, the taper polynomial and the electrostatic switches. */
#include <string.h>

#include "amoeba_internal.h"

void pk_amoeba_work_free(pk_amoeba_work *w)
{
    pk_buffer_free(&w->xred);
    pk_buffer_free(&w->batches.mem);
    pk_buffer_free(&w->partial);
    pk_buffer_free(&w->frames);
    pk_accum_free(&w->acc_f);
    pk_accum_free(&w->acc_t);
    pk_accum_free(&w->acc_e);
    pk_accum_free(&w->acc_v);
}

double pk_amoeba_work_bytes(const pk_amoeba_work *w)
{
    return (double)(w->xred.bytes + w->batches.mem.bytes + w->partial.bytes + w->frames.bytes +
                    w->acc_f.copies.bytes + w->acc_t.copies.bytes + w->acc_e.copies.bytes +
                    w->acc_v.copies.bytes);
}

enum { PARTIAL_STRIDE = 8 };   /* energy, 6 virial, padding */

pk_code amoeba_partials_begin(pk_amoeba_work *w, int nthreads, pk_status *st)
{
    if (pk_buffer_reserve(&w->partial, (size_t)nthreads * PARTIAL_STRIDE, sizeof(double), st))
        return st->code;
    memset(w->partial.data, 0, (size_t)nthreads * PARTIAL_STRIDE * sizeof(double));
    return PK_OK;
}

double *amoeba_partials_slice(pk_amoeba_work *w, int tid)
{
    return (double *)w->partial.data + (size_t)tid * PARTIAL_STRIDE;
}

void amoeba_partials_reduce(pk_amoeba_work *w, int nthreads, pk_out *out)
{
    for (int t = 0; t < nthreads; t++) {
        const double *p = amoeba_partials_slice(w, t);
        out->energy += p[0];
        for (int k = 0; k < 6; k++) out->virial[k] += p[1 + k];
    }
}

/* S(r) = c5 r^5 + ... + c0 with S(cut) = 1, S(off) = 0 and zero first and second
 * derivatives at both ends (Tinker switch.f). */
void amoeba_taper_init(amoeba_taper *tp, double cut, double off)
{
    tp->cut = cut;
    tp->off = off;
    tp->cut2 = cut * cut;
    tp->off2 = off * off;
    const double c2 = cut * cut, o2 = off * off;
    const double d = off - cut;
    const double denom = d * d * d * d * d;
    tp->c[0] = off * o2 * (o2 - 5.0 * off * cut + 10.0 * c2) / denom;
    tp->c[1] = -30.0 * o2 * c2 / denom;
    tp->c[2] = 30.0 * (o2 * cut + off * c2) / denom;
    tp->c[3] = -10.0 * (o2 + 4.0 * off * cut + c2) / denom;
    tp->c[4] = 15.0 * (off + cut) / denom;
    tp->c[5] = -6.0 / denom;
}

pk_code amoeba_switch_init(const pk_amoeba_model *m, int polar, amoeba_switch *sw, pk_status *st)
{
    const double taper = polar ? m->set.polar_taper : m->set.mpole_taper;
    const double cut = polar ? m->set.polar_cut : m->set.mpole_cut;
    sw->on = m->set.elec == PK_AMOEBA_ELEC_SMOOTH;
    if (!sw->on) return PK_OK;
    if (!(taper > 0.0 && taper < cut))
        return pk_fail(st, PK_ERR_ARG,
                       "amoeba/pk elec smooth: the %s switch starts at %g, which is not within "
                       "(0, %s cutoff %g) (key keywords taper%s)",
                       polar ? "polarization" : "multipole", taper, polar ? "polarization" : "multipole",
                       cut, polar ? "" : ", mpole-taper");
    sw->start = taper;
    sw->width = cut - taper;
    return PK_OK;
}
