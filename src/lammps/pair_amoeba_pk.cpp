#include "pair_amoeba_pk.h"

#include "pk_adapter.h"

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "modify.h"
#include "neigh_list.h"
#include "neighbor.h"
#include "update.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace LAMMPS_NS;

static const char STYLE[] = "pair_style amoeba/pk";

// LAMMPS `compute pair` layout of pair amoeba's energy terms (pvector), kept so that inputs
// written for amoeba read the same entries: hal, repulse, disp, mpole, polar, qxfer.
enum { PV_HAL = 0, PV_MPOLE = 3, PV_POLAR = 4, PV_SIZE = 6 };

// Names of the bonded-term switches LAMMPS's AMOEBA bond/angle/improper styles and fixes
// read from the pair style (extract "<name>_flag"); amoeba/pk only stores them.
static const char *const BONDED[7] = {"bond", "angle", "dihedral", "improper",
                                      "urey", "pitorsion", "bitorsion"};
enum { B_BOND, B_ANGLE, B_DIHEDRAL, B_IMPROPER, B_UREY, B_PITORSION, B_BITORSION };

// improper_style amoeba and fix amoeba/bitorsion find the pair style by the pattern
// "^amoeba", which amoeba/pk matches; angle_style amoeba (angle and Urey-Bradley terms) and
// fix amoeba/pitorsion look for a pair style named exactly "amoeba" or "hippo", never see
// amoeba/pk's switches and compute their terms anyway. A switched-off term that one of
// them computes is therefore refused rather than silently kept.
static void check_unreachable_switches(LAMMPS_NS::LAMMPS *lmp, const int *flags)
{
  for (int b : {B_ANGLE, B_UREY})
    if (!flags[b] && lmp->force->angle_style &&
        LAMMPS_NS::utils::strmatch(lmp->force->angle_style, "^amoeba"))
      lmp->error->all(FLERR, "{}: the {} term is switched off (include/exclude), but "
                      "angle_style amoeba takes that switch only from a pair style named "
                      "amoeba and would still compute it; switch the term on, or use another "
                      "angle_style", STYLE, BONDED[b]);
  if (!flags[B_PITORSION] && !lmp->modify->get_fix_by_style("^amoeba/pitorsion").empty())
    lmp->error->all(FLERR, "{}: the pitorsion term is switched off (include/exclude), but fix "
                    "amoeba/pitorsion takes that switch only from a pair style named amoeba "
                    "and would still compute it; switch the term on, or unfix it", STYLE);
}

static const char *elec_name(int elec)
{
  return elec == PK_AMOEBA_ELEC_LAMMPS ? "lammps" : "smooth";
}

PairAmoebaPK::PairAmoebaPK(LAMMPS *lmp) :
    Pair(lmp), elec(PK_AMOEBA_ELEC_SMOOTH), taper_arg(0.0), have_model(false), index_amtype(-1),
    index_amgroup(-1), index_polaxe(-1), index_xyzaxis(-1), nmax_local(0),
    topology_pending(true), warned_unconverged(false), comm_kind(COMM_DOUBLES),
    comm_doubles(nullptr), comm_ints(nullptr), comm_ncol(0)
{
  one_coeff = 1;
  single_enable = 0;
  restartinfo = 1;
  no_virial_fdotr_compute = 1;    // the core tallies the virial itself
  centroidstressflag = CENTROID_NOTAVAIL;
  nextra = PV_SIZE;
  pvector = new double[PV_SIZE];
  for (int k = 0; k < PV_SIZE; k++) pvector[k] = 0.0;
  terms.hal = terms.mpole = terms.polar = 1;
  for (int &f : bonded_flags) f = 1;
  memset(&model, 0, sizeof model);
  key_taper[0] = key_taper[1] = 0.0;
  memset(&state, 0, sizeof state);
  memset(&nlist, 0, sizeof nlist);
}

PairAmoebaPK::~PairAmoebaPK()
{
  delete[] pvector;
  free_model();
  pk_amoeba_state_free(&state);
  pk_amoeba_list_free(&nlist);
  PairKit::free_pair_tables(lmp, this);
}

