#!/usr/bin/env bash
# Build everything PairKit needs on a bare Debian machine and run a short demo MD.
#
#   tools/setup.sh [--no-demo]
#
# 1. tools/bootstrap-lammps.sh: Debian packages + LAMMPS 4Feb2025 with PLUGIN, built once
#    and cached in $PAIRKIT_CACHE (default ~/.cache/pairkit).
# 2. Configure, build and install PairKit in $PAIRKIT_BUILD (default ./build); the plugin
#    lands in build/install/lib/lammps/plugins/pairkitplugin.so. The CUDA backends are
#    built when nvcc is found (PAIRKIT_SETUP_CUDA=on|off forces it); without a GPU they only
#    compile, and their tests report "skipped".
# 3. The demo: examples/mdpd/in.slab for 200 steps with the plugin autoloaded.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PAIRKIT_BUILD:-$root/build}
demo=1
[ "${1:-}" = "--no-demo" ] && demo=0

eval "$("$root/tools/bootstrap-lammps.sh" | grep -E '^LAMMPS_(SOURCE_DIR|ROOT)=')"

cuda=${PAIRKIT_SETUP_CUDA:-auto}
if [ "$cuda" = auto ]; then
    cuda=off
    if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=on; fi
fi
if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
echo "PairKit: CUDA backends $cuda"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPAIRKIT_CUDA="$cuda" \
    -DLAMMPS_SOURCE_DIR="$LAMMPS_SOURCE_DIR" -DLAMMPS_ROOT="$LAMMPS_ROOT" \
    -DCMAKE_INSTALL_PREFIX="$build/install" >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
cmake --install "$build" >/dev/null
plugins=$build/install/lib/lammps/plugins
echo "PairKit plugin installed in $plugins"
echo "Use it with:  export LAMMPS_PLUGIN_PATH=$plugins   (or 'plugin load $plugins/pairkitplugin.so')"

if [ $demo = 1 ]; then
    work=$(mktemp -d)
    echo "Demo: examples/mdpd/in.slab, 200 steps of a many-body DPD liquid slab, in $work"
    (cd "$work" && LAMMPS_PLUGIN_PATH=$plugins OMP_NUM_THREADS=1 \
        "$LAMMPS_ROOT/bin/lmp" -nocite -in "$root/examples/mdpd/in.slab" -var steps 200)
fi
