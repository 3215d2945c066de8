# measure_lib.sh - sourced by the measurement scripts of this machine (validate_localhost.sh,
# validate_play.sh): wait for a quiet machine before each measured run (the machine is shared,
# and a run next to another job's build measures the build), and turn the measured settings
# into the sets file that predicts them.

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

# write_sets MODEL ENTRY...: the sets file predicting each "name|mpirun flags" entry on this
# machine, with `--model MODEL` when MODEL is not empty. UCX_TLS=all (the default) means the
# transports the machine has, and sm their shared-memory subset: this machine's UCX 1.13 has
# self, sysv, posix, cma and tcp (no xpmem, knem or IB).
write_sets() {
    local model_file=$1 entry
    shift
    for entry in "$@"; do
        echo "[${entry%%|*}]"
        if [ -n "$model_file" ]; then echo "--model $model_file"; fi
        case "$entry" in
            *"pml ucx"*UCX_TLS=*) ;;
            *"pml ucx"*) echo "-x UCX_TLS=self,sysv,posix,cma,tcp   # what UCX_TLS=all is on this machine" ;;
        esac
        # shellcheck disable=SC2086 # flags are words
        set -- ${entry#*|}
        while [ $# -gt 0 ]; do
            case $1 in
                --mca) echo "--mca $2 $3"; shift 3 ;;
                -x) if [ "$2" = UCX_TLS=self,sm ]; then echo "-x UCX_TLS=self,sysv,posix,cma   # sm here"
                    else echo "-x $2"; fi
                    shift 2 ;;
                *) shift ;;
            esac
        done
        echo
    done
}
