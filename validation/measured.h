/* measured.h - measured run times of an application under named settings, as `tunesim
 * validate` compares them with predictions: read from OpenFOAM logs (the last
 * "ExecutionTime = X s" line of each), from a directory holding one directory of logs per
 * setting, from a manifest (`setting log...` lines) or from a CSV (`setting,seconds`), and
 * summarised per setting the way HPC users report repeats (a trimmed mean: the middle three
 * of five), with the median and the spread (min-max). Plain C, no SimGrid, no JSON. */
#ifndef TS_MEASURED_H
#define TS_MEASURED_H

#include <stddef.h>

#include "../common/status.h"

/* The longest run time read as measured or predicted: 1e9 s (31 years); beyond it a number is
 * damage, and sums and variances of such would overflow. */
#define TS_MEASURED_MAX_S 1e9

/* The repeats of one setting, in the order they were read. */
typedef struct ts_measured_setting_s {
    char *name;
    double *seconds;
    char **sources; /* where each value came from ("file" or "file:line"), for reports */
    size_t n;
} ts_measured_setting_t;

/* Settings in the order they were first read (a directory's settings in name order, its
 * logs in name order), so that reports are deterministic. */
typedef struct ts_measured_s ts_measured_t;

ts_status ts_measured_new(ts_measured_t **out, ts_error_t *err);
void ts_measured_free(ts_measured_t *m);
size_t ts_measured_count(const ts_measured_t *m);
const ts_measured_setting_t *ts_measured_get(const ts_measured_t *m, size_t i);
/* The setting of that name, or NULL. */
const ts_measured_setting_t *ts_measured_find(const ts_measured_t *m, const char *name);

/* Add one measured value of setting name (copied, as is source). Names are 1-64 characters
 * of letters, digits and ._+-: (TS_EARG naming source otherwise). */
ts_status ts_measured_add(ts_measured_t *m, const char *name, double seconds, const char *source,
                          ts_error_t *err);

/* A log left out by ts_measured_set_max_clock_ratio. */
typedef struct ts_measured_rejected_s {
    char *name, *source;
    double seconds, clock; /* ExecutionTime and ClockTime of its last timing line */
} ts_measured_rejected_t;

/* Leave out, from the logs read afterwards, runs that spent long descheduled: those whose last
 * timing line has ClockTime > ratio x ExecutionTime + 1 s (ExecutionTime is the rank's CPU
 * time; ClockTime, in whole seconds, the wall time). 0 (the default) keeps every log; CSV
 * rows and logs without ClockTime are always kept. The left-out runs are listed for reports. */
void ts_measured_set_max_clock_ratio(ts_measured_t *m, double ratio);
double ts_measured_max_clock_ratio(const ts_measured_t *m); /* 0 when not set */
size_t ts_measured_rejected_count(const ts_measured_t *m);
const ts_measured_rejected_t *ts_measured_rejected(const ts_measured_t *m, size_t i);
/* TS_EUSAGE naming the file when out (an output of cmd, given as flag) is one of the files
 * read: a log (kept or left out), a CSV or a manifest. NULL out: TS_OK. */
ts_status ts_measured_check_output(const ts_measured_t *m, const char *cmd, const char *flag,
                                   const char *out, ts_error_t *err);
/* TS_EARG naming the setting when every run of a setting was left out. */
ts_status ts_measured_check_rejected(const ts_measured_t *m, ts_error_t *err);

/* The last "ExecutionTime = X s" line of an OpenFOAM log. TS_EIO if the file cannot be read,
 * TS_ECORRUPT naming the file when it has no such line (the run did not get to its first
 * iteration) or naming file:line when X is not a non-negative number. */
ts_status ts_foam_execution_time(const char *path, double *seconds, ts_error_t *err);
/* The same, and the ClockTime of that line in *clock (-1 when the line has none). */
ts_status ts_foam_times(const char *path, double *seconds, double *clock, ts_error_t *err);

/* dir holds one directory per setting (its name is the setting's), each holding that
 * setting's logs: every regular file whose name ends in ".log". A setting directory without
 * logs is an error naming it. Other files in dir are ignored. */
ts_status ts_measured_read_dir(ts_measured_t *m, const char *dir, ts_error_t *err);
/* A manifest: lines `SETTING LOG [LOG...]` (paths relative to the manifest's directory unless
 * absolute); '#' starts a comment; blank lines are skipped. Errors name file:line. */
ts_status ts_measured_read_manifest(ts_measured_t *m, const char *path, ts_error_t *err);
/* A CSV of `setting,seconds` lines; an optional header line `setting,seconds`; '#' comments.
 * Errors name file:line and what was expected. */
ts_status ts_measured_read_csv(ts_measured_t *m, const char *path, ts_error_t *err);

/* Summary of n values (n >= 1). The trimmed mean drops floor(n / 5) values at each end
 * (a 20 % trimmed mean: the middle three of five, the middle six of ten; for n < 5 the plain
 * mean), so one outlier run in five does not move it. */
typedef struct ts_runstats_s {
    size_t n, trimmed;                             /* values, and values dropped at each end */
    double trimmed_mean, median, min, max, spread; /* spread = max - min */
} ts_runstats_t;
void ts_runstats_compute(const double *v, size_t n, ts_runstats_t *out);

#endif
