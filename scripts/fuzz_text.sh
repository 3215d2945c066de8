#!/usr/bin/env bash
# fuzz_text.sh [SECONDS] [TARGET...] - fuzz tunesim's text and XML parsers with libFuzzer (clang,
# ASan, UBSan): the sets-file parser (sets), the parameter and mpirun-line parsers (params), the
# model XML loader (model) and the OSU / IMB / probe parsers (bench), each for SECONDS (default
# 600), two at a time, starting from tests/fuzz/text/TARGET (seeds and the kept corpus); then
# what adds coverage is merged back there, where tests/test_fuzz_text.c replays it in every
# test run. A crash stops with the reproducer in build-fuzz/TARGET/ (crash-*). Needs clang.
set -euo pipefail
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sets params model bench)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build-fuzz
CC=clang cmake -S "$root" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNESIM_FUZZ=ON \
    -DTUNESIM_WERROR=OFF >/dev/null
for t in "${targets[@]}"; do
    cmake --build "$out" --target "fuzz_$t" -j "$(nproc)" >/dev/null
done

run() { # run TARGET: fuzz it, then keep what adds coverage
    local t=$1 dir=$root/tests/fuzz/text/$1 work=$out/$1
    rm -rf "$work" && mkdir -p "$work/new" "$work/merged"
    (cd "$work" && "$out/tests/fuzz_$t" -max_total_time="$secs" -max_len=8192 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 "$work/new" "$dir" >"$work/log" 2>&1) || {
        echo "fuzz_text: $t: a finding, see $work/log and $work/crash-*" >&2
        return 1
    }
    "$out/tests/fuzz_$t" -merge=1 "$work/merged" "$dir" "$work/new" >/dev/null 2>&1
    # The seeds and regression inputs (seed-*) stay as they are; the merged inputs (content-hash
    # names) replace the rest.
    find "$dir" -maxdepth 1 -type f ! -name 'seed-*' -delete
    find "$work/merged" -type f -exec cp {} "$dir/" \;
    find "$dir" -maxdepth 1 -type f -name 'seed-*' | while read -r s; do
        rm -f "$dir/$(sha1sum "$s" | cut -d' ' -f1)" # a seed kept twice by the merge
    done
    echo "fuzz_text: $t: $(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$work/log" | grep -Eo '[0-9]+' || echo '?') runs in $secs s, no finding; $(find "$dir" -type f | wc -l) inputs kept"
}
status=0
pids=()
for t in "${targets[@]}"; do
    run "$t" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$(nproc)" ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
