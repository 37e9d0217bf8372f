#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of the pair work in the LAMMPS droplet example:
# LAMMPS mdpd + mdpd/rhosum against mdpd/pk (-sf pk), one thread, STEPS steps.
#   bench/mdpd_droplet_callgrind.sh LMP PLUGIN_DIR LAMMPS_SRC [STEPS]
set -euo pipefail
lmp=$1 plugins=$2 src=$3 steps=${4:-50}
work=$(mktemp -d)
sed -E "s/^run\s+4000/run $steps/" "$src/examples/PACKAGES/dpd-meso/mdpd/in.mdpd" >"$work/in.mdpd"
cd "$work"
count() {   # sum of Ir over functions matching $1 in callgrind output $2
    callgrind_annotate "$2" 2>/dev/null | awk -v pat="$1" '$0 ~ pat {gsub(",", "", $1); s += $1} END {print s + 0}'
}
OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=ref.out "$lmp" -nocite -in in.mdpd >/dev/null 2>&1
OMP_NUM_THREADS=1 LAMMPS_PLUGIN_PATH=$plugins valgrind --tool=callgrind --callgrind-out-file=pk.out \
    "$lmp" -nocite -sf pk -in in.mdpd >/dev/null 2>&1
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
