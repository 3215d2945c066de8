/* engine.c - the replay engine (see engine.h): SimGrid actors for ranks and for messages in
 * flight, MPI matching and requests, and the accounting of the result.
 *
 * Timing of one message (costs from models/protocol):
 *   the sender actor spends the sender's CPU work, matches the message against the
 *   receiver's posted receives (or queues it as unexpected) and hands it to a courier actor;
 *   the courier waits the latency (and, for rendezvous, the RTS and the receiver's
 *   match and registration), moves wire_bytes with sg_host_sendto so that it shares links
 *   with every other flow, marks the data arrived, and for zcopy/rendezvous delivers the
 *   send completion ack_latency later;
 *   the receiver's wait returns once the data arrived, after its copy-out (and the extra
 *   copy of an unexpected message).
 * Matching is done when both sides are known, in send order per (communicator, source,
 * tag): MPI's non-overtaking rule. Traces record each receive's actual source and tag, so
 * there are no wildcards left to resolve.
 *
 * Synchronisation: SimGrid actors run one at a time and switch only inside SimGrid calls,
 * so shared state needs no locking. Ranks and couriers wait by suspending and are resumed by
 * whoever changes what they wait for: one simcall each way where mutex + condition took
 * four. A waiter checks its condition and suspends without yielding in between, so a
 * wake-up cannot fall between the two; notifying needs no lock for the same reason. */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>

#include "../common/grow.h"
#include "../common/u64map.h"
#include "../traces/recv_ahead.h"

typedef struct engine_s engine_t;
typedef struct rank_s rank_t;
typedef struct msg_s msg_t;
typedef struct courier_s courier_t;

enum { PROG_RING = 16 };

/* A request of a rank: a send or a receive. */
typedef struct req_s {
    int is_send;
    msg_t *msg;              /* NULL for a receive not matched yet */
    int32_t comm, peer, tag; /* what a receive waits for */
    uint64_t bytes;
    double post_time;
    int done;           /* a send that completed locally */
    struct req_s *next; /* in a channel's posted-receive queue */
} req_t;

struct msg_s {
    int32_t src, dst, comm, tag;
    uint64_t bytes;
    ts_msg_plan_t plan;
    req_t *rreq;        /* the matched receive */
    req_t *sreq;        /* the send (identity only: it may be freed before us) */
    courier_t *carrier; /* the courier carrying it */
    int matched, arrived, send_done;
    double recv_post_time, arrival_time;
    int refs;    /* message actor, send request, receive side (queued or
                  * matched): freed when all three are done with it */
    msg_t *next; /* in a channel's unexpected queue */
};

/* The messages and posted receives of one (communicator, source, tag) at a receiver. */
typedef struct chan_s {
    msg_t *env_head, *env_tail;
    req_t *post_head, *post_tail;
} chan_t;

struct rank_s {
    engine_t *e;
    int32_t id;
    sg_host_t host;
    sg_actor_t actor;
    ts_cursor_t *cur;
    ts_recv_ahead_t *look; /* finds each receive's envelope further on */
    ts_u64map_t *reqs;     /* request id -> req_t */
    ts_u64map_t *chans;    /* (comm, source, tag) -> chan_t */
    ts_u64map_t *rcache;   /* registered sizes (UCX's registration cache) */
    ts_csched_t sched;     /* the current collective's schedule (reused) */
    req_t **coll_reqs;     /* messages of the current collective round */
    size_t ncoll_reqs, capcoll_reqs;
    req_t **call_reqs; /* blocking operations of the current call */
    size_t ncall, capcall;
    int32_t func;
    double enter;
    int finished;
    double end;
    double debt;          /* time this rank has spent but not yet slept (see spend) */
    char waiting[256];    /* what the rank waits for, written for the deadlock report */
    const req_t *awaited; /* the request the rank is blocked on, or NULL */
    double wait_from;     /* the virtual time at which it entered that wait (see wait_req) */
    courier_t *idle;      /* couriers waiting for a message to carry */
    courier_t *couriers;  /* all of them, to free at the end */
    /* Progress (model.mpi.progress = calls): a rendezvous step this rank must act on waits
     * until the rank is inside an MPI call. The rank is there while suspended in a wait
     * (awaited is set), and at each wait it enters, whose (virtual) times the ring keeps: a
     * rank that runs ahead of the clock has passed them before a courier asks. */
    double prog_at[PROG_RING];
    unsigned nprog;          /* progress points recorded (the ring keeps the last ones) */
    courier_t *prog_waiters; /* couriers waiting for this rank's next progress point */
};

