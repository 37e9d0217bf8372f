"""Shared pieces of the hdnnp/pk LAMMPS tests: n2p2's RPBE-D3 water model (Morawietz et al.)
with its reference structure (1080 atoms, Bohr and Hartree) in reference/n2p2/H2O_RPBE-D3,
the unit factors of the LAMMPS hdnnp documentation, LAMMPS data files written from
n2p2's input.data, and the LAMMPS ML-HDNNP examples run under -sf pk against their logs."""
import os
import re

from pklmp import LAMMPS_SRC, atomic_data, run

REF = os.path.join(os.environ["PAIRKIT_SHARED"], "reference", "n2p2", "H2O_RPBE-D3")
CFLENGTH = 1.8897261328    # Bohr per Angstrom: LAMMPS length x cflength = model length
CFENERGY = 0.0367493254    # Hartree per eV
MASS = {"H": 1.00794, "O": 15.9994}
NKTV2P = 1.6021765e6       # LAMMPS force->nktv2p for units metal
# The model's largest symmetry-function cutoff is 12 Bohr = 6.3501 Angstrom.
STYLE = f"hdnnp/pk 6.36 dir {REF} showew no cflength {CFLENGTH} cfenergy {CFENERGY}"


def read_n2p2(path):
    """First structure of an n2p2 input.data: (lattice rows, [(element, x, y, z)])."""
    lattice, atoms = [], []
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if f[:1] == ["lattice"]:
                lattice.append([float(v) for v in f[1:4]])
            elif f[:1] == ["atom"]:
                atoms.append((f[4], float(f[1]), float(f[2]), float(f[3])))
            elif f[:1] == ["end"]:
                break
    return lattice, atoms


def read_reference():
    """n2p2's predicted energy (Hartree) and forces (Hartree/Bohr, input.data order)."""
    energy, forces = None, []
    with open(os.path.join(REF, "reference-prediction.txt")) as fh:
        for line in fh:
            f = line.split()
            if not f or f[0].startswith("#"):
                continue
            if f[0] == "energy":
                energy = float(f[1])
            else:
                forces.append([float(v) for v in f])
    return energy, forces


def data_file(lattice, atoms, scale=1.0 / CFLENGTH, types=("H", "O"), type_of=None):
    """LAMMPS data file (atom_style atomic) of an orthogonal periodic cell; lengths are
    multiplied by `scale` (default: Bohr to Angstrom). Atom i gets ID i+1 and type
    type_of[i] when given, else its element's position in `types` (1-based)."""
    for a in range(3):
        for b in range(3):
            if a != b and lattice[a][b] != 0.0:
                raise SystemExit("data_file: only orthogonal cells")
    rows = [(type_of[i] if type_of else types.index(elem) + 1, x * scale, y * scale, z * scale)
            for i, (elem, x, y, z) in enumerate(atoms)]
    return atomic_data("hdnnp/pk test structure", [(0, lattice[d][d] * scale) for d in range(3)],
                       [MASS[e] for e in types], rows)


def reference_data(**kwargs):
    """The reference structure as a LAMMPS data file (Angstrom unless scale is given)."""
    lattice, atoms = read_n2p2(os.path.join(REF, "input.data"))
    return data_file(lattice, atoms, **kwargs)


def script(style=STYLE, coeff="* * H O", data="water.data", extra=""):
    """Read a data file, set hdnnp/pk, then `extra` (computes, output, run)."""
    return f"""
plugin load {{plugin}}
units metal
atom_style atomic
boundary p p p
atom_modify map yes
read_data {data}
pair_style {style}
pair_coeff {coeff}
{extra}
"""


# The LAMMPS ML-HDNNP examples (examples/PACKAGES/hdnnp: 360 water molecules, the RPBE-D3
# model, 10 steps of NVE) and their reference logs, made by LAMMPS hdnnp with n2p2:
#   in.hdnnp  (pair_style hdnnp)                                 log.23Aug23.hdnnp.g++.1
#   in.hybrid (pair_style hybrid lj/cut + hdnnp, types NULL H O)  log.23Aug23.hybrid.g++.1
EXAMPLE = os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "hdnnp")
EXAMPLE_RUNS = (("in.hdnnp", "log.23Aug23.hdnnp.g++.1"), ("in.hybrid", "log.23Aug23.hybrid.g++.1"))


