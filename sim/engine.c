/* engine.c - the replay engine's driver, setup and run (see engine.h, engine_int.h). */

/* Ranks are not actors. Switching between actors is most of what SimGrid costs per call,
 * and a rank only needs SimGrid's clock where a flow may start or end, so one driver actor
 * runs every rank's events and every delivery's steps from a queue ordered by virtual time
 * (common/timeq): a rank runs until it blocks on a request, or until it must start a
 * delivery at a virtual time ahead of the clock; it then goes back to the queue (at that
 * time) or waits to be woken. Where a rank blocks it keeps what it was doing (resume point,
 * wait list, collective step), so the driver can pick it up again. The driver asks SimGrid
 * nothing while no SimGrid flow can end before the queue's next time (eng_flow_horizon, with
 * the ledger's bounds on the flows' rates); otherwise it sleeps until then, or until a
 * courier queues a message whose flow is through (a semaphore with a timeout). SimGrid
 * actors only carry flows (engine_transport.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#include "engine_int.h"

/* ---- errors, memory ------------------------------------------------------------------- */

void eng_fail(engine_t *e, ts_status st, const char *fmt, ...)
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

void *eng_xcalloc(engine_t *e, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        eng_fail(e, TS_ENOMEM, "out of memory");
    return p;
}

/* ---- the driver ---------------------------------------------------------------------- */

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
                eng_deliver(e, m);
            } else if (f) {
                eng_flow_end(e, f);
            } else {
                rank_t *r = item;
                r->queued = 0;
                eng_rank_step(r);
            }
        }
        /* Nothing SimGrid computes can happen before the horizon (no flow under way, or
         * none can end yet), so the driver goes to the queue's next time without asking
         * SimGrid; a courier starts its flow from the driver's time. An empty queue with no
         * flow under way: every rank has finished, or those left wait for something nothing
         * will do. */
        double horizon = eng_flow_horizon(e);
        if (!eng_flows_under_way(e) && !ts_timeq_size(e->runq))
            break;
        if (ts_timeq_size(e->runq) && ts_timeq_first(e->runq) < horizon) {
            if (ts_timeq_first(e->runq) > e->now)
                e->now = ts_timeq_first(e->runq);
            continue;
        }
        /* A flow may end first: SimGrid runs until the queue's next time, or until a courier
         * queues a message whose flow is through. */
        e->driver_asleep = 1;
        eng_flow_batch_close(e); /* the clock may reach its time: a new batch from now on */
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
    eng_transport_stop(e);
}

/* ---- setup, run, report -------------------------------------------------------------- */

static void free_req_entry(uint64_t key, void *value, void *ctx)
{
    (void)key;
    (void)ctx;
    free(value); /* requests still open when a replay failed */
}

void eng_free_value(uint64_t key, void *value, void *ctx)
{
    (void)key;
    (void)ctx;
    free(value);
}

/* A map and what its values own (each frees one value). */
void eng_map_free(ts_u64map_t *m, void (*each)(uint64_t key, void *value, void *ctx))
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
        eng_map_free(r->reqs, free_req_entry);
        for (int k = 0; k < r->nopen; k++)
            free(r->open[k].q);
        eng_map_free(r->chans, eng_free_value);
        ts_u64map_free(r->rcache);
        free(r->call_reqs);
        free(r->coll_reqs);
        free(r->coll_next);
        ts_csched_free(&r->sched);
    }
    free(e->ranks);
    spares_free(&e->spare_msgs);
    spares_free(&e->spare_reqs);
    spares_free(&e->spare_chans);
    for (int32_t c = 0; e->topo && c < ts_trace_ncomms(e->t); c++)
        ts_coll_topo_free(e->topo[c]);
    free(e->topo);
    ts_coll_model_free(e->own_coll);
    eng_map_free(e->plans, eng_free_value);
    ts_timeq_free(e->runq);
    eng_transport_free(e);
}

