/* trace.h - a loaded MPI trace: its definitions (ranks, nodes, communicators, functions,
 * clock) and one event stream per rank (see events.h), read from an OTF2 archive or from
 * tunesim's binary store. A loaded trace is immutable: many replays may share it. */
#ifndef TS_TRACE_H
#define TS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "events.h"

typedef struct ts_trace_s ts_trace_t;
typedef struct ts_cursor_s ts_cursor_t;

typedef enum ts_trace_format {
    TS_FORMAT_OTF2 = 1, /* read from an OTF2 archive (anchor file or its directory) */
    TS_FORMAT_STORE = 2 /* read from a tunesim store (tunesim convert) */
} ts_trace_format;

/* A communicator. members[i] is the world rank of communicator rank i. A COMM_SELF-like
 * communicator has is_self = 1, size 1 and no members: its only member is the caller. */
typedef struct ts_comm_info_s {
    const char *name;
    int32_t size;
    int32_t is_self;
    const int32_t *members;
} ts_comm_info_t;

/* Open the trace at path: an OTF2 anchor (.otf2), a directory holding one, or a store file.
 * On success *out owns the trace; release it with ts_trace_close. On failure *out is NULL
 * and err names the file and the problem. */
ts_status ts_trace_open(const char *path, ts_trace_t **out, ts_error_t *err);
void ts_trace_close(ts_trace_t *trace);

const char *ts_trace_path(const ts_trace_t *trace);
/* Name the trace as messages and reports should (a temporary copy by its original's name):
 * TS_OK, or TS_ENOMEM with the old name kept. */
ts_status ts_trace_rename(ts_trace_t *trace, const char *name);
ts_trace_format ts_trace_format_of(const ts_trace_t *trace);
/* Total size in bytes of the files the trace was read from. */
uint64_t ts_trace_source_bytes(const ts_trace_t *trace);

int32_t ts_trace_nranks(const ts_trace_t *trace);
/* Nodes from the system tree ("node" class); a rank's node is an index below nnodes. */
int32_t ts_trace_nnodes(const ts_trace_t *trace);
const char *ts_trace_node_name(const ts_trace_t *trace, int32_t node);
int32_t ts_trace_rank_node(const ts_trace_t *trace, int32_t rank);

int32_t ts_trace_ncomms(const ts_trace_t *trace);
const ts_comm_info_t *ts_trace_comm(const ts_trace_t *trace, int32_t comm);
/* Rank of world rank `world` inside communicator comm, or -1 if it is not a member. */
int32_t ts_trace_comm_rank(const ts_trace_t *trace, int32_t comm, int32_t world);

int32_t ts_trace_nfuncs(const ts_trace_t *trace);
const char *ts_trace_func_name(const ts_trace_t *trace, int32_t func);
/* Index of the function called name, or -1. */
int32_t ts_trace_func_find(const ts_trace_t *trace, const char *name);

/* Time span of the trace in ns and the original timer resolution in ticks per second. */
int64_t ts_trace_duration_ns(const ts_trace_t *trace);
uint64_t ts_trace_timer_resolution(const ts_trace_t *trace);

uint64_t ts_trace_rank_nevents(const ts_trace_t *trace, int32_t rank);
uint64_t ts_trace_nevents(const ts_trace_t *trace);
/* A CRC-32 of the trace's events as held (a store's chunk checksums, or the encoded events in
 * memory) and its duration: two traces that differ in any event differ here (but for CRC
 * collisions), so that a result kept for one is not taken for the other. */
uint32_t ts_trace_fingerprint(const ts_trace_t *trace);
/* MPI records found on non-master threads: reported, never mixed into the streams. */
uint64_t ts_trace_nonmaster_mpi_records(const ts_trace_t *trace);

/* Iterate over one rank's stream. Cursors are independent: many may read one trace at once.
 * ts_cursor_next returns 1 and fills ev, 0 at the end, or a negative ts_status (corrupt
 * data) with err filled. */
ts_status ts_cursor_open(const ts_trace_t *trace, int32_t rank, ts_cursor_t **out);
int ts_cursor_next(ts_cursor_t *cursor, ts_event_t *ev, ts_error_t *err);
/* As ts_cursor_next, but *ev points at the event inside the cursor, valid until the cursor's
 * next call (no copy). */
int ts_cursor_next_ref(ts_cursor_t *cursor, const ts_event_t **ev, ts_error_t *err);
/* The next events in bulk: *evs points at up to a few hundred decoded events owned by the
 * cursor (valid until the next call). Returns how many, 0 at the end, or a negative status.
 * Faster than ts_cursor_next for consumers that take events in sequence. */
int ts_cursor_next_batch(ts_cursor_t *cursor, const ts_event_t **evs, ts_error_t *err);
/* Look k events past the cursor's position without moving it (k = 0: the event the next
 * ts_cursor_next would return): the number n >= 1 of events decoded from there on, which
 * *evs points at (valid until the cursor's next call), 0 when the stream ends before, or a
 * negative status with err set (corrupt data; TS_EARG for k of ts_cursor_peek_max() or
 * more). Events peeked at are decoded once: reading them later costs nothing more. */
int ts_cursor_peek(ts_cursor_t *cursor, size_t k, const ts_event_t **evs, ts_error_t *err);
size_t ts_cursor_peek_max(void);
/* Events returned (or skipped) so far: the stream index of the next one. */
uint64_t ts_cursor_index(const ts_cursor_t *cursor);
/* Receive completions (TS_EV_IRECV_DONE) among the events returned or skipped so far. */
uint64_t ts_cursor_receives_passed(const ts_cursor_t *cursor);
/* Step over n events: 1, 0 when the stream ends first, or a negative status with err set. */
int ts_cursor_skip(ts_cursor_t *cursor, uint64_t n, ts_error_t *err);
void ts_cursor_close(ts_cursor_t *cursor);

#endif
