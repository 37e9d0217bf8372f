"""amoeba/pk on 1 and 2 MPI ranks, and on 1 rank with 2 OpenMP threads, in both
electrostatics modes (elec lammps and the default elec smooth): the 648-atom water box
without Ewald, the PCG converged to polar-eps 1e-8 through the key file.

Step 0: E_pair, E_hal, E_mpole, E_polar and every pair force equal to 1e-9 relative (forces:
of the largest force). This also exercises the per-rank topology work: frames whose atoms
are all owned by the other rank, H-reduction partners of ghost atoms, polarization groups
across ranks. Then 20 steps of NVE from the example's setup: E_pair and the positions
after 20 steps within 1e-9 (relative, and Angstrom).

Last, HAL alone on the box replicated 2x2x2 (5184 atoms, 1 and 2 ranks): E_hal must be 8x
LAMMPS amoeba's E_hal of the box to 1e-10. A ghost atom at the edge of the ghost shell can
lack its bonded H-reduction partner; taking another image of the partner instead (the
closest present, a box length away) moved E_hal by 5e-6 here, so this checks that such a
partner counts as absent (pk_amoeba_map_hred)."""
import re

from amoeba_common import (example, force_deviation, replicated, run0, set_key, terms,
                           water_files)
from pklmp import Checker, run

TIGHT = water_files()
TIGHT["box.key"] = set_key(TIGHT["box.key"], polar_eps="1e-8")


def md_script(pair):
    text = re.sub(r"^pair_style\s+amoeba\s*$", "plugin load {plugin}\npair_style " + pair,
                  example("in.water_box.amoeba"), flags=re.M)
    text = text.replace("amoeba_water_box.key", "box.key")
    text = re.sub(r"^thermo\s+10$", "thermo 5\nthermo_modify format float %.15g", text, flags=re.M)
    return re.sub(r"^run\s+100$", "run 20\nwrite_dump all custom final.dump id x y z modify sort "
                  "id format float %.17g", text, flags=re.M)


chk = Checker()
for pair in ("amoeba/pk elec lammps", "amoeba/pk elec smooth"):
    md = md_script(pair)
    ref0 = run0(pair, files=TIGHT)
    refmd = run(md, files=TIGHT)
    for where, kwargs in (("2 MPI ranks", {"nprocs": 2}),
                          ("2 OpenMP threads", {"env_extra": {"OMP_NUM_THREADS": "2"}})):
        label = f"{pair.split(maxsplit=1)[1]}, {where}"
        got0 = run0(pair, files=TIGHT, **kwargs)
        t_ref, t_got = terms(ref0), terms(got0)
        worst = max(abs(t_got[k] - t_ref[k]) / abs(t_ref[k]) for k in t_ref)
        fdev, _ = force_deviation(got0.dump("forces.dump"), ref0.dump("forces.dump"))
        print(f"{label} vs 1 rank, step 0: energies {worst:.2e}, forces {fdev:.2e} (relative)")
        chk.check(worst <= 1e-9, f"{label}: step-0 energies differ by {worst:.3g} (> 1e-9)")
        chk.check(fdev <= 1e-9, f"{label}: step-0 forces differ by {fdev:.3g} (> 1e-9)")

        gotmd = run(md, files=TIGHT, **kwargs)
        e_ref, e_got = refmd.thermo()[-1]["E_pair"], gotmd.thermo()[-1]["E_pair"]
        x_ref, x = refmd.dump("final.dump"), gotmd.dump("final.dump")
        dx = max(abs(x[i][k] - x_ref[i][k]) for i in x_ref for k in ("x", "y", "z"))
        de = abs(e_got - e_ref) / abs(e_ref)
        print(f"{label} vs 1 rank after 20 steps: E_pair {de:.2e} (relative), positions {dx:.2e} A")
        chk.check(de <= 1e-9, f"{label}: E_pair after 20 steps differs by {de:.3g} (> 1e-9)")
        chk.check(dx <= 1e-9, f"{label}: positions after 20 steps differ by {dx:.3g} A (> 1e-9)")

# HAL on the replicated box against 8x LAMMPS's on the box
e_box = terms(run0("amoeba include hal"))["hal"]
big = water_files(**{"data.big": replicated(example("data.water_box.amoeba"))})
big["box.key"] = "".join(l + "\n" for l in big["box.key"].splitlines() if not l.startswith("a-axis"))
for nprocs in (1, 2):
    e_big = terms(run0("amoeba/pk include hal", data="data.big", files=big, nprocs=nprocs))["hal"]
    print(f"HAL, box x 8 on {nprocs} rank(s): {e_big:.10f} vs 8 x LAMMPS's box {8 * e_box:.10f}")
    chk.close(e_big, 8 * e_box, 1e-10, 1e-12, f"E_hal of the 2x2x2 box on {nprocs} rank(s)")
chk.finish()
