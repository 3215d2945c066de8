/* engine_int.h - private to the engine (sim/engine*.c): its shared state and functions. */

/* Included by nothing else: the engine's interface is engine.h. The engine's files, each
 * behind the functions named here:
 *   engine.c            the driver (one actor, one queue in virtual-time order), setup, the
 *                       run and its result, freeing;
 *   engine_rank.c       the rank interpreter: a rank's events, run until it blocks;
 *   engine_mpi.c        MPI's point-to-point semantics: channels, matching, requests and
 *                       waits, a message's delivery steps and the progress rule;
 *   engine_coll.c       collectives executed as schedules of those messages;
 *   engine_transport.c  flows: routes, the ledger, the flow horizon, courier actors. It is
 *                       told to start a message's flow (eng_flow_start) and says when the
 *                       bytes are through by taking the message's next delivery step
 *                       (eng_deliver, at once or queued). */
#ifndef TS_ENGINE_INT_H
#define TS_ENGINE_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#include "../common/timeq.h"
#include "../common/u64map.h"
#include "../traces/recv_ahead.h"
#include "engine.h"
#include "ledger.h"

typedef struct engine_s engine_t;
typedef struct rank_s rank_t;
typedef struct msg_s msg_t;
typedef struct courier_s courier_t; /* engine_transport.c's */
typedef struct flow_s flow_t;       /* engine_transport.c's */