struct engine_s {
    const ts_replay_spec_t *spec;
    const ts_trace_t *t;
    int32_t nranks;
    rank_t *ranks;
    ts_replay_result_t *res;
    const ts_coll_model_t *coll;
    ts_coll_model_t *own_coll; /* built from the defaults when the spec brings none */
    ts_coll_topo_t **topo;     /* per communicator, built on first use */
    size_t capcoll;            /* capacity of res->coll */
    int32_t nfinished;         /* ranks that reached the end of their stream */
    uint64_t events_done;      /* events replayed so far, all ranks: for spec->progress */
    uint64_t events_total;
    int shutdown;     /* all ranks have: idle couriers may end */
    ts_status status; /* first error inside the simulation */
    ts_error_t *err;
    void *spare_msgs;   /* freed messages and requests, reused: a replay makes and */
    void *spare_reqs;   /* drops one of each per message */
    void *spare_chans;  /* channels, dropped when empty (chan_tidy) */
    ts_u64map_t *plans; /* (size, locality, blocking) -> ts_msg_plan_t (see plan_for) */
};

/* ---- helpers ------------------------------------------------------------------------ */

static void fail(engine_t *e, ts_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(engine_t *e, ts_status st, const char *fmt, ...)
{
    if (e->status != TS_OK)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *name = e->spec->trace_name ? e->spec->trace_name : ts_trace_path(e->t);
    e->status = ts_error_set(e->err, st, "%s: %s", name, msg);
}

/* A trace read failed. The cursor names the file it reads ("F: rank 0, chunk 1: ..."); fail
 * names the trace as the user gave it: say it once. */
static void fail_read(engine_t *e, ts_status st, const ts_error_t *err)
{
    const char *msg = err->msg, *path = ts_trace_path(e->t);
    size_t plen = strlen(path);
    if (strncmp(msg, path, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
        msg += plen + 2;
    fail(e, st, "%s", msg);
}

static void *xcalloc(engine_t *e, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        fail(e, TS_ENOMEM, "out of memory");
    return p;
}

/* The tag of every collective's messages, as Open MPI's coll components use one tag per
 * operation: MPI's non-overtaking order pairs them up call after call (every rank runs its
 * communicator's collectives in the same order, and each schedule sends to and receives from
 * a peer in the same order on both sides). Negative: never an application's tag. */
#define COLL_TAG (-1)

static uint64_t chan_key(int32_t comm, int32_t src, int32_t tag)
{
    return (uint64_t)(uint32_t)tag | (uint64_t)(uint32_t)src << 32 | (uint64_t)(uint32_t)comm << 52;
}

/* Free lists: a spare object's first bytes hold the link to the next spare. */
static void *spare_take(engine_t *e, void **spares, size_t size)
{
    void *p = *spares;
    if (!p)
        return xcalloc(e, 1, size);
    memcpy(spares, p, sizeof *spares);
    memset(p, 0, size);
    return p;
}

static void spare_give(void **spares, void *p)
{
    memcpy(p, spares, sizeof *spares);
    *spares = p;
}

static chan_t *chan_get(rank_t *r, int32_t comm, int32_t src, int32_t tag)
{
    uint64_t k = chan_key(comm, src, tag);
    chan_t *c = ts_u64map_get(r->chans, k);
    if (!c && (c = spare_take(r->e, &r->e->spare_chans, sizeof *c)) &&
        ts_u64map_put(r->chans, k, c)) {
        free(c);
        fail(r->e, TS_ENOMEM, "out of memory");
        return NULL;
    }
    return c;
}

/* Drop a channel once it holds nothing, so memory follows what is in flight. Collective
 * channels stay: there is one per communicator and peer, used call after call. */
static void chan_tidy(rank_t *r, chan_t *c, int32_t comm, int32_t src, int32_t tag)
{
    if (tag != COLL_TAG && !c->env_head && !c->post_head) {
        ts_u64map_remove(r->chans, chan_key(comm, src, tag));
        spare_give(&r->e->spare_chans, c);
    }
}

static msg_t *msg_new(engine_t *e)
{
    return spare_take(e, &e->spare_msgs, sizeof(msg_t));
}

static req_t *req_new(engine_t *e)
{
    return spare_take(e, &e->spare_reqs, sizeof(req_t));
}

static void req_drop(engine_t *e, req_t *q)
{
    spare_give(&e->spare_reqs, q);
}

static void msg_unref(engine_t *e, msg_t *m)
{
    if (--m->refs == 0)
        spare_give(&e->spare_msgs, m);
}

/* Wake rank r if it is blocked on request q. Waking it for anything else would only make it
 * check and sleep again: a context switch per message for nothing. */
static void notify(rank_t *r, const req_t *q)
{
    if (q && r->awaited == q)
        sg_actor_resume(r->actor);
}

static void delay(double seconds)
{
    if (seconds > 0)
        sg_actor_sleep_for(seconds);
}

/* Lazy time for ranks. A rank's own work (overheads, copies, compute bursts, reductions) is
 * added to its debt instead of slept at once: the rank runs ahead of SimGrid's clock, at
 * vnow(), and sleeps the debt off (settle) only where the real clock matters: before it blocks
 * and before it hands a message to a courier. Every time the rank observes is taken at
 * vnow(), so results are those of sleeping each delay, minus a context switch per delay. */
static double vnow(const rank_t *r)
{
    return simgrid_get_clock() + r->debt;
}

static void spend(rank_t *r, double seconds)
{
    if (seconds > 0)
        r->debt += seconds;
}

static void settle(rank_t *r)
{
    if (r->debt > 0) {
        double d = r->debt;
        r->debt = 0;
        sg_actor_sleep_for(d);
    }
}

/* Registration cost unless this rank registered a buffer of this size before: traces carry
 * no addresses, so a size stands for a buffer (halo buffers are reused every iteration). */
static double reg_cost(rank_t *r, uint64_t size, double cost)
{
    if (cost <= 0 || ts_u64map_get(r->rcache, size + 1))
        return 0;
    if (ts_u64map_put(r->rcache, size + 1, r)) /* any non-NULL value marks presence */
        fail(r->e, TS_ENOMEM, "out of memory");
    return cost;
}

/* The protocol plan of a message. A replay sends millions of messages of a few thousand
 * sizes, and choosing each one's protocol anew was 5 % of it, so plans are kept by size,
 * locality and blocking (the plan depends on nothing else). The cache stops growing at
 * PLAN_CACHE_MAX entries: a trace of endlessly varied sizes then pays the choice per message
 * instead of its memory. */
enum { PLAN_CACHE_MAX = 1 << 16 };

static void plan_for(engine_t *e, uint64_t bytes, ts_locality loc, int blocking, ts_msg_plan_t *out)
{
    uint64_t key =
        bytes < (UINT64_C(1) << 56) ? (bytes << 5 | (uint64_t)loc << 1 | !!blocking) + 1 : 0;
    const ts_msg_plan_t *hit = key && e->plans ? ts_u64map_get(e->plans, key) : NULL;
    if (hit) {
        *out = *hit;
        return;
    }
    ts_proto_plan(e->spec->proto, bytes, loc, blocking, out);
    if (!key || !e->plans || ts_u64map_size(e->plans) >= PLAN_CACHE_MAX)
        return;
    ts_msg_plan_t *keep = malloc(sizeof *keep);
    if (!keep)
        return; /* no cache entry: the plan is still right */
    *keep = *out;
    if (ts_u64map_put(e->plans, key, keep))
        free(keep);
}

/* ---- couriers: the actors that carry messages ---------------------------------------- */

/* A message in flight needs an actor of its own (it waits for latencies, the receiver's match
 * and its share of the links while both ranks go on). Creating one per message cost most of
 * a replay, so each rank keeps the couriers it has used and reuses the idle ones: there are
 * only as many as the rank ever had messages in flight at once. */
struct courier_s {
    rank_t *home;
    sg_actor_t actor;
    msg_t *job;
    courier_t *next_idle;
    courier_t *next_all;
    courier_t *next_prog; /* in a rank's prog_waiters */
    int in_prog;          /* it is in that list */
};

/* A courier waits by suspending itself until whoever changes what it waits for resumes it,
 * as ranks do (see the top of this file): it checks its condition and suspends with no
 * simcall in between, so no wake-up is lost, and each loop checks again after a resume.
 * Resuming an actor that is not suspended does nothing. A mutex and a condition variable
 * cost a lock, a wait and an unlock here and a notify there, each a context switch. */
static void courier_sleep(courier_t *c)
{
    sg_actor_suspend(c->actor);
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

/* Courier c waits until rank who is inside an MPI call at or after time since: at once if
 * it is suspended in a wait (or has finished: MPI_Finalize progresses), else until its first
 * progress point from then on. */
static void await_progress(rank_t *who, courier_t *c, double since)
{
    double t = -1;
    while (!(who->awaited && who->wait_from <= simgrid_get_clock()) && !who->finished &&
           (t = progress_after(who, since)) < 0) {
        if (!c->in_prog) {
            c->next_prog = who->prog_waiters;
            who->prog_waiters = c;
            c->in_prog = 1;
        }
        courier_sleep(c); /* progress_point() or the rank's end resumes it */
    }
    if (t >= 0) /* not inside a call now, but will be at t */
        delay(t - simgrid_get_clock());
}

/* Wake every courier waiting for rank r to progress. */
static void wake_progress_waiters(rank_t *r)
{
    courier_t *c = r->prog_waiters;
    r->prog_waiters = NULL;
    for (courier_t *next; c; c = next) {
        next = c->next_prog;
        c->in_prog = 0;
        sg_actor_resume(c->actor);
    }
}

/* Rank r enters a call that progresses UCX (a wait) at its virtual time. */
static void progress_point(rank_t *r)
{
    r->prog_at[r->nprog++ % PROG_RING] = vnow(r);
    if (r->prog_waiters)
        wake_progress_waiters(r);
}

static void deliver(engine_t *e, msg_t *m)
{
    rank_t *src = &e->ranks[m->src], *dst = &e->ranks[m->dst];
    const ts_msg_plan_t *p = &m->plan;
    if (ts_proto_is_rndv(p->proto)) {
        delay(p->rts_latency);
        double rts_at = simgrid_get_clock();
        courier_t *c = m->carrier;
        while (!m->matched) /* match() resumes the carrier */
            courier_sleep(c);
        double now = simgrid_get_clock();
        if (m->recv_post_time > now)
            /* Posted ahead of the clock (the receiver runs ahead on lazy time): the RTS waits
             * for that MPI_Irecv, which finds it and starts the transfer. */
            delay(m->recv_post_time - now);
        if ((p->progress & TS_PROG_RECV) && m->recv_post_time <= rts_at)
            /* Posted before the RTS came: the RTS is handled when the receiver next runs
             * progress inside an MPI call. (Posted after it: the Irecv itself handled it.) */
            await_progress(dst, c, rts_at);
        else if (p->progress & TS_PROG_RECV_DATA)
            /* The Irecv found the RTS but only queued the copy: it runs at the receiver's
             * next progress call. */
            await_progress(dst, c, m->recv_post_time);
        delay(reg_cost(dst, m->bytes, p->recv_reg));
        if (p->rtr_latency > 0) { /* put / am: the RTR goes back; the sender moves the data */
            delay(p->rtr_latency);
            if (p->progress & TS_PROG_SEND)
                await_progress(src, c, simgrid_get_clock());
        }
    }
    delay(p->latency);
    if (p->wire_bytes && src->host != dst->host)
        sg_host_sendto(src->host, dst->host, (double)p->wire_bytes);
    m->arrived = 1;
    m->arrival_time = simgrid_get_clock();
    notify(dst, m->rreq);
    if (!p->completes_locally) {
        if (p->progress & TS_PROG_ACK) /* the receiver reaps the completion, then acks */
            await_progress(dst, m->carrier, m->arrival_time);
        delay(p->ack_latency);
        m->send_done = 1;
        notify(src, m->sreq);
    }
    msg_unref(e, m);
}

static void courier_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    courier_t *c = sg_actor_self_get_data();
    rank_t *home = c->home;
    for (;;) {
        while (!c->job && !home->e->shutdown) /* dispatch() or the last rank resumes it */
            courier_sleep(c);
        if (!c->job) /* every rank has finished */
            return;
        msg_t *m = c->job;
        c->job = NULL;
        deliver(home->e, m);
        c->next_idle = home->idle;
        home->idle = c;
    }
}

/* Hand m to an idle courier of rank r, or to a new one. */
static void dispatch(rank_t *r, msg_t *m)
{
    courier_t *c = r->idle;
    if (c) {
        r->idle = c->next_idle;
        c->job = m;
        m->carrier = c;
        sg_actor_resume(c->actor);
        return;
    }
    c = xcalloc(r->e, 1, sizeof *c);
    if (!c)
        return;
    /* Creating an actor is a simcall, during which other actors run: the message names its
     * carrier only once the carrier has an actor that match() can resume. */
    sg_actor_t a = sg_actor_init("courier", r->host);
    c->actor = a;
    c->home = r;
    c->job = m;
    m->carrier = c;
    c->next_all = r->couriers;
    r->couriers = c;
    sg_actor_set_data(a, c);
    /* Couriers end when the last rank has finished (see rank_main). They are not daemons:
     * SimGrid 3.32 crashed killing daemons that had just delivered at the very moment the
     * last rank ended. */
    sg_actor_start(a, courier_main, 0, NULL);
}

/* ---- matching ------------------------------------------------------------------------ */

static void match(msg_t *m, req_t *rreq)
{
    m->rreq = rreq;
    m->matched = 1;
    m->recv_post_time = rreq->post_time;
    rreq->msg = m;
    if (m->carrier && ts_proto_is_rndv(m->plan.proto)) /* its courier waits for the match */
        sg_actor_resume(m->carrier->actor);
}

static req_t *post_send(rank_t *r, int32_t dst, int32_t comm, int32_t tag, uint64_t bytes,
                        int blocking)
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
    plan_for(e, bytes, loc, blocking, &m->plan);
    ts_proto_count_t *cnt = &e->res->count[m->plan.transport][m->plan.proto];
    cnt->msgs++;
    cnt->bytes += bytes;
    const ts_msg_plan_t *p = &m->plan;
    spend(r, p->send_cpu + (double)p->send_copy / p->copy_bw + reg_cost(r, bytes, p->send_reg));

    *m = (msg_t){.src = r->id,
                 .dst = dst,
                 .comm = comm,
                 .tag = tag,
                 .bytes = bytes,
                 .plan = m->plan,
                 .refs = 3}; /* message actor, send and receive sides */
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
        match(m, rq);
        chan_tidy(d, c, comm, r->id, tag);
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
         * with a future arrival time; the receiver sleeps until then (wait_req). */
        m->arrived = 1;
        m->arrival_time =
            vnow(r) + p->latency + (p->bandwidth > 0 ? (double)p->wire_bytes / p->bandwidth : 0);
        m->refs--; /* no courier holds it */
        if (m->matched)
            notify(d, m->rreq);
        return q;
    }
    settle(r); /* the courier starts from the real clock */
    dispatch(r, m);
    return q;
}

static req_t *post_recv(rank_t *r, int32_t src, int32_t comm, int32_t tag, uint64_t bytes)
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
        match(m, q);
        chan_tidy(r, c, comm, src, tag);
    } else {
        if (c->post_tail)
            c->post_tail->next = q;
        else
            c->post_head = q;
        c->post_tail = q;
    }
    return q;
}

