/* Companion of mdpd/pk for unchanged LAMMPS DPD-MESO inputs run with `suffix pk`:
 *   pair_style hybrid/overlay mdpd/rhosum mdpd T rc seed
 * becomes mdpd/rhosum/pk + mdpd/pk. This style only holds the density cutoffs given to
 * pair_coeff; mdpd/pk finds it, computes the Lucy density itself in its own pass (mass
 * weighted, cutoff h from here) and fills atom->rho, so this style computes nothing. */
#ifndef PK_PAIR_MDPD_RHOSUM_PK_H
#define PK_PAIR_MDPD_RHOSUM_PK_H

#include "pair.h"

namespace LAMMPS_NS {

class PairMDPDRhosumPK : public Pair {
 public:
  PairMDPDRhosumPK(class LAMMPS *);
  ~PairMDPDRhosumPK() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;
  void write_restart(FILE *) override;
  void read_restart(FILE *) override;

  double density_cutoff(int i, int j) const { return cut[i][j]; }

 private:
  double **cut;
  void allocate();
};

}    // namespace LAMMPS_NS
#endif
