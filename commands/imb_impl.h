/* imb_impl.h - what `tunesim imb`'s two files share (imb_cmd.c: options, sets, reports;
 * imb_run.c: the replays): the sets, the per-size results and the replay units. */
#ifndef TS_IMB_IMPL_H
#define TS_IMB_IMPL_H

#include <stdint.h>

#include "../common/u64map.h"
#include "../common/status.h"
#include "../models/protocol.h"
#include "../params/params.h"
#include "../sim/replay_job.h"
#include "../traces/imb.h"
#include "../traces/trace.h"
#include "options.h"

#define MAX_SIZES 32

typedef struct imb_opts_s {
    const char *platform, *sets, *csv, *plot, *bench;
    const char *msglog;
    int64_t reps, budget;
    double tie;  /* --tie: percent of the least geometric mean */
    int no_sync; /* --sync off: IMB's -sync off (traces/imb.h) */
    int jobs;
    ts_placement_opts_t place;
} imb_opts_t;

typedef struct iset_s {
    const char *name;
    ts_params_t *params;
    ts_job_opts_t jo;
    char *settings; /* "KEY=VALUE ..." that differ from the defaults, and the placement */
    char *key;      /* the same less what acts only through the protocol model (UCX_TLS and
                     * the UCX thresholds): with models that plan alike, the same replay */
    uint64_t khash; /* FNV-1a of key: a grid of thousands of sets compares these first */
    ts_proto_model_t *pm;
    int same_as; /* an earlier set that plans every message alike (replayed once), or -1 */
    /* The sets of the same key in order, so that a grid of thousands of sets looks only at its
     * own group: the first, the next after this one (-1 at the end) and, for the first, the
     * last. */
    int group_first, group_next, group_last;
} iset_t;

typedef struct isize_s {
    uint64_t bytes;
    int64_t reps, replayed;
    double tmin, tmax, tavg; /* seconds per call */
} isize_t;

/* One benchmark under one set: its table. */
typedef struct itask_s {
    int bench, set;
    int ok;
    char *error;
    isize_t sizes[MAX_SIZES];
    int nsizes;
    int unit0; /* its first size's unit */
} itask_t;

/* One size of one task: what a worker replays, unless an earlier set's replay of the same
 * size stands for it (twin). */
typedef struct iunit_s {
    int task, size;
    int twin;  /* the unit whose numbers these are, or -1 */
    int state; /* U_PENDING, U_QUEUED, U_RUN, U_TWIN (imb_run.c) */
    int ok;
    char *error;
    isize_t z;
    ts_plan_ask_t *asks; /* what the replay asked the protocol model (its result's asks) */
    size_t nasks;
    int asks_all;
} iunit_t;

typedef struct imb_s {
    imb_opts_t o;
    int nranks;
    int bench[TS_IMB__COUNT], nbench;
    int lo, hi;
    /* per benchmark and size: the size alone as a trace (ts_imb_spec_t's one_size) */
    ts_trace_t *trace[TS_IMB__COUNT][MAX_SIZES];
    int nsizes[TS_IMB__COUNT];
    ts_imb_spec_t spec[TS_IMB__COUNT];
    iset_t *sets;
    int nsets;
    /* index + 1 of the first set of each key hash (the group heads), and of the first set of
     * each (key, protocol model) hash: looked up, so a grid's sets group in linear time */
    ts_u64map_t *heads, *alike;
    itask_t *tasks;
    int ntasks;
    iunit_t *units;
    int nunits, nreplayed;
    const ts_params_t *base; /* the defaults with imb's own (IMB's -off_cache) */
} imb_t;

/* Replay every task's sizes (m->tasks set up, one per benchmark and set), -j workers at once,
 * each size once per group of sets that plan its messages alike, and fill in the tasks'
 * tables. Failed replays are said on stderr and leave their task's ok at 0. */
ts_status ts__imb_run(imb_t *m, ts_error_t *err);

#endif
