"""Bad input to deepmd/pk through LAMMPS: each case must stop LAMMPS with an ERROR that names
the problem (and, for model files, the file, the line where YAML has one, and the key) --
never a crash, a hang or NaN forces. Plus the warnings: more neighbours than sel (once per
run, with the counts) and atoms closer than the embedding table covers (an error naming the
atom and the distance, which table_rmin or tabulate no cure). And the backend choice: a
backend or precision that cannot run here, from the input or PAIRKIT_BACKEND, is an error
that says why; the log line names the backend that runs.

Models: DeePMD-kit's deeppot_sea.yaml (reference/deepmd) and copies of it with one thing
broken (a key, or a value: a NaN weight or absurd statistics is refused at load, not run to a
NaN energy); a file that is not YAML; a file with the HDF5 signature that is not HDF5."""
import os
import tempfile

from deepmd_common import TWO_WATERS as DATA
from pklmp import Checker, run

SHARED = os.environ["PAIRKIT_SHARED"]
MODEL = os.path.join(SHARED, "reference", "deepmd", "deeppot_sea.yaml")
with open(MODEL) as fh:
    MODEL_TEXT = fh.read()



def script(style="deepmd/pk model.yaml", coeff="pair_coeff * * O H", units="units metal",
           extra=""):
    return f"""
plugin load {{plugin}}
{units}
atom_style atomic
{extra}
read_data data.water
pair_style {style}
{coeff}
run 0
"""


def broken(old, new):
    """The reference model with the first `old` replaced by `new`."""
    assert old in MODEL_TEXT, old
    return MODEL_TEXT.replace(old, new, 1)


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


# Written here, in binary: the test files of pklmp.run are text.
NOT_HDF5 = os.path.join(tempfile.mkdtemp(prefix="pk-deepmd-"), "model.dp")
with open(NOT_HDF5, "wb") as fh:
    fh.write(b"\x89HDF\r\n\x1a\n this is not an HDF5 file")
MALFORMED = "model:\n  type: standard\n  type_map: [O, H\n  descriptor: {}\n"
NOT_SE_A = broken("    type: se_e2_a", "    type: dpa1")
NO_RCUT_SMTH = broken("    rcut_smth: 0.5\n    resnet_dt", "    resnet_dt")
# A NaN weight (as Python's yaml writes it) and an absurd statistic: refused at load, naming
# the element and its line, instead of running to a NaN energy.
NAN_WEIGHT = broken("- - 0.4480607783689787", "- - .nan")
HUGE_DSTD = broken("- - - 0.13983584883542127", "- - - 1.0e+308")
# A finite but huge weight in a linear first embedding layer: no load check bounds weights,
# and the exact kernel builds no table, so it overflows at run time: stopped by the force check.
HUGE_LINEAR = broken("- - 0.4480607783689787\n                      - -0.8184588710236892\n"
                     "                      - -0.3212229262177685\n              \"@version\": 1\n"
                     "              activation_function: tanh",
                     "- - 1e307\n                      - -0.8184588710236892\n"
                     "                      - -0.3212229262177685\n              \"@version\": 1\n"
                     "              activation_function: none")
