"""hdnnp/pk on the CUDA backend inside LAMMPS (needs a GPU; exits 77, skipped, without one).

n2p2's RPBE-D3 water model on its reference structure (1080 atoms):
- step 0, backend cuda against backend cpu: forces, per-atom energy and stress, energy and
  pressure within 1e-10 in double and 5e-3 in mixed precision (relative, floor 1e-3 of the
  largest value; the tolerances of unit.hdnnp_agree.cuda[.mixed]);
- 50 NVE steps reneighboured every 10 steps, so that most steps reuse the list kept on the
  device (pk_hdnnp_list_kept): backend cuda in double on 1, 2 and 4 MPI ranks (all on one
  GPU) against backend cpu on 1 rank, positions within 1e-9 A; a rerun on 1 rank gives
  bitwise the same trajectory;
- the LAMMPS ML-HDNNP examples (in.hdnnp, in.hybrid) unchanged under -sf pk with
  PAIRKIT_BACKEND=cuda (double precision), against the examples' logs exactly as
  lammps.hdnnp_example_suffix checks the cpu backend (hdnnp_common.check_example): every
  printed thermo value within one unit of its last digit, the same extrapolation-warning
  summaries;
- energy conservation: 4000 NVE steps of 0.5 fs (2 ps) from 300 K, in double and in mixed
  precision (extrapolation check off: maxew -1). Drift = least-squares slope of TotEng(t)
  per atom, fluctuation = RMS of TotEng about that line per atom, excursion = largest
  |TotEng - TotEng(0)| per atom; the figures are printed for the note.

NVE bounds. Measured with backend cpu on this run (velocity seed 4928) and two other seeds
(1234, 777), 2026-11-26, on the 2-core development machine:
  drift        -2.1e-6, +3.6e-6, -2.7e-6 eV/atom/ps
  fluctuation   1.05e-5, 9.2e-6, 9.6e-6 eV/atom
  excursion     3.3e-5, 3.0e-5, 4.3e-5 eV/atom
The drift is noise (the sign changes with the seed; no trend over 2 ps): velocity Verlet's
O(dt^2) shadow-energy oscillation (the fluctuation) makes the slope's scatter a few 1e-6.
A GPU run in double follows the cpu trajectory to round-off for some hundred steps (the
1e-9 A check above) and then, the dynamics being chaotic, becomes another draw of the same
noise; its bounds are the largest cpu figures with a margin of 3-6x, as the other NVE tests:
  double: |drift| <= 2e-5 eV/atom/ps, fluctuation <= 3e-5 eV/atom, excursion <= 1.5e-4 eV/atom.
Precision mixed rounds each pair term to float (sums in double). unit.hdnnp_gpu_emul measured
on this water: energy within 1.0e-10 relative (7e-8 eV/atom of the 694 eV/atom), forces
within 7e-4 relative with a floor of 1e-3 of the largest force (3.8 eV/A), i.e. float
rounding of ~1e-6 eV/A per component. Such an error, uncorrelated with the velocities (~27
A/ps for H), does work that adds up as a random walk: 4e-8 eV per atom-step, ~1e-7 eV/atom
over the run (< 1e-6 even if each error persisted for 100 steps). Both are under 10% of the
double figures, so a correct mixed kernel shows the same drift and fluctuation; the mixed
bounds are twice the double ones to leave room for the device's float functions (expf,
acosf: 1-2 ulp) and FMA contraction, which the host emulation does not reproduce:
  mixed:  |drift| <= 4e-5 eV/atom/ps, fluctuation <= 6e-5 eV/atom, excursion <= 3e-4 eV/atom.

PK_HDNNP_CUDA_TEST_BACKEND=cpu runs the checks with backend cpu in place of cuda (a check of
this script on a machine without a GPU; precision mixed is then double, the cpu backend has
none). Time in that mode on the 2-core development machine: 206 s (2026-11-26, load average
1.6-2.5), most of it the two NVE runs (~25 ms per step on the cpu backend)."""
import os
import sys

from deepmd_common import drift_and_fluctuation
from hdnnp_common import EXAMPLE_RUNS, STYLE, check_example, reference_data, run_example, script
from pklmp import Checker, max_abs, max_rel_diff, run

BACKEND = os.environ.get("PK_HDNNP_CUDA_TEST_BACKEND", "cuda")
MIXED = "mixed" if BACKEND == "cuda" else "double"   # the cpu backend has no mixed
FILES = {"water.data": reference_data()}

probe = run(script(style=f"{STYLE} backend {BACKEND}", extra="run 0"), files=FILES,
            expect_fail=True, timeout=300)
if probe.returncode != 0:
    reason = [l for l in probe.output.splitlines() if "ERROR" in l]
    print("SKIP: the cuda backend cannot run here:", reason[-1] if reason else probe.output[-500:])
    sys.exit(77)

