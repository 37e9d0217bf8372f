"""The LAMMPS ML-HDNNP examples (examples/PACKAGES/hdnnp: 360 water molecules, the RPBE-D3
model, 10 steps of NVE), run unchanged with `-sf pk` and the plugin autoloaded from
LAMMPS_PLUGIN_PATH, against their reference logs made by LAMMPS hdnnp with n2p2:
  in.hdnnp  (pair_style hdnnp)                         log.23Aug23.hdnnp.g++.1
  in.hybrid (pair_style hybrid lj/cut + hdnnp, types NULL H O)  log.23Aug23.hybrid.g++.1

Every thermo value of all 11 rows (Temp, E_pair, E_mol, TotEng, Press) must agree to the
precision the log prints: within one unit of its last printed digit (E_pair -750069.48 at
step 0: 0.01 eV). The extrapolation-warning summaries (showewsum 5) must appear at the same
steps with the same counts. The example's files are linked into the run directory with
`shell ln -s` before the example text."""
import os
import re

from pklmp import LAMMPS_SRC, Checker, run

EXAMPLE = os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "hdnnp")
RUNS = (("in.hdnnp", "log.23Aug23.hdnnp.g++.1"), ("in.hybrid", "log.23Aug23.hybrid.g++.1"))
links = "".join(f"shell ln -s {os.path.join(EXAMPLE, name)} {name}\n"
                for name in ("data.H2O-360mol", "hdnnp-data"))


def read(name):
    with open(os.path.join(EXAMPLE, name)) as fh:
        return fh.read()


def thermo_rows(text):
    """Thermo rows of the first run as lists of the printed strings, and the column names."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.split()[:2] == ["Step", "Temp"])
    cols, rows = lines[start].split(), []
    for line in lines[start + 1:]:
        if line.startswith("Loop time"):
            break
        if not line.startswith("###"):
            rows.append(line.split())
    return cols, rows


def last_digit(s):
    """Value of one unit in the last printed digit of a number string such as -750069.48,
    5761.8646 or 1.2e-05."""
    mantissa, _, exponent = s.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def summaries(text):
    return re.findall(r"### NNP EW SUMMARY ### TS:\s+(\d+) EW\s+(\d+)", text)


plugin_dir = os.path.dirname(os.environ["PK_PLUGIN"])
chk = Checker()
for example, log in RUNS:
    reference = read(log)
    ours = run(links + read(example), args=("-sf", "pk"),
               env_extra={"LAMMPS_PLUGIN_PATH": plugin_dir}, timeout=600)
    chk.contains(ours.output, "Loaded 1 plugins from", f"{example}: plugin autoloaded")
    chk.contains(ours.output, "pair_style hdnnp/pk: model hdnnp-data",
                 f"{example}: hdnnp/pk in use")
    chk.check(re.search(r"pair_style hdnnp/pk timing: 11880 atom evaluations", ours.output),
              f"{example}: timing summary with 11 x 1080 atom evaluations")
    ref_cols, ref_rows = thermo_rows(reference)
    cols, rows = thermo_rows(ours.output)
    chk.check(cols == ref_cols, f"{example}: thermo columns {cols} vs {ref_cols}")
    chk.check(len(rows) == len(ref_rows) == 11,
              f"{example}: {len(rows)} thermo rows, reference {len(ref_rows)}")
    exact = worst = 0
    for got, want in zip(rows, ref_rows):
        for name, g, w in zip(cols, got, want):
            diff = abs(float(g) - float(w)) / last_digit(w)
            worst = max(worst, diff)
            exact += g == w
            chk.check(diff <= 1.0, f"{example}: step {got[0]} {name}: {g} vs log {w}")
    print(f"{example}: {exact} of {len(ref_rows) * len(ref_cols)} printed thermo values "
          f"identical to {log}; largest difference {worst:.2f} units of the last printed digit")
    chk.check(rows[0][2] == "-750069.48", f"{example}: E_pair at step 0: {rows[0][2]}")
    chk.check(summaries(ours.output) == summaries(reference),
              f"{example}: EW summaries {summaries(ours.output)} vs log {summaries(reference)}")
    chk.check(("5", "0") in summaries(reference), f"{log}: no EW summary at step 5")
chk.finish()
