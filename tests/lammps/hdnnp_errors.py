"""Bad input to hdnnp/pk through LAMMPS: each case must stop LAMMPS with an ERROR whose
message names the file, line or argument and the problem (never a crash, a hang or NaN).

Model-file cases run on copies of the reference model written into the run directory
(`dir .`) with one defect each. Extrapolation beyond maxew is in hdnnp_extrapolation.py.
The backend choice: a backend or precision that cannot run here, from the input or
PAIRKIT_BACKEND, is an error that says why; the log line names the backend that runs."""
import os

from hdnnp_common import REF, reference_data, script
from pklmp import Checker, run

MODEL_FILES = ("input.nn", "scaling.data", "weights.001.data", "weights.008.data")


def model(**changes):
    """The reference model's files, with changes[name] = new text (None drops the file)."""
    files = {}
    for name in MODEL_FILES:
        with open(os.path.join(REF, name)) as fh:
            files[name] = fh.read()
    for name, text in changes.items():
        files[name.replace("_", ".")] = text
    return {k: v for k, v in files.items() if v is not None}


def edited(name, old, new):
    with open(os.path.join(REF, name)) as fh:
        text = fh.read()
    assert old in text, f"{old!r} not in {name}"
    return text.replace(old, new, 1)


with open(os.path.join(REF, "weights.001.data")) as fh:
    weights_h = fh.read().splitlines(keepends=True)
# weights.001.data has 1376 values (27-25-25-1 network); drop the last line.
short_weights = "".join(weights_h[:-1])

GOOD = "hdnnp/pk 6.36 dir . showew no cflength 1.8897261328 cfenergy 0.0367493254"
CASES = [
    # (what, pair_style, pair_coeff, model files, expected text)
    ("missing model directory", "hdnnp/pk 6.36 dir /nonexistent/model", "* * H O", {},
     "pair_style hdnnp/pk: cannot open /nonexistent/model/input.nn: No such file or directory"),
    ("missing weights file", GOOD, "* * H O", model(weights_008_data=None),
     "cannot open ./weights.008.data: No such file or directory"),
    ("malformed symmetry-function line", GOOD, "* * H O",
     model(input_nn=edited("input.nn", "symfunction_short H 2 H 0.001 0.0 12.00",
                           "symfunction_short H 2 H 0.001 zero 12.00")),
     "./input.nn:51: 'symfunction_short': 'zero' is not a number"),
    # damaged numbers stop the run at load, naming file, line and value (never a NaN energy)
    ("nan weight", GOOD, "* * H O",
     model(weights_001_data=edited("weights.001.data", "  2.2490365890661286E+00 a", "  nan a")),
     "./weights.001.data:18: column 1: 'nan' is not a finite number"),
    ("overflowing scaling statistic", GOOD, "* * H O",
     model(scaling_data=edited("scaling.data", "9.6166419119419064E+00", "1e999")),
     "./scaling.data:16: column 4: '1e999' is not a finite number"),
    ("weights file with the wrong count", GOOD, "* * H O", model(weights_001_data=short_weights),
     "./weights.001.data: 1375 weights found, the network of H needs 1376"),
    ("unknown element in pair_coeff", GOOD, "* * H C", model(),
     "element C (atom type 2) is not in the model in .: its elements are H O"),
    ("cutoff below the largest symmetry-function cutoff",
     GOOD.replace("6.36", "6.3"), "* * H O", model(),
     "cutoff 6.3 is smaller than the model's largest symmetry-function cutoff 12 (model length "
     "units) / cflength 1.8897261328 = 6.3501265 (LAMMPS length units)"),
    ("cutoff in the wrong units (cflength missing)", "hdnnp/pk 6.36 dir . showew no", "* * H O",
     model(), "cutoff 6.36 is smaller than the model's largest symmetry-function cutoff 12"),
    ("every type NULL", GOOD, "* * NULL NULL", model(), "every atom type is NULL"),
    ("wrong pair_coeff count", GOOD, "* * H", model(),
     "expected pair_coeff * * followed by 2 element name(s) or NULL"),
    ("unknown keyword", GOOD + " showEW yes", "* * H O", model(),
     "Illegal pair_style hdnnp/pk keyword: showEW (expected dir, showew, showewsum, maxew, "
     "resetew, cflength, cfenergy, backend, precision or device)"),
    ("missing value", GOOD + " maxew", "* * H O", model(),
     "Illegal pair_style hdnnp/pk command: keyword maxew needs a value"),
    ("bad number", GOOD.replace("cflength 1.8897261328", "cflength 1.88x"), "* * H O", model(),
     "Expected floating point parameter instead of '1.88x'"),
    ("bad integer", GOOD + " showewsum 2.5", "* * H O", model(),
     "Expected integer parameter instead of '2.5'"),
    ("bad yes/no", GOOD.replace("showew no", "showew maybe"), "* * H O", model(),
     "Expected boolean parameter instead of 'maybe'"),
    ("non-positive cfenergy", GOOD.replace("cfenergy 0.0367493254", "cfenergy 0"), "* * H O",
     model(), "cfenergy must be > 0 (got 0)"),
    ("no cutoff", "hdnnp/pk", "* * H O", model(), "expected cutoff [dir D] [showew yes|no]"),
    ("precision mixed on the cpu backend", GOOD + " backend cpu precision mixed", "* * H O",
     model(), "precision mixed is not available on the cpu backend of hdnnp/pk"),
    ("unknown backend", GOOD.replace("showew no", "backend bogus showew no"), "* * H O", model(),
     "unknown backend 'bogus': expected auto, cpu, cuda or sve"),
    ("device without value", GOOD + " device", "* * H O", model(), "device needs a value"),
]
# With CUDA built (PK_CUDA_BUILT=1, set by CMake) backend cuda may run; without, it must say so.
if os.environ.get("PK_CUDA_BUILT") != "1":
    CASES.append(("backend cuda in a build without CUDA", GOOD + " backend cuda", "* * H O",
                  model(), "backend cuda cannot run: this PairKit was built without cuda"))

chk = Checker()
data = {"water.data": reference_data()}
for what, style, coeff, files, needle in CASES:
    res = run(script(style=style, coeff=coeff, extra="run 0"), files={**data, **files},
              expect_fail=True, timeout=120)
    chk.check(res.returncode != 0, f"{what}: LAMMPS did not stop")
    chk.contains(res.output, "ERROR", what)
    chk.contains(res.output, needle, what)

# newton pair off loses the ghost forces of the full list: refused.
res = run(script(style=GOOD, extra="run 0").replace("units metal", "units metal\nnewton off"),
          files={**data, **model()}, expect_fail=True, timeout=120)
chk.contains(res.output, "ERROR: pair_style hdnnp/pk requires newton pair on", "newton off")

# A bad backend in the environment is refused, not ignored; the good input names its backend.
res = run(script(style=GOOD, extra="run 0"), files={**data, **model()},
          env_extra={"PAIRKIT_BACKEND": "bogus"}, expect_fail=True, timeout=120)
chk.contains(res.output, "ERROR: pair_style hdnnp/pk: environment variable "
             "PAIRKIT_BACKEND='bogus'", "PAIRKIT_BACKEND=bogus")
res = run(script(style=GOOD, extra="run 0"), files={**data, **model()}, timeout=120)
chk.contains(res.output, "types 1:H 2:O; cpu backend, double precision", "good input: log line")
chk.finish()
