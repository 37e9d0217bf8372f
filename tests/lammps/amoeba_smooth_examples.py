"""amoeba/pk in its default `elec smooth` mode on the unchanged LAMMPS AMOEBA examples.

Where no pair is near the electrostatic switches (the water dimer and hexamer: every atom
pair closer than 8 A, the switches of amoeba_water.key run from 8 to 10 A; checked here),
smooth mode differs from LAMMPS `amoeba` only by the shifted-force charge term,
    E_mpole(smooth) = E_mpole(LAMMPS) - sum_pairs s f q_i q_k (2R - r) / R^2,
which this test computes itself from the data file and the prm charges (R = 10 A, f =
332.063713, s the mpole 1-n scale: 1 between molecules, 0 within a water). In the same
test run:

1. Step 0, one force evaluation: E_hal and E_polar equal LAMMPS amoeba's to 1e-10
   relative (same arithmetic, S(r) = 1); E_mpole equals LAMMPS's plus the shift to 1e-9
   relative; the pair forces equal LAMMPS's plus the shift's forces to 1e-8 of the largest
   force.
2. The examples' own inputs, unchanged, under `-sf pk` with the plugin autoloaded (100 steps
   of NVE): amoeba/pk runs in smooth mode and says so; along the run the difference of
   E_pair from LAMMPS amoeba's run stays within 0.1 kcal/mol of its step-0 value, the
   analytic shift (measured: 0.009 dimer, 0.05 hexamer; the trajectories separate
   slowly); total-energy excursions stay within 1.5x LAMMPS's own + 1e-3 kcal/mol.
3. The unchanged water-box example uses Ewald in its key file: under `-sf pk` it stops with
   the message saying amoeba/pk does not support Ewald (the issue's rule).
4. `pair_style amoeba/pk taper 6.5` on the water box (key: cutoff 7, taper 6) equals the
   key's `taper 6.5` for both electrostatic terms to 1e-12 (HAL excluded: the key's taper
   also moves HAL's)."""
import math
import re

from amoeba_common import PLUGIN_DIR, example, run0, set_key, terms, water_files
from pklmp import Checker, run

chk = Checker()
FELEC = 332.063713


def section(text, name):
    """Rows (split lines) of a data-file section."""
    lines = text.splitlines()
    start = next(k for k, l in enumerate(lines) if l.strip() == name) + 2
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def prm_charges(prm):
    """Charge of each AMOEBA type: the last value on its multipole line."""
    return {int(l.split()[1]): float(l.split()[-1]) for l in prm.splitlines()
            if l.split()[:1] == ["multipole"]}


def shift(data, prm, cut):
    """The shifted-force term smooth mode adds to E_mpole, and its forces by atom id."""
    scales = {w[0]: float(w[1]) for w in (l.split() for l in prm.splitlines())
              if w[:1] in (["mpole-12-scale"], ["mpole-13-scale"])}
    assert scales == {"mpole-12-scale": 0.0, "mpole-13-scale": 0.0}, scales
    q = prm_charges(prm)
    amtype = {int(w[0]): int(w[1]) for w in section(data, "Tinker Types")}
    atoms = {int(w[0]): (int(w[1]), [float(v) for v in w[4:7]]) for w in section(data, "Atoms")}
    energy, force, rmax = 0.0, {i: [0.0, 0.0, 0.0] for i in atoms}, 0.0
    for i, (mi, xi) in atoms.items():
        for k, (mk, xk) in atoms.items():
            if k <= i:
                continue
            r = math.dist(xi, xk)
            rmax = max(rmax, r)
            if mi == mk:     # a water's atoms are 1-2 or 1-3 partners: scale 0
                continue
            qq = FELEC * q[amtype[i]] * q[amtype[k]]
            energy -= qq * (2 * cut - r) / cut ** 2
            for d in range(3):   # -dE/dr along x_k - x_i, on k; the opposite on i
                fk = -qq / cut ** 2 * (xk[d] - xi[d]) / r
                force[k][d] += fk
                force[i][d] -= fk
    return energy, force, rmax


