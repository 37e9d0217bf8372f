#!/usr/bin/env python3
"""mdpd/pk on the GPU against LAMMPS's GPU package (mdpd/gpu), side by side, on the LAMMPS
many-body DPD droplet example replicated to GPU-sized systems.

The input is examples/PACKAGES/dpd-meso/mdpd/in.mdpd from the LAMMPS tree (14,333 beads),
with `replicate A B C` inserted after create_atoms (--replicate 3: 3x3x3 = 386,991 beads;
5: 1,791,625) and `run 4000` cut to --steps; nothing else is changed. For each replica and
each MPI rank count (all ranks share the node's GPU), in one invocation:

  gpu     LAMMPS `hybrid/overlay mdpd/rhosum mdpd/gpu` through the GPU package in its default
          mixed precision: `-sf gpu -pk gpu 1 neigh no` (mdpd/rhosum has no GPU version and
          GPU neighbour lists are refused under hybrid, so LAMMPS builds them on the host)
  pk      `-sf pk` on the same input (mdpd/rhosum/pk + mdpd/pk), the plugin autoloaded
          through LAMMPS_PLUGIN_PATH, backend and precision chosen through the environment:
          PAIRKIT_BACKEND=cuda, PAIRKIT_PRECISION=double, then =mixed (unchanged input)

Every pk run must print "pair_style mdpd/pk: cuda backend, <precision> precision" and the gpu
run "Using acceleration for mdpd", else the bench stops: a plugin that did not load would
silently run LAMMPS's own style.

--backend cpu runs the same plumbing without a GPU: LAMMPS `mdpd` + `mdpd/rhosum` against
mdpd/pk with PAIRKIT_BACKEND=cpu (for checking this script on any machine).

Times come from LAMMPS's own breakdown (average over ranks), per atom-step of wall time.
The GPU package's pair style only launches its kernel; the wait for the forces falls under
Modify (fix GPU), so the table also shows Pair + Modify and compares that as well.

  bench/mdpd_gpu.py --lmp LMP --plugin-dir DIR --lammps-src SRC [--replicate 3 [5 ...]]
                    [--steps 300] [--ranks 1,8] [--backend cuda|cpu] [--ncu] [--out FILE]
"""
import argparse
import csv
import datetime
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--lmp", required=True, help="lmp binary (with the GPU package for --backend cuda)")
ap.add_argument("--plugin-dir", required=True, help="folder holding pairkitplugin.so")
ap.add_argument("--lammps-src", required=True, help="LAMMPS source tree (for the example input)")
ap.add_argument("--replicate", nargs="+", default=["3"],
                help="replicas: N (NxNxN) or AxBxC, several allowed (default 3)")
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--ranks", default="1,8", help="MPI rank counts, comma separated (default 1,8)")
ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
ap.add_argument("--precisions", default=None,
                help="mdpd/pk precisions (default: double,mixed for cuda, double for cpu)")
ap.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS per rank (default 1)")
ap.add_argument("--mpirun", default="mpirun")
ap.add_argument("--out", help="Markdown report (default: $OUT/mdpd_gpu.md when OUT is set, else "
                "bench/results/mdpd_gpu.md for cuda; none for cpu)")
ap.add_argument("--logdir", help="keep every run's input, output and log.lammps here")
ap.add_argument("--max-seconds", type=float, default=0,
                help="start no run after this many seconds; a running one is stopped (0: no limit)")
ap.add_argument("--ncu", action="store_true",
                help="also profile the mdpd kernels of each code with Nsight Compute on 1 rank")
ap.add_argument("--ncu-steps", type=int, default=10)
ap.add_argument("--ncu-kernels", default="mdpd",
                help="regex on demangled kernel names (default 'mdpd': LAMMPS's k_mdpd*, and "
                     "PairKit's kernels whose name or arguments mention mdpd)")
ap.add_argument("--ncu-count", type=int, default=20, help="kernel launches profiled per code")
ap.add_argument("--ncu-skip", type=int, default=6, help="matching launches skipped first (warm-up)")
opt = ap.parse_args()