void PairAmoebaPK::free_model()
{
  if (have_model) pk_amoeba_free(&model);
  memset(&model, 0, sizeof model);
  have_model = false;
}

/* pair_style amoeba/pk [elec lammps|smooth] [taper X] [include|exclude term ...]
                        [backend auto|cpu|cuda|sve] [precision double|mixed] [device N]
   taper: where both electrostatic switches of elec smooth start, a distance (A) if X >= 1,
   else a fraction of each cutoff (as the key's taper; overrides the key, HAL keeps the
   key's). Terms as LAMMPS amoeba: hal mpole polar (mpole/rspace, polar/rspace are the same
   here) and the bonded switches it passes on to AMOEBA's bonded styles. backend, precision
   and device choose where the step runs (PairKit::parse_backend_keyword); without them
   PAIRKIT_BACKEND / PAIRKIT_PRECISION decide, else auto. */
void PairAmoebaPK::settings(int narg, char **arg)
{
  elec = PK_AMOEBA_ELEC_SMOOTH;
  taper_arg = 0.0;
  terms.hal = terms.mpole = terms.polar = 1;
  for (int &f : bonded_flags) f = 1;
  backend = PairKit::BackendArgs();

  // the words that end an include/exclude term list
  auto is_keyword = [](const char *w) {
    for (const char *k : {"elec", "taper", "backend", "precision", "device"})
      if (strcmp(w, k) == 0) return true;
    return false;
  };
  for (int iarg = 0; iarg < narg;) {
    const std::string word = arg[iarg];
    if (const int n = PairKit::parse_backend_keyword(lmp, STYLE, narg, arg, iarg, backend)) {
      iarg += n;
    } else if (word == "elec") {
      if (iarg + 1 >= narg) error->all(FLERR, "Illegal {} command: elec needs lammps or smooth", STYLE);
      const std::string mode = arg[iarg + 1];
      if (mode == "lammps")
        elec = PK_AMOEBA_ELEC_LAMMPS;
      else if (mode == "smooth")
        elec = PK_AMOEBA_ELEC_SMOOTH;
      else
        error->all(FLERR, "Illegal {} command: elec {} (expected lammps or smooth)", STYLE, mode);
      iarg += 2;
    } else if (word == "taper") {
      if (iarg + 1 >= narg) error->all(FLERR, "Illegal {} command: taper needs a value", STYLE);
      taper_arg = utils::numeric(FLERR, arg[iarg + 1], false, lmp);
      if (!(taper_arg > 0.0))
        error->all(FLERR, "Illegal {} command: taper {} (expected a distance >= 1 A or a fraction "
                   "of the cutoffs in (0, 1))", STYLE, arg[iarg + 1]);
      iarg += 2;
    } else if (word == "include" || word == "exclude") {
      const int value = word == "include";
      if (value) {
        terms.hal = terms.mpole = terms.polar = 0;
        for (int &f : bonded_flags) f = 0;
      }
      int n = 0;
      for (iarg++; iarg < narg && !is_keyword(arg[iarg]); iarg++, n++) {
        const std::string t = arg[iarg];
        if (t == "hal")
          terms.hal = value;
        else if (t == "mpole" || t == "mpole/rspace")
          terms.mpole = value;
        else if (t == "polar" || t == "polar/rspace")
          terms.polar = value;
        else if (t == "mpole/kspace" || t == "polar/kspace" || t == "disp/kspace")
          error->all(FLERR, "{}: {} is an Ewald (k-space) term; amoeba/pk has no Ewald sums", STYLE, t);
        else if (t == "repulse" || t == "disp" || t == "disp/rspace" || t == "qxfer")
          error->all(FLERR, "{}: {} is a HIPPO term; amoeba/pk supports AMOEBA only", STYLE, t);
        else {
          const char *const *b = std::find_if(std::begin(BONDED), std::end(BONDED),
                                              [&](const char *s) { return t == s; });
          if (b == std::end(BONDED))
            error->all(FLERR, "Illegal {} command: unknown term {} after {} (expected hal, mpole, "
                       "polar or a bonded term)", STYLE, t, word);
          bonded_flags[b - std::begin(BONDED)] = value;
        }
      }
      if (n == 0) error->all(FLERR, "Illegal {} command: {} needs at least one term", STYLE, word);
    } else {
      error->all(FLERR, "Illegal {} keyword: {} (expected elec, taper, include, exclude, "
                 "backend, precision or device)", STYLE, word);
    }
  }
  if (taper_arg > 0.0 && elec != PK_AMOEBA_ELEC_SMOOTH)
    error->all(FLERR, "{}: taper sets where the electrostatic switches of elec smooth start; "
               "elec lammps has hard cutoffs (no taper)", STYLE);
  // as LAMMPS amoeba: no bond or dihedral style reads these two switches
  if ((!bonded_flags[B_BOND] || !bonded_flags[B_DIHEDRAL]) && comm->me == 0)
    error->warning(FLERR, "{}: bond and dihedral terms cannot be switched off by the pair "
                   "style (include/exclude); use bond_style or dihedral_style zero", STYLE);
}