def step0(name):
    data = example(f"data.water_{name}.amoeba")
    de, dforce, rmax = shift(data, example("amoeba_water.prm"), 10.0)
    print(f"water {name}: largest atom distance {rmax:.3f} A, shift of E_mpole {de:.10f}")
    chk.check(rmax < 8.0 - 0.5, f"{name}: all pairs inside the switch start (8 A) with margin")
    cluster = {"key": "amoeba_water.key", "data": f"data.water_{name}.amoeba", "boundary": "s s s"}
    ref, got = run0("amoeba", **cluster), run0("amoeba/pk", **cluster)
    chk.contains(got.output, "elec smooth", f"{name}: smooth is the default")
    t_ref, t_got = terms(ref), terms(got)
    for key in ("hal", "polar"):
        chk.close(t_got[key], t_ref[key], 1e-10, 1e-12, f"{name} step 0 {key} (smooth vs LAMMPS)")
    print(f"water {name} E_mpole: smooth {t_got['mpole']:.10f}, LAMMPS {t_ref['mpole']:.10f}, "
          f"LAMMPS + shift {t_ref['mpole'] + de:.10f}")
    chk.close(t_got["mpole"], t_ref["mpole"] + de, 1e-9, 1e-12, f"{name} step 0 mpole = LAMMPS + shift")
    f_ref, f_got = ref.dump("forces.dump"), got.dump("forces.dump")
    keys = ("fx", "fy", "fz")
    fmax = max(abs(r[k]) for r in f_ref.values() for k in keys)
    dev = max(abs(f_got[i][k] - f_ref[i][k] - dforce[i][c]) for i in f_ref for c, k in enumerate(keys))
    print(f"water {name} forces: worst |F - F_LAMMPS - F_shift| {dev / fmax:.2e} of the largest")
    chk.check(dev <= 1e-8 * fmax, f"{name} step 0 forces = LAMMPS + shift: {dev / fmax:.3g} (> 1e-8)")
    return de


def unchanged_example(name, de0):
    script = example(f"in.water_{name}.amoeba")
    script = re.sub(r"^(thermo\s+10)$", r"\1\nthermo_modify format float %.15g", script, flags=re.M)
    ref = run(script, files=water_files())
    got = run(script, files=water_files(), args=("-sf", "pk"),
              env_extra={"LAMMPS_PLUGIN_PATH": PLUGIN_DIR})
    chk.contains(got.output, "pair_style amoeba/pk: cpu backend, double precision",
                 f"{name}: amoeba/pk in use")
    chk.contains(got.output, "elec smooth (multipoles with shifted-force charges switched from 8 "
                 "to 10 A, polarization switched from 8 to 10 A)", f"{name}: mode and switches logged")
    rows_ref, rows_got = ref.thermo(), got.thermo()
    chk.check(len(rows_ref) == len(rows_got) == 11, f"{name}: 11 thermo rows")
    dev = max(abs(g["E_pair"] - r["E_pair"] - de0) for r, g in zip(rows_ref, rows_got))
    excursion = {lbl: max(abs(r["TotEng"] - rows[0]["TotEng"]) for r in rows)
                 for lbl, rows in (("ours", rows_got), ("lammps", rows_ref))}
    print(f"water {name}, 100 steps: E_pair(smooth) - E_pair(LAMMPS) within {dev:.4f} kcal/mol of "
          f"the step-0 shift {de0:.4f}; TotEng excursion smooth {excursion['ours']:.4f}, LAMMPS "
          f"{excursion['lammps']:.4f} kcal/mol")
    chk.check(dev <= 0.1, f"{name}: E_pair difference moved {dev:.3g} kcal/mol from the shift (> 0.1)")
    chk.check(excursion["ours"] <= 1.5 * excursion["lammps"] + 1e-3,
              f"{name}: TotEng excursion {excursion['ours']:.3g} vs LAMMPS {excursion['lammps']:.3g}")


for name in ("dimer", "hexamer"):
    unchanged_example(name, step0(name))

# 3. the unchanged box example (Ewald in its key)
box = run(example("in.water_box.amoeba"), files=water_files(**{"amoeba_water_box.key":
          example("amoeba_water_box.key")}), args=("-sf", "pk"),
          env_extra={"LAMMPS_PLUGIN_PATH": PLUGIN_DIR}, expect_fail=True)
chk.check(box.returncode != 0, "unchanged box example (Ewald) stops")
chk.contains(box.output, "amoeba_water_box.key:7: key 'ewald' is not supported by amoeba/pk",
             "unchanged box example: Ewald refused with file and line")

# 4. pair_style taper against the key's taper
keyed = water_files()
keyed["box.key"] = set_key(keyed["box.key"], taper="6.5")
t_key = terms(run0("amoeba/pk exclude hal", files=keyed))
by_style = run0("amoeba/pk taper 6.5 exclude hal")
chk.contains(by_style.output, "switched from 6.5 to 7 A, polarization switched from 6.5 to 7 A",
             "pair_style taper logged")
t_style = terms(by_style)
for key in ("mpole", "polar"):
    chk.close(t_style[key], t_key[key], 1e-12, 1e-12, f"pair_style taper 6.5 vs key taper 6.5: {key}")
chk.finish()
