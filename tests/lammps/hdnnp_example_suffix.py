"""The LAMMPS ML-HDNNP example (examples/PACKAGES/hdnnp/in.hdnnp: 360 water molecules, the
RPBE-D3 model, 10 steps of NVE), run unchanged with `-sf pk` and the plugin autoloaded from
LAMMPS_PLUGIN_PATH, against its reference log log.23Aug23.hdnnp.g++.1 (made by LAMMPS
hdnnp with n2p2).

Every thermo value of all 11 rows (Temp, E_pair, E_mol, TotEng, Press) must agree to the
precision the log prints: within one unit of its last printed digit (E_pair -750069.48 at
step 0: 0.01 eV). The extrapolation-warning summaries (showewsum 5) must appear at the same
steps with the same counts. The example's files are linked into the run directory with
`shell ln -s` before the example text."""
import os
import re

from pklmp import LAMMPS_SRC, Checker, run

EXAMPLE = os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "hdnnp")
with open(os.path.join(EXAMPLE, "in.hdnnp")) as fh:
    example = fh.read()
with open(os.path.join(EXAMPLE, "log.23Aug23.hdnnp.g++.1")) as fh:
    reference = fh.read()
links = "".join(f"shell ln -s {os.path.join(EXAMPLE, name)} {name}\n"
                for name in ("data.H2O-360mol", "hdnnp-data"))


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
ours = run(links + example, args=("-sf", "pk"), env_extra={"LAMMPS_PLUGIN_PATH": plugin_dir},
           timeout=600)

chk = Checker()
chk.contains(ours.output, "Loaded 1 plugins from", "plugin autoloaded")
chk.contains(ours.output, "pair_style hdnnp/pk: model hdnnp-data", "hdnnp/pk in use")
chk.contains(ours.output, "(1) pair hdnnp/pk, perpetual", "hdnnp/pk neighbour list")
chk.check(re.search(r"pair_style hdnnp/pk timing: 11880 atom evaluations", ours.output),
          "timing summary with 11 x 1080 atom evaluations")
ref_cols, ref_rows = thermo_rows(reference)
cols, rows = thermo_rows(ours.output)
chk.check(cols == ref_cols, f"thermo columns {cols} vs {ref_cols}")
chk.check(len(rows) == len(ref_rows) == 11, f"{len(rows)} thermo rows, reference {len(ref_rows)}")
exact = worst = 0
for got, want in zip(rows, ref_rows):
    for name, g, w in zip(cols, got, want):
        diff = abs(float(g) - float(w)) / last_digit(w)
        worst = max(worst, diff)
        exact += g == w
        chk.check(diff <= 1.0, f"step {got[0]} {name}: {g} vs log {w}")
print(f"{exact} of {len(ref_rows) * len(ref_cols)} printed thermo values identical to the log; "
      f"largest difference {worst:.2f} units of the last printed digit")
chk.check(rows[0][2] == "-750069.48", f"E_pair at step 0: {rows[0][2]}")
chk.check(summaries(ours.output) == summaries(reference) == [("0", "0"), ("5", "0"), ("10", "0")],
          f"EW summaries {summaries(ours.output)} vs log {summaries(reference)}")
chk.finish()