/* pair_coeff * * file.prm [file.key] */
void PairAmoebaPK::coeff(int narg, char **arg)
{
  if (narg < 3 || narg > 4 || strcmp(arg[0], "*") != 0 || strcmp(arg[1], "*") != 0)
    error->all(FLERR, "Incorrect args for pair coefficients: expected pair_coeff * * file.prm [file.key]");
  free_model();
  pk_status st;
  pk_status_clear(&st);
  // on failure the model is left empty
  if (pk_amoeba_read(&model, arg[2], narg == 4 ? arg[3] : nullptr, &st) != PK_OK)
    PairKit::check(lmp, "pair_coeff for amoeba/pk", st, true);
  have_model = true;
  prm_path = arg[2];
  key_taper[0] = model.set.mpole_taper;
  key_taper[1] = model.set.polar_taper;

  if (!allocated) PairKit::allocate_pair_tables(lmp, this);
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) setflag[i][j] = 1;
}

// The per-atom data the LAMMPS AMOEBA examples create with fix property/atom.
void PairAmoebaPK::check_atom_style()
{
  if (atom->molecular == Atom::ATOMIC || !atom->nspecial)
    error->all(FLERR, "{} requires a molecular atom style with bonds (atom_style amoeba)", STYLE);
  if (!atom->tag_enable || !atom->map_style)
    error->all(FLERR, "{} requires atom IDs and an atom map", STYLE);
  if (!force->special_onefive)
    error->all(FLERR, "{} requires 1-5 special neighbours: add one/five yes to special_bonds "
               "(as the LAMMPS amoeba examples: special_bonds lj/coul 0.5 0.5 0.5 one/five yes)",
               STYLE);

  struct Want {
    const char *name, *decl;
    int *index, is_double, cols, ghost;
  };
  const Want want[4] = {
      {"amtype", "i_amtype ghost yes", &index_amtype, 0, 0, 1},
      {"amgroup", "i_amgroup ghost yes", &index_amgroup, 0, 0, 1},
      {"polaxe", "i_polaxe", &index_polaxe, 0, 0, 0},
      {"xyzaxis", "d2_xyzaxis 3", &index_xyzaxis, 1, 3, 0},
  };
  for (const Want &w : want) {
    int flag = -1, cols = -1, ghost = 0;
    *w.index = atom->find_custom_ghost(w.name, flag, cols, ghost);
    std::string problem;
    if (*w.index < 0)
      problem = "is not defined";
    else if (flag != w.is_double || cols != w.cols)
      problem = "has the wrong type";
    else if (w.ghost && !ghost)
      problem = "needs ghost yes";
    if (!problem.empty())
      error->all(FLERR, "{}: per-atom property {}{} {}; define it with fix ID all property/atom "
                 "{} (as the LAMMPS amoeba examples)", STYLE, w.is_double ? "d2_" : "i_", w.name,
                 problem, w.decl);
  }
}

