/* engine_mpi.c - the engine's MPI point-to-point semantics (see engine_int.h). */

/* Channels, matching, requests and waits, and each message's delivery steps with the progress
 * rule.
 *
 * Timing of one message (costs from models/protocol):
 *   the sender spends the sender's CPU work, matches the message against the receiver's
 *   posted receives (or queues it as unexpected) and starts its delivery (eng_deliver);
 *   the delivery waits the latency (and, for rendezvous, the RTS and the receiver's
 *   match and registration), moves wire_bytes over the route (eng_flow_start, the flow
 *   transport's), marks the data arrived, and for zcopy/rendezvous delivers the send
 *   completion ack_latency later;
 *   the receiver's wait returns once the data arrived, after its copy-out (and the extra
 *   copy of an unexpected message).
 *   Small eager messages need no delivery: they arrive latency + bytes / bandwidth later.
 * Matching is done when both sides are known, in send order per (communicator, source,
 * tag): MPI's non-overtaking rule. Traces record each receive's actual source and tag, so
 * there are no wildcards left to resolve. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "engine_int.h"

static uint64_t chan_key(int32_t comm, int32_t src, int32_t tag)
{
    return (uint64_t)(uint32_t)tag | (uint64_t)(uint32_t)src << 32 | (uint64_t)(uint32_t)comm << 52;
}

SPARE_TAKER(chan_new, chan_t, spare_chans)

static chan_t *chan_get(rank_t *r, int32_t comm, int32_t src, int32_t tag)
{
    uint64_t k = chan_key(comm, src, tag);
    uint32_t slot = ((uint32_t)src * 7u + (uint32_t)tag + (uint32_t)comm * 3u) % RECENT_CHANS;
    chan_t *c = r->recent[slot].c && r->recent[slot].key == k ? r->recent[slot].c
                                                              : ts_u64map_get(r->chans, k);
    if (c && c->idle) {
        c->idle = 0;
        r->idle_chans--;
    }
    if (!c && (c = chan_new(r->e)) && ts_u64map_put(r->chans, k, c)) {
        free(c);
        eng_fail(r->e, TS_ENOMEM, "out of memory");
        return NULL;
    }
    if (c) {
        r->recent[slot].key = k;
        r->recent[slot].c = c;
    }
    return c;
}

/* Empty channels a rank keeps before dropping them all (chan_tidy). */
enum { IDLE_CHANS_MAX = 64 };

typedef struct {
    uint64_t keys[IDLE_CHANS_MAX + 1];
    size_t n;
} idle_keys_t;

static void collect_idle(uint64_t key, void *value, void *ctx)
{
    idle_keys_t *k = ctx;
    if (((chan_t *)value)->idle && k->n < IDLE_CHANS_MAX + 1)
        k->keys[k->n++] = key;
}

/* A channel that holds nothing stays for its next message (most (communicator, source, tag)
 * come back message after message, and dropping and remaking them costs), but a
 * rank keeps at most IDLE_CHANS_MAX of them, so memory follows what is in flight even when
 * tags never repeat. Collective channels stay: there is one per communicator and peer. */
static void chan_tidy(rank_t *r, chan_t *c, int32_t tag)
{
    if (tag == COLL_TAG || c->env_head || c->post_head || c->idle)
        return;
    c->idle = 1;
    if (++r->idle_chans <= IDLE_CHANS_MAX)
        return;
    idle_keys_t k = {.n = 0};
    ts_u64map_each(r->chans, collect_idle, &k);
    for (size_t i = 0; i < k.n; i++)
        spare_give(&r->e->spare_chans, ts_u64map_remove(r->chans, k.keys[i]));
    r->idle_chans = 0;
    /* Channels leave the map only here: no cached pointer may outlive its channel. */
    memset(r->recent, 0, sizeof r->recent);
}

SPARE_TAKER(msg_new, msg_t, spare_msgs)
SPARE_TAKER(req_new, req_t, spare_reqs)

static void req_drop(engine_t *e, req_t *q)
{
    spare_give(&e->spare_reqs, q);
}

static void msg_unref(engine_t *e, msg_t *m)
{
    if (--m->refs == 0) {
        free(m->own_plan);
        spare_give(&e->spare_msgs, m);
    }
}