T0 = time.time()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ranks_list = [int(r) for r in opt.ranks.split(",") if r.strip()]
precisions = (opt.precisions or ("double,mixed" if opt.backend == "cuda" else "double")).split(",")
if opt.out is None:
    if os.environ.get("OUT"):
        opt.out = os.path.join(os.environ["OUT"], "mdpd_gpu.md")
    elif opt.backend == "cuda":
        opt.out = os.path.join(REPO, "bench", "results", "mdpd_gpu.md")
lmp = os.path.abspath(shutil.which(opt.lmp) or opt.lmp)
plugin_dir = os.path.abspath(opt.plugin_dir)   # relative paths make LAMMPS skip the plugin silently
if not os.path.isfile(os.path.join(plugin_dir, "pairkitplugin.so")):
    sys.exit(f"mdpd_gpu.py: no pairkitplugin.so in {plugin_dir}")
logdir = os.path.abspath(opt.logdir) if opt.logdir else tempfile.mkdtemp(prefix="pk-mdpd-gpu-")
os.makedirs(logdir, exist_ok=True)


def parse_replica(text):
    parts = [int(p) for p in re.split(r"[x,]", text.lower())]
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3 or min(parts) < 1:
        sys.exit(f"mdpd_gpu.py: --replicate {text!r}: expected N or AxBxC")
    return tuple(parts)


with open(os.path.join(opt.lammps_src, "examples/PACKAGES/dpd-meso/mdpd/in.mdpd")) as fh:
    EXAMPLE = fh.read()


def make_input(rep, steps):
    text, n = re.subn(r"^run\s+4000\s*$", f"run {steps}", EXAMPLE, flags=re.M)
    text, m = re.subn(r"^(create_atoms\s.*)$", r"\1\nreplicate %d %d %d" % rep, text, count=1, flags=re.M)
    if n != 1 or m != 1:
        sys.exit("mdpd_gpu.py: the example input changed shape (no 'run 4000' or 'create_atoms')")
    return text


