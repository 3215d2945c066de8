#!/usr/bin/env bash
# predict_motorbike.sh - the reference-case prediction, end to end: every candidate of
# shared/reference/simplefoam-motorbike-72.md (asis, t0, c1..c8; sets/motorbike-72.sets)
# predicted for 2 x BM.Optimized3.36 as a full-length ExecutionTime from the shipped OpenFOAM
# calibration (fitted to the training runs asis and t0 only: scripts/fit_motorbike.sh), with an
# interval from the model parameters' uncertainties, the parameters it is most sensitive to,
# and the t0 / asis gain broken down into mechanisms.
#
#   scripts/predict_motorbike.sh [TRACE] [OUT.md]
#
# TRACE defaults to /tmp/tunesim-motorbike-72.tss; when it is missing it is recorded first with
# bench/record_motorbike.sh (the tutorial's mesh as shipped, decomposed simple (9 8 1), 72 ranks
# oversubscribed, the tracer's cpu clock, ITERS iterations, one recording in exclusive mode
# (EXCLUSIVE=1; EXCLUSIVE= for a plain one) whose bursts are each the median of their class
# (CLASS_MEDIAN=1; docs/recording-noise.md: the least imbalanced traces measured; REPEAT=N
# adds the least of N first): about 6 minutes). OUT.md (default
# docs/motorbike-72-prediction.md) receives the tables and OUT.csv beside it the numbers
# (name,predicted_s,low_s,high_s). About 35 s on 2 cores for the bundled window (15 sweeps of
# the 10 sets), a few minutes for a 6-iteration trace.
#
# How a window becomes a full run (nothing in this step is fitted to a measured ExecutionTime):
#  - compute: the trace's bursts are CPU time of this machine's cores shared by 72 ranks; they
#    are scaled with model.cpu.speed_ratio so that the window's compute is the profile's (its
#    time outside MPI) over the run's length in windows, taken from the halo exchanges
#    (PROFILE's MPI_Isend visits over the window's: docs/extrapolation.md);
#  - the full run: `tunesim sweep --profile PROFILE` (sim/extrapolate.h): the profile's compute
#    per rank plus the window's simulated MPI time per rank scaled by compute (the run is as
#    many windows long as its compute is: the same length, by the speed ratio above). MPI
#    functions the window does not call (MPI_Test, MPI_Waitsome, MPI_Gather, MPI_Allgather
#    with v1912) are not simulated and add nothing; MPI_Init_thread and MPI_Finalize lie
#    outside ExecutionTime.
# What it rests on: the window's pattern (v1912's GAMG cycles, messages 10-15 % smaller than
# v2512's) stands for the reference run's, and MPI time grows with compute as in the window;
# the profile's compute is profiled time (Score-P's own cost per event outside MPI is in it).
#
# Interval: each uncertain parameter is moved by its uncertainty (UNCERTAIN below, one sweep
# each) and the moves' effects are added in quadrature, for each set's time and for each
# set's gain against asis (the moves shift correlated sets together, so gains are tighter).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
trace=${1:-/tmp/tunesim-motorbike-72.tss}
out=${2:-$root/docs/motorbike-72-prediction.md}
csv_out=${out%.md}.csv
iters=${ITERS:-6}
profile=${PROFILE:-$root/traces/data/motorbike-72-asis.scorep-score.txt}
# The shipped OpenFOAM calibration: the IMB-calibrated model with the uncertain parameters
# fitted to the training runs asis and t0 (scripts/fit_motorbike.sh, docs/fit.md). MODEL=
# platforms/calibrations/bm-optimized3.36.xml predicts from the mechanisms alone.
model=${MODEL:-$root/platforms/calibrations/bm-optimized3.36-simplefoam.xml}
model_rel=${model#"$root"/}
# shellcheck source=scripts/outputs.sh
. "$root/scripts/outputs.sh"
check_outputs predict_motorbike "$out" "$csv_out" "${out%.md}.png" -- "$trace" "$profile" "$model"
for f in "$profile" "$model"; do
    [ -f "$f" ] || { echo "predict_motorbike: $f: no such file (expected the profile and the model file)" >&2; exit 1; }
done
jobs=${JOBS:-2}

# Parameter moves: "label|setting|why this much". A parameter the model file holds from
# `tunesim fit` moves by its fitted standard deviation (each on its own: the fit's correlations
# are left out, which widens the interval); the others by their plausible range. Per-call
# costs come from this machine's probe, so they move by half.
FIXED=(
    "send_call|model.ucx.send_call=0.24us|probe runs spread 0.03-0.24 us (median 0.04)"
    "recv_call|model.ucx.recv_call=0.41us|probe runs spread 0.16-0.41 us (median 0.31)"
    "shm.latency=0.5us|model.shm.latency=0.5us|assumed 0.3 us; 0.1-0.5 us plausible (tunesim params --uncertain)"
    "UCX_BCOPY_BW+50%|UCX_BCOPY_BW=10500MB/s|UCX's estimate, not a measured copy rate of a Xeon 6354"
    "reg_cost=4us|model.net.reg_cost=4us|UCX's own 16 us for a registration miss; an mlx5 key from the driver's cache costs a few us"
    "nps2_ratio=1|model.cpu.nps2_compute_ratio=1|Oracle's 1.8 % NPS2 gain shrinks as ranks grow"
    "rndv_overhead x3|model.ucx.rndv_overhead=2us|measured 0.745 us with UCX 1.13 in a VM; the cluster runs UCX 1.17-1.19 on a Xeon 6354"
    "scorep_outside=0|model.scorep.visit_outside=0us|half of MPI_Test's 0.13 us per visit; none would leave the profile's compute whole"
    "dc_extra=0.5us|model.dc.extra_latency=0.5us|UCX's own 60 ns; no dc ping-pong was published for this node: up to a handshake's extra wire turn"
    "hcoll_sm_latency=0.5us|model.hcoll.sm_latency=0.5us|assumed 0.15 us, a cache-line handoff; up to the UCX shared-memory message it replaces"
)
# Structural alternatives: the models' other possible shapes rather than values.
STRUCT=(
    "progress=async|model.mpi.progress=async|the structural alternative: a progress thread"
    "hcoll_sm=pml|model.hcoll.sm_levels=pml|HCOLL's levels inside a node as UCX messages (OSU 4 x 36's level) instead of flag handoffs (the IMB study's 2 x 36 ordering)"
    "buffers new|model.net.rcache=none|assumed one buffer per message size; OpenFOAM builds its linear solver, GAMG's interface buffers with it, anew for each solve call (fvMatrixSolve.C) and temporaries' patch buffers for each evaluation: up to every buffer new, if none lands where one was registered before"
)
# The fitted parameters of the model file: "name value+sd" (value and sd in one unit).
fitted=$(awk -F'"' '/<param / && /source="tunesim fit/ {
        for (i = 1; i < NF; i++) { if ($i ~ /name=$/) n = $(i + 1); if ($i ~ / value=$/) v = $(i + 1); if ($i ~ /stderr=$/) e = $(i + 1) }
        u = v; sub(/^[-+0-9.eE]+/, "", u); printf "%s %.6g%s %.3g%s\n", n, v + 0 + e, u, e + 0, u }' "$model")
UNCERTAIN=()
while read -r name moved sd; do
    [ -n "$name" ] && UNCERTAIN+=("${name#model.}+1sd|$name=$moved|fitted to asis and t0 (tunesim fit): +- $sd")
done <<<"$fitted"
for u in "${FIXED[@]}"; do
    IFS='|' read -r _ setting _ <<<"$u"
    grep -q "^${setting%%=*} " <<<"$fitted" || UNCERTAIN+=("$u")
done
# With a fitted model the structural alternatives stay out of the interval: the fit was made
# without them, and each would be refitted, not added (docs/fit.md has the refitted numbers);
# they are replayed and shown on their own. Without a fit they are moves like the others.
if [ -n "$fitted" ]; then
    SHOWN=("${STRUCT[@]}")
else
    UNCERTAIN+=("${STRUCT[@]}")
    SHOWN=()
fi
# QUICK=1 (for long traces): only the three moves that matter most, no mechanism steps; the
# interval then leaves the other moves out and the report says so.
if [ "${QUICK:-0}" = 1 ]; then
    UNCERTAIN=("${UNCERTAIN[@]:0:3}")
    SHOWN=()
fi

die() {
    echo "predict_motorbike: $*" >&2
    exit 1
}
[ -f "$profile" ] || die "$profile: no profile (scorep-score text output)"
if [ ! -e "$trace/traces.otf2" ] && [ ! -f "$trace" ]; then
    echo "predict_motorbike: no trace at $trace: recording it (bench/record_motorbike.sh)"
    case "$trace" in
        *.tss) # one recording (or REPEAT) into ${trace%.tss}; each burst its class's median
            END_TIME=$iters REPEAT=${REPEAT:-1} CLASS_MEDIAN=${CLASS_MEDIAN:-1} EXCLUSIVE=${EXCLUSIVE-1} \
                bash "$root/bench/record_motorbike.sh" "${trace%.tss}"
            [ -f "$trace" ] || "$build/tunesim" convert "${trace%.tss}" -o "$trace" ;; # neither
        *) END_TIME=$iters bash "$root/bench/record_motorbike.sh" "$trace" ;;
    esac
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Replays read a store; a store given (its magic "TUNESIM") is used as it is.
if [ -f "$trace" ] && [ "$(head -c 7 "$trace")" = TUNESIM ]; then
    ln -s "$(cd "$(dirname "$trace")" && pwd)/$(basename "$trace")" "$work/trace.tss"
