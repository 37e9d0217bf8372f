/* The per-atom kernels of hdnnp/pk's sve backend (hdnnp_kernels of hdnnp_kernel.h), ACLE
 * SVE of any vector length. They keep the portable kernels' data layout (hdnnp_scratch), so
 * a group type they leave to the portable code mixes with them. */
#ifndef HDNNP_SVE_H
#define HDNNP_SVE_H

#include "hdnnp_kernel.h"

/* hdnnp_symfuncs: cutoff values, radial groups (all types), pair lists (all types) and the
 * angular groups of types 3, 9 and 13 in SVE; the compact angular types 21-25, the cosine
 * cutoff and the compact windows' radial factor portable (the latter two lane by lane). */
pk_code hdnnp_sve_symfuncs(hdnnp_scratch *s, const hdnnp_element *el, pk_status *st);
/* hdnnp_contract, every group type */
void hdnnp_sve_contract(hdnnp_scratch *s, const hdnnp_element *el, const double *c, double *g);
/* hdnnp_network_eval; activations other than tanh and identity lane by lane (scalar) */
double hdnnp_sve_network_eval(const hdnnp_network *net, const double *Gs, double *dEdG,
                              double *work);

#endif
