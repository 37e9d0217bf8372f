"""hdnnp/pk through LAMMPS (`run 0`) against n2p2's own prediction for the RPBE-D3 water
model: the energy and all 1080 x 3 force components of reference/n2p2/H2O_RPBE-D3/input.data
(reference-prediction.txt, Bohr and Hartree).

Two runs, both compared with n2p2 at 1e-10 relative (forces per component, relative to the
component with the largest force / 1000 as floor, as the core's unit test):
  metal units: the structure converted to Angstrom, cflength 1.8897261328 and cfenergy
    0.0367493254 (the LAMMPS example's factors); LAMMPS's eV and eV/Angstrom are converted
    back with the same factors;
  model units: the structure kept in Bohr, cflength = cfenergy = 1, so LAMMPS numbers are
    Hartree and Hartree/Bohr directly.
A wrong or missing conversion of positions, energies or forces fails one of the two."""
from hdnnp_common import CFENERGY, CFLENGTH, STYLE, REF, read_reference, reference_data, script
from pklmp import Checker, run

OUTPUT = """
thermo_style custom step pe
thermo_modify format float %.17g
dump d all custom 1 dump.atoms id fx fy fz
dump_modify d format float %.17g
run 0
"""
RTOL = 1e-10

e_ref, f_ref = read_reference()
fmax = max(abs(c) for f in f_ref for c in f)
chk = Checker()
chk.check(len(f_ref) == 1080, f"reference has {len(f_ref)} force rows, expected 1080")

RUNS = [("metal units (cflength/cfenergy)", STYLE, reference_data(), CFENERGY,
         CFENERGY / CFLENGTH),
        ("model units (Bohr, Hartree)", f"hdnnp/pk 12.0 dir {REF} showew no",
         reference_data(scale=1.0), 1.0, 1.0)]
for label, style, data, e_factor, f_factor in RUNS:
    res = run(script(style=style, extra=OUTPUT), files={"water.data": data}, timeout=300)
    chk.contains(res.output, "cpu backend, double precision", f"{label}: log line")
    energy = res.thermo()[-1]["PotEng"] * e_factor
    rows = res.dump("dump.atoms")
    chk.check(len(rows) == len(f_ref), f"{label}: {len(rows)} atoms dumped")
    worst, bad = 0.0, 0
    for i, fr in enumerate(f_ref):
        for k, key in enumerate(("fx", "fy", "fz")):
            rel = abs(rows[i + 1][key] * f_factor - fr[k]) / max(abs(fr[k]), 1e-3 * fmax)
            worst = max(worst, rel)
            bad += rel > RTOL
    erel = abs(energy - e_ref) / abs(e_ref)
    print(f"{label}: energy {energy!r} Ha vs n2p2 {e_ref!r} (rel {erel:.2e}); forces: "
          f"largest relative difference {worst:.2e} over {3 * len(f_ref)} components")
    chk.check(erel <= RTOL, f"{label}: energy rel {erel:.3g} > {RTOL}")
    chk.check(bad == 0, f"{label}: {bad} force components off by more than {RTOL} (worst "
                        f"{worst:.3g})")
chk.finish()
