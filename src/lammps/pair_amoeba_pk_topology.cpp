/* amoeba/pk adapter: the per-atom topology work LAMMPS `pair amoeba` does, on the core's
 * helpers. Once per run (first compute): polarization groups and multipole frames. On
 * every reneighbouring: H-reduction partners, frame atoms' local indices, multipole
 * records, ghosts' owned copies, the core's neighbour list. */
#include "pair_amoeba_pk.h"

#include "pk_adapter.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "neigh_list.h"

#include <algorithm>

using namespace LAMMPS_NS;

static const char STYLE[] = "pair_style amoeba/pk";

// d2_xyzaxis holds the frame atoms' tags as LAMMPS pair amoeba stores them: columns x, y, z,
// each tag's bits in a double (ubuf), 0 when unused. The core orders frames z, x, y.
static const int XYZAXIS_COL[3] = {2, 0, 1};

/* Polarization groups into i_amgroup (LAMMPS assign_groups): every atom starts as its own
 * group; relaxing over bonds and copying owners' ids to ghosts repeats until no rank
 * changed a ghost's id. Ghosts get i_amgroup afterwards with every border exchange. */
void PairAmoebaPK::assign_groups()
{
  int *amgroup = atom->ivector[index_amgroup];
  const int nall = atom->nlocal + atom->nghost;
  for (int i = 0; i < nall; i++) amgroup[i] = (int) atom->tag[i];
  const pk_atoms a = atoms();
  const pk_amoeba_topology top = topology();
  for (;;) {
    int changed = 0, any = 0;
    pk_status st;
    pk_status_clear(&st);
    if (pk_amoeba_groups_relax(&model, &a, &top, atom->ivector[index_amtype], amgroup, &changed,
                               &st) != PK_OK)
      fail(st);
    forward_ints(amgroup);
    MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, world);
    if (!any) break;
  }
  bigint count = 0, total = 0;
  for (int i = 0; i < atom->nlocal; i++) count += amgroup[i] == (int) atom->tag[i];
  MPI_Allreduce(&count, &total, 1, MPI_LMP_BIGINT, MPI_SUM, world);
  if (comm->me == 0) utils::logmesg(lmp, "{}: {} polarization groups\n", STYLE, total);
}

/* Multipole frames of the owned atoms (LAMMPS kmpole), stored as kind in i_polaxe and
 * frame-atom tags in d2_xyzaxis so that they travel with the atoms. A frame may need to
 * know whether two ghost atoms are bonded (a z atom and an x atom bonded to it, both owned
 * elsewhere); LAMMPS keeps bond lists of owned atoms only, so, as pair amoeba does, the
 * 1-2 lists are first sent to the ghosts and given to the core as bond12. */
void PairAmoebaPK::assign_frames()
{
  const int nlocal = atom->nlocal, nall = nlocal + atom->nghost, ms = atom->maxspecial;
  ghost_nbond.assign(nall, 0);
  ghost_bonds.assign((size_t) nall * ms, 0);
  for (int i = 0; i < nlocal; i++) {
    ghost_nbond[i] = atom->nspecial[i][0];
    for (int b = 0; b < ghost_nbond[i]; b++) ghost_bonds[(size_t) i * ms + b] = atom->special[i][b];
  }
  comm_kind = COMM_BONDS;
  comm->forward_comm(this);

  std::vector<const pk_tag *> bonds(nall);
  for (int i = 0; i < nall; i++) bonds[i] = ghost_bonds.data() + (size_t) i * ms;
  pk_amoeba_topology top = topology();
  top.nbond12 = ghost_nbond.data();
  top.bond12 = bonds.data();
  const pk_atoms a = atoms();

  std::vector<int> rec(std::max(nlocal, 1));
  std::vector<pk_tag> tags(3 * (size_t) std::max(nlocal, 1));
  pk_status st;
  pk_status_clear(&st);
  if (pk_amoeba_assign_frames(&model, &a, &top, atom->ivector[index_amtype], rec.data(),
                              reinterpret_cast<pk_tag(*)[3]>(tags.data()), nullptr, &st) != PK_OK)
    fail(st);

  int *polaxe = atom->ivector[index_polaxe];
  double **xyzaxis = atom->darray[index_xyzaxis];
  for (int i = 0; i < nlocal; i++) {
    polaxe[i] = model.mpole[rec[i]].kind;
    for (int k = 0; k < 3; k++) xyzaxis[i][XYZAXIS_COL[k]] = ubuf((int64_t) tags[3 * i + k]).d;
  }
  ghost_nbond.clear();
  ghost_bonds.clear();
}

