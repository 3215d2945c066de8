/* ledger.c - the flows under way per link, and which of them cannot contend (ledger.h). */
#include "ledger.h"

#include "../common/grow.h"

#include <math.h>
#include <stdlib.h>

/* A link whose flows' solo rates add up to within this fraction of its capacity counts as
 * full: SimGrid's max-min solver treats a constraint as saturated when what is left of it is
 * below its precision (maxmin/precision, 1e-5 of the capacity by default), so a sum that
 * close could bind a flow in SimGrid's answer even though it fits on paper. */
#define FULL_MARGIN 1e-4

/* Rate bounds (ts_ledger_rate_bound) allow this fraction of a link's capacity more than
 * exact max-min would, for the same reason. */
#define BOUND_SLACK 1e-4

struct ts_lflow_s {
    const int32_t *links;
    int32_t n;
    double solo;
    void *user;
    int is_free;
    double lb, ub;                   /* its rate's bounds (bound_all) */
    size_t at;                       /* its place in the ledger's list of flows */
    size_t pos[TS_LEDGER_MAX_ROUTE]; /* its place in each link's free list, while free */
    ts_lflow_t *next_spare;
};

typedef struct {
    double cap;
    int shared;
    double load;        /* sum of the solo rates of the flows crossing it */
    size_t nflows;      /* flows crossing it */
    double sumlb;       /* sum of their rates' lower bounds (bound_all) */
    double share;       /* its fair share: cap / nflows if shared, else cap (kept at each
                         * start and end, so bound_all divides nothing) */
    double slack;       /* cap * BOUND_SLACK */
    uint64_t epoch;     /* bound_all's pass that last summed it */
    ts_lflow_t **frees; /* the free ones among them */
    size_t nfree, capfree;
} link_t;

struct ts_ledger_s {
    link_t *links;
    int32_t nlinks;
    size_t caplinks;
    size_t flows, free_flows;
    ts_lflow_t **all; /* the flows under way */
    size_t capall;
    int bounds_stale;   /* flows started or ended since bound_all */
    uint64_t epoch;     /* bound_all's passes (64 bits: never wraps) */
    ts_lflow_t *spares; /* ended flows, reused: a replay starts and ends one per message */
};

ts_ledger_t *ts_ledger_new(void)
{
    return calloc(1, sizeof(ts_ledger_t));
}

void ts_ledger_free(ts_ledger_t *l)
{
    if (!l)
        return;
    for (int32_t i = 0; i < l->nlinks; i++)
        free(l->links[i].frees);
    free(l->links);
    free(l->all);
    for (ts_lflow_t *f = l->spares, *next; f; f = next) {
        next = f->next_spare;
        free(f);
    }
    free(l);
}

int32_t ts_ledger_link(ts_ledger_t *l, double capacity, int shared)
{
    if (l->nlinks == INT32_MAX || TS_GROW(l->links, (size_t)l->nlinks, l->caplinks, 64))
        return -1;
    link_t *k = &l->links[l->nlinks];
    *k = (link_t){
        .cap = capacity, .shared = shared, .share = capacity, .slack = capacity * BOUND_SLACK};
    return l->nlinks++;
}

double ts_ledger_solo(const ts_ledger_t *l, const int32_t *links, int32_t n)
{
    double solo = HUGE_VAL;
    for (int32_t i = 0; i < n; i++)
        if (links[i] >= 0 && links[i] < l->nlinks && l->links[links[i]].cap < solo)
            solo = l->links[links[i]].cap;
    return solo;
}

/* Take f off the free lists of its links (a swap with the list's last entry, whose place
 * on that link is updated). */
static void unlist(ts_ledger_t *l, ts_lflow_t *f)
{
    for (int32_t i = 0; i < f->n; i++) {
        link_t *k = &l->links[f->links[i]];
        ts_lflow_t *last = k->frees[--k->nfree];
        size_t at = f->pos[i];
        k->frees[at] = last;
        if (last != f)
            for (int32_t j = 0; j < last->n; j++)
                if (last->links[j] == f->links[i])
                    last->pos[j] = at;
    }
    f->is_free = 0;
    l->free_flows--;
}

/* Whether a route can hold a free flow: not too many links, none twice (a flow's place in
 * a link's free list is kept once per link). */
static int followable(const int32_t *links, int32_t n)
{
    if (n > TS_LEDGER_MAX_ROUTE)
        return 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < i; j++)
            if (links[j] == links[i])
                return 0;
    return 1;
}

