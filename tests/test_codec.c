/* test_codec.c - the status table and the event-stream encoding: round trips of every event
 * kind, rejection of truncated or malformed bytes, and the receive look-ahead's reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "traces/recv_ahead.h"
#include "traces/store.h"
#include "traces/ti.h"
#include "traces/trace_impl.h"
#include "common/status.h"
#include "traces/codec.h"

#include <otf2/otf2.h>

static void test_status_table(void)
{
    CU_ASSERT_EQUAL(TS_OK, 0);
    CU_ASSERT(TS_ENOMEM < 0);
    CU_ASSERT(TS_ECORRUPT < TS_ENOMEM);
    CU_ASSERT_STRING_EQUAL(ts_status_name(TS_OK), "OK");
    CU_ASSERT_STRING_EQUAL(ts_status_name(TS_ECORRUPT), "ECORRUPT");
    CU_ASSERT_STRING_EQUAL(ts_status_message(TS_ETRUNC), "truncated input");
    CU_ASSERT_STRING_EQUAL(ts_status_name(-1000), "EUNKNOWN");
    ts_error_t err;
    CU_ASSERT_EQUAL(ts_error_set(&err, TS_EIO, "%s: %d", "f", 3), TS_EIO);
    CU_ASSERT_EQUAL(err.code, TS_EIO);
    CU_ASSERT_STRING_EQUAL(err.msg, "f: 3");
}

/* A stream with every kind, negative tags, large sizes, decreasing request ids. */
static int sample(ts_event_t *ev)
{
    int n = 0;
    ev[n++] = (ts_event_t){.kind = TS_EV_COMPUTE, .time = 1500};
    ev[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = 3, .time = 1500};
    ev[n++] = (ts_event_t){
        .kind = TS_EV_ISEND, .peer = 7, .comm = 0, .tag = -5, .bytes = 2048, .req = 10};
    ev[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = 1600};
    ev[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = 1, .time = 1600}; /* no time between */
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 4};
    ev[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = 1700};
    ev[n++] = (ts_event_t){.kind = TS_EV_COMPUTE, .time = 0};
    ev[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = 65535, .time = 1700};
    ev[n++] = (ts_event_t){
        .kind = TS_EV_IRECV_DONE, .peer = 2, .comm = 3, .tag = 99, .bytes = TS_BYTES_MAX, .req = 4};
    ev[n++] = (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 10};
    ev[n++] = (ts_event_t){.kind = TS_EV_CANCELLED, .req = 11};
    ev[n++] = (ts_event_t){.kind = TS_EV_REQ_TEST, .req = 12};
    ev[n++] = (ts_event_t){.kind = TS_EV_SEND, .peer = 0, .comm = 1, .tag = 0, .bytes = 0};
    ev[n++] = (ts_event_t){.kind = TS_EV_RECV, .peer = 1, .comm = 1, .tag = 1, .bytes = 8};
    /* values at each width's first value above it: 2^8, 2^16, 2^32 take the next width */
    ev[n++] = (ts_event_t){.kind = TS_EV_SEND, .peer = 99, .comm = 1, .tag = 256, .bytes = 256};
    ev[n++] = (ts_event_t){.kind = TS_EV_SEND, .peer = 98, .comm = 1, .tag = 65536, .bytes = 65536};
    ev[n++] = (ts_event_t){
        .kind = TS_EV_SEND, .peer = 97, .comm = 1, .tag = 65535, .bytes = 4294967296ull};
    ev[n++] = (ts_event_t){.kind = TS_EV_COLL,
                           .op = TS_COLL_ALLREDUCE,
                           .peer = TS_ROOT_NONE,
                           .comm = 0,
                           .bytes = 576,
                           .bytes2 = 576};
    ev[n++] = (ts_event_t){.kind = TS_EV_ICOLL_POST, .req = 13};
    ev[n++] = (ts_event_t){.kind = TS_EV_ICOLL_DONE,
                           .op = TS_COLL_BCAST,
                           .peer = 3,
                           .comm = 2,
                           .bytes = 0,
                           .bytes2 = 64,
                           .req = 13};
    ev[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = TS_TIME_MAX_NS}; /* the latest */
    return n;
}

static void test_roundtrip(void)
{
    ts_event_t in[32], out;
    int n = sample(in);
    ts_codec_buf_t b;
    ts_codec_buf_init(&b);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL_FATAL(ts_codec_put(&b, &in[i]), TS_OK);
    /* Compact: far below the in-memory size. */
    CU_ASSERT(b.size < (size_t)n * 8);
    ts_codec_reader_t r;
    ts_codec_reader_init(&r, b.data, b.size, 100, 10, 65536);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(ts_codec_get(&r, &out), 1);
        CU_ASSERT_EQUAL(memcmp(&out, &in[i], sizeof out), 0);
    }
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), 0);
    ts_codec_buf_free(&b);
}

