#!/usr/bin/env bash
# play.sh TUNESIM PLAY MPIEXEC SRCDIR - tunesim-play on the bundled 2-rank trace under mpirun:
# it replays to the end, each pass lasts at least the traced compute of a mean rank (the bursts
# are busy loops), --compute-scale 0 drops that compute, and a rank count that disagrees with
# the trace is a one-line error with a non-zero exit. Exit 77 (skipped) without mpirun.
set -euo pipefail
tunesim=$1 play=$2 mpiexec=$3 src=$4
if [ ! -x "$mpiexec" ]; then
    echo "play: SKIPPED: mpirun is not installed"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=$src/traces/data/simplefoam-pitzdaily-2
fail() { echo "play: FAILED: $*"; exit 1; }
run() { "$mpiexec" --allow-run-as-root --oversubscribe -np "$@"; }

compute=$("$tunesim" info "$trace" --json | sed -n 's/^  "compute_time_s": \([0-9.e+-]*\).*/\1/p')
run 2 "$play" "$trace" --repeat 2 -o "$work/out.txt" >"$work/log" 2>&1 || fail "$(tail -3 "$work/log")"
grep -q '^repeat 2: ' "$work/out.txt" || fail "no 'repeat 2' line in $(cat "$work/out.txt")"
mean=$(awk '$1 == "mean" { print $2 }' "$work/out.txt")
awk -v m="$mean" -v c="$compute" 'BEGIN { exit !(m >= c / 2) }' ||
    fail "a pass took $mean s, less than a mean rank's traced compute ($compute / 2 s)"
run 2 "$play" "$trace" --compute-scale 0 -o "$work/fast.txt" >"$work/log" 2>&1 || fail "$(tail -3 "$work/log")"
fast=$(awk '$1 == "mean" { print $2 }' "$work/fast.txt")
awk -v f="$fast" -v m="$mean" -v c="$compute" 'BEGIN { exit !(f < m - c / 4) }' ||
    fail "--compute-scale 0 took $fast s against $mean s with the compute"
if run 1 "$play" "$trace" >"$work/log" 2>&1; then
    fail "1 rank on a 2-rank trace was accepted"
fi
grep -q "the trace has 2 ranks, mpirun started 1" "$work/log" || fail "no rank-count error: $(cat "$work/log")"
echo "play: passes of ${mean} s (compute summed over ranks ${compute} s), ${fast} s without compute"
