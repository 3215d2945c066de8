#!/usr/bin/env bash
# setup.sh - install tunesim's Debian 12 dependencies, build it, and either run the main job
# on the bundled default trace or run the whole test suite.
#
#   bash scripts/setup.sh run    # install, build, replay the bundled trace on BM.Optimized3.36
#                                # with the defaults, then rank the reference candidates
#   bash scripts/setup.sh test   # install, build (plain and ASan+UBSan), run every test
#
# Needs root or sudo for apt-get. Set TUNESIM_SKIP_APT=1 to skip the install step.
set -euo pipefail

mode=${1:-run}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Debian packages, and why each is needed:
#   build tools: cmake gcc make pkg-config
#   OTF2 3.0 reading/writing (traces/, tracer): libotf2-trace-dev otf2-tools
#   store compression: liblz4-dev; checksums: zlib1g-dev (crc32); JSON output: libjson-c-dev
#   tests: libcunit1-dev; the tracer and its tests: openmpi-bin libopenmpi-dev
#   replaying exported TI traces with SimGrid 3.32 (tests, later the engine): libsimgrid-dev
#   `tunesim sweep --plot` draws its PNG/SVG charts with gnuplot: gnuplot-nox (no X11)
#   the sweep's Slurm job arrays are checked with Slurm's own sbatch (client only, no daemon):
#   slurm-client
#   `tunesim calibrate` fits parameters with GSL's nonlinear least squares: libgsl-dev
#   model files are XML written, read and schema-checked with libxml2: libxml2-dev
packages=(cmake gcc make pkg-config libotf2-trace-dev otf2-tools zlib1g-dev liblz4-dev libjson-c-dev
          libcunit1-dev openmpi-bin libopenmpi-dev libsimgrid-dev gnuplot-nox slurm-client
          libgsl-dev libxml2-dev)

install_packages() {
    if [ "${TUNESIM_SKIP_APT:-0}" = 1 ]; then
        return
    fi
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    local sudo=
    if [ "$(id -u)" != 0 ]; then
        sudo=sudo
    fi
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() { # build DIR [cmake options...]
    local dir=$1
    shift
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j "$(nproc)"
}

install_packages
case "$mode" in
run)
    build build -DCMAKE_BUILD_TYPE=Release
    trace=traces/data/simplefoam-pitzdaily-2
    # The bundled 2-rank simpleFoam trace, one rank per node, as the reference runs spread
    # ranks over nodes: the full report with every default, then the reference sweep (asis
    # and the nine tuned sets of shared/reference/simplefoam-motorbike-72.md) ranked.
    echo "=== $trace: all defaults (UCX_TLS=all, thresholds auto, HCOLL)"
    ./build/tunesim replay "$trace" --platform bm-optimized3.36 --nodes 2 --ppn 1
    echo
    echo "=== $trace: the reference candidates (sets/motorbike-72.sets), ranked"
    results=$(mktemp -u /tmp/tunesim-run.XXXXXX.jsonl) # a fresh sweep each time
    ./build/tunesim sweep "$trace" --sets sets/motorbike-72.sets --platform bm-optimized3.36 \
        --nodes 2 --ppn 1 --results "$results"
    rm -f "$results"
    ;;
test)
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
    (cd build && ctest --output-on-failure)
    # The same suite under AddressSanitizer and UndefinedBehaviorSanitizer, leak checks on.
    # The preloaded tracer and the MPI programs it traces stay uninstrumented (a preloaded
    # library cannot bring the ASan runtime into mpirun's processes; tests/tracer.cmake);
    # the test that reads their traces back is instrumented.
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DTUNESIM_SANITIZE=ON
    (cd build-asan && ctest --output-on-failure)
    ;;
*)
    echo "usage: bash scripts/setup.sh run|test" >&2
    exit 2
    ;;
esac
