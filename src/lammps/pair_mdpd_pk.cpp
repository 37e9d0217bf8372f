#include "pair_mdpd_pk.h"

#include "pair_mdpd_rhosum_pk.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "neigh_list.h"
#include "neigh_request.h"
#include "neighbor.h"
#include "update.h"

#include <cstring>

extern "C" {
#include "mdpd.h"
}

using namespace LAMMPS_NS;

static const char STYLE[] = "pair_style mdpd/pk";

PairMDPDPK::PairMDPDPK(LAMMPS *lmp) :
    Pair(lmp), model(nullptr), temperature(0.0), cut_global(0.0), seed(0),
    kernel(PK_MDPD_WARREN), noise(PK_MDPD_NOISE_GAUSSIAN), rho_own(nullptr), nmax_own(0),
    rho(nullptr)
{
  writedata = 1;
  restartinfo = 1;
  single_enable = 0;
  comm_forward = 1;
  comm_reverse = 1;
  no_virial_fdotr_compute = 1;    // the core tallies the virial itself
}

PairMDPDPK::~PairMDPDPK()
{
  pk_mdpd_destroy(model);
  memory->destroy(rho_own);
  PairKit::free_pair_tables(lmp, this);
}

static const char USAGE[] =
    "expected T rc seed [density warren|lucy] [noise gaussian|uniform] [backend auto|cpu|cuda] "
    "[precision double|mixed] [device N]";

/* pair_style mdpd/pk T rc seed [density warren|lucy] [noise gaussian|uniform] [backend ...]
 * [precision ...] [device N] */
void PairMDPDPK::settings(int narg, char **arg)
{
  if (narg < 3) error->all(FLERR, "Illegal pair_style mdpd/pk command: {}", USAGE);
  temperature = utils::numeric(FLERR, arg[0], false, lmp);
  cut_global = utils::numeric(FLERR, arg[1], false, lmp);
  seed = utils::inumeric(FLERR, arg[2], false, lmp);
  kernel = PK_MDPD_WARREN;
  noise = PK_MDPD_NOISE_GAUSSIAN;
  backend = PairKit::BackendArgs();
  for (int iarg = 3; iarg < narg; iarg += 2) {
    if (PairKit::parse_backend_keyword(lmp, STYLE, narg, arg, iarg, backend)) continue;
    if (strcmp(arg[iarg], "noise") == 0) {
      if (iarg + 1 >= narg)
        error->all(FLERR, "Illegal pair_style mdpd/pk command: noise needs gaussian or uniform");
      if (strcmp(arg[iarg + 1], "gaussian") == 0)
        noise = PK_MDPD_NOISE_GAUSSIAN;
      else if (strcmp(arg[iarg + 1], "uniform") == 0)
        noise = PK_MDPD_NOISE_UNIFORM;
      else
        error->all(FLERR, "Illegal pair_style mdpd/pk noise {}: expected gaussian or uniform",
                   arg[iarg + 1]);
      continue;
    }
    if (strcmp(arg[iarg], "density") != 0)
      error->all(FLERR, "Illegal pair_style mdpd/pk keyword: {} ({})", arg[iarg], USAGE);
    if (iarg + 1 >= narg) error->all(FLERR, "Illegal pair_style mdpd/pk command: density needs warren or lucy");
    if (strcmp(arg[iarg + 1], "warren") == 0)
      kernel = PK_MDPD_WARREN;
    else if (strcmp(arg[iarg + 1], "lucy") == 0)
      kernel = PK_MDPD_LUCY;
    else
      error->all(FLERR, "Illegal pair_style mdpd/pk density kernel {}: expected warren or lucy", arg[iarg + 1]);
  }
  if (seed <= 0) error->all(FLERR, "{}: seed must be a positive integer (got {})", STYLE, seed);
  pk_status st;
  pk_status_clear(&st);
  pk_mdpd_check_settings(force->boltz * temperature, cut_global, (uint32_t) seed, &st);
  PairKit::check(lmp, STYLE, st, true);
  if (model) apply_settings();    // a repeated pair_style keeps the coefficients
}