CASES = [
    # (what, input script, extra files, pieces the error must contain)
    ("malformed YAML", script(), {"model.yaml": MALFORMED},
     ["model.yaml:4", "malformed YAML"]),
    ("malformed HDF5", script(f"deepmd/pk {NOT_HDF5}"), {}, [NOT_HDF5]),
    ("missing model file", script("deepmd/pk no_such_model.yaml"), {},
     ["no_such_model.yaml", "cannot open the model file"]),
    ("missing key", script(), {"model.yaml": NO_RCUT_SMTH},
     ["model.yaml:", "model.descriptor.rcut_smth: missing key"]),
    ("unsupported descriptor", script(), {"model.yaml": NOT_SE_A},
     [f"model.yaml:{line_of(NOT_SE_A, 'type: dpa1')}", "model.descriptor.type",
      "descriptor 'dpa1' is not supported (only se_e2_a / se_a)"]),
    ("NaN weight", script(), {"model.yaml": NAN_WEIGHT},
     [f"model.yaml:{line_of(NAN_WEIGHT, '- - .nan')}: model.descriptor.embeddings.networks[0]"
      ".layers[0].@variables.w[0][0]: value nan is not finite"]),
    ("absurd statistics", script(), {"model.yaml": HUGE_DSTD},
     [f"model.yaml:{line_of(HUGE_DSTD, '- - - 1.0e+308')}: model.descriptor.@variables"
      ".dstd[0][0][0]: value 1e+308 is outside [0.0001, 10000]"]),
    ("overflowing weights, exact kernel", script("deepmd/pk model.yaml tabulate no"),
     {"model.yaml": HUGE_LINEAR},
     ["deepmd/pk: the force on atom", "is not finite", "at step 0: the model's network "
      "overflows for this configuration"]),
    ("frame parameters", script(), {"model.yaml": broken("numb_fparam: 0", "numb_fparam: 2")},
     ["model.fitting.numb_fparam", "frame parameters are not supported"]),
    ("TensorFlow model", script("deepmd/pk graph.pb"), {"graph.pb": "not read"},
     ["graph.pb: a TensorFlow/PyTorch model; convert it to the serialized form first: "
      "dp convert-backend graph.pb model.yaml"]),
    ("pair_coeff * * with more atom types than the model", script(coeff="pair_coeff * *")
     .replace("read_data data.water", "read_data data.water extra/atom/types 1"), {},
     ["pair_coeff * * without names maps atom type t to the model's type t, but there are 3 "
      "atom types and the model has 2 (O H); name them"]),
    ("type name not in type_map", script(coeff="pair_coeff * * O C"), {},
     ["element C (atom type 2) is not in the model's type_map: O H"]),
    ("pair_coeff not * *", script(coeff="pair_coeff 1 2 O H"), {},
     ["Pair_coeff must start with * * for pair style deepmd/pk"]),
    ("pair_coeff name count", script(coeff="pair_coeff * * O H O"), {},
     ["expected pair_coeff * * followed by 2 type_map name(s) or NULL"]),
    ("units real", script(units="units real"), {}, ["requires units metal", "not units real"]),
    ("newton pair off", script(extra="newton off"), {}, ["requires newton pair on"]),
    ("no model", script("deepmd/pk"), {}, ["expected model.yaml|model.dp"]),
    ("unknown keyword", script("deepmd/pk model.yaml table_size 0.01"), {},
     ["Illegal pair_style deepmd/pk keyword: table_size"]),
    ("keyword without value", script("deepmd/pk model.yaml table_step"), {},
     ["keyword table_step needs a value"]),
    ("table_step zero", script("deepmd/pk model.yaml table_step 0"), {},
     ["table_step must be > 0 (got 0)"]),
    ("table_rmin negative", script("deepmd/pk model.yaml table_rmin -1"), {},
     ["table_rmin must be > 0 (got -1)"]),
    ("tabulate not a boolean", script("deepmd/pk model.yaml tabulate maybe"), {},
     ["Expected boolean parameter instead of 'maybe'"]),
    ("table_step not a number", script("deepmd/pk model.yaml table_step x"), {},
     ["Expected floating point parameter instead of 'x'"]),
    ("precision mixed on the cpu backend",
     script("deepmd/pk model.yaml backend cpu precision mixed"), {},
     ["precision mixed is not available on the cpu backend of deepmd/pk"]),
    ("unknown backend", script("deepmd/pk model.yaml tabulate no backend bogus"), {},
     ["unknown backend 'bogus': expected auto, cpu, cuda or sve"]),
    ("backend without value", script("deepmd/pk model.yaml backend"), {},
     ["backend needs a value"]),
    # the CUDA backend's launch shape: checked when the pair style is read, on any machine
    ("cuda_columns 3", script("deepmd/pk model.yaml cuda_columns 3"), {},
     ["pair_style deepmd/pk: cuda_columns must be 1, 2 or 4 (got '3')"]),
    ("cuda_centres 0", script("deepmd/pk model.yaml cuda_centres 0"), {},
     ["pair_style deepmd/pk: cuda_centres must be an integer in 1 .. 64 (got '0')"]),
    ("cuda_threads 100", script("deepmd/pk model.yaml cuda_threads 100"), {},
     ["pair_style deepmd/pk: cuda_threads must be a multiple of 32 in 32 .. 1024 (got '100')"]),
    ("cuda_tune maybe", script("deepmd/pk model.yaml cuda_tune maybe"), {},
     ["pair_style deepmd/pk: cuda_tune must be yes or no (got 'maybe')"]),
    ("cuda_threads without value", script("deepmd/pk model.yaml cuda_threads"), {},
     ["keyword cuda_threads needs a value"]),
]
# With CUDA built (PK_CUDA_BUILT=1, set by CMake) backend cuda may run; without, it must say so.
if os.environ.get("PK_CUDA_BUILT") != "1":
    CASES.append(("backend cuda in a build without CUDA",
                  script("deepmd/pk model.yaml backend cuda"), {},
                  ["backend cuda cannot run: this PairKit was built without cuda"]))

