#!/usr/bin/env bash
# Build LAMMPS (GPU package) and PairKit with CUDA on a GPU node without internet, run the
# CUDA and mdpd tests and the mdpd GPU benchmark.
#
#   tools/gpu-node.sh [STAGE...]        from the repository root; no STAGE: all of them
#
# Needs the bundle of tools/offline-bundle.sh in ./offline (or $BUNDLE), nvcc, cmake, a C/C++
# compiler; MPI is used when mpicc is found (the bench's 8-rank runs need it).
#
# Stages, run in this order:
#   info    GPU (nvidia-smi), driver, CUDA, compilers, MPI, CPU
#   unpack  check the bundle's SHA256SUMS, unpack the trimmed LAMMPS source, `dpkg -x` the
#           libyaml/Random123 .debs into a private prefix
#   lammps  configure and build LAMMPS with GPU (GPU_ARCH), PLUGIN, DPD-MESO, ... (make -j nproc)
#   plugin  configure and build PairKit with -DPAIRKIT_CUDA=ON against it (only the plugin
#           target when none of `test`, `bench`, `profile` is among the stages)
#   test    ctest -L cuda (none skipped, none missing), then ctest -R "$CTEST_ALSO" (unless empty)
#   bench   the GPU benches named in $BENCHES, each into $OUT/<style>_gpu.md: mdpd
#           (bench/mdpd_gpu.py $BENCH_ARGS: mdpd/gpu vs mdpd/pk cuda double and mixed), amoeba
#           (bench/amoeba_gpu.py: amoeba/gpu vs amoeba/pk cuda), deepmd and hdnnp
#           (bench/<style>_gpu.py: the cuda backend in both precisions vs the cpu backend on
#           all cores)
#   profile bench/gpu_profile.py for each style in $PROFILES: its kernels under Nsight Compute
#           (time, DRAM bytes and bandwidth, DRAM and SM % of peak) into $OUT/<style>_ncu.md
# A stage first runs the earlier ones it needs that have not run in $WORK yet (a fresh node
# starts from unpack; a warm one reuses $WORK), so `tools/gpu-node.sh bench` works on its own.
# It stops at the first failing stage, prints that stage's last lines and a summary.
#
# Environment (defaults):
#   WORK=/tmp/pairkit-node     unpacked source, prefix, builds (kept between calls)
#   OUT=./node-out             logs and results: node.log (all output), summary.txt,
#                              mdpd_gpu.md, logs.tar.gz (CMake/ctest/LAMMPS logs)
#   BUNDLE=./offline           the offline bundle
#   GPU_ARCH=sm_90             LAMMPS GPU_ARCH; PairKit gets CMAKE_CUDA_ARCHITECTURES=90
#   JOBS=$(nproc)              build parallelism;  CTEST_JOBS=8
#   CTEST_ALSO=mdpd            the other tests the test stage runs (a ctest -R regex; empty: none)
#   BENCHES="mdpd deepmd hdnnp amoeba"
#   BENCH_SECONDS=90           the most one bench may take
#   PROFILES="deepmd hdnnp amoeba"  the styles the profile stage runs under Nsight Compute
#   BENCH_ARGS="--replicate 3 --steps 300 --ranks 1,8"   mdpd's (add --ncu for Nsight Compute)
#   DEADLINE=570               seconds from the start after which the bench starts no new run
#                              (the device tool stops a command at 600 s)
#   NODE_DRY_RUN=1             configure only (no builds, tests or bench) and no GPU needed:
#                              for checking this script on a machine without a GPU
#   NODE_REQUIRE_GPU=0         let the info stage pass without a GPU (testing the script)
set -euo pipefail

if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
    exit 0
fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${WORK:-/tmp/pairkit-node}
OUT=${OUT:-$repo/node-out}
BUNDLE=${BUNDLE:-$repo/offline}
GPU_ARCH=${GPU_ARCH:-sm_90}
JOBS=${JOBS:-$(nproc)}
CTEST_JOBS=${CTEST_JOBS:-8}
CTEST_ALSO=${CTEST_ALSO-mdpd}
BENCHES=${BENCHES:-mdpd deepmd hdnnp amoeba}
PROFILES=${PROFILES:-deepmd hdnnp amoeba}
BENCH_SECONDS=${BENCH_SECONDS:-90}
BENCH_ARGS=${BENCH_ARGS:---replicate 3 --steps 300 --ranks 1,8}
DEADLINE=${DEADLINE:-570}
DRY=${NODE_DRY_RUN:-0}
REQUIRE_GPU=${NODE_REQUIRE_GPU:-1}
[ "$DRY" = 1 ] && REQUIRE_GPU=0
# LAMMPS packages: what PairKit's tests compare against, plus GPU. EXTRA-PAIR and MANYBODY
# (in bootstrap-lammps.sh's set, no test of the stages here needs them) can be added.
NODE_PACKAGES=${NODE_PACKAGES:-GPU PLUGIN DPD-MESO DPD-BASIC MOLECULE AMOEBA CLASS2 KSPACE EXTRA-MOLECULE OPENMP}

ALL_STAGES=(info unpack lammps plugin test bench profile)
t_start=$(date +%s)
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
NODELOG=$OUT/node.log
SUMMARY=$OUT/summary.txt
LOGDIR=$WORK/logs                    # detailed logs, packed into $OUT/logs.tar.gz at the end
mkdir -p "$LOGDIR"
: >"$NODELOG"
status_lines=()

say() { echo "[gpu-node $(date -u +%T)] $*" | tee -a "$NODELOG"; }
die() { say "error: $*"; exit 1; }

# ---- which stages ---------------------------------------------------------------------------
# With no stage named, all of them, but unpack and lammps only where not done yet in $WORK
# (a warm node keeps its LAMMPS build); naming them redoes them.
if [ $# -eq 0 ] || [ "$*" = all ]; then
    requested=("${ALL_STAGES[@]}")
    explicit=0
else
    requested=("$@")
    explicit=1
fi
for s in "${requested[@]}"; do
    case " ${ALL_STAGES[*]} " in *" $s "*) ;; *) die "unknown stage '$s' (stages: ${ALL_STAGES[*]})" ;; esac
