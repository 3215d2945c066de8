#!/usr/bin/env bash
# record_motorbike.sh - record the benchmark reference case: OpenFOAM's simpleFoam on the
# motorBike tutorial of Debian's openfoam-examples (v1912), meshed with snappyHexMesh,
# decomposed "simple" (9 8 1) into 72 subdomains and run with 72 oversubscribed ranks for a
# few iterations under tunesim's tracer (`tunesim record --clock cpu`), then summarised with
# `tunesim info`. See shared/reference/simplefoam-motorbike-72.md, "Recording the same case
# on this project's machines"; only the simpleFoam run is traced.
#
#   bench/record_motorbike.sh [OUT_DIR]
#
# OUT_DIR defaults to /tmp/tunesim-motorbike-72 (its traces.otf2 is replaced; a trace of a
# few iterations holds about 2 M events per iteration, a few hundred MB). Settings, from the
# environment:
#   END_TIME=6     simpleFoam iterations (deltaT 1); the trace grows with each. v1912 cannot
#                  run this case much past iteration 25 (the GAMG pressure solve stalls at
#                  about iteration 30, then SIGFPE): keep it to about 20
#   CLOCK=cpu      tracer clock, cpu or wall (see traces/tracer/README.md: with 72 ranks on a
#                  few cores only the cpu clock keeps compute bursts true)
#   PML=           Open MPI point-to-point layer, ob1 or ucx (default: Open MPI's choice)
#   MESH=serial    how the mesh is made and decomposed: serial (snappyHexMesh on the whole
#                  blockMesh, then decomposePar of the finished mesh) or parallel (the
#                  reference case's steps: decomposePar of the blockMesh, snappyHexMesh
#                  -parallel -overwrite on the ranks, which refines and rebalances each
#                  subdomain; the fields copied into each processor directory)
#   EXCLUSIVE=     `tunesim record --exclusive=N`: at most N ranks compute at once, each on
#                  a core of its own, waiting ranks queue instead of spinning; N a count or
#                  "cores" (default: off). Measured: docs/recording.md
#   TUNESIM=build/tunesim   the tunesim executable, with libtunesim-trace.so beside it
#   KEEP_CASE=     a directory to keep the OpenFOAM case (DIR/motorBike) and its logs in
#                  (default: a temporary one, removed at the end)
#   REPEAT=1       recordings of the same run: the first into OUT_DIR, the others into
#                  OUT_DIR-2 ... OUT_DIR-N, and OUT_DIR.tss the store whose compute bursts are
#                  each the least of the N (tunesim convert --min-of; why: traces/denoise.h,
#                  docs/recording-noise.md). About 2.5 minutes more each, with KEEP_CASE
#   CLASS_MEDIAN=0 1: OUT_DIR.tss holds each burst as the median of its class (tunesim convert
#                  --class-median, after --min-of when REPEAT > 1): one 6-iteration recording
#                  so treated is less noisy than the least of eight (docs/recording-noise.md)
#   WINDOW=        FIRST:LAST: OUT_DIR.tss keeps only these iterations between the start-up
#                  and the end (tunesim convert --window, after the above, so that the class
#                  medians come from every recorded iteration). The bundled window is
#                  END_TIME=6 EXCLUSIVE=1 CLASS_MEDIAN=1 WINDOW=3:4 (traces/data/README.md)
#
# Shortcut: meshing (surfaceFeatureExtract, blockMesh, snappyHexMesh: about 3 minutes, 0.9 GB),
# decomposePar and potentialFoam are skipped when KEEP_CASE already holds a case that a
# previous run of this script prepared completely (marker DIR/motorBike/.tunesim-prepared);
# only the controlDict is edited again (END_TIME) and simpleFoam rerun, e.g.
#   KEEP_CASE=/tmp/mbcase bench/record_motorbike.sh                 # meshes, keeps the case
#   KEEP_CASE=/tmp/mbcase END_TIME=12 bench/record_motorbike.sh     # reuses the mesh
# Remove DIR/motorBike (or the marker) to mesh again.
#
# Needs: openfoam, openfoam-examples, openmpi-bin (Debian 12: OpenFOAM v1912, Open MPI 4.1);
# 72 ranks take about 2.5 GB and 4-7 s of wall time per iteration on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../traces/foam_case.sh
. "$root/traces/foam_case.sh"
ranks=72
split="9 8 1" # the "simple" method's n: 9 * 8 * 1 = 72 subdomains
end_time=${END_TIME:-6}
clock=${CLOCK:-cpu}
pml=${PML:-}
exclusive=${EXCLUSIVE:-}
mesh=${MESH:-serial}
case "$mesh" in serial | parallel) ;; *) die "MESH must be serial or parallel" ;; esac
tunesim=${TUNESIM:-$root/build/tunesim}
out=${1:-/tmp/tunesim-motorbike-72}
examples=/usr/share/doc/openfoam-examples/examples
tutorial=$examples/incompressible/simpleFoam/motorBike
geometry=$examples/resources/geometry/motorBike.obj.gz

