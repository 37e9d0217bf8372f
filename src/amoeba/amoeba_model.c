/* Model lifetime, defaults and the HAL combining rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_internal.h"

void amoeba_model_defaults(pk_amoeba_model *m)
{
    memset(m, 0, sizeof *m);
    /* Tinker defaults where the prm is silent */
    m->radius_rule = PK_AMOEBA_RULE_ARITHMETIC;
    m->epsilon_rule = PK_AMOEBA_RULE_GEOMETRIC;
    m->radius_is_sigma = 0;
    m->radius_is_diameter = 0;
    m->dielectric = 1.0;
    m->polarization = PK_AMOEBA_POLAR_MUTUAL;
    for (int k = 0; k < 5; k++) {
        m->vdw_scale[k] = m->mpole_scale[k] = m->polar_scale[k] = 1.0;
        m->polar_intra[k] = m->induce_scale[k] = 1.0;
    }
    m->direct11_scale = m->mutual11_scale = 0.0;
    /* key defaults: LAMMPS read_keyfile */
    pk_amoeba_settings *s = &m->set;
    s->vdw_cut = 9.0;
    s->vdw_taper = 0.9 * s->vdw_cut;
    s->mpole_cut = 9.0;
    s->polar_cut = 7.0;
    s->mpole_taper = AMOEBA_ELEC_TAPER * s->mpole_cut;
    s->polar_taper = AMOEBA_ELEC_TAPER * s->polar_cut;
    s->usolve_cut = 4.5;
    s->usolve_diag = 2.0;
    s->dhal = 0.07;
    s->ghal = 0.12;
    s->polar_eps = 1.0e-6;
    s->polar_iter = 100;
    s->pcg_precond = 1;
    s->pcg_guess = 1;
    s->pcg_peek = 1.0;
}

pk_code amoeba_model_alloc(pk_amoeba_model *m, int ntypes, int nclasses, pk_status *st)
{
    size_t nt = (size_t)ntypes + 1, nc = (size_t)nclasses + 1;
    m->ntypes = ntypes;
    m->nclasses = nclasses;
    m->type_defined = calloc(nt, sizeof(int));
    m->type_class = calloc(nt, sizeof(int));
    m->atomic_num = calloc(nt, sizeof(int));
    m->valence = calloc(nt, sizeof(int));
    m->mass = calloc(nt, sizeof(double));
    m->polarity = calloc(nt, sizeof(double));
    m->thole = calloc(nt, sizeof(double));
    m->pdamp = calloc(nt, sizeof(double));
    m->polarize_defined = calloc(nt, sizeof(int));
    m->npolgroup = calloc(nt, sizeof(int));
    m->polgroup = calloc(nt, sizeof *m->polgroup);
    m->vdw_radius = calloc(nc, sizeof(double));
    m->vdw_eps = calloc(nc, sizeof(double));
    m->vdw_red = calloc(nc, sizeof(double));
    m->vdw_defined = calloc(nc, sizeof(int));
    m->radmin = calloc(nc * nc, sizeof(double));
    m->epsmix = calloc(nc * nc, sizeof(double));
    if (!m->type_defined || !m->type_class || !m->atomic_num || !m->valence || !m->mass ||
        !m->polarity || !m->thole || !m->pdamp || !m->polarize_defined || !m->npolgroup || !m->polgroup ||
        !m->vdw_radius || !m->vdw_eps || !m->vdw_red || !m->vdw_defined || !m->radmin ||
        !m->epsmix)
        return pk_fail(st, PK_ERR_MEMORY, "amoeba/pk: out of memory for %d types, %d classes",
                       ntypes, nclasses);
    return PK_OK;
}

/* Combining rules (Tinker kvdw.f; Halgren 1992 for HHG): radii are halved when the file
 * gives diameters and scaled by 2^(1/6) when it gives sigma; the mixed radius is the
 * R_min of the pair, used as rv in the 14-7 form. */