void ts_replay_result_free(ts_replay_result_t *res)
{
    if (!res)
        return;
    free(res->visits);
    free(res->time);
    free(res->rank_time);
    free(res->coll);
    free(res->asks);
    free(res);
}

/* The plan cache's keys (plan_for) as the protocol model's questions. */
static void note_ask(uint64_t key, void *value, void *ctx)
{
    (void)value;
    ts_replay_result_t *res = ctx;
    res->asks[res->nasks++] = eng_plan_ask(key);
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
    e.res = eng_xcalloc(&e, 1, sizeof *e.res);
    if (e.res) {
        e.res->nfuncs = ts_trace_nfuncs(t);
        e.res->visits = eng_xcalloc(&e, (size_t)e.res->nfuncs, sizeof *e.res->visits);
        e.res->time = eng_xcalloc(&e, (size_t)e.res->nfuncs, sizeof *e.res->time);
        if (spec->rank_times) {
            e.res->nranks = e.nranks;
            e.res->rank_time =
                eng_xcalloc(&e, (size_t)e.nranks * (size_t)e.res->nfuncs, sizeof *e.res->rank_time);
        }
    }
    e.ranks = eng_xcalloc(&e, (size_t)e.nranks, sizeof *e.ranks);
    e.topo = eng_xcalloc(&e, (size_t)ts_trace_ncomms(t), sizeof *e.topo);
    e.plans = ts_u64map_new(); /* without it every plan is computed: slower, not wrong */
    e.coll = spec->coll;
    if (!e.coll && e.status == TS_OK) {
        ts_params_t *defaults = NULL;
        if (ts_params_new(&defaults) != TS_OK ||
            ts_coll_model_new(defaults, &e.own_coll, err) != TS_OK)
            eng_fail(&e, TS_ENOMEM, "out of memory");
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
     * tightest link; latencies are the models', not the platform's. The actors are the driver
     * and the couriers (one per flow SimGrid carries at once), whose code is shallow, so
     * stacks are small and without guard pages: mapping and protecting them is kernel time
     * that grows with the actors. */
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
            eng_fail(&e, TS_EARG, "rank %d: host '%s' is not in the platform %s", (int)i,
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
            eng_fail(&e, TS_ENOMEM, "out of memory");
    }
    int flows_ok = eng_transport_open(&e) == 0;
    if (e.status == TS_OK && (!(e.runq = ts_timeq_new()) || !flows_ok))
        eng_fail(&e, TS_ENOMEM, "out of memory");
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
            if (e.ranks[i].awaited) /* still blocked in eng_wait_req on it */
                eng_describe(&e.ranks[i], e.ranks[i].awaited);
            if (blocked++ < 4)
                used += (size_t)snprintf(
                    report + used, sizeof report - used, "%srank %d in %s", blocked > 1 ? "; " : "",
                    (int)i, e.ranks[i].waiting[0] ? e.ranks[i].waiting : "an unknown wait");
            if (used >= sizeof report)
                used = sizeof report - 1;
        }
        if (blocked)
            eng_fail(&e, TS_EUNMATCHED, "the trace cannot complete: %d ranks blocked: %s%s",
                     blocked, report, blocked > 4 ? "; ..." : "");
    }
    if (e.status == TS_OK) {
        for (int32_t i = 0; i < e.nranks; i++)
            if (e.ranks[i].end > e.res->makespan)
                e.res->makespan = e.ranks[i].end;
        e.res->rank0_elapsed = e.ranks[0].end;
        size_t n = e.plans ? ts_u64map_size(e.plans) : 0;
        if ((e.res->asks = malloc((n ? n : 1) * sizeof *e.res->asks))) {
            if (e.plans)
                ts_u64map_each(e.plans, note_ask, e.res);
            e.res->asks_all = !e.plans_partial && e.plans;
        }
        *out = e.res;
        e.res = NULL;
    }
    ranks_free(&e);
    ts_replay_result_free(e.res);
    return e.status;
}
