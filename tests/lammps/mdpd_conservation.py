"""mdpd/pk, Warren kernel, gamma = 0: NVE for 10^4 steps conserves the many-body energy.

With the Warren kernel the conservative force is the exact gradient of the reported
energy, so velocity Verlet must keep E_total bounded: the test measures the drift (linear
fit of E_total per atom over the run) and the RMS fluctuation, and bounds both."""
from mdpd_common import FILM, mdpd_pk
from pklmp import Checker, run

STEPS = 10000
SCRIPT = FILM + mdpd_pk(gamma=0.0) + f"""
fix 1 all nve
thermo 100
thermo_style custom step temp pe etotal
thermo_modify norm yes format float %.16g
run {STEPS}
"""

res = run(SCRIPT)
rows = res.thermo()
t = [r["Step"] * 0.01 for r in rows]
e = [r["TotEng"] for r in rows]
n = len(e)
tm, em = sum(t) / n, sum(e) / n
slope = sum((a - tm) * (b - em) for a, b in zip(t, e)) / sum((a - tm) ** 2 for a in t)
rms = (sum((b - em) ** 2 for b in e) / n) ** 0.5
drift = slope * (t[-1] - t[0])
scale = abs(em)
print(f"NVE {STEPS} steps, dt 0.01: E_total/N = {em:.8f}, drift over run = {drift:.3g} "
      f"({drift / scale:.3g} relative), RMS fluctuation = {rms:.3g} ({rms / scale:.3g} relative), "
      f"T = {rows[-1]['Temp']:.3f}")
chk = Checker()
chk.check(all(abs(x) < 1e6 for x in e), "energies are finite")
chk.check(abs(drift) / scale < 1e-3, f"relative drift {drift / scale:.3g} exceeds 1e-3")
chk.check(rms / scale < 1e-3, f"relative fluctuation {rms / scale:.3g} exceeds 1e-3")
chk.check(abs(rows[-1]["Temp"] - rows[0]["Temp"]) > 1e-3, "the system moved")
chk.finish()