void amoeba_model_mix(pk_amoeba_model *m, const amoeba_vdwpr *pr, int npr)
{
    const int nc = m->nclasses;
    const double twosix = pow(2.0, 1.0 / 6.0);
    for (int i = 1; i <= nc; i++) {
        for (int j = i; j <= nc; j++) {
            double ri = m->vdw_radius[i], rj = m->vdw_radius[j];
            if (m->radius_is_sigma) {
                ri *= twosix;
                rj *= twosix;
            }
            if (m->radius_is_diameter) {
                ri *= 0.5;
                rj *= 0.5;
            }
            const double ei = fabs(m->vdw_eps[i]), ej = fabs(m->vdw_eps[j]);
            const double sei = sqrt(ei), sej = sqrt(ej);
            double rij, eij;
            if (ri == 0.0 && rj == 0.0) rij = 0.0;
            else if (m->radius_rule == PK_AMOEBA_RULE_GEOMETRIC) rij = 2.0 * sqrt(ri) * sqrt(rj);
            else if (m->radius_rule == PK_AMOEBA_RULE_CUBIC_MEAN)
                rij = 2.0 * (ri * ri * ri + rj * rj * rj) / (ri * ri + rj * rj);
            else rij = ri + rj;
            if (ei == 0.0 && ej == 0.0) eij = 0.0;
            else if (m->epsilon_rule == PK_AMOEBA_RULE_ARITHMETIC) eij = 0.5 * (ei + ej);
            else if (m->epsilon_rule == PK_AMOEBA_RULE_HARMONIC) eij = 2.0 * ei * ej / (ei + ej);
            else if (m->epsilon_rule == PK_AMOEBA_RULE_HHG)
                eij = 4.0 * ei * ej / ((sei + sej) * (sei + sej));
            else if (m->epsilon_rule == PK_AMOEBA_RULE_W_H)
                eij = 2.0 * sei * sej * pow(ri * rj, 3) / (pow(ri, 6) + pow(rj, 6));
            else eij = sei * sej;
            m->radmin[i * (nc + 1) + j] = m->radmin[j * (nc + 1) + i] = rij;
            m->epsmix[i * (nc + 1) + j] = m->epsmix[j * (nc + 1) + i] = eij;
        }
    }
    /* vdwpr gives the pair's R_min (sigma scaled as above) and epsilon directly */
    for (int k = 0; k < npr; k++) {
        const int i = pr[k].c1, j = pr[k].c2;
        const double rij = m->radius_is_sigma ? pr[k].r * twosix : pr[k].r;
        m->radmin[i * (nc + 1) + j] = m->radmin[j * (nc + 1) + i] = rij;
        m->epsmix[i * (nc + 1) + j] = m->epsmix[j * (nc + 1) + i] = pr[k].eps;
    }
}

pk_code pk_amoeba_read(pk_amoeba_model *m, const char *prm_path, const char *key_path,
                       pk_status *st)
{
    amoeba_model_defaults(m);
    pk_status_clear(st);
    if (amoeba_read_prm(m, prm_path, st) || (key_path && amoeba_read_key(m, key_path, st))) {
        pk_code rc = st->code;
        pk_amoeba_free(m);
        return rc;
    }
    return PK_OK;
}

void pk_amoeba_free(pk_amoeba_model *m)
{
    free(m->type_defined);
    free(m->type_class);
    free(m->atomic_num);
    free(m->valence);
    free(m->mass);
    free(m->polarity);
    free(m->thole);
    free(m->pdamp);
    free(m->polarize_defined);
    free(m->npolgroup);
    free(m->polgroup);
    free(m->vdw_radius);
    free(m->vdw_eps);
    free(m->vdw_red);
    free(m->vdw_defined);
    free(m->radmin);
    free(m->epsmix);
    free(m->mpole);
    amoeba_model_defaults(m);
}
