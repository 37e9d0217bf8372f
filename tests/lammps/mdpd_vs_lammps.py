"""mdpd/pk (Lucy density) against LAMMPS mdpd + mdpd/rhosum on the same configuration.

gamma = 0 removes the dissipative and random forces, so both styles must give the same
conservative forces, per-atom energies and stresses, E_pair and pressure. Two routes are
checked: mdpd/pk alone with `density lucy`, and the unchanged hybrid/overlay input under
`suffix pk` (mdpd/rhosum/pk companion). Two bead types with different masses and cutoffs
exercise the mass weighting and per-pair cutoffs. Tolerance: 1e-10 relative (per
component, with a floor of 1e-3 of the largest force for near-zero components)."""
from pklmp import Checker, max_abs, max_rel_diff, run

SETUP = """
plugin load {plugin}
units lj
atom_style mdpd
comm_modify vel yes
neighbor 0.3 bin
region box block 0 7 0 7 0 7
create_box 2 box
create_atoms 1 random 780 4821 NULL
create_atoms 2 random 250 9377 NULL
mass 1 1.0
mass 2 1.5
velocity all create 1.0 4928
timestep 0.01
compute pea all pe/atom
compute sa all stress/atom NULL pair
thermo_style custom step pe press
thermo_modify format float %.16g
"""

COEFFS = [("1 1", "-40 25 0.0 1.0 0.75", "0.75"),
          ("1 2", "-35 22 0.0 0.95 0.7", "0.7"),
          ("2 2", "-45 28 0.0 1.0 0.8", "0.8")]


def run0(tag):
    return f"""
dump d all custom 1 {tag}.dump id fx fy fz c_pea c_sa[1] c_sa[2] c_sa[3] c_sa[4] c_sa[5] c_sa[6]
dump_modify d format float %.17g
run 0
undump d
"""


lammps = "pair_style hybrid/overlay mdpd/rhosum mdpd 0.0 1.0 9872598\n"
for ij, c, h in COEFFS:
    lammps += f"pair_coeff {ij} mdpd/rhosum {h}\npair_coeff {ij} mdpd {c}\n"
ours = "pair_style mdpd/pk 0.0 1.0 9872598 density lucy\n"
for ij, c, _ in COEFFS:
    ours += f"pair_coeff {ij} {c}\n"
suffixed = "suffix pk\n" + lammps + "suffix off\n"

res = run(SETUP + lammps + run0("lammps") + ours + run0("ours") + suffixed + run0("suffix"))
chk = Checker()
chk.contains(res.output, "density kernel lucy (cutoffs from mdpd/rhosum/pk", "companion route used")
ref = res.dump("lammps.dump")
fmax = max_abs(ref, ["fx", "fy", "fz"])
chk.check(fmax > 1.0, f"reference forces are not trivial (max {fmax})")
cols_f = ["fx", "fy", "fz"]
cols_e = ["c_pea"] + [f"c_sa[{k}]" for k in range(1, 7)]
t_ref = res.thermo(0)[0]
for block, name in ((1, "ours"), (2, "suffix")):
    got = res.dump(f"{name}.dump")
    df = max_rel_diff(got, ref, cols_f, 1e-3 * fmax)
    emax = max_abs(ref, cols_e)
    de = max_rel_diff(got, ref, cols_e, 1e-3 * emax)
    print(f"{name}: max relative force difference {df:.3g}, per-atom energy/stress {de:.3g}")
    chk.check(df <= 1e-10, f"{name}: forces differ from LAMMPS mdpd by {df:.3g} relative")
    chk.check(de <= 1e-10, f"{name}: per-atom energy/stress differ by {de:.3g} relative")
    t = res.thermo(block)[0]
    chk.close(t["PotEng"], t_ref["PotEng"], 1e-10, 1e-12, f"{name}: E_pair")
    chk.close(t["Press"], t_ref["Press"], 1e-10, 1e-12, f"{name}: pressure")
chk.finish()
