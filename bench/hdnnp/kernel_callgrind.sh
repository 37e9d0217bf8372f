#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of the hdnnp/pk kernel on the n2p2 RPBE-D3 water
# (1080 atoms, bench_hdnnp), one thread, per atom-step, split like the kernel's timers:
# symmetry functions (neighbour gathering included), networks, forces (contraction and
# scatter).
#   bench/hdnnp/kernel_callgrind.sh BENCH_HDNNP [SHARED_DIR]
# BENCH_HDNNP: the built bench executable (build/bench/hdnnp/bench_hdnnp); SHARED_DIR holds
# reference/n2p2/H2O_RPBE-D3 (default ../shared beside the checkout).
set -euo pipefail
bench=$1
shared=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared}
out=$(mktemp)
# bench_hdnnp 1 computes twice (warm-up and one timed step); count only inside the kernel
PAIRKIT_SHARED=$shared OMP_NUM_THREADS=1 valgrind --tool=callgrind \
    --toggle-collect=pk_hdnnp_compute --callgrind-out-file="$out" "$bench" 1 >/dev/null 2>&1
inclusive() {   # inclusive Ir of function $1 (its own entry, marked with the object file)
    callgrind_annotate --inclusive=yes --auto=no "$out" 2>/dev/null |
        awk -v f="$1" '$0 ~ (":" f " \\[") {gsub(",", "", $1); s += $1} END {print s + 0}'
}
total=$(callgrind_annotate "$out" 2>/dev/null |
    awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
sf=$(( $(inclusive hdnnp_symfuncs) + $(inclusive hdnnp_env_build) ))
nn=$(inclusive hdnnp_network_eval)
rm -f "$out"
awk -v t="$total" -v s="$sf" -v n="$nn" -v d=$((2 * 1080)) 'BEGIN {
    printf "| instructions per atom-step | total | symmetry functions | networks |"
    printf " forces and rest |\n"
    printf "|---|---|---|---|---|\n"
    printf "| hdnnp/pk | %.0f | %.0f | %.0f | %.0f |\n",
        t / d, s / d, n / d, (t - s - n) / d }'
