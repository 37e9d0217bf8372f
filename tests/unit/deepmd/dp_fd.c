/* Finite differences of the deepmd/pk energy: forces and strain derivative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_run.h"
#include "dp_system.h"

/* Total energy with atom p's component a moved by dx (p >= 0) and/or the strain
 * x_sa -> x_sa + eps x_sb applied to atoms and cell vectors (sa >= 0). */
static double energy(pk_deepmd *dp, const dp_config *c, double cut, int p, int a, double dx,
                     int sa, int sb, double eps)
{
    double *x = malloc(sizeof(double) * 3 * c->n), box[9] = {0};
    memcpy(x, c->x, sizeof(double) * 3 * c->n);
    if (c->box) memcpy(box, c->box, sizeof box);
    if (p >= 0) x[3 * p + a] += dx;
    if (sa >= 0) {
        for (int i = 0; i < c->n; i++) x[3 * i + sa] += eps * c->x[3 * i + sb];
        for (int r = 0; r < 3; r++) box[3 * r + sa] += eps * (c->box ? c->box[3 * r + sb] : 0);
    }
    dp_sys s;
    pk_status st;
    dp_sys_build(&s, c->n, x, c->type, c->box ? box : NULL, cut);
    dp_result r;
    if (dp_run(dp, &s, &r, &st)) fprintf(stderr, "%s\n", st.msg);
    double e = 0.0;
    for (int i = 0; i < c->n; i++) e += r.eatom[i];
    dp_result_free(&r);
    dp_sys_free(&s);
    free(x);
    return e;
}

/* [8 (E(h) - E(-h)) - (E(2h) - E(-2h))] / 12h */
static double slope(pk_deepmd *dp, const dp_config *c, double cut, int p, int a, int sa, int sb,
                    double h)
{
    double e[4], k[4] = {1, -1, 2, -2};
    for (int q = 0; q < 4; q++)
        e[q] = p >= 0 ? energy(dp, c, cut, p, a, k[q] * h, -1, 0, 0)
                      : energy(dp, c, cut, -1, 0, 0, sa, sb, k[q] * h);
    return (8.0 * (e[0] - e[1]) - (e[2] - e[3])) / (12.0 * h);
}

void dp_fd_errors(pk_deepmd *dp, const dp_config *c, double cut, double h, double *ef,
                  double *ew, double *el)
{
    dp_sys s;
    pk_status st;
    dp_sys_build(&s, c->n, c->x, c->type, c->box, cut);
    dp_result r;
    if (dp_run(dp, &s, &r, &st)) fprintf(stderr, "%s\n", st.msg);
    const int nf = c->nfd > 0 && c->nfd < c->n ? c->nfd : c->n;
    double *fd = malloc(sizeof(double) * 3 * nf), W[9] = {0}, Wfd[9];
    for (int p = 0; p < nf; p++)
        for (int a = 0; a < 3; a++) fd[3 * p + a] = -slope(dp, c, cut, p, a, -1, 0, h);
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < 9; k++) W[k] += r.v9[9 * i + k];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) Wfd[3 * a + b] = -slope(dp, c, cut, -1, 0, a, b, h);
    const double lmp[6] = {W[0], W[4], W[8], W[3], W[6], W[7]};
    *ef = dp_relerr(r.f, fd, 3 * nf);
    *ew = dp_relerr(W, Wfd, 9);
    *el = dp_relerr(r.virial, lmp, 6);
    free(fd);
    dp_result_free(&r);
    dp_sys_free(&s);
}