STEP0 = """
compute pe all pe/atom
compute st all stress/atom NULL pair
thermo_style custom step pe press pxx pyy pzz pxy pxz pyz
thermo_modify format float %.17g
run 0
write_dump all custom f.dump id fx fy fz c_pe c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6] &
  modify format float %.17g
"""
TRAJECTORY = """
neigh_modify every 10 delay 0 check no
velocity all create 300 4928 mom yes rot yes dist gaussian
timestep 0.0005
fix 1 all nve
run 50
write_dump all custom final.dump id x y z modify format float %.17g
"""
FKEYS = ("fx", "fy", "fz")
EKEYS = ("c_pe",)
VKEYS = tuple(f"c_st[{k}]" for k in range(1, 7))
TKEYS = ("PotEng", "Press", "Pxx", "Pyy", "Pzz", "Pxy", "Pxz", "Pyz")
NATOMS, NVE_STEPS, NVE_DT = 1080, 4000, 0.0005
NVE = f"""
velocity all create 300 4928 mom yes rot yes dist gaussian
timestep {NVE_DT}
fix 1 all nve
thermo 10
thermo_style custom step temp pe ke etotal
thermo_modify format float %.15g
run {NVE_STEPS}
"""
# (|drift| eV/atom/ps, fluctuation eV/atom, largest |TotEng - TotEng(0)| eV/atom): see above
NVE_BOUNDS = {"double": (2e-5, 3e-5, 1.5e-4), "mixed": (4e-5, 6e-5, 3e-4)}


def run_with(extra, words, **kw):
    return run(script(style=f"{STYLE} {words}", extra=extra), files=FILES, timeout=600, **kw)


chk = Checker()

# step 0 in both precisions
want = run_with(STEP0, "backend cpu")
f_want, t_want = want.dump("f.dump"), want.thermo()[-1]
precisions = (("double", 1e-10), ("mixed", 5e-3))[:2 if BACKEND == "cuda" else 1]
for precision, rtol in precisions:
    got = run_with(STEP0, f"backend {BACKEND} precision {precision}")
    chk.contains(got.output, f"{BACKEND} backend, {precision} precision", f"{precision}: log line")
    f_got = got.dump("f.dump")
    for keys, name in ((FKEYS, "forces"), (EKEYS, "per-atom energy"), (VKEYS, "per-atom stress")):
        rel = max_rel_diff(f_got, f_want, keys, 1e-3 * max_abs(f_want, keys))
        print(f"{precision}: {name} max rel. deviation {rel:.3g} (tolerance {rtol})")
        chk.check(rel <= rtol, f"{precision} {name}: {rel:.3g} > {rtol}")
    t_got, big = got.thermo()[-1], max(abs(t_want[k]) for k in TKEYS)
    rel = max(abs(t_got[k] - t_want[k]) / max(abs(t_want[k]), 1e-3 * big) for k in TKEYS)
    print(f"{precision}: energy and pressure max rel. deviation {rel:.3g} (tolerance {rtol})")
    chk.check(rel <= rtol, f"{precision} energy/pressure: {rel:.3g} > {rtol}")

# trajectories with the list kept between reneighbourings, 1/2/4 ranks
x_ref = run_with(TRAJECTORY, "backend cpu").dump("final.dump")
chk.trajectories(lambda n: run_with(TRAJECTORY, f"backend {BACKEND}", nprocs=n), x_ref,
                 BACKEND, 50, 1e-9)

# the LAMMPS examples, the input unchanged, the backend from the environment
for example, log in EXAMPLE_RUNS:
    out = run_example(example, {"PAIRKIT_BACKEND": BACKEND}).output
    chk.contains(out, f"{BACKEND} backend, double precision", f"{example}: log line")
    check_example(chk, example, log, out, f"{example}, backend {BACKEND}")

# energy conservation in both precisions
for precision, bound in (("double", NVE_BOUNDS["double"]), (MIXED, NVE_BOUNDS["mixed"])):
    res = run_with(NVE, f"maxew -1 backend {BACKEND} precision {precision}")
    chk.contains(res.output, f"{BACKEND} backend, {precision} precision",
                 f"NVE {precision}: log line")
    rows = res.thermo()
    label = f"NVE, {BACKEND} {precision}, {NATOMS} atoms, {NVE_STEPS} x {NVE_DT * 1e3:g} fs"
    chk.check(len(rows) == NVE_STEPS // 10 + 1, f"{label}: {len(rows)} thermo rows")
    drift, fluct = drift_and_fluctuation(rows, NATOMS, NVE_DT)
    worst = max(abs(r["TotEng"] - rows[0]["TotEng"]) for r in rows) / NATOMS
    temps = [r["Temp"] for r in rows]
    print(f"{label}: drift {drift:.3e} eV/atom/ps (bound {bound[0]:g}), fluctuation "
          f"{fluct:.3e} eV/atom (bound {bound[1]:g}), largest |TotEng - TotEng(0)| {worst:.3e} "
          f"eV/atom (bound {bound[2]:g}); T {min(temps):.0f}-{max(temps):.0f} K")
    chk.check(abs(drift) <= bound[0], f"{label}: drift {drift:.3g} eV/atom/ps > {bound[0]}")
    chk.check(fluct <= bound[1], f"{label}: fluctuation {fluct:.3g} eV/atom > {bound[1]}")
    chk.check(worst <= bound[2], f"{label}: excursion {worst:.3g} eV/atom > {bound[2]}")
chk.finish()
