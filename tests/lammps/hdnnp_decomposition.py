"""hdnnp/pk on 1 and 2 MPI ranks and on 1 and 2 OpenMP threads, all from one data file (the
n2p2 reference water, 1080 atoms): energy, pressure, per-atom energies and forces at step 0,
then positions and forces after 5 NVE steps, within 1e-10 relative of the 1-rank/1-thread
run (forces relative to each component with the largest force / 1000 as floor; positions
within 1e-10 Angstrom). Ghost forces of the full neighbour list must be reverse-communicated
for the 2-rank run to agree."""
from hdnnp_common import reference_data, script
from pklmp import Checker, run

EXTRA = """
compute pe all pe/atom
thermo_style custom step pe press
thermo_modify format float %.17g
dump d0 all custom 1 dump0.atoms id fx fy fz c_pe
dump_modify d0 format float %.17g
run 0
undump d0
timestep 0.0005
fix 1 all nve
run 5
write_dump all custom dump5.atoms id x y z fx fy fz modify format float %.17g
"""
RTOL = 1e-10
FORCES = ("fx", "fy", "fz")


def rel_diff(got, ref, keys):
    """Largest |got - ref| / max(|ref|, floor), floor = largest |ref| over keys / 1000."""
    floor = 1e-3 * max(abs(r[k]) for r in ref.values() for k in keys)
    return max(abs(got[i][k] - r[k]) / max(abs(r[k]), floor) for i, r in ref.items() for k in keys)


def thermo_rel(got, ref, key):
    return abs(got[key] - ref[key]) / abs(ref[key])


files = {"water.data": reference_data()}
text = script(extra=EXTRA)
ref = run(text, files=files, timeout=300)
ref0, ref5 = ref.dump("dump0.atoms"), ref.dump("dump5.atoms")

chk = Checker()
for label, kwargs in (("2 MPI ranks", {"nprocs": 2}),
                      ("2 OpenMP threads", {"env_extra": {"OMP_NUM_THREADS": "2"}})):
    got = run(text, files=files, timeout=300, **kwargs)
    chk.contains(got.output, "CPU, 2 OpenMP threads" if "threads" in label
                 else "CPU, 1 OpenMP thread", f"{label}: log line")
    g0, g5 = got.dump("dump0.atoms"), got.dump("dump5.atoms")
    chk.check(sorted(g0) == sorted(ref0) and sorted(g5) == sorted(ref5), f"{label}: same atoms")
    diffs = {
        "step 0 energy": thermo_rel(got.thermo(0)[0], ref.thermo(0)[0], "PotEng"),
        "step 0 pressure": thermo_rel(got.thermo(0)[0], ref.thermo(0)[0], "Press"),
        "step 0 per-atom energy": rel_diff(g0, ref0, ("c_pe",)),
        "step 0 forces": rel_diff(g0, ref0, FORCES),
        "step 5 energy": thermo_rel(got.thermo(1)[-1], ref.thermo(1)[-1], "PotEng"),
        "step 5 positions (Angstrom)": max(abs(g5[i][k] - r[k]) for i, r in ref5.items()
                                           for k in ("x", "y", "z")),
        "step 5 forces": rel_diff(g5, ref5, FORCES),
    }
    print(f"{label} vs 1 rank, 1 thread: " +
          ", ".join(f"{name} {d:.2e}" for name, d in diffs.items()))
    for name, d in diffs.items():
        chk.check(d <= RTOL, f"{label}: {name} differ by {d:.3g} (> {RTOL})")
chk.finish()
