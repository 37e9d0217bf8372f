/* Local multipole frames: the rotation into the global frame, and the forces on the
 * frame-defining atoms that a torque on the site implies.
 *
 * Frame axes (Tinker rotmat.f; r_z, r_x, r_y are the frame atoms' positions relative to
 * the site, u(v) = v/|v|):
 *   z-only     e_z = u(r_z),                 x from a fixed lab axis
 *   z-then-x   e_z = u(r_z),                 x from r_x
 *   bisector   e_z = u(u(r_z) + u(r_x)),     x from u(r_x)
 *   z-bisector e_z = u(r_z),                 x from u(u(r_x) + u(r_y))
 *   3-fold     e_z = u(u(r_z)+u(r_x)+u(r_y)), x from u(r_x)
 * "x from d" means e_x = u(d - (d.e_z) e_z); then e_y = e_z x e_x.
 *
 * Torques to forces. The kernels give a torque t per site such that turning the site's
 * multipoles by a small rotation dtheta changes the energy by -t.dtheta. When atoms move,
 * an orthonormal frame turns by dtheta = 1/2 sum_k e_k x de_k, so
 *   dE = -1/2 sum_k de_k . (t x e_k),
 * i.e. dE/de_k = -1/2 t x e_k. We push these gradients back through the construction
 * above (the chain rule of u(v): du = (1 - u u^T) dv / |v|) to the atom positions. This
 * gives the exact gradient for every frame kind, equivalent to the closed forms of
 * Popelier & Stone, Mol. Phys. 82, 411 (1994) that Tinker's torque.f uses. */
#include <math.h>
#include <string.h>

#include "amoeba_internal.h"

/* u(v) = v/|v| and 1/|v| */
typedef struct {
    double n[3];
    double inv;
} unit3;

static inline void unit_of(const double v[3], unit3 *u)
{
    u->inv = 1.0 / sqrt(dot3(v, v));
    for (int d = 0; d < 3; d++) u->n[d] = v[d] * u->inv;
}

/* gv += (gn - (gn.n) n) / |v| */
static inline void unit_back(const unit3 *u, const double gn[3], double gv[3])
{
    const double p = dot3(gn, u->n);
    for (int d = 0; d < 3; d++) gv[d] += (gn[d] - p * u->n[d]) * u->inv;
}

/* Everything the backward pass needs from the forward construction. */
typedef struct {
    pk_amoeba_frame_kind kind;
    unit3 ua, ub, uc;   /* u(r_z), u(r_x), u(r_y) as used by the kind */
    unit3 uz;           /* e_z = u(s) */
    unit3 us;           /* z-bisector: u(u(r_x) + u(r_y)) */
    unit3 ux;           /* e_x = u(w) */
    double d[3];        /* the vector x is taken from */
    double e[3][3];     /* rows e_x, e_y, e_z */
} frame_tape;

static void frame_forward(pk_amoeba_frame_kind kind, const double rz[3], const double rx[3],
                          const double ry[3], frame_tape *t)
{
    double s[3];
    t->kind = kind;
    switch (kind) {
    case PK_AMOEBA_ZONLY:
    case PK_AMOEBA_ZTHENX:
        unit_of(rz, &t->uz);
        if (kind == PK_AMOEBA_ZTHENX) {
            memcpy(t->d, rx, sizeof t->d);
        } else {
            /* lab x axis, or y when e_z is within 30 degrees of x */
            const int alt = fabs(t->uz.n[0]) > 0.866;
            t->d[0] = alt ? 0.0 : 1.0;
            t->d[1] = alt ? 1.0 : 0.0;
            t->d[2] = 0.0;
        }
        break;
    case PK_AMOEBA_BISECTOR:
        unit_of(rz, &t->ua);
        unit_of(rx, &t->ub);
        for (int k = 0; k < 3; k++) s[k] = t->ua.n[k] + t->ub.n[k];
        unit_of(s, &t->uz);
        memcpy(t->d, t->ub.n, sizeof t->d);
        break;
    case PK_AMOEBA_ZBISECT:
        unit_of(rz, &t->uz);
        unit_of(rx, &t->ub);
        unit_of(ry, &t->uc);
        for (int k = 0; k < 3; k++) s[k] = t->ub.n[k] + t->uc.n[k];
        unit_of(s, &t->us);
        memcpy(t->d, t->us.n, sizeof t->d);
        break;
    case PK_AMOEBA_THREEFOLD:
        unit_of(rz, &t->ua);
        unit_of(rx, &t->ub);
        unit_of(ry, &t->uc);
        for (int k = 0; k < 3; k++) s[k] = t->ua.n[k] + t->ub.n[k] + t->uc.n[k];
        unit_of(s, &t->uz);
        memcpy(t->d, t->ub.n, sizeof t->d);
        break;
    default:
        memset(t->e, 0, sizeof t->e);
        t->e[0][0] = t->e[1][1] = t->e[2][2] = 1.0;
        return;
    }
    const double *ez = t->uz.n;
    const double p = dot3(t->d, ez);
    double w[3];
    for (int k = 0; k < 3; k++) w[k] = t->d[k] - p * ez[k];
    unit_of(w, &t->ux);
    memcpy(t->e[0], t->ux.n, sizeof t->e[0]);
    memcpy(t->e[2], ez, sizeof t->e[2]);
    cross3(t->e[2], t->e[0], t->e[1]);
}