done
wants() { case " ${requested[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
forced() { [ "$explicit" = 1 ] && wants "$1"; }

# ---- settings every stage shares ------------------------------------------------------------
LAMMPS_SRC=$WORK/lammps-4Feb2025
LAMMPS_BUILD=$WORK/lammps-build
LAMMPS_ROOT=$WORK/lammps-root        # bin/lmp -> the build directory's lmp (no install)
PREFIX=$WORK/prefix                  # dpkg -x of the .debs
PK_BUILD=$WORK/pairkit-build
PK_PREFIX=$WORK/pairkit-install
PLUGIN_DIR=$PK_PREFIX/lib/lammps/plugins
STAMP_UNPACK=$WORK/.stamp-unpack
STAMP_LAMMPS=$WORK/.stamp-lammps
STAMP_PLUGIN=$WORK/.stamp-plugin

case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) [ -d /usr/local/cuda/bin ] && PATH=$PATH:/usr/local/cuda/bin ;; esac
export PATH
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then MPI=on; else MPI=off; fi
# OpenMPI refuses root without these (the node runs commands as root); MPICH ignores them.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
cuda_arch_num=${GPU_ARCH#sm_}
lammps_config="$GPU_ARCH mpi=$MPI packages=$NODE_PACKAGES bundle=$(sha256sum "$BUNDLE/SHA256SUMS" 2>/dev/null | cut -c1-16)"

# The private prefix of the unpacked .debs: headers, libyaml, its pkg-config file.
prefix_env_set=0
setup_prefix_env() {
    [ "$prefix_env_set" = 1 ] && return 0
    prefix_env_set=1
    local multiarch=x86_64-linux-gnu
    export CPATH=$PREFIX/usr/include${CPATH:+:$CPATH}
    export LIBRARY_PATH=$PREFIX/usr/lib/$multiarch${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$PREFIX/usr/lib/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PKG_CONFIG_PATH=$PREFIX/usr/lib/$multiarch/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export CMAKE_PREFIX_PATH=$PREFIX/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
}

# ---- stages ---------------------------------------------------------------------------------
stage_info() {
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')   host: $(hostname)   repo: $repo"
    echo "pairkit: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo 'unknown (no git)')"
    echo "stages: ${requested[*]}   WORK=$WORK   GPU_ARCH=$GPU_ARCH   JOBS=$JOBS   MPI=$MPI"
    uname -a
    grep PRETTY_NAME /etc/os-release || true
    echo "--- CPU"
    lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)' || true
    free -g | head -2 || true
    df -h "$WORK" | tail -1 || true
    echo "--- GPU"
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm,clocks.max.mem \
            --format=csv || true
    elif [ "$REQUIRE_GPU" = 0 ]; then
        echo "no GPU (NODE_DRY_RUN=1 or NODE_REQUIRE_GPU=0: going on)"
    else
        echo "nvidia-smi failed or is missing: this is not a GPU node (NODE_REQUIRE_GPU=0 to go on)"
        return 1
    fi
    echo "--- tools"
    command -v nvcc >/dev/null || { echo "nvcc not found (looked in PATH and /usr/local/cuda/bin)"; return 1; }
    nvcc --version | tail -2
    cmake --version | head -1
    c++ --version | head -1
    if [ "$MPI" = on ]; then
        echo "mpicc: $(command -v mpicc); mpirun: $(mpirun --version 2>&1 | head -1)"
    else
        echo "no mpicc/mpirun: LAMMPS and PairKit without MPI, bench ranks > 1 impossible"
    fi
    python3 --version
    if command -v ncu >/dev/null 2>&1; then ncu --version | tail -1; else echo "ncu not on PATH"; fi
}

stage_unpack() {
    [ -f "$BUNDLE/SHA256SUMS" ] || { echo "no bundle in $BUNDLE: run tools/offline-bundle.sh on a connected machine and carry offline/"; return 1; }
    (cd "$BUNDLE" && sha256sum -c --quiet SHA256SUMS)
    echo "bundle $BUNDLE: checksums ok"
    cat "$BUNDLE/MANIFEST.txt"
    rm -rf "$LAMMPS_SRC" "$PREFIX" "$STAMP_LAMMPS" "$STAMP_PLUGIN"
    tar -C "$WORK" -xJf "$BUNDLE/lammps-4Feb2025-trimmed.tar.xz"
    mkdir -p "$PREFIX"
    for deb in "$BUNDLE"/debs/*.deb; do
        echo "dpkg -x $(basename "$deb")"
        dpkg -x "$deb" "$PREFIX"
    done
    # The .pc file says prefix=/usr; point it at the private prefix (the node's own
    # yaml-0.1.pc, if any, names headers that are not installed).
    local pc
    for pc in "$PREFIX"/usr/lib/*/pkgconfig/*.pc; do
        [ -f "$pc" ] && sed -i "s|^prefix=.*|prefix=$PREFIX/usr|" "$pc"
    done
    # libyaml-dev's libyaml.so is a relative link to libyaml-0.so.2 from libyaml-0-2: check it.
    ls -l "$PREFIX"/usr/lib/*/libyaml* "$PREFIX/usr/include/yaml.h" "$PREFIX/usr/include/Random123/philox.h"
    test -e "$PREFIX/usr/lib/x86_64-linux-gnu/libyaml.so"
    sha256sum <"$BUNDLE/SHA256SUMS" >"$STAMP_UNPACK"
}

stage_lammps() {
    local flags=() p
    for p in $NODE_PACKAGES; do flags+=("-DPKG_$p=on"); done
    cmake -S "$LAMMPS_SRC/cmake" -B "$LAMMPS_BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=on -DBUILD_MPI="$MPI" -DBUILD_OMP=on -DLAMMPS_EXCEPTIONS=on \
        -DWITH_JPEG=off -DWITH_PNG=off -DWITH_FFMPEG=off -DWITH_GZIP=on \
        -DGPU_API=cuda -DGPU_ARCH="$GPU_ARCH" -DCUDA_BUILD_MULTIARCH=off -DGPU_PREC=mixed \
        -DCMAKE_INSTALL_PREFIX="$WORK/lammps-install" "${flags[@]}" 2>&1 | tee "$LOGDIR/lammps-configure.log"
    if [ "$DRY" = 1 ]; then echo "dry run: LAMMPS configured, not built"; return 0; fi
    echo "building LAMMPS with $JOBS jobs (log: $LOGDIR/lammps-build.log)"
    if ! cmake --build "$LAMMPS_BUILD" -j "$JOBS" >"$LOGDIR/lammps-build.log" 2>&1; then
        grep -E -m 20 'error|Error' "$LOGDIR/lammps-build.log" || true
        tail -30 "$LOGDIR/lammps-build.log"
        return 1
    fi
    # Run lmp from the build directory (its RPATH points there); PairKit's CMake looks for
    # LAMMPS_ROOT/bin/lmp, so give it a prefix with that one link.
    mkdir -p "$LAMMPS_ROOT/bin"
    ln -sfn "$LAMMPS_BUILD/lmp" "$LAMMPS_ROOT/bin/lmp"
    "$LAMMPS_ROOT/bin/lmp" -h | sed -n '/Installed packages/,/^List of individual/p' | head -8
    echo "$lammps_config" >"$STAMP_LAMMPS"
}

stage_plugin() {
    local shared=()
    [ -d "$BUNDLE/shared/reference" ] && shared=(-DPAIRKIT_SHARED_DIR="$BUNDLE/shared")
    cmake -S "$repo" -B "$PK_BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DPAIRKIT_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch_num" \
        -DPAIRKIT_MPI="$MPI" -DLAMMPS_SOURCE_DIR="$LAMMPS_SRC" -DLAMMPS_ROOT="$LAMMPS_ROOT" \
        -DCMAKE_INSTALL_PREFIX="$PK_PREFIX" "${shared[@]}" 2>&1 | tee "$LOGDIR/pairkit-configure.log"
    grep -q "no lmp binary found" "$LOGDIR/pairkit-configure.log" && [ "$DRY" != 1 ] \
        && { echo "PairKit did not find $LAMMPS_ROOT/bin/lmp"; return 1; }
    if [ "$DRY" = 1 ]; then echo "dry run: PairKit configured, not built"; return 0; fi
    local target=()
    # the benches and the profile use the C bench programs
    wants test || wants bench || wants profile || target=(--target pairkitplugin)
    echo "building PairKit ${target[*]} with $JOBS jobs (log: $LOGDIR/pairkit-build.log)"
    if ! cmake --build "$PK_BUILD" -j "$JOBS" "${target[@]}" >"$LOGDIR/pairkit-build.log" 2>&1; then
        grep -E -m 20 'error|Error' "$LOGDIR/pairkit-build.log" || true
        tail -30 "$LOGDIR/pairkit-build.log"
        return 1
    fi
    grep -E -i 'warning' "$LOGDIR/pairkit-build.log" | head -20 || true
    # Install just the plugin where LAMMPS_PLUGIN_PATH can point (the build tree also holds
    # a test-only plugin twin).
    mkdir -p "$PLUGIN_DIR"
    cp -f "$PK_BUILD/src/lammps/pairkitplugin.so" "$PLUGIN_DIR/"
    ls -l "$PLUGIN_DIR"
    date +%s >"$STAMP_PLUGIN"
}

stage_test() {
    local log=$LOGDIR/ctest-cuda.log
    cd "$PK_BUILD"
    # On a GPU node a CUDA test that skips (no GPU seen) or a build without CUDA tests is a
    # failure, not a pass.
    ctest -L cuda --output-on-failure --no-tests=error -j "$CTEST_JOBS" 2>&1 | tee "$log"
    if grep -E -q '\*\*\*Skipped|Not Run' "$log"; then
        echo "CUDA tests were skipped on a GPU node: the GPU was not seen by the tests; their output:"
        ctest -L cuda -V 2>&1 | grep -v '^[0-9]*: Test command' | tail -40
        return 1
    fi
    [ -z "$CTEST_ALSO" ] || ctest -R "$CTEST_ALSO" --output-on-failure -j "$CTEST_JOBS" 2>&1 | tee "$LOGDIR/ctest-also.log"
}

bench_one() {
    local style=$1 remaining=$2
    case $style in
        mdpd)
            # BENCH_ARGS is split on spaces on purpose (options and their values).
            # shellcheck disable=SC2086
            python3 -u "$repo/bench/mdpd_gpu.py" --lmp "$LAMMPS_ROOT/bin/lmp" \
                --plugin-dir "$PLUGIN_DIR" --lammps-src "$LAMMPS_SRC" --out "$OUT/mdpd_gpu.md" \
                --logdir "$LOGDIR/bench" --max-seconds "$remaining" $BENCH_ARGS ;;
        amoeba)
            python3 -u "$repo/bench/amoeba_gpu.py" --lmp "$LAMMPS_ROOT/bin/lmp" \
                --plugin-dir "$PLUGIN_DIR" --lammps-src "$LAMMPS_SRC" \
                --out "$OUT/amoeba_gpu.md" --max-seconds "$remaining" ;;
        *)
            python3 -u "$repo/bench/${style}_gpu.py" --build "$PK_BUILD" \
                --out "$OUT/${style}_gpu.md" --max-seconds "$remaining" ;;
    esac
}

