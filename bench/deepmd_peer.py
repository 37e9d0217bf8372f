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

Boxes, for each n of --cells (default 8): water, n^3 molecules at 1 g/cm^3 (3 n^3 atoms, 1536
for n = 8, tools/water_box.py, 0.5 fs steps); copper, fcc a = 3.634 A, n^3 cells (4 n^3 atoms,
2048 for n = 8, 1 fs steps). NVE from 300 K.

Runs, for each box and each core count N of --cores (default 1,2; 'all' = this machine's):
DeePMD-kit `pair_style deepmd` with the compressed and the uncompressed .pb, deepmd/pk
tabulated (table_step 0.01, its default) and exact, one LAMMPS invocation each, in turn,
--repeat times (alternating); the uncompressed and exact kinds only on the first (smallest)
box of --cells. The figure is the median of the LAMMPS `Pair` time per atom-step. Each
invocation is pinned to cores 0..N-1 (taskset): deepmd/pk as 1 MPI rank of N OpenMP threads
and as N MPI ranks of one thread (--mpirun, the mpirun of the LAMMPS that --lmp is);
DeePMD-kit as N MPI ranks (its wheel's mpirun) of one thread each (OMP_NUM_THREADS =
DP_INTRA_OP_PARALLELISM_THREADS =
DP_INTER_OP_PARALLELISM_THREADS = 1), as its documentation advises for CPUs: one rank of 2
TensorFlow/OpenMP threads ran the compressed copper model slower than one core here. Each
timed command runs under /tmp/pk-bench.lock so that benchmarks of several people on one
machine do not overlap, and one that met other work on the cores it needed is repeated
(pk_scaling.run_timed, at most --tries runs); the 1-minute load average before each and the
other processes' work during the kept runs are reported. Every log
must show what ran: deepmd/pk's `deepmd/pk: ...` line (with its embedding tables, or
without for exact), DeePMD-kit's module summary naming the model file, its thread settings
and the rank count; a run that does not is an error. The starting box's potential energy of
each is in the table (the two codes evaluate the same model on the same atoms). Ratio: the
DeePMD-kit kind's time on as many cores over ours; efficiency: t(1 core) / (N t(N cores)) of
the same code, kernel and box. With --out, the table goes to the head of that file (earlier
contents kept below it) and a PNG of pair time against size beside it (--plot names another).
--precision float32 makes both codes run float32 twins of the models (the tool's
--precision float32; DeePMD-kit compresses them with float32 in its input script), named
name-float32.* in --work.

  bench/deepmd_peer.py --lmp LMP --plugin-dir DIR [--dp-venv DIR] [--steps N]
                       [--exact-steps N] [--repeat 3] [--cores 1,2|all] [--cells 8,12]
                       [--systems water,copper] [--mpirun CMD] [--tries N] [--work DIR]
                       [--out FILE] [--plot PNG]

