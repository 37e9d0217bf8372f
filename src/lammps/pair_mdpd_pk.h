/* LAMMPS adapter for mdpd/pk: many-body DPD with the local density computed inside the style.
 * Thin layer: arguments and coefficients, the neighbour request, LAMMPS arrays -> C views,
 * forward/reverse communication of the density, restart and data-file output. */
#ifndef PK_PAIR_MDPD_PK_H
#define PK_PAIR_MDPD_PK_H

#include "pair.h"
#include "pk_adapter.h"

struct pk_mdpd;

namespace LAMMPS_NS {

class PairMDPDPK : public Pair {
 public:
  PairMDPDPK(class LAMMPS *);
  ~PairMDPDPK() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;
  void write_restart(FILE *) override;
  void read_restart(FILE *) override;
  void write_restart_settings(FILE *) override;
  void read_restart_settings(FILE *) override;
  void write_data(FILE *) override;
  void write_data_all(FILE *) override;
  int pack_forward_comm(int, int *, double *, int, int *) override;
  void unpack_forward_comm(int, int, double *) override;
  int pack_reverse_comm(int, int, double *) override;
  void unpack_reverse_comm(int, int *, double *) override;
  double memory_usage() override;

 private:
  pk_mdpd *model;
  double temperature, cut_global;
  int seed;
  int kernel;          // pk_mdpd_kernel chosen by the user
  int noise;           // pk_mdpd_noise chosen by the user
  double *rho_own;     // density storage when the atom style has no rho
  int nmax_own;
  double *rho;         // where this step's density lives (atom->rho or rho_own)
  PairKit::BackendArgs backend;

  static void reverse_rho(void *self);
  static void forward_rho(void *self);

  void apply_settings();
  void ensure_model();
  void set_coeff(int ilo, int ihi, int jlo, int jhi, double A, double B, double gamma,
                 double rc, double rd);
  class PairMDPDRhosumPK *find_companion();
};

}    // namespace LAMMPS_NS
#endif
