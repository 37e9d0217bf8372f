#include "pair_hdnnp_pk.h"

#include "pk_adapter.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "neigh_list.h"
#include "neighbor.h"
#include "update.h"

#include <cstring>

extern "C" {
#include "pk_hdnnp.h"
#include "pk_threads.h"
}

using namespace LAMMPS_NS;

static const char STYLE[] = "pair_style hdnnp/pk";

PairHDNNPPK::PairHDNNPPK(LAMMPS *lmp) :
    Pair(lmp), model(nullptr), ctx(nullptr), cutoff(0.0), cflength(1.0), cfenergy(1.0),
    showew(true), resetew(false), showewsum(0), maxew(0), x_model(nullptr), f_model(nullptr),
    nmax(0), ew_summary(0), ew_total(0), run_start{0.0, 0.0, 0.0}, evaluations(0)
{
  single_enable = 0;
  restartinfo = 0;    // as LAMMPS hdnnp: the model lives in files, pair_style is re-given
  one_coeff = 1;
  manybody_flag = 1;
  no_virial_fdotr_compute = 1;    // the core tallies the virial itself
  centroidstressflag = CENTROID_NOTAVAIL;
}

PairHDNNPPK::~PairHDNNPPK()
{
  pk_hdnnp_context_free(ctx);
  pk_hdnnp_model_free(model);
  memory->destroy(x_model);
  memory->destroy(f_model);
  PairKit::free_pair_tables(lmp, this);
}

/* pair_style hdnnp/pk cutoff [keyword value] ...  (keywords and defaults of LAMMPS hdnnp,
 * and backend, precision, device) */
void PairHDNNPPK::settings(int narg, char **arg)
{
  if (narg < 1)
    error->all(FLERR, "Illegal {} command: expected cutoff [dir D] [showew yes|no] "
                      "[showewsum N] [maxew N] [resetew yes|no] [cflength X] [cfenergy Y] "
                      "[backend auto|cpu|cuda|sve] [precision double|mixed] [device N]",
               STYLE);
  cutoff = utils::numeric(FLERR, arg[0], false, lmp);
  dir = "hdnnp/";
  showew = true;
  showewsum = 0;
  maxew = 0;
  resetew = false;
  cflength = 1.0;
  cfenergy = 1.0;
  backend = PairKit::BackendArgs();
  for (int iarg = 1; iarg < narg; iarg += 2) {
    if (PairKit::parse_backend_keyword(lmp, STYLE, narg, arg, iarg, backend)) continue;
    const char *key = arg[iarg];
    if (iarg + 1 >= narg)
      error->all(FLERR, "Illegal {} command: keyword {} needs a value", STYLE, key);
    const char *value = arg[iarg + 1];
    if (strcmp(key, "dir") == 0)
      dir = value;
    else if (strcmp(key, "showew") == 0)
      showew = utils::logical(FLERR, value, false, lmp) == 1;
    else if (strcmp(key, "showewsum") == 0)
      showewsum = utils::bnumeric(FLERR, value, false, lmp);
    else if (strcmp(key, "maxew") == 0)
      maxew = utils::bnumeric(FLERR, value, false, lmp);
    else if (strcmp(key, "resetew") == 0)
      resetew = utils::logical(FLERR, value, false, lmp) == 1;
    else if (strcmp(key, "cflength") == 0)
      cflength = utils::numeric(FLERR, value, false, lmp);
    else if (strcmp(key, "cfenergy") == 0)
      cfenergy = utils::numeric(FLERR, value, false, lmp);
    else
      error->all(FLERR, "Illegal {} keyword: {} (expected dir, showew, showewsum, maxew, "
                        "resetew, cflength, cfenergy, backend, precision or device)", STYLE, key);
  }
  if (!(cutoff > 0.0)) error->all(FLERR, "{}: cutoff must be > 0 (got {})", STYLE, cutoff);
  if (showewsum < 0) error->all(FLERR, "{}: showewsum must be >= 0 (got {})", STYLE, showewsum);
  if (!(cflength > 0.0)) error->all(FLERR, "{}: cflength must be > 0 (got {})", STYLE, cflength);
  if (!(cfenergy > 0.0)) error->all(FLERR, "{}: cfenergy must be > 0 (got {})", STYLE, cfenergy);
  // "dir/" and "dir" name the same directory; keep file names in messages clean.
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();

  load_model();
}

