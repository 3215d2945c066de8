#!/usr/bin/env bash
# ucp_percall.sh PROBE MPIEXEC - tunesim-ucp-percall under mpirun on 2 ranks: it writes its
# header and one row a size (8, 64, 1,024 B), each with the MPI and the UCP time per message,
# both positive and under 100 us, and their difference; a report it cannot write is an error
# naming the file. Exit 77 (skipped) without mpirun.
set -uo pipefail
probe=$1 mpiexec=${2:-}
if [ -z "$mpiexec" ] || ! command -v "$mpiexec" >/dev/null; then
    echo "ucp_percall: SKIPPED: mpirun is not installed"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "ucp_percall: FAILED: $*"; exit 1; }
"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$probe" -o "$work/out.txt" >"$work/log" 2>&1 ||
    fail "$(tail -3 "$work/log")"
rows=$(awk '!/^#/ && $2 > 0 && $2 < 100 && $3 > 0 && $3 < 100 &&
            ($4 - ($2 - $3))^2 < 1e-5 { print $1 }' "$work/out.txt" | tr '\n' ' ')
[ "$rows" = "8 64 1024 " ] || fail "expected rows 8 64 1024 with times, got '$rows': $(cat "$work/out.txt")"
"$mpiexec" --allow-run-as-root --oversubscribe -np 1 "$probe" >"$work/log" 2>&1 &&
    fail "1 rank was accepted"
grep -q "needs exactly 2 ranks" "$work/log" || fail "no rank-count error: $(cat "$work/log")"
"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$probe" -o "$work/no/such/dir/out.txt" >"$work/log" 2>&1 &&
    fail "an output file in a missing directory was accepted"
grep -q "$work/no/such/dir/out.txt: cannot write the report there" "$work/log" ||
    fail "no error naming the output file: $(cat "$work/log")"
echo "ucp_percall: passed"
