"""Per-atom energies and virials of hdnnp/pk, and its global virial against finite
differences of the energy, on the n2p2 reference water (1080 atoms, metal units through
cflength/cfenergy).

  * sum of compute pe/atom = total energy, 1e-12 relative;
  * sum of compute stress/atom NULL pair = -(pair virial pressure) x volume, all six
    components, 1e-10 relative to the largest component;
  * the same per-atom arrays on 2 MPI ranks (ghost contributions reverse-communicated by the
    computes), 1e-10 relative to the largest value;
  * virial W_ab = -dE/d(strain_ab) from finite differences of the energy under affine box
    deformations (change_box ... remap; strains +-h, +-2h with h = 1e-4, Richardson
    extrapolation), for xx, yy, zz and the xy tilt, within 1e-6 relative to the largest
    component. The diagonal is also checked against the reference log of the LAMMPS example
    (Press column) by hdnnp_example_suffix.py."""
import math
import os

from hdnnp_common import CFLENGTH, NKTV2P, REF, read_n2p2, reference_data, script
from pklmp import Checker, run

PERATOM = """
compute pe all pe/atom
compute st all stress/atom NULL pair
compute sums all reduce sum c_pe c_st[1] c_st[2] c_st[3] c_st[4] c_st[5] c_st[6]
compute vir all pressure NULL virial
thermo_style custom step pe vol c_sums[*] c_vir[*]
thermo_modify format float %.17g
dump d all custom 1 dump.atoms id c_pe c_st[*]
dump_modify d format float %.17g
run 0
"""
STATS = ("c_st[1]", "c_st[2]", "c_st[3]", "c_st[4]", "c_st[5]", "c_st[6]")
H = 1e-4
STRAINS = ("xx", "yy", "zz", "xy")


def deform(name, strain, ly):
    """change_box arguments that apply `strain` (log strain for xx/yy/zz, engineering shear
    for xy) to the current box, and the ones that undo it."""
    if name == "xy":
        return f"xy final {strain * ly!r}", "xy final 0.0"
    axis = name[0]
    return f"{axis} scale {math.exp(strain)!r}", f"{axis} scale {math.exp(-strain)!r}"


def fd_script(ly):
    """run 0 at the undeformed box, then at strains +h, -h, +2h, -2h of each component."""
    lines = ["compute vir all pressure NULL virial",
             "thermo_style custom step pe vol c_vir[*]", "thermo_modify format float %.17g",
             "run 0", "change_box all triclinic"]
    for name in STRAINS:
        for strain in (H, -H, 2 * H, -2 * H):
            apply, undo = deform(name, strain, ly)
            lines += [f"change_box all {apply} remap", "run 0", f"change_box all {undo} remap"]
    return "\n".join(lines) + "\n"


chk = Checker()
files = {"water.data": reference_data()}
one = run(script(extra=PERATOM), files=files, timeout=300)
t = one.thermo()[-1]
esum_rel = abs(t["c_sums[1]"] - t["PotEng"]) / abs(t["PotEng"])
virial = [t[f"c_vir[{q}]"] * t["Volume"] for q in range(1, 7)]    # pressure x volume
vmax = max(abs(v) for v in virial)
vsum_rel = max(abs(t[f"c_sums[{q + 2}]"] + virial[q]) for q in range(6)) / vmax
print(f"sum of per-atom energies vs total: rel {esum_rel:.2e}; sum of per-atom virials vs "
      f"global: rel {vsum_rel:.2e} (largest |W| = {vmax / NKTV2P:.6g} eV)")
chk.check(esum_rel <= 1e-12, f"per-atom energies sum: rel {esum_rel:.3g} > 1e-12")
chk.check(vsum_rel <= 1e-10, f"per-atom virials sum: rel {vsum_rel:.3g} > 1e-10")

two = run(script(extra=PERATOM), files=files, nprocs=2, timeout=300)
a, b = one.dump("dump.atoms"), two.dump("dump.atoms")
for keys, label in ((("c_pe",), "per-atom energies"), (STATS, "per-atom virials")):
    scale = max(abs(r[k]) for r in a.values() for k in keys)
    d = max(abs(b[i][k] - r[k]) for i, r in a.items() for k in keys) / scale
    print(f"{label}, 2 ranks vs 1: largest difference / largest value {d:.2e}")
    chk.check(d <= 1e-10, f"{label} on 2 ranks: {d:.3g} > 1e-10")

# Finite differences of the energy, Richardson-extrapolated from steps h and 2h so that the
# O(h^2) truncation (3e-7 relative at h = 1e-4) drops out; round-off of E (~1e-9 eV) over
# 2h leaves ~1e-7 relative.
ly = read_n2p2(os.path.join(REF, "input.data"))[0][1][1] / CFLENGTH
fd = run(script(extra=fd_script(ly)), files=files, timeout=300)
w0 = [fd.thermo(0)[-1][f"c_vir[{q}]"] * fd.thermo(0)[-1]["Volume"] / NKTV2P for q in range(1, 7)]
wmax = max(abs(w) for w in w0)
for k, name in enumerate(STRAINS):
    e = [fd.thermo(1 + 4 * k + m)[-1]["PotEng"] for m in range(4)]    # +h, -h, +2h, -2h
    w_h = -(e[0] - e[1]) / (2 * H)
    w_2h = -(e[2] - e[3]) / (4 * H)
    w_fd = (4 * w_h - w_2h) / 3
    rel = abs(w_fd - w0[k]) / wmax
    print(f"virial {name}: pair style {w0[k]:.10g} eV, finite differences {w_fd:.10g} eV "
          f"(rel {rel:.2e}; plain central difference at h: {abs(w_h - w0[k]) / wmax:.2e})")
    chk.check(rel <= 1e-6, f"virial {name}: {w0[k]!r} vs finite differences {w_fd!r}")
chk.finish()
