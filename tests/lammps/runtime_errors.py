"""Bad input that reaches a running style, for all four styles (deepmd/pk, hdnnp/pk,
amoeba/pk, mdpd/pk): each case either stops LAMMPS with an ERROR that names the style, the
atom(s) and the problem, or runs on with finite results as documented -- never a crash or
NaN forces.

(a) Non-finite positions. LAMMPS refuses them itself where it looks (Domain::pbc at setup and
    at every re-neighbouring: "Non-numeric atom coords"), so a `set atom 1 x v_nan` never
    reaches a style. Between re-neighbourings it does not look: a NaN velocity moves the atom
    to NaN at step 1 (and `neigh_modify check yes` never triggers on NaN), so the style must
    stop. mdpd/pk uses velocities too, and stops already at step 0.
(b) Overlapping atoms (r = 0): an error naming both atoms and r, except mdpd/pk, which gives
    such a pair no force, as LAMMPS mdpd does (beads overlap in mDPD); there the two beads get
    the same force and nothing is NaN. Atoms lost with `thermo_modify lost ignore`: the run
    goes on with one atom less and a finite energy; amoeba/pk stops, naming the lost atom
    that another's multipole frame needs.
(c) Many neighbours: deepmd/pk keeps the nearest sel (deepmd_errors.py tests the warning);
    the others have no fixed-size neighbour buffer, so a dense system gives the same energy
    whether the list holds 4-8x more entries (large skin: here ~1900 per atom for hdnnp/pk,
    ~860 for amoeba/pk, ~550 for mdpd/pk) or not.
(d) A model file changed between runs: a repeated pair_style (pair_coeff for amoeba/pk)
    reads the new file (a changed value shows in the energy, equal to a fresh run's), and a
    truncated file is an ERROR naming it.
(e) `clear` unloads every plugin (LAMMPS plugin_clear); after `plugin load` again, or by
    itself when LAMMPS_PLUGIN_PATH autoloads it, each style runs as in a fresh LAMMPS (same
    energy) and `plugin list` holds each style once."""
import math
import os
import re
import shutil
import tempfile

from amoeba_common import pair_only, water_files
from deepmd_common import TWO_WATERS as WATER
from hdnnp_common import CFENERGY, CFLENGTH, REF as HDNNP_REF
from mdpd_common import FILM, mdpd_pk
from pklmp import PLUGIN, Checker, run

SHARED = os.environ["PAIRKIT_SHARED"]
with open(os.path.join(SHARED, "reference", "deepmd", "deeppot_sea.yaml")) as fh:
    DEEPMD_MODEL = fh.read()

THERMO = "thermo_style custom step atoms pe fmax\nthermo_modify format float %.15g\n"


def hdnnp_dir():
    """A private copy of the n2p2 water model (the tests change its files)."""
    d = tempfile.mkdtemp(prefix="hdnnp-model-", dir=WORK)
    for name in os.listdir(HDNNP_REF):
        shutil.copy(os.path.join(HDNNP_REF, name), d)
    return d


WORK = tempfile.mkdtemp(prefix="pk-runtime-errors-")   # model copies, removed at the end
HDNNP_DIR = hdnnp_dir()
HDNNP_PAIR = (f"pair_style hdnnp/pk 6.36 dir {HDNNP_DIR} showew no maxew -1 cflength {CFLENGTH} "
              f"cfenergy {CFENERGY}\npair_coeff * * O H\n")


def system(style, boundary="p p p", skin=None, box=False):
    """(input text up to and including the pair style and thermo settings, files) of the
    small test system of a style; `plugin load` is left to the caller. amoeba: the water
    dimer (non-periodic), or with box=True the LAMMPS water box without Ewald."""
    neigh = f"neighbor {skin} bin\n" if skin is not None else ""
    if style == "deepmd":
        return (f"units metal\natom_style atomic\natom_modify map yes\nboundary {boundary}\n"
                f"read_data water.data\n{neigh}pair_style deepmd/pk model.yaml\n"
                f"pair_coeff * * O H\n{THERMO}",
                {"water.data": WATER, "model.yaml": DEEPMD_MODEL})
    if style == "hdnnp":
        return (f"units metal\natom_style atomic\natom_modify map yes\nboundary {boundary}\n"
                f"read_data water.data\n{neigh}{HDNNP_PAIR}{THERMO}", {"water.data": WATER})
    if style == "amoeba":
        # the LAMMPS water dimer (or box), pair terms only (bonded styles zeroed)
        data, key = ("data.water_box.amoeba", "box.key") if box else \
            ("data.water_dimer.amoeba", "amoeba_water.key")
        return (pair_only("amoeba/pk", key, data, "p p p" if box else "s s s") + neigh + THERMO,
                water_files())
    assert style == "mdpd"
    film = "atom_modify map yes\n" + FILM.replace("plugin load {plugin}\n", "")
    if boundary != "p p p":
        film = f"boundary {boundary}\n" + film
    if skin is not None:
        film = film.replace("neighbor 0.3 bin", f"neighbor {skin} bin")
    return film + mdpd_pk() + THERMO, {}


