#!/usr/bin/env bash
# Count the instructions an aarch64 program executes, per function, under qemu-aarch64 with
# SVE at a chosen vector length: no SVE hardware needed (tools/insn-count/insn_count.c, a QEMU
# plugin built here on first use). Also counts how many of them are SVE instructions.
#
# usage: tools/sve-insn-count.sh [--vl BYTES] [--top N] [--out FILE] -- PROGRAM [ARGS...]
#   --vl   SVE vector length in bytes: 16, 32 or 64 (128-, 256-, 512-bit; A64FX: 64, default)
#   --top  functions to print, most executed first (default 15; 0: all)
#   --out  also keep the full list "<instructions> <sve instructions> <function>" in FILE
# The program runs with OMP_NUM_THREADS=1 (the plugin's counters are not atomic). Functions
# of shared libraries (libc, libgomp) show as "(no symbol)".
set -euo pipefail
vl=64 top=15 out=
while (($#)); do
    case $1 in
    --vl) vl=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
done
(($#)) || { echo "usage: $0 [--vl BYTES] [--top N] [--out FILE] -- PROGRAM [ARGS...]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$root/tools/insn-count/insn_count.c
cache=${XDG_CACHE_HOME:-$HOME/.cache}/pairkit
plugin=$cache/insn_count.so
mkdir -p "$cache"
if [[ ! -f $plugin || $src -nt $plugin ]]; then
    cc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o "$plugin.tmp" "$src"
    mv "$plugin.tmp" "$plugin"
fi
list=$(mktemp)
trap 'rm -f "$list"' EXIT
OMP_NUM_THREADS=1 qemu-aarch64 -cpu "max,sve-default-vector-length=$vl" \
    -plugin "$plugin,out=$list" "$@"
[[ -n $out ]] && cp "$list" "$out"
awk -v top="$top" -v bits=$((vl * 8)) '
    { n[NR] = $1; s[NR] = $2; $1 = $2 = ""; f[NR] = substr($0, 3); total += n[NR]; sve += s[NR] }
    END {
        printf "%d instructions executed (%.1f%% SVE) at %d-bit SVE\n", total, 100 * sve / total, bits
        printf "%16s %7s %6s  %s\n", "instructions", "share", "SVE", "function"
        for (k = 1; k <= NR && (top == 0 || k <= top); k++)
            printf "%16d %6.1f%% %5.1f%%  %s\n", n[k], 100 * n[k] / total, 100 * s[k] / n[k], f[k]
    }' "$list" >&2
