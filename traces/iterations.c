/* iterations.c - finding a trace's solver iterations (what and the rule: iterations.h).
 *
 * Why this rule. A boundary must be the same program point on every rank, or a window cut
 * there would split a message or a collective. Collectives on a communicator of every rank
 * are that: each rank calls them in one order, so "after the j-th one" is one point
 * everywhere, and an iteration is a range of them. Which of them starts a time step is told
 * by rank 0's calls in the gap before it. OpenFOAM's time loop (Time::run(), at the head of
 * every SIMPLE iteration) has the master check the files' modification times and send the
 * answer down to every rank (fileMonitor::updateStates with timeStampMaster: Pstream::scatter
 * in v1912, a tree of blocking sends that rank 0, the root, starts without receiving first;
 * MPI_Bcast in later versions). Everything else rank 0 sends with blocking calls inside an
 * iteration is the second half of a reduction (gather up the tree, then scatter), where the
 * root receives first. Solver cycles (GAMG) repeat Allreduces and halo exchanges a varying
 * number of times, so counting or lengths cannot place a boundary; the loop head can.
 * Start-up also sends one-to-all (case and mesh reading), so segments whose collective
 * kinds never recur are start-up. Cuts are checked: no request may be open at a cut and an
 * iteration's messages must be received in it, or the iteration is marked unclean. */
#include "iterations.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../common/numparse.h"

/* Per rank and clock collective: what a cut right after it needs. */
typedef struct mark_s {
    uint64_t leave;        /* event index of the LEAVE of the call holding the collective */
    uint64_t calls;        /* MPI calls entered up to and including it */
    uint64_t sends, recvs; /* point-to-point messages sent / received so far */
    int64_t open;          /* requests posted and not yet completed at that LEAVE */
} mark_t;

typedef struct rank_scan_s {
    mark_t *marks;
    uint64_t ncoll, cap;
    uint64_t nevents;
    uint64_t calls, sends, recvs;
    /* rank 0 only */
    uint8_t *kind_op;     /* operation per collective */
    uint64_t *kind_bytes; /* sizeSent per collective */
    uint8_t *head;        /* 1 when the collective is a loop head */
    int64_t finalize;     /* the collective of MPI_Finalize, or -1 */
} rank_scan_t;

struct ts_iters_s {
    int32_t n, nranks;
    ts_iter_info_t *info;
    uint64_t *first, *last; /* [k * nranks + r], k from 0 */
    uint64_t startup_events, tail_events;
    int32_t steady_first, steady_last;
    double steady_spread;
    int steady_all; /* no two agreed: the window is every iteration after the first */
};

static int is_clock_comm(const ts_trace_t *t, int32_t comm)
{
    const ts_comm_info_t *c = ts_trace_comm(t, comm);
    return c && !c->is_self && c->size == ts_trace_nranks(t);
}

