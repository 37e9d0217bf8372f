"""Bad input to amoeba/pk: each case must stop LAMMPS with a clear ERROR naming the problem
(never a crash, a hang or NaN), plus two inputs accepted on purpose and checked against
LAMMPS amoeba in the same test:

* unconverged induced dipoles (polar-iter 3 on the water box): a warning, once per run,
  the count in the end-of-run report, and the energy of the last iterate, equal to
  LAMMPS amoeba's with the same polar-iter to 1e-8 (LAMMPS warns every step);
* zero polarizability on the hydrogens (`polarize 2 0.0 ...`): non-polarizable atoms, as
  in Tinker; finite energies (LAMMPS amoeba gives NaN), within 1e-7 of LAMMPS amoeba with
  polarizability 1e-12 (both solvers weight by max(alpha, 1e-8)), and amoeba/pk at 1e-12
  equal to LAMMPS at 1e-12 to 1e-8.
A type with no polarize record at all is refused (LAMMPS would silently make it
non-polarizable). The backend keywords: a backend or precision this build cannot run, an
unknown word (in the input or in PAIRKIT_BACKEND) is an error saying so; the log line names
the backend that runs. With PK_CUDA_BUILT=1 (a build with -DPAIRKIT_CUDA=ON) `backend cuda`
may run, so that case is left out."""
import math
import os
import re

from amoeba_common import example, run0, set_key, terms, water_files
from pklmp import Checker

PAIR = "amoeba/pk elec lammps"


def replaced(text, pattern, repl):
    out, n = re.subn(pattern, repl, text, count=1, flags=re.M)
    assert n == 1, pattern
    return out


def with_file(name, pattern, repl):
    return water_files(**{name: replaced(example(name), pattern, repl)})


def edit(pattern, repl):
    return lambda script: replaced(script, pattern, repl)


def dimer(pair=PAIR, **kwargs):
    """One evaluation of the water dimer, expected to fail."""
    args = {"data": "data.water_dimer.amoeba", "boundary": "s s s", "key": "amoeba_water.key",
            "compute": "amoeba/pk", "expect_fail": True}
    args.update(kwargs)
    return run0(pair, **args)


no_prm = water_files()
del no_prm["amoeba_water.prm"]

