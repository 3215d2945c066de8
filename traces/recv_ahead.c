/* recv_ahead.c - receive envelopes found ahead in a rank's stream (see recv_ahead.h). */
#include "recv_ahead.h"

#include <stdlib.h>

#include "../common/u64map.h"

/* Completions found ahead but not asked for yet: per request id, a FIFO. */
typedef struct found_s {
    ts_recv_info_t info;
    struct found_s *next;
} found_t;

struct ts_recv_ahead_s {
    const ts_trace_t *trace;
    int32_t rank;
    ts_cursor_t *main;  /* the consumer's cursor, peeked ahead of */
    ts_cursor_t *far;   /* own cursor, opened when a look goes past main's reach */
    uint64_t scan;      /* stream index of the next event not looked at */
    uint64_t scanned;   /* receive completions among the events before scan */
    ts_u64map_t *found; /* request id -> FIFO of found_t */
    found_t *spares;    /* taken back, reused: one is found and taken per receive */
};

ts_status ts_recv_ahead_open(const ts_trace_t *trace, int32_t rank, ts_cursor_t *cur,
                             ts_recv_ahead_t **out)
{
    *out = NULL;
    ts_recv_ahead_t *a = calloc(1, sizeof *a);
    if (!a || !(a->found = ts_u64map_new())) {
        ts_recv_ahead_close(a);
        return TS_ENOMEM;
    }
    a->trace = trace;
    a->rank = rank;
    a->main = cur;
    *out = a;
    return TS_OK;
}

/* The events from stream index a->scan on, as many as are decoded (n >= 1), by peeking at
 * the main cursor while it is within its reach, else with the look-ahead's own cursor (it
 * moves only forward, so a stream is read at most once more in all). Events the main cursor
 * has passed are stepped over when they hold no receive completion (the usual case: each
 * completion was found at its receive's post, before the cursor reached it). */
static int events_at_scan(ts_recv_ahead_t *a, const ts_event_t **evs, ts_error_t *err)
{
    uint64_t at = ts_cursor_index(a->main);
    if (a->scan < at && ts_cursor_receives_passed(a->main) == a->scanned)
        a->scan = at;
    if (a->scan >= at && a->scan - at < ts_cursor_peek_max())
        return ts_cursor_peek(a->main, (size_t)(a->scan - at), evs, err);
    if (!a->far && ts_cursor_open(a->trace, a->rank, &a->far) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    uint64_t far_at = ts_cursor_index(a->far);
    if (a->scan - far_at >= ts_cursor_peek_max()) {
        int rc = ts_cursor_skip(a->far, a->scan - far_at, err);
        if (rc <= 0)
            return rc;
        far_at = a->scan;
    }
    return ts_cursor_peek(a->far, (size_t)(a->scan - far_at), evs, err);
}

/* Keep info, a completion of request id found ahead, for the find that asks for it: 0, or
 * TS_ENOMEM with err set. */
static int keep(ts_recv_ahead_t *a, uint64_t id, const ts_recv_info_t *info, ts_error_t *err)
{
    found_t *f = a->spares;
    if (f)
        a->spares = f->next;
    else if (!(f = malloc(sizeof *f)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    *f = (found_t){.info = *info};
    found_t *old = ts_u64map_get(a->found, id);
    if (!old) {
        if (ts_u64map_put(a->found, id, f)) {
            free(f);
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        }
    } else {
        while (old->next)
            old = old->next;
        old->next = f;
    }
    return 0;
}

int ts_recv_ahead_find(ts_recv_ahead_t *a, uint64_t id, ts_recv_info_t *info, ts_error_t *err)
{
    found_t *head = ts_u64map_get(a->found, id);
    if (head) {
        if (head->next)
            ts_u64map_put(a->found, id, head->next); /* replaces: cannot fail */
        else
            ts_u64map_remove(a->found, id);
        *info = head->info;
        head->next = a->spares;
        a->spares = head;
        return 1;
    }
    /* None of id's was found before: the next completion of id in the stream is the one;
     * others met on the way wait in `found`. */
    for (;;) {
        const ts_event_t *ev;
        int n = events_at_scan(a, &ev, err);
        if (n <= 0)
            return n;
        for (int i = 0; i < n; i++) {
            if (ev[i].kind != TS_EV_IRECV_DONE)
                continue;
            a->scanned++;
            ts_recv_info_t got = {
                .peer = ev[i].peer, .comm = ev[i].comm, .tag = ev[i].tag, .bytes = ev[i].bytes};
            if (ev[i].req == id) {
                a->scan += (uint64_t)i + 1;
                *info = got;
                return 1;
            }
            int rc = keep(a, ev[i].req, &got, err);
            if (rc < 0)
                return rc;
        }
        a->scan += (uint64_t)n;
    }
}

static void free_fifo(uint64_t key, void *value, void *ctx)
{
    (void)key;
    (void)ctx;
    for (found_t *f = value, *next; f; f = next) {
        next = f->next;
        free(f);
    }
}

void ts_recv_ahead_close(ts_recv_ahead_t *a)
{
    if (!a)
        return;
    if (a->found) {
        ts_u64map_each(a->found, free_fifo, NULL);
        ts_u64map_free(a->found);
    }
    free_fifo(0, a->spares, NULL);
    ts_cursor_close(a->far);
    free(a);
}
