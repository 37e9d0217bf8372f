/* Helpers shared by the PairKit LAMMPS adapters: C views of LAMMPS data and the turning of
 * core statuses and log lines into LAMMPS errors and log output. */
#ifndef PK_ADAPTER_H
#define PK_ADAPTER_H

#include "pk_backend.h"
#include "pk_log.h"
#include "pk_status.h"
#include "pk_views.h"

#include <string>

namespace LAMMPS_NS {
class LAMMPS;
class NeighList;
class Pair;
}    // namespace LAMMPS_NS

namespace PairKit {

// Owned and ghost atoms of this rank. Velocities are included when the atom style has them.
pk_atoms atoms_view(LAMMPS_NS::LAMMPS *lmp);
pk_neigh neigh_view(const LAMMPS_NS::NeighList *list);
// The per-type-pair tables every pair style needs (setflag cleared, cutsq), sized by the
// current number of atom types; sets pair->allocated. free_pair_tables undoes it.
void allocate_pair_tables(LAMMPS_NS::LAMMPS *lmp, LAMMPS_NS::Pair *pair);
void free_pair_tables(LAMMPS_NS::LAMMPS *lmp, LAMMPS_NS::Pair *pair);
// Where a core writes this step's results: atom->f, and the pair's per-atom energy/virial
// arrays when LAMMPS asked for them (after ev_init). Totals start at zero.
pk_out output_view(LAMMPS_NS::LAMMPS *lmp, const LAMMPS_NS::Pair *pair);
// Add the core's global energy and virial to the pair's totals, as far as requested.
void add_totals(LAMMPS_NS::Pair *pair, const pk_out &out);
// A logger that writes through utils::logmesg on rank 0.
pk_logger logger(LAMMPS_NS::LAMMPS *lmp);
// Stop (error->one naming the atom's tag, its value and the step) when a position -- or, with
// velocities, a velocity -- of an owned or ghost atom is NaN or infinite. LAMMPS checks
// positions only when it re-neighbours (Domain::pbc), so a non-finite velocity or force
// reaches a pair style at the steps in between; this keeps it from computing NaN forces.
void check_finite(LAMMPS_NS::LAMMPS *lmp, const char *style, bool velocities);
// Stop (error->one naming the atom's tag, its force and the step, then hint) when the force
// on an owned or ghost atom is NaN or infinite after the style's compute.
void check_forces(LAMMPS_NS::LAMMPS *lmp, const char *style, const char *hint);
// error->all (collective=true, for problems every rank sees) or error->one with
// "<style>: <message>"; returns normally only when st is OK.
void check(LAMMPS_NS::LAMMPS *lmp, const char *style, const pk_status &st, bool collective);

// The keywords every /pk pair style takes: backend auto|cpu|cuda|sve, precision
// double|mixed, device N (a GPU index; default: round-robin by node-local rank).
struct BackendArgs {
  pk_backend_request req;
  bool kind_set = false, precision_set = false;
  BackendArgs() { pk_backend_request_default(&req); }
};
// When arg[iarg] is one of those keywords, read it and its value into b and return 2;
// otherwise return 0. A missing or bad value is a LAMMPS error naming the style.
int parse_backend_keyword(LAMMPS_NS::LAMMPS *lmp, const char *style, int narg, char **arg,
                          int iarg, BackendArgs &b);
// The request to choose with: b plus PAIRKIT_BACKEND / PAIRKIT_PRECISION where the input
// left a keyword out, and this rank's place among the ranks of its node.
pk_backend_request backend_request(LAMMPS_NS::LAMMPS *lmp, const char *style,
                                   const BackendArgs &b);
// One line per rank on rank 0's log: which device each rank runs on.
void log_devices(LAMMPS_NS::LAMMPS *lmp, const char *style, const pk_backend_info &info);
// "cuda backend, mixed precision, <device>" (+ why auto passed a faster backend over).
std::string backend_text(const pk_backend_info &info, const char *note);

}    // namespace PairKit
#endif
