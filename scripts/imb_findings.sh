#!/usr/bin/env bash
# imb_findings.sh [OUT.md] - every finding of Oracle's IMB study for 1 x 36 and 2 x 36
# (shared/reference/oracle-imb-bm-optimized3.36.md) checked against tunesim imb's
# predictions, one row a finding: what the study measured, what the models predict (a chosen
# setting with its geometric mean of t_max and the study's setting's, a comparison with the
# range of the two sets' t_max ratio over the finding's sizes), and whether that reproduces
# it. Writes a markdown table to OUT.md (default stdout).
#
# A finding "X faster than no component at <= S" holds when X's t_max is below the no-component
# set's at every size from 1 B to S; "over almost the whole range" at 80 % of the sizes or
# more; "tuning helps between A and B" when the step's winner beats UCX_RNDV_THRESH=auto at
# every size from A to B. The thresholds chosen come from tunesim imb's rule (docs/imb.md).
# Step 3 (NPS and placement per component) replays NPS1/NPS2 x block/cyclic at the study's
# own settings and compares the winner with the study's.
# Environment: BUILD (default build), JOBS (default nproc), MODEL (default the shipped
# calibration), EXTRA (more tunesim imb words for every run, e.g. "--set model.X=V").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
jobs=${JOBS:-$(nproc)}
model=${MODEL:-$root/platforms/calibrations/bm-optimized3.36.xml}
out=${1:-/dev/stdout}
[ -x "$build/tunesim" ] || { echo "imb_findings: $build/tunesim not built" >&2; exit 1; }
[ -f "$model" ] || { echo "imb_findings: no model file $model" >&2; exit 1; }
if [ ! -c "$out" ] && [ ! -p "$out" ]; then # a table for a file, checked before 13 minutes of runs
    # shellcheck source=scripts/outputs.sh
    . "$root/scripts/outputs.sh"
    check_outputs imb_findings "$out" -- "$model"
fi
work=$(mktemp -d /tmp/tunesim-imb-findings.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$build/tunesim" "$work/tunesim" # a rebuild meanwhile changes nothing this runs
tunesim=$work/tunesim
# shellcheck disable=SC2206 # words
extra=(${EXTRA:-})

# shellcheck source=scripts/imb_common.sh
. "$root/scripts/imb_common.sh"
comp_words() { # none|hcoll|ucc
    case $1 in
    none) echo "--mca coll_hcoll_enable 0" ;;
    hcoll) echo "" ;;
    ucc) echo "--mca coll_hcoll_enable 0 --mca coll_ucc_enable 1" ;;
    esac
}
# imb NAME NODES BENCH SETS: the run's CSV to $work/NAME.csv, its report to $work/NAME.txt.
imb() {
    "$tunesim" imb --nodes "$2" --ppn 36 --bench "$3" --msglog "0:$(maxlog "$3" "$2")" \
        --model "$model" --sets "$4" -j "$jobs" --csv "$work/$1.csv" "${study_stack[@]}" "${extra[@]}" >"$work/$1.txt"
}
winner() { sed -n 's/^# winner: \([^ ]*\) .*/\1/p' "$work/$1.txt"; }
# gm NAME SET: SET's geometric mean of t_max in NAME's comparison table (the sizes at which the
# sets differ by more than 1 %), empty when no size does.
gm() {
    awk -v s="$2" '/^ *#bytes/ && !/#repetitions/ { for (i = 2; i <= NF; i++) col[$i] = i }
        $1 == "geomean" && (s in col) { print $(col[s]); exit }' "$work/$1.txt"
}
# chosen NAME WINNER WANT: the winner with its geometric mean, how far behind the study's
# setting is where it differs (the predicted numbers of a missed row), and the winner's ties.
chosen() {
    local a b t
    a=$(gm "$1" "$2")
    b=$(gm "$1" "$3")
    t=$(sed -n 's/^# ties within [^:]*: //p' "$work/$1.txt")
    if [ -z "$a" ] || [ "$a" = - ]; then
        echo "$2 (no size differs by more than 1 %)"
    elif [ "$2" = "$3" ] || [ -z "$b" ] || [ "$b" = - ]; then
        echo "$2 ($a us${t:+; ties: $t})"
    else
        awk -v w="$2" -v a="$a" -v s="$3" -v b="$b" -v t="$t" \
            'BEGIN { printf "%s (%s us; %s %s us, %+.1f %%%s)\n", w, a, s, b, 100 * (b / a - 1),
                     t == "" ? "" : "; ties: " t }'
    fi
}
# holds CSV A B LO HI FRACTION OP: 1 when set A's t_max OP (lt, gt) set B's at FRACTION of
# the sizes in [LO, HI]; prints "1 n/m" or "0 n/m", then the range of A's t_max over B's.
holds() {
    awk -F, -v a="$2" -v b="$3" -v lo="$4" -v hi="$5" -v f="$6" -v op="$7" '
        NR > 1 && $4 >= lo && $4 <= hi { t[$2, $4] = $8; s[$4] = 1 }
        END {
            for (z in s) if (((a SUBSEP z) in t) && ((b SUBSEP z) in t)) {
                m++; if ((op == "lt" && t[a, z] < t[b, z]) || (op == "gt" && t[a, z] > t[b, z])) n++
                if (t[b, z] > 0) {
                    r = t[a, z] / t[b, z]
                    if (!k++ || r < rlo) rlo = r
                    if (k == 1 || r > rhi) rhi = r
                }
            }
            printf "%d %d/%d %.2f-%.2f\n", (m > 0 && n >= f * m) ? 1 : 0, n + 0, m + 0, rlo, rhi
        }' "$1"
}
rows=$work/rows.md
row() { # FINDING PREDICTED OK
    printf '| %s | %s | %s |\n' "$1" "$2" "$([ "$3" = 1 ] && echo reproduced || echo missed)" >>"$rows"
}
# check NAME FINDING A B LO HI FRACTION OP
check() {
    read -r ok frac range < <(holds "$work/$1.csv" "$3" "$4" "$5" "$6" "$7" "$8")
    row "$2" "$frac sizes ($3 / $4 $range)" "$ok"
}
K=1024
M=$((1024 * 1024))