/* Registration cost unless this rank registered a buffer of this size before: traces carry
 * no addresses, so a size stands for a buffer (halo buffers are reused every iteration).
 * Where every buffer is new (model.net.rcache=none, IMB's -off_cache) each one costs. */
static double reg_cost(rank_t *r, uint64_t size, double cost)
{
    if (cost <= 0)
        return 0;
    if (!ts_proto_reg_reuse(r->e->spec->proto))
        return cost;
    if (ts_u64map_get(r->rcache, size + 1))
        return 0;
    if (ts_u64map_put(r->rcache, size + 1, r)) /* any non-NULL value marks presence */
        eng_fail(r->e, TS_ENOMEM, "out of memory");
    return cost;
}

/* The protocol plan of a message. A replay sends millions of messages of a few thousand
 * sizes, and choosing each one's protocol anew is not cheap, so plans are kept by size,
 * locality and kind (TS_PLAN_*: the plan depends on nothing else). The cache stops growing at
 * PLAN_CACHE_MAX entries: a trace of endlessly varied sizes then pays the choice per message
 * instead of its memory. */
enum { PLAN_CACHE_MAX = 1 << 16 };

static const ts_msg_plan_t *plan_for(engine_t *e, msg_t *m, ts_locality loc, int kind)
{
    uint64_t bytes = m->bytes;
    uint64_t key = eng_plan_key(bytes, loc, kind);
    const ts_msg_plan_t *hit = key && e->plans ? ts_u64map_get(e->plans, key) : NULL;
    if (hit)
        return hit;
    ts_msg_plan_t *plan = malloc(sizeof *plan);
    if (!plan) {
        eng_fail(e, TS_ENOMEM, "out of memory");
        return NULL;
    }
    ts_proto_plan_kind(e->spec->proto, bytes, loc, kind, plan);
    if (key && e->plans && ts_u64map_size(e->plans) < PLAN_CACHE_MAX &&
        ts_u64map_put(e->plans, key, plan) == 0)
        return plan;
    m->own_plan = plan; /* not kept: the message frees it */
    e->plans_partial = 1;
    return plan;
}

/* ---- delivery: each message in flight, step by step ------------------------------------ */

/* The next delivery step of m: now, or `seconds` later. 1: go on at once. */
static int step_after(engine_t *e, msg_t *m, int next, double seconds)
{
    m->dstate = next;
    if (seconds <= 0)
        return 1;
    queue_at(e, as_item(m), e->now + seconds);
    return 0;
}

/* The first progress point of rank r at or after time since, or -1 if it has none yet. */
static double progress_after(const rank_t *r, double since)
{
    double best = -1;
    unsigned n = r->nprog < PROG_RING ? r->nprog : PROG_RING;
    for (unsigned i = 0; i < n; i++) {
        double t = r->prog_at[(r->nprog - 1 - i) % PROG_RING];
        if (t < since)
            break; /* newest first: the rest are older */
        best = t;
    }
    return best;
}

/* Whether rank r was computing at time t: inside one of its last compute bursts (the trace's,
 * or a collective's reduction between rounds: eng_compute), not polling UCX. A rank that runs
 * ahead of the clock has recorded the burst before a delivery asks. */
static int computing(const rank_t *r, double t)
{
    unsigned n = r->nspans < COMP_RING ? r->nspans : COMP_RING;
    for (unsigned i = 0; i < n; i++) {
        const double *s = r->comp_span[(r->nspans - 1 - i) % COMP_RING];
        if (s[0] <= t && t < s[1])
            return 1;
        if (s[1] <= t)
            break; /* newest first: the rest ended earlier */
    }
    return 0;
}

/* Message m's step that needs rank who inside an MPI call at or after time since: 1 when it
 * is there now (it is blocked in a wait, or has finished: MPI_Finalize progresses), and
 * the step goes on as `next`; else 0: m takes `next` at who's first progress point from
 * `since` on, or, when who has none yet, waits in who's list and checks again when who
 * reaches one (progress_point). */
static int progress_then(engine_t *e, rank_t *who, msg_t *m, double since, int next)
{
    double now = e->now;
    if ((who->awaited && who->wait_from <= now) || who->finished) {
        m->dstate = next;
        return 1;
    }
    double t = progress_after(who, since);
    if (t >= 0) /* not inside a call now, but will be at t */
        return step_after(e, m, next, t - now);
    m->since = since;
    m->next_prog = who->prog_waiters;
    who->prog_waiters = m;
    return 0;
}

