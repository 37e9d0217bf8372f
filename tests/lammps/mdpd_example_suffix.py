"""The LAMMPS DPD-MESO droplet example, unchanged but for its run length, runs on mdpd/pk
with `-sf pk`, the plugin autoloaded from LAMMPS_PLUGIN_PATH.

Step 0 has no random-force dependence in E_pair, so it must equal LAMMPS mdpd +
mdpd/rhosum in the same test to 1e-10 relative (and the example's own log, -13.346542,
to its 8 printed digits). Later steps depend on the random stream, which differs from
LAMMPS's per-rank generator by design, so they are compared statistically: the mean
E_pair and temperature over steps 100-300 within 1% of LAMMPS's."""
import os
import re

from pklmp import LAMMPS_SRC, Checker, run

STEPS = 300
src = os.path.join(LAMMPS_SRC, "examples", "PACKAGES", "dpd-meso", "mdpd", "in.mdpd")
with open(src) as fh:
    text = fh.read()
text = re.sub(r"^run\s+4000", f"run {STEPS}", text, flags=re.M)
text = re.sub(r"^thermo\s+100", "thermo 20", text, flags=re.M)
text = text.replace("thermo_modify       flush yes", "thermo_modify flush yes format float %.15g")

plugin_dir = os.path.dirname(os.environ["PK_PLUGIN"])
lammps = run(text)
ours = run(text, args=("-sf", "pk"), env_extra={"LAMMPS_PLUGIN_PATH": plugin_dir})

chk = Checker()
chk.contains(ours.output, "Loaded 1 plugins from", "plugin autoloaded")
chk.contains(ours.output, "pair_style mdpd/pk: cpu backend, double precision", "mdpd/pk in use")
chk.contains(ours.output, "cutoffs from mdpd/rhosum/pk", "companion in use")
ref0, got0 = lammps.thermo()[0], ours.thermo()[0]
chk.close(got0["E_pair"], ref0["E_pair"], 1e-10, 1e-12, "step 0 E_pair vs LAMMPS mdpd")
chk.close(got0["E_pair"], -13.346542, 5e-8, 1e-12, "step 0 E_pair vs log.16Aug17.mdpd.g++.1")


def mean(rows, key):
    sel = [r[key] for r in rows if r["Step"] >= 100]
    return sum(sel) / len(sel)


for key in ("E_pair", "Temp"):
    a, b = mean(ours.thermo(), key), mean(lammps.thermo(), key)
    print(f"mean {key} over steps 100-{STEPS}: mdpd/pk {a:.6f}, LAMMPS mdpd {b:.6f}")
    chk.close(a, b, 0.01, 1e-12, f"mean {key}")
chk.finish()