/* Gradients of E with respect to r_z, r_x, r_y (added to gz, gx, gy) given the torque. */
static void frame_backward(const frame_tape *t, const double tq[3], double gz[3], double gx[3],
                           double gy[3])
{
    if (t->kind == PK_AMOEBA_NOFRAME) return;
    const double *ex = t->e[0], *ez = t->e[2];
    double g[3][3];
    for (int k = 0; k < 3; k++) {
        cross3(tq, t->e[k], g[k]);
        for (int d = 0; d < 3; d++) g[k][d] *= -0.5;
    }
    /* dE/de_k = -1/2 t x e_k; fold e_y = e_z x e_x into the e_z and e_x gradients */
    double Gz[3], Gx[3], tmp[3];
    cross3(ex, g[1], tmp);
    for (int d = 0; d < 3; d++) Gz[d] = g[2][d] + tmp[d];
    cross3(g[1], ez, tmp);
    for (int d = 0; d < 3; d++) Gx[d] = g[0][d] + tmp[d];
    /* e_x = u(w), w = d - (d.e_z) e_z */
    double gw[3] = {0, 0, 0}, gd[3];
    unit_back(&t->ux, Gx, gw);
    const double pw = dot3(gw, ez), pd = dot3(t->d, ez);
    for (int k = 0; k < 3; k++) {
        gd[k] = gw[k] - pw * ez[k];
        Gz[k] += -pw * t->d[k] - pd * gw[k];
    }
    /* e_z = u(s) */
    double gs[3] = {0, 0, 0};
    unit_back(&t->uz, Gz, gs);
    double gsd[3];
    switch (t->kind) {
    case PK_AMOEBA_ZONLY:
        for (int k = 0; k < 3; k++) gz[k] += gs[k];
        break;
    case PK_AMOEBA_ZTHENX:
        for (int k = 0; k < 3; k++) {
            gz[k] += gs[k];
            gx[k] += gd[k];
        }
        break;
    case PK_AMOEBA_BISECTOR:
        unit_back(&t->ua, gs, gz);
        for (int k = 0; k < 3; k++) gsd[k] = gs[k] + gd[k];
        unit_back(&t->ub, gsd, gx);
        break;
    case PK_AMOEBA_ZBISECT: {
        for (int k = 0; k < 3; k++) gz[k] += gs[k];
        double gsum[3] = {0, 0, 0};
        unit_back(&t->us, gd, gsum);
        unit_back(&t->ub, gsum, gx);
        unit_back(&t->uc, gsum, gy);
        break;
    }
    case PK_AMOEBA_THREEFOLD:
        unit_back(&t->ua, gs, gz);
        for (int k = 0; k < 3; k++) gsd[k] = gs[k] + gd[k];
        unit_back(&t->ub, gsd, gx);
        unit_back(&t->uc, gs, gy);
        break;
    default:
        break;
    }
}

static void relative(const double (*x)[3], int i, int j, double r[3])
{
    for (int d = 0; d < 3; d++) r[d] = x[j][d] - x[i][d];
}

/* Atom i's frame: its axes t->e (local x, y, z in global coordinates) and what
 * frame_backward needs. */
static void frame_of(pk_amoeba_frame_kind kind, const double (*x)[3], int i, const int fr[3],
                     frame_tape *t)
{
    double rz[3], rx[3], ry[3];
    relative(x, i, fr[0], rz);
    relative(x, i, fr[1], rx);
    relative(x, i, fr[2], ry);
    frame_forward(kind, rz, rx, ry, t);
}

/* Chirality (Tinker chkpole.f): a z-then-x frame that names a y atom is mirrored when
 * the y atom lies on the other side of the plane, i.e. when the signed volume
 * (x_i - x_y) . ((x_z - x_y) x (x_x - x_y)) is negative; the y components of the local
 * dipole and quadrupole then change sign. */
