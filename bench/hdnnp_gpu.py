#!/usr/bin/env python3
"""hdnnp/pk on the GPU against its cpu backend on all cores, through the C kernel bench.

Systems: n2p2's RPBE-D3 water (../shared/reference/n2p2/H2O_RPBE-D3, 1080 atoms, periodic)
and its 4x4x4 replica (69,120 atoms), ghosts within the cutoff + 0.5 Bohr skin, full list.
For each system, in one invocation: the cpu backend with OMP_NUM_THREADS = all cores, then
the cuda backend in double and in mixed precision (bench/hdnnp/bench_hdnnp: one untimed
warm-up step, then the timed steps; a step is one pk_hdnnp_compute call with its transfers:
positions up, forces and sums down). µs per atom-step is wall time / (steps x atoms); the
ratio is the cpu backend's time over this run's.

Every run must print "backend: <kind>, <precision> precision" naming what was asked for, so
a silent fallback to the CPU cannot be reported as GPU; its energy must agree with the cpu
backend's (1e-8 relative in double, 1e-5 in mixed).

  bench/hdnnp_gpu.py --build DIR --out FILE.md --max-seconds N [--quick] [--backends cpu]
"""
import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--build", required=True, help="PairKit build tree (holds bench/hdnnp/bench_hdnnp)")
ap.add_argument("--out", required=True, help="Markdown report to write")
ap.add_argument("--max-seconds", type=float, default=85.0,
                help="start no run after this many seconds; a running one is stopped (default 85)")
ap.add_argument("--quick", action="store_true", help="fewer steps")
ap.add_argument("--backends", default="cpu,cuda",
                help="comma separated: cpu, cuda (default both; cpu alone checks this script)")
ap.add_argument("--replicas", default="1,4", help="replicas per direction, comma separated")
ap.add_argument("--threads", type=int, default=os.cpu_count(), help="OpenMP threads of the cpu backend")
ap.add_argument("--shared", default=None, help="the shared folder (default $PAIRKIT_SHARED or ../shared)")
opt = ap.parse_args()

T0 = time.time()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(os.path.abspath(opt.build), "bench", "hdnnp", "bench_hdnnp")
if not os.access(BIN, os.X_OK):
    sys.exit(f"hdnnp_gpu.py: no bench binary {BIN} (build the tree first)")
shared = opt.shared or os.environ.get("PAIRKIT_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
shared = os.path.abspath(shared)
if not os.path.isdir(os.path.join(shared, "reference", "n2p2", "H2O_RPBE-D3")):
    sys.exit(f"hdnnp_gpu.py: no reference/n2p2/H2O_RPBE-D3 under {shared} (--shared)")
backends = [b for b in opt.backends.split(",") if b]
runs = [("cpu", "double")] if "cpu" in backends else []
if "cuda" in backends:
    runs += [("cuda", "double"), ("cuda", "mixed")]
replicas = [int(r) for r in opt.replicas.split(",") if r]
# steps per replica count: a 1080-atom step takes ~1 ms on a GPU or 16 cores, a 69,120-atom
# one ~0.1 s; the warm-up step is extra
STEPS = {1: 10 if opt.quick else 40, 4: 2 if opt.quick else 6}
ENERGY_RTOL = {"double": 1e-8, "mixed": 1e-5}


def sh(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"({' '.join(cmd)}: {exc})"


def run(rep, kind, precision):
    """One bench_hdnnp run: dict with the parsed numbers, or with 'error'."""
    left = opt.max_seconds - (time.time() - T0)
    steps = STEPS.get(rep, 2)
    cmd = [BIN, str(steps), str(rep), kind, precision]
    res = {"rep": rep, "kind": kind, "precision": precision, "cmd": shlex.join(cmd)}
    if left < 5:
        res["error"] = "not started: --max-seconds spent"
        return res
    env = dict(os.environ, PAIRKIT_SHARED=shared, OMP_NUM_THREADS=str(opt.threads))
    env.pop("PAIRKIT_BACKEND", None)
    env.pop("PAIRKIT_PRECISION", None)
    print(f"[hdnnp_gpu] {res['cmd']}", flush=True)
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=max(left - 2, 1))
    except subprocess.TimeoutExpired:
        res["error"] = "stopped at --max-seconds"
        return res
    out = p.stdout
    res["output"] = out
    m = re.search(r"^backend: (\w+), (\w+) precision, (.*)$", out, flags=re.M)
    t = re.search(r"^atoms (\d+) .* energy (\S+)$", out, flags=re.M)
    w = re.search(r"^us/atom-step: wall (\S+)", out, flags=re.M)
    if p.returncode != 0 or not (m and t and w):
        res["error"] = f"exit {p.returncode}: " + " / ".join(out.strip().splitlines()[-3:])
        return res
    if (m.group(1), m.group(2)) != (kind, precision):
        res["error"] = f"asked for {kind} {precision}, ran {m.group(1)} {m.group(2)}"
        return res
    res.update(device=m.group(3), atoms=int(t.group(1)), energy=float(t.group(2)), us=float(w.group(1)))
    return res


results = []
for rep in replicas:
    for kind, precision in runs:
        r = run(rep, kind, precision)
        print(f"[hdnnp_gpu]   -> {r.get('us', r.get('error'))}", flush=True)
        results.append(r)

failed = False
rows = []
for r in results:
    base = next((b for b in results if b["rep"] == r["rep"] and b["kind"] == "cpu" and "us" in b), None)
    if "error" in r:
        failed = failed or not r["error"].startswith("not started")
        rows.append(f"| water x{r['rep']**3} | | {r['kind']} | {r['precision']} | {r['error']} | | |")
        continue
    ratio = f"{base['us'] / r['us']:.2f}" if base else ""
    de = ""
    if base:
        rel = abs(r["energy"] - base["energy"]) / abs(base["energy"])
        de = f"{rel:.1e}"
        if rel > ENERGY_RTOL[r["precision"]]:
            failed = True
            de += " (too far)"
    rows.append(f"| water x{r['rep']**3} | {r['atoms']} | {r['kind']} | {r['precision']} | "
                f"{r['us']:.3f} | {ratio} | {de} |")

gpu = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
cpu_model = next((l.split(":", 1)[1].strip() for l in sh(["lscpu"]).splitlines()
                  if l.startswith("Model name")), platform.processor())
devices = sorted({r["device"] for r in results if "device" in r})
lines = [
    "# hdnnp/pk: cuda backend against the cpu backend (C kernel bench)",
    "",
    f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}  ",
    f"Machine: {platform.node()}, {cpu_model}, {os.cpu_count()} cores; cpu backend on "
    f"{opt.threads} OpenMP threads  ",
    f"GPU: {gpu}  ",
    f"Backends as reported: {'; '.join(devices)}  ",
    f"Command: `{shlex.join([sys.executable] + sys.argv)}`",
    "",
    "µs per atom-step of pk_hdnnp_compute (wall; uploads and downloads included, the list "
    "uploaded once in the untimed warm-up step); ratio = cpu backend / this run; ΔE = energy "
    "deviation from the cpu backend, relative.",
    "",
    "| system | atoms | backend | precision | µs/atom-step | ratio | ΔE |",
    "|---|---|---|---|---|---|---|",
    *rows,
    "",
    "Runs:",
    "",
    *[f"- `{r['cmd']}`" for r in results],
    "",
]
with open(opt.out, "w") as fh:
    fh.write("\n".join(lines))
print("\n".join(lines))
print(f"[hdnnp_gpu] {time.time() - T0:.0f} s; report in {opt.out}")
sys.exit(1 if failed else 0)
