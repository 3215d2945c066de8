/* imb.h - Intel MPI Benchmarks (IMB-MPI1) synthesized as traces: the calls one benchmark run
 * makes on N ranks for each message size, in IMB's order (a warm-up call, IMB's N_BARR = 2
 * barriers, then the timed repetitions: a collective's each followed by a barrier, IMB's
 * -sync, on by default in IMB 2018 and later; Exchange's and PingPong's back to back), so that a
 * replay gives IMB's own t_min / t_max / t_avg per size (commands/imb). What IMB does is read
 * from its source (github.com/intel/mpi-benchmarks, src_c/IMB_settings.h, IMB_allreduce.c,
 * IMB_alltoall.c, IMB_allgather.c, IMB_exchange.c, IMB_pingpong.c, IMB_init.c); nothing here
 * is measured.
 *
 * Each size's timed calls go under functions of their own (ts_imb_func_size says which
 * function belongs to which size), so that the replay's time per rank and function is each
 * rank's time in that size's loop: IMB times the loop with MPI_Wtime on every rank and
 * divides by the repetitions. */
#ifndef TS_IMB_H
#define TS_IMB_H

#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

typedef enum ts_imb_bench {
    TS_IMB_PINGPONG = 0, /* ranks 0 and 1: Send / Recv back and forth; t = loop / (2 reps) */
    TS_IMB_ALLTOALL,     /* MPI_Alltoall, SIZE bytes to every rank */
    TS_IMB_ALLGATHER,    /* MPI_Allgather, SIZE bytes from every rank */
    TS_IMB_ALLREDUCE,    /* MPI_Allreduce of SIZE bytes of floats (sizes below 4 B skipped) */
    TS_IMB_EXCHANGE,     /* periodic chain: Isend right and left, Recv left and right,
                            Waitall; every call SIZE bytes */
    TS_IMB__COUNT
} ts_imb_bench;

/* IMB's name of a benchmark ("Alltoall"), and the benchmark of a word (any case); -1. */
const char *ts_imb_name(ts_imb_bench b);
int ts_imb_parse(const char *word);

/* IMB's repetition count for a message of size bytes (IMB_settings.h: MSGSPERSAMPLE 1000
 * for size 0, else min(1000, max(1, OVERALL_VOL / size)) with OVERALL_VOL 40 MiB). */
int64_t ts_imb_reps(uint64_t size);

typedef struct ts_imb_spec_s {
    ts_imb_bench bench;
    int32_t nranks;
    int minlog, maxlog; /* sizes 0, 2^minlog, ..., 2^maxlog (IMB's -msglog minlog:maxlog) */
    /* Timed repetitions replayed per size: min(IMB's count, reps_cap) when reps_cap > 0;
     * else min(IMB's count, max(TS_IMB_MIN_REPS, msg_budget / the call's messages)), with
     * msg_budget 0 meaning TS_IMB_MSG_BUDGET. A replay costs per message, and a call's
     * time settles only over many repetitions where calls overlap (Exchange's sends are
     * non-blocking: docs/imb.md, "What is replayed", measures how many repetitions it needs),
     * so the benchmarks with few messages a call replay IMB's own count and Alltoall on
     * hundreds of ranks, whose one call holds n x (n - 1) messages, a few. */
    int64_t reps_cap;
    int64_t msg_budget;
    /* 1 + the index (in ts_imb_sizes) of the one size to trace, or 0 for every size: a size
     * replayed alone starts from ranks in step, as IMB's barriers before its timed loop
     * leave them, and lets tunesim imb replay once the sizes at which sets plan alike. */
    int one_size;
    /* IMB's -sync off: a collective's timed calls back to back, with no barrier between them
     * (-sync off). 0, IMB's default (v2018.0's IMB_init.c sets c_info->sync = 1): IMB_alltoall.c,
     * IMB_allgather.c and IMB_allreduce.c time each call alone and then call
     * IMB_do_n_barriers(comm, c_info->sync), one MPI_Barrier. */
    int no_sync;
} ts_imb_spec_t;

/* The sizes spec measures, ascending: their number, and up to max of them in sizes. */
int ts_imb_sizes(const ts_imb_spec_t *spec, uint64_t *sizes, int max);

/* Messages per call per rank set size that bound a size's replay (see msg_budget). */
#define TS_IMB_MSG_BUDGET 400000
#define TS_IMB_MIN_REPS   1

/* The timed repetitions replayed for size (see reps_cap). */
int64_t ts_imb_reps_replayed(const ts_imb_spec_t *spec, uint64_t size);

/* Build the benchmark's trace in memory (caller closes it with ts_trace_close). name is the
 * trace's path in messages. TS_EARG with one line for an impossible spec (fewer than 2 ranks,
 * sizes outside 0..30, minlog > maxlog); TS_ENOMEM. */
ts_status ts_imb_trace(const ts_imb_spec_t *spec, const char *name, ts_trace_t **out,
                       ts_error_t *err);

/* Which size (index into ts_imb_sizes) function f of a trace from ts_imb_trace is timed
 * under, or -1 for untimed calls (warm-up, barriers). */
int ts_imb_func_size(const ts_trace_t *t, int32_t f);

#endif
