"""Extrapolation warnings of hdnnp/pk (showew, showewsum, maxew, resetew) on two isolated
water molecules 20 Angstrom apart, far outside the liquid the model was trained on, so that
many symmetry functions fall outside [Gmin, Gmax] of scaling.data.

Outside references:
  * the expected warnings are computed here from the published symmetry-function formulas
    (n2p2 documentation; Behler, J. Chem. Phys. 134, 074106 (2011)) with the model's
    cutoff_type 2 (f = tanh^3(1 - r/rc)):
      type 2: G = sum_j exp(-eta (r_ij - rs)^2) f(r_ij)
      type 3: G = 2^(1-zeta) sum_{j<k} (1 + lambda cos theta_ijk)^zeta
                  exp(-eta (r_ij^2 + r_ik^2 + r_jk^2)) f(r_ij) f(r_ik) f(r_jk)
    in Bohr, from input.nn, and the range of each function from scaling.data;
  * which input.nn line is symmetry function number k of an element (n2p2's sorted order,
    the row order of scaling.data) is read from the symmetry-function table n2p2 printed
    in the LAMMPS example's log (log.23Aug23.hdnnp.g++.1).
Checked: the listed warnings (showew yes) are exactly the expected (atom, function) pairs,
with G to its 8 printed digits, the bound, and the distance outside it (3 digits); 1 and 2 MPI ranks
(one molecule each) list the same; the summary (showewsum 1) counts them; maxew stops the
run when the count is exceeded (count - 1) and not when it is reached (count); resetew no
accumulates over steps (a second `run 0` exceeds 1.5 x count), resetew yes does not."""
import math
import os
import re

from hdnnp_common import CFENERGY, CFLENGTH, REF, data_file, script
from pklmp import LAMMPS_SRC, Checker, run

ELEMENTS = ("H", "O")    # n2p2 order (atomic number), also the LAMMPS types 1 and 2


def sf_lines():
    """input.nn line number -> (centre, type, neighbour elements, eta, rs, lambda, zeta, rc)."""
    out = {}
    with open(os.path.join(REF, "input.nn")) as fh:
        for n, line in enumerate(fh, 1):
            f = line.split("#", 1)[0].split()
            if f[:1] != ["symfunction_short"]:
                continue
            if f[2] == "2":
                out[n] = (f[1], 2, (f[3],), float(f[4]), float(f[5]), 0.0, 0.0, float(f[6]))
            elif f[2] == "3":
                rs = float(f[9]) if len(f) > 9 else 0.0
                out[n] = (f[1], 3, (f[3], f[4]), float(f[5]), rs, float(f[6]), float(f[7]),
                          float(f[8]))
    return out


def sorted_order():
    """(element, SF number) -> input.nn line, from n2p2's table in the example's log."""
    path = os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "hdnnp", "log.23Aug23.hdnnp.g++.1")
    order = {}
    with open(path) as fh:
        for line in fh:
            m = re.match(r"^\s+(\d+)\s+([A-Z][a-z]?)\s+[23]\s+ct\d\s.*\s(\d+)\s*$", line)
            if m:
                order[(m.group(2), int(m.group(1)))] = int(m.group(3))
    return order


def scaling_rows():
    """(element, SF number) -> (Gmin, Gmax) from scaling.data."""
    rows = {}
    with open(os.path.join(REF, "scaling.data")) as fh:
        for line in fh:
            f = line.split()
            if f and not f[0].startswith("#"):
                rows[(ELEMENTS[int(f[0]) - 1], int(f[1]))] = (float(f[2]), float(f[3]))
    return rows


def fc(r, rc):
    return math.tanh(1.0 - r / rc) ** 3 if r < rc else 0.0


def symfunc(atoms, i, sf):
    """Value of one symmetry function for centre i; atoms = [(element, x, y, z)] in Bohr."""
    _, kind, neigh, eta, rs, lam, zeta, rc = sf

    def dist(a, b):
        return math.dist(atoms[a][1:], atoms[b][1:])

    others = [j for j in range(len(atoms)) if j != i]
    if kind == 2:
        return sum(math.exp(-eta * (dist(i, j) - rs) ** 2) * fc(dist(i, j), rc)
                   for j in others if atoms[j][0] == neigh[0])
    g = 0.0
    for a, j in enumerate(others):
        for k in others[a + 1:]:
            if sorted((atoms[j][0], atoms[k][0])) != sorted(neigh):
                continue
            rij, rik, rjk = dist(i, j), dist(i, k), dist(j, k)
            u = [atoms[j][q] - atoms[i][q] for q in (1, 2, 3)]
            v = [atoms[k][q] - atoms[i][q] for q in (1, 2, 3)]
            cos = sum(p * q for p, q in zip(u, v)) / (rij * rik)
            g += ((1.0 + lam * cos) ** zeta *
                  math.exp(-eta * ((rij - rs) ** 2 + (rik - rs) ** 2 + (rjk - rs) ** 2)) *
                  fc(rij, rc) * fc(rik, rc) * fc(rjk, rc))
    return 2.0 ** (1.0 - zeta) * g


def molecule(ox, roh, angle):
    """O at (ox, 10, 10) Angstrom and two H at roh, opening `angle` degrees, in the xy plane."""
    t = math.radians(angle)
    return [("O", ox, 10.0, 10.0), ("H", ox + roh, 10.0, 10.0),
            ("H", ox + roh * math.cos(t), 10.0 + roh * math.sin(t), 10.0)]


