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
#include "traces/codec.h"
#include "traces/iterations.h"
#include "traces/trace_impl.h"
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
    /* rel against the lower middle of the two, iteration 1's 2,850,069 events: 1 for itself,
     * 3,521,277 / 2,850,069 for iteration 2 (the upper middle would make that 1). */
    CU_ASSERT_DOUBLE_EQUAL(ts_iters_get(it, 1)->rel, 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_iters_get(it, 2)->rel, 3521277.0 / 2850069.0, 1e-12);
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
    w = NULL; /* FIRST after LAST: refused too, not an empty window */
    CU_ASSERT_EQUAL(ts_window_cut(t, it, 3, 2, &w, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(w);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "window 3:2 outside the trace's iterations 1:3"));
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

/* A synthetic two-rank run: a start-up Allreduce of 16 B, four iterations of an MPI_Bcast
 * from rank 0 (the loop head) and an Allreduce of 8 B, then MPI_Finalize's barrier. What
 * crosses a boundary: a request open across the one after iteration open_at (rank 1's Irecv,
 * which rank 0's message matches in the next iteration: each iteration's sends and receives
 * balance), or a message sent in iteration split_at and received in the next (rank 0's Isend
 * completes at once; rank 1 posts and waits after the boundary). 0: none. */
typedef struct syn_s {
    ts_trace_t *t;
    int32_t f_bcast, f_allreduce, f_finalize, f_isend, f_irecv, f_wait;
} syn_t;

static void syn_put(syn_t *s, int32_t r, ts_event_t ev)
{
    CU_ASSERT_FATAL(ts_codec_put(&s->t->ranks[r].buf, &ev) == TS_OK);
    s->t->ranks[r].nevents++;
}

static void syn_call(syn_t *s, int32_t r, int32_t f, ts_event_t rec)
{
    syn_put(s, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f});
    syn_put(s, r, rec);
    syn_put(s, r, (ts_event_t){.kind = TS_EV_LEAVE});
}

static void syn_coll(syn_t *s, int32_t f, int op, int32_t root, uint64_t bytes)
{
    for (int32_t r = 0; r < 2; r++)
        syn_call(s, r, f,
                 (ts_event_t){.kind = TS_EV_COLL,
                              .op = (uint8_t)op,
                              .peer = root,
                              .bytes = bytes,
                              .bytes2 = bytes});
}

/* A two-rank trace called name on one node with MPI_COMM_WORLD, and the functions of s. */
static syn_t syn_new(const char *name)
{
    syn_t s;
    CU_ASSERT_FATAL(ts__trace_new(name, TS_FORMAT_OTF2, 2, &s.t) == TS_OK);
    ts__trace_add_node(s.t, "n0");
    ts__trace_add_comm(s.t, "MPI_COMM_WORLD", 2, 0, (int32_t[2]){0, 1});
    s.f_bcast = ts__trace_intern_func(s.t, "MPI_Bcast");
    s.f_allreduce = ts__trace_intern_func(s.t, "MPI_Allreduce");
    s.f_finalize = ts__trace_intern_func(s.t, "MPI_Finalize");
    s.f_isend = ts__trace_intern_func(s.t, "MPI_Isend");
    s.f_irecv = ts__trace_intern_func(s.t, "MPI_Irecv");
    s.f_wait = ts__trace_intern_func(s.t, "MPI_Wait");
    return s;
}

