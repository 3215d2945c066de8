/* progress.h - a one-line progress display for long replays: events replayed, events per
 * second and the time left, redrawn at most twice a second on standard error, and only when
 * standard error is a terminal (pipes, logs and tests see nothing). */
#ifndef TS_PROGRESS_H
#define TS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_progress_s {
    int on;    /* standard error is a terminal */
    int shown; /* a line is on the screen */
    double start, last;
    const char *what; /* the line's first word, e.g. "replay" */
} ts_progress_t;

void ts_progress_init(ts_progress_t *p, const char *what);
/* The engine's callback (ts_replay_spec_t.progress); ctx is a ts_progress_t. */
void ts_progress_update(void *ctx, uint64_t done, uint64_t total);
/* The line for a terminal of cols columns, cut to fit on one row (cols - 1 characters). */
void ts_progress_format(char *buf, size_t n, const char *what, double frac, uint64_t total,
                        double rate, double left, int cols);
/* Erase the line, if one is shown, before the report is printed. */
void ts_progress_end(ts_progress_t *p);

#endif