else
    "$build/tunesim" convert "$trace" -o "$work/trace.tss" >/dev/null
fi
# The window's iterations, the run's length in windows and the CPU scaling
# (scripts/motorbike_scale.sh, shared with fit_motorbike.sh).
# shellcheck source=scripts/motorbike_scale.sh
. "$root/scripts/motorbike_scale.sh"
motorbike_scale "$build/tunesim" "$work/trace.tss" "$profile" "$work" || exit 1
echo "predict_motorbike: iterations 1:$niter, traced compute $compute s over 72 ranks; the run is $windows windows" \
    "(MPI_Isend $prof_isend / $win_isend); model.cpu.speed_ratio = $ratio"
# sweep NAME [SETTING]: the reference sets with the calibration, the CPU scaling and SETTING.
sweep() {
    local name=$1 extra=${2:-}
    motorbike_sets "$model" "${SETS:-$root/sets/motorbike-72.sets}" "$work/$name.sets" "$extra"
    "$build/tunesim" sweep "$work/trace.tss" --sets "$work/$name.sets" --platform bm-optimized3.36 \
        --nodes 2 --ppn 36 -j "$jobs" --window "1:$niter" --profile "$profile" --csv "$work/$name.csv" \
        --results "$work/$name.jsonl" >"$work/$name.txt"
}

