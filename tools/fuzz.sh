#!/usr/bin/env bash
# Build the libFuzzer harnesses (fuzz/, PAIRKIT_FUZZ=ON, clang) and fuzz every model reader
# and coefficient parser for a bounded number of inputs. Fails on any crash, leak, hang
# (-timeout), memory blow-up (-rss_limit_mb / -malloc_limit_mb) or sanitizer report.
#
#   tools/fuzz.sh [--runs N] [--seconds S] [--jobs J] [--merge] [--keep DIR] [reader ...]
#
#   --runs N     inputs per reader (default 100000, the CI bound)
#   --seconds S  stop a reader after S seconds as well (default: no time bound)
#   --jobs J     readers fuzzed at once (default 2)
#   --merge      then minimise fuzz/corpus/<reader> with the new inputs (-merge=1), to commit;
#                this mode seeds from files of this repository only, so that nothing from
#                ../shared (licences: DESIGN.md) can end up in the corpus
#   --keep DIR   keep the logs, new inputs and crash artifacts in DIR (default: a temp dir,
#                removed unless something failed)
#   reader ...   a subset of the readers below (default: all)
#
# Seeds (read only): fuzz/corpus/<reader>, the small models of fuzz/data, and real files:
# ../shared/reference (n2p2 water model, deeppot_sea.yaml), the LAMMPS examples (amoeba
# prm/key, hdnnp-data) and tests/unit/*/data. Real files are first run whole, one by one;
# fuzzing then starts from all of them (cut to the reader's -max_len).
# Build directory: build-fuzz/ in the checkout (PK_FUZZ_BUILD overrides).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${PAIRKIT_SHARED_DIR:-$ROOT/../shared}
LAMMPS_SRC=${LAMMPS_SOURCE_DIR:-$HOME/.cache/pairkit/lammps-4Feb2025}
BUILD=${PK_FUZZ_BUILD:-$ROOT/build-fuzz}
READERS_ALL=(deepmd_yaml deepmd_json deepmd_options hdnnp_input hdnnp_scaling hdnnp_weights
             amoeba_prm amoeba_key mdpd_coeff backend_words)

RUNS=100000 SECONDS_MAX=0 JOBS=2 MERGE=0 KEEP=""
READERS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --seconds) SECONDS_MAX=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --merge) MERGE=1; shift ;;
    --keep) KEEP=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) READERS+=("$1"); shift ;;
  esac
