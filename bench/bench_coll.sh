#!/usr/bin/env bash
# bench_coll.sh - how fast the replay engine runs collectives, against its point-to-point rate,
# measured side by side in one run on synthetic 72-rank traces (bench/gen_coll_trace.c):
#   allreduce: 8 B MPI_Allreduce only, CALLS calls per rank (default 100,000);
#   halo:      point-to-point only: 7 Isend/Irecv of 2 KB + Waitall per iteration;
#   foam:      the halo iteration plus one 8 B Allreduce (simpleFoam-like).
# Each is replayed on bm-optimized3.36, 2 nodes x 36 ranks, with the defaults (HCOLL) and
# with coll_hcoll_enable=0 (tuned: recursive doubling). Prints trace events replayed per
# second, simulated collective calls per second (per rank and per communicator), and the
# ratio of each collective trace's event rate to the point-to-point trace's.
# Target (the collectives issue): collective event rate within 2x of the point-to-point rate.
#
# MODE=callgrind measures instructions instead of wall time (valgrind's callgrind counts them
# repeatably, so a busy machine does not matter): each trace at two lengths, and the cost per
# event is the difference divided by the extra events, which removes start-up costs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
calls=${CALLS:-100000}
iters=${ITERS:-$((calls / 4))}
cmake --build "$build" --target gen_coll_trace tunesim >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/gen_coll_trace" allreduce 72 "$calls" "$work/allreduce.tss"
"$build/gen_coll_trace" halo 72 "$iters" "$work/halo.tss"
"$build/gen_coll_trace" foam 72 "$iters" "$work/foam.tss"

declare -A rate
if [ "${MODE:-wall}" = callgrind ]; then
    ir() { # ir TRACE [options] -> instructions of one replay
        local t=$1
        shift
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$build/tunesim" replay \
            "$t" --platform bm-optimized3.36 --nodes 2 --ppn 36 "$@" >/dev/null 2>"$work/cg.err"
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg.err"
    }
    ev() { "$build/tunesim" info "$1" --json | sed -n 's/^  "events": \([0-9]*\).*/\1/p'; }
    small=${SMALL:-200}
    "$build/gen_coll_trace" allreduce 72 "$small" "$work/a1.tss"
    "$build/gen_coll_trace" allreduce 72 $((2 * small)) "$work/a2.tss"
    "$build/gen_coll_trace" halo 72 $((small / 4)) "$work/h1.tss"
    "$build/gen_coll_trace" halo 72 $((small / 2)) "$work/h2.tss"
    per_event() { # per_event T1 T2 [options]
        local a b i1 i2
        a=$(ev "$1")
        b=$(ev "$2")
        i1=$(ir "$1" "${@:3}")
        i2=$(ir "$2" "${@:3}")
        awk -v a="$a" -v b="$b" -v x="$i1" -v y="$i2" 'BEGIN { printf "%.0f", (y - x) / (b - a) }'
    }
    h=$(per_event "$work/h1.tss" "$work/h2.tss")
    echo "instructions per replayed event (marginal, callgrind), 72 ranks on 2 x 36"
    echo "  halo (point-to-point)        $h"
    for c in hcoll tuned; do
        opt=()
        [ $c = tuned ] && opt=(--mca coll_hcoll_enable 0)
        x=$(per_event "$work/a1.tss" "$work/a2.tss" "${opt[@]}")
        awk -v c="$c" -v x="$x" -v h="$h" 'BEGIN {
            printf "  allreduce 8 B, %-12s %6d   event rate / point-to-point: %.2f (target >= 0.5: %s)\n",
                   c, x, h / x, (h / x >= 0.5) ? "met" : "MISSED" }'
    done
    exit 0
fi
run() { # run NAME TRACE NCOLL [replay options...]
    local name=$1 trace=$2 ncoll=$3
    shift 3
    local events
    events=$("$build/tunesim" info "$trace" --json | sed -n 's/^  "events": \([0-9]*\).*/\1/p')
    local t0 t1
    t0=$(date +%s.%N)
    "$build/tunesim" replay "$trace" --platform bm-optimized3.36 --nodes 2 --ppn 36 "$@" \
        >"$work/$name.out"
    t1=$(date +%s.%N)
    local pred
    pred=$(sed -n 's/^predicted *\([0-9.]*\) s.*/\1/p' "$work/$name.out")
    awk -v n="$name" -v e="$events" -v a="$t0" -v b="$t1" -v c="$ncoll" -v p="$pred" 'BEGIN {
        w = b - a; r = e / w
        printf "%-22s %10d events %8.1f s %10.0f events/s", n, e, w, r
        if (c > 0) printf "  %9.0f Allreduce/s per rank (%7.0f of the whole communicator)", c * 72 / w, c / w
        printf "  predicted %.4f s\n", p
    }'
    rate[$name]=$(awk -v e="$events" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", e / (b - a) }')
}

echo "72 ranks, 2 nodes x 36; allreduce: $calls calls per rank; halo, foam: $iters iterations"
run halo "$work/halo.tss" 0
run allreduce-hcoll "$work/allreduce.tss" "$calls"
run allreduce-tuned "$work/allreduce.tss" "$calls" --mca coll_hcoll_enable 0
run foam-hcoll "$work/foam.tss" "$iters"
run foam-tuned "$work/foam.tss" "$iters" --mca coll_hcoll_enable 0
for n in allreduce-hcoll allreduce-tuned foam-hcoll foam-tuned; do
    awk -v n="$n" -v c="${rate[$n]}" -v p="${rate[halo]}" 'BEGIN {
        printf "event rate %-16s / point-to-point: %.2f  (target >= 0.5: %s)\n", n, c / p,
               (c / p >= 0.5) ? "met" : "MISSED" }'
done
