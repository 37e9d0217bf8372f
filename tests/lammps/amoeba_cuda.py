"""amoeba/pk on the CUDA backend inside LAMMPS (needs a GPU; exits 77, skipped, without one).

The 648-atom water box without Ewald, pair forces only, the PCG converged to polar-eps 1e-8
through the key file, in both electrostatics modes (elec lammps and smooth):
- backend cuda on 1, 2 and 4 MPI ranks (all on one GPU: the log line must say how many ranks
  share it) against backend cpu on 1 rank at step 0: E_pair, E_hal, E_mpole, E_polar, the
  pair virial and every force within 1e-9 relative (forces and virial: of their largest
  component), as the cpu backend's own 1 vs 2 ranks test (amoeba_decomposition.py);
- on 1 rank a rerun gives bitwise the same forces.

PK_AMOEBA_CUDA_TEST_BACKEND=cpu runs the same checks with backend cpu in place of cuda (a check
of this script on a machine without a GPU)."""
import os
import sys

from amoeba_common import force_deviation, run0, set_key, terms, water_files
from pklmp import Checker

BACKEND = os.environ.get("PK_AMOEBA_CUDA_TEST_BACKEND", "cuda")
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
for elec in ("lammps", "smooth"):
    ref = run0(f"amoeba/pk elec {elec} backend cpu", files=TIGHT)
    t_ref, v_ref, f_ref = terms(ref), virial(ref), ref.dump("forces.dump")
    vmax = max(abs(v) for v in v_ref)
    for nprocs in (1, 2, 4):
        label = f"elec {elec}, {BACKEND} on {nprocs} rank(s)"
        got = run0(f"amoeba/pk elec {elec} backend {BACKEND}", files=TIGHT, nprocs=nprocs)
        chk.contains(got.output, f"pair_style amoeba/pk: {BACKEND} backend, double precision",
                     f"{label}: log line")
        if BACKEND == "cuda":
            chk.gpu_share(got.output, nprocs, label)
        t_got = terms(got)
        worst = max(abs(t_got[k] - t_ref[k]) / abs(t_ref[k]) for k in t_ref)
        fdev, _ = force_deviation(got.dump("forces.dump"), f_ref)
        vdev = max(abs(a - b) for a, b in zip(virial(got), v_ref)) / vmax
        print(f"{label} vs cpu on 1 rank: energies {worst:.2e}, forces {fdev:.2e}, "
              f"virial {vdev:.2e} (relative)")
        chk.check(worst <= 1e-9, f"{label}: energies differ by {worst:.3g} (> 1e-9)")
        chk.check(fdev <= 1e-9, f"{label}: forces differ by {fdev:.3g} (> 1e-9)")
        chk.check(vdev <= 1e-9, f"{label}: virial differs by {vdev:.3g} (> 1e-9)")
        if nprocs == 1:
            again = run0(f"amoeba/pk elec {elec} backend {BACKEND}", files=TIGHT)
            with open(os.path.join(got.workdir, "forces.dump")) as a, \
                    open(os.path.join(again.workdir, "forces.dump")) as b:
                chk.check(a.read() == b.read(), f"{label}: a rerun gives bitwise equal forces")
chk.finish()
