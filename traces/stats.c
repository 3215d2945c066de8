/* stats.c - one pass over every rank's stream to build the profile, histograms,
 * communication matrix and the send/receive matching check. */
#include "stats.h"

#include "../common/grow.h"

#include <stdlib.h>
#include <string.h>

/* One point-to-point message end, for the matching check. */
typedef struct msg_key_s {
    int32_t src, dst, comm, tag;
    uint64_t bytes;
} msg_key_t;

typedef struct msg_vec_s {
    msg_key_t *v;
    size_t n, cap;
} msg_vec_t;

/* Sparse matrix cell: bytes sent from src to dst. */
typedef struct pair_s {
    int32_t src, dst;
    uint64_t bytes, msgs;
} pair_t;

struct ts_stats_s {
    int32_t nfuncs;
    ts_func_stats_t *funcs;
    uint64_t events;
    int64_t mpi_ns, compute_ns;
    ts_hist_t p2p;
    ts_hist_t coll[TS_COLL__COUNT];
    int coll_used[TS_COLL__COUNT];
    pair_t *pairs;
    size_t npairs;
    ts_matrix_summary_t matrix;
    ts_match_summary_t match;
    /* imbalance: per interval the slowest rank's and the summed compute (ns), over the ranks
     * scanned so far; per rank the compute in its intervals */
    struct ivl_s {
        double max, sum;
    } * ivl;
    double *rank_compute;
    size_t nivl, capivl;
    int ragged; /* ranks with different numbers of intervals */
    ts_imbalance_t imbalance;
};

uint64_t ts_hist_lo(int k)
{
    return k == 0 ? 0 : (uint64_t)1 << (k - 1);
}
uint64_t ts_hist_hi(int k)
{
    return k == 0 ? 1 : (k >= 64 ? UINT64_MAX : (uint64_t)1 << k);
}

static int bucket_of(uint64_t v)
{
    int k = 0;
    while (v) {
        k++;
        v >>= 1;
    }
    return k;
}

static int push_msg(msg_vec_t *m, msg_key_t k)
{
    if (TS_GROW(m->v, m->n, m->cap, 1024) != 0)
        return -1;
    m->v[m->n++] = k;
    return 0;
}

static int cmp_key(const msg_key_t *a, const msg_key_t *b)
{
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return 0;
}

static int cmp_msg(const void *a, const void *b)
{
    return cmp_key(a, b);
}

/* Messages of one (src, dst, comm, tag) stream are matched in FIFO order by MPI's rule;
 * receives appear in completion order, so only counts and byte totals per stream are
 * compared, not the order. */
static void match_messages(ts_stats_t *s, msg_vec_t *snd, msg_vec_t *rcv)
{
    if (snd->n) /* qsort's pointer must not be NULL, even for zero elements */
        qsort(snd->v, snd->n, sizeof *snd->v, cmp_msg);
    if (rcv->n)
        qsort(rcv->v, rcv->n, sizeof *rcv->v, cmp_msg);
    size_t i = 0, j = 0;
    while (i < snd->n || j < rcv->n) {
        int c = i >= snd->n ? 1 : j >= rcv->n ? -1 : cmp_key(&snd->v[i], &rcv->v[j]);
        const msg_key_t *k = c <= 0 ? &snd->v[i] : &rcv->v[j];
        uint64_t ns = 0, nr = 0, bs = 0, br = 0;
        while (i < snd->n && cmp_key(&snd->v[i], k) == 0) {
            ns++;
            bs += snd->v[i++].bytes;
        }
        while (j < rcv->n && cmp_key(&rcv->v[j], k) == 0) {
            nr++;
            br += rcv->v[j++].bytes;
        }
        if (ns > nr)
            s->match.unmatched_sends += ns - nr;
        else
            s->match.unmatched_recvs += nr - ns;
        if (ns == nr && bs != br)
            s->match.byte_mismatches++;
    }
}