static void test_enter_after_compute_is_shorter(void)
{
    /* The ENTER that follows a burst stores no time: its time is implied by the burst. */
    ts_event_t leave = {.kind = TS_EV_LEAVE, .time = 1000000};
    ts_event_t burst = {.kind = TS_EV_COMPUTE, .time = 250000};
    ts_event_t implied = {.kind = TS_EV_ENTER, .func = 2, .time = 1250000};
    ts_event_t explicit = {.kind = TS_EV_ENTER, .func = 2, .time = 1250001};
    ts_codec_buf_t a, b;
    ts_codec_buf_init(&a);
    ts_codec_buf_init(&b);
    ts_codec_put(&a, &leave);
    ts_codec_put(&a, &burst);
    ts_codec_put(&a, &implied);
    ts_codec_put(&b, &leave);
    ts_codec_put(&b, &burst);
    ts_codec_put(&b, &explicit);
    CU_ASSERT(a.size + 3 <= b.size);
    ts_codec_reader_t r;
    ts_event_t ev;
    ts_codec_reader_init(&r, b.data, b.size, 100, 10, 65536);
    ts_codec_get(&r, &ev);
    ts_codec_get(&r, &ev);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &ev), 1);
    CU_ASSERT_EQUAL(ev.time, 1250001);
    ts_codec_buf_free(&a);
    ts_codec_buf_free(&b);
}

/* Decode all of data with ts_codec_get into out[] (at most max events); the final status
 * (0 at the end, or the error) goes to *rc, and must stay the same on a further call. */
static int decode_all(const uint8_t *data, size_t size, int32_t nranks, int32_t ncomms,
                      int32_t nfuncs, ts_event_t *out, int max, int *rc)
{
    ts_codec_reader_t r;
    ts_codec_reader_init(&r, data, size, nranks, ncomms, nfuncs);
    int count = 0;
    ts_event_t ev;
    while ((*rc = ts_codec_get(&r, &ev)) == 1 && count < max)
        out[count++] = ev;
    CU_ASSERT_EQUAL(ts_codec_get(&r, &ev), *rc); /* the end, or the error, is sticky */
    return count;
}

/* Every proper prefix of an encoded stream yields exactly the events that lie wholly inside
 * it, then the end (cut between two events) or TS_ECORRUPT (cut inside one: no field is
 * optional, so a cut event always lacks bytes); never a byte past the end (ASan checks
 * that). Both decoding paths: one event at a time and the batch. */
static void test_truncated(void)
{
    ts_event_t in[32], out[32];
    int n = sample(in);
    size_t end_of[32]; /* end_of[i]: the stream's size once event i is written */
    ts_codec_buf_t b;
    ts_codec_buf_init(&b);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(ts_codec_put(&b, &in[i]), TS_OK);
        end_of[i] = b.size;
    }
    for (size_t cut = 0; cut < b.size; cut++) {
        int whole = 0;
        while (whole < n && end_of[whole] <= cut)
            whole++;
        int between = cut == (whole ? end_of[whole - 1] : 0);
        int want_rc = between ? 0 : TS_ECORRUPT;
        uint8_t *copy = malloc(cut ? cut : 1); /* exactly cut bytes, for ASan */
        memcpy(copy, b.data, cut);
        int rc, count = decode_all(copy, cut, 100, 10, 65536, out, 32, &rc);
        if (count != whole || rc != want_rc)
            printf("\n  cut at %zu: %d events and status %d, want %d and %d", cut, count, rc, whole,
                   want_rc);
        CU_ASSERT_EQUAL(count, whole);
        CU_ASSERT_EQUAL(rc, want_rc);
        for (int i = 0; i < count && i < whole; i++)
            CU_ASSERT_EQUAL(memcmp(&out[i], &in[i], sizeof out[i]), 0);

        /* The batch returns the whole events first, then the status. */
        ts_codec_reader_t r;
        ts_codec_reader_init(&r, copy, cut, 100, 10, 65536);
        int got = ts_codec_get_batch(&r, out, 32);
        if (whole > 0) {
            CU_ASSERT_EQUAL(got, whole);
            for (int i = 0; i < got && i < whole; i++)
                CU_ASSERT_EQUAL(memcmp(&out[i], &in[i], sizeof out[i]), 0);
            got = ts_codec_get_batch(&r, out, 32);
        }
        CU_ASSERT_EQUAL(got, want_rc);
        free(copy);
    }
    ts_codec_buf_free(&b);
}

/* A one-rank trace of n events (world of 4 ranks), sealed in memory. */
static ts_trace_t *trace_of(const ts_event_t *ev, int n)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("synthetic", TS_FORMAT_OTF2, 4, &t) == TS_OK);
    ts__trace_add_node(t, "n0");
    int32_t world[] = {0, 1, 2, 3};
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 4, 0, world);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(ts_codec_put(&t->ranks[0].buf, &ev[i]), TS_OK);
        t->ranks[0].nevents++;
    }
    ts__trace_seal(t);
    return t;
}

/* Read the whole stream as the replay does, asking the look-ahead at every IRECV_POST (or,
 * with late set, only after the stream's end, for every post in order): the tags found, in
 * the order asked, into tags[]. Returns how many, or -1 on a failed find. */
static int consume(const ts_trace_t *t, int late, int32_t *tags)
{
    ts_cursor_t *cur;
    ts_recv_ahead_t *a;
    CU_ASSERT_EQUAL_FATAL(ts_cursor_open(t, 0, &cur), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_recv_ahead_open(t, 0, cur, &a), TS_OK);
    ts_error_t err;
    const ts_event_t *ev;
    uint64_t posted[64];
    int nposted = 0, n = 0, rc;
    while ((rc = ts_cursor_next_ref(cur, &ev, &err)) == 1) {
        if (ev->kind != TS_EV_IRECV_POST)
            continue;
        if (late) {
            CU_ASSERT_FATAL(nposted < 64);
            posted[nposted++] = ev->req;
            continue;
        }
        ts_recv_info_t info;
        uint64_t id = ev->req; /* the find may move the buffer ev points into */
        if (ts_recv_ahead_find(a, id, &info, &err) != 1)
            n = -1;
        else if (n >= 0)
            tags[n++] = info.tag;
    }
    CU_ASSERT_EQUAL(rc, 0);
    for (int i = 0; i < nposted && n >= 0; i++) {
        ts_recv_info_t info;
        if (ts_recv_ahead_find(a, posted[i], &info, &err) != 1)
            n = -1;
        else
            tags[n++] = info.tag;
    }
    ts_recv_ahead_close(a);
    ts_cursor_close(cur);
    return n;
}

