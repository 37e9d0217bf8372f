#include "pair_deepmd_pk.h"

#include "pk_adapter.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "neigh_list.h"
#include "neighbor.h"
#include "update.h"

#include <cstring>
#include <vector>

extern "C" {
#include "deepmd.h"
}

using namespace LAMMPS_NS;

static const char STYLE[] = "pair_style deepmd/pk";

PairDeepMDPK::PairDeepMDPK(LAMMPS *lmp) :
    Pair(lmp), model(nullptr), tabulate(1), table_step(0.01), table_rmin(0.5)
{
  single_enable = 0;
  restartinfo = 0;
  one_coeff = 1;
  manybody_flag = 1;
  no_virial_fdotr_compute = 1;    // the core tallies the virial itself
  centroidstressflag = CENTROID_NOTAVAIL;
}

PairDeepMDPK::~PairDeepMDPK()
{
  pk_deepmd_destroy(model);
  PairKit::free_pair_tables(lmp, this);
}

/* pair_style deepmd/pk model [tabulate yes|no] [table_step x] [table_rmin r]
 *                      [backend auto|cpu|cuda|sve] [precision double|mixed] [device N]
 *                      [cuda_tune yes|no] [cuda_columns 1|2|4] [cuda_centres N]
 *                      [cuda_threads N]
 * The cuda_* keywords fix the CUDA backend's launch shape (deepmd.h: pk_deepmd_launch);
 * other backends ignore them. */
void PairDeepMDPK::settings(int narg, char **arg)
{
  if (narg < 1)
    error->all(FLERR, "Illegal {} command: expected model.yaml|model.dp [tabulate yes|no] "
                      "[table_step x] [table_rmin r] [backend auto|cpu|cuda|sve] "
                      "[precision double|mixed] [device N] [cuda_tune yes|no] "
                      "[cuda_columns 1|2|4] [cuda_centres N] [cuda_threads N]", STYLE);
  path = arg[0];
  pk_deepmd_options o;
  pk_deepmd_options_default(&o);
  tabulate = o.tabulate;
  table_step = o.table_step;
  table_rmin = o.table_rmin;
  backend = PairKit::BackendArgs();
  for (int iarg = 1; iarg < narg; iarg += 2) {
    if (PairKit::parse_backend_keyword(lmp, STYLE, narg, arg, iarg, backend)) continue;
    if (iarg + 1 >= narg)
      error->all(FLERR, "Illegal {} command: keyword {} needs a value", STYLE, arg[iarg]);
    pk_status st;
    if (pk_deepmd_launch_parse(&o.cuda, arg[iarg], arg[iarg + 1], &st))
      PairKit::check(lmp, STYLE, st, true);
    else if (strcmp(arg[iarg], "tabulate") == 0)
      tabulate = utils::logical(FLERR, arg[iarg + 1], false, lmp);
    else if (strcmp(arg[iarg], "table_step") == 0)
      table_step = utils::numeric(FLERR, arg[iarg + 1], false, lmp);
    else if (strcmp(arg[iarg], "table_rmin") == 0)
      table_rmin = utils::numeric(FLERR, arg[iarg + 1], false, lmp);
    else
      error->all(FLERR, "Illegal {} keyword: {} (expected tabulate, table_step, table_rmin, "
                        "backend, precision, device, cuda_tune, cuda_columns, cuda_centres or "
                        "cuda_threads)", STYLE, arg[iarg]);
  }
  if (!(table_step > 0.0))
    error->all(FLERR, "{}: table_step must be > 0 (got {})", STYLE, table_step);
  if (!(table_rmin > 0.0))
    error->all(FLERR, "{}: table_rmin must be > 0 (got {})", STYLE, table_rmin);

  // A repeated pair_style reloads the model; the type mapping must then be given again.
  pk_deepmd_destroy(model);
  model = nullptr;
  if (allocated)
    for (int i = 0; i <= atom->ntypes; i++)
      for (int j = 0; j <= atom->ntypes; j++) setflag[i][j] = 0;

  o.tabulate = tabulate;
  o.table_step = table_step;
  o.table_rmin = table_rmin;
  o.log = PairKit::logger(lmp);
  pk_status st;
  pk_status_clear(&st);
  model = pk_deepmd_load(path.c_str(), &o, &st);
  if (!model) {
    if (st.code == PK_OK) pk_fail(&st, PK_ERR_FILE, "cannot load model %s", path.c_str());
    PairKit::check(lmp, STYLE, st, true);
  }
}

/* pair_coeff * * name1 ... nameN  (type_map names, or NULL), or pair_coeff * * alone as in
 * DeePMD-kit's pair_style deepmd: LAMMPS type t is the model's type t-1. */
