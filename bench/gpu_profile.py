#!/usr/bin/env python3
"""Nsight Compute profile of one style's CUDA kernels on one evaluation of its C bench driver:
per kernel, the launches, GPU time, DRAM bytes and achieved bandwidth, and DRAM and SM
throughput as a percentage of the GPU's peak (ncu's speed-of-light metrics), so a note can
say whether a kernel is memory- or compute-bound, measured.

  bench/gpu_profile.py --build DIR --style deepmd|hdnnp|amoeba --out FILE.md [--count 60]
                       [--lmp LMP --lammps-src SRC]   (amoeba)

deepmd: bench_deepmd on the synthetic `water` model (tools/deepmd_synthetic_model.py), 16^3
molecules (12,288 atoms), tabulated, cuda double, one warm-up and one timed evaluation.
hdnnp: bench_hdnnp on n2p2's RPBE-D3 water replicated 4x4x4 (69,120 atoms; $PAIRKIT_SHARED
or ../shared), cuda double, one step. amoeba: LAMMPS (--lmp, with the plugin of --build) on
the examples/amoeba water box without Ewald replicated 3x3x4 (23,328 atoms), `amoeba/pk elec
lammps backend cuda`, `run 0`: one force evaluation, whose launches (~12 per PCG iteration)
--count must cover to reach the polarization forces at its end (default 400 for amoeba).
The clocks are left as they are (--clock-control none).
"""
import argparse
import csv
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

METRICS = ["gpu__time_duration.sum", "dram__bytes.sum",
           "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed"]

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--build", required=True, help="PairKit build tree with the C bench programs")
ap.add_argument("--style", required=True, choices=("deepmd", "hdnnp", "amoeba"))
ap.add_argument("--out", required=True)
ap.add_argument("--count", type=int, help="kernel launches profiled (default 60; amoeba 400)")
ap.add_argument("--lmp", help="amoeba: the lmp binary")
ap.add_argument("--lammps-src", help="amoeba: the LAMMPS source tree (its examples/amoeba)")
ap.add_argument("--timeout", type=float, default=120)
opt = ap.parse_args()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ncu = shutil.which("ncu")
if not ncu:
    sys.exit("gpu_profile.py: ncu not found on PATH")
tmp = tempfile.mkdtemp(prefix="pk-ncu-")
if opt.style == "deepmd":
    model = os.path.join(tmp, "water.yaml")
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "deepmd_synthetic_model.py"),
                    "water", model], check=True)
    program = [os.path.join(opt.build, "bench", "deepmd", "bench_deepmd"), model, "1", "16", "1",
               "cuda", "double", "water"]
elif opt.style == "hdnnp":
    program = [os.path.join(opt.build, "bench", "hdnnp", "bench_hdnnp"), "1", "4", "cuda", "double"]
else:
    if not (opt.lmp and opt.lammps_src):
        sys.exit("gpu_profile.py: --style amoeba needs --lmp and --lammps-src")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import amoeba_bench
    amoeba_bench.water_run(tmp, opt.lammps_src, (3, 3, 4),
                           "pair_style amoeba elec lammps backend cuda", 0)
    os.environ["LAMMPS_PLUGIN_PATH"] = os.path.join(os.path.abspath(opt.build), "src", "lammps")
    program = [opt.lmp, "-nocite", "-log", "none", "-in", os.path.join(tmp, "in.box"), "-sf", "pk"]
count = opt.count or (400 if opt.style == "amoeba" else 60)

csv_path = os.path.join(tmp, "ncu.csv")
cmd = [ncu, "--clock-control", "none", "--csv", "--log-file", csv_path,
       "--metrics", ",".join(METRICS), "--launch-count", str(count)] + program
run = subprocess.run(cmd, capture_output=True, text=True, timeout=opt.timeout, cwd=tmp)
if run.returncode != 0:
    sys.exit(f"gpu_profile.py: ncu failed ({run.returncode}):\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
backend = [l for l in run.stdout.splitlines() if "cuda" in l.lower()][:1]

per = {}
with open(csv_path) as fh:
    for row in csv.DictReader(l for l in fh if l.startswith('"')):
        name = re.sub(r"\(.*", "", row.get("Kernel Name", "?"))
        d = per.setdefault(name, {"ids": set()})
        d["ids"].add(row.get("ID"))
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        unit = row.get("Metric Unit", "")
        # times in ns, bytes in bytes, whatever unit ncu chose
        scale = {"usecond": 1e3, "msecond": 1e6, "second": 1e9, "Kbyte": 1e3, "Mbyte": 1e6,
                 "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}.get(unit, 1.0)
        d.setdefault(row["Metric Name"], []).append(value * scale)

total = sum(sum(d.get(METRICS[0], [])) for d in per.values()) or 1.0
lines = [f"# {opt.style}/pk cuda kernels under Nsight Compute ({datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC)", "",
         "Command: `" + " ".join(cmd[:1] + ["..."] + program[:1] + program[1:]) + "`",
         f"Program line: {backend[0] if backend else '(no line naming cuda)'}", "",
         "| kernel | launches | GPU time µs | share | DRAM MB | DRAM GB/s | DRAM % peak | SM % peak |",
         "|---|---|---|---|---|---|---|---|"]
for name, d in sorted(per.items(), key=lambda kv: -sum(kv[1].get(METRICS[0], []))):
    t = sum(d.get(METRICS[0], []))
    b = sum(d.get(METRICS[1], []))
    dram = d.get(METRICS[2], [])
    sm = d.get(METRICS[3], [])
    lines.append(f"| `{name}` | {len(d['ids'])} | {t / 1e3:.1f} | {100 * t / total:.0f}% | {b / 1e6:.1f} | "
                 f"{b / t if t else 0:.0f} | {max(dram) if dram else 0:.0f} | {max(sm) if sm else 0:.0f} |")
lines += ["", "DRAM and SM %: the largest over the kernel's launches; GB/s: bytes over time summed over them."]
with open(opt.out, "w") as fh:
    fh.write("\n".join(lines) + "\n")
print("\n".join(lines))
