/* sweep_impl.h - private to tunesim sweep: the options, the sets as the parent holds them, and
 * what sweep_cmd.c (the command: checking and placing the sets, the workers, the reports),
 * sweep_results.c (the results file a rerun resumes from) and sweep_slurm.c (job arrays and
 * their merge) share. */
#ifndef TS_SWEEP_IMPL_H
#define TS_SWEEP_IMPL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <zlib.h>

#include "../common/grow.h"
#include "../common/numparse.h"
#include "options.h"
#include "../common/infile.h"
#include "../common/outfile.h"
#include "full_run.h"
#include "../params/params.h"
#include "pool.h"
#include "sets.h"
#include "../traces/scorep_score.h"
#include "../sim/extrapolate.h"
#include "../sim/replay_job.h"
#include "sweep_report.h"

/* A Slurm array larger than this is split into chunks of sets per task (Slurm's default
 * MaxArraySize is 1001, so indices 0-999 fit everywhere by default). */
#define SLURM_MAX_TASKS 1000
/* Bumped when the meaning of a result changes, so that old results files are not reused. */
#define KEY_VERSION "v1"

typedef struct sweep_opts_s {
    const char *trace, *sets, *platform, *map_by_text;
    const char *csv, *json, *plot, *results, *emit, *merge, *baseline;
    const char *window;  /* --window FIRST:LAST: replay only those iterations */
    const char *profile; /* --profile SCORE.txt: each set scaled to the full run */
    int iterations;      /* --iterations N: the full run's iterations; 0: not given */
    ts_xp_scale scale;   /* --scale-by compute|visits */
    ts_placement_opts_t place;
    int jobs;
    int nonly;
    const char **only;
    FILE *out;                 /* the report's stream: stdout, or what ts_sweep_cmd_to was given */
    const ts_file_use_t *also; /* the caller's own outputs (validate's), checked as the sweep's */
    int nalso;
} sweep_opts_t;

/* One set of the sweep, as the parent holds it. */
typedef struct sset_s {
    int idx; /* in the sets file */
    const char *name;
    ts_params_t *params;
    ts_job_opts_t jo;
    json_object *settings; /* ["KEY=VALUE", ...]: the changes from the defaults */
    char *key;             /* what a result must match to count for this set */
    json_object *result;   /* the replay's document, once there is one */
    char *error;           /* why the set failed */
    int selected;          /* run and reported (all, or those named by --only) */
    double compute_scale;  /* traced burst -> simulated burst (ts_job_compute_scale) */
} sset_t;

typedef struct sweep_s {
    sweep_opts_t o;
    ts_score_t *profile;    /* --profile, read before anything runs */
    int32_t win_iterations; /* iterations the replayed trace holds (for the full run) */
    ts_sets_t *sets;
    ts_job_trace_t *jt;
    const char *platform_name; /* resolved, e.g. bm-optimized3.36 */
    char *platform_owned;
    int n;
    sset_t *s;
    json_object *records; /* every line of the results file, parsed (array) */
    char *results_path;   /* NULL: results stay in memory (no resume) */
    int results_fd;
} sweep_t;

/* A whole file, or NULL (callers report the failure in their own words). */
char *ts__sweep_read_file(const char *path, size_t *len);
/* o's member key when it is a string, else NULL. */
const char *ts__sweep_jstr(json_object *o, const char *key);

/* The results file (sweep_results.c): every verified line of path into arr (a line skipped is
 * noted on stderr with what follows, skipped: "its set runs again"); the records that
 * belong to the sets (their keys) into the sets' results; the file opened for appending (its
 * default path beside --json or --csv); one finished set appended. */
void ts__sweep_load_records(const char *path, json_object *arr, const char *skipped);
void ts__sweep_match_records(sweep_t *sw);
ts_status ts__sweep_open_results(sweep_t *sw, ts_error_t *err);
/* The results file's path when --results is not given (malloc'd; NULL without --json/--csv
 * or when the one given is not a regular file). */
char *ts__sweep_default_results_path(const sweep_opts_t *o);
ts_status ts__sweep_append_record(sweep_t *sw, const sset_t *s, ts_error_t *err);

/* The table on o->out and the --json / --csv / --plot files (sweep_cmd.c). */
ts_status ts__sweep_report(const char *trace, const char *platform, const char *baseline,
                           const sweep_opts_t *o, int n, const ts_sweep_entry_t *e,
                           ts_error_t *err);

/* Slurm (sweep_slurm.c): write the job array for the prepared sweep; merge its results. */
ts_status ts__sweep_emit_slurm(sweep_t *sw, ts_error_t *err);
ts_status ts__sweep_merge(const sweep_opts_t *o, ts_error_t *err);
/* An output of --merge DIR (flag and path for the message) that would replace a file the merge
 * reads: DIR's plan.json, sweep.sets, sweep.sbatch or merge.sh, or anything in DIR/results.
 * TS_EUSAGE with one line, else TS_OK. */
ts_status ts__sweep_merge_check_output(const char *dir, const char *flag, const char *path,
                                       ts_error_t *err);

#endif