STYLES = ("deepmd", "hdnnp", "amoeba", "mdpd")
chk = Checker()


def fails(what, res, *pieces):
    line = next((l for l in res.output.splitlines() if "ERROR" in l), "no ERROR")
    print(f"{what}: {line}")
    chk.check(res.returncode != 0, f"{what}: LAMMPS did not stop")
    for p in pieces:
        if isinstance(p, re.Pattern):
            chk.check(p.search(line), f"{what}: /{p.pattern}/ not in: {line}")
        else:
            chk.check(p in line, f"{what}: '{p}' not in: {line}")


def finite_rows(what, rows, keys=("PotEng", "Fmax")):
    bad = [r for r in rows for k in keys if not math.isfinite(r[k])]
    chk.check(rows and not bad, f"{what}: thermo not finite or missing: {bad or rows}")


# (a) A position set to NaN: LAMMPS itself stops at setup, before any style computes.
text, files = system("deepmd")
res = run("plugin load {plugin}\n" + text + "variable nan atom 1e308*10-1e308*10\n"
          "set atom 1 x v_nan\nrun 0\n", files=files, expect_fail=True, timeout=120)
fails("set atom 1 x NaN", res, "Non-numeric atom coords - simulation unstable")

# (a) A NaN velocity: the position becomes NaN at step 1 without a re-neighbouring.
for style in STYLES:
    text, files = system(style)
    res = run("plugin load {plugin}\n" + text + "variable nan atom 1e308*10-1e308*10\n"
              "set atom 1 vx v_nan\nfix nve all nve\nneigh_modify every 1 delay 0 check yes\n"
              "run 3\n", files=files, expect_fail=True, timeout=300)
    if style == "mdpd":
        fails("NaN velocity, mdpd", res, "ERROR on proc 0: pair_style mdpd/pk: atom 1 has a "
              "non-finite velocity (", "at step 0: the simulation is unstable")
    else:
        fails(f"NaN velocity, {style}", res, f"ERROR on proc 0: pair_style {style}/pk: atom 1 "
              "has a non-finite position (", "at step 1: the simulation is unstable")
        # step 0 ran on finite positions: its energy and forces are finite
        finite_rows(f"NaN velocity, {style}: step 0", [r for r in res.thermo() if r["Step"] == 0])

# The same on two ranks: the rank that owns atom 1, or one that holds a ghost image of it,
# stops the run (error->one aborts all ranks; no rank waits forever).
text, files = system("deepmd")
res = run("plugin load {plugin}\n" + text + "variable nan atom 1e308*10-1e308*10\n"
          "set atom 1 vx v_nan\nfix nve all nve\nneigh_modify every 1 delay 0 check yes\n"
          "run 3\n", nprocs=2, files=files, expect_fail=True, timeout=300)
fails("NaN velocity, deepmd, 2 ranks", res, re.compile(
    r"ERROR on proc [01]: pair_style deepmd/pk: atom 1( \(a ghost image\))? has a non-finite "
    r"position \(.*at step 1"))

# (b) Two atoms at one point.
OVERLAP = {  # case: (atom moved, atom it is moved onto, pattern of the message)
    "deepmd": (2, 1, r"pair_style deepmd/pk: atoms 1 \(O\) and 2 \(H\) overlap: r = 0 < 1e-10, "
               r"where the descriptor 1/r is infinite"),
    "deepmd tabulate no": (2, 1, r"pair_style deepmd/pk: atoms 1 \(O\) and 2 \(H\) overlap: r = 0"),
    "hdnnp": (2, 1, r"pair_style hdnnp/pk: atoms 1 \(O\) and 2 \(H\) overlap: r = 0 < 1e-10 "
              r"\(model length units\)"),
    "amoeba": (4, 1, r"pair_style amoeba/pk: atoms (1 and 4|4 and 1) overlap: r = 0 < 1e-10 A"),
    # the water box: ~150 listed neighbours an atom, so the pair is met by the 4-wide filter
    "amoeba box": (301, 1, r"pair_style amoeba/pk: atoms (1 and 301|301 and 1) overlap: r = 0"),
}
for case, (moved, onto, pattern) in OVERLAP.items():
    style = case.split()[0]
    text, files = system(style, box=case.endswith("box"))
    if case.endswith("tabulate no"):   # the exact kernel: no table to run out of
        text = text.replace("deepmd/pk model.yaml", "deepmd/pk model.yaml tabulate no")
    res = run("plugin load {plugin}\n" + text + f"""
variable x equal x[{onto}]
variable y equal y[{onto}]
variable z equal z[{onto}]
set atom {moved} x ${{x}} y ${{y}} z ${{z}}
run 0
""", files=files, expect_fail=True, timeout=300)
    fails(f"overlap, {case}", res, re.compile("ERROR on proc 0: " + pattern))

