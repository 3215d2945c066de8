/* test_iterations.c - iteration detection (traces/iterations) and window cuts
 * (traces/window) on the two bundled traces, with exact counts: 2-rank pitzDaily (3 SIMPLE
 * iterations) and the 72-rank motorBike window (start-up and 2 iterations). The counts were
 * read once from the traces and checked by hand against the call sequences: each iteration
 * starts at the collective after rank 0's loop-head scatter (pitzDaily collectives 688 and
 * 1351 of 1604 on every rank; motorBike 414 of 835). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "traces/iterations.h"
#include "traces/window.h"

static char mb_path[1024];

static const char *motorbike(void)
{
    snprintf(mb_path, sizeof mb_path, "%s/traces/data/motorbike-72-window.tss", TS_SOURCE_DIR);
    return mb_path;
}

static ts_iters_t *find(const char *path, ts_trace_t **t)
{
    ts_error_t err;
    ts_iters_t *it = NULL;
    CU_ASSERT_FATAL(ts_trace_open(path, t, &err) == TS_OK);
    ts_status st = ts_iters_find(*t, &it, &err);
    if (st != TS_OK)
        fprintf(stderr, "%s\n", err.msg);
    CU_ASSERT_FATAL(st == TS_OK);
    return it;
}

static void test_pitzdaily(void)
{
    ts_trace_t *t;
    ts_iters_t *it = find(tu_bundled(), &t);
    CU_ASSERT_EQUAL(ts_iters_count(it), 3);
    /* events, calls, collectives per rank, sends: summed over the 2 ranks */
    static const uint64_t want[3][4] = {
        {28070, 6624, 681, 1744}, {27083, 6357, 663, 1677}, {10899, 2559, 252, 685}};
    for (int32_t k = 1; k <= 3; k++) {
        const ts_iter_info_t *in = ts_iters_get(it, k);
        CU_ASSERT_EQUAL(in->index, k);
        CU_ASSERT_EQUAL(in->events, want[k - 1][0]);
        CU_ASSERT_EQUAL(in->calls, want[k - 1][1]);
        CU_ASSERT_EQUAL(in->collectives, want[k - 1][2]);
        CU_ASSERT_EQUAL(in->sends, want[k - 1][3]);
        CU_ASSERT_TRUE(in->clean);
    }
    /* Iterations follow each other without a gap, on every rank. */
    CU_ASSERT_EQUAL(ts_iters_first_event(it, 1, 0), 275);
    CU_ASSERT_EQUAL(ts_iters_last_event(it, 1, 0), 14237);
    CU_ASSERT_EQUAL(ts_iters_first_event(it, 2, 0), 14238);
    CU_ASSERT_EQUAL(ts_iters_last_event(it, 3, 0), 33225);
    for (int32_t r = 0; r < 2; r++)
        for (int32_t k = 1; k < 3; k++)
            CU_ASSERT_EQUAL(ts_iters_last_event(it, k, r) + 1, ts_iters_first_event(it, k + 1, r));
    CU_ASSERT_EQUAL(ts_iters_startup_events(it), 662);
    CU_ASSERT_EQUAL(ts_iters_tail_events(it), 88);
    CU_ASSERT_EQUAL(ts_iters_startup_events(it) + 28070 + 27083 + 10899 + ts_iters_tail_events(it),
                    ts_trace_nevents(t));
    /* The steady window: iterations 2-3 against their (lower) median, iteration 3's 10,899
     * events: iteration 2 is 2.5x that, so no two agree and the window is both. */
    int32_t a, b;
    double spread;
    ts_iters_steady(it, &a, &b, &spread);
    CU_ASSERT_EQUAL(a, 2);
    CU_ASSERT_EQUAL(b, 3);
    CU_ASSERT_DOUBLE_EQUAL(spread, 27083.0 / 10899.0 - 1, 1e-12);
    CU_ASSERT_TRUE(ts_iters_steady_all(it));
    CU_ASSERT_DOUBLE_EQUAL(ts_iters_get(it, 3)->rel, 10899.0 / 27083.0, 1e-12);
    ts_iters_free(it);
    ts_trace_close(t);
}

static void test_motorbike(void)
{
    ts_trace_t *t;
    ts_iters_t *it = find(motorbike(), &t);
    CU_ASSERT_EQUAL(ts_iters_count(it), 2);
    static const uint64_t want[2][4] = {{2850069, 592629, 559, 258303},
                                        {3521277, 732141, 695, 319023}};
    for (int32_t k = 1; k <= 2; k++) {
        const ts_iter_info_t *in = ts_iters_get(it, k);
        CU_ASSERT_EQUAL(in->events, want[k - 1][0]);
        CU_ASSERT_EQUAL(in->calls, want[k - 1][1]);
        CU_ASSERT_EQUAL(in->collectives, want[k - 1][2]);
        CU_ASSERT_EQUAL(in->sends, want[k - 1][3]);
        CU_ASSERT_TRUE(in->clean);
    }
    CU_ASSERT_EQUAL(ts_iters_first_event(it, 1, 0), 15917);
    CU_ASSERT_EQUAL(ts_iters_first_event(it, 2, 0), 44353);
    CU_ASSERT_EQUAL(ts_iters_last_event(it, 2, 0), 79427);
    CU_ASSERT_EQUAL(ts_iters_startup_events(it), 620668);
    CU_ASSERT_EQUAL(ts_iters_tail_events(it), 13058);
    int32_t a, b;
    ts_iters_steady(it, &a, &b, NULL);
    CU_ASSERT_EQUAL(a, 2);
    CU_ASSERT_EQUAL(b, 2);
    CU_ASSERT_FALSE(ts_iters_steady_all(it)); /* one iteration after the first: itself */
    ts_iters_free(it);
    ts_trace_close(t);
}

