/* Per-thread symmetry functions and gradients of the hdnnp/pk CUDA backend in one precision:
 * included by hdnnp_gpu.h once per precision with HDG_SUFFIX (_d, _f), HDG_REAL (the type of
 * the per-pair arithmetic) and its math functions defined; sums are double in both.
 *
 * The formulas are those of hdnnp_symfunc.c (definitions of every type, with the gradient
 * of one angular term T = Y F P written as dT/dx_j = A a + B b, a = x_j - x_i, b = x_k - x_i)
 * and of hdnnp_contract.c (the weights c_s of all functions of a group applied per pair
 * before A and B are formed). Here the pair is evaluated once by the thread of j (as a) and
 * once by the thread of k (as a, the roles exchanged): T is symmetric in j and k, so each
 * thread needs only its own A a + B b. */

#define HDG_CAT2(a, b) a##b
#define HDG_CAT(a, b) HDG_CAT2(a, b)
#define HDG(name) HDG_CAT(name, HDG_SUFFIX)
#define R HDG_REAL

/* hdnnp_core_fdf (the complements of the smoothstep polynomials, and exp(1 - 1/(1 - x^2))) */
PK_HD void HDG(hdg_core)(int core, R x, R *f, R *df)
{
    const R u = (R)1 - x, xu = x * u;
    switch (core) {
    case HDNNP_CORE_EXP: {
        const R t = (R)1 / ((x - (R)1) * (x + (R)1));
        *f = (R)HDG_E * HDG_EXP(t);
        *df = (R)-2 * x * t * t * *f;
        return;
    }
    case HDNNP_CORE_POLY1:
        *f = u * u * ((R)1 + (R)2 * x);
        *df = (R)-6 * xu;
        return;
    case HDNNP_CORE_POLY2:
        *f = u * u * u * ((R)1 + x * ((R)3 + (R)6 * x));
        *df = (R)-30 * xu * xu;
        return;
    case HDNNP_CORE_POLY3: {
        const R u2 = u * u;
        *f = u2 * u2 * ((R)1 + x * ((R)4 + x * ((R)10 + (R)20 * x)));
        *df = (R)-140 * xu * xu * xu;
        return;
    }
    case HDNNP_CORE_POLY4: {
        const R u2 = u * u, xu2 = xu * xu;
        *f = u2 * u2 * u * ((R)1 + x * ((R)5 + x * ((R)15 + x * ((R)35 + (R)70 * x))));
        *df = (R)-630 * xu2 * xu2;
        return;
    }
    default: *f = *df = (R)0; return;
    }
}

/* hdnnp_window_fdf: compact window on (lo, hi) with centre c and inverse half-width hw */
PK_HD void HDG(hdg_window)(int core, int asym, R lo, R hi, R c, R hw, R r, R *f, R *df)
{
    const R y = HDG_FABS(r - c) * hw;
    if (!(r > lo && r < hi) || y >= (R)1) {
        *f = *df = (R)0;
        return;
    }
    const R x = asym ? y * ((R)2 - y) : y;
    HDG(hdg_core)(core, x, f, df);
    *df *= (asym ? (R)2 - (R)2 * y : (R)1) * (r < c ? -hw : hw);
}

/* hdnnp_cutoff_fdf */
PK_HD void HDG(hdg_cutoff)(const hdnnp_cutoff *c, R r, R *f, R *df)
{
    if (c->type == HDNNP_CT_COMPACT) {
        HDG(hdg_window)(c->core, c->asym, (R)c->rl, (R)c->rc, (R)c->center, (R)c->hw, r, f, df);
        return;
    }
    if (r >= (R)c->rc) {
        *f = *df = (R)0;
        return;
    }
    switch (c->type) {
    case HDNNP_CT_HARD:
        *f = (R)1;
        *df = (R)0;
        return;
    case HDNNP_CT_TANHU:
    case HDNNP_CT_TANH: {   /* pre tanh^3(1 - r/rc) */
        const R e = HDG_EXP((R)-2 * ((R)1 - r * (R)c->irc));
        const R t = ((R)1 - e) / ((R)1 + e), t2 = t * t, pre = (R)c->pre;
        *f = pre * t * t2;
        *df = (R)3 * pre * t2 * (t2 - (R)1) * (R)c->irc;
        return;
    }
    default: break;
    }
    if (r < (R)c->rci) {
        *f = (R)1;
        *df = (R)0;
        return;
    }
    const R iw = (R)c->iw, x = (r - (R)c->rci) * iw;
    R fx, dfx;
    if (c->type == HDNNP_CT_COS) {
        fx = (R)0.5 * (HDG_COS((R)HDG_PI * x) + (R)1);
        dfx = (R)-0.5 * (R)HDG_PI * HDG_SIN((R)HDG_PI * x);
    } else {   /* EXP, POLY1-4: the core functions */
        const int core = c->type == HDNNP_CT_EXP
                             ? (int)HDNNP_CORE_EXP
                             : (int)HDNNP_CORE_POLY1 + ((int)c->type - (int)HDNNP_CT_POLY1);
        HDG(hdg_core)(core, x, &fx, &dfx);
    }
    *f = fx;
    *df = dfx * iw;
}

