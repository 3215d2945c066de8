/* test_denoise.c - the least compute of several recordings (traces/denoise.h): hand-built
 * one-rank recordings with hand-derived results, the errors, and the bundled trace against
 * itself through `tunesim convert --min-of`; and the imbalance measure that shows what noise
 * is left (ts_stats_imbalance, `tunesim info`), on a hand-built three-rank trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../traces/denoise.h"
#include "../traces/stats.h"
#include "../traces/store.h"
#include "../traces/trace_impl.h"
#include "testutil.h"

/* A recording of nranks ranks, each the same: gap k's compute events (up to 2, 0 = none)
 * then a call of funcs[k], inside it an MPI_Isend record of sent[k][i] bytes to rank 0 for
 * each nonzero one; after the last call, tail ns of compute. Functions are interned in
 * the order of order[] first, so that two recordings can number them differently. */
typedef struct spec_s {
    int ncalls;
    const char *funcs[4];
    int64_t gap[4][2];
    int64_t tail;
    const char *order[3];
    uint64_t sent[4][2];
} spec_t;

static ts_trace_t *build(const char *name, int32_t nranks, const spec_t *sp)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new(name, TS_FORMAT_OTF2, nranks, &t) == TS_OK);
    ts__trace_add_node(t, "node-a");
    int32_t world[4] = {0, 1, 2, 3};
    ts__trace_add_comm(t, "MPI_COMM_WORLD", nranks, 0, world);
    for (int i = 0; i < 3 && sp->order[i]; i++)
        ts__trace_intern_func(t, sp->order[i]);
    for (int32_t r = 0; r < nranks; r++) {
        ts_codec_buf_t *b = &t->ranks[r].buf;
        int64_t now = 0;
        for (int k = 0; k < sp->ncalls; k++) {
            for (int c = 0; c < 2; c++)
                if (sp->gap[k][c]) {
                    ts_event_t ev = {.kind = TS_EV_COMPUTE, .time = sp->gap[k][c]};
                    ts_codec_put(b, &ev);
                    t->ranks[r].nevents++;
                    now += sp->gap[k][c];
                }
            ts_event_t enter = {.kind = TS_EV_ENTER,
                                .func = (uint16_t)ts__trace_intern_func(t, sp->funcs[k]),
                                .time = now};
            ts_event_t leave = {.kind = TS_EV_LEAVE, .time = now += 10};
            ts_codec_put(b, &enter);
            for (int i = 0; i < 2; i++)
                if (sp->sent[k][i]) {
                    ts_event_t snd = {.kind = TS_EV_ISEND,
                                      .peer = 0,
                                      .tag = 7,
                                      .bytes = sp->sent[k][i],
                                      .req = (uint64_t)i + 1};
                    ts_codec_put(b, &snd);
                    t->ranks[r].nevents++;
                }
            ts_codec_put(b, &leave);
            t->ranks[r].nevents += 2;
        }
        if (sp->tail) {
            ts_event_t ev = {.kind = TS_EV_COMPUTE, .time = sp->tail};
            ts_codec_put(b, &ev);
            t->ranks[r].nevents++;
        }
    }
    ts__trace_seal(t);
    return t;
}

/* The compute durations of rank 0, in order. */
static int computes(const ts_trace_t *t, int64_t *out, int max)
{
    ts_cursor_t *c;
    ts_event_t ev;
    ts_error_t err;
    int n = 0;
    CU_ASSERT_FATAL(ts_cursor_open(t, 0, &c) == TS_OK);
    while (ts_cursor_next(c, &ev, &err) > 0)
        if (ev.kind == TS_EV_COMPUTE && n < max)
            out[n++] = ev.time;
    ts_cursor_close(c);
    return n;
}

static const spec_t BASE = {3,
                            {"MPI_Allreduce", "MPI_Waitall", "MPI_Allreduce"},
                            {{100, 0}, {50, 30}, {200, 0}},
                            40,
                            {"MPI_Allreduce", "MPI_Waitall", NULL},
                            {{0, 0}}};

