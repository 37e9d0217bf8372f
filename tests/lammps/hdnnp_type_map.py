"""pair_coeff type mapping of hdnnp/pk: the same water (n2p2 reference, 1080 atoms) described
with different LAMMPS types must give the same energy and forces as `pair_coeff * * H O`
with types H=1, O=2, whose values hdnnp_reference.py checks against n2p2:
  * types in the other order (O=1, H=2; pair_coeff * * O H);
  * several types per element (every second H is type 3; pair_coeff * * H O H);
  * a NULL type under pair_style hybrid/overlay: 6 extra atoms of type 3 (NULL for
    hdnnp/pk, pair style zero for the pairs involving them) take no part in the model:
    same energy and forces on the water, and zero force on the extra atoms.
Tolerance 1e-12 relative (energy) and 1e-12 of the largest force (forces): only the order
of summation may change."""
import os

from hdnnp_common import REF, STYLE, data_file, read_n2p2, script
from pklmp import Checker, run

OUTPUT = """
thermo_style custom step pe
thermo_modify format float %.17g
dump d all custom 1 dump.atoms id fx fy fz
dump_modify d format float %.17g
run 0
"""
lattice, atoms = read_n2p2(os.path.join(REF, "input.data"))
n = len(atoms)
every_second_h = []
seen_h = 0
for elem, *_ in atoms:
    seen_h += elem == "H"
    every_second_h.append(2 if elem == "O" else (3 if seen_h % 2 == 0 else 1))
# Extra atoms in a row through the liquid (type 3, NULL for the model; the element only
# sets their mass in the data file).
extra = [("H", 0.37 * lattice[0][0], 0.41 * lattice[1][1], 0.53 * lattice[2][2] + d)
         for d in (0.0, 1.5, 3.0, 4.5, 6.0, 7.5)]

CASES = [
    ("H=1 O=2", {}, "* * H O", data_file(lattice, atoms)),
    ("O=1 H=2", {}, "* * O H", data_file(lattice, atoms, types=("O", "H"))),
    ("two H types", {}, "* * H O H",
     data_file(lattice, atoms, types=("H", "O", "H"), type_of=every_second_h)),
    ("NULL type under hybrid/overlay",
     {"style": f"hybrid/overlay {STYLE} zero 6.0"}, "* * hdnnp/pk H O NULL\npair_coeff * 3 zero",
     data_file(lattice, atoms + extra, types=("H", "O", "H"),
               type_of=[("H", "O").index(a[0]) + 1 for a in atoms] + [3] * len(extra))),
]

chk = Checker()
results = {}
for label, kwargs, coeff, data in CASES:
    res = run(script(coeff=coeff, extra=OUTPUT, **kwargs), files={"water.data": data},
              timeout=300)
    results[label] = (res.thermo()[-1]["PotEng"], res.dump("dump.atoms"))

e_ref, f_ref = results["H=1 O=2"]
fmax = max(abs(r[k]) for r in f_ref.values() for k in ("fx", "fy", "fz"))
for label, (energy, forces) in results.items():
    de = abs(energy - e_ref) / abs(e_ref)
    df = max(abs(forces[i][k] - f_ref[i][k]) for i in f_ref for k in ("fx", "fy", "fz")) / fmax
    print(f"{label}: energy rel {de:.2e}, forces {df:.2e} of the largest")
    chk.check(de <= 1e-12, f"{label}: energy {energy!r} vs {e_ref!r}")
    chk.check(df <= 1e-12, f"{label}: forces differ by {df:.3g} of the largest")
    others = [i for i in forces if i > n]
    if "NULL" in label:
        chk.check(len(others) == len(extra), f"{label}: {len(others)} extra atoms dumped")
        fnull = max(abs(forces[i][k]) for i in others for k in ("fx", "fy", "fz"))
        chk.check(fnull == 0.0, f"{label}: force {fnull!r} on NULL-type atoms")
chk.finish()