enum { PROG_RING = 16, COMP_RING = 64, OPEN_MAX = 32, RECENT_CHANS = 16 };
/* msg_t.busy: why a rendezvous costs its receiver more (both may hold) */
enum { BUSY_COMPUTING = 1, BUSY_WRITTEN = 2 };

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
    const ts_msg_plan_t *plan; /* the plan cache's entry, or own_plan (plan_for) */
    ts_msg_plan_t *own_plan;
    req_t *rreq;         /* the matched receive */
    req_t *sreq;         /* the send (identity only: it may be freed before us) */
    uint8_t dstate;      /* its next delivery step (see eng_deliver) */
    uint8_t await_match; /* its delivery waits for the match (match() queues it) */
    uint8_t matched, arrived, send_done;
    uint8_t busy; /* rendezvous, BUSY_* bits: its RTS arrived while the receiver was
                   * computing; it sends what a reduction of the collective has just written */
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
        uint64_t key;       /* neighbours and tags come back message after message, and a */
        chan_t *c;          /* map lookup touches slots and channels that are rarely in the */
    } recent[RECENT_CHANS]; /* cache any more (chan_get) */
    size_t idle_chans;      /* empty channels still in chans (chan_tidy) */
    ts_u64map_t *rcache;    /* registered sizes (UCX's registration cache) */
    ts_csched_t sched;      /* the current collective's schedule (reused) */
    sched_key_t sched_key;  /* what sched was built for (the call AT_COLL runs), if valid */
    int sched_valid;
    req_t **coll_reqs; /* messages of the current collective round */
    size_t ncoll_reqs, capcoll_reqs;
    req_t **coll_next; /* receives posted in it that the next round waits for */
    size_t ncoll_next, capcoll_next;
    req_t **call_reqs; /* blocking operations of the current call */
    size_t ncall, capcall;
    int32_t func;
    double enter;
    /* Where the rank resumes when the driver runs it again (see eng_rank_step). */
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
        int written;    /* a reduction of this call has written what it sends from now on */
        double t0;      /* when the call started */
        uint64_t msgs;  /* (comm, op, payload and choice: sched_key) */
    } coll;
    int finished;
    double end;
    double debt;          /* time this rank has spent ahead of the clock (see spend) */
    char waiting[256];    /* what the rank waits for, written for the deadlock report */
    const req_t *awaited; /* the request the rank is blocked on, or NULL */
    double wait_from;     /* the virtual time at which it entered that wait (see eng_wait_req) */
    /* Progress (model.mpi.progress = calls): a rendezvous step this rank must act on waits
     * until the rank is inside an MPI call. The rank is there while blocked in a wait
     * (awaited is set), and at each wait it enters, whose (virtual) times the ring keeps: a
     * rank that runs ahead of the clock has passed them before a delivery asks. */
    double prog_at[PROG_RING];
    unsigned nprog;      /* progress points recorded (the ring keeps the last ones) */
    msg_t *prog_waiters; /* deliveries waiting for this rank's next progress point */
    /* Its last compute bursts, [from, to] in virtual time: whether an RTS found it computing
     * (model.ucx.rndv_busy_cost). */
    double comp_span[COMP_RING][2];
    unsigned nspans;
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
    ts_u64map_t *plans; /* (size, locality, kind) -> ts_msg_plan_t (see plan_for) */
    int plans_partial;  /* a plan was not kept there (the result's asks_all) */
    /* The driver (see the top of this file). */
    ts_timeq_t *runq;  /* ranks and deliveries ready to go on, by virtual time */
    sg_sem_t wakeup;   /* released by a courier that queued a message while the driver
                        * slept (a semaphore: unlike a condition variable it needs no
                        * mutex, whose taking back cost a simcall per wake-up) */
    int driver_asleep; /* the driver waits on wakeup */
    double now;        /* the driver's time: SimGrid's clock, or ahead of it while no flow
                        * is under way (driver_main) */
    /* Flow transport: engine_transport.c's own; the other files use its eng_flow_* and
     * eng_transport_* functions. */
    courier_t *idle;   /* couriers waiting for a flow to carry */
    courier_t *leader; /* the courier that sleeps until the driver's time for the flows
                        * starting then, while the driver has not slept since (carry) */
    double leader_start;
    size_t flows;          /* flows the couriers carry now */
    size_t detached;       /* of which by sg_host_sendto (courier_main) */
    courier_t *couriers;   /* all of them, to free at the end */
    ts_timeq_t *flowq;     /* busy couriers by the earliest end of their flow (eng_flow_horizon) */
    ts_u64map_t *routes;   /* (rank, rank) -> route_t (route_of) */
    ts_u64map_t *link_ids; /* SimGrid link -> its number in the ledger, plus one */
    ts_ledger_t *ledger;   /* flows under way per link: which need SimGrid (eng_flow_start) */
    flow_t **sflows;       /* SimGrid's flows under way (e->flows of them) */
    size_t capsflows;
    int flows_changed; /* a flow started or ended since the last retighten */
    int tight;         /* horizons from the ledger's rate bounds (retighten) */
    double tight_horizon;
    void *spare_flows;
};

/* A message's delivery steps (eng_deliver). */
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

/* The tag of every collective's messages, as Open MPI's coll components use one tag per
 * operation: MPI's non-overtaking order pairs them up call after call (every rank runs its
 * communicator's collectives in the same order, and each schedule sends to and receives from
 * a peer in the same order on both sides). Negative: never an application's tag. */
#define COLL_TAG (-1)

/* The plan cache's key of a message (plan_for): size, locality and kind (TS_PLAN_*, three bits),
 * 0 for a size too large to key; and back, as the model's question (the result's asks). */
_Static_assert(TS_PLAN__COUNT <= 8 && TS_LOC__COUNT <= 16, "eng_plan_key's bits");

static inline uint64_t eng_plan_key(uint64_t bytes, ts_locality loc, int kind)
{
    return bytes < (UINT64_C(1) << 56) ? (bytes << 7 | (uint64_t)loc << 3 | (uint64_t)kind) + 1 : 0;
}

static inline ts_plan_ask_t eng_plan_ask(uint64_t key)
{
    uint64_t k = key - 1;
    return (ts_plan_ask_t){
        .bytes = k >> 7, .loc = (ts_locality)(k >> 3 & 15), .kind = (int)(k & 7)};
}

