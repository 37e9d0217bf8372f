#!/usr/bin/env python3
"""mdpd/pk against LAMMPS mdpd + mdpd/rhosum on the LAMMPS droplet example, over system size
and core count.

Runs examples/PACKAGES/dpd-meso/mdpd/in.mdpd from the LAMMPS tree (14333 beads) for --steps
steps, unchanged otherwise, and its replicas (`replicate` after create_atoms: --sizes 2 is
`replicate 2 1 1`, 4 is `2 2 1`, 8 is `2 2 2`): once as is (LAMMPS's styles) and once with
-sf pk (mdpd/pk with the mdpd/rhosum/pk companion) for each of --noise (mdpd/pk's `noise`
keyword: gaussian, its default, or uniform, Groot-Warren's uniform random numbers). On each
core count of --cores: LAMMPS's mdpd, which has no threads, as that many MPI ranks; mdpd/pk
as 1 rank of that many OpenMP threads and as that many ranks. The runs alternate, --repeat
times each, and the medians are shown; every run holds the benchmark lock
(/tmp/pk-bench.lock) alone, and one that met other work on the cores it needed is
repeated (pk_scaling.run_timed, at most --tries runs). Table: time per atom-step of the whole loop and of the pair part
(LAMMPS's Pair timer, mean over ranks), the speed-up over LAMMPS on as many cores, and the
parallel efficiency t(1 core) / (n t(n cores)). With --out, the table goes to the head of
that file (earlier contents kept below it) and a PNG of pair time against size beside it.

  bench/mdpd_droplet.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
      [--sizes 1,2,4] [--cores 1,2|all] [--repeat N] [--noise gaussian,uniform]
      [--mpirun CMD] [--tries N] [--out FILE] [--plot PNG]
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

import pk_plot
import pk_scaling

REPLICATE = {1: "1 1 1", 2: "2 1 1", 4: "2 2 1", 8: "2 2 2"}
PEER = "LAMMPS mdpd + mdpd/rhosum"

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=500)
ap.add_argument("--sizes", default="1,2,4", help="replicas of the droplet: 1, 2, 4, 8")
ap.add_argument("--cores", help="core counts, comma-separated, 'all' = this machine's "
                "(default 1,2)")
ap.add_argument("--threads", help="old name of --cores")
ap.add_argument("--repeat", type=int, default=1, help="alternating runs per style; medians shown")
ap.add_argument("--noise", default="gaussian,uniform",
                help="mdpd/pk noise kinds, comma-separated: gaussian, uniform")
ap.add_argument("--mpirun", default="mpirun", help="MPI launcher for the runs on several ranks")
pk_scaling.add_result_options(ap)
opt = ap.parse_args()
opt.plugin_dir = os.path.abspath(opt.plugin_dir)
core_list = pk_scaling.cores(opt.cores or opt.threads or "1,2")
sizes = [int(s) for s in opt.sizes.split(",")]
noises = opt.noise.split(",")
if any(s not in REPLICATE for s in sizes) or any(n not in ("gaussian", "uniform") for n in noises):
    ap.error("--sizes takes 1, 2, 4, 8; --noise gaussian, uniform")

with open(os.path.join(opt.lammps_src, "examples/PACKAGES/dpd-meso/mdpd/in.mdpd")) as fh:
    base = re.sub(r"^run\s+4000", f"run {opt.steps}", fh.read(), flags=re.M)


def script(size, noise):
    text = re.sub(r"^(create_atoms .*)$", rf"\1\nreplicate {REPLICATE[size]}", base, count=1,
                  flags=re.M)
    if noise in (None, "gaussian"):
        return text
    # mdpd/pk's noise keyword follows the seed on the mdpd sub-style's line
    pk = re.sub(r"^(pair_style\s+hybrid/overlay\s+mdpd/rhosum\s+mdpd\s+\S+\s+\S+\s+\d+)",
                r"\1 noise " + noise, text, count=1, flags=re.M)
    if pk == text:
        raise SystemExit("pair_style line of in.mdpd not found: cannot add the noise keyword")
    return pk


loads = []
peer_version = None


def timed(size, noise, ranks, threads):
    """One run; noise None is LAMMPS's styles."""
    global peer_version
    work = tempfile.mkdtemp(prefix="pk-bench-")
    with open(os.path.join(work, "in.mdpd"), "w") as fh:
        fh.write(script(size, noise))
    args = ["-sf", "pk"] if noise else []
    cmd = pk_scaling.command([opt.lmp, "-nocite", "-log", "none", "-in", "in.mdpd", *args],
                             ranks, opt.mpirun, lock=False)
    loads.append(os.getloadavg()[0])
    proc, others, _ = pk_scaling.run_timed(
        cmd, ranks * threads, opt.tries, cwd=work, check=True,
        env=pk_scaling.env(threads, LAMMPS_PLUGIN_PATH=opt.plugin_dir))
    out = proc.stdout
    shutil.rmtree(work)
    # a plugin that did not load makes -sf pk run LAMMPS's own styles, silently
    if noise and "pair_style mdpd/pk: cpu backend" not in out:
        raise SystemExit("mdpd/pk did not run (plugin not loaded?): its log line is missing")
    loop = re.search(r"Loop time of ([\d.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", out)
    pair = re.search(r"^Pair\s+\|\s+[\d.eE+-]+\s+\|\s+([\d.eE+-]+)", out, flags=re.M)
    if int(loop.group(2)) != ranks * threads:      # LAMMPS counts ranks x threads
        raise SystemExit(f"expected {ranks * threads} procs, the log says {loop.group(2)}")
    peer_version = peer_version or re.search(r"LAMMPS \((.*?)\)", out).group(1)
    steps, atoms = int(loop.group(3)), int(loop.group(4))
    per = 1e6 / (steps * atoms)
    return {"variant": f"mdpd/pk noise {noise}" if noise else PEER, "ours": bool(noise),
            "ranks": ranks, "threads": threads, "atoms": atoms, "steps": steps,
            "loop": float(loop.group(1)) * per, "pair": float(pair.group(1)) * per,
            "others": others}


