"""deepmd/pk on 1 and 2 MPI ranks and on 1 and 2 OpenMP threads, both kernels: the same
energies, per-atom energies and forces to <= 1e-10 relative (the figures are printed), from
one data file (a 192-atom water box, tools/water_box.py) and the synthetic water model.
On 2 ranks the 12.4 A box is cut into 6.2 A slabs, thinner than the cutoff (6 A + skin): the
neighbours come through several ghost layers and their forces back by reverse
communication.

Also, in every run, the per-atom outputs add up to the totals: sum of compute pe/atom =
pe (1e-12 relative), sum of compute stress/atom = the pair virial of compute pressure
(1e-10 of its largest component)."""
from deepmd_common import WATER_MODEL, water_data
from pklmp import Checker, max_abs, max_rel_diff, run

NKTV2P = 1.6021765e6    # LAMMPS force->nktv2p for units metal


def script(style):
    st = " ".join(f"c_sst[{q}]" for q in range(1, 7))
    vir = " ".join(f"c_vir[{q}]" for q in range(1, 7))
    return f"""
plugin load {{plugin}}
units metal
atom_style atomic
atom_modify map yes
read_data water.data
pair_style {style}
pair_coeff * * O H
compute pe all pe/atom
compute st all stress/atom NULL pair
compute spe all reduce sum c_pe
compute sst all reduce sum c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6]
compute vir all pressure NULL virial
thermo_style custom step pe c_spe vol {vir} {st}
thermo_modify format float %.17g
dump d all custom 1 atoms.dump id fx fy fz c_pe
dump_modify d format float %.17g
run 0
"""


chk = Checker()
DATA = {"water.data": water_data(4)}
KERNELS = {"exact": f"deepmd/pk {WATER_MODEL} tabulate no",
           "tabulated": f"deepmd/pk {WATER_MODEL}"}
RUNS = {"1 rank": {}, "2 MPI ranks": {"nprocs": 2},
        "2 OpenMP threads": {"env_extra": {"OMP_NUM_THREADS": "2"}}}
for kernel, style in KERNELS.items():
    ref = None
    for label, kw in RUNS.items():
        res = run(script(style), files=DATA, timeout=300, **kw)
        th = res.thermo()[-1]
        atoms = res.dump("atoms.dump")
        chk.check(len(atoms) == 192, f"{kernel}, {label}: {len(atoms)} atoms in the dump")
        # Per-atom sums against totals.
        chk.close(th["c_spe"], th["PotEng"], 1e-12, 1.0, f"{kernel}, {label}: sum of pe/atom")
        vir = [th[f"c_vir[{q}]"] * th["Volume"] for q in range(1, 7)]
        sst = [-th[f"c_sst[{q}]"] for q in range(1, 7)]
        scale = max(abs(v) for v in vir)
        err = max(abs(a - b) for a, b in zip(sst, vir)) / scale
        print(f"{kernel}, {label}: |sum pe/atom - pe| / |pe| = "
              f"{abs(th['c_spe'] - th['PotEng']) / abs(th['PotEng']):.2e}, "
              f"sum stress/atom vs virial {err:.2e} (largest component {scale / NKTV2P:.3f} eV)")
        chk.check(err <= 1e-10, f"{kernel}, {label}: sum of stress/atom vs pair virial {err:.3g}")
        if ref is None:
            ref = (th, atoms)
            continue
        de = abs(th["PotEng"] - ref[0]["PotEng"]) / abs(ref[0]["PotEng"])
        df = max_rel_diff(atoms, ref[1], ("fx", "fy", "fz"), max_abs(ref[1], ("fx", "fy", "fz")))
        dpe = max_rel_diff(atoms, ref[1], ("c_pe",), max_abs(ref[1], ("c_pe",)))
        print(f"{kernel}, {label} vs 1 rank: energy {de:.2e}, forces {df:.2e}, per-atom energies "
              f"{dpe:.2e} (relative to the largest magnitude)")
        chk.check(de <= 1e-10, f"{kernel}, {label}: energy differs by {de:.3g} relative")
        chk.check(df <= 1e-10, f"{kernel}, {label}: forces differ by {df:.3g} relative")
        chk.check(dpe <= 1e-10, f"{kernel}, {label}: per-atom energies differ by {dpe:.3g}")
chk.finish()