static void test_least(void)
{
    /* A: 80, 100, 150, tail 10; B: 120, 60, 250, its functions numbered the other way. */
    spec_t a = {3,
                {"MPI_Allreduce", "MPI_Waitall", "MPI_Allreduce"},
                {{80, 0}, {100, 0}, {150, 0}},
                10,
                {"MPI_Allreduce", "MPI_Waitall", NULL},
                {{0, 0}}};
    spec_t b = a;
    b.gap[0][0] = 120;
    b.gap[1][0] = 60;
    b.gap[2][0] = 250;
    b.order[0] = "MPI_Waitall";
    b.order[1] = "MPI_Allreduce";
    ts_trace_t *base = build("base", 1, &BASE), *ta = build("a", 1, &a), *tb = build("b", 1, &b);
    const ts_trace_t *others[] = {ta, tb};
    ts_trace_t *out;
    ts_denoise_stats_t st;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_denoise(base, others, 2, &out, &st, &err) == TS_OK);
    /* gap 1: min(100, 80, 120) = 80 (A); gap 2: min(80, 100, 60) = 60 (B), its 50 and 30
     * scaled by 60/80 to 37 (37.5 down) and 22 (22.5 down) + 1 for the exact sum = 23;
     * gap 3: min(200, 150, 250) = 150 (A); the tail stays 40 (no call after it to match). */
    int64_t got[8];
    CU_ASSERT_EQUAL_FATAL(computes(out, got, 8), 5);
    CU_ASSERT_EQUAL(got[0], 80);
    CU_ASSERT_EQUAL(got[1], 37);
    CU_ASSERT_EQUAL(got[2], 23);
    CU_ASSERT_EQUAL(got[3], 150);
    CU_ASSERT_EQUAL(got[4], 40);
    CU_ASSERT_EQUAL(st.calls, 3);
    CU_ASSERT_EQUAL(st.matched[0], 3);
    CU_ASSERT_EQUAL(st.matched[1], 3);
    CU_ASSERT_EQUAL(st.lowered[0], 2);
    CU_ASSERT_EQUAL(st.lowered[1], 1);
    CU_ASSERT_EQUAL(st.diverged_rank[0], -1);
    CU_ASSERT_DOUBLE_EQUAL(st.compute_before, 420e-9, 1e-15); /* 100 + 80 + 200 + 40 */
    CU_ASSERT_DOUBLE_EQUAL(st.compute_after, 330e-9, 1e-15);  /* 80 + 60 + 150 + 40 */
    CU_ASSERT_EQUAL(ts_trace_nevents(out), ts_trace_nevents(base));
    /* Through a store and back: the same events. */
    char path[1024];
    snprintf(path, sizeof path, "%s/least.tss", tu_tmpdir());
    CU_ASSERT_FATAL(ts_store_write(out, path, &err) == TS_OK);
    ts_trace_t *back;
    CU_ASSERT_FATAL(ts_trace_open(path, &back, &err) == TS_OK);
    CU_ASSERT_TRUE(tu_traces_equal(out, back));
    ts_trace_close(back);
    ts_trace_close(out);

    /* A shorter recording (the first call only) helps where it reaches, then stops. */
    spec_t s = a;
    s.ncalls = 1;
    s.tail = 0;
    ts_trace_t *ts = build("short", 1, &s);
    others[0] = ts;
    CU_ASSERT_FATAL(ts_denoise(base, others, 2, &out, &st, &err) == TS_OK);
    CU_ASSERT_EQUAL(st.matched[0], 1);
    CU_ASSERT_EQUAL(st.diverged_rank[0], 0);
    CU_ASSERT_EQUAL(st.diverged_call[0], 1);
    CU_ASSERT_EQUAL(st.matched[1], 3);
    CU_ASSERT_EQUAL(computes(out, got, 8), 5);
    CU_ASSERT_EQUAL(got[0], 80);  /* the short one's */
    CU_ASSERT_EQUAL(got[3], 200); /* B's 250 is above the base's 200 */
    ts_trace_close(out);
    ts_trace_close(ts);
    ts_trace_close(ta);
    ts_trace_close(tb);
    ts_trace_close(base);
}