/* P^(zeta - 1) for P > 0 */
PK_HD R HDG(hdg_pow_m1)(const hdnnp_sf *sf, R P)
{
    if (!sf->int_pow || sf->zeta_int < 1) return HDG_POW(P, (R)(sf->zeta - 1.0));
    R y = (R)1;
    for (int k = 1; k < sf->zeta_int; k++) y *= P;
    return y;
}

/* What one pair (a = x_j - x_i, b = x_k - x_i) of an angular group shares among its
 * functions (hdnnp_kernel.h's HDNNP_PAIR_* for j in the role of a): cos, 1/r_a, 1/r_b, the
 * weighted radial factor F (fc(r_jk) included for narrow types), GA and GC, UC = 1 - rs/r_jk
 * and S = sum of (r - rs)^2. */
typedef struct {
    R cs, ia, ib, F, GA, GC, UC, S;
} HDG(hdg_pair);

PK_HD void HDG(hdg_pair_geom)(const double *da, const double *db, R w, const hdnnp_cutoff *cu,
                              int narrow, R rs, HDG(hdg_pair) *p)
{
    const R ax = (R)da[0], ay = (R)da[1], az = (R)da[2], ra = (R)da[3];
    const R bx = (R)db[0], by = (R)db[1], bz = (R)db[2], rb = (R)db[3];
    const R ia = (R)1 / ra, ib = (R)1 / rb;
    R fa, dfa, fb, dfb;
    HDG(hdg_cutoff)(cu, ra, &fa, &dfa);
    HDG(hdg_cutoff)(cu, rb, &fb, &dfb);
    p->cs = (ax * bx + ay * by + az * bz) * (ia * ib);
    p->ia = ia;
    p->ib = ib;
    R f = w * fa * fb, gA = w * (dfa * ia) * fb, gC = (R)0, uC = (R)0;
    R S = (ra - rs) * (ra - rs) + (rb - rs) * (rb - rs);
    if (narrow) {
        const R cx = bx - ax, cy = by - ay, cz = bz - az;
        const R rc = HDG_SQRT(cx * cx + cy * cy + cz * cz), ic = (R)1 / rc;
        R fcc, dfcc;
        HDG(hdg_cutoff)(cu, rc, &fcc, &dfcc);
        gC = f * dfcc * ic;
        uC = (R)1 - rs * ic;
        f *= fcc;
        gA = gA * fcc + gC;
        S += (rc - rs) * (rc - rs);
    }
    p->F = f;
    p->GA = gA;
    p->GC = gC;
    p->UC = uC;
    p->S = S;
}

/* Compact angular window of function sf at cos t: C_a and dC_a/dcos; 0 unless -1 < cos < 1
 * (n2p2 drops those terms: dt/dcos is infinite there). */
PK_HD void HDG(hdg_angle_window)(const hdnnp_sf *sf, R cs, R *ca, R *dca)
{
    *ca = *dca = (R)0;
    if (!(cs > (R)-1 && cs < (R)1)) return;
    R da;
    HDG(hdg_window)(sf->core, 0, (R)sf->rad_left, (R)sf->rad_right, (R)sf->rad_center,
                    (R)sf->rad_hw, HDG_ACOS(cs), ca, &da);
    *dca = da * ((R)-1 / HDG_SQRT((R)1 - cs * cs));
}

/* Part c of the raw values of the functions of group g (element-local index: radial groups
 * first, then angular) of centre ii (thread (ii, g, c) of the symmetry-function kernel): the
 * terms of neighbours (radial) or first pair members j (angular) c HDG_CHUNK, ... of the
 * group's range, the distances or the pair geometry once, then every member, into the
 * chunk's HDG_GROUP_MAX sums in part. Threads past the element's groups do nothing. */
