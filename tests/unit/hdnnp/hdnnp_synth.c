#include "hdnnp_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_system.h"

double hd_rand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0;
}

int hd_cluster_avoids(const double (*x)[3], int n, const double *dist, int nd, const double *deg,
                      int na, double margin)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double a[3], ra;
            for (int q = 0; q < 3; q++) a[q] = x[j][q] - x[i][q];
            ra = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
            for (int t = 0; t < nd; t++)
                if (fabs(ra - dist[t]) < margin) return 0;
            for (int k = j + 1; k < n; k++) {
                if (k == i) continue;
                double b[3], rb;
                for (int q = 0; q < 3; q++) b[q] = x[k][q] - x[i][q];
                rb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
                const double th = acos((a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (ra * rb));
                for (int t = 0; t < na; t++)
                    if (fabs(th - deg[t] * 3.14159265358979323846 / 180.0) < margin) return 0;
            }
        }
    return 1;
}

int hd_synth_write(const char *dir, const hd_synth *m, const int *nsf, const int *z,
                   const int *hidden, int nhidden)
{
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    int n = snprintf(buf, cap,
                     "# synthetic model\nnumber_of_elements %d\nelements %s\n"
                     "cutoff_type %d %g\n%s\nscale_min_short -1.0\nscale_max_short 1.0\n"
                     "%s\n%s\n%s\n",
                     m->nelements, m->elements, m->cutoff_type, m->alpha,
                     m->scaling ? m->scaling : "", m->network, m->extra ? m->extra : "",
                     m->symfuncs);
    int rc = hd_write_file(dir, "input.nn", buf);

    /* scaling.data: ranges wide enough that the clusters below do not extrapolate much */
    n = 0;
    n += snprintf(buf + n, cap - (size_t)n, "# e sf min max mean sigma\n");
    unsigned st = m->seed + 7u;
    for (int e = 0; e < m->nelements; e++)
        for (int s = 0; s < nsf[e]; s++) {
            const double lo = -0.1 * hd_rand(&st), hi = 2.0 + 3.0 * hd_rand(&st);
            n += snprintf(buf + n, cap - (size_t)n, "%d %d %.17g %.17g %.17g %.17g\n", e + 1, s + 1,
                          lo, hi, 0.3 * hi, 0.2 * hi + 0.05);
        }
    rc |= hd_write_file(dir, "scaling.data", buf);

    st = m->seed;
    for (int e = 0; e < m->nelements; e++) {
        int sizes[16];
        sizes[0] = nsf[e];
        for (int l = 0; l < nhidden; l++) sizes[l + 1] = hidden[l];
        sizes[nhidden + 1] = 1;
        n = 0;
        for (int l = 1; l <= nhidden + 1; l++) {
            const int nw = sizes[l - 1] * sizes[l] + sizes[l];
            for (int k = 0; k < nw; k++) {
                const double scale = k < sizes[l - 1] * sizes[l] ? 2.0 : 4.0;   /* weights, biases */
                n += snprintf(buf + n, cap - (size_t)n, "%.17g a %d\n",
                              (2.0 * hd_rand(&st) - 1.0) / scale, k + 1);
            }
        }
        char name[64];
        snprintf(name, sizeof name, "weights.%03d.data", z[e]);
        rc |= hd_write_file(dir, name, buf);
    }
    free(buf);
    return rc;
}

const int hd_synth_all_types_nsf[2] = {10, 9};

void hd_agree_cluster(hd_system *s)
{
    s->nlocal = HD_AGREE_NAT;
    s->x = malloc(sizeof(double[3]) * HD_AGREE_NAT);
    s->type = malloc(sizeof(int) * HD_AGREE_NAT);
    unsigned seed = 7u;
    for (int i = 0; i < HD_AGREE_NAT; i++) {   /* no two atoms closer than 0.9 */
        for (int tries = 0; tries < 1000; tries++) {
            for (int q = 0; q < 3; q++) s->x[i][q] = 6.5 * hd_rand(&seed);
            int ok = 1;
            for (int j = 0; j < i && ok; j++) {
                const double dx = s->x[i][0] - s->x[j][0], dy = s->x[i][1] - s->x[j][1];
                const double dz = s->x[i][2] - s->x[j][2];
                ok = dx * dx + dy * dy + dz * dz > 0.81;
            }
            if (ok) break;
        }
        s->type[i] = i % 3 == 0 ? 2 : 1;
    }
    hd_make_neigh(s, 4.5);
}

int hd_agree_model_write(const char *dir, int cut, const char **activations)
{
    /* every type, plus a non-integer zeta and a large integer one (P^(zeta-1) by pow), and
     * a function with its own cutoff radius */
    static const char *const symfuncs =
        HD_SYNTH_ALL_TYPES "symfunction_short O 3 H O 0.05 1 2.5 4.0\n"
                           "symfunction_short H 9 H H 0.03 -1 6.0 3.8 0.2\n";
    const int nsf[2] = {hd_synth_all_types_nsf[0] + 1, hd_synth_all_types_nsf[1] + 1};
    static const int zs[2] = {1, 8}, hidden[2] = {6, 5};
    static const char *const acts[] = {"t t l", "s p l", "g c l", "S e l", "h r l"};
    char net[256];
    const char *act = acts[cut % 5];
    snprintf(net, sizeof net,
             "global_hidden_layers_short 2\nglobal_nodes_short 6 5\n"
             "global_activation_short %s\n", act);
    const hd_synth syn = {"H O", 2, cut, cut == 1 || cut >= 4 ? 0.2 : 0.0,
                          "scale_symmetry_functions\n", net,
                          cut == 5 ? "normalize_nodes\n" : "", symfuncs, 31u + (unsigned)cut};
    *activations = act;
    return hd_synth_write(dir, &syn, nsf, zs, hidden, 2);
}
