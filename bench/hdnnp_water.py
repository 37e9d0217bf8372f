#!/usr/bin/env python3
"""hdnnp/pk on the LAMMPS ML-HDNNP water example (examples/PACKAGES/hdnnp/in.hdnnp: 360
molecules, 1080 atoms, RPBE-D3 model) and on its n x n x n replicas (--replicas, default 1,2:
1080 and 8640 atoms), on each core count of --cores (default 1,2; 'all' = this machine's):
n cores as 1 MPI rank of n OpenMP threads and as n MPI ranks of one thread.

The example runs with `-sf pk`, unchanged but for its step count (and `replicate n n n`
after read_data for the replicas). Reported per atom-step: the LAMMPS Pair time and the
whole loop, and the split hdnnp/pk prints at the end of the run (symmetry functions
incl. neighbour gathering / networks / force contraction, wall time). Each configuration
runs --repeat times, the styles alternating, and the medians are shown; every run holds
`/tmp/pk-bench.lock` so that benchmarks of several people on one machine do not overlap, and
one that met other work on the cores it needed is repeated (pk_scaling.run_timed, at most
--tries runs).
--callgrind adds an instruction count per atom-step, which other load does not change.

LAMMPS `hdnnp` needs the n2p2 library (tools/build-n2p2-peer.sh builds it and an lmp with it
and PLUGIN); when --hdnnp-lmp names an lmp with the ML-HDNNP package (or --lmp has it), the
same inputs run with it (one thread: it has no OpenMP; as many MPI ranks as cores) and the
table shows the ratio; otherwise the table says so and quotes the issue's 235 us/atom-step
for LAMMPS hdnnp on one core of this machine. Efficiency: t(1 core) / (n t(n cores)) of the
same code and size, pair time. With --out, the table goes to the head of that file (earlier
contents kept below it) and a PNG of pair time against size beside it (--plot names another).

  bench/hdnnp_water.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N]
                       [--repeat R] [--replicas 1,2] [--cores 1,2|all] [--hdnnp-lmp LMP]
                       [--mpirun CMD] [--tries N] [--callgrind] [--out FILE] [--plot PNG]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import pk_plot
import pk_scaling

ISSUE_HDNNP_US = 235.0    # LAMMPS hdnnp (n2p2), 1080 atoms, one core (issue 4)
TARGET_US = 47.0          # issue 4: >= 5x faster on one core
TARGET_RATIO = 10.0       # issue 19: >= 10x n2p2's hdnnp on one core and on all cores
LOCK = pk_scaling.LOCK
OURS, PEER = "hdnnp/pk (-sf pk)", "LAMMPS hdnnp (n2p2)"

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--repeat", type=int, default=3, help="alternating runs per row; medians shown")
ap.add_argument("--hdnnp-lmp", help="lmp with ML-HDNNP (n2p2), for the comparison")
ap.add_argument("--mpirun", default="mpirun", help="MPI launcher for the multi-rank rows")
ap.add_argument("--replicas", default="1,2", help="n of the n x n x n replicas, comma-separated")
ap.add_argument("--cores", default="1,2", help="core counts, comma-separated; 'all' = this "
                "machine's")
ap.add_argument("--callgrind", action="store_true",
                help="also count instructions per atom-step (valgrind; 1080 atoms, 1 thread)")
pk_scaling.add_result_options(ap)
opt = ap.parse_args()
opt.plugin_dir = os.path.abspath(opt.plugin_dir)    # the runs happen in temporary directories
replicas = [int(n) for n in opt.replicas.split(",")]
# (MPI ranks, OpenMP threads per rank); LAMMPS hdnnp has no threads, so it runs ranks only
LAYOUTS = [lay for n in pk_scaling.cores(opt.cores) for lay in pk_scaling.layouts(n, True)]

example = os.path.join(opt.lammps_src, "examples", "PACKAGES", "hdnnp")
with open(os.path.join(example, "in.hdnnp")) as fh:
    base = fh.read()
base = re.sub(r"^(variable\s+numSteps\s+equal\s+)\d+", rf"\g<1>{opt.steps}", base, flags=re.M)


def instructions():
    """Instructions per atom-step executed inside PairHDNNPPK::compute (the adapter and the
    core), 1 thread, 1080 atoms, setup + 2 steps; independent of other load. None when
    valgrind stops (it cannot run AVX-512 code, e.g. from -march=native on such a CPU)."""
    work = tempfile.mkdtemp(prefix="pk-bench-")
    for name in ("data.H2O-360mol", "hdnnp-data"):
        os.symlink(os.path.join(example, name), os.path.join(work, name))
    text = re.sub(r"^(variable\s+numSteps\s+equal\s+)\d+", r"\g<1>2", base, flags=re.M)
    with open(os.path.join(work, "in.hdnnp"), "w") as fh:
        fh.write(text)
    env = dict(os.environ, OMP_NUM_THREADS="1", LAMMPS_PLUGIN_PATH=opt.plugin_dir)
    run = subprocess.run(["flock", LOCK, "valgrind", "--tool=callgrind",
                          "--callgrind-out-file=cg.out",
                          "--toggle-collect=LAMMPS_NS::PairHDNNPPK::compute*", opt.lmp,
                          "-nocite", "-in", "in.hdnnp", "-sf", "pk"], cwd=work, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if run.returncode != 0:
        shutil.rmtree(work)
        return None
    with open(os.path.join(work, "cg.out")) as fh:
        total = int(re.search(r"^summary: (\d+)", fh.read(), flags=re.M).group(1))
    shutil.rmtree(work)
    return total / (3 * 1080)


def has_hdnnp(lmp):
    out = subprocess.run([lmp, "-h"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True).stdout
    styles = out.split("* Pair styles:", 1)[-1].split("* Bond styles:", 1)[0]
    return re.search(r"(^|\s)hdnnp(\s|$)", styles) is not None


def run_once(lmp, args, ranks, threads, replica):
    """One run of the example; the LAMMPS and hdnnp/pk timers per atom-step."""
    text = base
    if replica > 1:
        text = re.sub(r"^(read_data .*)$", rf"\1\nreplicate {replica} {replica} {replica}", text,
                      flags=re.M)
    work = tempfile.mkdtemp(prefix="pk-bench-")
    for name in ("data.H2O-360mol", "hdnnp-data"):
        os.symlink(os.path.join(example, name), os.path.join(work, name))
    with open(os.path.join(work, "in.hdnnp"), "w") as fh:
        fh.write(text)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive",
               LAMMPS_PLUGIN_PATH=opt.plugin_dir,
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = pk_scaling.command([lmp, "-nocite", "-in", "in.hdnnp", *args], ranks, opt.mpirun,
                             lock=False)
    loads.append(os.getloadavg()[0])
    proc, others, cpu = pk_scaling.run_timed(cmd, ranks * threads, opt.tries, cwd=work, env=env,
                                             check=True)
    out = proc.stdout
    shutil.rmtree(work)
    if "-sf" in args and "pair_style hdnnp/pk: " not in out:
        raise SystemExit("hdnnp/pk did not run (plugin not loaded?): its log line is missing")
    if "-sf" not in args and "pair_style hdnnp/pk: " in out:
        raise SystemExit("the LAMMPS hdnnp run used hdnnp/pk")
    loop = re.search(r"Loop time of ([\d.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) "
                     r"atoms", out)
    pair = re.search(r"^Pair\s+\|\s+[\d.eE+-]+\s+\|\s+([\d.eE+-]+)", out, flags=re.M)
    split = re.search(r"symmetry functions ([\d.]+) us, networks ([\d.]+) us, forces "
                      r"([\d.]+) us", out)
    if int(loop.group(2)) != ranks * threads:      # LAMMPS counts ranks x threads
        raise SystemExit(f"expected {ranks * threads} procs, the log says {loop.group(2)}")
    steps, atoms = int(loop.group(3)), int(loop.group(4))
    per = 1e6 / (steps * atoms)
    version = re.search(r"\(version\.h\):\s*(\S+)", out)     # n2p2's banner
    return {"ranks": ranks, "threads": threads, "atoms": atoms, "steps": steps,
            "loop": float(loop.group(1)) * per, "pair": float(pair.group(1)) * per,
            # whole process (start-up, setup force evaluation included) / loop atom-steps
            "cpu": cpu * per,
            "split": tuple(float(v) for v in split.groups()) if split else None,
            "version": version.group(1) if version else None, "others": others}


def median_row(runs):
    row = dict(runs[0])
    for key in ("loop", "pair", "cpu"):
        row[key] = statistics.median(r[key] for r in runs)
    row["others"] = max(r["others"] for r in runs)
    if runs[0]["split"]:
        row["split"] = tuple(statistics.median(r["split"][i] for r in runs) for i in range(3))
    return row


hdnnp_lmp = opt.hdnnp_lmp or (opt.lmp if has_hdnnp(opt.lmp) else None)
loads = []
rows = []
n2p2_version = None
for replica in replicas:
    runs = {}
    for _ in range(opt.repeat):      # the styles alternate inside each repeat
        for ranks, threads in LAYOUTS:
            runs.setdefault(("ours", ranks, threads), []).append(
                run_once(opt.lmp, ["-sf", "pk"], ranks, threads, replica))
            if hdnnp_lmp and threads == 1:
                ref = run_once(hdnnp_lmp, [], ranks, threads, replica)
                n2p2_version = n2p2_version or ref["version"]
                runs.setdefault(("ref", ranks, threads), []).append(ref)
    for ranks, threads in LAYOUTS:
        if ("ref", ranks, threads) in runs:
            rows.append(dict(median_row(runs[("ref", ranks, threads)]), label=PEER,
                             variant=PEER, ours=False))
        rows.append(dict(median_row(runs[("ours", ranks, threads)]), label=OURS, variant=OURS,
                         ours=True))
# ratio: n2p2's pair time on as many cores (as MPI ranks) over ours
pk_scaling.add_scaling(rows, lambda r: PEER)


def fmt_split(r):
    return " | ".join(f"{v:.1f}" for v in r["split"]) if r["split"] else "– | – | –"


peer = (f"LAMMPS hdnnp: {hdnnp_lmp} (n2p2 {n2p2_version or 'version not logged'})"
        if hdnnp_lmp else "LAMMPS hdnnp: not run")
lines = pk_scaling.head_lines("hdnnp/pk water benchmark: hdnnp/pk vs n2p2", sys.argv, peer,
                              loads, [r["others"] for r in rows])
lines += [f"Median of {opt.repeat} runs per row, the styles alternating, each run alone on "
          f"the machine's benchmark lock ({LOCK}).", "",
         "µs per atom-step. pair, loop: LAMMPS's wall-clock timers (pair: average over the "
         "ranks); split: hdnnp/pk's own wall-clock timers (symmetry functions incl. neighbour "
         "gathering / networks / force contraction, averaged over all force evaluations of the "
         "run, setup included); CPU: CPU time of the whole run, all ranks and threads (start-up "
         "and setup included) over the loop's atom-steps. Speed-up: n2p2's pair time on as "
         "many cores (as MPI ranks: it has no threads) over this row's. Efficiency: t(1 "
         "core) / (n t(n cores)) of the same code and size, pair time. Others: the most "
         "cores other processes kept busy during one of the row's runs.", "",
         "| style | atoms | MPI ranks | threads | steps | pair | symmetry functions | networks "
         "| forces | loop | CPU | speed-up vs hdnnp | efficiency | others |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    if r.get("ratio"):
        speed = f"{r['ratio']:.2f}"
    elif r["label"].startswith("LAMMPS"):
        speed = "1.00"
    else:
        speed = (f"{ISSUE_HDNNP_US / r['pair']:.2f} (vs 235 quoted)"
                 if r["threads"] * r["ranks"] == 1 else "–")
    lines.append(f"| {r['label']} | {r['atoms']} | {r['ranks']} | {r['threads']} | {r['steps']} | "
                 f"{r['pair']:.1f} | {fmt_split(r)} | {r['loop']:.1f} | {r['cpu']:.1f} | {speed} | "
                 f"{pk_scaling.fmt(r['eff'])} | {r['others']:.2f} |")
lines.append("")
if not hdnnp_lmp:
    lines.append(f"LAMMPS `hdnnp` was not run: {opt.lmp} has no ML-HDNNP package (it needs the "
                 f"n2p2 library: tools/build-n2p2-peer.sh, then pass --hdnnp-lmp). The "
                 f"issue quotes {ISSUE_HDNNP_US:.0f} µs/atom-step for it on one core of this "
                 f"machine, 1080 atoms; the speed-up column of the 1-core rows is against "
                 f"that figure.")
if opt.callgrind:
    count = instructions()
    lines.append(f"Instructions (callgrind, 1 thread, 1080 atoms, setup + 2 steps, inside "
                 f"PairHDNNPPK::compute incl. the core): "
                 + (f"{count:,.0f} per atom-step." if count else
                    "valgrind failed (AVX-512 code? build the plugin without -march=native)."))
one_core = next((r for r in rows if r["ours"] and r["atoms"] == 1080
                 and r["threads"] * r["ranks"] == 1), None)
if one_core:
    lines.append(f"Target (issue 4): ≤ {TARGET_US:.0f} µs/atom-step on one core for 1080 atoms; "
                 f"measured {one_core['pair']:.1f} (pair) — "
                 f"{'met' if one_core['pair'] <= TARGET_US else 'not met'}.")
if hdnnp_lmp:
    for r in rows:
        if r.get("ratio"):
            lines.append(f"Target (issue 19): ≥ {TARGET_RATIO:.0f}× n2p2; {r['atoms']} atoms, "
                         f"{r['ranks']} rank(s) × {r['threads']} thread(s): {r['ratio']:.2f}× — "
                         f"{'met' if r['ratio'] >= TARGET_RATIO else 'not met'}.")
png = pk_scaling.plot_path(opt.plot, opt.out)
if png:
    lines += ["", pk_plot.plot(png, "LAMMPS hdnnp water (RPBE-D3): hdnnp/pk vs n2p2",
                               {"": pk_scaling.series(rows)}, pk_scaling.machine())]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    pk_scaling.write_results(opt.out, text)
