/* The block kernels of the hdnnp/pk CUDA backend in one precision: included by
 * hdnnp_gpu_body.h (HDG(), R and the math macros defined there).
 *
 * A block is one centre ii. Its threads t = 0 .. bd - 1 each run every phase below in turn;
 * the kernel (src/cuda/hdnnp_cuda.cu) puts __syncthreads() between two phases, the host
 * emulation test runs each phase for every t before the next. Any block size works.
 *   values kernel:   hdg_blk_load, then per group g: hdg_blk_exps, hdg_blk_values,
 *                    hdg_blk_values_fold, hdg_blk_values_sum
 *   gradient kernel: hdg_blk_load, then per group g: hdg_blk_exps, hdg_blk_grad,
 *                    hdg_blk_grad_sum; then hdg_blk_store
 * hdg_blk_load puts the neighbours' geometry into shared memory once per centre: distance
 * vector and r, 1/r, and the value and derivative of every cutoff of the element;
 * hdg_blk_exps adds the factors exp(-eta (r - rs)^2) of the group's distinct etas. A pair
 * then costs the distance r_jk, its cutoff and one exponential per distinct eta (narrow
 * types), or nothing but products (wide types), for all functions of its group.
 *
 * Values: the group's radial terms or its pairs (each unordered pair once) are dealt to the
 * threads in turn; each thread sums its terms per member and the members' sums are the
 * threads' sums added in a fixed order (runs of HDG_FOLD threads, then the runs).
 * Gradients: a thread owns an env entry and a chunk of its partners (hdg_owners) and sums
 * its own dT/dx_n over those pairs as hdnnp_contract.c forms it (the weights c_s of all the
 * group's functions applied per pair before A and B, dT/dx_n = A a + B b with
 * a = x_n - x_i, b = x_k - x_i: T is symmetric in its pair, so each owner needs only its
 * own, and each pair is evaluated once by each of its two members' owners); the chunks are
 * added in chunk order, the groups in group order, so every sum has a fixed order and
 * reruns are bitwise equal. */

/* The block's shared memory: rows of ncap (one entry per env entry), hdg_shared_at. For the
 * n2p2 water (one cutoff, at most 4 distinct etas a group) in double with 128 threads:
 * 116 ncap + 12288 bytes, 31 KB for a list of 160 (mixed: 88 ncap + 12288). */
typedef struct {
    double *d;      /* 4 rows: x_n - x_i (x, y, z) and r; the pair rule tests in double */
    double *gacc;   /* 3 rows: dE_i/dx_n so far (x, y, z) */
    double *part;   /* per-thread sums: HDG_GROUP_MAX rows of bd, then HDG_GROUP_MAX rows
                     * of hdg_folds (values); 3 rows of pcap (gradients: one column per
                     * item of hdg_split) */
    R *ir;          /* 1/r */
    R *fc;          /* 2 rows per cutoff c of the element: fc(r) at 2c, dfc/dr at 2c + 1 */
    R *ex;          /* maxneta rows: exp(-eta_u (r - rs)^2) of the current group's etas */
    int *el;        /* element */
    int ncap, pcap;
} HDG(hdg_shared);

/* Runs of HDG_FOLD threads in a block of bd */
PK_HD int HDG(hdg_folds)(int bd) { return (bd + HDG_FOLD - 1) / HDG_FOLD; }

/* Doubles of hdg_shared.part */
PK_HD size_t HDG(hdg_part_size)(int ncap, int bd)
{
    const size_t pv = (size_t)HDG_GROUP_MAX * (size_t)(bd + HDG(hdg_folds)(bd));
    const size_t pg = 3 * (size_t)hdg_split_cap(ncap, bd);
    return pv > pg ? pv : pg;
}

PK_HD size_t HDG(hdg_shared_bytes)(const hdg_model *m, int ncap, int bd)
{
    const size_t nc = ncap > 0 ? (size_t)ncap : 1;
    return sizeof(double) * (7 * nc + HDG(hdg_part_size)((int)nc, bd)) +
           sizeof(R) * nc * (1 + 2 * (size_t)m->maxcut + (size_t)m->maxneta) + sizeof(int) * nc;
}