void PairMDPDPK::apply_settings()
{
  pk_status st;
  pk_status_clear(&st);
  pk_mdpd_settings(model, force->boltz * temperature, cut_global, (uint32_t) seed,
                   (pk_mdpd_kernel) kernel, &st);
  PairKit::check(lmp, STYLE, st, true);
  pk_mdpd_set_noise(model, (pk_mdpd_noise) noise, &st);
  PairKit::check(lmp, STYLE, st, true);
}

// The model needs the number of atom types, which is known only once the box exists
// (pair_style may come before read_data), so it is made on the first coefficient.
void PairMDPDPK::ensure_model()
{
  if (model) return;
  model = pk_mdpd_create(atom->ntypes);
  if (!model) error->one(FLERR, "{}: out of memory", STYLE);
  apply_settings();
}

void PairMDPDPK::set_coeff(int ilo, int ihi, int jlo, int jhi, double A, double B, double gamma,
                           double rc, double rd)
{
  ensure_model();
  pk_status st;
  pk_status_clear(&st);
  pk_mdpd_coeff(model, ilo, ihi, jlo, jhi, A, B, gamma, rc, rd, &st);
  PairKit::check(lmp, "pair_coeff for mdpd/pk", st, true);
  if (!allocated) PairKit::allocate_pair_tables(lmp, this);
  for (int i = ilo; i <= ihi; i++)
    for (int j = MAX(jlo, i); j <= jhi; j++) setflag[i][j] = 1;
}

/* pair_coeff i j A B gamma rc rd */
void PairMDPDPK::coeff(int narg, char **arg)
{
  if (narg != 7) error->all(FLERR, "Incorrect args for pair coefficients: expected i j A B gamma rc rd");
  int ilo, ihi, jlo, jhi;
  utils::bounds(FLERR, arg[0], 1, atom->ntypes, ilo, ihi, error);
  utils::bounds(FLERR, arg[1], 1, atom->ntypes, jlo, jhi, error);
  const double A = utils::numeric(FLERR, arg[2], false, lmp);
  const double B = utils::numeric(FLERR, arg[3], false, lmp);
  const double gamma = utils::numeric(FLERR, arg[4], false, lmp);
  const double rc = utils::numeric(FLERR, arg[5], false, lmp);
  const double rd = utils::numeric(FLERR, arg[6], false, lmp);
  if (jhi < ilo) error->all(FLERR, "Incorrect args for pair coefficients: no type pair i <= j");
  set_coeff(ilo, ihi, jlo, jhi, A, B, gamma, rc, rd);
}

// Under hybrid/overlay the sub-style keyword is "mdpd/rhosum" when `suffix pk` made it ours,
// "mdpd/rhosum/pk" when named explicitly. LAMMPS's own mdpd/rhosum beside mdpd/pk would
// compute a second, unused density: refuse it.
PairMDPDRhosumPK *PairMDPDPK::find_companion()
{
  Pair *p = force->pair_match("^mdpd/rhosum", 0);
  if (!p) return nullptr;
  auto companion = dynamic_cast<PairMDPDRhosumPK *>(p);
  if (!companion)
    error->all(FLERR, "{}: use mdpd/rhosum/pk (or `suffix pk`) instead of mdpd/rhosum beside it; "
                      "mdpd/pk computes the density itself", STYLE);
  return companion;
}

