"""amoeba/pk `elec lammps` on the LAMMPS ubiquitin example (9,737 atoms: the protein in
water, with AMOEBA's bonded styles and fixes) against LAMMPS `pair_style amoeba`, both
without Ewald, in the same test.

The example's input is run as a user would: unchanged but for its key file, whose Ewald/PME
lines (ewald, ewald-alpha, pewald-alpha, pme-grid, pme-order) are removed, and for output
lines (full-precision thermo with every energy term, a force dump at step 0). LAMMPS runs
it as it is; amoeba/pk runs it under `-sf pk` with the plugin autoloaded and `elec lammps`
added to the pair_style line. `improper_style amoeba` then takes the opbend coefficients
from amoeba/pk (extract "opbend_cubic" .. "opbend_sextic", read from the prm file), and fix
amoeba/bitorsion the per-atom types and atomic numbers.

Checked, over the example's 10 NVE steps (thermo every step): each energy term — E_hal,
E_mpole, E_polar (compute pair), E_pair, E_bond, E_angle, E_dihed, E_impro, the pi-torsion
and bitorsion fix energies, PotEng, TotEng — and the temperature to 1e-10 relative; pressure
and virial components to 1e-10 of the row's largest; at step 0 the total forces to 1e-10 of
the largest force. And that the opbend coefficients reach improper amoeba: with
`opbend-cubic 0` in the prm file, amoeba/pk's E_impro at step 0 changes (65.01 -> 69.75
kcal/mol here).

The bonded-term switches at step 0: `exclude improper bitorsion` zeroes E_impro and the
bitorsion energy in both styles (improper amoeba and fix amoeba/bitorsion find amoeba/pk),
E_pair still equal to 1e-10; `exclude angle`, `exclude urey` and `exclude pitorsion` stop
amoeba/pk with an error (angle_style amoeba and fix amoeba/pitorsion look for a pair style
named exactly amoeba and would compute their terms anyway)."""
import re

from amoeba_common import PLUGIN_DIR, example, ubiquitin_files
from pklmp import Checker, run

chk = Checker()
TERMS = ("c_pa[1]", "c_pa[4]", "c_pa[5]", "E_pair", "E_bond", "E_angle", "E_dihed",
         "E_impro", "f_pit", "f_bit", "PotEng", "TotEng", "Temp")
NAMES = {"c_pa[1]": "E_hal", "c_pa[4]": "E_mpole", "c_pa[5]": "E_polar"}
VIRIAL = ["Press"] + [f"c_virial[{k}]" for k in range(1, 7)]
TOL = 1e-10


def inputs():
    """(LAMMPS's input, amoeba/pk's input): the example with full output."""
    text = example("in.ubiquitin")
    thermo = ("thermo_style    custom step temp epair ebond eangle edihed eimp emol etotal "
              "press c_virial[*] pe c_pa[1] c_pa[4] c_pa[5] f_pit f_bit\n"
              "thermo_modify   format float %.15g\n"
              "dump            f all custom 1000 forces.dump id fx fy fz\n"
              "dump_modify     f sort id format float %.17g")
    text, n = re.subn(r"^thermo_style\s.*&\n.*$", "compute         pa all pair amoeba\n" + thermo,
                      text, flags=re.M)
    assert n == 1, "thermo_style of in.ubiquitin not found"
    ours, n = re.subn(r"^pair_style\s+amoeba\s*$", "pair_style      amoeba elec lammps", text,
                      flags=re.M)
    assert n == 1, "pair_style of in.ubiquitin not found"
    return text, ours


files = ubiquitin_files()
lammps_in, pk_in = inputs()
ref = run(lammps_in, files=files)
got = run(pk_in, files=files, args=("-sf", "pk"), env_extra={"LAMMPS_PLUGIN_PATH": PLUGIN_DIR})
chk.contains(got.output, "amoeba/pk: cpu backend, double precision", "amoeba/pk in use")
chk.contains(got.output, "elec lammps (hard cutoffs: multipoles 9 A, polarization 7 A",
             "elec lammps mode and the key's cutoffs")

