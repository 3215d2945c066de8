#!/usr/bin/env bash
# validate_localhost.sh - a real validation of tunesim on this machine (issue 5, not part of
# CI: it takes about 20 minutes and wants a quiet machine). With Debian's OpenFOAM v1912 it
#   prepare  builds a coarsened motorBike case (the tutorial's snappyHexMesh refinement
#            lowered so that it meshes in about a minute), decomposed "simple" (2 1 1);
#   record   records one trace of simpleFoam at 2 ranks with tunesim's tracer (ob1, wall clock);
#   measure  runs the real solver at 2 ranks under every setting of SETS (below), repetitions
#            interleaved round-robin (REPS rounds) so that drift hits every setting alike,
#            logging the load average before each run;
#   predict  predicts each setting from the one trace (`tunesim sweep --platform localhost
#            --nodes 1`, on MODEL when that file exists, else the table's defaults);
#   keep     (part of measure) copies the logs into OUT, trimmed to the lines needed;
#   validate prints the validation table (`tunesim validate`, anchored on ANCHOR) and writes
#            it as text, JSON and CSV into OUT.
#
#   scripts/validate_localhost.sh [PHASE...]      (default: all five, in that order)
#
# Settings, from the environment:
#   WORK=/tmp/tunesim-validate   the case, the trace and the raw logs
#   OUT=tests/data/validation-localhost/run-MMDD-HHMM   results to commit: trimmed logs,
#                  load record, sets, predictions, tables (give OUT to run later phases on
#                  an earlier measurement)
#   TUNESIM=build-val/tunesim    tunesim, with libtunesim-trace.so beside it
#   END_TIME=100   simpleFoam iterations per run (deltaT 1): about 12 s each on a quiet machine
#   QUIET_IDLE=85  before each run, wait (at most QUIET_WAIT=60 s) until the CPUs were at
#                  least this many percent idle over 2 s: the machine is shared, and a run next
#                  to another engineer's build measures the build. Each run's idle figure and
#                  wait are logged in OUT/loadavg.txt.
#   PRIORITY=0     nice value of the measured runs; a negative one (root only), e.g. -10,
#                  makes other users' background jobs yield to the solver while it runs
#   REPS=5         repetitions of each setting
#   ANCHOR=ob1     the setting whose measurement scales the predictions
#   CLOCK_RATIO=1.2  runs whose ClockTime exceeds this x ExecutionTime + 1 s are left out of
#                  the table (listed in it); table-all-runs.txt keeps every run
#   MODEL=         a calibration (--model); default: platforms/calibrations/localhost.xml
#                  (or models/calibrations/localhost.xml), when it exists
# Needs: openfoam, openfoam-examples, openmpi-bin (Debian 12: OpenFOAM v1912, Open MPI 4.1.4,
# UCX 1.13 with self, sysv, posix, cma and tcp).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../traces/foam_case.sh
. "$root/traces/foam_case.sh"
work=$(realpath -m -- "${WORK:-/tmp/tunesim-validate}")
# Absolute: the phases cd into the case and $root.
out=$(realpath -m -- "${OUT:-$root/tests/data/validation-localhost/run-$(date -u +%m%d-%H%M)}")
tunesim=$(realpath -m -- "${TUNESIM:-$root/build-val/tunesim}")
end_time=${END_TIME:-100}
reps=${REPS:-5}
anchor=${ANCHOR:-ob1}
model=${MODEL:+$(realpath -m -- "$MODEL")}
if [ -z "$model" ]; then
    for f in "$root/platforms/calibrations/localhost.xml" "$root/models/calibrations/localhost.xml"; do
        if [ -f "$f" ]; then model=$f; break; fi
    done
fi
examples=/usr/share/doc/openfoam-examples/examples
tutorial=$examples/incompressible/simpleFoam/motorBike
geometry=$examples/resources/geometry/motorBike.obj.gz
case_dir=$work/motorBike
trace=$work/trace
logs=$work/logs
ranks=2

die() {
    echo "validate_localhost: $*" >&2
    exit 1
}