static void test_errors(void)
{
    ts_trace_t *base = build("base", 1, &BASE), *out = NULL;
    ts_denoise_stats_t st;
    ts_error_t err;
    /* Another call first: another run, one line naming both files and where. */
    spec_t c = BASE;
    c.funcs[0] = "MPI_Bcast";
    ts_trace_t *tc = build("other.tss", 1, &c);
    const ts_trace_t *others[] = {tc};
    CU_ASSERT_EQUAL(ts_denoise(base, others, 1, &out, &st, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "other.tss: matches 0 of the 3 calls of base"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rank 0 differs at its call 0"));
    CU_ASSERT_TRUE(tu_one_line(err.msg));
    /* Another rank count. */
    ts_trace_t *t2 = build("two.tss", 2, &BASE);
    others[0] = t2;
    CU_ASSERT_EQUAL(ts_denoise(base, others, 1, &out, &st, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "two.tss: 2 ranks, but base has 1"));
    CU_ASSERT_EQUAL(ts_denoise(base, others, 0, &out, &st, &err), TS_EARG);
    ts_trace_close(t2);
    ts_trace_close(tc);
    ts_trace_close(base);
}

/* What a call sends is part of the match: the same two sends in another order match; one 64
 * times larger is another run from the call after it on. */
static void test_records(void)
{
    spec_t sb = BASE;
    sb.funcs[1] = "MPI_Isend";
    sb.sent[1][0] = 2048;
    sb.sent[1][1] = 8;
    spec_t sa = sb, sl = sb;
    sa.sent[1][0] = 8; /* the two sends the other way round */
    sa.sent[1][1] = 2048;
    sa.gap[2][0] = 150;
    sl.sent[1][0] = 64 * 2048;
    sl.gap[2][0] = 150;
    ts_trace_t *base = build("base", 1, &sb), *ta = build("a", 1, &sa), *tl = build("l", 1, &sl);
    const ts_trace_t *others[] = {ta, tl};
    ts_trace_t *out;
    ts_denoise_stats_t st;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_denoise(base, others, 2, &out, &st, &err) == TS_OK);
    CU_ASSERT_EQUAL(st.matched[0], 3);
    CU_ASSERT_EQUAL(st.diverged_rank[0], -1);
    CU_ASSERT_EQUAL(st.matched[1], 2); /* calls 0 and 1; the gap before call 2 follows the
                                          call whose send differs */
    CU_ASSERT_EQUAL(st.diverged_rank[1], 0);
    CU_ASSERT_EQUAL(st.diverged_call[1], 2);
    int64_t got[8];
    CU_ASSERT_EQUAL_FATAL(computes(out, got, 8), 5); /* 100, 50, 30, 150, 40 */
    CU_ASSERT_EQUAL(got[3], 150); /* A's: it matched, and its 150 is below the base's 200 */
    CU_ASSERT_EQUAL(st.lowered[0], 1);
    CU_ASSERT_EQUAL(st.lowered[1], 0);
    ts_trace_close(out);
    ts_trace_close(tl);
    ts_trace_close(ta);
    ts_trace_close(base);
}

/* convert of the bundled trace with WORDS refused: exit code, one line holding needle, no
 * output file. */
static void expect_refused(const char *words, int code, const char *needle)
{
    char args[4096], out[1024], *o = NULL, *e = NULL;
    snprintf(out, sizeof out, "%s/pd-refused.tss", tu_tmpdir());
    snprintf(args, sizeof args, "convert %s -o %s %s", tu_bundled(), out, words);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), code);
    CU_ASSERT_TRUE(tu_one_line(e));
    CU_ASSERT_PTR_NOT_NULL(e && strstr(e, needle));
    CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
    free(o);
    free(e);
}

/* The bundled pitzDaily recording against a copy of itself: nothing lowered, the same
 * events; and the command's report. The same file given twice is refused (the least of one
 * recording is no least of two). */
static void test_cli(void)
{
    char args[4096], out[1024], copy[1024], *o = NULL, *e = NULL;
    snprintf(out, sizeof out, "%s/pd-min.tss", tu_tmpdir());
    snprintf(copy, sizeof copy, "%s/pd-copy", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_copy_dir(tu_bundled(), copy), 0); /* a file or an archive */
    snprintf(args, sizeof args, "convert %s -o %s --min-of %s", tu_bundled(), out, tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 2);
    CU_ASSERT_PTR_NOT_NULL(e && strstr(e, "is the same recording as TRACE"));
    free(o);
    free(e);
    snprintf(args, sizeof args, "convert %s -o %s --min-of %s", tu_bundled(), out, copy);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    unsigned long long matched = 0, calls = 1;
    const char *m = o ? strstr(o, "matched ") : NULL;
    CU_ASSERT_FATAL(m && sscanf(m, "matched %llu of %llu calls", &matched, &calls) == 2);
    CU_ASSERT_EQUAL(matched, calls); /* every call, rank 0's and rank 1's */
    CU_ASSERT_TRUE(calls > 4000);
    CU_ASSERT_PTR_NOT_NULL(o && strstr(o, ", the least in 0 gaps"));
    CU_ASSERT_PTR_NOT_NULL(o && strstr(o, "(0.0 % less)"));
    free(o);
    free(e);
    ts_trace_t *a, *b;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_trace_open(tu_bundled(), &a, &err) == TS_OK);
    CU_ASSERT_FATAL(ts_trace_open(out, &b, &err) == TS_OK);
    CU_ASSERT_TRUE(tu_traces_equal(a, b));
    ts_trace_close(a);
    ts_trace_close(b);
    /* A missing recording: one line naming it, no output file. */
    expect_refused("--min-of /nonexistent/x.tss", 1, "/nonexistent/x.tss");
}

