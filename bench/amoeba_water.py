#!/usr/bin/env python3
"""amoeba/pk (elec lammps) against LAMMPS pair_style amoeba without Ewald: water boxes.

Runs examples/amoeba/in.water_box.amoeba of the LAMMPS tree (216 waters, 648 atoms) with
the Ewald lines removed from its key file (cutoff 7, taper 6), and the same replicated
2x2x2 (5184 atoms), for --steps steps (--steps-big for the big box, by default the same:
the PCG iterations per step, which amoeba/pk's time follows more closely than LAMMPS's,
depend on how far the run goes): once with LAMMPS's amoeba and once with `-sf pk` and
`pair_style amoeba elec lammps` (or --elec smooth), on 1 MPI rank with 1 and 2 OpenMP
threads (LAMMPS amoeba has no threaded variant: its 2-thread rows show noise only). The
two styles' runs alternate, so that both meet the same machine; the best of --repeat is
kept. Prints a Markdown table of the pair time per step, the speed-up, each style's own
split (LAMMPS's "AMOEBA timing breakdown", amoeba/pk's end-of-run report) and the mean
PCG iterations.

  bench/amoeba_water.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
                        [--steps-big N] [--repeat N] [--elec lammps|smooth] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lammps"))
from amoeba_common import replicated  # noqa: E402  (the test helpers' data-file replication)
import amoeba_bench  # noqa: E402  (bench/, this script's folder)

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=50)
ap.add_argument("--steps-big", type=int, help="steps of the 5184-atom box (default: --steps)")
ap.add_argument("--repeat", type=int, default=1, help="best of N runs (wall clock is noisy)")
ap.add_argument("--elec", choices=("lammps", "smooth"), default="lammps",
                help="amoeba/pk's electrostatics mode (smooth: its default, not LAMMPS's physics)")
ap.add_argument("--out")
opt = ap.parse_args()
if opt.steps_big is None:
    opt.steps_big = opt.steps

ex = os.path.join(opt.lammps_src, "examples", "amoeba")
with open(os.path.join(ex, "in.water_box.amoeba")) as fh:
    base = fh.read()
with open(os.path.join(ex, "amoeba_water_box.key")) as fh:
    key = "".join(l + "\n" for l in fh.read().splitlines()
                  if l.split()[:1] not in (["ewald"], ["ewald-alpha"], ["pewald-alpha"], ["pme-grid"]))


def script(ours, replicate, steps):
    text = base.replace("amoeba_water_box.key", "box.key")
    text = re.sub(r"^run\s+100$", f"run {steps}", text, flags=re.M)
    if replicate:
        text = text.replace("data.water_box.amoeba", "data.water_big.amoeba")
    if ours:
        text = re.sub(r"^pair_style\s+amoeba\s*$", f"pair_style amoeba elec {opt.elec}", text,
                      flags=re.M)
    return text


def timed_pair(replicate, steps, threads):
    """The best of --repeat runs of each style, their runs alternating."""
    runs = {False: [], True: []}
    for _ in range(opt.repeat):
        for ours in (False, True):
            runs[ours].append(timed_once(ours, replicate, steps, threads))
    return [min(runs[ours], key=lambda r: r["pair_ms"]) for ours in (False, True)]


def timed_once(ours, replicate, steps, threads):
    work = tempfile.mkdtemp(prefix="pk-bench-")
    for name in ("amoeba_water.prm", "data.water_box.amoeba"):
        shutil.copy(os.path.join(ex, name), work)
    with open(os.path.join(ex, "data.water_box.amoeba")) as fh:
        big = replicated(fh.read())
    with open(os.path.join(work, "data.water_big.amoeba"), "w") as fh:
        fh.write(big)
    with open(os.path.join(work, "box.key"), "w") as fh:
        # LAMMPS amoeba checks the key's a-axis against the box
        fh.write(key.replace("a-axis 18.643", "a-axis 37.286") if replicate else key)
    with open(os.path.join(work, "in.box"), "w") as fh:
        fh.write(script(ours, replicate, steps))
    return dict(amoeba_bench.run_cpu(opt.lmp, opt.plugin_dir, work, "in.box", ours, threads),
                threads=threads,
                label=f"amoeba/pk elec {opt.elec}" if ours else "LAMMPS amoeba (no Ewald)")


rows = []
for replicate, steps in ((False, opt.steps), (True, opt.steps_big)):
    for threads in (1, 2):
        ref, ours = timed_pair(replicate, steps, threads)
        ours["ratio"] = ref["pair_ms"] / ours["pair_ms"]
        rows += [ref, ours]

lines = [f"# AMOEBA water box benchmark ({datetime.date.today()})", "",
         f"Machine: {platform.node()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} cores; 1 MPI rank.", "",
         f"Command: `bench/amoeba_water.py --steps {opt.steps} --steps-big {opt.steps_big} "
         f"--repeat {opt.repeat} --elec {opt.elec} ...` "
         "(see bench/README.md)", "",
         "Best of --repeat runs by pair time, the two styles' runs alternating.", "",
         "| style | atoms | threads | steps | pair ms/step | speed-up (pair) | HAL | multipole | "
         "induce | polar | PCG iter. |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    split = " | ".join(f"{v:.2f}" for v in r["split"])
    pcg = f"{r['pcg']:.1f}" if r["pcg"] is not None else "–"
    lines.append(f"| {r['label']} | {r['atoms']} | {r['threads']} | {r['steps']} | "
                 f"{r['pair_ms']:.2f} | {r.get('ratio', 1.0):.2f} | {split} | {pcg} |")
lines += ["", "HAL, multipole, induce, polar: ms per force evaluation from each style's own "
          "timers (LAMMPS: its AMOEBA timing breakdown; amoeba/pk: its end-of-run report; "
          "amoeba/pk counts the step's pair search (HAL's candidates too), rotation and "
          "torque-to-force work under multipole)."]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    with open(opt.out, "w") as fh:
        fh.write(text)
