/* iterations.h - the solver iterations of a trace: where each time step (OpenFOAM's SIMPLE
 * iteration) begins and ends on every rank, found from the trace alone, and the "steady
 * window" of iterations after start-up whose lengths agree.
 *
 * The rule (why: iterations.c, top):
 *  - the clock is the sequence of collectives on communicators that hold every rank: every
 *    rank calls them in the same order (checked), so "after the j-th collective" is the same
 *    program point on every rank, and a cut there splits no collective;
 *  - an iteration begins at a loop head: a collective whose gap (the calls since the previous
 *    collective) holds, on rank 0, a one-to-all that is not the second half of a reduction
 *    (a blocking send before any blocking receive since the gap began or since the last
 *    wait), or that is itself an MPI_Bcast from rank 0;
 *  - iteration k spans, on every rank, the events after the collective before its head up to
 *    the end of the collective before the next head; the last one ends before the collective
 *    of MPI_Finalize (a trace that does not reach MPI_Finalize has no complete last one);
 *  - the segments before the last one holding a collective kind (operation, payload) that no
 *    later segment holds are start-up, not iterations.
 * GAMG cycles make iterations differ in length: nothing here assumes equal lengths. */
#ifndef TS_ITERATIONS_H
#define TS_ITERATIONS_H

#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

typedef struct ts_iters_s ts_iters_t;

/* The steady window: iterations after the first (which carries the start-up's last
 * point-to-point calls and starts from the initial fields) whose events lie within this
 * fraction of their median; the longest run of consecutive ones, the later on a tie. Where
 * no two consecutive ones do, all the iterations after the first. */
#define TS_ITERS_STEADY_SPREAD 0.25

/* One iteration (numbered from 1), counts summed over ranks. */
typedef struct ts_iter_info_s {
    int32_t index;
    uint64_t events;      /* events of every rank */
    uint64_t calls;       /* MPI calls (ENTER records) of every rank */
    uint64_t collectives; /* clock collectives per rank */
    uint64_t sends;       /* point-to-point messages sent, every rank */
    double rel;           /* events / the median iteration's events */
    int clean;            /* 1 when no request is open on any rank at its two cuts and its
                           * messages are received inside it: it can be cut and replayed */
} ts_iter_info_t;

/* Find the iterations of t. On success *out owns the result (ts_iters_free). A trace without
 * a complete iteration, or whose ranks call their collectives in different orders, fails
 * with TS_ENOITER and one line naming the trace file and what is missing. */
ts_status ts_iters_find(const ts_trace_t *t, ts_iters_t **out, ts_error_t *err);
void ts_iters_free(ts_iters_t *it);

int32_t ts_iters_count(const ts_iters_t *it);
/* Iteration k, 1 <= k <= count; NULL outside. */
const ts_iter_info_t *ts_iters_get(const ts_iters_t *it, int32_t k);
/* First and last event index (inclusive, in the rank's stream) of iteration k on rank r. */
uint64_t ts_iters_first_event(const ts_iters_t *it, int32_t k, int32_t r);
uint64_t ts_iters_last_event(const ts_iters_t *it, int32_t k, int32_t r);
/* Events before iteration 1 and after the last, summed over ranks. */
uint64_t ts_iters_startup_events(const ts_iters_t *it);
uint64_t ts_iters_tail_events(const ts_iters_t *it);
/* The steady window [*first, *last] and its spread (largest / smallest events - 1). */
void ts_iters_steady(const ts_iters_t *it, int32_t *first, int32_t *last, double *spread);

/* 1 when no two consecutive iterations after the first agreed, so that the steady window is
 * all of them (TS_ITERS_STEADY_SPREAD). */
int ts_iters_steady_all(const ts_iters_t *it);

/* Parse "FIRST:LAST" (or "K" for K:K) against count iterations. 0 on success, -1 when it is
 * not two integers, 1 <= FIRST <= LAST <= count. */
int ts_iters_parse_window(const char *s, int32_t count, int32_t *first, int32_t *last);

/* The same for a --window option of command who: TS_EUSAGE with a one-line message when spec
 * does not parse. count INT32_MAX checks the form alone (before any pass over a trace). */
ts_status ts_iters_window_arg(const char *who, const char *spec, int32_t count, int32_t *first,
                              int32_t *last, ts_error_t *err);

#endif