void PairMDPDPK::init_style()
{
  if (!comm->ghost_velocity)
    error->all(FLERR, "{} requires ghost atoms to store velocity: use comm_modify vel yes", STYLE);
  if (!atom->tag_enable) error->all(FLERR, "{} requires atom IDs (atom_modify id yes)", STYLE);
  if (update->dt <= 0.0) error->all(FLERR, "{} requires a positive timestep", STYLE);

  pk_status st;
  pk_status_clear(&st);
  PairMDPDRhosumPK *companion = find_companion();
  pk_mdpd_set_kernel(model, companion ? PK_MDPD_LUCY : (pk_mdpd_kernel) kernel);
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++)
      if (pk_mdpd_density_cutoff(model, i, j, companion ? companion->density_cutoff(i, j) : 0.0, &st))
        PairKit::check(lmp, STYLE, st, true);
  pk_mdpd_init(model, &st);
  PairKit::check(lmp, STYLE, st, true);
  if (companion && !atom->rho_flag)
    error->all(FLERR, "{} with mdpd/rhosum/pk requires atom attribute rho (atom_style mdpd)", STYLE);

  // the backend copies the coefficients, so it is chosen again at every init
  const pk_backend_request req = PairKit::backend_request(lmp, STYLE, backend);
  pk_mdpd_set_backend(model, &req, &st);
  PairKit::check(lmp, STYLE, st, true);
  // the cuda backend sums each atom over its own full list (no reverse communication)
  if (pk_mdpd_full_list(model))
    neighbor->add_request(this, NeighConst::REQ_FULL);
  else
    neighbor->add_request(this);

  const pk_backend_slot *slot = pk_mdpd_backend(model);
  if (comm->me == 0)
    utils::logmesg(lmp, "{}: {}, density kernel {}{}, {} noise\n", STYLE,
                   PairKit::backend_text(slot->info, slot->note),
                   pk_mdpd_kernel_of(model) == PK_MDPD_LUCY ? "lucy" : "warren",
                   companion ? " (cutoffs from mdpd/rhosum/pk, as LAMMPS mdpd/rhosum)" : "",
                   noise == PK_MDPD_NOISE_UNIFORM ? "uniform" : "gaussian");
  if (slot->info.kind == PK_BACKEND_CUDA) PairKit::log_devices(lmp, STYLE, slot->info);
}

double PairMDPDPK::init_one(int i, int j)
{
  if (setflag[i][j] == 0) error->all(FLERR, "{}: coefficients for type pair {} {} are not set", STYLE, i, j);
  return pk_mdpd_cutoff(model, i, j);
}

void PairMDPDPK::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  // the dissipative force uses the velocities too
  PairKit::check_finite(lmp, STYLE, true);

  // Density storage: atom->rho when the atom style has it (so it can be output), else ours.
  if (atom->rho_flag) {
    rho = atom->rho;
  } else {
    if (atom->nmax > nmax_own) {
      memory->destroy(rho_own);
      nmax_own = atom->nmax;
      memory->create(rho_own, nmax_own, "pair:rho");
    }
    rho = rho_own;
  }

  const pk_atoms atoms = PairKit::atoms_view(lmp);
  const pk_neigh nl = PairKit::neigh_view(list);
  pk_mdpd_step step;
  step.timestep = (uint64_t) update->ntimestep;
  step.dt = update->dt;
  step.special = force->special_lj;
  const pk_mdpd_args args = {&atoms, &nl, force->newton_pair, neighbor->ago == 0, rho, &step,
                             {reverse_rho, forward_rho, this}};
  pk_out out = PairKit::output_view(lmp, this);
  pk_status st;
  pk_status_clear(&st);
  if (pk_mdpd_compute(model, &args, &out, &st)) PairKit::check(lmp, STYLE, st, false);
  PairKit::add_totals(this, out);
}

// The density's ghost communication, called by the backend between its two passes: ghost
// partial sums into their owners (newton on, half list), then owners out to their ghosts.
void PairMDPDPK::reverse_rho(void *self)
{
  auto pair = static_cast<PairMDPDPK *>(self);
  pair->comm->reverse_comm(pair);
}

void PairMDPDPK::forward_rho(void *self)
{
  auto pair = static_cast<PairMDPDPK *>(self);
  pair->comm->forward_comm(pair);
}

int PairMDPDPK::pack_forward_comm(int n, int *list, double *buf, int, int *)
{
  for (int k = 0; k < n; k++) buf[k] = rho[list[k]];
  return n;
}