static int req_complete(const req_t *q)
{
    if (q->is_send)
        return q->done || q->msg->send_done;
    return q->msg && q->msg->arrived;
}

static void describe(rank_t *r, const req_t *q)
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

/* Wait until q completes, charge the receiver's copies, and release q. */
static void wait_req(rank_t *r, req_t *q)
{
    progress_point(r);
    if (!req_complete(q)) {
        /* Blocked. The rank suspends at once, its debt not yet slept: it waits from its
         * virtual time `from`, and a completion before that (notify() resumes it) leaves it
         * the rest to run ahead with. Sleeping the debt first, then suspending, took two
         * context switches where this takes one. While suspended ahead of the clock it is
         * not inside the call yet: await_progress looks at wait_from. What it waits for is
         * put in words only if the run ends with it still waiting (the deadlock report):
         * formatting it at every blocking wait cost 2 % of a replay. */
        double from = vnow(r);
        r->debt = 0;
        r->wait_from = from;
        r->awaited = q;
        while (!req_complete(q)) /* notify() resumes it */
            sg_actor_suspend(r->actor);
        r->awaited = NULL;
        double now = simgrid_get_clock();
        if (from > now)
            r->debt = from - now;
    }
    msg_t *m = q->msg;
    if (!q->is_send) {
        const ts_msg_plan_t *p = &m->plan;
        double early = m->arrival_time - vnow(r);
        if (early > 0) /* a flowless message still on its way */
            spend(r, early);
        uint64_t copy = p->recv_copy;
        if (!ts_proto_is_rndv(p->proto) && m->arrival_time < m->recv_post_time)
            copy += p->unexpected_copy; /* it waited in UCX's buffer */
        /* The handshake's software (RTS, key unpack, ATS) runs on this rank's CPU inside its
         * MPI calls, one message after another: charged here, not as time in flight. */
        spend(r, (double)copy / p->copy_bw + p->recv_cpu + p->handshake);
    }
    msg_unref(r->e, m);
    req_drop(r->e, q);
}