/* The receive look-ahead over a rank's stream: requests 1, 2, 3 complete in the order 2, 3,
 * 1 and request 2 (reused) completes again later, each completion with its own envelope.
 * Asking for 1 passes 2 and 3 (kept), for 2 and 3 gives the kept ones, for 2 again the later
 * completion, for 9 nothing (0). The same asked while the consumer's cursor reads the stream
 * (the look-ahead peeks ahead of it), and all asked after it reached the end (the look-ahead
 * reads on its own). */
static void test_recv_ahead(void)
{
    const struct {
        uint64_t req;
        int32_t peer, tag;
        uint64_t bytes;
    } done[] = {{2, 1, 20, 200}, {3, 2, 30, 300}, {1, 3, 10, 100}, {2, 1, 21, 210}};
    ts_event_t ev[16];
    int n = 0;
    for (uint64_t r = 1; r <= 3; r++)
        ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = r};
    for (int i = 0; i < 4; i++) {
        if (i == 3) /* request 2 posted again after its first completion */
            ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 2};
        ev[n++] = (ts_event_t){.kind = TS_EV_COMPUTE, .time = 100};
        ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_DONE,
                               .peer = done[i].peer,
                               .tag = done[i].tag,
                               .bytes = done[i].bytes,
                               .req = done[i].req};
    }
    ts_trace_t *t = trace_of(ev, n);
    ts_cursor_t *cur;
    CU_ASSERT_EQUAL_FATAL(ts_cursor_open(t, 0, &cur), TS_OK);
    ts_recv_ahead_t *a;
    CU_ASSERT_EQUAL_FATAL(ts_recv_ahead_open(t, 0, cur, &a), TS_OK);
    ts_error_t err;
    ts_recv_info_t info;
    const struct {
        uint64_t ask;
        int want; /* index into done[] */
    } order[] = {{1, 2}, {2, 0}, {3, 1}, {2, 3}};
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(ts_recv_ahead_find(a, order[i].ask, &info, &err), 1);
        CU_ASSERT_EQUAL(info.peer, done[order[i].want].peer);
        CU_ASSERT_EQUAL(info.tag, done[order[i].want].tag);
        CU_ASSERT_EQUAL(info.bytes, done[order[i].want].bytes);
    }
    CU_ASSERT_EQUAL(ts_recv_ahead_find(a, 9, &info, &err), 0);
    CU_ASSERT_EQUAL(ts_cursor_index(cur), 0); /* peeking did not move the consumer's cursor */
    ts_recv_ahead_close(a);
    ts_cursor_close(cur);
    int32_t tags[8];
    for (int late = 0; late <= 1; late++) {
        CU_ASSERT_EQUAL(consume(t, late, tags), 4);
        CU_ASSERT_EQUAL(tags[0], 10);
        CU_ASSERT_EQUAL(tags[1], 20);
        CU_ASSERT_EQUAL(tags[2], 30);
        CU_ASSERT_EQUAL(tags[3], 21);
    }
    ts_trace_close(t);
}

/* A completion further ahead than a cursor peeks: request 1 is posted first and completes
 * after 30,000 bursts, with requests 2..11 posted and completed (tags 102..111) on the way.
 * The look-ahead reads on with its own cursor, keeps those ten, and peeks again once the
 * consumer has caught up: request 12 (tag 112) after request 1's completion. The same from a
 * store file, whose stream of about 90 KB spans two compressed chunks. Peeking and skipping
 * agree with reading. */
