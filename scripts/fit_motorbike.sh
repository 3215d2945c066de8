#!/usr/bin/env bash
# fit_motorbike.sh - `tunesim fit` on the reference case's training runs: the seed's asis and
# t0 (shared/reference/simplefoam-motorbike-72.md: ExecutionTime 17.85 s and 15.91 s, the mean
# of the middle three of five runs each, and both Score-P profiles), replayed on the bundled
# window with the shipped calibration and the same CPU scaling as scripts/predict_motorbike.sh
# (scripts/motorbike_scale.sh). Every uncertain parameter (tunesim params --uncertain) is free
# within its prior. Nothing else from OpenFOAM is used: c1..c8 are not measured here.
#
#   scripts/fit_motorbike.sh [TRACE] [OUT.xml]
#
# TRACE defaults to the bundled window (traces/data/motorbike-72-window.tss); OUT.xml (default
# /tmp/motorbike-72-fit.xml) is written only when the fit explains both runs. About 30 s
# on 2 cores (about 60 model evaluations of 2 replays each). The report goes to stdout;
# docs/fit.md holds the last one.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
trace=${1:-$root/traces/data/motorbike-72-window.tss}
out=${2:-/tmp/motorbike-72-fit.xml}
profile=$root/traces/data/motorbike-72-asis.scorep-score.txt
t0_profile=$root/traces/data/motorbike-72-t0.scorep-score.txt
model=$root/platforms/calibrations/bm-optimized3.36.xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/motorbike_scale.sh
. "$root/scripts/motorbike_scale.sh"
motorbike_scale "$build/tunesim" "$trace" "$profile" "$work" || exit 1
echo "fit_motorbike: iterations 1:$niter, model.cpu.speed_ratio = $ratio" >&2
# The two training sets as sets/motorbike-72.sets spells them, with the calibration and the
# CPU scaling.
motorbike_sets "$model" "$root/sets/motorbike-72.sets" "$work/train.sets" "" asis t0
printf 'setting,seconds\nasis,17.85\nt0,15.91\n' >"$work/measured.csv"
"$build/tunesim" fit "$trace" --sets "$work/train.sets" --measured-csv "$work/measured.csv" \
    --nodes 2 --ppn 36 --profile "$profile" --run-profile "t0=$t0_profile" -j "${JOBS:-2}" \
    -o "$out"
