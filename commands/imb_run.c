/* imb_run.c - `tunesim imb`'s replays (imb_impl.h): every size of every benchmark under every
 * set, in forked workers (commands/pool.h), each size replayed alone.
 *
 * Why each size alone: a step of the study compares settings that differ only in a UCX
 * threshold, and at most sizes such sets send every message the same way (below 4 KB every
 * UCX_RNDV_THRESH of the grid leaves the messages eager; above 128 KB every one sends them by
 * rendezvous). A size's replay whose largest planned message is M runs exactly alike under any
 * set whose protocol model plans every message up to M as its own does
 * (ts_proto_model_same_upto) and whose other settings are the same: the replay asks the model
 * nothing else, so by induction over its steps every message then gets the same plan. Such a
 * size is replayed once and its numbers are shared, which is exact, not an approximation.
 *
 * The replays go in rounds: first one set of each group of sets with the same other settings
 * (per benchmark and size), which tells the group's largest message; then every set that no
 * replay stands for, the first of those that plan alike up to that size standing for the rest;
 * a unit is a twin only once the replay standing for it is done and its largest message
 * checked, so a group whose messages differ by set is simply replayed more. */
#include "imb_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

enum { U_PENDING, U_QUEUED, U_RUN, U_TWIN }; /* U_QUEUED: replayed this round */

/* In a worker: replay one size of one benchmark under one set; answer "BYTES REPS REPLAYED
 * TMIN TMAX TAVG ALL" (seconds, exact), then what it asked the protocol model, "BYTES:LOC:KIND"
 * each (ALL 1 when that is every question). */
static char *work_unit(void *ctx, int unit, ts_error_t *err)
{
    const imb_t *m = ctx;
    const iunit_t *u = &m->units[unit];
    const itask_t *tk = &m->tasks[u->task];
    const iset_t *s = &m->sets[tk->set];
    const ts_trace_t *t = m->trace[tk->bench][u->size];
    const ts_imb_spec_t *spec = &m->spec[tk->bench];
    ts_job_opts_t jo = s->jo;
    jo.rank_times = 1;
    ts_job_t *job = NULL;
    ts_status st = ts_job_prepare(t, ts_trace_path(t), s->params, &jo, &job, err);
    if (st == TS_OK)
        st = ts_job_run(job, err);
    if (st != TS_OK) {
        ts_job_close(job);
        return NULL;
    }
    const ts_replay_result_t *r = ts_job_result(job);
    uint64_t sizes[MAX_SIZES];
    ts_imb_sizes(spec, sizes, MAX_SIZES);
    uint64_t bytes = sizes[u->size];
    double *per = calloc((size_t)r->nranks, sizeof *per);
    if (!per) {
        ts_job_close(job);
        ts_error_set(err, TS_ENOMEM, "out of memory");
        return NULL;
    }
    for (int32_t f = 0; f < r->nfuncs; f++)
        if (ts_imb_func_size(t, f) == u->size)
            for (int32_t k = 0; k < r->nranks; k++)
                per[k] += r->rank_time[(size_t)k * (size_t)r->nfuncs + (size_t)f];
    /* IMB times the loop on every rank and divides by its repetitions; PingPong's two ranks
     * divide the round trips by two (the one-way time), and only they take part. */
    int active = spec->bench == TS_IMB_PINGPONG ? 2 : r->nranks;
    int64_t reps = ts_imb_reps_replayed(spec, bytes);
    double div = (double)reps * (spec->bench == TS_IMB_PINGPONG ? 2.0 : 1.0);
    double lo = INFINITY, hi = 0, sum = 0;
    for (int k = 0; k < active; k++) {
        double v = per[k] / div;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    free(per);
    char *out = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&out, &len);
    if (ms) {
        fprintf(ms, "%llu %lld %lld %.17g %.17g %.17g %d", (unsigned long long)bytes,
                (long long)ts_imb_reps(bytes), (long long)reps, lo, hi, sum / active, r->asks_all);
        for (size_t i = 0; i < r->nasks; i++)
            fprintf(ms, " %llu:%d:%d", (unsigned long long)r->asks[i].bytes, (int)r->asks[i].loc,
                    r->asks[i].kind);
        if (fclose(ms) != 0) {
            free(out);
            out = NULL;
        }
    }
    if (!out)
        ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_job_close(job);
    return out;
}

static ts_status unit_done(void *ctx, int unit, const char *answer, const char *error, int *failed,
                           ts_error_t *err)
{
    imb_t *m = ctx;
    iunit_t *u = &m->units[unit];
    char why[256];
    u->state = U_RUN;
    m->nreplayed++;
    if (answer) {
        unsigned long long b;
        long long reps, rep2;
        int used = 0;
        isize_t *z = &u->z;
        u->ok = sscanf(answer, "%llu %lld %lld %lf %lf %lf %d%n", &b, &reps, &rep2, &z->tmin,
                       &z->tmax, &z->tavg, &u->asks_all, &used) == 7;
        z->bytes = b;
        z->reps = reps;
        z->replayed = rep2;
        const char *p = answer + used;
        size_t n = 0;
        for (const char *c = p; u->ok && *c; c++)
            n += *c == ' ';
        if (u->ok && !(u->asks = calloc(n + 1, sizeof *u->asks)))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        while (u->ok && *p) {
            unsigned long long ab;
            int loc, kind, k = 0;
            u->ok = sscanf(p, " %llu:%d:%d%n", &ab, &loc, &kind, &k) == 3 && loc >= 0 &&
                    loc < TS_LOC__COUNT && kind >= 0 && kind < TS_PLAN__COUNT && u->nasks < n;
            if (!u->ok)
                break; /* p stays at the ask that failed, for the report */
            u->asks[u->nasks++] = (ts_plan_ask_t){ab, (ts_locality)loc, kind};
            p += k;
        }
        if (!u->ok) {
            /* A worker's answer is ours to read: name where it went wrong, for a report. */
            snprintf(why, sizeof why,
                     "the worker's answer is not a size's line (bytes, repetitions, replayed, "
                     "t_min, t_max, t_avg, asks, then bytes:locality:kind each) at '%.40s'",
                     *p ? p : answer);
            error = why;
        }
    }
    if (!u->ok) {
        const itask_t *tk = &m->tasks[u->task];
        uint64_t sizes[MAX_SIZES];
        ts_imb_sizes(&m->spec[tk->bench], sizes, MAX_SIZES);
        u->error = strdup(error ? error : "no answer");
        *failed = 1;
        ts_pool_clear_line();
        fprintf(stderr, "tunesim: imb: %s at %llu bytes under set %s failed: %s\n",
                ts_imb_name(tk->bench), (unsigned long long)sizes[u->size], m->sets[tk->set].name,
                error ? error : "no answer");
    }
    return TS_OK;
}

