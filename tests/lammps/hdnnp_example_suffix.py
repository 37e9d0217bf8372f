"""The LAMMPS ML-HDNNP examples (examples/PACKAGES/hdnnp: 360 water molecules, the RPBE-D3
model, 10 steps of NVE), run unchanged with `-sf pk` and the plugin autoloaded from
LAMMPS_PLUGIN_PATH, against their reference logs made by LAMMPS hdnnp with n2p2:
  in.hdnnp  (pair_style hdnnp)                         log.23Aug23.hdnnp.g++.1
  in.hybrid (pair_style hybrid lj/cut + hdnnp, types NULL H O)  log.23Aug23.hybrid.g++.1

Every thermo value of all 11 rows (Temp, E_pair, E_mol, TotEng, Press) must agree to the
precision the log prints: within one unit of its last printed digit (E_pair -750069.48 at
step 0: 0.01 eV). The extrapolation-warning summaries (showewsum 5) must appear at the same
steps with the same counts (hdnnp_common.check_example; lammps.hdnnp_cuda runs the same
comparison with backend cuda)."""
from hdnnp_common import EXAMPLE_RUNS, check_example, run_example
from pklmp import Checker

chk = Checker()
for example, log in EXAMPLE_RUNS:
    check_example(chk, example, log, run_example(example).output, example)
chk.finish()
