"""Energy conservation of amoeba/pk `elec smooth` in NVE: the LAMMPS water-box example (648
atoms, flexible AMOEBA water, bonded terms included; its key file without the Ewald lines:
cutoff 7, taper 6, so both electrostatic switches run from 6 to 7 A, polar-eps 1e-5),
from the example's start (T = 0) for 2000 steps of 0.5 fs (1 ps; it heats to ~220 K).

Measured on this machine: drift (slope of a straight-line fit to TotEng) -0.098
kcal/mol/ps, fluctuation (RMS about the fit) 0.285 kcal/mol, largest |TotEng - TotEng(0)|
3.46 kcal/mol (within the first 100 fs, while the bonds relax from the data file's
strained geometry); polar-eps 1e-7 gave -0.098, 0.285 and 3.46 too, so the PCG tolerance does not
limit conservation. Asserted with margin:
  |drift| <= 0.5 kcal/mol/ps,  fluctuation <= 0.6 kcal/mol,  |TotEng - TotEng(0)| <= 6,
every induced-dipole solve converged, no NaN.
Two more runs show what the bounds measure:
  * the excursion is the Verlet integrator's: with 0.25 fs steps over the same first 100 fs
    it is >= 3x smaller (measured 4.0x; dt^2 scaling gives 4x);
  * `elec lammps` (hard cutoffs, LAMMPS amoeba without Ewald) on the same start swings by
    more than 50 kcal/mol within 50 fs (measured 422), far outside the bound."""
import math
import re

from amoeba_common import excursion, nve_energies, nve_fit, nve_script, water_files
from pklmp import Checker, run

chk = Checker()

# 2000 steps of 0.5 fs
main = run(nve_script("amoeba/pk", 0.5, 2000, 10), files=water_files())
t, e = nve_energies(main, 0.5)
chk.check(len(e) == 201 and all(math.isfinite(v) for v in e), "2000 steps: 201 finite thermo rows")
chk.contains(main.output, "elec smooth", "smooth mode in use")
chk.contains(main.output, "0 not converged within polar-iter", "every PCG solve converged")
slope, rms = nve_fit(t, e)
worst = excursion(e)
loop = re.search(r"Loop time of ([\d.]+)", main.output).group(1)
print(f"NVE 2000 x 0.5 fs: drift {slope:.4f} kcal/mol/ps, fluctuation (RMS about the fit) "
      f"{rms:.4f} kcal/mol, largest |TotEng - TotEng(0)| {worst:.4f} kcal/mol "
      f"(TotEng(0) {e[0]:.4f}); run time {loop} s")
chk.check(abs(slope) <= 0.5, f"drift {slope:.3g} kcal/mol/ps (bound 0.5)")
chk.check(rms <= 0.6, f"fluctuation {rms:.3g} kcal/mol (bound 0.6)")
chk.check(worst <= 6.0, f"largest excursion {worst:.3g} kcal/mol (bound 6)")

# the first 100 fs again with 0.25 fs steps: the integrator's error scales with dt^2
half = run(nve_script("amoeba/pk", 0.25, 400, 20), files=water_files())
_, e_half = nve_energies(half, 0.25)
first = excursion(e, 21)
ratio = first / excursion(e_half)
print(f"first 100 fs: excursion {first:.4f} (0.5 fs) vs {excursion(e_half):.4f} (0.25 fs), "
      f"ratio {ratio:.2f}")
chk.check(ratio >= 3.0, f"excursion ratio 0.5 fs / 0.25 fs {ratio:.3g} (expected ~4, >= 3)")

# the hard cutoffs of elec lammps, for contrast
hard = run(nve_script("amoeba/pk elec lammps", 0.5, 100, 10), files=water_files())
_, e_hard = nve_energies(hard, 0.5)
print(f"elec lammps, 50 fs: largest |TotEng - TotEng(0)| {excursion(e_hard):.1f} kcal/mol")
chk.check(excursion(e_hard) > 50.0, "elec lammps swings by more than 50 kcal/mol (the bound can fail)")
chk.finish()