chk = Checker()
for what, text, files, pieces in CASES:
    files = dict(files)
    files.setdefault("model.yaml", MODEL_TEXT)
    files["data.water"] = DATA
    res = run(text, files=files, expect_fail=True, timeout=120)
    print(f"{what}: " + next((l for l in res.output.splitlines() if "ERROR" in l), "no ERROR"))
    chk.check(res.returncode != 0, f"{what}: LAMMPS did not stop")
    chk.contains(res.output, "ERROR", what)
    for p in pieces:
        chk.contains(res.output, p, what)

# The good input runs (the cases above fail for the stated reason only).
res = run(script(), files={"model.yaml": MODEL_TEXT, "data.water": DATA}, timeout=120)
chk.check("ERROR" not in res.output and "WARNING" not in res.output.split("Loop time")[-1],
          "good input: no error or warning")
chk.contains(res.output, "rcut 6), cpu backend, double precision", "good input: log line")
# The launch keywords are accepted by every build and ignored by the cpu backend.
res = run(script("deepmd/pk model.yaml backend cpu cuda_tune no cuda_columns 2 cuda_centres 4 "
                 "cuda_threads 256"), files={"model.yaml": MODEL_TEXT, "data.water": DATA},
          timeout=120)
chk.check("ERROR" not in res.output, "cuda_* keywords with backend cpu: an error")

# A bad backend in the environment is refused, not ignored.
res = run(script(), files={"model.yaml": MODEL_TEXT, "data.water": DATA},
          env_extra={"PAIRKIT_BACKEND": "bogus"}, expect_fail=True, timeout=120)
chk.contains(res.output, "ERROR: pair_style deepmd/pk: environment variable "
             "PAIRKIT_BACKEND='bogus'", "PAIRKIT_BACKEND=bogus")

# An H atom 0.05 A from its O: beyond the table (default table_rmin 0.5 A covers s up to
# 5x its fine range, r ~ 0.09 A): an error naming the atom, the neighbour and the distance.
# table_rmin 0.02 covers it; the exact kernel needs no table.
close = DATA.replace("2 2 2.96 2.0 2.0", "2 2 2.05 2.0 2.0")
res = run(script(), files={"model.yaml": MODEL_TEXT, "data.water": close}, expect_fail=True,
          timeout=120)
chk.contains(res.output, "ERROR", "closer than the table")
chk.contains(res.output, "pair_style deepmd/pk: atom 1 (O) has a H neighbour at r = 0.05, "
             "closer than the embedding table covers", "closer than the table")
chk.contains(res.output, "smaller table_rmin or tabulate no", "closer than the table")
pe = {}
for style in ("deepmd/pk model.yaml table_rmin 0.02", "deepmd/pk model.yaml tabulate no"):
    res = run(script(style).replace("run 0", "thermo_style custom step pe\n"
                                    "thermo_modify format float %.15g\nrun 0"),
              files={"model.yaml": MODEL_TEXT, "data.water": close}, timeout=120)
    pe[style] = res.thermo()[-1]["PotEng"]
a, b = pe.values()
chk.close(a, b, 1e-8, 1.0, "table_rmin 0.02 vs exact kernel at r = 0.05 A")

# More O neighbours than sel (46) within rcut: one warning at the end of the run, with counts.
res = run(f"""
plugin load {{plugin}}
units metal
lattice sc 1.6
region box block 0 6 0 6 0 6
create_box 2 box
create_atoms 1 box
mass * 1.0
pair_style deepmd/pk {MODEL}
pair_coeff * * O H
run 0
""", timeout=300)
chk.contains(res.output, "WARNING: pair_style deepmd/pk: 216 centre evaluation(s) in this run "
             "had more neighbours of a type than the model's sel; the nearest sel were kept "
             "(largest counts seen: O 250, H 0)", "sel overflow warning")
chk.check(res.output.count("model's sel") == 1, "sel overflow: warned more than once")
chk.finish()