static void test_recv_ahead_far(void)
{
    enum { N = 30000 + 40 };
    ts_event_t *ev = calloc(N, sizeof *ev);
    CU_ASSERT_FATAL(ev != NULL);
    int n = 0;
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 1};
    for (int i = 0; i < 30000; i++) {
        ev[n++] = (ts_event_t){.kind = TS_EV_COMPUTE, .time = 100000 + i};
        if (i % 3000 == 1500) {
            uint64_t id = 2 + (uint64_t)(i / 3000);
            ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = id};
            ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_DONE,
                                   .peer = 2,
                                   .tag = 100 + (int32_t)id,
                                   .bytes = 8,
                                   .req = id};
        }
    }
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 3, .tag = 1, .bytes = 8, .req = 1};
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 12};
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 1, .tag = 112, .bytes = 8, .req = 12};
    CU_ASSERT_FATAL(n <= N);
    ts_trace_t *t = trace_of(ev, n);
    char path[4200];
    snprintf(path, sizeof path, "%s/far.tss", tu_tmpdir());
    ts_error_t err;
    ts_trace_t *stored;
    CU_ASSERT_EQUAL_FATAL(ts_store_write(t, path, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_trace_open(path, &stored, &err), TS_OK);
    CU_ASSERT(stored->ranks[0].nchunks >= 2); /* the look-ahead crosses a chunk's end */
    const ts_trace_t *both[] = {t, stored};
    int32_t tags[16];
    for (int k = 0; k < 2; k++)
        for (int late = 0; late <= 1; late++) {
            CU_ASSERT_EQUAL(consume(both[k], late, tags), 12);
            CU_ASSERT_EQUAL(tags[0], 1);
            for (int i = 1; i < 11; i++)
                CU_ASSERT_EQUAL(tags[i], 101 + i);
            CU_ASSERT_EQUAL(tags[11], 112);
        }
    ts_trace_close(stored);
    /* peek, skip and read agree */
    ts_cursor_t *cur;
    const ts_event_t *p, *q;
    CU_ASSERT_EQUAL_FATAL(ts_cursor_open(t, 0, &cur), TS_OK);
    size_t far = ts_cursor_peek_max() - 1;
    CU_ASSERT(ts_cursor_peek(cur, far, &p, &err) >= 1);
    CU_ASSERT_EQUAL(p->time, ev[far].time);
    CU_ASSERT_EQUAL(ts_cursor_peek(cur, far + 1, &p, &err), TS_EARG);
    CU_ASSERT_EQUAL(ts_cursor_skip(cur, 500, &err), 1);
    CU_ASSERT_EQUAL(ts_cursor_index(cur), 500);
    int span = ts_cursor_peek(cur, 7, &p, &err);
    CU_ASSERT_FATAL(span >= 1);
    for (int i = 0; i < span && 507 + i < n; i++) /* the events that follow, in order */
        CU_ASSERT_EQUAL(p[i].time, ev[507 + i].time);
    int64_t peeked = p->time;
    CU_ASSERT_EQUAL(ts_cursor_skip(cur, 7, &err), 1);
    CU_ASSERT_EQUAL(ts_cursor_next_ref(cur, &q, &err), 1);
    CU_ASSERT_EQUAL(q->time, peeked);
    CU_ASSERT_EQUAL(q->time, ev[507].time);
    CU_ASSERT_EQUAL(ts_cursor_skip(cur, (uint64_t)n, &err), 0); /* the stream ends first */
    ts_cursor_close(cur);
    ts_trace_close(t);
    free(ev);
}

/* Hand-made bytes in the layout documented at the top of traces/codec.c: each case decodes
 * exactly its valid events, field by field, then ends with its status (0: a clean end). */
static void test_malformed(void)
{
    /* A valid LEAVE at t = 1 (time delta 1, zigzag 2) put before some of the bad bytes:
     * the decoder must deliver it before it reports the error. */
#define LEAVE_T1 TS_EV_LEAVE, 0x02
    static const ts_event_t leave_t1 = {.kind = TS_EV_LEAVE, .time = 1};
    static const struct {
        const char *what;
        uint8_t bytes[16];
        size_t size;
        int32_t nranks, ncomms, nfuncs;
        int nvalid; /* events decoded before the status */
        ts_event_t want[3];
        int status;
    } CASES[] = {
        {"kind 14 does not exist", {0x0e, 0x01}, 2, 100, 10, 65536, 0, {{0}}, TS_ECORRUPT},
        {"kind 15 after a LEAVE", {LEAVE_T1, 0x0f}, 3, 100, 10, 65536, 1, {leave_t1}, TS_ECORRUPT},
        {"implied ENTER time, no burst before",
         {LEAVE_T1, 0x40 | TS_EV_ENTER, 0x01},
         4,
         100,
         10,
         65536,
         1,
         {leave_t1},
         TS_ECORRUPT},
        {"implied ENTER time after a 5 ns burst",
         {LEAVE_T1, TS_EV_COMPUTE, 5, 0x40 | TS_EV_ENTER, 0x01},
         6,
         100,
         10,
         65536,
         3,
         {leave_t1,
          {.kind = TS_EV_COMPUTE, .time = 5},
          {.kind = TS_EV_ENTER, .func = 1, .time = 6}},
         0},
        {"8-byte field, 2 bytes left",
         {TS_EV_COMPUTE | 3 << 4, 0x01, 0x02},
         3,
         100,
         10,
         65536,
         0,
         {{0}},
         TS_ECORRUPT},
        {"collective op 200",
         {TS_EV_COLL, 0, 200, 0, 0, 0, 0},
         7,
         100,
         10,
         65536,
         0,
         {{0}},
         TS_ECORRUPT},
        {"send without its widths byte",
         {LEAVE_T1, TS_EV_SEND},
         3,
         4,
         2,
         9,
         1,
         {leave_t1},
         TS_ECORRUPT},
        /* Indices against the tables: peer 5 of 4 ranks, communicator 3 of 2, function 9 of
         * 9, root 4 of 4 (peer, comm, root and tag are zigzag coded: 5 -> 10, 3 -> 6,
         * -1 -> 1), and the largest valid ones beside them. */
        {"peer 5 of 4 ranks", {TS_EV_SEND, 0, 10, 0, 0, 8}, 6, 4, 2, 9, 0, {{0}}, TS_ECORRUPT},
        {"peer 3 of 4 ranks",
         {TS_EV_SEND, 0, 6, 0, 0, 8},
         6,
         4,
         2,
         9,
         1,
         {{.kind = TS_EV_SEND, .peer = 3, .bytes = 8}},
         0},
        {"communicator 3 of 2",
         {LEAVE_T1, TS_EV_COLL, 0, TS_COLL_BARRIER, 6, 1, 0, 0},
         9,
         4,
         2,
         9,
         1,
         {leave_t1},
         TS_ECORRUPT},
        {"function 9 of 9", {TS_EV_ENTER, 9, 0}, 3, 4, 2, 9, 0, {{0}}, TS_ECORRUPT},
        {"function 8 of 9 at t = 0",
         {TS_EV_ENTER, 8, 0},
         3,
         4,
         2,
         9,
         1,
         {{.kind = TS_EV_ENTER, .func = 8}},
         0},
        {"root -1 is no root",
         {TS_EV_COLL, 0, TS_COLL_BARRIER, 2, 1, 0, 0},
         7,
         4,
         2,
         9,
         1,
         {{.kind = TS_EV_COLL, .op = TS_COLL_BARRIER, .comm = 1, .peer = TS_ROOT_NONE}},
         0},
        {"root 4 of 4 ranks",
         {TS_EV_COLL, 0, TS_COLL_BCAST, 2, 8, 0, 0},
         7,
         4,
         2,
         9,
         0,
         {{0}},
         TS_ECORRUPT},
    };
#undef LEAVE_T1
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        ts_event_t out[4];
        int rc, count = decode_all(CASES[i].bytes, CASES[i].size, CASES[i].nranks, CASES[i].ncomms,
                                   CASES[i].nfuncs, out, 4, &rc);
        int same = count == CASES[i].nvalid;
        for (int k = 0; same && k < count; k++)
            same = memcmp(&out[k], &CASES[i].want[k], sizeof out[k]) == 0;
        if (!same || rc != CASES[i].status)
            printf("\n  %s: %d events (%s) and status %d, want %d and %d", CASES[i].what, count,
                   same ? "as expected" : "not as expected", rc, CASES[i].nvalid, CASES[i].status);
        CU_ASSERT(same);
        CU_ASSERT_EQUAL(rc, CASES[i].status);
    }
}