/* ---- the rank's event loop ------------------------------------------------------------- */

/* Append q to a growing list of requests (a call's blocking operations, a collective
 * round's messages). */
static void reqs_add(rank_t *r, req_t ***list, size_t *n, size_t *cap, req_t *q)
{
    if (!q)
        return;
    if (ts_grow(list, cap, *n, sizeof **list, 8) != 0) {
        fail(r->e, TS_ENOMEM, "out of memory");
        return;
    }
    (*list)[(*n)++] = q;
}

static void call_add(rank_t *r, req_t *q)
{
    reqs_add(r, &r->call_reqs, &r->ncall, &r->capcall, q);
}

static void round_add(rank_t *r, req_t *q)
{
    reqs_add(r, &r->coll_reqs, &r->ncoll_reqs, &r->capcoll_reqs, q);
}

/* Blocking sends and receives of a call (MPI_Send, MPI_Recv, both halves of MPI_Sendrecv)
 * are posted as they come and completed together when the call returns, so that a
 * Sendrecv's send cannot block its own receive. */
static void call_finish(rank_t *r)
{
    for (size_t i = 0; i < r->ncall; i++)
        wait_req(r, r->call_reqs[i]);
    r->ncall = 0;
}

/* Where the members of a communicator run (for hierarchical components), from the layout's
 * locality; built once per communicator. */
