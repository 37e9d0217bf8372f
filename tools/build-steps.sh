# Shared steps of the check scripts (tools/check-aarch64.sh, tools/check-sanitizers.sh);
# source it, do not run it.

say() { printf '\n== %s\n' "$*"; }

# build_with_warnings BUILD JOBS: build the configured BUILD quietly into BUILD/build.log;
# on failure show the errors and exit, else report the number of compiler warnings and the
# first of them.
build_with_warnings() {
    local build=$1 jobs=$2 nwarn
    say "build (C cores, unit tests, kernel benchmarks; -j$jobs)"
    if ! cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1; then
        grep -E -B2 -A6 'error' "$build/build.log" | head -n 80
        exit 1
    fi
    nwarn=$(grep -c 'warning:' "$build/build.log" || true)
    echo "built; $nwarn compiler warnings (log: $build/build.log)"
    grep -A3 'warning:' "$build/build.log" | head -n 40 || true
}