// A repeated pair_style reloads the model and restarts the warning counters; the type
// mapping must then be given again.
void PairHDNNPPK::load_model()
{
  pk_hdnnp_context_free(ctx);
  pk_hdnnp_model_free(model);
  ctx = nullptr;
  model = nullptr;
  type_to_element.clear();
  if (allocated)
    for (int i = 0; i <= atom->ntypes; i++)
      for (int j = 0; j <= atom->ntypes; j++) setflag[i][j] = 0;
  ew_summary = ew_total = 0;
  evaluations = 0;

  const pk_logger log = PairKit::logger(lmp);
  pk_status st;
  pk_status_clear(&st);
  pk_hdnnp_model_load(dir.c_str(), &log, &model, &st);
  PairKit::check(lmp, STYLE, st, true);

  // The pair cutoff is in LAMMPS length units, the model's in its own: compare in the model's.
  const double rc_model = pk_hdnnp_max_cutoff(model);
  if (cutoff * cflength < rc_model)
    error->all(FLERR, "{}: cutoff {} is smaller than the model's largest symmetry-function "
                      "cutoff {} (model length units) / cflength {} = {:.8g} (LAMMPS length units)",
               STYLE, cutoff, rc_model, cflength, rc_model / cflength);

  pk_hdnnp_context_create(model, &ctx, &st);
  PairKit::check(lmp, STYLE, st, true);
  pk_hdnnp_timing(ctx, &run_start[0], &run_start[1], &run_start[2]);
}

/* pair_coeff * * element1 ... elementN  (one per LAMMPS type, or NULL) */
void PairHDNNPPK::coeff(int narg, char **arg)
{
  if (!model) error->all(FLERR, "{}: pair_coeff before a model was loaded", STYLE);
  const int n = atom->ntypes;
  if (narg != 2 + n || strcmp(arg[0], "*") != 0 || strcmp(arg[1], "*") != 0)
    error->all(FLERR, "Incorrect args for pair coefficients: expected pair_coeff * * followed "
                      "by {} element name(s) or NULL, one per atom type", n);

  std::string known;
  for (int e = 0; e < pk_hdnnp_num_elements(model); e++)
    known += std::string(e ? " " : "") + pk_hdnnp_element_symbol(model, e);

  std::vector<int> map(n + 1, -1);
  for (int i = 1; i <= n; i++) {
    const char *name = arg[1 + i];
    if (strcmp(name, "NULL") == 0) continue;
    map[i] = pk_hdnnp_element_index(model, name);
    if (map[i] < 0)
      error->all(FLERR, "{}: element {} (atom type {}) is not in the model in {}: its elements "
                        "are {}", STYLE, name, i, dir, known);
  }
  int mapped = 0;
  for (int i = 1; i <= n; i++) mapped += map[i] >= 0;
  if (mapped == 0)
    error->all(FLERR, "Incorrect args for pair coefficients: every atom type is NULL");
  type_to_element = map;

  if (!allocated) PairKit::allocate_pair_tables(lmp, this);
  // Only pairs of mapped types belong to this style (as LAMMPS hdnnp: under pair_style
  // hybrid the NULL types are left to other styles).
  for (int i = 1; i <= n; i++)
    for (int j = i; j <= n; j++) setflag[i][j] = map[i] >= 0 && map[j] >= 0;
}

