"""amoeba/pk `elec lammps` against LAMMPS `pair_style amoeba` (without Ewald), in the same test.

1. The water dimer and hexamer examples of LAMMPS (examples/amoeba, their key files use no
   Ewald: checked), 100 steps of NVE with thermo every 10 steps: LAMMPS runs them
   unchanged; amoeba/pk runs them with `-sf pk`, the plugin autoloaded, and the pair_style
   line given `elec lammps`. Energies and temperature equal to 1e-8 relative, pressure and
   virial components to 1e-6 of the row's largest virial component. At step 0 also each
   term (compute pair) to 1e-8 and the pair forces to 1e-6 of the largest force.
2. The 648-atom water box with the Ewald lines removed from its key file, one force
   evaluation: E_pair (LAMMPS: -1770.2537 kcal/mol) and E_hal, E_mpole, E_polar via
   `compute pair` to 1e-8 relative, the pair virial to 1e-8 of its largest component, pair
   forces to 1e-6 of the largest force; the sum of the per-atom energies (which LAMMPS
   amoeba does not provide) equals LAMMPS's E_pair to 1e-10.
3. The same box for the example's 100 steps (reneighbouring included), thermo every 10
   steps, compared as in 1.
4. The box at step 0 with a neighbour skin of 0.5 A: ghost atoms near the HAL cutoff then
   lack their H-reduction partners unless amoeba/pk raises the ghost cutoff (it says so);
   compared as in 2."""
import re

from amoeba_common import (PLUGIN_DIR, example, force_deviation, has_ewald, run0, terms,
                           water_files)
from pklmp import Checker, run

chk = Checker()
ENERGIES = ("Temp", "E_pair", "E_bond", "E_angle", "TotEng")


def compare_thermo(name, ref_rows, got_rows):
    chk.check(len(ref_rows) == len(got_rows) == 11, f"{name}: 11 thermo rows")
    worst_e = worst_v = 0.0
    for ref, got in zip(ref_rows, got_rows):
        for key in ENERGIES:
            scale = max(abs(ref[key]), 1e-12)
            worst_e = max(worst_e, abs(got[key] - ref[key]) / scale)
        vkeys = ["Press"] + [f"c_virial[{k}]" for k in range(1, 7)]
        vscale = max(abs(ref[k]) for k in vkeys)
        worst_v = max(worst_v, max(abs(got[k] - ref[k]) for k in vkeys) / vscale)
    print(f"{name}, 100 steps: worst relative difference in energies {worst_e:.2e}, "
          f"in pressure/virial {worst_v:.2e}")
    chk.check(worst_e <= 1e-8, f"{name}: energies differ by {worst_e:.3g} (> 1e-8)")
    chk.check(worst_v <= 1e-6, f"{name}: pressure/virial differ by {worst_v:.3g} (> 1e-6)")


def example_pair(text, key_file=None):
    """The example with thermo at full precision (and another key file if given); LAMMPS
    runs this, amoeba/pk the same with `elec lammps` under -sf pk."""
    text = re.sub(r"^(thermo\s+10)$", r"\1\nthermo_modify format float %.15g", text, flags=re.M)
    if key_file:
        text = text.replace("amoeba_water_box.key", key_file)
    ours = re.sub(r"^pair_style\s+amoeba\s*$", "pair_style amoeba elec lammps", text, flags=re.M)
    assert ours != text
    return text, ours


def run_example(name, script_name, key_file=None):
    lammps_in, pk_in = example_pair(example(script_name), key_file)
    ref = run(lammps_in, files=water_files())
    got = run(pk_in, files=water_files(), args=("-sf", "pk"),
              env_extra={"LAMMPS_PLUGIN_PATH": PLUGIN_DIR})
    chk.contains(got.output, "amoeba/pk: cpu backend, double precision",
                 f"{name}: amoeba/pk in use")
    chk.contains(got.output, "elec lammps", f"{name}: electrostatics mode in the log")
    chk.contains(got.output, "PCG iterations per evaluation", f"{name}: end-of-run report")
    compare_thermo(name, ref.thermo(), got.thermo())


def compare_step0(name, ref, got):
    t_ref, t_got = terms(ref), terms(got)
    for key in ("E_pair", "hal", "mpole", "polar"):
        print(f"{name} {key}: amoeba/pk {t_got[key]:.12f}, LAMMPS amoeba {t_ref[key]:.12f}")
        chk.close(t_got[key], t_ref[key], 1e-8, 1e-12, f"{name} {key}")
    fdev, fmax = force_deviation(got.dump("forces.dump"), ref.dump("forces.dump"))
    print(f"{name} pair forces: worst |dF| {fdev:.2e} of the largest force ({fmax:.3f} kcal/mol/A)")
    chk.check(fdev <= 1e-6, f"{name} forces differ by {fdev:.3g} (> 1e-6)")


# 1. dimer and hexamer, unchanged key files without Ewald
chk.check(not has_ewald(example("amoeba_water.key")), "amoeba_water.key uses no Ewald")
run_example("water dimer", "in.water_dimer.amoeba")
run_example("water hexamer", "in.water_hexamer.amoeba")
for name in ("dimer", "hexamer"):
    cluster = {"key": "amoeba_water.key", "data": f"data.water_{name}.amoeba", "boundary": "s s s"}
    compare_step0(f"water {name}", run0("amoeba", **cluster), run0("amoeba/pk elec lammps", **cluster))

# 2. water box without Ewald, one evaluation
ref = run0("amoeba")
got = run0("amoeba/pk elec lammps", extra="compute pe all pe/atom\ncompute sum all reduce sum c_pe",
           thermo="c_sum")
compare_step0("water box", ref, got)
t_ref, t_got = terms(ref), terms(got)
chk.close(t_got["E_pair"], -1770.2537, 5e-8, 1e-12, "water box E_pair vs -1770.2537 (issue)")
esum = got.thermo()[0]["c_sum"]
chk.close(esum, t_ref["E_pair"], 1e-10, 1e-12, "sum of per-atom energies vs LAMMPS E_pair")
vkeys = [f"c_vp[{k}]" for k in range(1, 7)]
vscale = max(abs(ref.thermo()[0][k]) for k in vkeys)
vdev = max(abs(got.thermo()[0][k] - ref.thermo()[0][k]) for k in vkeys) / vscale
print(f"water box pair virial: worst difference {vdev:.2e} of the largest component")
chk.check(vdev <= 1e-8, f"water box pair virial differs by {vdev:.3g} (> 1e-8)")

# 3. water box, the example's 100 steps without Ewald
run_example("water box", "in.water_box.amoeba", key_file="box.key")

# 4. small neighbour skin
skin = {"edit": lambda text: text.replace("pair_style", "neighbor 0.5 bin\npair_style", 1)}
got = run0("amoeba/pk elec lammps", **skin)
chk.contains(got.output, "ghost cutoff raised to 8.5 A", "small skin: ghost cutoff raised")
compare_step0("water box, skin 0.5", run0("amoeba", **skin), got)
chk.finish()
