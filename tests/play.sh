#!/usr/bin/env bash
# play.sh TUNESIM PLAY MPIEXEC SRCDIR - tunesim-play on the bundled 2-rank trace under mpirun:
# it replays to the end, each pass lasts at least the traced compute of a mean rank (the bursts
# are busy loops), --compute-scale 0 drops that compute, and a rank count that disagrees with
# the trace is a one-line error with a non-zero exit, as are bad options and an output that is a
# file of the trace's archive, before the run. A trace that cannot complete ends with one
# line: a send no receive matches, a collective the player cannot play or a call larger than it
# sends, before the run, a collective one rank alone calls by the watchdog (no progress past
# --patience). Then scripts/validate_cluster.sh on this machine as the "cluster": each set's
# words reach mpirun as written, model lines do not, every set is measured every round,
# validate's table comes out; a grid, and sets that all need other NPS than the nodes have,
# are refused. Exit 77 (skipped) without mpirun.
set -euo pipefail
tunesim=$1 play=$2 mpiexec=$3 src=$4 gen=$5
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
# Its options and output, refused before the run: no file of the archive replaced (a copy).
cp -r "$trace" "$work/arch"
refused() { # WANT EXIT ARGS...: refused with exit EXIT and a line holding WANT
    local want=$1 code=$2 rc=0
    shift 2
    run 2 "$play" "$@" >"$work/log" 2>&1 || rc=$?
    [ "$rc" = "$code" ] && grep -q -- "$want" "$work/log" ||
        fail "tunesim-play $*: exit $rc (want $code), $(grep tunesim-play "$work/log")"
}
refused "is a file of the trace's archive" 2 "$work/arch" -o "$work/arch/traces.otf2"
refused "is a file of the trace's archive" 2 "$work/arch" -o "$work/arch/traces/0.evt"
cmp -s "$trace/traces.otf2" "$work/arch/traces.otf2" || fail "the archive's anchor was replaced"
refused "expected a file name, got an empty one" 2 "$trace" -o ""
refused "no directory $work/none to write it in" 1 "$trace" -o "$work/none/x.txt"
refused "--compute-scale expects a factor from 0 to 1000" 2 "$trace" --compute-scale 1e300
refused "--repeat expects a count from 1 to 1000000" 2 "$trace" --repeat 5x

# Traces that cannot complete: refused, or stopped by the watchdog, never a hang.
"$gen" lonesend 2 1 "$work/lonesend.tss"
refused "1 sends and 0 receives match no call" 1 "$work/lonesend.tss"
"$gen" alltoallw 2 3 "$work/alltoallw.tss" # every rank would stop at it: said once, before
refused "6 collective calls it does not replay (the first: MPI_Alltoallw)" 1 "$work/alltoallw.tss"
[ "$(grep -c '^tunesim-play' "$work/log")" = 1 ] || fail "not one line: $(cat "$work/log")"
"$gen" allreduce 2 3 "$work/big.tss" 2147483648 # 2 GiB a rank: past one call's 1 GiB
refused "6 messages or collectives larger than it sends in one call (1073741824 bytes) or holds for one collective (4294967296) (the first: rank 0's MPI_Allreduce of 2147483648 bytes a rank, 4294967296 in all)" 1 "$work/big.tss"
[ "$(grep -c '^tunesim-play' "$work/log")" = 1 ] || fail "not one line: $(cat "$work/log")"
"$gen" lonecoll 2 1 "$work/lonecoll.tss"
refused "no progress for [0-9]* s after" 1 "$work/lonecoll.tss" --patience 1 # either rank says it first
refused "--patience expects seconds from 1 to 1e6" 2 "$trace" --patience 0

# validate_cluster.sh, two ob1 sets (ob1 runs wherever Open MPI does).
cat >"$work/c.sets" <<'EOF_SETS'
[ob1]
--mca pml ob1   # the default eager limit
model.ucx.send_call=0.05us
[ob1-eager1k]
--mca pml ob1
btl_vader_eager_limit = 1024
[ob1-core]
--mca pml ob1
map-by block
nps 1
EOF_SETS
vc() {
    SETS=$1 MPIRUN="$mpiexec --allow-run-as-root --oversubscribe" PLATFORM=localhost NODES=1 PPN=2 \
        MODEL=$src/platforms/calibrations/localhost.xml ANCHOR=ob1 ROUNDS=2 REPEAT=2 \
        TUNESIM=$tunesim bash "$src/scripts/validate_cluster.sh" "$trace" "$2"
}
vc "$work/c.sets" "$work/vc" >"$work/vc.log" 2>&1 || fail "validate_cluster: $(tail -3 "$work/vc.log")"
[ "$(grep -c '^ob1,' "$work/vc/measured.csv")" = 2 ] || fail "ob1 not measured twice: $(cat "$work/vc/measured.csv")"
[ "$(grep -c '^ob1-eager1k,' "$work/vc/measured.csv")" = 2 ] || fail "ob1-eager1k not measured twice"
grep -q '^round 1 ob1-eager1k .*: --mca pml ob1 --mca btl_vader_eager_limit 1024$' "$work/vc/runs.txt" ||
    fail "ob1-eager1k's words: $(cat "$work/vc/runs.txt")"
grep -q '^round 2 ob1 .*: --mca pml ob1$' "$work/vc/runs.txt" || fail "ob1's words: $(cat "$work/vc/runs.txt")"
# placement lines in their plain form: block goes to mpirun as core, nps is no mpirun word
grep -q '^round 1 ob1-core .*: --map-by core --mca pml ob1$' "$work/vc/runs.txt" ||
    fail "ob1-core's words: $(cat "$work/vc/runs.txt")"
grep -q '"name": "ob1-eager1k"' "$work/vc/predicted.json" || fail "no prediction of ob1-eager1k"
grep -q '^mean absolute error: ' "$work/vc/table.txt" || fail "no table: $(cat "$work/vc/table.txt")"
printf '[grid g]\nbtl_vader_eager_limit = 1024 | 4096\n' >"$work/g.sets"
if vc "$work/g.sets" "$work/vg" >"$work/vg.log" 2>&1; then fail "a grid was accepted"; fi
grep -q 'grids are not supported here' "$work/vg.log" || fail "no grid error: $(cat "$work/vg.log")"
if NPS=2 vc "$work/c.sets" "$work/vn" >"$work/vn.log" 2>&1; then fail "NPS2 nodes measured NPS1 sets"; fi
grep -q 'nothing measured' "$work/vn.log" || fail "no NPS error: $(cat "$work/vn.log")"
echo "play: passes of ${mean} s (compute summed over ranks ${compute} s), ${fast} s without compute;" \
    "validate_cluster: $(grep '^mean absolute error' "$work/vc/table.txt")"
