#!/usr/bin/env python3
"""amoeba/pk on the GPU against LAMMPS's GPU package (amoeba/gpu) and amoeba/pk on one CPU core.

The input is examples/amoeba/in.water_box.amoeba of the LAMMPS tree (216 waters, 648 atoms)
with the Ewald lines removed from its key (cutoff 7, taper 6, as bench/amoeba_water.py),
and its replicas named by --replicate (NxMxK, comma-separated; default 3x3x4 and 6x7x7:
23,328 and 190,512 atoms, the issue's ~24k and ~190k), `run 100` cut to --steps (--steps-big
for the replicas). LAMMPS's setup force evaluation is the
warm-up; the timed loop is the run's steps. For each box, in one invocation:

  gpu      LAMMPS `amoeba` through the GPU package (`-sf gpu -pk gpu 1`: amoeba/gpu, its
           default mixed precision); its log must say "Using acceleration for amoeba"
  pk cuda  `-sf pk`, `pair_style amoeba elec lammps|smooth backend cuda precision
           double|mixed` (amoeba/pk); its log line must say "amoeba/pk: cuda backend, <precision>
           precision"
  pk cpu   the same with `backend cpu` on one core (OMP_NUM_THREADS=1)
  and pk cuda (elec lammps) once more with OMP_NUM_THREADS = all cores, for the backend's
  host part (pair search, list building, frames and torques)

--backend cpu replaces the two GPU rows by LAMMPS `amoeba` and amoeba/pk `backend cpu`, so
that the script itself can be checked on a machine without a GPU.

Times are LAMMPS's own: the loop's wall time and its Pair line, per step and per atom-step.
Ratios are against the gpu row (or LAMMPS amoeba) of the same box, on the loop time. Runs
stop being started once --max-seconds are used (the rows not run are listed as skipped).

  bench/amoeba_gpu.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--out FILE.md]
                      [--max-seconds 90] [--steps 10] [--steps-big 3]
                      [--replicate 3x3x4,6x7x7]
                      [--backend cuda|cpu]
"""
import argparse
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import amoeba_bench  # bench/, this script's folder

T0 = time.time()
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--lmp", required=True, help="lmp binary (with the GPU and AMOEBA packages for cuda)")
ap.add_argument("--plugin-dir", required=True, help="folder holding pairkitplugin.so")
ap.add_argument("--lammps-src", required=True, help="LAMMPS source tree (for the example input)")
ap.add_argument("--out", help="Markdown report")
ap.add_argument("--max-seconds", type=float, default=90.0,
                help="start no run after this many seconds (default 90)")
ap.add_argument("--steps", type=int, default=10, help="steps of the 648-atom box (default 10)")
ap.add_argument("--steps-big", type=int, default=3, help="steps of the replicas (default 3)")
ap.add_argument("--replicate", default="3x3x4,6x7x7",
                help="replicas NxMxK (or N for NxNxN), comma-separated (default 3x3x4,6x7x7)")
ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda",
                help="cpu: no GPU rows (a check of this script without a GPU)")
ap.add_argument("--workdir", help="keep each run's input and output here (default: a temporary "
                "folder, removed at the end)")
opt = ap.parse_args()
REPLICAS = [tuple(int(v) for v in (r.split("x") if "x" in r else [r] * 3))
            for r in opt.replicate.split(",") if r]
WORK = opt.workdir or tempfile.mkdtemp(prefix="pk-amoeba-gpu-")
os.makedirs(WORK, exist_ok=True)

def system_name(reps):
    return "x".join(map(str, reps)) + " replica" if reps else "water box"


