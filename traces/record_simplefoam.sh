#!/usr/bin/env bash
# record_simplefoam.sh - record a small real MPI trace: OpenFOAM's simpleFoam on the pitzDaily
# tutorial of Debian's openfoam-examples, decomposed for a few ranks, run for a few
# iterations under tunesim's tracer (`tunesim record`), then summarised with `tunesim info`.
#
#   traces/record_simplefoam.sh [OUT_DIR]
#
# OUT_DIR defaults to traces/data/simplefoam-pitzdaily-$RANKS (replaced). Settings, from
# the environment:
#   RANKS=2        MPI ranks (subdomains, split along x by the "simple" method: Debian's
#                  scotch decomposition is a dummy)
#   END_TIME=5     simpleFoam iterations (deltaT 1); the trace grows with each
#   CLOCK=wall     tracer clock, wall or cpu (see traces/tracer/clock.h)
#   PML=ob1        Open MPI point-to-point layer, ob1 or ucx
#   TUNESIM=build/tunesim   the tunesim executable, with libtunesim-trace.so beside it
#   KEEP_CASE=     a directory to keep the OpenFOAM case and its logs in (default: a
#                  temporary one, removed at the end)
# Needs: openfoam, openfoam-examples, openmpi-bin (Debian 12: OpenFOAM v1912, Open MPI 4.1).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=foam_case.sh
. "$root/traces/foam_case.sh"
ranks=${RANKS:-2}
end_time=${END_TIME:-5}
clock=${CLOCK:-wall}
pml=${PML:-ob1}
tunesim=${TUNESIM:-$root/build/tunesim}
out=${1:-$root/traces/data/simplefoam-pitzdaily-$ranks}
tutorial=/usr/share/doc/openfoam-examples/examples/incompressible/simpleFoam/pitzDaily

die() {
    echo "record_simplefoam: $*" >&2
    exit 1
}

[ -d "$tutorial" ] || die "$tutorial not found (apt-get install openfoam-examples)"
command -v simpleFoam >/dev/null || die "simpleFoam not found (apt-get install openfoam)"
command -v mpirun >/dev/null || die "mpirun not found (apt-get install openmpi-bin)"
[ -x "$tunesim" ] || die "$tunesim not found: build tunesim first (cmake -S . -B build && cmake --build build)"
case "$out" in /*) ;; *) out=$PWD/$out ;; esac

# Debian installs OpenFOAM's etc/ there; the ranks need it too (-x below).
export WM_PROJECT_DIR=/usr/share/openfoam
# Containers often forbid the cross-memory attach of Open MPI's shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=none

if [ -n "${KEEP_CASE:-}" ]; then
    work=$KEEP_CASE
    rm -rf "$work"
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
case_dir=$work/pitzDaily
cp -r "$tutorial" "$case_dir"
chmod -R u+w "$case_dir"
find "$case_dir" -name '*.gz' -exec gunzip {} + # Debian may compress larger doc files
cd "$case_dir"

# A few iterations, no intermediate writes, no function objects (streamlines would add
# post-processing traffic that is not the solver's).
foam_short_run "$end_time" || die "could not remove the function objects from system/controlDict"

foam_decompose "$ranks" "$ranks 1 1"

echo "record_simplefoam: blockMesh, decomposePar ($ranks subdomains) in $case_dir"
blockMesh >log.blockMesh 2>&1 || die "blockMesh failed, see $case_dir/log.blockMesh"
decomposePar >log.decomposePar 2>&1 || die "decomposePar failed, see $case_dir/log.decomposePar"

pml_flags=(--mca pml ob1)
if [ "$pml" = ucx ]; then
    pml_flags=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any)
fi
echo "record_simplefoam: simpleFoam, $ranks ranks, $end_time iterations, $clock clock, pml $pml"
"$tunesim" record -o "$out" --clock "$clock" -- \
    mpirun --allow-run-as-root --oversubscribe -np "$ranks" "${pml_flags[@]}" \
    -x WM_PROJECT_DIR -x OMPI_MCA_btl_vader_single_copy_mechanism \
    simpleFoam -parallel >log.simpleFoam 2>&1 ||
    die "simpleFoam under the tracer failed, see $case_dir/log.simpleFoam (KEEP_CASE=DIR keeps it)"
grep -E "^tunesim-trace|^trace written" log.simpleFoam || true
grep -c "^Time = " log.simpleFoam | sed 's/^/record_simplefoam: iterations run: /'
du -sh "$out" | sed 's/^/record_simplefoam: trace size: /'

"$tunesim" info "$out"