/* The layout of hdg_shared_bytes at base (8-byte aligned): doubles, then R, then int. */
PK_HD HDG(hdg_shared) HDG(hdg_shared_at)(void *base, const hdg_model *m, int ncap, int bd)
{
    HDG(hdg_shared) sh;
    const size_t nc = ncap > 0 ? (size_t)ncap : 1;
    sh.ncap = (int)nc;
    sh.pcap = hdg_split_cap((int)nc, bd);
    sh.d = (double *)base;
    sh.gacc = sh.d + 4 * nc;
    sh.part = sh.gacc + 3 * nc;
    sh.ir = (R *)(sh.part + HDG(hdg_part_size)((int)nc, bd));
    sh.fc = sh.ir + nc;
    sh.ex = sh.fc + 2 * (size_t)m->maxcut * nc;
    sh.el = (int *)(sh.ex + (size_t)m->maxneta * nc);
    return sh;
}

/* Env entry q's distance vector and r as hdg_pair_in reads them */
PK_HD void HDG(hdg_entry)(const HDG(hdg_shared) *sh, int q, double d[4])
{
    for (int c = 0; c < 4; c++) d[c] = sh->d[(size_t)c * sh->ncap + q];
}

/* Phase 1: the centre's env entries into shared memory; gradient sums to 0. */
PK_HD void HDG(hdg_blk_load)(const hdg_step *s, int ii, const HDG(hdg_shared) *sh, int t,
                             int bd)
{
    const hdg_element *el = &s->m.el[s->elem[s->centre[ii]]];
    const int off = s->offset[ii], n = s->env_n[ii];
    const size_t nc = (size_t)sh->ncap;
    for (int q = t; q < n; q += bd) {
        const double *d = s->env_d + 4 * ((size_t)off + q);
        for (int c = 0; c < 4; c++) sh->d[c * nc + q] = d[c];
        for (int c = 0; c < 3; c++) sh->gacc[c * nc + q] = 0.0;
        const R r = (R)d[3];
        sh->ir[q] = (R)1 / r;
        sh->el[q] = s->env_el[off + q];
        for (int c = 0; c < el->ncut; c++)
            HDG(hdg_cutoff)(&s->m.cut[el->cut0 + c], r, &sh->fc[2 * c * nc + q],
                            &sh->fc[(2 * c + 1) * nc + q]);
    }
}

/* Phase 2 (per group): exp(-eta_u (r - rs)^2) of the group's distinct etas for the env
 * entries its pairs use (angular types 3, 9, 13; others have none). */
PK_HD void HDG(hdg_blk_exps)(const hdg_step *s, int ii, int g, const HDG(hdg_shared) *sh,
                             int t, int bd)
{
    const hdg_group *grp = hdg_blk_group(s, ii, g);
    if (grp->neta == 0) return;
    const int n = s->env_n[ii], weighted = hdg_type_weighted(grp->type);
    const size_t nc = (size_t)sh->ncap;
    const R rs = (R)grp->rs;
    for (int q = t; q < n; q += bd) {
        if (!weighted && sh->el[q] != grp->e1 && sh->el[q] != grp->e2) continue;
        const R dr = (R)sh->d[3 * nc + q] - rs;
        for (int u = 0; u < grp->neta; u++)
            sh->ex[u * nc + q] = HDG_EXP(-(R)grp->eta[u] * dr * dr);
    }
}

/* What pair (a, b) of an angular group shares among its functions, a in the role of
 * x_a - x_i (hdnnp_kernel.h's HDNNP_PAIR_*): cos, 1/r_a, 1/r_b, the weighted radial factor
 * F (fc(r_ab) included for narrow types), GA and GC, UC = 1 - rs/r_ab, and r_ab - rs. */
typedef struct {
    R cs, ia, ib, F, GA, GC, UC, drc;
} HDG(hdg_pair);

