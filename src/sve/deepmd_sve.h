/* deepmd/pk sve backend: the kernels of src/sve/deepmd_sve_*.c that replace the portable
 * ones of the tabulated path (dp_kernels, deepmd_internal.h). */
#ifndef PK_DEEPMD_SVE_H
#define PK_DEEPMD_SVE_H

#include "deepmd_internal.h"

pk_code dp_sve_fused_forward(const dp_model *m, const dp_tables *tb, int i, int ti,
                             const dp_nbr *nbr, int nn, const int *nreal, const pk_tag *tag,
                             double *T, pk_status *st);
void dp_sve_fused_backward(const dp_model *m, const dp_tables *tb, int i, int ti,
                           const dp_nbr *nbr, int nn, const double *dEdT, dp_sink *sk);
void dp_sve_fit(const pk_deepmd *dp, int ti, int nb, const double *T, double *e,
                double *dEdT, double *scratch);

#endif