/* Each owned atom's multipole record from its stored frame: kind (i_polaxe) and the types
 * of its frame atoms (LAMMPS keeps the record itself in a per-atom store instead). */
void PairAmoebaPK::find_mpole_records()
{
  const int *amtype = atom->ivector[index_amtype];
  const int *polaxe = atom->ivector[index_polaxe];
  for (int i = 0; i < atom->nlocal; i++) {
    const pk_tag *ft = &frame_tag[3 * (size_t) i];
    const int *fr = &frame[3 * (size_t) i];
    int t[3];
    for (int k = 0; k < 3; k++) t[k] = ft[k] ? amtype[fr[k]] : 0;
    mpole_rec[i] = pk_amoeba_find_mpole(&model, amtype[i], (pk_amoeba_frame_kind) polaxe[i], t[0],
                                        t[1], t[2]);
    if (mpole_rec[i] < 0)
      error->one(FLERR, "{}: atom {} (AMOEBA type {}): no multipole record in {} matches its "
                 "frame (i_polaxe {}, frame atoms z x y = {} {} {}); i_polaxe and d2_xyzaxis are "
                 "set by amoeba/pk itself and must not be changed", STYLE, atom->tag[i], amtype[i],
                 prm_path, polaxe[i], ft[0], ft[1], ft[2]);
  }
}

void PairAmoebaPK::refresh_topology()
{
  const pk_atoms a = atoms();
  const pk_amoeba_topology top = topology();
  const int *amtype = atom->ivector[index_amtype];
  pk_status st;
  pk_status_clear(&st);

  // H-reduction partners: owned atoms from their bonds, ghosts from their owners
  if (pk_amoeba_hred_partner(&model, &a, &top, amtype, hred_tag.data(), nullptr, &st) != PK_OK)
    fail(st);
  forward_ints(hred_tag.data());
  pk_amoeba_map_hred(&a, &top, hred_tag.data(), hred.data());

  // frame atoms, by tag from d2_xyzaxis, to their closest images (multipoles only)
  if (terms.mpole || terms.polar) {
    double **xyzaxis = atom->darray[index_xyzaxis];
    for (int i = 0; i < atom->nlocal; i++)
      for (int k = 0; k < 3; k++)
        frame_tag[3 * (size_t) i + k] = (pk_tag) ubuf(xyzaxis[i][XYZAXIS_COL[k]]).i;
    if (pk_amoeba_map_frames(&a, &top, reinterpret_cast<const pk_tag(*)[3]>(frame_tag.data()),
                             reinterpret_cast<int(*)[3]>(frame.data()), &st) != PK_OK)
      fail(st);
    find_mpole_records();
  }

  // ghosts that are images of atoms owned here (atom->map prefers the owned copy)
  const int nlocal = atom->nlocal;
  for (int i = 0; i < nlocal + atom->nghost; i++) {
    const int j = i < nlocal ? i : atom->map(atom->tag[i]);
    owner[i] = j >= 0 && j < nlocal ? j : -1;
  }

  const pk_neigh nl = PairKit::neigh_view(list);
  if (pk_amoeba_list_build(&nlist, &model, &nl, &a, &top, &st) != PK_OK)
    fail(st);
}
