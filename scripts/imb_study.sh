#!/usr/bin/env bash
# imb_study.sh [OUT.tsv] - Oracle's IMB tuning study of BM.Optimized3.36 (method:
# shared/reference/oracle-imb-bm-optimized3.36.md) repeated on the models with `tunesim imb`,
# for 1, 2, 4, 8 nodes x 8, 16, 32, 36 ranks per node and Alltoall, Allgather, Allreduce,
# Exchange, and its winners written as a table (default docs/imb-winners.tsv):
#   nodes ppn collective tls rndv zcopy
# The step method, as the study ran it (HCOLL on, UCC off, block placement, NPS1):
#   one node:   UCX_RNDV_THRESH in {auto, 4, 8, 16, 32, 64, 128 kb}; tls and zcopy '-'.
#   2+ nodes:   step 1, UCX_TLS in {all, self,sm,rc, self,sm,ud, self,sm,dc} x 8 threshold
#               pairs (intra:auto,inter:auto, and intra:<the one-node winner at the same ranks
#               per node> with inter in {auto, 4..128 kb}); step 2, UCX_ZCOPY_THRESH in {auto,
#               4..128 kb} with step 1's winner.
# The winner of a step is tunesim imb's (docs/imb.md): the least geometric mean of t_max over
# the sizes at which the step's sets differ; the sets within TIE percent of it (tunesim imb
# --tie; docs/imb.md, "The study's step method") are ties the models cannot separate. Among ties the
# table takes the one closest to what the study measured at its given shape (TIES=prior, the
# default; PRIOR's 1 x 36 rows for one node, its 2 x 36 rows for more): the most fields equal to
# the study's choice for the same benchmark, then the nearest to it in powers of two, then the
# most fields equal to its choices for the other three, then the first in the study's order
# (auto before a size, sizes ascending, UCX_TLS as listed above), as the study kept auto "where
# nothing differs significantly".
# TIES=first takes the first tie: the models alone.
# Every step's table, its ties and the choice go to OUT's directory as imb-steps.txt.
#
# Environment: BUILD (default build), JOBS (default nproc), BUDGET and BUDGET8 (messages
# replayed per size, tunesim imb --budget, below 8 nodes and at 8), SHAPES (default "1x8 ... 8x36"),
# BENCH (default "Alltoall Allgather Allreduce Exchange"), MODEL (a model file for --model;
# default platforms/calibrations/bm-optimized3.36.xml), TIE (percent, default 2.3), TIES (prior
# or first), PRIOR (the
# study's measured winners, default platforms/calibrations/oracle-imb-training-winners.tsv).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/docs/imb-winners.tsv}
build=${BUILD:-$root/build}
jobs=${JOBS:-$(nproc)}
# Messages replayed per size (tunesim imb --budget): enough for some 280 timed Exchange calls
# a size on 2 x 36, and one timed call a size of 8-node Alltoall (65,000-83,000 messages a
# call); the whole study then takes about 7 minutes on 2 cores (docs/imb.md, "Speed").
BUDGET=${BUDGET:-40000}
BUDGET8=${BUDGET8:-20000}
# The ties' width: the models' uncertainty in ranking the study's settings, calibrated on the
# training shapes (docs/imb.md, "The study's step method"): the largest gap by which they put
# a setting the study measured best behind their own winner, 2.29 % (1 x 36 Alltoall 16kb
# against 32kb).
TIE=${TIE:-2.3}
model=${MODEL:-$root/platforms/calibrations/bm-optimized3.36.xml}
ties=${TIES:-prior}
prior=${PRIOR:-$root/platforms/calibrations/oracle-imb-training-winners.tsv}
case $ties in prior | first) ;; *) echo "imb_study: TIES=$ties: expected prior or first" >&2; exit 1 ;; esac
[[ $TIE =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "imb_study: TIE=$TIE: expected a percentage, e.g. 0.5" >&2; exit 1; }
[ "$ties" = first ] || [ -f "$prior" ] || { echo "imb_study: no prior file $prior" >&2; exit 1; }
shapes=${SHAPES-"1x8 1x16 1x32 1x36 2x8 2x16 2x32 2x36 4x8 4x16 4x32 4x36 8x8 8x16 8x32 8x36"}
benches=${BENCH-"Alltoall Allgather Allreduce Exchange"}
[ -n "${shapes// /}" ] || { echo "imb_study: SHAPES is empty (expected e.g. \"1x36 2x36\")" >&2; exit 1; }
[ -x "$build/tunesim" ] || { echo "imb_study: $build/tunesim not built" >&2; exit 1; }
[ -f "$model" ] || { echo "imb_study: no model file $model" >&2; exit 1; }
# The outputs before the study: a directory made if missing, the table and the steps beside
# it, neither the model nor the prior.
# shellcheck source=scripts/imb_common.sh
. "$root/scripts/imb_common.sh"
check_benches imb_study "$benches"
mkdir -p "$(dirname "$out")"
# shellcheck source=scripts/outputs.sh
. "$root/scripts/outputs.sh"
check_outputs imb_study "$out" "$(dirname "$out")/imb-steps.txt" -- "$model" "$prior"
work=$(mktemp -d /tmp/tunesim-imb-study.XXXXXX)
trap 'rm -rf "$work"' EXIT
# A copy, so that a rebuild during the study's hour changes nothing it runs.
cp "$build/tunesim" "$work/tunesim"
tunesim=$work/tunesim
steps=$work/steps.txt
sizes="4kb 8kb 16kb 32kb 64kb 128kb"
tls_list="all self,sm,rc self,sm,ud self,sm,dc"

# winner BENCH NODES PPN SETS TITLE: tunesim imb over the sets; prints the winning set's name
# and its ties, the sets file's order (tunesim imb's rule, docs/imb.md); its comparison table
# goes to the steps file.
winner() {
    local budget=$BUDGET
    [ "$2" -ge 8 ] && budget=$BUDGET8
    "$tunesim" imb --nodes "$2" --ppn "$3" --bench "$1" --msglog "0:$(maxlog "$1" "$2")" \
        --budget "$budget" --tie "$TIE" --model "$model" --sets "$4" -j "$jobs" "${study_stack[@]}" >"$work/run.txt"
    {
        echo "## $5"
        # the sets, their geometric means, the winner and the ties (every size: tunesim imb)
        sed -n '/t_max\[usec\] per set/,/^$/p' "$work/run.txt" | grep -E '^ +#bytes|^ +geomean|^# (winner|ties)'
    } >>"$steps"
    sed -n 's/^# winner: \([^ ]*\) .*/\1/p; s/^# ties within [^:]*: //p' "$work/run.txt" | tr -s ', ' '\n\n'
}

# priors NODES BENCH STEP: the study's measured choices at its shape for this many nodes
# (1 x 36 or 2 x 36), one line per benchmark, this benchmark's first, as the step's fields:
# rndv (one node), tls intra inter (step 1) or zcopy (step 2). Nothing with TIES=first.
priors() {
    [ "$ties" = first ] && return 0
    local n=2
    [ "$1" = 1 ] && n=1
    awk -F'\t' -v n="$n" -v b="$2" -v step="$3" '
        function fields(r) { if (step == "one") return $5
            if (step == "zcopy") return $6
            r = $5; sub(/^intra:/, "", r); sub(/,inter:/, " ", r); return $4 " " r }
        $1 == n && $2 == 36 { if ($3 == b) first = fields(); else rest = rest fields() "\n" }
        END { if (first != "") printf "%s\n%s", first, rest }' "$prior"
}

# choose PRIORS: reads "name field..." lines (the winner and its ties, in the sets file's order)
# and prints the one closest to the study's measured choices: the most fields equal to its
# choice for this benchmark (PRIORS' first line), then the nearest to it (sizes compared in
# powers of two, so 32kb is nearer 16kb than 64kb is), then the most fields equal to its
# choices for the other benchmarks (the other lines), then the first. No priors: the first.
# Records the choice in the steps file.
choose() {
    local pick
    pick=$(awk -v pf="$1" '
        function bytes(v,  n) { n = v + 0
            if (v ~ /^[0-9]+kb$/) return n * 1024
            if (v ~ /^[0-9]+mb$/) return n * 1048576
            return v ~ /^[0-9]+b?$/ ? n : -1 }
        function dist(a, b,  x, y) { if (a == b) return 0
            x = bytes(a); y = bytes(b)
            return x > 0 && y > 0 ? (x > y ? log(x / y) : log(y / x)) / log(2) : 64 }
        BEGIN { if (pf != "") while ((getline line < pf) > 0) p[np++] = line }
        { same = 0; d = 0; other = 0
          for (k = 0; k < np; k++) { nw = split(p[k], w, " ")
              for (i = 2; i <= NF && i - 1 <= nw; i++) {
                  if (k == 0) { same += $i == w[i - 1]; d += dist($i, w[i - 1]) }
                  else other += $i == w[i - 1] } }
          if (NR == 1 || same > bs || (same == bs && (d < bd || (d == bd && other > bo)))) {
              bs = same; bd = d; bo = other; name = $1 } }
        END { print name }')
    if [ -n "$1" ] && [ -s "$1" ]; then
        echo "# chosen: $pick (of the winner and its ties, the closest to the study's measured choices: $(head -1 "$1"), then $(tail -n +2 "$1" | paste -sd ';'))"
    else
        echo "# chosen: $pick (the winner)"
    fi >>"$steps"
    echo >>"$steps"
    echo "$pick"
}

# pair_fields PAIR: "intra:A,inter:B" as "A B".
pair_fields() { local p=${1#intra:}; echo "${p%%,inter:*} ${p#*,inter:}"; }

printf 'nodes\tppn\tcollective\ttls\trndv\tzcopy\n' >"$work/winners.tsv"
t_start=$(date +%s)
for shape in $shapes; do
    nodes=${shape%x*} ppn=${shape#*x}
    for b in $benches; do
        # One node at this ppn: the RNDV_THRESH winner (also the intra value of 2+ nodes).
        one=$work/one-$ppn-$b
        if [ ! -f "$one" ]; then
            sets=$work/one.sets
            : >"$sets"
            for v in auto $sizes; do printf '[%s]\nUCX_RNDV_THRESH = %s\n' "$v" "$v" >>"$sets"; done
            priors 1 "$b" one >"$work/priors"
            winner "$b" 1 "$ppn" "$sets" "1 x $ppn $b: UCX_RNDV_THRESH" |
                awk '{ print $1, $1 }' | choose "$work/priors" >"$one"
        fi
        intra=$(cat "$one")
        if [ "$nodes" = 1 ]; then
            printf '1\t%s\t%s\t-\t%s\t-\n' "$ppn" "$b" "$intra" >>"$work/winners.tsv"
            continue
        fi
        # Step 1: UCX_TLS x threshold pairs.
        sets=$work/s1.sets
        : >"$sets"
        k=0
        for tls in $tls_list; do
            for pair in "intra:auto,inter:auto" $(for v in auto $sizes; do echo "intra:$intra,inter:$v"; done); do
                k=$((k + 1))
                printf '[s1-%d]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\n' "$k" "$tls" "$pair" >>"$sets"
                echo "s1-$k $tls $pair"
            done
        done >"$work/s1.names"
        priors "$nodes" "$b" step1 >"$work/priors"
        w=$(winner "$b" "$nodes" "$ppn" "$sets" "$nodes x $ppn $b: step 1, UCX_TLS x UCX_RNDV_THRESH (names: $(tr '\n' ';' <"$work/s1.names"))" |
            while read -r n; do
                read -r _ t p < <(awk -v n="$n" '$1 == n' "$work/s1.names")
                echo "$n $t $(pair_fields "$p")"
            done | choose "$work/priors")
        read -r _ tls pair < <(awk -v w="$w" '$1 == w' "$work/s1.names")
        # Step 2: UCX_ZCOPY_THRESH with step 1's winner.
        sets=$work/s2.sets
        : >"$sets"
        for v in auto $sizes; do
            printf '[%s]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\nUCX_ZCOPY_THRESH = %s\n' \
                "$v" "$tls" "$pair" "$v" >>"$sets"
        done
        priors "$nodes" "$b" zcopy >"$work/priors"
        zcopy=$(winner "$b" "$nodes" "$ppn" "$sets" "$nodes x $ppn $b: step 2, UCX_ZCOPY_THRESH ($tls $pair)" |
            awk '{ print $1, $1 }' | choose "$work/priors")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$nodes" "$ppn" "$b" "$tls" "$pair" "$zcopy" >>"$work/winners.tsv"
        echo "imb_study: $nodes x $ppn $b: $tls $pair $zcopy ($(($(date +%s) - t_start)) s)" >&2
    done
done
cp "$work/winners.tsv" "$out.tmp"
mv "$out.tmp" "$out"
{
    echo "# tunesim imb: the study's steps on the models (scripts/imb_study.sh, BUDGET=$BUDGET, BUDGET8=$BUDGET8, TIE=$TIE, TIES=$ties)"
    echo "# per step: the sets, their geometric mean of t_max over the sizes at which they differ, the winner, the ties, the table's choice"
    cat "$steps"
} >"$(dirname "$out")/imb-steps.txt"
echo "imb_study: $out written ($(($(date +%s) - t_start)) s)" >&2
