/* clock.h - the tracer's two timestamp sources (private to the tracer).
 *
 * wall: CLOCK_MONOTONIC in ns. Every rank on one host reads the same clock, so no offset
 *       synchronisation is done; ranks on different hosts are not aligned (their offsets
 *       differ by the hosts' boot times), which the simulator tolerates because it only uses
 *       the durations between a rank's own records.
 * cpu:  a per-rank virtual clock in ns that advances only by the CPU time the calling thread
 *       spends OUTSIDE MPI (CLOCK_THREAD_CPUTIME_ID), plus TRC_CLOCK_TICK_NS per record
 *       written inside an MPI call so that records stay strictly ordered. An oversubscribed
 *       run (many ranks per core) then still records each rank's true compute bursts: time
 *       spent waiting for a core or polling inside MPI does not count. Time inside MPI calls
 *       is meaningless on this clock (a few ns); the simulator replaces it anyway.
 *
 * A call is timed as: trc_clock_enter (Enter record), trc_clock_tick (records inside the
 * call), trc_clock_leave (Leave record), trc_clock_resume once the Leave record is written,
 * so that the tracer's own work (including buffer flushes) never counts as compute. */
#ifndef TRC_CLOCK_H
#define TRC_CLOCK_H

#include <stdint.h>

typedef enum trc_clock_kind { TRC_CLOCK_WALL = 0, TRC_CLOCK_CPU = 1 } trc_clock_kind;

/* Virtual time added per record inside an MPI call on the cpu clock. */
#define TRC_CLOCK_TICK_NS 1

typedef struct trc_clock_s {
    trc_clock_kind kind;
    uint64_t last;     /* last timestamp handed out; keeps them non-decreasing */
    uint64_t cpu_mark; /* cpu clock: thread CPU time when compute last resumed */
} trc_clock_t;

/* Parse "wall" or "cpu" (NULL or "" means wall). Returns 0, or -1 for anything else. */
int trc_clock_parse(const char *text, trc_clock_kind *out);
const char *trc_clock_name(trc_clock_kind kind);

/* Start a clock. The cpu clock starts at 0 with the thread's CPU time so far counted as
 * compute, so the first Enter lands at the CPU time spent before MPI_Init. */
void trc_clock_init(trc_clock_t *clock, trc_clock_kind kind);

uint64_t trc_clock_enter(trc_clock_t *clock);
uint64_t trc_clock_tick(trc_clock_t *clock);
uint64_t trc_clock_leave(trc_clock_t *clock);
void trc_clock_resume(trc_clock_t *clock);

/* Nanoseconds since the epoch at the given wall-clock timestamp, or 0 if the clock is
 * not the wall clock (the cpu clock has no calendar date). */
uint64_t trc_clock_realtime_of(const trc_clock_t *clock, uint64_t timestamp);

#endif
