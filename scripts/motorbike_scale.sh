#!/usr/bin/env bash
# motorbike_scale.sh - sourced by predict_motorbike.sh, fit_motorbike.sh and what_if.sh: how a
# traced window of the reference case stands for the full run, computed once in one place, and
# the sets files that carry it.
#
#   motorbike_scale TUNESIM TRACE.tss PROFILE WORK
#
# sets niter (the trace's iterations, all replayed), compute (the window's traced compute,
# summed over ranks), prof_compute (the profile's, see below), prof_isend and win_isend (the
# MPI_Isend visits of each), windows (the run's length in windows: their ratio) and ratio
# (model.cpu.speed_ratio: the window's compute scaled to the profile's per window), using WORK
# for files.
# The profile's compute is its time outside MPI less Score-P's own time counted there
# (model.scorep.visit_outside per MPI and PTHREAD visit), as tunesim sweep --profile removes it.
motorbike_scale() {
    local tunesim=$1 tss=$2 profile=$3 work=$4
    local visit_outside
    # Every iteration, start-up and shutdown left out (they happen once; sweep --profile replays
    # the same window).
    local json
    json=$("$tunesim" info "$tss" --json) || return 1 # tunesim has said what is wrong
    niter=$(printf '%s\n' "$json" |
        awk '/"iterations": \{/ { f = 1 } f && /"count":/ && v == "" { v = $2; gsub(",", "", v) } END { print v }')
    [[ $niter =~ ^[1-9][0-9]*$ ]] || {
        echo "motorbike_scale: $tss: no complete iteration (expected a time-stepping run's trace: tunesim info says why)" >&2
        return 1
    }
    "$tunesim" info "$tss" --json --window "1:$niter" >"$work/info.json"
    compute=$(sed -n 's/^  "compute_time_s": \([0-9.e+-]*\).*/\1/p' "$work/info.json")
    # The profile's compute (time outside MPI, summed over ranks): its simpleFoam row. Rows are
    # "type max_buf visits time ... region" (the flt column is empty).
    prof_compute=$(awk '$NF == "simpleFoam" { gsub(",", "", $4); print $4 }' "$profile")
    [ -n "$prof_compute" ] || { echo "motorbike_scale: $profile: no simpleFoam (time outside MPI) row" >&2; return 1; }
    # Less Score-P's own time that the profile counts outside MPI: model.scorep.visit_outside per
    # MPI and PTHREAD visit (what tunesim sweep --profile removes too, so that the run's length in
    # windows below stays the halo exchanges').
    visit_outside=$("$tunesim" params | awk '$1 == "model.scorep.visit_outside" {
        v = $2; f = 1
        if (v ~ /ns$/) f = 1e-9; else if (v ~ /us$/) f = 1e-6; else if (v ~ /ms$/) f = 1e-3
        gsub(/[a-z]+$/, "", v); printf "%.12g", v * f }')
    [ -n "$visit_outside" ] || { echo "motorbike_scale: tunesim params: no model.scorep.visit_outside" >&2; return 1; }
    prof_compute=$(awk -v c="$prof_compute" -v vo="$visit_outside" '
        ($1 == "MPI" && $NF == "MPI") || ($1 == "PTHREAD" && $NF == "PTHREAD") { gsub(",", "", $3); n += $3 }
        END { printf "%.6f", c - n * vo }' "$profile")
    # The run's length in windows: its halo exchanges (MPI_Isend, the most visited function)
    # over the window's. Not 500 / ITERS: the first iterations make more solver sweeps than the
    # run's mean (docs/extrapolation.md, "The profile's compute and the window's").
    prof_isend=$(awk '$1 == "MPI" && $NF == "MPI_Isend" { gsub(",", "", $3); print $3 }' "$profile")
    win_isend=$(awk '/^    "MPI_Isend": \{/ { f = 1 } f && /"visits":/ { v = $2; gsub(",", "", v); print v; exit }' \
        "$work/info.json")
    if ! awk -v p="$prof_isend" -v w="$win_isend" 'BEGIN { exit !(p + 0 > 0 && w + 0 > 0) }'; then
        echo "motorbike_scale: no MPI_Isend visits in $profile ('${prof_isend}') or in $tss's window ('${win_isend}'): expected the halo exchanges of both" >&2
        return 1
    fi
    windows=$(awk -v p="$prof_isend" -v w="$win_isend" 'BEGIN { printf "%.6f", p / w }')
    # The CPU scaling: the profile's compute per window over the window's traced compute, both
    # positive (a profile whose compute is all Score-P's own, or a window without compute, gives
    # none).
    if ! awk -v c="$compute" -v pc="$prof_compute" 'BEGIN { exit !(c + 0 > 0 && pc + 0 > 0) }'; then
        echo "motorbike_scale: $profile: compute outside MPI $prof_compute s (less Score-P's own), the window's $compute s: expected both positive" >&2
        return 1
    fi
    ratio=$(awk -v c="$compute" -v n="$windows" -v pc="$prof_compute" \
        'BEGIN { printf "%.6f", (pc / n) / c }')
}

# motorbike_sets MODEL IN OUT [EXTRA [SET...]]: the sets of IN with `--model MODEL`, the CPU
# scaling ($ratio, from motorbike_scale) and the setting EXTRA (if not empty) after each
# header, into OUT; with SET names, only those sets.
motorbike_sets() {
    local model=$1 in=$2 out=$3 extra=${4:-}
    shift $(($# < 4 ? $# : 4))
    awk -v model="$model" -v ratio="$ratio" -v extra="$extra" -v only="$*" '
        BEGIN { n = split(only, o, " "); for (i = 1; i <= n; i++) want["[" o[i] "]"] = 1; keep = !n }
        /^\[/ { keep = !n || ($0 in want) }
        keep { print }
        keep && /^\[/ { print "--model " model; print "model.cpu.speed_ratio=" ratio
                        if (extra != "") print extra }
    ' "$in" >"$out"
}
