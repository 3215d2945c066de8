#!/usr/bin/env bash
# fit_motorbike.sh - `tunesim fit` on the reference case's training runs, the seed's asis and
# t0 (shared/reference/simplefoam-motorbike-72.md: ExecutionTime 17.85 s and 15.91 s, the mean
# of the middle three of five runs each, in platforms/calibrations/
# simplefoam-motorbike-72-measured.csv; and both Score-P profiles), replayed on the bundled
# window with the IMB-calibrated model (platforms/calibrations/bm-optimized3.36.xml) and the
# same CPU scaling as scripts/predict_motorbike.sh (scripts/motorbike_scale.sh). Nothing else
# from OpenFOAM is used: c1..c8 are in the sets file only to be predicted, with intervals from
# the fitted uncertainties.
#
#   scripts/fit_motorbike.sh [TRACE] [OUT.xml]
#
# Every uncertain parameter (tunesim params --uncertain) is fitted within its prior, and the
# cost only the defaults pay is left to the runs (FREE, `tunesim fit --free`): what a
# rendezvous costs when its RTS finds the receiver computing (model.ucx.rndv_busy_cost; asis
# sends its on-host halo messages from 2.7 KB by rendezvous, t0 none below 128 KB, and IMB
# pays it only between its Allreduce's reductions). docs/fit.md compares it with the
# other candidates (the handshake itself, dc's extra latency under UCX_TLS=all).
#
# EXTRA=KEY=VALUE fits under one more setting (a structural alternative, e.g.
# EXTRA=model.net.rcache=none), for docs/fit.md's refits.
#
# OUT.xml defaults to platforms/calibrations/bm-optimized3.36-simplefoam.xml, the shipped
# OpenFOAM calibration that scripts/predict_motorbike.sh uses; it is written only when the fit
# explains both runs, and the report goes beside it (.report.txt). Run from anywhere: TRACE
# and OUT.xml are taken from the directory it is run in, and the file names it records are
# relative to the repository root, so that the same inputs give the same bytes. About 2.5
# minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
# A path given is the caller's (relative to where the script was run); inside the repository
# it is then written relative to its root, as the defaults are.
from_caller() {
    local p
    p=$(realpath -m -- "$1")
    case $p in "$root"/*) p=${p#"$root"/} ;; esac
    printf '%s' "$p"
}
trace=traces/data/motorbike-72-window.tss
out=platforms/calibrations/bm-optimized3.36-simplefoam.xml
[ -z "${1:-}" ] || trace=$(from_caller "$1")
[ -z "${2:-}" ] || out=$(from_caller "$2")
free=${FREE-model.ucx.rndv_busy_cost}
cd "$root"
profile=traces/data/motorbike-72-asis.scorep-score.txt
t0_profile=traces/data/motorbike-72-t0.scorep-score.txt
model=platforms/calibrations/bm-optimized3.36.xml
measured=platforms/calibrations/simplefoam-motorbike-72-measured.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/motorbike_scale.sh
. scripts/motorbike_scale.sh
motorbike_scale "$build/tunesim" "$trace" "$profile" "$work" || exit 1
echo "fit_motorbike: iterations 1:$niter, model.cpu.speed_ratio = $ratio" >&2
report=${out%.xml}.report.txt
"$build/tunesim" fit "$trace" --sets sets/motorbike-72.sets --measured-csv "$measured" \
    --model "$model" --set "model.cpu.speed_ratio=$ratio" \
    --nodes 2 --ppn 36 --profile "$profile" --run-profile "t0=$t0_profile" -j "${JOBS:-2}" \
    ${free:+--free "$free"} ${EXTRA:+--set "$EXTRA"} -o "$out" >"$work/report.txt" 2>&1 || {
    cat "$work/report.txt"
    exit 1
}
cat "$work/report.txt"
# The report beside the model, less the line naming where it was written.
[ "$out" = /dev/null ] || grep -v "^wrote " "$work/report.txt" >"$report"
