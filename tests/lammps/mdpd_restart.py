"""mdpd/pk settings and coefficients survive write_restart/read_restart and
write_data/read_data: the restarted runs give the same energy and pressure."""
from mdpd_common import FILM, FROM_RESTART, mdpd_pk
from pklmp import Checker, run

FIRST = FILM.replace("create_box 1 box", "create_box 2 box").replace(
    "mass 1 1.0", "set group all type/fraction 2 0.3 777\nmass 1 1.0\nmass 2 1.5") + """
pair_style mdpd/pk 1.0 1.0 9872598 density lucy
pair_coeff 1 1 -40 25 18 1.0 0.75
pair_coeff 1 2 -30 20 9 0.9 0.7
pair_coeff 2 2 -45 28 4.5 1.0 0.8
fix 1 all nve
thermo_style custom step pe press
thermo_modify format float %.16g
run 20
write_restart state.restart
write_data state.data pair ij
run 0
"""
FROM_DATA = """
plugin load {plugin}
units lj
atom_style atomic
comm_modify vel yes
pair_style mdpd/pk 1.0 1.0 9872598 density lucy
read_data {dir}/state.data
reset_timestep 20
timestep 0.01
thermo_style custom step pe press
thermo_modify format float %.16g
run 0
"""

chk = Checker()
first = run(FIRST)
want = first.thermo(1)[0]
for name, script in (("restart", FROM_RESTART), ("data file", FROM_DATA)):
    res = run(script.replace("{dir}", first.workdir))
    got = res.thermo(0)[0]
    chk.close(got["PotEng"], want["PotEng"], 1e-12, 1e-12, f"{name}: E_pair")
    # The random force enters the pressure and is keyed by the timestep: same step, same value.
    chk.close(got["Press"], want["Press"], 1e-12, 1e-12, f"{name}: pressure")
    chk.check(got["Step"] == 20, f"{name}: timestep restored")
chk.finish()
