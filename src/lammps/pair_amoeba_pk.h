/* LAMMPS adapter for amoeba/pk: AMOEBA's non-bonded terms (HAL, permanent multipoles,
 * induced dipoles) without Ewald, on the amoeba/pk C core.
 *
 * pair_amoeba_pk.cpp: arguments, force-field files, checks, the backend, the step, output
 * and restart.
 * pair_amoeba_pk_topology.cpp: the per-atom bookkeeping LAMMPS `pair amoeba` does —
 * once per run the polarization groups (i_amgroup) and the multipole frames (kind in
 * i_polaxe, frame-atom tags in d2_xyzaxis, so that both migrate with the atoms); on every
 * reneighbouring the H-reduction partners of owned and ghost atoms, the local indices of
 * the frame atoms, each atom's multipole record, the owned copy of each ghost and the
 * core's neighbour list with 1-5 classes. */
#ifndef PK_PAIR_AMOEBA_PK_H
#define PK_PAIR_AMOEBA_PK_H

#include "pair.h"
#include "pk_adapter.h"

#include <string>
#include <vector>

extern "C" {
#include "pk_amoeba.h"
}

namespace LAMMPS_NS {

class PairAmoebaPK : public Pair {
 public:
  PairAmoebaPK(class LAMMPS *);
  ~PairAmoebaPK() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;
  void finish() override;
  void write_restart(FILE *) override;
  void read_restart(FILE *) override;
  void write_restart_settings(FILE *) override;
  void read_restart_settings(FILE *) override;
  int pack_forward_comm(int, int *, double *, int, int *) override;
  void unpack_forward_comm(int, int, double *) override;
  int pack_reverse_comm(int, int, double *) override;
  void unpack_reverse_comm(int, int *, double *) override;
  void *extract(const char *, int &) override;
  double memory_usage() override;

 private:
  // settings (pair_style), kept in restart files
  int elec;                       // pk_amoeba_elec
  double taper_arg;               // start of the elec smooth switches (0: the key's)
  pk_amoeba_terms terms;          // hal, mpole, polar
  int bonded_flags[7];            // bond angle dihedral improper urey pitorsion bitorsion,
                                  // for LAMMPS's AMOEBA bonded styles (extract())
  PairKit::BackendArgs backend;   // backend, precision, device: chosen in init_style; a
                                  // run-time setting, not written to restart files
  // force field (pair_coeff)
  pk_amoeba_model model;
  bool have_model;
  std::string prm_path;           // for messages
  double key_taper[2];            // the key's multipole and polarization switch starts

  // per-atom properties of atom_style amoeba (fix property/atom)
  int index_amtype, index_amgroup, index_polaxe, index_xyzaxis;

  // core state and the adapter's per-atom arrays (owned + ghost, sized atom->nmax)
  pk_amoeba_state state;
  pk_amoeba_list nlist;
  int nmax_local;
  std::vector<pk_tag> hred_tag;   // H-reduction partner (LAMMPS redID), 0 if none
  std::vector<int> hred;          // its closest local image
  std::vector<int> mpole_rec;     // multipole record of each owned atom
  std::vector<pk_tag> frame_tag;  // z, x, y frame atoms (tags, 0 unused), 3 per owned atom
  std::vector<int> frame;         // the same as closest local images
  std::vector<int> owner;         // each atom's owned copy on this rank, -1 if none
  bool topology_pending;          // groups and frames are assigned at the first compute
  bool warned_unconverged;

  // what pack/unpack_forward/reverse_comm move
  enum CommKind { COMM_DOUBLES, COMM_INTS, COMM_BONDS };
  CommKind comm_kind;
  double *comm_doubles;
  int *comm_ints;
  int comm_ncol;
  std::vector<int> ghost_nbond;       // 1-2 partner counts of owned and ghost atoms
  std::vector<pk_tag> ghost_bonds;    // their tags, atom->maxspecial per atom

  void free_model();
  double init_one_cutoff() const;   // the largest cutoff of the force field
  void setup_switches();            // elec smooth switch starts (pair_style or key taper)
  void check_atom_style();
  void check_atom_types();
  pk_atoms atoms();
  pk_amoeba_topology topology();
  pk_amoeba_sites sites();
  [[noreturn]] void fail(const pk_status &st);
  void forward_ints(int *v);
  void grow_local();
  // the core's pk_amoeba_comm and pk_amoeba_topology callbacks (ctx = this)
  static void forward_cb(void *ctx, double *v, int ncol);
  static void reverse_cb(void *ctx, double *v, int ncol);
  static void allreduce_cb(void *ctx, double *v, int n);
  static int map_cb(void *ctx, pk_tag tag, int near_i);

  // pair_amoeba_pk_topology.cpp
  void assign_groups();
  void assign_frames();
  void refresh_topology();
  void find_mpole_records();
};

}    // namespace LAMMPS_NS
#endif
