/* The per-lane pair code of amoeba/pk's gather kernels (amoeba_gpu_pair.h) in one precision:
 * included once per precision by amoeba_gpu_precisions.h, with AGB(name) the name with the
 * precision's suffix (_d, _f), AGR the type of the per-pair arithmetic (double, float) and
 * AG_SQRT, AG_EXP its functions. Positions are subtracted in double before the separation is
 * rounded to AGR ("positions relative in double"); every sum over pairs is double in both. */

/* Entry e of a list by row: the row's own end i, the partner k, the pair's 1-n class, and
 * r = x_k - x_i (subtracted in double, then rounded to AGR) with r^2. */
typedef struct {
    int i, k, cls;
    AGR r[3], r2;
} AGB(amoeba_gpu_pair);

PK_HD AGB(amoeba_gpu_pair) AGB(amoeba_gpu_pair_at)(const amoeba_gpu_list *l, const double *x,
                                                    int e)
{
    AGB(amoeba_gpu_pair) p;
    const int other = l->other[e];
    p.i = l->self[e] & AMOEBA_GPU_INDEX_MASK;
    p.k = other & AMOEBA_GPU_INDEX_MASK;
    p.cls = (int)((unsigned)other >> AMOEBA_GPU_CLASS_SHIFT);
    const double *xi = x + 3 * (size_t)p.i, *xk = x + 3 * (size_t)p.k;
    for (int c = 0; c < 3; c++) p.r[c] = (AGR)(xk[c] - xi[c]);
    p.r2 = p.r[0] * p.r[0] + p.r[1] * p.r[1] + p.r[2] * p.r[2];
    return p;
}

/* Thole damping of types ti and tk at distance r (amoeba_thole_damp): *a = min(thole_i,
 * thole_k) (r / (pdamp_i pdamp_k))^3 and *ea = e^-a, both 0 where undamped (pdamp 0, or
 * a >= 50: every factor is 1 to double precision). */
PK_HD void AGB(amoeba_gpu_thole)(const double *pdamp, const double *thole, int ti, int tk,
                                 AGR r, AGR *a, AGR *ea)
{
    const AGR dd = (AGR)pdamp[ti] * (AGR)pdamp[tk];
    const AGR th = (AGR)(thole[ti] < thole[tk] ? thole[ti] : thole[tk]);
    *a = *ea = (AGR)0.0;
    if (dd != (AGR)0.0) {
        const AGR u = r / dd, au = th * u * u * u;
        if (au < (AGR)50.0) {
            *a = au;
            *ea = AG_EXP(-au);
        }
    }
}

/* Lane `lane` of row a's HAL results: the force on its sites (the host shares it between an
 * H and its partner), half its pairs' tapered energy and virial. */