PK_HD void HDG(hdg_pair_at)(const HDG(hdg_shared) *sh, int a, int b, R w, int cl,
                            const hdnnp_cutoff *cu, int narrow, R rs, HDG(hdg_pair) *p)
{
    const size_t nc = (size_t)sh->ncap;
    const double *d = sh->d;
    const R ax = (R)d[a], ay = (R)d[nc + a], az = (R)d[2 * nc + a];
    const R bx = (R)d[b], by = (R)d[nc + b], bz = (R)d[2 * nc + b];
    const R ia = sh->ir[a], ib = sh->ir[b];
    const R *fc = sh->fc + 2 * (size_t)cl * nc, *dfc = fc + nc;
    p->cs = (ax * bx + ay * by + az * bz) * (ia * ib);
    p->ia = ia;
    p->ib = ib;
    R f = w * fc[a] * fc[b], gA = w * (dfc[a] * ia) * fc[b], gC = (R)0, uC = (R)0, drc = (R)0;
    if (narrow) {
        const R cx = bx - ax, cy = by - ay, cz = bz - az;
        const R rc = HDG_SQRT(cx * cx + cy * cy + cz * cz), ic = (R)1 / rc;
        R fcc, dfcc;
        HDG(hdg_cutoff)(cu, rc, &fcc, &dfcc);
        gC = f * dfcc * ic;
        uC = (R)1 - rs * ic;
        f *= fcc;
        gA = gA * fcc + gC;
        drc = rc - rs;
    }
    p->F = f;
    p->GA = gA;
    p->GC = gC;
    p->UC = uC;
    p->drc = drc;
}

/* exp(-eta_u S) of pair (a, b) for the group's distinct eta u: the neighbours' factors
 * (hdg_blk_exps) and, narrow types, that of r_ab. Members come ordered by eta, so a loop
 * over them calls this where eidx changes. */
PK_HD R HDG(hdg_pair_exp)(const HDG(hdg_shared) *sh, const hdg_group *grp, int u, int a, int b,
                          int narrow, const HDG(hdg_pair) *p)
{
    const size_t nc = (size_t)sh->ncap;
    const R e = sh->ex[u * nc + a] * sh->ex[u * nc + b];
    return narrow ? e * HDG_EXP(-(R)grp->eta[u] * p->drc * p->drc) : e;
}

/* Phase 3 (per group): thread t's sums of the group's terms, one per member, into part
 * (row m, column t). Radial: neighbours t, t + bd, ... of the group's range. Angular: pairs
 * t, t + bd, ... of the group's list: within one element list (or all neighbours, weighted
 * types) pair p is (j, j + s mod nj) with s = 1 + p / nj, j = p % nj, which lists each
 * unordered pair once (s up to nj / 2, the last row only for j < nj / 2); across two lists
 * pair p is (j0 + p / nk, k0 + p % nk). Each pair is evaluated with its lower entry first,
 * the order of the cpu backend's j < k. */
