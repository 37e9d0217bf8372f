#!/usr/bin/env bash
# Build PairKit's C cores and unit tests with AddressSanitizer (out-of-bounds access,
# use-after-free, leaks) and UndefinedBehaviorSanitizer (signed overflow, bad shifts,
# misaligned access, invalid enum/bool values, float-to-int overflow, ...) and run every unit
# test. Any finding fails: UBSan is built non-recovering (-fno-sanitize-recover=all), ASan
# halts at the first error, and a test log holding a sanitizer report fails even if the test
# passed. The LAMMPS plugin and the CUDA backends are not built (PAIRKIT_SANITIZE refuses them).
#
# usage: tools/check-sanitizers.sh [build-dir]
#   build-dir  default build-sanitize/ in the checkout (build-sanitize-clang/ with CC=clang);
#              reused by later runs, which then rebuild only what changed
# environment:
#   CC         C compiler (default: CMake's choice, GCC on Debian); CC=clang uses Clang's
#              sanitizers (needs libclang-rt-14-dev and, for OpenMP, libomp-14-dev)
#   SANITIZE   the -fsanitize list (default address,undefined,float-cast-overflow: GCC's
#              "undefined" leaves out float-to-int overflow; Clang's includes it).
#              float-divide-by-zero is left out on purpose: the cores divide by zero where
#              IEEE infinities/NaN are wanted (Thole damping with no damping: r/0 = inf, then
#              not used; derived-table checks that turn 0/0 into a named "not finite" error).
#   JOBS       parallel build and test jobs (default 2)
#
# The build is RelWithDebInfo (-O2 -g): optimised like the real build, so the kernels' code
# paths (-march=native, omp simd, FMA contraction) are the ones checked, with line numbers
# in the reports.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cc=${CC:-cc}
default_build=$root/build-sanitize
if "$cc" --version 2> /dev/null | grep -qi clang; then
    default_build=$root/build-sanitize-clang
fi
build=${1:-$default_build}
sanitize=${SANITIZE:-address,undefined,float-cast-overflow}
jobs=${JOBS:-2}
start=$SECONDS

# shellcheck source=tools/build-steps.sh
. "$root/tools/build-steps.sh"

# ---- the compiler can build and run a sanitized program --------------------------------------
say "compiler"
"$cc" --version | head -n 1
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int main(void) { return 0; }\n' > "$probe/probe.c"
if ! "$cc" -fsanitize="$sanitize" "$probe/probe.c" -o "$probe/probe" 2> "$probe/err" ||
   ! "$probe/probe"; then
    cat "$probe/err" >&2
    echo "$cc cannot build with -fsanitize=$sanitize (Clang needs libclang-rt-14-dev;" \
         "GCC needs libasan and libubsan, part of Debian's gcc)" >&2
    exit 1
fi

# ---- configure and build ---------------------------------------------------------------------
if [[ -f $build/CMakeCache.txt ]] && ! grep -q '^PAIRKIT_SANITIZE:' "$build/CMakeCache.txt"; then
    echo "$build holds a build without sanitizers; name another directory" >&2
    exit 1
fi
say "configure $build (-fsanitize=$sanitize)"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAIRKIT_SANITIZE="$sanitize" \
    -DPAIRKIT_LAMMPS=OFF -DPAIRKIT_CUDA=OFF -DPAIRKIT_SVE=OFF -DPAIRKIT_TESTS=ON \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
grep -E 'compiler identification|sanitized|OpenMP:' "$build/configure.log" || true

build_with_warnings "$build" "$jobs"

# ---- every unit test, sanitized ----------------------------------------------------------------
# halt_on_error: stop at the first report; detect_leaks: LeakSanitizer at exit;
# allocator_may_return_null: an absurd allocation returns NULL as malloc does (the cores
# report it) instead of ASan aborting; detect_stack_use_after_return: also catch pointers to
# a returned function's locals. intercept_tls_get_addr=0: Clang 14's LeakSanitizer misreads
# glibc 2.36's dynamic TLS blocks and crashes in its tracer ("Tracer caught signal 11", seen
# in unit.amoeba_polar with libomp; google/sanitizers#1322); without it, LSan does not scan
# dynamic TLS, which could only add leak reports (the cores keep no thread-local data).
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1:strict_string_checks=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:report_error_type=1
export LSAN_OPTIONS=report_objects=1
say "unit tests (-j$jobs)"
cd "$build"
rc=0
ctest -j "$jobs" -R '^unit\.' --timeout 900 --output-on-failure | tee ctest.log || rc=$?
summary=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' ctest.log || true)
total=$(sed -nE 's/.* out of ([0-9]+).*/\1/p' <<< "$summary")
if [[ -z $total || $total -eq 0 ]]; then
    echo "no unit test ran" >&2
    rc=1
fi
# belt and braces: a report in any test's output fails the check, whatever its exit code
reports=$(grep -cE 'runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer' \
          Testing/Temporary/LastTest.log || true)
if ((reports)); then
    echo "$reports sanitizer report(s) in Testing/Temporary/LastTest.log:" >&2
    grep -E 'runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer' \
        Testing/Temporary/LastTest.log | sort | uniq -c >&2
    rc=1
fi

say "done in $((SECONDS - start)) s: ${summary:-no ctest summary}; $reports sanitizer reports"
exit $rc
