#!/usr/bin/env python3
"""deepmd/pk beside DeePMD-kit's own LAMMPS plugin, same models, same boxes (issue 19).

Models: tools/deepmd_synthetic_model.py water / copper (the shapes of Guo et al., PPoPP'22;
see bench/deepmd_tabulation.py), converted for DeePMD-kit with `dp convert-backend
model.yaml model.pb` (TensorFlow) and compressed with `dp --tf compress -s 0.01` (DeePMD-kit's
tabulated embedding nets, the same table step as deepmd/pk's default). `dp compress` needs
the smallest neighbour distance of a training set: this script writes one (a few frames of
the bench box with seeded displacements of up to 0.1 A, deepmd/npy format, energies and
forces zero: only the coordinates are read) beside an input.json whose model section is the
model's own model_def_script.

Boxes: water, 8^3 molecules at 1 g/cm^3 (1536 atoms, tools/water_box.py, 0.5 fs steps);
copper, fcc a = 3.634 A, 8^3 cells (2048 atoms, 1 fs steps). NVE from 300 K.

Runs, for each box and each core count N: DeePMD-kit `pair_style deepmd` with the compressed
and the uncompressed .pb, deepmd/pk tabulated (table_step 0.01, its default) and exact, one
LAMMPS invocation each, in turn, --repeat times (alternating); the figure is the median of
the LAMMPS `Pair` time per atom-step. Each invocation is pinned to cores 0..N-1 (taskset):
deepmd/pk as 1 MPI rank of N OpenMP threads; DeePMD-kit as N MPI ranks (its wheel's mpirun)
of one thread each (OMP_NUM_THREADS = DP_INTRA_OP_PARALLELISM_THREADS =
DP_INTER_OP_PARALLELISM_THREADS = 1), as its documentation advises for CPUs: one rank of 2
TensorFlow/OpenMP threads ran the compressed copper model slower than one core here. Each
timed command runs under `flock /tmp/pk-bench.lock` so that benchmarks of several people on
one machine do not overlap; the 1-minute load average before each is reported. Every log
must show what ran: deepmd/pk's `deepmd/pk: ...` line (with its embedding tables, or
without for exact), DeePMD-kit's module summary naming the model file, its thread settings
and the rank count; a run that does not is an error. The starting box's potential energy of
each is in the table (the two codes evaluate the same model on the same atoms).

  bench/deepmd_peer.py --lmp LMP --plugin-dir DIR [--dp-venv DIR] [--steps N]
                       [--exact-steps N] [--repeat 3] [--cores 1,2] [--work DIR] [--out FILE]

--dp-venv is a virtual environment with `pip install "deepmd-kit[cpu,lmp]"` (its bin/ holds
dp and lmp). --work keeps the converted models between invocations (conversion and
compression take minutes).
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import statistics
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import deepmd_synthetic_model  # noqa: E402
import water_box  # noqa: E402

LOCK = "/tmp/pk-bench.lock"
COPPER_A, COPPER_N = 3.634, 8

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True, help="the LAMMPS that loads the PairKit plugin")
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--dp-venv", default=os.path.expanduser("~/.cache/pairkit/dpvenv"))
ap.add_argument("--steps", type=int, default=10, help="steps of the tabulated/compressed runs")
ap.add_argument("--exact-steps", type=int, default=2, help="steps of the exact/uncompressed runs")
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--cores", default="1,2")
ap.add_argument("--systems", default="water,copper")
ap.add_argument("--work")
ap.add_argument("--out")
opt = ap.parse_args()
work = os.path.abspath(opt.work) if opt.work else tempfile.mkdtemp(prefix="pk-bench-dppeer-")
os.makedirs(work, exist_ok=True)
plugin = os.path.abspath(os.path.join(opt.plugin_dir, "pairkitplugin.so"))
DP = os.path.join(opt.dp_venv, "bin", "dp")
DP_LMP = os.path.join(opt.dp_venv, "bin", "lmp")
QUIET = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
loads = []      # 1-minute load average before each timed run


# ---- the boxes ---------------------------------------------------------------------------

def water_atoms():
    """(box length, [(model type, x, y, z)]): the box of tools/water_box.py data_text(8)."""
    side, atoms = water_box.molecules(8)
    return side, [(t - 1, x, y, z) for t, x, y, z in atoms]


def copper_atoms():
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    n, a = COPPER_N, COPPER_A
    return n * a, [(0, (i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a)
                   for i in range(n) for j in range(n) for k in range(n) for b in basis]


SYSTEMS = {
    "water": dict(atoms=water_atoms, elements="O H", dt=0.0005, setup="read_data water.data"),
    "copper": dict(atoms=copper_atoms, elements="Cu", dt=0.001, setup=f"""
