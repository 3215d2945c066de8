/* recv_ahead.h - the source, tag, communicator and size of a rank's non-blocking receives,
 * found ahead in its event stream. Score-P writes MpiIrecvRequest when MPI_Irecv is posted
 * (request id only) and MpiIrecv when the receive completes (with the envelope), so whoever
 * re-executes a trace in order (the replay engine, tunesim-play) must look ahead to post a
 * receive as it was posted. A persistent request id may be reused: completions of one id are
 * kept in stream order. */
#ifndef TS_RECV_AHEAD_H
#define TS_RECV_AHEAD_H

#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

typedef struct ts_recv_ahead_s ts_recv_ahead_t;

typedef struct ts_recv_info_s {
    int32_t peer, comm, tag; /* world rank of the source, communicator index, tag */
    uint64_t bytes;
} ts_recv_info_t;

/* A look-ahead over rank's stream that peeks ahead of cur, the consumer's own cursor over
 * that stream (ts_cursor_peek): the events on the way are decoded once for both. Where the
 * completion lies further ahead than a cursor peeks, or cur has passed events the look-ahead
 * has not read, the look-ahead reads on with a cursor of its own. TS_OK and *out, or
 * TS_ENOMEM. A find may move cur's buffer: events taken from cur by reference before it are
 * no longer valid after it. */
ts_status ts_recv_ahead_open(const ts_trace_t *trace, int32_t rank, ts_cursor_t *cur,
                             ts_recv_ahead_t **out);

/* The envelope of the next completion of receive request id: 1 and *info when found, 0 when
 * the stream never completes it (nothing waits for it either), or a negative status with err
 * set (a corrupt stream, out of memory). */
int ts_recv_ahead_find(ts_recv_ahead_t *a, uint64_t id, ts_recv_info_t *info, ts_error_t *err);

void ts_recv_ahead_close(ts_recv_ahead_t *a);

#endif
