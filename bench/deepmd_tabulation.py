#!/usr/bin/env python3
"""deepmd/pk: exact vs tabulated kernel on the two model shapes of Guo et al. (PPoPP'22).

Models (tools/deepmd_synthetic_model.py, synthetic weights of the real shapes):
  water:  embedding [25, 50, 100], axis 16, fitting [240, 240, 240], rcut 6, sel [46, 92];
          8^3 molecules at 1 g/cm^3 (1536 atoms, tools/water_box.py), 0.5 fs steps
  copper: embedding [32, 64, 128], axis 16, fitting [240, 240, 240], rcut 8, sel [500];
          fcc a = 3.634 A, 8^3 cells (2048 atoms), 1 fs steps; and the same networks with
          sel [1000] (twice the padding) to show what the padding costs each kernel
Each run: LAMMPS, NVE from 300 K for --steps steps, 1 MPI rank, 1 and 2 OpenMP threads,
one process per kernel so that the peak memory is the kernel's. Reported: pair time per
atom-step, the speed ratio exact / tabulated, the pair style's own memory (tables and
scratch: LAMMPS's memory line minus that of the same input with pair_style zero and
the same full neighbour list) and
the peak resident set of the process; and the peak of a run that only loads the model.
With --callgrind, also instructions per atom-evaluation of each kernel on one thread (a
smaller box, one step; independent of machine load).

  bench/deepmd_tabulation.py --lmp LMP --plugin-dir DIR [--steps N] [--callgrind] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import water_box  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--steps", type=int, default=10)
ap.add_argument("--callgrind", action="store_true")
ap.add_argument("--out")
opt = ap.parse_args()
work = tempfile.mkdtemp(prefix="pk-bench-deepmd-")
plugin = os.path.abspath(os.path.join(opt.plugin_dir, "pairkitplugin.so"))


def generate(name, sel=None):
    path = os.path.join(work, f"{name}{'_sel' + sel if sel else ''}.yaml")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "deepmd_synthetic_model.py"), name, path]
    subprocess.run(cmd + (["--sel", sel] if sel else []), check=True)
    return path


with open(os.path.join(work, "water.data"), "w") as fh:
    fh.write(water_box.data_text(8))

SYSTEMS = {
    "water": dict(model=generate("water"), elements="O H", dt=0.0005, setup="read_data water.data"),
    "copper": dict(model=generate("copper"), elements="Cu", dt=0.001, setup="""
lattice fcc 3.634
region box block 0 8 0 8 0 8
create_box 1 box
create_atoms 1 box
mass 1 63.546"""),
}
SYSTEMS["copper, sel 1000"] = dict(SYSTEMS["copper"], model=generate("copper", "1000"))


def script(system, pair, steps, extra=""):
    s = SYSTEMS[system]
    return f"""
plugin load {plugin}
units metal
atom_style atomic
atom_modify map yes
{s['setup']}
{pair}
timestep {s['dt']}
velocity all create 300 4928 mom yes rot yes dist gaussian
fix 1 all nve
thermo {max(steps, 1)}
{extra}
run {steps}
info memory
"""


def lammps(text, threads, wrapper=()):
    path = os.path.join(work, "in.bench")
    with open(path, "w") as fh:
        fh.write(text)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    out = subprocess.run([*wrapper, opt.lmp, "-nocite", "-log", "none", "-in", path], cwd=work,
                         env=env, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True).stdout
    return out


def number(pattern, text):
    m = re.search(pattern, text, flags=re.M)
    return float(m.group(1)) if m else float("nan")


def measure(system, kernel, threads):
    s = SYSTEMS[system]
    pair = f"pair_style deepmd/pk {s['model']}{' tabulate no' if kernel == 'exact' else ''}\n" \
           f"pair_coeff * * {s['elements']}"
    out = lammps(script(system, pair, opt.steps), threads)
    loop = re.search(r"Loop time of ([\d.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", out)
    steps, atoms = int(loop.group(2)), int(loop.group(3))
    pair_s = number(r"^Pair\s+\|\s+[\d.eE+-]+\s+\|\s+([\d.eE+-]+)", out)
    return {"system": system, "kernel": kernel, "threads": threads, "atoms": atoms,
            "steps": steps, "pair_us": 1e6 * pair_s / (steps * atoms),
            "lmp_mb": number(r"Per MPI rank memory allocation \(min/avg/max\) = [\d.]+ \| "
                             r"([\d.]+)", out),
            "rss_mb": number(r"Maximum resident set size: ([\d.]+) Mbyte", out)}


def baseline(system):
    """LAMMPS's memory line with pair_style zero, and the peak of a run that loads the model
    and builds its tables but computes nothing."""
    s = SYSTEMS[system]
    out = lammps(script(system, f"pair_style zero {8.0 if 'copper' in system else 6.0} full\n"
                                "pair_coeff * *", 0), 1)
    zero = number(r"Per MPI rank memory allocation \(min/avg/max\) = [\d.]+ \| ([\d.]+)", out)
    text = f"""
