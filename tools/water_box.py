#!/usr/bin/env python3
"""A cubic box of water molecules at 1 g/cm^3 as a LAMMPS data file (atom_style atomic).

n^3 molecules sit on a simple cubic lattice of spacing (M_H2O / N_A / 1 g cm^-3)^(1/3) =
3.104 A, each with O-H 0.9572 A and H-O-H 104.52 degrees (TIP3P geometry) and an
orientation drawn from a seeded generator, so the file is the same on every run.
Types: 1 = O, 2 = H.

  tools/water_box.py N OUT.data [--seed S]      (N = 8 gives 512 molecules, 1536 atoms)

molecules(n, seed) gives (box length, [(type, x, y, z), ...]) for other scripts.
"""
import argparse
import math
import random

N_A = 6.02214076e23
M_H2O = 18.01528          # g/mol
ROH = 0.9572              # A
HOH = math.radians(104.52)
MASS = {1: 15.9994, 2: 1.008}


def spacing():
    """Lattice spacing in A that gives 1 g/cm^3 (1 cm^3 = 1e24 A^3)."""
    return (M_H2O / N_A * 1e24) ** (1.0 / 3.0)


def random_frame(rng):
    """Two orthonormal vectors of a uniformly random orientation (Marsaglia's method for
    the first; the second is a random unit vector orthogonalised against it)."""
    def unit():
        while True:
            a, b = rng.uniform(-1, 1), rng.uniform(-1, 1)
            s = a * a + b * b
            if s < 1:
                f = 2 * math.sqrt(1 - s)
                return (a * f, b * f, 1 - 2 * s)
    u = unit()
    while True:
        w = unit()
        d = sum(p * q for p, q in zip(u, w))
        v = [q - d * p for p, q in zip(u, w)]
        nv = math.sqrt(sum(c * c for c in v))
        if nv > 0.1:
            return u, [c / nv for c in v]


def molecules(n, seed=2026):
    a = spacing()
    rng = random.Random(seed)
    atoms = []
    half = 0.5 * HOH
    for i in range(n):
        for j in range(n):
            for k in range(n):
                o = ((i + 0.5) * a, (j + 0.5) * a, (k + 0.5) * a)
                u, v = random_frame(rng)
                atoms.append((1, *o))
                for sgn in (1, -1):
                    atoms.append((2, *(o[c] + ROH * (math.cos(half) * u[c] +
                                                     sgn * math.sin(half) * v[c])
                                       for c in range(3))))
    return n * a, atoms


def data_text(n, seed=2026):
    L, atoms = molecules(n, seed)
    out = [f"water: {n}^3 molecules at 1 g/cm^3 (tools/water_box.py, seed {seed})", "",
           f"{len(atoms)} atoms", "2 atom types", "",
           f"0 {L!r} xlo xhi", f"0 {L!r} ylo yhi", f"0 {L!r} zlo zhi", "",
           "Masses", "", f"1 {MASS[1]}", f"2 {MASS[2]}", "", "Atoms # atomic", ""]
    for idx, (t, x, y, z) in enumerate(atoms, 1):
        out.append(f"{idx} {t} {x!r} {y!r} {z!r}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=2026)
    opt = ap.parse_args()
    with open(opt.out, "w") as fh:
        fh.write(data_text(opt.n, opt.seed))
