/* test_store.c - the binary trace store on a synthetic trace (no shared/ needed): round trip,
 * byte-identical rewrites, atomic output, and clear errors on damaged files; plus the
 * fuzzer's corpus as a regression test. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lz4.h>

#include "testutil.h"
#include "traces/store.h"
#include "traces/trace_impl.h"

/* Three ranks on two nodes exchanging a ring of Isend/Irecv/Waitall and an Allreduce on a
 * sub-communicator, 200 iterations. */
static ts_trace_t *synthetic(void)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("synthetic", TS_FORMAT_OTF2, 3, &t) == TS_OK);
    ts__trace_add_node(t, "node-a");
    ts__trace_add_node(t, "node-b");
    t->ranks[0].node = 0;
    t->ranks[1].node = 0;
    t->ranks[2].node = 1;
    const int32_t world[] = {0, 1, 2}, sub[] = {0, 2};
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 3, 0, world);
    ts__trace_add_comm(t, "sub", 2, 0, sub);
    ts__trace_add_comm(t, "MPI_COMM_SELF", 1, 1, NULL);
    int32_t isend = ts__trace_intern_func(t, "MPI_Isend");
    int32_t irecv = ts__trace_intern_func(t, "MPI_Irecv");
    int32_t waitall = ts__trace_intern_func(t, "MPI_Waitall");
    int32_t allred = ts__trace_intern_func(t, "MPI_Allreduce");
    for (int32_t r = 0; r < 3; r++) {
        ts_codec_buf_t *b = &t->ranks[r].buf;
        int64_t now = 1000 * r;
        uint64_t req = 1;
        for (int it = 0; it < 200; it++) {
            ts_event_t evs[16];
            int n = 0;
            int32_t right = (r + 1) % 3, left = (r + 2) % 3;
            evs[n++] = (ts_event_t){.kind = TS_EV_COMPUTE, .time = 5000 + it};
            now += 5000 + it;
            evs[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)irecv, .time = now};
            evs[n++] = (ts_event_t){.kind = TS_EV_IRECV_POST, .req = req};
            evs[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 100};
            evs[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)isend, .time = now};
            evs[n++] = (ts_event_t){.kind = TS_EV_ISEND,
                                    .peer = right,
                                    .comm = 0,
                                    .tag = it,
                                    .bytes = 2048,
                                    .req = req + 1};
            evs[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 200};
            evs[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)waitall, .time = now};
            evs[n++] = (ts_event_t){.kind = TS_EV_IRECV_DONE,
                                    .peer = left,
                                    .comm = 0,
                                    .tag = it,
                                    .bytes = 2048,
                                    .req = req};
            evs[n++] = (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = req + 1};
            evs[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 3000};
            req += 2;
            if (r != 1) {
                evs[n++] = (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)allred, .time = now};
                evs[n++] = (ts_event_t){.kind = TS_EV_COLL,
                                        .op = TS_COLL_ALLREDUCE,
                                        .comm = 1,
                                        .peer = TS_ROOT_NONE,
                                        .bytes = 16,
                                        .bytes2 = 16};
                evs[n++] = (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 700};
            }
            for (int i = 0; i < n; i++) {
                CU_ASSERT_FATAL(ts_codec_put(b, &evs[i]) == TS_OK);
                t->ranks[r].nevents++;
            }
        }
        if (now > t->duration_ns)
            t->duration_ns = now;
    }
    t->timer_resolution = 2095197216;
    ts__trace_seal(t);
    return t;
}

