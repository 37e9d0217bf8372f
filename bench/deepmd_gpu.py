#!/usr/bin/env python3
"""deepmd/pk on the GPU: the cuda backend in double and mixed precision against the cpu
backend on all cores of the same node, one evaluation (energy, forces, virial) per step of
the C kernel driver bench_deepmd (no LAMMPS), on the two systems of Guo et al. (PPoPP'22)
with synthetic models of their shapes (tools/deepmd_synthetic_model.py):

  water   12,288 atoms (16^3 molecules at 1 g/cm^3; the paper's box had 12,880), model
          `water` (sel 46/92, embedding 25-50-100, axis 16, fitting 240^3)
  copper  6,912 atoms (12^3 fcc cells, a = 3.634 A, atoms displaced up to 0.05 A), model
          `copper` (sel 500, embedding 32-64-128)
  and larger replicas (water 98,304 and copper 55,296 atoms) unless --quick.

Per run: the untimed warm-up (one evaluation; on cuda also the launch tuner's 24), then
the best of --reps; µs per atom-step of wall time. The tuner's log line of each cuda run
(the launch shape chosen, every candidate's time) goes into the report. The ratio columns compare with the cpu backend on the same system in this invocation
and with the paper's V100 figure (water, double: 2.58 µs/step/atom; the paper's copper
figure is not recorded in this repository, so none is given). Every cuda run must report
"backend cuda" and the requested precision (a silent fallback to the CPU would stop the
bench), and its energy must agree with the cpu backend's (double 1e-9, mixed 1e-5
relative), else the row is marked.

  bench/deepmd_gpu.py --build DIR --out FILE.md [--max-seconds 80] [--quick]
                      [--backends cpu,cuda] [--reps 5]

--backends cpu checks this script on a machine without a GPU. No new run starts once
--max-seconds are used; the default run stays within 90 s.
"""
import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time

PAPER_V100 = {"water": 2.58}   # µs/step/atom, double precision, Guo et al. PPoPP'22

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--build", required=True, help="PairKit build tree (holds bench/deepmd/bench_deepmd)")
ap.add_argument("--out", required=True, help="Markdown report")
ap.add_argument("--max-seconds", type=float, default=80.0)
ap.add_argument("--quick", action="store_true", help="the paper's two systems only, 2 reps")
ap.add_argument("--backends", default="cpu,cuda", help="comma separated: cpu, cuda")
ap.add_argument("--reps", type=int, default=None, help="timed evaluations per run (default 5, quick 2)")
ap.add_argument("--threads", type=int, default=os.cpu_count(), help="OpenMP threads of the cpu runs")
args = ap.parse_args()

start = time.time()
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
exe = os.path.join(args.build, "bench", "deepmd", "bench_deepmd")
if not os.access(exe, os.X_OK):
    sys.exit(f"deepmd_gpu.py: {exe} not found: build PairKit first")
reps = args.reps or (2 if args.quick else 5)
backends = [b for b in args.backends.split(",") if b]
tmp = tempfile.mkdtemp(prefix="deepmd_gpu_")


def model(name):
    """The synthetic model: the build's water model, else generated here."""
    if name == "water":
        built = os.path.join(args.build, "tests", "deepmd_water_synthetic.yaml")
        if os.path.exists(built):
            return built
    path = os.path.join(tmp, f"{name}.yaml")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(src, "tools", "deepmd_synthetic_model.py"),
                        name, path], check=True)
    return path


# (label, model, lattice, n per side, atoms)
systems = [("water", "water", "water", 16, 3 * 16 ** 3), ("copper", "copper", "fcc", 12, 4 * 12 ** 3)]
if not args.quick:
    systems += [("water x8", "water", "water", 32, 3 * 32 ** 3),
                ("copper x8", "copper", "fcc", 24, 4 * 24 ** 3)]
runs = []
for s in systems:
    if "cpu" in backends:
        runs.append((s, "cpu", "double"))
    if "cuda" in backends:
        runs += [(s, "cuda", "double"), (s, "cuda", "mixed")]