CASES = [
    ("Ewald in the key file",
     lambda: run0(PAIR, files=water_files(**{"box.key": example("amoeba_water_box.key")}),
                  compute="amoeba/pk", expect_fail=True),
     "box.key:7: key 'ewald' is not supported by amoeba/pk"),
    ("HIPPO force field",
     lambda: dimer(files=water_files(**{"amoeba_water.prm": example("hippo_water.prm")})),
     "HIPPO"),
    ("HIPPO term in pair_style",
     lambda: dimer(PAIR + " include hal repulse"),
     "repulse is a HIPPO term; amoeba/pk supports AMOEBA only"),
    ("Ewald term in pair_style",
     lambda: dimer(PAIR + " exclude mpole/kspace"),
     "mpole/kspace is an Ewald (k-space) term; amoeba/pk has no Ewald sums"),
    ("unknown pair_style keyword",
     lambda: dimer(PAIR + " cutoff 9"),
     "Illegal pair_style amoeba/pk keyword: cutoff (expected elec, taper, include, exclude, "
     "backend, precision or device)"),
    ("unknown term",
     lambda: dimer(PAIR + " include vdw"),
     "unknown term vdw after include"),
    ("unknown electrostatics mode",
     lambda: dimer("amoeba/pk elec ewald"),
     "elec ewald (expected lammps or smooth)"),
    ("smooth switch (the default mode) starting beyond the cutoff: pair_style taper",
     lambda: dimer("amoeba/pk taper 12"),
     "elec smooth: the multipole switch starts at 12 A (from pair_style taper), which is not "
     "inside its cutoff 10 A"),
    ("smooth switch starting beyond the cutoff: key mpole-taper",
     lambda: dimer("amoeba/pk", files=water_files(**{"amoeba_water.key": example("amoeba_water.key")
                                                     + "mpole-taper 11\n"})),
     "the multipole switch starts at 11 A (from the key's taper or mpole-taper), which is not "
     "inside its cutoff 10 A"),
    ("taper not positive",
     lambda: dimer("amoeba/pk taper -1"),
     "Illegal pair_style amoeba/pk command: taper -1 (expected a distance >= 1 A or a fraction"),
    ("taper with elec lammps",
     lambda: dimer(PAIR + " taper 8"),
     "elec lammps has hard cutoffs (no taper)"),
    ("wrong pair_coeff",
     lambda: dimer(key="amoeba_water.key extra.key"),
     "expected pair_coeff * * file.prm [file.key]"),
    ("missing prm file",
     lambda: dimer(files=no_prm),
     "cannot open amoeba_water.prm"),
    ("missing i_polaxe and d2_xyzaxis",
     lambda: dimer(edit=edit(r"^fix\s+extra2.*$", "")),
     "per-atom property i_polaxe is not defined; define it with fix ID all property/atom i_polaxe"),
    ("i_amgroup without ghost yes",
     lambda: dimer(edit=edit(r"^fix\s+extra all.*$",
                             "fix extra all property/atom i_amgroup d_redID d_pval")),
     "per-atom property i_amgroup needs ghost yes"),
    ("missing one/five",
     lambda: dimer(edit=edit(r"one/five yes", "")),
     "requires 1-5 special neighbours: add one/five yes to special_bonds"),
    ("frame atoms not found (an O typed as H)",
     lambda: dimer(files=with_file("data.water_dimer.amoeba", r"^1 1$", "1 2")),
     "no multipole record of type 2 fits the bonds of atom 1 (frame atoms not found)"),
    ("AMOEBA type not in the prm file",
     lambda: dimer(files=with_file("data.water_dimer.amoeba", r"^1 1$", "1 99")),
     "atom 1 has AMOEBA type 99 (i_amtype), which amoeba_water.prm does not define"),
    # damaged numbers stop the run at load, naming file, line, keyword and value
    ("nan polarizability",
     lambda: dimer(files=with_file("amoeba_water.prm", r"^(polarize\s+2\s+)0\.496", r"\g<1>nan")),
     "amoeba_water.prm:160: 'polarize': value 2 'nan' is not a finite number"),
    ("absurd key cutoff",
     lambda: dimer(files=water_files(**{"amoeba_water.key": "cutoff 1e999\n"})),
     "amoeba_water.key:1: 'cutoff': value 1 '1e999' is not a finite number"),
    ("no polarize record",
     lambda: dimer(files=with_file("amoeba_water.prm", r"^polarize\s+2\s.*$", "")),
     "atom 2 has AMOEBA type 2, which has no polarize record in amoeba_water.prm"),
    ("units metal",
     lambda: dimer(edit=edit(r"^units\s+real$", "units metal")),
     "requires units real"),
    ("newton pair off",
     lambda: dimer(edit=edit(r"^units\s+real$", "units real\nnewton off on")),
     "requires newton pair on"),
    ("opbendtype other than ALLINGER (improper_style amoeba computes that angle only)",
     lambda: dimer(files=with_file("amoeba_water.prm", r"^opbendtype\s+ALLINGER", "opbendtype W-D-C")),
     "amoeba_water.prm:18: opbendtype 'W-D-C' is not supported"),
    ("precision mixed on the cpu backend",
     lambda: dimer(PAIR + " backend cpu precision mixed"),
     "precision mixed is not available on the cpu backend of amoeba/pk"),
    ("unknown backend",
     lambda: dimer(PAIR + " include hal backend bogus"),
     "unknown backend 'bogus': expected auto, cpu, cuda or sve"),
    ("backend without a value",
     lambda: dimer(PAIR + " backend"),
     "Illegal pair_style amoeba/pk command: backend needs a value"),
    ("unknown backend in the environment",
     lambda: dimer(env_extra={"PAIRKIT_BACKEND": "bogus"}),
     "environment variable PAIRKIT_BACKEND='bogus': expected auto, cpu, cuda or sve"),
]
if os.environ.get("PK_CUDA_BUILT") != "1":
    CASES.append(("backend cuda in a build without CUDA",
                  lambda: dimer(PAIR + " backend cuda"),
                  "backend cuda cannot run: this PairKit was built without cuda"))

