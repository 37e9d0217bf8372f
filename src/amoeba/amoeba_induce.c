/* Induced dipoles (AMOEBA polarization without Ewald, as LAMMPS amoeba / Tinker induce.f).
 *
 * Each polarizable site i gets dipoles u = alpha_i (E_perm + E_ind), E_ind the field of
 * all other induced dipoles, for two scalings of the permanent field (Ren & Ponder 2003;
 * Tinker's "d" set with direct-11-scale inside polarization groups, and "p" set with
 * polar-1n-scale / polar-1n-intra by special class). Interactions are Thole-damped:
 * with a = min(thole_i, thole_k) (r / (alpha_i alpha_k)^(1/6))^3 the 1/r^3, 1/r^5 and 1/r^7
 * kernels are multiplied by
 *   l3 = 1 - e^-a,   l5 = 1 - (1 + a) e^-a,   l7 = 1 - (1 + a + 3/5 a^2) e^-a
 * (Thole, Chem. Phys. 59, 341 (1981); Ren & Ponder eq. 8). Each factor satisfies
 * l_{n+2} = l_n - r/n dl_n/dr, so the damped kernels keep dB_n/dr = -r B_n+1; the next
 * one, l9 = 1 - (1 + a + 18/35 a^2 + 9/35 a^3) e^-a, is needed by forces. The mutual equations
 * (alpha^-1 - T) u = E_perm are solved by preconditioned conjugate gradients; the
 * dipole-dipole tensors T_ik = l5 3 r r^T / r^5 - l3 I / r^3 (times mutual-11-scale
 * inside a group) are computed once per call and reused by every iteration. In SMOOTH
 * mode the permanent fields, T_ik and the preconditioner blocks of a pair carry S(r_ik)
 * (pk_amoeba.h).
 *
 * Storage of the per-step tensors. Each is kept as T = s s^T - b3 I with s = sqrt(b5) r
 * (b5 = 3 l5 / r^5 >= 0 times the scalings, b3 = l3 / r^3 times them): 4 doubles, and
 * T v = s (s.v) - b3 v costs 9 flops instead of 15. The pairs found in the half
 * neighbour list are then packed into rows over all local atoms (owned and ghost), each
 * pair in the rows of both its atoms, so that a matrix-vector product is a gather: every
 * row is summed by one thread in a fixed order, with no scatter, no per-thread copies of
 * the output and no clearing of it. A ghost that is an image of an atom owned here is
 * replaced by that atom in the rows; the rows of the other ghosts are added onto their
 * owners by the reverse communication, and their values come by the forward one. On one
 * rank no ghost is left and the PCG communicates nothing. */
#include <math.h>
#include <string.h>

#include "amoeba_internal.h"

#define POLMIN 1.0e-8   /* smallest polarizability used as a PCG weight (LAMMPS) */

static void rows_free(pk_amoeba_rows *r)
{
    pk_buffer_free(&r->start);
    pk_buffer_free(&r->col);
    pk_buffer_free(&r->ten);
}

void pk_amoeba_induce_work_free(pk_amoeba_induce_work *w)
{
    pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->zrsd, &w->conj, &w->vec, &w->poli,
                      &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors, &w->counts,
                      &w->cursor, &w->batches.mem};
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) pk_buffer_free(b[k]);
    rows_free(&w->mutual);
    rows_free(&w->precond);
    pk_accum_free(&w->acc);
}

double pk_amoeba_induce_work_bytes(const pk_amoeba_induce_work *w)
{
    const pk_buffer *b[] = {&w->field, &w->udir, &w->rsd, &w->zrsd, &w->conj, &w->vec,
                            &w->poli, &w->pairs, &w->tensors, &w->pc_pairs, &w->pc_tensors,
                            &w->counts, &w->cursor, &w->mutual.start, &w->mutual.col,
                            &w->mutual.ten, &w->precond.start, &w->precond.col,
                            &w->precond.ten, &w->acc.copies, &w->batches.mem};
    double bytes = 0.0;
    for (size_t k = 0; k < sizeof b / sizeof *b; k++) bytes += (double)b[k]->bytes;
    return bytes;
}