/* Give every message waiting for rank r to progress its next look. */
void eng_wake_progress_waiters(rank_t *r)
{
    msg_t *m = r->prog_waiters;
    r->prog_waiters = NULL;
    for (msg_t *next; m; m = next) {
        next = m->next_prog;
        queue_at(r->e, as_item(m), r->e->now);
    }
}

/* Rank r enters a call that progresses UCX (a wait) at its virtual time. */
static void progress_point(rank_t *r)
{
    r->prog_at[r->nprog++ % PROG_RING] = vnow(r);
    if (r->prog_waiters)
        eng_wake_progress_waiters(r);
}

/* Take m's delivery steps from m->dstate on, until one must wait (for a time, the match, a
 * progress point or the flow). The driver calls it again when that is over; each call starts
 * at the clock. The steps, for rendezvous: the RTS travels, waits for the receive, the
 * receiver's progress and registration, the RTR travels back and waits for the sender's
 * progress (put / am); then for every protocol the latency, the flow, the arrival, and for
 * zcopy and rendezvous the acknowledgement back to the sender. */
void eng_deliver(engine_t *e, msg_t *m)
{
    rank_t *src = &e->ranks[m->src], *dst = &e->ranks[m->dst];
    const ts_msg_plan_t *p = m->plan;
    double now = e->now;
    switch (m->dstate) {
    case D_BEGIN:
        if (!ts_proto_is_rndv(p->proto)) {
            if (!step_after(e, m, D_FLOW, p->latency))
                return;
            goto flow;
        }
        if (!step_after(e, m, D_RTS, p->rts_latency))
            return;
        /* fall through */
    case D_RTS:
        m->rts_at = now;
        if (p->busy_cost > 0 && computing(dst, now))
            m->busy |= BUSY_COMPUTING;
        m->dstate = D_MATCH;
        /* fall through */
    case D_MATCH:
        if (!m->matched) {
            m->await_match = 1; /* match() queues it */
            return;
        }
        /* Posted ahead of the clock (the receiver runs ahead on lazy time): the RTS waits
         * for that MPI_Irecv, which finds it and starts the transfer. */
        if (!step_after(e, m, D_POSTED, m->recv_post_time - now))
            return;
        /* fall through */
    case D_POSTED:
        if ((p->progress & TS_PROG_RECV) && m->recv_post_time <= m->rts_at) {
            /* Posted before the RTS came: the RTS is handled when the receiver next runs
             * progress inside an MPI call. (Posted after it: the Irecv itself handled it.) */
            if (!progress_then(e, dst, m, m->rts_at, D_REG))
                return;
        } else if (p->progress & TS_PROG_RECV_DATA) {
            /* The Irecv found the RTS but only queued the copy: it runs at the receiver's
             * next progress call. */
            if (!progress_then(e, dst, m, m->recv_post_time, D_REG))
                return;
        }
        /* fall through */
    case D_REG:
        if (!step_after(e, m, D_RTR, reg_cost(dst, m->bytes, p->recv_reg)))
            return;
        /* fall through */
    case D_RTR:
        if (p->rtr_latency <= 0) {
            m->dstate = D_LATENCY;
            goto latency;
        }
        /* put / am: the RTR goes back; the sender moves the data */
        if (!step_after(e, m, D_RTR_BACK, p->rtr_latency))
            return;
        /* fall through */
    case D_RTR_BACK:
        m->since = now; /* the RTR has arrived */
        m->dstate = D_SENDER;
        /* fall through */
    case D_SENDER:
        if ((p->progress & TS_PROG_SEND) && !progress_then(e, src, m, m->since, D_LATENCY))
            return;
        /* fall through */
    case D_LATENCY:
    latency:
        if (!step_after(e, m, D_FLOW, p->latency))
            return;
        /* fall through */
    case D_FLOW:
    flow:
        m->dstate = D_ARRIVED;
        if (p->wire_bytes && src->host != dst->host) {
            eng_flow_start(e, m); /* queued again when the bytes are through */
            return;
        }
        /* fall through */
    case D_ARRIVED:
        m->arrived = 1;
        m->arrival_time = now;
        notify(dst, m->rreq);
        if (p->completes_locally)
            break;
        m->dstate = D_ACK;
        /* fall through */
    case D_ACK: /* the receiver reaps the completion, then acks */
        if ((p->progress & TS_PROG_ACK) && !progress_then(e, dst, m, m->arrival_time, D_ACKED))
            return;
        /* fall through */
    case D_ACKED:
        if (!step_after(e, m, D_DONE, p->ack_latency))
            return;
        /* fall through */
    case D_DONE:
        m->send_done = 1;
        notify(src, m->sreq);
        break;
    }
    msg_unref(e, m);
}