static ts_trace_t *synthetic_run(int open_at, int split_at)
{
    syn_t s = syn_new("synthetic");
    const ts_event_t isend = {.kind = TS_EV_ISEND, .peer = 1, .tag = 1, .bytes = 8, .req = 5},
                     sdone = {.kind = TS_EV_ISEND_DONE, .req = 5},
                     post = {.kind = TS_EV_IRECV_POST, .req = 6},
                     rdone = {.kind = TS_EV_IRECV_DONE, .peer = 0, .tag = 1, .bytes = 8, .req = 6};
    syn_coll(&s, s.f_allreduce, TS_COLL_ALLREDUCE, TS_ROOT_NONE, 16);
    for (int k = 1; k <= 4; k++) {
        syn_coll(&s, s.f_bcast, TS_COLL_BCAST, 0, 8);
        /* the receive posted in iteration open_at is matched here */
        if (open_at && k == open_at + 1) {
            syn_call(&s, 0, s.f_isend, isend);
            syn_call(&s, 0, s.f_wait, sdone);
            syn_call(&s, 1, s.f_wait, rdone);
        }
        /* the message sent in iteration split_at arrives here */
        if (split_at && k == split_at + 1) {
            syn_call(&s, 1, s.f_irecv, post);
            syn_call(&s, 1, s.f_wait, rdone);
        }
        if (k == open_at)
            syn_call(&s, 1, s.f_irecv, post);
        if (k == split_at) {
            syn_call(&s, 0, s.f_isend, isend);
            syn_call(&s, 0, s.f_wait, sdone);
        }
        syn_coll(&s, s.f_allreduce, TS_COLL_ALLREDUCE, TS_ROOT_NONE, 8);
    }
    syn_coll(&s, s.f_finalize, TS_COLL_BARRIER, TS_ROOT_NONE, 0);
    ts__trace_seal(s.t);
    return s.t;
}

/* Another synthetic two-rank run, every call one collective but MPI_Finalize's: a start-up
 * Allreduce of 16 B, nsteps iterations of a Bcast from rank 0 and an Allreduce of 8 B
 * (iteration long_at has three more Allreduces), then MPI_Finalize holding fin_colls
 * barriers (the barriers an MPI_Finalize makes inside, recorded as part of its call). Each
 * collective call is 3 events, so an iteration of c collectives is 3c events per rank. */
static ts_trace_t *synthetic_steps(int nsteps, int long_at, int fin_colls)
{
    syn_t s = syn_new("steps");
    syn_coll(&s, s.f_allreduce, TS_COLL_ALLREDUCE, TS_ROOT_NONE, 16);
    for (int k = 1; k <= nsteps; k++) {
        syn_coll(&s, s.f_bcast, TS_COLL_BCAST, 0, 8);
        for (int j = 0; j < (k == long_at ? 4 : 1); j++)
            syn_coll(&s, s.f_allreduce, TS_COLL_ALLREDUCE, TS_ROOT_NONE, 8);
    }
    for (int32_t r = 0; r < 2; r++) {
        syn_put(&s, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)s.f_finalize});
        for (int c = 0; c < fin_colls; c++)
            syn_put(&s, r,
                    (ts_event_t){.kind = TS_EV_COLL, .op = TS_COLL_BARRIER, .peer = TS_ROOT_NONE});
        syn_put(&s, r, (ts_event_t){.kind = TS_EV_LEAVE});
    }
    ts__trace_seal(s.t);
    return s.t;
}

/* Six iterations of 2 collectives (12 events over both ranks) but the 4th, of 5 (30): the
 * median of 2-6 is 12, so 2-3 and 5-6 are runs of two within the spread, a tie, and the
 * later run is the steady window. Two barriers in MPI_Finalize: the last iteration ends
 * before the first of them (2 collectives, 12 events), and the tail is MPI_Finalize's 4
 * events on each rank. */