def read_example(name):
    with open(os.path.join(EXAMPLE, name)) as fh:
        return fh.read()


def run_example(example, env_extra=None):
    """The example input unchanged under `-sf pk`, the plugin autoloaded from
    LAMMPS_PLUGIN_PATH, the example's files linked into the run directory with `shell ln -s`
    before the example text; env_extra (e.g. PAIRKIT_BACKEND) is added to the environment."""
    links = "".join(f"shell ln -s {os.path.join(EXAMPLE, name)} {name}\n"
                    for name in ("data.H2O-360mol", "hdnnp-data"))
    env = {"LAMMPS_PLUGIN_PATH": os.path.dirname(os.environ["PK_PLUGIN"]), **(env_extra or {})}
    return run(links + read_example(example), args=("-sf", "pk"), env_extra=env, timeout=600)


def thermo_rows(text):
    """Thermo rows of the first run as lists of the printed strings, and the column names."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.split()[:2] == ["Step", "Temp"])
    cols, rows = lines[start].split(), []
    for line in lines[start + 1:]:
        if line.startswith("Loop time"):
            break
        if not line.startswith("###"):
            rows.append(line.split())
    return cols, rows


def last_digit(s):
    """Value of one unit in the last printed digit of a number string such as -750069.48,
    5761.8646 or 1.2e-05."""
    mantissa, _, exponent = s.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def ew_summaries(text):
    return re.findall(r"### NNP EW SUMMARY ### TS:\s+(\d+) EW\s+(\d+)", text)


def check_example(chk, example, log, output, label):
    """Checks one example run's output against the example's log: hdnnp/pk autoloaded and in
    use, its timing summary (11 x 1080 atom evaluations), every thermo value of all 11 rows
    (Temp, E_pair, E_mol, TotEng, Press) within one unit of its last printed digit (E_pair
    -750069.48 at step 0: 0.01 eV), and the extrapolation-warning summaries (showewsum 5) at
    the same steps with the same counts. Prints how many printed values are identical."""
    reference = read_example(log)
    chk.contains(output, "Loaded 1 plugins from", f"{label}: plugin autoloaded")
    chk.contains(output, "pair_style hdnnp/pk: model hdnnp-data", f"{label}: hdnnp/pk in use")
    chk.check(re.search(r"pair_style hdnnp/pk timing: 11880 atom evaluations", output),
              f"{label}: timing summary with 11 x 1080 atom evaluations")
    ref_cols, ref_rows = thermo_rows(reference)
    cols, rows = thermo_rows(output)
    chk.check(cols == ref_cols, f"{label}: thermo columns {cols} vs {ref_cols}")
    chk.check(len(rows) == len(ref_rows) == 11,
              f"{label}: {len(rows)} thermo rows, reference {len(ref_rows)}")
    exact = worst = 0
    for got, want in zip(rows, ref_rows):
        for name, g, w in zip(cols, got, want):
            diff = abs(float(g) - float(w)) / last_digit(w)
            worst = max(worst, diff)
            exact += g == w
            chk.check(diff <= 1.0, f"{label}: step {got[0]} {name}: {g} vs log {w}")
    print(f"{label}: {exact} of {len(ref_rows) * len(ref_cols)} printed thermo values "
          f"identical to {log}; largest difference {worst:.2f} units of the last printed digit")
    e0 = rows[0][2] if rows else "none"
    chk.check(e0 == "-750069.48", f"{label}: E_pair at step 0: {e0}")
    ours, theirs = ew_summaries(output), ew_summaries(reference)
    chk.check(ours == theirs, f"{label}: EW summaries {ours} vs log {theirs}")
    chk.check(("5", "0") in theirs, f"{log}: no EW summary at step 5")
