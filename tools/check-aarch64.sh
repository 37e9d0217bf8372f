#!/usr/bin/env bash
# Cross-build PairKit's C cores, their SVE backends (src/sve) and unit tests for 64-bit Arm
# (cmake/aarch64-linux-gnu.cmake) and run the unit tests under qemu-aarch64. Checks that the
# portable C compiles unchanged on a CPU that is not x86 (no x86 intrinsics reach it: the
# *_avx.h headers stay out) and gives the tested numbers there, that each style's sve backend
# agrees with it at 128-, 256- and 512-bit vectors (unit.<style>_agree.sve.vl*), and that on an
# Arm CPU without SVE the sve backend declines to run instead of crashing.
# The portable C is built for plain Armv8 (SVE flags only on src/sve): qemu runs SVE code
# many times slower than NEON code, 512-bit SVE slowest.
#
# usage: tools/check-aarch64.sh [--all] [build-dir]
#   --all      also run the slow tests (finite differences, tabulation; about 20 minutes
#              under qemu on 2 cores instead of about 1)
#   build-dir  default build-aarch64/ in the checkout; reused by later runs, which
#              then rebuild only what changed
# environment: JOBS (parallel build and test jobs, default 2)
#
# Needs Debian or Ubuntu. As root it installs what is missing: the cross compilers and
# qemu-user, librandom123-dev (header only: the host's headers serve), and through multiarch
# (dpkg --add-architecture arm64) libyaml-dev:arm64 and libgomp1:arm64, which with
# libc6:arm64 are the runtime the tests run on. HDF5 is left out (libhdf5-dev:arm64
# cannot be installed beside the host's libhdf5-dev), so .dp models are refused.
set -euo pipefail

all=0
if [[ ${1:-} == --all ]]; then
    all=1
    shift
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-aarch64}
jobs=${JOBS:-2}
start=$SECONDS

# shellcheck source=tools/build-steps.sh
. "$root/tools/build-steps.sh"

# Slow under emulation (1 to 9 minutes each): run with --all.
slow="amoeba_fd deepmd_fd deepmd_table"

# ---- tools and target libraries ------------------------------------------------------------
say "tools and aarch64 libraries"
missing=()
for tool in aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu aarch64-linux-gnu-g++:g++-aarch64-linux-gnu \
            qemu-aarch64:qemu-user cmake:cmake pkg-config:pkg-config python3:python3; do
    command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
[[ -f /usr/include/Random123/philox.h ]] || missing+=(librandom123-dev)
arm64=()
for pkg in libyaml-dev:arm64 libgomp1:arm64; do
    dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q 'install ok installed' || arm64+=("$pkg")
done
if ((${#missing[@]} + ${#arm64[@]})); then
    if ((EUID != 0)); then
        echo "missing: ${missing[*]} ${arm64[*]} (run as root to install them, or install them:"
        echo "  dpkg --add-architecture arm64; apt-get update; apt-get install <those>)" >&2
        exit 1
    fi
    if ((${#arm64[@]})) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
        dpkg --add-architecture arm64
    fi
    echo "installing: ${missing[*]} ${arm64[*]}"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" "${arm64[@]}" > /dev/null
fi
aarch64-linux-gnu-gcc --version | head -n 1
qemu-aarch64 --version | head -n 1

# ---- configure and build -------------------------------------------------------------------
if [[ -f $build/CMakeCache.txt ]] && ! grep -q '^CMAKE_TOOLCHAIN_FILE:.*aarch64-linux-gnu.cmake' "$build/CMakeCache.txt"; then
    echo "$build holds a build for another target; name another directory" >&2
    exit 1
fi
say "configure $build"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DPAIRKIT_LAMMPS=OFF -DPAIRKIT_NATIVE=OFF -DPAIRKIT_TESTS=ON \
    -DPAIRKIT_SVE=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON > "$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
grep -E 'compiler identification|yaml|HDF5|OpenMP:' "$build/configure.log" || true

build_with_warnings "$build" "$jobs"

# ---- what was built ------------------------------------------------------------------------
say "checks"
exe=$build/tests/unit/amoeba/test_amoeba_read
file -b "$exe" | grep -q 'ARM aarch64' || { echo "not an aarch64 executable: $exe" >&2; exit 1; }
echo "test executables are aarch64: $(file -b "$exe" | cut -d, -f1-2)"
# the headers every core object was compiled with (the compiler's dependency files)
mapfile -t deps < <(find "$build/src" -name '*.o.d')
x86=$(grep -lE '_avx\.h|immintrin\.h|x86intrin\.h' "${deps[@]}" || true)
if [[ -n $x86 ]]; then
    printf 'x86 headers reached the aarch64 build:\n%s\n' "$x86" >&2
    exit 1
fi
echo "no x86 header (immintrin.h, *_avx.h) in the ${#deps[@]} core objects; portable forms used:"
grep -ohE '[a-z0-9_]+_generic\.h' "${deps[@]}" | sort | uniq -c | sed 's/^ */  /'

# A build without CUDA (the default, as here) holds no CUDA code at all.
libs=("$build"/src/*/libpk_*.a)
if aarch64-linux-gnu-nm -A "${libs[@]}" 2>/dev/null | grep -i cuda; then
    echo "CUDA symbols in a build without CUDA" >&2
    exit 1
fi
echo "no CUDA symbol in the ${#libs[@]} core libraries of this build without CUDA"

# ---- tests under qemu ----------------------------------------------------------------------
say "unit tests under qemu-aarch64 (-j$jobs)"
exclude=()
if ((!all)); then
    echo "not run: unit.${slow// /, unit.} (minutes each under emulation; --all runs them)"
    exclude=(-E "^unit\.(${slow// /|})\$")
fi
cd "$build"
rc=0
ctest -j "$jobs" --output-on-failure "${exclude[@]}" || rc=$?

say "sve backends on an Arm CPU without SVE (qemu -cpu cortex-a72)"
for exe in tests/unit/*/test_*_agree; do
    got=0
    said=$(qemu-aarch64 -cpu cortex-a72 "$exe" sve 2>&1) || got=$?
    if ((got != 77)) || ! grep -q 'no SVE' <<< "$said"; then
        printf '%s sve: expected a skip (exit 77) naming the missing SVE, got exit %d:\n%s\n' \
            "$exe" "$got" "$said" >&2
        rc=1
    else
        echo "$(basename "$exe"): $said"
    fi
done

say "done in $((SECONDS - start)) s"
exit $rc
