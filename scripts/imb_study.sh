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
# The winner of a step is the set with the least geometric mean of t_max over the sizes
# (tunesim imb's rule). Sets within TIE (default 0.1 %) of it are ties the models cannot
# separate: the study's own order then decides (auto before a size, the sizes ascending,
# UCX_TLS as listed above), as the study kept auto "where nothing differs significantly".
# Every step's table (sets, geometric means, the ties) goes to OUT's directory as
# imb-steps.txt.
#
# Environment: BUILD (default build), JOBS (default nproc), REPS (timed repetitions replayed
# per size, default 3: the replay is deterministic), SHAPES (default "1x8 1x16 ... 8x36"),
# BENCH (default "Alltoall Allgather Allreduce Exchange"), TIE (default 0.001), MODEL (a model
# file for --model; default platforms/calibrations/bm-optimized3.36.xml).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/docs/imb-winners.tsv}
build=${BUILD:-$root/build}
jobs=${JOBS:-$(nproc)}
reps=${REPS:-3}
tie=${TIE:-0.001}
model=${MODEL:-$root/platforms/calibrations/bm-optimized3.36.xml}
shapes=${SHAPES:-"1x8 1x16 1x32 1x36 2x8 2x16 2x32 2x36 4x8 4x16 4x32 4x36 8x8 8x16 8x32 8x36"}
benches=${BENCH:-"Alltoall Allgather Allreduce Exchange"}
tunesim=$build/tunesim
[ -x "$tunesim" ] || { echo "imb_study: $tunesim not built" >&2; exit 1; }
[ -f "$model" ] || { echo "imb_study: no model file $model" >&2; exit 1; }
work=$(mktemp -d /tmp/tunesim-imb-study.XXXXXX)
trap 'rm -rf "$work"' EXIT
steps=$work/steps.txt
sizes="4kb 8kb 16kb 32kb 64kb 128kb"
tls_list="all self,sm,rc self,sm,ud self,sm,dc"

# The study's largest size 2^X by benchmark and node count.
maxlog() { # BENCH NODES
    case $1 in
    Alltoall | Allgather) case $2 in 1) echo 25 ;; 2) echo 24 ;; 4) echo 23 ;; *) echo 22 ;; esac ;;
    Allreduce) echo 30 ;;
    Exchange) echo 29 ;;
    esac
}

# run BENCH NODES PPN SETS: tunesim imb over the sets; prints "set geomean" per set in the
# sets file's order.
run() {
    local csv=$work/run.csv
    "$tunesim" imb --nodes "$2" --ppn "$3" --bench "$1" --msglog "0:$(maxlog "$1" "$2")" \
        --reps "$reps" --model "$model" --sets "$4" -j "$jobs" --csv "$csv" >/dev/null
    awk -F, 'NR > 1 && $8 > 0 { s[$2] += log($8); n[$2]++ } END { for (k in s) printf "%s %.6f\n", k, exp(s[k] / n[k]) }' \
        "$csv" >"$work/g.txt"
    # in file order
    grep -o '^\[[^]]*\]' "$4" | tr -d '[]' | while read -r name; do
        awk -v n="$name" '$1 == n { print $1, $2 }' "$work/g.txt"
    done
}

# pick FILE: the first set (file order = the study's order) within TIE of the least geomean;
# FILE holds "set geomean value..." lines. Prints the chosen line; the step's table and its
# ties go to the steps file.
pick() { # FILE TITLE
    awk -v tie="$tie" -v title="$2" '
        { g[NR] = $2; line[NR] = $0; if (NR == 1 || $2 < best) best = $2 }
        END {
            print "## " title > "/dev/stderr"
            chosen = 0
            for (i = 1; i <= NR; i++) {
                t = g[i] <= best * (1 + tie)
                if (t && !chosen)
                    chosen = i
                mark = t ? (chosen == i ? "  <- winner" : "  (tie)") : ""
                printf "  %s%s\n", line[i], mark > "/dev/stderr"
            }
            print line[chosen]
        }' "$1" 2>>"$steps"
}

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
            for v in auto $sizes; do printf '[r-%s]\nUCX_RNDV_THRESH = %s\n' "$v" "$v" >>"$sets"; done
            run "$b" 1 "$ppn" "$sets" | while read -r s g; do echo "$s $g ${s#r-}"; done >"$work/one.txt"
            pick "$work/one.txt" "1 x $ppn $b: UCX_RNDV_THRESH" | awk '{ print $3 }' >"$one"
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
        run "$b" "$nodes" "$ppn" "$sets" >"$work/s1.g"
        join <(sort "$work/s1.g") <(sort "$work/s1.names") | sort -t- -k2 -n >"$work/s1.txt"
        read -r _ _ tls pair < <(pick "$work/s1.txt" "$nodes x $ppn $b: step 1, UCX_TLS x UCX_RNDV_THRESH")
        # Step 2: UCX_ZCOPY_THRESH with step 1's winner.
        sets=$work/s2.sets
        : >"$sets"
        for v in auto $sizes; do
            printf '[z-%s]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\nUCX_ZCOPY_THRESH = %s\n' \
                "$v" "$tls" "$pair" "$v" >>"$sets"
        done
        run "$b" "$nodes" "$ppn" "$sets" | while read -r s g; do echo "$s $g ${s#z-}"; done >"$work/s2.txt"
        zcopy=$(pick "$work/s2.txt" "$nodes x $ppn $b: step 2, UCX_ZCOPY_THRESH" | awk '{ print $3 }')
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$nodes" "$ppn" "$b" "$tls" "$pair" "$zcopy" >>"$work/winners.tsv"
        echo "imb_study: $nodes x $ppn $b: $tls $pair $zcopy ($(($(date +%s) - t_start)) s)" >&2
    done
done
mkdir -p "$(dirname "$out")"
cp "$work/winners.tsv" "$out.tmp" && mv "$out.tmp" "$out"
{
    echo "# tunesim imb: the study's steps on the models (scripts/imb_study.sh, REPS=$reps, TIE=$tie)"
    echo "# each set's geometric mean of t_max over the sizes; '(tie)': within TIE of the least"
    cat "$steps"
} >"$(dirname "$out")/imb-steps.txt"
echo "imb_study: $out written ($(($(date +%s) - t_start)) s)" >&2