static int cmp_pair(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Collapse the per-message sends into per-pair cells and summarise them. */
static int build_matrix(ts_stats_t *s, const ts_trace_t *t, const msg_vec_t *snd)
{
    /* snd is sorted by (src, dst, ...) after match_messages. */
    size_t np = 0;
    for (size_t i = 0; i < snd->n; i++)
        if (i == 0 || snd->v[i].src != snd->v[i - 1].src || snd->v[i].dst != snd->v[i - 1].dst)
            np++;
    s->pairs = calloc(np ? np : 1, sizeof *s->pairs);
    if (!s->pairs)
        return -1;
    ts_matrix_summary_t *m = &s->matrix;
    for (size_t i = 0; i < snd->n; i++) {
        const msg_key_t *k = &snd->v[i];
        if (s->npairs == 0 || s->pairs[s->npairs - 1].src != k->src ||
            s->pairs[s->npairs - 1].dst != k->dst)
            s->pairs[s->npairs++] = (pair_t){k->src, k->dst, 0, 0};
        s->pairs[s->npairs - 1].bytes += k->bytes;
        s->pairs[s->npairs - 1].msgs++;
        int intra = ts_trace_rank_node(t, k->src) == ts_trace_rank_node(t, k->dst);
        if (intra) {
            m->intra_msgs++;
            m->intra_bytes += k->bytes;
        } else {
            m->inter_msgs++;
            m->inter_bytes += k->bytes;
        }
    }
    m->pairs = s->npairs;
    int32_t nranks = ts_trace_nranks(t);
    m->neighbours_min = s->npairs ? UINT64_MAX : 0;
    size_t p = 0;
    for (int32_t r = 0; r < nranks; r++) {
        uint64_t nb = 0;
        while (p < s->npairs && s->pairs[p].src == r) {
            nb++;
            p++;
        }
        if (s->npairs) {
            if (nb < m->neighbours_min)
                m->neighbours_min = nb;
            if (nb > m->neighbours_max)
                m->neighbours_max = nb;
        }
    }
    m->neighbours_mean = nranks ? (double)s->npairs / nranks : 0.0;
    uint64_t total = 0;
    m->pair_bytes_min = s->npairs ? UINT64_MAX : 0;
    for (size_t i = 0; i < s->npairs; i++) {
        total += s->pairs[i].bytes;
        if (s->pairs[i].bytes < m->pair_bytes_min)
            m->pair_bytes_min = s->pairs[i].bytes;
        if (s->pairs[i].bytes > m->pair_bytes_max)
            m->pair_bytes_max = s->pairs[i].bytes;
    }
    m->pair_bytes_mean = s->npairs ? (double)total / (double)s->npairs : 0.0;
    return 0;
}

/* Rank rank's interval k ended with compute c (ns): the slowest and the sum so far. */
static int close_interval(ts_stats_t *s, int32_t rank, size_t k, double c)
{
    if (k >= s->nivl) {
        if (rank > 0) { /* an interval the ranks before did not have */
            s->ragged = 1;
            return 0;
        }
        if (k >= s->capivl) {
            size_t cap = s->capivl ? 2 * s->capivl : 1024;
            struct ivl_s *v = realloc(s->ivl, cap * sizeof *v);
            if (!v)
                return -1;
            s->ivl = v;
            s->capivl = cap;
        }
        s->ivl[k] = (struct ivl_s){c, 0};
        s->nivl = k + 1;
    }
    if (c > s->ivl[k].max)
        s->ivl[k].max = c;
    s->ivl[k].sum += c;
    s->rank_compute[rank] += c;
    return 0;
}

/* A sum over every rank: a rank's times are bounded (TS_TIME_MAX_NS), their sum over millions
 * of ranks is not, and saturates rather than wrap. */
static int64_t sum_ns(int64_t a, int64_t b)
{
    int64_t c;
    return __builtin_add_overflow(a, b, &c) ? (b > 0 ? INT64_MAX : INT64_MIN) : c;
}

static ts_status scan_rank(ts_stats_t *s, const ts_trace_t *t, int32_t rank, msg_vec_t *snd,
                           msg_vec_t *rcv, ts_error_t *err)
{
    int64_t since_sync = 0; /* compute since the last collective of every rank */
    size_t nsync = 0;
    ts_cursor_t *c;
    if (ts_cursor_open(t, rank, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_event_t ev;
    int rc;
    int32_t func = -1;
    int64_t enter = 0;
    while ((rc = ts_cursor_next(c, &ev, err)) == 1) {
        s->events++;
        ts_func_stats_t *f = func >= 0 ? &s->funcs[func] : NULL;
        switch (ev.kind) {
        case TS_EV_COMPUTE:
            s->compute_ns = sum_ns(s->compute_ns, ev.time);
            since_sync += ev.time;
            break;
        case TS_EV_ENTER:
            func = ev.func;
            enter = ev.time;
            s->funcs[func].visits++;
            break;
        case TS_EV_LEAVE:
            if (f) {
                f->time_ns = sum_ns(f->time_ns, ev.time - enter);
                s->mpi_ns = sum_ns(s->mpi_ns, ev.time - enter);
            }
            func = -1;
            break;
        case TS_EV_SEND:
        case TS_EV_ISEND:
            if (f)
                f->bytes += ev.bytes;
            s->p2p.count[bucket_of(ev.bytes)]++;
            s->match.sends++;
            if (push_msg(snd, (msg_key_t){rank, ev.peer, ev.comm, ev.tag, ev.bytes})) {
                ts_cursor_close(c);
                return ts_error_set(err, TS_ENOMEM, "out of memory");
            }
            break;
        case TS_EV_RECV:
        case TS_EV_IRECV_DONE:
            if (f)
                f->bytes += ev.bytes;
            s->match.recvs++;
            if (push_msg(rcv, (msg_key_t){ev.peer, rank, ev.comm, ev.tag, ev.bytes})) {
                ts_cursor_close(c);
                return ts_error_set(err, TS_ENOMEM, "out of memory");
            }
            break;
        case TS_EV_COLL:
        case TS_EV_ICOLL_DONE: {
            if (f)
                f->bytes += ev.bytes + ev.bytes2;
            if (ev.op == TS_COLL_CREATE_HANDLE || ev.op == TS_COLL_DESTROY_HANDLE)
                break;
            const ts_comm_info_t *ci = ts_trace_comm(t, ev.comm);
            int32_t me = ts_trace_comm_rank(t, ev.comm, rank);
            uint64_t b = ts_coll_payload(ev.op, ci->size, ev.peer == rank, me, ev.bytes, ev.bytes2);
            s->coll[ev.op].count[bucket_of(b)]++;
            s->coll_used[ev.op] = 1;
            if (ev.kind == TS_EV_COLL && ci->size == ts_trace_nranks(t)) {
                if (close_interval(s, rank, nsync++, (double)since_sync)) {
                    ts_cursor_close(c);
                    return ts_error_set(err, TS_ENOMEM, "out of memory");
                }
                since_sync = 0;
            }
            break;
        }
        default:
            break;
        }
    }
    ts_cursor_close(c);
    if (rank > 0 && nsync != s->nivl)
        s->ragged = 1;
    return rc < 0 ? rc : TS_OK;
}

static void summarize_imbalance(ts_stats_t *s, int32_t nranks)
{
    double smax = 0, ssum = 0, rmax = 0, rsum = 0;
    for (size_t k = 0; k < s->nivl; k++) {
        smax += s->ivl[k].max;
        ssum += s->ivl[k].sum;
    }
    for (int32_t r = 0; r < nranks; r++) {
        rsum += s->rank_compute[r];
        rmax = s->rank_compute[r] > rmax ? s->rank_compute[r] : rmax;
    }
    if (s->ragged || !s->nivl || ssum <= 0 || nranks <= 0)
        return; /* intervals 0: not defined */
    s->imbalance.intervals = s->nivl;
    s->imbalance.interval_ratio = smax / (ssum / nranks);
    s->imbalance.rank_ratio = rmax / (rsum / nranks);
}

ts_status ts_stats_compute(const ts_trace_t *t, ts_stats_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_stats_t *s = calloc(1, sizeof *s);
    if (!s)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    s->nfuncs = ts_trace_nfuncs(t);
    s->funcs = calloc(s->nfuncs ? (size_t)s->nfuncs : 1, sizeof *s->funcs);
    s->rank_compute = calloc((size_t)ts_trace_nranks(t) + 1, sizeof *s->rank_compute);
    msg_vec_t snd = {0}, rcv = {0};
    ts_status st =
        s->funcs && s->rank_compute ? TS_OK : ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int32_t r = 0; r < ts_trace_nranks(t) && st == TS_OK; r++)
        st = scan_rank(s, t, r, &snd, &rcv, err);
    if (st == TS_OK) {
        summarize_imbalance(s, ts_trace_nranks(t));
        match_messages(s, &snd, &rcv);
        if (build_matrix(s, t, &snd))
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    free(snd.v);
    free(rcv.v);
    if (st != TS_OK) {
        ts_stats_free(s);
        return st;
    }
    *out = s;
    return TS_OK;
}

void ts_stats_free(ts_stats_t *s)
{
    if (!s)
        return;
    free(s->funcs);
    free(s->pairs);
    free(s->ivl);
    free(s->rank_compute);
    free(s);
}

const ts_func_stats_t *ts_stats_func(const ts_stats_t *s, int32_t func)
{
    return (func >= 0 && func < s->nfuncs) ? &s->funcs[func] : NULL;
}

uint64_t ts_stats_events(const ts_stats_t *s)
{
    return s->events;
}
int64_t ts_stats_mpi_ns(const ts_stats_t *s)
{
    return s->mpi_ns;
}
int64_t ts_stats_compute_ns(const ts_stats_t *s)
{
    return s->compute_ns;
}
const ts_hist_t *ts_stats_p2p_hist(const ts_stats_t *s)
{
    return &s->p2p;
}

const ts_hist_t *ts_stats_coll_hist(const ts_stats_t *s, int op)
{
    return (op >= 0 && op < TS_COLL__COUNT && s->coll_used[op]) ? &s->coll[op] : NULL;
}

const ts_matrix_summary_t *ts_stats_matrix(const ts_stats_t *s)
{
    return &s->matrix;
}
const ts_match_summary_t *ts_stats_match(const ts_stats_t *s)
{
    return &s->match;
}
const ts_imbalance_t *ts_stats_imbalance(const ts_stats_t *s)
{
    return &s->imbalance;
}

uint64_t ts_stats_pair_bytes(const ts_stats_t *s, int32_t src, int32_t dst)
{
    pair_t key = {src, dst, 0, 0};
    if (!s->npairs)
        return 0;
    const pair_t *p = bsearch(&key, s->pairs, s->npairs, sizeof *s->pairs, cmp_pair);
    return p ? p->bytes : 0;
}