# ---- 1 x 36: UCX_RNDV_THRESH per component ----------------------------------------------
declare -A want1=([Alltoall/none]=8kb [Alltoall/hcoll]=16kb [Alltoall/ucc]=16kb
    [Allgather/none]=16kb [Allgather/hcoll]=16kb [Allgather/ucc]=16kb
    [Allreduce/none]=128kb [Allreduce/hcoll]=64kb [Allreduce/ucc]=64kb [Exchange/hcoll]=16kb)
for b in Alltoall Allgather Allreduce Exchange; do
    for c in none hcoll ucc; do
        [ "$b" = Exchange ] && [ "$c" != hcoll ] && continue
        sets=$work/r.sets
        : >"$sets"
        for v in auto 4kb 8kb 16kb 32kb 64kb 128kb; do
            printf '[%s]\nUCX_RNDV_THRESH = %s\n%s\n' "$v" "$v" "$(comp_words "$c")" >>"$sets"
        done
        imb "r1-$b-$c" 1 "$b" "$sets"
        w=$(winner "r1-$b-$c")
        label=$c
        [ "$b" = Exchange ] && label="any component"
        row "1 x 36 $b, $label: UCX_RNDV_THRESH ${want1[$b/$c]}" "$(chosen "r1-$b-$c" "$w" "${want1[$b/$c]}")" \
            "$([ "$w" = "${want1[$b/$c]}" ] && echo 1 || echo 0)"
    done