PK_HD void HDG(hdg_blk_values)(const hdg_step *s, int ii, int g, const HDG(hdg_shared) *sh,
                               int t, int bd)
{
    const hdg_element *el = &s->m.el[s->elem[s->centre[ii]]];
    const hdg_group *grp = hdg_blk_group(s, ii, g);
    const hdnnp_sf *sfs = s->m.sf + el->sf0;
    const int *mem = s->m.mem + grp->first, nsf = grp->nsf;
    const size_t nc = (size_t)sh->ncap;
    const int weighted = hdg_type_weighted(grp->type), compact = hdg_type_compact(grp->type);
    const hdnnp_cutoff *cu = &s->m.cut[grp->cut];
    const int cl = grp->cut - el->cut0;
    const R rs = (R)grp->rs;
    double acc[HDG_GROUP_MAX];
    PK_UNROLL(HDG_GROUP_MAX)
    for (int m = 0; m < HDG_GROUP_MAX; m++) acc[m] = 0.0;
    if (hdg_type_radial(grp->type)) {
        int q0, q1;
        hdg_range(s, ii, weighted, grp->e1, &q0, &q1);
        const R *fc = sh->fc + 2 * (size_t)cl * nc;
        for (int q = q0 + t; q < q1; q += bd) {
            const R dr = (R)sh->d[3 * nc + q] - rs;
            const R wfc = (weighted ? (R)s->m.z[sh->el[q]] : (R)1) * fc[q];
            PK_UNROLL(HDG_GROUP_MAX)
            for (int m = 0; m < HDG_GROUP_MAX; m++)
                if (m < nsf) acc[m] += (double)(wfc * HDG_EXP(-(R)sfs[mem[m]].eta * dr * dr));
        }
    } else {
        const int narrow = !hdg_type_wide(grp->type), same = weighted || grp->e1 == grp->e2;
        const int test_r = cu->rc < el->rcmax;
        int j0, j1, k0, k1;
        hdg_range(s, ii, weighted, grp->e1, &j0, &j1);
        hdg_range(s, ii, weighted, grp->e2, &k0, &k1);
        const int nj = j1 - j0, width = same ? nj : k1 - k0;
        const int npair = same ? nj * (nj - 1) / 2 : nj * width;
        /* pair p = row * width + col, walked in steps of bd without a division per pair */
        int row = width > 0 ? t / width : 0, col = width > 0 ? t % width : 0;
        const int drow = width > 0 ? bd / width : 0, dcol = width > 0 ? bd % width : 0;
        for (int p = t; p < npair; p += bd) {
            int j, k;
            if (same) {
                int kl = col + row + 1;
                if (kl >= nj) kl -= nj;
                j = j0 + (col < kl ? col : kl);
                k = j0 + (col < kl ? kl : col);
            } else {
                j = j0 + row;
                k = k0 + col;
            }
            row += drow;
            col += dcol;
            if (col >= width) {
                col -= width;
                row++;
            }
            double dj[4], dk[4];
            HDG(hdg_entry)(sh, j, dj);
            HDG(hdg_entry)(sh, k, dk);
            if (!hdg_pair_in(dj, dk, cu, narrow, compact, test_r)) continue;
            const R w = weighted ? (R)(s->m.z[sh->el[j]] * s->m.z[sh->el[k]]) : (R)1;
            HDG(hdg_pair) pr;
            HDG(hdg_pair_at)(sh, j, k, w, cl, cu, narrow, rs, &pr);
            R e = (R)0;   /* exp(-eta_u S) of the distinct eta u = ucur */
            int ucur = -1;
            PK_UNROLL(HDG_GROUP_MAX)
            for (int m = 0; m < HDG_GROUP_MAX; m++) {
                if (m >= nsf) continue;
                const hdnnp_sf *sf = &sfs[mem[m]];
                if (compact) {
                    R ca, dca;
                    HDG(hdg_angle_window)(sf, pr.cs, &ca, &dca);
                    acc[m] += (double)(pr.F * ca);
                    continue;
                }
                const R P = (R)1 + (R)sf->lambda * pr.cs;
                if (!(P > (R)0)) continue;
                if (grp->eidx[m] != ucur) {
                    ucur = grp->eidx[m];
                    e = HDG(hdg_pair_exp)(sh, grp, ucur, j, k, narrow, &pr);
                }
                const R Y = (R)sf->norm * e * HDG(hdg_pow_m1)(sf, P);
                acc[m] += (double)(Y * pr.F * P);
            }
        }
    }
    PK_UNROLL(HDG_GROUP_MAX)
    for (int m = 0; m < HDG_GROUP_MAX; m++) sh->part[(size_t)m * bd + t] = acc[m];
}

/* Phase 4 (per group): run c of member m's thread sums (threads c HDG_FOLD .. + HDG_FOLD) in
 * thread order, item v = m folds + c for v = t, t + bd, ... */
PK_HD void HDG(hdg_blk_values_fold)(const hdg_step *s, int ii, int g, const HDG(hdg_shared) *sh,
                                    int t, int bd)
{
    const hdg_group *grp = hdg_blk_group(s, ii, g);
    const int nf = HDG(hdg_folds)(bd);
    double *fold = sh->part + (size_t)HDG_GROUP_MAX * bd;
    for (int v = t; v < grp->nsf * nf; v += bd) {
        const int m = v / nf, c = v % nf;
        const int u1 = (c + 1) * HDG_FOLD < bd ? (c + 1) * HDG_FOLD : bd;
        const double *row = sh->part + (size_t)m * bd;
        double sum = 0.0;
        for (int u = c * HDG_FOLD; u < u1; u++) sum += row[u];
        fold[v] = sum;
    }
}