# The settings compared: name, then the mpirun flags. The names are the [sections] of the
# sets file the predictions use (written from this same list, below).
SETS=(
    "ob1|--mca pml ob1"
    "ucx|--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
    "ucx-rndv256|--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_RNDV_THRESH=256"
    "ucx-rndv1k|--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_RNDV_THRESH=1024"
    "ucx-rndvinf|--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_RNDV_THRESH=inf"
    "ucx-tcp|--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=self,tcp"
)

export WM_PROJECT_DIR=/usr/share/openfoam
base_flags=(--allow-run-as-root --oversubscribe -np "$ranks" -x WM_PROJECT_DIR)

step() {
    local name=$1 log=$2 t0=$SECONDS
    shift 2
    echo "validate_localhost: $name ..."
    "$@" >"$log" 2>&1 || die "$name failed, see $log"
    echo "validate_localhost: $name took $((SECONDS - t0)) s"
}

phase_prepare() {
    [ -d "$tutorial" ] && [ -f "$geometry" ] || die "$tutorial not found (apt-get install openfoam-examples)"
    rm -rf "$case_dir"
    mkdir -p "$work"
    cp -r "$tutorial" "$case_dir"
    chmod -R u+w "$case_dir"
    mkdir -p "$case_dir/constant/triSurface"
    cp "$geometry" "$case_dir/constant/triSurface/"
    find "$case_dir" -name '*.gz' -exec gunzip -f {} +
    cd "$case_dir"
    # Coarsen: one level less on the surface (5 6 -> 4 5) and the features (6 -> 5), one
    # less in the wake box (4 -> 3); the shipped mesh takes 2 min 42 s and 353 k cells.
    sed -i -E 's/level 6;/level 5;/; s/level \(5 6\);/level (4 5);/; s/levels \(\(1E15 4\)\);/levels ((1E15 3));/' \
        system/snappyHexMeshDict
    grep -q "level (4 5);" system/snappyHexMeshDict || die "could not coarsen snappyHexMeshDict"
    foam_decompose "$ranks" "2 1 1"
    step surfaceFeatureExtract log.surfaceFeatureExtract surfaceFeatureExtract
    step blockMesh log.blockMesh blockMesh
    step "snappyHexMesh -overwrite" log.snappyHexMesh snappyHexMesh -overwrite
    mkdir -p 0 && cp -r 0.orig/* 0/
    step decomposePar log.decomposePar decomposePar
    step potentialFoam log.potentialFoam \
        mpirun "${base_flags[@]}" --mca pml ob1 potentialFoam -parallel -writephi
    foam_short_run "$end_time" || die "could not remove the function objects"
    grep -E "^Mesh stats|cells:" log.snappyHexMesh | tail -2 || true
}

# Drop what an earlier simpleFoam wrote (keep 0, potentialFoam's fields).
clean_times() {
    find "$case_dir"/processor* -mindepth 1 -maxdepth 1 -type d -regex '.*/[0-9][0-9.e+-]*' \
        ! -name 0 -exec rm -rf {} +
}

phase_record() {
    [ -x "$tunesim" ] && [ -f "$(dirname "$tunesim")/libtunesim-trace.so" ] ||
        die "$tunesim or libtunesim-trace.so beside it not found (cmake --build build-val)"
    cd "$case_dir"
    foam_short_run "$end_time" || die "could not edit system/controlDict"
    clean_times
    step "simpleFoam under the tracer (ob1, wall clock)" "$work/log.record" \
        "$tunesim" record -o "$trace" --clock wall -- \
        mpirun "${base_flags[@]}" --mca pml ob1 simpleFoam -parallel
    grep ExecutionTime "$work/log.record" | tail -1
}

# shellcheck source=measure_lib.sh
. "$root/scripts/measure_lib.sh"

