"""Bad input to mdpd/pk: each case must stop LAMMPS with a clear ERROR naming the problem
(never a crash, a hang or NaN forces)."""
import os

from pklmp import Checker, run

BASE = """
plugin load {plugin}
units lj
atom_style atomic
@IDS@
@COMM@
region box block 0 4 0 4 0 4
create_box 2 box
create_atoms 1 random 100 4821 NULL
create_atoms 2 random 100 4822 NULL
mass * 1.0
@VEL@
"""


def case(style, coeffs, comm="comm_modify vel yes", ids="", vel="velocity all create 1.0 4928"):
    return (BASE.replace("@COMM@", comm).replace("@IDS@", ids).replace("@VEL@", vel) +
            style + "\n" + coeffs + "\nrun 0\n")


GOOD = "pair_coeff * * -40 25 18 1.0 0.75"
CASES = [
    ("missing ghost velocities",
     case("pair_style mdpd/pk 1.0 1.0 42", GOOD, comm=""),
     "requires ghost atoms to store velocity: use comm_modify vel yes"),
    ("rd larger than rc",
     case("pair_style mdpd/pk 1.0 1.0 42", "pair_coeff * * -40 25 18 0.7 0.75"),
     "density cutoff rd = 0.75 is larger than cutoff rc = 0.7"),
    ("unset coefficients",
     case("pair_style mdpd/pk 1.0 1.0 42",
          "pair_coeff 1 1 -40 25 18 1.0 0.75\npair_coeff 2 2 -40 25 18 1.0 0.75"),
     "coefficients for type pair 1 2 are not set"),
    ("non-positive global cutoff",
     case("pair_style mdpd/pk 1.0 -1.0 42", GOOD), "cutoff must be > 0 (got -1)"),
    ("non-positive pair cutoff",
     case("pair_style mdpd/pk 1.0 1.0 42", "pair_coeff * * -40 25 18 1.0 -0.5"),
     "density cutoff rd must be > 0 (got -0.5)"),
    # Overflow never reaches a NaN force: LAMMPS refuses "nan", "inf" and "1e999" itself, and
    # a random-force amplitude sqrt(2 gamma kT) that overflows from finite inputs is refused
    # by the core, naming the type pair and its inputs.
    ("overflowing gamma",
     case("pair_style mdpd/pk 1.0 1.0 42", "pair_coeff * * -40 25 1e999 1.0 0.75"),
     "Floating point number 1e999 in input script or data file is out of range"),
    ("overflowing random force",
     case("pair_style mdpd/pk 1e200 1.0 42", "pair_coeff * * -40 25 1e200 1.0 0.75"),
     "type pair 1 1: random force amplitude sqrt(2 gamma kT) is not finite "
     "(gamma 1e+200, kT 1e+200)"),
    ("non-integer seed",
     case("pair_style mdpd/pk 1.0 1.0 4.5", GOOD), "Expected integer parameter instead of '4.5'"),
    ("negative seed",
     case("pair_style mdpd/pk 1.0 1.0 -7", GOOD), "seed must be a positive integer (got -7)"),
    ("negative temperature",
     case("pair_style mdpd/pk -1.0 1.0 42", GOOD), "temperature must be >= 0 (got -1)"),
    ("missing atom IDs",
     case("pair_style mdpd/pk 1.0 1.0 42", GOOD, ids="atom_modify id no",
          vel="velocity all create 1.0 4928 loop geom"),
     "requires atom IDs"),
    ("unknown keyword",
     case("pair_style mdpd/pk 1.0 1.0 42 kernel lucy", GOOD),
     "Illegal pair_style mdpd/pk keyword: kernel"),
    ("unknown density kernel",
     case("pair_style mdpd/pk 1.0 1.0 42 density gauss", GOOD),
     "density kernel gauss: expected warren or lucy"),
    ("unknown noise",
     case("pair_style mdpd/pk 1.0 1.0 42 noise normal", GOOD),
     "noise normal: expected gaussian or uniform"),
    ("noise keyword without a value",
     case("pair_style mdpd/pk 1.0 1.0 42 noise", GOOD),
     "noise needs gaussian or uniform"),
    ("wrong coefficient count",
     case("pair_style mdpd/pk 1.0 1.0 42", "pair_coeff * * -40 25 18 1.0"),
     "expected i j A B gamma rc rd"),
    ("companion with a non-positive density cutoff",
     case("pair_style hybrid/overlay mdpd/rhosum/pk mdpd/pk 1.0 1.0 42",
          "pair_coeff * * mdpd/rhosum/pk -0.5\npair_coeff * * mdpd/pk -40 25 18 1.0 0.75"),
     "mdpd/rhosum/pk: density cutoff must be > 0 (got -0.5)"),
    ("LAMMPS mdpd/rhosum beside mdpd/pk",
     case("pair_style hybrid/overlay mdpd/rhosum mdpd/pk 1.0 1.0 42",
          "pair_coeff * * mdpd/rhosum 0.75\npair_coeff * * mdpd/pk -40 25 18 1.0 0.75")
     .replace("atom_style atomic", "atom_style mdpd"),
     "use mdpd/rhosum/pk (or `suffix pk`) instead of mdpd/rhosum beside it"),
    ("companion without atom attribute rho",
     case("pair_style hybrid/overlay mdpd/rhosum/pk mdpd/pk 1.0 1.0 42",
          "pair_coeff * * mdpd/rhosum/pk 0.75\npair_coeff * * mdpd/pk -40 25 18 1.0 0.75"),
     "requires atom attribute rho (atom_style mdpd)"),
    ("companion without mdpd/pk",
     case("pair_style mdpd/rhosum/pk", "pair_coeff * * 0.75"),
     "mdpd/rhosum/pk only works together with mdpd/pk"),
]