/* convert --window: the store holds one iteration between the start-up and the end and
 * says so; a window outside the trace is a usage error in one line, with nothing written. */
static void test_cli_window(void)
{
    char args[4096], out[1024], *o = NULL, *e = NULL;
    snprintf(out, sizeof out, "%s/pd-w.tss", tu_tmpdir());
    snprintf(args, sizeof args, "convert %s -o %s --window 2:2", tu_bundled(), out);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    CU_ASSERT_PTR_NOT_NULL(o && strstr(o, "window: iterations 2:2"));
    CU_ASSERT_PTR_NOT_NULL(o && strstr(o, "27833 events of 2 ranks")); /* 662 + 27083 + 88 */
    free(o);
    free(e);
    snprintf(args, sizeof args, "info %s --window 1:1", out);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    free(o);
    free(e);
    expect_refused("--window 3:5", 2, "1 <= FIRST <= LAST <= 3");
}

/* One event on rank r of t. */
static void put1(ts_trace_t *t, int32_t r, ts_event_t ev)
{
    CU_ASSERT_EQUAL(ts_codec_put(&t->ranks[r].buf, &ev), TS_OK);
    t->ranks[r].nevents++;
}

/* One rank: ncalls calls of MPI_Allreduce, 100 ns of compute before each. */
static ts_trace_t *allreduces(const char *name, int ncalls)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new(name, TS_FORMAT_OTF2, 1, &t) == TS_OK);
    ts__trace_add_node(t, "node-a");
    int32_t world[1] = {0};
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 1, 0, world);
    uint16_t f = (uint16_t)ts__trace_intern_func(t, "MPI_Allreduce");
    for (int k = 0; k < ncalls; k++) {
        put1(t, 0, (ts_event_t){.kind = TS_EV_COMPUTE, .time = 100});
        put1(t, 0, (ts_event_t){.kind = TS_EV_ENTER, .func = f, .time = 110 * k + 100});
        put1(t, 0, (ts_event_t){.kind = TS_EV_LEAVE, .time = 110 * k + 110});
    }
    ts__trace_seal(t);
    return t;
}

/* The limits, at their edges: a recording that matches exactly a tenth of the base's calls
 * is taken (1 of 10: "less than a tenth" is refused), 1 of 11 is not; 16 other recordings
 * (TS_DENOISE_MAX) are taken, 17 are not. */
