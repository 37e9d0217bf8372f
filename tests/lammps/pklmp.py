"""Helpers for PairKit's LAMMPS integration tests: run lmp on an input, read thermo and dumps.

Every test gets the paths it needs from the environment that CMake sets on the test:
PK_LMP (lmp binary), PK_PLUGIN (pairkitplugin.so), PK_PLUGIN_DIR, PK_MPIRUN, PK_LAMMPS_SRC.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

LMP = os.environ.get("PK_LMP", "lmp")
PLUGIN = os.environ.get("PK_PLUGIN", "")
MPIRUN = os.environ.get("PK_MPIRUN", "mpirun")
LAMMPS_SRC = os.environ.get("PK_LAMMPS_SRC", "")


class Result:
    def __init__(self, returncode, output, workdir):
        self.returncode = returncode
        self.output = output
        self.workdir = workdir

    def thermo(self, block=0):
        """The block-th thermo table as a list of dicts keyed by column name."""
        lines = self.output.splitlines()
        tables, k = [], 0
        while k < len(lines):
            if lines[k].split()[:1] == ["Step"]:
                cols = lines[k].split()
                rows = []
                k += 1
                while k < len(lines) and not lines[k].startswith("Loop time"):
                    parts = lines[k].split()
                    if len(parts) == len(cols):
                        try:
                            rows.append(dict(zip(cols, map(float, parts))))
                        except ValueError:
                            pass
                    k += 1
                tables.append(rows)
            k += 1
        return tables[block]

    def dump(self, name):
        """Per-atom rows of the last snapshot of a 'dump custom' file, keyed by atom id."""
        path = os.path.join(self.workdir, name)
        with open(path) as fh:
            lines = fh.read().splitlines()
        last = max(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
        cols = lines[last].split()[2:]
        rows = {}
        for line in lines[last + 1:]:
            vals = line.split()
            row = dict(zip(cols, map(float, vals)))
            rows[int(row["id"])] = row
        return rows


def run(script, nprocs=1, args=(), env_extra=None, files=None, expect_fail=False, timeout=1800):
    """Run lmp on the input text `script` in a fresh directory; return a Result.

    The text may use {plugin} for the plugin path. A failing run raises unless expect_fail."""
    workdir = tempfile.mkdtemp(prefix="pk-lmp-")
    for name, text in (files or {}).items():
        with open(os.path.join(workdir, name), "w") as fh:
            fh.write(text)
    with open(os.path.join(workdir, "in.test"), "w") as fh:
        fh.write(script.replace("{plugin}", PLUGIN))
    cmd = [LMP, "-nocite", "-log", "log.lammps", "-in", "in.test", *args]
    if nprocs > 1:
        cmd = [MPIRUN, "--oversubscribe", "-np", str(nprocs), *cmd]
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    env.update(env_extra or {})
    proc = subprocess.run(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    res = Result(proc.returncode, proc.stdout, workdir)
    if proc.returncode != 0 and not expect_fail:
        sys.stdout.write(proc.stdout[-6000:])
        raise SystemExit(f"lmp failed with exit code {proc.returncode} in {workdir}")
    return res


class Checker:
    """Counts checks; finish() prints 'N passed, N failed' and exits with the status."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {what}")
        return ok

    def close(self, got, want, rtol, floor, what):
        scale = max(abs(want), floor)
        return self.check(abs(got - want) <= rtol * scale,
                          f"{what}: got {got!r} want {want!r} rel {abs(got - want) / scale:.3g} tol {rtol}")

    def contains(self, text, needle, what):
        return self.check(needle in text, f"{what}: '{needle}' not in output:\n{text[-3000:]}")

    def gpu_share(self, output, nprocs, what):
        """The cuda backend's log line says how many ranks share device 0: the ranks go to
        the node's GPUs round-robin by node-local rank, so device 0 has every ndev-th."""
        share = re.search(r"of (\d+), (\d+) ranks? on it", output)
        if self.check(share is not None, f"{what}: the log says how many ranks share the GPU"):
            ndev, on_it = int(share.group(1)), int(share.group(2))
            self.check(on_it == len(range(0, nprocs, ndev)),
                       f"{what}: {on_it} rank(s) on device 0 of {ndev}")

    def trajectories(self, run_backend, x_ref, backend, steps, tol):
        """run_backend(nprocs) runs the backend's trajectory (writing final.dump) on 1, 2 and 4
        MPI ranks: final positions within tol (A) of x_ref, the cpu backend's on one rank;
        the cuda log says how many ranks share the GPU; a rerun on one rank gives bitwise
        the same positions."""
        first = None
        for nprocs in (1, 2, 4):
            got = run_backend(nprocs)
            if backend == "cuda":
                self.gpu_share(got.output, nprocs, f"{nprocs} rank(s)")
            x = got.dump("final.dump")
            dx = max(abs(x[i][k] - x_ref[i][k]) for i in x_ref for k in ("x", "y", "z"))
            print(f"{backend} on {nprocs} rank(s) vs cpu on 1 after {steps} steps: "
                  f"max |dx| = {dx:.3g} A")
            self.check(dx <= tol, f"{backend} on {nprocs} rank(s): positions differ by "
                       f"{dx:.3g} (> {tol})")
            if nprocs == 1:
                first = x
        self.check(run_backend(1).dump("final.dump") == first,
                   "rerun: trajectory not bitwise equal")

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(0 if self.failed == 0 and self.passed > 0 else 1)


def atomic_data(title, bounds, masses, atoms, tilt=None):
    """A LAMMPS data file (atom_style atomic): bounds = ((xlo, xhi), (ylo, yhi), (zlo, zhi)),
    masses[t - 1] of type t, atoms = (type, x, y, z) rows with IDs 1, 2, ... in order, tilt =
    (xy, xz, yz) for a triclinic box. Numbers are written with repr, so nothing is rounded."""
    out = [title, "", f"{len(atoms)} atoms", f"{len(masses)} atom types", ""]
    out += [f"{lo!r} {hi!r} {d}lo {d}hi" for d, (lo, hi) in zip("xyz", bounds)]
    if tilt:
        out.append("{!r} {!r} {!r} xy xz yz".format(*tilt))
    out += ["", "Masses", ""] + [f"{t + 1} {m}" for t, m in enumerate(masses)]
    out += ["", "Atoms # atomic", ""]
    out += [f"{i + 1} {t} {x!r} {y!r} {z!r}" for i, (t, x, y, z) in enumerate(atoms)]
    return "\n".join(out) + "\n"


def max_rel_diff(a, b, keys, floor):
    """Largest |a-b| / max(|b|, floor) over atoms (dicts keyed by id) and keys."""
    worst = 0.0
    for i, row in b.items():
        for k in keys:
            worst = max(worst, abs(a[i][k] - row[k]) / max(abs(row[k]), floor))
    return worst


def max_abs(rows, keys):
    return max(abs(r[k]) for r in rows.values() for k in keys)
