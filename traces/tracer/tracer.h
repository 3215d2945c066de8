/* tracer.h - internals shared by the MPI wrappers of libtunesim-trace.so (private to the
 * tracer; the library's only public interface is the MPI API it interposes).
 *
 * Every wrapper follows one shape, which yields Score-P's record sequence:
 *
 *     trc_state_t *st = trc_begin(TRC_R_Send);      // Enter, or NULL: just call PMPI
 *     if (st == NULL) return PMPI_Send(...);
 *     ...records written before the call...          // e.g. MpiSend, MpiCollectiveBegin
 *     int rc = PMPI_Send(...);
 *     ...records written after the call...           // e.g. MpiRecv, MpiCollectiveEnd
 *     trc_end(st, TRC_R_Send);                       // Leave
 *     return rc;
 *
 * Environment (read in MPI_Init): TUNESIM_TRACE_DIR (default ./tunesim-trace),
 * TUNESIM_TRACE_CLOCK = wall | cpu (default wall, see clock.h), TUNESIM_TRACE_BUFFER_MB
 * (events held in memory per rank before flushing to disk, default 8), and exclusive mode's
 * (exclusive.h).
 *
 * In exclusive mode a blocking call is made as its non-blocking form and a polite wait
 * (TRC_POLITE below), so that a rank waiting in MPI leaves the cores to the computing ones. */
#ifndef TRC_TRACER_H
#define TRC_TRACER_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include <mpi.h>
#include <otf2/otf2.h>

#include "archive.h"
#include "clock.h"
#include "collbytes.h"
#include "comms.h"
#include "exclusive.h"
#include "regions.h"
#include "reqmap.h"

/* The library is built with hidden visibility; only the MPI entry points are exported. */
#define TRC_EXPORT __attribute__((visibility("default")))

/* The body of a wrapper that records only Enter and Leave. */
#define TRC_PLAIN(region, call)                                                                    \
    do {                                                                                           \
        trc_state_t *st_ = trc_begin(region);                                                      \
        int rc_ = call;                                                                            \
        if (st_ != NULL)                                                                           \
            trc_end(st_, region);                                                                  \
        return rc_;                                                                                \
    } while (0)

typedef enum trc_phase {
    TRC_PHASE_OFF = 0, /* before MPI_Init, or tracing failed to start */
    TRC_PHASE_ON,      /* recording */
    TRC_PHASE_DONE     /* archive closed by MPI_Finalize */
} trc_phase;

typedef struct trc_state_s {
    trc_phase phase;
    int depth;        /* 1 while a recorded call runs: calls made inside it are not recorded */
    pthread_t thread; /* the thread that called MPI_Init: the only one recorded */
    int rank, size;   /* in MPI_COMM_WORLD */
    trc_clock_t clock;
    trc_archive_t archive;
    trc_comms_t comms;
    trc_reqmap_t requests;
    trc_excl_t excl;               /* exclusive mode (exclusive.h); excl.on is 0 when it is off */
    uint64_t next_request;         /* request ids: a per-process counter from 1 */
    uint64_t first_time;           /* Enter of MPI_Init */
    uint64_t last_time;            /* latest Leave */
    MPI_Request *scratch_requests; /* copies of request arrays (completion frees handles) */
    MPI_Status *scratch_statuses;  /* statuses when the caller passes MPI_STATUSES_IGNORE */
    size_t scratch_cap;
    unsigned long untraced_calls;   /* calls from other threads, not recorded */
    unsigned long unrecorded_calls; /* calls the trace cannot represent (wrap_unrecorded.c) */
    char dir[PATH_MAX];             /* the trace directory */
} trc_state_t;

/* The MPI call `call`; in exclusive mode instead `icall`, its non-blocking form posting the
 * request variable req, followed by a polite wait for it (status ignored). */
#define TRC_POLITE(st, req, call, icall)                                                           \
    ((st)->excl.on ? trc_excl_finish(&(st)->excl, (icall), &(req), MPI_STATUS_IGNORE) : (call))

/* Start recording a call: writes its Enter record and returns the tracer state, or returns
 * NULL when this call is not to be recorded (tracing off, another thread, or nested inside
 * a recorded call). */
trc_state_t *trc_begin(trc_region region);
/* Count a call the trace cannot represent, made while tracing is on (any thread). */
void trc_count_unrecorded(void);
/* Write the Leave record of the call begun by trc_begin. */
void trc_end(trc_state_t *st, trc_region region);
/* trc_end for a test (Test*, Iprobe): in exclusive mode an unfinished one gives the token up
 * first, so that a program looping on a test waits its turn like a blocking wait. */
void trc_end_poll(trc_state_t *st, trc_region region, int finished);

/* Timestamp for a record inside the current call. */
uint64_t trc_now(trc_state_t *st);
/* Local id of a communicator (see comms.h). */
uint32_t trc_comm(trc_state_t *st, MPI_Comm comm);
/* count elements of type, in bytes (0 if the type is invalid or null). */
uint64_t trc_bytes(int count, MPI_Datatype type);
/* Bytes a completed receive delivered, from its status. */
uint64_t trc_recv_bytes(const MPI_Status *status);

/* Remember a posted request (see reqmap.h); failures only lose its completion record. */
void trc_track(trc_state_t *st, const trc_req_t *req);
/* Write the completion records of the request whose handle was `handle` before MPI
 * completed it, given its status, and forget it unless it is persistent. */
void trc_complete(trc_state_t *st, MPI_Request handle, const MPI_Status *status);
/* Scratch arrays of n entries, valid until the next call; NULL when out of memory. */
int trc_scratch(trc_state_t *st, int n, MPI_Request **requests, MPI_Status **statuses);

/* MpiCollectiveBegin, and MpiCollectiveEnd on local communicator id comm with root (a rank
 * in comm, or OTF2_COLLECTIVE_ROOT_NONE). */
void trc_coll_begin(trc_state_t *st);
void trc_coll_end(trc_state_t *st, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                  trc_sizes_t sizes);

#endif