ts_lflow_t *ts_ledger_start(ts_ledger_t *l, const int32_t *links, int32_t n, void *user,
                            int *is_free, ts_ledger_evict_fn evict, void *ctx)
{
    for (int32_t i = 0; i < n; i++)
        if (links[i] < 0 || links[i] >= l->nlinks)
            return NULL; /* not the ledger's: every loop below relies on it */
    if (TS_GROW(l->all, l->flows, l->capall, 64))
        return NULL;
    ts_lflow_t *f = l->spares;
    if (f)
        l->spares = f->next_spare;
    else if (!(f = malloc(sizeof *f)))
        return NULL;
    f->at = l->flows;
    l->all[l->flows] = f;
    l->bounds_stale = 1;
    f->user = user;
    f->is_free = 0;
    f->next_spare = NULL;
    int ok = followable(links, n);
    f->links = links;
    f->n = n; /* a flow on a route it cannot follow still counts on its links, never free */
    f->solo = ts_ledger_solo(l, links, n);
    l->flows++;
    for (int32_t i = 0; i < n; i++) {
        link_t *k = &l->links[links[i]];
        k->nflows++;
        if (k->shared) {
            k->load += f->solo;
            k->share = k->cap / (double)k->nflows;
        }
    }
    int free_ = ok;
    for (int32_t i = 0; i < n; i++) {
        link_t *k = &l->links[links[i]];
        if (!k->shared || k->nflows < 2 || k->load <= k->cap * (1 - FULL_MARGIN))
            continue;
        free_ = 0;
        while (k->nfree) {
            ts_lflow_t *g = k->frees[k->nfree - 1];
            unlist(l, g);
            evict(ctx, g->user);
        }
    }
    /* Room on every list first, so that running out of memory leaves it simply not free. */
    for (int32_t i = 0; free_ && i < n; i++) {
        link_t *k = &l->links[links[i]];
        if (TS_GROW(k->frees, k->nfree, k->capfree, 4))
            free_ = 0;
    }
    if (free_) {
        for (int32_t i = 0; i < n; i++) {
            link_t *k = &l->links[links[i]];
            f->pos[i] = k->nfree;
            k->frees[k->nfree++] = f;
        }
        f->is_free = 1;
        l->free_flows++;
    }
    *is_free = free_;
    return f;
}

void ts_ledger_end(ts_ledger_t *l, ts_lflow_t *f)
{
    if (f->is_free)
        unlist(l, f);
    for (int32_t i = 0; i < f->n; i++) {
        link_t *k = &l->links[f->links[i]];
        if (--k->nflows == 0) {
            k->load = 0; /* no rounding left over from the sums */
        } else if (k->shared) {
            k->load -= f->solo;
            k->share = k->cap / (double)k->nflows;
        }
    }
    ts_lflow_t *last = l->all[--l->flows];
    l->all[f->at] = last;
    last->at = f->at;
    l->bounds_stale = 1;
    f->next_spare = l->spares;
    l->spares = f;
}

/* Bounds on every flow's rate under max-min sharing. Lower: a flow is held back only when a
 * link it crosses is full, and then it runs at least as fast as the link's fair share, the
 * capacity over the flows crossing it; so it never runs slower than the least fair share on
 * its route (a free flow runs at exactly its solo rate). Upper: on each shared link the others
 * take at least their lower bounds, so a flow gets at most what is left of the capacity (the
 * lower bounds on a link add up to no more than its capacity: each is at most the fair share
 * there, or the flows are free and fit). */
static void bound_all(ts_ledger_t *l)
{
    /* A link's sum starts over at the first flow that reaches it in this pass (its epoch is
     * behind): no pass of its own to clear the sums. Non-shared links sum too, unread. */
    uint64_t epoch = ++l->epoch;
    for (size_t i = 0; i < l->flows; i++) {
        ts_lflow_t *f = l->all[i];
        double lb = f->solo;
        for (int32_t j = 0; !f->is_free && j < f->n; j++) {
            double share = l->links[f->links[j]].share;
            if (share < lb)
                lb = share;
        }
        f->lb = lb;
        for (int32_t j = 0; j < f->n; j++) {
            link_t *k = &l->links[f->links[j]];
            if (k->epoch != epoch) {
                k->epoch = epoch;
                k->sumlb = lb;
            } else {
                k->sumlb += lb;
            }
        }
    }
    for (size_t i = 0; i < l->flows; i++) {
        ts_lflow_t *f = l->all[i];
        double ub = f->solo;
        for (int32_t j = 0; !f->is_free && j < f->n; j++) {
            const link_t *k = &l->links[f->links[j]];
            if (!k->shared)
                continue;
            double room = k->cap - (k->sumlb - f->lb) + k->slack;
            if (room < ub)
                ub = room;
        }
        f->ub = ub;
    }
    l->bounds_stale = 0;
}

double ts_ledger_rate_bound(ts_ledger_t *l, ts_lflow_t *f)
{
    if (l->bounds_stale)
        bound_all(l);
    return f->ub;
}

size_t ts_ledger_flows(const ts_ledger_t *l)
{
    return l->flows;
}

size_t ts_ledger_free_flows(const ts_ledger_t *l)
{
    return l->free_flows;
}
