"""Every example input, examples/<style>/in.*, run as a user runs it: the folder copied next
to a link to potentials/ (so its relative paths hold), `lmp -in in.<name> -var steps 10`
with the plugin autoloaded from LAMMPS_PLUGIN_PATH, one OpenMP thread. Examples are found by
globbing, so a new one is run without editing this file.

For each example:
* lmp exits 0, the log says the plugin was autoloaded and the folder's style, <style>/pk,
  logs its backend line ("pair_style <style>/pk: ... cpu backend, double precision"):
  a failed autoload that let LAMMPS fall back to a style of its own is caught here;
* the last thermo table has the rows of steps 0 and 10, all values finite;
* the values are checked against a reference of that example, in REFERENCES below. An
  example without one fails, and its measured rows are printed to start one from.

The references, and where each comes from:
* hdnnp/in.water: the LAMMPS ML-HDNNP example's log (log.23Aug23.hdnnp.g++.1 in the LAMMPS
  source, made with LAMMPS hdnnp and n2p2) at steps 0 and 10, within one unit of the last
  printed digit (E_pair -750069.48 eV at step 0): the example is that input.
* amoeba/in.water_box_lammps (elec lammps): the same input on LAMMPS `amoeba` (the pair
  style and compute swapped, no plugin), run here: every value at steps 0 and 10 to 1e-7.
* amoeba/in.water_box, in.water_hexamer (elec smooth): at step 0, HAL and the bonded terms
  equal LAMMPS amoeba's run here (smooth mode changes only the electrostatics) to 1e-9;
  for the hexamer also the polarization (no pair near the 8-10 A switch); the other values
  against numbers stored from amoeba/pk (below) to 1e-6.
* deepmd/in.water: step 0 energy against the same input on the exact kernel (`tabulate
  no`) to 1e-9 relative (the tables' error on this model is far below); steps 0 and 10
  against numbers stored from deepmd/pk to 1e-6.
* mdpd/in.slab: the step-0 energy against this file's own evaluation of Warren's energy
  on the example's fcc slab (mdpd_slab_energy), to 1e-6 (the log prints 8 digits); step
  10 against numbers stored from mdpd/pk to 1e-6 (its noise is a counter-based stream, the
  same on any machine and rank count).
Also: every file under potentials/ is listed in potentials/README.md with its sha256, which
must match, and the shipped synthetic DeePMD model equals what its generator writes.
Stored numbers were printed by this build (Release, x86-64, 1 thread) on 2026-11-26; a
tolerance of 1e-6 leaves room for other compilers over 10 steps and would catch a change
of the physics."""
import glob
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

from pklmp import LAMMPS_SRC, LMP, PLUGIN, Checker, Result

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STEPS = 10


