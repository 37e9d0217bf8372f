"""Restart round trip with hdnnp/pk. Like LAMMPS hdnnp the style stores nothing in restart
files (the model lives in its directory), so an input that reads a restart gives pair_style
and pair_coeff again. 3 NVE steps, write_restart, 3 more steps; then read_restart, the
same pair_style/pair_coeff, 3 steps: energies, pressures and final positions of the second
run must equal the first run's last 3 steps within 1e-10 relative (1e-10 Angstrom)."""
from hdnnp_common import STYLE, reference_data, script
from pklmp import Checker, run

MD = """
timestep 0.0005
fix 1 all nve
thermo 1
thermo_style custom step pe press
thermo_modify format float %.17g
run 3
write_restart water.restart
run 3
write_dump all custom final.dump id x y z modify format float %.17g
"""
first = run(script(extra=MD), files={"water.data": reference_data()}, timeout=300)
restart = f"{first.workdir}/water.restart"
second = run(f"""
plugin load {{plugin}}
read_restart {restart}
pair_style {STYLE}
pair_coeff * * H O
timestep 0.0005
fix 1 all nve
thermo 1
thermo_style custom step pe press
thermo_modify format float %.17g
run 3
write_dump all custom final.dump id x y z modify format float %.17g
""", timeout=300)

chk = Checker()
chk.contains(second.output, "pair style hdnnp/pk stores no restart info", "restart: no pair settings")
a, b = first.thermo(1), second.thermo(0)
chk.check([r["Step"] for r in a] == [r["Step"] for r in b] == [3, 4, 5, 6],
          f"steps {[r['Step'] for r in b]}")
for ra, rb in zip(a, b):
    for key in ("PotEng", "Press"):
        chk.close(rb[key], ra[key], 1e-10, 1e-12, f"step {ra['Step']:.0f} {key} after restart")
xa, xb = first.dump("final.dump"), second.dump("final.dump")
dx = max(abs(xb[i][k] - xa[i][k]) for i in xa for k in ("x", "y", "z"))
print(f"after restart: largest position difference at step 6 {dx:.2e} Angstrom; E_pair "
      f"{b[-1]['PotEng']!r} vs {a[-1]['PotEng']!r}")
chk.check(dx <= 1e-10, f"positions after restart differ by {dx:.3g} Angstrom")
chk.finish()
