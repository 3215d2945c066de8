#!/usr/bin/env bash
# golden.sh TUNESIM [--update] - the predictions of the bundled traces, compared byte for byte
# with the committed ones in tests/data/golden/: a move, a rename or a refactoring must leave
# them identical (issue 13's "predictions byte-identical"), so this fails on any difference and
# prints it. A change of the models that is meant to move predictions regenerates them with
# `bash tests/golden.sh build/tunesim --update` in the same commit, which then shows the new
# numbers beside the model change. Standard error must stay empty (not a terminal: no progress
# line). Run from ctest (test golden); needs no ../shared.
set -euo pipefail
tunesim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gold=$root/tests/data/golden
cd "$root" # the outputs name the trace as given: relative paths keep them the same anywhere
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bm=platforms/calibrations/bm-optimized3.36.xml
mb=traces/data/motorbike-72-window.tss
pd=traces/data/simplefoam-pitzdaily-2
t0=(-x UCX_TLS=self,sm,rc -x UCX_RNDV_THRESH=intra:128kb,inter:128kb -x UCX_ZCOPY_THRESH=128kb)
# name|command (words split on spaces; no quoting needed)
CASES=(
    "pitzdaily-replay|replay $pd --nodes 2 --ppn 1"
    "pitzdaily-sweep|sweep $pd --sets sets/motorbike-72.sets --nodes 2 --ppn 1 -j 1 --results $work/r.jsonl"
    "motorbike-asis|replay $mb --nodes 2 --ppn 36 --model $bm"
    "motorbike-t0|replay $mb --nodes 2 --ppn 36 --model $bm ${t0[*]}"
    "motorbike-ucc|replay $mb --nodes 2 --ppn 36 --model $bm --mca coll_hcoll_enable 0 --mca coll_ucc_enable 1"
    "motorbike-info|info $mb"
)
fail=0
for c in "${CASES[@]}"; do
    name=${c%%|*} cmd=${c#*|}
    rm -f "$work/r.jsonl"
    # shellcheck disable=SC2086 # the command's words
    if ! "$tunesim" $cmd >"$work/$name.txt" 2>"$work/$name.err"; then
        echo "golden: $name: tunesim $cmd failed: $(tail -1 "$work/$name.err")"
        fail=1
        continue
    fi
    # Standard error must be empty (the progress line is for terminals only), but for the
    # warning ASan prints when SimGrid switches stacks in the sanitizer build.
    grep -v -E '^==[0-9]+==WARNING: ASan is ignoring requested __asan_handle_no_return|^False positive error reports may follow|^For details see https://github.com/google/sanitizers/issues/189' \
        "$work/$name.err" >"$work/$name.err2" || true
    if [ -s "$work/$name.err2" ]; then
        echo "golden: $name: tunesim $cmd wrote to standard error: $(head -c 200 "$work/$name.err2")"
        fail=1
    fi
    if [ "$update" = --update ]; then
        mkdir -p "$gold"
        cp "$work/$name.txt" "$gold/$name.txt"
    elif ! cmp -s "$work/$name.txt" "$gold/$name.txt"; then
        echo "golden: $name differs from tests/data/golden/$name.txt (tunesim $cmd):"
        diff "$gold/$name.txt" "$work/$name.txt" | head -20 || true
        fail=1
    fi
done
if [ "$update" = --update ]; then
    echo "golden: ${#CASES[@]} outputs written to tests/data/golden/"
elif [ $fail = 0 ]; then
    echo "golden: ${#CASES[@]} outputs identical to tests/data/golden/"
else
    echo "golden: a prediction moved: if a model change meant it, regenerate with" \
        "'bash tests/golden.sh build/tunesim --update' in the same commit; a move or rename must not"
fi
exit $fail