void amoeba_thole(const pk_amoeba_model *m, int ti, int tk, double r, double l[4])
{
    l[0] = l[1] = l[2] = l[3] = 1.0;
    const double d = m->pdamp[ti] * m->pdamp[tk];
    if (d == 0.0) return;
    const double g = fmin(m->thole[ti], m->thole[tk]);
    const double u = r / d;
    const double a = g * u * u * u;
    if (a >= 50.0) return;
    const double e = exp(-a);
    l[0] = 1.0 - e;
    l[1] = 1.0 - e * (1.0 + a);
    l[2] = 1.0 - e * (1.0 + a + 0.6 * a * a);
    l[3] = 1.0 - e * (1.0 + a + (18.0 / 35.0) * a * a + (9.0 / 35.0) * a * a * a);
}

/* Field of site k's permanent moments at i (fi) and of i's at k (fk); r = x_k - x_i and
 * b[n] the damped, scaled kernels 1/r^3, 3/r^5, 15/r^7 (Tinker udirect2b). */
static void perm_field(const double *pi, const double *pk, const double r[3], const double b[3],
                       double fi[3], double fk[3])
{
    double qi[3], qk[3];
    for (int a = 0; a < 3; a++) {
        qi[a] = pi[4 + 3 * a] * r[0] + pi[5 + 3 * a] * r[1] + pi[6 + 3 * a] * r[2];
        qk[a] = pk[4 + 3 * a] * r[0] + pk[5 + 3 * a] * r[1] + pk[6 + 3 * a] * r[2];
    }
    const double dir = pi[1] * r[0] + pi[2] * r[1] + pi[3] * r[2];
    const double dkr = pk[1] * r[0] + pk[2] * r[1] + pk[3] * r[2];
    const double qir = qi[0] * r[0] + qi[1] * r[1] + qi[2] * r[2];
    const double qkr = qk[0] * r[0] + qk[1] * r[1] + qk[2] * r[2];
    const double ck = b[0] * pk[0] - b[1] * dkr + b[2] * qkr;
    const double ci = b[0] * pi[0] + b[1] * dir + b[2] * qir;
    for (int a = 0; a < 3; a++) {
        fi[a] = -r[a] * ck - b[0] * pk[1 + a] + 2.0 * b[1] * qk[a];
        fk[a] = r[a] * ci - b[0] * pi[1 + a] - 2.0 * b[1] * qi[a];
    }
}

/* Per listed atom ii: offset into the pair slots, dipole-pair and preconditioner counts. */
typedef struct {
    int off, ndip, npc;
} slot;

/* The rank-1 form {s, b3} of T = b5 r r^T - b3 I (b5 >= 0, but S(r) rounds to -1e-17
 * just inside a cutoff). */
static inline void tensor_store(double *t, const double r[3], double b3, double b5)
{
    const double q = b5 > 0.0 ? sqrt(b5) : 0.0;
    t[0] = q * r[0];
    t[1] = q * r[1];
    t[2] = q * r[2];
    t[3] = b3;
}

/* Rows of the pairs kept in the slots (pairs: partner k, tens: 4 doubles per slot; use_pc
 * picks the preconditioner's counts): row i lists (k, T_ik) and row k lists (i, T_ik),
 * in list order, so a row's order does not depend on threads. A ghost k whose owned copy
 * is here (owner[k] >= 0) is replaced by that copy in both places: the product then needs
 * neither its forward nor its reverse communication. *remote counts the entries that
 * still name a ghost (row or column). */