rows, skipped, commands, failures = [], [], [], []
for (label, mname, lattice, n, nat), backend, prec in runs:
    if time.time() - start > args.max_seconds:
        skipped.append(f"{label} {backend} {prec}")
        continue
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads if backend == "cpu" else 1))
    cmd = [exe, model(mname), "1", str(n), str(reps), backend, prec, lattice]
    commands.append(f"OMP_NUM_THREADS={env['OMP_NUM_THREADS']} " + shlex.join(cmd))
    left = max(5.0, args.max_seconds + 8 - (time.time() - start))
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=left)
    except subprocess.TimeoutExpired:
        failures.append(f"{label} {backend} {prec}: timed out after {left:.0f} s")
        continue
    out = p.stdout + p.stderr
    m_be = re.search(r"^backend (\S+)\s+precision (\S+)\s+device (.*)$", out, re.M)
    m_t = re.search(r"us/atom: wall (\S+)\s+cpu (\S+).*kernel bytes (\d+)", out)
    m_e = re.search(r"energy (\S+)", out)
    m_tune = re.search(r"^log: deepmd/pk: (cuda launch .*)$", out, re.M)
    if p.returncode != 0 or not (m_be and m_t and m_e):
        failures.append(f"{label} {backend} {prec}: exit {p.returncode}: {out.strip()[-400:]}")
        continue
    if m_be.group(1) != backend or m_be.group(2) != prec:
        sys.exit(f"deepmd_gpu.py: asked for {backend}/{prec}, ran {m_be.group(1)}/{m_be.group(2)}"
                 f" ({m_be.group(3)}): refusing to report it")
    rows.append(dict(label=label, model=mname, atoms=nat, backend=backend, prec=prec,
                     device=m_be.group(3), us=float(m_t.group(1)), bytes=int(m_t.group(3)),
                     energy=float(m_e.group(1)), tune=m_tune.group(1) if m_tune else None))
    print(f"{label:10s} {nat:7d} {backend:4s} {prec:6s} {float(m_t.group(1)):9.4f} us/atom-step",
          flush=True)


def cpu_row(label):
    return next((r for r in rows if r["label"] == label and r["backend"] == "cpu"), None)


lines = []
gpu = next((r["device"] for r in rows if r["backend"] == "cuda"), "none used")
cpu = next((r["device"] for r in rows if r["backend"] == "cpu"), "none used")
lines.append("# deepmd/pk on the GPU: cuda backend against the cpu backend (bench/deepmd_gpu.py)\n")
lines.append(f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; "
             f"host {platform.node()}, {os.cpu_count()} cores; GPU: {gpu}; CPU backend: {cpu}.\n")
lines.append(f"Command: `{shlex.join(sys.argv)}`; each run: untimed warm-up (one evaluation; "
             f"cuda: also the launch tuner's), best of {reps} (wall time of `pk_deepmd_compute` "
             f"with energy, forces and virial).\n")
lines.append("| system | atoms | backend | precision | µs/atom-step | vs cpu backend | "
             "vs paper V100 (double) | bytes/atom | energy check |")
lines.append("|---|---:|---|---|---:|---:|---:|---:|---|")
for r in rows:
    c = cpu_row(r["label"])
    ratio = f"{c['us'] / r['us']:.1f}x" if c and r["backend"] != "cpu" else ("1" if r["backend"] == "cpu" else "-")
    paper = PAPER_V100.get(r["model"])
    vs_paper = f"{paper / r['us']:.3g}x" if paper else "-"
    check = "-"
    if c and r["backend"] != "cpu":
        rel = abs(r["energy"] - c["energy"]) / max(abs(c["energy"]), 1e-300)
        tol = 1e-9 if r["prec"] == "double" else 1e-5
        check = f"{rel:.1e} {'ok' if rel <= tol else 'DIFFERS'}"
        if rel > tol:
            failures.append(f"{r['label']} {r['backend']} {r['prec']}: energy {r['energy']!r} vs "
                            f"cpu {c['energy']!r}")
    lines.append(f"| {r['label']} | {r['atoms']:,} | {r['backend']} | {r['prec']} | {r['us']:.4f} | "
                 f"{ratio} | {vs_paper} | {r['bytes'] / r['atoms']:.0f} | {check} |")
lines.append("")
lines.append("bytes/atom: `pk_deepmd_memory` (tables, workspaces and the backend's device and "
             "pinned buffers) over the owned atoms.\n")
tuned = [r for r in rows if r["tune"]]
if tuned:
    lines.append("Launch shapes (the cuda backend's tuner, during the warm-up):\n")
    lines += [f"- {r['label']} {r['prec']}: {r['tune']}" for r in tuned]
    lines.append("")
if skipped:
    lines.append(f"Not started (--max-seconds {args.max_seconds:g} used up): {', '.join(skipped)}.\n")
if failures:
    lines.append("Failures:\n")
    lines += [f"- {f}" for f in failures]
    lines.append("")
lines.append("Commands run:\n")
lines += [f"    {c}" for c in commands]
lines.append("")
with open(args.out, "w") as fh:
    fh.write("\n".join(lines))
print(f"wrote {args.out} in {time.time() - start:.0f} s")
sys.exit(1 if failures else 0)
