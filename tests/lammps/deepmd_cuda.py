"""deepmd/pk on the CUDA backend inside LAMMPS (needs a GPU; exits 77, skipped, without one).

The synthetic water model (tabulated kernel) on the 192-atom water box of
deepmd_decomposition.py:
- step 0, backend cuda against backend cpu: forces, per-atom energy and stress, energy and
  pair virial within 1e-10 in double and 1e-4 in mixed precision (relative, with a floor of
  1e-3 of the largest value, as unit.deepmd_agree.cuda[.mixed]);
- a 100-step NVE trajectory (0.5 fs, from 300 K) reneighboured every 10 steps, so that most
  steps reuse the list kept on the device (pk_deepmd_list_kept): backend cuda in double on
  1, 2 and 4 MPI ranks (all on one GPU) against backend cpu on 1 rank, positions within
  1e-8 A; a rerun on 1 rank gives bitwise the same trajectory;
- launch shapes: that trajectory (whose first 23 steps tune the launch shape) is bitwise the
  same with the shape fixed by the cuda_* keywords, in double and mixed precision; the log
  names the kernels compiled for the model's embedding width (100) and reports the tuner's
  choice, no shape having given other bits;
- energy conservation: 2000 steps of NVE of the 1536-atom box of deepmd_nve.py, in double
  and in mixed precision, drift and fluctuation after the first 50 fs within the bounds of
  deepmd_nve.py (the cpu backend's test), mixed with 5x their room.

PK_DEEPMD_CUDA_TEST_BACKEND=cpu runs the same checks with backend cpu in place of cuda (a
check of this script on a machine without a GPU; mixed precision and the NVE part are then
skipped: the cpu backend has no mixed precision and its NVE test is deepmd_nve.py)."""
import os
import sys

from deepmd_common import TWO_WATERS, WATER_MODEL, drift_and_fluctuation, water_data
from pklmp import Checker, max_abs, max_rel_diff, run

BACKEND = os.environ.get("PK_DEEPMD_CUDA_TEST_BACKEND", "cuda")
STYLE = f"deepmd/pk {WATER_MODEL}"

probe = run(f"""
plugin load {{plugin}}
units metal
atom_style atomic
read_data two.data
pair_style {STYLE} backend {BACKEND}
pair_coeff * * O H
run 0
""", files={"two.data": TWO_WATERS}, expect_fail=True, timeout=300)
if probe.returncode != 0:
    reason = [l for l in probe.output.splitlines() if "ERROR" in l]
    print("SKIP: the cuda backend cannot run here:", reason[-1] if reason else probe.output[-500:])
    sys.exit(77)

HEAD = """
plugin load {plugin}
units metal
atom_style atomic
atom_modify map yes
read_data water.data
pair_coeff * * O H
"""
STEP0 = HEAD + """
compute pe all pe/atom
compute st all stress/atom NULL pair
compute vir all pressure NULL virial
thermo_style custom step pe c_vir[1] c_vir[2] c_vir[3] c_vir[4] c_vir[5] c_vir[6]
thermo_modify format float %.17g
run 0
write_dump all custom f.dump id fx fy fz c_pe c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6] &
  modify format float %.17g
"""
TRAJECTORY = HEAD + """
neigh_modify every 10 delay 0 check no
velocity all create 300 4928 mom yes rot yes dist gaussian
timestep 0.0005
fix 1 all nve
run 100
write_dump all custom final.dump id x y z modify format float %.17g
"""
NVE_STEPS, NVE_EVERY, NVE_DT, NVE_SETTLE = 2000, 20, 0.0005, 100
NVE = HEAD + f"""
velocity all create 300 4928 mom yes rot yes dist gaussian
timestep {NVE_DT}
fix 1 all nve
thermo {NVE_EVERY}
thermo_style custom step temp pe ke etotal
thermo_modify format float %.15g
run {NVE_STEPS}
"""
# deepmd_nve.py's bounds after the first 50 fs: drift (eV/atom/ps), fluctuation (eV/atom)
NVE_BOUNDS = {"double": (5e-7, 1e-6), "mixed": (2.5e-6, 5e-6)}
SMALL = {"water.data": water_data(4)}
FKEYS = ("fx", "fy", "fz")
EKEYS = ("c_pe",)
VKEYS = tuple(f"c_st[{k}]" for k in range(1, 7))


def style(words):
    return f"pair_style {STYLE} {words}\n"


def with_style(script, words):
    return script.replace("pair_coeff", style(words) + "pair_coeff", 1)