--dp-venv is a virtual environment with `pip install "deepmd-kit[cpu,lmp]"` (its bin/ holds
dp and lmp). --work keeps the converted models between invocations (conversion and
compression take minutes).
"""
import argparse
import json
import os
import random
import re
import shlex
import statistics
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import deepmd_synthetic_model  # noqa: E402
import water_box  # noqa: E402
import pk_plot  # noqa: E402  (bench/, this script's folder)
import pk_scaling  # noqa: E402

COPPER_A = 3.634
COMPRESS_CELLS = 8      # the box of dp compress's training set

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True, help="the LAMMPS that loads the PairKit plugin")
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--dp-venv", default=os.path.expanduser("~/.cache/pairkit/dpvenv"))
ap.add_argument("--steps", type=int, default=10, help="steps of the tabulated/compressed runs")
ap.add_argument("--exact-steps", type=int, default=2, help="steps of the exact/uncompressed runs")
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--cores", default="1,2", help="core counts, comma-separated; 'all' = this "
                "machine's")
ap.add_argument("--cells", default="8", help="box sizes n (water n^3 molecules, copper n^3 fcc "
                "cells), comma-separated; the first also runs the exact/uncompressed kinds")
ap.add_argument("--systems", default="water,copper")
ap.add_argument("--precision", choices=["float64", "float32"], default="float64",
                help="the models' precision (float32: both codes run the float32 model; "
                     "deepmd/pk its fitting nets in float, DeePMD-kit its whole model)")
ap.add_argument("--mpirun", default="mpirun", help="MPI launcher of --lmp's LAMMPS (deepmd/pk's "
                "runs on several ranks)")
ap.add_argument("--work")
pk_scaling.add_result_options(ap)
opt = ap.parse_args()
work = os.path.abspath(opt.work) if opt.work else tempfile.mkdtemp(prefix="pk-bench-dppeer-")
os.makedirs(work, exist_ok=True)
plugin = os.path.abspath(os.path.join(opt.plugin_dir, "pairkitplugin.so"))
DP = os.path.join(opt.dp_venv, "bin", "dp")
DP_LMP = os.path.join(opt.dp_venv, "bin", "lmp")
QUIET = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
loads = []      # 1-minute load average before each timed run
others_log = []     # cores other processes kept busy during each kept run


# ---- the boxes ---------------------------------------------------------------------------

def water_atoms(n):
    """(box length, [(model type, x, y, z)]): the box of tools/water_box.py data_text(n)."""
    side, atoms = water_box.molecules(n)
    return side, [(t - 1, x, y, z) for t, x, y, z in atoms]


def copper_atoms(n):
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    a = COPPER_A
    return n * a, [(0, (i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a)
                   for i in range(n) for j in range(n) for k in range(n) for b in basis]


def water_setup(n):
    path = os.path.join(work, f"water-{n}.data")
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as fh:
            fh.write(water_box.data_text(n))
        os.replace(path + ".tmp", path)
    return f"read_data {path}"


SYSTEMS = {
    "water": dict(atoms=water_atoms, elements="O H", dt=0.0005, setup=water_setup),
    "copper": dict(atoms=copper_atoms, elements="Cu", dt=0.001, setup=lambda n: f"""
lattice fcc {COPPER_A}
region box block 0 {n} 0 {n} 0 {n}
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
    side, atoms = SYSTEMS[name]["atoms"](COMPRESS_CELLS)
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
    """model.yaml (ours), model.pb and model-compressed.pb (DeePMD-kit's); float32 models
    are named name-float32.*."""
    stem = name if opt.precision == "float64" else f"{name}-float32"
    yaml, pb, cpb = (os.path.join(work, f"{stem}{s}") for s in
                     (".yaml", ".pb", "-compressed.pb"))
    if not os.path.exists(yaml):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deepmd_synthetic_model.py"),
                        name, yaml, "--precision", opt.precision], check=True)
    if not os.path.exists(pb):
        dp("convert-backend", os.path.basename(yaml), os.path.basename(pb))
    if not os.path.exists(cpb):
        data = os.path.join(work, f"{name}-frames")
        training_set(name, data)
        script = os.path.join(work, f"{stem}-input.json")
        model_def = deepmd_synthetic_model.model_def_script(deepmd_synthetic_model.MODELS[name])
        for part in ("descriptor", "fitting_net"):
            model_def[part]["precision"] = opt.precision
        with open(script, "w") as fh:
            json.dump({"model": model_def,
                       "training": {"training_data": {"systems": [data], "batch_size": 1},
                                    "numb_steps": 0},
                       # required keys; compression trains nothing
                       "learning_rate": {"type": "exp", "start_lr": 1e-3, "stop_lr": 1e-8,
                                         "decay_steps": 5000}}, fh, indent=1)
        dp("--tf", "compress", "-i", os.path.basename(pb), "-o", os.path.basename(cpb),
           "-s", "0.01", "-t", os.path.basename(script))
    return yaml, pb, cpb