lattice fcc {COPPER_A}
region box block 0 {COPPER_N} 0 {COPPER_N} 0 {COPPER_N}
create_box 1 box
create_atoms 1 box
mass 1 63.546"""),
}


# ---- a training set for `dp compress` (deepmd/npy) ----------------------------------------

def write_npy(path, rows):
    """A float64 or int32 2-D array in NumPy's .npy format, version 1.0 (no NumPy here)."""
    kind = "<i4" if isinstance(rows[0][0], int) else "<f8"
    header = f"{{'descr': '{kind}', 'fortran_order': False, 'shape': ({len(rows)}, " \
             f"{len(rows[0])}), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"     # total a multiple of 64
    with open(path, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        for r in rows:
            fh.write(struct.pack(f"<{len(r)}{'i' if kind == '<i4' else 'd'}", *r))


def training_set(name, directory, frames=4, shake=0.1, seed=7):
    """`frames` copies of the bench box, each atom displaced by up to `shake` A per axis."""
    side, atoms = SYSTEMS[name]["atoms"]()
    rng = random.Random(seed)
    os.makedirs(os.path.join(directory, "set.000"), exist_ok=True)
    with open(os.path.join(directory, "type.raw"), "w") as fh:
        fh.write("\n".join(str(a[0]) for a in atoms) + "\n")
    type_map = deepmd_synthetic_model.MODELS[name]["type_map"]
    with open(os.path.join(directory, "type_map.raw"), "w") as fh:
        fh.write("\n".join(type_map) + "\n")
    coord = [[c + rng.uniform(-shake, shake) for a in atoms for c in a[1:]]
             for _ in range(frames)]
    put = lambda what, rows: write_npy(os.path.join(directory, "set.000", what), rows)
    put("coord.npy", coord)
    put("box.npy", [[side, 0.0, 0.0, 0.0, side, 0.0, 0.0, 0.0, side]] * frames)
    put("energy.npy", [[0.0]] * frames)
    put("force.npy", [[0.0] * (3 * len(atoms))] * frames)


def dp(*args):
    proc = subprocess.run([DP, *args], cwd=work, env=QUIET, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if proc.returncode:
        sys.exit(f"dp {' '.join(args)} failed:\n{proc.stdout[-4000:]}")


def prepare(name):
    """model.yaml (ours), model.pb and model-compressed.pb (DeePMD-kit's)."""
    yaml, pb, cpb = (os.path.join(work, f"{name}{s}") for s in
                     (".yaml", ".pb", "-compressed.pb"))
    if not os.path.exists(yaml):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deepmd_synthetic_model.py"),
                        name, yaml], check=True)
    if not os.path.exists(pb):
        dp("convert-backend", os.path.basename(yaml), os.path.basename(pb))
    if not os.path.exists(cpb):
        data = os.path.join(work, f"{name}-frames")
        training_set(name, data)
        script = os.path.join(work, f"{name}-input.json")
        cfg = deepmd_synthetic_model.MODELS[name]
        with open(script, "w") as fh:
            json.dump({"model": deepmd_synthetic_model.model_def_script(cfg),
                       "training": {"training_data": {"systems": [data], "batch_size": 1},
                                    "numb_steps": 0},
                       # required keys; compression trains nothing
                       "learning_rate": {"type": "exp", "start_lr": 1e-3, "stop_lr": 1e-8,
                                         "decay_steps": 5000}}, fh, indent=1)
        dp("--tf", "compress", "-i", os.path.basename(pb), "-o", os.path.basename(cpb),
           "-s", "0.01", "-t", os.path.basename(script))
    return yaml, pb, cpb


