"""amoeba/pk on the CUDA backend inside LAMMPS (needs a GPU; exits 77, skipped, without one).

The 648-atom water box without Ewald, pair forces only, the PCG converged to polar-eps 1e-8
through the key file, in both electrostatics modes (elec lammps and smooth):
- backend cuda on 1, 2 and 4 MPI ranks (all on one GPU: the log line must say how many ranks
  share it) against backend cpu on 1 rank at step 0: E_pair, E_hal, E_mpole, E_polar, the
  pair virial and every force within 1e-9 relative (forces and virial: of their largest
  component), as the cpu backend's own 1 vs 2 ranks test (amoeba_decomposition.py). On 1 rank
  the induced dipoles are solved on the device; on 2 and 4 by the host with the device's
  products (amoeba_gpu_solve.c);
- on 1 rank a rerun gives bitwise the same forces;
- precision mixed on 1 and 4 ranks against the cpu backend (double): energies within 1e-5
  relative, forces within 1e-5 of the largest, the virial within 1e-4 of its largest. The
  emulated step (unit.amoeba_gpu_emul.mixed) measured 8.3e-7, 8.7e-7 and 6.2e-6 on the box;
  a GPU's float library rounds otherwise, hence the margin.
Then energy conservation as lammps.amoeba_smooth_nve measures it on the cpu backend (the
LAMMPS example's NVE run, elec smooth, 2000 steps of 0.5 fs, bonded terms included) with
backend cuda in double and in mixed precision, to that test's bounds: drift within 0.5
kcal/mol/ps, fluctuation within 0.6 kcal/mol, largest |TotEng - TotEng(0)| within 6
kcal/mol, every solve converged; the figures are printed for the note.

PK_AMOEBA_CUDA_TEST_BACKEND=cpu runs the same checks with backend cpu in place of cuda, in
double precision throughout (a check of this script on a machine without a GPU)."""
import math
import os
import sys

from amoeba_common import (excursion, force_deviation, nve_energies, nve_fit, nve_script, run0,
                           set_key, terms, water_files)
from pklmp import Checker, run

BACKEND = os.environ.get("PK_AMOEBA_CUDA_TEST_BACKEND", "cuda")
MIXED = "mixed" if BACKEND == "cuda" else "double"   # the cpu backend has no mixed
TIGHT = water_files()
TIGHT["box.key"] = set_key(TIGHT["box.key"], polar_eps="1e-8")

probe = run0(f"amoeba/pk backend {BACKEND}", files=TIGHT, expect_fail=True, timeout=300)
if probe.returncode != 0:
    reason = [l for l in probe.output.splitlines() if "ERROR" in l]
    print("SKIP: the cuda backend cannot run here:", reason[-1] if reason else probe.output[-500:])
    sys.exit(77)


def virial(result):
    row = result.thermo()[0]
    return [row[f"c_vp[{k}]"] for k in range(1, 7)]


chk = Checker()


def agrees(label, got, ref, precision, bounds):
    """got's log line, E_pair and the terms, forces and virial against the cpu run ref, within
    bounds = (energies, forces, virial), each relative (forces and virial: to the largest)."""
    chk.contains(got.output, f"pair_style amoeba/pk: {BACKEND} backend, {precision} precision",
                 f"{label}: log line")
    t_ref, t_got, v_ref = terms(ref), terms(got), virial(ref)
    worst = max(abs(t_got[k] - t_ref[k]) / abs(t_ref[k]) for k in t_ref)
    fdev, _ = force_deviation(got.dump("forces.dump"), ref.dump("forces.dump"))
    vdev = max(abs(a - b) for a, b in zip(virial(got), v_ref)) / max(abs(v) for v in v_ref)
    print(f"{label} vs cpu double on 1 rank: energies {worst:.2e}, forces {fdev:.2e}, "
          f"virial {vdev:.2e} (relative)")
    for what, dev, bound in zip(("energies", "forces", "virial"), (worst, fdev, vdev), bounds):
        chk.check(dev <= bound, f"{label}: {what} differ by {dev:.3g} (> {bound:g})")


for elec in ("lammps", "smooth"):
    ref = run0(f"amoeba/pk elec {elec} backend cpu", files=TIGHT)
    for nprocs in (1, 2, 4):
        label = f"elec {elec}, {BACKEND} on {nprocs} rank(s)"
        got = run0(f"amoeba/pk elec {elec} backend {BACKEND}", files=TIGHT, nprocs=nprocs)
        agrees(label, got, ref, "double", (1e-9, 1e-9, 1e-9))
        if BACKEND == "cuda":
            chk.gpu_share(got.output, nprocs, label)
        if nprocs == 1:
            again = run0(f"amoeba/pk elec {elec} backend {BACKEND}", files=TIGHT)
            with open(os.path.join(got.workdir, "forces.dump")) as a, \
                    open(os.path.join(again.workdir, "forces.dump")) as b:
                chk.check(a.read() == b.read(), f"{label}: a rerun gives bitwise equal forces")
    for nprocs in (1, 4):
        got = run0(f"amoeba/pk elec {elec} backend {BACKEND} precision {MIXED}", files=TIGHT,
                   nprocs=nprocs)
        agrees(f"elec {elec}, {BACKEND} {MIXED} on {nprocs} rank(s)", got, ref, MIXED,
               (1e-5, 1e-5, 1e-4))

# NVE, elec smooth, 2000 x 0.5 fs, in both precisions (bounds of lammps.amoeba_smooth_nve)
for precision in ("double", MIXED):
    res = run(nve_script(f"amoeba/pk backend {BACKEND} precision {precision}", 0.5, 2000, 10),
              files=water_files())
    label = f"NVE, {BACKEND} {precision}"
    t, e = nve_energies(res, 0.5)
    chk.check(len(e) == 201 and all(math.isfinite(v) for v in e), f"{label}: 201 finite rows")
    chk.contains(res.output, "0 not converged within polar-iter", f"{label}: solves converged")
    slope, rms = nve_fit(t, e)
    worst = excursion(e)
    print(f"{label}: drift {slope:.4f} kcal/mol/ps, fluctuation {rms:.4f} kcal/mol, largest "
          f"|TotEng - TotEng(0)| {worst:.4f} kcal/mol")
    chk.check(abs(slope) <= 0.5, f"{label}: drift {slope:.3g} kcal/mol/ps (bound 0.5)")
    chk.check(rms <= 0.6, f"{label}: fluctuation {rms:.3g} kcal/mol (bound 0.6)")
    chk.check(worst <= 6.0, f"{label}: largest excursion {worst:.3g} kcal/mol (bound 6)")
chk.finish()