# Every bench named runs while time is left, also after one of them failed.
stage_bench() {
    local style remaining failed=""
    mkdir -p "$LOGDIR/bench"
    # the reference data (n2p2 water) the hdnnp bench reads: ../shared does not travel
    [ -d "$BUNDLE/shared/reference" ] && export PAIRKIT_SHARED=$BUNDLE/shared
    for style in $BENCHES; do
        remaining=$(( DEADLINE - ($(date +%s) - t_start) ))
        [ "$remaining" -gt 30 ] || { echo "no time left for the $style bench (DEADLINE=$DEADLINE s)"; return 1; }
        [ "$remaining" -le "$BENCH_SECONDS" ] || remaining=$BENCH_SECONDS
        echo "--- bench $style ($remaining s for it)"
        bench_one "$style" "$remaining" || failed="$failed $style"
    done
    [ -z "$failed" ] || { echo "benches that failed:$failed"; return 1; }
}

stage_profile() {
    local style remaining failed=""
    [ -d "$BUNDLE/shared/reference" ] && export PAIRKIT_SHARED=$BUNDLE/shared
    for style in $PROFILES; do
        remaining=$(( DEADLINE - ($(date +%s) - t_start) ))
        [ "$remaining" -gt 30 ] || { echo "no time left for the $style profile (DEADLINE=$DEADLINE s)"; return 1; }
        echo "--- profile $style ($remaining s left)"
        python3 -u "$repo/bench/gpu_profile.py" --build "$PK_BUILD" --style "$style" \
            --lmp "$LAMMPS_ROOT/bin/lmp" --lammps-src "$LAMMPS_SRC" \
            --out "$OUT/${style}_ncu.md" --timeout "$remaining" || failed="$failed $style"
    done
    [ -z "$failed" ] || { echo "profiles that failed:$failed"; return 1; }
}