plugin load {plugin}
units metal
atom_style atomic
{s['setup']}
pair_style deepmd/pk {s['model']}
pair_coeff * * {s['elements']}
info memory
"""
    load = number(r"Maximum resident set size: ([\d.]+) Mbyte", lammps(text, 1))
    return zero, load


def callgrind(system, kernel):
    """Instructions per atom in pk_deepmd_compute, one thread, a 2x2x2-cell or 64-molecule box
    (the setup evaluation plus one step)."""
    s = SYSTEMS[system]
    setup = s["setup"].replace("0 8 0 8 0 8", "0 4 0 4 0 4")
    if system == "water":
        with open(os.path.join(work, "small.data"), "w") as fh:
            fh.write(water_box.data_text(4))
        setup = "read_data small.data"
    pair = f"pair_style deepmd/pk {s['model']}{' tabulate no' if kernel == 'exact' else ''}\n" \
           f"pair_coeff * * {s['elements']}"
    text = script(system, pair, 1).replace(s["setup"], setup)
    cg = os.path.join(work, f"cg.{kernel}.out")
    out = lammps(text, 1, ["valgrind", "--tool=callgrind", "--collect-atstart=no",
                           "--toggle-collect=pk_deepmd_compute", f"--callgrind-out-file={cg}"])
    atoms = int(re.search(r"with (\d+) atoms", out).group(1))
    with open(cg) as fh:
        total = int(re.search(r"^summary: (\d+)", fh.read(), flags=re.M).group(1))
    return total / (2 * atoms)


rows, base = [], {}
for system in SYSTEMS:
    base[system] = baseline(system)
    for threads in (1, 2):
        pair = {k: measure(system, k, threads) for k in ("exact", "tabulated")}
        pair["tabulated"]["ratio"] = pair["exact"]["pair_us"] / pair["tabulated"]["pair_us"]
        rows += [pair["exact"], pair["tabulated"]]

lines = [f"# deepmd/pk: exact vs tabulated kernel ({datetime.date.today()})", "",
         f"Machine: {platform.node()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} cores; 1 MPI rank; load average before the run "
         f"{os.getloadavg()[0]:.1f}.", "",
         f"Command: `bench/deepmd_tabulation.py --steps {opt.steps}"
         f"{' --callgrind' if opt.callgrind else ''} ...` (see bench/README.md)", "",
         "| model | atoms | threads | kernel | µs/atom-step (pair) | speed-up | pair style MB | "
         "peak RSS MB |", "|---|---|---|---|---|---|---|---|"]
for r in rows:
    own = r["lmp_mb"] - base[r["system"]][0]
    lines.append(f"| {r['system']} | {r['atoms']} | {r['threads']} | {r['kernel']} | "
                 f"{r['pair_us']:.1f} | {r.get('ratio', 1.0):.2f} | {own:.1f} | "
                 f"{r['rss_mb']:.0f} |")
lines += ["", "Peak RSS of a run that only loads the model (YAML parse and tables): " +
          ", ".join(f"{k} {v[1]:.0f} MB" for k, v in base.items()) + "."]
if opt.callgrind:
    lines += ["", "| model | kernel | instructions per atom-evaluation | ratio |", "|---|---|---|---|"]
    for system in ("water", "copper"):
        ins = {k: callgrind(system, k) for k in ("exact", "tabulated")}
        for k in ins:
            lines.append(f"| {system} | {k} | {ins[k]:.3g} | "
                         f"{ins['exact'] / ins[k]:.2f} |")
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    with open(opt.out, "w") as fh:
        fh.write(text)