void PairHDNNPPK::init_style()
{
  if (!model) error->all(FLERR, "{}: no model loaded", STYLE);
  if (type_to_element.empty())
    error->all(FLERR, "{}: pair_coeff * * with the element of each atom type is missing", STYLE);
  if (force->newton_pair == 0) error->all(FLERR, "{} requires newton pair on", STYLE);

  neighbor->add_request(this, NeighConst::REQ_FULL);

  const pk_backend_request req = PairKit::backend_request(lmp, STYLE, backend);
  pk_status st;
  pk_status_clear(&st);
  pk_hdnnp_set_backend(ctx, &req, &st);
  PairKit::check(lmp, STYLE, st, true);

  if (comm->me == 0) {
    const pk_backend_slot *slot = pk_hdnnp_backend(ctx);
    std::string types;
    for (int i = 1; i <= atom->ntypes; i++)
      types += fmt::format(" {}:{}", i,
                           type_to_element[i] < 0
                               ? "NULL"
                               : pk_hdnnp_element_symbol(model, type_to_element[i]));
    utils::logmesg(lmp,
                   "{}: model {} (cutoff {} model length units = {:.8g} LAMMPS length units; "
                   "cflength {}, cfenergy {}), types{}; {}\n",
                   STYLE, dir, pk_hdnnp_max_cutoff(model), pk_hdnnp_max_cutoff(model) / cflength,
                   cflength, cfenergy, types, PairKit::backend_text(slot->info, slot->note));
  }
}

double PairHDNNPPK::init_one(int, int)
{
  return cutoff;
}

void PairHDNNPPK::grow_buffers()
{
  if (atom->nmax <= nmax) return;
  nmax = atom->nmax;
  memory->destroy(x_model);
  memory->destroy(f_model);
  memory->create(x_model, nmax, 3, "pair:x_model");
  memory->create(f_model, nmax, 3, "pair:f_model");
}

void PairHDNNPPK::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  PairKit::check_finite(lmp, STYLE, false);
  grow_buffers();

  // The core works in the model's units: positions x cflength in, energies / cfenergy and
  // forces x cflength / cfenergy out. Forces go through f_model because atom->f may already
  // hold other styles' forces.
  const int nall = atom->nlocal + atom->nghost;
  double **x = atom->x;
  for (int i = 0; i < nall; i++)
    for (int k = 0; k < 3; k++) {
      x_model[i][k] = x[i][k] * cflength;
      f_model[i][k] = 0.0;
    }

  pk_atoms atoms = PairKit::atoms_view(lmp);
  atoms.x = reinterpret_cast<const double(*)[3]>(x_model[0]);
  const pk_neigh nl = PairKit::neigh_view(list);
  pk_out out = PairKit::output_view(lmp, this);
  out.f = reinterpret_cast<double(*)[3]>(f_model[0]);

  pk_status st;
  pk_status_clear(&st);
  if (neighbor->ago != 0) pk_hdnnp_list_kept(ctx);
  if (pk_hdnnp_compute(ctx, &atoms, &nl, type_to_element.data(), &out, &st))
    PairKit::check(lmp, STYLE, st, false);
  evaluations += list->inum;

  const double fscale = cflength / cfenergy, escale = 1.0 / cfenergy;
  double **f = atom->f;
  for (int i = 0; i < nall; i++)
    for (int k = 0; k < 3; k++) f[i][k] += f_model[i][k] * fscale;
  // Per-atom arrays are this style's own (zeroed by ev_init), so they are scaled in place.
  if (out.eatom)
    for (int i = 0; i < nall; i++) out.eatom[i] *= escale;
  if (out.vatom)
    for (int i = 0; i < nall; i++)
      for (int k = 0; k < 6; k++) out.vatom[i][k] *= escale;
  out.energy *= escale;
  for (double &v : out.virial) v *= escale;
  PairKit::add_totals(this, out);

  extrapolation_warnings();
}

/* Policy of LAMMPS hdnnp on top of the core's counts, with one difference: counts are summed
 * over ranks before they are compared with maxew (hdnnp compares each rank's own count), so
 * the threshold does not depend on the number of ranks. maxew < 0 switches the check off. */