def run(name, reps, steps, pair_style, args, env, must_say):
    """One LAMMPS run on the box (reps None) or a replica; its loop and Pair times, or why it
    failed."""
    tag = "-".join(map(str, reps)) if reps else "box"
    work = os.path.join(WORK, re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-") + "-" + tag)
    amoeba_bench.water_run(work, opt.lammps_src, reps, pair_style, steps)
    cmd = [opt.lmp, "-nocite", "-log", "none", "-in", "in.box", *args]
    left = opt.max_seconds - (time.time() - T0)
    try:
        p = subprocess.run(cmd, cwd=work, env=dict(os.environ, **env), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=max(left, 5.0) + 30.0)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    with open(os.path.join(work, "output.txt"), "w") as fh:
        fh.write(out)
    # LAMMPS with the GPU package may crash at exit after amoeba/gpu (DESIGN.md §8): the run
    # counts when its loop completed
    timing = amoeba_bench.parse(out)
    if not timing:
        tail = " / ".join(l.strip() for l in out.strip().splitlines()[-3:])
        return {"error": f"no timing in the output ({tail})", "work": work}
    if not re.search(must_say, out):
        return {"error": f"the log does not say /{must_say}/ (plugin not loaded, or another "
                         "backend ran)", "work": work}
    line = re.search(r"^.*amoeba/pk: .*$", out, flags=re.M)
    return dict(timing, log=line.group(0).strip() if line else "",
                cmd=f"(cd {os.path.basename(work)} && {' '.join(shlex.quote(c) for c in cmd)})")


plugin_env = {"LAMMPS_PLUGIN_PATH": os.path.abspath(opt.plugin_dir), "OMP_NUM_THREADS": "1"}
if opt.backend == "cuda":
    codes = [("LAMMPS amoeba/gpu (mixed)", "pair_style amoeba", ["-sf", "gpu", "-pk", "gpu", "1"],
              {"OMP_NUM_THREADS": "1"}, r"Using acceleration for amoeba")]
else:
    codes = [("LAMMPS amoeba (1 core)", "pair_style amoeba", [], {"OMP_NUM_THREADS": "1"},
              r"Loop time")]
for backend, precision in ([("cpu", "double")] if opt.backend == "cpu" else
                           [("cuda", "double"), ("cuda", "mixed"), ("cpu", "double")]):
    for elec in ("lammps", "smooth"):
        label = (f"amoeba/pk {backend} {precision}, elec {elec}"
                 + (" (1 core)" if backend == "cpu" else ""))
        style = f"pair_style amoeba elec {elec} backend {backend} precision {precision}"
        codes.append((label, style, ["-sf", "pk"], plugin_env,
                      rf"amoeba/pk: {backend} backend, {precision} precision"))
# the cuda backend's host part (pair search, lists, frames and torques) on every core
if opt.backend == "cuda" and (os.cpu_count() or 1) > 1:
    n = os.cpu_count()
    codes.append((f"amoeba/pk cuda double, elec lammps, host on {n} threads",
                  "pair_style amoeba elec lammps backend cuda", ["-sf", "pk"],
                  dict(plugin_env, OMP_NUM_THREADS=str(n)), r"amoeba/pk: cuda backend, double precision"))

rows = []
for reps, steps in [(None, opt.steps)] + [(r, opt.steps_big) for r in REPLICAS]:
    ref = None
    for label, style, args, env, must in codes:
        if time.time() - T0 > opt.max_seconds:
            rows.append({"label": label, "reps": reps, "skipped": True})
            continue
        r = run(label, reps, steps, style, args, env, must)
        r.update(label=label, reps=reps, elec=re.search(r"elec (\w+)", style).group(1)
                 if "elec" in style else None, cpu="backend cpu" in style)
        if "error" in r:
            print(f"{label}: FAILED: {r['error']}; output in {r['work']}/output.txt", flush=True)
            rows.append(r)
            continue
        if label == codes[0][0]:
            ref = r
        r["ratio"] = ref["loop_ms"] / r["loop_ms"] if ref else None
        rows.append(r)
        print(f"{label}: {r['atoms']} atoms, {r['loop_ms']:.2f} ms/step (pair {r['pair_ms']:.2f})",
              flush=True)

gpu = ""
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         timeout=20).stdout.strip().splitlines()[0]
except (OSError, IndexError, subprocess.SubprocessError):
    gpu = "none found"