# Tags 1-3 in the left half of the box, 4-6 in the right: one molecule per rank on 2 ranks.
ATOMS = molecule(10.0, 0.9572, 104.52) + molecule(30.0, 1.02, 98.0)
LATTICE = [[40.0, 0, 0], [0, 20.0, 0], [0, 0, 20.0]]
DATA = {"water.data": data_file(LATTICE, ATOMS, scale=1.0)}

lines, order, ranges = sf_lines(), sorted_order(), scaling_rows()
bohr = [(e, x * CFLENGTH, y * CFLENGTH, z * CFLENGTH) for e, x, y, z in ATOMS]
expected = {}
for i, (elem, *_) in enumerate(ATOMS):
    k = 1
    while (elem, k) in order:
        g = symfunc(bohr, i, lines[order[(elem, k)]])
        gmin, gmax = ranges[(elem, k)]
        if g < gmin or g > gmax:
            expected[(i + 1, k)] = g
        k += 1

chk = Checker()
nsf = {e: sum(1 for (el, _) in order if el == e) for e in ELEMENTS}
chk.check(nsf == {"H": 27, "O": 30} and len(ranges) == 57,
          f"n2p2's table in the log: {nsf} functions, scaling.data {len(ranges)} rows")
count = len(expected)
print(f"expected {count} extrapolation warnings over 6 atoms x 27/30 symmetry functions")
chk.check(count > 20, f"the isolated molecules should extrapolate a lot: {count} warnings")

WARN = re.compile(r"pair_style hdnnp/pk: step 0, rank (\d+): extrapolation: atom \d+ "
                  r"\(tag (\d+), (\w+)\), (\w+) SF (\d+) \(input\.nn line (\d+): [^)]*\): "
                  r"G = (\S+) (above|below) (Gmax|Gmin) (\S+) by (\S+)$", re.M)
STYLE = f"hdnnp/pk 6.36 dir {REF} cflength {CFLENGTH} cfenergy {CFENERGY}"


def lammps(keywords, extra="run 0", **kwargs):
    return run(script(style=f"{STYLE} {keywords}", extra=extra), files=DATA, timeout=120,
               **kwargs)


def check_listing(res, label):
    found = {}
    for m in WARN.finditer(res.output):
        rank, tag, elem, elem2, k, line, g, side, bound, b, by = m.groups()
        tag, k, g, b, by = int(tag), int(k), float(g), float(b), float(by)
        key = (tag, k)
        found[key] = int(rank)
        gmin, gmax = ranges[(elem, k)]
        want = expected.get(key)
        ok = (want is not None and elem == elem2 == ATOMS[tag - 1][0] and
              int(line) == order[(elem, k)] and abs(g - want) <= 1e-7 * max(abs(want), 1e-8) and
              b == float(f"{(gmax if side == 'above' else gmin):.8g}") and
              (side == "above") == (want > gmax) and abs(by - abs(want - b)) <= 5e-3 * abs(by))
        chk.check(ok, f"{label}: unexpected or wrong warning: {m.group(0)} (expected G "
                      f"{want!r}, range [{gmin}, {gmax}], line {order[(elem, k)]})")
    missing = sorted(set(expected) - set(found))
    chk.check(not missing, f"{label}: expected warnings not listed (tag, SF): {missing}")
    return found


# Listing and summary on 1 and 2 ranks; maxew above the count.
for nprocs in (1, 2):
    label = f"{nprocs} rank(s)"
    res = lammps(f"showew yes showewsum 1 maxew {count}", nprocs=nprocs)
    found = check_listing(res, label)
    if nprocs == 2:
        left = {r for (tag, _), r in found.items() if tag <= 3}
        right = {r for (tag, _), r in found.items() if tag > 3}
        chk.check(left | right == {0, 1} and len(left) == len(right) == 1,
                  f"2 ranks: each rank lists its own molecule (ranks {left} and {right})")
    m = re.search(r"### NNP EW SUMMARY ### TS:\s+0 EW\s+(\d+) EWPERSTEP\s+(\S+)", res.output)
    chk.check(m and int(m.group(1)) == count, f"{label}: summary counts {m and m.group(1)}, "
                                              f"expected {count}")

# maxew: more warnings than allowed stops the run, naming the numbers; as many does not.
res = lammps(f"showew no maxew {count - 1}", expect_fail=True, nprocs=2)
chk.contains(res.output, f"ERROR: pair_style hdnnp/pk: too many extrapolation warnings: {count} "
             f"since pair_style > maxew {count - 1}", "maxew exceeded")
chk.check(not WARN.search(res.output), "showew no lists nothing")
# resetew no: counts accumulate over steps, so the second evaluation exceeds 1.5 x count.
limit = count * 3 // 2
res = lammps(f"showew no maxew {limit}", extra="run 0\nrun 0", expect_fail=True)
chk.contains(res.output, f"too many extrapolation warnings: {2 * count} since pair_style > "
             f"maxew {limit}", "resetew no accumulates")
chk.check(res.output.count("Loop time") == 1, "resetew no: the first run completes")
# resetew yes: the threshold applies per step.
res = lammps(f"showew no maxew {limit} resetew yes", extra="run 0\nrun 0")
chk.check(res.output.count("Loop time") == 2, "resetew yes: both runs complete")
# Default maxew is 0, as in LAMMPS hdnnp: any warning stops the run.
res = lammps("showew no", expect_fail=True)
chk.contains(res.output, f"too many extrapolation warnings: {count} since pair_style > maxew 0",
             "default maxew 0")
chk.finish()