# full NAME: "set ExecutionTime window_time" per set, from the sweep's CSV (full_time_s:
# the full run as tunesim sweep --profile scaled it).
full() {
    awk -F, "$(cat "$root/scripts/sweep_csv.awk")"'
        { printf "%s %.6f %.6f\n", $col["name"], $col["full_time_s"], $col["predicted_time_s"] }
    ' "$work/$1.csv" | sort >"$work/$1.full"
}

echo "predict_motorbike: nominal sweep"
sweep nominal
full nominal
# The floor (sets/floor.sets): asis with every MPI cost at nothing, so only compute and the
# waits of its imbalance are left. The most any setting can gain on this trace.
echo "predict_motorbike: floor (free communication)"
SETS=$root/sets/floor.sets sweep floor
full floor
# run_moves PREFIX WHAT MOVE...: one sweep per move, PREFIX1.full, PREFIX2.full, ...
run_moves() {
    local prefix=$1 what=$2 i=0 n label setting why
    shift 2
    n=$#
    for u in "$@"; do
        i=$((i + 1))
        IFS='|' read -r label setting why <<<"$u"
        echo "predict_motorbike: $what $i/$n: $setting"
        sweep "$prefix$i" "$setting"
        full "$prefix$i"
    done
}
run_moves u sensitivity "${UNCERTAIN[@]}"
run_moves a "structural alternative" "${SHOWN[@]}"

