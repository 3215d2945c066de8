#!/usr/bin/env bash
# setup.sh - install tunesim's Debian 12 dependencies, build it, and either run the main job
# on the bundled default trace or run the whole test suite.
#
#   bash scripts/setup.sh run    # install, build, predict the reference case (simpleFoam
#                                # motorBike, 72 ranks, 2 x BM.Optimized3.36) for every candidate
#   bash scripts/setup.sh test   # install, build (plain and ASan+UBSan), run every test
#
# Needs root or sudo for apt-get. Set TUNESIM_SKIP_APT=1 to skip the install step.
set -euo pipefail

mode=${1:-run}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Debian packages, and why each is needed. The main job (run) needs only the first list; the
# test suite (test) needs the second too.
#   build tools: cmake gcc make pkg-config
#   OTF2 3.0 reading/writing (traces/, tracer): libotf2-trace-dev
#   store compression: liblz4-dev; checksums: zlib1g-dev (crc32); JSON output: libjson-c-dev
#   replaying traces with SimGrid 3.32 (the engine; tests: smpi_replay): libsimgrid-dev
#   the main job's picture, `tunesim sweep --plot`, `tunesim imb --plot`: gnuplot-nox (no X11)
#   `tunesim calibrate` fits parameters with GSL's nonlinear least squares: libgsl-dev
#   model files are XML written, read and schema-checked with libxml2: libxml2-dev
run_packages=(cmake gcc make pkg-config libotf2-trace-dev zlib1g-dev liblz4-dev libjson-c-dev
              libsimgrid-dev gnuplot-nox libgsl-dev libxml2-dev)
#   tests: libcunit1-dev; the tracer and its tests: openmpi-bin libopenmpi-dev; OTF2's tools
#   (otf2-print) for reading traces by hand: otf2-tools
#   the sweep's Slurm job arrays are checked with Slurm's own sbatch (client only, no daemon):
#   slurm-client
#   the sources' formatting (.clang-format) is checked by ctest `format`: clang-format
#   tunesim-ucp-percall, which times UCX's tag API beside MPI's (model.ucx.pml_recv): libucx-dev
test_packages=(libcunit1-dev openmpi-bin libopenmpi-dev otf2-tools slurm-client clang-format
               libucx-dev)
packages=("${run_packages[@]}")
[ "$mode" = test ] && packages+=("${test_packages[@]}")

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
    build build -DCMAKE_BUILD_TYPE=Release -DTUNESIM_TESTS=OFF
    # The reference case: simpleFoam motorBike on 2 x BM.Optimized3.36 (72 ranks), every
    # candidate of sets/motorbike-72.sets predicted as a full-length ExecutionTime from the
    # bundled 2-iteration window and the bundled asis profile (scripts/predict_motorbike.sh:
    # every uncertain parameter moved for the intervals, the t0 / asis gain by mechanism),
    # ranked, with the picture of each candidate's gain against asis. About 40 s on 2 cores.
    out=$(mktemp -d /tmp/tunesim-run.XXXXXX)
    echo "=== simpleFoam motorBike, 72 ranks on 2 x BM.Optimized3.36: the reference candidates"
    ITERS=2 JOBS=$(nproc) bash scripts/predict_motorbike.sh \
        traces/data/motorbike-72-window.tss "$out/motorbike-72-prediction.md"
    echo
    echo "=== written: $out/motorbike-72-prediction.md, .csv and .png"
    ;;
test)
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNESIM_TESTS=ON
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