chk = Checker()
for name, job, message in CASES:
    res = job()
    chk.check(res.returncode != 0, f"{name}: LAMMPS should have stopped")
    chk.contains(res.output, "ERROR", f"{name}: an ERROR line")
    chk.contains(res.output, message, name)
    chk.check("Segmentation" not in res.output and "nan" not in res.output.lower().split(),
              f"{name}: no crash")

# Accepted: unconverged dipoles -> one warning, the last iterate, as LAMMPS with polar-iter 3.
few = water_files()
few["box.key"] = set_key(few["box.key"], polar_iter="3")
ref = run0("amoeba", files=few)
got = run0(PAIR, files=few)
chk.contains(got.output, "WARNING: pair_style amoeba/pk: induced dipoles not converged within "
             "polar-iter 3 at step 0", "unconverged: warning")
chk.check(got.output.count("induced dipoles not converged") == 1, "unconverged: warned once")
chk.contains(got.output, "1 not converged within polar-iter 3", "unconverged: counted in report")
if os.environ.get("PK_CUDA_BUILT") != "1":   # else auto may choose a GPU
    chk.contains(got.output, "pair_style amoeba/pk: cpu backend, double precision", "log line")
t_ref, t_got = terms(ref), terms(got)
for key in t_ref:
    chk.check(math.isfinite(t_got[key]), f"unconverged: {key} finite")
    chk.close(t_got[key], t_ref[key], 1e-8, 1e-12, f"unconverged (polar-iter 3): {key} vs LAMMPS")

# Accepted: zero polarizability on H (non-polarizable hydrogens). LAMMPS amoeba gives NaN
# there; with alpha = 1e-12 it is finite and amoeba/pk must equal it. Both solvers use
# max(alpha, 1e-8) as the PCG weight, so alpha = 0 and 1e-12 differ at the 1e-8 level:
# amoeba/pk at alpha = 0 must be finite and within 1e-7 of LAMMPS at 1e-12.
def h_polarizability(alpha):
    files = with_file("amoeba_water.prm", r"^(polarize\s+2\s+)0\.496", r"\g<1>" + alpha)
    files["box.key"] = set_key(files["box.key"], polar_eps="1e-8")
    return files


tiny, zero = h_polarizability("1e-12"), h_polarizability("0.0")
t_ref = terms(run0("amoeba", files=tiny))
t_tiny = terms(run0(PAIR, files=tiny))
t_zero = terms(run0(PAIR, files=zero))
t_nan = terms(run0("amoeba", files=zero))
print(f"H polarizability 1e-12: E_polar amoeba/pk {t_tiny['polar']:.10f}, LAMMPS {t_ref['polar']:.10f}")
print(f"H polarizability 0: E_polar amoeba/pk {t_zero['polar']:.10f}, LAMMPS {t_nan['polar']}")
for key in t_ref:
    chk.close(t_tiny[key], t_ref[key], 1e-8, 1e-12, f"H polarizability 1e-12: {key} vs LAMMPS")
    chk.check(math.isfinite(t_zero[key]), f"zero polarizability: {key} finite")
    chk.close(t_zero[key], t_ref[key], 1e-7, 1e-12, f"zero polarizability: {key} vs LAMMPS at 1e-12")

# Accepted: the backend keywords after a term list (which they end), and the log line.
res = dimer(PAIR + " include hal mpole polar backend cpu precision double", expect_fail=False)
chk.contains(res.output, "pair_style amoeba/pk: cpu backend, double precision, CPU, 1 OpenMP "
             "thread; elec lammps", "backend cpu: log line")
chk.check(math.isfinite(terms(res)["E_pair"]), "backend cpu: finite energy")
chk.finish()