PK_HD void HDG(hdg_symfuncs)(const hdg_step *s, int ii, int g, int c)
{
    const int ce = s->elem[s->centre[ii]];
    if (ce < 0) return;
    const hdg_element *el = &s->m.el[ce];
    if (g >= el->nradial + el->nangular) return;
    const hdg_group *grp = &s->m.grp[el->radial0 + g];
    const hdnnp_sf *sfs = s->m.sf + el->sf0;
    const int *mem = s->m.mem + grp->first, nsf = grp->nsf, n = s->env_n[ii];
    double acc[HDG_GROUP_MAX];
    PK_UNROLL(HDG_GROUP_MAX)
    for (int m = 0; m < HDG_GROUP_MAX; m++) acc[m] = 0.0;
    const hdnnp_cutoff *cu = &s->m.cut[grp->cut];
    const int off = s->offset[ii], *start = s->env_start + (size_t)HDG_START_STRIDE * ii;
    const double *d = s->env_d + 4 * (size_t)off;
    const int *eel = s->env_el + off;
    const int weighted = hdg_type_weighted(grp->type), compact = hdg_type_compact(grp->type);
    const R rs = (R)grp->rs;
    if (n > 0 && hdg_type_radial(grp->type)) {
        const int n0 = weighted ? 0 : start[grp->e1], n1 = weighted ? n : start[grp->e1 + 1];
        const int c0 = n0 + c * HDG_CHUNK, c1 = c0 + HDG_CHUNK < n1 ? c0 + HDG_CHUNK : n1;
        for (int k = c0; k < c1; k++) {
            const R r = (R)d[4 * k + 3], dr = r - rs;
            R fc, dfc;
            HDG(hdg_cutoff)(cu, r, &fc, &dfc);
            const R wfc = (weighted ? (R)s->m.z[eel[k]] : (R)1) * fc;
            PK_UNROLL(HDG_GROUP_MAX)
            for (int m = 0; m < HDG_GROUP_MAX; m++)
                if (m < nsf) acc[m] += (double)(wfc * HDG_EXP(-(R)sfs[mem[m]].eta * dr * dr));
        }
    } else if (n > 0) {
        const int narrow = !hdg_type_wide(grp->type), same = weighted || grp->e1 == grp->e2;
        const int test_r = cu->rc < el->rcmax;
        const int j0 = weighted ? 0 : start[grp->e1], j1 = weighted ? n : start[grp->e1 + 1];
        const int k0 = weighted ? 0 : start[grp->e2], k1 = weighted ? n : start[grp->e2 + 1];
        const int c0 = j0 + c * HDG_CHUNK, c1 = c0 + HDG_CHUNK < j1 ? c0 + HDG_CHUNK : j1;
        for (int j = c0; j < c1; j++)
            for (int k = same ? j + 1 : k0; k < k1; k++) {
                if (!hdg_pair_in(d + 4 * j, d + 4 * k, cu, narrow, compact, test_r)) continue;
                const R w = weighted ? (R)(s->m.z[eel[j]] * s->m.z[eel[k]]) : (R)1;
                HDG(hdg_pair) p;
                HDG(hdg_pair_geom)(d + 4 * j, d + 4 * k, w, cu, narrow, rs, &p);
                PK_UNROLL(HDG_GROUP_MAX)
                for (int m = 0; m < HDG_GROUP_MAX; m++) {
                    if (m >= nsf) continue;
                    const hdnnp_sf *sf = &sfs[mem[m]];
                    if (compact) {
                        R ca, dca;
                        HDG(hdg_angle_window)(sf, p.cs, &ca, &dca);
                        acc[m] += (double)(p.F * ca);
                        continue;
                    }
                    const R P = (R)1 + (R)sf->lambda * p.cs;
                    if (!(P > (R)0)) continue;
                    acc[m] += (double)((R)sf->norm * HDG_EXP(-(R)sf->eta * p.S) *
                                       HDG(hdg_pow_m1)(sf, P) * p.F * P);
                }
            }
    }
    double *part = s->part + HDG_GROUP_MAX * hdg_chunk_index(s, ii, g, c);
    PK_UNROLL(HDG_GROUP_MAX)
    for (int m = 0; m < HDG_GROUP_MAX; m++) part[m] = acc[m];
}

/* dE_i/dx_n of env entry p (thread p of the gradient kernel; entries past the centre's
 * environment do nothing): sum_s c_s dG_s/dx_n into g at the entry's list slot. */
