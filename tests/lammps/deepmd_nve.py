"""deepmd/pk, tabulated kernel: NVE of a 1536-atom water box (8^3 molecules at 1 g/cm^3, from
tools/water_box.py) with the realistic-size synthetic water model (embedding [25, 50, 100],
axis 16, fitting [240, 240, 240], rcut 6, sel [46, 92]; tools/deepmd_synthetic_model.py).
2000 steps of 0.5 fs from 300 K, two OpenMP threads.

The model is not trained: its molecules are not bound, so this is a dense fluid of O and H
with a repulsive core (~3 eV at 0.6 A) and a smooth random many-body part. What is checked
is the integration: every thermo value finite, the core holding (no pair closer than
0.6 A at any thermo output), the temperature staying near 300 K, and the total energy
conserved. Drift = least-squares slope of E_total(t) per atom, fluctuation = RMS of E_total
about that line per atom, over the whole run and after the first 50 fs: as the lattice
relaxes, velocity Verlet's O(dt^2) energy error settles to a new offset (measured +5.3e-6
eV/atom), which dominates the whole-run slope.

Bounds, from the measured values (2026-11, in brackets) with a margin of 3-7x:
  whole run:   |drift| <= 2e-6 eV/atom/ps [4.2e-7], fluctuation <= 2e-6 eV/atom [7.3e-7]
  after 50 fs: |drift| <= 5e-7 eV/atom/ps [-6.8e-8], fluctuation <= 1e-6 eV/atom [3.4e-7]
  offset of the first 50 fs <= 2e-5 eV/atom [5.3e-6]; 200 K < T < 450 K [295-328 K]
Cost: ~230 us of CPU per atom-step, 3.1e6 atom-steps: 440-560 s wall with 2 threads on a
2-core machine shared with other work (load 2-5); the suite's longest test."""
import math
import time

from deepmd_common import WATER_MODEL, drift_and_fluctuation, water_data
from pklmp import Checker, run

STEPS, EVERY, DT, SETTLE = 2000, 20, 0.0005, 100
BOUNDS = {"whole run": (2e-6, 2e-6), "after 50 fs": (5e-7, 1e-6)}
OFFSET_MAX = 2e-5


SCRIPT = f"""
plugin load {{plugin}}
units metal
atom_style atomic
atom_modify map yes
read_data water.data
pair_style deepmd/pk {WATER_MODEL}
pair_coeff * * O H
timestep {DT}
velocity all create 300 4928 mom yes rot yes dist gaussian
fix 1 all nve
compute close all coord/atom cutoff 0.6
compute nclose all reduce sum c_close
thermo {EVERY}
thermo_style custom step temp pe ke etotal c_nclose
thermo_modify format float %.15g
run {STEPS}
"""

chk = Checker()
t0 = time.time()
res = run(SCRIPT, files={"water.data": water_data(8)}, env_extra={"OMP_NUM_THREADS": "2",
          "OMP_WAIT_POLICY": "passive"}, timeout=1500)
wall = time.time() - t0
rows = res.thermo()
natoms = 1536
chk.check(len(rows) == STEPS // EVERY + 1, f"{len(rows)} thermo rows, want {STEPS // EVERY + 1}")
chk.check(all(math.isfinite(v) for r in rows for v in r.values()), "a thermo value is not finite")
chk.check(all(r["c_nclose"] == 0 for r in rows),
          "pairs closer than 0.6 A: " + str([(r["Step"], r["c_nclose"]) for r in rows
                                              if r["c_nclose"]]))
temps = [r["Temp"] for r in rows]
e = [r["TotEng"] for r in rows]
print(f"{natoms} atoms, {STEPS} steps of {DT * 1000} fs, 2 OpenMP threads: wall {wall:.0f} s")
print(f"T from {temps[0]:.0f} K to {temps[-1]:.0f} K (range {min(temps):.0f}-{max(temps):.0f} K); "
      f"PE per atom {rows[0]['PotEng'] / natoms:.5f} -> {rows[-1]['PotEng'] / natoms:.5f} eV; "
      f"E_total {e[0]:.8f} -> {e[-1]:.8f} eV")
settled = [r for r in rows if r["Step"] >= SETTLE]
for label, part in (("whole run", rows), ("after 50 fs", settled)):
    drift, fluct = drift_and_fluctuation(part, natoms, DT)
    dmax, fmax = BOUNDS[label]
    print(f"{label}: energy drift {drift:.3e} eV/atom/ps (bound {dmax}), fluctuation "
          f"{fluct:.3e} eV/atom (bound {fmax})")
    chk.check(abs(drift) <= dmax, f"{label}: drift {drift:.3g} eV/atom/ps > {dmax}")
    chk.check(fluct <= fmax, f"{label}: fluctuation {fluct:.3g} eV/atom > {fmax}")
offset = (settled[0]["TotEng"] - e[0]) / natoms
print(f"E_total offset over the first 50 fs: {offset:.3e} eV/atom (bound {OFFSET_MAX})")
chk.check(abs(offset) <= OFFSET_MAX, f"offset {offset:.3g} eV/atom > {OFFSET_MAX}")
chk.check(all(200 < T < 450 for T in temps), f"temperature left 200-450 K: {min(temps):.0f}-"
          f"{max(temps):.0f} K")
chk.finish()