def run_example(folder, name, text=None, plugin=True):
    """Run examples/<folder>/<name> (or `text` in its place) in a copy of the folder; the
    copy sits in <tmp>/examples/ beside a link <tmp>/potentials, as in the repository."""
    tmp = tempfile.mkdtemp(prefix="pk-example-")
    work = os.path.join(tmp, "examples", folder)
    shutil.copytree(os.path.join(ROOT, "examples", folder), work)
    os.symlink(os.path.join(ROOT, "potentials"), os.path.join(tmp, "potentials"))
    if text is not None:
        with open(os.path.join(work, name), "w") as fh:
            fh.write(text)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("LAMMPS_PLUGIN_PATH", None)
    if plugin:
        env["LAMMPS_PLUGIN_PATH"] = os.path.dirname(PLUGIN)
    proc = subprocess.run([LMP, "-nocite", "-log", "log.lammps", "-in", name, "-var", "steps",
                           str(STEPS)], cwd=work, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    return Result(proc.returncode, proc.stdout, work)


def rows_by_step(result):
    return {int(r["Step"]): r for r in result.thermo(-1)}


def read(path):
    with open(path) as fh:
        return fh.read()


def compare(chk, what, got, want, keys, rtol, floor=1e-8):
    for k in keys:
        chk.close(got[k], want[k], rtol, floor, f"{what} {k}")


# ---- references -------------------------------------------------------------------------

def stored(chk, what, rows, table, rtol=1e-6):
    for step, values in table.items():
        for k, v in values.items():
            chk.close(rows[step][k], v, rtol, 1e-3, f"{what} step {step} {k} (stored)")


def printed_log_rows(text):
    """{step: {column: printed string}} of the first thermo table of a LAMMPS log."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.split()[:1] == ["Step"])
    cols, out = lines[start].split(), {}
    for line in lines[start + 1:]:
        if line.startswith("Loop time"):
            break
        f = line.split()
        if len(f) == len(cols) and not line.startswith("#"):
            out[int(f[0])] = dict(zip(cols, f))
    return out


def last_digit(s):
    """One unit of the last printed digit of a number such as -750069.48 or 1.2e-05."""
    mantissa, _, exponent = s.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def check_hdnnp_water(chk, what, res, rows):
    log = read(os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "hdnnp",
                            "log.23Aug23.hdnnp.g++.1"))
    ref = printed_log_rows(log)
    ours = printed_log_rows(res.output[res.output.index("Setting up Verlet run"):])
    for step in (0, STEPS):
        for col, want in ref[step].items():
            got = ours[step][col]
            chk.check(abs(float(got) - float(want)) <= last_digit(want),
                      f"{what} step {step} {col}: {got}, LAMMPS hdnnp log {want}")
    chk.check(ref[0]["E_pair"] == "-750069.48", f"LAMMPS log E_pair at step 0 {ref[0]}")


def lammps_amoeba(name):
    """examples/amoeba/<name> on LAMMPS's own amoeba (pair_style and compute pair swapped,
    no plugin loaded): its thermo rows by step."""
    text = read(os.path.join(ROOT, "examples", "amoeba", name))
    text, n1 = re.subn(r"^pair_style\s+amoeba/pk.*$", "pair_style amoeba", text, flags=re.M)
    text, n2 = re.subn(r"\bpair amoeba/pk\b", "pair amoeba", text)
    assert n1 == 1 and n2 == 1, f"{name}: pair_style or compute pair line not found"
    res = run_example("amoeba", name, text, plugin=False)
    if res.returncode != 0:
        print(res.output[-3000:])
        raise SystemExit(f"LAMMPS amoeba failed on {name}")
    return rows_by_step(res)


def check_amoeba_lammps(chk, what, res, rows):
    ref = lammps_amoeba("in.water_box_lammps")
    for step in (0, STEPS):
        compare(chk, f"{what} step {step} vs LAMMPS amoeba", rows[step], ref[step],
                [k for k in ref[step] if k != "Step"], 1e-7, floor=1e-3)


def check_amoeba_smooth(name, table, polar_as_lammps):
    def check(chk, what, res, rows):
        ref = lammps_amoeba(name)
        keys = ["Temp", "c_terms[1]", "E_bond", "E_angle"]
        keys += ["c_terms[5]"] if polar_as_lammps else []
        compare(chk, f"{what} step 0 vs LAMMPS amoeba", rows[0], ref[0], keys, 1e-9)
        chk.check(abs(rows[0]["c_terms[4]"] - ref[0]["c_terms[4]"]) > 1e-3,
                  f"{what}: smooth multipoles differ from LAMMPS's hard-cutoff ones")
        stored(chk, what, rows, table)
    return check


def check_deepmd_water(chk, what, res, rows):
    text = read(os.path.join(ROOT, "examples", "deepmd", "in.water"))
    text, n = re.subn(r"^(pair_style\s+deepmd/pk\s+\S+)", r"\1 tabulate no", text, flags=re.M)
    assert n == 1, "in.water: deepmd/pk pair_style line not found"
    exact = run_example("deepmd", "in.water", text)
    chk.contains(exact.output, "exact kernel", f"{what}: tabulate no runs the exact kernel")
    chk.close(rows[0]["PotEng"], rows_by_step(exact)[0]["PotEng"], 1e-9, 1.0,
              f"{what} step 0 PotEng, tabulated vs exact kernel")
    stored(chk, what, rows, DEEPMD_WATER)


def mdpd_slab_energy():
    """Warren's many-body DPD energy per bead of in.slab's start: `lattice fcc 6` (cubic
    cell a = (4/6)^(1/3)) inside x in [10, 20], box 30 x 10 x 10 periodic; A = -40, B = 25,
    rc = 1, rd = 0.75. U = sum_pairs (A rc/2) wc^2 + sum_i (pi rd^4 B/30) rho_i^2 with
    rho_i = sum_j 15/(2 pi rd^3) (1 - r/rd)^2 (the mdpd/pk README)."""
    a, box = (4.0 / 6.0) ** (1.0 / 3.0), (30.0, 10.0, 10.0)
    basis = ((0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5))
    pts = []
    for i in range(int(20 / a) + 2):
        for j in range(int(10 / a) + 2):
            for k in range(int(10 / a) + 2):
                for b in basis:
                    x, y, z = (i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a
                    # region block 10..20 (closed); create_atoms keeps y, z in [0, 10)
                    if 10.0 <= x <= 20.0 and y < 10.0 and z < 10.0:
                        pts.append((x, y, z))
    A, B, rc, rd = -40.0, 25.0, 1.0, 0.75
    cells = {}
    for n, p in enumerate(pts):
        cells.setdefault(tuple(int(p[d] // rc) for d in range(3)), []).append(n)
    ncell = [int(L // rc) for L in box]
    rho, pair_energy = [0.0] * len(pts), 0.0
    for n, p in enumerate(pts):
        c = tuple(int(p[d] // rc) for d in range(3))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    key = tuple((c[d] + s) % ncell[d] for d, s in enumerate((dx, dy, dz)))
                    for m in cells.get(key, ()):
                        if m == n:
                            continue
                        d = [p[e] - pts[m][e] for e in range(3)]
                        d = [v - L * round(v / L) for v, L in zip(d, box)]
                        r = math.sqrt(sum(v * v for v in d))
                        if r < rc:
                            pair_energy += 0.5 * (A * rc / 2) * (1 - r / rc) ** 2
                        if r < rd:
                            rho[n] += 15 / (2 * math.pi * rd ** 3) * (1 - r / rd) ** 2
    energy = pair_energy + sum(math.pi * rd ** 4 * B / 30 * q * q for q in rho)
    return len(pts), energy / len(pts)


def check_mdpd_slab(chk, what, res, rows):
    natoms, e_per_bead = mdpd_slab_energy()
    chk.contains(res.output, f"Created {natoms} atoms", f"{what}: the slab this test rebuilt")
    chk.close(rows[0]["E_pair"], e_per_bead, 1e-6, 1.0, f"{what} step 0 E_pair vs Warren energy")
    stored(chk, what, rows, MDPD_SLAB)


# Stored from this build (see the top): {step: {thermo column: value as printed}}.
MDPD_SLAB = {10: {"Temp": 0.7992964, "E_pair": -13.145889, "TotEng": -11.947141,
                  "Press": 0.34589655}}
DEEPMD_WATER = {0: {"PotEng": -2095.2496, "Press": 7710.7892},
                10: {"Temp": 298.91665, "PotEng": -2095.0193, "TotEng": -2035.7099,
                     "Press": 7843.5427}}
AMOEBA_BOX = {0: {"E_pair": -2146.8989, "c_terms[4]": -2159.0716, "c_terms[5]": -960.0765,
                  "TotEng": -1317.7647, "Press": -3995.8063},
              10: {"Temp": 297.11027, "E_pair": -2139.5723, "c_terms[1]": 953.14863,
                   "c_terms[4]": -2143.5521, "c_terms[5]": -949.16885, "TotEng": -1317.7154,
                   "Press": 1464.9275}}
AMOEBA_HEXAMER = {0: {"E_pair": -47.914982, "c_terms[4]": -53.656962, "TotEng": -28.480883},
                  10: {"Temp": 212.72076, "E_pair": -45.03096, "c_terms[1]": 26.311832,
                       "c_terms[4]": -50.749757, "c_terms[5]": -20.593034,
                       "TotEng": -28.449985}}

REFERENCES = {
    "hdnnp/in.water": check_hdnnp_water,
    "amoeba/in.water_box_lammps": check_amoeba_lammps,
    "amoeba/in.water_box": check_amoeba_smooth("in.water_box", AMOEBA_BOX, False),
    "amoeba/in.water_hexamer": check_amoeba_smooth("in.water_hexamer", AMOEBA_HEXAMER, True),
    "deepmd/in.water": check_deepmd_water,
    "mdpd/in.slab": check_mdpd_slab,
}


# ---- the shipped files ----------------------------------------------------------------------

def check_shipped_files(chk):
    """potentials/README.md's sha256 block lists every file under potentials/ (so none
    comes without its origin) with its hash; the synthetic DeePMD model is what its
    generator writes today."""
    text = read(os.path.join(ROOT, "potentials", "README.md"))
    listed = dict(reversed(m) for m in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, re.M))
    for path, digest in listed.items():
        full = os.path.join(ROOT, path)
        got = hashlib.sha256(open(full, "rb").read()).hexdigest() if os.path.isfile(full) else None
        chk.check(got == digest, f"{path}: sha256 {got}, potentials/README.md {digest}")
    shipped = {os.path.relpath(os.path.join(d, f), ROOT)
               for d, _, names in os.walk(os.path.join(ROOT, "potentials")) for f in names}
    shipped.discard(os.path.join("potentials", "README.md"))
    chk.check(shipped <= set(listed), f"not in potentials/README.md: {shipped - set(listed)}")
    model = os.path.join(tempfile.mkdtemp(prefix="pk-model-"), "model.yaml")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deepmd_synthetic_model.py"),
                    "water-small", model], check=True)
    chk.check(read(model) == read(os.path.join(ROOT, "potentials", "deepmd",
                                               "water_synthetic_small.yaml")),
              "potentials/deepmd/water_synthetic_small.yaml differs from what "
              "tools/deepmd_synthetic_model.py water-small writes")


# ---- the run ------------------------------------------------------------------------------

chk = Checker()
check_shipped_files(chk)
inputs = sorted(glob.glob(os.path.join(ROOT, "examples", "*", "in.*")))
chk.check(len(inputs) >= 4, f"examples found: {inputs}")
for path in inputs:
    folder, name = os.path.basename(os.path.dirname(path)), os.path.basename(path)
    what = f"examples/{folder}/{name}"
    res = run_example(folder, name)
    if not chk.check(res.returncode == 0, f"{what}: lmp exit code {res.returncode}\n"
                                          f"{res.output[-3000:]}"):
        continue
    chk.contains(res.output, "Loaded 1 plugins from", f"{what}: plugin autoloaded")
    chk.check(re.search(rf"^pair_style {re.escape(folder)}/pk: .* backend, (double|mixed) "
                        r"precision", res.output, re.M),
              f"{what}: no backend line of {folder}/pk in the log")
    rows = rows_by_step(res)
    chk.check(sorted(rows) == [0, STEPS], f"{what}: thermo steps {sorted(rows)}")
    chk.check(all(math.isfinite(v) for r in rows.values() for v in r.values()),
              f"{what}: non-finite thermo values {rows}")
    if sorted(rows) != [0, STEPS]:
        continue
    print(f"{what}: " + "; ".join(f"step {s} " + " ".join(f"{k} {v!r}" for k, v in r.items()
                                                          if k != "Step")
                                  for s, r in sorted(rows.items())))
    check = REFERENCES.get(f"{folder}/{name}")
    if chk.check(check is not None, f"{what}: no reference in REFERENCES of {__file__}"):
        check(chk, what, res, rows)
chk.finish()
