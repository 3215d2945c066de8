/* replay_job.h - one replay as `tunesim replay` and every sweep worker run it: a trace opened
 * for replaying (an OTF2 input converted once to a temporary store), a job prepared from a
 * parameter set and placement options (platform, placement, protocol model, the check that
 * UCX_TLS reaches every peer), then run on SimGrid and reported as text or JSON.
 *
 * Preparing needs no SimGrid, so a sweep prepares every set in its parent process to report
 * all invalid sets before any run; ts_job_run may be called once per process (sim/engine.h),
 * so a sweep runs each job in a forked worker. */
#ifndef TS_REPLAY_JOB_H
#define TS_REPLAY_JOB_H

#include <stdio.h>

#include <json-c/json.h>

#include "../common/status.h"
#include "../params/params.h"
#include "../platforms/placement.h"
#include "../platforms/platform.h"
#include "../traces/iterations.h"
#include "../traces/trace.h"
#include "engine.h"

/* A trace ready for replays. */
typedef struct ts_job_trace_s ts_job_trace_t;

/* Open path (OTF2 anchor, directory or store). An OTF2 trace is written to a temporary store
 * (/tmp/tunesim-trace.PID.tss) and replayed from it: the store's cursors read events chunk by
 * chunk, so a replay's memory does not grow with the trace. The caller owns *out
 * (ts_job_trace_close, which removes the temporary store). Forked children may read it; only
 * the process that opened it may close it. */
ts_status ts_job_trace_open(const char *path, ts_job_trace_t **out, ts_error_t *err);
const ts_trace_t *ts_job_trace(const ts_job_trace_t *jt);
void ts_job_trace_close(ts_job_trace_t *jt);

/* The iterations of the trace as opened (traces/iterations.h), found on first use and kept.
 * NULL with err set (TS_ENOITER, one line naming the file) when it has none. */
const ts_iters_t *ts_job_trace_iters(ts_job_trace_t *jt, ts_error_t *err);
/* Replay only iterations spec ("FIRST:LAST" or "K") from now on: ts_job_trace then returns
 * the cut (a temporary store, gone when closed). who ("replay", "sweep") starts the message
 * of a usage mistake (TS_EUSAGE: not two integers, FIRST > LAST, outside the iterations). */
ts_status ts_job_trace_window(ts_job_trace_t *jt, const char *who, const char *spec,
                              ts_error_t *err);
/* The window in effect: 1 and *first, *last set, or 0 when the whole trace replays. */
int ts_job_trace_window_of(const ts_job_trace_t *jt, int32_t *first, int32_t *last);
/* The window a full-run prediction scales (--profile, --iterations): the one in effect, else
 * iterations only, since start-up and shutdown happen once and scaled with the iterations
 * would count hundreds of times: every iteration when all is set (a profile's compute says
 * how many windows the run is), else the steady window. Cuts it if need be (who as for
 * ts_job_trace_window) and sets *first, *last. */
ts_status ts_job_trace_full_window(ts_job_trace_t *jt, const char *who, int all, int32_t *first,
                                   int32_t *last, ts_error_t *err);
/* A cut of iterations [first, last] of the trace as opened, for a replay of its own (caller
 * closes it). */
ts_status ts_job_trace_cut(ts_job_trace_t *jt, int32_t first, int32_t last, ts_trace_t **out,
                           ts_error_t *err);

/* Where to run. */
typedef struct ts_job_opts_s {
    const char *platform;      /* platform name or .platform file; NULL: bm-optimized3.36 */
    ts_placement_opts_t place; /* nodes_per_leaf is taken from the parameters */
    /* Passed on to the engine (ts_replay_spec_t.progress): NULL, none. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    int rank_times; /* keep each rank's time per function (ts_replay_spec_t.rank_times) */
} ts_job_opts_t;

typedef struct ts_job_s ts_job_t;

/* The most nodes a job may place its ranks on (ts_job_prepare refuses more). */
#define TS_JOB_MAX_NODES 512

/* Open the platform, place the trace's ranks, build the protocol model and check that every
 * locality class the placement produces has a transport under UCX_TLS. No SimGrid call.
 * trace_name is how reports name the trace (kept as a pointer, like t and params: all three
 * must outlive the job). On failure *out is NULL and err holds a one-line message. */
ts_status ts_job_prepare(const ts_trace_t *t, const char *trace_name, const ts_params_t *params,
                         const ts_job_opts_t *opts, ts_job_t **out, ts_error_t *err);
const ts_platform_t *ts_job_platform(const ts_job_t *job);
const ts_placement_t *ts_job_placement(const ts_job_t *job);
/* Traced burst -> simulated burst for this job: model.cpu.speed_ratio times
 * ts_job_compute_ratio_base. */
double ts_job_compute_scale(const ts_job_t *job);
/* The job's compute per burst over that of the platform as given at NPS1:
 * model.cpu.nps2_compute_ratio under NPS2, times the memory and clock what-ifs
 * (docs/what-if.md). What a full-run prediction from a profile measured at NPS1 on the
 * platform multiplies its compute by (sim/extrapolate.h). */
double ts_job_compute_ratio_base(const ts_job_t *job);
/* The settings the models use: the caller's, with the platform file's parameter values and
 * the what-ifs applied (model.net.link_speed -> model.net.bandwidth, ...). */
const ts_params_t *ts_job_params(const ts_job_t *job);

/* Write the SimGrid platform file (removed again before returning) and replay. Once per
 * process. */
ts_status ts_job_run(ts_job_t *job, ts_error_t *err);

/* The report of a job that ran: `tunesim replay`'s text, or its JSON document (a new object
 * owned by the caller; NULL when out of memory). */
void ts_job_print_text(const ts_job_t *job, FILE *fp);
json_object *ts_job_json(const ts_job_t *job);
/* The JSON document as `tunesim replay --json` prints it (pretty, one trailing newline). */
void ts_job_print_json(const ts_job_t *job, FILE *fp);

/* The result of a job that ran (engine.h); NULL before. */
const ts_replay_result_t *ts_job_result(const ts_job_t *job);

/* Free a job; NULL is fine. */
void ts_job_close(ts_job_t *job);

#endif
