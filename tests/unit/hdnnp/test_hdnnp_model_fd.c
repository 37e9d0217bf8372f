/* Whole-model forces of hdnnp/pk against central differences of the energy, for synthetic
 * models that together use every symmetry-function type (2, 3, 9, 12, 13, 20-25), several
 * cutoff types, every scaling mode, every activation letter, normalize_nodes, per-element
 * node counts, data-set normalisation and atomic energy offsets. Also: virial = sum x (x) f,
 * per-atom energies sum to the energy, and the energy offsets enter as n2p2 adds them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdnnp_synth.h"
#include "hdnnp_system.h"
#include "pk_hdnnp.h"
#include "pk_test.h"

enum { NAT = 16 };

/* every symmetry-function type (hdnnp_synth.h) */
static const char *const symfuncs = HD_SYNTH_ALL_TYPES;
static const int *const nsf = hd_synth_all_types_nsf;
/* where the compact windows above are only once differentiable: the cluster keeps away */
static const double window_r[] = {0.3, 0.5, 0.8, 3.5, 4.0};
static const double window_deg[] = {30, 150, 60, 90};
static const int zs[2] = {1, 8};

typedef struct {
    const char *name;
    int cutoff;
    double alpha;
    const char *scaling, *activations, *extra;
    int hidden[2], nhidden;
} variant;

static const variant variants[] = {
    {"tanhu/scale/t-t", 2, 0.0, "scale_symmetry_functions\n", "t t l", "", {5, 4}, 2},
    {"cos/center/s-p", 1, 0.2, "center_symmetry_functions\n", "s p l", "", {5, 4}, 2},
    {"poly2/scalecenter/g-c", 6, 0.1,
     "scale_symmetry_functions\ncenter_symmetry_functions\n", "g c l", "normalize_nodes\n",
     {5, 4}, 2},
    {"exp/sigma/S-e", 4, 0.0, "scale_symmetry_functions_sigma\n", "S e l",
     "mean_energy -0.7\nconv_energy 3.5\nconv_length 1.7\n", {5, 4}, 2},
    {"poly4/none/h-r-l", 8, 0.3, "", "h r l", "atom_energy H -0.5\natom_energy O -75.0\n",
     {4, 3}, 2},
    {"tanh/scale/l", 3, 0.0, "scale_symmetry_functions\n", "l l", "", {6, 0}, 1},
    {"poly1/scale/t + element_nodes", 5, 0.0, "scale_symmetry_functions\n", "t t l",
     "element_nodes_short O 1 7\n", {5, 4}, 2},
};

static void energy_forces(pk_hdnnp_context *ctx, double (*x)[3], const int *type, double *e,
                          double (*f)[3], double *virial, double *eatom)
{
    static const int t2e[3] = {-1, 0, 1};
    int jl[NAT][NAT], nn[NAT], il[NAT], *first[NAT];
    for (int i = 0; i < NAT; i++) {
        il[i] = i;
        nn[i] = 0;
        for (int j = 0; j < NAT; j++)
            if (j != i) jl[i][nn[i]++] = j;
        first[i] = jl[i];
    }
    pk_atoms a = {0};
    a.nlocal = NAT;
    a.x = (const double (*)[3])x;
    a.type = type;
    pk_neigh nl = {NAT, il, nn, first};
    pk_out out = {0};
    out.f = f;
    out.want_energy = 1;
    out.want_virial = virial != NULL;
    out.eatom = eatom;
    if (f) memset(f, 0, sizeof(double[3]) * NAT);
    if (eatom) memset(eatom, 0, sizeof(double) * NAT);
    double fdummy[NAT][3];
    if (!f) out.f = fdummy, memset(fdummy, 0, sizeof fdummy);
    pk_status st;
    PK_CHECK(pk_hdnnp_compute(ctx, &a, &nl, t2e, &out, &st) == PK_OK, "compute: %s", st.msg);
    *e = out.energy;
    if (virial) memcpy(virial, out.virial, sizeof(double) * 6);
}

