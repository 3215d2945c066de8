#!/usr/bin/env bash
# bench_sweep.sh [TRACE] - throughput of `tunesim sweep` on the reference sweep
# (sets/motorbike-72.sets: asis, t0, c1..c8) against running the same sets one by one with
# `tunesim replay`, side by side in one run:
#   1. every set as its own `tunesim replay` process, one after the other (each opens the
#      trace; an OTF2 trace is converted to a temporary store every time);
#   2. `tunesim sweep -j 1` (the trace is opened once, one worker at a time);
#   3. `tunesim sweep -j N`, N = online CPUs.
# Prints sets per minute of each and the ratio of the sweep's wall time to the sum of the
# single replays (below 1: the sweep is faster). TRACE defaults to the bundled 2-rank trace
# on 2 nodes x 1 rank; a larger trace runs on 2 nodes x ceil(ranks/2) ranks, e.g. the 72-rank
# motorBike trace that bench/record_motorbike.sh records (/tmp/tunesim-motorbike-72).
# SETS=FILE replaces the reference sets (plain [name] sections only: no grids).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
trace=${1:-$root/traces/data/simplefoam-pitzdaily-2}
sets=${SETS:-$root/sets/motorbike-72.sets}
[ -e "$trace" ] || { echo "bench_sweep: $trace not found" >&2; exit 1; }
[ -x "$build/tunesim" ] || { echo "bench_sweep: $build/tunesim not built (BUILD=DIR)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ranks=$("$build/tunesim" info "$trace" --json | sed -n 's/^  "ranks": \([0-9]*\).*/\1/p')
events=$("$build/tunesim" info "$trace" --json | sed -n 's/^  "events": \([0-9]*\).*/\1/p')
place=(--nodes 2 --ppn $(( (ranks + 1) / 2 )))
jobs=$(getconf _NPROCESSORS_ONLN)

# The sets as `tunesim replay` arguments, one line per set: NAME ARGS... (mpirun words pass
# through; KEY = VALUE lines become --set KEY=VALUE, or --nps/--nodes/--ppn/--map-by).
awk '
    { sub(/(^|[ \t])#.*/, "") }
    /^[ \t]*$/ { next }
    /^[ \t]*\[/ { if (name != "") print name args; name = $0; gsub(/[][ \t]/, "", name); args = ""; next }
    /^[ \t]*-/ { args = args " " $0; next }
    {
        split($0, kv, "="); k = kv[1]; v = substr($0, index($0, "=") + 1)
        gsub(/[ \t]/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", v)
        if (k == "nodes" || k == "ppn" || k == "nps" || k == "map-by") args = args " --" k " " v
        else args = args " --set " k "=" v
    }
    END { if (name != "") print name args }' "$sets" >"$work/sets.args"
nsets=$(wc -l <"$work/sets.args")

now() { date +%s.%N; }

t0=$(now)
while read -r name args; do
    # shellcheck disable=SC2086 # the words of the sets file, split as mpirun would
    "$build/tunesim" replay "$trace" --platform bm-optimized3.36 "${place[@]}" $args \
        >"$work/replay-$name.out" || { echo "bench_sweep: replay of $name failed" >&2; exit 1; }
done <"$work/sets.args"
t1=$(now)
"$build/tunesim" sweep "$trace" --sets "$sets" --platform bm-optimized3.36 "${place[@]}" -j 1 \
    --results "$work/j1.jsonl" --json "$work/j1.json" >"$work/sweep-j1.out"
t2=$(now)
"$build/tunesim" sweep "$trace" --sets "$sets" --platform bm-optimized3.36 "${place[@]}" \
    -j "$jobs" --results "$work/jn.jsonl" --json "$work/jn.json" >"$work/sweep-jn.out"
t3=$(now)
cmp -s "$work/j1.json" "$work/jn.json" || { echo "bench_sweep: -j 1 and -j $jobs differ" >&2; exit 1; }

# The sweep must predict what the single replays predict.
while read -r name _; do
    single=$(sed -n 's/^predicted *\([0-9.]*\) s.*/\1/p' "$work/replay-$name.out")
    swept=$(awk -v n="$name" '$2 == n { print $3 }' "$work/sweep-j1.out")
    [ "$single" = "$swept" ] || { echo "bench_sweep: $name: replay $single s, sweep $swept s" >&2; exit 1; }
done <"$work/sets.args"

printf 'trace          %s (%s ranks, %s events), %s, %d sets, %d CPUs\n' "$trace" "$ranks" \
    "$events" "${place[*]}" "$nsets" "$jobs"
awk -v n="$nsets" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v j="$jobs" 'BEGIN {
    single = b - a; s1 = c - b; sn = d - c
    printf "single replays %8.2f s  %7.1f sets/minute  (%d tunesim replay runs, one after the other)\n", single, 60 * n / single, n
    printf "sweep -j 1     %8.2f s  %7.1f sets/minute  ratio to the single replays %.2f\n", s1, 60 * n / s1, s1 / single
    printf "sweep -j %-5d %8.2f s  %7.1f sets/minute  ratio to the single replays %.2f\n", j, sn, 60 * n / sn, sn / single
}'