# (noise, ranks, threads) of every run of one size; None is LAMMPS
configs = []
for n in core_list:
    configs.append((None, n, 1))
    configs += [(noise, r, t) for noise in noises for r, t in pk_scaling.layouts(n, True)]

rows = []
for size in sizes:
    runs = {}
    for _ in range(opt.repeat):   # alternate, so that all see the same load
        for c in configs:
            runs.setdefault(c, []).append(timed(size, *c))
            print(f"{runs[c][-1]['atoms']} atoms, {runs[c][-1]['variant']}, {c[1]}x{c[2]}: "
                  f"pair {runs[c][-1]['pair']:.3f} us/atom-step", file=sys.stderr, flush=True)
    for c in configs:
        row = dict(runs[c][0])
        for key in ("loop", "pair"):
            row[key] = statistics.median(r[key] for r in runs[c])
        row["others"] = max(r["others"] for r in runs[c])
        rows.append(row)
pk_scaling.add_scaling(rows, lambda r: PEER)

lines = pk_scaling.head_lines("mdpd droplet benchmark: mdpd/pk vs LAMMPS mdpd", sys.argv,
                              f"LAMMPS ({peer_version}) mdpd + mdpd/rhosum", loads,
                              [r["others"] for r in rows])
lines += [f"µs per atom-step (LAMMPS's timers; pair: mean over ranks), "
          f"{'medians of ' + str(opt.repeat) + ' alternating runs' if opt.repeat > 1 else 'one run each'}; "
          "each run alone under the benchmark lock. Speed-up: LAMMPS's pair time on as many "
          "cores (as MPI ranks: it has no threads) over this row's. Efficiency: t(1 core) / "
          "(n t(n cores)) of the same code, noise and size, pair time. Others: the most cores "
          "other processes kept busy during one of the row's runs.", "",
          "| style | atoms | steps | layout | loop | pair | speed-up pair | speed-up loop | "
          "efficiency | others |",
          "|---|---|---|---|---|---|---|---|---|---|"]
loop_of = {(r["atoms"], pk_scaling.n_cores(r)): r["loop"] for r in rows if not r["ours"]}
for r in rows:
    ratio = f"**{r['ratio']:.2f}**" if r["ours"] and r["ratio"] else ("1.00" if not r["ours"] else "–")
    loop_ratio = (loop_of[(r["atoms"], pk_scaling.n_cores(r))] / r["loop"]) if r["ours"] else 1.0
    lines.append(f"| {r['variant']} | {r['atoms']} | {r['steps']} | {pk_scaling.layout(r)} | "
                 f"{r['loop']:.3f} | {r['pair']:.3f} | {ratio} | {loop_ratio:.2f} | "
                 f"{pk_scaling.fmt(r['eff'])} | {r['others']:.2f} |")
png = pk_scaling.plot_path(opt.plot, opt.out)
if png:
    lines += ["", pk_plot.plot(png, "mdpd droplet: mdpd/pk vs LAMMPS mdpd + mdpd/rhosum",
                               {"": pk_scaling.series(rows)}, pk_scaling.machine())]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    pk_scaling.write_results(opt.out, text)
