#include "pair_mdpd_rhosum_pk.h"

#include "pair_mdpd_pk.h"
#include "pk_adapter.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "memory.h"

using namespace LAMMPS_NS;

PairMDPDRhosumPK::PairMDPDRhosumPK(LAMMPS *lmp) : Pair(lmp), cut(nullptr)
{
  restartinfo = 1;
  single_enable = 0;
}

PairMDPDRhosumPK::~PairMDPDRhosumPK()
{
  if (allocated) memory->destroy(cut);
  PairKit::free_pair_tables(lmp, this);
}

// The density is computed by mdpd/pk in its own pass; nothing to do here.
void PairMDPDRhosumPK::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
}

void PairMDPDRhosumPK::allocate()
{
  PairKit::allocate_pair_tables(lmp, this);
  const int n = atom->ntypes;
  memory->create(cut, n + 1, n + 1, "pair:cut");
  for (int i = 0; i <= n; i++)
    for (int j = 0; j <= n; j++) cut[i][j] = 0.0;
}

void PairMDPDRhosumPK::settings(int narg, char **)
{
  if (narg != 0) error->all(FLERR, "Illegal pair_style mdpd/rhosum/pk command: it takes no arguments");
}

/* pair_coeff i j h */
void PairMDPDRhosumPK::coeff(int narg, char **arg)
{
  if (narg != 3) error->all(FLERR, "Incorrect args for mdpd/rhosum/pk coefficients: expected i j h");
  if (!allocated) allocate();
  int ilo, ihi, jlo, jhi;
  utils::bounds(FLERR, arg[0], 1, atom->ntypes, ilo, ihi, error);
  utils::bounds(FLERR, arg[1], 1, atom->ntypes, jlo, jhi, error);
  const double h = utils::numeric(FLERR, arg[2], false, lmp);
  if (h <= 0.0) error->all(FLERR, "mdpd/rhosum/pk: density cutoff must be > 0 (got {})", h);
  int count = 0;
  for (int i = ilo; i <= ihi; i++)
    for (int j = MAX(jlo, i); j <= jhi; j++) {
      cut[i][j] = cut[j][i] = h;
      setflag[i][j] = 1;
      count++;
    }
  if (count == 0) error->all(FLERR, "Incorrect args for mdpd/rhosum/pk coefficients: no type pair");
}

void PairMDPDRhosumPK::init_style()
{
  // The partner's keyword is "mdpd" under `suffix pk`, "mdpd/pk" when named explicitly.
  Pair *partner = force->pair_match("^mdpd$", 0);
  if (!partner) partner = force->pair_match("^mdpd/pk$", 0);
  if (!dynamic_cast<PairMDPDPK *>(partner))
    error->all(FLERR, "pair_style mdpd/rhosum/pk only works together with mdpd/pk in pair_style "
                      "hybrid/overlay (it holds the density cutoffs; mdpd/pk computes the density)");
}

double PairMDPDRhosumPK::init_one(int i, int j)
{
  if (setflag[i][j] == 0) error->all(FLERR, "mdpd/rhosum/pk: coefficients for type pair {} {} are not set", i, j);
  return cut[i][j];
}

void PairMDPDRhosumPK::write_restart(FILE *fp)
{
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) {
      fwrite(&setflag[i][j], sizeof(int), 1, fp);
      if (setflag[i][j]) fwrite(&cut[i][j], sizeof(double), 1, fp);
    }
}

void PairMDPDRhosumPK::read_restart(FILE *fp)
{
  allocate();
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) {
      if (comm->me == 0) utils::sfread(FLERR, &setflag[i][j], sizeof(int), 1, fp, nullptr, error);
      MPI_Bcast(&setflag[i][j], 1, MPI_INT, 0, world);
      if (!setflag[i][j]) continue;
      if (comm->me == 0) utils::sfread(FLERR, &cut[i][j], sizeof(double), 1, fp, nullptr, error);
      MPI_Bcast(&cut[i][j], 1, MPI_DOUBLE, 0, world);
      cut[j][i] = cut[i][j];
    }
}
