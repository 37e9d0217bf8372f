"""The cost of "AMOEBA-lite": amoeba/pk `elec smooth` against LAMMPS `amoeba` WITH Ewald (the
unchanged example key: Ewald multipoles and polarization, cutoff 7, taper 6) on the 648-atom
water box at step 0, in the same test run. amoeba/pk reads the same key without its Ewald
lines (both electrostatic switches from 6 to 7 A). Each term is run alone (`include hal`,
`include mpole`, `include polar`, in both styles) to compare its forces too.

Measured on this build (kcal/mol; force differences as the RMS over atoms and components
in kcal/mol/A, against the RMS component of the Ewald forces of that term):
  E_hal    972.2492 in both (no electrostatics)
  E_mpole  -2159.07 vs -2198.86 (+1.81%), forces RMS diff 0.767 of 10.09 (7.6%)
  E_polar   -960.08 vs  -945.45 (-1.55%), forces RMS diff 0.912 of 5.95 (15.3%)
  E_pair   -2146.90 vs -2172.06 (+1.16%), forces RMS diff 1.450 of 9.45 (15.3%)
Asserted with margin, tight enough that a broken switch or shift fails (the switch without
the charge shift gave E_mpole -2486 and an RMS difference of 26, pk_amoeba.h; the hard
cutoffs of elec lammps give -1764, +19.8%, and 18% of the RMS force, checked here): E_hal and the HAL forces to
1e-10 relative; E_mpole and E_polar within 2.5%, E_pair within 1.7%; force RMS differences
within 10% (mpole), 20% (polar) and 20% (all terms) of the RMS Ewald force."""
import math

from amoeba_common import example, run0, terms, water_files
from pklmp import Checker

chk = Checker()
EWALD = water_files(**{"amoeba_water_box.key": example("amoeba_water_box.key")})
KEYS = ("fx", "fy", "fz")
TERM_COLUMN = {"hal": "hal", "mpole": "mpole", "polar": "polar", "all": "E_pair"}
# (energy bound relative to |E_Ewald|, force RMS difference bound relative to the RMS force)
BOUNDS = {"mpole": (0.025, 0.10), "polar": (0.025, 0.20), "all": (0.017, 0.20)}


def rms(forces):
    """RMS over atoms and components."""
    return math.sqrt(sum(r[k] ** 2 for r in forces.values() for k in KEYS) / (3 * len(forces)))


def rms_diff(a, b):
    return math.sqrt(sum((a[i][k] - b[i][k]) ** 2 for i in b for k in KEYS) / (3 * len(b)))


def evaluate(pair, term, **kwargs):
    res = run0(pair if term == "all" else f"{pair} include {term}", **kwargs)
    return terms(res)[TERM_COLUMN[term]], res.dump("forces.dump")


for term in ("hal", "mpole", "polar", "all"):
    e_ref, f_ref = evaluate("amoeba", term, key="amoeba_water_box.key", files=EWALD)
    e_got, f_got = evaluate("amoeba/pk", term)
    rel = (e_got - e_ref) / abs(e_ref)
    frms, fdiff = rms(f_ref), rms_diff(f_got, f_ref)
    print(f"{term:5s}: smooth {e_got:.4f}, Ewald {e_ref:.4f} kcal/mol ({100 * rel:+.2f}%); "
          f"forces RMS difference {fdiff:.4f} of RMS {frms:.4f} kcal/mol/A ({100 * fdiff / frms:.1f}%)")
    if term == "hal":
        chk.close(e_got, e_ref, 1e-10, 1e-12, "E_hal (no electrostatics) vs LAMMPS with Ewald")
        chk.check(fdiff <= 1e-10 * frms, f"HAL forces differ by {fdiff:.3g}")
        continue
    ebound, fbound = BOUNDS[term]
    chk.check(abs(rel) <= ebound, f"{term}: energy differs from Ewald by {rel:.3g} (> {ebound})")
    chk.check(fdiff <= fbound * frms, f"{term}: force RMS difference {fdiff / frms:.3g} of the RMS "
              f"force (> {fbound})")
    if term == "mpole":
        e_hard, f_hard = evaluate("amoeba/pk elec lammps", term)
        hard_rel, hard_f = (e_hard - e_ref) / abs(e_ref), rms_diff(f_hard, f_ref) / frms
        print(f"mpole, hard cutoff (elec lammps): {e_hard:.4f} ({100 * hard_rel:+.2f}%), forces "
              f"{100 * hard_f:.1f}% of RMS")
        chk.check(abs(hard_rel) > ebound and hard_f > fbound,
                  "elec lammps is outside the smooth-mode bounds (they can fail)")
chk.finish()