static pk_code pack_rows(pk_amoeba_induce_work *w, const pk_amoeba_list *nl, int nall,
                         const int *owner, int use_pc, const int *pairs, const double *tens,
                         pk_amoeba_rows *rows, double *remote, pk_status *st)
{
    const slot *sl = w->counts.data;
    const int nlocal = nall - w->nghost;
    size_t total = 0;
    for (int ii = 0; ii < nl->inum; ii++) total += 2 * (size_t)(use_pc ? sl[ii].npc : sl[ii].ndip);
    if (pk_buffer_reserve(&rows->start, (size_t)nall + 1, sizeof(int), st) ||
        pk_buffer_reserve(&w->cursor, (size_t)nall + 1, sizeof(int), st) ||
        pk_buffer_reserve(&rows->col, total ? total : 1, sizeof(int), st) ||
        pk_buffer_reserve(&rows->ten, (total ? total : 1) * 4, sizeof(double), st))
        return st->code;
    int *start = rows->start.data, *cur = w->cursor.data, *col = rows->col.data;
    double (*ten)[4] = rows->ten.data;
    memset(start, 0, ((size_t)nall + 1) * sizeof(int));
    for (int ii = 0; ii < nl->inum; ii++) {
        const int n = use_pc ? sl[ii].npc : sl[ii].ndip;
        start[nl->ilist[ii] + 1] += n;
        for (int p = 0; p < n; p++) {
            const int k = pairs[sl[ii].off + p];
            start[(owner && owner[k] >= 0 ? owner[k] : k) + 1]++;
        }
    }
    for (int i = 0; i < nall; i++) start[i + 1] += start[i];
    memcpy(cur, start, (size_t)nall * sizeof(int));
    for (int ii = 0; ii < nl->inum; ii++) {
        const int i = nl->ilist[ii], n = use_pc ? sl[ii].npc : sl[ii].ndip;
        for (int p = 0; p < n; p++) {
            const int g = pairs[sl[ii].off + p], k = owner && owner[g] >= 0 ? owner[g] : g;
            const double *t = tens + 4 * ((size_t)sl[ii].off + (size_t)p);
            *remote += 2.0 * (k >= nlocal);
            col[cur[i]] = k;
            memcpy(ten[cur[i]++], t, sizeof *ten);
            col[cur[k]] = i;
            memcpy(ten[cur[k]++], t, sizeof *ten);
        }
    }
    return PK_OK;
}

/* The d and p values of one component (lanes order): two SIMD lanes; four hold the same
 * for two row entries. */
typedef double lane2 __attribute__((vector_size(2 * sizeof(double))));
typedef double lane4 __attribute__((vector_size(4 * sizeof(double))));

