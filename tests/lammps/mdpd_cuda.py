"""mdpd/pk on the CUDA backend inside LAMMPS (needs a GPU; exits 77, skipped, without one).

- backend cuda in double precision follows the cpu backend's 200-step trajectory (noise on)
  on 1, 2 and 4 ranks (4 ranks share one GPU), positions within 1e-9 as the cpu's own 1 vs 2
  ranks test;
- a rerun gives bitwise the same trajectory;
- step-0 forces, per-atom energy and stress against the cpu backend: double 1e-10, mixed
  precision 2e-4 for forces and energy (floors as in tests/unit/mdpd/mdpd_compare.h) and 5e-4 for
  the per-atom stress (H200, 2026-11-26: 2.04e-4; each virial component is a sum of products
  r_ij F_ij whose float rounding does not cancel as the forces' does), also for the unchanged LAMMPS
  hybrid/overlay mdpd/rhosum + mdpd input under -sf pk with PAIRKIT_BACKEND=cuda;
- a device buffer over PAIRKIT_GPU_MEMORY_CAP ends in a clear LAMMPS error."""
import os
import sys

from mdpd_common import FILM, FROM_DATA, NVE_200, mdpd_pk
from pklmp import Checker, max_abs, max_rel_diff, run

probe = run(FILM + mdpd_pk() + "pair_style mdpd/pk 1.0 1.0 42 backend cuda\n"
            "pair_coeff 1 1 -40 25 18 1.0 0.75\nrun 0\n", expect_fail=True, timeout=300)
if probe.returncode != 0:
    reason = [l for l in probe.output.splitlines() if "ERROR" in l]
    print("SKIP: the cuda backend cannot run here:", reason[-1] if reason else probe.output[-500:])
    sys.exit(77)

setup = run(FILM + "write_data film.data\n")
DATA = os.path.join(setup.workdir, "film.data")
TRAJ = FROM_DATA.replace("{data}", DATA) + mdpd_pk() + NVE_200
FORCES = FROM_DATA.replace("{data}", DATA) + mdpd_pk() + """
compute pe all pe/atom
compute st all stress/atom NULL
run 0
write_dump all custom f.dump id fx fy fz c_pe c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6] &
  modify format float %.17g
"""
FKEYS = ("fx", "fy", "fz")
EKEYS = ("c_pe",)
VKEYS = tuple(f"c_st[{k}]" for k in range(1, 7))


def with_backend(script, words):
    return script.replace("density warren", "density warren " + words)


chk = Checker()

# trajectories
ref = run(with_backend(TRAJ, "backend cpu"))
x_ref = ref.dump("final.dump")
first = None
for nprocs in (1, 2, 4):
    got = run(with_backend(TRAJ, "backend cuda precision double"), nprocs=nprocs)
    chk.contains(got.output, "pair_style mdpd/pk: cuda backend, double precision", "log line")
    chk.gpu_share(got.output, nprocs, f"{nprocs} rank(s)")
    chk.check(got.output.count("runs on") == nprocs, f"{nprocs} rank(s): one device line per rank")
    x = got.dump("final.dump")
    dx = max(abs(x[i][k] - x_ref[i][k]) for i in x_ref for k in ("x", "y", "z"))
    print(f"cuda on {nprocs} rank(s) vs cpu on 1 after 200 steps: max |dx| = {dx:.3g}")
    chk.check(dx <= 1e-9, f"cuda on {nprocs} rank(s): positions differ by {dx:.3g} (> 1e-9)")
    if nprocs == 1:
        first = got
again = run(with_backend(TRAJ, "backend cuda precision double"))
chk.check(again.dump("final.dump") == first.dump("final.dump"),
          "rerun on the cuda backend: trajectory not bitwise equal")

# step-0 forces and per-atom energy/virial, both precisions, and the unchanged LAMMPS input
want = run(with_backend(FORCES, "backend cpu")).dump("f.dump")
for precision, fe_rtol, stress_rtol in (("double", 1e-10, 1e-10), ("mixed", 2e-4, 5e-4)):
    got = run(with_backend(FORCES, f"backend cuda precision {precision}")).dump("f.dump")
    for keys, name, rtol in ((FKEYS, "forces", fe_rtol), (EKEYS, "per-atom energy", fe_rtol),
                             (VKEYS, "per-atom stress", stress_rtol)):
        rel = max_rel_diff(got, want, keys, 1e-3 * max_abs(want, keys))
        print(f"{precision}: {name} max rel. deviation {rel:.3g} (tolerance {rtol})")
        chk.check(rel <= rtol, f"{precision} {name}: {rel:.3g} > {rtol}")

# the unchanged LAMMPS form needs atom_style mdpd (rho per atom): the film made in place
LAMMPS_INPUT = FILM.replace("atom_style atomic", "atom_style mdpd") + """
pair_style hybrid/overlay mdpd/rhosum mdpd 1.0 1.0 9872598
pair_coeff 1 1 mdpd/rhosum 0.75
pair_coeff 1 1 mdpd -40 25 18 1.0 0.75
compute pe all pe/atom
compute st all stress/atom NULL
run 0
write_dump all custom f.dump id fx fy fz c_pe c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6] &
  modify format float %.17g
"""
cpu = run(LAMMPS_INPUT, args=("-sf", "pk"), env_extra={"PAIRKIT_BACKEND": "cpu"})
gpu = run(LAMMPS_INPUT, args=("-sf", "pk"), env_extra={"PAIRKIT_BACKEND": "cuda"})
chk.contains(gpu.output, "pair_style mdpd/pk: cuda backend, double precision", "-sf pk log line")
chk.contains(gpu.output, "density kernel lucy", "-sf pk: lucy kernel")
for keys, name in ((FKEYS, "forces"), (EKEYS, "per-atom energy"), (VKEYS, "per-atom stress")):
    rel = max_rel_diff(gpu.dump("f.dump"), cpu.dump("f.dump"), keys,
                       1e-3 * max_abs(cpu.dump("f.dump"), keys))
    print(f"-sf pk, lucy: {name} max rel. deviation {rel:.3g}")
    chk.check(rel <= 1e-10, f"-sf pk lucy {name}: {rel:.3g} > 1e-10")

# out of device memory: a clear error, not a crash
oom = run(with_backend(FORCES, "backend cuda"), expect_fail=True,
          env_extra={"PAIRKIT_GPU_MEMORY_CAP": "100000"})
chk.check(oom.returncode != 0, "memory cap: LAMMPS did not stop")
chk.contains(oom.output, "ERROR", "memory cap")
chk.contains(oom.output, "over the cap of 100000 bytes (PAIRKIT_GPU_MEMORY_CAP)", "memory cap")
chk.contains(oom.output, "use fewer atoms per GPU", "memory cap advice")
chk.finish()