# mdpd/pk: the pair gets no force (LAMMPS mdpd: r < 1e-10), so with gamma = 0 (no random or
# dissipative force) the two beads, which see the same neighbours, feel the same force.
text, files = system("mdpd")
text = text.replace(mdpd_pk(), mdpd_pk(gamma=0.0))
res = run("plugin load {plugin}\n" + text + """
set atom 2 x $(x[1]) y $(y[1]) z $(z[1])
dump f all custom 1 forces.dump id x y z fx fy fz
dump_modify f sort id format float %.17g
run 0
""", files=files, timeout=300)
rows = res.dump("forces.dump")
chk.check(all(math.isfinite(r[k]) for r in rows.values() for k in ("fx", "fy", "fz")),
          "overlap, mdpd: a force is not finite")
chk.check(all(rows[1][k] == rows[2][k] for k in "xyz"), "overlap, mdpd: beads not at one point")
for k in ("fx", "fy", "fz"):
    chk.close(rows[2][k], rows[1][k], 1e-12, 1.0, f"overlap, mdpd: {k} of bead 2 vs bead 1")
finite_rows("overlap, mdpd", res.thermo())

# (b) An atom lost through a fixed boundary, `thermo_modify lost ignore`: the run goes on.
# amoeba/pk cannot go on: the lost O is the frame atom of its H atoms' multipoles.
text, files = system("amoeba")
text, n = re.subn(r"^(read_data .*)$", r"\1\nchange_box all x final -10 10 y final -10 10 "
                 r"z final -10 10 boundary f f f", text, count=1, flags=re.M)
assert n == 1
res = run("plugin load {plugin}\n" + text + """
thermo_modify lost ignore format float %.15g
set atom 4 vz 1e5
fix nve all nve
run 4
""", files=files, expect_fail=True, timeout=300)
fails("lost atom, amoeba", res, re.compile(r"ERROR on proc 0: pair_style amoeba/pk: .*atom 4 of "
                                           r"atom [56] not found \(lost, or the ghost cutoff"))
LOST = {"deepmd": 1e5, "hdnnp": 1e5, "mdpd": 1e3}   # vz that leaves the box in one step
for style, vz in LOST.items():
    text, files = system(style, boundary="p p f")
    res = run("plugin load {plugin}\n" + text + f"""
thermo_modify lost ignore format float %.15g
set atom 1 vz {vz}
fix nve all nve
thermo 1
run 4
""", files=files, timeout=300)
    rows = res.thermo()
    chk.check(rows[0]["Atoms"] - rows[-1]["Atoms"] == 1,
              f"lost atom, {style}: atoms {rows[0]['Atoms']} -> {rows[-1]['Atoms']}, want one lost")
    finite_rows(f"lost atom, {style}", rows)

# (c) No neighbour limit: the same energy from a list with 4-8x more entries (large skin).
DENSE = {  # style: (input edit making it dense, small skin, large skin)
    "hdnnp": (lambda t, f: (t.replace("read_data water.data", "lattice sc 1.6\nregion b block 0 "
                                      "4 0 4 0 4\ncreate_box 2 b\ncreate_atoms 1 box\n"
                                      "set type 1 type/fraction 2 0.67 12345\nmass * 1.0"), f),
              1.0, 6.0),
    "amoeba": (lambda t, f: (t, f), 2.0, 9.0),
    "mdpd": (lambda t, f: (t.replace("lattice fcc 6", "lattice fcc 20"), f), 0.3, 2.0),
}
for style, (edit, small, large) in DENSE.items():
    pe = []
    for skin in (small, large):
        text, files = edit(*system(style, skin=skin, box=style == "amoeba"))
        res = run("plugin load {plugin}\n" + text + "run 0\n", files=files, timeout=600)
        pe.append(res.thermo()[-1]["PotEng"])
        finite_rows(f"dense, {style}, skin {skin}", res.thermo())
    chk.close(pe[1], pe[0], 1e-10, 1.0, f"dense, {style}: energy with skin {large} vs {small}")