static void test_coll_payload(void)
{
    /* shared/reference/score-p-otf2-mpi.md, "Collective sizes per rank", N = 4, b = 8. */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 4, 0, 1, 32, 32), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 4, 0, 1, 32, 24), 8); /* IN_PLACE */
    /* Issue 30 item 4: in place, the real block. The tracer's mark (n blocks sent, n-1
     * received): a 64 KiB Allreduce on 4 ranks is 65,536 B, not 49,152. */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 4, 0, 1, 4 * 65536, 3 * 65536), 65536);
    /* Score-P's (n-1) both ways, known where the block is not a multiple of n: 8 B on 72. */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 72, 0, 1, 71 * 8, 71 * 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 72, 0, 1, 72 * 8, 72 * 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLGATHER, 36, 0, 1, 35 * 4, 35 * 4), 4);
    /* ... and not where it is (64 KiB on 4: 3 x 65,536 divides by 4): taken as not in place. */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 4, 0, 1, 3 * 65536, 3 * 65536), 49152);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_BCAST, 4, 1, 0, 32, 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_BCAST, 4, 0, 2, 0, 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_REDUCE, 4, 1, 0, 8, 32), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_GATHER, 4, 0, 3, 8, 0), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_SCATTER, 4, 0, 3, 0, 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLTOALL, 4, 0, 3, 32, 32), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_SCAN, 4, 0, 1, 24, 16), 8); /* (N-me)*b, me = 1 */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_BARRIER, 4, 0, 1, 0, 0), 0);
}

/* ---- issue 30 item 11: an OTF2 timestamp that goes back ------------------------------------ */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb,
                                bool final)
{
    (void)ud, (void)ft, (void)loc, (void)cb, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}

/* The second call's Enter on rank 1: a byte pattern found once in its file. */
#define SECOND_ENTER 0x0A0B0C0Dull

/* Writes dir/traces.otf2: 2 ranks, each two MPI_Barrier calls (Enter, CollectiveEnd, Leave)
 * at 100..102 ns and SECOND_ENTER..+2 ns; with back 1, rank 1's second Enter (its record 4) is
 * then rewritten to 50 ns in the file, since OTF2's writer itself refuses to go back (with
 * back 2, to 2e15 ns, beyond TS_TIME_MAX_NS). Other values of back write variants instead:
 * 3, MPI_COMM_WORLD's group lists ranks 0 and 2; 4, the first barrier names root 2; 5, the
 * clock properties give a length of 1 ns; 6, the second call starts at 102 ns, when the first
 * ends; 7, measurement is switched off at 103 ns and on at 104 ns, between the calls. */
static int write_small_otf2(const char *dir, int back)
{
    OTF2_Archive *ar =
        OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    for (uint64_t r = 0; r < 2; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
        for (uint64_t k = 0; k < 2; k++) {
            OTF2_TimeStamp t = k ? (back == 6 ? 102 : SECOND_ENTER) : 100;
            OTF2_EvtWriter_Enter(w, NULL, t, 0);
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t + 1, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                            back == 4 && !k ? 2 : OTF2_UNDEFINED_UINT32, 0, 0);
            OTF2_EvtWriter_Leave(w, NULL, t + 2, 0);
            if (back == 7 && !k) {
                OTF2_EvtWriter_MeasurementOnOff(w, NULL, 103, OTF2_MEASUREMENT_OFF);
                OTF2_EvtWriter_MeasurementOnOff(w, NULL, 104, OTF2_MEASUREMENT_ON);
            }
        }
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    OTF2_Archive_OpenDefFiles(ar);
    for (uint64_t r = 0; r < 2; r++)
        OTF2_Archive_CloseDefWriter(ar, OTF2_Archive_GetDefWriter(ar, r));
    OTF2_Archive_CloseDefFiles(ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    static const char *const strings[] = {"",       "MPI_Barrier", "node0",         "node",
                                          "rank 0", "rank 1",      "MPI_COMM_WORLD"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, back == 5 ? 1 : SECOND_ENTER + 3,
                                              OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 4 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 4 + r, OTF2_LOCATION_TYPE_CPU_THREAD, 6, r);
    }
    const uint64_t members[2] = {0, 1}, ranks[2] = {0, back == 3 ? 2 : 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 6, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS)
        return -1;
    if (back != 1 && back != 2)
        return 0;
    /* Timestamps are stored as full 8-byte integers in the host's byte order. */
    char path[600];
    snprintf(path, sizeof path, "%s/traces/1.evt", dir);
    size_t n = 0;
    char *bytes = tu_read_file(path, &n);
    uint64_t from = SECOND_ENTER, to = back == 2 ? 2000000000000000ull : 50;
    int found = 0;
    for (size_t i = 0; bytes && i + 8 <= n; i++)
        if (memcmp(bytes + i, &from, 8) == 0) {
            memcpy(bytes + i, &to, 8);
            found++;
        }
    FILE *fp = found == 1 ? fopen(path, "wb") : NULL;
    int rc = fp && fwrite(bytes, 1, n, fp) == n ? 0 : -1;
    if (fp && fclose(fp) != 0)
        rc = -1;
    free(bytes);
    return rc;
}

