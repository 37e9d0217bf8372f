#!/usr/bin/env python3
"""mdpd/pk against LAMMPS mdpd + mdpd/rhosum on the LAMMPS droplet example (14333 beads).

Runs examples/PACKAGES/dpd-meso/mdpd/in.mdpd from the LAMMPS tree for --steps steps,
unchanged otherwise: once as is (LAMMPS's styles) and once with -sf pk (mdpd/pk with the
mdpd/rhosum/pk companion), on 1 MPI rank with 1 and 2 OpenMP threads (LAMMPS's mdpd has
no threaded variant, so its 2-thread run is shown for completeness). Prints a Markdown
table of time per step per atom (whole loop and pair part) and the speed ratio.

  bench/mdpd_droplet.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--steps N] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--lammps-src", required=True)
ap.add_argument("--steps", type=int, default=500)
ap.add_argument("--out")
opt = ap.parse_args()

with open(os.path.join(opt.lammps_src, "examples/PACKAGES/dpd-meso/mdpd/in.mdpd")) as fh:
    script = re.sub(r"^run\s+4000", f"run {opt.steps}", fh.read(), flags=re.M)


def timed(label, args, threads):
    work = tempfile.mkdtemp(prefix="pk-bench-")
    with open(os.path.join(work, "in.mdpd"), "w") as fh:
        fh.write(script)
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


rows = []
for threads in (1, 2):
    ref = timed("LAMMPS mdpd + mdpd/rhosum", [], threads)
    ours = timed("mdpd/pk (-sf pk)", ["-sf", "pk"], threads)
    ours["ratio_total"] = ref["total_us"] / ours["total_us"]
    ours["ratio_pair"] = ref["pair_us"] / ours["pair_us"]
    rows += [ref, ours]

lines = [f"# mdpd droplet benchmark ({datetime.date.today()})", "",
         f"Machine: {platform.node()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} cores; 1 MPI rank.", "",
         f"Command: `bench/mdpd_droplet.py --steps {opt.steps} ...` (see bench/README.md)", "",
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