phase_measure() {
    cd "$case_dir"
    foam_short_run "$end_time" || die "could not edit system/controlDict"
    rm -rf "$logs"
    mkdir -p "$logs"
    local load=$logs/loadavg.txt
    echo "# $(date -u +%F) $reps rounds, $end_time iterations a run, nice ${PRIORITY:-0}, quiet gate ${QUIET_IDLE:-85}% idle (wait <= ${QUIET_WAIT:-60} s)" >"$load"
    for ((r = 1; r <= reps; r++)); do
        for entry in "${SETS[@]}"; do
            local name=${entry%%|*} flags=${entry#*|}
            mkdir -p "$logs/$name"
            clean_times
            local quiet
            quiet=$(wait_quiet)
            echo "$name run $r $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $quiet" | tee -a "$load"
            # shellcheck disable=SC2086 # flags are words
            nice -n "${PRIORITY:-0}" mpirun "${base_flags[@]}" $flags simpleFoam -parallel \
                >"$logs/$name/run$r.log" 2>&1 ||
                die "simpleFoam ($name, run $r) failed, see $logs/$name/run$r.log"
            grep ExecutionTime "$logs/$name/run$r.log" | tail -1
        done
    done
    echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$load"
    keep_logs
}

# Copy the measured logs into OUT, keeping the lines the validation needs with a little context:
# each run's header and its last five ExecutionTime lines (the committed copies).
phase_keep() {
    [ -d "$logs" ] || die "$logs not found: run the measure phase first"
    rm -rf "$out/logs"
    mkdir -p "$out/logs"
    cp "$logs/loadavg.txt" "$out/loadavg.txt"
    local d f name
    for d in "$logs"/*/; do
        name=$(basename "$d")
        mkdir -p "$out/logs/$name"
        for f in "$d"*.log; do
            # awk and tail read their whole input (head would end the pipe early: SIGPIPE).
            {
                awk '/^(Build|Exec|Date|Time |Host|nProcs)/ && n < 7 { print; n++ }' "$f"
                grep -E "^ExecutionTime" "$f" | tail -n 5
            } >"$out/logs/$name/$(basename "$f")"
        done
    done
}
keep_logs() { phase_keep; }

# The calibration goes into every set as `--model FILE` (a setting word in sets files), by its
# path relative to the repository, where the sweep runs.
phase_predict() {
    mkdir -p "$out"
    local rel=${model#"$root"/}
    if [ -n "$model" ]; then
        echo "validate_localhost: predicting on the calibration $rel"
    else
        echo "validate_localhost: no localhost calibration found: predicting on the table's defaults"
    fi
    write_sets "$rel" "${SETS[@]}" >"$out/sets.txt"
    # The sweep resumes from its results file beside the JSON: start afresh, so that every
    # prediction comes from this tunesim and this calibration.
    rm -f "$out/predicted.results.jsonl"
    (cd "$root" && "$tunesim" sweep "$trace" --sets "$out/sets.txt" --platform localhost \
        --nodes 1 --baseline "$anchor" --json "$out/predicted.json") | tee "$out/sweep.txt"
    rm -f "$out/predicted.results.jsonl" # the sweep's resume file: nothing to resume here
}

# The table, leaving out runs that spent long descheduled (ClockTime > CLOCK_RATIO x
# ExecutionTime + 1 s: another job had the cores); and the same with every run, for comparison.
phase_validate() {
    "$tunesim" validate --logs "$out/logs" --predicted "$out/predicted.json" --anchor "$anchor" \
        --max-clock-ratio "${CLOCK_RATIO:-1.2}" --json "$out/table.json" --csv "$out/table.csv" |
        tee "$out/table.txt"
    "$tunesim" validate --logs "$out/logs" --predicted "$out/predicted.json" --anchor "$anchor" \
        >"$out/table-all-runs.txt"
    echo "validate_localhost: with every run: $(grep -E '^mean absolute' "$out/table-all-runs.txt")"
}

phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(prepare record measure predict validate)
for p in "${phases[@]}"; do # every name before the first phase runs
    case $p in
        prepare | record | measure | keep | predict | validate) ;;
        *) die "unknown phase $p (prepare, record, measure, keep, predict, validate)" ;;
    esac
done
for p in "${phases[@]}"; do
    "phase_$p"
done