PK_HD void AGB(amoeba_gpu_hal_row)(const amoeba_gpu_hal *g, int a, int lane,
                                    double out[AG_OUT])
{
    for (int c = 0; c < AG_OUT; c++) out[c] = 0.0;
    const AGR dh = g->dhal, gh = g->ghal;
    const AGR start = (AGR)g->start, iw = (AGR)g->inv_width;
    for (int e = g->list.offset[a] + lane; e < g->list.offset[a + 1]; e += AG_LANES) {
        const AGB(amoeba_gpu_pair) p = AGB(amoeba_gpu_pair_at)(&g->list, g->site, e);
        const AGR rx = p.r[0], ry = p.r[1], rz = p.r[2], r2 = p.r2, r = AG_SQRT(r2);
        const int t = g->cls[p.i] * g->ncls + g->cls[p.k];
        const AGR v = g->radmin[t], eps = g->epsmix[t] * g->vdw_scale[p.cls];
        /* E = eps tau^7 rv^7 ((1+g) s7 - 2), tau = (1+d) / (r + d rv),
         * s7 = rv^7 / (r^7 + g rv^7) (amoeba_hal.c) */
        const AGR rv2 = v * v, rv7 = rv2 * rv2 * rv2 * v;
        const AGR r6 = r2 * r2 * r2;
        const AGR s7 = rv7 / (r6 * r + gh * rv7), inv_a = (AGR)1.0 / (r + dh * v);
        const AGR tau = (dh + (AGR)1.0) * inv_a;
        const AGR tau2 = tau * tau, tau7 = tau2 * tau2 * tau2 * tau;
        const AGR en = eps * tau7 * rv7 * ((gh + (AGR)1.0) * s7 - (AGR)2.0);
        const AGR de = -(AGR)7.0 * (inv_a * en + eps * tau7 * r6 * (gh + (AGR)1.0) * s7 * s7);
        AGR sw = (AGR)1.0, gr = de / r;
        if (r2 > g->cut2) {
            /* the 5th-order taper: Tinker's S(r) = sum c_k r^k (amoeba_taper_eval), as the cpu
             * backend evaluates it, in double; in float as the same quintic 1 - 10 x^3 +
             * 15 x^4 - 6 x^5 of x = (r - start) / width, since in powers of r ~ 7 A the terms
             * reach ~1e5 and cancel to S <= 1, beyond float's precision */
            AGR dsw;
            if (sizeof(AGR) == sizeof(double)) {
                const double *c = g->c;
                dsw = (((5.0 * c[5] * r + 4.0 * c[4]) * r + 3.0 * c[3]) * r + 2.0 * c[2]) * r +
                      c[1];
                sw = ((((c[5] * r + c[4]) * r + c[3]) * r + c[2]) * r + c[1]) * r + c[0];
            } else {
                const AGR x = (r - start) * iw, y = (AGR)1.0 - x;
                dsw = -(AGR)30.0 * x * x * y * y * iw;
                sw = (AGR)1.0 - x * x * x * ((AGR)10.0 - x * ((AGR)15.0 - (AGR)6.0 * x));
            }
            gr = (en * dsw + de * sw) / r;
        }
        /* the force on k's site is -gr r; a's is +gr r */
        const AGR gx = -gr * rx, gy = -gr * ry, gz = -gr * rz;
        out[AG_F + 0] -= gx;
        out[AG_F + 1] -= gy;
        out[AG_F + 2] -= gz;
        out[AG_E] += (AGR)0.5 * (en * sw);
        out[AG_V + 0] += (AGR)0.5 * (rx * gx);
        out[AG_V + 1] += (AGR)0.5 * (ry * gy);
        out[AG_V + 2] += (AGR)0.5 * (rz * gz);
        out[AG_V + 3] += (AGR)0.5 * (rx * gy);
        out[AG_V + 4] += (AGR)0.5 * (rx * gz);
        out[AG_V + 5] += (AGR)0.5 * (ry * gz);
    }
}

/* A site's charge, dipole and the six distinct quadrupole components xx xy xz yy yz zz. */
typedef struct {
    AGR c, d[3], q[6];
} AGB(amoeba_gpu_site);

PK_HD AGB(amoeba_gpu_site) AGB(amoeba_gpu_site_of)(const double *p)
{
    AGB(amoeba_gpu_site) s = {(AGR)p[0],
                              {(AGR)p[1], (AGR)p[2], (AGR)p[3]},
                              {(AGR)p[4], (AGR)p[5], (AGR)p[6], (AGR)p[8], (AGR)p[9], (AGR)p[12]}};
    return s;
}

/* out = Q v for the symmetric Q of six components */
PK_HD void AGB(amoeba_gpu_qmul)(const AGR *q, const AGR v[3], AGR out[3])
{
    out[0] = q[0] * v[0] + q[1] * v[1] + q[2] * v[2];
    out[1] = q[1] * v[0] + q[3] * v[1] + q[4] * v[2];
    out[2] = q[2] * v[0] + q[4] * v[1] + q[5] * v[2];
}