static inline lane2 lane2_load(const double *p)
{
    lane2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* {a[0], a[1], b[0], b[1]} */
static inline lane4 lane4_join(const double *a, const double *b)
{
    const lane4 v = {a[0], a[1], b[0], b[1]};
    return v;
}

/* out_i = scale diag_i in_i + sum over row i of T_ik in_k for the first nrows local atoms,
 * both dipole sets (6 columns, lanes order); diag (owned atoms, may be NULL) is 0 for
 * ghosts. */
static void rows_apply(const pk_amoeba_rows *rows, int nrows, int nlocal, double scale,
                       const double *diag, const double (*in)[6], double (*out)[6])
{
    const int *start = rows->start.data, *col = rows->col.data;
    const double (*ten)[4] = (const double (*)[4])rows->ten.data;
#pragma omp parallel for schedule(static) num_threads(pk_max_threads())
    for (int i = 0; i < nrows; i++) {
        const double p = diag && i < nlocal ? scale * diag[i] : 0.0;
        lane2 ox = p * lane2_load(in[i]), oy = p * lane2_load(in[i] + 2);
        lane2 oz = p * lane2_load(in[i] + 4);
        /* two entries at a time (lanes 0-1 and 2-3), then the odd one */
        lane4 qx = {0, 0, 0, 0}, qy = qx, qz = qx;
        int e = start[i];
        for (; e + 1 < start[i + 1]; e += 2) {
            const double *t = ten[e], *u = ten[e + 1], *v = in[col[e]], *w = in[col[e + 1]];
            const lane4 tx = {t[0], t[0], u[0], u[0]}, ty = {t[1], t[1], u[1], u[1]};
            const lane4 tz = {t[2], t[2], u[2], u[2]}, b3 = {t[3], t[3], u[3], u[3]};
            const lane4 vx = lane4_join(v, w), vy = lane4_join(v + 2, w + 2);
            const lane4 vz = lane4_join(v + 4, w + 4);
            const lane4 sv = tx * vx + ty * vy + tz * vz;
            qx += sv * tx - b3 * vx;
            qy += sv * ty - b3 * vy;
            qz += sv * tz - b3 * vz;
        }
        if (e < start[i + 1]) {
            const double *t = ten[e], *v = in[col[e]];
            const lane2 vx = lane2_load(v), vy = lane2_load(v + 2), vz = lane2_load(v + 4);
            const lane2 sv = t[0] * vx + t[1] * vy + t[2] * vz;
            ox += sv * t[0] - t[3] * vx;
            oy += sv * t[1] - t[3] * vy;
            oz += sv * t[2] - t[3] * vz;
        }
        const double o[6] = {ox[0] + (qx[0] + qx[2]), ox[1] + (qx[1] + qx[3]),
                             oy[0] + (qy[0] + qy[2]), oy[1] + (qy[1] + qy[3]),
                             oz[0] + (qz[0] + qz[2]), oz[1] + (qz[1] + qz[3])};
        memcpy(out[i], o, sizeof o);
    }
}

/* Direct field of the permanent multipoles (both sets) and the pair tensors. */
static pk_code direct_field(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const pk_amoeba_list *nl, const double (*rpole)[13],
                            pk_amoeba_induce_work *w, double (*field)[6], pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    const double (*x)[3] = a->x;
    const double off2 = m->set.polar_cut * m->set.polar_cut;
    const int mutual = m->polarization == PK_AMOEBA_POLAR_MUTUAL;
    const int use_pc = mutual && m->set.pcg_precond;
    const int *entries = nl->entries.data;   /* precond flags are indexed like the entries */
    const int nt = pk_max_threads();
    slot *sl = w->counts.data;
    int *pairs = w->pairs.data, *pcp = w->pc_pairs.data;
    double *ten = w->tensors.data, *pct = w->pc_tensors.data;
    amoeba_switch sw;
    if (amoeba_switch_init(m, 1, &sw, st)) return st->code;

    memset(field, 0, (size_t)nall * sizeof *field);
    if (pk_accum_begin(&w->acc, nt, &field[0][0], (size_t)nall * 6, st)) return st->code;
#pragma omp parallel num_threads(nt)
    {
        double (*fl)[6] = (double (*)[6])pk_accum_slice(&w->acc, pk_thread_id());
#pragma omp for schedule(static)
        for (int ii = 0; ii < nl->inum; ii++) {
            const int i = nl->ilist[ii];
            const int ti = s->amtype[i];
            const int *jlist = nl->firstneigh[i];
            int ndip = 0, npc = 0;
            for (int jj = 0; jj < nl->numneigh[i]; jj++) {
                const int k = jlist[jj] & PK_AMOEBA_NEIGHMASK;
                const int cls = pk_amoeba_special(jlist[jj]);
                const int tk = s->amtype[k];
                const double r[3] = {x[k][0] - x[i][0], x[k][1] - x[i][1], x[k][2] - x[i][2]};
                const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                const int same = s->amgroup[i] == s->amgroup[k];
                const double uscale = same ? m->mutual11_scale : 1.0;
                const double rr = sqrt(r2);
                /* SMOOTH: every pair tensor below is switched by S(r) (1 in LAMMPS mode) */
                double dsdr;
                const double sr = sw.on && r2 >= off2 ? 0.0 : amoeba_switch_eval(&sw, rr, r2, &dsdr);
                const int in_pc = use_pc && nl->precond[jlist + jj - entries] && sr != 0.0;
                double l[4] = {1.0, 1.0, 1.0, 1.0};
                if (in_pc || r2 <= off2) amoeba_thole(m, ti, tk, rr, l);

                /* preconditioner block alpha_i alpha_k T_ik (LAMMPS uscale0b), for the pairs
                 * the list marked at reneighbouring */
                if (in_pc) {
                    const double pol = m->polarity[ti] * m->polarity[tk];
                    const double b3 = sr * uscale * l[0] * pol / (rr * r2);
                    const double b5 = sr * 3.0 * uscale * l[1] * pol / (rr * r2 * r2);
                    tensor_store(pct + 4 * ((size_t)sl[ii].off + (size_t)npc), r, b3, b5);
                    pcp[sl[ii].off + npc++] = k;
                }
                if (r2 > off2) continue;

                const double rr1 = 1.0 / rr, rr2 = rr1 * rr1;
                const double rr3 = rr2 * rr1, rr5 = 3.0 * rr2 * rr3, rr7 = 5.0 * rr2 * rr5;
                const double dscale = same ? m->direct11_scale : 1.0;
                const double pscale = same ? m->polar_intra[cls] : m->polar_scale[cls];
                /* the field is linear in the kernels: the unscaled one, times each set's
                 * scale */
                const double ds = sr * dscale, ps = sr * pscale;
                const double b[3] = {l[0] * rr3, l[1] * rr5, l[2] * rr7};
                double fi[3], fk[3];
                perm_field(rpole[i], rpole[k], r, b, fi, fk);
                for (int d = 0; d < 3; d++) {
                    fl[i][d] += ds * fi[d];
                    fl[k][d] += ds * fk[d];
                    fl[i][3 + d] += ps * fi[d];
                    fl[k][3 + d] += ps * fk[d];
                }
                if (mutual) {
                    const double b3 = sr * uscale * l[0] * rr3, b5 = sr * uscale * l[1] * rr5;
                    tensor_store(ten + 4 * ((size_t)sl[ii].off + (size_t)ndip), r, b3, b5);
                    pairs[sl[ii].off + ndip++] = k;
                }
            }
            sl[ii].ndip = ndip;
            sl[ii].npc = npc;
        }
    }
    pk_accum_reduce(&w->acc);
    return PK_OK;
}

/* The pairs of direct_field packed by row (mutual polarization); the products skip their
 * communication when no rank has a ghost left in them. */
static pk_code pack_products(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                             const pk_amoeba_list *nl, const pk_amoeba_comm *comm,
                             pk_amoeba_induce_work *w, pk_status *st)
{
    const int nall = a->nlocal + a->nghost;
    double remote = 0.0;
    w->nghost = a->nghost;
    if (pack_rows(w, nl, nall, s->owner, 0, w->pairs.data, w->tensors.data, &w->mutual, &remote,
                  st) ||
        (m->set.pcg_precond && pack_rows(w, nl, nall, s->owner, 1, w->pc_pairs.data,
                                         w->pc_tensors.data, &w->precond, &remote, st)))
        return st->code;
    comm->allreduce(comm->ctx, &remote, 1);
    w->local = remote == 0.0;
    return PK_OK;
}

/* Ghost values of v from their owners, unless the products need none. */
static void forward_ghosts(const pk_amoeba_induce_work *w, const pk_amoeba_comm *comm, double (*v)[6])
{
    if (!w->local) comm->forward(comm->ctx, &v[0][0], 6);
}

/* Field of the dipoles v at the owned atoms (ghosts' values and rows communicated when
 * the rows name ghosts). */
static void mutual_field(const pk_amoeba_induce_work *w, int nall, const pk_amoeba_comm *comm,
                         const double (*v)[6], double (*field)[6])
{
    const int nrows = w->local ? nall - w->nghost : nall;
    rows_apply(&w->mutual, nrows, 0, 0.0, NULL, v, field);
    if (!w->local) comm->reverse(comm->ctx, &field[0][0], 6);
}

/* z = M r: usolve_diag * max(alpha_i, POLMIN) (poli) on the diagonal plus the neighbour
 * blocks (LAMMPS uscale0b APPLY); when the rows name ghosts, r's are refreshed first and
 * z's ghost parts summed onto owners. */
static void precondition(const pk_amoeba_model *m, const pk_atoms *a,
                         const pk_amoeba_induce_work *w, const pk_amoeba_comm *comm,
                         double (*r)[6], double (*z)[6])
{
    forward_ghosts(w, comm, r);
    rows_apply(&w->precond, w->local ? a->nlocal : a->nlocal + a->nghost, a->nlocal,
               m->set.usolve_diag, w->poli.data, (const double (*)[6])r, z);
    if (!w->local) comm->reverse(comm->ctx, &z[0][0], 6);
}

/* Inside the PCG an atom's 6 columns are ordered x_d x_p y_d y_p z_d z_p ("lanes"), so
 * that rows_apply works on both dipole sets as pairs of SIMD lanes; column j belongs to
 * set j & 1 and is column DP(j) of the d-then-p order used outside (u, udir, field). */
#define DP(j) (3 * ((j) & 1) + ((j) >> 1))

/* Reorder the rows of n atoms from d-then-p to lanes (to_lanes = 1) or back. */
static void reorder(int n, double (*v)[6], int to_lanes)
{
    for (int i = 0; i < n; i++) {
        double t[6];
        for (int j = 0; j < 6; j++) {
            if (to_lanes) t[j] = v[i][DP(j)];
            else t[DP(j)] = v[i][j];
        }
        memcpy(v[i], t, sizeof t);
    }
}

/* Sums over owned atoms of a.b for the d (out[0]) and p (out[1]) sets (lanes order). */
static void dot2(int n, const double (*x)[6], const double (*y)[6], double out[2])
{
    out[0] = out[1] = 0.0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            out[0] += x[i][2 * c] * y[i][2 * c];
            out[1] += x[i][2 * c + 1] * y[i][2 * c + 1];
        }
}

