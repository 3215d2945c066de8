/* denoise.c - the least compute of several recordings of one run (what and why: denoise.h). */
#include "denoise.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "trace_impl.h"

static const uint64_t fnv_basis = 1469598103934665603ULL;

static uint64_t mix(uint64_t h, uint64_t v)
{
    /* FNV-1a over the value's bytes: the same calls give the same key in every run. */
    for (int i = 0; i < 8; i++)
        h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ULL;
    return h;
}

/* h extended by what a record inside a call says: its kind, peer, tag and sizes. */
static uint64_t mix_record(uint64_t h, const ts_event_t *ev)
{
    return mix(mix(mix(mix(mix(h, ev->kind), (uint64_t)ev->peer), (uint64_t)ev->tag), ev->bytes),
               ev->bytes2 ^ ((uint64_t)ev->op << 56));
}

/* A record that says what a call sends: a message or a collective's operation and sizes.
 * Completions (a receive's actual source under MPI_ANY_SOURCE, which call of a polling loop
 * a request completes in, unsuccessful tests) depend on timing, and two recordings of one
 * run differ there; the receives' sizes are their senders'. */
static int is_record(const ts_event_t *ev)
{
    return ev->kind == TS_EV_SEND || ev->kind == TS_EV_ISEND || ev->kind == TS_EV_COLL;
}

/* One other recording on one rank: its cursor, its function indices in the base's table
 * (-1: a name the base lacks), and whether it still matches. */
typedef struct other_s {
    const ts_trace_t *t;
    ts_cursor_t *c;
    const int32_t *fmap;
    int alive;
} other_t;

/* Advance o to its next call: *gap gets the compute before it, *recs what the call before it
 * sends (is_record; their mix_record keys summed, in any order), *func the call's function
 * in the base's table. 1, 0 at its end, or a negative status. */
static int next_call(other_t *o, int64_t *gap, uint64_t *recs, int32_t *func, ts_error_t *err)
{
    ts_event_t ev;
    int k;
    *gap = 0;
    *recs = 0;
    while ((k = ts_cursor_next(o->c, &ev, err)) > 0) {
        if (ev.kind == TS_EV_COMPUTE)
            *gap += ev.time;
        else if (is_record(&ev))
            *recs += mix_record(fnv_basis, &ev);
        else if (ev.kind == TS_EV_ENTER) {
            *func = o->fmap[ev.func];
            return 1;
        }
    }
    return k;
}

/* Scale the compute events of gap[0..n) so that they sum to want (<= their sum have). */
static void rescale(ts_event_t *gap, size_t n, int64_t have, int64_t want)
{
    int64_t given = 0;
    ts_event_t *last = NULL;
    for (size_t i = 0; i < n; i++) {
        if (gap[i].kind != TS_EV_COMPUTE)
            continue;
        gap[i].time = (int64_t)((double)gap[i].time * (double)want / (double)have);
        given += gap[i].time;
        last = &gap[i];
    }
    if (last)
        last->time += want - given; /* rounding: the sum is exact */
}

typedef struct rank_ctx_s {
    const ts_trace_t *base;
    ts_trace_t *out;
    other_t *o;
    int n;
    ts_denoise_stats_t *stats;
    ts_event_t *gap;
    size_t ngap, capgap;
} rank_ctx_t;

/* The base's gap ending in a call of func (or the rank's tail, func -1 and last set): the
 * least sum among the recordings that still match, then the events out. */
