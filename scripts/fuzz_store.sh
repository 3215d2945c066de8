#!/usr/bin/env bash
# fuzz_store.sh [SECONDS] - fuzz the trace-store reader with libFuzzer (clang, ASan, UBSan)
# starting from tests/fuzz/corpus, then merge what it found into that corpus, which
# tests/test_store.c replays in every test run. Needs clang (Debian: clang, libclang-rt-dev).
#
# The store's checksums stop most mutations at the header; the fuzzer is built with
# FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (the usual libFuzzer convention) so that checksum
# mismatches are ignored and mutations reach the body parser.
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build-fuzz
mkdir -p "$out/new"
# The store reader's closure of sources (a file split or a helper added elsewhere shows here
# as a link error).
srcs=("$root"/common/status.c "$root"/common/jsontext.c "$root"/common/outfile.c
      "$root"/common/infile.c "$root"/common/tmpfiles.c "$root"/traces/events.c
      "$root"/traces/codec.c "$root"/traces/trace.c "$root"/traces/store.c
      "$root"/traces/otf2.c "$root"/traces/otf2_events.c)
clang -std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O1 -fsanitize=fuzzer,address,undefined \
    -I"$root" "${srcs[@]}" "$root"/tests/fuzz/fuzz_store.c \
    -lotf2 -llz4 -lz -o "$out/fuzz_store"
# Seeds: the small stores in tests/fuzz/seeds, as whole files and as bodies.
cc -O1 "$root/tests/fuzz/make_seed.c" -llz4 -o "$out/make_seed"
for s in "$root"/tests/fuzz/seeds/*.tss; do
    "$out/make_seed" "$s" "$out/new/$(basename "$s" .tss)"
done
"$out/fuzz_store" -max_total_time="$secs" -max_len=65536 -timeout=5 \
    "$out/new" "$root/tests/fuzz/corpus"
# Keep only inputs that add coverage (the seeds stay in tests/fuzz/seeds).
mkdir -p "$out/merged"
"$out/fuzz_store" -merge=1 "$out/merged" "$root/tests/fuzz/corpus" "$out/new" >/dev/null 2>&1
rm -rf "$root/tests/fuzz/corpus" && mv "$out/merged" "$root/tests/fuzz/corpus"
echo "corpus: $(ls "$root/tests/fuzz/corpus" | wc -l) inputs"