static const ts_coll_topo_t *comm_topo(engine_t *e, int32_t comm)
{
    if (e->topo[comm])
        return e->topo[comm];
    const ts_comm_info_t *ci = ts_trace_comm(e->t, comm);
    const ts_replay_layout_t *lay = &e->spec->layout;
    if (ts_coll_topo_new(ci->size, ci->members, lay->locality, lay->locality_ctx, &e->topo[comm]) !=
        TS_OK)
        fail(e, TS_ENOMEM, "out of memory");
    return e->topo[comm];
}

/* The statistics entry of a decision (few distinct ones: a linear search is enough); its
 * reason is written once, when the decision is first seen. */
static ts_coll_stat_t *coll_stat(engine_t *e, int op, const ts_coll_choice_t *ch)
{
    ts_replay_result_t *res = e->res;
    for (size_t i = 0; i < res->ncoll; i++) {
        ts_coll_stat_t *st = &res->coll[i];
        if (st->op == op && st->comp == ch->comp && st->alg == ch->alg && st->rule == ch->rule)
            return st;
    }
    if (res->ncoll == e->capcoll) {
        size_t cap = e->capcoll ? e->capcoll * 2 : 16;
        ts_coll_stat_t *p = realloc(res->coll, cap * sizeof *p);
        if (!p) {
            fail(e, TS_ENOMEM, "out of memory");
            return NULL;
        }
        res->coll = p;
        e->capcoll = cap;
    }
    ts_coll_stat_t *st = &res->coll[res->ncoll++];
    *st = (ts_coll_stat_t){.op = (uint8_t)op,
                           .comp = (uint8_t)ch->comp,
                           .alg = (uint8_t)ch->alg,
                           .rule = ch->rule,
                           .bytes_min = UINT64_MAX};
    ts_coll_choice_why(e->coll, op, ch, st->why, sizeof st->why);
    return st;
}

