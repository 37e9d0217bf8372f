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

--memory-limit (issue 15: atoms per GPU at the memory limit) instead finds the largest copper
and water systems the cuda backend runs on one GPU (--limit-precision, default double): from
the sizes above, the atoms doubled while the run succeeds, then the cells per side bisected
until the first failing size is within --limit-resolution (default 10%) of the atoms of the
largest that ran (bench/memory_limit.py, whose dry check is ctest unit.bench_memory_limit).
A run that stops with the CUDA runtime's out-of-memory error is the limit; any other failure
is an error: it ends that system's search, the report lists it and the bench exits 1. Each
run: bench_deepmd's warm-up (25 evaluations with the launch tuner) and --reps (default 2)
more. The report gives the largest size that ran, its atoms, the backend's reported bytes
per atom (`pk_deepmd_memory` over the atoms, at that size and between the two largest that
ran), and the ratio of the copper atoms to the paper's 6.9k copper atoms on a V100 (the
limit issue 15 quotes; target >= 10x). --max-seconds bounds the whole mode (copper first,
then water, each with its share); runs near the limit take tens of seconds, so give it
several minutes. The limit is the whole GPU's, or, with --limit-cap-gb G, that of a GPU of
G GiB (PAIRKIT_GPU_MEMORY_CAP: 16 for the paper's V100, a like-for-like ratio).
--limit-backend cpu only checks the plumbing (the cpu backend does not run out of device
memory: growth stops at --limit-max-atoms).

  bench/deepmd_gpu.py --build DIR --out FILE.md --memory-limit [--max-seconds 400]
                      [--limit-precision double] [--limit-resolution 0.1] [--reps 2]
                      [--limit-cap-gb 16]
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
ap.add_argument("--memory-limit", action="store_true",
                help="find the largest copper and water systems that fit on the GPU")
ap.add_argument("--limit-precision", default="double", help="--memory-limit: double or mixed")
ap.add_argument("--limit-resolution", type=float, default=0.1,
                help="--memory-limit: stop bisecting within this fraction of the atoms")
ap.add_argument("--limit-max-atoms", type=int, default=20_000_000,
                help="--memory-limit: never run a larger system (host memory)")
ap.add_argument("--limit-backend", default="cuda",
                help="--memory-limit: cuda (cpu: a plumbing check)")
ap.add_argument("--limit-cap-gb", type=float, default=0.0,
                help="--memory-limit: hold the cuda backend to this many GiB of device memory "
                "(16: the paper's V100; default 0, the whole GPU)")
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


def memory_limit_mode():
    """--memory-limit: the search of bench/memory_limit.py over bench_deepmd runs; returns
    the exit status."""
    import memory_limit as ml
    prec, backend, mreps = args.limit_precision, args.limit_backend, args.reps or 2
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads if backend == "cpu" else 1))
    if args.limit_cap_gb > 0:
        env["PAIRKIT_GPU_MEMORY_CAP"] = str(int(args.limit_cap_gb * 2**30))
    bases = [systems[1], systems[0]]   # copper (the paper's figure) first, then water
    lines, commands, errors = [], [], []
    device = "?"
    for k, (label, mname, lattice, n0, _) in enumerate(bases):
        deadline = start + args.max_seconds * (k + 1) / len(bases)

        def atoms(n, lattice=lattice):
            return (4 if lattice == "fcc" else 3) * n ** 3
        done = {}   # n -> (atoms, bytes, us/atom-step) of the runs that ran

        def runs(n, mname=mname, lattice=lattice, done=done):
            nonlocal device
            cmd = [exe, model(mname), "1", str(n), str(mreps), backend, prec, lattice]
            commands.append(f"OMP_NUM_THREADS={env['OMP_NUM_THREADS']} " + shlex.join(cmd))
            try:
                p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                   timeout=max(5.0, deadline + 8 - time.time()))
            except subprocess.TimeoutExpired as e:
                raise ml.OutOfTime(f"timed out after {e.timeout:.0f} s")
            out = p.stdout + p.stderr
            if p.returncode != 0:
                if ml.out_of_memory(out):
                    print(f"{label:7s} n {n:4d} {atoms(n):10,d} atoms: out of memory", flush=True)
                    return False
                raise RuntimeError(f"{label} n {n}: exit {p.returncode}: {out.strip()[-400:]}")
            m_be = re.search(r"^backend (\S+)\s+precision (\S+)\s+device (.*)$", out, re.M)
            m_t = re.search(r"us/atom: wall (\S+)\s+cpu (\S+).*kernel bytes (\d+)", out)
            if not (m_be and m_t) or m_be.group(1) != backend or m_be.group(2) != prec:
                raise RuntimeError(f"{label} n {n}: not a {backend}/{prec} run: {out[-400:]}")
            device = m_be.group(3)
            done[n] = (atoms(n), int(m_t.group(3)), float(m_t.group(1)))
            print(f"{label:7s} n {n:4d} {atoms(n):10,d} atoms: ran, {done[n][1] / atoms(n):.0f} "
                  f"bytes/atom, {done[n][2]:.3f} us/atom-step", flush=True)
            return True
        try:
            res = ml.search(runs, n0, atoms, args.limit_max_atoms, args.limit_resolution,
                            lambda: time.time() > deadline)
        except RuntimeError as e:
            errors.append(str(e))
            continue
        if res.ok is None:
            lines.append(f"| {label} | - | - | - | - | - | n {res.bad}: {atoms(res.bad):,} (out "
                         f"of memory) | - |")
            continue
        nat, nbytes, us = done[res.ok]
        below = sorted(m for m in done if m < res.ok)
        marginal = (f"{(nbytes - done[below[-1]][1]) / (nat - done[below[-1]][0]):.0f}"
                    if below else "-")
        vs_paper = (f"{'' if res.bad is not None else '>= '}{nat / 6900:.1f}x"
                    if mname == "copper" else "-")
        upper = (f"n {res.bad}: {atoms(res.bad):,} (out of memory)" if res.bad is not None
                 else "none")
        if res.stopped:
            upper += f" (search stopped: {res.stopped})"
        lines.append(f"| {label} | {res.ok} | {nat:,} | {nbytes / nat:.0f} | {marginal} | "
                     f"{us:.3f} | {upper} | {vs_paper} |")
    report = ["# deepmd/pk: atoms per GPU at the memory limit "
              "(bench/deepmd_gpu.py --memory-limit)\n",
              f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; host "
              f"{platform.node()}; backend {backend}, precision {prec}; device {device}"
              + (f", held to {args.limit_cap_gb:g} GiB" if args.limit_cap_gb > 0 else "") + ".\n",
              f"Command: `{shlex.join(sys.argv)}`; each run: warm-up (cuda: with the launch "
              f"tuner) and {mreps} evaluations of energy, forces and virial.\n",
              "| system | cells per side | atoms (largest that ran) | bytes/atom there | "
              "bytes/atom marginal | µs/atom-step (there) | smallest that failed | vs paper V100 "
              "(copper 6.9k atoms) |", "|---|---:|---:|---:|---:|---:|---|---:|", *lines, "",
              "bytes/atom: `pk_deepmd_memory` (tables, workspaces, the backend's device and "
              "pinned buffers) over the atoms at the largest size that ran; marginal: its "
              "growth between the two largest sizes that ran over their atom difference "
              "(without the fixed tables). The paper's figure: 6.9k copper atoms per V100 "
              "(Guo et al., PPoPP'22, as issue 15 quotes it); the target is 10x.\n"]
    if errors:
        report += ["Errors (not out of memory):\n", *[f"- {e}" for e in errors], ""]
    report += ["Commands run:\n", *[f"    {c}" for c in commands], ""]
    with open(args.out, "w") as fh:
        fh.write("\n".join(report))
    print(f"wrote {args.out} in {time.time() - start:.0f} s")
    return 1 if errors else 0


if args.memory_limit:
    sys.exit(memory_limit_mode())

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
    if args.limit_cap_gb > 0:
        env["PAIRKIT_GPU_MEMORY_CAP"] = str(int(args.limit_cap_gb * 2**30))
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
