/* engine.c - the replay engine (see engine.h): ranks and messages in flight as state
 * machines run by one driver actor in virtual-time order, SimGrid actors only to carry flows,
 * MPI matching and requests, and the accounting of the result.
 *
 * Timing of one message (costs from models/protocol):
 *   the sender spends the sender's CPU work, matches the message against the receiver's
 *   posted receives (or queues it as unexpected) and starts its delivery (deliver);
 *   the delivery waits the latency (and, for rendezvous, the RTS and the receiver's
 *   match and registration), moves wire_bytes over the route (start_flow: a flow that can
 *   share no link's bandwidth with another is timed by the driver, any other is a courier
 *   actor's SimGrid transfer, so that SimGrid shares links between them), marks the data
 *   arrived, and for zcopy/rendezvous delivers the send completion ack_latency later;
 *   the receiver's wait returns once the data arrived, after its copy-out (and the extra
 *   copy of an unexpected message).
 *   Small eager messages need no delivery: they arrive latency + bytes / bandwidth later.
 * Matching is done when both sides are known, in send order per (communicator, source,
 * tag): MPI's non-overtaking rule. Traces record each receive's actual source and tag, so
 * there are no wildcards left to resolve.
 *
 * Ranks are not actors. Switching between actors is most of what SimGrid costs per call,
 * and a rank only needs SimGrid's clock where a flow may start or end, so one driver actor
 * runs every rank's events and every delivery's steps from a queue ordered by virtual time
 * (common/timeq): a rank runs until it blocks on a request, or until it must start a
 * delivery at a virtual time ahead of the clock; it then goes back to the queue (at that
 * time) or waits to be woken. Where a rank blocks it keeps what it was doing (resume point,
 * wait list, collective step), so the driver can pick it up again. The driver asks SimGrid
 * nothing while no SimGrid flow can end before the queue's next time (flow_horizon, with
 * the ledger's bounds on the flows' rates); otherwise it sleeps until then, or until a
 * courier queues a message whose flow is through (a semaphore with a timeout).
 *
 * Synchronisation: SimGrid actors run one at a time and switch only inside SimGrid calls,
 * so shared state needs no locking. Idle couriers wait by suspending and are resumed by the
 * driver (or, for flows that start together, by the courier that slept until then: carry): a
 * courier checks for a job and suspends with no simcall in between, so a wake-up cannot fall
 * between the two. */
#include "engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/semaphore.h>
#include <xbt/dynar.h>

#include "../common/grow.h"
#include "../common/timeq.h"
#include "../common/u64map.h"
#include "../traces/recv_ahead.h"
#include "ledger.h"

typedef struct engine_s engine_t;
typedef struct rank_s rank_t;
typedef struct msg_s msg_t;
typedef struct courier_s courier_t;
typedef struct flow_s flow_t;

enum { PROG_RING = 16, OPEN_MAX = 32, RECENT_CHANS = 16 };

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

/* Its flags and counts are bytes: one message per MPI message is written and read by both
 * sides, two cache lines rather than three. */
struct msg_s {
    int32_t src, dst, comm, tag;
    uint64_t bytes;
    const ts_msg_plan_t *plan; /* the plan cache's entry, or own_plan (see plan_for) */
    ts_msg_plan_t *own_plan;
    req_t *rreq;         /* the matched receive */
    req_t *sreq;         /* the send (identity only: it may be freed before us) */
    uint8_t dstate;      /* its next delivery step (see deliver) */
    uint8_t await_match; /* its delivery waits for the match (match() queues it) */
    uint8_t matched, arrived, send_done;
    uint8_t refs; /* delivery, send request, receive side (queued or matched):
                   * freed when all three are done with it */
    double recv_post_time, arrival_time;
    double rts_at;    /* when its RTS arrived (rendezvous) */
    double since;     /* the delivery waits for progress from then on */
    msg_t *next_prog; /* in a rank's prog_waiters */
    msg_t *next;      /* in a channel's unexpected queue */
};

/* What a rank's collective schedule depends on besides the communicator's members (zeroed
 * whole, so that memcmp sees no stray padding). */
typedef struct sched_key_s {
    int32_t comm, op, root;
    uint64_t bytes;
    ts_coll_choice_t ch;
} sched_key_t;

/* The messages and posted receives of one (communicator, source, tag) at a receiver. */
typedef struct chan_s {
    msg_t *env_head, *env_tail;
    req_t *post_head, *post_tail;
    int idle; /* empty and counted in its rank's idle_chans (chan_tidy) */
} chan_t;

