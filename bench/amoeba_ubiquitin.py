#!/usr/bin/env python3
"""amoeba/pk (elec lammps) against LAMMPS pair_style amoeba without Ewald: the protein row.

Runs examples/amoeba/in.ubiquitin of the LAMMPS tree (ubiquitin in water, 9,737 atoms, with
AMOEBA's bonded styles and fixes) with the Ewald/PME lines removed from its key file (HAL
cutoff 12 A, multipoles 9 A, polarization 7 A), for --steps steps: once with LAMMPS's amoeba
and once with `-sf pk` and `pair_style amoeba elec lammps` (or --elec smooth), on 1 MPI rank
with each of --threads OpenMP threads (LAMMPS amoeba has no threaded variant: its rows with
more threads show noise only). The two styles' runs alternate, so that both meet the same
machine; the best of --repeat is kept. Prints a Markdown table of the pair time per step, the
speed-up, the whole step (bonded terms and fixes included), each style's own split (LAMMPS's
"AMOEBA timing breakdown", amoeba/pk's end-of-run report) and the mean PCG iterations.

  bench/amoeba_ubiquitin.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
                            [--repeat N] [--threads 1,2] [--elec lammps|smooth] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lammps"))
ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=10, help="the example runs 10")
ap.add_argument("--repeat", type=int, default=1, help="best of N runs (wall clock is noisy)")
ap.add_argument("--threads", default="1,2", help="OpenMP thread counts, comma-separated")
ap.add_argument("--elec", choices=("lammps", "smooth"), default="lammps",
                help="amoeba/pk's electrostatics mode (smooth: its default, not LAMMPS's physics)")
ap.add_argument("--out")
opt = ap.parse_args()
os.environ["PK_LAMMPS_SRC"] = opt.lammps_src   # where the test helpers find the example
from amoeba_common import example, ubiquitin_files  # noqa: E402  (the tests' example files)
import amoeba_bench  # noqa: E402  (bench/, this script's folder)

FILES = ubiquitin_files()


def script(ours, steps):
    text = re.sub(r"^run\s+\d+$", f"run {steps}", example("in.ubiquitin"), flags=re.M)
    text = re.sub(r"^thermo\s+1$", f"thermo {steps}", text, flags=re.M)
    if ours:
        text, n = re.subn(r"^pair_style\s+amoeba\s*$", f"pair_style amoeba elec {opt.elec}", text,
                          flags=re.M)
        assert n == 1, "pair_style of in.ubiquitin not found"
    return text


def timed_once(ours, steps, threads):
    work = tempfile.mkdtemp(prefix="pk-bench-")
    for name, text in FILES.items():
        with open(os.path.join(work, name), "w") as fh:
            fh.write(text)
    with open(os.path.join(work, "in.ubiquitin"), "w") as fh:
        fh.write(script(ours, steps))
    return dict(amoeba_bench.run_cpu(opt.lmp, opt.plugin_dir, work, "in.ubiquitin", ours,
                                     threads),
                threads=threads,
                label=f"amoeba/pk elec {opt.elec}" if ours else "LAMMPS amoeba (no Ewald)")


rows = []
for threads in (int(t) for t in opt.threads.split(",")):
    runs = {False: [], True: []}
    for _ in range(opt.repeat):
        for ours in (False, True):
            runs[ours].append(timed_once(ours, opt.steps, threads))
    ref, ours = (min(runs[o], key=lambda r: r["pair_ms"]) for o in (False, True))
    ours["ratio"] = ref["pair_ms"] / ours["pair_ms"]
    rows += [ref, ours]

lines = [f"# AMOEBA ubiquitin benchmark ({datetime.date.today()})", "",
         f"Machine: {platform.node()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} cores; 1 MPI rank.", "",
         f"Command: `bench/amoeba_ubiquitin.py --steps {opt.steps} --repeat {opt.repeat} "
         f"--threads {opt.threads} --elec {opt.elec} ...` (see bench/README.md)", "",
         "Best of --repeat runs by pair time, the two styles' runs alternating.", "",
         "| style | atoms | threads | steps | pair ms/step | speed-up (pair) | step ms | HAL | "
         "multipole | induce | polar | PCG iter. |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    split = " | ".join(f"{v:.1f}" for v in r["split"])
    pcg = f"{r['pcg']:.1f}" if r["pcg"] is not None else "–"
    lines.append(f"| {r['label']} | {r['atoms']} | {r['threads']} | {r['steps']} | "
                 f"{r['pair_ms']:.1f} | {r.get('ratio', 1.0):.2f} | {r['loop_ms']:.1f} | {split} | "
                 f"{pcg} |")
lines += ["", "step ms: LAMMPS's loop time per step (pair, bonded styles, the pi-torsion and "
          "bitorsion fixes, neighbour lists, integration). HAL, multipole, induce, polar: ms per "
          "force evaluation from each style's own timers (LAMMPS: its AMOEBA timing breakdown; "
          "amoeba/pk: its end-of-run report; amoeba/pk counts the step's pair search (HAL's "
          "candidates too), rotation and torque-to-force work under multipole)."]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    with open(opt.out, "w") as fh:
        fh.write(text)