# ---- running stages, logging, summary -------------------------------------------------------
finish() {
    local rc=$?
    {
        echo "PairKit GPU node run: stages ${requested[*]}; exit $rc; $(( $(date +%s) - t_start )) s in all"
        printf '%s\n' "${status_lines[@]}"
        grep -h -m1 -A1 '^name, driver_version' "$NODELOG" 2>/dev/null || true
        grep -h -m1 'release' "$NODELOG" 2>/dev/null | sed 's/^/nvcc: /' || true
        grep -h -E '^(100%|[0-9]+%) tests passed' "$NODELOG" 2>/dev/null | sed 's/^/ctest: /' || true
        local report
        for report in "$OUT"/*_gpu.md "$OUT"/*_ncu.md; do
            [ -f "$report" ] || continue
            echo; sed -n '/^|/,/^$/p' "$report"
            grep '^- NOT RUN' "$report" || true
            echo "bench report: $report"
        done
        echo "logs: $NODELOG, $OUT/logs.tar.gz (stage, CMake, ctest and LAMMPS run logs)"
    } >"$SUMMARY"
    # Detailed logs in one archive (the device tool brings back at most 8 files).
    local extra=()
    [ -f "$PK_BUILD/Testing/Temporary/LastTest.log" ] && extra=(-C "$PK_BUILD" Testing/Temporary/LastTest.log)
    tar -C "$WORK" -czf "$OUT/logs.tar.gz" logs "${extra[@]}" 2>/dev/null || true
    echo
    cat "$SUMMARY"
}
trap finish EXIT

run_stage() {
    local name=$1 t0 t1 rc start_line
    t0=$(date +%s)
    start_line=$(( $(wc -l <"$NODELOG") + 1 ))
    say "== stage $name: start"
    set +e
    ( set -euo pipefail; "stage_$name" ) >>"$NODELOG" 2>&1
    rc=$?
    set -e
    t1=$(date +%s)
    if [ $rc -ne 0 ]; then
        status_lines+=("$(printf '%-7s FAILED (exit %d) after %4d s' "$name" "$rc" $((t1 - t0)))")
        echo "---- last lines of stage $name:"
        tail -n +"$start_line" "$NODELOG" | tail -n 60
        say "== stage $name: FAILED (exit $rc) after $((t1 - t0)) s"
        exit 1
    fi
    status_lines+=("$(printf '%-7s ok %4d s' "$name" $((t1 - t0)))")
    say "== stage $name: ok, $((t1 - t0)) s"
}

# The plan: info always (the log says where it ran), then every stage up to the last one asked
# for that is asked for, or that a later planned stage needs and that has not run in $WORK.
last=0
for i in "${!ALL_STAGES[@]}"; do wants "${ALL_STAGES[$i]}" && last=$i; done
have_unpack=0; have_lammps=0; have_plugin=0
[ -f "$STAMP_UNPACK" ] && [ -d "$LAMMPS_SRC" ] && [ -d "$PREFIX" ] \
    && [ "$(cat "$STAMP_UNPACK")" = "$(sha256sum <"$BUNDLE/SHA256SUMS" 2>/dev/null)" ] && have_unpack=1
[ -f "$STAMP_LAMMPS" ] && [ "$(cat "$STAMP_LAMMPS")" = "$lammps_config" ] && [ -x "$LAMMPS_ROOT/bin/lmp" ] && have_lammps=1
[ -f "$STAMP_PLUGIN" ] && have_plugin=1
plan=(info)
in_plan() { case " ${plan[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
for i in "${!ALL_STAGES[@]}"; do
    s=${ALL_STAGES[$i]}
    [ "$i" -le "$last" ] || break
    case $s in
        unpack) { forced unpack || [ $have_unpack = 0 ]; } && plan+=(unpack) ;;
        lammps) { forced lammps || in_plan unpack || [ $have_lammps = 0 ]; } && plan+=(lammps) ;;
        # test and bench always rebuild the plugin: the working tree may have changed since
        # (an incremental build, seconds when nothing did)
        plugin) { wants plugin || wants test || wants bench || wants profile || in_plan lammps || [ $have_plugin = 0 ]; } \
                    && plan+=(plugin) ;;
        test | bench | profile) wants "$s" && [ "$DRY" != 1 ] && plan+=("$s") ;;
    esac
done
say "stages to run: ${plan[*]} (asked: ${requested[*]}); WORK=$WORK OUT=$OUT"
for s in "${plan[@]}"; do
    [ "$s" = info ] || [ "$s" = unpack ] || setup_prefix_env
    run_stage "$s"
done
say "all stages done"
