/* archive.h - the tracer's OTF2 archive: opening it, the bounded event buffer, and the
 * definitions written at MPI_Finalize (private to the tracer).
 *
 * Layout: DIR/traces.otf2 (anchor), DIR/traces.def (global definitions, from world rank 0),
 * DIR/traces/<rank>.evt and DIR/traces/<rank>.def (events and the local -> global mapping
 * of communicator ids). The archive is written into a fresh DIR/.tunesim-trace.XXXXXX and
 * moved into place once complete (anchor last), so a run that fails or is killed leaves an
 * earlier trace in DIR as it was. Definitions follow Score-P
 * (shared/reference/score-p-otf2-mpi.md): Paradigm MPI; one Region per MPI function; SystemTreeNode
 * "Linux" of class "machine" with one class "node" child per host name; LocationGroup r "MPI Rank
 * r" (PROCESS) under its node; Location r "Master thread" (CPU_THREAD); Group 0 COMM_LOCATIONS
 * (paradigm MPI) listing the locations of all world ranks; COMM_GROUP groups of world ranks; a
 * COMM_SELF group with no members; Comm 0 MPI_COMM_WORLD, Comm 1 MPI_COMM_SELF, then the created
 * communicators. */
#ifndef TRC_ARCHIVE_H
#define TRC_ARCHIVE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "clock.h"
#include "comms.h"

typedef struct trc_archive_s {
    char dir[PATH_MAX]; /* where the trace goes */
    char tmp[PATH_MAX]; /* where OTF2 writes it meanwhile */
    OTF2_Archive *archive;
    OTF2_EvtWriter *evt; /* this rank's event writer; NULL once closed */
    trc_clock_t *clock;  /* borrowed: timestamps for BufferFlush records */
    size_t event_chunks; /* event chunks held in memory before OTF2 must flush */
    int rank;
} trc_archive_t;

/* Everything world rank 0 needs to write the global definitions. */
typedef struct trc_global_info_s {
    int nranks;
    int nnodes;
    const char *const *node_names; /* nnodes host names */
    const int *rank_node;          /* nranks entries: index into node_names */
    const uint64_t *rank_events;   /* nranks entries: number of events written */
    uint64_t global_offset;        /* first timestamp of the trace */
    uint64_t trace_length;         /* last - first */
    uint64_t realtime_ns;          /* calendar time of global_offset, 0 if unknown */
    const trc_comm_table_t *comms;
} trc_global_info_t;

/* Chunk size of event buffers; the memory bound per rank is event_chunks of these. */
#define TRC_EVENT_CHUNK_BYTES ((size_t)1024 * 1024)

/* Collective over MPI_COMM_WORLD. World rank 0 creates dir and the temporary directory in
 * it; every rank opens the archive there and its event writer. buffer_bytes bounds the events held
 * in memory (at least 2 chunks): OTF2 then flushes to disk. On failure of any rank, every rank
 * returns -1 with msg filled and nothing open. */
int trc_archive_open(trc_archive_t *ar, const char *dir, int rank, trc_clock_t *clock,
                     size_t buffer_bytes, char *msg, size_t msglen);

/* Number of events this rank has written so far. */
uint64_t trc_archive_nevents(const trc_archive_t *ar);

/* Collective. Closes the event files, writes this rank's mapping table (comm_map: local
 * communicator id -> global id, nlocal entries) and, on world rank 0, the global definitions
 * from info (only read there; NULL there marks the archive incomplete); closes the archive;
 * world rank 0 then replaces the trace named "traces" in dir with it. Returns 0, or -1 on
 * every rank with msg filled. */
int trc_archive_close(trc_archive_t *ar, const uint64_t *comm_map, uint32_t nlocal,
                      const trc_global_info_t *info, char *msg, size_t msglen);

#endif