struct rank_s {
    engine_t *e;
    int32_t id;
    sg_host_t host;
    ts_cursor_t *cur;
    ts_recv_ahead_t *look; /* finds each receive's envelope further on */
    struct {               /* open non-blocking requests by trace id (reqs_put) */
        uint64_t id;
        struct req_s *q;
    } open[OPEN_MAX];
    int nopen;
    ts_u64map_t *reqs;      /* request id -> req_t, for those beyond OPEN_MAX */
    ts_u64map_t *chans;     /* (comm, source, tag) -> chan_t */
    struct {                /* the channels last used, by a few bits of their key: the same */
        uint64_t key;       /* neighbours and tags come back message after message, and the */
        chan_t *c;          /* map's slots and channels of 72 ranks miss the cache (2-4 % */
    } recent[RECENT_CHANS]; /* of the reference replay's time, side by side) */
    size_t idle_chans;      /* empty channels still in chans (chan_tidy) */
    ts_u64map_t *rcache;    /* registered sizes (UCX's registration cache) */
    ts_csched_t sched;      /* the current collective's schedule (reused) */
    sched_key_t sched_key;  /* what sched was built for (the call AT_COLL runs), if valid */
    int sched_valid;
    req_t **coll_reqs; /* messages of the current collective round */
    size_t ncoll_reqs, capcoll_reqs;
    req_t **call_reqs; /* blocking operations of the current call */
    size_t ncall, capcall;
    int32_t func;
    double enter;
    /* Where the rank resumes when the driver runs it again (see rank_step). */
    enum { AT_EVENT, AT_LEAVE, AT_WAIT, AT_COLL } at;
    req_t *one;         /* AT_WAIT: the request of an MPI_Wait-like completion */
    size_t wi;          /* requests of the current wait list already completed */
    int entered;        /* the current wait's progress point is recorded */
    msg_t *to_dispatch; /* a message whose delivery starts when the clock reaches the rank */
    int queued;         /* in the driver's queue */
    struct {            /* AT_COLL: the collective in progress */
        size_t step;    /* next schedule step */
        int waiting;    /* completing the round's messages, then reduce seconds */
        double reduce;  /* the reduction that follows the round */
        double t0;      /* when the call started */
        uint64_t msgs;  /* (comm, op, payload and choice: sched_key) */
    } coll;
    int finished;
    double end;
    double debt;          /* time this rank has spent ahead of the clock (see spend) */
    char waiting[256];    /* what the rank waits for, written for the deadlock report */
    const req_t *awaited; /* the request the rank is blocked on, or NULL */
    double wait_from;     /* the virtual time at which it entered that wait (see wait_req) */
    /* Progress (model.mpi.progress = calls): a rendezvous step this rank must act on waits
     * until the rank is inside an MPI call. The rank is there while blocked in a wait
     * (awaited is set), and at each wait it enters, whose (virtual) times the ring keeps: a
     * rank that runs ahead of the clock has passed them before a delivery asks. */
    double prog_at[PROG_RING];
    unsigned nprog;      /* progress points recorded (the ring keeps the last ones) */
    msg_t *prog_waiters; /* deliveries waiting for this rank's next progress point */
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
    uint64_t events_done;      /* events replayed so far, all ranks (counted for spec->progress
                                * only) */
    uint64_t events_total;
    int shutdown;     /* the driver has ended: idle couriers may end */
    ts_status status; /* first error inside the simulation */
    ts_error_t *err;
    void *spare_msgs;   /* freed messages and requests, reused: a replay makes and */
    void *spare_reqs;   /* drops one of each per message */
    void *spare_chans;  /* channels dropped (chan_tidy) */
    ts_u64map_t *plans; /* (size, locality, blocking) -> ts_msg_plan_t (see plan_for) */
    /* The driver (see the top of this file). */
    ts_timeq_t *runq;  /* ranks and deliveries ready to go on, by virtual time */
    sg_sem_t wakeup;   /* released by a courier that queued a message while the driver
                        * slept (a semaphore: unlike a condition variable it needs no
                        * mutex, whose taking back cost a simcall per wake-up) */
    int driver_asleep; /* the driver waits on wakeup */
    double now;        /* the driver's time: SimGrid's clock, or ahead of it while no flow
                        * is under way (driver_main) */
    courier_t *idle;   /* couriers waiting for a flow to carry */
    courier_t *leader; /* the courier that sleeps until the driver's time for the flows
                        * starting then, while the driver has not slept since (carry) */
    double leader_start;
    size_t flows;          /* flows the couriers carry now */
    size_t detached;       /* of which by sg_host_sendto (courier_main) */
    courier_t *couriers;   /* all of them, to free at the end */
    ts_timeq_t *flowq;     /* busy couriers by the earliest end of their flow (flow_horizon) */
    ts_u64map_t *routes;   /* (rank, rank) -> route_t (route_of) */
    ts_u64map_t *link_ids; /* SimGrid link -> its number in the ledger, plus one */
    ts_ledger_t *ledger;   /* flows under way per link: which need SimGrid (start_flow) */
    flow_t **sflows;       /* SimGrid's flows under way (e->flows of them) */
    size_t capsflows;
    int flows_changed; /* a flow started or ended since the last retighten */
    int tight;         /* horizons from the ledger's rate bounds (retighten) */
    double tight_horizon;
    void *spare_flows;
};