/* Times that go back, or lie beyond TS_TIME_MAX_NS, and bursts adding up beyond it are refused
 * at the event, with what was wrong: their sums would leave int64_t (a store with valid
 * checksums can hold them; the hostile-input pass crafted such). The first time may be
 * negative (a rank's clock before the trace's start). */
static void test_time_bounds(void)
{
    static const struct {
        const char *why; /* NULL: valid */
        ts_event_t ev[3];
        int n, nvalid;
    } CASES[] = {
        {NULL, {{.kind = TS_EV_LEAVE, .time = -5}, {.kind = TS_EV_LEAVE, .time = 0}}, 2, 2},
        {"earlier than the one before",
         {{.kind = TS_EV_LEAVE, .time = 10}, {.kind = TS_EV_LEAVE, .time = 9}},
         2,
         1},
        {"beyond 1e6 s",
         {{.kind = TS_EV_LEAVE, .time = 10}, {.kind = TS_EV_ENTER, .time = TS_TIME_MAX_NS + 1}},
         2,
         1},
        {"beyond 1e6 s", {{.kind = TS_EV_LEAVE, .time = -TS_TIME_MAX_NS - 1}}, 1, 0},
        {"compute bursts adding up to more than 1e6 s",
         {{.kind = TS_EV_COMPUTE, .time = TS_TIME_MAX_NS - 1},
          {.kind = TS_EV_LEAVE, .time = 3},
          {.kind = TS_EV_COMPUTE, .time = 2}},
         3,
         2},
        /* Bytes past TS_BYTES_MAX: 2^63 as a message, 2^64 - 1 (-1 written unsigned) as a
         * collective's sizeReceived. */
        {"a message of more than 2^40 bytes",
         {{.kind = TS_EV_SEND, .bytes = TS_BYTES_MAX}, {.kind = TS_EV_SEND, .bytes = 1ULL << 63}},
         2,
         1},
        {"a collective of more than 2^40 bytes",
         {{.kind = TS_EV_COLL, .bytes = 8, .bytes2 = UINT64_MAX}},
         1,
         0},
        /* An implied ENTER time (after a burst) past the latest. */
        {"beyond 1e6 s",
         {{.kind = TS_EV_LEAVE, .time = TS_TIME_MAX_NS - 1},
          {.kind = TS_EV_COMPUTE, .time = 2},
          {.kind = TS_EV_ENTER, .time = TS_TIME_MAX_NS + 1}},
         3,
         2},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        ts_codec_buf_t b;
        ts_codec_buf_init(&b);
        for (int i = 0; i < CASES[c].n; i++)
            CU_ASSERT_EQUAL_FATAL(ts_codec_put(&b, &CASES[c].ev[i]), TS_OK);
        ts_codec_reader_t r;
        ts_codec_reader_init(&r, b.data, b.size, 4, 1, 4);
        ts_event_t out[3];
        int got = ts_codec_get_batch(&r, out, 3), rc = got;
        if (got > 0 && got < CASES[c].n)
            rc = ts_codec_get_batch(&r, out + got, 3 - got);
        got = got < 0 ? 0 : got;
        CU_ASSERT_EQUAL(got, CASES[c].nvalid);
        if (got != CASES[c].nvalid)
            printf("\n  case %zu: %d events, rc %d, %s\n", c, got, rc, r.why ? r.why : "-");
        if (CASES[c].why) {
            CU_ASSERT_EQUAL(rc, TS_ECORRUPT);
            CU_ASSERT_PTR_NOT_NULL(r.why ? strstr(r.why, CASES[c].why) : NULL);
        } else {
            CU_ASSERT_EQUAL(got, CASES[c].n);
            CU_ASSERT_EQUAL(out[0].time, -5);
        }
        ts_codec_buf_free(&b);
    }
    /* Through a trace's cursor: the rank, the event and why. */
    const ts_event_t ev[] = {{.kind = TS_EV_LEAVE, .time = 10}, {.kind = TS_EV_LEAVE, .time = 9}};
    ts_trace_t *t = trace_of(ev, 2);
    ts_cursor_t *cur;
    CU_ASSERT_EQUAL_FATAL(ts_cursor_open(t, 0, &cur), TS_OK);
    ts_event_t e;
    ts_error_t err;
    ts_error_clear(&err);
    int rc;
    while ((rc = ts_cursor_next(cur, &e, &err)) == 1)
        ;
    CU_ASSERT_EQUAL(rc, TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "synthetic: rank 0, event 1: a time earlier than the "
                                           "one before (expected times that never go back)"));
    ts_cursor_close(cur);
    ts_trace_close(t);
}

