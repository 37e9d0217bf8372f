#!/usr/bin/env python3
"""Instruction counts (valgrind callgrind) per force evaluation on the 648-atom water box
without Ewald: LAMMPS amoeba against amoeba/pk elec lammps (-sf pk), one thread.

Each style runs twice, for --steps and 2x --steps steps; the difference of the counts
divided by --steps is the cost of one MD step (start-up and setup cancel). Prints the
totals and the functions that take the most, per step. Counts do not depend on machine
load; note that valgrind counts every iteration of a `rep movs` as an instruction, which
inflates memcpy against its real cost.

  bench/amoeba_water_callgrind.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
                                  [--top N] [--pk-only] [--elec lammps|smooth]

--pk-only skips LAMMPS amoeba (its count does not change); --elec smooth profiles
amoeba/pk's default mode instead of `elec lammps`.
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=5)
ap.add_argument("--top", type=int, default=10)
ap.add_argument("--pk-only", action="store_true")
ap.add_argument("--elec", choices=("lammps", "smooth"), default="lammps")
opt = ap.parse_args()

ex = os.path.join(opt.lammps_src, "examples", "amoeba")
with open(os.path.join(ex, "in.water_box.amoeba")) as fh:
    base = fh.read().replace("amoeba_water_box.key", "box.key")
with open(os.path.join(ex, "amoeba_water_box.key")) as fh:
    key = "".join(l + "\n" for l in fh.read().splitlines()
                  if l.split()[:1] not in (["ewald"], ["ewald-alpha"], ["pewald-alpha"], ["pme-grid"]))


def profile(ours, steps):
    work = tempfile.mkdtemp(prefix="pk-cg-")
    for name in ("amoeba_water.prm", "data.water_box.amoeba"):
        shutil.copy(os.path.join(ex, name), work)
    with open(os.path.join(work, "box.key"), "w") as fh:
        fh.write(key)
    text = re.sub(r"^run\s+100$", f"run {steps}", base, flags=re.M)
    if ours:
        text = re.sub(r"^pair_style\s+amoeba\s*$", f"pair_style amoeba elec {opt.elec}", text,
                      flags=re.M)
    with open(os.path.join(work, "in.box"), "w") as fh:
        fh.write(text)
    env = dict(os.environ, OMP_NUM_THREADS="1",
               LAMMPS_PLUGIN_PATH=os.path.abspath(opt.plugin_dir))
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=cg.out", opt.lmp,
                    "-nocite", "-log", "none", "-in", "in.box", *(["-sf", "pk"] if ours else [])],
                   cwd=work, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    ann = subprocess.run(["callgrind_annotate", "--threshold=100", "cg.out"], cwd=work,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    counts, total = {}, 0
    for line in ann.splitlines():
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in m.group(2):
            total = n
            continue
        name = re.sub(r"\s*\[.*\]$", "", m.group(2)).split(":", 1)[-1]
        name = re.sub(r"\(.*", "", name).replace("LAMMPS_NS::", "")
        counts[name] = counts.get(name, 0) + n
    return total, counts


styles = ((False, "LAMMPS amoeba (no Ewald)"), (True, f"amoeba/pk elec {opt.elec}"))
for ours, label in styles[1:] if opt.pk_only else styles:
    t1, c1 = profile(ours, opt.steps)
    t2, c2 = profile(ours, 2 * opt.steps)
    per = {k: (c2.get(k, 0) - c1.get(k, 0)) / opt.steps for k in set(c1) | set(c2)}
    total = (t2 - t1) / opt.steps
    print(f"\n{label}: {total / 1e6:.1f} M instructions per step\n")
    print("| function | M instructions per step | share |\n|---|---|---|")
    for name, n in sorted(per.items(), key=lambda kv: -kv[1])[:opt.top]:
        print(f"| {name} | {n / 1e6:.1f} | {100 * n / total:.1f}% |")
