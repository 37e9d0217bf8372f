#!/usr/bin/env python3
"""amoeba/pk (elec lammps) against LAMMPS pair_style amoeba without Ewald: water boxes,
over system size and core count.

Runs examples/amoeba/in.water_box.amoeba of the LAMMPS tree (216 waters, 648 atoms) with
the Ewald lines removed from its key file (cutoff 7, taper 6), and the same replicated
n x n x n for each n of --sizes (2: 5184 atoms, 3: 17496), for --steps steps (--steps-big
for the replicas, by default the same: the PCG iterations per step, which amoeba/pk's time
follows more closely than LAMMPS's, depend on how far the run goes): once with LAMMPS's
amoeba and once with `-sf pk` and `pair_style amoeba elec lammps` (or --elec smooth). On each
core count of --cores: LAMMPS's amoeba, which has no threads, as that many MPI ranks;
amoeba/pk as 1 rank of that many OpenMP threads and as that many ranks. The runs alternate,
so that all meet the same machine, each alone under the benchmark lock (/tmp/pk-bench.lock),
and one that met other work on the cores it needed is repeated (pk_scaling.run_timed, at
most --tries runs); the best of --repeat is kept. Prints a Markdown table of the pair time per step and per
atom-step, the speed-up over LAMMPS on as many cores, the parallel efficiency t(1 core) /
(n t(n cores)), each style's own split (LAMMPS's "AMOEBA timing breakdown", amoeba/pk's
end-of-run report) and the mean PCG iterations. With --out, the table goes to the head of
that file (earlier contents kept below it) and a PNG of pair time against size beside it.

  bench/amoeba_water.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
                        [--steps-big N] [--sizes 1,2] [--cores 1,2|all] [--repeat N]
                        [--elec lammps|smooth] [--mpirun CMD] [--tries N] [--out FILE]
                        [--plot PNG]
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lammps"))
from amoeba_common import replicated  # noqa: E402  (the test helpers' data-file replication)
import amoeba_bench  # noqa: E402  (bench/, this script's folder)
import pk_plot  # noqa: E402
import pk_scaling  # noqa: E402

A_AXIS = 18.643      # the example box's edge (A), which LAMMPS amoeba checks against the key
PEER = "LAMMPS amoeba (no Ewald)"

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=50)
ap.add_argument("--steps-big", type=int, help="steps of the replicated boxes (default: --steps)")
ap.add_argument("--sizes", default="1,2", help="replicas per direction, comma-separated")
ap.add_argument("--cores", default="1,2", help="core counts, comma-separated; 'all' = this "
                "machine's")
ap.add_argument("--repeat", type=int, default=1, help="best of N runs (wall clock is noisy)")
ap.add_argument("--elec", choices=("lammps", "smooth"), default="lammps",
                help="amoeba/pk's electrostatics mode (smooth: its default, not LAMMPS's physics)")
ap.add_argument("--mpirun", default="mpirun", help="MPI launcher for the runs on several ranks")
pk_scaling.add_result_options(ap)
opt = ap.parse_args()
if opt.steps_big is None:
    opt.steps_big = opt.steps
sizes = [int(n) for n in opt.sizes.split(",")]
core_list = pk_scaling.cores(opt.cores)
OURS = f"amoeba/pk elec {opt.elec}"

ex = os.path.join(opt.lammps_src, "examples", "amoeba")
with open(os.path.join(ex, "in.water_box.amoeba")) as fh:
    base = fh.read()
with open(os.path.join(ex, "amoeba_water_box.key")) as fh:
    key = "".join(l + "\n" for l in fh.read().splitlines()
                  if l.split()[:1] not in (["ewald"], ["ewald-alpha"], ["pewald-alpha"], ["pme-grid"]))
if f"a-axis {A_AXIS}" not in key:
    raise SystemExit(f"the example key has no 'a-axis {A_AXIS}': cannot scale it to the replicas")


def script(ours, n, steps):
    text = base.replace("amoeba_water_box.key", "box.key")
    text = re.sub(r"^run\s+100$", f"run {steps}", text, flags=re.M)
    if n > 1:
        text = text.replace("data.water_box.amoeba", "data.water_big.amoeba")
    if ours:
        text = re.sub(r"^pair_style\s+amoeba\s*$", f"pair_style amoeba elec {opt.elec}", text,
                      flags=re.M)
    return text


loads = []


def timed_once(ours, n, steps, ranks, threads):
    work = tempfile.mkdtemp(prefix="pk-bench-")
    for name in ("amoeba_water.prm", "data.water_box.amoeba"):
        shutil.copy(os.path.join(ex, name), work)
    if n > 1:
        with open(os.path.join(ex, "data.water_box.amoeba")) as fh:
            big = replicated(fh.read(), n)
        with open(os.path.join(work, "data.water_big.amoeba"), "w") as fh:
            fh.write(big)
    with open(os.path.join(work, "box.key"), "w") as fh:
        # LAMMPS amoeba checks the key's a-axis against the box
        fh.write(key.replace(f"a-axis {A_AXIS}", f"a-axis {A_AXIS * n:.3f}"))
    with open(os.path.join(work, "in.box"), "w") as fh:
        fh.write(script(ours, n, steps))
    loads.append(os.getloadavg()[0])
    row = amoeba_bench.run_cpu(opt.lmp, opt.plugin_dir, work, "in.box", ours, threads,
                               ranks=ranks, mpirun=opt.mpirun, lock=True, tries=opt.tries)
    shutil.rmtree(work)
    return dict(row, ranks=ranks, threads=threads, ours=ours, variant=OURS if ours else PEER,
                pair_us=1e3 * row["pair_ms"] / row["atoms"])


# (ours, ranks, threads) of every run of one size; LAMMPS amoeba has no threads
configs = []
for c in core_list:
    configs += [(False, c, 1)] + [(True, r, t) for r, t in pk_scaling.layouts(c, True)]

rows = []
for n in sizes:
    steps = opt.steps if n == 1 else opt.steps_big
    runs = {}
    for _ in range(opt.repeat):      # alternate, so that all see the same load
        for ours, ranks, threads in configs:
            r = timed_once(ours, n, steps, ranks, threads)
            runs.setdefault((ours, ranks, threads), []).append(r)
            print(f"{r['atoms']} atoms, {r['variant']}, {ranks}x{threads}: pair "
                  f"{r['pair_ms']:.2f} ms/step", file=sys.stderr, flush=True)
    for c in configs:
        rows.append(dict(min(runs[c], key=lambda r: r["pair_ms"]),
                         others=max(r["others"] for r in runs[c])))
pk_scaling.add_scaling(rows, lambda r: PEER, key="pair_us")

lines = pk_scaling.head_lines("AMOEBA water box benchmark: amoeba/pk vs LAMMPS amoeba", sys.argv,
                              f"LAMMPS ({rows[0]['lammps']}) amoeba", loads,
                              [r["others"] for r in rows])
lines += ["Best of --repeat runs by pair time, the runs alternating, each alone under the "
          "benchmark lock. Speed-up: LAMMPS's pair time on as many cores (as MPI ranks: it "
          "has no threads) over this row's. Efficiency: t(1 core) / (n t(n cores)) of the "
          "same code and size, pair time. Others: the most cores other processes kept busy "
          "during one of the row's runs.", "",
          "| style | atoms | layout | steps | pair ms/step | pair µs/atom-step | speed-up (pair) "
          "| efficiency | HAL | multipole | induce | polar | PCG iter. | others |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    split = " | ".join(f"{v:.2f}" for v in r["split"]) if r["split"] else "– | – | – | –"
    pcg = f"{r['pcg']:.1f}" if r["pcg"] is not None else "–"
    ratio = f"**{r['ratio']:.2f}**" if r["ours"] and r["ratio"] else ("1.00" if not r["ours"] else "–")
    lines.append(f"| {r['variant']} | {r['atoms']} | {pk_scaling.layout(r)} | {r['steps']} | "
                 f"{r['pair_ms']:.2f} | {r['pair_us']:.2f} | {ratio} | {pk_scaling.fmt(r['eff'])} | "
                 f"{split} | {pcg} | {r['others']:.2f} |")
lines += ["", "HAL, multipole, induce, polar: ms per force evaluation from each style's own "
          "timers (LAMMPS: its AMOEBA timing breakdown, rank 0; amoeba/pk: its end-of-run "
          "report, mean over ranks; amoeba/pk counts the step's pair search (HAL's candidates "
          "too), rotation and torque-to-force work under multipole)."]
png = pk_scaling.plot_path(opt.plot, opt.out)
if png:
    lines += ["", pk_plot.plot(png, f"AMOEBA water (no Ewald): {OURS} vs LAMMPS amoeba",
                               {"": pk_scaling.series(rows, "pair_us")}, pk_scaling.machine())]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    pk_scaling.write_results(opt.out, text)
