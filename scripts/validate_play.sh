#!/usr/bin/env bash
# validate_play.sh - tunesim's predictions against tunesim-play on this machine: the same trace
# re-executed for real (2 ranks, one per core, compute bursts as busy loops) under each setting
# below, measured interleaved round after round, and predicted by `tunesim sweep` on the
# localhost calibration; `tunesim validate` then gives the table (error per setting, mean
# absolute error, and whether every measured difference larger than its spread is ordered as
# predicted). Not part of CI: about 10 minutes, and it wants a quiet machine.
#
#   scripts/validate_play.sh [TRACE] [OUT_DIR]
#
# TRACE: a 2-rank trace (default /tmp/tunesim-play-val/trace, recorded first when missing:
# the coarsened motorBike of scripts/validate_localhost.sh, 2 ranks, END_TIME iterations, ob1,
# wall clock). OUT_DIR (default tests/data/validation-play/run-MMDD-HHMM) receives the
# measured per-run times (measured.csv), the sets, the predictions and the table.
#
# How the noise is beaten: play fixes the compute (busy loops of the traced durations), so the
# only run-to-run noise is the machine's; each run is REPEAT passes over the trace inside one
# mpirun (the first dropped as warm-up, the rest averaged), settings interleave round-robin
# over ROUNDS rounds so that drift hits all alike, and each run waits for a quiet machine
# (QUIET_IDLE % idle, as validate_localhost.sh does). The spread reported is max - min of a
# setting's run means.
#
# Settings (env): ROUNDS=5, REPEAT=6, END_TIME=5, ANCHOR=ob1, TUNESIM=build/tunesim (with
# tunesim-play beside it), MODEL=platforms/calibrations/localhost.xml.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Paths made absolute here: the predictions run from $root, after the measuring.
tunesim=$(realpath -m -- "${TUNESIM:-$root/build/tunesim}")
play=$(dirname "$tunesim")/tunesim-play
trace=$(realpath -m -- "${1:-/tmp/tunesim-play-val/trace}")
out=$(realpath -m -- "${2:-$root/tests/data/validation-play/run-$(date -u +%m%d-%H%M)}")
rounds=${ROUNDS:-5}
repeat=${REPEAT:-6}
anchor=${ANCHOR:-ob1}
model=$(realpath -m -- "${MODEL:-$root/platforms/calibrations/localhost.xml}")

die() {
    echo "validate_play: $*" >&2
    exit 1
}
[ -x "$play" ] || die "$play not found (cmake --build build --target tunesim-play)"
# Each run's first pass is dropped (warm-up), so a run needs two.
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS=$rounds: expected a count of rounds, 1 or more"
[[ $repeat =~ ^[1-9][0-9]*$ ]] && [ "$repeat" -ge 2 ] ||
    die "REPEAT=$repeat: expected 2 or more passes a run (the first is dropped as warm-up)"
[ -f "$model" ] || die "MODEL=$model: no such file"

# name|mpirun flags: the on-host thresholds of UCX 1.13 (no intra:/inter: form there), ob1,
# and the transport sets.
UCX="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
SETS=(
    "ob1|--mca pml ob1"
    "ucx|$UCX"
    "ucx-rndv4k|$UCX -x UCX_RNDV_THRESH=4kb"
    "ucx-rndv16k|$UCX -x UCX_RNDV_THRESH=16kb"
    "ucx-rndv64k|$UCX -x UCX_RNDV_THRESH=64kb"
    "ucx-rndvinf|$UCX -x UCX_RNDV_THRESH=inf"
    "ucx-zcopy128k|$UCX -x UCX_ZCOPY_THRESH=128kb"
    "ucx-sm|$UCX -x UCX_TLS=self,sm"
    "ucx-tcp|$UCX -x UCX_TLS=self,tcp"
)

if [ ! -e "$trace/traces.otf2" ] && [ ! -f "$trace" ]; then
    echo "validate_play: no trace at $trace: recording one (validate_localhost.sh prepare record)"
    WORK=$(dirname "$trace") END_TIME=${END_TIME:-5} TUNESIM=$tunesim \
        bash "$root/scripts/validate_localhost.sh" prepare record
fi
mkdir -p "$out"
"$tunesim" convert "$trace" -o "$out/trace.tss" >/dev/null

# shellcheck source=measure_lib.sh
. "$root/scripts/measure_lib.sh"

echo "setting,seconds" >"$out/measured.csv"
: >"$out/runs.txt"
for ((r = 1; r <= rounds; r++)); do
    for entry in "${SETS[@]}"; do
        name=${entry%%|*} flags=${entry#*|}
        quiet=$(wait_quiet)
        # shellcheck disable=SC2086 # flags are words
        mpirun --allow-run-as-root -np 2 $flags "$play" "$out/trace.tss" --repeat "$repeat" \
            -o "$out/play.txt" >/dev/null 2>"$out/play.err" ||
            die "tunesim-play ($name, round $r) failed: $(grep -m1 '^tunesim-play: ' "$out/play.err" ||
                tail -3 "$out/play.err")"
        mean=$(awk '/^repeat/ && $2 != "1:" { s += $3; n++ } END { printf "%.6f", s / n }' "$out/play.txt")
        echo "$name,$mean" >>"$out/measured.csv"
        echo "round $r $name $mean s ($quiet)" | tee -a "$out/runs.txt"
    done
done
rm -f "$out/play.txt" "$out/play.err"

write_sets "${model#"$root"/}" "${SETS[@]}" >"$out/sets.txt"
rm -f "$out/predicted.results.jsonl"
(cd "$root" && "$tunesim" sweep "$out/trace.tss" --sets "$out/sets.txt" --platform localhost \
    --nodes 1 --ppn 2 --baseline "$anchor" --json "$out/predicted.json") >"$out/sweep.txt"
rm -f "$out/predicted.results.jsonl" "$out/trace.tss"
for a in "$anchor" ""; do
    args=(--measured-csv "$out/measured.csv" --predicted "$out/predicted.json")
    if [ -n "$a" ]; then
        "$tunesim" validate "${args[@]}" --anchor "$a" --csv "$out/table.csv" | tee "$out/table.txt"
    else
        "$tunesim" validate "${args[@]}" >"$out/table-unanchored.txt"
        echo "validate_play: unanchored: $(grep -E '^mean absolute' "$out/table-unanchored.txt")"
    fi
done
