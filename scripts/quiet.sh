# quiet.sh - sourced by the measurement scripts (validate_localhost.sh, validate_play.sh): wait
# for a quiet machine before each measured run, since the machine is shared and a run next to
# another job's build measures the build.

# Percent of CPU time idle over the next 2 seconds (from /proc/stat).
idle_pct() {
    local a b total=0 i
    read -r -a a < <(grep '^cpu ' /proc/stat)
    sleep 2
    read -r -a b < <(grep '^cpu ' /proc/stat)
    for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
    echo $(((b[4] + b[5] - a[4] - a[5]) * 100 / (total > 0 ? total : 1)))
}

# Wait until at least QUIET_IDLE (85) % of the CPUs were idle over 2 s, at most QUIET_WAIT (60)
# seconds; print the idle percentage and how long it waited.
wait_quiet() {
    local want=${QUIET_IDLE:-85} max=${QUIET_WAIT:-60} t0=$SECONDS idle
    idle=$(idle_pct)
    while [ "$idle" -lt "$want" ] && [ $((SECONDS - t0)) -lt "$max" ]; do
        sleep 3
        idle=$(idle_pct)
    done
    echo "idle ${idle}% waited $((SECONDS - t0))s"
}