done
# Components against no component, all defaults.
printf '[none]\n--mca coll_hcoll_enable 0\n[hcoll]\n[ucc]\n--mca coll_hcoll_enable 0 --mca coll_ucc_enable 1\n' >"$work/comp.sets"
for b in Alltoall Allgather Allreduce; do imb "c1-$b" 1 "$b" "$work/comp.sets"; done
check c1-Alltoall "1 x 36 Alltoall: HCOLL faster than no component at 512 B and below" hcoll none 1 512 1 lt
check c1-Alltoall "1 x 36 Alltoall: HCOLL slower from 256 KB" hcoll none $((256 * K)) $((1 << 30)) 1 gt
check c1-Alltoall "1 x 36 Alltoall: UCC faster at 128 B and below" ucc none 1 128 1 lt
check c1-Alltoall "1 x 36 Alltoall: UCC slower from 8 KB" ucc none $((8 * K)) $((1 << 30)) 1 gt
check c1-Allgather "1 x 36 Allgather: HCOLL faster at 1 KB and below" hcoll none 1 $K 1 lt
check c1-Allgather "1 x 36 Allgather: HCOLL slower at 2-8 KB" hcoll none $((2 * K)) $((8 * K)) 1 gt
check c1-Allgather "1 x 36 Allgather: UCC faster at 64 B and below" ucc none 1 64 1 lt
check c1-Allgather "1 x 36 Allgather: UCC slower at 128-256 B" ucc none 128 256 1 gt
check c1-Allreduce "1 x 36 Allreduce: HCOLL faster at 4 KB and below" hcoll none 1 $((4 * K)) 1 lt
check c1-Allreduce "1 x 36 Allreduce: HCOLL faster from 64 KB" hcoll none $((64 * K)) $((1 << 30)) 1 lt
check c1-Allreduce "1 x 36 Allreduce: UCC faster up to 256 KB" ucc none 1 $((256 * K)) 1 lt
check c1-Allreduce "1 x 36 Allreduce: UCC faster from 1 MB" ucc none $M $((1 << 30)) 1 lt
# Tuning against auto (HCOLL on): the sizes where the study says it helps or hurts.
printf '[auto]\n[tuned]\nUCX_RNDV_THRESH = %s\n' "$(winner r1-Alltoall-hcoll)" >"$work/t.sets"
imb t1-Alltoall 1 Alltoall "$work/t.sets"
check t1-Alltoall "1 x 36 Alltoall: tuning helps between 8 and 16 KB" tuned auto $((8 * K)) $((16 * K)) 1 lt
printf '[auto]\n[tuned]\nUCX_RNDV_THRESH = %s\n' "$(winner r1-Allreduce-hcoll)" >"$work/t.sets"
imb t1-Allreduce 1 Allreduce "$work/t.sets"
check t1-Allreduce "1 x 36 Allreduce: tuning helps between 64 KB and 2 MB" tuned auto $((64 * K)) $((2 * M)) 1 lt
check t1-Allreduce "1 x 36 Allreduce: tuning hurts at 8-32 KB" tuned auto $((8 * K)) $((32 * K)) 1 gt
printf '[auto]\n[tuned]\nUCX_RNDV_THRESH = %s\n' "$(winner r1-Exchange-hcoll)" >"$work/t.sets"
imb t1-Exchange 1 Exchange "$work/t.sets"
check t1-Exchange "1 x 36 Exchange: tuning helps at 16 KB" tuned auto $((16 * K)) $((16 * K)) 1 lt

# ---- 2 x 36 --------------------------------------------------------------------------------
# The study's winners, as the tuned set of each benchmark, against all defaults (HCOLL on).
declare -A tuned2=([Alltoall]="self,sm,rc intra:16kb,inter:128kb 128kb"
    [Allgather]="self,sm,rc intra:16kb,inter:128kb auto"
    [Allreduce]="self,sm,ud intra:64kb,inter:128kb 128kb"
    [Exchange]="self,sm,rc intra:16kb,inter:128kb 128kb")