# The t0 / asis gain by mechanism: asis moved to t0 one setting at a time, then t0's gain
# without the progress rule and without the per-call costs.
t0_lines='-x UCX_TLS=self,sm,rc
-x UCX_RNDV_THRESH=intra:128kb,inter:128kb
-x UCX_ZCOPY_THRESH=128kb'
nocall='model.ucx.send_call=0us
model.ucx.recv_call=0us'
printf '%s\n\n' "[asis]" "[s1-tls]
-x UCX_TLS=self,sm,rc" "[s2-rndv]
-x UCX_TLS=self,sm,rc
-x UCX_RNDV_THRESH=intra:128kb,inter:128kb" "[t0]
$t0_lines" "[asis-async]
model.mpi.progress=async" "[t0-async]
$t0_lines
model.mpi.progress=async" "[asis-nocall]
$nocall" "[t0-nocall]
$t0_lines
$nocall" "[asis-nohandshake]
model.ucx.rndv_overhead=0us" "[asis-nobusy]
model.ucx.rndv_busy_cost=0us" "[t0-nps2]
$t0_lines
nps = 2" >"$work/steps.def"
if [ "${QUICK:-0}" != 1 ]; then
    echo "predict_motorbike: mechanism steps"
    SETS=$work/steps.def sweep steps
    full steps
fi

