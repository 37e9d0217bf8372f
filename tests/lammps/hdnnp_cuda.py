"""hdnnp/pk on the CUDA backend inside LAMMPS (needs a GPU; exits 77, skipped, without one).

n2p2's RPBE-D3 water model on its reference structure (1080 atoms):
- step 0, backend cuda against backend cpu: forces, per-atom energy and stress, energy and
  pressure within 1e-10 in double and 5e-3 in mixed precision (relative, floor 1e-3 of the
  largest value; the tolerances of unit.hdnnp_agree.cuda[.mixed]);
- 50 NVE steps reneighboured every 10 steps, so that most steps reuse the list kept on the
  device (pk_hdnnp_list_kept): backend cuda in double on 1, 2 and 4 MPI ranks (all on one
  GPU) against backend cpu on 1 rank, positions within 1e-9 A; a rerun on 1 rank gives
  bitwise the same trajectory.

PK_HDNNP_CUDA_TEST_BACKEND=cpu runs the double-precision checks with backend cpu in place of
cuda (a check of this script on a machine without a GPU)."""
import os
import sys

from hdnnp_common import STYLE, reference_data, script
from pklmp import Checker, max_abs, max_rel_diff, run

BACKEND = os.environ.get("PK_HDNNP_CUDA_TEST_BACKEND", "cuda")
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
chk.finish()