static ts_status flush_gap(rank_ctx_t *x, int32_t r, uint64_t call, int32_t func, int last,
                           ts_error_t *err)
{
    int64_t have = 0;
    uint64_t recs = 0;
    for (size_t i = 0; i < x->ngap; i++) {
        if (x->gap[i].kind == TS_EV_COMPUTE)
            have += x->gap[i].time;
        else if (is_record(&x->gap[i]))
            recs += mix_record(fnv_basis, &x->gap[i]);
    }
    int64_t want = have;
    int least = -1;
    for (int j = 0; j < x->n && !last; j++) {
        other_t *o = &x->o[j];
        if (!o->alive)
            continue;
        int64_t g;
        uint64_t rs;
        int32_t f = -1;
        int k = next_call(o, &g, &rs, &f, err);
        if (k < 0)
            return (ts_status)k;
        if (k == 0 || f != func || rs != recs) {
            o->alive = 0;
            if (x->stats->diverged_rank[j] < 0) {
                x->stats->diverged_rank[j] = r;
                x->stats->diverged_call[j] = call;
            }
            continue;
        }
        x->stats->matched[j]++;
        if (g < want) {
            want = g;
            least = j;
        }
    }
    if (least >= 0) {
        x->stats->lowered[least]++;
        rescale(x->gap, x->ngap, have, want);
    }
    x->stats->compute_before += (double)have * 1e-9;
    x->stats->compute_after += (double)want * 1e-9;
    for (size_t i = 0; i < x->ngap; i++) {
        if (ts_codec_put(&x->out->ranks[r].buf, &x->gap[i]) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        x->out->ranks[r].nevents++;
    }
    x->ngap = 0;
    return TS_OK;
}

static ts_status denoise_rank(rank_ctx_t *x, int32_t r, ts_error_t *err)
{
    ts_cursor_t *c = NULL;
    ts_status st = TS_OK;
    int j = 0;
    if (ts_cursor_open(x->base, r, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (j = 0; j < x->n; j++) {
        x->o[j].alive = 1;
        if (ts_cursor_open(x->o[j].t, r, &x->o[j].c) != TS_OK) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
    }
    ts_event_t ev;
    int k = 0;
    uint64_t call = 0;
    while (st == TS_OK && (k = ts_cursor_next(c, &ev, err)) > 0) {
        if (TS_GROW(x->gap, x->ngap, x->capgap, 64) != 0) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        x->gap[x->ngap++] = ev;
        if (ev.kind == TS_EV_ENTER) {
            st = flush_gap(x, r, call, ev.func, 0, err);
            call++;
        }
    }
    if (st == TS_OK && k < 0)
        st = (ts_status)k;
    if (st == TS_OK)
        st = flush_gap(x, r, call, -1, 1, err);
    x->stats->calls += call;
    for (int i = 0; i < j && i < x->n; i++) {
        ts_cursor_close(x->o[i].c);
        x->o[i].c = NULL;
    }
    ts_cursor_close(c);
    return st;
}

ts_status ts_denoise(const ts_trace_t *base, const ts_trace_t *const *others, int nothers,
                     ts_trace_t **out, ts_denoise_stats_t *stats, ts_error_t *err)
{
    *out = NULL;
    memset(stats, 0, sizeof *stats);
    if (nothers < 1 || nothers > TS_DENOISE_MAX)
        return ts_error_set(err, TS_EARG, "expected 1 to %d other recordings, got %d",
                            TS_DENOISE_MAX, nothers);
    for (int j = 0; j < nothers; j++) {
        stats->diverged_rank[j] = -1;
        if (others[j]->nranks != base->nranks)
            return ts_error_set(
                err, TS_EARG, "%s: %d ranks, but %s has %d: not a recording of the same run",
                others[j]->path, (int)others[j]->nranks, base->path, (int)base->nranks);
    }
    ts_status st = TS_OK;
    other_t *o = calloc((size_t)nothers, sizeof *o);
    int32_t **fmaps = calloc((size_t)nothers, sizeof *fmaps);
    ts_trace_t *w = NULL;
    if (!o || !fmaps || ts__trace_new(base->path, base->format, base->nranks, &w) != TS_OK ||
        ts__trace_copy_defs(base, w) != TS_OK) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    /* Each recording's function indices in the base's table, by name. */
    for (int j = 0; j < nothers; j++) {
        fmaps[j] = malloc(((size_t)others[j]->nfuncs + 1) * sizeof **fmaps);
        if (!fmaps[j]) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            goto done;
        }
        for (int32_t f = 0; f < others[j]->nfuncs; f++)
            fmaps[j][f] = ts_trace_func_find(base, others[j]->func_names[f]);
        o[j] = (other_t){others[j], NULL, fmaps[j], 1};
    }
    rank_ctx_t x = {base, w, o, nothers, stats, NULL, 0, 0};
    for (int32_t r = 0; r < base->nranks && st == TS_OK; r++)
        st = denoise_rank(&x, r, err);
    free(x.gap);
    for (int j = 0; j < nothers && st == TS_OK; j++)
        if (10 * stats->matched[j] < stats->calls)
            st = ts_error_set(err, TS_EARG,
                              "%s: matches %llu of the %llu calls of %s (rank %d differs at its "
                              "call %llu): not a recording of the same run",
                              others[j]->path, (unsigned long long)stats->matched[j],
                              (unsigned long long)stats->calls, base->path,
                              (int)stats->diverged_rank[j],
                              (unsigned long long)stats->diverged_call[j]);
done:
    if (fmaps)
        for (int j = 0; j < nothers; j++)
            free(fmaps[j]);
    free(fmaps);
    free(o);
    if (st != TS_OK) {
        ts_trace_close(w);
        return st;
    }
    ts__trace_seal(w);
    *out = w;
    return TS_OK;
}

/* ---- the median of each burst class (ts_denoise_classes) ------------------------------ */

typedef struct gapk_s {
    uint64_t key;
    int64_t sum;
    uint32_t idx; /* the gap's position in the rank's stream */
} gapk_t;

static int cmp_gapk(const void *a, const void *b)
{
    const gapk_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->sum != y->sum)
        return x->sum < y->sum ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

enum { SIG_START = 1, SIG_END = 2 };

/* Pass 1 over rank r: each gap's class key (the calls before and after it) and sum. */
static ts_status classify_rank(const ts_trace_t *t, int32_t r, gapk_t **gk, size_t *n, size_t *cap,
                               ts_error_t *err)
{
    ts_cursor_t *c;
    if (ts_cursor_open(t, r, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    *n = 0;
    uint64_t prev = SIG_START, sig = 0;
    int64_t sum = 0;
    uint32_t gap = 0;
    int in_call = 0;
    const ts_event_t *ev;
    int k;
    while ((k = ts_cursor_next_ref(c, &ev, err)) > 0) {
        switch (ev->kind) {
        case TS_EV_COMPUTE:
            sum += ev->time;
            break;
        case TS_EV_ENTER:
            in_call = 1;
            sig = mix(fnv_basis, ev->func);
            break;
        case TS_EV_LEAVE:
            if (in_call) { /* the gap before this call, keyed by its two calls */
                if (TS_GROW(*gk, *n, *cap, 1024) != 0) {
                    ts_cursor_close(c);
                    return ts_error_set(err, TS_ENOMEM, "out of memory");
                }
                (*gk)[(*n)++] = (gapk_t){mix(prev, sig), sum, gap++};
                sum = 0;
            }
            prev = sig;
            in_call = 0;
            break;
        default: /* a record inside the call: part of what the call is */
            if (in_call)
                sig = mix_record(sig, ev);
            break;
        }
    }
    ts_cursor_close(c);
    if (k < 0)
        return (ts_status)k;
    if (TS_GROW(*gk, *n, *cap, 1024) != 0)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    (*gk)[(*n)++] = (gapk_t){mix(prev, SIG_END), sum, gap}; /* the tail */
    return TS_OK;
}

/* Pass 2 over rank r: each gap's compute events out, scaled to want[gap]. */
static ts_status rewrite_rank(const ts_trace_t *t, ts_trace_t *w, int32_t r, const int64_t *want,
                              ts_event_t **buf, size_t *cap, ts_error_t *err)
{
    ts_cursor_t *c;
    if (ts_cursor_open(t, r, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    size_t n = 0;
    int64_t have = 0;
    uint32_t gap = 0;
    ts_event_t ev;
    int k;
    ts_status st = TS_OK;
    for (;;) {
        k = ts_cursor_next(c, &ev, err);
        /* A gap ends at a call's Enter, or at the end of the stream. */
        if (k <= 0 || ev.kind == TS_EV_ENTER) {
            if (have > 0 && want[gap] != have)
                rescale(*buf, n, have, want[gap]);
            for (size_t i = 0; i < n && st == TS_OK; i++) {
                if (ts_codec_put(&w->ranks[r].buf, &(*buf)[i]) != TS_OK)
                    st = ts_error_set(err, TS_ENOMEM, "out of memory");
                w->ranks[r].nevents++;
            }
            n = 0;
            have = 0;
            if (k > 0)
                gap++;
        }
        if (k <= 0 || st != TS_OK)
            break;
        if (TS_GROW(*buf, n, *cap, 256) != 0) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        (*buf)[n++] = ev;
        if (ev.kind == TS_EV_COMPUTE)
            have += ev.time;
    }
    ts_cursor_close(c);
    if (st == TS_OK && k < 0)
        st = (ts_status)k;
    return st;
}

ts_status ts_denoise_classes(const ts_trace_t *base, int min_members, ts_trace_t **out,
                             ts_classes_stats_t *stats, ts_error_t *err)
{
    *out = NULL;
    memset(stats, 0, sizeof *stats);
    if (min_members < 1)
        return ts_error_set(err, TS_EARG, "a class needs at least 1 member, got %d", min_members);
    ts_trace_t *w = NULL;
    gapk_t *gk = NULL;
    int64_t *want = NULL;
    ts_event_t *buf = NULL;
    size_t n = 0, cap = 0, wcap = 0, bcap = 0;
    ts_status st = TS_OK;
    if (ts__trace_new(base->path, base->format, base->nranks, &w) != TS_OK ||
        ts__trace_copy_defs(base, w) != TS_OK)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int32_t r = 0; r < base->nranks && st == TS_OK; r++) {
        st = classify_rank(base, r, &gk, &n, &cap, err);
        if (st != TS_OK)
            break;
        if (n > wcap) {
            int64_t *nw = realloc(want, n * sizeof *want);
            if (!nw) {
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
                break;
            }
            want = nw;
            wcap = n;
        }
        for (size_t i = 0; i < n; i++) {
            want[gk[i].idx] = gk[i].sum;
            stats->gaps += gk[i].sum > 0;
            stats->compute_before += (double)gk[i].sum * 1e-9;
        }
        qsort(gk, n, sizeof *gk, cmp_gapk);
        for (size_t i = 0; i < n;) {
            size_t j = i, nz = 0;
            while (j < n && gk[j].key == gk[i].key) {
                nz += gk[j].sum > 0;
                j++;
            }
            /* Gaps without compute stay empty: the median of those with some. */
            if (nz >= (size_t)min_members) {
                size_t first = j - nz; /* sorted by sum: the empty ones come first */
                int64_t med = gk[first + nz / 2].sum;
                if (nz % 2 == 0)
                    med = (gk[first + nz / 2 - 1].sum + med) / 2;
                for (size_t m = first; m < j; m++)
                    want[gk[m].idx] = med;
                stats->classes++;
                stats->gaps_classed += nz;
            }
            i = j;
        }
        for (size_t i = 0; i < n; i++)
            stats->compute_after += (double)want[gk[i].idx] * 1e-9;
        st = rewrite_rank(base, w, r, want, &buf, &bcap, err);
    }
    free(gk);
    free(want);
    free(buf);
    if (st != TS_OK) {
        ts_trace_close(w);
        return st;
    }
    ts__trace_seal(w);
    *out = w;
    return TS_OK;
}
