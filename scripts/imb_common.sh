# shellcheck shell=bash
# imb_common.sh - sourced by imb_study.sh, imb_findings.sh and imb_pictures.sh: what they
# share about Oracle's IMB study of BM.Optimized3.36
# (shared/reference/oracle-imb-bm-optimized3.36.md).

# The study's software: Open MPI 5.0.8 (reference/bm-optimized3.36.md), whose coll/han has
# priority 35 where 4.1's is 0 (reference/openmpi-collectives.md). With HCOLL and UCC off it
# serves the multi-node Allreduce, Allgather and Barrier ("no component" on 2+ nodes); it
# declines one-node communicators and has no Alltoall, which stay tuned's.
# shellcheck disable=SC2034 # used by the scripts that source this file
study_stack=(--mca coll_han_priority 35)

# The cost of a rendezvous to a computing receiver (model.ucx.rndv_busy_cost), as the
# OpenFOAM calibration fits it to the runs asis and t0 (scripts/fit_motorbike.sh,
# docs/fit.md): one value for both studies. IMB's Alltoall, Allgather and Exchange neither
# compute nor reduce, so only its Allreduce pays it, where a rank reduces between rounds.
busy_from=${root:?}/platforms/calibrations/bm-optimized3.36-simplefoam.xml
busy_cost=$(sed -n 's/.*name="model\.ucx\.rndv_busy_cost" value="\([^"]*\)".*/\1/p' "$busy_from")
if [ -z "$busy_cost" ]; then
    echo "imb_common: $busy_from: expected a model.ucx.rndv_busy_cost parameter" >&2
    exit 1
fi
study_stack+=(--set "model.ucx.rndv_busy_cost=$busy_cost")

# What a rendezvous of data the call's reduction has just written costs its receiver
# (model.ucx.rndv_written_cost), calibrated on this study's 1 x 36 findings with the busy cost
# above (docs/imb-models.md): 26 of 41 hold from 4 to 7 us (25 at 3 us, 24 at 8 us); 6 us is the
# middle. Only Allreduce's rounds after a reduction pay it; OpenFOAM's
# reductions never send by rendezvous.
study_stack+=(--set model.ucx.rndv_written_cost=6us)

# The benchmarks a script was given (BENCH): the study's four, else one line and exit 1.
check_benches() { # SCRIPT BENCHES
    local b
    [ -n "${2// /}" ] || { echo "$1: BENCH is empty (expected e.g. Alltoall)" >&2; exit 1; }
    for b in $2; do
        case $b in Alltoall | Allgather | Allreduce | Exchange) ;;
        *) echo "$1: BENCH=$2: expected Alltoall, Allgather, Allreduce or Exchange, got '$b'" >&2; exit 1 ;;
        esac
    done
}

# The study's largest size 2^X by benchmark and node count.
maxlog() { # BENCH NODES
    case $1 in
    Alltoall | Allgather) case $2 in 1) echo 25 ;; 2) echo 24 ;; 4) echo 23 ;; *) echo 22 ;; esac ;;
    Allreduce) echo 30 ;;
    Exchange) echo 29 ;;
    esac
}