ref_rows, got_rows = ref.thermo(), got.thermo()
chk.check(len(ref_rows) == len(got_rows) == 11, "11 thermo rows (steps 0 to 10)")
worst = {key: 0.0 for key in TERMS}
worst_v = 0.0
for r, g in zip(ref_rows, got_rows):
    for key in TERMS:
        worst[key] = max(worst[key], abs(g[key] - r[key]) / max(abs(r[key]), 1e-300))
    vscale = max(abs(r[k]) for k in VIRIAL)
    worst_v = max(worst_v, max(abs(g[k] - r[k]) for k in VIRIAL) / vscale)
for key in TERMS:
    name = NAMES.get(key, key)
    print(f"{name:8s} step 0: amoeba/pk {got_rows[0][key]:.12f}, LAMMPS {ref_rows[0][key]:.12f}; "
          f"worst relative difference over 10 steps {worst[key]:.2e}")
    chk.check(worst[key] <= TOL, f"{name} differs by {worst[key]:.3g} (> {TOL})")
print(f"pressure/virial: worst difference {worst_v:.2e} of the largest component")
chk.check(worst_v <= TOL, f"pressure/virial differ by {worst_v:.3g} (> {TOL})")

f_ref, f_got = ref.dump("forces.dump"), got.dump("forces.dump")
chk.check(len(f_ref) == len(f_got) == 9737, "forces of all 9737 atoms at step 0")
fmax = max(abs(r[k]) for r in f_ref.values() for k in ("fx", "fy", "fz"))
fdev = max(abs(f_got[i][k] - r[k]) for i, r in f_ref.items() for k in ("fx", "fy", "fz"))
print(f"forces at step 0: worst |dF| {fdev / fmax:.2e} of the largest ({fmax:.3f} kcal/mol/A)")
chk.check(fdev <= TOL * fmax, f"forces differ by {fdev / fmax:.3g} of the largest (> {TOL})")

harmonic = dict(files)
harmonic["amoeba_ubiquitin.prm"], n = re.subn(r"^opbend-cubic\s+-0\.014$", "opbend-cubic 0.0",
                                              files["amoeba_ubiquitin.prm"], flags=re.M)
assert n == 1
run0_in = re.sub(r"^run\s.*$", "run 0", pk_in, flags=re.M)
e_harm = run(run0_in, files=harmonic, args=("-sf", "pk"),
             env_extra={"LAMMPS_PLUGIN_PATH": PLUGIN_DIR}).thermo()[0]["E_impro"]
e_ref = ref_rows[0]["E_impro"]
print(f"E_impro at step 0 with opbend-cubic 0: {e_harm:.6f} (prm's -0.014: {e_ref:.6f})")
chk.check(abs(e_harm - e_ref) > 1e-3 * abs(e_ref), "opbend-cubic reaches improper amoeba")


def excluded(text, terms):
    text = re.sub(r"^run\s.*$", "run 0", text, flags=re.M)
    return re.sub(r"^(pair_style\s.*)$", rf"\1 exclude {terms}", text, flags=re.M)


pk_args = {"args": ("-sf", "pk"), "env_extra": {"LAMMPS_PLUGIN_PATH": PLUGIN_DIR}}
row_ref = run(excluded(lammps_in, "improper bitorsion"), files=files).thermo()[0]
row_got = run(excluded(pk_in, "improper bitorsion"), files=files, **pk_args).thermo()[0]
for name, row in (("LAMMPS", row_ref), ("amoeba/pk", row_got)):
    chk.check(row["E_impro"] == 0.0 and row["f_bit"] == 0.0,
              f"exclude improper bitorsion, {name}: E_impro {row['E_impro']}, f_bit {row['f_bit']}")
chk.close(row_got["E_pair"], row_ref["E_pair"], TOL, 1e-12, "exclude improper bitorsion: E_pair")
for term, who in (("angle", "angle_style amoeba"), ("urey", "angle_style amoeba"),
                  ("pitorsion", "fix amoeba/pitorsion")):
    res = run(excluded(pk_in, term), files=files, expect_fail=True, **pk_args)
    chk.check(res.returncode != 0, f"exclude {term}: refused")
    chk.contains(res.output, f"the {term} term is switched off (include/exclude), but {who} "
                 "takes that switch only from a pair style named amoeba", f"exclude {term}")
chk.finish()
