"""Per-atom energy and virial of amoeba/pk through LAMMPS, in both electrostatics modes, on 1
and 2 MPI ranks: the 648-atom water box without Ewald at step 0 (LAMMPS `amoeba` has no
per-atom energy or virial to compare with, so the reference is LAMMPS's own global tally of
the same evaluation). `compute stress/atom NULL pair` summed over atoms, divided by -V,
must equal `compute pressure NULL pair` component by component to 1e-10 of its largest
component, and `compute pe/atom` summed must equal E_pair to 1e-10 relative. On 2 ranks
this includes LAMMPS's reverse communication of the ghost atoms' shares (the virial of
torque-derived forces goes to the site that carries the torque, pk_amoeba.h)."""
from amoeba_common import run0
from pklmp import Checker

chk = Checker()
EXTRA = """compute pe all pe/atom
compute sa all stress/atom NULL pair
compute sums all reduce sum c_pe c_sa[1] c_sa[2] c_sa[3] c_sa[4] c_sa[5] c_sa[6]"""

for mode in ("lammps", "smooth"):
    for nprocs in (1, 2):
        row = run0(f"amoeba/pk elec {mode}", extra=EXTRA, thermo="vol c_sums[*]",
                   nprocs=nprocs).thermo()[0]
        label = f"elec {mode}, {nprocs} rank(s)"
        chk.close(row["c_sums[1]"], row["PotEng"], 1e-10, 1e-12, f"{label}: sum of per-atom energies")
        press = [row[f"c_vp[{k}]"] for k in range(1, 7)]
        from_atoms = [-row[f"c_sums[{k + 1}]"] / row["Volume"] for k in range(1, 7)]
        scale = max(abs(p) for p in press)
        dev = max(abs(a - p) for a, p in zip(from_atoms, press)) / scale
        print(f"{label}: E_pair {row['PotEng']:.6f}, sum of per-atom energies "
              f"{row['c_sums[1]']:.6f}; per-atom virial sum vs global pair virial {dev:.2e} of "
              f"its largest component ({scale:.1f} atm)")
        chk.check(dev <= 1e-10, f"{label}: per-atom virial sum differs by {dev:.3g} (> 1e-10)")
chk.finish()
