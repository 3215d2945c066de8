#!/usr/bin/env bash
# validate_cluster.sh - check tunesim on your own cluster: every set of a sets file predicted by
# `tunesim sweep` and measured with `tunesim-play` (the trace's MPI calls re-executed for real,
# compute bursts as busy loops of the traced durations) under the same settings, interleaved
# round after round, then compared by `tunesim validate`. This is the experiment that decides
# where a missed tuning gain lies (docs/t0-gap.md, "How to check it on the cluster"): if play
# reproduces the measured gain, the missing cost is in the MPI stack and tunesim-probe on the
# same nodes can measure it; if it does not, the gain comes from what the trace does not hold.
#
#   scripts/validate_cluster.sh TRACE [OUT_DIR]
#
# TRACE: an OTF2 trace or tunesim store (for the reference case, one recorded one rank per
# core on the cluster: `tunesim record -- mpirun ... simpleFoam -parallel`). OUT_DIR (default
# validation-cluster-YYYYMMDD-HHMM) receives predicted.json, measured.csv, runs.txt and the
# table. Settings, from the environment:
#   SETS=sets/motorbike-72.sets   the sets (no grids); each set's words are passed to mpirun
#                  as written (-x, --mca; KEY = VALUE as -x for UCX_*, --mca for the others);
#                  model parameters (--model, --set, model.*) only change the prediction
#   MPIRUN="mpirun"               the launcher, with the words every run shares, e.g.
#                  "mpirun --hostfile hosts --map-by ppr:36:node -x UCX_NET_DEVICES=mlx5_2:1"
#   NP=                           ranks (default: the trace's)
#   NPS=1          the NPS the nodes are booted in: sets that ask for another one are
#                  predicted but not measured (NPS is a BIOS setting, not an mpirun word)
#                  A set's map-by goes to mpirun as --map-by (block as core, cyclic as numa,
#                  Open MPI's words as written) where MPIRUN names none; where it does, the
#                  set is predicted but not measured (mpirun takes one mapping).
#   PLATFORM=bm-optimized3.36 NODES=2 PPN=36 MODEL=platforms/calibrations/bm-optimized3.36.xml
#                  what tunesim predicts for (MODEL empty: the parameter table's defaults)
#   ROUNDS=3 REPEAT=4             rounds of every set, passes over the trace per run (the
#                  first pass is dropped as warm-up)
#   ANCHOR=asis                   the set the anchored table scales by
#   TUNESIM=build/tunesim         with tunesim-play beside it
# The compute is the trace's, so predictions use model.cpu.speed_ratio=1: play and the replay
# see the same bursts, and what differs between sets is only what tunesim models.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tunesim=${TUNESIM:-$root/build/tunesim}
play=$(dirname "$tunesim")/tunesim-play
die() {
    echo "validate_cluster: $*" >&2
    exit 1
}
[ $# -ge 1 ] || die "usage: scripts/validate_cluster.sh TRACE [OUT_DIR]"
trace=$1
out=${2:-validation-cluster-$(date -u +%Y%m%d-%H%M)}
sets=${SETS:-$root/sets/motorbike-72.sets}
mpirun_words=${MPIRUN:-mpirun}
nps=${NPS:-1}
platform=${PLATFORM:-bm-optimized3.36}
nodes=${NODES:-2}
ppn=${PPN:-36}
model=${MODEL-$root/platforms/calibrations/bm-optimized3.36.xml}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-4}
anchor=${ANCHOR:-asis}
for v in rounds repeat nps nodes ppn; do
    case "${!v}" in '' | *[!0-9]* | 0) die "${v^^} must be a positive number" ;; esac
done
[ "$repeat" -ge 2 ] || die "REPEAT must be at least 2 (the first pass is a warm-up)"
[ -x "$tunesim" ] || die "$tunesim not found (cmake --build build)"
[ -x "$play" ] || die "$play not found (built where CMake finds MPI: cmake --build build --target tunesim-play)"
[ -e "$trace" ] || die "$trace: no such trace"
[ -f "$sets" ] || die "$sets: no such sets file"
[ -z "$model" ] || [ -f "$model" ] || die "$model: no such model file"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$tunesim" convert "$trace" -o "$work/trace.tss" >/dev/null
# awk reads to the end: leaving early could kill tunesim with SIGPIPE, and pipefail with it.
np=${NP:-$("$tunesim" info "$work/trace.tss" --json | awk '/"ranks":/ && v == "" { v = $2; gsub(",", "", v) } END { print v }')}
case "$np" in '' | *[!0-9]* | 0) die "NP must be a positive number (the trace's ranks: $np)" ;; esac

# The prediction: every set, the calibration and the trace's own compute.
awk -v model="$model" '{ print } /^\[/ { if (model != "") print "--model " model
                                         print "model.cpu.speed_ratio=1" }' "$sets" >"$work/sets"
echo "validate_cluster: predicting $(grep -c '^\[' "$sets") sets on $platform ($nodes x $ppn)"
(cd "$root" && "$tunesim" sweep "$work/trace.tss" --sets "$work/sets" --platform "$platform" \
    --nodes "$nodes" --ppn "$ppn" --json "$work/predicted.json") >"$work/sweep.txt"
