#!/usr/bin/env python3
"""mdpd/pk against LAMMPS mdpd + mdpd/rhosum on the LAMMPS droplet example (14333 beads).

Runs examples/PACKAGES/dpd-meso/mdpd/in.mdpd from the LAMMPS tree for --steps steps,
unchanged otherwise: once as is (LAMMPS's styles) and once with -sf pk (mdpd/pk with the
mdpd/rhosum/pk companion), on 1 MPI rank with 1 and 2 OpenMP threads (LAMMPS's mdpd has
no threaded variant, so its 2-thread run is shown for completeness). Prints a Markdown
table of time per step per atom (whole loop and pair part) and the speed ratio. With
--repeat N the two styles run alternately N times each and the medians are shown; --noise
uniform gives mdpd/pk `noise uniform` (Groot-Warren uniform random numbers).

  bench/mdpd_droplet.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N] [--out FILE]
      [--threads 1,2] [--repeat N] [--noise gaussian|uniform]
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=500)
ap.add_argument("--out")
ap.add_argument("--threads", default="1,2", help="OpenMP thread counts, comma-separated")
ap.add_argument("--repeat", type=int, default=1, help="alternating runs per style; medians shown")
ap.add_argument("--noise", choices=("gaussian", "uniform"), default="gaussian")
opt = ap.parse_args()

with open(os.path.join(opt.lammps_src, "examples/PACKAGES/dpd-meso/mdpd/in.mdpd")) as fh:
    script = re.sub(r"^run\s+4000", f"run {opt.steps}", fh.read(), flags=re.M)
# mdpd/pk's noise keyword follows the seed on the mdpd sub-style's line
pk_script = script if opt.noise == "gaussian" else re.sub(
    r"^(pair_style\s+hybrid/overlay\s+mdpd/rhosum\s+mdpd\s+\S+\s+\S+\s+\d+)",
    r"\1 noise " + opt.noise, script, count=1, flags=re.M)
if pk_script == script and opt.noise != "gaussian":
    raise SystemExit("pair_style line of in.mdpd not found: cannot add the noise keyword")


def timed(label, args, threads):
    work = tempfile.mkdtemp(prefix="pk-bench-")
    with open(os.path.join(work, "in.mdpd"), "w") as fh:
        fh.write(pk_script if "-sf" in args else script)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), LAMMPS_PLUGIN_PATH=opt.plugin_dir)
    out = subprocess.run([opt.lmp, "-nocite", "-in", "in.mdpd", *args], cwd=work, env=env,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    # a plugin that did not load makes -sf pk run LAMMPS's own styles, silently
    if "-sf" in args and "pair_style mdpd/pk: cpu backend" not in out:
        raise SystemExit("mdpd/pk did not run (plugin not loaded?): its log line is missing")
    loop = re.search(r"Loop time of ([\d.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", out)
    pair = re.search(r"^Pair\s+\|\s+[\d.eE+-]+\s+\|\s+([\d.eE+-]+)", out, flags=re.M)
    total, steps, atoms = float(loop.group(1)), int(loop.group(3)), int(loop.group(4))
    return {"label": label, "threads": threads, "atoms": atoms, "steps": steps,
            "total_us": 1e6 * total / (steps * atoms), "pair_us": 1e6 * float(pair.group(1)) / (steps * atoms)}


def median_of(runs):
    keep = dict(runs[0])
    for key in ("total_us", "pair_us"):
        keep[key] = statistics.median(r[key] for r in runs)
    return keep


rows = []
for threads in (int(t) for t in opt.threads.split(",")):
    refs, ourss = [], []
    for _ in range(opt.repeat):   # alternate, so that both see the same load
        refs.append(timed("LAMMPS mdpd + mdpd/rhosum", [], threads))
        ourss.append(timed(f"mdpd/pk (-sf pk, noise {opt.noise})", ["-sf", "pk"], threads))
    ref, ours = median_of(refs), median_of(ourss)
    ours["ratio_total"] = ref["total_us"] / ours["total_us"]
    ours["ratio_pair"] = ref["pair_us"] / ours["pair_us"]
    rows += [ref, ours]

lines = [f"# mdpd droplet benchmark ({datetime.date.today()})", "",
         f"Machine: {platform.node()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} cores; 1 MPI rank.", "",
         f"Command: `bench/mdpd_droplet.py --steps {opt.steps} --threads {opt.threads} "
         f"--repeat {opt.repeat} --noise {opt.noise} ...` (see bench/README.md); "
         f"{'medians of ' + str(opt.repeat) + ' alternating runs' if opt.repeat > 1 else 'one run each'}; "
         f"load average at the end {os.getloadavg()[0]:.2f}", "",
         "| style | threads | atoms | steps | µs/atom-step (loop) | µs/atom-step (pair) | speed-up loop | speed-up pair |",
         "|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['label']} | {r['threads']} | {r['atoms']} | {r['steps']} | {r['total_us']:.3f} | "
                 f"{r['pair_us']:.3f} | {r.get('ratio_total', 1.0):.2f} | {r.get('ratio_pair', 1.0):.2f} |")
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    with open(opt.out, "w") as fh:
        fh.write(text)
