#!/usr/bin/env bash
# what_if.sh - the what-ifs beyond MPI settings (sets/what-if.sets: link speed, memory
# bandwidth, clock, load balance) on two traces, for docs/what-if.md:
#  1. the reference case (the bundled motorBike window, scaled to the full run with asis's
#     profile and the shipped calibration, as scripts/predict_motorbike.sh does);
#  2. a bandwidth-bound synthetic trace: 72 ranks (2 x 36) calling MPI_Alltoall of 1 MiB a
#     peer 20 times back to back (bench/gen_coll_trace), nothing else.
# Prints the two tables as markdown and writes docs/what-if-{reference,alltoall}.{csv,png,svg}.
#
#   scripts/what_if.sh [BUILD]        (BUILD defaults to build/; about 10 s on 2 cores, docs/what-if.md)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cd "$root" # relative paths: the pictures' titles name the traces as the repository does
[ -x "$build/tunesim" ] || { echo "what_if: $build/tunesim not built (expected BUILD, the build directory)" >&2; exit 1; }
jobs=${JOBS:-2}
trace=traces/data/motorbike-72-window.tss
profile=$root/traces/data/motorbike-72-asis.scorep-score.txt
# The shipped OpenFOAM calibration (scripts/fit_motorbike.sh), as the reference prediction uses.
model=$root/platforms/calibrations/bm-optimized3.36-simplefoam.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The window's iterations and the CPU scaling to the profile (scripts/motorbike_scale.sh).
# shellcheck source=scripts/motorbike_scale.sh
. "$root/scripts/motorbike_scale.sh"
motorbike_scale "$build/tunesim" "$trace" "$profile" "$work" || exit 1
motorbike_sets "$model" "$root/sets/what-if.sets" "$work/reference.sets"
"$build/tunesim" sweep "$trace" --sets "$work/reference.sets" --nodes 2 --ppn 36 \
    -j "$jobs" --window "1:$niter" --profile "$profile" --csv "$root/docs/what-if-reference.csv" --results "$work/reference.jsonl" \
    --plot "$root/docs/what-if-reference" >"$work/reference.txt"

a2a=$build/alltoall-72x1MiB.tss
"$build/gen_coll_trace" alltoall 72 20 "$a2a" 1048576 >/dev/null
"$build/tunesim" sweep "$a2a" --sets "$root/sets/what-if.sets" --nodes 2 --ppn 36 \
    -j "$jobs" --csv "$root/docs/what-if-alltoall.csv" --results "$work/alltoall.jsonl" --plot "$root/docs/what-if-alltoall" \
    >"$work/alltoall.txt"

# table CSV TIME_COLUMN: one row per set in the file's order, time and change against asis.
table() {
    awk -F, -v want="$2" "$(cat scripts/sweep_csv.awk)"'
        { name[NR] = $col["name"]; t[NR] = $col[want]; if ($col["name"] == "asis") base = t[NR]; n = NR }
        END {
            printf "| set | predicted [s] | change against asis |\n|---|---|---|\n"
            for (i = 2; i <= n; i++)
                printf "| %s | %.4f | %+.2f %% |\n", name[i], t[i], 100 * (t[i] / base - 1)
        }' "$1"
}
echo "## The reference case (full run, ExecutionTime)"
table "$root/docs/what-if-reference.csv" full_time_s
echo
echo "## Alltoall of 1 MiB, 2 x 36 ranks, 20 calls"
table "$root/docs/what-if-alltoall.csv" predicted_time_s