// Every owned atom's AMOEBA type must be in the prm file, with a polarize record when the
// polarization term is on (LAMMPS would silently treat such atoms as non-polarizable).
void PairAmoebaPK::check_atom_types()
{
  const int *amtype = atom->ivector[index_amtype];
  for (int i = 0; i < atom->nlocal; i++) {
    const int t = amtype[i];
    if (t < 1 || t > model.ntypes || !model.type_defined[t])
      error->one(FLERR, "{}: atom {} has AMOEBA type {} (i_amtype), which {} does not define",
                 STYLE, atom->tag[i], t, prm_path);
    if (terms.polar && !model.polarize_defined[t])
      error->one(FLERR, "{}: atom {} has AMOEBA type {}, which has no polarize record in {} "
                 "(polarizability needed by the polar term)", STYLE, atom->tag[i], t, prm_path);
  }
}

void PairAmoebaPK::init_style()
{
  if (!have_model)
    error->all(FLERR, "{}: no force field: pair_coeff * * file.prm [file.key] is needed "
               "(also after read_restart)", STYLE);
  if (strcmp(update->unit_style, "real") != 0)
    error->all(FLERR, "{} requires units real (Tinker's kcal/mol and Angstrom), not units {}",
               STYLE, update->unit_style);
  if (force->newton_pair == 0) error->all(FLERR, "{} requires newton pair on", STYLE);
  if (domain->dimension != 3) error->all(FLERR, "{} requires a 3d system", STYLE);
  check_unreachable_switches(lmp, bonded_flags);
  check_atom_style();
  check_atom_types();
  model.set.elec = (pk_amoeba_elec) elec;
  setup_switches();

  // A ghost atom within the HAL cutoff needs its H-reduction partner as a ghost too (the
  // core reduces ghosts' sites itself; LAMMPS amoeba communicates the reduced sites). The
  // partner is a bond (< 1.2 A) away: with a neighbour skin below HRED_MARGIN the ghost
  // cutoff is raised, as comm_modify cutoff would.
  const double HRED_MARGIN = 1.5;
  const double need = model.set.vdw_cut + HRED_MARGIN;
  if (terms.hal && comm->mode == Comm::SINGLE && comm->cutghostuser < need &&
      init_one_cutoff() + neighbor->skin < need) {
    comm->cutghostuser = need;
    if (comm->me == 0)
      utils::logmesg(lmp, "{}: ghost cutoff raised to {} A (HAL cutoff + {} A for the "
                     "H-reduction partners of ghost atoms)\n", STYLE, need, HRED_MARGIN);
  }

  // forward: 13 multipole columns, or one atom's 1-2 partner list; reverse: 6 field columns
  comm_forward = std::max(13, 1 + atom->maxspecial);
  comm_reverse = 6;
  neighbor->add_request(this);

  topology_pending = true;
  warned_unconverged = false;
  state.steps = state.pcg_iterations = state.unconverged = 0;
  state.pcg_max = 0;
  state.t_hal.total = state.t_mpole.total = state.t_induce.total = state.t_polar.total = 0.0;

  const pk_backend_request req = PairKit::backend_request(lmp, STYLE, backend);
  pk_status st;
  pk_status_clear(&st);
  pk_amoeba_set_backend(&state, &model, &req, &st);
  PairKit::check(lmp, STYLE, st, true);

  if (comm->me == 0) {
    const pk_backend_slot *slot = pk_amoeba_backend(&state);
    const pk_amoeba_settings &s = model.set;
    std::string on;
    if (terms.hal) on += " hal";
    if (terms.mpole) on += " mpole";
    if (terms.polar) on += " polar";
    const std::string cuts =
        elec == PK_AMOEBA_ELEC_LAMMPS
            ? fmt::format("hard cutoffs: multipoles {} A, polarization {} A, as LAMMPS amoeba "
                          "without Ewald", s.mpole_cut, s.polar_cut)
            : fmt::format("multipoles with shifted-force charges switched from {} to {} A, "
                          "polarization switched from {} to {} A", s.mpole_taper, s.mpole_cut,
                          s.polar_taper, s.polar_cut);
    utils::logmesg(lmp,
                   "{}: {}; elec {} ({}); HAL cutoff {} A, taper from {} A; terms:{}; "
                   "polarization {}\n",
                   STYLE, PairKit::backend_text(slot->info, slot->note), elec_name(elec), cuts,
                   s.vdw_cut, s.vdw_taper, on.empty() ? " none" : on,
                   model.polarization == PK_AMOEBA_POLAR_DIRECT
                       ? std::string("direct")
                       : fmt::format("mutual (PCG, polar-eps {} D, polar-iter {})", s.polar_eps,
                                     s.polar_iter));
  }
}