static void test_steady_tie_and_finalize(void)
{
    ts_error_t err;
    ts_iters_t *it = NULL;
    ts_trace_t *t = synthetic_steps(6, 4, 1);
    CU_ASSERT_EQUAL_FATAL(ts_iters_find(t, &it, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_iters_count(it), 6);
    CU_ASSERT_EQUAL(ts_iters_get(it, 4)->events, 30);
    CU_ASSERT_EQUAL(ts_iters_get(it, 5)->events, 12);
    int32_t a, b;
    double spread;
    ts_iters_steady(it, &a, &b, &spread);
    CU_ASSERT_EQUAL(a, 5);
    CU_ASSERT_EQUAL(b, 6);
    CU_ASSERT_DOUBLE_EQUAL(spread, 0.0, 0.0);
    CU_ASSERT_FALSE(ts_iters_steady_all(it));
    ts_iters_free(it);
    ts_trace_close(t);

    it = NULL;
    t = synthetic_steps(4, 0, 2);
    CU_ASSERT_EQUAL_FATAL(ts_iters_find(t, &it, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_iters_count(it), 4);
    CU_ASSERT_EQUAL(ts_iters_get(it, 4)->collectives, 2);
    CU_ASSERT_EQUAL(ts_iters_get(it, 4)->events, 12);
    CU_ASSERT_EQUAL(ts_iters_tail_events(it), 8);
    ts_iters_free(it);
    ts_trace_close(t);
}

/* The run of test_head_inside_call: a start-up Allreduce (events 0-2 of each rank),
 * iterations of a Bcast from rank 0 (the loop head) and an Allreduce (6 events), but in
 * iteration 3 the ranks of joint (bit r: rank r) record its Allreduce and Bcast in one
 * MPI_Comm_split call (4 events; with nested, 6: an MPI_Comm_rank entered and left between
 * the two), the others in two calls (6 events). */
static ts_trace_t *head_in_call(int joint, int nested)
{
    syn_t s = syn_new("two-in-one");
    int32_t f_split = ts__trace_intern_func(s.t, "MPI_Comm_split"),
            f_rank = ts__trace_intern_func(s.t, "MPI_Comm_rank");
    const ts_event_t ar = {.kind = TS_EV_COLL,
                           .op = TS_COLL_ALLREDUCE,
                           .peer = TS_ROOT_NONE,
                           .bytes = 8,
                           .bytes2 = 8},
                     bc = {.kind = TS_EV_COLL,
                           .op = TS_COLL_BCAST,
                           .peer = 0,
                           .bytes = 8,
                           .bytes2 = 8};
    syn_coll(&s, s.f_allreduce, TS_COLL_ALLREDUCE, TS_ROOT_NONE, 16);
    for (int k = 1; k <= 4; k++) {
        for (int32_t r = 0; r < 2 && k == 3; r++) {
            if (!(joint >> r & 1)) {
                syn_call(&s, r, s.f_allreduce, ar);
                syn_call(&s, r, s.f_bcast, bc);
                continue;
            }
            syn_put(&s, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f_split});
            syn_put(&s, r, ar);
            if (nested) {
                syn_put(&s, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f_rank});
                syn_put(&s, r, (ts_event_t){.kind = TS_EV_LEAVE});
            }
            syn_put(&s, r, bc);
            syn_put(&s, r, (ts_event_t){.kind = TS_EV_LEAVE});
        }
        if (k != 3)
            syn_coll(&s, s.f_bcast, TS_COLL_BCAST, 0, 8);
        syn_coll(&s, s.f_allreduce, TS_COLL_ALLREDUCE, TS_ROOT_NONE, 8);
    }
    syn_coll(&s, s.f_finalize, TS_COLL_BARRIER, TS_ROOT_NONE, 0);
    ts__trace_seal(s.t);
    return s.t;
}

/* One call recording two collectives of all ranks, the second the loop head: boundaries lie
 * between calls on every rank, so iteration 3 starts at that call's Enter (event 15 of each
 * rank) and holds the Allreduce before the head, 3 collectives; the call ends both. Iteration
 * 2 ends at event 14 of each rank. Iteration 3 ends at its last Allreduce's Leave: 21 where a
 * rank made one 4-event call, 23 where two calls or one with a call nested (6 events). Before,
 * the call's first collective had no end (iteration 2 counted 2^64 - 16 events), and where
 * only rank 1 joined them the head stayed rank 0's Bcast (rank 1's iteration 3 began at 19). */
