/* scorep_score.h - a Score-P profile as `scorep-score` prints it (text, read as it is): rows
 * of "flt type max_buf[B] visits time[s] time[%] time/visit[us] region", group rows (ALL,
 * MPI, USR, COM, SCOREP, PTHREAD, ..., where the region is the group's name) and, with
 * -r, one row per region. What the full-run extrapolation scales a traced window to. */
#ifndef TS_SCOREP_SCORE_H
#define TS_SCOREP_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"

typedef struct ts_score_s ts_score_t;

typedef struct ts_score_row_s {
    char type[24];    /* ALL, MPI, USR, COM, SCOREP, PTHREAD, OMP, ... */
    uint64_t max_buf; /* bytes */
    uint64_t visits;  /* summed over processes */
    double time;      /* seconds, summed over processes */
    double time_pct, time_per_visit_us;
    const char *region; /* the rest of the line; a group row's region is its type */
    int line;           /* in the file, from 1 */
} ts_score_row_t;

/* Parse the file at path. Lines before the header ("flt type ... region") are scorep-score's
 * preamble and skipped; without a header every non-empty line must be a row. Thousands
 * separators in max_buf and visits are accepted. On failure err holds one line naming the
 * file and line and what was expected (an empty file, a file without rows, a row with a
 * field missing or not a number). *out is owned by the caller (ts_score_free). */
ts_status ts_score_read(const char *path, ts_score_t **out, ts_error_t *err);
/* The same on text in memory (len bytes); name is used in messages. */
ts_status ts_score_parse(const char *text, size_t len, const char *name, ts_score_t **out,
                         ts_error_t *err);
void ts_score_free(ts_score_t *s);

int ts_score_nrows(const ts_score_t *s);
const ts_score_row_t *ts_score_row(const ts_score_t *s, int i);
/* The first row of that type and region (NULL: absent); type NULL matches any type. */
const ts_score_row_t *ts_score_find(const ts_score_t *s, const char *type, const char *region);
/* 1 when the row is a group's total (its region is its type: "MPI ... MPI"). */
int ts_score_is_group(const ts_score_row_t *row);

#endif