// Where the electrostatic switches of elec smooth start: pair_style taper, else the key's
// (taper, mpole-taper; 0.65 of the cutoffs by default). Each must lie inside its cutoff.
void PairAmoebaPK::setup_switches()
{
  pk_amoeba_settings &s = model.set;
  s.mpole_taper = key_taper[0];
  s.polar_taper = key_taper[1];
  if (taper_arg > 0.0) {
    s.mpole_taper = taper_arg >= 1.0 ? taper_arg : taper_arg * s.mpole_cut;
    s.polar_taper = taper_arg >= 1.0 ? taper_arg : taper_arg * s.polar_cut;
  }
  if (elec != PK_AMOEBA_ELEC_SMOOTH) return;
  const char *from = taper_arg > 0.0 ? "pair_style taper" : "the key's taper or mpole-taper";
  const struct {
    bool on;
    const char *name;
    double start, cut;
  } sw[2] = {{terms.mpole != 0, "multipole", s.mpole_taper, s.mpole_cut},
             {terms.polar != 0, "polarization", s.polar_taper, s.polar_cut}};
  for (const auto &w : sw)
    if (w.on && !(w.start > 0.0 && w.start < w.cut))
      error->all(FLERR, "{}: elec smooth: the {} switch starts at {} A (from {}), which is not "
                 "inside its cutoff {} A", STYLE, w.name, w.start, from, w.cut);
}

double PairAmoebaPK::init_one_cutoff() const
{
  return std::max({model.set.vdw_cut, model.set.mpole_cut, model.set.polar_cut});
}

double PairAmoebaPK::init_one(int i, int j)
{
  if (!have_model || setflag[i][j] == 0)
    error->all(FLERR, "{}: pair_coeff * * file.prm [file.key] is needed (also after read_restart)",
               STYLE);
  return init_one_cutoff();
}

// A core failure on this rank (data of its atoms): error->one with the core's message,
// whose own "amoeba/pk: " prefix is dropped behind the style's.
void PairAmoebaPK::fail(const pk_status &st)
{
  const char *msg = st.msg;
  if (strncmp(msg, "amoeba/pk: ", 11) == 0) msg += 11;
  error->one(FLERR, "{}: {}", STYLE, msg);
}

pk_atoms PairAmoebaPK::atoms()
{
  return PairKit::atoms_view(lmp);
}

// LAMMPS's atom->map, then the image closest to atom near_i (the core's contract).
int PairAmoebaPK::map_cb(void *ctx, pk_tag tag, int near_i)
{
  auto self = static_cast<PairAmoebaPK *>(ctx);
  const int idx = self->atom->map(tag);
  if (idx < 0 || near_i < 0) return idx;
  return self->domain->closest_image(near_i, idx);
}

pk_amoeba_topology PairAmoebaPK::topology()
{
  pk_amoeba_topology t;
  t.nspecial = reinterpret_cast<const int(*)[3]>(atom->nspecial[0]);
  t.special = atom->special;
  t.nspecial15 = atom->nspecial15;
  t.special15 = atom->special15;
  t.map = map_cb;
  t.map_ctx = this;
  t.nbond12 = nullptr;    // ghosts' bond lists: only assign_frames needs them
  t.bond12 = nullptr;
  return t;
}

pk_amoeba_sites PairAmoebaPK::sites()
{
  pk_amoeba_sites s;
  s.amtype = atom->ivector[index_amtype];
  s.amgroup = atom->ivector[index_amgroup];
  s.hred = hred.data();
  s.mpole = mpole_rec.data();
  s.frame = reinterpret_cast<const int(*)[3]>(frame.data());
  s.owner = owner.data();
  return s;
}

