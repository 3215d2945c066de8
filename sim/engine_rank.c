/* engine_rank.c - the engine's rank interpreter (see engine_int.h). */

/* A rank's events run one after another until it blocks or must wait for the clock; it keeps
 * where it resumes (eng_rank_step). */
#include <string.h>

#include "engine_int.h"

/* A trace read failed. The cursor names the file it reads ("F: rank 0, chunk 1: ..."); eng_fail
 * names the trace as the user gave it: say it once. */
static void fail_read(engine_t *e, ts_status st, const ts_error_t *err)
{
    const char *msg = err->msg, *path = ts_trace_path(e->t);
    size_t plen = strlen(path);
    if (strncmp(msg, path, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
        msg += plen + 2;
    eng_fail(e, st, "%s", msg);
}

/* Blocking sends and receives of a call (MPI_Send, MPI_Recv, both halves of MPI_Sendrecv)
 * are posted as they come and completed together when the call returns (AT_LEAVE), so that
 * a Sendrecv's send cannot block its own receive. */
static void call_add(rank_t *r, req_t *q)
{
    eng_reqs_add(r, &r->call_reqs, &r->ncall, &r->capcall, q);
}

static void rank_finish(rank_t *r)
{
    engine_t *e = r->e;
    r->finished = 1;
    r->end = vnow(r);
    eng_wake_progress_waiters(r);
    e->nfinished++;
}

/* A rank's open non-blocking requests, by the trace's request id. A rank has few open at a
 * time (a halo exchange's), so they sit in a small array searched whole, cheaper than hashing
 * each id twice; past OPEN_MAX they go to the map. An id is in one place at most: posting an
 * id still open replaces its request, as a map would. */
static void reqs_put(rank_t *r, uint64_t id, req_t *q)
{
    for (int k = 0; k < r->nopen; k++)
        if (r->open[k].id == id) {
            r->open[k].q = q;
            return;
        }
    if (ts_u64map_size(r->reqs) && ts_u64map_get(r->reqs, id)) {
        ts_u64map_put(r->reqs, id, q); /* replaces: cannot fail */
        return;
    }
    if (r->nopen < OPEN_MAX) {
        r->open[r->nopen].id = id;
        r->open[r->nopen++].q = q;
    } else if (ts_u64map_put(r->reqs, id, q)) {
        eng_fail(r->e, TS_ENOMEM, "out of memory");
    }
}

/* The open request of id, taken out; NULL if none. */
static req_t *reqs_take(rank_t *r, uint64_t id)
{
    for (int k = 0; k < r->nopen; k++)
        if (r->open[k].id == id) {
            req_t *q = r->open[k].q;
            r->open[k] = r->open[--r->nopen];
            return q;
        }
    return ts_u64map_size(r->reqs) ? ts_u64map_remove(r->reqs, id) : NULL;
}

/* Process one event of rank r's stream (AT_EVENT). */
static void rank_event(rank_t *r, const ts_event_t *ev)
{
    engine_t *e = r->e;
    ts_replay_result_t *res = e->res;
    ts_error_t err;
    req_t *q;
    switch (ev->kind) {
    case TS_EV_COMPUTE: {
        double k = e->spec->compute_scale * (e->spec->rank_scale ? e->spec->rank_scale[r->id] : 1);
        eng_compute(r, (double)ev->time * 1e-9 * k);
        res->compute_time += (double)ev->time * 1e-9 * k;
        break;
    }
    case TS_EV_ENTER:
        r->func = ev->func;
        r->enter = vnow(r);
        res->visits[ev->func]++;
        break;
    case TS_EV_LEAVE:
        r->at = AT_LEAVE;
        break;
    case TS_EV_SEND:
        call_add(r, eng_post_send(r, ev->peer, ev->comm, ev->tag, ev->bytes, 1));
        break;
    case TS_EV_RECV:
        call_add(r, eng_post_recv(r, ev->peer, ev->comm, ev->tag, ev->bytes));
        break;
    case TS_EV_ISEND:
        q = eng_post_send(r, ev->peer, ev->comm, ev->tag, ev->bytes, 0);
        if (q)
            reqs_put(r, ev->req, q);
        break;
    case TS_EV_IRECV_POST: {
        ts_recv_info_t in;
        uint64_t id = ev->req; /* the find may move the cursor's buffer, where ev is */
        int found = ts_recv_ahead_find(r->look, id, &in, &err);
        if (found < 0) {
            fail_read(e, found, &err);
            break;
        }
        if (!found) /* never completed in the trace: nothing will wait for it either */
            break;
        q = eng_post_recv(r, in.peer, in.comm, in.tag, in.bytes);
        if (q)
            reqs_put(r, id, q);
        break;
    }
    case TS_EV_ISEND_DONE:
    case TS_EV_IRECV_DONE:
        q = reqs_take(r, ev->req);
        if (!q) {
            eng_fail(e, TS_EUNMATCHED, "rank %d: %s completes request %llu, which was never posted",
                     (int)r->id, r->func >= 0 ? ts_trace_func_name(e->t, r->func) : "a call",
                     (unsigned long long)ev->req);
            break;
        }
        r->one = q;
        r->at = AT_WAIT;
        break;
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE:
        if (eng_coll_begin(r, ev))
            r->at = AT_COLL;
        break;
    default: /* REQ_TEST, ICOLL_POST, CANCELLED: nothing to simulate */
        break;
    }
}

/* Run rank r from where it stopped until it blocks, must wait for the clock (it goes back to
 * the queue at its virtual time), or reaches the end of its stream. The driver calls it when
 * the rank's queued time has come: the clock is at that time. */
void eng_rank_step(rank_t *r)
{
    engine_t *e = r->e;
    void (*progress)(void *, uint64_t, uint64_t) = e->spec->progress;
    if (r->awaited) { /* woken by notify() */
        if (!eng_req_complete(r->awaited))
            return;
        r->awaited = NULL;
        double now = e->now;
        if (r->wait_from > now)
            r->debt = r->wait_from - now;
    } else if (r->to_dispatch) { /* the clock has reached the rank: its debt is slept */
        r->debt = 0;
        msg_t *m = r->to_dispatch;
        r->to_dispatch = NULL;
        eng_dispatch(r, m);
    }
    for (;;) {
        switch (r->at) {
        case AT_LEAVE:
            if (!eng_wait_list(r, r->call_reqs, r->ncall))
                return;
            r->ncall = 0;
            if (r->func >= 0) {
                double d = vnow(r) - r->enter;
                e->res->time[r->func] += d;
                if (e->res->rank_time)
                    e->res->rank_time[(size_t)r->id * (size_t)e->res->nfuncs + (size_t)r->func] +=
                        d;
            }
            r->func = -1;
            break;
        case AT_WAIT:
            if (!eng_wait_req(r, r->one))
                return;
            break;
        case AT_COLL:
            if (!eng_coll_run(r)) {
                if (r->to_dispatch)
                    make_ready(r, vnow(r));
                return;
            }
            break;
        case AT_EVENT:
            break;
        }
        /* Events one after another while they leave the rank at AT_EVENT (most do: enter,
         * compute, a non-blocking post). */
        r->at = AT_EVENT;
        do {
            const ts_event_t *ev = NULL;
            ts_error_t err;
            int rc = e->status == TS_OK ? ts_cursor_next_ref(r->cur, &ev, &err) : 0;
            if (rc != 1) {
                if (rc < 0)
                    fail_read(e, rc, &err);
                rank_finish(r);
                return;
            }
            if (progress && (++e->events_done & 0xffff) == 0)
                progress(e->spec->progress_ctx, e->events_done, e->events_total);
            rank_event(r, ev); /* ev is not used after: a look-ahead may move it (IRECV_POST) */
            if (r->to_dispatch) {
                make_ready(r, vnow(r));
                return;
            }
        } while (r->at == AT_EVENT);
    }
}