PK_HD void HDG(hdg_grad)(const hdg_step *s, int p)
{
    const int ii = s->slot_centre[p], off = s->offset[ii], n = s->env_n[ii], t = p - off;
    if (t >= n) return;   /* also n <= 0 */
    const hdg_element *el = &s->m.el[s->elem[s->centre[ii]]];
    const double *C = s->C + (size_t)s->m.maxnsf * ii, *d = s->env_d + 4 * (size_t)off;
    const hdnnp_sf *sfs = s->m.sf + el->sf0;
    const int *eel = s->env_el + off, *start = s->env_start + (size_t)HDG_START_STRIDE * ii;
    const int en = eel[t];
    const double *dn = d + 4 * t;
    const R r = (R)dn[3];
    /* radial: dG_s/dx_n = d_s (x_n - x_i),
     * d_s = w (fc' - 2 eta (r - rs) fc) exp(-eta (r - rs)^2) / r */
    double acc = 0.0;
    for (int g = 0; g < el->nradial; g++) {
        const hdg_group *grp = &s->m.grp[el->radial0 + g];
        const int weighted = hdg_type_weighted(grp->type);
        if (!weighted && grp->e1 != en) continue;
        R fc, dfc;
        HDG(hdg_cutoff)(&s->m.cut[grp->cut], r, &fc, &dfc);
        const R dr = r - (R)grp->rs, wz = weighted ? (R)s->m.z[en] : (R)1;
        for (int m = 0; m < grp->nsf; m++) {
            const int q = s->m.mem[grp->first + m];
            const R eta = (R)sfs[q].eta, e = wz * HDG_EXP(-eta * dr * dr);
            acc += C[q] * (double)((dfc - (R)2 * eta * dr * fc) * e / r);
        }
    }
    double gx = acc * dn[0], gy = acc * dn[1], gz = acc * dn[2];
    /* angular: the pairs (n, k) of every group n belongs to */
    for (int g = 0; g < el->nangular; g++) {
        const hdg_group *grp = &s->m.grp[el->angular0 + g];
        const int weighted = hdg_type_weighted(grp->type), compact = hdg_type_compact(grp->type);
        const int same = weighted || grp->e1 == grp->e2;
        int k0, k1, first;   /* partners, and whether n comes first in the group's order */
        if (weighted) {
            k0 = 0;
            k1 = n;
            first = 1;
        } else if (en == grp->e1) {
            k0 = start[grp->e2];
            k1 = start[grp->e2 + 1];
            first = 1;
        } else if (en == grp->e2) {
            k0 = start[grp->e1];
            k1 = start[grp->e1 + 1];
            first = 0;
        } else {
            continue;
        }
        const hdnnp_cutoff *cu = &s->m.cut[grp->cut];
        const int narrow = !hdg_type_wide(grp->type), test_r = cu->rc < el->rcmax;
        const R rs = (R)grp->rs;
        for (int k = k0; k < k1; k++) {
            if (k == t) continue;
            const int nfirst = same ? t < k : first;
            const double *dj = nfirst ? dn : d + 4 * k, *dk = nfirst ? d + 4 * k : dn;
            if (!hdg_pair_in(dj, dk, cu, narrow, compact, test_r)) continue;
            const R w = weighted ? (R)(s->m.z[en] * s->m.z[eel[k]]) : (R)1;
            HDG(hdg_pair) pr;
            HDG(hdg_pair_geom)(dn, d + 4 * k, w, cu, narrow, rs, &pr);
            /* u = sum c dT/dcos / F, v = sum 2 c eta T / F, W = sum c T / F */
            double u = 0.0, v = 0.0, W = 0.0;
            for (int m = 0; m < grp->nsf; m++) {
                const int q = s->m.mem[grp->first + m];
                const hdnnp_sf *sf = &sfs[q];
                if (compact) {
                    R ca, dca;
                    HDG(hdg_angle_window)(sf, pr.cs, &ca, &dca);
                    u += C[q] * (double)dca;
                    W += C[q] * (double)ca;
                    continue;
                }
                const R P = (R)1 + (R)sf->lambda * pr.cs;
                if (!(P > (R)0)) continue;
                const R Y = (R)sf->norm * HDG_EXP(-(R)sf->eta * pr.S) * HDG(hdg_pow_m1)(sf, P);
                u += C[q] * sf->zeta * sf->lambda * (double)Y;
                v += C[q] * 2.0 * sf->eta * (double)(Y * P);
                W += C[q] * (double)(Y * P);
            }
            const double cs = pr.cs, ia = pr.ia, ib = pr.ib, F = pr.F, qf = F * u;
            double A = -qf * cs * ia * ia + W * (double)pr.GA;
            double B = qf * ia * ib - W * (double)pr.GC;
            if (!compact) {
                const double T2 = F * v, uc = pr.UC;
                A -= T2 * (1.0 - (double)rs * ia + uc);
                B += T2 * uc;
            }
            const double *db = d + 4 * k;
            gx += A * dn[0] + B * db[0];
            gy += A * dn[1] + B * db[1];
            gz += A * dn[2] + B * db[2];
        }
    }
    double *out = s->g + 3 * (size_t)s->env_slot[p];
    out[0] = gx;
    out[1] = gy;
    out[2] = gz;
}

#undef R
#undef HDG
#undef HDG_SUFFIX
#undef HDG_REAL
#undef HDG_EXP
#undef HDG_SQRT
#undef HDG_POW
#undef HDG_ACOS
#undef HDG_COS
#undef HDG_SIN
#undef HDG_FABS
