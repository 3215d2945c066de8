/* pool.h - a pool of forked worker processes, each running one task and sending its answer
 * (text) back through a pipe: how sweep and imb run many replays at once (SimGrid allows one
 * replay per process). The parent polls the pipes, hands each answer to a callback as the
 * worker ends, and keeps a progress line on a terminal. */
#ifndef TS_POOL_H
#define TS_POOL_H

#include "../common/status.h"

typedef struct ts_pool_s {
    int jobs;         /* workers at once (>= 1) */
    const char *who;  /* the command, for the progress line and errors: "sweep" */
    const char *what; /* what a task is, plural, for the progress line: "sets" */
    void *ctx;
    /* In the worker: run task and return its answer (malloc'd text, owned by the pool), or
     * NULL with err saying why. The worker then exits without exit handlers. */
    char *(*work)(void *ctx, int task, ts_error_t *err);
    /* In the parent, once task's worker ended: its answer (NUL-terminated), or NULL and
     * error, one line (the worker's message, or how it died). *failed set to 1 counts the
     * task as failed on the progress line (the callback prints why). Anything but TS_OK stops
     * the pool: its running workers are killed, their tasks left undone. */
    ts_status (*done)(void *ctx, int task, const char *answer, const char *error, int *failed,
                      ts_error_t *err);
} ts_pool_t;

/* Run the n tasks of todo (task numbers handed to work and done); already counts the tasks
 * done before (a resumed run), for the progress line. */
ts_status ts_pool_run(const ts_pool_t *p, const int *todo, int n, int already, ts_error_t *err);

/* On a terminal, clear the progress line before printing a line of one's own on stderr. */
void ts_pool_clear_line(void);

#endif