static void test_limits(void)
{
    ts_trace_t *ten = allreduces("ten", 10), *eleven = allreduces("eleven", 11),
               *one = allreduces("one.tss", 1), *out = NULL;
    ts_denoise_stats_t st;
    ts_error_t err;
    const ts_trace_t *others[TS_DENOISE_MAX + 1];
    others[0] = one;
    CU_ASSERT_EQUAL(ts_denoise(ten, others, 1, &out, &st, &err), TS_OK);
    CU_ASSERT_EQUAL(st.calls, 10);
    CU_ASSERT_EQUAL(st.matched[0], 1);
    ts_trace_close(out);
    out = NULL;
    CU_ASSERT_EQUAL(ts_denoise(eleven, others, 1, &out, &st, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "one.tss: matches 1 of the 11 calls of eleven"));
    for (int j = 0; j <= TS_DENOISE_MAX; j++)
        others[j] = ten;
    CU_ASSERT_EQUAL(ts_denoise(ten, others, TS_DENOISE_MAX, &out, &st, &err), TS_OK);
    CU_ASSERT_EQUAL(st.matched[TS_DENOISE_MAX - 1], 10);
    ts_trace_close(out);
    out = NULL;
    CU_ASSERT_EQUAL(ts_denoise(ten, others, TS_DENOISE_MAX + 1, &out, &st, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected 1 to 16 other recordings, got 17"));
    ts_trace_close(one);
    ts_trace_close(eleven);
    ts_trace_close(ten);
}

/* Three ranks: rank r computes gap[r][k] ns, then calls MPI_Allreduce on every rank's
 * communicator, for k < calls[r]; ranks 0 and 1 also make an MPI_Bcast on a communicator of
 * the two of them after their first gap (not a synchronisation of every rank); a tail of
 * compute after the last call belongs to no interval. */
static ts_trace_t *three_ranks(const int64_t gap[3][2], const int calls[3])
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("imbalance", TS_FORMAT_OTF2, 3, &t) == TS_OK);
    ts__trace_add_node(t, "node-a");
    int32_t world[3] = {0, 1, 2}, pair[2] = {0, 1};
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 3, 0, world);
    int32_t sub = ts__trace_add_comm(t, "pair", 2, 0, pair);
    uint16_t ar = (uint16_t)ts__trace_intern_func(t, "MPI_Allreduce");
    uint16_t bc = (uint16_t)ts__trace_intern_func(t, "MPI_Bcast");
    for (int32_t r = 0; r < 3; r++) {
        int64_t now = 0;
        for (int k = 0; k < calls[r]; k++) {
            put1(t, r, (ts_event_t){.kind = TS_EV_COMPUTE, .time = gap[r][k]});
            now += gap[r][k];
            if (k == 0 && r < 2) {
                put1(t, r, (ts_event_t){.kind = TS_EV_ENTER, .func = bc, .time = now});
                put1(
                    t, r,
                    (ts_event_t){.kind = TS_EV_COLL, .op = TS_COLL_BCAST, .comm = sub, .bytes = 8});
                put1(t, r, (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 5});
            }
            put1(t, r, (ts_event_t){.kind = TS_EV_ENTER, .func = ar, .time = now});
            put1(t, r,
                 (ts_event_t){.kind = TS_EV_COLL,
                              .op = TS_COLL_ALLREDUCE,
                              .peer = TS_ROOT_NONE,
                              .bytes = 24,
                              .bytes2 = 24});
            put1(t, r, (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 10});
        }
        put1(t, r, (ts_event_t){.kind = TS_EV_COMPUTE, .time = 999});
    }
    ts__trace_seal(t);
    return t;
}

/* Interval 0: 1000, 2000, 3000 ns (slowest 3000, mean 2000); interval 1: 3000, 1000, 2000
 * (3000, 2000): 6000 / 4000 = 1.5. Ranks' compute in their intervals 4000, 3000, 5000:
 * 5000 / 4000 = 1.25 (the tails of 999 ns and the pair's Bcast change neither). Rank 2 one
 * Allreduce short: not defined. */
/* Matching (ts_stats_match, what info and tunesim-play count): rank 0 sends two 8 B messages
 * on tag 0, which rank 1 receives once (one unmatched send; the bytes of unequal counts are
 * no byte mismatch), and one 16 B message on tag 1 that rank 1 receives as 8 B (counts equal,
 * bytes not: one byte mismatch). */
static void test_matching(void)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("matching", TS_FORMAT_OTF2, 2, &t) == TS_OK);
    ts__trace_add_node(t, "node-a");
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 2, 0, (int32_t[2]){0, 1});
    uint16_t fs = (uint16_t)ts__trace_intern_func(t, "MPI_Send");
    uint16_t fr = (uint16_t)ts__trace_intern_func(t, "MPI_Recv");
    const struct {
        int32_t rank, tag;
        uint64_t bytes;
        uint16_t f;
    } calls[] = {{0, 0, 8, fs}, {0, 0, 8, fs}, {0, 1, 16, fs}, {1, 0, 8, fr}, {1, 1, 8, fr}};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        put1(t, calls[i].rank, (ts_event_t){.kind = TS_EV_ENTER, .func = calls[i].f});
        put1(t, calls[i].rank,
             (ts_event_t){.kind = calls[i].f == fs ? TS_EV_SEND : TS_EV_RECV,
                          .peer = 1 - calls[i].rank,
                          .tag = calls[i].tag,
                          .bytes = calls[i].bytes});
        put1(t, calls[i].rank, (ts_event_t){.kind = TS_EV_LEAVE});
    }
    ts__trace_seal(t);
    ts_stats_t *s = NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_stats_compute(t, &s, &err), TS_OK);
    const ts_match_summary_t *m = ts_stats_match(s);
    CU_ASSERT_EQUAL(m->unmatched_sends, 1);
    CU_ASSERT_EQUAL(m->unmatched_recvs, 0);
    CU_ASSERT_EQUAL(m->byte_mismatches, 1);
    ts_stats_free(s);
    ts_trace_close(t);
}