pk_code pk_amoeba_induce(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                         const pk_amoeba_list *nl, const double (*rpole)[13],
                         const pk_amoeba_comm *comm, double (*u)[6], pk_amoeba_induce_work *w,
                         pk_amoeba_induce_info *info, pk_status *st)
{
    const int n = a->nlocal, nall = n + a->nghost;
    const pk_amoeba_settings *set = &m->set;
    memset(info, 0, sizeof *info);
    if (!s->amgroup) return pk_fail(st, PK_ERR_ARG, "amoeba/pk: polarization needs amgroup");

    /* pair slots: one per entry of the list, in list order */
    size_t total = 0;
    if (pk_buffer_reserve(&w->counts, (size_t)(nl->inum > 0 ? nl->inum : 1), sizeof(slot), st))
        return st->code;
    slot *sl = w->counts.data;
    for (int ii = 0; ii < nl->inum; ii++) {
        sl[ii].off = (int)total;
        total += (size_t)nl->numneigh[nl->ilist[ii]];
    }
    if (total == 0) total = 1;
    size_t nv = (size_t)nall * 6;
    if (pk_buffer_reserve(&w->pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->tensors, total * 4, sizeof(double), st) ||
        pk_buffer_reserve(&w->pc_pairs, total, sizeof(int), st) ||
        pk_buffer_reserve(&w->pc_tensors, total * 4, sizeof(double), st) ||
        pk_buffer_reserve(&w->field, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->udir, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->rsd, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->zrsd, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->conj, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->vec, nv, sizeof(double), st) ||
        pk_buffer_reserve(&w->poli, (size_t)(n > 0 ? n : 1), sizeof(double), st))
        return st->code;
    double (*field)[6] = w->field.data, (*udir)[6] = w->udir.data;
    double (*rsd)[6] = w->rsd.data, (*zrsd)[6] = w->zrsd.data;
    double (*conj)[6] = w->conj.data, (*vec)[6] = w->vec.data;
    double *poli = w->poli.data;

    /* direct dipoles u_dir = alpha E_perm (also the starting guess) */
    if (direct_field(m, a, s, nl, rpole, w, field, st)) return st->code;
    comm->reverse(comm->ctx, &field[0][0], 6);
    memset(u, 0, (size_t)nall * sizeof *u);
    memset(udir, 0, (size_t)nall * sizeof *udir);
    const int guess = set->pcg_guess || m->polarization == PK_AMOEBA_POLAR_DIRECT;
    for (int i = 0; i < n; i++) {
        const double alpha = m->polarity[s->amtype[i]];
        for (int d = 0; d < 6; d++) {
            udir[i][d] = alpha * field[i][d];
            if (guess) u[i][d] = udir[i][d];
        }
    }
    if (m->polarization == PK_AMOEBA_POLAR_DIRECT) {
        info->converged = 1;
        comm->forward(comm->ctx, &u[0][0], 6);
        return PK_OK;
    }

    /* mutual: PCG on (alpha^-1 - T) u = E_perm for both sets at once (LAMMPS induce) */
    if (pack_products(m, a, s, nl, comm, w, st)) return st->code;
    double natoms = (double)n;
    comm->allreduce(comm->ctx, &natoms, 1);
    reorder(n, u, 1);
    forward_ghosts(w, comm, u);
    mutual_field(w, nall, comm, (const double (*)[6])u, field);
    for (int i = 0; i < n; i++) {
        poli[i] = fmax(POLMIN, m->polarity[s->amtype[i]]);
        for (int j = 0; j < 6; j++) {
            rsd[i][j] = set->pcg_guess ? (udir[i][DP(j)] - u[i][j]) / poli[i] + field[i][j]
                                       : udir[i][DP(j)] / poli[i];
            zrsd[i][j] = rsd[i][j];
        }
    }
    if (set->pcg_precond) precondition(m, a, w, comm, rsd, zrsd);
    memcpy(conj, zrsd, (size_t)n * sizeof *conj);

    double eps = 100.0;
    for (int done = 0; !done;) {
        info->iterations++;
        /* vec = alpha^-1 conj - T conj */
        forward_ghosts(w, comm, conj);
        mutual_field(w, nall, comm, (const double (*)[6])conj, field);
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) vec[i][d] = conj[i][d] / poli[i] - field[i][d];
        double red[4], cv[2], rz[2];
        dot2(n, (const double (*)[6])conj, (const double (*)[6])vec, cv);
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])zrsd, rz);
        red[0] = cv[0], red[1] = cv[1], red[2] = rz[0], red[3] = rz[1];
        comm->allreduce(comm->ctx, red, 4);
        const double sum[2] = {red[2], red[3]};
        double step[2];
        for (int k = 0; k < 2; k++) step[k] = red[k] != 0.0 ? sum[k] / red[k] : red[k];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) {
                const double al = step[d & 1];
                u[i][d] += al * conj[i][d];
                rsd[i][d] -= al * vec[i][d];
                zrsd[i][d] = rsd[i][d];
            }
        if (set->pcg_precond) precondition(m, a, w, comm, rsd, zrsd);
        double beta[2];
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])zrsd, beta);
        comm->allreduce(comm->ctx, beta, 2);
        for (int k = 0; k < 2; k++)
            if (sum[k] != 0.0) beta[k] /= sum[k];
        double ee[2];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < 6; d++) conj[i][d] = zrsd[i][d] + beta[d & 1] * conj[i][d];
        dot2(n, (const double (*)[6])rsd, (const double (*)[6])rsd, ee);
        comm->allreduce(comm->ctx, ee, 2);
        eps = PK_AMOEBA_DEBYE * sqrt(fmax(ee[0], ee[1]) / natoms);
        info->converged = eps < set->polar_eps;
        done = info->converged || info->iterations >= set->polar_iter;
        if (done)   /* one "peek" step along the preconditioned residual */
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 6; d++) u[i][d] += set->pcg_peek * poli[i] * rsd[i][d];
    }
    info->rms = eps;
    if (!isfinite(eps))
        return pk_fail(st, PK_ERR_NUMERIC, "amoeba/pk: induced dipoles are not finite (PCG residual %g)", eps);
    reorder(n, u, 0);
    comm->forward(comm->ctx, &u[0][0], 6);
    return PK_OK;
}

void pk_amoeba_polar_energy(const pk_amoeba_model *m, const pk_atoms *a, const pk_amoeba_sites *s,
                            const double (*u)[6], const pk_amoeba_induce_work *w, pk_out *out)
{
    const double f = -0.5 * PK_AMOEBA_ELECTRIC / m->dielectric;
    const double (*udir)[6] = w->udir.data;
    double e = 0.0;
    for (int i = 0; i < a->nlocal; i++) {
        const double alpha = m->polarity[s->amtype[i]];
        if (alpha == 0.0) continue;   /* no dipole, no energy (LAMMPS would divide by 0) */
        const double ei = f / alpha * (u[i][0] * udir[i][3] + u[i][1] * udir[i][4] + u[i][2] * udir[i][5]);
        e += ei;
        if (out->eatom) out->eatom[i] += ei;
    }
    out->energy += e;
}