void PairMDPDPK::unpack_forward_comm(int n, int first, double *buf)
{
  for (int k = 0; k < n; k++) rho[first + k] = buf[k];
}

int PairMDPDPK::pack_reverse_comm(int n, int first, double *buf)
{
  for (int k = 0; k < n; k++) buf[k] = rho[first + k];
  return n;
}

void PairMDPDPK::unpack_reverse_comm(int n, int *list, double *buf)
{
  for (int k = 0; k < n; k++) rho[list[k]] += buf[k];
}

void PairMDPDPK::write_restart_settings(FILE *fp)
{
  fwrite(&temperature, sizeof(double), 1, fp);
  fwrite(&cut_global, sizeof(double), 1, fp);
  fwrite(&seed, sizeof(int), 1, fp);
  // kernel (0/1) in bit 0, noise in bit 1: restart files written before the noise keyword
  // existed hold 0 or 1 there, and read back as gaussian noise, as they ran
  const int kernel_noise = kernel | (noise << 1);
  fwrite(&kernel_noise, sizeof(int), 1, fp);
}

void PairMDPDPK::read_restart_settings(FILE *fp)
{
  if (comm->me == 0) {
    utils::sfread(FLERR, &temperature, sizeof(double), 1, fp, nullptr, error);
    utils::sfread(FLERR, &cut_global, sizeof(double), 1, fp, nullptr, error);
    utils::sfread(FLERR, &seed, sizeof(int), 1, fp, nullptr, error);
    utils::sfread(FLERR, &kernel, sizeof(int), 1, fp, nullptr, error);
  }
  MPI_Bcast(&temperature, 1, MPI_DOUBLE, 0, world);
  MPI_Bcast(&cut_global, 1, MPI_DOUBLE, 0, world);
  MPI_Bcast(&seed, 1, MPI_INT, 0, world);
  MPI_Bcast(&kernel, 1, MPI_INT, 0, world);
  noise = (kernel >> 1) & 1;    // see write_restart_settings
  kernel &= 1;
  if (model) apply_settings();
}

void PairMDPDPK::write_restart(FILE *fp)
{
  write_restart_settings(fp);
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) {
      double c[5] = {0, 0, 0, 0, 0};
      int set = model && pk_mdpd_get_coeff(model, i, j, &c[0], &c[1], &c[2], &c[3], &c[4]);
      fwrite(&set, sizeof(int), 1, fp);
      if (set) fwrite(c, sizeof(double), 5, fp);
    }
}

void PairMDPDPK::read_restart(FILE *fp)
{
  read_restart_settings(fp);
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) {
      int set = 0;
      double c[5];
      if (comm->me == 0) utils::sfread(FLERR, &set, sizeof(int), 1, fp, nullptr, error);
      MPI_Bcast(&set, 1, MPI_INT, 0, world);
      if (!set) continue;
      if (comm->me == 0) utils::sfread(FLERR, c, sizeof(double), 5, fp, nullptr, error);
      MPI_Bcast(c, 5, MPI_DOUBLE, 0, world);
      set_coeff(i, i, j, j, c[0], c[1], c[2], c[3], c[4]);
    }
}

void PairMDPDPK::write_data(FILE *fp)
{
  for (int i = 1; i <= atom->ntypes; i++) {
    double A, B, g, rc, rd;
    pk_mdpd_get_coeff(model, i, i, &A, &B, &g, &rc, &rd);
    fprintf(fp, "%d %g %g %g %g %g\n", i, A, B, g, rc, rd);
  }
}

void PairMDPDPK::write_data_all(FILE *fp)
{
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) {
      double A, B, g, rc, rd;
      pk_mdpd_get_coeff(model, i, j, &A, &B, &g, &rc, &rd);
      fprintf(fp, "%d %d %g %g %g %g %g\n", i, j, A, B, g, rc, rd);
    }
}

double PairMDPDPK::memory_usage()
{
  return Pair::memory_usage() + (double) nmax_own * sizeof(double) +
      (model ? pk_mdpd_memory_usage(model) : 0.0);
}
