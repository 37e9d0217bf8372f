"""Shared pieces of the deepmd/pk LAMMPS tests: the synthetic water model's path (generated at
build time, PK_DEEPMD_WATER_MODEL), water boxes from tools/water_box.py, two water molecules
and the energy drift of an NVE run."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import water_box  # noqa: E402

# set by CMake on the tests that use it
WATER_MODEL = os.environ.get("PK_DEEPMD_WATER_MODEL", "")

# Two water molecules, far from each other, in a periodic 12 A box (types 1 = O, 2 = H).
TWO_WATERS = """two water molecules

6 atoms
2 atom types

0 12 xlo xhi
0 12 ylo yhi
0 12 zlo zhi

Masses

1 15.999
2 1.008

Atoms # atomic

1 1 2.0 2.0 2.0
2 2 2.96 2.0 2.0
3 2 1.76 2.93 2.0
4 1 6.0 6.0 6.0
5 2 6.96 6.0 6.0
6 2 5.76 6.93 6.0
"""


def water_data(n):
    """LAMMPS data file text of n^3 water molecules at 1 g/cm^3 (types 1 = O, 2 = H)."""
    return water_box.data_text(n)


def drift_and_fluctuation(rows, natoms, dt):
    """Least-squares slope of E_total(t) (eV/atom/ps) and RMS about the line (eV/atom), from
    thermo rows with Step and TotEng, timestep dt in ps."""
    t = [r["Step"] * dt for r in rows]
    e = [r["TotEng"] for r in rows]
    n = len(t)
    tm, em = sum(t) / n, sum(e) / n
    slope = sum((a - tm) * (b - em) for a, b in zip(t, e)) / sum((a - tm) ** 2 for a in t)
    resid = [b - em - slope * (a - tm) for a, b in zip(t, e)]
    return slope / natoms, math.sqrt(sum(r * r for r in resid) / n) / natoms
