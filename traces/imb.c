/* imb.c - IMB-MPI1 benchmarks synthesized as traces (what and why: imb.h). */
#include "imb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec.h"
#include "trace_impl.h"

/* IMB_settings.h */
#define IMB_MSGSPERSAMPLE 1000
#define IMB_OVERALL_VOL   (40ull * 1048576ull)
#define IMB_N_BARR        2
/* Timed functions are named "imb:INDEX NAME": the size index is read back from the name. */
#define TIMED_PREFIX "imb:"

static const char *const NAMES[TS_IMB__COUNT] = {"PingPong", "Alltoall", "Allgather", "Allreduce",
                                                 "Exchange"};

const char *ts_imb_name(ts_imb_bench b)
{
    return (unsigned)b < TS_IMB__COUNT ? NAMES[b] : "?";
}

int ts_imb_parse(const char *word)
{
    for (int b = 0; b < TS_IMB__COUNT; b++)
        if (strcasecmp(word, NAMES[b]) == 0)
            return b;
    return -1;
}

int64_t ts_imb_reps(uint64_t size)
{
    if (size == 0)
        return IMB_MSGSPERSAMPLE;
    uint64_t n = IMB_OVERALL_VOL / size;
    if (n < 1)
        n = 1;
    return n < IMB_MSGSPERSAMPLE ? (int64_t)n : IMB_MSGSPERSAMPLE;
}

/* Point-to-point messages one call makes on n ranks, as the schedules send them roughly:
 * every pair for Alltoall and a ring Allgather, log2(n) rounds per rank for Allreduce; plus
 * the -sync barrier after a collective's call, log2(n) rounds per rank. */
static double call_messages(const ts_imb_spec_t *spec)
{
    double n = spec->nranks, barrier = spec->no_sync ? 0 : n * ceil(log2(n));
    switch (spec->bench) {
    case TS_IMB_PINGPONG:
        return 2;
    case TS_IMB_EXCHANGE:
        return 2 * n;
    case TS_IMB_ALLREDUCE:
        return 2 * n * ceil(log2(n)) + barrier;
    default:
        return n * (n - 1) + barrier;
    }
}

int64_t ts_imb_reps_replayed(const ts_imb_spec_t *spec, uint64_t size)
{
    int64_t n = ts_imb_reps(size);
    if (spec->reps_cap > 0)
        return spec->reps_cap < n ? spec->reps_cap : n;
    double budget = spec->msg_budget > 0 ? (double)spec->msg_budget : TS_IMB_MSG_BUDGET;
    double cap = floor(budget / call_messages(spec));
    if (cap < TS_IMB_MIN_REPS)
        cap = TS_IMB_MIN_REPS;
    return cap < (double)n ? (int64_t)cap : n;
}

int ts_imb_sizes(const ts_imb_spec_t *spec, uint64_t *sizes, int max)
{
    int n = 0;
    /* Reductions work on floats: IMB skips the sizes below one float (IMB_allreduce.c). */
    int lo = spec->minlog;
    if (spec->bench == TS_IMB_ALLREDUCE && lo < 2)
        lo = 2;
    if (n < max)
        sizes[n] = 0;
    n++;
    for (int k = lo; k <= spec->maxlog; k++) {
        if (n < max)
            sizes[n] = 1ull << k;
        n++;
    }
    return n;
}

int ts_imb_func_size(const ts_trace_t *t, int32_t f)
{
    const char *name = ts_trace_func_name(t, f);
    if (!name || strncmp(name, TIMED_PREFIX, strlen(TIMED_PREFIX)) != 0)
        return -1;
    return atoi(name + strlen(TIMED_PREFIX));
}

typedef struct gen_s {
    ts_trace_t *t;
    const ts_imb_spec_t *spec;
    uint64_t *next_req; /* per rank */
    int32_t f_barrier, f_coll, f_send, f_recv, f_isend, f_waitall;
} gen_t;

static int put(gen_t *g, int32_t r, ts_event_t ev)
{
    if (ts_codec_put(&g->t->ranks[r].buf, &ev) != TS_OK)
        return -1;
    g->t->ranks[r].nevents++;
    return 0;
}

