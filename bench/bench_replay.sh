#!/usr/bin/env bash
# bench_replay.sh [TRACE] - replay speed and memory of tunesim against SimGrid's own SMPI
# replay of the same trace, in one run: events replayed per second and peak memory of
#   1. `tunesim replay TRACE --platform bm-optimized3.36 --nodes 2 --ppn 36`, and
#   2. `smpirun -replay` of the trace's time-independent export (smpireplaymain) on a plain
#      cluster of as many hosts as ranks,
# then their ratio; REPEAT=N runs both N times, alternating, and keeps each side's fastest
# run. TRACE defaults to /tmp/tunesim-motorbike-72, which
# bench/record_motorbike.sh records (72 ranks, about 29 M events, 5 minutes).
# Target (the replay issue): tunesim at least as fast as SMPI, with bounded memory.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
trace=${1:-/tmp/tunesim-motorbike-72}
repeat=${REPEAT:-1}
case "$repeat" in '' | *[!0-9]* | 0) echo "bench_replay: REPEAT must be a positive number" >&2 && exit 2 ;; esac
[ -e "$trace" ] || { echo "bench_replay: $trace not found: run bench/record_motorbike.sh first" >&2; exit 1; }
command -v smpirun >/dev/null || { echo "bench_replay: smpirun not found (libsimgrid-dev)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

events=$("$build/tunesim" info "$trace" --json | sed -n 's/^  "events": \([0-9]*\).*/\1/p')
ranks=$("$build/tunesim" info "$trace" --json | sed -n 's/^  "ranks": \([0-9]*\).*/\1/p')
"$build/tunesim" convert "$trace" -o "$work/trace.tss" >/dev/null

measure() { # measure LABEL CMD... -> prints "seconds peak_kib" of the command
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o "$work/$label.time" "$@" >"$work/$label.out" 2>"$work/$label.err" ||
        { echo "bench_replay: $label failed:"; tail -5 "$work/$label.err"; exit 1; }
    cat "$work/$label.time"
}

"$build/tunesim" convert "$trace" --to ti -o "$work/ti" >/dev/null
{
    echo "<?xml version='1.0'?>"
    echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
    echo '<platform version="4.1">'
    echo "  <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-$((ranks - 1))\" speed=\"1Gf\" bw=\"12GBps\" lat=\"1us\"/>"
    echo '</platform>'
} >"$work/cluster.xml"
for i in $(seq 0 $((ranks - 1))); do echo "node-$i"; done >"$work/hosts"
# REPEAT rounds, tunesim then SMPI in each: the fastest of each side counts (this machine's
# speed moves between runs; the fastest run is the one least disturbed).
t_ts="" t_smpi=""
for round in $(seq "$repeat"); do
    read -r t m < <(measure tunesim "$build/tunesim" replay "$work/trace.tss" \
        --platform bm-optimized3.36 --nodes 2 --ppn "$(( (ranks + 1) / 2 ))")
    if [ -z "$t_ts" ] || awk -v a="$t" -v b="$t_ts" 'BEGIN { exit !(a < b) }'; then
        t_ts=$t m_ts=$m
    fi
    read -r t m < <(cd "$work/ti" && measure smpi smpirun -np "$ranks" \
        -platform "$work/cluster.xml" -hostfile "$work/hosts" -replay ti.txt)
    if [ -z "$t_smpi" ] || awk -v a="$t" -v b="$t_smpi" 'BEGIN { exit !(a < b) }'; then
        t_smpi=$t m_smpi=$m
    fi
    echo "round $round: tunesim $t_ts s, SMPI $t_smpi s so far (fastest)" >&2
done
pred=$(sed -n 's/^predicted *\([0-9.]*\) s.*/\1/p' "$work/tunesim.out")
sim=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$work/smpi.err" "$work/smpi.out" | tail -1)

printf 'trace                 %s (%s ranks, %s events)\n' "$trace" "$ranks" "$events"
awk -v ev="$events" -v tt="$t_ts" -v mt="$m_ts" -v ts="$t_smpi" -v ms="$m_smpi" \
    -v pred="$pred" -v sim="$sim" 'BEGIN {
    printf "tunesim replay        %8.2f s wall, %10.0f events/s, peak %6.0f MiB, predicts %s s\n", tt, ev / tt, mt / 1024, pred
    printf "SMPI replay (TI)      %8.2f s wall, %10.0f events/s, peak %6.0f MiB, simulates %s s\n", ts, ev / ts, ms / 1024, sim
    printf "speed tunesim / SMPI  %.2fx   (target >= 1)\n", ts / tt
    printf "memory tunesim / SMPI %.2fx\n", mt / ms
}'
