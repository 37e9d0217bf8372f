/* Host-side preparation of the CUDA backend's inputs, shared with its host emulation test:
 * the embedding tables packed into one array (and a float copy for mixed precision), the
 * model view of deepmd_hd.h over host memory, and one step's list in CSR form with the
 * centres grouped by type. */
#ifndef PK_DEEPMD_HD_HOST_H
#define PK_DEEPMD_HD_HOST_H

#include "deepmd_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    dp_hd_range *range;   /* per embedding net */
    size_t *coef_off;     /* per embedding net: first coefficient in coef */
    double *coef;         /* all tables, ncoef */
    float *coef_f;        /* the same rounded to float */
    size_t ncoef;
    size_t npad;          /* doubles of dp_tables.pad */
} dp_hd_tables;

pk_code dp_hd_tables_build(dp_hd_tables *h, const dp_model *m, const dp_tables *tb,
                           pk_status *st);
void dp_hd_tables_free(dp_hd_tables *h);
/* The kernels' model view over host memory (the test; the backend swaps in device copies). */
void dp_hd_model_host(dp_hd_model *v, const dp_model *m, const dp_tables *tb,
                      const dp_hd_tables *h);

/* Listed neighbours of all centres. */
size_t dp_hd_list_size(const pk_neigh *nl);
/* centre[ii] = ilist[ii]; offset (inum + 1) and neigh (indices without special bits) the
 * CSR list; centre_of[a] = ii of atom a or -1 (nall); perm: the centres of model type t at
 * perm[first[t] .. first[t] + count[t]), in list order (centres of no model type left out). */
void dp_hd_list_fill(const pk_neigh *nl, const int *mtype, int ntypes, int nall, int *centre,
                     int *offset, int *neigh, int *centre_of, int *perm, int *first,
                     int *count);
/* Doubles of fitting scratch for nb centres of type t: per layer inputs (the first is the
 * descriptor) and slopes, the outputs and two gradient blocks (dp_net_fit's layout). */
size_t dp_hd_fit_scratch(const dp_model *m, int t, int nb);

#ifdef __cplusplus
}
#endif
#endif
