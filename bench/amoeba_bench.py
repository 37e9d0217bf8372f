"""What the amoeba benches share: one timed LAMMPS run on the CPU, and what they read from a
run's output (the loop and Pair times, and each style's own split of a force evaluation:
amoeba/pk's end-of-run report, or LAMMPS's AMOEBA timing breakdown, with amoeba/pk's PCG
iterations)."""
import os
import re
import subprocess

import pk_scaling


def parse(out):
    """{"steps", "atoms", "loop_ms", "pair_ms" (per step), "split" (ms per force evaluation:
    HAL, multipole, induce, polar; None when the output has neither breakdown), "pcg" (None
    but for amoeba/pk), "lammps" (LAMMPS's version)}, or None when the run printed no
    timings."""
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
    version = re.search(r"LAMMPS \((.*?)\)", out)
    return {"steps": nsteps, "atoms": atoms,
            "loop_ms": 1e3 * float(loop.group(1)) / nsteps,
            "pair_ms": 1e3 * float(pair.group(1)) / nsteps,
            "split": [1e3 * float(v) / nev for v in split.groups()] if split else None,
            "pcg": float(pcg.group(1)) if pcg else None,
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