die() {
    echo "record_motorbike: $*" >&2
    exit 1
}

# step NAME LOG COMMAND...: run one step with its output in LOG and say how long it took.
step() {
    local name=$1 log=$2 t0=$SECONDS
    shift 2
    echo "record_motorbike: $name ..."
    "$@" >"$log" 2>&1 || die "$name failed, see $case_dir/$log (KEEP_CASE=DIR keeps it)"
    echo "record_motorbike: $name took $((SECONDS - t0)) s"
}

[ -d "$tutorial" ] || die "$tutorial not found (apt-get install openfoam-examples)"
[ -f "$geometry" ] || die "$geometry not found (apt-get install openfoam-examples)"
for app in surfaceFeatureExtract blockMesh snappyHexMesh decomposePar potentialFoam simpleFoam; do
    command -v "$app" >/dev/null || die "$app not found (apt-get install openfoam)"
done
command -v mpirun >/dev/null || die "mpirun not found (apt-get install openmpi-bin)"
if [ ! -x "$tunesim" ] || [ ! -f "$(dirname "$tunesim")/libtunesim-trace.so" ]; then
    die "$tunesim or libtunesim-trace.so beside it not found: build them first" \
        "(cmake -S . -B build && cmake --build build -j1 --target tunesim tunesim-trace)"
fi
case "$end_time" in '' | *[!0-9]* | 0) die "END_TIME must be a positive number of iterations" ;; esac
repeat=${REPEAT:-1}
case "$repeat" in '' | *[!0-9]* | 0) die "REPEAT must be a positive number of recordings" ;; esac
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
record_flags=(--clock "$clock")
[ -z "$exclusive" ] || record_flags+=("--exclusive=$exclusive")

# Debian installs OpenFOAM's etc/ there (sourcing its bashrc only prints errors); the ranks
# need it too (-x below).
export WM_PROJECT_DIR=/usr/share/openfoam
# Containers often forbid the cross-memory attach of Open MPI's shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=none

if [ -n "${KEEP_CASE:-}" ]; then
    work=$KEEP_CASE
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
case_dir=$work/motorBike
marker=$case_dir/.tunesim-prepared
prepared="subdomains $ranks simple ($split)" # serial meshing: the marker earlier cases carry
[ "$mesh" = serial ] || prepared="$prepared, $mesh meshing"

mpi_flags=(--allow-run-as-root --oversubscribe -np "$ranks"
    -x WM_PROJECT_DIR -x OMPI_MCA_btl_vader_single_copy_mechanism
    --mca mpi_yield_when_idle 1)
case "$pml" in
    '') ;;
    ob1) mpi_flags+=(--mca pml ob1) ;;
    ucx) mpi_flags+=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any) ;;
    *) die "PML must be ob1 or ucx" ;;
esac

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$prepared" ] &&
    [ -d "$case_dir/processor$((ranks - 1))/constant/polyMesh" ]; then
    echo "record_motorbike: reusing the meshed, decomposed case in $case_dir (KEEP_CASE)"
    cd "$case_dir" # record() below drops the time directories an earlier simpleFoam wrote
