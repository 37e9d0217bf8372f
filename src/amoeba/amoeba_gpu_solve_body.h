/* The field pass of the device solve (amoeba_gpu_solve.h) in one precision: included once
 * per precision by amoeba_gpu_precisions.h (AGB, AGR, AG_SQRT, AG_EXP as there). The
 * separation is subtracted in double; the fields are summed and the tensors stored in
 * double in both. */

/* Lane `lane` of row a's field pass: the permanent fields of the partners' multipoles at the
 * row's ends (added to f[6], d then p set: amoeba_induce.c pair_fields_mode, Tinker
 * udirect2b), and, for mutual polarization, each of its entries' dipole-dipole tensor {s, -b3}
 * (ten, 4 doubles per entry: T v = s (s.v) - b3 v) and preconditioner block (pten, 0 for a
 * pair that is not the preconditioner's). */
PK_HD void AGB(amoeba_gpu_field_lane)(const amoeba_gpu_field *g, int a, int lane, double f[6],
                                      double *ten, double *pten)
{
    for (int c = 0; c < 6; c++) f[c] = 0.0;
    const AGR d11 = (AGR)g->d11, u11 = (AGR)g->u11, start = (AGR)g->start;
    const AGR iw = (AGR)g->inv_width;
    for (int e = g->list.offset[a] + lane; e < g->list.offset[a + 1]; e += AG_LANES) {
        const AGB(amoeba_gpu_pair) pr = AGB(amoeba_gpu_pair_at)(&g->list, g->x, e);
        const int i = pr.i, k = pr.k, sc = pr.cls;
        const AGR rx = pr.r[0], ry = pr.r[1], rz = pr.r[2], r2 = pr.r2, rr = AG_SQRT(r2);
        const AGR rr1 = (AGR)1.0 / rr, rr2 = rr1 * rr1;
        const int ti = g->amtype[i], tk = g->amtype[k];
        const int same = g->amgroup[i] == g->amgroup[k];
        AGR aa, ea;
        AGB(amoeba_gpu_thole)(g->pdamp, g->thole, ti, tk, rr, &aa, &ea);
        const AGR rr3 = rr2 * rr1, rr5 = (AGR)3.0 * rr2 * rr3, rr7 = (AGR)5.0 * rr2 * rr5;
        const AGR b0 = ((AGR)1.0 - ea) * rr3, b1 = ((AGR)1.0 - ea * ((AGR)1.0 + aa)) * rr5;
        const AGR b2 = ((AGR)1.0 - ea * ((AGR)1.0 + aa + (AGR)0.6 * aa * aa)) * rr7;
        /* the field and T only within polar_cut; in SMOOTH mode they and the
         * preconditioner block carry S(r), 0 from the cutoff on */
        const AGR in = r2 <= g->off2 ? (AGR)1.0 : (AGR)0.0;
        AGR sr = (AGR)1.0;
        if (g->smooth) {
            const AGR xs = (rr - start) * iw, x = xs > (AGR)0.0 ? xs : (AGR)0.0;
            sr = in * ((AGR)1.0 - x * x * x * ((AGR)10.0 - x * ((AGR)15.0 - (AGR)6.0 * x)));
        }
        const AGR fm = g->smooth ? sr : in;
        /* the field of k's moments at i */
        const double *pk = g->rpole + 13 * (size_t)k;
        const AGR ck = (AGR)pk[0], dkx = (AGR)pk[1], dky = (AGR)pk[2], dkz = (AGR)pk[3];
        const AGR kxx = (AGR)pk[4], kxy = (AGR)pk[5], kxz = (AGR)pk[6];
        const AGR kyy = (AGR)pk[8], kyz = (AGR)pk[9], kzz = (AGR)pk[12];
        const AGR qkx = kxx * rx + kxy * ry + kxz * rz;
        const AGR qky = kxy * rx + kyy * ry + kyz * rz;
        const AGR qkz = kxz * rx + kyz * ry + kzz * rz;
        const AGR dkr = dkx * rx + dky * ry + dkz * rz;
        const AGR qkr = qkx * rx + qky * ry + qkz * rz;
        const AGR gk = b0 * ck - b1 * dkr + b2 * qkr;
        const AGR ex = -rx * gk - b0 * dkx + (AGR)2.0 * b1 * qkx;
        const AGR ey = -ry * gk - b0 * dky + (AGR)2.0 * b1 * qky;
        const AGR ez = -rz * gk - b0 * dkz + (AGR)2.0 * b1 * qkz;
        const AGR ds = fm * (same ? d11 : (AGR)1.0);
        const AGR ps = fm * (AGR)(same ? g->intra[sc] : g->pscale[sc]);
        f[0] += ds * ex, f[1] += ds * ey, f[2] += ds * ez;
        f[3] += ps * ex, f[4] += ps * ey, f[5] += ps * ez;
        if (!g->mutual) continue;
        /* T_ik = b5 r r^T - b3 I, b3 = S u l3 / r^3, b5 = S u 3 l5 / r^5, stored as s =
         * sqrt(b5) r (b5 >= 0, but S rounds to -1e-17 just inside the cutoff); the
         * preconditioner block is alpha_i alpha_k T_ik (LAMMPS uscale0b) */
        const AGR us = sr * (same ? u11 : (AGR)1.0), b5 = us * b1;
        const AGR q = b5 > (AGR)0.0 ? AG_SQRT(b5) : (AGR)0.0;
        double *t = ten + 4 * (size_t)e, *p = pten + 4 * (size_t)e;
        t[0] = in * q * rx, t[1] = in * q * ry, t[2] = in * q * rz, t[3] = -in * us * b0;
        if (g->use_pc && (g->list.self[e] & AMOEBA_GPU_PC_FLAG)) {
            const AGR ai = g->polarity[ti], ak = g->polarity[tk];
            const AGR qp = q * (AG_SQRT(ai) * AG_SQRT(ak));
            p[0] = qp * rx, p[1] = qp * ry, p[2] = qp * rz, p[3] = -us * b0 * (ai * ak);
        } else {
            p[0] = p[1] = p[2] = p[3] = 0.0;
        }
    }
}

