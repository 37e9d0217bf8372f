/* The fitting nets' batched pass (dp_net_fit) for one element type, included by
 * deepmd_net.c once per instance (double, float) with these macros set: GT the element type,
 * G(x) the name of a static helper of the instance (x suffixed), GFIT and GSCRATCH the public
 * names (deepmd_internal.h), GGEMM the matrix product of the type (deepmd_gemm.c), GTANH the
 * vectorised tanh of an array of GT, and GFWD, GBWD, GB, GIDT the layer's packed weights,
 * bias and idt in that type. The float instance computes in float throughout (products,
 * tanh, slopes, backward); other activations than tanh go through dp_act_eval in double. Not
 * a header of its own: no include guard. */

/* Add the resnet shortcut of a layer: out += in (nout == nin) or (in, in) (nout == 2 nin). */
static inline void G(shortcut)(const dp_layer *L, const GT *in, GT *out)
{
    if (!L->resnet) return;
    if (L->nout == L->nin) {
        for (int o = 0; o < L->nout; o++) out[o] += in[o];
    } else if (L->nout == 2 * L->nin) {
        for (int o = 0; o < L->nout; o++) out[o] += in[o % L->nin];
    }
}

size_t GSCRATCH(const dp_net *net, int nb)
{
    size_t n = 2 * (size_t)net->width + (size_t)net->nout;
    for (int l = 0; l < net->nlayer; l++) n += (size_t)net->layer[l].nin + net->layer[l].nout;
    return n * (size_t)nb;
}

/* Outputs of a fitting layer from z = x W + b in y (nb x nout): y = act(z) idt + shortcut,
 * and the slopes sl = act'(z) idt for the backward pass. */
static void G(layer_out)(const dp_layer *L, int nb, const GT *x, size_t ldx, GT *y, GT *sl)
{
    const int no = L->nout;
    const size_t n = (size_t)nb * no;
    const GT *idt = GIDT(L);
    if (L->act == DP_ACT_TANH) {
        GTANH(y, n);   /* tanh' = 1 - tanh^2 */
        for (int b = 0; b < nb; b++) {
            GT *yb = y + (size_t)b * no, *sb = sl + (size_t)b * no;
            if (idt)
                for (int o = 0; o < no; o++) {
                    const GT t = yb[o], g = idt[o];
                    yb[o] = t * g;
                    sb[o] = (1 - t * t) * g;
                }
            else
                for (int o = 0; o < no; o++) sb[o] = 1 - yb[o] * yb[o];
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            double a, a1, a2, g = idt ? idt[k % no] : 1.0;
            dp_act_eval(L->act, y[k], &a, &a1, &a2);
            y[k] = (GT)(a * g);
            sl[k] = (GT)(a1 * g);
        }
    }
    for (int b = 0; b < nb; b++) G(shortcut)(L, x + (size_t)b * ldx, y + (size_t)b * no);
}

void GFIT(const dp_net *net, int nb, const GT *x0, GT *y_out, GT *grad, GT *scratch)
{
    /* Scratch layout: per layer [inputs (nb x nin) | slopes act'(z) * idt (nb x nout)], then
     * the outputs (nb x nout), then two gradient blocks (nb x width). Each layer writes its
     * outputs straight into the next layer's input slot; the first layer reads x0 in place
     * (its slot stays unused here; the sve backend's copy of this function fills it). Each
     * layer is one matrix product over the batch (dp_gemm); every sample's arithmetic is
     * the same as alone. */
    const int W = net->width;
    size_t off = 0;
    for (int l = 0; l < net->nlayer; l++) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        const GT *x = l ? scratch + off : x0, *bias = GB(L);
        GT *sl = scratch + off + (size_t)nb * ni;
        GT *y = sl + (size_t)nb * no;
        for (int b = 0; b < nb; b++)
            if (bias)
                memcpy(y + (size_t)b * no, bias, sizeof(GT) * no);
            else
                memset(y + (size_t)b * no, 0, sizeof(GT) * no);
        GGEMM(nb, x, ni, GFWD(L), y, no);
        G(layer_out)(L, nb, x, ni, y, sl);
        off += (size_t)nb * (ni + no);
    }
    const GT *out = scratch + off;
    for (int b = 0; b < nb; b++) y_out[b] = out[(size_t)b * net->nout];
    if (!grad) return;

    /* Backward: g_in = W (g_out * slope) + shortcut^T g_out, for a scalar output; the first
     * layer's lands in grad. */
    GT *ga = scratch + off + (size_t)nb * net->nout, *gb = ga + (size_t)nb * W;
    for (int b = 0; b < nb; b++) ga[(size_t)b * W] = 1;
    for (int l = net->nlayer - 1; l >= 0; l--) {
        const dp_layer *L = &net->layer[l];
        const int ni = L->nin, no = L->nout;
        off -= (size_t)nb * (ni + no);
        const GT *sl = scratch + off + (size_t)nb * ni;
        GT *gout = l ? gb : grad;
        const size_t ldg = l ? (size_t)W : (size_t)ni;
        for (int b = 0; b < nb; b++) {
            GT *a = ga + (size_t)b * W, *g = gout + (size_t)b * ldg;
            const GT *sb = sl + (size_t)b * no;
            if (L->resnet && no == ni)
                for (int k = 0; k < ni; k++) g[k] = a[k];
            else if (L->resnet && no == 2 * ni)
                for (int k = 0; k < ni; k++) g[k] = a[k] + a[k + ni];
            else
                memset(g, 0, sizeof(GT) * ni);
            for (int o = 0; o < no; o++) a[o] *= sb[o];   /* now dE/dz */
        }
        GGEMM(nb, ga, W, GBWD(L), gout, ldg);
        GT *t = ga; ga = gb; gb = t;
    }
}
