/* Plugin entry: registers every PairKit style with LAMMPS, after checking that the running
 * LAMMPS is the version the plugin was compiled against (LAMMPS itself only logs a note,
 * and a mismatched C++ ABI gives crashes or silently wrong results). */
#include "lammpsplugin.h"

#include "error.h"
#include "lammps.h"
#include "library.h"
#include "utils.h"

#include "pair_amoeba_pk.h"
#include "pair_deepmd_pk.h"
#include "pair_hdnnp_pk.h"
#include "pair_mdpd_pk.h"
#include "pair_mdpd_rhosum_pk.h"

using namespace LAMMPS_NS;

// Set by CMake from the headers the plugin is compiled against.
#ifndef PK_LAMMPS_BUILT_VERSION
#error "PK_LAMMPS_BUILT_VERSION must name the LAMMPS version of the headers"
#endif
#ifndef PK_LAMMPS_BUILT_NUM
#error "PK_LAMMPS_BUILT_NUM must be the numeric LAMMPS version of the headers"
#endif

template <class T> static Pair *create(LAMMPS *lmp)
{
  return new T(lmp);
}

static void add(lammpsplugin_regfunc reg, void *lmp, void *handle, const char *name,
                const char *info, lammpsplugin_factory1 *creator)
{
  lammpsplugin_t plugin;
  plugin.version = PK_LAMMPS_BUILT_VERSION;
  plugin.style = "pair";
  plugin.name = name;
  plugin.info = info;
  plugin.author = "PairKit developers";
  plugin.creator.v1 = creator;
  plugin.handle = handle;
  (*reg)(&plugin, lmp);
}

extern "C" void lammpsplugin_init(void *lmp_ptr, void *handle, void *regfunc)
{
  auto lmp = static_cast<LAMMPS *>(lmp_ptr);
  // lammps_version() is part of the stable C library interface, safe on any version.
  const int running = lammps_version(lmp_ptr);
  if (running != PK_LAMMPS_BUILT_NUM)
    lmp->error->all(FLERR,
                    "PairKit plugin was built for LAMMPS version {} ({}) but is loaded into "
                    "LAMMPS version {}: rebuild PairKit against this LAMMPS",
                    PK_LAMMPS_BUILT_VERSION, PK_LAMMPS_BUILT_NUM, running);

  auto reg = (lammpsplugin_regfunc) regfunc;
  add(reg, lmp_ptr, handle, "mdpd/pk", "PairKit many-body DPD (density computed in the style)",
      (lammpsplugin_factory1 *) &create<PairMDPDPK>);
  add(reg, lmp_ptr, handle, "mdpd/rhosum/pk",
      "PairKit companion of mdpd/pk for LAMMPS mdpd/rhosum inputs",
      (lammpsplugin_factory1 *) &create<PairMDPDRhosumPK>);
  add(reg, lmp_ptr, handle, "deepmd/pk", "PairKit Deep Potential (DeePMD-kit se_e2_a models)",
      (lammpsplugin_factory1 *) &create<PairDeepMDPK>);
  add(reg, lmp_ptr, handle, "amoeba/pk",
      "PairKit AMOEBA non-bonded terms (HAL, multipoles, polarization) without Ewald",
      (lammpsplugin_factory1 *) &create<PairAmoebaPK>);
  add(reg, lmp_ptr, handle, "hdnnp/pk",
      "PairKit Behler-Parrinello neural network potential (n2p2 models)",
      (lammpsplugin_factory1 *) &create<PairHDNNPPK>);
}
