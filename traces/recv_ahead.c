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
    ts_cursor_t *cur;
    ts_u64map_t *found; /* request id -> FIFO of found_t */
    found_t *spares;    /* taken back, reused: one is found and taken per receive */
};

ts_status ts_recv_ahead_open(const ts_trace_t *trace, int32_t rank, ts_recv_ahead_t **out)
{
    *out = NULL;
    ts_recv_ahead_t *a = calloc(1, sizeof *a);
    if (!a || !(a->found = ts_u64map_new()) ||
        ts_cursor_open_receives(trace, rank, &a->cur) != TS_OK) {
        ts_recv_ahead_close(a);
        return TS_ENOMEM;
    }
    *out = a;
    return TS_OK;
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
        int rc = ts_cursor_next_ref(a->cur, &ev, err); /* receive completions only */
        if (rc <= 0)
            return rc;
        ts_recv_info_t got = {
            .peer = ev->peer, .comm = ev->comm, .tag = ev->tag, .bytes = ev->bytes};
        if (ev->req == id) {
            *info = got;
            return 1;
        }
        found_t *f = a->spares;
        if (f)
            a->spares = f->next;
        else if (!(f = malloc(sizeof *f)))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        *f = (found_t){.info = got};
        found_t *old = ts_u64map_get(a->found, ev->req);
        if (!old) {
            if (ts_u64map_put(a->found, ev->req, f)) {
                free(f);
                return ts_error_set(err, TS_ENOMEM, "out of memory");
            }
        } else {
            while (old->next)
                old = old->next;
            old->next = f;
        }
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
    ts_cursor_close(a->cur);
    free(a);
}