static void test_head_inside_call(void)
{
    static const struct {
        int joint, nested;
        uint64_t last0, last1;
    } CASES[] = {{3, 0, 21, 21}, {2, 0, 23, 21}, {1, 0, 21, 23}, {3, 1, 23, 23}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        ts_trace_t *t = head_in_call(CASES[i].joint, CASES[i].nested);
        ts_error_t err;
        ts_iters_t *it = NULL;
        CU_ASSERT_EQUAL_FATAL(ts_iters_find(t, &it, &err), TS_OK);
        CU_ASSERT_EQUAL_FATAL(ts_iters_count(it), 4);
        CU_ASSERT_EQUAL(ts_iters_get(it, 2)->events, 12);
        CU_ASSERT_EQUAL(ts_iters_get(it, 3)->collectives, 3);
        CU_ASSERT_EQUAL(ts_iters_get(it, 3)->events, CASES[i].last0 + CASES[i].last1 - 2 * 14);
        for (int32_t r = 0; r < 2; r++) {
            CU_ASSERT_EQUAL(ts_iters_last_event(it, 2, r), 14);
            CU_ASSERT_EQUAL(ts_iters_first_event(it, 3, r), 15);
        }
        CU_ASSERT_EQUAL(ts_iters_last_event(it, 3, 0), CASES[i].last0);
        CU_ASSERT_EQUAL(ts_iters_last_event(it, 3, 1), CASES[i].last1);
        CU_ASSERT_EQUAL(ts_iters_get(it, 4)->events, 12);
        ts_iters_free(it);
        ts_trace_close(t);
    }
}

/* The synthetic run's four iterations are found, and iteration k is clean as want[k - 1]. */
static void expect_clean(int open_at, int split_at, const int want[4])
{
    ts_error_t err;
    ts_iters_t *it = NULL;
    ts_trace_t *t = synthetic_run(open_at, split_at);
    CU_ASSERT_EQUAL_FATAL(ts_iters_find(t, &it, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_iters_count(it), 4);
    for (int k = 1; k <= 4; k++)
        CU_ASSERT_EQUAL(ts_iters_get(it, k)->clean, want[k - 1]);
    ts_iters_free(it);
    ts_trace_close(t);
}

/* Which iterations can be cut out: a request open across a boundary makes the iterations on
 * both sides unclean, as does a message sent in one and received in the next; a splice
 * (start-up and end kept) also needs iteration 1's and the last one's seams clean, a cut
 * needs only its own. */
static void test_clean_cuts(void)
{
    expect_clean(0, 0, (const int[4]){1, 1, 1, 1});
    expect_clean(1, 0, (const int[4]){0, 0, 1, 1}); /* open across the boundary of 1 and 2 */
    /* sent in 2, received in 3: no request open at the boundary, the counts unbalanced */
    expect_clean(0, 2, (const int[4]){1, 0, 0, 1});
    ts_error_t err;
    ts_iters_t *it = NULL;
    ts_trace_t *w = NULL, *t = synthetic_run(3, 0); /* 3 and 4 unclean: 1 cuts, not splices */
    CU_ASSERT_EQUAL_FATAL(ts_iters_find(t, &it, &err), TS_OK);
    CU_ASSERT_FALSE(ts_iters_get(it, 4)->clean);
    CU_ASSERT_TRUE(ts_iters_get(it, 1)->clean);
    CU_ASSERT_EQUAL(ts_window_cut(t, it, 1, 1, &w, &err), TS_OK);
    ts_trace_close(w);
    w = NULL;
    CU_ASSERT_EQUAL(ts_window_splice(t, it, 1, 1, &w, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(w);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "iteration 4 cannot be cut out"));
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
    CU_add_test(s, "a loop head inside a call of two collectives", test_head_inside_call);
    CU_add_test(s, "pitzDaily: 3 iterations, exact counts", test_pitzdaily);
    CU_add_test(s, "motorBike 72-rank window: 2 iterations, exact counts", test_motorbike);
    CU_add_test(s, "a splice keeps the start-up and the end", test_window_splice);
    CU_add_test(s, "window cut and the no-iteration error", test_window_cut);
    CU_add_test(s, "FIRST:LAST parsing", test_parse_window);
    CU_add_test(s, "clean cuts: open requests and crossing messages", test_clean_cuts);
    CU_add_test(s, "steady window: a tie goes to the later run; MPI_Finalize's first barrier",
                test_steady_tie_and_finalize);
    return tu_run_all();
}
