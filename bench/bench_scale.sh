#!/usr/bin/env bash
# bench_scale.sh - how the replay's speed and memory grow with the rank count, measured side by
# side in one run: synthetic simpleFoam-like traces (bench/gen_coll_trace.c, `foam`: per
# iteration 7 Isend/Irecv of 2 KB + Waitall + one 8 B Allreduce, 16 MPI calls per rank) of the
# same total number of MPI calls at each rank count, replayed on bm-optimized3.36 with 36 ranks
# per node, and SMPI's replay of each trace's time-independent export beside it.
#
#   bench/bench_scale.sh              # 72 576 2304 9216 ranks, 1.5 M MPI calls each
#   RANKS="72 576" TOTAL=3000000 LIMIT=300 SMPI=0 bench/bench_scale.sh
#
# Prints per rank count: MPI calls per second of wall time, peak memory (MiB, and KiB per
# rank), and each rate against the first rank count's (72 by default); a replay that runs
# past LIMIT seconds (default 600) is stopped and reported as such. Target (the speed
# issue): calls/s at 2,304 ranks at least half of that at 72, memory per rank bounded.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
ranks_list=${RANKS:-72 576 2304 9216}
total=${TOTAL:-1500000}
limit=${LIMIT:-600}
smpi=${SMPI:-1}
cmake --build "$build" --target gen_coll_trace tunesim >/dev/null
if [ "$smpi" = 1 ] && ! command -v smpirun >/dev/null; then
    echo "bench_scale: smpirun not found (libsimgrid-dev): SMPI left out" >&2
    smpi=0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure LABEL CMD...: "seconds peak_kib" of CMD under the time limit, or "- -" past it.
measure() {
    local label=$1
    shift
    if /usr/bin/time -f "%e %M" -o "$work/$label.time" timeout "$limit" "$@" \
        >"$work/$label.out" 2>"$work/$label.err"; then
        cat "$work/$label.time"
    else
        echo "- -"
    fi
}

printf '%-7s %10s %9s %12s %10s %9s %10s   %s\n' ranks "MPI calls" "wall[s]" "calls/s" \
    "peak[MiB]" "KiB/rank" "vs first" "SMPI: wall[s] calls/s peak[MiB]"
base=""
for n in $ranks_list; do
    case "$n" in '' | *[!0-9]*) echo "bench_scale: RANKS must be numbers" >&2 && exit 2 ;; esac
    [ $((n % 36)) -eq 0 ] || { echo "bench_scale: $n ranks is not a multiple of 36" >&2 && exit 2; }
    iters=$((total / (n * 16)))
    [ "$iters" -ge 1 ] || iters=1
    calls=$((iters * n * 16))
    "$build/gen_coll_trace" foam "$n" "$iters" "$work/foam-$n.tss" >/dev/null
    read -r t m < <(measure "ts-$n" "$build/tunesim" replay "$work/foam-$n.tss" \
        --platform bm-optimized3.36 --nodes $((n / 36)) --ppn 36)
    s_col="-"
    if [ "$smpi" = 1 ]; then
        "$build/tunesim" convert "$work/foam-$n.tss" --to ti -o "$work/ti-$n" >/dev/null
        {
            echo "<?xml version='1.0'?>"
            echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
            echo '<platform version="4.1">'
            echo "  <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-$((n - 1))\" speed=\"1Gf\" bw=\"12GBps\" lat=\"1us\"/>"
            echo '</platform>'
        } >"$work/cluster-$n.xml"
        for i in $(seq 0 $((n - 1))); do echo "node-$i"; done >"$work/hosts-$n"
        read -r st sm < <(cd "$work/ti-$n" && measure "smpi-$n" smpirun -np "$n" \
            -platform "$work/cluster-$n.xml" -hostfile "$work/hosts-$n" -replay ti.txt)
        s_col=$(awk -v c="$calls" -v t="$st" -v m="$sm" -v lim="$limit" 'BEGIN {
            if (t == "-") printf "past %s s", lim; else printf "%.1f %.0f %.0f", t, c / t, m / 1024 }')
        rm -rf "$work/ti-$n"
    fi
    if [ "$t" = "-" ]; then
        printf '%-7s %10s %9s %12s %10s %9s %10s   %s\n' "$n" "$calls" "past $limit" - - - - "$s_col"
        continue
    fi
    rate=$(awk -v c="$calls" -v t="$t" 'BEGIN { printf "%.0f", c / t }')
    [ -n "$base" ] || base=$rate
    awk -v n="$n" -v c="$calls" -v t="$t" -v m="$m" -v r="$rate" -v b="$base" -v s="$s_col" 'BEGIN {
        printf "%-7s %10d %9.1f %12.0f %10.0f %9.1f %9.2fx   %s\n", n, c, t, r, m / 1024, m / n, r / b, s }'
    rm -f "$work/foam-$n.tss"
done
echo "target: calls/s at 2304 ranks >= 0.5x that at 72; memory per rank bounded"