/* Phase 5 (per group): member m's raw value G, its runs in order. */
PK_HD void HDG(hdg_blk_values_sum)(const hdg_step *s, int ii, int g, const HDG(hdg_shared) *sh,
                                   int t, int bd)
{
    const hdg_group *grp = hdg_blk_group(s, ii, g);
    const int nf = HDG(hdg_folds)(bd);
    const double *fold = sh->part + (size_t)HDG_GROUP_MAX * bd;
    double *G = s->G + (size_t)s->m.maxnsf * ii;
    for (int m = t; m < grp->nsf; m += bd) {
        double v = 0.0;
        for (int c = 0; c < nf; c++) v += fold[(size_t)m * nf + c];
        G[s->m.mem[grp->first + m]] = v;
    }
}

/* Phase 3 (per group) of the gradients, c_s = dE/dG_s weights (hdg_step.C). Radial: the
 * thread of env entry n adds sum_s c_s dG_s/dx_n = d (x_n - x_i),
 * d = sum_s c_s w (fc' - 2 eta (r - rs) fc) exp(-eta (r - rs)^2) / r, to its sum. Angular:
 * item u = t, t + bd, ... of hdg_owners (an owner and a chunk of its partners) sums the
 * owner's dT/dx_n over the chunk into column u of part. */
PK_HD void HDG(hdg_blk_grad)(const hdg_step *s, int ii, int g, const HDG(hdg_shared) *sh,
                             int t, int bd)
{
    const hdg_element *el = &s->m.el[s->elem[s->centre[ii]]];
    const hdg_group *grp = hdg_blk_group(s, ii, g);
    const double *C = s->C + (size_t)s->m.maxnsf * ii;
    const hdnnp_sf *sfs = s->m.sf + el->sf0;
    const int *mem = s->m.mem + grp->first, nsf = grp->nsf;
    const size_t nc = (size_t)sh->ncap, pc = (size_t)sh->pcap;
    const int weighted = hdg_type_weighted(grp->type), compact = hdg_type_compact(grp->type);
    const int cl = grp->cut - el->cut0;
    const R rs = (R)grp->rs;
    if (hdg_type_radial(grp->type)) {
        int q0, q1;
        hdg_range(s, ii, weighted, grp->e1, &q0, &q1);
        const R *fc = sh->fc + 2 * (size_t)cl * nc, *dfc = fc + nc;
        for (int q = q0 + t; q < q1; q += bd) {
            const R dr = (R)sh->d[3 * nc + q] - rs, wz = weighted ? (R)s->m.z[sh->el[q]] : (R)1;
            double acc = 0.0;
            for (int m = 0; m < nsf; m++) {
                const R eta = (R)sfs[mem[m]].eta, e = wz * HDG_EXP(-eta * dr * dr);
                acc += C[mem[m]] * (double)((dfc[q] - (R)2 * eta * dr * fc[q]) * e * sh->ir[q]);
            }
            for (int c = 0; c < 3; c++) sh->gacc[c * nc + q] += acc * sh->d[c * nc + q];
        }
        return;
    }
    const hdnnp_cutoff *cu = &s->m.cut[grp->cut];
    const int narrow = !hdg_type_wide(grp->type), same = weighted || grp->e1 == grp->e2;
    const int test_r = cu->rc < el->rcmax;
    const hdg_split w = hdg_owners(s, ii, grp, sh->ncap, bd);
    for (int u = t; u < w.items; u += bd) {
        int j, kc0, kc1, first;
        hdg_item(s, ii, grp, &w, u, &j, &kc0, &kc1, &first);
        double dj[4], gx = 0.0, gy = 0.0, gz = 0.0;
        HDG(hdg_entry)(sh, j, dj);
        for (int k = kc0; k < kc1; k++) {
            if (k == j) continue;
            const int jfirst = same ? j < k : first;
            double dk[4];
            HDG(hdg_entry)(sh, k, dk);
            /* two calls rather than selected pointers: dj and dk stay in registers */
            if (jfirst ? !hdg_pair_in(dj, dk, cu, narrow, compact, test_r)
                       : !hdg_pair_in(dk, dj, cu, narrow, compact, test_r))
                continue;
            const R w = weighted ? (R)(s->m.z[sh->el[j]] * s->m.z[sh->el[k]]) : (R)1;
            HDG(hdg_pair) pr;
            HDG(hdg_pair_at)(sh, j, k, w, cl, cu, narrow, rs, &pr);
            /* uu = sum c dT/dcos / F, v = sum 2 c eta T / F, W = sum c T / F */
            double uu = 0.0, v = 0.0, W = 0.0;
            R e = (R)0;   /* exp(-eta_u S) of the distinct eta u = ucur */
            int ucur = -1;
            PK_UNROLL(HDG_GROUP_MAX)
            for (int m = 0; m < HDG_GROUP_MAX; m++) {
                if (m >= nsf) continue;
                const hdnnp_sf *sf = &sfs[mem[m]];
                const double c = C[mem[m]];
                if (compact) {
                    R ca, dca;
                    HDG(hdg_angle_window)(sf, pr.cs, &ca, &dca);
                    uu += c * (double)dca;
                    W += c * (double)ca;
                    continue;
                }
                const R P = (R)1 + (R)sf->lambda * pr.cs;
                if (!(P > (R)0)) continue;
                if (grp->eidx[m] != ucur) {
                    ucur = grp->eidx[m];
                    e = HDG(hdg_pair_exp)(sh, grp, ucur, j, k, narrow, &pr);
                }
                const R Y = (R)sf->norm * e * HDG(hdg_pow_m1)(sf, P);
                uu += c * sf->zeta * sf->lambda * (double)Y;
                v += c * 2.0 * sf->eta * (double)(Y * P);
                W += c * (double)(Y * P);
            }
            const double cs = pr.cs, ia = pr.ia, ib = pr.ib, F = pr.F, qf = F * uu;
            double A = -qf * cs * ia * ia + W * (double)pr.GA;
            double B = qf * ia * ib - W * (double)pr.GC;
            if (!compact) {
                const double T2 = F * v, uc = pr.UC;
                A -= T2 * (1.0 - (double)rs * ia + uc);
                B += T2 * uc;
            }
            gx += A * dj[0] + B * dk[0];
            gy += A * dj[1] + B * dk[1];
            gz += A * dj[2] + B * dk[2];
        }
        sh->part[u] = gx;
        sh->part[pc + u] = gy;
        sh->part[2 * pc + u] = gz;
    }
}