static int grow_marks(rank_scan_t *s, int rank0)
{
    if (s->ncoll < s->cap)
        return 0;
    uint64_t cap = s->cap ? s->cap * 2 : 256;
    mark_t *m = realloc(s->marks, cap * sizeof *m);
    if (!m)
        return -1;
    s->marks = m;
    if (rank0) {
        uint8_t *op = realloc(s->kind_op, cap);
        if (op)
            s->kind_op = op;
        uint64_t *b = realloc(s->kind_bytes, cap * sizeof *b);
        if (b)
            s->kind_bytes = b;
        uint8_t *h = realloc(s->head, cap);
        if (h)
            s->head = h;
        if (!op || !b || !h)
            return -1;
    }
    s->cap = cap;
    return 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One pass over rank r: a mark per clock collective; on rank 0 also the kinds and heads. */
static ts_status scan_rank(const ts_trace_t *t, int32_t r, rank_scan_t *s, ts_error_t *err)
{
    ts_cursor_t *c;
    if (ts_cursor_open(t, r, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    int rank0 = r == 0;
    int32_t fin = ts_trace_func_find(t, "MPI_Finalize");
    s->finalize = -1;
    uint64_t idx = 0;
    int64_t open = 0;
    int32_t func = -1;
    uint64_t pending = 0; /* clock collectives seen inside the current call */
    int64_t depth = 0;    /* calls entered and not left (a hand-made trace may nest them) */
    int fresh = 1, gap_head = 0;
    const ts_event_t *evs;
    int k;
    ts_status st = TS_OK;
    while (st == TS_OK && (k = ts_cursor_next_batch(c, &evs, err)) > 0) {
        for (int i = 0; i < k && st == TS_OK; i++, idx++) {
            const ts_event_t *ev = &evs[i];
            switch (ev->kind) {
            case TS_EV_ENTER:
                depth++;
                func = ev->func;
                s->calls++;
                if (rank0) {
                    const char *name = ts_trace_func_name(t, func);
                    /* A wait completes a non-blocking exchange: what follows starts fresh. */
                    if (starts_with(name, "MPI_Wait"))
                        fresh = 1;
                    else if (starts_with(name, "MPI_Probe") || starts_with(name, "MPI_Mprobe"))
                        fresh = 0; /* a blocking receive is coming */
                }
                break;
            case TS_EV_SEND:
                s->sends++;
                if (rank0 && fresh)
                    gap_head = 1;
                if (rank0)
                    fresh = 0;
                break;
            case TS_EV_ISEND:
                s->sends++;
                open++;
                break;
            case TS_EV_RECV:
                s->recvs++;
                if (rank0)
                    fresh = 0;
                break;
            case TS_EV_IRECV_POST:
            case TS_EV_ICOLL_POST:
                open++;
                break;
            case TS_EV_IRECV_DONE:
                s->recvs++;
                open--;
                break;
            case TS_EV_ISEND_DONE:
            case TS_EV_CANCELLED:
            case TS_EV_ICOLL_DONE:
                open--;
                break;
            case TS_EV_COLL:
                if (!is_clock_comm(t, ev->comm))
                    break;
                if (grow_marks(s, rank0)) {
                    st = ts_error_set(err, TS_ENOMEM, "out of memory");
                    break;
                }
                if (rank0) {
                    s->kind_op[s->ncoll] = ev->op;
                    s->kind_bytes[s->ncoll] = ev->bytes;
                    s->head[s->ncoll] =
                        (uint8_t)(gap_head || (ev->op == TS_COLL_BCAST && ev->peer == 0));
                    if (fin >= 0 && func == fin && s->finalize < 0)
                        s->finalize = (int64_t)s->ncoll;
                }
                s->marks[s->ncoll] = (mark_t){.leave = 0};
                pending++;
                s->ncoll++;
                break;
            case TS_EV_LEAVE:
                if (depth > 0)
                    depth--;
                if (pending && depth == 0) { /* every collective of the call ends with it */
                    for (uint64_t j = s->ncoll - pending; j < s->ncoll; j++)
                        s->marks[j] = (mark_t){.leave = idx,
                                               .calls = s->calls,
                                               .sends = s->sends,
                                               .recvs = s->recvs,
                                               .open = open};
                    pending = 0;
                    fresh = 1;
                    gap_head = 0;
                }
                break;
            default:
                break;
            }
        }
    }
    if (st == TS_OK && k < 0)
        st = k;
    if (st == TS_OK) /* collectives whose call never returned */
        for (uint64_t j = s->ncoll - pending; j < s->ncoll; j++)
            s->marks[j].leave = idx ? idx - 1 : 0;
    s->nevents = idx;
    ts_cursor_close(c);
    return st;
}

/* Whether some rank records clock collective j in the call of collective j - 1. */
static int shares_call(const rank_scan_t *s, int32_t nr, uint64_t j)
{
    for (int32_t r = 0; r < nr; r++)
        if (s[r].marks[j - 1].leave == s[r].marks[j].leave)
            return 1;
    return 0;
}

static void free_scans(rank_scan_t *s, int32_t n)
{
    for (int32_t r = 0; s && r < n; r++) {
        free(s[r].marks);
        free(s[r].kind_op);
        free(s[r].kind_bytes);
        free(s[r].head);
    }
    free(s);
}

void ts_iters_free(ts_iters_t *it)
{
    if (!it)
        return;
    free(it->info);
    free(it->first);
    free(it->last);
    free(it);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of the events of iterations [a, b] (1-based); the lower middle one for an even
 * count, so that one of them is always the reference itself. */
static double median_events(const ts_iters_t *it, int32_t a, int32_t b)
{
    int32_t n = b - a + 1;
    uint64_t *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return 0;
    for (int32_t k = 0; k < n; k++)
        v[k] = it->info[a - 1 + k].events;
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    double m = (double)v[(n - 1) / 2];
    free(v);
    return m;
}

static void find_steady(ts_iters_t *it)
{
    int32_t a = it->n >= 2 ? 2 : 1, b = it->n;
    double med = median_events(it, a, b);
    int32_t best_first = b, best_len = 0;
    for (int32_t k = a; k <= b;) {
        double e = (double)it->info[k - 1].events;
        if (e < med * (1 - TS_ITERS_STEADY_SPREAD) || e > med * (1 + TS_ITERS_STEADY_SPREAD)) {
            k++;
            continue;
        }
        int32_t j = k;
        while (j + 1 <= b) {
            double f = (double)it->info[j].events;
            if (f < med * (1 - TS_ITERS_STEADY_SPREAD) || f > med * (1 + TS_ITERS_STEADY_SPREAD))
                break;
            j++;
        }
        if (j - k + 1 >= best_len) { /* >=: the later run on a tie */
            best_len = j - k + 1;
            best_first = k;
        }
        k = j + 1;
    }
    if (best_len <= 1) {
        /* No two iterations agree: none of them is the steady state (pitzDaily's last is 0.4
         * of the one before), so the window is all of them after the first, their mean. */
        it->steady_all = b > a;
        best_first = a;
        best_len = b - a + 1;
    }
    it->steady_first = best_first;
    it->steady_last = best_first + best_len - 1;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int32_t k = it->steady_first; k <= it->steady_last; k++) {
        uint64_t e = it->info[k - 1].events;
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
    }
    it->steady_spread = lo ? (double)hi / (double)lo - 1 : 0;
}

/* 1 when collective kind (op, bytes) of rank 0 occurs in [from, to). */
static int kind_in(const rank_scan_t *s0, uint64_t j, uint64_t from, uint64_t to)
{
    for (uint64_t i = from; i < to; i++)
        if (s0->kind_op[i] == s0->kind_op[j] && s0->kind_bytes[i] == s0->kind_bytes[j])
            return 1;
    return 0;
}

ts_status ts_iters_find(const ts_trace_t *t, ts_iters_t **out, ts_error_t *err)
{
    *out = NULL;
    const char *path = ts_trace_path(t);
    int32_t nr = ts_trace_nranks(t);
    if (nr <= 0)
        return ts_error_set(err, TS_ENOITER, "%s: no ranks, so no iteration", path);
    rank_scan_t *s = calloc((size_t)nr, sizeof *s);
    uint64_t *heads = NULL;
    ts_iters_t *it = NULL;
    if (!s)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    for (int32_t r = 0; r < nr && st == TS_OK; r++)
        st = scan_rank(t, r, &s[r], err);
    const rank_scan_t *s0 = &s[0];
    for (int32_t r = 1; r < nr && st == TS_OK; r++)
        if (s[r].ncoll != s0->ncoll)
            st = ts_error_set(err, TS_ENOITER,
                              "%s: rank %d calls %llu collectives of all ranks, rank 0 %llu: "
                              "no common iteration boundary",
                              path, (int)r, (unsigned long long)s[r].ncoll,
                              (unsigned long long)s0->ncoll);
    if (st != TS_OK)
        goto done;

    /* Segments between loop heads; the last one ends at MPI_Finalize's collective. */
    uint64_t nheads = 0;
    heads = malloc((s0->ncoll + 2) * sizeof *heads);
    if (!heads) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    uint64_t end = s0->finalize >= 0 ? (uint64_t)s0->finalize : s0->ncoll;
    for (uint64_t j = 1; j < end; j++) {
        if (!s0->head[j])
            continue;
        /* Boundaries lie between calls on every rank: a head that some rank records in one
         * call with the collective before it moves back to that call's first collective. */
        uint64_t h = j;
        while (h > 0 && shares_call(s, nr, h))
            h--;
        if (h > 0 && (nheads == 0 || heads[nheads - 1] < h))
            heads[nheads++] = h;
    }
    if (nheads == 0 || s0->finalize < 0) {
        st = ts_error_set(err, TS_ENOITER,
                          "%s: no complete iteration (%s): a window must hold a time step's "
                          "start and end",
                          path,
                          nheads == 0 ? "no loop head: no one-to-all from rank 0 between "
                                        "collectives"
                                      : "the trace ends before MPI_Finalize");
        goto done;
    }
    heads[nheads] = end; /* the end of the last segment */
    /* Start-up: up to the last segment (but the final one) with a kind no later one has. */
    uint64_t first_seg = 0;
    for (uint64_t g = 0; g + 1 < nheads; g++) {
        for (uint64_t j = heads[g]; j < heads[g + 1]; j++)
            if (!kind_in(s0, j, heads[g + 1], end)) {
                first_seg = g + 1;
                break;
            }
    }
    it = calloc(1, sizeof *it);
    if (!it) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    it->nranks = nr;
    it->n = (int32_t)(nheads - first_seg);
    it->info = calloc((size_t)it->n, sizeof *it->info);
    it->first = calloc((size_t)it->n * (size_t)nr, sizeof *it->first);
    it->last = calloc((size_t)it->n * (size_t)nr, sizeof *it->last);
    if (!it->info || !it->first || !it->last) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    for (int32_t k = 0; k < it->n; k++) {
        uint64_t h = heads[first_seg + (uint64_t)k], e = heads[first_seg + (uint64_t)k + 1];
        ts_iter_info_t *in = &it->info[k];
        in->index = k + 1;
        in->collectives = e - h;
        in->clean = 1;
        uint64_t sends = 0, recvs = 0;
        for (int32_t r = 0; r < nr; r++) {
            const mark_t *a = &s[r].marks[h - 1], *b = &s[r].marks[e - 1];
            it->first[(size_t)k * nr + r] = a->leave + 1;
            it->last[(size_t)k * nr + r] = b->leave;
            in->events += b->leave - a->leave;
            in->calls += b->calls - a->calls;
            sends += b->sends - a->sends;
            recvs += b->recvs - a->recvs;
            if (a->open || b->open)
                in->clean = 0;
        }
        in->sends = sends;
        if (sends != recvs)
            in->clean = 0;
    }
    for (int32_t r = 0; r < nr; r++) {
        it->startup_events += it->first[r];
        it->tail_events += s[r].nevents - 1 - it->last[(size_t)(it->n - 1) * nr + r];
    }
    double med = median_events(it, 1, it->n);
    for (int32_t k = 0; k < it->n; k++)
        it->info[k].rel = med > 0 ? (double)it->info[k].events / med : 0;
    find_steady(it);
done:
    free(heads);
    free_scans(s, nr);
    if (st != TS_OK) {
        ts_iters_free(it);
        return st;
    }
    *out = it;
    return TS_OK;
}

int32_t ts_iters_count(const ts_iters_t *it)
{
    return it->n;
}

const ts_iter_info_t *ts_iters_get(const ts_iters_t *it, int32_t k)
{
    return (k >= 1 && k <= it->n) ? &it->info[k - 1] : NULL;
}

uint64_t ts_iters_first_event(const ts_iters_t *it, int32_t k, int32_t r)
{
    if (k < 1 || k > it->n || r < 0 || r >= it->nranks)
        return 0;
    return it->first[(size_t)(k - 1) * it->nranks + r];
}

uint64_t ts_iters_last_event(const ts_iters_t *it, int32_t k, int32_t r)
{
    if (k < 1 || k > it->n || r < 0 || r >= it->nranks)
        return 0;
    return it->last[(size_t)(k - 1) * it->nranks + r];
}

uint64_t ts_iters_startup_events(const ts_iters_t *it)
{
    return it->startup_events;
}
uint64_t ts_iters_tail_events(const ts_iters_t *it)
{
    return it->tail_events;
}

int ts_iters_steady_all(const ts_iters_t *it)
{
    return it->steady_all;
}

void ts_iters_steady(const ts_iters_t *it, int32_t *first, int32_t *last, double *spread)
{
    *first = it->steady_first;
    *last = it->steady_last;
    if (spread)
        *spread = it->steady_spread;
}

/* One window bound: digits only (no sign, no blank), within 1 .. count. */
static int parse_bound(const char *s, int32_t count, int32_t *out)
{
    return isdigit((unsigned char)s[0]) ? ts_parse_int(s, 1, count, out) : -1;
}

int ts_iters_parse_window(const char *s, int32_t count, int32_t *first, int32_t *last)
{
    char buf[32];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    int32_t a, b;
    if (parse_bound(buf, count, &a) || parse_bound(colon ? colon + 1 : buf, count, &b) || a > b)
        return -1;
    *first = a;
    *last = b;
    return 0;
}

ts_status ts_iters_window_arg(const char *who, const char *spec, int32_t count, int32_t *first,
                              int32_t *last, ts_error_t *err)
{
    if (ts_iters_parse_window(spec, count, first, last) == 0)
        return TS_OK;
    if (count == INT32_MAX)
        return ts_error_set(err, TS_EUSAGE,
                            "%s: --window expects FIRST:LAST, iterations counted from 1 with "
                            "FIRST <= LAST, got '%s'",
                            who, spec);
    return ts_error_set(err, TS_EUSAGE,
                        "%s: --window expects FIRST:LAST with 1 <= FIRST <= LAST <= %d (the "
                        "trace's iterations), got '%s'",
                        who, (int)count, spec);
}