void PairAmoebaPK::grow_local()
{
  if (atom->nmax <= nmax_local) return;
  nmax_local = atom->nmax;
  hred_tag.resize(nmax_local);
  hred.resize(nmax_local);
  mpole_rec.resize(nmax_local);
  frame_tag.resize(3 * (size_t) nmax_local);
  frame.resize(3 * (size_t) nmax_local);
  owner.resize(nmax_local);
}

void PairAmoebaPK::forward_cb(void *ctx, double *v, int ncol)
{
  auto self = static_cast<PairAmoebaPK *>(ctx);
  self->comm_kind = COMM_DOUBLES;
  self->comm_doubles = v;
  self->comm_ncol = ncol;
  self->comm->forward_comm(self, ncol);
}

void PairAmoebaPK::reverse_cb(void *ctx, double *v, int ncol)
{
  auto self = static_cast<PairAmoebaPK *>(ctx);
  self->comm_kind = COMM_DOUBLES;
  self->comm_doubles = v;
  self->comm_ncol = ncol;
  self->comm->reverse_comm(self, ncol);
}

void PairAmoebaPK::allreduce_cb(void *ctx, double *v, int n)
{
  auto self = static_cast<PairAmoebaPK *>(ctx);
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, self->world);
}

void PairAmoebaPK::forward_ints(int *v)
{
  comm_kind = COMM_INTS;
  comm_ints = v;
  comm->forward_comm(this, 1);
}

void PairAmoebaPK::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  PairKit::check_finite(lmp, STYLE, false);

  grow_local();
  if (topology_pending) {
    if (terms.polar) assign_groups();
    if (terms.mpole || terms.polar) assign_frames();
    topology_pending = false;
    refresh_topology();
  } else if (neighbor->ago == 0) {
    refresh_topology();
  }

  const pk_atoms a = atoms();
  const pk_amoeba_sites s = sites();
  const pk_amoeba_comm c = {forward_cb, reverse_cb, allreduce_cb, this};
  pk_out out = PairKit::output_view(lmp, this);
  pk_status st;
  pk_status_clear(&st);
  if (pk_amoeba_compute(&model, &a, &s, &nlist, &c, terms, &state, &out, &st) != PK_OK)
    fail(st);

  // The solver's residual is global (the same on every rank), so is this decision.
  if (terms.polar && model.polarization == PK_AMOEBA_POLAR_MUTUAL) {
    if (!std::isfinite(state.last.rms))
      error->all(FLERR, "{}: the induced dipoles diverged (RMS residual {}) at step {}", STYLE,
                 state.last.rms, update->ntimestep);
    if (!state.last.converged && !warned_unconverged) {
      warned_unconverged = true;
      if (comm->me == 0)
        error->warning(FLERR, "{}: induced dipoles not converged within polar-iter {} at step {} "
                       "(RMS residual {:.3g} D > polar-eps {} D); continuing with the last "
                       "iterate, count in the end-of-run report", STYLE, model.set.polar_iter,
                       update->ntimestep, state.last.rms, model.set.polar_eps);
    }
  }

  for (int k = 0; k < PV_SIZE; k++) pvector[k] = 0.0;
  pvector[PV_HAL] = state.energy[0];
  pvector[PV_MPOLE] = state.energy[1];
  pvector[PV_POLAR] = state.energy[2];
  // as LAMMPS amoeba: HAL is van der Waals, multipoles and polarization Coulomb
  if (eflag_global) {
    eng_vdwl += state.energy[0];
    eng_coul += state.energy[1] + state.energy[2];
  }
  if (vflag_global)
    for (int k = 0; k < 6; k++) virial[k] += out.virial[k];
}

