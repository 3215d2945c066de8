#!/usr/bin/env bash
# imb_study.sh BUILD_DIR ROOT - scripts/imb_study.sh's choice among a step's ties, on real
# one-node runs (8 ranks, a small budget):
#   - the models alone (TIES=first): the first of the ties in the study's order;
#   - TIES=prior: among the ties, the study's choice for the same benchmark, else the nearest
#     to it, else the value it chose most for the other benchmarks; never a set outside the
#     ties;
#   - TIE: the width of the ties reaches tunesim imb;
#   - bad settings: one line and a non-zero exit, no table written.
set -euo pipefail
build=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
study() { # OUT BENCH [VAR=VALUE...]: the study on 1 x 8 for one benchmark
    local out=$1 bench=$2
    shift 2
    env BUILD="$build" SHAPES=1x8 BENCH="$bench" BUDGET=2000 JOBS=1 "$@" \
        bash "$root/scripts/imb_study.sh" "$out" 2>"$out.err" >/dev/null
}
row() { awk -F'\t' -v b="$2" '$3 == b { print $5 }' "$1"; }
expect() { # WHAT GOT WANT
    if [ "$2" = "$3" ]; then
        echo "ok: $1: $2"
    else
        echo "FAIL: $1: got '$2', expected '$3'" >&2
        fail=1
    fi
}
prior() { # FILE ALLTOALL ALLGATHER ALLREDUCE EXCHANGE: a prior with these one-node choices
    {
        printf 'nodes\tppn\tcollective\ttls\trndv\tzcopy\n'
        printf '1\t36\tAlltoall\t-\t%s\t-\n1\t36\tAllgather\t-\t%s\t-\n' "$2" "$3"
        printf '1\t36\tAllreduce\t-\t%s\t-\n1\t36\tExchange\t-\t%s\t-\n' "$4" "$5"
    } >"$1"
}

# Allgather on one node of 8: no threshold moves it by 1 % (HCOLL's levels are flag handoffs),
# so every set ties. Checked from the steps file, not assumed.
study "$work/first.tsv" Allgather TIES=first
grep -q '^# winner: auto (the sets differ at no size' "$work/imb-steps.txt" ||
    { echo "FAIL: 1 x 8 Allgather: expected every set to tie" >&2; exit 1; }
expect "TIES=first, all tied" "$(row "$work/first.tsv" Allgather)" auto
grep -q '^# chosen: auto (the winner)' "$work/imb-steps.txt" ||
    { echo "FAIL: the steps file does not record the choice" >&2; fail=1; }

prior "$work/p1.tsv" 16kb 64kb 16kb 16kb
study "$work/prior.tsv" Allgather PRIOR="$work/p1.tsv"
expect "TIES=prior, all tied, the study chose 64kb" "$(row "$work/prior.tsv" Allgather)" 64kb

# The same benchmark's choice is not a candidate: the nearest in powers of two wins.
prior "$work/p2.tsv" 32kb 1mb 4kb 32kb
study "$work/near.tsv" Allgather PRIOR="$work/p2.tsv"
expect "TIES=prior, the study chose 1mb, not a candidate" "$(row "$work/near.tsv" Allgather)" 128kb
# Nothing near it (not a size): the others' most frequent choice wins.
prior "$work/p3.tsv" 32kb x 4kb 32kb
study "$work/others.tsv" Allgather PRIOR="$work/p3.tsv"
expect "TIES=prior, no size for the benchmark, the others chose 32kb twice" \
    "$(row "$work/others.tsv" Allgather)" 32kb

# Exchange on 1 x 8 has a winner the prior must not override when it is not among the ties
# (at ties of 0.5 %, where no other threshold is within reach of it).
study "$work/ex-first.tsv" Exchange TIES=first TIE=0.5
w=$(row "$work/ex-first.tsv" Exchange)
ties=$(sed -n 's/^# ties within [^:]*: //p' "$work/imb-steps.txt" | tr -d ' ' | tr ',' '\n')
far=
for v in auto 4kb 8kb 16kb 32kb 64kb 128kb; do
    [ "$v" = "$w" ] || grep -qx "$v" <<<"$ties" || { far=$v; }
done
[ -n "$far" ] || { echo "FAIL: 1 x 8 Exchange: every threshold ties, nothing to check" >&2; exit 1; }
prior "$work/p4.tsv" 16kb 16kb 16kb "$far"
study "$work/ex-prior.tsv" Exchange PRIOR="$work/p4.tsv" TIE=0.5
expect "TIES=prior, the study's $far is no tie of the winner $w" "$(row "$work/ex-prior.tsv" Exchange)" "$w"

# TIE widens the ties: within 100 % every threshold of 1 x 8 Exchange ties, and the models
# alone then take the first, auto, where at the default 0.5 % they took $w.
[ "$w" != auto ] || { echo "FAIL: 1 x 8 Exchange: the winner is auto, nothing to widen" >&2; exit 1; }
study "$work/wide.tsv" Exchange TIES=first TIE=100
expect "TIE=100, every threshold tied" "$(row "$work/wide.tsv" Exchange)" auto
grep -q '^# ties within 100 %: 4kb, 8kb, 16kb, 32kb, 64kb, 128kb$' "$work/imb-steps.txt" ||
    { echo "FAIL: TIE=100 did not reach tunesim imb" >&2; fail=1; }

# Bad settings: a clear line, a non-zero exit, no table.
for bad in "TIES=best" "PRIOR=$work/none.tsv" "TIE=half"; do
    if study "$work/bad.tsv" Exchange "$bad"; then
        echo "FAIL: $bad was accepted" >&2
        fail=1
    else
        expect "$bad refused in one line" "$(wc -l <"$work/bad.tsv.err")" 1
        [ ! -e "$work/bad.tsv" ] || { echo "FAIL: $bad wrote a table" >&2; fail=1; }
    fi
done
exit $fail
