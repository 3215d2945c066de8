/* events.h - the per-rank MPI event stream that every trace source produces and the replay
 * engine consumes. This is the one definition of that stream.
 *
 * A rank's stream is a sequence of ts_event_t in program order:
 *
 *   COMPUTE(ns)                       time spent outside MPI since the previous call ended
 *   ENTER(func, time)                 an MPI call begins
 *     ...records of that call...      SEND, ISEND, RECV, IRECV_POST, IRECV_DONE, ISEND_DONE,
 *                                     CANCELLED, REQ_TEST, COLL, ICOLL_POST, ICOLL_DONE
 *   LEAVE(time)                       the call returns
 *
 * Conventions (they follow Score-P's, see shared/reference/score-p-otf2-mpi.md):
 * - time is in nanoseconds since the start of the trace (global offset removed);
 * - peer and root are WORLD ranks (translated through the communicator's group); a root of
 *   TS_ROOT_NONE marks a rootless collective;
 * - comm indexes the trace's communicator table (ts_trace_comm);
 * - func indexes the trace's function table (ts_trace_func_name), e.g. "MPI_Isend";
 * - req is the per-rank request id: unique per rank, reused by persistent requests;
 * - RECV and IRECV_DONE carry the source and tag from the status, as actually matched;
 * - COLL / ICOLL_DONE carry sizeSent (bytes) and sizeReceived (bytes2) exactly as recorded;
 *   ts_coll_payload() derives the per-rank message size from them.
 * Records of other paradigms (OpenMP, pthreads, CUDA, metrics, ...) never appear here. */
#ifndef TS_EVENTS_H
#define TS_EVENTS_H

#include <stdint.h>

typedef enum ts_event_kind {
    TS_EV_COMPUTE = 0, /* bytes: unused; time: duration in ns                        */
    TS_EV_ENTER,       /* func, time                                                   */
    TS_EV_LEAVE,       /* time                                                         */
    TS_EV_SEND,        /* peer, comm, tag, bytes   (blocking send, written before it)  */
    TS_EV_ISEND,       /* peer, comm, tag, bytes, req                                  */
    TS_EV_RECV,        /* peer, comm, tag, bytes   (blocking receive, after it)        */
    TS_EV_IRECV_POST,  /* req                      (MPI_Irecv posted)                  */
    TS_EV_IRECV_DONE,  /* peer, comm, tag, bytes, req (a receive request completed)    */
    TS_EV_ISEND_DONE,  /* req                      (a send request completed)          */
    TS_EV_CANCELLED,   /* req                                                          */
    TS_EV_REQ_TEST,    /* req                      (an unsuccessful test)              */
    TS_EV_COLL,        /* op, comm, root, bytes = sizeSent, bytes2 = sizeReceived      */
    TS_EV_ICOLL_POST,  /* req                      (non-blocking collective started)   */
    TS_EV_ICOLL_DONE,  /* op, comm, root, bytes, bytes2, req                           */
    TS_EV__COUNT
} ts_event_kind;

/* Collective operations; the values equal OTF2's OTF2_CollectiveOp so that no table is
 * needed to translate, and the store format relies on them staying so. */
typedef enum ts_coll_op {
    TS_COLL_BARRIER = 0,
    TS_COLL_BCAST = 1,
    TS_COLL_GATHER = 2,
    TS_COLL_GATHERV = 3,
    TS_COLL_SCATTER = 4,
    TS_COLL_SCATTERV = 5,
    TS_COLL_ALLGATHER = 6,
    TS_COLL_ALLGATHERV = 7,
    TS_COLL_ALLTOALL = 8,
    TS_COLL_ALLTOALLV = 9,
    TS_COLL_ALLTOALLW = 10,
    TS_COLL_ALLREDUCE = 11,
    TS_COLL_REDUCE = 12,
    TS_COLL_REDUCE_SCATTER = 13,
    TS_COLL_SCAN = 14,
    TS_COLL_EXSCAN = 15,
    TS_COLL_REDUCE_SCATTER_BLOCK = 16,
    TS_COLL_CREATE_HANDLE = 17,
    TS_COLL_DESTROY_HANDLE = 18,
    TS_COLL_ALLOCATE = 19,
    TS_COLL_DEALLOCATE = 20,
    TS_COLL_CREATE_HANDLE_AND_ALLOCATE = 21,
    TS_COLL_DESTROY_HANDLE_AND_DEALLOCATE = 22,
    TS_COLL__COUNT
} ts_coll_op;

#define TS_ROOT_NONE (-1)

typedef struct ts_event_s {
    uint8_t kind;    /* ts_event_kind */
    uint8_t op;      /* ts_coll_op for COLL / ICOLL_DONE */
    uint16_t func;   /* ENTER: index in the function table */
    int32_t peer;    /* world rank of the peer; COLL: world rank of the root or TS_ROOT_NONE */
    int32_t comm;    /* communicator index */
    int32_t tag;     /* message tag */
    uint64_t bytes;  /* message bytes; COLL: sizeSent */
    uint64_t bytes2; /* COLL: sizeReceived */
    uint64_t req;    /* request id */
    int64_t time;    /* ENTER / LEAVE: ns since trace start; COMPUTE: duration in ns */
} ts_event_t;

/* The latest time a trace's events may have, and the most compute a rank's bursts may add up
 * to: 1e6 s (11.6 days), beyond any traced run, so that a rank's times and their sums over
 * a rank stay far inside int64_t. The readers refuse what is beyond, and times that go back. */
#define TS_TIME_MAX_NS 1000000000000000LL
/* The most bytes one record may carry (a message, or a collective's sizeSent / sizeReceived,
 * which Score-P writes as the per-rank block times the ranks): 1 TiB, more than a node's
 * memory (BM.Optimized3.36: 512 GB), so that sums over a rank's records stay far inside 64
 * bits. 2^63 or a negative size written as unsigned is damage; the readers refuse it. */
#define TS_BYTES_MAX ((uint64_t)1 << 40)

/* Name of an event kind ("ISEND") and of a collective op ("Allreduce"); never NULL. */
const char *ts_event_kind_name(int kind);
const char *ts_coll_op_name(int op);

/* Per-rank payload b of one collective call, derived from Score-P's sizeSent / sizeReceived
 * (shared/reference/score-p-otf2-mpi.md, "Collective sizes per rank"): for example
 * Allreduce sizeSent = N*b, so b = sizeSent / N. comm_size is N, is_root says whether the
 * calling rank is the root, my_rank is its rank in the communicator (for Scan). For the
 * v-variants the result is the mean per peer, since per-peer counts are not recorded. */
uint64_t ts_coll_payload(int op, int32_t comm_size, int is_root, int32_t my_rank,
                         uint64_t size_sent, uint64_t size_received);

#endif
