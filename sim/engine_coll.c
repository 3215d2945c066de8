/* engine_coll.c - the engine's collectives, executed as schedules (see engine_int.h). */

/* A call runs as its schedule of messages and reductions; statistics are kept per decision. */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

/* The messages of a collective round, completed together before its reduction. */
static void round_add(rank_t *r, req_t *q)
{
    eng_reqs_add(r, &r->coll_reqs, &r->ncoll_reqs, &r->capcoll_reqs, q);
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
        eng_fail(e, TS_ENOMEM, "out of memory");
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
            eng_fail(e, TS_ENOMEM, "out of memory");
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
 * as the application's, round by round, with the reduction work as a delay. eng_coll_begin
 * prepares the schedule (1: there is one to run, AT_COLL), eng_coll_run runs it on. */
int eng_coll_begin(rank_t *r, const ts_event_t *ev)
{
    engine_t *e = r->e;
    const ts_comm_info_t *ci = ts_trace_comm(e->t, ev->comm);
    if (ci->is_self || ci->size <= 1)
        return 0;
    int32_t me = ts_trace_comm_rank(e->t, ev->comm, r->id);
    if (me < 0) {
        eng_fail(e, TS_ECORRUPT, "rank %d: collective on communicator %d it is not a member of",
                 (int)r->id, (int)ev->comm);
        return 0;
    }
    int32_t root = -1;
    if (ev->peer != TS_ROOT_NONE && (root = ts_trace_comm_rank(e->t, ev->comm, ev->peer)) < 0) {
        eng_fail(e, TS_ECORRUPT, "rank %d: %s on communicator %d with root %d, not a member",
                 (int)r->id, ts_coll_op_name(ev->op), (int)ev->comm, (int)ev->peer);
        return 0;
    }
    const ts_coll_topo_t *topo = comm_topo(e, ev->comm);
    if (!topo)
        return 0;
    uint64_t b = ts_coll_payload(ev->op, ci->size, ev->peer == r->id, me, ev->bytes, ev->bytes2);
    /* A call with no data returns at once in Open MPI's MPI layer (ts_coll_empty_returns):
     * IMB's 0-byte rows of Alltoall, Allgather and Allreduce time that return. Allgatherv and
     * Reduce_scatter return only when every count is 0: sizeReceived, the whole vector. */
    uint64_t data = ev->op == TS_COLL_ALLGATHERV ? ev->bytes2 : b;
    if (data == 0 && ts_coll_empty_returns(ev->op, ev->kind == TS_EV_ICOLL_DONE))
        return 0;
    /* The decision must be the same on every rank: Allgatherv decides on the mean of all
     * counts (sizeReceived / N, equal everywhere) as Open MPI's rule does. */
    uint64_t decide = ev->op == TS_COLL_ALLGATHERV ? ev->bytes2 / (uint64_t)ci->size : b;
    ts_coll_choice_t ch;
    ts_coll_select(e->coll, ev->op, ci->size, topo->nnodes, decide, &ch);
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
    key.ch.posts = ch.posts;
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
        eng_fail(e, st, "rank %d: %s by %s/%s: %s", (int)r->id, ts_coll_op_name(ev->op),
                 ts_coll_comp_name(ch.comp), ts_coll_alg_name(ch.alg),
                 st == TS_ENOMEM ? "out of memory" : "the algorithm does not apply to it");
        return 0;
    }
    r->coll.step = 0;
    r->coll.waiting = 0;
    r->coll.t0 = vnow(r);
    r->coll.msgs = 0;
    r->coll.written = 0;
    return 1;
}

/* The plan kind (TS_PLAN_*) of a schedule's send: how HCOLL's shared memory moves it
 * (TS_SM_*), or whether it goes between registered buffers. */
static int step_plan(const ts_cstep_t *s)
{
    static const int shared[] = {[TS_SM_COPY] = TS_PLAN_SHARED,
                                 [TS_SM_READ] = TS_PLAN_SHARED_READ,
                                 [TS_SM_WRITE] = TS_PLAN_SHARED_WRITE};
    return s->shared ? shared[s->shared] : s->registered ? TS_PLAN_REGISTERED : TS_PLAN_ISEND;
}

/* Run the collective on: 1 when it is done, 0 when the rank blocked or must wait for the
 * clock to start a delivery. What it runs is r->sched, built for r->sched_key. */
int eng_coll_run(rank_t *r)
{
    engine_t *e = r->e;
    const sched_key_t *k = &r->sched_key;
    const ts_comm_info_t *ci = ts_trace_comm(e->t, k->comm);
    for (;;) {
        if (r->coll.waiting) {
            if (!eng_wait_list(r, r->coll_reqs, r->ncoll_reqs))
                return 0;
            r->ncoll_reqs = 0;
            r->coll.waiting = 0;
            /* the receives posted ahead are the next round's to wait for */
            req_t **q = r->coll_reqs;
            size_t cap = r->capcoll_reqs;
            r->coll_reqs = r->coll_next, r->ncoll_reqs = r->ncoll_next;
            r->capcoll_reqs = r->capcoll_next;
            r->coll_next = q, r->ncoll_next = 0, r->capcoll_next = cap;
            eng_compute(r, r->coll.reduce);
            if (r->coll.reduce > 0)
                r->coll.written = 1;
        }
        if (r->coll.step >= r->sched.n || e->status != TS_OK) {
            if (!r->ncoll_reqs && !r->ncoll_next)
                break;
            r->coll.waiting = 1; /* a schedule always ends a round; be safe */
            r->coll.reduce = 0;
            continue;
        }
        const ts_cstep_t *s = &r->sched.step[r->coll.step++];
        switch (s->kind) {
        case TS_CSTEP_SEND:
            round_add(r, eng_post_send(r, ci->members[s->peer], k->comm, COLL_TAG, s->bytes,
                                       step_plan(s)));
            r->coll.msgs++;
            if (r->to_dispatch)
                return 0;
            break;
        case TS_CSTEP_RECV:
            round_add(r, eng_post_recv(r, ci->members[s->peer], k->comm, COLL_TAG, s->bytes));
            break;
        case TS_CSTEP_RECV_NEXT:
            eng_reqs_add(r, &r->coll_next, &r->ncoll_next, &r->capcoll_next,
                         eng_post_recv(r, ci->members[s->peer], k->comm, COLL_TAG, s->bytes));
            break;
        case TS_CSTEP_CPU:
            spend(r, (double)s->bytes * 1e-12);
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
