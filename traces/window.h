/* window.h - a trace cut to a window of its iterations (iterations.h): every rank's events
 * from the first event of iteration FIRST to the last event of iteration LAST, with the
 * original definitions, as a store in a temporary file. The cuts lie at the same collective
 * on every rank, so the window replays as a trace of its own, with no engine change. */
#ifndef TS_WINDOW_H
#define TS_WINDOW_H

#include <stdint.h>

#include "../common/status.h"
#include "iterations.h"
#include "trace.h"

/* Cut t to iterations [first, last] (1-based, inclusive) and open the result. The result is
 * a store written to a temporary file (common/tmpfiles.h) that is unlinked once open, so
 * nothing is left on disk; *out is owned by the caller (ts_trace_close). Fails with TS_EARG
 * when the range is outside the iterations or an iteration in it cannot be cut cleanly (a
 * request open across a cut, a message received outside its iteration). */
ts_status ts_window_open(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                         ts_trace_t **out, ts_error_t *err);

/* The same cut, kept in memory (for tests and small windows). */
ts_status ts_window_cut(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                        ts_trace_t **out, ts_error_t *err);

/* Iterations [first, last] between the trace's own start-up and end (its events before
 * iteration 1 and after its last iteration): a whole run of fewer iterations, whose
 * iterations tunesim info and --window find again (tunesim convert --window). In memory, like
 * ts_window_cut; the seams after the start-up and before the end must be clean too. */
ts_status ts_window_splice(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                           ts_trace_t **out, ts_error_t *err);

#endif