/* ---- engine.c: errors, memory ----------------------------------------------------------- */

/* Record the first error of the run (later ones are dropped), naming the trace. */
void eng_fail(engine_t *e, ts_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* calloc, or NULL after eng_fail(TS_ENOMEM). */
void *eng_xcalloc(engine_t *e, size_t n, size_t size);
/* A map's values freed with their map (eng_map_free(m, eng_free_value)). */
void eng_free_value(uint64_t key, void *value, void *ctx);
void eng_map_free(ts_u64map_t *m, void (*each)(uint64_t key, void *value, void *ctx));

/* Free lists: a spare object's first bytes hold the link to the next spare. */
static inline void spare_give(void **spares, void *p)
{
    memcpy(p, spares, sizeof *spares);
    *spares = p;
}

/* Free a list of spares, at the end. */
static inline void spares_free(void **spares)
{
    while (*spares) {
        void *p = *spares;
        memcpy(spares, p, sizeof *spares);
        free(p);
    }
}

/* Takers of zeroed channels, messages, requests and flows from their spares (or new ones). They
 * zero by copying a zero object, not by memset, which GCC made a `rep stos` for objects over 64
 * bytes, slow for objects taken once per message. */
#define SPARE_TAKER(name, T, list)                                                                 \
    static T *name(engine_t *e)                                                                    \
    {                                                                                              \
        T *p = e->list;                                                                            \
        if (!p)                                                                                    \
            return eng_xcalloc(e, 1, sizeof *p);                                                   \
        memcpy(&e->list, p, sizeof e->list); /* the link spare_give left */                        \
        T zero = {0};                                                                              \
        *p = zero;                                                                                 \
        return p;                                                                                  \
    }

/* ---- the driver's queue ------------------------------------------------------------------ */

/* Queue items are ranks (to run), messages (to take their next delivery step) and free flows'
 * ends, told apart by the pointer's two low bits (all three are aligned). */
static inline void *as_item(msg_t *m)
{
    return (void *)((uintptr_t)m | 1);
}

static inline msg_t *item_msg(void *item)
{
    return ((uintptr_t)item & 3) == 1 ? (msg_t *)((uintptr_t)item & ~(uintptr_t)3) : NULL;
}

static inline void *as_flow_item(flow_t *f)
{
    return (void *)((uintptr_t)f | 2);
}

static inline flow_t *item_flow(void *item)
{
    return ((uintptr_t)item & 3) == 2 ? (flow_t *)((uintptr_t)item & ~(uintptr_t)3) : NULL;
}

/* Queue item at time t; a courier that does this while the driver sleeps wakes the driver
 * (the driver itself, or a courier that runs while the driver is inside a SimGrid call,
 * needs nothing more: the driver looks at the queue before it sleeps again). */
static inline void queue_at(engine_t *e, void *item, double t)
{
    if (ts_timeq_push(e->runq, t, item) != 0) {
        eng_fail(e, TS_ENOMEM, "out of memory");
        return;
    }
    if (e->driver_asleep) {
        e->driver_asleep = 0;
        sg_sem_release(e->wakeup);
    }
}

/* Queue rank r to run at time t, unless it is queued already. */
static inline void make_ready(rank_t *r, double t)
{
    if (r->queued)
        return;
    r->queued = 1;
    queue_at(r->e, r, t);
}

/* Wake rank r if it is blocked on request q. Waking it for anything else would only make it
 * check and wait again. */
static inline void notify(rank_t *r, const req_t *q)
{
    if (q && r->awaited == q)
        make_ready(r, r->e->now);
}

/* Lazy time for ranks. A rank's own work (overheads, copies, compute bursts, reductions) is
 * added to its debt: the rank runs ahead of the driver's time (e->now), at vnow(), and waits
 * for that time only where it matters: before it starts a delivery (it goes back to the
 * driver's queue at vnow()) and when it blocks (it waits from vnow(), see eng_wait_req). Every time
 * the rank observes is taken at vnow(), so results are those of sleeping each delay. */
static inline double vnow(const rank_t *r)
{
    return r->e->now + r->debt;
}

static inline void spend(rank_t *r, double seconds)
{
    if (seconds > 0)
        r->debt += seconds;
}

/* Compute of the rank's own (a trace's burst, a collective's reduction): spent, and kept as a
 * span for a rendezvous asking whether its RTS found the rank computing. */
static inline void eng_compute(rank_t *r, double seconds)
{
    double *span = r->comp_span[r->nspans++ % COMP_RING];
    span[0] = vnow(r);
    spend(r, seconds);
    span[1] = vnow(r);
}

/* ---- engine_mpi.c: point-to-point semantics ------------------------------------------------ */

/* Post a send of bytes from rank r to rank dst (kind: TS_PLAN_*), matched at
 * once against dst's posted receives or queued there; its delivery starts now or, when r runs
 * ahead of the clock, once the clock reaches r (r->to_dispatch). NULL when out of memory. */
req_t *eng_post_send(rank_t *r, int32_t dst, int32_t comm, int32_t tag, uint64_t bytes, int kind);
/* Post a receive at rank r, matched at once against the messages already queued. */
req_t *eng_post_recv(rank_t *r, int32_t src, int32_t comm, int32_t tag, uint64_t bytes);
/* Start m's delivery (the clock is at the sender's time). */
void eng_dispatch(rank_t *r, msg_t *m);
/* Take m's next delivery steps (the driver, when m's queued time has come; the transport, when
 * m's bytes are through). */
void eng_deliver(engine_t *e, msg_t *m);
int eng_req_complete(const req_t *q);
int eng_wait_req(rank_t *r, req_t *q);
int eng_wait_list(rank_t *r, req_t **list, size_t n);
/* Append q (if not NULL) to a growing list of requests. */
void eng_reqs_add(rank_t *r, req_t ***list, size_t *n, size_t *cap, req_t *q);
/* Put what rank r waits for on q in words (r->waiting), for the deadlock report. */
void eng_describe(rank_t *r, const req_t *q);
/* Give every message waiting for rank r to progress its next look. */
void eng_wake_progress_waiters(rank_t *r);

/* ---- engine_coll.c: collectives ------------------------------------------------------------ */

/* Prepare rank r's schedule of collective ev: 1 when there is one to run (AT_COLL). */
int eng_coll_begin(rank_t *r, const ts_event_t *ev);
/* Run it on: 1 when done, 0 when r blocked or must wait for the clock to start a delivery. */
int eng_coll_run(rank_t *r);

/* ---- engine_rank.c: the rank interpreter ---------------------------------------------------- */

/* Run rank r from where it stopped until it blocks, must wait for the clock, or ends. */
void eng_rank_step(rank_t *r);

/* ---- engine_transport.c: flows -------------------------------------------------------------- */

/* Its state (0), or -1 when out of memory. */
int eng_transport_open(engine_t *e);
/* Move m's wire bytes from its sender's host to its receiver's, from the driver's time on;
 * m's delivery goes on (D_ARRIVED) when they are through. */
void eng_flow_start(engine_t *e, msg_t *m);
/* A free flow's queued end (item_flow) has come. */
void eng_flow_end(engine_t *e, flow_t *f);
/* The earliest time any SimGrid flow under way can end, or HUGE_VAL when none is. */
double eng_flow_horizon(engine_t *e);
/* The driver is about to sleep: SimGrid's clock may reach the driver's time, so flows that
 * start from now on no longer join the batch that starts at it. */
void eng_flow_batch_close(engine_t *e);
/* The driver has ended: idle couriers end. */
void eng_transport_stop(engine_t *e);
void eng_transport_free(engine_t *e);

static inline size_t eng_flows_under_way(const engine_t *e)
{
    return e->flows;
}

#endif