# Backend choice: a GPU backend that cannot run here (not built, or no GPU), mixed precision
# on the cpu backend, unknown words in the input and in the environment.
CASES += [
    ("backend cuda that cannot run",
     case("pair_style mdpd/pk 1.0 1.0 42 backend cuda", GOOD), "backend cuda cannot run: "),
    ("mixed precision on the cpu backend",
     case("pair_style mdpd/pk 1.0 1.0 42 backend cpu precision mixed", GOOD),
     "precision mixed is not available on the cpu backend of mdpd/pk"),
    ("unknown backend",
     case("pair_style mdpd/pk 1.0 1.0 42 backend opencl", GOOD),
     "unknown backend 'opencl': expected auto, cpu, cuda or sve"),
    ("backend keyword without a value",
     case("pair_style mdpd/pk 1.0 1.0 42 backend", GOOD), "backend needs a value"),
    ("negative device",
     case("pair_style mdpd/pk 1.0 1.0 42 device -1", GOOD), "device must be >= 0 (got -1)"),
]
if os.environ.get("PK_CUDA_BUILT") != "1":
    CASES.append(("backend cuda in a build without CUDA",
                  case("pair_style mdpd/pk 1.0 1.0 42 backend cuda", GOOD),
                  "this PairKit was built without cuda (configure with -DPAIRKIT_CUDA=ON)"))

chk = Checker()
res = run(case("pair_style mdpd/pk 1.0 1.0 42", GOOD), expect_fail=True, timeout=120,
          env_extra={"PAIRKIT_BACKEND": "gpu"})
chk.contains(res.output, "environment variable PAIRKIT_BACKEND='gpu': expected auto, cpu, cuda "
             "or sve", "unknown backend in the environment")
for what, script, needle in CASES:
    res = run(script, expect_fail=True, timeout=120)
    chk.check(res.returncode != 0, f"{what}: LAMMPS did not stop")
    chk.contains(res.output, "ERROR", what)
    chk.contains(res.output, needle, what)

# A plugin built for another LAMMPS version must refuse to load, naming both versions.
wrong = os.environ["PK_WRONG_VERSION_PLUGIN"]
res = run(f"plugin load {wrong}\n", expect_fail=True, timeout=120)
chk.check(res.returncode != 0, "version mismatch: LAMMPS did not stop")
chk.contains(res.output, "built for LAMMPS version 1 Jan 2020 (20200101) but is loaded into "
          "LAMMPS version 20250204", "version mismatch")
chk.finish()