// End of each run: PCG statistics and where the time went (mean over ranks).
void PairAmoebaPK::finish()
{
  if (!have_model) return;
  // not const: the STUBS MPI of serial LAMMPS builds takes void *
  double t[4] = {state.t_hal.total, state.t_mpole.total, state.t_induce.total,
                 state.t_polar.total};
  double tsum[4];
  MPI_Allreduce(t, tsum, 4, MPI_DOUBLE, MPI_SUM, world);
  if (comm->me != 0 || state.steps == 0) return;
  const double nprocs = comm->nprocs;
  const double total = (tsum[0] + tsum[1] + tsum[2] + tsum[3]) / nprocs;
  const double pct = total > 0.0 ? 100.0 / total : 0.0;
  std::string mesg = fmt::format("\n{} report: {} force evaluations\n", STYLE, state.steps);
  if (terms.polar && model.polarization == PK_AMOEBA_POLAR_MUTUAL)
    mesg += fmt::format("  PCG iterations per evaluation: mean {:.2f} max {}; {} not converged "
                        "within polar-iter {}\n", (double) state.pcg_iterations / state.steps,
                        state.pcg_max, state.unconverged, model.set.polar_iter);
  const char *names[4] = {"HAL", "multipole", "induce", "polar"};
  mesg += fmt::format("  time (s, mean over {} rank(s)):", comm->nprocs);
  for (int k = 0; k < 4; k++)
    mesg += fmt::format(" {} {:.4g} ({:.1f}%){}", names[k], tsum[k] / nprocs, tsum[k] / nprocs * pct,
                        k < 3 ? "," : "");
  mesg += fmt::format("; total {:.4g}\n", total);
  utils::logmesg(lmp, mesg);
}

// Forward and reverse communication of the core's per-atom arrays (rows of comm_ncol
// doubles, copied whole), of int vectors, and once per run of the atoms' 1-2 partners.
int PairAmoebaPK::pack_forward_comm(int n, int *list, double *buf, int, int *)
{
  int m = 0;
  if (comm_kind == COMM_DOUBLES) {
    const size_t row = comm_ncol * sizeof(double);
    for (int k = 0; k < n; k++, m += comm_ncol)
      memcpy(buf + m, comm_doubles + (size_t) list[k] * comm_ncol, row);
  } else if (comm_kind == COMM_INTS) {
    for (int k = 0; k < n; k++) buf[m++] = comm_ints[list[k]];
  } else {
    const int ms = atom->maxspecial;
    for (int k = 0; k < n; k++) {
      const int j = list[k];
      buf[m++] = ghost_nbond[j];
      for (int b = 0; b < ghost_nbond[j]; b++) buf[m++] = ghost_bonds[(size_t) j * ms + b];
    }
  }
  return m;
}

void PairAmoebaPK::unpack_forward_comm(int n, int first, double *buf)
{
  if (comm_kind == COMM_DOUBLES) {
    memcpy(comm_doubles + (size_t) first * comm_ncol, buf, (size_t) n * comm_ncol * sizeof(double));
  } else if (comm_kind == COMM_INTS) {
    for (int k = 0; k < n; k++) comm_ints[first + k] = (int) buf[k];
  } else {
    const int ms = atom->maxspecial;
    int m = 0;
    for (int k = first; k < first + n; k++) {
      ghost_nbond[k] = (int) buf[m++];
      for (int b = 0; b < ghost_nbond[k]; b++) ghost_bonds[(size_t) k * ms + b] = (pk_tag) buf[m++];
    }
  }
}

int PairAmoebaPK::pack_reverse_comm(int n, int first, double *buf)
{
  memcpy(buf, comm_doubles + (size_t) first * comm_ncol, (size_t) n * comm_ncol * sizeof(double));
  return n * comm_ncol;
}

// rows list[k] of v += row k of buf; NC known at compile time for the common widths
template <int NC> static void add_rows(double *v, int nc, int n, const int *list, const double *buf)
{
  const int w = NC ? NC : nc;
  for (int k = 0; k < n; k++) {
    double *row = v + (size_t) list[k] * w;
    for (int c = 0; c < w; c++) row[c] += buf[(size_t) k * w + c];
  }
}

void PairAmoebaPK::unpack_reverse_comm(int n, int *list, double *buf)
{
  if (comm_ncol == 6)
    add_rows<6>(comm_doubles, 6, n, list, buf);
  else if (comm_ncol == 3)
    add_rows<3>(comm_doubles, 3, n, list, buf);
  else
    add_rows<0>(comm_doubles, comm_ncol, n, list, buf);
}

