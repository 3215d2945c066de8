#!/usr/bin/env bash
# ti_replay.sh TUNESIM SRCDIR - export traces with `tunesim convert --to ti` and replay them
# with SimGrid's own smpi_replay (smpirun -replay): the export must replay to the end without
# an error. Exit 77 (skipped) when smpirun is not installed.
set -euo pipefail
tunesim=$1
src=$2
if ! command -v smpirun >/dev/null; then
    echo "ti_replay: SKIPPED: smpirun (libsimgrid-dev) is not installed"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 0 63); do echo "node-$i"; done >"$work/hosts"
traces=("$src/traces/data/simplefoam-pitzdaily-2")
shared="$src/../shared/traces/scorep"
if [ -d "$shared" ]; then
    traces+=("$shared/sstmacro-otf2_test_traces" "$shared/tracer-stencil4d-32")
else
    echo "ti_replay: shared/traces/scorep absent: replaying the bundled trace only"
fi
for t in "${traces[@]}"; do
    name=$(basename "$t")
    "$tunesim" convert "$t" --to ti -o "$work/$name" >/dev/null
    n=$(wc -l <"$work/$name/ti.txt")
    out=$(cd "$work/$name" && smpirun -np "$n" -platform "$src/tests/data/ti-cluster.xml" \
        -hostfile "$work/hosts" -replay ti.txt 2>&1) || {
        echo "ti_replay: $name: smpirun failed:"
        echo "$out" | tail -5
        exit 1
    }
    sim=$(echo "$out" | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -1)
    if [ -z "$sim" ]; then
        echo "ti_replay: $name: no 'Simulation time' in smpi_replay's output"
        exit 1
    fi
    echo "ti_replay: $name: $n ranks replayed by smpi_replay, simulated time $sim s"
done
echo "1 passed, 0 failed"
