"""deepmd/pk through LAMMPS (`run 0`) against DeePMD-kit's expected values for the se_e2_a
test model (reference/deepmd/deeppot_sea-testcase.yaml: two periodic boxes and one
non-periodic system): atomic energies (compute pe/atom), forces (dump fx fy fz), atomic
virials (compute stress/atom NULL pair), total energy and global virial (thermo).

Conventions. compute stress/atom gives -nktv2p * (per-atom virial) in pressure*volume units,
so the virial is recovered as -s / nktv2p; LAMMPS's six components are DeePMD-kit's
[0] [4] [8] [3] [6] [7] of the 3x3 atomic virial (deepmd.h). compute pressure NULL virial
gives nktv2p * W / V.

Tolerances, per block and quantity, as max |got - ref| / max |ref| ("norm-relative", as the
core's unit test: near-zero components cannot be held pointwise):
  exact kernel (tabulate no):    1e-10, and atomic energies within 1e-11 eV absolute;
  tabulated kernel (default table_step 0.01, and 0.001): 1e-8, atomic energies within 1e-9 eV.
Also a DeePMD-kit input (pair_style deepmd, pair_coeff * * without names) with -sf pk.
Bad input is tested in deepmd_errors.py."""
import os
import re

from pklmp import Checker, atomic_data, run

SHARED = os.environ["PAIRKIT_SHARED"]
MODEL = os.path.join(SHARED, "reference", "deepmd", "deeppot_sea.yaml")
CASES = os.path.join(SHARED, "reference", "deepmd", "deeppot_sea-testcase.yaml")
NKTV2P = 1.6021765e6    # LAMMPS force->nktv2p for units metal
LMP6 = (0, 4, 8, 3, 6, 7)
MASS = {"O": 15.999, "H": 1.008}


def parse_cases(path):
    """The blocks under `results:` as dicts of key -> list of floats (or None for null).
    A tiny reader for this file's shape: `key: value` where a value is a scalar, null or a
    [ ... ] list that may span lines; `- key:` starts a new block."""
    with open(path) as fh:
        lines = [l.split("#", 1)[0].rstrip() for l in fh]
    start = next(i for i, l in enumerate(lines) if l.startswith("results:"))
    blocks, key, text = [], None, ""

    def flush():
        if key is None:
            return
        t = text.strip()
        if t == "null":
            blocks[-1][key] = None
        else:
            blocks[-1][key] = [float(v) for v in t.strip("[]").replace(",", " ").split()]

    for line in lines[start + 1:]:
        m = re.match(r"^\s*(- )?\s*(\w+):\s*(.*)$", line)
        if m and text.count("[") == text.count("]"):
            flush()
            if m.group(1):
                blocks.append({})
            key, text = m.group(2), m.group(3)
        elif line.strip():
            text += " " + line.strip()
    flush()
    for blk in blocks:
        blk["atype"] = [int(t) for t in blk["atype"]]
    return blocks


def data_file(case, types):
    """LAMMPS data file (atom_style atomic) of one block; box None -> a big non-periodic box."""
    x = case["coord"]
    n = len(case["atype"])
    box = case["box"]
    tilt = None
    if box is None:
        bounds = [(min(x[3 * i + d] for i in range(n)) - 10.0,
                   max(x[3 * i + d] for i in range(n)) + 10.0) for d in range(3)]
    else:
        a, b, c = box[0:3], box[3:6], box[6:9]
        if a[1] != 0 or a[2] != 0 or b[2] != 0:
            raise SystemExit("box is not in LAMMPS's restricted triclinic form (a along x, "
                             "b in the xy plane); rotate it first")
        bounds = [(0, a[0]), (0, b[1]), (0, c[2])]
        if b[0] or c[0] or c[1]:
            tilt = (b[0], c[0], c[1])
    atoms = [(case["atype"][i] + 1, x[3 * i], x[3 * i + 1], x[3 * i + 2]) for i in range(n)]
    return atomic_data("deepmd/pk reference case", bounds, [MASS[t] for t in types], atoms, tilt)