def totals(res):
    row = res.thermo()[-1]
    return [row["PotEng"]] + [row[f"c_vir[{k}]"] for k in range(1, 7)]


chk = Checker()

# step 0 in both precisions
want = run(with_style(STEP0, "backend cpu"), files=SMALL)
f_want, t_want = want.dump("f.dump"), totals(want)
for precision, rtol in (("double", 1e-10), ("mixed", 1e-4))[:2 if BACKEND == "cuda" else 1]:
    got = run(with_style(STEP0, f"backend {BACKEND} precision {precision}"), files=SMALL)
    chk.contains(got.output, f"{BACKEND} backend, {precision} precision", f"{precision}: log line")
    f_got = got.dump("f.dump")
    for keys, name in ((FKEYS, "forces"), (EKEYS, "per-atom energy"), (VKEYS, "per-atom stress")):
        rel = max_rel_diff(f_got, f_want, keys, 1e-3 * max_abs(f_want, keys))
        print(f"{precision}: {name} max rel. deviation {rel:.3g} (tolerance {rtol})")
        chk.check(rel <= rtol, f"{precision} {name}: {rel:.3g} > {rtol}")
    t_got, big = totals(got), max(abs(v) for v in t_want)
    rel = max(abs(a - b) / max(abs(b), 1e-3 * big) for a, b in zip(t_got, t_want))
    print(f"{precision}: energy and pair virial max rel. deviation {rel:.3g} (tolerance {rtol})")
    chk.check(rel <= rtol, f"{precision} energy/virial: {rel:.3g} > {rtol}")

# trajectories with the list kept between reneighbourings, 1/2/4 ranks
x_ref = run(with_style(TRAJECTORY, "backend cpu"), files=SMALL).dump("final.dump")
chk.trajectories(lambda n: run(with_style(TRAJECTORY, f"backend {BACKEND}"), files=SMALL,
                                nprocs=n), x_ref, BACKEND, 100, 1e-8)

# launch shapes: fixed ones give the tuned run's bits (the widest and narrowest forward shapes,
# the smallest and largest pair blocks)
SHAPES = ("cuda_tune no", "cuda_columns 4 cuda_centres 16 cuda_threads 512",
          "cuda_columns 2 cuda_centres 1 cuda_threads 32",
          "cuda_columns 1 cuda_centres 8 cuda_threads 1024")
for precision in ("double", "mixed")[:2 if BACKEND == "cuda" else 1]:
    words = f"backend {BACKEND} precision {precision}"
    tuned = run(with_style(TRAJECTORY, words), files=SMALL)
    if BACKEND == "cuda":
        chk.contains(tuned.output, "deepmd/pk: cuda forward and pair kernels compiled for this "
                     "model's embedding width 100", f"{precision}: specialised kernels")
        line = next((l for l in tuned.output.splitlines() if "cuda launch tuned" in l), "")
        print(f"{precision}: {line}")
        chk.contains(line, "cuda launch tuned on compute calls 2-23", f"{precision}: tuner log")
        chk.check("its bits differ" not in line, f"{precision}: a shape gave other bits")
    x_tuned = tuned.dump("final.dump")
    for shape in SHAPES:
        got = run(with_style(TRAJECTORY, f"{words} {shape}"), files=SMALL)
        same = got.dump("final.dump") == x_tuned
        print(f"{precision}, {shape}: trajectory bitwise the tuned run's: {same}")
        chk.check(same, f"{precision}, {shape}: trajectory not bitwise the tuned run's")

# energy conservation (GPU only: the cpu backend has its own test, deepmd_nve.py)
if BACKEND == "cuda":
    natoms = 1536
    for precision, (dmax, fmax) in NVE_BOUNDS.items():
        res = run(with_style(NVE, f"backend cuda precision {precision}"),
                  files={"water.data": water_data(8)}, timeout=900)
        rows = [r for r in res.thermo() if r["Step"] >= NVE_SETTLE]
        drift, fluct = drift_and_fluctuation(rows, natoms, NVE_DT)
        print(f"NVE {precision}, 1536 atoms, {NVE_STEPS} steps, after 50 fs: drift "
              f"{drift:.3e} eV/atom/ps (bound {dmax}), fluctuation {fluct:.3e} eV/atom "
              f"(bound {fmax})")
        chk.check(abs(drift) <= dmax, f"NVE {precision}: drift {drift:.3g} > {dmax}")
        chk.check(fluct <= fmax, f"NVE {precision}: fluctuation {fluct:.3g} > {fmax}")
chk.finish()