/* A collective call: models/coll chooses the component and algorithm as Open MPI would and
 * gives this rank's schedule; its messages go through the same protocol models and network
 * as the application's, round by round, with the reduction work as a delay. */
static void collective(rank_t *r, const ts_event_t *ev)
{
    engine_t *e = r->e;
    const ts_comm_info_t *ci = ts_trace_comm(e->t, ev->comm);
    if (ci->is_self || ci->size <= 1)
        return;
    int32_t me = ts_trace_comm_rank(e->t, ev->comm, r->id);
    if (me < 0) {
        fail(e, TS_ECORRUPT, "rank %d: collective on communicator %d it is not a member of",
             (int)r->id, (int)ev->comm);
        return;
    }
    int32_t root = -1;
    if (ev->peer != TS_ROOT_NONE && (root = ts_trace_comm_rank(e->t, ev->comm, ev->peer)) < 0) {
        fail(e, TS_ECORRUPT, "rank %d: %s on communicator %d with root %d, not a member",
             (int)r->id, ts_coll_op_name(ev->op), (int)ev->comm, (int)ev->peer);
        return;
    }
    const ts_coll_topo_t *topo = comm_topo(e, ev->comm);
    if (!topo)
        return;
    uint64_t b = ts_coll_payload(ev->op, ci->size, ev->peer == r->id, me, ev->bytes, ev->bytes2);
    /* The decision must be the same on every rank: Allgatherv decides on the mean of all
     * counts (sizeReceived / N, equal everywhere) as Open MPI's rule does. */
    uint64_t decide = ev->op == TS_COLL_ALLGATHERV ? ev->bytes2 / (uint64_t)ci->size : b;
    ts_coll_choice_t ch;
    ts_coll_select(e->coll, ev->op, ci->size, decide, &ch);
    if (ch.comp == TS_CCOMP_NONE)
        return;
    ts_status st = ts_coll_schedule(e->coll, &ch, ev->op, topo, me, root, b, &r->sched);
    if (st != TS_OK) {
        fail(e, st, "rank %d: %s by %s/%s: %s", (int)r->id, ts_coll_op_name(ev->op),
             ts_coll_comp_name(ch.comp), ts_coll_alg_name(ch.alg),
             st == TS_ENOMEM ? "out of memory" : "the algorithm does not apply to it");
        return;
    }
    double t0 = vnow(r);
    int32_t tag = COLL_TAG;
    uint64_t msgs = 0;
    for (size_t i = 0; i < r->sched.n && e->status == TS_OK; i++) {
        const ts_cstep_t *s = &r->sched.step[i];
        switch (s->kind) {
        case TS_CSTEP_SEND:
            round_add(r, post_send(r, ci->members[s->peer], ev->comm, tag, s->bytes, 0));
            msgs++;
            break;
        case TS_CSTEP_RECV:
            round_add(r, post_recv(r, ci->members[s->peer], ev->comm, tag, s->bytes));
            break;
        default:
            for (size_t k = 0; k < r->ncoll_reqs; k++)
                wait_req(r, r->coll_reqs[k]);
            r->ncoll_reqs = 0;
            spend(r, ts_coll_reduce_seconds(e->coll, s->bytes));
            break;
        }
    }
    for (size_t k = 0; k < r->ncoll_reqs; k++) /* a schedule always ends a round; be safe */
        wait_req(r, r->coll_reqs[k]);
    r->ncoll_reqs = 0;
    ts_coll_stat_t *cs = coll_stat(e, ev->op, &ch);
    if (cs) {
        cs->calls++;
        cs->msgs += msgs;
        cs->time += vnow(r) - t0;
        if (b < cs->bytes_min)
            cs->bytes_min = b;
        if (b > cs->bytes_max)
            cs->bytes_max = b;
    }
}

