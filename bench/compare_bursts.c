/* compare_bursts.c - two recordings of the same run, compared burst by burst: how far apart
 * the same compute burst lies in the two (median and 95th percentile of the relative
 * difference), and per interval between collectives on all ranks (the synchronisations
 * `tunesim info` counts for imbalance.interval_ratio) how often the slowest rank is the same
 * rank in both. Says how much of a recording is noise (docs/recording.md).
 *
 *   compare_bursts A B [MIN_NS]   bursts shorter than MIN_NS (default 1000) in both are left
 *                                 out of the burst statistics (the tracer's own gaps) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"

typedef struct rank_s {
    double *burst; /* compute bursts in order, ns */
    size_t nburst, capburst;
    double *ivl; /* compute per interval, ns */
    size_t nivl, capivl;
} rank_t;

static int push(double **v, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        double *p = realloc(*v, c * sizeof *p);
        if (p == NULL)
            return -1;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

/* Read every rank's bursts and interval sums; NULL on error (message printed). */
static rank_t *load(const char *path, int32_t *nranks)
{
    ts_trace_t *t;
    ts_error_t err;
    if (ts_trace_open(path, &t, &err) != TS_OK) {
        fprintf(stderr, "compare_bursts: %s\n", err.msg);
        return NULL;
    }
    *nranks = ts_trace_nranks(t);
    rank_t *ranks = calloc((size_t)*nranks, sizeof *ranks);
    for (int32_t r = 0; ranks != NULL && r < *nranks; r++) {
        ts_cursor_t *c;
        const ts_event_t *evs;
        int k;
        double since = 0;
        if (ts_cursor_open(t, r, &c) != TS_OK)
            return NULL;
        rank_t *rk = &ranks[r];
        while ((k = ts_cursor_next_batch(c, &evs, NULL)) > 0)
            for (int i = 0; i < k; i++) {
                const ts_event_t *e = &evs[i];
                if (e->kind == TS_EV_COMPUTE) {
                    since += (double)e->time;
                    if (push(&rk->burst, &rk->nburst, &rk->capburst, (double)e->time))
                        return NULL;
                } else if (e->kind == TS_EV_COLL && e->op != TS_COLL_CREATE_HANDLE &&
                           e->op != TS_COLL_DESTROY_HANDLE &&
                           ts_trace_comm(t, e->comm)->size == *nranks) {
                    if (push(&rk->ivl, &rk->nivl, &rk->capivl, since))
                        return NULL;
                    since = 0;
                }
            }
        ts_cursor_close(c);
    }
    ts_trace_close(t);
    return ranks;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Slowest rank of interval k and the ratio of its compute to the mean's, summed by the caller. */
static int32_t slowest(const rank_t *ranks, int32_t n, size_t k, double *max, double *sum)
{
    int32_t who = 0;
    *max = -1;
    *sum = 0;
    for (int32_t r = 0; r < n; r++) {
        double v = ranks[r].ivl[k];
        *sum += v;
        if (v > *max) {
            *max = v;
            who = r;
        }
    }
    return who;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: compare_bursts A B [MIN_NS]\n");
        return 2;
    }
    double min_ns = argc == 4 ? atof(argv[3]) : 1000.0;
    int32_t na, nb;
    rank_t *a = load(argv[1], &na), *b = a ? load(argv[2], &nb) : NULL;
    if (a == NULL || b == NULL)
        return 1;
    if (na != nb) {
        fprintf(stderr, "compare_bursts: %s has %d ranks, %s %d\n", argv[1], na, argv[2], nb);
        return 1;
    }
    /* Bursts: the same position on the same rank is the same burst when the two runs made
     * the same calls (tunesim convert --min-of checks that; here the counts must agree). */
    size_t total = 0, mismatched = 0;
    for (int32_t r = 0; r < na; r++) {
        total += a[r].nburst < b[r].nburst ? a[r].nburst : b[r].nburst;
        mismatched += a[r].nburst != b[r].nburst;
    }
    double *rel = malloc((total ? total : 1) * sizeof *rel);
    size_t nrel = 0;
    double sum_a = 0, sum_b = 0;
    for (int32_t r = 0; r < na; r++) {
        size_t n = a[r].nburst < b[r].nburst ? a[r].nburst : b[r].nburst;
        for (size_t i = 0; i < n; i++) {
            double x = a[r].burst[i], y = b[r].burst[i];
            sum_a += x;
            sum_b += y;
            if (x < min_ns && y < min_ns)
                continue;
            double lo = x < y ? x : y, hi = x < y ? y : x;
            rel[nrel++] = lo > 0 ? hi / lo - 1 : 1e9;
        }
    }
    qsort(rel, nrel, sizeof *rel, cmp_double);
    printf("ranks %d, bursts compared %zu (%zu of at least %.0f ns), ranks with other burst "
           "counts %zu\n",
           na, total, nrel, min_ns, mismatched);
    printf("compute summed over ranks: %.3f s and %.3f s\n", sum_a * 1e-9, sum_b * 1e-9);
    if (nrel > 0)
        printf("burst by burst, larger / smaller - 1: median %.1f %%, 95th percentile %.1f %%\n",
               100 * rel[nrel / 2], 100 * rel[(size_t)(0.95 * (double)(nrel - 1))]);
    /* Intervals */
    size_t nivl = SIZE_MAX;
    for (int32_t r = 0; r < na; r++) {
        nivl = a[r].nivl < nivl ? a[r].nivl : nivl;
        nivl = b[r].nivl < nivl ? b[r].nivl : nivl;
    }
    size_t same = 0;
    double ra_max = 0, ra_sum = 0, rb_max = 0, rb_sum = 0;
    for (size_t k = 0; k < nivl; k++) {
        double mx, sm;
        int32_t wa = slowest(a, na, k, &mx, &sm);
        ra_max += mx;
        ra_sum += sm;
        int32_t wb = slowest(b, nb, k, &mx, &sm);
        rb_max += mx;
        rb_sum += sm;
        same += wa == wb;
    }
    if (nivl > 0 && nivl != SIZE_MAX)
        printf("intervals %zu: slowest rank the same in %.1f %%; slowest over the mean, summed: "
               "%.3f and %.3f\n",
               nivl, 100.0 * (double)same / (double)nivl, ra_max / (ra_sum / na),
               rb_max / (rb_sum / nb));
    free(rel);
    return 0;
}