def script(case, style, elements="O H"):
    periodic = "p p p" if case["box"] is not None else "f f f"
    st = " ".join(f"c_st[{q}]" for q in range(1, 7))
    press = " ".join(f"c_vir[{q}]" for q in range(1, 7))
    return f"""
plugin load {{plugin}}
units metal
atom_style atomic
boundary {periodic}
atom_modify map yes
read_data data.dp
pair_style {style}
pair_coeff * * {elements}
compute pe all pe/atom
compute st all stress/atom NULL pair
compute vir all pressure NULL virial
thermo_style custom step pe vol {press}
thermo_modify format float %.17g
dump d all custom 1 dump.atoms id fx fy fz c_pe {st}
dump_modify d format float %.17g
run 0
"""


def norm_rel(got, ref):
    scale = max(abs(v) for v in ref)
    return max(abs(g - r) for g, r in zip(got, ref)) / scale


def run_case(case, style, elements="O H", args=()):
    res = run(script(case, style, elements), files={"data.dp": data_file(case, ["O", "H"])},
              args=args, timeout=300)
    rows = res.dump("dump.atoms")
    thermo = res.thermo()[-1]
    n = len(case["atype"])
    got = {"eatom": [rows[i + 1]["c_pe"] for i in range(n)],
           "force": [rows[i + 1][k] for i in range(n) for k in ("fx", "fy", "fz")],
           "vatom": [-rows[i + 1][f"c_st[{q + 1}]"] / NKTV2P for i in range(n) for q in range(6)],
           "energy": [thermo["PotEng"]],
           "virial": [thermo[f"c_vir[{q + 1}]"] * thermo["Volume"] / NKTV2P for q in range(6)]}
    return res, got


def reference(case):
    n = len(case["atype"])
    v9 = case["atomic_virial"]
    v6 = [v9[9 * i + q] for i in range(n) for q in LMP6]
    return {"eatom": case["atomic_energy"], "force": case["force"], "vatom": v6,
            "energy": [sum(case["atomic_energy"])],
            "virial": [sum(v6[6 * i + q] for i in range(n)) for q in range(6)]}


chk = Checker()
cases = parse_cases(CASES)
chk.check(len(cases) == 3, f"expected 3 blocks in {CASES}, got {len(cases)}")
KERNELS = [("exact", f"deepmd/pk {MODEL} tabulate no", "exact kernel", 1e-10, 1e-11),
           ("tabulated", f"deepmd/pk {MODEL}",
            "tabulated kernel (table_step 0.01, table_rmin 0.5)", 1e-8, 1e-9),
           ("tabulated 0.001", f"deepmd/pk {MODEL} table_step 0.001",
            "tabulated kernel (table_step 0.001, table_rmin 0.5)", 1e-8, 1e-9)]
for b, case in enumerate(cases, 1):
    ref = reference(case)
    kind = "no PBC" if case["box"] is None else "periodic"
    for name, style, logtext, rtol, etol in KERNELS:
        res, got = run_case(case, style)
        chk.contains(res.output, logtext, f"block {b} {name}: log line")
        errs = {q: norm_rel(got[q], ref[q]) for q in ref}
        eabs = max(abs(g - r) for g, r in zip(got["eatom"], ref["eatom"]))
        print(f"block {b} ({kind}) {name}: max error / max |ref|: " +
              "  ".join(f"{q} {e:.2e}" for q, e in errs.items()) + f"  eatom abs {eabs:.2e} eV")
        for q, e in errs.items():
            chk.check(e <= rtol, f"block {b} {name} {q}: {e:.3g} > {rtol}")
        chk.check(eabs <= etol, f"block {b} {name} atomic energies: {eabs:.3g} eV > {etol}")

# A DeePMD-kit input, unchanged but for the model file: `pair_style deepmd model` and
# `pair_coeff * *` (types in type_map order) with -sf pk run deepmd/pk.
ref = reference(cases[0])
res, got = run_case(cases[0], f"deepmd {MODEL}", elements="", args=("-sf", "pk"))
chk.contains(res.output, "pair_style deepmd/pk: model", "-sf pk: log line")
err = max(norm_rel(got[q], ref[q]) for q in ("force", "eatom", "vatom"))
print(f"pair_style deepmd with -sf pk, block 1: max error / max |ref| {err:.2e}")
chk.check(err <= 1e-8, f"pair_style deepmd -sf pk: {err:.3g} > 1e-8")
chk.finish()
