#!/usr/bin/env bash
# Run the whole PairKit test suite: builds what is missing (tools/setup.sh --no-demo), then
# ctest over unit, LAMMPS-integration, MPI and long-run tests. Extra arguments go to ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PAIRKIT_BUILD:-$root/build}
"$root/tools/setup.sh" --no-demo
cd "$build"
ctest --output-on-failure -j "${PAIRKIT_TEST_JOBS:-2}" "$@"
