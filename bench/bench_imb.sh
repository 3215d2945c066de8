#!/usr/bin/env bash
# bench_imb.sh - what sharing a size's replay among the sets that plan it alike saves
# `tunesim imb` on a step of the study (docs/imb.md, "What is replayed"), side by side in one
# run on the study's step 1 (4 UCX_TLS x 8 threshold pairs, 32 sets) for one shape:
#   1. every set as its own `tunesim imb` run, one after the other (each replays every size);
#   2. the 32 sets in one `tunesim imb --sets` run (each size once per group of sets whose
#      models answer its replay's questions alike).
# Both at -j N (N = online CPUs). Prints each one's wall time, the ratio, how many of the
# sizes x sets the grid replayed, and whether every row (set, size: t_min, t_max, t_avg)
# is the same in both, byte for byte (the sharing is exact; a difference fails the script).
# Environment: NODES, PPN (default 2 x 36), BENCH (default Alltoall), MSGLOG (default 0:24),
# BUDGET (default 40000, as scripts/imb_study.sh), BUILD (default build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
nodes=${NODES:-2} ppn=${PPN:-36} bench=${BENCH:-Alltoall} msglog=${MSGLOG:-0:24}
budget=${BUDGET:-40000}
model=$root/platforms/calibrations/bm-optimized3.36.xml
[ -x "$build/tunesim" ] || { echo "bench_imb: $build/tunesim not built (BUILD=DIR)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=$(getconf _NPROCESSORS_ONLN)
k=0
for tls in all self,sm,rc self,sm,ud self,sm,dc; do
    for pair in intra:auto,inter:auto intra:16kb,inter:auto \
        $(for v in 4kb 8kb 16kb 32kb 64kb 128kb; do echo "intra:16kb,inter:$v"; done); do
        k=$((k + 1))
        printf '[s1-%d]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\n' "$k" "$tls" "$pair" >"$work/one-$k.sets"
        cat "$work/one-$k.sets" >>"$work/grid.sets"
    done
done
run() { # SETS CSV
    "$build/tunesim" imb --nodes "$nodes" --ppn "$ppn" --bench "$bench" --msglog "$msglog" \
        --budget "$budget" --model "$model" --sets "$1" -j "$jobs" --csv "$2" >"$work/out.txt" 2>/dev/null
}
t0=$(date +%s.%N)
for i in $(seq 1 "$k"); do run "$work/one-$i.sets" "$work/one-$i.csv"; done
t1=$(date +%s.%N)
run "$work/grid.sets" "$work/grid.csv"
t2=$(date +%s.%N)
shared=$(sed -n 's/^# \([0-9]* of the [0-9]*\) sizes under the sets replayed.*/\1/p' "$work/out.txt")
for i in $(seq 1 "$k"); do tail -n +2 "$work/one-$i.csv"; done | sort >"$work/alone.rows"
tail -n +2 "$work/grid.csv" | sort >"$work/grid.rows"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$k" -v s="${shared:-all}" \
    -v shape="$nodes x $ppn $bench, -msglog $msglog, budget $budget, -j $jobs" 'BEGIN {
    printf "bench_imb: %s, the study'\''s step 1 (%d sets)\n", shape, n
    printf "  each set alone, one run each: %8.1f s\n", b - a
    printf "  the sets in one run:          %8.1f s (%s sizes x sets replayed)\n", c - b, s
    printf "  ratio one run / alone: %.3f\n", (c - b) / (b - a) }'
if cmp -s "$work/alone.rows" "$work/grid.rows"; then
    echo "  rows: identical ($(wc -l <"$work/grid.rows") set x size rows)"
else
    echo "bench_imb: the grid's rows differ from the sets' alone:" >&2
    diff "$work/alone.rows" "$work/grid.rows" | head >&2
    exit 1
fi
