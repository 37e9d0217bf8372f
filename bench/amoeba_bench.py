"""What the amoeba benches share: the water box's run folder, one timed LAMMPS run on the
CPU, and what they read from a run's output (the loop and Pair times, and each style's own
split of a force evaluation: amoeba/pk's end-of-run report, or LAMMPS's AMOEBA timing
breakdown, with amoeba/pk's PCG iterations)."""
import os
import re
import shutil
import subprocess
import sys

import pk_scaling

EWALD = ("ewald", "ewald-alpha", "pewald-alpha", "pme-grid")


def water_run(work, lammps_src, reps, pair_style, steps):
    """Write into folder work the LAMMPS examples/amoeba water box (216 waters) with its key's
    Ewald lines removed (cutoff 7, taper 6), or its replica reps = (nx, ny, nz) (None: the box
    itself), `pair_style amoeba` replaced by pair_style and `run 100` by `run steps`: in.box,
    box.key and the prm and data files it reads."""
    # the test helpers' data-file replication (imported here: amoeba_common reads the LAMMPS
    # source tree from the environment when imported, which a bench may set later)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                    "lammps"))
    from amoeba_common import replicated
    ex = os.path.join(lammps_src, "examples", "amoeba")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(ex, "amoeba_water_box.key")) as fh:
        key = "".join(l + "\n" for l in fh.read().splitlines() if l.split()[:1] not in
                      [[w] for w in EWALD])
    with open(os.path.join(ex, "in.water_box.amoeba")) as fh:
        text = fh.read().replace("amoeba_water_box.key", "box.key")
    shutil.copy(os.path.join(ex, "amoeba_water.prm"), work)
    shutil.copy(os.path.join(ex, "data.water_box.amoeba"), work)
    if reps:
        with open(os.path.join(ex, "data.water_box.amoeba")) as fh:
            big = replicated(fh.read(), reps)
        with open(os.path.join(work, "data.water_big.amoeba"), "w") as fh:
            fh.write(big)
        text = text.replace("data.water_box.amoeba", "data.water_big.amoeba")
        # LAMMPS checks each axis the key gives against the box, exactly: the replica's
        # lengths as replicated() writes them
        a = float(re.search(r"^a-axis\s+([\d.]+)", key, flags=re.M).group(1))
        axes = "".join(f"{c}-axis {a * n}\n" for c, n in zip("abc", reps))
        key = re.sub(r"^a-axis\s.*\n", axes, key, flags=re.M)
    with open(os.path.join(work, "box.key"), "w") as fh:
        fh.write(key)
    text = re.sub(r"^run\s+100$", f"run {steps}", text, flags=re.M)
    with open(os.path.join(work, "in.box"), "w") as fh:
        fh.write(re.sub(r"^pair_style\s+amoeba\s*$", pair_style, text, flags=re.M))


def parse(out):
    """{"steps", "atoms", "loop_ms", "pair_ms" (per step), "split" (ms per force evaluation:
    HAL, multipole, induce, polar; None when the output has neither breakdown), "pcg" (None
    but for amoeba/pk), "mem_mb" (LAMMPS's per-rank memory at setup, Mbytes, the mean over
    ranks; None when not printed), "lammps" (LAMMPS's version)}, or None when the run
    printed no timings."""
    loop = re.search(r"Loop time of ([\d.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms",
                     out)
    pair = re.search(r"^Pair\s+\|\s+[\d.eE+-]+\s+\|\s+([\d.eE+-]+)", out, flags=re.M)
    if not loop or not pair:
        return None
    nsteps, atoms = int(loop.group(2)), int(loop.group(3))
    # evaluations the timers cover: amoeba/pk's the setup one and every step; LAMMPS amoeba
    # restarts its timers at step 1
    ours = re.search(r"time \(s, mean over \d+ rank\(s\)\): HAL ([\d.eE+-]+) .*?multipole "
                     r"([\d.eE+-]+) .*?induce ([\d.eE+-]+) .*?polar ([\d.eE+-]+)", out)
    theirs = re.search(r"Hal\s+time: ([\d.eE+-]+).*?Mpole\s+time: ([\d.eE+-]+).*?Induce\s+time: "
                       r"([\d.eE+-]+).*?Polar\s+time: ([\d.eE+-]+)", out, flags=re.S)
    split, nev = (ours, nsteps + 1) if ours else (theirs, nsteps)
    pcg = re.search(r"PCG iterations per evaluation: mean ([\d.]+)", out)
    mem = re.search(r"Per MPI rank memory allocation \(min/avg/max\) = [\d.]+ \| ([\d.]+)", out)
    version = re.search(r"LAMMPS \((.*?)\)", out)
    return {"steps": nsteps, "atoms": atoms,
            "loop_ms": 1e3 * float(loop.group(1)) / nsteps,
            "pair_ms": 1e3 * float(pair.group(1)) / nsteps,
            "split": [1e3 * float(v) / nev for v in split.groups()] if split else None,
            "pcg": float(pcg.group(1)) if pcg else None,
            "mem_mb": float(mem.group(1)) if mem else None,
            "lammps": version.group(1) if version else "?"}


def run_cpu(lmp, plugin_dir, work, infile, ours, threads, ranks=1, mpirun="mpirun",
            lock=False, tries=3):
    """lmp on work/infile with `threads` OpenMP threads (in each of `ranks` MPI ranks, started
    by mpirun), under -sf pk when ours (amoeba/pk's plugin from plugin_dir); parse()'s
    timings. When lock: under the benchmark lock by pk_scaling.run_timed (up to `tries` runs
    while other work takes the cores), with its "others" (cores other processes kept busy
    meanwhile) in the result. A missing amoeba/pk log line
    stops the bench: a plugin that did not load makes -sf pk run LAMMPS's own amoeba,
    silently."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               LAMMPS_PLUGIN_PATH=os.path.abspath(plugin_dir),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    args = ["-sf", "pk"] if ours else []
    cmd = pk_scaling.command([lmp, "-nocite", "-log", "none", "-in", infile, *args], ranks,
                             mpirun, lock=False)
    others = None
    if lock:
        proc, others, _ = pk_scaling.run_timed(cmd, ranks * threads, tries, cwd=work,
                                               env=env, check=True)
        out = proc.stdout
    else:
        out = subprocess.run(cmd, cwd=work, env=env, check=True, stdout=subprocess.PIPE,
                             text=True).stdout
    if ours and "pair_style amoeba/pk: " not in out:
        raise SystemExit("amoeba/pk did not run (plugin not loaded?): its log line is missing")
    timings = parse(out)
    return dict(timings, others=others) if timings else None
