/* engine_transport.c - the engine's flow transport (see engine_int.h). */

/* Routes, the ledger bridge, the flow horizon and the courier actors that carry SimGrid's
 * flows.
 *
 * A message's wire bytes are a flow over the route between its hosts (eng_flow_start): a flow
 * that can share no link's bandwidth with another is timed by the driver (its end is queued),
 * any other is a courier actor's SimGrid transfer, so that SimGrid shares links between them.
 * When the bytes are through the message's delivery goes on (eng_deliver, D_ARRIVED).
 *
 * Synchronisation: SimGrid actors run one at a time and switch only inside SimGrid calls,
 * so shared state needs no locking. Idle couriers wait by suspending and are resumed by the
 * driver (or, for flows that start together, by the courier that slept until then: carry): a
 * courier checks for a job and suspends with no simcall in between, so a wake-up cannot fall
 * between the two. */
#include <math.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "../common/grow.h"
#include "engine_int.h"

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
 * instead (courier_main): SimGrid scans the list of detached transfers at each one's end, so
 * this bounds the scan, while runs of fewer flows keep sg_host_sendto, the cheaper to set up
 * (docs/replay.md has the measurements). */
enum { DETACHED_MAX = 128 };

/* A flow needs an actor to wait for its transfer (the C API has no asynchronous transfer
 * between hosts), so a courier carries each SimGrid flow through the platform; everything
 * else about a message in flight is a step the driver takes (eng_deliver). Creating an actor is
 * costly in SimGrid, so idle couriers are kept and reused: there are only as many as flows
 * were ever in SimGrid at once. */
struct courier_s {
    sg_actor_t actor;
    flow_t *job;    /* the flow it carries, until it is through */
    double start;   /* when the job's flow starts (the driver's time when it was handed over) */
    double done_lb; /* the flow cannot end before this (see eng_flow_horizon) */
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
        eng_fail(e, TS_ENOMEM, "out of memory");
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
                eng_fail(e, TS_ENOMEM, "out of memory");
        }
        rt->links[i] = (int32_t)id - 1;
    }
    xbt_dynar_free(&links);
    rt->solo = ts_ledger_solo(e->ledger, rt->links, rt->n); /* SimGrid's route bandwidth */
    if (ts_u64map_put(e->routes, key, rt)) {
        free(rt);
        eng_fail(e, TS_ENOMEM, "out of memory");
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
            eng_fail(e, TS_ENOMEM, "out of memory");
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
double eng_flow_horizon(engine_t *e)
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
         * is the courier's own activity, in no such list, but costs more to set up
         * (DETACHED_MAX). The host model refuses a
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
    else if (!(c = eng_xcalloc(e, 1, sizeof *c)))
        return;
    if (TS_GROW(e->sflows, e->flows, e->capsflows, 64)) {
        eng_fail(e, TS_ENOMEM, "out of memory");
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
        eng_fail(e, TS_ENOMEM, "out of memory");
    /* Flows that start at the same time ahead of SimGrid's clock need one sleep between them:
     * the first courier sleeps until then and wakes the others, which stay suspended till
     * that time (a sleep costs a simcall and a CPU action in SimGrid, and flows often start
     * together, evicted ones above all). The batch closes when the driver sleeps, since
     * SimGrid's clock may then reach it (eng_flow_batch_close). */
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
    /* Couriers end when the driver does (eng_transport_stop). They are not daemons: SimGrid 3.32
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

/* Move m's wire bytes from its sender's host to its receiver's, from the driver's time on;
 * m's delivery goes on (D_ARRIVED) when they are through. */
void eng_flow_start(engine_t *e, msg_t *m)
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
        eng_fail(e, TS_ENOMEM, "out of memory");
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
        eng_fail(e, TS_ENOMEM, "out of memory");
}

/* A free flow's queued end has come: if it is still free its bytes are through. */
void eng_flow_end(engine_t *e, flow_t *f)
{
    f->queued = 0;
    if (f->is_free) {
        msg_t *m = f->m;
        ts_ledger_end(e->ledger, f->lf);
        e->flows_changed = 1;
        flow_drop(e, f);
        eng_deliver(e, m); /* its dstate is D_ARRIVED */
    } else if (f->through) {
        flow_drop(e, f);
    }
}

/* The driver is about to sleep: SimGrid's clock may reach the batch's time. */
void eng_flow_batch_close(engine_t *e)
{
    e->leader = NULL;
}

int eng_transport_open(engine_t *e)
{
    e->flowq = ts_timeq_new();
    e->routes = ts_u64map_new();
    e->link_ids = ts_u64map_new();
    e->ledger = ts_ledger_new();
    return e->flowq && e->routes && e->link_ids && e->ledger ? 0 : -1;
}

/* Couriers are not daemons (carry): each idle one is resumed to see the driver's end. */
void eng_transport_stop(engine_t *e)
{
    e->shutdown = 1;
    for (courier_t *c = e->idle; c; c = c->next_idle)
        sg_actor_resume(c->actor);
}

void eng_transport_free(engine_t *e)
{
    spares_free(&e->spare_flows);
    ts_timeq_free(e->flowq);
    eng_map_free(e->routes, eng_free_value);
    ts_u64map_free(e->link_ids);
    free(e->sflows);
    ts_ledger_free(e->ledger);
    for (courier_t *c = e->couriers, *next; c; c = next) {
        next = c->next_all;
        free(c);
    }
}