/* A message's delivery steps (deliver). */
enum {
    D_BEGIN,
    D_RTS,
    D_MATCH,
    D_POSTED,
    D_REG,
    D_RTR,
    D_RTR_BACK,
    D_SENDER,
    D_LATENCY,
    D_FLOW,
    D_ARRIVED,
    D_ACK,
    D_ACKED,
    D_DONE
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
static void spare_give(void **spares, void *p)
{
    memcpy(p, spares, sizeof *spares);
    *spares = p;
}

/* Takers of zeroed channels, messages, requests and flows from their spares (or new ones). They
 * zero by copying a zero object, not by memset, which GCC made a `rep stos` for objects over 64
 * bytes: a tenth of posting a send. */
#define SPARE_TAKER(name, T, list)                                                                 \
    static T *name(engine_t *e)                                                                    \
    {                                                                                              \
        T *p = e->list;                                                                            \
        if (!p)                                                                                    \
            return xcalloc(e, 1, sizeof *p);                                                       \
        memcpy(&e->list, p, sizeof e->list); /* the link spare_give left */                        \
        T zero = {0};                                                                              \
        *p = zero;                                                                                 \
        return p;                                                                                  \
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
        fail(r->e, TS_ENOMEM, "out of memory");
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
 * come back message after message: dropping and remaking them was 2 % of a replay), but a
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

/* Queue item: a rank (to run) or a message (to take its next delivery step), told apart by
 * the pointer's low bits (both are aligned; flows' ends are a third kind, as_flow_item). */
static void *as_item(msg_t *m)
{
    return (void *)((uintptr_t)m | 1);
}

static msg_t *item_msg(void *item)
{
    return ((uintptr_t)item & 3) == 1 ? (msg_t *)((uintptr_t)item & ~(uintptr_t)3) : NULL;
}

/* Queue item at time t; a courier that does this while the driver sleeps wakes the driver
 * (the driver itself, or a courier that runs while the driver is inside a SimGrid call,
 * needs nothing more: the driver looks at the queue before it sleeps again). */
static void queue_at(engine_t *e, void *item, double t)
{
    if (ts_timeq_push(e->runq, t, item) != 0) {
        fail(e, TS_ENOMEM, "out of memory");
        return;
    }
    if (e->driver_asleep) {
        e->driver_asleep = 0;
        sg_sem_release(e->wakeup);
    }
}

/* Queue rank r to run at time t, unless it is queued already. */
static void make_ready(rank_t *r, double t)
{
    if (r->queued)
        return;
    r->queued = 1;
    queue_at(r->e, r, t);
}

/* Wake rank r if it is blocked on request q. Waking it for anything else would only make it
 * check and wait again. */
static void notify(rank_t *r, const req_t *q)
{
    if (q && r->awaited == q)
        make_ready(r, r->e->now);
}

/* Lazy time for ranks. A rank's own work (overheads, copies, compute bursts, reductions) is
 * added to its debt: the rank runs ahead of the driver's time (e->now), at vnow(), and waits
 * for that time only where it matters: before it starts a delivery (it goes back to the
 * driver's queue at vnow()) and when it blocks (it waits from vnow(), see wait_req). Every time the
 * rank observes is taken at vnow(), so results are those of sleeping each delay. */
static double vnow(const rank_t *r)
{
    return r->e->now + r->debt;
}

static void spend(rank_t *r, double seconds)
{
    if (seconds > 0)
        r->debt += seconds;
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
enum { PLAN_CACHE_MAX = 1 << 16, PLAN_SHARED = 2 };

static const ts_msg_plan_t *plan_for(engine_t *e, msg_t *m, ts_locality loc, int blocking)
{
    uint64_t bytes = m->bytes;
    /* blocking: 0 (MPI_Isend), 1 (a blocking send), PLAN_SHARED (a step of HCOLL's shared
     * memory, ts_proto_plan_shared): two bits of the key. */
    uint64_t key = bytes < (UINT64_C(1) << 56)
                       ? (bytes << 6 | (uint64_t)loc << 2 | (uint64_t)blocking) + 1
                       : 0;
    const ts_msg_plan_t *hit = key && e->plans ? ts_u64map_get(e->plans, key) : NULL;
    if (hit)
        return hit;
    ts_msg_plan_t *plan = malloc(sizeof *plan);
    if (!plan) {
        fail(e, TS_ENOMEM, "out of memory");
        return NULL;
    }
    if (blocking == PLAN_SHARED)
        ts_proto_plan_shared(e->spec->proto, bytes, loc, plan);
    else
        ts_proto_plan(e->spec->proto, bytes, loc, blocking, plan);
    if (key && e->plans && ts_u64map_size(e->plans) < PLAN_CACHE_MAX &&
        ts_u64map_put(e->plans, key, plan) == 0)
        return plan;
    m->own_plan = plan; /* not kept: the message frees it */
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

/* A message's bytes in flight. A flow the ledger finds free (sim/ledger.h: nothing it
 * crosses can bind it but its own least link) runs at its route's least bandwidth, exactly
 * what SimGrid would give it, so the driver queues its end itself; any other flow is
 * SimGrid's, carried by a courier. A free flow that may contend from some time on becomes
 * SimGrid's then, with the bytes it has left (evict). */
struct flow_s {
    msg_t *m;
    const struct route_s *route;
    ts_lflow_t *lf; /* its entry in the ledger, until it ends */
    double start;   /* when its bytes started to move */
    double bytes;   /* its bytes (a free flow), or what it had left when handed over */
    double end;     /* a free flow: when it ends (queued) */
    int is_free;    /* its end is the driver's (queued at `end`) */
    int queued;     /* its free end is in the driver's queue, even if stale since */
    int through;    /* the courier is done with it */
    courier_t *courier;
    size_t sidx; /* its place in e->sflows while SimGrid's */
    double prog; /* the most bytes it can have moved by t_last */
    double ub;   /* the most bytes/s it can move from t_last on (retighten) */
    double t_last;
};

/* Flows by sg_host_sendto under way beyond which a courier moves its flow as a parallel task
 * instead (courier_main): SimGrid's scan at each detached transfer's end is then at most this
 * long. Measured: with 128, the scan is 0.5 % of foam's 2,304-rank replay (17 % when every
 * flow went by sg_host_sendto), and the bundled window, whose flows stay below it, costs the
 * same instructions as with sg_host_sendto alone (6 % more with tasks alone). */
enum { DETACHED_MAX = 128 };

/* A flow needs an actor to wait for its transfer (the C API has no asynchronous transfer
 * between hosts), so a courier carries each SimGrid flow through the platform; everything
 * else about a message in flight is a step the driver takes (deliver). Creating an actor per
 * message cost most of a replay, so idle couriers are kept and reused: there are only as many
 * as flows were ever in SimGrid at once. */
struct courier_s {
    sg_actor_t actor;
    flow_t *job;    /* the flow it carries, until it is through */
    double start;   /* when the job's flow starts (the driver's time when it was handed over) */
    double done_lb; /* the flow cannot end before this (see flow_horizon) */
    courier_t *next_idle;
    courier_t *next_all;
    courier_t *followers;     /* couriers whose flows start when this one's does (carry), */
    courier_t *last_follower; /* in the order they were handed their flows */
    courier_t *next_follower; /* in its leader's list */
    int following;            /* it is in a leader's list: its flow starts when resumed */
};

/* The links from one rank's host to another's (numbered in the ledger) and the most
 * bandwidth any of them gives a flow: SimGrid's figures, kept per pair (looking up a route is
 * not cheap). */
typedef struct route_s {
    double solo;
    int32_t n;
    int32_t links[];
} route_t;

static const route_t *route_of(engine_t *e, int32_t a, int32_t b)
{
    uint64_t key = (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
    route_t *rt = ts_u64map_get(e->routes, key);
    if (rt)
        return rt;
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(e->ranks[a].host, e->ranks[b].host, links);
    int32_t n = (int32_t)xbt_dynar_length(links);
    if (!(rt = malloc(sizeof *rt + (size_t)n * sizeof rt->links[0]))) {
        xbt_dynar_free(&links);
        fail(e, TS_ENOMEM, "out of memory");
        return NULL;
    }
    rt->n = n;
    for (int32_t i = 0; i < n; i++) {
        sg_link_t link = xbt_dynar_get_as(links, (unsigned long)i, sg_link_t);
        uint64_t lk = (uint64_t)(uintptr_t)link;
        uintptr_t id = (uintptr_t)ts_u64map_get(e->link_ids, lk);
        if (!id) {
            int32_t k =
                ts_ledger_link(e->ledger, sg_link_get_bandwidth(link), sg_link_is_shared(link));
            id = (uintptr_t)k + 1;
            if (k < 0 || ts_u64map_put(e->link_ids, lk, (void *)id))
                fail(e, TS_ENOMEM, "out of memory");
        }
        rt->links[i] = (int32_t)id - 1;
    }
    xbt_dynar_free(&links);
    rt->solo = ts_ledger_solo(e->ledger, rt->links, rt->n); /* SimGrid's route bandwidth */
    if (ts_u64map_put(e->routes, key, rt)) {
        free(rt);
        fail(e, TS_ENOMEM, "out of memory");
        return NULL;
    }
    return rt;
}

/* Up to this many flows under way (free ones included), the earliest end of each SimGrid flow
 * comes from the ledger's bounds on its rate, recomputed at every start and end; beyond it,
 * from its route's least bandwidth only, computed once (the ledger's pass costs a walk over
 * every flow under way). */
enum { TIGHT_MAX = 256 };

/* The earliest a flow with `left` bytes from time `from` at most `rate` bytes/s can end,
 * less margins for SimGrid's rounding: a millionth of the time, and its timing precision
 * (precision/timing, 1e-9 s by default). */
static double earliest_end(double from, double left, double rate)
{
    return from + left / rate * (1 - 1e-6) - 1e-9;
}

/* After flows started or ended: each SimGrid flow has moved at most its rate bound times the
 * time since the last pass; from now on it moves at most its new bound, so it cannot end
 * before its bytes left over that. Tight: the least of those is the horizon. Loose (too many
 * flows): the bound is the route's least bandwidth, and busy couriers wait in flowq by that
 * end, pushed once. */
static void retighten(engine_t *e)
{
    e->flows_changed = 0;
    int tight = ts_ledger_flows(e->ledger) <= TIGHT_MAX;
    if (!tight && !e->tight)
        return;
    if (tight && !e->tight)
        while (ts_timeq_pop(e->flowq))
            ;
    double now = e->now, horizon = HUGE_VAL;
    for (size_t i = 0; i < e->flows; i++) {
        flow_t *f = e->sflows[i];
        courier_t *c = f->courier;
        f->prog += f->ub * (now - f->t_last);
        f->t_last = now;
        f->ub = tight ? ts_ledger_rate_bound(e->ledger, f->lf) : f->route->solo;
        c->done_lb = earliest_end(now, f->bytes > f->prog ? f->bytes - f->prog : 0, f->ub);
        if (c->done_lb < horizon)
            horizon = c->done_lb;
        if (!tight && ts_timeq_push(e->flowq, c->done_lb, c) != 0)
            fail(e, TS_ENOMEM, "out of memory");
    }
    e->tight = tight;
    e->tight_horizon = horizon;
}

/* The earliest time any SimGrid flow under way can end, or HUGE_VAL when none is under way.
 * Under CM02 without latency, bandwidth factor or TCP window (ts_replay_run's configuration,
 * links of no latency: platforms/xml.c) a flow's rate never exceeds the least bandwidth on its
 * route, nor the ledger's bound (retighten): until then the driver may run ahead of SimGrid
 * without missing an arrival. Loose, stale entries (a courier since idle or carrying another
 * flow) are dropped when they come to the front. */
static double flow_horizon(engine_t *e)
{
    if (e->flows_changed)
        retighten(e);
    if (e->tight)
        return e->tight_horizon;
    while (ts_timeq_size(e->flowq)) {
        double t = ts_timeq_first(e->flowq);
        courier_t *c = ts_timeq_peek(e->flowq);
        if (c->job && c->done_lb == t)
            return t;
        ts_timeq_pop(e->flowq);
    }
    return HUGE_VAL;
}

SPARE_TAKER(flow_new, flow_t, spare_flows)

static void flow_drop(engine_t *e, flow_t *f)
{
    spare_give(&e->spare_flows, f);
}

static void courier_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    courier_t *c = sg_actor_self_get_data();
    engine_t *e = sg_host_get_data(sg_host_self());
    for (;;) {
        /* It checks and suspends with no simcall in between, so no wake-up is lost. */
        while (!c->job && !e->shutdown) /* carry() or the driver's end resumes it */
            sg_actor_suspend(c->actor);
        if (!c->job) /* the driver has ended */
            return;
        flow_t *f = c->job;
        msg_t *m = f->m;
        if (c->following) /* its leader slept until the start */
            c->following = 0;
        else if (c->start > simgrid_get_clock()) /* the driver was ahead of SimGrid's clock */
            sg_actor_sleep_until(c->start);
        for (courier_t *g = c->followers, *next; g; g = next) { /* their flows start now too */
            next = g->next_follower;
            sg_actor_resume(g->actor);
        }
        c->followers = NULL;
        /* A transfer is sg_host_sendto's, or, while DETACHED_MAX of those are under way, a
         * parallel task of two hosts, no flops and one byte count, which SimGrid 3.32's CM02
         * host model turns into the very same network action (HostCLM03Model::
         * execute_parallel calls the same communicate(from, to, bytes)), so answers do not
         * depend on which. sg_host_sendto's transfer is always detached, and SimGrid removes
         * a finished one from a std::list of all of them (CommImpl::finish, a scan); a task
         * is the courier's own activity, in no such list, but costs about 6,000 instructions
         * more to set up (DETACHED_MAX says what was measured). The host model refuses a
         * task with nothing to do, so an empty flow (all sent before it was handed over)
         * always goes by sg_host_sendto. */
        sg_host_t ends[2] = {e->ranks[m->src].host, e->ranks[m->dst].host};
        if (f->bytes > 0 && e->detached >= DETACHED_MAX) {
            double bytes[4] = {0, f->bytes, 0, 0}; /* [i * 2 + j]: ends[i] to ends[j] */
            sg_actor_parallel_execute(2, ends, NULL, bytes);
        } else {
            e->detached++;
            sg_host_sendto(ends[0], ends[1], f->bytes);
            e->detached--;
        }
        c->job = NULL;
        flow_t *last = e->sflows[--e->flows];
        e->sflows[f->sidx] = last;
        last->sidx = f->sidx;
        e->flows_changed = 1;
        ts_ledger_end(e->ledger, f->lf);
        f->through = 1;
        if (!f->queued)
            flow_drop(e, f);
        queue_at(e, as_item(m), simgrid_get_clock()); /* its dstate is D_ARRIVED */
        c->next_idle = e->idle;
        e->idle = c;
    }
}

/* Hand flow f (f->bytes from the driver's time on) to an idle courier, or to a new one. */
static void carry(engine_t *e, flow_t *f)
{
    courier_t *c = e->idle;
    if (c)
        e->idle = c->next_idle;
    else if (!(c = xcalloc(e, 1, sizeof *c)))
        return;
    if (TS_GROW(e->sflows, e->flows, e->capsflows, 64)) {
        fail(e, TS_ENOMEM, "out of memory");
        return;
    }
    f->sidx = e->flows;
    e->sflows[e->flows++] = f;
    e->flows_changed = 1;
    f->courier = c;
    f->prog = 0;
    f->ub = f->route->solo;
    f->t_last = e->now;
    c->job = f;
    c->start = e->now;
    c->done_lb = earliest_end(e->now, f->bytes, f->ub);
    if (!e->tight && ts_timeq_push(e->flowq, c->done_lb, c) != 0)
        fail(e, TS_ENOMEM, "out of memory");
    /* Flows that start at the same time ahead of SimGrid's clock need one sleep between them:
     * the first courier sleeps until then and wakes the others, which stay suspended till
     * that time (a sleep costs a simcall and a CPU action in SimGrid; half of the reference
     * trace's flows start together with another, evicted ones above all). The batch closes
     * when the driver sleeps, since SimGrid's clock may then reach it. */
    int ahead = e->now > simgrid_get_clock();
    if (c->actor && ahead && e->leader && e->leader_start == e->now) {
        courier_t *l = e->leader;
        c->following = 1;
        c->next_follower = NULL;
        if (l->followers)
            l->last_follower->next_follower = c;
        else
            l->followers = c;
        l->last_follower = c;
        return;
    }
    if (ahead) {
        e->leader = c;
        e->leader_start = e->now;
    }
    if (c->actor) {
        sg_actor_resume(c->actor);
        return;
    }
    sg_actor_t a = sg_actor_init("courier", e->ranks[f->m->src].host);
    c->actor = a;
    c->next_all = e->couriers;
    e->couriers = c;
    sg_actor_set_data(a, c);
    /* Couriers end when the driver does (driver_main). They are not daemons: SimGrid 3.32
     * crashed killing daemons that had just delivered at the very moment the last rank
     * ended. */
    sg_actor_start(a, courier_main, 0, NULL);
}

/* A free flow may contend from now on (ts_ledger_start): SimGrid takes it over with the
 * bytes it has left. Until now it ran at its solo rate. A message moves whole bytes (and
 * sg_host_sendto counts whole bytes), so what is left is rounded to the nearest byte: at most half
 * a byte's time, under a picosecond on these links. A flow whose end is due now is left to end as
 * queued. */
static void evict(void *ctx, void *user)
{
    engine_t *e = ctx;
    flow_t *f = user;
    if (f->end <= e->now)
        return; /* stays is_free: its queued end finishes it */
    f->is_free = 0;
    double left = floor(f->bytes - (e->now - f->start) * f->route->solo + 0.5);
    f->bytes = left > 0 ? left : 0;
    f->start = e->now;
    carry(e, f);
}

/* Queue items are ranks, messages and free flows' ends, told apart by the pointer's two low
 * bits (all three are aligned). */
static void *as_flow_item(flow_t *f)
{
    return (void *)((uintptr_t)f | 2);
}

static flow_t *item_flow(void *item)
{
    return ((uintptr_t)item & 3) == 2 ? (flow_t *)((uintptr_t)item & ~(uintptr_t)3) : NULL;
}

/* Move m's wire bytes from its sender's host to its receiver's, from the driver's time on;
 * m's delivery goes on (D_ARRIVED) when they are through. */
static void start_flow(engine_t *e, msg_t *m)
{
    const route_t *rt = route_of(e, m->src, m->dst);
    flow_t *f = rt ? flow_new(e) : NULL;
    if (!f)
        return;
    f->m = m;
    f->route = rt;
    f->start = e->now;
    f->bytes = (double)m->plan->wire_bytes;
    int is_free = 0;
    e->flows_changed = 1;
    if (!(f->lf = ts_ledger_start(e->ledger, rt->links, rt->n, f, &is_free, evict, e))) {
        flow_drop(e, f);
        fail(e, TS_ENOMEM, "out of memory");
        return;
    }
    if (!is_free) {
        carry(e, f);
        return;
    }
    f->is_free = 1;
    f->end = e->now + f->bytes / rt->solo;
    f->queued = 1;
    if (ts_timeq_push(e->runq, f->end, as_flow_item(f)) != 0)
        fail(e, TS_ENOMEM, "out of memory");
}

static void deliver(engine_t *e, msg_t *m);

/* A free flow's queued end has come: if it is still free its bytes are through. */
static void flow_end(engine_t *e, flow_t *f)
{
    f->queued = 0;
    if (f->is_free) {
        msg_t *m = f->m;
        ts_ledger_end(e->ledger, f->lf);
        e->flows_changed = 1;
        flow_drop(e, f);
        deliver(e, m); /* its dstate is D_ARRIVED */
    } else if (f->through) {
        flow_drop(e, f);
    }
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
static void wake_progress_waiters(rank_t *r)
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
        wake_progress_waiters(r);
}

/* Take m's delivery steps from m->dstate on, until one must wait (for a time, the match, a
 * progress point or the flow). The driver calls it again when that is over; each call starts
 * at the clock. The steps, for rendezvous: the RTS travels, waits for the receive, the
 * receiver's progress and registration, the RTR travels back and waits for the sender's
 * progress (put / am); then for every protocol the latency, the flow, the arrival, and for
 * zcopy and rendezvous the acknowledgement back to the sender. */
static void deliver(engine_t *e, msg_t *m)
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
            start_flow(e, m); /* queued again when the bytes are through */
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
static void dispatch(rank_t *r, msg_t *m)
{
    m->dstate = D_BEGIN;
    deliver(r->e, m);
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
    /* msg_new and req_new give zeroed objects */
    m->src = r->id;
    m->dst = dst;
    m->comm = comm;
    m->tag = tag;
    m->bytes = bytes;
    m->refs = 3; /* delivery, send and receive sides */
    const ts_msg_plan_t *p = m->plan = plan_for(e, m, loc, blocking);
    if (!p) {
        spare_give(&e->spare_msgs, m);
        req_drop(e, q);
        return NULL;
    }
    ts_proto_count_t *cnt = &e->res->count[p->transport][p->proto];
    cnt->msgs++;
    cnt->bytes += bytes;
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
         * with a future arrival time; the receiver sleeps until then (wait_req). */
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

/* Complete request q, or block on it: 1 when it completed (the receiver's copies charged and q
 * released), 0 when the rank now waits for it (rank_step picks it up when notify() wakes it).
 * The rank enters the wait at its virtual time `from` without sleeping its debt first: a
 * completion before `from` leaves it the rest to run ahead with. While it waits ahead of the
 * clock it is not inside the call yet: await_progress looks at wait_from. What it waits for
 * is put in words only if the run ends with it still waiting (the deadlock report): formatting
 * it at every blocking wait cost 2 % of a replay. */
static int wait_req(rank_t *r, req_t *q)
{
    if (!r->entered) {
        progress_point(r);
        r->entered = 1;
    }
    if (!req_complete(q)) {
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
        /* The handshake's software (RTS, key unpack, ATS) runs on this rank's CPU inside its
         * MPI calls, one message after another: charged here, not as time in flight. */
        spend(r, (double)copy / p->copy_bw + p->recv_cpu + p->handshake);
    }
    msg_unref(r->e, m);
    req_drop(r->e, q);
    return 1;
}

/* Complete list[r->wi..n) in order: 1 when all did, 0 when the rank blocked on one. */
static int wait_list(rank_t *r, req_t **list, size_t n)
{
    for (; r->wi < n; r->wi++)
        if (!wait_req(r, list[r->wi]))
            return 0;
    r->wi = 0;
    return 1;
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

/* Blocking sends and receives of a call (MPI_Send, MPI_Recv, both halves of MPI_Sendrecv)
 * are posted as they come and completed together when the call returns (AT_LEAVE), so that
 * a Sendrecv's send cannot block its own receive. */
static void call_add(rank_t *r, req_t *q)
{
    reqs_add(r, &r->call_reqs, &r->ncall, &r->capcall, q);
}

static void round_add(rank_t *r, req_t *q)
{
    reqs_add(r, &r->coll_reqs, &r->ncoll_reqs, &r->capcoll_reqs, q);
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
 * as the application's, round by round, with the reduction work as a delay. coll_begin
 * prepares the schedule (1: there is one to run, AT_COLL), coll_run runs it on. */
static int coll_begin(rank_t *r, const ts_event_t *ev)
{
    engine_t *e = r->e;
    const ts_comm_info_t *ci = ts_trace_comm(e->t, ev->comm);
    if (ci->is_self || ci->size <= 1)
        return 0;
    int32_t me = ts_trace_comm_rank(e->t, ev->comm, r->id);
    if (me < 0) {
        fail(e, TS_ECORRUPT, "rank %d: collective on communicator %d it is not a member of",
             (int)r->id, (int)ev->comm);
        return 0;
    }
    int32_t root = -1;
    if (ev->peer != TS_ROOT_NONE && (root = ts_trace_comm_rank(e->t, ev->comm, ev->peer)) < 0) {
        fail(e, TS_ECORRUPT, "rank %d: %s on communicator %d with root %d, not a member",
             (int)r->id, ts_coll_op_name(ev->op), (int)ev->comm, (int)ev->peer);
        return 0;
    }
    const ts_coll_topo_t *topo = comm_topo(e, ev->comm);
    if (!topo)
        return 0;
    uint64_t b = ts_coll_payload(ev->op, ci->size, ev->peer == r->id, me, ev->bytes, ev->bytes2);
    /* The decision must be the same on every rank: Allgatherv decides on the mean of all
     * counts (sizeReceived / N, equal everywhere) as Open MPI's rule does. */
    uint64_t decide = ev->op == TS_COLL_ALLGATHERV ? ev->bytes2 / (uint64_t)ci->size : b;
    ts_coll_choice_t ch;
    ts_coll_select(e->coll, ev->op, ci->size, decide, &ch);
    if (ch.comp == TS_CCOMP_NONE)
        return 0;
    /* A rank calls the same collective with the same payload again and again (the
     * solver's Allreduce): its schedule, built by looking at every member, is reused then. */
    ts_status st = TS_OK;
    sched_key_t key;
    memset(&key, 0, sizeof key);
    key.comm = ev->comm;
    key.op = ev->op;
    key.root = root;
    key.bytes = b;
    key.ch.comp = ch.comp;
    key.ch.alg = ch.alg;
    key.ch.segsize = ch.segsize;
    key.ch.rule = ch.rule;
    if (!r->sched_valid || memcmp(&key, &r->sched_key, sizeof key) != 0) {
        r->sched_valid = 0;
        st = ts_coll_schedule(e->coll, &ch, ev->op, topo, me, root, b, &r->sched);
        if (st == TS_OK) {
            memcpy(&r->sched_key, &key, sizeof key);
            r->sched_valid = 1;
        }
    }
    if (st != TS_OK) {
        fail(e, st, "rank %d: %s by %s/%s: %s", (int)r->id, ts_coll_op_name(ev->op),
             ts_coll_comp_name(ch.comp), ts_coll_alg_name(ch.alg),
             st == TS_ENOMEM ? "out of memory" : "the algorithm does not apply to it");
        return 0;
    }
    r->coll.step = 0;
    r->coll.waiting = 0;
    r->coll.t0 = vnow(r);
    r->coll.msgs = 0;
    return 1;
}

/* Run the collective on: 1 when it is done, 0 when the rank blocked or must wait for the
 * clock to start a delivery. What it runs is r->sched, built for r->sched_key. */
static int coll_run(rank_t *r)
{
    engine_t *e = r->e;
    const sched_key_t *k = &r->sched_key;
    const ts_comm_info_t *ci = ts_trace_comm(e->t, k->comm);
    for (;;) {
        if (r->coll.waiting) {
            if (!wait_list(r, r->coll_reqs, r->ncoll_reqs))
                return 0;
            r->ncoll_reqs = 0;
            r->coll.waiting = 0;
            spend(r, r->coll.reduce);
        }
        if (r->coll.step >= r->sched.n || e->status != TS_OK) {
            if (!r->ncoll_reqs)
                break;
            r->coll.waiting = 1; /* a schedule always ends a round; be safe */
            r->coll.reduce = 0;
            continue;
        }
        const ts_cstep_t *s = &r->sched.step[r->coll.step++];
        switch (s->kind) {
        case TS_CSTEP_SEND:
            round_add(r, post_send(r, ci->members[s->peer], k->comm, COLL_TAG, s->bytes,
                                   s->shared ? PLAN_SHARED : 0));
            r->coll.msgs++;
            if (r->to_dispatch)
                return 0;
            break;
        case TS_CSTEP_RECV:
            round_add(r, post_recv(r, ci->members[s->peer], k->comm, COLL_TAG, s->bytes));
            break;
        default:
            r->coll.waiting = 1;
            r->coll.reduce = ts_coll_reduce_seconds(e->coll, s->bytes);
            break;
        }
    }
    ts_coll_stat_t *cs = coll_stat(e, k->op, &k->ch);
    if (cs) {
        cs->calls++;
        cs->msgs += r->coll.msgs;
        cs->time += vnow(r) - r->coll.t0;
        if (k->bytes < cs->bytes_min)
            cs->bytes_min = k->bytes;
        if (k->bytes > cs->bytes_max)
            cs->bytes_max = k->bytes;
    }
    return 1;
}

static void rank_finish(rank_t *r)
{
    engine_t *e = r->e;
    r->finished = 1;
    r->end = vnow(r);
    wake_progress_waiters(r);
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
        fail(r->e, TS_ENOMEM, "out of memory");
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
    case TS_EV_COMPUTE:
        spend(r, (double)ev->time * 1e-9 * e->spec->compute_scale);
        res->compute_time += (double)ev->time * 1e-9 * e->spec->compute_scale;
        break;
    case TS_EV_ENTER:
        r->func = ev->func;
        r->enter = vnow(r);
        res->visits[ev->func]++;
        break;
    case TS_EV_LEAVE:
        r->at = AT_LEAVE;
        break;
    case TS_EV_SEND:
        call_add(r, post_send(r, ev->peer, ev->comm, ev->tag, ev->bytes, 1));
        break;
    case TS_EV_RECV:
        call_add(r, post_recv(r, ev->peer, ev->comm, ev->tag, ev->bytes));
        break;
    case TS_EV_ISEND:
        q = post_send(r, ev->peer, ev->comm, ev->tag, ev->bytes, 0);
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
        q = post_recv(r, in.peer, in.comm, in.tag, in.bytes);
        if (q)
            reqs_put(r, id, q);
        break;
    }
    case TS_EV_ISEND_DONE:
    case TS_EV_IRECV_DONE:
        q = reqs_take(r, ev->req);
        if (!q) {
            fail(e, TS_EUNMATCHED, "rank %d: %s completes request %llu, which was never posted",
                 (int)r->id, r->func >= 0 ? ts_trace_func_name(e->t, r->func) : "a call",
                 (unsigned long long)ev->req);
            break;
        }
        r->one = q;
        r->at = AT_WAIT;
        break;
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE:
        if (coll_begin(r, ev))
            r->at = AT_COLL;
        break;
    default: /* REQ_TEST, ICOLL_POST, CANCELLED: nothing to simulate */
        break;
    }
}

/* Run rank r from where it stopped until it blocks, must wait for the clock (it goes back to
 * the queue at its virtual time), or reaches the end of its stream. The driver calls it when
 * the rank's queued time has come: the clock is at that time. */
static void rank_step(rank_t *r)
{
    engine_t *e = r->e;
    void (*progress)(void *, uint64_t, uint64_t) = e->spec->progress;
    if (r->awaited) { /* woken by notify() */
        if (!req_complete(r->awaited))
            return;
        r->awaited = NULL;
        double now = e->now;
        if (r->wait_from > now)
            r->debt = r->wait_from - now;
    } else if (r->to_dispatch) { /* the clock has reached the rank: its debt is slept */
        r->debt = 0;
        msg_t *m = r->to_dispatch;
        r->to_dispatch = NULL;
        dispatch(r, m);
    }
    for (;;) {
        switch (r->at) {
        case AT_LEAVE:
            if (!wait_list(r, r->call_reqs, r->ncall))
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
            if (!wait_req(r, r->one))
                return;
            break;
        case AT_COLL:
            if (!coll_run(r)) {
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

/* The driver: runs the ranks and deliveries whose time has come, in virtual-time order, then
 * moves to the next one's time, or, while flows are under way, lets SimGrid run until then or
 * until a courier queues something (queue_at). It goes on after the last rank has finished
 * until the deliveries under way are done, then ends the couriers. When nothing is queued and
 * no flow is under way it stops: the ranks still blocked are reported (ts_replay_run). */
static void driver_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    engine_t *e = sg_actor_self_get_data();
    for (int32_t i = 0; i < e->nranks; i++)
        make_ready(&e->ranks[i], 0);
    for (;;) {
        while (ts_timeq_size(e->runq) && ts_timeq_first(e->runq) <= e->now) {
            void *item = ts_timeq_pop(e->runq);
            msg_t *m = item_msg(item);
            flow_t *f = item_flow(item);
            if (m) {
                deliver(e, m);
            } else if (f) {
                flow_end(e, f);
            } else {
                rank_t *r = item;
                r->queued = 0;
                rank_step(r);
            }
        }
        /* Nothing SimGrid computes can happen before the horizon (no flow under way, or
         * none can end yet), so the driver goes to the queue's next time without asking
         * SimGrid; a courier starts its flow from the driver's time. An empty queue with no
         * flow under way: every rank has finished, or those left wait for something nothing
         * will do. */
        double horizon = flow_horizon(e);
        if (!e->flows && !ts_timeq_size(e->runq))
            break;
        if (ts_timeq_size(e->runq) && ts_timeq_first(e->runq) < horizon) {
            if (ts_timeq_first(e->runq) > e->now)
                e->now = ts_timeq_first(e->runq);
            continue;
        }
        /* A flow may end first: SimGrid runs until the queue's next time, or until a courier
         * queues a message whose flow is through. */
        e->driver_asleep = 1;
        e->leader = NULL; /* the clock may reach its time: a new batch from now on */
        double until = HUGE_VAL;
        int timed_out = 0;
        if (ts_timeq_size(e->runq)) {
            until = ts_timeq_first(e->runq);
            timed_out = sg_sem_acquire_timeout(e->wakeup, until - simgrid_get_clock());
        } else {
            sg_sem_acquire(e->wakeup);
        }
        e->driver_asleep = 0;
        if (simgrid_get_clock() > e->now)
            e->now = simgrid_get_clock();
        /* Timed out: SimGrid has reached `until` as far as its timing precision goes (it may
         * stop a hair short); the queue's next item is due, whatever the last bits say. */
        if (timed_out && until > e->now)
            e->now = until;
    }
    e->shutdown = 1;
    for (courier_t *c = e->idle; c; c = c->next_idle)
        sg_actor_resume(c->actor);
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

/* A map and what its values own (each frees one value). */
static void map_free(ts_u64map_t *m, void (*each)(uint64_t key, void *value, void *ctx))
{
    if (m) {
        ts_u64map_each(m, each, NULL);
        ts_u64map_free(m);
    }
}

static void ranks_free(engine_t *e)
{
    for (int32_t i = 0; e->ranks && i < e->nranks; i++) {
        rank_t *r = &e->ranks[i];
        ts_cursor_close(r->cur);
        ts_recv_ahead_close(r->look);
        map_free(r->reqs, free_req_entry);
        for (int k = 0; k < r->nopen; k++)
            free(r->open[k].q);
        map_free(r->chans, free_value);
        ts_u64map_free(r->rcache);
        free(r->call_reqs);
        free(r->coll_reqs);
        ts_csched_free(&r->sched);
    }
    free(e->ranks);
    void **spares[] = {&e->spare_msgs, &e->spare_reqs, &e->spare_chans, &e->spare_flows};
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
    map_free(e->plans, free_value);
    ts_timeq_free(e->runq);
    ts_timeq_free(e->flowq);
    map_free(e->routes, free_value);
    ts_u64map_free(e->link_ids);
    free(e->sflows);
    ts_ledger_free(e->ledger);
    for (courier_t *c = e->couriers, *next; c; c = next) {
        next = c->next_all;
        free(c);
    }
}

void ts_replay_result_free(ts_replay_result_t *res)
{
    if (!res)
        return;
    free(res->visits);
    free(res->time);
    free(res->rank_time);
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
        if (spec->rank_times) {
            e.res->nranks = e.nranks;
            e.res->rank_time =
                xcalloc(&e, (size_t)e.nranks * (size_t)e.res->nfuncs, sizeof *e.res->rank_time);
        }
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
     * tightest link; latencies are the models', not the platform's. A message in flight has
     * an actor of its own, so stacks are small (the actors' code is shallow) and without guard
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
        if (ts_cursor_open(t, i, &r->cur) != TS_OK ||
            ts_recv_ahead_open(t, i, r->cur, &r->look) != TS_OK || !r->reqs || !r->chans ||
            !r->rcache)
            fail(&e, TS_ENOMEM, "out of memory");
    }
    e.flowq = ts_timeq_new();
    e.routes = ts_u64map_new();
    e.link_ids = ts_u64map_new();
    e.ledger = ts_ledger_new();
    if (e.status == TS_OK &&
        (!(e.runq = ts_timeq_new()) || !e.flowq || !e.routes || !e.link_ids || !e.ledger))
        fail(&e, TS_ENOMEM, "out of memory");
    if (e.status == TS_OK) {
        e.wakeup = sg_sem_init(0);
        sg_actor_t a = sg_actor_init("driver", e.ranks[0].host);
        sg_actor_set_data(a, &e);
        sg_actor_start(a, driver_main, 0, NULL);
        simgrid_run();
        sg_sem_destroy(e.wakeup);
    }

    if (e.status == TS_OK) {
        /* Ranks that did not finish wait for something that will never happen. */
        char report[1024] = "";
        size_t used = 0;
        int blocked = 0;
        for (int32_t i = 0; i < e.nranks; i++) {
            if (e.ranks[i].finished)
                continue;
            if (e.ranks[i].awaited) /* still blocked in wait_req on it */
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