/* The unit of set s at the same benchmark and size as unit u. */
static iunit_t *peer(const imb_t *m, const iunit_t *u, int s)
{
    const itask_t *tk = &m->tasks[u->task];
    return &m->units[m->tasks[u->task - tk->set + s].unit0 + u->size];
}

/* Whether set j's replay v of a size stands for set s's, j in s's group (the same other
 * settings): a model that answers every question v's replay asked alike. */
static int stands_for(const imb_t *m, const iunit_t *v, int j, int s)
{
    return v->state == U_RUN && v->ok && v->asks_all &&
           ts_proto_model_alike(m->sets[j].pm, m->sets[s].pm, v->asks, v->nasks);
}

/* One round's decision for unit u (pending): a twin of a replay that stands for it (U_TWIN,
 * and 0), left for a later round (0) because its group has had no replay yet (its first set
 * goes first) or because a set replayed this round will likely stand for it (it asks the
 * questions the group's replays asked), or to be replayed now (1). */
static int decide(imb_t *m, iunit_t *u)
{
    int s = m->tasks[u->task].set, first = m->sets[s].group_first;
    /* The group's first set goes first: until it has run, nothing of its group has, and the
     * scan below would find nothing (for each of a grid's thousands of sets, every round). */
    if (s != first && peer(m, u, first)->state != U_RUN)
        return 0;
    const iunit_t *probe = NULL;
    int group_known = 0;
    for (int j = first; j >= 0; j = m->sets[j].group_next) {
        const iunit_t *v = peer(m, u, j);
        if (j == s || v->state != U_RUN)
            continue;
        group_known = 1; /* a failed replay too: the rest of its group then runs */
        if (stands_for(m, v, j, s)) {
            u->state = U_TWIN;
            u->twin = (int)(v - m->units);
            return 0;
        }
        if (!probe && v->ok && v->asks_all)
            probe = v;
    }
    if (!group_known && first < s)
        return 0;
    for (int j = first; j >= 0 && j < s && probe; j = m->sets[j].group_next) {
        const iunit_t *v = peer(m, u, j);
        if (v->state == U_QUEUED &&
            ts_proto_model_alike(m->sets[j].pm, m->sets[s].pm, probe->asks, probe->nasks))
            return 0;
    }
    return 1;
}

ts_status ts__imb_run(imb_t *m, ts_error_t *err)
{
    m->nunits = 0;
    for (int i = 0; i < m->ntasks; i++) {
        m->tasks[i].unit0 = m->nunits;
        m->tasks[i].nsizes = m->nsizes[m->tasks[i].bench];
        m->nunits += m->tasks[i].nsizes;
    }
    m->units = calloc((size_t)m->nunits + 1, sizeof *m->units);
    int *todo = calloc((size_t)m->nunits + 1, sizeof *todo);
    if (!m->units || !todo) {
        free(todo);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < m->ntasks; i++)
        for (int k = 0; k < m->tasks[i].nsizes; k++)
            m->units[m->tasks[i].unit0 + k] = (iunit_t){.task = i, .size = k, .twin = -1};
    ts_pool_t pool = {.jobs = m->o.jobs,
                      .who = "imb",
                      .what = "replays",
                      .ctx = m,
                      .work = work_unit,
                      .done = unit_done};
    ts_status st = TS_OK;
    for (;;) {
        int ntodo = 0;
        for (int i = 0; i < m->nunits; i++) {
            iunit_t *u = &m->units[i];
            if (u->state == U_PENDING && decide(m, u)) {
                u->state = U_QUEUED; /* decide reads it for the units after */
                todo[ntodo++] = i;
            }
        }
        if (!ntodo || (st = ts_pool_run(&pool, todo, ntodo, 0, err)) != TS_OK)
            break;
    }
    free(todo);
    for (int i = 0; st == TS_OK && i < m->ntasks; i++) {
        itask_t *tk = &m->tasks[i];
        tk->ok = 1;
        for (int k = 0; k < tk->nsizes; k++) {
            const iunit_t *u = &m->units[tk->unit0 + k];
            if (u->twin >= 0)
                u = &m->units[u->twin];
            tk->sizes[k] = u->z;
            if (!u->ok && tk->ok) {
                tk->ok = 0;
                if (!(tk->error = strdup(u->error ? u->error : "no answer")))
                    st = ts_error_set(err, TS_ENOMEM, "out of memory");
            }
        }
    }
    return st;
}