static void rank_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    rank_t *r = sg_actor_self_get_data();
    engine_t *e = r->e;
    ts_replay_result_t *res = e->res;
    double scale = e->spec->compute_scale;
    ts_event_t ev;
    ts_error_t err;
    int rc;
    while (e->status == TS_OK && (rc = ts_cursor_next(r->cur, &ev, &err)) == 1) {
        req_t *q;
        if ((++e->events_done & 0xffff) == 0 && e->spec->progress)
            e->spec->progress(e->spec->progress_ctx, e->events_done, e->events_total);
        switch (ev.kind) {
        case TS_EV_COMPUTE:
            spend(r, (double)ev.time * 1e-9 * scale);
            res->compute_time += (double)ev.time * 1e-9 * scale;
            break;
        case TS_EV_ENTER:
            r->func = ev.func;
            r->enter = vnow(r);
            res->visits[ev.func]++;
            break;
        case TS_EV_LEAVE:
            call_finish(r);
            if (r->func >= 0)
                res->time[r->func] += vnow(r) - r->enter;
            r->func = -1;
            break;
        case TS_EV_SEND:
            call_add(r, post_send(r, ev.peer, ev.comm, ev.tag, ev.bytes, 1));
            break;
        case TS_EV_RECV:
            call_add(r, post_recv(r, ev.peer, ev.comm, ev.tag, ev.bytes));
            break;
        case TS_EV_ISEND:
            q = post_send(r, ev.peer, ev.comm, ev.tag, ev.bytes, 0);
            if (q && ts_u64map_put(r->reqs, ev.req, q))
                fail(e, TS_ENOMEM, "out of memory");
            break;
        case TS_EV_IRECV_POST: {
            ts_recv_info_t in;
            int found = ts_recv_ahead_find(r->look, ev.req, &in, &err);
            if (found < 0) {
                fail_read(e, found, &err);
                break;
            }
            if (!found) /* never completed in the trace: nothing will wait for it either */
                break;
            q = post_recv(r, in.peer, in.comm, in.tag, in.bytes);
            if (q && ts_u64map_put(r->reqs, ev.req, q))
                fail(e, TS_ENOMEM, "out of memory");
            break;
        }
        case TS_EV_ISEND_DONE:
        case TS_EV_IRECV_DONE:
            q = ts_u64map_remove(r->reqs, ev.req);
            if (!q) {
                fail(e, TS_EUNMATCHED, "rank %d: %s completes request %llu, which was never posted",
                     (int)r->id, r->func >= 0 ? ts_trace_func_name(e->t, r->func) : "a call",
                     (unsigned long long)ev.req);
                break;
            }
            wait_req(r, q);
            break;
        case TS_EV_COLL:
        case TS_EV_ICOLL_DONE:
            collective(r, &ev);
            break;
        default: /* REQ_TEST, ICOLL_POST, CANCELLED: nothing to simulate */
            break;
        }
    }
    if (e->status == TS_OK && rc < 0)
        fail_read(e, rc, &err);
    r->finished = 1;
    r->end = vnow(r);
    wake_progress_waiters(r);
    if (++e->nfinished == e->nranks) { /* release every idle courier */
        e->shutdown = 1;
        for (int32_t i = 0; i < e->nranks; i++) {
            rank_t *o = &e->ranks[i];
            for (courier_t *c = o->idle; c; c = c->next_idle)
                sg_actor_resume(c->actor);
        }
    }
}

/* ---- setup, run, report -------------------------------------------------------------- */

static void free_req_entry(uint64_t key, void *value, void *ctx)
{
    (void)key;
    (void)ctx;
    free(value); /* requests still open when a replay failed */
}

static void free_value(uint64_t key, void *value, void *ctx)
{
    (void)key;
    (void)ctx;
    free(value);
}

static void ranks_free(engine_t *e)
{
    for (int32_t i = 0; e->ranks && i < e->nranks; i++) {
        rank_t *r = &e->ranks[i];
        ts_cursor_close(r->cur);
        ts_recv_ahead_close(r->look);
        if (r->reqs) {
            ts_u64map_each(r->reqs, free_req_entry, NULL);
            ts_u64map_free(r->reqs);
        }
        if (r->chans) {
            ts_u64map_each(r->chans, free_value, NULL);
            ts_u64map_free(r->chans);
        }
        ts_u64map_free(r->rcache);
        for (courier_t *c = r->couriers, *next; c; c = next) {
            next = c->next_all;
            free(c);
        }
        free(r->call_reqs);
        free(r->coll_reqs);
        ts_csched_free(&r->sched);
    }
    free(e->ranks);
    void **spares[] = {&e->spare_msgs, &e->spare_reqs, &e->spare_chans};
    for (size_t i = 0; i < sizeof spares / sizeof spares[0]; i++)
        while (*spares[i]) {
            void *p = *spares[i];
            memcpy(spares[i], p, sizeof *spares[i]);
            free(p);
        }
    for (int32_t c = 0; e->topo && c < ts_trace_ncomms(e->t); c++)
        ts_coll_topo_free(e->topo[c]);
    free(e->topo);
    ts_coll_model_free(e->own_coll);
    if (e->plans) {
        ts_u64map_each(e->plans, free_value, NULL);
        ts_u64map_free(e->plans);
    }
}

void ts_replay_result_free(ts_replay_result_t *res)
{
    if (!res)
        return;
    free(res->visits);
    free(res->time);
    free(res->coll);
    free(res);
}