# ---- the runs ----------------------------------------------------------------------------

def script(name, pair, steps, load_plugin):
    s = SYSTEMS[name]
    return f"""
{'plugin load ' + plugin if load_plugin else ''}
units metal
atom_style atomic
atom_modify map yes
{s['setup']}
{pair}
pair_coeff * * {s['elements']}
timestep {s['dt']}
velocity all create 300 4928 mom yes rot yes dist gaussian
fix 1 all nve
thermo {steps}
run {steps}
"""


def run_lammps(lmp, text, cores, ranks=1):
    """One LAMMPS run pinned to cores 0..cores-1: `ranks` MPI ranks (DeePMD-kit's mpirun) of
    cores / ranks threads each."""
    path = os.path.join(work, "in.bench")
    with open(path, "w") as fh:
        fh.write(text)
    threads = str(cores // ranks)
    env = dict(QUIET, OMP_NUM_THREADS=threads, OMP_WAIT_POLICY="passive",
               DP_INTRA_OP_PARALLELISM_THREADS=threads, DP_INTER_OP_PARALLELISM_THREADS="1")
    mpi = [os.path.join(opt.dp_venv, "bin", "mpirun"), "-np", str(ranks)] if ranks > 1 else []
    loads.append(os.getloadavg()[0])
    cmd = ["flock", LOCK, "taskset", "-c", ",".join(str(c) for c in range(cores)), *mpi, lmp,
           "-nocite", "-log", "none", "-in", path]
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}")
    return proc.stdout


def measure(name, code, kernel, model, threads):
    steps = opt.steps if kernel in ("compressed", "tabulated") else opt.exact_steps
    if code == "deepmd/pk":
        pair = f"pair_style deepmd/pk {model}{' tabulate no' if kernel == 'exact' else ''}"
        out = run_lammps(opt.lmp, script(name, pair, steps, True), threads)
        info = re.search(r"^deepmd/pk: .*$", out, flags=re.M)
        if not info or ("embedding table" in out) != (kernel == "tabulated"):
            sys.exit(f"deepmd/pk did not log the {kernel} kernel:\n{out[-3000:]}")
    else:
        # N cores: N MPI ranks of one thread, as DeePMD-kit advises for CPUs (one rank of N
        # TensorFlow/OpenMP threads was measured slower than one core for the compressed model)
        out = run_lammps(DP_LMP, script(name, f"pair_style deepmd {model}", steps, False),
                         threads, ranks=threads)
        if "Summary of lammps deepmd module" not in out or \
                not re.search(rf"using\s+1 model\(s\): {re.escape(model)}", out) or \
                "set tf intra_op_parallelism_threads: 1" not in out or \
                f"with {threads} MPI tasks x 1 OpenMP threads" not in out:
            sys.exit(f"DeePMD-kit's pair_style deepmd did not run:\n{out[-3000:]}")
    loop = re.search(r"Loop time of \S+ on \d+ procs for (\d+) steps with (\d+) atoms", out)
    pair_s = float(re.search(r"^Pair\s+\|\s+\S+\s+\|\s+(\S+)", out, flags=re.M).group(1))
    e0 = float(re.search(r"^\s*Step\s+Temp\s+E_pair.*\n\s*0\s+\S+\s+(\S+)", out,
                         flags=re.M).group(1))
    return 1e6 * pair_s / (int(loop.group(1)) * int(loop.group(2))), int(loop.group(2)), e0, out


