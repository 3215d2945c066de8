#!/usr/bin/env bash
# bench_store.sh [TRACE] - the trace store benchmark: store size as a fraction of the OTF2
# archive, and events read per second from OTF2 and from the store, side by side in one run.
# Without TRACE it takes the largest trace at hand (by MPI events) among the bundled one and
# shared/traces/scorep. Exit 3 when a target (size <= 1/5, speed >= 10x) is missed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
cmake --build "$build" --target bench_store >/dev/null
trace=${1:-}
if [ -z "$trace" ]; then
    best=0
    for t in "$root"/traces/data/*/ "$root"/../shared/traces/scorep/*/; do
        [ -f "$t/traces.otf2" ] || continue
        n=$("$build/tunesim" info "$t" --json 2>/dev/null |
            sed -n 's/^  "events": \([0-9]*\).*/\1/p') || true
        if [ -n "$n" ] && [ "$n" -gt "$best" ]; then best=$n; trace=$t; fi
    done
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bench_store" "$trace" "$out/bench.tss"
