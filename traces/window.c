/* window.c - cutting a trace to a window of iterations (what and why: window.h). */
#include "window.h"

#include <limits.h>
#include <stdio.h>

#include "../common/tmpfiles.h"
#include "store.h"
#include "trace_impl.h"

static ts_status copy_range(const ts_trace_t *t, int32_t r, uint64_t from, uint64_t to,
                            ts_trace_t *w, ts_error_t *err)
{
    ts_cursor_t *c;
    if (ts_cursor_open(t, r, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    uint64_t idx = 0;
    const ts_event_t *evs;
    int k;
    ts_status st = TS_OK;
    while (st == TS_OK && idx <= to && (k = ts_cursor_next_batch(c, &evs, err)) > 0) {
        for (int i = 0; i < k && idx <= to && st == TS_OK; i++, idx++) {
            if (idx < from)
                continue;
            if (ts_codec_put(&w->ranks[r].buf, &evs[i]) != TS_OK)
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
            w->ranks[r].nevents++;
        }
    }
    if (st == TS_OK && k < 0)
        st = k;
    ts_cursor_close(c);
    return st;
}

/* Iterations first..last of t, with the start-up before iteration 1 and the end after the
 * last iteration kept around them when frame is set. */
static ts_status cut(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                     int frame, ts_trace_t **out, ts_error_t *err)
{
    *out = NULL;
    int32_t n = ts_iters_count(it);
    if (first < 1 || first > last || last > n)
        return ts_error_set(err, TS_EARG, "%s: window %d:%d outside the trace's iterations 1:%d",
                            t->path, (int)first, (int)last, (int)n);
    /* Splicing the start-up onto iteration FIRST, and iteration LAST onto the end, needs the
     * seams after the start-up and before the end as clean as the window's own. */
    for (int32_t k = first; k <= last + (frame ? 2 : 0); k++) {
        int32_t j = k <= last ? k : k == last + 1 ? 1 : n;
        if (!ts_iters_get(it, j)->clean)
            return ts_error_set(err, TS_EARG,
                                "%s: iteration %d cannot be cut out: a request is open across "
                                "its boundary or a message crosses it",
                                t->path, (int)j);
    }
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s[%d:%d]", t->path, (int)first, (int)last);
    ts_trace_t *w;
    if (ts__trace_new(name, TS_FORMAT_OTF2, t->nranks, &w) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts__trace_copy_defs(t, w);
    if (st != TS_OK)
        st = ts_error_set(err, st, "out of memory");
    for (int32_t r = 0; r < t->nranks && st == TS_OK; r++) {
        uint64_t from = ts_iters_first_event(it, first, r), to = ts_iters_last_event(it, last, r);
        uint64_t startup_end = ts_iters_first_event(it, 1, r);
        if (frame && startup_end > 0)
            st = copy_range(t, r, 0, startup_end - 1, w, err);
        if (st == TS_OK)
            st = copy_range(t, r, from, to, w, err);
        if (st == TS_OK && frame)
            st = copy_range(t, r, ts_iters_last_event(it, n, r) + 1, UINT64_MAX, w, err);
    }
    if (st != TS_OK) {
        ts_trace_close(w);
        return st;
    }
    ts__trace_seal(w);
    *out = w;
    return TS_OK;
}

ts_status ts_window_cut(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                        ts_trace_t **out, ts_error_t *err)
{
    return cut(t, it, first, last, 0, out, err);
}

ts_status ts_window_splice(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                           ts_trace_t **out, ts_error_t *err)
{
    return cut(t, it, first, last, 1, out, err);
}

ts_status ts_window_open(const ts_trace_t *t, const ts_iters_t *it, int32_t first, int32_t last,
                         ts_trace_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_trace_t *w;
    ts_status st = ts_window_cut(t, it, first, last, &w, err);
    if (st != TS_OK)
        return st;
    /* A store, so that replays read the window chunk by chunk, as any stored trace. */
    char tss[PATH_MAX];
    st = ts_tmp_file("tunesim-window", ".tss", tss, sizeof tss, err);
    if (st == TS_OK) {
        st = ts_store_write(w, tss, err);
        if (st == TS_OK)
            st = ts_trace_open(tss, out, err);
        /* Messages and reports name the window (TRACE[FIRST:LAST]), not the temporary file. */
        if (st == TS_OK)
            ts_trace_rename(*out, w->path);
        /* The open store reads through its descriptor: the name can go at once. */
        ts_tmp_remove(tss);
    }
    ts_trace_close(w);
    return st;
}