/* Phase 4 (per angular group): each owner's items added to its sum in chunk order. */
PK_HD void HDG(hdg_blk_grad_sum)(const hdg_step *s, int ii, int g, const HDG(hdg_shared) *sh,
                                 int t, int bd)
{
    const hdg_group *grp = hdg_blk_group(s, ii, g);
    if (hdg_type_radial(grp->type)) return;
    const size_t nc = (size_t)sh->ncap, pc = (size_t)sh->pcap;
    const hdg_split w = hdg_owners(s, ii, grp, sh->ncap, bd);
    for (int o = t; o < w.n1 + w.n2; o += bd) {
        int u0, stride, count, j, k0, k1, first;
        hdg_owner_items(&w, o, &u0, &stride, &count);
        if (count == 0) continue;
        hdg_item(s, ii, grp, &w, u0, &j, &k0, &k1, &first);
        for (int c = 0; c < count; c++)
            for (int q = 0; q < 3; q++)
                sh->gacc[q * nc + j] += sh->part[q * pc + (size_t)u0 + (size_t)c * stride];
    }
}

/* Last phase: dE_i/dx_n of every env entry to its list slot. */
PK_HD void HDG(hdg_blk_store)(const hdg_step *s, int ii, const HDG(hdg_shared) *sh, int t,
                              int bd)
{
    const int off = s->offset[ii], n = s->env_n[ii];
    const size_t nc = (size_t)sh->ncap;
    for (int q = t; q < n; q += bd) {
        double *out = s->g + 3 * (size_t)s->env_slot[off + q];
        for (int c = 0; c < 3; c++) out[c] = sh->gacc[c * nc + q];
    }
}