# Intervals: per set, the quadrature sum of the moves' effects on its time and on its gain.
args=()
for k in $(seq 1 ${#UNCERTAIN[@]}); do args+=("$work/u$k.full"); done
awk -v n=${#UNCERTAIN[@]} '
    FNR == 1 { file++ }
    file == 1 { t[$1, 0] = $2; names[++nn] = $1; next }
    { t[$1, file - 1] = $2 }
    END {
        for (k = 1; k <= nn; k++) {
            s = names[k]; vt = 0; vg = 0; g0 = 1 - t[s, 0] / t["asis", 0]
            for (i = 1; i <= n; i++) {
                dt = t[s, i] - t[s, 0]; vt += dt * dt
                dg = (1 - t[s, i] / t["asis", i]) - g0; vg += dg * dg
            }
            printf "%s %.6f %.6f %.6f %.6f\n", s, t[s, 0], sqrt(vt), 100 * g0, 100 * sqrt(vg)
        }
    }' "$work/nominal.full" "${args[@]}" | sort -k2,2g >"$work/ranked.txt"

# The CSV the issue asks for, in ranked order.
{
    echo "name,predicted_s,low_s,high_s"
    awk '{ printf "%s,%.3f,%.3f,%.3f\n", $1, $2, $2 - $3, $2 + $3 }' "$work/ranked.txt"
} >"$work/pred.csv"

time_of() { # time_of NAME FILE: the predicted ExecutionTime of NAME in that file
    awk -v s="$1" '$1 == s { printf "%.3f", $2 }' "$2"
}
gain() { # gain BASE NAME FILE: percent less time than BASE in that file
    awk -v b="$1" -v s="$2" '$1 == b { a = $2 } $1 == s { t = $2 } END { printf "%+.2f", 100 * (1 - t / a) }' "$3"
}
sets_file=${SETS_MAIN:-$root/sets/motorbike-72.sets}
words_of() { # words_of NAME: the set's mpirun words (-x ..., --mca ...) on one line
    awk -v s="[$1]" '
        /^\[/ { on = ($1 == s); next }
        on && /^(-x|--mca|--set)/ { sub(/[ \t]*#.*/, ""); w = w (w ? " " : "") $0 }
        END { print w }' "$sets_file"
}
nps_of() { # nps_of NAME: the set's NPS (1 unless it says 2)
    awk -v s="[$1]" '/^\[/ { on = ($1 == s); next } on && $1 == "nps" { v = $3 } END { print v ? v : 1 }' "$sets_file"
}
short_of() { # short_of NAME: the set's settings in a few words, for the ranking table
    local w
    w=$(words_of "$1" | sed -e 's/-x UCX_TLS=//; s/-x UCX_RNDV_THRESH=/ rndv /; s/-x UCX_ZCOPY_THRESH=/ zcopy /' \
        -e 's/--mca coll_hcoll_enable 0 --mca coll_ucc_enable 1/ UCC/')
    echo "${w:-defaults (all, auto, auto, HCOLL)}, NPS$(nps_of "$1")"
}
move_table() { # move_table HEAD1 HEAD2 PREFIX MOVE...: each move's change of every set's time
    local h1=$1 h2=$2 prefix=$3 i=0 label setting why
    shift 3
    printf "| %s | %s |" "$h1" "$h2"
    awk '{ printf " %s |", $1 }' "$work/nominal.full"
    echo
    printf "|---|---|"
    awk '{ printf "---|" }' "$work/nominal.full"
    echo
    for u in "$@"; do
        i=$((i + 1))
        IFS='|' read -r label setting why <<<"$u"
        printf "| \`%s\` | %s |" "$setting" "$why"
        join "$work/nominal.full" "$work/$prefix$i.full" | awk '{ printf " %+.3f |", $4 - $2 }'
        echo
    done
    echo
}
step_row() { # step_row LABEL BASE NAME: one row of the mechanism table
    printf "| %s | %s | %s %% |\n" "$1" "$(time_of "$3" "$work/steps.full")" \
        "$(gain "$2" "$3" "$work/steps.full")"
}
{
    echo "# simpleFoam motorBike, 72 ranks on 2 x BM.Optimized3.36: predicted ExecutionTime"
    echo
    echo "Made by \`scripts/predict_motorbike.sh\` on $(date -u +%Y-%m-%d) from \`$(basename "$trace")\`, a $niter-iteration"
    echo "trace recorded on this project's machine (OpenFOAM v1912, cpu clock, 72 ranks on 2 cores;"
    echo "the bundled one: traces/data/README.md), its iterations 1:$niter (start-up left out) replayed with"
    echo "\`--model $model_rel\` and"
    echo "\`model.cpu.speed_ratio=$ratio\`, and extrapolated to the full run with the asis profile"
    echo "(\`$(basename "$profile")\`, \`tunesim sweep --profile\`): the profile's compute per rank"
    # the compute the sweep scaled with (Score-P's own time at the model's cost per visit)
    echo "($(awk '$1 == "compute" && $3 == "s" { print $2; exit }' "$work/nominal.txt") s) plus the window's simulated MPI time scaled by compute."
    if [ -n "$fitted" ]; then
        echo "The model's uncertain parameters are fitted to the two training runs, asis 17.85 s and t0"
        echo "15.91 s (10.9 % less) with both profiles (\`tunesim fit\`, \`scripts/fit_motorbike.sh\`,"
        echo "docs/fit.md); c1..c8 are predictions from it, not measured here."
    else
        echo "**Not anchored** on any"
        echo "measured ExecutionTime. Measured on the cluster: asis 17.85 s, t0 15.91 s (10.9 % less)."
    fi
    echo
    floor_s=$(time_of floor "$work/floor.full")
    asis_s=$(time_of asis "$work/nominal.full")
    # The answer first: the set to use, its gain with interval, what it cannot be told apart
    # from, what it is most sensitive to, and the replay that gives its number.
    best=$(awk 'NR == 1 { print $1 }' "$work/ranked.txt")
    best_row=$(awk 'NR == 1' "$work/ranked.txt")
    echo "## Recommendation"
    echo
    if [ "$best" = asis ]; then
        echo "Keep the defaults: no candidate is predicted faster than asis."
    else
        echo "$best_row" | awk -v a="$asis_s" '{ printf "Use **%s**: predicted %.2f s against asis'"'"'s %.2f s, %.1f %% +- %.1f %% less time\n", $1, $2, a, $4, $5 }'
        if [ "${QUICK:-0}" = 1 ]; then
            echo "(the interval covers the sensitivity table's ${#UNCERTAIN[@]} moves only: QUICK=1 left out the other"
            echo "uncertain parameters to save time; and not what the models lack: see the ranking's caveat)."
        elif [ -n "$fitted" ]; then
            echo "(the interval covers every parameter of \`tunesim params --uncertain\`, each fitted one moved by"
            echo "its fitted standard deviation, and UCX's copy-rate estimate: the ${#UNCERTAIN[@]} moves of the"
            echo "sensitivity table. It leaves out the three structural alternatives, shown on their own below:"
            echo "the calibration was fitted without them, and each would be refitted, not added.)"
        else
            echo "(the interval covers every parameter of \`tunesim params --uncertain\`, UCX's copy-rate"
            echo "estimate and three structural alternatives: the ${#UNCERTAIN[@]} moves of the sensitivity table; not"
            echo "what the models lack: see the ranking's caveat)."
        fi
        echo "As an mpirun line (NPS is the nodes' BIOS setting):"
        echo
        echo '```'
        echo "mpirun -n 72 -N 36 $(words_of "$best") simpleFoam -parallel    # nodes in NPS$(nps_of "$best")"
        echo '```'
        echo
        # Sets whose difference from the best is within twice its uncertainty.
        ties=$(awk -v n=${#UNCERTAIN[@]} -v b="$best" '
            FNR == 1 { file++ }
            { t[$1, file - 1] = $2; if (file == 1) names[++nn] = $1 }
            END {
                for (k = 1; k <= nn; k++) {
                    s = names[k]; if (s == b) continue
                    d0 = t[s, 0] - t[b, 0]; v = 0
                    for (i = 1; i <= n; i++) { dd = (t[s, i] - t[b, i]) - d0; v += dd * dd }
                    if (d0 <= 2 * sqrt(v)) o = o (o ? ", " : "") s
                }
                print o
            }' "$work/nominal.full" "${args[@]}")
        echo "It cannot be told apart from: ${ties:-none (every other set is slower by more than twice its uncertainty)}."
        k=0 most="" most_d=0
        for u in "${UNCERTAIN[@]}"; do
            k=$((k + 1))
            IFS='|' read -r label setting why <<<"$u"
            d=$(awk -v b="$best" 'FNR == 1 { f++ }
                f == 1 && $1 == "asis" { a0 = $2 } f == 1 && $1 == b { s0 = $2 }
                f == 2 && $1 == "asis" { a1 = $2 } f == 2 && $1 == b { s1 = $2 }
                END { printf "%.3f", 100 * ((1 - s1 / a1) - (1 - s0 / a0)) }' "$work/nominal.full" "$work/u$k.full")
            if awk -v d="$d" -v m="$most_d" 'BEGIN { exit !((d < 0 ? -d : d) > (m < 0 ? -m : m)) }'; then
                most=$setting most_d=$d
            fi
        done
        echo "Its gain is most sensitive to \`$most\` (moves it by $most_d points)."
    fi
    echo
    echo "The same number from one replay (the window scaled with the profile, as here):"
    echo
    echo '```'
    echo "tunesim replay $(printf '%q' "$(basename "$trace")") --nodes 2 --ppn 36 --nps $(nps_of "$best") --window 1:$niter \\"
    echo "    --profile $(basename "$profile") --model $model_rel \\"
    echo "    --set model.cpu.speed_ratio=$ratio $(words_of "$best")"
    echo '```'
    echo
    echo "## Headroom"
    echo
    echo "With every MPI cost the models charge set to nothing (\`sets/floor.sets\`) the same trace"
    echo "takes $floor_s s: its compute and the waits its imbalance makes (asis's protocols: a"
    echo "set that sends everything eager has a floor a little lower). So no"
    echo "setting can be predicted much faster: the most any tuning can save on this trace is"
    echo "$(awk -v a="$asis_s" -v f="$floor_s" 'BEGIN { printf "%.1f", 100 * (1 - f / a) }') % of asis's $asis_s s (measured: t0 saves 10.9 %)."
    echo "A measured time below the floor says the trace's compute is more imbalanced than the"
    awk -v f="$floor_s" 'BEGIN {
        if (f > 15.91)
            printf "measured run'"'"'s: measured t0 takes 15.91 s, %.1f %% below this floor (docs/t0-gap.md).\n", 100 * (1 - 15.91 / f)
        else
            printf "measured run'"'"'s; measured t0 (15.91 s) lies %.1f %% above this floor.\n", 100 * (15.91 / f - 1) }'
    echo
    echo "## Ranking"
    echo
    echo "Interval: +- the quadrature sum of the effects of moving each uncertain parameter (table"
    echo "below). \"gain\" is the time saved against asis; a set is marked = when its difference"
    echo "from the set ranked above it is within twice that difference's uncertainty. The intervals"
    echo "cover the parameters' uncertainties only, not what the model lacks."
    if [ -n "$fitted" ]; then
        awk '$1 == "t0" { printf "t0 is a training run: its gain is fitted, %+.1f %% against the measured 10.9 %%.\n", $4 }' "$work/ranked.txt"
        echo "The fitted cost of a rendezvous whose RTS finds its receiver computing"
        echo "(\`model.ucx.rndv_busy_cost\`) lies far outside its plausible range (docs/fit.md): the"
        echo "calibration carries a cost only the defaults pay whose mechanism is not known, and c1..c8"
        echo "inherit it as the share of their messages that still go by rendezvous to a computing peer."
    else
        awk -v f="$floor_s" '$1 == "t0" {
            printf "On the one measured tuning case, t0, the predicted gain (%+.1f %%) misses the measured 10.9 %% by %.1f points,\n", $4, 10.9 - $4
            if (f > 15.91)
                print "far outside its interval, and the trace'"'"'s floor (above) shows part of why."
            else
                print "far outside its interval, on a trace whose floor (above) leaves room for it (docs/t0-gap.md)."
        }' "$work/ranked.txt"
    fi
    echo
    echo "| rank | set | settings | ExecutionTime [s] | interval [s] | gain vs asis | gain interval | separable from the one above |"
    echo "|---|---|---|---|---|---|---|---|"
    for n in $(awk '{ print $1 }' "$work/ranked.txt"); do echo "$n|$(short_of "$n")"; done >"$work/short.txt"
    # separability of neighbours: the moves' effects on the difference, in quadrature
    args2=("$work/nominal.full" "${args[@]}")
    awk -v n=${#UNCERTAIN[@]} '
        FNR == 1 { file++ }
        file == 1 { split($0, kv, "|"); short[kv[1]] = kv[2]; next }
        file == 2 { r++; name[r] = $1; tt[r] = $2; sd[r] = $3; g[r] = $4; sg[r] = $5; next }
        { t[$1, file - 3] = $2 }
        END {
            for (k = 1; k <= r; k++) {
                sep = "-"
                if (k > 1) {
                    a = name[k - 1]; b = name[k]; d0 = t[b, 0] - t[a, 0]; v = 0
                    for (i = 1; i <= n; i++) { dd = (t[b, i] - t[a, i]) - d0; v += dd * dd }
                    sep = (d0 > 2 * sqrt(v) && d0 > 0) ? sprintf("yes (%.3f s +- %.3f)", d0, sqrt(v)) \
                                                        : sprintf("= (%.3f s +- %.3f)", d0, sqrt(v))
                }
                printf "| %d | %s | %s | %.2f | %.2f-%.2f | %+.1f %% | +- %.1f %% | %s |\n", k, name[k],
                       short[name[k]], tt[k], tt[k] - sd[k], tt[k] + sd[k], g[k], sg[k], sep
            }
        }' "$work/short.txt" "$work/ranked.txt" "${args2[@]}"
    echo
    echo "## Sensitivity (change of the predicted ExecutionTime, seconds)"
    echo
    move_table "parameter move" "why this much" u "${UNCERTAIN[@]}"
    if [ ${#SHOWN[@]} -gt 0 ]; then
        echo "## Structural alternatives (not in the interval; change of the predicted ExecutionTime, seconds)"
        echo
        echo "Each replayed on the fitted calibration as it is. A fit made under the alternative would"
        echo "move the fitted parameters too (docs/fit.md gives those refits), so these overstate it."
        echo
        move_table alternative why a "${SHOWN[@]}"
    fi
    if [ "${QUICK:-0}" != 1 ]; then
        echo "## t0 against asis, by mechanism"
        echo
        echo "asis moved to t0 one setting at a time (each row's gain is against asis), then t0's gain"
        echo "with a mechanism switched off. Measured: t0 10.9 % less time than asis."
        echo
        echo "| step | ExecutionTime [s] | gain vs asis |"
        echo "|---|---|---|"
        for s in asis s1-tls s2-rndv t0; do
            step_row "$s" asis "$s"
        done
        step_row "t0 vs asis, both model.mpi.progress=async" asis-async t0-async
        step_row "t0 vs asis, both without per-call costs" asis-nocall t0-nocall
        step_row "t0 vs asis without the rendezvous handshake's cost" asis-nohandshake t0
        step_row "t0 vs asis without the rendezvous cost to a computing receiver" asis-nobusy t0
        step_row "t0 with NPS2 (vs asis, NPS1)" asis t0-nps2
        echo
        echo "Simulated per-function time of the window, summed over ranks (compare the profiles' shape:"
        echo "measured asis -> t0: Allreduce -12.5 %, Waitall -20.8 %, Isend +27.7 %):"
        echo
        echo '```'
        grep -E "^ +[0-9]+ +(asis|t0|s1-tls|s2-rndv) " "$work/steps.txt" | awk 'NF > 4' | cut -c1-95
        echo '```'
        echo
    fi
    echo "The nominal sweep's own table (collective components, protocol mix):"
    echo
    echo '```'
    # The trace's copy lives in a temporary folder and the profile in the checkout: their
    # paths would differ from run to run and from checkout to checkout.
    nominal=$(cat "$work/nominal.txt")
    nominal=${nominal//"$work/trace.tss"/$(basename "$trace")}
    printf '%s\n' "${nominal//"$profile"/$(basename "$profile")}"
    echo '```'
} >"$work/table.md"
# The picture a user decides on: each set's predicted gain against asis with its interval.
png_out=${out%.md}.png
if command -v gnuplot >/dev/null; then
    awk '{ printf "%d %s %.4f %.4f\n", NR - 1, $1, $4, $5 }' "$work/ranked.txt" >"$work/gain.dat"
    # The training runs' measured gains (simplefoam-motorbike-72.md): asis itself and t0.
    awk '$1 == "asis" { printf "%d 0\n", NR - 1 } $1 == "t0" { printf "%d %.1f\n", NR - 1, 100 * (1 - 15.91 / 17.85) }' \
        "$work/ranked.txt" >"$work/measured.dat"
    gnuplot <<EOF_PLOT
set terminal pngcairo size 900,500 font ",10"
set output "$work/gain.png"
set title "simpleFoam motorBike, 72 ranks, 2 x BM.Optimized3.36: predicted gain against asis\n(bars: interval from the model parameters' uncertainties)"
set ylabel "faster than asis [%] (asis time / set time - 1)"
set xrange [-0.7:$(wc -l <"$work/gain.dat") - 0.3]
set grid ytics
set xzeroaxis lw 1.5
set style fill solid 0.5
set boxwidth 0.6
set key top left
plot "$work/gain.dat" using 1:3:xtic(2) with boxes lc rgb "#4477aa" title "predicted", \
     "" using 1:3:4 with yerrorbars lc rgb "black" pt 7 ps 0.5 notitle, \
     "$work/measured.dat" using 1:2 with points lc rgb "#ee6677" pt 9 ps 1.8 title "measured (training: asis 17.85 s, t0 15.91 s)"
EOF_PLOT
    mv "$work/gain.png" "$png_out"
    echo "predict_motorbike: wrote $png_out"
elif [ -e "$png_out" ]; then
    # an earlier run's picture beside this run's table would show another prediction
    rm -f -- "$png_out"
    echo "predict_motorbike: gnuplot is not installed: no picture; $png_out (an earlier prediction's) removed"
else
    echo "predict_motorbike: gnuplot is not installed: no picture"
fi
mv "$work/pred.csv" "$csv_out"
mv "$work/table.md" "$out"
cat "$out"
