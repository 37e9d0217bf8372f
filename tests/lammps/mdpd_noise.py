"""mdpd/pk `noise gaussian|uniform`: the uniform noise (Groot & Warren 1997) thermostats the
film to the set temperature as the Gaussian does; `noise gaussian` is the default stream; the
choice is in the log line and survives write_restart/read_restart; with uniform noise 2 MPI
ranks and 2 OpenMP threads follow the 1-rank trajectory (positions within 1e-9 after 200
steps, as lammps.mdpd_decomposition checks for the Gaussian).

Thermostat: the film (1152 beads, A=-40, B=25, gamma=18, kT=1) started at T=0.3, 3000
velocity-Verlet steps of dt=0.01; the mean temperature over the last 2000 steps (sampled
every 10) must be within 3% of kT for either noise (the velocity-Verlet DPD bias at this dt
is about 1%), and the two means within 1.5% of each other. The only property of xi that the
fluctuation-dissipation theorem fixes is its variance, so both must give the same T."""
import os

from mdpd_common import FILM, FROM_DATA, FROM_RESTART, NVE_200, mdpd_pk
from pklmp import Checker, run


def film(noise, start_t=1.0):
    style = mdpd_pk().replace("density warren", "density warren" + (f" noise {noise}" if noise else ""))
    return FILM.replace("velocity all create 1.0", f"velocity all create {start_t}") + style


THERMOSTAT = """
fix 1 all nve
thermo 10
thermo_style custom step temp
thermo_modify format float %.16g
run 3000
"""

chk = Checker()
means = {}
for noise in ("gaussian", "uniform"):
    res = run(film(noise, 0.3) + THERMOSTAT)
    chk.contains(res.output, f"{noise} noise", f"log line names {noise} noise")
    temps = [r["Temp"] for r in res.thermo() if r["Step"] > 1000]
    means[noise] = sum(temps) / len(temps)
    print(f"noise {noise}: mean T over steps 1000-3000 = {means[noise]:.6f} "
          f"({len(temps)} samples), target 1")
    chk.check(abs(means[noise] - 1.0) < 0.03, f"{noise}: mean T {means[noise]:.4f} not within 3% of 1")
chk.check(abs(means["uniform"] - means["gaussian"]) < 0.015,
          f"uniform mean T {means['uniform']:.4f} differs from gaussian {means['gaussian']:.4f} by > 1.5%")

# `noise gaussian` is the stream without the keyword, to the last bit; uniform is another one
SHORT = """
fix 1 all nve
thermo 20
thermo_style custom step temp press
thermo_modify format float %.17g
run 20
"""
plain, gauss, unif = (run(film(n) + SHORT).thermo()[-1] for n in (None, "gaussian", "uniform"))
chk.check(plain["Press"] == gauss["Press"] and plain["Temp"] == gauss["Temp"],
          "noise gaussian changes the default stream")
chk.check(unif["Press"] != gauss["Press"], "noise uniform gives the gaussian stream")

# the noise choice is in the restart file: the random force enters the pressure
FIRST = film("uniform") + """
fix 1 all nve
thermo_style custom step pe press
thermo_modify format float %.16g
run 20
write_restart state.restart
run 0
"""
first = run(FIRST)
want = first.thermo(1)[0]
res = run(FROM_RESTART.replace("{dir}", first.workdir))
got = res.thermo(0)[0]
chk.contains(res.output, "uniform noise", "restart: uniform noise restored")
chk.close(got["Press"], want["Press"], 1e-12, 1e-12, "restart: pressure (random virial)")

# rank and thread independence: xi depends on (seed, step, atom IDs) only
setup = run(FILM + "write_data film.data\n")
SCRIPT = (FROM_DATA.replace("{data}", os.path.join(setup.workdir, "film.data")) +
          mdpd_pk().replace("density warren", "density warren noise uniform") + NVE_200)
x_ref = run(SCRIPT).dump("final.dump")
for label, kwargs in (("2 MPI ranks", {"nprocs": 2}),
                      ("2 OpenMP threads", {"env_extra": {"OMP_NUM_THREADS": "2"}})):
    x = run(SCRIPT, **kwargs).dump("final.dump")
    chk.check(sorted(x) == sorted(x_ref), f"uniform, {label}: same atoms")
    dx = max(abs(x[i][k] - x_ref[i][k]) for i in x_ref for k in ("x", "y", "z"))
    print(f"noise uniform, {label} vs 1 rank: max |dx| after 200 steps = {dx:.3g}")
    chk.check(dx <= 1e-9, f"uniform, {label}: positions differ by {dx:.3g} (> 1e-9)")
chk.finish()
