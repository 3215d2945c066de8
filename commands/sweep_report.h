/* sweep_report.h - the outputs of `tunesim sweep`: the ranked table, --csv, --json and the
 * gnuplot pictures of --plot, all made from the per-set replay documents (replay_job.h's
 * JSON), whichever process or machine produced them. Private to commands/sweep_*.c. */
#ifndef TS_SWEEP_REPORT_H
#define TS_SWEEP_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "../common/status.h"

/* One set of the sweep. Everything is borrowed from the caller. */
typedef struct ts_sweep_entry_s {
    const char *name;
    json_object *settings; /* array of "KEY=VALUE" strings (the changes from the defaults) */
    json_object *result;   /* the replay's JSON document; NULL if the set has none */
    const char *error;     /* why there is no result */
} ts_sweep_entry_t;

typedef struct ts_sweep_report_s {
    const char *trace, *platform;
    const char *baseline; /* the set gains are measured against */
    int n;
    const ts_sweep_entry_t *entries; /* in the sets file's order */
} ts_sweep_report_t;

/* The ranked table (predicted time, gain, hot-spot functions, protocol mix), then each set's
 * settings and the failed sets. */
void ts_sweep_print_table(const ts_sweep_report_t *r, FILE *fp);

/* --json FILE and --csv FILE (formats in README.md, "tunesim sweep"), written atomically.
 * Byte-identical for identical results, in whatever order the sets finished. */
ts_status ts_sweep_write_json(const ts_sweep_report_t *r, const char *path, ts_error_t *err);
ts_status ts_sweep_write_csv(const ts_sweep_report_t *r, const char *path, ts_error_t *err);

/* Whether gnuplot can be run (found on PATH). */
int ts_sweep_have_gnuplot(void);
/* PREFIX.png and PREFIX.svg (predicted time per set, bars in rank order) and
 * PREFIX-breakdown.png / .svg (MPI time per function, stacked, summed over ranks), made by
 * gnuplot from a generated script and data files in a temporary directory beside PREFIX;
 * each picture appears complete or not at all. */
ts_status ts_sweep_write_plot(const ts_sweep_report_t *r, const char *prefix, ts_error_t *err);

#endif