PK_HD AGR AGB(amoeba_gpu_dot)(const AGR a[3], const AGR b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

PK_HD void AGB(amoeba_gpu_cross)(const AGR a[3], const AGR b[3], AGR c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Half of a pair's virial r (x) f, r = x_k - x_i and f the force on k (xx yy zz xy xz yz,
 * the off-diagonal terms symmetrised), added to v: each atom of the pair counts one half,
 * as the cpu kernels tally it. */
PK_HD void AGB(amoeba_gpu_half_virial)(const AGR r[3], const AGR f[3], double v[6])
{
    v[0] += (AGR)0.5 * (r[0] * f[0]);
    v[1] += (AGR)0.5 * (r[1] * f[1]);
    v[2] += (AGR)0.5 * (r[2] * f[2]);
    v[3] += (AGR)0.5 * ((AGR)0.5 * (r[1] * f[0] + r[0] * f[1]));
    v[4] += (AGR)0.5 * ((AGR)0.5 * (r[2] * f[0] + r[0] * f[2]));
    v[5] += (AGR)0.5 * ((AGR)0.5 * (r[2] * f[1] + r[1] * f[2]));
}

/* One pair i, k (r = x_k - x_i, radial kernels b[n] = (2n-1)!! fscale / r^(2n+1)): the
 * energy, the force on k and the torque on k — the "term" form of Ren & Ponder 2003,
 * eq. 5-7, and Tinker's emreal1d torques, as amoeba_mpole_pair derives them. */
PK_HD AGR AGB(amoeba_gpu_mpole_pair)(const AGB(amoeba_gpu_site) *si, const AGB(amoeba_gpu_site) *sk,
                                   const AGR r[3], const AGR b[6], AGR frc[3],
                                   AGR tk[3])
{
    const AGR *di = si->d, *dk = sk->d, *a = si->q, *c = sk->q;
    AGR qi[3], qk[3];
    AGB(amoeba_gpu_qmul)(a, r, qi);
    AGB(amoeba_gpu_qmul)(c, r, qk);
    const AGR dir = AGB(amoeba_gpu_dot)(di, r), dkr = AGB(amoeba_gpu_dot)(dk, r);
    const AGR qir = AGB(amoeba_gpu_dot)(qi, r), qkr = AGB(amoeba_gpu_dot)(qk, r);
    const AGR dik = AGB(amoeba_gpu_dot)(di, dk), qik = AGB(amoeba_gpu_dot)(qi, qk);
    const AGR diqk = AGB(amoeba_gpu_dot)(di, qk), dkqi = AGB(amoeba_gpu_dot)(dk, qi);
    const AGR qq = a[0] * c[0] + a[3] * c[3] + a[5] * c[5] +
                      (AGR)2.0 * (a[1] * c[1] + a[2] * c[2] + a[4] * c[4]);   /* Qi:Qk */
    const AGR t1 = si->c * sk->c;
    const AGR t2 = sk->c * dir - si->c * dkr + dik;
    const AGR t3 = si->c * qkr + sk->c * qir - dir * dkr + (AGR)2.0 * (dkqi - diqk + qq);
    const AGR t4 = dir * qkr - dkr * qir - (AGR)4.0 * qik;
    const AGR t5 = qir * qkr;
    const AGR e = t1 * b[0] + t2 * b[1] + t3 * b[2] + t4 * b[3] + t5 * b[4];
    /* -dE/dr = de r + g1 di + g2 dk + Qk U + Qi W (amoeba_mpole.c) */
    const AGR de = t1 * b[1] + t2 * b[2] + t3 * b[3] + t4 * b[4] + t5 * b[5];
    const AGR g1 = -sk->c * b[1] + dkr * b[2] - qkr * b[3];
    const AGR g2 = si->c * b[1] + dir * b[2] + qir * b[3];
    const AGR g3 = (AGR)2.0 * b[2];
    const AGR g4 = (AGR)2.0 * (-sk->c * b[2] + dkr * b[3] - qkr * b[4]);
    const AGR g5 = (AGR)2.0 * (-si->c * b[2] - dir * b[3] - qir * b[4]);
    const AGR g6 = (AGR)4.0 * b[3];
    AGR u[3], uu[3], ww[3], qku[3], qiw[3], p2[3];
    for (int d = 0; d < 3; d++) {
        u[d] = g3 * di[d] + g6 * qi[d];
        uu[d] = u[d] + g5 * r[d];
        ww[d] = g6 * qk[d] - g3 * dk[d] + g4 * r[d];
        p2[d] = g2 * dk[d];
    }
    AGB(amoeba_gpu_qmul)(c, uu, qku);
    AGB(amoeba_gpu_qmul)(a, ww, qiw);
    for (int d = 0; d < 3; d++) frc[d] = de * r[d] + g1 * di[d] + p2[d] + qku[d] + qiw[d];
    /* tk = dk x (-B1 di - g3 Qi r) + Qk r x u + 2 g3 axial(Qi Qk) - r x (g2 dk + Qk U) */
    const AGR ax[3] = {a[1] * c[2] - a[2] * c[1] + (a[3] - a[5]) * c[4] + a[4] * (c[5] - c[3]),
                          a[4] * c[1] - a[1] * c[4] + (a[5] - a[0]) * c[2] + a[2] * (c[0] - c[5]),
                          a[2] * c[4] - a[4] * c[2] + (a[0] - a[3]) * c[1] + a[1] * (c[3] - c[0])};
    AGR v1[3], v2[3], x1[3], x2[3], x3[3];
    for (int d = 0; d < 3; d++) {
        v1[d] = -b[1] * di[d] - g3 * qi[d];
        v2[d] = p2[d] + qku[d];
    }
    AGB(amoeba_gpu_cross)(dk, v1, x1);
    AGB(amoeba_gpu_cross)(qk, u, x2);
    AGB(amoeba_gpu_cross)(r, v2, x3);
    for (int d = 0; d < 3; d++) tk[d] = x1[d] + x2[d] - x3[d] + (AGR)2.0 * g3 * ax[d];
    return e;
}

/* Lane `lane` of row a's multipole results: with the row's end as i, each pair's force on i
 * (-frc), torque on i (-tk - r x frc: the pair's energy is invariant under rotating it as a
 * whole), half the energy and half the virial r (x) frc, symmetrised. In SMOOTH mode the
 * charge-charge part is shifted, qq/r -> qq (1/r - 1/R + (r - R)/R^2), and the whole pair
 * switched by S(r) (amoeba_mpole.c, mpole_simd_pair). */
PK_HD void AGB(amoeba_gpu_mpole_row)(const amoeba_gpu_mpole *g, int a, int lane,
                                      double out[AG_OUT])
{
    for (int c = 0; c < AG_OUT; c++) out[c] = 0.0;
    for (int e = g->list.offset[a] + lane; e < g->list.offset[a + 1]; e += AG_LANES) {
        const AGB(amoeba_gpu_pair) p = AGB(amoeba_gpu_pair_at)(&g->list, g->x, e);
        const AGR *r = p.r, r2 = p.r2;
        if (!(r2 <= g->cut2)) continue;
        const AGB(amoeba_gpu_site) si = AGB(amoeba_gpu_site_of)(g->rpole + 13 * (size_t)p.i);
        const AGB(amoeba_gpu_site) sk = AGB(amoeba_gpu_site_of)(g->rpole + 13 * (size_t)p.k);
        const AGR ir = (AGR)1.0 / AG_SQRT(r2), ir2 = ir * ir, fs = g->fscale[p.cls];
        AGR bn[6], frc[3], tk[3];
        bn[0] = fs * ir;
        for (int n = 1; n < 6; n++) bn[n] = (2 * n - 1) * bn[n - 1] * ir2;
        AGR en = AGB(amoeba_gpu_mpole_pair)(&si, &sk, r, bn, frc, tk);
        if (g->smooth) {
            const AGR rr = r2 * ir, qq = fs * si.c * sk.c;
            const AGR Rc = g->R, iR2 = g->iR2, iw = g->iw, start = g->start;
            const AGR es = en - qq * ((AGR)2.0 * Rc - rr) * iR2;
            const AGR xs = (rr - start) * iw, x = xs > (AGR)0.0 ? xs : (AGR)0.0;
            const AGR sr = (AGR)1.0 - x * x * x * ((AGR)10.0 - x * ((AGR)15.0 - (AGR)6.0 * x));
            const AGR y = (AGR)1.0 - x, dsdr = -(AGR)30.0 * x * x * y * y * iw;
            const AGR radial = -(sr * qq * iR2 + es * dsdr) * ir;
            for (int d = 0; d < 3; d++) {
                frc[d] = sr * frc[d] + radial * r[d];
                tk[d] *= sr;
            }
            en = sr * es;
        }
        AGR rxf[3];
        AGB(amoeba_gpu_cross)(r, frc, rxf);
        for (int d = 0; d < 3; d++) {
            out[AG_F + d] -= frc[d];
            out[AG_T + d] -= tk[d] + rxf[d];
        }
        out[AG_E] += (AGR)0.5 * en;
        AGB(amoeba_gpu_half_virial)(r, frc, out + AG_V);
    }
}

/* A point dipole p at i with the multipole site m at k (r = x_k - x_i), kernels b[0..3] =
 * B_1..B_4: the force on k, the torque on k's site, the energy (amoeba_polar.c,
 * dipole_multipole). */
PK_HD AGR AGB(amoeba_gpu_dipole_multipole)(const AGR p[3], const AGB(amoeba_gpu_site) *m,
                                         const AGR r[3], const AGR b[4], AGR f[3],
                                         AGR t[3])
{
    AGR qk[3], qkp[3];
    AGB(amoeba_gpu_qmul)(m->q, r, qk);
    AGB(amoeba_gpu_qmul)(m->q, p, qkp);
    const AGR dir = AGB(amoeba_gpu_dot)(p, r), dkr = AGB(amoeba_gpu_dot)(m->d, r);
    const AGR qkr = AGB(amoeba_gpu_dot)(qk, r), dik = AGB(amoeba_gpu_dot)(p, m->d);
    const AGR diqk = AGB(amoeba_gpu_dot)(p, qk);
    const AGR t2 = m->c * dir + dik, t3 = -dir * dkr - (AGR)2.0 * diqk, t4 = dir * qkr;
    const AGR de = t2 * b[1] + t3 * b[2] + t4 * b[3];
    const AGR g1 = -m->c * b[0] + dkr * b[1] - qkr * b[2];
    const AGR g2 = dir * b[1], g3 = (AGR)2.0 * b[1], g5 = -(AGR)2.0 * dir * b[2];
    /* w = g2 d + g3 Q p + g5 Q r; f = de r + g1 p + w; t = p x (b1 d - g3 Q r) - r x w */
    AGR w[3], v[3], pxv[3], rxw[3];
    for (int d = 0; d < 3; d++) {
        w[d] = (g2 * m->d[d] + g3 * qkp[d]) + g5 * qk[d];
        f[d] = (de * r[d] + g1 * p[d]) + w[d];
        v[d] = b[0] * m->d[d] - g3 * qk[d];
    }
    AGB(amoeba_gpu_cross)(p, v, pxv);
    AGB(amoeba_gpu_cross)(r, w, rxw);
    for (int d = 0; d < 3; d++) t[d] = pxv[d] - rxw[d];
    return t2 * b[0] + t3 * b[1] + t4 * b[2];
}

/* Point dipoles p at i and q at k: the force on k (no torque), the energy (dipole_dipole). */
PK_HD AGR AGB(amoeba_gpu_dipole_dipole)(const AGR p[3], const AGR q[3], const AGR r[3],
                                      const AGR b[4], AGR f[3])
{
    const AGR dir = AGB(amoeba_gpu_dot)(p, r), dkr = AGB(amoeba_gpu_dot)(q, r);
    const AGR dik = AGB(amoeba_gpu_dot)(p, q);
    const AGR de = dik * b[1] - dir * dkr * b[2];
    for (int d = 0; d < 3; d++) f[d] = (de * r[d] + dkr * b[1] * p[d]) + dir * b[1] * q[d];
    return dik * b[0] - dir * dkr * b[1];
}

/* Lane `lane` of row a's polarization results: with the row's end as i, each pair's force on
 * i (-frc), the torque on i's site and half the virial r (x) frc, symmetrised (no energy: the
 * host computes it from the dipoles). The pair: u_p in the d field and u_d in the p field as
 * one dipole per site, with the other's multipoles, both ways, and u_p with u_d under the
 * mutual scale; Thole-damped kernels l3/r^3 .. 105 l9/r^9 (amoeba_polar.c,
 * polar_pairs_mode). */
PK_HD void AGB(amoeba_gpu_polar_row)(const amoeba_gpu_polar *g, int a, int lane,
                                      double out[AG_OUT])
{
    for (int c = 0; c < AG_OUT; c++) out[c] = 0.0;
    const double *u = g->u;
    for (int e = g->list.offset[a] + lane; e < g->list.offset[a + 1]; e += AG_LANES) {
        const AGB(amoeba_gpu_pair) p = AGB(amoeba_gpu_pair_at)(&g->list, g->x, e);
        const AGR *r = p.r, r2 = p.r2;
        if (!(r2 <= g->cut2)) continue;
        const int i = p.i, k = p.k, sc = p.cls;
        const AGR mr[3] = {-r[0], -r[1], -r[2]};
        AGR ua[6], uk[6];
        for (int c = 0; c < 6; c++) {
            ua[c] = (AGR)u[6 * (size_t)i + c];
            uk[c] = (AGR)u[6 * (size_t)k + c];
        }
        const AGB(amoeba_gpu_site) mi = AGB(amoeba_gpu_site_of)(g->rpole + 13 * (size_t)i);
        const AGR rr = AG_SQRT(r2), ir = (AGR)1.0 / rr, ir2 = ir * ir;
        const int same = g->amgroup[k] == g->amgroup[i];
        const AGR ds = same ? g->d11 : (AGR)1.0, ps = same ? g->intra[sc] : g->pscale[sc];
        const AGR us = same ? g->u11 : g->u1;
        AGR aa, ea;
        AGB(amoeba_gpu_thole)(g->pdamp, g->thole, g->amtype[i], g->amtype[k], rr, &aa, &ea);
        const AGR a2 = aa * aa;
        const AGR l3 = (AGR)1.0 - ea, l5 = (AGR)1.0 - ea * ((AGR)1.0 + aa);
        const AGR l7 = (AGR)1.0 - ea * ((AGR)1.0 + aa + (AGR)0.6 * a2);
        const AGR l9 =
            (AGR)1.0 - ea * ((AGR)1.0 + aa + ((AGR)18.0 / (AGR)35.0) * a2 +
                             ((AGR)9.0 / (AGR)35.0) * a2 * aa);
        const AGR hf = g->hf, rr3 = hf * ir * ir2, rr5 = (AGR)3.0 * rr3 * ir2;
        const AGR rr7 = (AGR)5.0 * rr5 * ir2, rr9 = (AGR)7.0 * rr7 * ir2;
        const AGR kb[4] = {l3 * rr3, l5 * rr5, l7 * rr7, l9 * rr9};
        const AGR ku[4] = {us * kb[0], us * kb[1], us * kb[2], us * kb[3]};
        const AGB(amoeba_gpu_site) mk = AGB(amoeba_gpu_site_of)(g->rpole + 13 * (size_t)k);
        AGR ci[3], ck[3];
        for (int d = 0; d < 3; d++) {
            ci[d] = ds * ua[3 + d] + ps * ua[d];
            ck[d] = ds * uk[3 + d] + ps * uk[d];
        }
        AGR fik[3], tik[3], fki[3], tki[3], fpd[3], fdp[3];
        AGR en = AGB(amoeba_gpu_dipole_multipole)(ci, &mk, r, kb, fik, tik);
        en += AGB(amoeba_gpu_dipole_multipole)(ck, &mi, mr, kb, fki, tki);
        en += AGB(amoeba_gpu_dipole_dipole)(ua + 3, uk, r, ku, fpd);   /* u_p,i with u_d,k */
        en += AGB(amoeba_gpu_dipole_dipole)(ua, uk + 3, r, ku, fdp);   /* u_d,i with u_p,k */
        AGR frc[3], ti[3];
        for (int d = 0; d < 3; d++) {
            frc[d] = (fik[d] - fki[d]) + (fpd[d] + fdp[d]);
            ti[d] = tki[d];
        }
        if (g->smooth) {   /* S e: force S F - e dS/dr r/|r|, torques S t */
            const AGR start = g->start, iw = g->inv_width;
            const AGR xs = (rr - start) * iw, x = xs > (AGR)0.0 ? xs : (AGR)0.0;
            const AGR sr = (AGR)1.0 - x * x * x * ((AGR)10.0 - x * ((AGR)15.0 - (AGR)6.0 * x));
            const AGR y = (AGR)1.0 - x, dsdx = -(AGR)30.0 * x * x * y * y;
            const AGR ge = -en * (dsdx * iw) * ir;
            for (int d = 0; d < 3; d++) {
                frc[d] = sr * frc[d] + ge * r[d];
                ti[d] *= sr;
            }
        }
        for (int d = 0; d < 3; d++) {
            out[AG_F + d] -= frc[d];
            out[AG_T + d] += ti[d];
        }
        AGB(amoeba_gpu_half_virial)(r, frc, out + AG_V);
    }
}