void PairHDNNPPK::extrapolation_warnings()
{
  if (!showew && showewsum == 0 && maxew < 0) {
    pk_hdnnp_ew_reset(ctx);
    return;
  }
  bigint mine = pk_hdnnp_ew_count(ctx);   // not const: the STUBS MPI of serial builds takes void *
  bigint now = 0;
  MPI_Allreduce(&mine, &now, 1, MPI_LMP_BIGINT, MPI_SUM, world);
  if (showew && now > 0) print_warnings(now);
  pk_hdnnp_ew_reset(ctx);

  ew_total = resetew ? now : ew_total + now;
  if (showewsum > 0) {
    ew_summary += now;
    if (update->ntimestep % showewsum == 0) {
      // The line format of LAMMPS hdnnp, so that existing log parsers keep working.
      if (comm->me == 0)
        utils::logmesg(lmp, "### NNP EW SUMMARY ### TS: {:10d} EW {:10d} EWPERSTEP {:10.3e}\n",
                       update->ntimestep, ew_summary, double(ew_summary) / double(showewsum));
      ew_summary = 0;
    }
  }
  if (maxew >= 0 && ew_total > maxew)
    error->all(FLERR, "{}: too many extrapolation warnings: {} {} > maxew {} (symmetry "
                      "functions outside the range of scaling.data; showew yes lists them)",
               STYLE, ew_total,
               resetew ? fmt::format("in step {}", update->ntimestep)
                       : std::string("since pair_style"),
               maxew);
}

// The kept warnings of all ranks, one line each on rank 0 (atom = the rank's local index).
void PairHDNNPPK::print_warnings(bigint count)
{
  size_t n = 0;
  const pk_hdnnp_ew *w = pk_hdnnp_ew_get(ctx, &n);
  const int nprocs = comm->nprocs, me = comm->me;
  int bytes = (int) (n * sizeof(pk_hdnnp_ew));
  std::vector<int> sizes(nprocs), offsets(nprocs, 0);
  MPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, world);
  std::vector<char> all;
  if (me == 0) {
    for (int r = 1; r < nprocs; r++) offsets[r] = offsets[r - 1] + sizes[r - 1];
    all.resize(offsets[nprocs - 1] + sizes[nprocs - 1]);
  }
  // const_cast: the STUBS MPI of serial LAMMPS builds declares send buffers void *
  MPI_Gatherv(const_cast<pk_hdnnp_ew *>(w), bytes, MPI_BYTE, all.data(), sizes.data(),
              offsets.data(), MPI_BYTE, 0, world);
  if (me != 0) return;

  std::string text;
  bigint shown = 0;
  char line[1024];
  for (int r = 0; r < nprocs; r++)
    for (int k = 0; k < sizes[r] / (int) sizeof(pk_hdnnp_ew); k++, shown++) {
      pk_hdnnp_ew rec;
      memcpy(&rec, all.data() + offsets[r] + k * sizeof(pk_hdnnp_ew), sizeof rec);
      pk_hdnnp_ew_format(model, &rec, line, sizeof line);
      text += fmt::format("{}: step {}, rank {}: {}\n", STYLE, update->ntimestep, r, line);
    }
  if (shown < count)
    text += fmt::format("{}: step {}: {} more extrapolation warning(s) not listed (at most {} "
                        "per rank are kept)\n",
                        STYLE, update->ntimestep, count - shown, (int) PK_HDNNP_EW_KEEP);
  utils::logmesg(lmp, text);
}

// End of each run: where this run's time in the style went, per atom-step.
void PairHDNNPPK::finish()
{
  if (!ctx) return;
  double now[3];
  pk_hdnnp_timing(ctx, &now[0], &now[1], &now[2]);
  double mine[4] = {now[0] - run_start[0], now[1] - run_start[1], now[2] - run_start[2],
                    (double) evaluations};
  double sum[4];
  MPI_Reduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, 0, world);
  for (int k = 0; k < 3; k++) run_start[k] = now[k];
  evaluations = 0;
  if (comm->me != 0 || sum[3] <= 0.0) return;
  const double us = 1e6 / sum[3];
  utils::logmesg(lmp,
                 "{} timing: {:.0f} atom evaluations on {} rank(s) x {} thread(s); per "
                 "atom-step: symmetry functions {:.2f} us, networks {:.2f} us, forces {:.2f} us, "
                 "total {:.2f} us (wall time of a rank / atoms it evaluated)\n",
                 STYLE, sum[3], comm->nprocs, pk_max_threads(), sum[0] * us, sum[1] * us,
                 sum[2] * us, (sum[0] + sum[1] + sum[2]) * us);
}

double PairHDNNPPK::memory_usage()
{
  return Pair::memory_usage() + 6.0 * nmax * sizeof(double) +
      (ctx ? (double) pk_hdnnp_memory_usage(ctx) : 0.0);
}
