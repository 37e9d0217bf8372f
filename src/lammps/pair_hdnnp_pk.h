/* LAMMPS adapter for hdnnp/pk: Behler-Parrinello neural network potentials from n2p2 model
 * directories (src/hdnnp/pk_hdnnp.h), a drop-in for LAMMPS `hdnnp`:
 *   pair_style hdnnp/pk cutoff [dir D] [showew yes|no] [showewsum N] [maxew N]
 *                              [resetew yes|no] [cflength X] [cfenergy Y]
 *                              [backend auto|cpu|cuda|sve] [precision double|mixed] [device N]
 *   pair_coeff * * H O        (element per LAMMPS type, NULL for none)
 * Thin layer: arguments, type mapping, a full neighbour list (newton pair on), unit
 * conversion (positions x cflength into the model, energies / cfenergy back), energy/virial
 * tally, the extrapolation-warning policy and an end-of-run timing summary. */
#ifndef PK_PAIR_HDNNP_PK_H
#define PK_PAIR_HDNNP_PK_H

#include "pair.h"
#include "pk_adapter.h"

#include <string>
#include <vector>

struct pk_hdnnp_model;
struct pk_hdnnp_context;

namespace LAMMPS_NS {

class PairHDNNPPK : public Pair {
 public:
  PairHDNNPPK(class LAMMPS *);
  ~PairHDNNPPK() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;
  void finish() override;
  double memory_usage() override;

 private:
  pk_hdnnp_model *model;
  pk_hdnnp_context *ctx;
  std::string dir;
  double cutoff, cflength, cfenergy;
  bool showew, resetew;
  bigint showewsum, maxew;
  std::vector<int> type_to_element;    // by LAMMPS type (entry 0 unused), -1 for NULL
  PairKit::BackendArgs backend;        // chosen in init_style; a run-time setting, not restarted

  // Positions in model length units and forces in model units, owned + ghost atoms.
  double **x_model, **f_model;
  int nmax;

  // Extrapolation warnings summed over ranks: since the last summary, and the count maxew
  // is compared with (this step with resetew yes, else since pair_style).
  bigint ew_summary, ew_total;

  // Core timings at the start of the run and centre evaluations since then (this rank).
  double run_start[3];
  bigint evaluations;

  void load_model();
  void grow_buffers();
  void extrapolation_warnings();
  void print_warnings(bigint count);
};

}    // namespace LAMMPS_NS
#endif
