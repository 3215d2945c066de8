#!/usr/bin/env bash
# shipped_fit.sh BUILD_DIR ROOT - the shipped OpenFOAM calibration
# (platforms/calibrations/bm-optimized3.36-simplefoam.xml and its report) is what
# scripts/fit_motorbike.sh makes from the committed inputs, byte for byte: a model or script
# change that moves the fit must regenerate it (bash scripts/fit_motorbike.sh), and the
# reference prediction after it.
set -euo pipefail
build=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BUILD=$build bash "$root/scripts/fit_motorbike.sh" "$root/traces/data/motorbike-72-window.tss" "$work/fit.xml" >"$work/log" 2>&1 || {
    cat "$work/log"
    echo "shipped_fit: scripts/fit_motorbike.sh failed" >&2
    exit 1
}
status=0
for f in fit.xml:bm-optimized3.36-simplefoam.xml fit.report.txt:bm-optimized3.36-simplefoam.report.txt; do
    made=$work/${f%%:*} shipped=$root/platforms/calibrations/${f#*:}
    if ! cmp -s "$made" "$shipped"; then
        echo "shipped_fit: $shipped differs from what scripts/fit_motorbike.sh makes now:" >&2
        diff "$shipped" "$made" | head -20 >&2 || true
        status=1
    fi
done
[ $status = 0 ] && echo "shipped_fit: the shipped OpenFOAM calibration is the fit's output, byte for byte"
exit $status
