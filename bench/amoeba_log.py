"""What the amoeba benches read from a LAMMPS run's output: the loop and Pair times, and each
style's own split of a force evaluation (amoeba/pk's end-of-run report, or LAMMPS's AMOEBA
timing breakdown) with amoeba/pk's PCG iterations."""
import re


def parse(out):
    """{"steps", "atoms", "loop_ms", "pair_ms" (per step), "split" (ms per force evaluation:
    HAL, multipole, induce, polar; None when the output has neither breakdown), "pcg" (None
    but for amoeba/pk)}, or None when the run printed no timings."""
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
    return {"steps": nsteps, "atoms": atoms,
            "loop_ms": 1e3 * float(loop.group(1)) / nsteps,
            "pair_ms": 1e3 * float(pair.group(1)) / nsteps,
            "split": [1e3 * float(v) / nev for v in split.groups()] if split else None,
            "pcg": float(pcg.group(1)) if pcg else None}