void PairDeepMDPK::coeff(int narg, char **arg)
{
  if (!model) error->all(FLERR, "{}: pair_coeff before a model was loaded", STYLE);
  const int n = atom->ntypes, nmodel = pk_deepmd_ntypes(model);
  if ((narg != 2 + n && narg != 2) || strcmp(arg[0], "*") != 0 || strcmp(arg[1], "*") != 0)
    error->all(FLERR, "Incorrect args for pair coefficients: expected pair_coeff * * followed "
                      "by {} type_map name(s) or NULL, one per atom type (or by none)", n);

  std::string known;
  for (int t = 0; t < nmodel; t++)
    known += std::string(t ? " " : "") + pk_deepmd_type_name(model, t);

  std::vector<int> map(n, -1);
  if (narg == 2 && n > nmodel)
    error->all(FLERR, "{}: pair_coeff * * without names maps atom type t to the model's type "
                      "t, but there are {} atom types and the model has {} ({}); name them",
               STYLE, n, nmodel, known);
  for (int i = 0; i < n; i++) {
    if (narg == 2) {
      map[i] = i;
      continue;
    }
    const char *name = arg[2 + i];
    if (strcmp(name, "NULL") == 0) continue;
    map[i] = pk_deepmd_type_index(model, name);
    if (map[i] < 0)
      error->all(FLERR, "{}: element {} (atom type {}) is not in the model's type_map: {}",
                 STYLE, name, i + 1, known);
  }
  pk_status st;
  pk_status_clear(&st);
  pk_deepmd_set_type_map(model, n, map.data(), &st);
  PairKit::check(lmp, "pair_coeff for deepmd/pk", st, true);

  if (!allocated) PairKit::allocate_pair_tables(lmp, this);
  // Every type pair is set (NULL types simply take no part); LAMMPS needs all pairs set.
  for (int i = 1; i <= n; i++)
    for (int j = i; j <= n; j++) setflag[i][j] = 1;
}

void PairDeepMDPK::init_style()
{
  if (strcmp(update->unit_style, "metal") != 0)
    error->all(FLERR, "{} requires units metal (the model is in Angstrom and eV), not units {}",
               STYLE, update->unit_style);
  if (force->newton_pair == 0) error->all(FLERR, "{} requires newton pair on", STYLE);
  if (!model) error->all(FLERR, "{}: no model loaded", STYLE);

  neighbor->add_request(this, NeighConst::REQ_FULL);
  pk_deepmd_overflow_reset(model);

  const pk_backend_request req = PairKit::backend_request(lmp, STYLE, backend);
  pk_status st;
  pk_status_clear(&st);
  pk_deepmd_set_backend(model, &req, &st);
  PairKit::check(lmp, STYLE, st, true);

  if (comm->me == 0) {
    const pk_backend_slot *slot = pk_deepmd_backend(model);
    std::string kernel = tabulate ? fmt::format("tabulated kernel (table_step {}, table_rmin {})",
                                                table_step, table_rmin)
                                  : std::string("exact kernel");
    utils::logmesg(lmp, "{}: model {} ({} types, rcut {}), {}, {}, {}\n", STYLE, path,
                   pk_deepmd_ntypes(model), pk_deepmd_cutoff(model),
                   PairKit::backend_text(slot->info, slot->note), kernel,
                   pk_deepmd_fit_precision(model));
  }
}

double PairDeepMDPK::init_one(int i, int j)
{
  if (setflag[i][j] == 0)
    error->all(FLERR, "{}: coefficients for type pair {} {} are not set", STYLE, i, j);
  return pk_deepmd_cutoff(model);
}

void PairDeepMDPK::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  PairKit::check_finite(lmp, STYLE, false);

  const pk_atoms atoms = PairKit::atoms_view(lmp);
  const pk_neigh nl = PairKit::neigh_view(list);
  pk_out out = PairKit::output_view(lmp, this);

  pk_status st;
  pk_status_clear(&st);
  if (neighbor->ago != 0) pk_deepmd_list_kept(model);
  if (pk_deepmd_compute(model, &atoms, &nl, &out, nullptr, &st))
    PairKit::check(lmp, STYLE, st, false);
  // The load checks bound what the tables hold, but nothing bounds a finite weight in the
  // exact kernel (tabulate no): a huge one overflows only here, at run time.
  PairKit::check_forces(lmp, STYLE, "the model's network overflows for this configuration "
                        "(are its weights sane?)");
  PairKit::add_totals(this, out);
}

// End of each run: one warning (rank 0) when some centre had more neighbours than sel.
void PairDeepMDPK::finish()
{
  if (!model) return;
  const int nt = pk_deepmd_ntypes(model);
  long n = 0, nall = 0;
  std::vector<int> maxn(nt, 0), maxall(nt, 0);
  pk_deepmd_overflow(model, &n, maxn.data());
  MPI_Allreduce(&n, &nall, 1, MPI_LONG, MPI_SUM, world);
  MPI_Allreduce(maxn.data(), maxall.data(), nt, MPI_INT, MPI_MAX, world);
  pk_deepmd_overflow_reset(model);
  if (nall == 0 || comm->me != 0) return;
  std::string counts;
  for (int t = 0; t < nt; t++)
    counts += fmt::format("{}{} {}", t ? ", " : "", pk_deepmd_type_name(model, t), maxall[t]);
  error->warning(FLERR,
                 "{}: {} centre evaluation(s) in this run had more neighbours of a type than "
                 "the model's sel; the nearest sel were kept (largest counts seen: {})",
                 STYLE, nall, counts);
}

double PairDeepMDPK::memory_usage()
{
  return Pair::memory_usage() + (model ? (double) pk_deepmd_memory(model) : 0.0);
}
