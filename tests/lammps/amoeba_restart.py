"""Restart round trip of amoeba/pk on the water box without Ewald.

A: 10 steps of NVE, write_restart, 10 more steps. B: read_restart, the fix property/atom
lines, special_bonds and pair_coeff given again (as for LAMMPS amoeba; the force field is
not in the restart file, the pair style and its settings are), 10 steps. B's steps 10-20
must equal A's to 1e-10 (E_pair, TotEng relative; positions in Angstrom): the per-atom
AMOEBA data comes back through the restart file and the topology is rebuilt the same way.
The settings survive: `elec smooth taper 6.5 exclude polar` written before is still in force
after (the log says smooth from 6.5 A, E_polar 0, E_mpole unchanged to 1e-12). Without pair_coeff after read_restart LAMMPS stops with a
message saying so."""
import os
import re

from amoeba_common import example, water_files
from pklmp import Checker, run

PAIR = "amoeba/pk elec lammps"
FIXES = """fix             amtype all property/atom i_amtype ghost yes
fix             extra all property/atom i_amgroup d_redID d_pval ghost yes
fix             extra2 all property/atom i_polaxe d2_xyzaxis 3
"""
OUTPUT = """compute         pa all pair amoeba/pk
thermo_style    custom step pe etotal c_pa[1] c_pa[4] c_pa[5]
thermo_modify   format float %.15g
thermo          5
fix             1 all nve
"""
DUMP = "write_dump all custom final.dump id x y z modify sort id format float %.17g\n"

first = re.sub(r"^pair_style\s+amoeba\s*$", "plugin load {plugin}\npair_style " + PAIR,
               example("in.water_box.amoeba"), flags=re.M)
first = first.replace("amoeba_water_box.key", "box.key")
first = first[:first.index("# thermo output")] + OUTPUT + "run 10\nwrite_restart r.restart\nrun 10\n" + DUMP


def second(restart, pair_coeff="pair_coeff * * amoeba_water.prm box.key\n", steps=10):
    return ("plugin load {plugin}\nread_restart " + restart + "\n" + FIXES + pair_coeff +
            "special_bonds lj/coul 0.5 0.5 0.5 one/five yes\n" + OUTPUT + f"run {steps}\n" + DUMP)


chk = Checker()
a = run(first, files=water_files())
restart = os.path.join(a.workdir, "r.restart")
b = run(second(restart), files=water_files())
chk.contains(b.output, "elec lammps", "pair style and mode come from the restart file")
rows_a, rows_b = a.thermo(1), b.thermo(0)
chk.check([r["Step"] for r in rows_a] == [r["Step"] for r in rows_b] == [10, 15, 20],
          "steps 10, 15, 20 in both")
worst = max(abs(rb[k] - ra[k]) / abs(ra[k]) for ra, rb in zip(rows_a, rows_b)
            for k in ("PotEng", "TotEng", "c_pa[1]", "c_pa[4]", "c_pa[5]"))
xa, xb = a.dump("final.dump"), b.dump("final.dump")
dx = max(abs(xb[i][k] - xa[i][k]) for i in xa for k in ("x", "y", "z"))
print(f"restarted vs continuous, steps 10-20: energies {worst:.2e} (relative), positions {dx:.2e} A")
chk.check(worst <= 1e-10, f"energies after restart differ by {worst:.3g} (> 1e-10)")
chk.check(dx <= 1e-10, f"positions after restart differ by {dx:.3g} A (> 1e-10)")

# the settings are kept: smooth mode, its taper and exclude
excl = first.replace("pair_style " + PAIR, "pair_style amoeba/pk taper 6.5 exclude polar")
excl = excl.replace("run 10\nwrite_restart r.restart\nrun 10\n", "run 0\nwrite_restart r.restart\n")
ea = run(excl, files=water_files())
eb = run(second(os.path.join(ea.workdir, "r.restart"), steps=0), files=water_files())
chk.contains(eb.output, "elec smooth (multipoles with shifted-force charges switched from 6.5 to 7 A",
             "elec smooth and taper 6.5 come from the restart file")
ra, rb = ea.thermo()[0], eb.thermo()[0]
chk.check(rb["c_pa[5]"] == 0.0, f"exclude polar kept: E_polar {rb['c_pa[5]']}")
chk.close(rb["c_pa[4]"], ra["c_pa[4]"], 1e-12, 1e-12, "E_mpole after restart")

# the force field must be given again
c = run(second(restart, pair_coeff=""), files=water_files(), expect_fail=True)
chk.contains(c.output, "pair_coeff * * file.prm [file.key] is needed (also after read_restart)",
             "missing pair_coeff after read_restart")
chk.finish()
