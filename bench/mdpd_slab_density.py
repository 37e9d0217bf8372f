#!/usr/bin/env python3
"""Physics check for mdpd/pk: coexisting liquid density of a vapour-liquid slab.

Runs examples/mdpd/in.slab (A=-40, B=25, rc=1, rd=0.75, kT=1, gamma=18; 6000 beads started
as a slab at density 6 in a 30x10x10 box) with the Warren and the Lucy density kernels,
and reads the number-density profile along x that the input averages (bins of 0.5,
blocks of 1000 steps). The liquid density is the mean over the bins within +-2 of the
slab's centre, averaged over the blocks after --equil steps; the vapour density is the
mean over the bins farther than 12 from it.

  bench/mdpd_slab_density.py --lmp LMP --plugin-dir DIR [--steps 10000] [--equil 4000]
"""
import argparse
import os
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--lmp", required=True)
ap.add_argument("--plugin-dir", required=True)
ap.add_argument("--steps", type=int, default=10000)
ap.add_argument("--equil", type=int, default=4000)
opt = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "examples", "mdpd", "in.slab")) as fh:
    base = fh.read()


def blocks(path):
    """[(step, [(x, density), ...]), ...] from a fix ave/chunk file."""
    out, lines = [], open(path).read().splitlines()
    k = 0
    while k < len(lines):
        if lines[k].startswith("#") or not lines[k].strip():
            k += 1
            continue
        step, nrows = map(int, lines[k].split()[:2])
        rows = [tuple(map(float, lines[k + 1 + r].split()[1:4:2])) for r in range(nrows)]
        out.append((step, rows))
        k += 1 + nrows
    return out


def measure(kernel):
    work = tempfile.mkdtemp(prefix="pk-slab-")
    with open(os.path.join(work, "in.slab"), "w") as fh:
        fh.write(base.replace("density warren", f"density {kernel}"))
    env = dict(os.environ, LAMMPS_PLUGIN_PATH=opt.plugin_dir, OMP_NUM_THREADS="2")
    subprocess.run([opt.lmp, "-nocite", "-in", "in.slab", "-var", "steps", str(opt.steps)],
                   cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)
    liquid, vapour = [], []
    for step, rows in blocks(os.path.join(work, "profile.txt")):
        if step <= opt.equil:
            continue
        # Centre of the slab: the density-weighted circular mean over the periodic box.
        import cmath
        z = sum(d * cmath.exp(2j * cmath.pi * x / 30.0) for x, d in rows)
        centre = (cmath.phase(z) / (2 * cmath.pi) * 30.0) % 30.0
        dist = lambda x: min(abs(x - centre), 30.0 - abs(x - centre))
        liquid.append(sum(d for x, d in rows if dist(x) <= 2.0) / sum(1 for x, d in rows if dist(x) <= 2.0))
        vapour.append(sum(d for x, d in rows if dist(x) >= 12.0) / sum(1 for x, d in rows if dist(x) >= 12.0))
    n = len(liquid)
    mean = sum(liquid) / n
    err = (sum((a - mean) ** 2 for a in liquid) / max(n - 1, 1) / n) ** 0.5
    return mean, err, sum(vapour) / n, n


for kernel in ("warren", "lucy"):
    rho_l, err, rho_v, n = measure(kernel)
    print(f"{kernel:7s}: liquid density {rho_l:.3f} +- {err:.3f} (standard error over {n} blocks "
          f"of 1000 steps), vapour density {rho_v:.4f}")
