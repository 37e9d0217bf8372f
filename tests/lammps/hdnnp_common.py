"""Shared pieces of the hdnnp/pk LAMMPS tests: n2p2's RPBE-D3 water model (Morawietz et al.)
with its reference structure (1080 atoms, Bohr and Hartree) in reference/n2p2/H2O_RPBE-D3,
the unit factors of the LAMMPS hdnnp documentation, and LAMMPS data files written from
n2p2's input.data."""
import os

from pklmp import atomic_data

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