static void test_roundtrip_and_determinism(void)
{
    ts_trace_t *t = synthetic();
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a.tss", tu_tmpdir());
    snprintf(b, sizeof b, "%s/b.tss", tu_tmpdir());
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_store_write(t, a, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_store_write(t, b, &err), TS_OK);
    size_t na, nb;
    char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
    CU_ASSERT_FATAL(da && db);
    CU_ASSERT_EQUAL(na, nb);
    CU_ASSERT_EQUAL(memcmp(da, db, na), 0); /* same trace, same bytes */
    ts_trace_t *back;
    CU_ASSERT_EQUAL_FATAL(ts_trace_open(a, &back, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_trace_format_of(back), TS_FORMAT_STORE);
    CU_ASSERT(tu_traces_equal(t, back));
    CU_ASSERT_EQUAL(ts_trace_nevents(back), 3 * 200 * 11 + 2 * 200 * 3);
    CU_ASSERT_EQUAL(ts_trace_comm(back, 2)->is_self, 1);
    CU_ASSERT_EQUAL(ts_trace_comm(back, 1)->members[1], 2);
    /* No temporary file is left beside the output. */
    DIR *d = opendir(tu_tmpdir());
    struct dirent *de;
    int leftovers = 0;
    while ((de = readdir(d)))
        leftovers += strstr(de->d_name, ".tmp.") != NULL;
    closedir(d);
    CU_ASSERT_EQUAL(leftovers, 0);
    ts_trace_close(back);
    ts_trace_close(t);
    free(da);
    free(db);
}

/* Every damaged variant of a valid store must fail with a one-line error naming the file. */
static void expect_error(const uint8_t *data, size_t size, ts_status want)
{
    ts_trace_t *t = NULL;
    ts_error_t err;
    ts_error_clear(&err);
    ts_status st = ts_store_parse(data, size, "damaged.tss", &t, &err);
    CU_ASSERT_EQUAL(st, want);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT(strncmp(err.msg, "damaged.tss: ", 13) == 0);
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    if (st != want)
        printf("\n  got %s: %s\n", ts_status_name(st), err.msg);
    ts_trace_close(t);
}

static void test_damaged(void)
{
    ts_trace_t *t = synthetic();
    char path[512];
    snprintf(path, sizeof path, "%s/good.tss", tu_tmpdir());
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_store_write(t, path, &err), TS_OK);
    ts_trace_close(t);
    size_t n;
    uint8_t *good = (uint8_t *)tu_read_file(path, &n);
    uint8_t *buf = malloc(n);

    expect_error(good, 10, TS_ENOTTRACE); /* too short for the magic */
    expect_error(good, 30, TS_ETRUNC);    /* header cut */
    expect_error(good, n - 1, TS_ETRUNC); /* event chunks cut */
    expect_error(good, 60, TS_ETRUNC);    /* head cut */
    /* A bit flipped in an event chunk: the store opens (chunks are read lazily), and the
     * cursor that reaches the chunk reports it, naming the rank and the chunk. */
    memcpy(buf, good, n);
    buf[n - 100] ^= 0x40;
    ts_trace_t *t2 = NULL;
    ts_error_t err2;
    CU_ASSERT_EQUAL_FATAL(ts_store_parse(buf, n, "damaged.tss", &t2, &err2), TS_OK);
    int bad = 0;
    for (int32_t r = 0; r < ts_trace_nranks(t2); r++) {
        ts_cursor_t *c;
        ts_event_t ev;
        int rc;
        ts_cursor_open(t2, r, &c);
        while ((rc = ts_cursor_next(c, &ev, &err2)) == 1)
            ;
        if (rc < 0) {
            bad++;
            CU_ASSERT_EQUAL(rc, TS_ECORRUPT);
            CU_ASSERT_PTR_NOT_NULL(strstr(err2.msg, "damaged.tss: rank "));
            CU_ASSERT_PTR_NOT_NULL(strstr(err2.msg, "chunk"));
        }
        ts_cursor_close(c);
    }
    CU_ASSERT_EQUAL(bad, 1);
    ts_trace_close(t2);
    memcpy(buf, good, n);
    buf[17] ^= 0x01; /* header bit flip (version field) */
    expect_error(buf, n, TS_ECORRUPT);
    memcpy(buf, good, n);
    buf[0] = 'X'; /* foreign file */
    expect_error(buf, n, TS_ENOTTRACE);
    free(buf);
    free(good);
}

/* A head that breaks the store's rules, written with valid checksums (the writer copies the
 * communicators the trace in memory holds): a member that is no rank (3 of 3 ranks), an
 * is_self flag beyond 1. Each is refused as a malformed store, not opened. */
