/* events.c - names of event kinds and collective operations, and the per-rank payload rule
 * for Score-P's collective sizes. */
#include "events.h"

static const char *const kind_names[TS_EV__COUNT] = {
    "COMPUTE",    "ENTER",      "LEAVE",     "SEND",     "ISEND", "RECV",       "IRECV_POST",
    "IRECV_DONE", "ISEND_DONE", "CANCELLED", "REQ_TEST", "COLL",  "ICOLL_POST", "ICOLL_DONE",
};

static const char *const op_names[TS_COLL__COUNT] = {
    "Barrier",
    "Bcast",
    "Gather",
    "Gatherv",
    "Scatter",
    "Scatterv",
    "Allgather",
    "Allgatherv",
    "Alltoall",
    "Alltoallv",
    "Alltoallw",
    "Allreduce",
    "Reduce",
    "Reduce_scatter",
    "Scan",
    "Exscan",
    "Reduce_scatter_block",
    "Create_handle",
    "Destroy_handle",
    "Allocate",
    "Deallocate",
    "Create_handle_and_allocate",
    "Destroy_handle_and_deallocate",
};

const char *ts_event_kind_name(int kind)
{
    return (kind >= 0 && kind < TS_EV__COUNT) ? kind_names[kind] : "UNKNOWN";
}

const char *ts_coll_op_name(int op)
{
    return (op >= 0 && op < TS_COLL__COUNT) ? op_names[op] : "Unknown";
}

/* The per-rank block of Allreduce, Allgather and Alltoall: N*b both ways, or with MPI_IN_PLACE
 * (N-1)*b both ways in Score-P's traces and N*b sent, (N-1)*b received in the tracer's. Score-P's
 * in-place form is known when N*b would not divide by N but (N-1)*b divides by N-1 (b not a
 * multiple of N: an 8-byte Allreduce on 72 ranks records 568 B, not 576); where b is a multiple
 * of N the two cannot be told apart and the call is taken as not in place. */
static uint64_t symmetric_block(uint64_t n, uint64_t size_sent, uint64_t size_received)
{
    if (size_sent == size_received && n > 1 && size_sent % n != 0 && size_sent % (n - 1) == 0)
        return size_sent / (n - 1);
    return size_sent / n;
}

uint64_t ts_coll_payload(int op, int32_t comm_size, int is_root, int32_t my_rank,
                         uint64_t size_sent, uint64_t size_received)
{
    uint64_t n = comm_size > 0 ? (uint64_t)comm_size : 1;
    switch (op) {
    case TS_COLL_ALLREDUCE:
        return symmetric_block(n, size_sent, size_received);
    case TS_COLL_BCAST:
        /* Root sends N*b, others receive b. */
        return is_root ? size_sent / n : size_received;
    case TS_COLL_REDUCE:
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
        /* Everyone sends b; the root receives N*b. */
        return size_sent ? size_sent : (is_root ? size_received / n : 0);
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
        /* Mirror of Gather: the root sends N*b, everyone receives b. */
        return size_received ? size_received : (is_root ? size_sent / n : 0);
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLTOALL:
        return symmetric_block(n, size_sent, size_received);
    case TS_COLL_ALLGATHERV:
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
        /* N * per-peer count on both sides: the per-peer block (a mean for the v-forms). */
        return size_sent / n;
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN: {
        /* sizeSent = (N - me) * b. */
        uint64_t k = (my_rank >= 0 && (uint64_t)my_rank < n) ? n - (uint64_t)my_rank : n;
        return size_sent / k;
    }
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        /* Each rank contributes the whole vector; the payload is the vector. */
        return size_sent;
    default:
        return 0;
    }
}