/* A store of ranks without events writes and reads back (its event data is empty: nothing to
 * write, and no buffer to write it from). */
static void test_store_without_events(void)
{
    ts_trace_t *t = trace_of(NULL, 0);
    const char *path = tu_path("no-events.tss");
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_store_write(t, path, &err), TS_OK);
    ts_trace_close(t);
    t = NULL;
    CU_ASSERT_EQUAL_FATAL(ts_trace_open(path, &t, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_trace_nranks(t), 4);
    CU_ASSERT_EQUAL(ts_store_write(t, tu_path("no-events-again.tss"), &err), TS_OK);
    ts_trace_close(t);
}

static void test_otf2_backwards_time(void)
{
    /* The same archive in order opens: the writer above is a valid trace. */
    const char *good = tu_path("otf2-in-order");
    CU_ASSERT_EQUAL_FATAL(write_small_otf2(good, 0), 0);
    ts_trace_t *t = NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL(ts_trace_open(good, &t, &err), TS_OK);
    ts_trace_close(t);

    const char *bad = tu_path("otf2-back");
    CU_ASSERT_EQUAL_FATAL(write_small_otf2(bad, 1), 0);
    t = NULL;
    CU_ASSERT_EQUAL(ts_trace_open(bad, &t, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NULL(t);
    ts_trace_close(t);
    printf("\n  %s\n", err.msg);
    CU_ASSERT(tu_one_line(err.msg));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "traces/1.evt: rank 1, record 4: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "50 ns is earlier than the previous record's 102 ns"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected timestamps that never go back"));

    const char *far = tu_path("otf2-far");
    CU_ASSERT_EQUAL_FATAL(write_small_otf2(far, 2), 0);
    t = NULL;
    CU_ASSERT_EQUAL(ts_trace_open(far, &t, &err), TS_ECORRUPT);
    ts_trace_close(t);
    CU_ASSERT(tu_one_line(err.msg));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "traces/1.evt: rank 1, record 4: timestamp "
                                           "2000000000000000 is more than 1e6 s from the "
                                           "trace's start"));
}

/* The reader's rules on small archives (write_small_otf2's variants): a group member or a
 * root that is no rank of its communicator is refused; the trace lasts at least until its
 * last record whatever its clock properties say; a call that starts when the one before
 * ends has no compute gap before it (no empty compute event); measurement switched off
 * between calls closes nothing. Each rank of the plain archive: compute, Enter, barrier,
 * Leave, twice, 8 events. */
static void test_otf2_reader_rules(void)
{
    static const struct {
        int variant;
        ts_status st;
        const char *says;
        uint64_t nevents;
    } CASES[] = {
        {0, TS_OK, NULL, 16},
        {3, TS_ECORRUPT, "communicator 0 member 1 is not an MPI rank (expected a rank below 2)", 0},
        {4, TS_ECORRUPT, "peer 2 is outside communicator 0 of size 2", 0},
        {5, TS_OK, NULL, 16},
        {6, TS_OK, NULL, 14},
        {7, TS_OK, NULL, 16},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "otf2-variant-%d", CASES[i].variant);
        const char *dir = tu_path(name);
        CU_ASSERT_EQUAL_FATAL(write_small_otf2(dir, CASES[i].variant), 0);
        ts_trace_t *t = NULL;
        ts_error_t err;
        ts_error_clear(&err);
        CU_ASSERT_EQUAL(ts_trace_open(dir, &t, &err), CASES[i].st);
        if (CASES[i].says) {
            CU_ASSERT_PTR_NULL(t);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, CASES[i].says));
            if (!strstr(err.msg, CASES[i].says))
                printf("\n  variant %d: %s\n", CASES[i].variant, err.msg);
        } else if (t) {
            CU_ASSERT_EQUAL(ts_trace_nevents(t), CASES[i].nevents);
            /* the clock's length, SECOND_ENTER + 3 ns, or the last Leave where that is less */
            int64_t want = (int64_t)SECOND_ENTER + (CASES[i].variant == 5 ? 2 : 3);
            CU_ASSERT_EQUAL(ts_trace_duration_ns(t), want);
        }
        ts_trace_close(t);
    }
}

/* One event on rank r of t. */
static void put_ev(ts_trace_t *t, int32_t r, ts_event_t ev)
{
    CU_ASSERT_EQUAL_FATAL(ts_codec_put(&t->ranks[r].buf, &ev), TS_OK);
    t->ranks[r].nevents++;
}

/* A call of f on rank r holding one record. */
static void put_call(ts_trace_t *t, int32_t r, int32_t f, ts_event_t rec)
{
    put_ev(t, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f});
    put_ev(t, r, rec);
    put_ev(t, r, (ts_event_t){.kind = TS_EV_LEAVE});
}

/* The TI export of a hand-built 2-rank trace, line by line: an Alltoall of 16 B each way on
 * MPI_COMM_WORLD is 8 B per peer both ways (16 / 2, and 16 % 2 == 0: not in place); a barrier
 * on a communicator of both ranks in the other order is not WORLD (TI has only WORLD) and is
 * skipped; rank 1's Isend of 4 B, tag 5, to rank 0, which rank 0 receives with an Irecv, each
 * completed by a wait on (src, dst, tag). A second completion of a receive request posted
 * once has no post to wait for: refused. An export directory holds only ti.txt and
 * rank-N.txt files. */