for b in Alltoall Allgather Allreduce Exchange; do
    read -r tls pair z <<<"${tuned2[$b]}"
    printf '[defaults]\n[tuned]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\nUCX_ZCOPY_THRESH = %s\n' \
        "$tls" "$pair" "$z" >"$work/t2.sets"
    # The study's TLS against the other three at its thresholds.
    # Set names cannot hold commas: self,sm,rc is the set self-sm-rc.
    for t in all self,sm,rc self,sm,ud self,sm,dc; do
        printf '[%s]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\nUCX_ZCOPY_THRESH = %s\n' "${t//,/-}" "$t" "$pair" "$z"
    done >"$work/tls.sets"
    imb "t2-$b" 2 "$b" "$work/t2.sets"
    imb "tls2-$b" 2 "$b" "$work/tls.sets"
    w=$(winner "tls2-$b")
    picked=$(chosen "tls2-$b" "$w" "${tls//,/-}")
    w=${w//-/,}
    row "2 x 36 $b: UCX_TLS $tls (at the study's thresholds)" "${picked//-/,}" "$([ "$w" = "$tls" ] && echo 1 || echo 0)"
done
check t2-Exchange "2 x 36 Exchange: the tuned settings beat all defaults at every size up to 128 KB" tuned defaults 0 $((128 * K)) 1 lt
check t2-Alltoall "2 x 36 Alltoall: the tuned settings beat all defaults at 8 KB and below" tuned defaults 1 $((8 * K)) 1 lt
check t2-Allgather "2 x 36 Allgather: tuning helps at 256 B and below" tuned defaults 1 256 1 lt
check t2-Allreduce "2 x 36 Allreduce: the tuned settings beat all defaults up to 8 MB" tuned defaults 1 $((8 * M)) 1 lt
for b in Alltoall Allgather Allreduce; do imb "c2-$b" 2 "$b" "$work/comp.sets"; done
check c2-Alltoall "2 x 36 Alltoall: HCOLL faster than no component at 512 B and below" hcoll none 1 512 1 lt
check c2-Alltoall "2 x 36 Alltoall: HCOLL faster at 8-64 KB" hcoll none $((8 * K)) $((64 * K)) 1 lt
check c2-Alltoall "2 x 36 Alltoall: UCC faster at 64 B and below" ucc none 1 64 1 lt
check c2-Allgather "2 x 36 Allgather: HCOLL faster over almost the whole range" hcoll none 1 $((1 << 30)) 0.8 lt
check c2-Allgather "2 x 36 Allgather: UCC faster over almost the whole range" ucc none 1 $((1 << 30)) 0.8 lt
check c2-Allreduce "2 x 36 Allreduce: HCOLL faster over the whole range" hcoll none 1 $((1 << 30)) 1 lt
check c2-Allreduce "2 x 36 Allreduce: UCC slower over almost the whole range" ucc none 1 $((1 << 30)) 0.8 gt

# ---- NPS and placement per component (step 3), at the study's settings ---------------------
# placements NAME NODES BENCH COMP SETTINGS: the four NPS x placement sets of one component
# (NPS1 block first: the defaults win where the models see no difference), replayed.
placements() {
    for n in 1 2; do
        for m in block cyclic; do
            printf '[nps%s-%s]\nnps %s\nmap-by %s\n%b\n%s\n' "$n" "$m" "$n" "$m" "$5" "$(comp_words "$4")"
        done
    done >"$work/p.sets"
    imb "$1" "$2" "$3" "$work/p.sets"
}
# Exchange's finding is a pair: block ahead of cyclic, and NPS no difference under block. It
# holds when the winner is a block set, the other block set ties it and no cyclic set does.
exchange_row() { # NAME FINDING
    w=$(winner "$1")
    t=$(sed -n 's/^# ties within [^:]*: //p' "$work/$1.txt")
    other=nps2-block
    [ "$w" = nps2-block ] && other=nps1-block
    ok=0
    case "$w" in *-block) [[ ",${t// /}," == *",$other,"* ]] && [[ "$t" != *cyclic* ]] && ok=1 ;; esac
    row "$2" "$w${t:+ (ties: $t)}" "$ok"
}
# placement_row NAME NODES BENCH COMP SETTINGS WANT: the four sets replayed, the winner's row.
placement_row() {
    placements "$1" "$2" "$3" "$4" "$5"
    w=$(winner "$1")
    row "$2 x 36 $3, $4: $6" "$(chosen "$1" "$w" "$6")" "$([ "$w" = "$6" ] && echo 1 || echo 0)"
}
declare -A place1=([Alltoall/none]=nps1-cyclic [Alltoall/hcoll]=nps1-block [Alltoall/ucc]=nps1-cyclic
    [Allgather/none]=nps2-block [Allgather/hcoll]=nps2-block [Allgather/ucc]=nps2-block
    [Allreduce/none]=nps2-block [Allreduce/hcoll]=nps2-block [Allreduce/ucc]=nps2-block)
declare -A place2=([Alltoall/none]=nps1-block [Alltoall/hcoll]=nps1-block [Alltoall/ucc]=nps1-block
    [Allgather/none]=nps1-block [Allgather/hcoll]=nps1-block [Allgather/ucc]=nps1-cyclic
    [Allreduce/none]=nps2-block [Allreduce/hcoll]=nps2-block [Allreduce/ucc]=nps2-block)
for b in Alltoall Allgather Allreduce; do
    for c in none hcoll ucc; do
        placement_row "p1-$b-$c" 1 "$b" "$c" "UCX_RNDV_THRESH = ${want1[$b/$c]}" "${place1[$b/$c]}"
    done
done
placements p1-Exchange 1 Exchange hcoll "UCX_RNDV_THRESH = ${want1[Exchange/hcoll]}"
exchange_row p1-Exchange "1 x 36 Exchange: block ahead of cyclic, no NPS difference under block"
for b in Alltoall Allgather Allreduce Exchange; do
    read -r tls pair z <<<"${tuned2[$b]}"
    settings="UCX_TLS = $tls\nUCX_RNDV_THRESH = $pair\nUCX_ZCOPY_THRESH = $z"
    if [ "$b" = Exchange ]; then
        placements p2-Exchange 2 Exchange hcoll "$settings"
        exchange_row p2-Exchange "2 x 36 Exchange: block ahead of cyclic, no NPS difference under block"
        continue
    fi
    for c in none hcoll ucc; do
        placement_row "p2-$b-$c" 2 "$b" "$c" "$settings" "${place2[$b/$c]}"
    done
done

{
    echo "| finding (Oracle's IMB study, 1 x 36 and 2 x 36) | tunesim imb predicts | |"
    echo "|---|---|---|"
    cat "$rows"
    echo
    echo "$(grep -c reproduced "$rows") of $(wc -l <"$rows") findings reproduced."
} >"$out"