static int chiral_flip(const double (*x)[3], int i, const int fr[3])
{
    double a[3], b[3], c[3], bc[3];
    relative(x, fr[2], i, a);
    relative(x, fr[2], fr[0], b);
    relative(x, fr[2], fr[1], c);
    cross3(b, c, bc);
    return dot3(a, bc) < 0.0;
}

pk_code pk_amoeba_rotate(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         double (*rpole)[13], pk_amoeba_work *w, pk_status *st)
{
    const double (*x)[3] = a->x;
    if (pk_buffer_reserve(&w->frames, (size_t)(a->nlocal > 0 ? a->nlocal : 1), sizeof(frame_tape),
                          st))
        return st->code;
    frame_tape *tapes = w->frames.data;
    int bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
    for (int i = 0; i < a->nlocal; i++) {
        const int r = s->mpole[i];
        if (r < 0 || r >= m->nmpole) {
            bad = i > bad ? i : bad;
            continue;
        }
        const pk_amoeba_mpole_param *p = &m->mpole[r];
        double pole[13];
        memcpy(pole, p->pole, sizeof pole);
        if (p->kind == PK_AMOEBA_ZTHENX && p->yt != 0 && chiral_flip(x, i, s->frame[i])) {
            static const int ycomp[5] = {2, 5, 7, 9, 11};
            for (int k = 0; k < 5; k++) pole[ycomp[k]] = -pole[ycomp[k]];
        }
        frame_of(p->kind, x, i, s->frame[i], &tapes[i]);
        const double (*e)[3] = (const double (*)[3])tapes[i].e;
        /* mu_g = sum_k mu_k e_k;  Q_g = sum_kl Q_kl e_k e_l^T */
        rpole[i][0] = pole[0];
        for (int d = 0; d < 3; d++)
            rpole[i][1 + d] = pole[1] * e[0][d] + pole[2] * e[1][d] + pole[3] * e[2][d];
        for (int a1 = 0; a1 < 3; a1++)
            for (int b1 = 0; b1 < 3; b1++) {
                double q = 0.0;
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 3; l++) q += pole[4 + 3 * k + l] * e[k][a1] * e[l][b1];
                rpole[i][4 + 3 * a1 + b1] = q;
            }
    }
    if (bad >= 0)
        return pk_fail(st, PK_ERR_ARG, "amoeba/pk: atom %d has no multipole assigned",
                       a->tag ? (int)a->tag[bad] : bad + 1);
    return PK_OK;
}

pk_code pk_amoeba_torque_forces(const pk_atoms *a, const pk_amoeba_sites *s,
                                const double (*torque)[3], pk_amoeba_work *w, pk_out *out,
                                pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const int nt = pk_max_threads();
    if (pk_accum_begin(&w->acc_f, nt, &out->f[0][0], (size_t)nall * 3, st) ||
        amoeba_partials_begin(w, nt, st))
        return st->code;
#pragma omp parallel num_threads(nt)
    {
        const int tid = pk_thread_id();
        double (*f)[3] = (double (*)[3])pk_accum_slice(&w->acc_f, tid);
        double *part = amoeba_partials_slice(w, tid);
        const frame_tape *tapes = w->frames.data;
#pragma omp for schedule(static)
        for (int i = 0; i < a->nlocal; i++) {
            if (tapes[i].kind == PK_AMOEBA_NOFRAME) continue;
            const int *fr = s->frame[i];
            double r[3][3];
            for (int k = 0; k < 3; k++) relative(x, i, fr[k], r[k]);
            double g[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
            frame_backward(&tapes[i], torque[i], g[0], g[1], g[2]);
            /* F_frame = -g, F_i = +sum g; virial sum_a (x_a - x_i) (x) F_a, symmetrized,
             * all of it on the site i (owned, one per iteration: no race) */
            for (int k = 0; k < 3; k++) {
                for (int d = 0; d < 3; d++) {
                    f[fr[k]][d] -= g[k][d];
                    f[i][d] += g[k][d];
                }
                const double v[6] = {-r[k][0] * g[k][0], -r[k][1] * g[k][1], -r[k][2] * g[k][2],
                                     -0.5 * (r[k][0] * g[k][1] + r[k][1] * g[k][0]),
                                     -0.5 * (r[k][0] * g[k][2] + r[k][2] * g[k][0]),
                                     -0.5 * (r[k][1] * g[k][2] + r[k][2] * g[k][1])};
                for (int c = 0; c < 6; c++) {
                    part[1 + c] += v[c];
                    if (out->vatom) out->vatom[i][c] += v[c];
                }
            }
        }
    }
    pk_accum_reduce(&w->acc_f);
    amoeba_partials_reduce(w, nt, out);
    return PK_OK;
}
