#!/usr/bin/env python3
"""amoeba/pk (elec lammps) against LAMMPS pair_style amoeba without Ewald: the protein row.

Runs examples/amoeba/in.ubiquitin of the LAMMPS tree (ubiquitin in water, 9,737 atoms, with
AMOEBA's bonded styles and fixes) with the Ewald/PME lines removed from its key file (HAL
cutoff 12 A, multipoles 9 A, polarization 7 A), for --steps steps: once with LAMMPS's amoeba
and once with `-sf pk` and `pair_style amoeba elec lammps` (or --elec smooth). On each core
count of --cores: LAMMPS's amoeba, which has no threads, as that many MPI ranks; amoeba/pk as
1 rank of that many OpenMP threads and as that many ranks. The runs alternate, so that all
meet the same machine, each alone under the benchmark lock (/tmp/pk-bench.lock), and one
that met other work on the cores it needed is repeated (pk_scaling.run_timed, at most
--tries runs); the best of --repeat is kept. Prints a Markdown table of the pair time per
step, the speed-up over LAMMPS on as many cores, the whole step (bonded terms and fixes
included), LAMMPS's per-rank memory, each style's own split (LAMMPS's "AMOEBA timing
breakdown", amoeba/pk's end-of-run report) and the mean PCG iterations. With --out, the
table goes to the head of that file (earlier contents kept below it).

  bench/amoeba_ubiquitin.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
                            [--cores 1,2|all] [--repeat N] [--elec lammps|smooth]
                            [--mpirun CMD] [--tries N] [--out FILE]
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lammps"))
import amoeba_bench  # noqa: E402  (bench/, this script's folder)
import pk_scaling  # noqa: E402

PEER = "LAMMPS amoeba (no Ewald)"

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=10, help="the example runs 10")
ap.add_argument("--cores", default="1,2", help="core counts, comma-separated; 'all' = this "
                "machine's")
ap.add_argument("--repeat", type=int, default=1, help="best of N runs (wall clock is noisy)")
ap.add_argument("--elec", choices=("lammps", "smooth"), default="lammps",
                help="amoeba/pk's electrostatics mode (smooth: its default, not LAMMPS's physics)")
ap.add_argument("--mpirun", default="mpirun", help="MPI launcher for the runs on several ranks")
pk_scaling.add_result_options(ap)
opt = ap.parse_args()
if opt.plot:
    raise SystemExit("--plot: this bench has one size, nothing to plot")
os.environ["PK_LAMMPS_SRC"] = opt.lammps_src   # where the test helpers find the example
from amoeba_common import example, ubiquitin_files  # noqa: E402  (the tests' example files)

FILES = ubiquitin_files()
OURS = f"amoeba/pk elec {opt.elec}"


def script(ours, steps):
    text = re.sub(r"^run\s+\d+$", f"run {steps}", example("in.ubiquitin"), flags=re.M)
    text = re.sub(r"^thermo\s+1$", f"thermo {steps}", text, flags=re.M)
    if ours:
        text, n = re.subn(r"^pair_style\s+amoeba\s*$", f"pair_style amoeba elec {opt.elec}", text,
                          flags=re.M)
        assert n == 1, "pair_style of in.ubiquitin not found"
    return text


loads = []


def timed_once(ours, ranks, threads):
    work = tempfile.mkdtemp(prefix="pk-bench-")
    for name, text in FILES.items():
        with open(os.path.join(work, name), "w") as fh:
            fh.write(text)
    with open(os.path.join(work, "in.ubiquitin"), "w") as fh:
        fh.write(script(ours, opt.steps))
    loads.append(os.getloadavg()[0])
    row = amoeba_bench.run_cpu(opt.lmp, opt.plugin_dir, work, "in.ubiquitin", ours, threads,
                               ranks=ranks, mpirun=opt.mpirun, lock=True, tries=opt.tries)
    shutil.rmtree(work)
    return dict(row, ranks=ranks, threads=threads, ours=ours, variant=OURS if ours else PEER)


# (ours, ranks, threads) of every run; LAMMPS amoeba has no threads
configs = []
for c in pk_scaling.cores(opt.cores):
    configs += [(False, c, 1)] + [(True, r, t) for r, t in pk_scaling.layouts(c, True)]

runs = {}
for _ in range(opt.repeat):      # alternate, so that all see the same load
    for ours, ranks, threads in configs:
        r = timed_once(ours, ranks, threads)
        runs.setdefault((ours, ranks, threads), []).append(r)
        print(f"{r['variant']}, {ranks}x{threads}: pair {r['pair_ms']:.1f} ms/step",
              file=sys.stderr, flush=True)
rows = [dict(min(runs[c], key=lambda r: r["pair_ms"]), others=max(r["others"] for r in runs[c]))
        for c in configs]
pk_scaling.add_scaling(rows, lambda r: PEER, key="pair_ms")

lines = pk_scaling.head_lines("AMOEBA ubiquitin benchmark: amoeba/pk vs LAMMPS amoeba", sys.argv,
                              f"LAMMPS ({rows[0]['lammps']}) amoeba", loads,
                              [r["others"] for r in rows])
lines += ["Best of --repeat runs by pair time, the runs alternating, each alone under the "
          "benchmark lock. Speed-up: LAMMPS's pair time on as many cores (as MPI ranks: it "
          "has no threads) over this row's. Efficiency: t(1 core) / (n t(n cores)) of the "
          "same code, pair time. Others: the most cores other processes kept busy during one "
          "of the row's runs.", "",
          "| style | atoms | layout | steps | pair ms/step | speed-up (pair) | efficiency | "
          "step ms | MB/rank | HAL | multipole | induce | polar | PCG iter. | others |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    split = " | ".join(f"{v:.1f}" for v in r["split"]) if r["split"] else "– | – | – | –"
    pcg = f"{r['pcg']:.1f}" if r["pcg"] is not None else "–"
    ratio = f"**{r['ratio']:.2f}**" if r["ours"] and r["ratio"] else ("1.00" if not r["ours"] else "–")
    lines.append(f"| {r['variant']} | {r['atoms']} | {pk_scaling.layout(r)} | {r['steps']} | "
                 f"{r['pair_ms']:.1f} | {ratio} | {pk_scaling.fmt(r['eff'])} | "
                 f"{r['loop_ms']:.1f} | {pk_scaling.fmt(r['mem_mb'], '.0f')} | {split} | {pcg} | "
                 f"{r['others']:.2f} |")
lines += ["", "step ms: LAMMPS's loop time per step (pair, bonded styles, the pi-torsion and "
          "bitorsion fixes, neighbour lists, integration). MB/rank: LAMMPS's \"Per MPI rank "
          "memory allocation\" at setup (mean over ranks; the pair style's share is its "
          "memory_usage). HAL, multipole, induce, polar: ms per force evaluation from each "
          "style's own timers (LAMMPS: its AMOEBA timing breakdown, rank 0; amoeba/pk: its "
          "end-of-run report, mean over ranks; amoeba/pk counts the step's pair search (HAL's "
          "candidates too), rotation and torque-to-force work under multipole)."]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    pk_scaling.write_results(opt.out, text)