# ---- the runs ----------------------------------------------------------------------------

def script(name, cells, pair, steps, load_plugin):
    s = SYSTEMS[name]
    return f"""
{'plugin load ' + plugin if load_plugin else ''}
units metal
atom_style atomic
atom_modify map yes
{s['setup'](cells)}
{pair}
pair_coeff * * {s['elements']}
timestep {s['dt']}
velocity all create 300 4928 mom yes rot yes dist gaussian
fix 1 all nve
thermo {steps}
run {steps}
"""


def run_lammps(lmp, text, cores, ranks=1, mpirun=None):
    """One LAMMPS run pinned to cores 0..cores-1: `ranks` MPI ranks (started by mpirun,
    default DeePMD-kit's) of cores / ranks threads each."""
    # an input file of its own: other invocations may share --work
    fd, path = tempfile.mkstemp(prefix="in.bench-", dir=work, text=True)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    threads = str(cores // ranks)
    env = dict(QUIET, OMP_NUM_THREADS=threads, OMP_WAIT_POLICY="passive",
               DP_INTRA_OP_PARALLELISM_THREADS=threads, DP_INTER_OP_PARALLELISM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpirun = mpirun or os.path.join(opt.dp_venv, "bin", "mpirun")
    mpi = [*shlex.split(mpirun), "-np", str(ranks)] if ranks > 1 else []
    loads.append(os.getloadavg()[0])
    cmd = ["taskset", "-c", ",".join(str(c) for c in range(cores)), *mpi, lmp,
           "-nocite", "-log", "none", "-in", path]
    proc, others, _ = pk_scaling.run_timed(cmd, cores, opt.tries, cwd=work, env=env,
                                           stderr=subprocess.STDOUT)
    others_log.append(others)
    os.unlink(path)
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}")
    return proc.stdout


def measure(name, cells, code, kernel, model, threads, ranks):
    """One run on `threads` cores: deepmd/pk as `ranks` MPI ranks of threads / ranks OpenMP
    threads, DeePMD-kit as `threads` ranks of one thread."""
    steps = opt.steps if kernel in ("compressed", "tabulated") else opt.exact_steps
    if code == "deepmd/pk":
        pair = f"pair_style deepmd/pk {model}{' tabulate no' if kernel == 'exact' else ''}"
        out = run_lammps(opt.lmp, script(name, cells, pair, steps, True), threads, ranks,
                         opt.mpirun)
        info = re.search(r"^deepmd/pk: .*$", out, flags=re.M)
        if not info or ("embedding table" in out) != (kernel == "tabulated"):
            sys.exit(f"deepmd/pk did not log the {kernel} kernel:\n{out[-3000:]}")
        if f"on {threads} procs" not in out:       # LAMMPS counts ranks x threads
            sys.exit(f"deepmd/pk did not run on {threads} cores:\n{out[-3000:]}")
    else:
        # N cores: N MPI ranks of one thread, as DeePMD-kit advises for CPUs (one rank of N
        # TensorFlow/OpenMP threads was measured slower than one core for the compressed model)
        out = run_lammps(DP_LMP, script(name, cells, f"pair_style deepmd {model}", steps, False),
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


VARIANTS = [("DeePMD-kit", "compressed"), ("deepmd/pk", "tabulated"),
            ("DeePMD-kit", "uncompressed"), ("deepmd/pk", "exact")]

PEER_KIND = {"tabulated": "compressed", "exact": "uncompressed"}
cells_list = [int(n) for n in opt.cells.split(",")]
runs, logs, energy = {}, {}, {}
for name in opt.systems.split(","):
    yaml, pb, cpb = prepare(name)
    model = {"compressed": cpb, "uncompressed": pb, "tabulated": yaml, "exact": yaml}
    for cells in cells_list:
        for threads in pk_scaling.cores(opt.cores):
            # (code, kernel, MPI ranks): deepmd/pk as threads and as ranks, DeePMD-kit as ranks
            configs = [(code, kernel, ranks) for code, kernel in VARIANTS
                       if cells == cells_list[0] or kernel in ("compressed", "tabulated")
                       for ranks, _ in pk_scaling.layouts(threads, code == "deepmd/pk")]
            for _ in range(opt.repeat):
                for code, kernel, ranks in configs:
                    us, n, e0, out = measure(name, cells, code, kernel, model[kernel], threads,
                                             ranks)
                    runs.setdefault((name, n, ranks, threads // ranks, code, kernel),
                                    []).append((us, others_log[-1]))
                    energy[(name, n, code, kernel)] = e0
                    logs[code] = out
                    print(f"{name} {n} atoms {threads}c ({ranks} ranks) {code} {kernel}: "
                          f"{us:.1f} us/atom-step", flush=True)

dpv, lmp_dp, lmp_pk = versions(logs["DeePMD-kit"], logs["deepmd/pk"])
rows = [{"system": name, "atoms": n, "ranks": ranks, "threads": threads, "code": code,
         "kernel": kernel, "variant": f"{code} {kernel}", "ours": code == "deepmd/pk",
         "pair": statistics.median(us for us, _ in v), "runs": [us for us, _ in v],
         "others": max(o for _, o in v)}
        for (name, n, ranks, threads, code, kernel), v in runs.items()]
for name in opt.systems.split(","):
    pk_scaling.add_scaling([r for r in rows if r["system"] == name],
                           lambda r: f"DeePMD-kit {PEER_KIND[r['kernel']]}")
lines = pk_scaling.head_lines(f"deepmd/pk beside DeePMD-kit ({opt.precision} models)", sys.argv,
                              f"DeePMD-kit {dpv} (TensorFlow CPU, its LAMMPS {lmp_dp}); "
                              f"deepmd/pk in LAMMPS {lmp_pk}", loads, others_log)
lines += ["LAMMPS `Pair` time per atom-step, median of "
          f"{opt.repeat} alternating runs (each run's figure under \"runs\"); every run alone "
          "under the benchmark lock, pinned to cores 0..N-1.",
          "ratio = DeePMD-kit's time on as many cores (as MPI ranks) / ours against the same "
          "kind (compressed vs tabulated, uncompressed vs exact); efficiency = t(1 core) / "
          "(N t(N cores)) of the same code, kernel and box. E0: the potential energy of the "
          "starting box (eV, LAMMPS's thermo digits), the check that both codes ran the same "
          "model on the same atoms. Others: the most cores other processes kept busy during "
          "one of the row's runs.", "",
          "| model | atoms | layout | code | kernel | µs/atom-step (pair) | runs | ratio | "
          "efficiency | E0 | others |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    ratio = f"**{r['ratio']:.2f}×**" if r["ours"] and r["ratio"] else ""
    lines.append(f"| {r['system']} | {r['atoms']} | {pk_scaling.layout(r)} | {r['code']} | "
                 f"{r['kernel']} | {r['pair']:.1f} | {', '.join(f'{x:.1f}' for x in r['runs'])} "
                 f"| {ratio} | {pk_scaling.fmt(r['eff'])} | "
                 f"{energy[(r['system'], r['atoms'], r['code'], r['kernel'])]:.8g} | "
                 f"{r['others']:.2f} |")
png = pk_scaling.plot_path(opt.plot, opt.out)
if png:
    lines += ["", pk_plot.plot(png, "deepmd/pk vs DeePMD-kit (synthetic se_e2_a models, "
                               f"{opt.precision})",
                               {name: pk_scaling.series([r for r in rows if r["system"] == name])
                                for name in opt.systems.split(",")}, pk_scaling.machine())]
text = "\n".join(lines) + "\n"
print(text)
if opt.out:
    pk_scaling.write_results(opt.out, text)