static void test_head_rules(void)
{
    for (int k = 0; k < 2; k++) {
        ts_trace_t *t = synthetic();
        if (k == 0)
            t->comms[1].members_owned[1] = 3; /* "sub" was {0, 2} */
        else
            t->comms[2].info.is_self = 2; /* MPI_COMM_SELF */
        const char *path = tu_path("rules.tss");
        ts_error_t err;
        CU_ASSERT_EQUAL_FATAL(ts_store_write(t, path, &err), TS_OK);
        ts_trace_close(t);
        t = NULL;
        CU_ASSERT_EQUAL(ts_trace_open(path, &t, &err), TS_ECORRUPT);
        CU_ASSERT_PTR_NULL(t);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rules.tss: corrupt store: malformed"));
        ts_trace_close(t);
    }
    /* A rank that claims more events than its chunks have bytes (every event takes at least
     * one), which no writer makes: a store of 3 ranks without events, its head decompressed,
     * rank 0's count of events set to 5 (the chunk tables end the head: for each rank its
     * events, then its chunks, one LEB128 byte each, 0 here). The head as written parses. */
    ts_trace_t *e;
    CU_ASSERT_FATAL(ts__trace_new("empty", TS_FORMAT_OTF2, 3, &e) == TS_OK);
    ts__trace_add_node(e, "node-a");
    ts__trace_add_comm(e, "MPI_COMM_WORLD", 3, 0, (const int32_t[]){0, 1, 2});
    ts__trace_seal(e);
    const char *path = tu_path("empty.tss");
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_store_write(e, path, &err), TS_OK);
    ts_trace_close(e);
    size_t n;
    uint8_t *file = (uint8_t *)tu_read_file(path, &n);
    CU_ASSERT_FATAL(file && n >= 48);
    uint64_t zlen = 0, rawsize = 0; /* little-endian at 24 and 32 of the 48-byte header */
    for (int i = 7; i >= 0; i--) {
        zlen = zlen << 8 | file[24 + i];
        rawsize = rawsize << 8 | file[32 + i];
    }
    CU_ASSERT_FATAL(rawsize >= 6 && rawsize < 4096 && 48 + zlen <= n);
    uint8_t body[4096];
    CU_ASSERT_EQUAL_FATAL(
        LZ4_decompress_safe((const char *)file + 48, (char *)body, (int)zlen, (int)rawsize),
        (int)rawsize);
    free(file);
    for (size_t i = rawsize - 6; i < rawsize; i++)
        CU_ASSERT_EQUAL(body[i], 0);
    e = NULL;
    CU_ASSERT_EQUAL(ts_store_parse_body(body, rawsize, "body", &e, &err), TS_OK);
    ts_trace_close(e);
    e = NULL;
    body[rawsize - 6] = 5;
    CU_ASSERT_EQUAL(ts_store_parse_body(body, rawsize, "body", &e, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "body: corrupt store: malformed chunk tables"));
    ts_trace_close(e);
}

/* The fuzzer's corpus (tests/fuzz/corpus), fed through the fuzz target itself: every input
 * must be handled without a crash or a sanitizer report; this keeps what fuzzing found as
 * a regression test. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void test_fuzz_corpus(void)
{
    DIR *d = opendir(TS_FUZZ_CORPUS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", TS_FUZZ_CORPUS, de->d_name);
        size_t n;
        uint8_t *data = (uint8_t *)tu_read_file(p, &n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        CU_ASSERT_EQUAL(LLVMFuzzerTestOneInput(data, n), 0);
        free(data);
        files++;
    }
    closedir(d);
    CU_ASSERT(files >= 1);
    printf("(%d corpus inputs) ", files);
}

/* The fuzzer's seeds are real stores (recorded with the tracer): they must open and decode. */
static void test_fuzz_seeds(void)
{
    const char *seeds[] = {"ring-2.tss", "collectives-3.tss"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/../seeds/%s", TS_FUZZ_CORPUS, seeds[i]);
        ts_trace_t *t = NULL;
        ts_error_t err;
        CU_ASSERT_EQUAL_FATAL(ts_trace_open(p, &t, &err), TS_OK);
        CU_ASSERT(ts_trace_nevents(t) > 100);
        ts_trace_close(t);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("store", NULL, NULL);
    CU_add_test(s, "round trip and byte-identical rewrite", test_roundtrip_and_determinism);
    CU_add_test(s, "damaged stores are refused", test_damaged);
    CU_add_test(s, "a head against the rules is refused", test_head_rules);
    CU_add_test(s, "fuzz corpus regression", test_fuzz_corpus);
    CU_add_test(s, "fuzz seeds are valid stores", test_fuzz_seeds);
    return tu_run_all();
}