// What LAMMPS's AMOEBA bonded styles and fixes ask pair amoeba for: the per-atom AMOEBA
// types and per-type atomic numbers (fix amoeba/bitorsion), the term switches, and the
// opbend anharmonic coefficients as read from the prm file (improper amoeba; scalars, in
// Tinker's units: powers of the out-of-plane angle in degrees).
void *PairAmoebaPK::extract(const char *str, int &dim)
{
  dim = 0;
  if (strcmp(str, "amtype") == 0) return index_amtype >= 0 ? atom->ivector[index_amtype] : nullptr;
  if (strcmp(str, "atomic_num") == 0) return have_model ? model.atomic_num : nullptr;
  double *const opbend[4] = {&model.opbend_cubic, &model.opbend_quartic, &model.opbend_pentic,
                             &model.opbend_sextic};
  static const char *const OPBEND[4] = {"opbend_cubic", "opbend_quartic", "opbend_pentic",
                                        "opbend_sextic"};
  for (int k = 0; k < 4; k++)
    if (strcmp(str, OPBEND[k]) == 0) return have_model ? opbend[k] : nullptr;
  for (int k = 0; k < 7; k++)
    if (std::string(str) == std::string(BONDED[k]) + "_flag") return &bonded_flags[k];
  return nullptr;
}

void PairAmoebaPK::write_restart_settings(FILE *fp)
{
  const int v[4] = {elec, terms.hal, terms.mpole, terms.polar};
  fwrite(v, sizeof(int), 4, fp);
  fwrite(bonded_flags, sizeof(int), 7, fp);
  fwrite(&taper_arg, sizeof(double), 1, fp);
}

void PairAmoebaPK::read_restart_settings(FILE *fp)
{
  int v[11];
  if (comm->me == 0) {
    utils::sfread(FLERR, v, sizeof(int), 4, fp, nullptr, error);
    utils::sfread(FLERR, v + 4, sizeof(int), 7, fp, nullptr, error);
    utils::sfread(FLERR, &taper_arg, sizeof(double), 1, fp, nullptr, error);
  }
  MPI_Bcast(v, 11, MPI_INT, 0, world);
  MPI_Bcast(&taper_arg, 1, MPI_DOUBLE, 0, world);
  elec = v[0];
  terms.hal = v[1];
  terms.mpole = v[2];
  terms.polar = v[3];
  for (int k = 0; k < 7; k++) bonded_flags[k] = v[4 + k];
}

// The force field is not stored: as for pair amoeba, pair_coeff is given again after
// read_restart (the per-atom AMOEBA data is in the restart file through fix property/atom).
void PairAmoebaPK::write_restart(FILE *fp)
{
  write_restart_settings(fp);
}

void PairAmoebaPK::read_restart(FILE *fp)
{
  read_restart_settings(fp);
  // Pair::init() stops at unset coefficients with a generic message; marked set, the run
  // reaches init_style, which names the missing pair_coeff (have_model is false).
  if (!allocated) PairKit::allocate_pair_tables(lmp, this);
  for (int i = 1; i <= atom->ntypes; i++)
    for (int j = i; j <= atom->ntypes; j++) setflag[i][j] = 1;
}

double PairAmoebaPK::memory_usage()
{
  double bytes = Pair::memory_usage() + pk_amoeba_state_bytes(&state);
  bytes += pk_amoeba_list_bytes(&nlist);
  bytes += (double) hred_tag.capacity() * sizeof(pk_tag) + hred.capacity() * sizeof(int);
  bytes += (double) mpole_rec.capacity() * sizeof(int) + frame.capacity() * sizeof(int);
  bytes += (double) frame_tag.capacity() * sizeof(pk_tag) + owner.capacity() * sizeof(int);
  bytes += (double) ghost_nbond.capacity() * sizeof(int) + ghost_bonds.capacity() * sizeof(pk_tag);
  return bytes;
}
