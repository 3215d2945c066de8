#!/usr/bin/env bash
# imb_pictures.sh - pictures like those of Oracle's IMB study (shared/reference/
# oracle-imb-bm-optimized3.36.md): per benchmark, t_max against the message size for the
# settings of one step, log-log, PNG and SVG, from `tunesim imb --plot` on the models with the
# shipped calibration. For 1 x 36 and 2 x 36 (the shapes the study published) and each of
# Alltoall, Allgather, Allreduce and Exchange:
#   1x36-rndv-BENCH    UCX_RNDV_THRESH in {auto, 4 ... 128 kb} (the one-node step)
#   2x36-tls-BENCH     UCX_TLS in {all, self,sm,rc, self,sm,ud, self,sm,dc} at the step-1
#                      winner's threshold pair (docs/imb-winners.tsv)
#   2x36-zcopy-BENCH   UCX_ZCOPY_THRESH in {auto, 4 ... 128 kb} with step 1's winner (step 2)
#   2x36-coll-BENCH    no component (HCOLL off), HCOLL, UCC with the winner's settings (step 3)
# into docs/imb-pictures/ (.png and .svg, and .csv with the numbers).
#
#   scripts/imb_pictures.sh [BUILD]     (BUILD: default build; about 20 minutes on 2 cores)
# Environment: BUDGET (tunesim imb --budget, default 40000 as scripts/imb_study.sh), BENCH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build}
budget=${BUDGET:-40000}
benches=${BENCH:-"Alltoall Allgather Allreduce Exchange"}
model=platforms/calibrations/bm-optimized3.36.xml
out=docs/imb-pictures
winners=docs/imb-winners.tsv
sizes="4kb 8kb 16kb 32kb 64kb 128kb"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/imb_common.sh
. "$root/scripts/imb_common.sh"
check_benches imb_pictures "$benches"

# picture NODES BENCH NAME SETS: tunesim imb over the sets, plotted as
# $out/NODESx36-NAME-BENCH.{png,svg} (tunesim imb --plot adds the benchmark), numbers in .csv.
picture() {
    local prefix=$out/${1}x36-$3
    "$build/tunesim" imb --nodes "$1" --ppn 36 --bench "$2" --msglog "0:$(maxlog "$2" "$1")" \
        --budget "$budget" --model "$model" --sets "$4" -j "$(nproc)" "${study_stack[@]}" --csv "$prefix-$2.csv" \
        --plot "$prefix" >/dev/null
    echo "imb_pictures: $prefix-$2.png"
}

for b in $benches; do
    sets=$work/rndv.sets
    : >"$sets"
    for v in auto $sizes; do printf '[%s]\nUCX_RNDV_THRESH = %s\n' "$v" "$v" >>"$sets"; done
    picture 1 "$b" rndv "$sets"

    read -r tls pair zcopy < <(awk -F'\t' -v b="$b" '$1 == 2 && $2 == 36 && $3 == b { print $4, $5, $6 }' "$winners")
    [ -n "$tls" ] || { echo "imb_pictures: no 2 x 36 $b row in $winners" >&2; exit 1; }
    sets=$work/tls.sets
    : >"$sets"
    for t in all self,sm,rc self,sm,ud self,sm,dc; do # set names: no commas
        printf '[%s]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\n' "${t//,/-}" "$t" "$pair" >>"$sets"
    done
    picture 2 "$b" tls "$sets"

    sets=$work/zcopy.sets
    : >"$sets"
    for v in auto $sizes; do
        printf '[%s]\nUCX_TLS = %s\nUCX_RNDV_THRESH = %s\nUCX_ZCOPY_THRESH = %s\n' "$v" "$tls" "$pair" "$v" >>"$sets"
    done
    picture 2 "$b" zcopy "$sets"

    sets=$work/coll.sets
    common=$(printf 'UCX_TLS = %s\nUCX_RNDV_THRESH = %s\nUCX_ZCOPY_THRESH = %s' "$tls" "$pair" "$zcopy")
    printf '[none]\n%s\ncoll_hcoll_enable = 0\n[hcoll]\n%s\n[ucc]\n%s\ncoll_hcoll_enable = 0\ncoll_ucc_enable = 1\n' \
        "$common" "$common" "$common" >"$sets"
    picture 2 "$b" coll "$sets"
done