/* Start m's delivery (the clock is at the sender's time). */
void eng_dispatch(rank_t *r, msg_t *m)
{
    m->dstate = D_BEGIN;
    eng_deliver(r->e, m);
}

/* ---- matching ------------------------------------------------------------------------ */

static void match(engine_t *e, msg_t *m, req_t *rreq)
{
    m->rreq = rreq;
    m->matched = 1;
    m->recv_post_time = rreq->post_time;
    rreq->msg = m;
    if (m->await_match) { /* its delivery waits for the match */
        m->await_match = 0;
        queue_at(e, as_item(m), e->now);
    }
}

req_t *eng_post_send(rank_t *r, int32_t dst, int32_t comm, int32_t tag, uint64_t bytes, int kind)
{
    engine_t *e = r->e;
    const ts_replay_layout_t *lay = &e->spec->layout;
    ts_locality loc = dst == r->id ? TS_LOC_SELF : lay->locality(lay->locality_ctx, r->id, dst);
    msg_t *m = msg_new(e);
    req_t *q = m ? req_new(e) : NULL;
    if (!q) {
        if (m) /* back to the spares */
            spare_give(&e->spare_msgs, m);
        return NULL;
    }
    /* msg_new and req_new give zeroed objects */
    m->src = r->id;
    m->dst = dst;
    m->comm = comm;
    m->tag = tag;
    m->bytes = bytes;
    m->refs = 3; /* delivery, send and receive sides */
    const ts_msg_plan_t *p = m->plan = plan_for(e, m, loc, kind);
    if (!p) {
        spare_give(&e->spare_msgs, m);
        req_drop(e, q);
        return NULL;
    }
    ts_proto_count_t *cnt = &e->res->count[p->transport][p->proto];
    cnt->msgs++;
    cnt->bytes += bytes;
    /* A rendezvous of what a reduction of this collective has just written (its lines dirty
     * in this core's cache, where the receiver's copy must fetch them) costs the receiver
     * model.ucx.rndv_written_cost. */
    if (r->at == AT_COLL && r->coll.written && p->written_cost > 0 && ts_proto_is_rndv(p->proto))
        m->busy |= BUSY_WRITTEN;
    spend(r, p->send_cpu + (double)p->send_copy / p->copy_bw + reg_cost(r, bytes, p->send_reg));
    q->is_send = 1;
    q->msg = m;
    m->sreq = q;
    q->done = p->completes_locally;
    rank_t *d = &e->ranks[dst];
    chan_t *c = chan_get(d, comm, r->id, tag);
    if (!c)
        return q;
    if (c->post_head) {
        req_t *rq = c->post_head;
        c->post_head = rq->next;
        if (!c->post_head)
            c->post_tail = NULL;
        match(e, m, rq);
        chan_tidy(d, c, tag);
    } else {
        if (c->env_tail)
            c->env_tail->next = m;
        else
            c->env_head = m;
        c->env_tail = m;
    }
    if (p->completes_locally && !ts_proto_is_rndv(p->proto) &&
        p->wire_bytes <= e->spec->flowless_bytes) {
        /* Too small to load a link measurably: no courier, no flow. The message is "arrived"
         * with a future arrival time; the receiver sleeps until then (eng_wait_req). */
        m->arrived = 1;
        m->arrival_time =
            vnow(r) + p->latency + (p->bandwidth > 0 ? (double)p->wire_bytes / p->bandwidth : 0);
        m->refs--; /* no courier holds it */
        if (m->matched)
            notify(d, m->rreq);
        return q;
    }
    if (r->debt > 0) /* the courier starts from the real clock: once it reaches the rank */
        r->to_dispatch = m;
    else
        eng_dispatch(r, m);
    return q;
}