static void test_imbalance(void)
{
    static const int64_t gap[3][2] = {{1000, 3000}, {2000, 1000}, {3000, 2000}};
    ts_error_t err;
    ts_stats_t *s;
    ts_trace_t *t = three_ranks(gap, (const int[3]){2, 2, 2});
    CU_ASSERT_EQUAL_FATAL(ts_stats_compute(t, &s, &err), TS_OK);
    const ts_imbalance_t *ib = ts_stats_imbalance(s);
    CU_ASSERT_EQUAL(ib->intervals, 2);
    CU_ASSERT_DOUBLE_EQUAL(ib->interval_ratio, 1.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ib->rank_ratio, 1.25, 1e-12);
    ts_stats_free(s);
    ts_trace_close(t);

    t = three_ranks(gap, (const int[3]){2, 2, 1});
    CU_ASSERT_EQUAL_FATAL(ts_stats_compute(t, &s, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_stats_imbalance(s)->intervals, 0);
    ts_stats_free(s);
    ts_trace_close(t);
}

/* One rank: calls A B A B ... (12), the gap before each given (two events where split[k]);
 * A's Isend of 8 bytes to rank 0 makes it a call of its own kind. */
static ts_trace_t *classes_trace(const int64_t gap[12], int split)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("classes", TS_FORMAT_OTF2, 1, &t) == TS_OK);
    ts__trace_add_node(t, "node-a");
    int32_t world[1] = {0};
    ts__trace_add_comm(t, "MPI_COMM_WORLD", 1, 0, world);
    uint16_t fa = (uint16_t)ts__trace_intern_func(t, "MPI_Isend");
    uint16_t fb = (uint16_t)ts__trace_intern_func(t, "MPI_Allreduce");
    int64_t now = 0;
    for (int k = 0; k < 12; k++) {
        if (gap[k] && k == split) { /* 60 % and 40 % of it */
            put1(t, 0, (ts_event_t){.kind = TS_EV_COMPUTE, .time = gap[k] * 6 / 10});
            put1(t, 0, (ts_event_t){.kind = TS_EV_COMPUTE, .time = gap[k] - gap[k] * 6 / 10});
        } else if (gap[k]) {
            put1(t, 0, (ts_event_t){.kind = TS_EV_COMPUTE, .time = gap[k]});
        }
        now += gap[k];
        put1(t, 0, (ts_event_t){.kind = TS_EV_ENTER, .func = k % 2 ? fb : fa, .time = now});
        if (k % 2 == 0)
            put1(t, 0, (ts_event_t){.kind = TS_EV_ISEND, .peer = 0, .tag = 1, .bytes = 8});
        else
            put1(
                t, 0,
                (ts_event_t){.kind = TS_EV_COLL, .op = TS_COLL_ALLREDUCE, .bytes = 8, .bytes2 = 8});
        put1(t, 0, (ts_event_t){.kind = TS_EV_LEAVE, .time = now += 10});
    }
    put1(t, 0, (ts_event_t){.kind = TS_EV_COMPUTE, .time = 777});
    ts__trace_seal(t);
    return t;
}

/* Gaps before B (after A): 10, 12, 100 (as 60 + 40), 11, 13, 14: six, median (12 + 13) / 2 =
 * 12 (integer ns), 100's events 7 and 5 (60 x 12 / 100 = 7.2 -> 7, the rest). Gaps before A
 * (after B): 20, 0, 22, 21, 500: four with compute, fewer than five: as recorded; with three
 * a class, their median (21 + 22) / 2 = 21, the empty one stays empty. The first gap and the
 * tail are classes of one. */