static int enter(gen_t *g, int32_t r, int32_t f)
{
    return put(g, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f});
}

static int leave(gen_t *g, int32_t r)
{
    return put(g, r, (ts_event_t){.kind = TS_EV_LEAVE});
}

/* A collective with Score-P's sizes (score-p-otf2-mpi.md: N x the per-rank payload sent and
 * received for Allreduce, Allgather and Alltoall; nothing for Barrier). */
static int coll(gen_t *g, int32_t r, int32_t f, int op, uint64_t size)
{
    uint64_t b = op == TS_COLL_BARRIER ? 0 : size * (uint64_t)g->spec->nranks;
    return enter(g, r, f) ||
           put(g, r,
               (ts_event_t){.kind = TS_EV_COLL,
                            .op = (uint8_t)op,
                            .peer = TS_ROOT_NONE,
                            .bytes = b,
                            .bytes2 = b}) ||
           leave(g, r);
}

static int send(gen_t *g, int32_t r, int32_t f, int32_t to, uint64_t size)
{
    return enter(g, r, f) ||
           put(g, r, (ts_event_t){.kind = TS_EV_SEND, .peer = to, .bytes = size}) || leave(g, r);
}

static int recv(gen_t *g, int32_t r, int32_t f, int32_t from, int32_t tag, uint64_t size)
{
    return enter(g, r, f) ||
           put(g, r, (ts_event_t){.kind = TS_EV_RECV, .peer = from, .tag = tag, .bytes = size}) ||
           leave(g, r);
}

/* IMB_exchange.c: Isend to the right and to the left neighbour of a periodic chain, receive
 * from the left and from the right, wait for both sends. */
static int exchange(gen_t *g, int32_t r, const int32_t *f, uint64_t size)
{
    int32_t n = g->spec->nranks, right = (r + 1) % n, left = (r + n - 1) % n;
    uint64_t q = g->next_req[r];
    g->next_req[r] += 2;
    int rc =
        enter(g, r, f[0]) ||
        put(g, r,
            (ts_event_t){.kind = TS_EV_ISEND, .peer = right, .tag = 1, .bytes = size, .req = q}) ||
        leave(g, r) || enter(g, r, f[0]) ||
        put(g, r,
            (ts_event_t){
                .kind = TS_EV_ISEND, .peer = left, .tag = 1, .bytes = size, .req = q + 1}) ||
        leave(g, r);
    rc = rc || recv(g, r, f[1], left, 1, size) || recv(g, r, f[1], right, 1, size);
    /* A chain of two: both sends go to the one neighbour, both receives come from it. */
    return rc || enter(g, r, f[2]) || put(g, r, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = q}) ||
           put(g, r, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = q + 1}) || leave(g, r);
}

/* One call (or PingPong round trip) of the benchmark on rank r, under functions f. */
static int one(gen_t *g, int32_t r, const int32_t *f, uint64_t size)
{
    switch (g->spec->bench) {
    case TS_IMB_PINGPONG:
        if (r == 0)
            return send(g, r, f[0], 1, size) || recv(g, r, f[1], 1, 0, size);
        if (r == 1)
            return recv(g, r, f[1], 0, 0, size) || send(g, r, f[0], 0, size);
        return 0;
    case TS_IMB_ALLTOALL:
        return coll(g, r, f[0], TS_COLL_ALLTOALL, size);
    case TS_IMB_ALLGATHER:
        return coll(g, r, f[0], TS_COLL_ALLGATHER, size);
    case TS_IMB_ALLREDUCE:
        return coll(g, r, f[0], TS_COLL_ALLREDUCE, size);
    case TS_IMB_EXCHANGE:
        return exchange(g, r, f, size);
    default:
        return -1;
    }
}

/* The MPI functions a benchmark's call is made of (up to 3). */
static int call_funcs(ts_imb_bench b, const char **names)
{
    switch (b) {
    case TS_IMB_PINGPONG:
        names[0] = "MPI_Send";
        names[1] = "MPI_Recv";
        return 2;
    case TS_IMB_ALLTOALL:
        names[0] = "MPI_Alltoall";
        return 1;
    case TS_IMB_ALLGATHER:
        names[0] = "MPI_Allgather";
        return 1;
    case TS_IMB_ALLREDUCE:
        names[0] = "MPI_Allreduce";
        return 1;
    case TS_IMB_EXCHANGE:
        names[0] = "MPI_Isend";
        names[1] = "MPI_Recv";
        names[2] = "MPI_Waitall";
        return 3;
    default:
        return 0;
    }
}