def versions(out_dp, out_pk):
    dpv = re.search(r"Info of deepmd-kit:.*?source:\s+(\S+).*?source commit:\s+(\S+)", out_dp,
                    flags=re.S)
    dpv = f"{dpv.group(1)} (commit {dpv.group(2)})" if dpv else "?"
    lmp_dp = re.search(r"LAMMPS \((.*?)\)", out_dp)
    lmp_pk = re.search(r"LAMMPS \((.*?)\)", out_pk)
    return dpv, lmp_dp.group(1) if lmp_dp else "?", lmp_pk.group(1) if lmp_pk else "?"


def git_commit():
    proc = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src",
                            ":!src/cuda"],
                           capture_output=True, text=True).stdout.strip()
    return proc.stdout.strip() + (" (src modified)" if dirty else "")


VARIANTS = [("DeePMD-kit", "compressed"), ("deepmd/pk", "tabulated"),
            ("DeePMD-kit", "uncompressed"), ("deepmd/pk", "exact")]

times, atoms, logs, energy = {}, {}, {}, {}
for name in opt.systems.split(","):
    yaml, pb, cpb = prepare(name)
    model = {"compressed": cpb, "uncompressed": pb, "tabulated": yaml, "exact": yaml}
    for threads in (int(t) for t in opt.cores.split(",")):
        for _ in range(opt.repeat):
            for code, kernel in VARIANTS:
                us, n, e0, out = measure(name, code, kernel, model[kernel], threads)
                times.setdefault((name, threads, code, kernel), []).append(us)
                energy[(name, code, kernel)] = e0
                atoms[name], logs[code] = n, out
                print(f"{name} {threads}c {code} {kernel}: {us:.1f} us/atom-step", flush=True)

dpv, lmp_dp, lmp_pk = versions(logs["DeePMD-kit"], logs["deepmd/pk"])
med = {k: statistics.median(v) for k, v in times.items()}
lines = [f"# deepmd/pk beside DeePMD-kit ({datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC)", "",
         f"Machine: {platform.node()}, {platform.processor() or platform.machine()}, "
         f"{os.cpu_count()} cores; commit {git_commit()}.",
         f"DeePMD-kit: {dpv} (TensorFlow CPU, its LAMMPS {lmp_dp}); deepmd/pk in LAMMPS "
         f"{lmp_pk}.",
         f"Load average (1 min) before the timed runs: min {min(loads):.2f}, median "
         f"{statistics.median(loads):.2f}, max {max(loads):.2f} (2 is this machine full).", "",
         f"Command: `bench/deepmd_peer.py --steps {opt.steps} --exact-steps {opt.exact_steps} "
         f"--repeat {opt.repeat} --cores {opt.cores} ...` (see bench/README.md)", "",
         "LAMMPS `Pair` time per atom-step, median of "
         f"{opt.repeat} alternating runs (each run's figure under \"runs\");",
         "ratio = DeePMD-kit's time / ours against the same kind (compressed vs tabulated, "
         "uncompressed vs exact). E0: the potential energy of the starting box (eV, LAMMPS's "
         "thermo digits), the check that both codes ran the same model on the same atoms.", "",
         "| model | atoms | cores | code | kernel | µs/atom-step (pair) | runs | ratio | E0 |",
         "|---|---|---|---|---|---|---|---|---|"]
for (name, threads, code, kernel), v in times.items():
    peer = {"tabulated": "compressed", "exact": "uncompressed"}.get(kernel)
    mine = med[(name, threads, code, kernel)]
    ratio = f"**{med[(name, threads, 'DeePMD-kit', peer)] / mine:.2f}×**" if peer else ""
    lines.append(f"| {name} | {atoms[name]} | {threads} | {code} | {kernel} | "
                 f"{mine:.1f} | "
                 f"{', '.join(f'{x:.1f}' for x in v)} | {ratio} | "
                 f"{energy[(name, code, kernel)]:.8g} |")
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    with open(opt.out, "w") as fh:
        fh.write(text)