# (d) The model file changed between runs, then truncated.
CHANGE = {  # style: (file, old text, new text, pair command(s) that re-read it)
    "deepmd": ("model.yaml", "- - -93.57372029622398", "- - -94.57372029622398",
               "pair_style deepmd/pk model.yaml\npair_coeff * * O H"),
    "hdnnp": (os.path.join(HDNNP_DIR, "weights.008.data"), "-4.2252995889643252E-01 a",
              "-3.2252995889643252E-01 a", HDNNP_PAIR),
    "amoeba": ("amoeba_water.prm", "3.4050     0.1100", "3.4050     0.1200",   # O's HAL epsilon
               "pair_coeff * * amoeba_water.prm amoeba_water.key"),
}
TRUNCATED = {"deepmd": "model.yaml", "hdnnp": "weights.008.data", "amoeba": "amoeba_water.prm"}
for style, (path, old, new, repeat) in CHANGE.items():
    text, files = system(style)
    # hdnnp's model is the private copy (an absolute path), the others' files are in the run
    if style == "hdnnp":
        with open(path) as fh:
            original = fh.read()
    else:
        original = files[path]
    assert original.count(old) >= 1, (style, old)
    changed = original.replace(old, new, 1)
    staged = tempfile.mkdtemp(prefix="pk-model-", dir=WORK)
    for name, body in (("changed", changed), ("truncated", original[:len(original) // 2])):
        with open(os.path.join(staged, name), "w") as fh:
            fh.write(body)
    res = run("plugin load {plugin}\n" + text + f"""run 0
shell cp {staged}/changed {path}
{repeat}
run 0
shell cp {staged}/truncated {path}
{repeat}
run 0
""", files=files, expect_fail=True, timeout=300)
    fails(f"truncated model, {style}", res, TRUNCATED[style])
    e_old, e_new = res.thermo(0)[-1]["PotEng"], res.thermo(1)[-1]["PotEng"]
    # a fresh LAMMPS on the changed file
    if style == "hdnnp":
        with open(path, "w") as fh:
            fh.write(changed)
    else:
        files = dict(files, **{path: changed})
    fresh = run("plugin load {plugin}\n" + text + "run 0\n", files=files, timeout=300)
    e_fresh = fresh.thermo()[-1]["PotEng"]
    if style == "hdnnp":
        with open(path, "w") as fh:
            fh.write(original)
    chk.check(abs(e_new - e_old) > 1e-6, f"changed model, {style}: energy unchanged {e_new}")
    chk.close(e_new, e_fresh, 1e-12, 1.0, f"changed model, {style}: re-read vs fresh run")
    if style == "deepmd":   # bias_atom_e of O lowered by 1 eV: two O atoms
        chk.close(e_new - e_old, -2.0, 1e-9, 1.0, "changed model, deepmd: energy shift")

# (e) clear: every style in turn, each after `clear` and `plugin load`, then the first again;
# each energy equals a fresh LAMMPS's.
fresh = {}
for style in STYLES:
    text, files = system(style)
    fresh[style] = run("plugin load {plugin}\n" + text + "run 0\n", files=files,
                       timeout=300).thermo()[-1]["PotEng"]
all_files = {}
order = STYLES + (STYLES[0],)
blocks = []
for style in order:
    text, files = system(style)
    all_files.update(files)
    blocks.append("plugin load {plugin}\n" + text + "run 0\n")
res = run("clear\n".join(blocks) + "plugin list\n", files=all_files, timeout=600)
for k, style in enumerate(order):
    chk.close(res.thermo(k)[-1]["PotEng"], fresh[style], 1e-12, 1.0,
              f"clear: {style} (run {k + 1}) vs a fresh LAMMPS")
PK_STYLES = ["amoeba/pk", "deepmd/pk", "hdnnp/pk", "mdpd/pk", "mdpd/rhosum/pk"]
listed = re.findall(r"\d+: pair style plugin (\S+)",
                    res.output.split("Currently loaded plugins")[-1])
chk.check(sorted(listed) == PK_STYLES, f"clear then plugin load: plugin list holds {listed}")

# Without `plugin load` after clear the style is gone (LAMMPS unloads plugins on clear).
text, files = system("deepmd")
res = run("plugin load {plugin}\n" + text + "run 0\nclear\n" + text + "run 0\n", files=files,
          expect_fail=True, timeout=300)
fails("clear without plugin load", res, "Unrecognized pair style 'deepmd/pk'")

# Autoloaded from LAMMPS_PLUGIN_PATH: back after clear by itself, each style listed once.
text, files = system("deepmd")
res = run(text + "run 0\nclear\nplugin list\n" + text + "run 0\nplugin list\n", files=files,
          env_extra={"LAMMPS_PLUGIN_PATH": os.path.dirname(PLUGIN)}, timeout=300)
for k in (0, 1):
    chk.close(res.thermo(k)[-1]["PotEng"], fresh["deepmd"], 1e-12, 1.0,
              f"autoload: deepmd run {k + 1} vs a fresh LAMMPS")
for k, part in enumerate(res.output.split("Currently loaded plugins")[1:]):
    listed = re.findall(r"\d+: pair style plugin (\S+)", part.split("Loop time")[0])
    chk.check(sorted(listed) == PK_STYLES, f"autoload: plugin list {k + 1}: {listed}")
shutil.rmtree(WORK)
chk.finish()