ts_status ts_imb_trace(const ts_imb_spec_t *spec, const char *name, ts_trace_t **out,
                       ts_error_t *err)
{
    *out = NULL;
    if ((unsigned)spec->bench >= TS_IMB__COUNT)
        return ts_error_set(err, TS_EARG, "imb: unknown benchmark %d", (int)spec->bench);
    if (spec->nranks < 2 || spec->nranks > 65536)
        return ts_error_set(err, TS_EARG, "imb: %s on %d ranks: expected 2 to 65,536 ranks",
                            NAMES[spec->bench], (int)spec->nranks);
    if (spec->minlog < 0 || spec->maxlog > 30 || spec->minlog > spec->maxlog)
        return ts_error_set(err, TS_EARG,
                            "imb: --msglog %d:%d: expected 0 <= MIN <= MAX <= 30 (sizes up to "
                            "1 GiB)",
                            spec->minlog, spec->maxlog);
    uint64_t sizes[32];
    int nsizes = ts_imb_sizes(spec, sizes, 32);
    if (spec->one_size < 0 || spec->one_size > nsizes)
        return ts_error_set(err, TS_EARG, "imb: size %d of %s: expected 1 to %d", spec->one_size,
                            NAMES[spec->bench], nsizes);
    ts_trace_t *t;
    if (ts__trace_new(name, TS_FORMAT_STORE, spec->nranks, &t) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    gen_t g = {.t = t, .spec = spec, .next_req = calloc((size_t)spec->nranks, sizeof(uint64_t))};
    int32_t *world = malloc((size_t)spec->nranks * sizeof *world);
    int rc = !g.next_req || !world || ts__trace_add_node(t, "imb") < 0;
    for (int32_t i = 0; !rc && i < spec->nranks; i++) {
        world[i] = i;
        g.next_req[i] = 1;
    }
    rc = rc || ts__trace_add_comm(t, "MPI_COMM_WORLD", spec->nranks, 0, world) < 0;
    const char *fn[3];
    int nf = call_funcs(spec->bench, fn);
    /* IMB's -sync: a barrier after each timed call of the collective benchmarks, untimed. */
    int barrier_after =
        !spec->no_sync && spec->bench != TS_IMB_PINGPONG && spec->bench != TS_IMB_EXCHANGE;
    int32_t untimed[3];
    g.f_barrier = rc ? -1 : ts__trace_intern_func(t, "MPI_Barrier");
    for (int k = 0; k < nf && !rc; k++)
        rc = (untimed[k] = ts__trace_intern_func(t, fn[k])) < 0;
    rc = rc || g.f_barrier < 0;
    for (int i = 0; i < nsizes && !rc; i++) {
        if (spec->one_size && i != spec->one_size - 1)
            continue;
        int32_t timed[3];
        for (int k = 0; k < nf && !rc; k++) {
            char fname[64];
            snprintf(fname, sizeof fname, TIMED_PREFIX "%d %s", i, fn[k]);
            rc = (timed[k] = ts__trace_intern_func(t, fname)) < 0;
        }
        int64_t reps = ts_imb_reps_replayed(spec, sizes[i]);
        for (int32_t r = 0; r < spec->nranks && !rc; r++) {
            rc = one(&g, r, untimed, sizes[i]); /* warm-up, untimed */
            for (int b = 0; b < IMB_N_BARR && !rc; b++)
                rc = coll(&g, r, g.f_barrier, TS_COLL_BARRIER, 0);
            for (int64_t k = 0; k < reps && !rc; k++) {
                rc = one(&g, r, timed, sizes[i]);
                if (barrier_after && !rc)
                    rc = coll(&g, r, g.f_barrier, TS_COLL_BARRIER, 0);
            }
        }
    }
    free(world);
    free(g.next_req);
    if (rc) {
        ts_trace_close(t);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    ts__trace_seal(t);
    *out = t;
    return TS_OK;
}
