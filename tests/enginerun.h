/* enginerun.h - what the replay engine's tests (test_engine.c, test_engine_coll.c) share:
 * synthetic traces built call by call, and one replay of them in a forked child (SimGrid's
 * engine is a per-process singleton) on a hand-written platform, reported through a pipe.
 *
 * Parameters (tu_round_params, testutil.h): latency L = 2 us off-host, 0.5 us on-host; network
 * and shared-memory bandwidth B = 1e10 B/s (the platform's links carry the same); UCX_BCOPY_BW
 * C = 5e9 B/s; registration R = 1.0001 us; overheads 0; rc max_short 1000 B. */
#ifndef TS_TESTS_ENGINERUN_H
#define TS_TESTS_ENGINERUN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "models/protocol.h"
#include "sim/engine.h"
#include "testutil.h" /* before the one-letter constants below, which would rewrite it */
#include "traces/trace_impl.h"

#define L_NET 2e-6
#define B     1e10
#define C     5e9
#define R     1.0001e-6

/* A trace under construction: its function ids for the point-to-point calls. */
typedef struct tb_s {
    ts_trace_t *t;
    int32_t f_send, f_recv, f_isend, f_irecv, f_wait;
} tb_t;

tb_t tb_new(int32_t nranks);
/* One call with one record inside. */
void call(tb_t *b, int32_t rank, int32_t func, ts_event_t rec);
/* Blocking MPI_Send / MPI_Recv of size bytes, and ns nanoseconds of compute. */
void send_(tb_t *b, int32_t from, int32_t to, uint64_t size);
void recv_(tb_t *b, int32_t at, int32_t from, uint64_t size);
void compute(tb_t *b, int32_t rank, int64_t ns);

/* What one replay reports. */
typedef struct outcome_s {
    ts_status status;
    double makespan;
    double rank_end[4];
    char msg[400];
    ts_plan_ask_t asks[4]; /* the first of the result's asks */
    size_t nasks;
    int asks_all;
} outcome_t;

/* Replay with the parameters above plus extra (KEY, VALUE pairs, NULL-terminated) on nodes
 * node[rank]; duplex: every rank on a node of its own with full-duplex NICs (a contention-free
 * platform for collectives, whose messages flow both ways at once). */
outcome_t replay_ex(tb_t *b, const int *node, const char *const *extra, int duplex);
outcome_t replay(tb_t *b, const int *node);

#define CHECK_TIME(o, want)                                                                        \
    do {                                                                                           \
        if ((o).status != TS_OK)                                                                   \
            printf("\n  replay failed: %s\n", (o).msg);                                            \
        else if (fabs((o).makespan - (want)) > 1e-12)                                              \
            printf("\n  makespan %.12g, expected %.12g\n", (o).makespan, (double)(want));          \
        CU_ASSERT_EQUAL((o).status, TS_OK);                                                        \
        CU_ASSERT_DOUBLE_EQUAL((o).makespan, want, 1e-12);                                         \
    } while (0)

/* Node of each rank: two nodes alternating, one node, every rank apart. */
extern const int TWO_NODES[4];
extern const int ONE_NODE[4];
extern const int APART[16];

#endif