done
[ ${#READERS[@]} -gt 0 ] || READERS=("${READERS_ALL[@]}")
for r in "${READERS[@]}"; do
  [[ " ${READERS_ALL[*]} " == *" $r "* ]] || { echo "fuzz.sh: unknown reader $r" >&2; exit 2; }
done

# ---- toolchain (clang 14 and its libFuzzer/sanitizer runtimes) -----------------------------
need_pkg() { dpkg -s "$1" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$1"; }; }
if command -v dpkg >/dev/null 2>&1; then
  for p in clang libclang-rt-14-dev; do need_pkg "$p"; done
fi
command -v clang >/dev/null || { echo "fuzz.sh: clang not found" >&2; exit 1; }

# ---- build ----------------------------------------------------------------------------------
t_build=$(date +%s)
mkdir -p "$BUILD"
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPAIRKIT_FUZZ=ON -DPAIRKIT_LAMMPS=OFF -DPAIRKIT_CUDA=OFF -DPAIRKIT_OPENMP=OFF \
  -DPAIRKIT_TESTS=OFF -DPAIRKIT_SHARED_DIR="$SHARED" > "$BUILD/fuzz-configure.log" 2>&1 \
  || { cat "$BUILD/fuzz-configure.log"; exit 1; }
targets=() kept=()
for r in "${READERS[@]}"; do
  if [ -d "$BUILD/fuzz/CMakeFiles/fuzz_$r.dir" ]; then
    targets+=(--target "fuzz_$r") kept+=("$r")
  else   # deepmd_json needs HDF5 and cJSON (src/deepmd/CMakeLists.txt)
    echo "fuzz.sh: $r skipped: this build has no fuzz_$r (see $BUILD/fuzz-configure.log)"
  fi
done
READERS=("${kept[@]}")
cmake --build "$BUILD" -j "$JOBS" "${targets[@]}" > "$BUILD/fuzz-build.log" 2>&1 \
  || { tail -40 "$BUILD/fuzz-build.log"; exit 1; }
echo "fuzz.sh: built in $(( $(date +%s) - t_build )) s ($BUILD)"

# ---- per reader: seeds and input size bound ------------------------------------------------
EX=$LAMMPS_SRC/examples
N2P2=$SHARED/reference/n2p2/H2O_RPBE-D3
real_files() {   # real files of reader $1 (those that exist)
  local f
  case $1 in
    deepmd_yaml) f="$SHARED/reference/deepmd/deeppot_sea.yaml $ROOT/tests/unit/deepmd/data/synth_a.yaml
                    $ROOT/tests/unit/deepmd/data/synth_b.yaml $ROOT/fuzz/data/deepmd_tiny.yaml" ;;
    hdnnp_input) f="$N2P2/input.nn $EX/PACKAGES/hdnnp/hdnnp-data/input.nn $ROOT/fuzz/data/n2p2/input.nn" ;;
    hdnnp_scaling) f="$N2P2/scaling.data $ROOT/fuzz/data/n2p2/scaling.data" ;;
    hdnnp_weights) f="$N2P2/weights.001.data $ROOT/fuzz/data/n2p2/weights.001.data" ;;
    amoeba_prm) f="$(ls "$EX"/amoeba/*.prm 2>/dev/null) $ROOT/tests/unit/amoeba/data/amoeba_water.prm" ;;
    amoeba_key) f="$(ls "$EX"/amoeba/*.key "$ROOT"/tests/unit/amoeba/data/*.key 2>/dev/null)" ;;
    *) f="" ;;
  esac
  for x in $f; do
    [ -f "$x" ] || continue
    if [ "$MERGE" = 1 ]; then case $x in "$ROOT"/*) ;; *) continue ;; esac; fi
    echo "$x"
  done
}
max_len() {
  case $1 in
    deepmd_yaml|deepmd_json) echo 16384 ;;
    amoeba_prm) echo 8192 ;;
    hdnnp_*) echo 4096 ;;
    amoeba_key) echo 1024 ;;
    *) echo 256 ;;
  esac
}

WORK=${KEEP:-$(mktemp -d /tmp/pkfuzz-run.XXXXXX)}
mkdir -p "$WORK"
run_reader() {   # fuzz reader $1; writes $WORK/$1.{log,result}
  local r=$1 bin=$BUILD/fuzz/fuzz_$1 d=$WORK/$1
  mkdir -p "$d/new" "$d/seeds" "$d/artifacts" "$ROOT/fuzz/corpus/$1"
  local files
  files=$(real_files "$r")
  local i=0
  for x in $files; do i=$((i + 1)); ln -sf "$x" "$d/seeds/$i-$(basename "$x")"; done
  local t0 rc=0
  t0=$(date +%s.%N)
  {
    # the real files whole (no -max_len cut), then bounded fuzzing from every seed
    if [ -n "$files" ]; then
      # shellcheck disable=SC2086
      "$bin" -rss_limit_mb=2048 -timeout=20 $files || exit $?
    fi
    local time_arg=()
    [ "$SECONDS_MAX" != 0 ] && time_arg=(-max_total_time="$SECONDS_MAX")
    "$bin" -runs="$RUNS" "${time_arg[@]}" -max_len="$(max_len "$r")" -timeout=10 \
      -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$d/artifacts/" -close_fd_mask=1 \
      "$d/new" "$ROOT/fuzz/corpus/$r" "$d/seeds"
  } > "$WORK/$r.log" 2>&1 || rc=$?
  local t1
  t1=$(date +%s.%N)
  # final libFuzzer statistics; coverage as "at start/at end" (edges)
  awk -v r="$r" -v t0="$t0" -v t1="$t1" -v rc="$rc" '
    /stat::number_of_executed_units:/ { execs = $2 }
    /stat::new_units_added:/ { added = $2 }
    /INITED/ && / cov: / { for (i = 1; i < NF; i++) if ($i == "cov:") c0 = $(i + 1) }
    / cov: / { for (i = 1; i < NF; i++) if ($i == "cov:") c1 = $(i + 1) }
    END { printf "%s %d %.1f %d %s/%s %s\n", r, execs, t1 - t0, added, (c0 == "" ? "?" : c0),
                 (c1 == "" ? "?" : c1), rc }' "$WORK/$r.log" > "$WORK/$r.result"
}

t_fuzz=$(date +%s)
pids=()
for r in "${READERS[@]}"; do
  run_reader "$r" &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
done
for p in "${pids[@]}"; do wait "$p" || true; done

# ---- report ----------------------------------------------------------------------------------
status=0
printf '%-16s %12s %9s %9s %6s  %s\n' reader executions seconds exec/s new "coverage start/end"
for r in "${READERS[@]}"; do
  read -r name execs secs new cov rc < "$WORK/$r.result"
  printf '%-16s %12s %9s %9s %6s  %s%s\n' "$name" "$execs" "$secs" \
    "$(awk -v n="$execs" -v s="$secs" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')" "$new" \
    "$cov" "$([ "$rc" = 0 ] || echo "  FAILED (exit $rc)")"
  if [ "$rc" != 0 ]; then
    status=1
    echo "---- $r: $WORK/$r.log ----"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written|^ +#[0-9] ' "$WORK/$r.log" | head -30 || true
  fi
done
echo "fuzz.sh: fuzzing took $(( $(date +%s) - t_fuzz )) s, $JOBS at a time; logs in $WORK"

if [ "$MERGE" = 1 ]; then
  for r in "${READERS[@]}"; do
    read -r _ _ _ _ _ rc < "$WORK/$r.result"
    [ "$rc" = 0 ] || { echo "fuzz.sh: $r not merged (it failed)"; continue; }
    m=$WORK/$r/merged
    rm -rf "$m" && mkdir -p "$m"
    "$BUILD/fuzz/fuzz_$r" -merge=1 -max_len="$(max_len "$r")" -rss_limit_mb=2048 -timeout=20 \
      "$m" "$ROOT/fuzz/corpus/$r" "$WORK/$r/new" > "$WORK/$r.merge.log" 2>&1 \
      || { echo "fuzz.sh: merge of $r failed, see $WORK/$r.merge.log"; status=1; continue; }
    # hand-made seeds (seed_*) and regression inputs of fixed findings (crash_*) stay; the
    # rest becomes the merged set (libFuzzer names those by their SHA-1), less their copies
    c=$ROOT/fuzz/corpus/$r
    find "$c" -maxdepth 1 -type f ! -name 'seed_*' ! -name 'crash_*' -delete
    known=$(find "$c" -maxdepth 1 -type f -exec sha1sum {} + | cut -d' ' -f1)
    for f in "$m"/*; do
      [ -e "$f" ] || continue
      grep -qxF "$(basename "$f")" <<< "$known" || cp "$f" "$c/"
    done
    echo "fuzz.sh: fuzz/corpus/$r: $(ls "$ROOT/fuzz/corpus/$r" | wc -l) inputs, $(du -sk "$ROOT/fuzz/corpus/$r" | cut -f1) kB"
  done
fi
if [ "$status" = 0 ] && [ -z "$KEEP" ]; then rm -rf "$WORK"; fi
exit "$status"
