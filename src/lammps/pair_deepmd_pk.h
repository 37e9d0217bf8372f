/* LAMMPS adapter for deepmd/pk: DeePMD-kit se_e2_a models (src/deepmd/deepmd.h).
 *   pair_style deepmd/pk model.yaml|model.dp [tabulate yes|no] [table_step x] [table_rmin r]
 *                        [backend auto|cpu|cuda|sve] [precision double|mixed] [device N]
 *   pair_coeff * * O H        (type_map names per LAMMPS type, NULL for none; no names:
 *                              LAMMPS type t = model type t, as DeePMD-kit's pair_style deepmd)
 * Thin layer: arguments, type mapping, a full neighbour list (newton pair on), LAMMPS
 * arrays -> C views, energy/virial tally, and a warning when sel overflowed during a run. */
#ifndef PK_PAIR_DEEPMD_PK_H
#define PK_PAIR_DEEPMD_PK_H

#include "pair.h"
#include "pk_adapter.h"

#include <string>

struct pk_deepmd;

namespace LAMMPS_NS {

class PairDeepMDPK : public Pair {
 public:
  PairDeepMDPK(class LAMMPS *);
  ~PairDeepMDPK() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;
  void finish() override;
  double memory_usage() override;

 private:
  pk_deepmd *model;
  std::string path;
  int tabulate;
  double table_step;
  double table_rmin;    // shortest distance the fine table range covers (Angstrom)
  PairKit::BackendArgs backend;    // chosen in init_style; a run-time setting, not restarted
};

}    // namespace LAMMPS_NS
#endif