title = ("amoeba/pk on the GPU vs LAMMPS amoeba/gpu" if opt.backend == "cuda"
         else "amoeba/pk (cpu backend) vs LAMMPS amoeba: plumbing check of bench/amoeba_gpu.py")
lines = [f"# {title} ({time.strftime('%Y-%m-%d')})", "",
         f"Machine: {platform.node()}, {os.cpu_count()} cores, GPU: {gpu}; 1 MPI rank, "
         "1 OpenMP thread.", "",
         f"Command: `bench/amoeba_gpu.py {' '.join(shlex.quote(a) for a in sys.argv[1:])}`", "",
         f"LAMMPS examples/amoeba water box without Ewald (cutoff 7, taper 6) and its "
         f"replicas {', '.join(map(system_name, REPLICAS))}; {opt.steps} and "
         f"{opt.steps_big} steps after the setup evaluation. ms/step from LAMMPS's loop time "
         f"(whole step) and Pair line; ratio = {codes[0][0]}'s loop time / this row's; "
         "vs pk cpu = amoeba/pk cpu's loop time (same box, same elec) / this row's.", "",
         "| system | atoms | code | loop ms/step | pair ms/step | µs/atom-step (loop) | ratio "
         "| vs pk cpu | HAL | multipole | induce | polar | PCG iter. |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    system = system_name(r["reps"])
    if r.get("skipped"):
        lines.append(f"| {system} | – | {r['label']} | skipped (--max-seconds) |" + " |" * 9)
        continue
    if "error" in r:
        lines.append(f"| {system} | – | {r['label']} | failed: {r['error'].replace('|', '/')} |"
                     + " |" * 9)
        continue
    cpu = [c for c in rows if c.get("cpu") and c["reps"] == r["reps"] and c.get("elec") == r["elec"]
           and "loop_ms" in c]
    vs_cpu = f"{cpu[0]['loop_ms'] / r['loop_ms']:.2f}" if cpu and r["elec"] else "–"
    ratio = f"{r['ratio']:.2f}" if r["ratio"] else "–"
    split = " | ".join(f"{v:.2f}" for v in r["split"]) if r["split"] else "– | – | – | –"
    pcg = f"{r['pcg']:.1f}" if r["pcg"] is not None else "–"
    lines.append(f"| {system} | {r['atoms']} | {r['label']} | {r['loop_ms']:.2f} | "
                 f"{r['pair_ms']:.2f} | {1e3 * r['loop_ms'] / r['atoms']:.2f} | {ratio} | {vs_cpu} "
                 f"| {split} | {pcg} |")
lines += ["", "HAL, multipole, induce, polar: ms per force evaluation from each style's own timers "
          "(LAMMPS: its AMOEBA timing breakdown; amoeba/pk: its end-of-run report, whose "
          "multipole part also holds the step's pair search, the frames and torques, and on the "
          "cuda backend the host's full-list builds and transfers of each term).",
          "", "amoeba/pk log lines:", ""]
lines += sorted({f"- `{r['log']}`" for r in rows if r.get("log")})
lines += ["", "Runs (each in its own folder of the work folder):", ""]
lines += [f"- {r['label']}, {system_name(r['reps'])}: `{r['cmd']}`" for r in rows
          if "cmd" in r]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    with open(opt.out, "w") as fh:
        fh.write(text)
failed = [r["label"] for r in rows if "error" in r]
if opt.workdir or failed:
    print(f"inputs and outputs kept in {WORK}")
else:
    shutil.rmtree(WORK, ignore_errors=True)
print(f"bench/amoeba_gpu.py: {time.time() - T0:.1f} s")
if failed:
    sys.exit(f"runs that failed: {', '.join(failed)}")