def sh(cmd):
    """Output of a command for the report, or a note that it failed."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"({' '.join(cmd)}: {exc})"


def remaining():
    return opt.max_seconds - (time.time() - T0) if opt.max_seconds > 0 else None


class Skipped(Exception):
    pass


# ---- one LAMMPS run -------------------------------------------------------------------------
SECTIONS = ("Pair", "Neigh", "Comm", "Output", "Modify", "Other")


def parse_output(out):
    loop = re.search(r"Loop time of ([\d.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", out)
    if not loop:
        return None
    res = {"loop_s": float(loop.group(1)), "procs": int(loop.group(2)),
           "steps": int(loop.group(3)), "atoms": int(loop.group(4))}
    # "Pair    | min | avg | max | %varavg | %total"; "Other   |     | avg |  ..." (avg is field 2)
    for name in SECTIONS:
        m = re.search(rf"^{name}\s*\|([^\n]*)$", out, flags=re.M)
        fields = m.group(1).split("|") if m else []
        res[name] = float(fields[1]) if len(fields) > 1 and fields[1].strip() else 0.0
    for key, label in (("dev_force_s", "Force calc"), ("dev_transfer_s", "Data Transfer"),
                       ("dev_nbor_copy_s", "Neighbor copy")):
        m = re.search(rf"^{label}:\s+([\d.eE+-]+) s\.", out, flags=re.M)
        res[key] = float(m.group(1)) if m else None
    return res


def run_lammps(name, script, nranks, args, env_extra, check, prefix=()):
    """Run lmp on `script`; return the parsed timings and the whole output."""
    left = remaining()
    if left is not None and left < 20:
        raise Skipped(f"{name}: not started, the time budget (--max-seconds) is spent")
    work = os.path.join(logdir, name)
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "in.mdpd"), "w") as fh:
        fh.write(script)
    cmd = [*prefix, lmp, "-nocite", "-log", "log.lammps", "-in", "in.mdpd", *args]
    if nranks > 1:
        cmd = [opt.mpirun, "-np", str(nranks), *cmd]
    env = dict(os.environ, OMP_NUM_THREADS=str(opt.threads),
               # OpenMPI: allow root (GPU nodes run commands as root) and more ranks than cores
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    for key in ("LAMMPS_PLUGIN_PATH", "PAIRKIT_BACKEND", "PAIRKIT_PRECISION"):
        env.pop(key, None)
    env.update(env_extra)
    print(f"[mdpd_gpu] {name}: {shlex.join(cmd)}  ({' '.join(f'{k}={v}' for k, v in env_extra.items())})",
          flush=True)
    t = time.time()
    # Own process group, so that a run stopped at the time budget takes its MPI ranks with it
    # (no rank left holding the GPU).
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=None if left is None else max(left - 5, 1))
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
                out, _ = proc.communicate(timeout=wait)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                out = ""
        with open(os.path.join(work, "output.txt"), "w") as fh:
            fh.write(out or "")
        raise Skipped(f"{name}: stopped at the time budget (--max-seconds) after {time.time() - t:.0f} s")
    wall = time.time() - t
    with open(os.path.join(work, "output.txt"), "w") as fh:
        fh.write(out)
    res = parse_output(out)
    if proc.returncode != 0 and res is not None and re.search(r"Total wall time", out):
        # LAMMPS with the GPU package can crash at exit after a complete run (DESIGN.md §8)
        print(f"[mdpd_gpu] {name}: exit code {proc.returncode} after a complete run (ignored)", flush=True)
    elif proc.returncode != 0 or res is None:
        tail = "\n".join(out.splitlines()[-30:])
        sys.exit(f"mdpd_gpu.py: {name} failed (exit {proc.returncode}); output in {work}:\n{tail}")
    m = re.search(check, out, flags=re.M)
    if not m:
        sys.exit(f"mdpd_gpu.py: {name}: the log lacks /{check}/ - the intended style did not run "
                 f"(plugin not loaded, wrong backend or precision); output in {work}/output.txt")
    res.update(name=name, wall_s=wall, logline=m.group(0).strip(), output=out)
    print(f"[mdpd_gpu] {name}: loop {res['loop_s']:.3f} s, pair {res['Pair']:.3f} s, "
          f"process {wall:.1f} s", flush=True)
    return res


def us(res, seconds):
    return 1e6 * seconds / (res["atoms"] * res["steps"])


# ---- the runs ---------------------------------------------------------------------------------
plugin_env = {"LAMMPS_PLUGIN_PATH": plugin_dir}
if opt.backend == "cuda":
    ref_code, ref_label = "gpu", "LAMMPS mdpd/gpu (GPU package)"
    ref_args = ["-sf", "gpu", "-pk", "gpu", "1", "neigh", "no"]
    ref_check = r"Using acceleration for mdpd:.*"
    ref_precision = "mixed (GPU package default)"
else:
    ref_code, ref_label = "lammps", "LAMMPS mdpd + mdpd/rhosum"
    ref_args, ref_check, ref_precision = [], r"^Loop time of .*", "double"


def pk_check(precision):
    backend = r"(?:cpu|portable C)" if opt.backend == "cpu" else "cuda"
    return rf"pair_style mdpd/pk: {backend} backend, {precision} precision.*"


rows, notes, skipped, ncu_table = [], [], [], []


def report_text():
    gpu = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv"]) \
        if shutil.which("nvidia-smi") else "(no nvidia-smi)"
    nvcc = sh(["nvcc", "--version"]).splitlines()[-2:] if shutil.which("nvcc") else ["(no nvcc)"]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.processor())
    commit = sh(["git", "-C", REPO, "describe", "--always", "--dirty"])
    title = "mdpd/pk on the GPU vs LAMMPS mdpd/gpu" if opt.backend == "cuda" else \
        "mdpd/pk (cpu backend) vs LAMMPS mdpd: plumbing check of bench/mdpd_gpu.py"
    lines = [f"# {title} ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC)",
             "",
             f"Input: LAMMPS `examples/PACKAGES/dpd-meso/mdpd/in.mdpd` (droplet, 14,333 beads) with "
             f"`replicate`, {opt.steps} steps, unchanged otherwise. Backend under test: {opt.backend}.",
             f"Reference: {ref_label} ({' '.join(ref_args) or 'no suffix'}); "
             f"PairKit: `-sf pk`, PAIRKIT_BACKEND={opt.backend}, PAIRKIT_PRECISION=<precision>.",
             f"{opt.threads} OpenMP thread(s) per rank"
             + ("; all ranks share one GPU." if opt.backend == "cuda" else "."), "",
             "Times per atom-step of wall time (µs), from LAMMPS's breakdown (average over ranks). "
             "`pair+mod` = Pair + Modify: the GPU package waits for its forces in fix GPU (Modify), "
             "so its Pair alone is only the launch; Modify also holds the integrator (fix mvv/dpd) "
             "in every row. Ratios: reference ÷ mdpd/pk (> 1: mdpd/pk faster).", "",
             "| beads | ranks | code | precision | pair | pair+mod | neigh | comm | loop | atom-steps/s "
             "| ratio pair | ratio pair+mod | ratio loop |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['atoms']:,} | {r['procs']} | {r['code']} | {r['precision']} | "
                     f"{us(r, r['Pair']):.4f} | {us(r, r['Pair'] + r['Modify']):.4f} | "
                     f"{us(r, r['Neigh']):.4f} | {us(r, r['Comm']):.4f} | {us(r, r['loop_s']):.4f} | "
                     f"{r['atoms'] * r['steps'] / r['loop_s'] / 1e6:.2f} M | {r['ratio_pair']} | "
                     f"{r['ratio_pm']} | {r['ratio_loop']} |")
    lines.append("")
    for s in skipped:
        lines.append(f"- NOT RUN: {s}")
    lines += [f"- {n}" for n in notes]
    lines += ncu_table
    lines += ["", "Machine:", "", "```", f"GPU: {gpu}", *("nvcc: " + l for l in nvcc),
              f"CPU: {cpu}, {os.cpu_count()} logical cores; host {platform.node()}",
              f"LAMMPS: {lmp}", f"PairKit: {commit}; plugin {plugin_dir}/pairkitplugin.so",
              f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%S} UTC",
              f"command: {shlex.join([sys.argv[0], *sys.argv[1:]])}", "```", ""]
    return "\n".join(lines)


def write_report():
    text = report_text()
    if opt.out:
        os.makedirs(os.path.dirname(os.path.abspath(opt.out)), exist_ok=True)
        with open(opt.out, "w") as fh:
            fh.write(text)
    return text


def ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "-"


try:
    for rep_text in opt.replicate:
        rep = parse_replica(rep_text)
        script = make_input(rep, opt.steps)
        tag = "x".join(map(str, rep))
        for n in ranks_list:
            ref = run_lammps(f"{tag}-np{n}-{ref_code}", script, n, ref_args, {}, ref_check)
            ref.update(code=ref_label, precision=ref_precision, ratio_pair="1.00", ratio_pm="1.00",
                       ratio_loop="1.00")
            rows.append(ref)
            if ref.get("dev_force_s") is not None:
                notes.append(f"{ref['atoms']:,} beads, {n} rank(s), GPU package device times: force "
                             f"{us(ref, ref['dev_force_s']):.4f}, data transfer "
                             f"{us(ref, ref['dev_transfer_s'] or 0):.4f}, neighbour copy "
                             f"{us(ref, ref['dev_nbor_copy_s'] or 0):.4f} µs/atom-step")
            write_report()
            for prec in precisions:
                res = run_lammps(f"{tag}-np{n}-pk-{opt.backend}-{prec}", script, n, ["-sf", "pk"],
                                 dict(plugin_env, PAIRKIT_BACKEND=opt.backend, PAIRKIT_PRECISION=prec),
                                 pk_check(prec))
                res.update(code=f"mdpd/pk {opt.backend}", precision=prec,
                           ratio_pair=ratio(ref["Pair"], res["Pair"]),
                           ratio_pm=ratio(ref["Pair"] + ref["Modify"], res["Pair"] + res["Modify"]),
                           ratio_loop=ratio(ref["loop_s"], res["loop_s"]))
                rows.append(res)
                if n == ranks_list[0] and rep_text == opt.replicate[0]:
                    notes.append(f"log line ({prec}, {n} rank(s)): `{res['logline']}`")
                write_report()
except Skipped as exc:
    skipped.append(str(exc))
    write_report()


# ---- Nsight Compute: achieved DRAM and SM throughput of the mdpd kernels --------------------
def parse_ncu_csv(path):
    """{kernel name: {"ids": launch ids, metric name: [values]}} from `ncu --csv --log-file`."""
    per = {}
    with open(path) as fh:
        lines = [l for l in fh if l.startswith('"')]      # drop ==PROF== and program lines
    for row in csv.DictReader(lines):
        kname = re.sub(r"\(.*", "", row.get("Kernel Name", "?"))
        d = per.setdefault(kname, {"ids": set()})
        d["ids"].add(row.get("ID"))
        try:
            d.setdefault(row["Metric Name"], []).append(float(row["Metric Value"].replace(",", "")))
        except (KeyError, ValueError):
            pass
    return per


def ncu_profile():
    ncu = shutil.which("ncu")
    if not ncu:
        notes.append("--ncu: ncu not found on PATH; no kernel profile")
        return
    metrics = ["gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               "sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes.sum"]
    rep = parse_replica(opt.replicate[0])
    script = make_input(rep, opt.ncu_steps)
    codes = [(ref_code, ref_args, {}, ref_check, ref_precision)]
    codes += [(f"pk-{opt.backend}-{p}", ["-sf", "pk"],
               dict(plugin_env, PAIRKIT_BACKEND=opt.backend, PAIRKIT_PRECISION=p), pk_check(p), p)
              for p in precisions]
    table = ["", f"Nsight Compute, {'x'.join(map(str, rep))} replica, 1 rank, {opt.ncu_steps} steps, "
             f"kernels /{opt.ncu_kernels}/ (demangled), {opt.ncu_count} launches after skipping "
             f"{opt.ncu_skip} (ncu's default clock control: base clocks):", "",
             "| code | precision | kernel | launches | mean µs | DRAM % of peak | SM % of peak | DRAM GB/s |",
             "|---|---|---|---|---|---|---|---|"]
    for code, args, env, check, prec in codes:
        name = f"ncu-{code}"
        csv_path = os.path.join(logdir, f"{name}.csv")
        prefix = [ncu, "--csv", "--print-units", "base", "--log-file", csv_path,
                  "--metrics", ",".join(metrics), "--kernel-name-base", "demangled",
                  "--kernel-name", f"regex:{opt.ncu_kernels}", "-s", str(opt.ncu_skip),
                  "-c", str(opt.ncu_count)]
        run_lammps(name, script, 1, args, env, check, prefix=prefix)
        per = parse_ncu_csv(csv_path)
        if not per:
            table.append(f"| {code} | {prec} | (no kernel matched) | 0 | | | | |")
        for kname, d in sorted(per.items()):
            def mean(key):
                vals = d.get(key, [])
                return sum(vals) / len(vals) if vals else float("nan")
            t_ns, nbytes = mean(metrics[0]), mean(metrics[3])
            table.append(f"| {code} | {prec} | `{kname}` | {len(d['ids'])} | {t_ns / 1e3:.1f} | "
                         f"{mean(metrics[1]):.1f} | {mean(metrics[2]):.1f} | {nbytes / t_ns:.0f} |")
    ncu_table[:] = table


if opt.ncu and not skipped:
    try:
        ncu_profile()
    except Skipped as exc:
        skipped.append(str(exc))

text = write_report()
print(text)
if opt.out:
    print(f"[mdpd_gpu] report written to {opt.out}; run logs in {logdir}")
if skipped:
    sys.exit("mdpd_gpu.py: incomplete (time budget): " + "; ".join(skipped))