# The outputs name the user's trace, not the temporary store: replaced as literal text (a name
# may hold & or |, which sed would read), in the JSON as a JSON string.
literally() { # FILE FROM TO: every FROM in FILE as TO
    FROM=$2 TO=$3 awk '{ while ((i = index($0, ENVIRON["FROM"])) > 0)
                             $0 = substr($0, 1, i - 1) ENVIRON["TO"] substr($0, i + length(ENVIRON["FROM"]))
                         print }' "$1"
}
json_trace=$(T=$trace awk 'BEGIN { s = ENVIRON["T"]
    for (i = 1; i < 32; i++) ctl[sprintf("%c", i)] = sprintf("\\u%04x", i)
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" || c == "\"") o = o "\\" c
        else if (c in ctl) o = o ctl[c]
        else o = o c
    }
    printf "\"%s\"", o }')
literally "$work/predicted.json" "\"$work/trace.tss\"" "$json_trace" >"$out/predicted.json"
literally "$work/sweep.txt" "$work/trace.tss" "$trace" >"$out/sweep.txt"

# Each set's mpirun words as the file writes them (the sweep has checked the file): -x and
# --mca words as they are, KEY = VALUE as -x (UCX_*) or --mca (the others), model parameters
# (--model, --set, model.*) left to the prediction; placement words give the set's NPS.
# "name|nps|map-by|words" per set. Grids are refused: list their sets by name instead.
awk -v file="$sets" '
    function flush() { if (name != "") print name "|" nps "|" map "|" words }
    function place(k, v) {
        if (k == "nps") nps = v
        else if (k == "map-by" || k == "map_by") map = v == "block" ? "core" : v == "cyclic" ? "numa" : v
    }
    { sub(/(^|[ \t])#.*/, "") }
    /^[ \t]*$/ { next }
    /^[ \t]*\[/ {
        flush(); name = $0; gsub(/^[ \t]*\[[ \t]*|[ \t]*\][ \t]*$/, "", name)
        if (name ~ /^grid[ \t]/) { print file ": [" name "]: grids are not supported here: write each set out" > "/dev/stderr"; bad = 1; exit }
        nps = 1; map = ""; words = ""; next
    }
    {
        line = $0; gsub(/[ \t]*=[ \t]*/, "=", line); n = split(line, w, /[ \t]+/)
        for (i = 1; i <= n; i++) {
            if (w[i] == "") continue
            if (w[i] == "-x") { words = words " -x " w[++i]; continue }
            if (w[i] == "--mca") { words = words " --mca " w[i + 1] " " w[i + 2]; i += 2; continue }
            if (w[i] == "--model" || w[i] == "--set") { i++; continue }
            if (w[i] ~ /^--(nps|map-by)$/) { place(substr(w[i], 3), w[i + 1]); i++; continue }
            if (w[i] ~ /^--(nodes|ppn)$/) { i++; continue }
            k = w[i]; v = ""
            if (k ~ /^(nodes|ppn|nps|map-by|map_by)$/) { place(k, w[++i]); continue } # "nps 2"
            if (index(k, "=")) { v = substr(k, index(k, "=") + 1); k = substr(k, 1, index(k, "=") - 1) }
            if (k ~ /^(nps|map-by|map_by)$/) place(k, v)
            else if (k ~ /^(nodes|ppn)$/ || k ~ /^model\./) continue
            else if (k ~ /^UCX_/) words = words " -x " k "=" v
            else words = words " --mca " k " " v
        }
    }
    END { if (!bad) flush(); exit bad }
' "$sets" >"$work/runs" || die "$sets: cannot run its sets (above)"
[ -s "$work/runs" ] || die "$sets: no set"

echo "setting,seconds" >"$out/measured.csv"
: >"$out/runs.txt"
for ((r = 1; r <= rounds; r++)); do
    while IFS='|' read -r name set_nps set_map words; do
        if [ "$set_nps" != "$nps" ]; then
            [ "$r" -gt 1 ] || echo "validate_cluster: $name needs NPS$set_nps nodes (these are NPS$nps): predicted, not measured" |
                tee -a "$out/runs.txt"
            continue
        fi
        if [ -n "$set_map" ]; then
            case " $mpirun_words " in
            *" --map-by "* | *" -map-by "*)
                [ "$r" -gt 1 ] || echo "validate_cluster: $name maps by $set_map, MPIRUN by its own --map-by: predicted, not measured" |
                    tee -a "$out/runs.txt"
                continue
                ;;
            esac
            words=" --map-by $set_map$words"
        fi
        # shellcheck disable=SC2086 # the launcher's and the set's words
        $mpirun_words -np "$np" $words "$play" "$work/trace.tss" --repeat "$repeat" \
            -o "$work/play.txt" </dev/null >/dev/null 2>"$work/play.err" ||
            die "tunesim-play ($name, round $r) failed: $(tail -3 "$work/play.err")"
        mean=$(awk '/^repeat/ && $2 != "1:" { s += $3; n++ } END { if (n) printf "%.6f", s / n }' "$work/play.txt")
        [ -n "$mean" ] || die "tunesim-play ($name, round $r) printed no pass times"
        echo "$name,$mean" >>"$out/measured.csv"
        echo "round $r $name $mean s:$words" | tee -a "$out/runs.txt"
    done <"$work/runs"
done

[ "$(wc -l <"$out/measured.csv")" -gt 1 ] || die "no set of $sets runs on NPS$nps nodes: nothing measured"
args=(--measured-csv "$out/measured.csv" --predicted "$out/predicted.json")
if grep -q "^$anchor," "$out/measured.csv"; then
    "$tunesim" validate "${args[@]}" --anchor "$anchor" --csv "$out/table.csv" | tee "$out/table.txt"
fi
"$tunesim" validate "${args[@]}" | tee "$out/table-unanchored.txt"
echo "validate_cluster: wrote $out/"
