/* test_codec.c - the status table and the event-stream encoding: round trips of every event
 * kind, and rejection of truncated or malformed bytes. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "common/status.h"
#include "traces/codec.h"

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
    ev[n++] = (ts_event_t){.kind = TS_EV_ISEND, .peer = 7, .comm = 0, .tag = -5,
                           .bytes = 2048, .req = 10};
    ev[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = 1600};
    ev[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = 1, .time = 1590}; /* clock step back */
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 4};
    ev[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = 1700};
    ev[n++] = (ts_event_t){.kind = TS_EV_COMPUTE, .time = 0};
    ev[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = 65535, .time = 1700};
    ev[n++] = (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 2, .comm = 3, .tag = 99,
                           .bytes = UINT64_MAX, .req = 4};
    ev[n++] = (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 10};
    ev[n++] = (ts_event_t){.kind = TS_EV_CANCELLED, .req = 11};
    ev[n++] = (ts_event_t){.kind = TS_EV_REQ_TEST, .req = 12};
    ev[n++] = (ts_event_t){.kind = TS_EV_SEND, .peer = 0, .comm = 1, .tag = 0, .bytes = 0};
    ev[n++] = (ts_event_t){.kind = TS_EV_RECV, .peer = 1, .comm = 1, .tag = 1, .bytes = 8};
    ev[n++] = (ts_event_t){.kind = TS_EV_COLL, .op = TS_COLL_ALLREDUCE, .peer = TS_ROOT_NONE,
                           .comm = 0, .bytes = 576, .bytes2 = 576};
    ev[n++] = (ts_event_t){.kind = TS_EV_ICOLL_POST, .req = 13};
    ev[n++] = (ts_event_t){.kind = TS_EV_ICOLL_DONE, .op = TS_COLL_BCAST, .peer = 3, .comm = 2,
                           .bytes = 0, .bytes2 = 64, .req = 13};
    ev[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = INT64_MAX / 2};
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

static void test_truncated_and_garbage(void)
{
    ts_event_t in[32], out;
    int n = sample(in);
    ts_codec_buf_t b;
    ts_codec_buf_init(&b);
    for (int i = 0; i < n; i++)
        ts_codec_put(&b, &in[i]);
    /* Every proper prefix either decodes cleanly to its end or reports an error; it never
     * reads past the end (ASan checks that). */
    for (size_t cut = 0; cut < b.size; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, b.data, cut);
        ts_codec_reader_t r;
        ts_codec_reader_init(&r, copy, cut, 100, 10, 65536);
        int rc, count = 0;
        while ((rc = ts_codec_get(&r, &out)) == 1)
            count++;
        CU_ASSERT(rc == 0 || rc == TS_ECORRUPT);
        CU_ASSERT(count <= n);
        free(copy);
    }
    /* Hand-made bytes in the layout documented at the top of traces/codec.c. */
    const uint8_t bad_kind[] = {0x0e, 0x01};
    ts_codec_reader_t r;
    ts_codec_reader_init(&r, bad_kind, sizeof bad_kind, 100, 10, 65536);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    const uint8_t bad_flag[] = {0x40 | TS_EV_ENTER, 0x01}; /* implied time, no burst before */
    ts_codec_reader_init(&r, bad_flag, sizeof bad_flag, 100, 10, 65536);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    const uint8_t short_field[] = {TS_EV_COMPUTE | 3 << 4, 0x01, 0x02}; /* 8-byte field, 2 */
    ts_codec_reader_init(&r, short_field, sizeof short_field, 100, 10, 65536);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    const uint8_t bad_op[] = {TS_EV_COLL, 0, 200, 0, 0, 0, 0};
    ts_codec_reader_init(&r, bad_op, sizeof bad_op, 100, 10, 65536);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    /* Indices beyond the tables: peer 5 of 4 ranks, communicator 3 of 2, function 9 of 9
     * (peer, comm, root and tag are zigzag coded: 5 -> 10, 3 -> 6, -1 -> 1). */
    const uint8_t bad_peer[] = {TS_EV_SEND, 0, 10, 0, 0, 8};
    ts_codec_reader_init(&r, bad_peer, sizeof bad_peer, 4, 2, 9);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    const uint8_t bad_comm[] = {TS_EV_COLL, 0, TS_COLL_BARRIER, 6, 1, 0, 0};
    ts_codec_reader_init(&r, bad_comm, sizeof bad_comm, 4, 2, 9);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    const uint8_t bad_func[] = {TS_EV_ENTER, 9, 0};
    ts_codec_reader_init(&r, bad_func, sizeof bad_func, 4, 2, 9);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), TS_ECORRUPT);
    const uint8_t good_root_none[] = {TS_EV_COLL, 0, TS_COLL_BARRIER, 2, 1, 0, 0};
    ts_codec_reader_init(&r, good_root_none, sizeof good_root_none, 4, 2, 9);
    CU_ASSERT_EQUAL(ts_codec_get(&r, &out), 1);
    CU_ASSERT_EQUAL(out.comm, 1);
    CU_ASSERT_EQUAL(out.peer, TS_ROOT_NONE);
    ts_codec_buf_free(&b);
}

static void test_coll_payload(void)
{
    /* shared/reference/score-p-otf2-mpi.md, "Collective sizes per rank", N = 4, b = 8. */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 4, 0, 1, 32, 32), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLREDUCE, 4, 0, 1, 32, 24), 8); /* IN_PLACE */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_BCAST, 4, 1, 0, 32, 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_BCAST, 4, 0, 2, 0, 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_REDUCE, 4, 1, 0, 8, 32), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_GATHER, 4, 0, 3, 8, 0), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_SCATTER, 4, 0, 3, 0, 8), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_ALLTOALL, 4, 0, 3, 32, 32), 8);
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_SCAN, 4, 0, 1, 24, 16), 8); /* (N-me)*b, me = 1 */
    CU_ASSERT_EQUAL(ts_coll_payload(TS_COLL_BARRIER, 4, 0, 1, 0, 0), 0);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("codec", NULL, NULL);
    CU_add_test(s, "status table", test_status_table);
    CU_add_test(s, "round trip of every kind", test_roundtrip);
    CU_add_test(s, "implied ENTER time", test_enter_after_compute_is_shorter);
    CU_add_test(s, "truncated and malformed bytes", test_truncated_and_garbage);
    CU_add_test(s, "collective payload rule", test_coll_payload);
    return tu_run_all();
}