static void test_class_median(void)
{
    static const int64_t gap[12] = {5, 10, 20, 12, 0, 100, 22, 11, 21, 13, 500, 14};
    ts_trace_t *t = classes_trace(gap, 5), *w = NULL;
    ts_classes_stats_t cs;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_denoise_classes(t, 5, &w, &cs, &err), TS_OK);
    int64_t got[16];
    int n = computes(w, got, 16);
    const int64_t want5[] = {5, 12, 20, 12, 7, 5, 22, 12, 21, 12, 500, 12, 777};
    CU_ASSERT_EQUAL_FATAL(n, 13);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(got[i], want5[i]);
    CU_ASSERT_EQUAL(cs.gaps, 12); /* 11 gaps with compute and the tail */
    CU_ASSERT_EQUAL(cs.classes, 1);
    CU_ASSERT_EQUAL(cs.gaps_classed, 6);
    CU_ASSERT_DOUBLE_EQUAL(cs.compute_before, 1505e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(cs.compute_after, (5 + 6 * 12 + 20 + 22 + 21 + 500 + 777) * 1e-9, 1e-15);
    ts_trace_close(w);

    CU_ASSERT_EQUAL_FATAL(ts_denoise_classes(t, 3, &w, &cs, &err), TS_OK);
    n = computes(w, got, 16);
    const int64_t want3[] = {5, 12, 21, 12, 7, 5, 21, 12, 21, 12, 21, 12, 777};
    CU_ASSERT_EQUAL_FATAL(n, 13);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(got[i], want3[i]);
    CU_ASSERT_EQUAL(cs.classes, 2);
    ts_trace_close(w);
    /* At the edges: a class of exactly min_members gaps is one (A's four with compute at 4,
     * B's six at 6), one short of it is not (B's at 7). */
    CU_ASSERT_EQUAL_FATAL(ts_denoise_classes(t, 4, &w, &cs, &err), TS_OK);
    n = computes(w, got, 16);
    CU_ASSERT_EQUAL_FATAL(n, 13);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(got[i], want3[i]);
    CU_ASSERT_EQUAL(cs.classes, 2);
    CU_ASSERT_EQUAL(cs.gaps_classed, 10);
    ts_trace_close(w);
    CU_ASSERT_EQUAL_FATAL(ts_denoise_classes(t, 6, &w, &cs, &err), TS_OK);
    CU_ASSERT_EQUAL(cs.classes, 1);
    CU_ASSERT_EQUAL(cs.gaps_classed, 6);
    ts_trace_close(w);
    CU_ASSERT_EQUAL_FATAL(ts_denoise_classes(t, 7, &w, &cs, &err), TS_OK);
    CU_ASSERT_EQUAL(cs.classes, 0);
    CU_ASSERT_EQUAL(cs.gaps_classed, 0);
    ts_trace_close(w);
    CU_ASSERT_EQUAL(ts_denoise_classes(t, 0, &w, &cs, &err), TS_EARG);
    ts_trace_close(t);

    /* An even class whose middle two differ by 2: B's gaps 10, 11, 12, 14, 16, 100 take the
     * mean of the middle two, 13 (not 12, the lower one); the split gap 100 becomes 7 (60 %
     * of 13, rounded down) and 6 (the rest). */
    static const int64_t even[12] = {5, 10, 20, 12, 0, 100, 22, 11, 21, 16, 500, 14};
    t = classes_trace(even, 5);
    CU_ASSERT_EQUAL_FATAL(ts_denoise_classes(t, 5, &w, &cs, &err), TS_OK);
    n = computes(w, got, 16);
    const int64_t want_even[] = {5, 13, 20, 13, 7, 6, 22, 13, 21, 13, 500, 13, 777};
    CU_ASSERT_EQUAL_FATAL(n, 13);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(got[i], want_even[i]);
    ts_trace_close(w);
    ts_trace_close(t);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("denoise", NULL, NULL);
    CU_add_test(s, "the least gap of several recordings, hand-derived", test_least);
    CU_add_test(s, "other runs and rank counts refused", test_errors);
    CU_add_test(s, "a tenth of the calls, and 16 recordings, at the edges", test_limits);
    CU_add_test(s, "a call's records in the match", test_records);
    CU_add_test(s, "convert --min-of on the bundled trace", test_cli);
    CU_add_test(s, "convert --window: a shorter run, or one line", test_cli_window);
    CU_add_test(s, "imbalance between synchronisations, hand-derived", test_imbalance);
    CU_add_test(s, "unmatched messages and byte mismatches, hand-derived", test_matching);
    CU_add_test(s, "each burst the median of its class, hand-derived", test_class_median);
    return tu_run_all();
}
