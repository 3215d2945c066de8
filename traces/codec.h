/* codec.h - the compact byte encoding of a rank's event stream, shared by the in-memory
 * trace and the store file (layout at the top of codec.c). Times and request ids are
 * deltas in 1-8 bytes, so a typical event takes 3-6 bytes instead of sizeof(ts_event_t). */
#ifndef TS_CODEC_H
#define TS_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "events.h"

/* Growable output buffer with the encoder's delta state. */
typedef struct ts_codec_buf_s {
    uint8_t *data;
    size_t size, cap;
    int64_t last_time;
    uint64_t last_req;
    int64_t pending_compute; /* duration of a COMPUTE just written, -1 if none */
} ts_codec_buf_t;

/* Decoder state over an encoded stream, with the table sizes that decoded indices must stay
 * below (checked while decoding, so consumers can index tables without further checks). */
typedef struct ts_codec_reader_s {
    const uint8_t *p, *end;
    int64_t last_time;
    uint64_t last_req;
    int64_t pending_compute;
    int64_t compute_sum; /* of the bursts so far: at most TS_TIME_MAX_NS */
    int timed;           /* an event with a time was read: later ones may not go back */
    int32_t nranks, ncomms, nfuncs;
    int error;       /* sticky: the status of a failed decode, returned by every later call */
    const char *why; /* what was wrong with the bytes, when the events say (else NULL) */
} ts_codec_reader_t;

void ts_codec_buf_init(ts_codec_buf_t *b);
void ts_codec_buf_free(ts_codec_buf_t *b);
/* Append one event; TS_ENOMEM on allocation failure. */
ts_status ts_codec_put(ts_codec_buf_t *b, const ts_event_t *ev);

/* Start decoding size bytes at data; peers/roots must be below nranks, communicators below
 * ncomms and functions below nfuncs. */
void ts_codec_reader_init(ts_codec_reader_t *r, const uint8_t *data, size_t size, int32_t nranks,
                          int32_t ncomms, int32_t nfuncs);
/* 1 and *ev filled, 0 at the end, TS_ECORRUPT on bad bytes or out-of-range indices. */
int ts_codec_get(ts_codec_reader_t *r, ts_event_t *ev);
/* Decode up to max events into ev[]: returns how many (0 at the end), or the error status
 * once no event precedes the bad bytes. Much faster per event than ts_codec_get. */
int ts_codec_get_batch(ts_codec_reader_t *r, ts_event_t *ev, int max);

#endif
