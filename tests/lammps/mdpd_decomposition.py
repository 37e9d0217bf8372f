"""mdpd/pk with noise on: 200 steps on 1 and 2 MPI ranks, and on 1 and 2 OpenMP threads.

The pair random numbers depend only on (seed, step, atom IDs), so the trajectories are
the same up to round-off, which the chaotic dynamics amplifies. Bar: positions within
1e-9 after 200 steps (the figures are printed)."""
import os

from mdpd_common import FILM, FROM_DATA, NVE_200, mdpd_pk
from pklmp import Checker, run

setup = run(FILM + "write_data film.data\n")
SCRIPT = (FROM_DATA.replace("{data}", os.path.join(setup.workdir, "film.data")) + mdpd_pk() +
          NVE_200)

chk = Checker()
ref = run(SCRIPT, nprocs=1)
x_ref = ref.dump("final.dump")
for label, kwargs in (("2 MPI ranks", {"nprocs": 2}),
                      ("2 OpenMP threads", {"env_extra": {"OMP_NUM_THREADS": "2"}})):
    got = run(SCRIPT, **kwargs)
    x = got.dump("final.dump")
    chk.check(sorted(x) == sorted(x_ref), f"{label}: same atoms")
    dx = max(abs(x[i][k] - x_ref[i][k]) for i in x_ref for k in ("x", "y", "z"))
    dv = max(abs(x[i][k] - x_ref[i][k]) for i in x_ref for k in ("vx", "vy", "vz"))
    de = abs(got.thermo()[-1]["PotEng"] - ref.thermo()[-1]["PotEng"])
    print(f"{label} vs 1 rank/1 thread after 200 steps: max |dx| = {dx:.3g}, "
          f"max |dv| = {dv:.3g}, |dE_pair| = {de:.3g}")
    chk.check(dx <= 1e-9, f"{label}: positions differ by {dx:.3g} (> 1e-9)")
    chk.check(de <= 1e-9, f"{label}: energies differ by {de:.3g} (> 1e-9)")
# The noise is on: a different seed must give a different trajectory.
other = run(SCRIPT.replace("9872598", "12345"))
dx = max(abs(other.dump("final.dump")[i]["x"] - x_ref[i]["x"]) for i in x_ref)
chk.check(dx > 1e-3, f"another seed changes the trajectory (max |dx| = {dx:.3g})")
chk.finish()