else
    rm -rf "$case_dir"
    cp -r "$tutorial" "$case_dir"
    chmod -R u+w "$case_dir"
    mkdir -p "$case_dir/constant/triSurface"
    cp "$geometry" "$case_dir/constant/triSurface/"
    find "$case_dir" -name '*.gz' -exec gunzip -f {} + # snappyHexMeshDict, the geometry
    cd "$case_dir"

    foam_decompose "$ranks" "$split"

    # Allrun's steps by hand (it needs RunFunctions, which Debian does not ship), with the
    # shipped dictionaries.
    echo "record_motorbike: preparing the case in $case_dir ($mesh meshing)"
    step surfaceFeatureExtract log.surfaceFeatureExtract surfaceFeatureExtract
    step blockMesh log.blockMesh blockMesh
    if [ "$mesh" = serial ]; then
        step "snappyHexMesh -overwrite" log.snappyHexMesh snappyHexMesh -overwrite
        mkdir -p 0 && cp -r 0.orig/* 0/
        step "decomposePar ($ranks subdomains, simple ($split))" log.decomposePar decomposePar
    else
        step "decomposePar of the blockMesh ($ranks subdomains, simple ($split))" \
            log.decomposePar decomposePar
        step "snappyHexMesh -parallel -overwrite ($ranks ranks)" log.snappyHexMesh \
            mpirun "${mpi_flags[@]}" snappyHexMesh -parallel -overwrite
        # Allrun's restore0Dir -processor: the initial fields into every subdomain.
        for p in processor*; do
            rm -rf "$p/0" && cp -r 0.orig "$p/0"
        done
    fi
    step "potentialFoam -parallel -writephi ($ranks ranks)" log.potentialFoam \
        mpirun "${mpi_flags[@]}" potentialFoam -parallel -writephi
    grep -E "^Mesh stats|cells:" log.snappyHexMesh | tail -2 || true
    echo "$prepared" >"$marker"
fi

# Cells per subdomain, from each processor mesh's header (its owner file's note).
cells=$(for p in processor*/constant/polyMesh/owner; do
    sed -n 's/.*nCells: *\([0-9]*\).*/\1/p' "$p" | head -1
done | sort -n | awk '{ v[NR] = $1; s += $1 }
    END { if (NR) printf "min %d  median %d  max %d  total %d over %d subdomains", v[1], v[int((NR + 1) / 2)], v[NR], s, NR }')
echo "record_motorbike: cells per rank ($mesh meshing): $cells"

# A few iterations, no intermediate writes, no function objects (streamlines, force
# coefficients, cutting planes and EnSight output would add post-processing traffic that is
# not the solver's).
foam_short_run "$end_time" || die "could not remove the function objects from system/controlDict"

# record DIR LABEL: one traced simpleFoam run into DIR, from the case's time 0 (the time
# directories an earlier run wrote go first).
record() {
    find processor* -mindepth 1 -maxdepth 1 -type d -regex '.*/[0-9][0-9.e+-]*' ! -name 0 \
        -exec rm -rf {} +
    echo "record_motorbike: simpleFoam, $ranks ranks, $end_time iterations, $clock clock${exclusive:+, exclusive=$exclusive}, into $1"
    step "simpleFoam -parallel under the tracer$2" log.simpleFoam \
        "$tunesim" record -o "$1" "${record_flags[@]}" -- \
        mpirun "${mpi_flags[@]}" simpleFoam -parallel
}
# The repeats first, each into its own directory, so that the log left is the first's.
others=()
for k in $(seq 2 "$repeat"); do
    record "$out-$k" " (recording $k of $repeat)"
    others+=(--min-of "$out-$k")
done
record "$out" ""
grep -E "^tunesim-trace|^trace written" log.simpleFoam || true
classes=()
[ "${CLASS_MEDIAN:-0}" = 1 ] && classes=(--class-median)
[ -n "${WINDOW:-}" ] && classes+=(--window "$WINDOW")
if [ "$repeat" -gt 1 ] || [ ${#classes[@]} -gt 0 ]; then
    how="the least compute of the $repeat recordings"
    [ "$repeat" -gt 1 ] || how="the recording"
    [ "${CLASS_MEDIAN:-0}" = 1 ] && how="$how, each burst the median of its class"
    [ -n "${WINDOW:-}" ] && how="$how, iterations $WINDOW"
    echo "record_motorbike: into $out.tss: $how"
    "$tunesim" convert "$out" -o "$out.tss" "${others[@]}" "${classes[@]}"
fi
grep -c "^Time = " log.simpleFoam | sed 's/^/record_motorbike: iterations run: /' || true
grep "ExecutionTime" log.simpleFoam | tail -1 | sed 's/^/record_motorbike: last /' || true
du -sh "$out" | sed 's/^/record_motorbike: trace size: /'

# sed, not head: it reads all of info's output, so no SIGPIPE under pipefail.
info=$("$tunesim" info "$out")
printf '%s\n' "$info" | sed -n 1,40p
printf '%s\n' "$info" | grep -E "neighbours/rank|^imbalance" | sed 's/^ */record_motorbike: /'
events=$(printf '%s\n' "$info" | awk '$1 == "events" && v == "" { v = $2 } END { print v }')
echo "record_motorbike: events: $events"