ts_status ts_replay_run(const ts_replay_spec_t *spec, ts_replay_result_t **out, ts_error_t *err)
{
    *out = NULL;
    const ts_trace_t *t = spec->trace;
    engine_t e = {.spec = spec,
                  .t = t,
                  .nranks = ts_trace_nranks(t),
                  .err = err,
                  .events_total = ts_trace_nevents(t)};
    if (e.nranks >= (1 << 20) || ts_trace_ncomms(t) >= (1 << 12))
        return ts_error_set(err, TS_EARG,
                            "%s: %d ranks and %d communicators: the engine handles up to "
                            "1,048,575 ranks and 4,095 communicators",
                            spec->trace_name ? spec->trace_name : ts_trace_path(t), (int)e.nranks,
                            (int)ts_trace_ncomms(t));
    e.res = xcalloc(&e, 1, sizeof *e.res);
    if (e.res) {
        e.res->nfuncs = ts_trace_nfuncs(t);
        e.res->visits = xcalloc(&e, (size_t)e.res->nfuncs, sizeof *e.res->visits);
        e.res->time = xcalloc(&e, (size_t)e.res->nfuncs, sizeof *e.res->time);
    }
    e.ranks = xcalloc(&e, (size_t)e.nranks, sizeof *e.ranks);
    e.topo = xcalloc(&e, (size_t)ts_trace_ncomms(t), sizeof *e.topo);
    e.plans = ts_u64map_new(); /* without it every plan is computed: slower, not wrong */
    e.coll = spec->coll;
    if (!e.coll && e.status == TS_OK) {
        ts_params_t *defaults = NULL;
        if (ts_params_new(&defaults) != TS_OK ||
            ts_coll_model_new(defaults, &e.own_coll, err) != TS_OK)
            fail(&e, TS_ENOMEM, "out of memory");
        ts_params_free(defaults);
        e.coll = e.own_coll;
    }
    if (e.status != TS_OK) {
        ts_replay_result_free(e.res);
        free(e.ranks);
        free(e.topo);
        ts_coll_model_free(e.own_coll);
        ts_u64map_free(e.plans); /* empty: nothing was replayed */
        return e.status;
    }

    /* SimGrid's configuration: CM02 shares bandwidth max-min without TCP window or
     * cross-traffic corrections, so a flow's time is its bytes over its share of the
     * tightest link; latencies are the models', not the platform's. Every message has an
     * actor of its own, so stacks are small (the actors' code is shallow) and without guard
     * pages: mapping and protecting them took half of a replay's time in the kernel. */
    char *sg_argv[] = {"tunesim",
                       "--cfg=network/model:CM02",
                       "--cfg=network/TCP-gamma:0",
                       "--cfg=network/crosstraffic:0",
                       "--cfg=contexts/stack-size:32",
                       "--cfg=contexts/guard-size:0",
                       "--log=root.app:file:/dev/null",
                       NULL};
    int sg_argc = 7;
    simgrid_init(&sg_argc, sg_argv);
    simgrid_load_platform(spec->layout.platform_xml);

    for (int32_t i = 0; i < e.nranks && e.status == TS_OK; i++) {
        rank_t *r = &e.ranks[i];
        r->e = &e;
        r->id = i;
        r->func = -1;
        r->host = sg_host_by_name(spec->layout.rank_host[i]);
        if (!r->host) {
            fail(&e, TS_EARG, "rank %d: host '%s' is not in the platform %s", (int)i,
                 spec->layout.rank_host[i], spec->layout.platform_xml);
            break;
        }
        sg_host_set_data(r->host, &e);
        r->reqs = ts_u64map_new();
        r->chans = ts_u64map_new();
        r->rcache = ts_u64map_new();
        if (ts_cursor_open(t, i, &r->cur) != TS_OK || ts_recv_ahead_open(t, i, &r->look) != TS_OK ||
            !r->reqs || !r->chans || !r->rcache)
            fail(&e, TS_ENOMEM, "out of memory");
    }
    if (e.status == TS_OK) {
        for (int32_t i = 0; i < e.nranks; i++) {
            char name[32];
            snprintf(name, sizeof name, "rank-%d", (int)i);
            sg_actor_t a = sg_actor_init(name, e.ranks[i].host);
            sg_actor_set_data(a, &e.ranks[i]);
            e.ranks[i].actor = a;
            sg_actor_start(a, rank_main, 0, NULL);
        }
        simgrid_run();
    }

    if (e.status == TS_OK) {
        /* Ranks that did not finish wait for something that will never happen. */
        char report[1024] = "";
        size_t used = 0;
        int blocked = 0;
        for (int32_t i = 0; i < e.nranks; i++) {
            if (e.ranks[i].finished)
                continue;
            if (e.ranks[i].awaited) /* still suspended in wait_req on it */
                describe(&e.ranks[i], e.ranks[i].awaited);
            if (blocked++ < 4)
                used += (size_t)snprintf(
                    report + used, sizeof report - used, "%srank %d in %s", blocked > 1 ? "; " : "",
                    (int)i, e.ranks[i].waiting[0] ? e.ranks[i].waiting : "an unknown wait");
            if (used >= sizeof report)
                used = sizeof report - 1;
        }
        if (blocked)
            fail(&e, TS_EUNMATCHED, "the trace cannot complete: %d ranks blocked: %s%s", blocked,
                 report, blocked > 4 ? "; ..." : "");
    }
    if (e.status == TS_OK) {
        for (int32_t i = 0; i < e.nranks; i++)
            if (e.ranks[i].end > e.res->makespan)
                e.res->makespan = e.ranks[i].end;
        e.res->rank0_elapsed = e.ranks[0].end;
        *out = e.res;
        e.res = NULL;
    }
    ranks_free(&e);
    ts_replay_result_free(e.res);
    return e.status;
}