int main(void)
{
    char tmp[] = "/tmp/pk_hdnnp_fdXXXXXX";
    PK_CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    double x[NAT][3];
    int type[NAT];
    unsigned seed = 99u;
    for (;;) {   /* random cluster: no pair closer than 0.9 or within 0.01 of a cutoff, no
                  * distance or angle at a compact window's edge */
        for (int i = 0; i < NAT; i++) {
            for (int q = 0; q < 3; q++) x[i][q] = 5.5 * hd_rand(&seed);
            type[i] = i % 3 == 0 ? 2 : 1;
        }
        int ok = 1;
        for (int i = 0; i < NAT && ok; i++)
            for (int j = i + 1; j < NAT && ok; j++) {
                const double dx = x[i][0] - x[j][0], dy = x[i][1] - x[j][1], dz = x[i][2] - x[j][2];
                const double r = sqrt(dx * dx + dy * dy + dz * dz);
                ok = r > 0.9 && fabs(r - 3.5) > 0.01 && fabs(r - 4.0) > 0.01;
            }
        if (ok && hd_cluster_avoids((const double (*)[3])x, NAT, window_r, 5, window_deg, 4, 2e-4))
            break;
    }
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const variant *V = &variants[v];
        char dir[512], net[256];
        snprintf(dir, sizeof dir, "%s/model%zu", tmp, v);
        if (V->nhidden == 2)
            snprintf(net, sizeof net, "global_hidden_layers_short 2\nglobal_nodes_short %d %d\n"
                     "global_activation_short %s\n", V->hidden[0], V->hidden[1], V->activations);
        else
            snprintf(net, sizeof net, "global_hidden_layers_short 1\nglobal_nodes_short %d\n"
                     "global_activation_short %s\n", V->hidden[0], V->activations);
        hd_synth syn = {"H O", 2, V->cutoff, V->alpha, V->scaling, net, V->extra, symfuncs,
                        11u + (unsigned)v};
        /* element_nodes_short changes O's first hidden layer: write O's weights for it */
        int ok;
        if (strstr(V->extra, "element_nodes_short")) {
            const int hH[2] = {V->hidden[0], V->hidden[1]}, hO[2] = {7, V->hidden[1]};
            ok = hd_synth_write(dir, &syn, nsf, zs, hH, 2) == 0;
            char dirO[600];
            snprintf(dirO, sizeof dirO, "%s_O", dir);
            ok &= hd_synth_write(dirO, &syn, nsf, zs, hO, 2) == 0;
            char cmd[1400];
            snprintf(cmd, sizeof cmd, "cp %s/weights.008.data %s/weights.008.data", dirO, dir);
            ok &= system(cmd) == 0;
        } else {
            ok = hd_synth_write(dir, &syn, nsf, zs, V->hidden, V->nhidden) == 0;
        }
        PK_CHECK(ok, "write %s", dir);
        pk_hdnnp_model *m = NULL;
        pk_status st;
        PK_CHECK(pk_hdnnp_model_load(dir, NULL, &m, &st) == PK_OK, "%s: %s", V->name, st.msg);
        if (!m) continue;
        pk_hdnnp_context *ctx;
        pk_hdnnp_context_create(m, &ctx, &st);
        double e, f[NAT][3], vir[6], eatom[NAT];
        energy_forces(ctx, x, type, &e, f, vir, eatom);
        double fmaxabs = 0.0, worst = 0.0;
        for (int i = 0; i < NAT; i++)
            for (int q = 0; q < 3; q++) fmaxabs = fmax(fmaxabs, fabs(f[i][q]));
        for (int i = 0; i < NAT; i++)
            for (int q = 0; q < 3; q++) {
                const double h = 1e-5, x0 = x[i][q];
                double ep, em;
                x[i][q] = x0 + h;
                energy_forces(ctx, x, type, &ep, NULL, NULL, NULL);
                x[i][q] = x0 - h;
                energy_forces(ctx, x, type, &em, NULL, NULL, NULL);
                x[i][q] = x0;
                worst = fmax(worst, fabs(-(ep - em) / (2 * h) - f[i][q]) / fmaxabs);
            }
        PK_CHECK(worst < 1e-7, "%s: forces vs FD of energy: %.3g (largest force %.3g)", V->name,
                 worst, fmaxabs);
        double w[6] = {0}, esum = 0.0, vmax = 0.0;
        for (int i = 0; i < NAT; i++) {
            w[0] += x[i][0] * f[i][0]; w[1] += x[i][1] * f[i][1]; w[2] += x[i][2] * f[i][2];
            w[3] += x[i][0] * f[i][1]; w[4] += x[i][0] * f[i][2]; w[5] += x[i][1] * f[i][2];
            esum += eatom[i];
        }
        for (int q = 0; q < 6; q++) vmax = fmax(vmax, fabs(vir[q]));
        for (int q = 0; q < 6; q++) PK_CHECK_CLOSE(vir[q], w[q], 1e-12, vmax);
        PK_CHECK_CLOSE(esum, e, 1e-13, 1.0);
        printf("%-32s E = %-22.15g forces vs FD %.2e, extrapolation warnings %ld\n", V->name, e,
               worst, pk_hdnnp_ew_count(ctx));
        pk_hdnnp_context_free(ctx);
        pk_hdnnp_model_free(m);
    }

    /* Offsets and normalisation: E = E_nn / conv_energy + N mean_energy + sum offsets. Same
     * weights with and without those keywords (identical seeds). */
    {
        char d0[512], d1[512];
        snprintf(d0, sizeof d0, "%s/plain", tmp);
        snprintf(d1, sizeof d1, "%s/offset", tmp);
        const char *net = "global_hidden_layers_short 1\nglobal_nodes_short 4\n"
                          "global_activation_short t l\n";
        hd_synth a = {"H O", 2, 2, 0.0, "scale_symmetry_functions\n", net, "", symfuncs, 5u};
        hd_synth b = a;
        b.extra = "mean_energy -0.7\nconv_energy 3.5\nconv_length 1.7\n"
                  "atom_energy O -75.0\natom_energy H -0.5\n";
        const int hid[1] = {4};
        hd_synth_write(d0, &a, nsf, zs, hid, 1);
        hd_synth_write(d1, &b, nsf, zs, hid, 1);
        pk_hdnnp_model *m0, *m1;
        pk_status st;
        PK_CHECK(pk_hdnnp_model_load(d0, NULL, &m0, &st) == PK_OK, "%s", st.msg);
        PK_CHECK(pk_hdnnp_model_load(d1, NULL, &m1, &st) == PK_OK, "%s", st.msg);
        pk_hdnnp_context *c0, *c1;
        pk_hdnnp_context_create(m0, &c0, &st);
        pk_hdnnp_context_create(m1, &c1, &st);
        double e0, e1, f0[NAT][3], f1[NAT][3];
        energy_forces(c0, x, type, &e0, f0, NULL, NULL);
        energy_forces(c1, x, type, &e1, f1, NULL, NULL);
        int nO = 0;
        for (int i = 0; i < NAT; i++) nO += type[i] == 2;
        const double want = e0 / 3.5 + NAT * -0.7 + nO * -75.0 + (NAT - nO) * -0.5;
        PK_CHECK_CLOSE(e1, want, 1e-13, 1.0);
        for (int i = 0; i < NAT; i++)
            for (int q = 0; q < 3; q++) PK_CHECK_CLOSE(f1[i][q], f0[i][q] / 3.5, 1e-12, 1e-6);
        pk_hdnnp_context_free(c0);
        pk_hdnnp_context_free(c1);
        pk_hdnnp_model_free(m0);
        pk_hdnnp_model_free(m1);
    }
    hd_remove_tree(tmp);
    return pk_test_finish();
}