/* Event ia of rank r of a is event ib of rank r of b. */
static void expect_same_event(const ts_trace_t *a, uint64_t ia, const ts_trace_t *b, uint64_t ib,
                              int32_t r)
{
    const ts_trace_t *tr[2] = {a, b};
    uint64_t at[2] = {ia, ib};
    ts_event_t ev[2];
    ts_error_t err;
    for (int k = 0; k < 2; k++) {
        ts_cursor_t *c;
        CU_ASSERT_FATAL(ts_cursor_open(tr[k], r, &c) == TS_OK);
        for (uint64_t i = 0; i <= at[k]; i++)
            CU_ASSERT_EQUAL(ts_cursor_next(c, &ev[k], &err), 1);
        ts_cursor_close(c);
    }
    CU_ASSERT_EQUAL(memcmp(&ev[0], &ev[1], sizeof ev[0]), 0);
}

/* A cut holds exactly the iterations' events; a cut has no MPI_Finalize, so it has no
 * complete iteration of its own: that is an error naming the trace. */
static void test_window_cut(void)
{
    ts_trace_t *t, *w;
    ts_error_t err;
    ts_iters_t *it = find(tu_bundled(), &t);
    CU_ASSERT_FATAL(ts_window_open(t, it, 2, 3, &w, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_trace_nevents(w), 27083 + 10899);
    CU_ASSERT_EQUAL(ts_trace_nranks(w), 2);
    CU_ASSERT_EQUAL(ts_trace_rank_nevents(w, 0),
                    ts_iters_last_event(it, 3, 0) - ts_iters_first_event(it, 2, 0) + 1);
    /* The first event of the cut is the first of iteration 2 on that rank. */
    expect_same_event(t, ts_iters_first_event(it, 2, 1), w, 0, 1);

    ts_iters_t *none = NULL;
    CU_ASSERT_EQUAL(ts_iters_find(w, &none, &err), TS_ENOITER);
    CU_ASSERT_PTR_NULL(none);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no complete iteration"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "MPI_Finalize"));
    CU_ASSERT_TRUE(tu_one_line(err.msg));
    ts_trace_close(w);

    CU_ASSERT_EQUAL(ts_window_open(t, it, 3, 4, &w, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "outside the trace's iterations 1:3"));
    ts_iters_free(it);
    ts_trace_close(t);
}

/* A splice keeps the start-up and the end around the chosen iterations: a whole run of fewer
 * iterations, whose iterations are found again with the same counts (convert --window). */
static void test_window_splice(void)
{
    ts_trace_t *t, *w;
    ts_error_t err;
    ts_iters_t *it = find(tu_bundled(), &t);
    CU_ASSERT_FATAL(ts_window_splice(t, it, 2, 2, &w, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_trace_nevents(w), 662 + 27083 + 88);
    ts_iters_t *again = NULL;
    CU_ASSERT_FATAL(ts_iters_find(w, &again, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_iters_count(again), 1);
    CU_ASSERT_EQUAL(ts_iters_get(again, 1)->events, 27083);
    CU_ASSERT_EQUAL(ts_iters_get(again, 1)->calls, ts_iters_get(it, 2)->calls);
    CU_ASSERT_EQUAL(ts_iters_get(again, 1)->sends, ts_iters_get(it, 2)->sends);
    CU_ASSERT_EQUAL(ts_iters_startup_events(again), 662);
    CU_ASSERT_EQUAL(ts_iters_tail_events(again), 88);
    /* On rank 1 the event after the start-up is iteration 2's first, and the end follows
     * iteration 2's last. */
    expect_same_event(t, ts_iters_first_event(it, 2, 1), w, ts_iters_first_event(again, 1, 1), 1);
    expect_same_event(t, ts_iters_last_event(it, 3, 1) + 1, w, ts_iters_last_event(again, 1, 1) + 1,
                      1);
    ts_iters_free(again);
    ts_trace_close(w);
    CU_ASSERT_EQUAL(ts_window_splice(t, it, 2, 4, &w, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "outside the trace's iterations 1:3"));
    ts_iters_free(it);
    ts_trace_close(t);
}

static void test_parse_window(void)
{
    int32_t a = 0, b = 0;
    CU_ASSERT_EQUAL(ts_iters_parse_window("2:3", 3, &a, &b), 0);
    CU_ASSERT_EQUAL(a, 2);
    CU_ASSERT_EQUAL(b, 3);
    CU_ASSERT_EQUAL(ts_iters_parse_window("2", 3, &a, &b), 0);
    CU_ASSERT_EQUAL(a, 2);
    CU_ASSERT_EQUAL(b, 2);
    const char *bad[] = {"",     ":",  "3:2", "0:1",   "1:4",           "a:b", "1:2x",
                         "-1:2", "1:", ":2",  "1:2:3", "99999999999:1", " 1:2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(ts_iters_parse_window(bad[i], 3, &a, &b), -1);
}

int main(void)
{
    if (access(motorbike(), R_OK) != 0 || access(tu_bundled(), R_OK) != 0) {
        printf("test_iterations: skipped: %s or %s is missing\n", motorbike(), tu_bundled());
        return TS_TEST_SKIP;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("iterations", NULL, NULL);
    CU_add_test(s, "pitzDaily: 3 iterations, exact counts", test_pitzdaily);
    CU_add_test(s, "motorBike 72-rank window: 2 iterations, exact counts", test_motorbike);
    CU_add_test(s, "a splice keeps the start-up and the end", test_window_splice);
    CU_add_test(s, "window cut and the no-iteration error", test_window_cut);
    CU_add_test(s, "FIRST:LAST parsing", test_parse_window);
    return tu_run_all();
}
