#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of the pair work in the LAMMPS droplet example:
# LAMMPS mdpd + mdpd/rhosum against mdpd/pk (-sf pk), one thread, STEPS steps; NOISE
# (gaussian or uniform) is mdpd/pk's noise keyword. valgrind cannot run AVX-512 code: build
# the plugin for it with -DPAIRKIT_NATIVE=OFF -DCMAKE_C_FLAGS=-march=x86-64-v3 (and CXX).
#   bench/mdpd_droplet_callgrind.sh LMP PLUGIN_DIR LAMMPS_SRC [STEPS] [NOISE]
set -euo pipefail
lmp=$1 plugins=$2 src=$3 steps=${4:-50} noise=${5:-gaussian}
work=$(mktemp -d)
sed -E "s/^run\s+4000/run $steps/" "$src/examples/PACKAGES/dpd-meso/mdpd/in.mdpd" >"$work/in.mdpd"
# mdpd/pk's noise keyword follows the seed on the mdpd sub-style's line (gaussian, the
# default, is left out, so that plugins older than the keyword can be counted too)
cp "$work/in.mdpd" "$work/in.pk"
if [ "$noise" != gaussian ]; then
    sed -E "s/^(pair_style\s+hybrid\/overlay\s+mdpd\/rhosum\s+mdpd\s+\S+\s+\S+\s+[0-9]+)/\1 noise $noise/" \
        "$work/in.mdpd" >"$work/in.pk"
    grep -q "noise $noise" "$work/in.pk" || { echo "pair_style line not found in in.mdpd" >&2; exit 1; }
fi
cd "$work"
count() {   # sum of Ir over functions matching $1 in callgrind output $2
    callgrind_annotate "$2" 2>/dev/null | awk -v pat="$1" '$0 ~ pat {gsub(",", "", $1); s += $1} END {print s + 0}'
}
OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=ref.out "$lmp" -nocite -in in.mdpd >/dev/null 2>&1
OMP_NUM_THREADS=1 LAMMPS_PLUGIN_PATH=$plugins valgrind --tool=callgrind --callgrind-out-file=pk.out \
    "$lmp" -nocite -sf pk -in in.pk >/dev/null 2>&1
atoms=14333
ref=$(count 'PairMDPD|RanMars|ieee754_log|w_log' ref.out)
ours=$(count 'pk_mdpd|ieee754_log|w_log|__cos' pk.out)
nref=$(count 'NPair' ref.out)
nours=$(count 'NPair' pk.out)
awk -v r="$ref" -v o="$ours" -v nr="$nref" -v no="$nours" -v n=$((atoms * steps)) 'BEGIN {
    printf "| | instructions per atom-step, pair | neighbour lists |\n|---|---|---|\n"
    printf "| LAMMPS mdpd + mdpd/rhosum | %.0f | %.0f |\n", r / n, nr / n
    printf "| mdpd/pk | %.0f | %.0f |\n", o / n, no / n
    printf "| ratio | %.2f | %.2f |\n", r / o, nr / no }'