static void test_ti_lines(void)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("ti-synthetic", TS_FORMAT_OTF2, 2, &t) == TS_OK);
    ts__trace_add_node(t, "n0");
    int32_t world = ts__trace_add_comm(t, "MPI_COMM_WORLD", 2, 0, (int32_t[2]){0, 1});
    int32_t other = ts__trace_add_comm(t, "swapped", 2, 0, (int32_t[2]){1, 0});
    int32_t fa = ts__trace_intern_func(t, "MPI_Alltoall"),
            fb = ts__trace_intern_func(t, "MPI_Barrier"),
            fi = ts__trace_intern_func(t, "MPI_Irecv"), fs = ts__trace_intern_func(t, "MPI_Isend"),
            fw = ts__trace_intern_func(t, "MPI_Wait");
    for (int32_t r = 0; r < 2; r++) {
        put_call(t, r, fa,
                 (ts_event_t){.kind = TS_EV_COLL,
                              .op = TS_COLL_ALLTOALL,
                              .comm = world,
                              .peer = TS_ROOT_NONE,
                              .bytes = 16,
                              .bytes2 = 16});
        put_call(
            t, r, fb,
            (ts_event_t){
                .kind = TS_EV_COLL, .op = TS_COLL_BARRIER, .comm = other, .peer = TS_ROOT_NONE});
    }
    put_call(t, 0, fi, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 3});
    put_call(t, 0, fw,
             (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 1, .tag = 5, .bytes = 4, .req = 3});
    put_call(t, 1, fs,
             (ts_event_t){.kind = TS_EV_ISEND, .peer = 0, .tag = 5, .bytes = 4, .req = 9});
    put_call(t, 1, fw, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 9});
    ts__trace_seal(t);
    const char *dir = tu_path("ti-lines");
    ts_ti_report_t rep;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_ti_write(t, dir, 1e9, &rep, &err), TS_OK);
    static const char *const want[2] = {
        "0 init\n0 alltoall 8 8\n0 irecv 1 5 4\n0 wait 1 0 5\n0 finalize\n",
        "1 init\n1 alltoall 8 8\n1 isend 0 5 4\n1 wait 1 0 5\n1 finalize\n"};
    for (int r = 0; r < 2; r++) {
        char name[64];
        snprintf(name, sizeof name, "ti-lines/rank-%d.txt", r);
        char *got = tu_read_file(tu_path(name), NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        if (strcmp(got, want[r]) != 0)
            printf("\n  rank %d: got\n%s", r, got);
        CU_ASSERT_STRING_EQUAL(got, want[r]);
        free(got);
    }
    CU_ASSERT_EQUAL(rep.lines, 10);
    CU_ASSERT_EQUAL(rep.skipped_subcomm, 2);
    /* The export is an earlier export: it may be replaced; with another file in it, not. */
    CU_ASSERT_EQUAL(ts_ti_check(dir, &err), TS_OK);
    const char *odd[] = {"ti-lines/rank-1.txt.bak", "ti-lines/rank-.txt"};
    for (int i = 0; i < 2; i++) {
        FILE *fp = fopen(tu_path(odd[i]), "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fclose(fp);
        CU_ASSERT_EQUAL(ts_ti_check(dir, &err), TS_EARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, strchr(odd[i], '/') + 1));
        CU_ASSERT_EQUAL(unlink(tu_path(odd[i])), 0);
    }
    ts_trace_close(t);

    CU_ASSERT_FATAL(ts__trace_new("twice", TS_FORMAT_OTF2, 2, &t) == TS_OK);
    ts__trace_add_node(t, "n0");
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 2, 0, (int32_t[2]){0, 1});
    fi = ts__trace_intern_func(t, "MPI_Irecv");
    fw = ts__trace_intern_func(t, "MPI_Wait");
    put_call(t, 0, fi, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 3});
    for (int k = 0; k < 2; k++)
        put_call(t, 0, fw,
                 (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 1, .tag = 5, .bytes = 4, .req = 3});
    ts__trace_seal(t);
    CU_ASSERT_EQUAL(ts_ti_write(t, tu_path("ti-twice"), 1e9, &rep, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "twice: rank 0: a receive completes request 3, which "
                                           "was never posted"));
    ts_trace_close(t);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("codec", NULL, NULL);
    CU_add_test(s, "status table", test_status_table);
    CU_add_test(s, "round trip of every kind", test_roundtrip);
    CU_add_test(s, "implied ENTER time", test_enter_after_compute_is_shorter);
    CU_add_test(s, "every truncation: exact events, then end or ECORRUPT", test_truncated);
    CU_add_test(s, "malformed bytes: exact events, then ECORRUPT", test_malformed);
    CU_add_test(s, "collective payload rule", test_coll_payload);
    CU_add_test(s, "TI export of a hand-built trace, line by line", test_ti_lines);
    CU_add_test(s, "OTF2 reader: members, roots, length, empty gaps, measurement off",
                test_otf2_reader_rules);
    CU_add_test(s, "receive look-ahead: kept, direct and reused requests", test_recv_ahead);
    CU_add_test(s, "receive look-ahead past a cursor's reach; peek and skip", test_recv_ahead_far);
    CU_add_test(s, "times that go back or beyond 1e6 s are refused", test_time_bounds);
    CU_add_test(s, "a store of ranks without events", test_store_without_events);
    CU_add_test(s, "issue 30 item 11: an OTF2 timestamp that goes back (or far) is refused",
                test_otf2_backwards_time);
    return tu_run_all();
}