req_t *eng_post_recv(rank_t *r, int32_t src, int32_t comm, int32_t tag, uint64_t bytes)
{
    req_t *q = req_new(r->e);
    if (!q)
        return NULL;
    *q = (req_t){.comm = comm, .peer = src, .tag = tag, .bytes = bytes, .post_time = vnow(r)};
    chan_t *c = chan_get(r, comm, src, tag);
    if (!c)
        return q;
    if (c->env_head) {
        msg_t *m = c->env_head;
        c->env_head = m->next;
        if (!c->env_head)
            c->env_tail = NULL;
        match(r->e, m, q);
        chan_tidy(r, c, tag);
    } else {
        if (c->post_tail)
            c->post_tail->next = q;
        else
            c->post_head = q;
        c->post_tail = q;
    }
    return q;
}

int eng_req_complete(const req_t *q)
{
    if (q->is_send)
        return q->done || q->msg->send_done;
    return q->msg && q->msg->arrived;
}

void eng_describe(rank_t *r, const req_t *q)
{
    const char *fn = r->func >= 0 ? ts_trace_func_name(r->e->t, r->func) : "replay";
    if (q->is_send)
        snprintf(r->waiting, sizeof r->waiting,
                 "%s: send of %llu bytes to rank %d (tag %d, communicator %d) not completed", fn,
                 (unsigned long long)q->msg->bytes, (int)q->msg->dst, (int)q->msg->tag,
                 (int)q->msg->comm);
    else
        snprintf(r->waiting, sizeof r->waiting,
                 "%s: receive from rank %d (tag %d, communicator %d) that no send matches", fn,
                 (int)q->peer, (int)q->tag, (int)q->comm);
}

/* Complete request q, or block on it: 1 when it completed (the receiver's copies charged and q
 * released), 0 when the rank now waits for it (eng_rank_step picks it up when notify() wakes it).
 * The rank enters the wait at its virtual time (vnow, kept in wait_from) without sleeping its
 * debt first: a completion before then leaves it the rest to run ahead with. While it waits
 * ahead of the clock it is not inside the call yet: progress_then looks at wait_from. What it
 * waits for is put in words only if the run ends with it still waiting (eng_describe, for the
 * deadlock report): formatting it at every blocking wait would be a cost per message. */
int eng_wait_req(rank_t *r, req_t *q)
{
    if (!r->entered) {
        progress_point(r);
        r->entered = 1;
    }
    if (!eng_req_complete(q)) {
        r->wait_from = vnow(r);
        r->debt = 0;
        r->awaited = q;
        return 0;
    }
    r->entered = 0;
    msg_t *m = q->msg;
    if (!q->is_send) {
        const ts_msg_plan_t *p = m->plan;
        double early = m->arrival_time - vnow(r);
        if (early > 0) /* a flowless message still on its way */
            spend(r, early);
        uint64_t copy = p->recv_copy;
        if (!ts_proto_is_rndv(p->proto) && m->arrival_time < m->recv_post_time)
            copy += p->unexpected_copy; /* it waited in UCX's buffer */
        /* A collective component on UCX's tag API skips the pml's share of the receive. */
        double rcpu = p->recv_cpu;
        if (r->at == AT_COLL && ts_coll_comp_skips_pml(r->sched_key.ch.comp))
            rcpu -= p->pml_recv;
        /* The handshake's software (RTS, key unpack, ATS) runs on this rank's CPU inside its
         * MPI calls, one message after another: charged here, not as time in flight. */
        spend(r, (double)copy / p->copy_bw + rcpu + p->handshake +
                     ((m->busy & BUSY_COMPUTING) ? p->busy_cost : 0) +
                     ((m->busy & BUSY_WRITTEN) ? p->written_cost : 0));
    }
    msg_unref(r->e, m);
    req_drop(r->e, q);
    return 1;
}

/* Complete list[r->wi..n) in order: 1 when all did, 0 when the rank blocked on one. */
int eng_wait_list(rank_t *r, req_t **list, size_t n)
{
    for (; r->wi < n; r->wi++)
        if (!eng_wait_req(r, list[r->wi]))
            return 0;
    r->wi = 0;
    return 1;
}

/* Append q to a growing list of requests (a call's blocking operations, a collective
 * round's messages). */
void eng_reqs_add(rank_t *r, req_t ***list, size_t *n, size_t *cap, req_t *q)
{
    if (!q)
        return;
    if (ts_grow(list, cap, *n, sizeof **list, 8) != 0) {
        eng_fail(r->e, TS_ENOMEM, "out of memory");
        return;
    }
    (*list)[(*n)++] = q;
}
