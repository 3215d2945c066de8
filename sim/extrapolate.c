/* extrapolate.c - a replayed window scaled to the full run with a profile (what, the formula
 * and what it rests on: extrapolate.h). */
#include "extrapolate.h"

#include <gsl/gsl_cdf.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_WARN = 16 };

struct ts_xp_s {
    const char *profile_name;
    int32_t nranks, prof_ranks;
    double window_iterations, iterations;
    int estimated;
    const char *estimated_from;
    double all_time, mpi_group, pthread_group;
    uint64_t visits;      /* MPI and PTHREAD visits, summed over processes */
    double visit_outside; /* the profiler's own seconds per visit counted outside them */
    ts_xp_scale scale;
    double compute, win_compute, windows, mpi, mpi_other, startup_prof, startup_win;
    double ratio;        /* k: this setting's compute per burst / the profiled setting's */
    double prof_compute; /* the profile's compute per rank (compute = prof_compute x ratio) */
    ts_xp_row_t *rows;
    int nrows;
    char warn[MAX_WARN][320];
    int nwarn;
};

static void add_warning(ts_xp_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(ts_xp_t *x, const char *fmt, ...)
{
    if (x->nwarn >= MAX_WARN)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->warn[x->nwarn], sizeof x->warn[0], fmt, ap);
    va_end(ap);
    ts_one_line(x->warn[x->nwarn++]); /* it quotes file and function names */
}

static int is_startup(const char *name)
{
    return strcmp(name, "MPI_Init") == 0 || strcmp(name, "MPI_Init_thread") == 0 ||
           strcmp(name, "MPI_Finalize") == 0;
}

static const ts_xp_func_t *window_func(const ts_xp_in_t *in, const char *name)
{
    for (int32_t i = 0; i < in->nfuncs; i++)
        if (strcmp(in->funcs[i].name, name) == 0)
            return &in->funcs[i];
    return NULL;
}

static int cmp_func_name(const void *a, const void *b)
{
    return strcmp(((const ts_xp_func_t *)a)->name, ((const ts_xp_func_t *)b)->name);
}

void ts_xp_free(ts_xp_t *x)
{
    if (!x)
        return;
    free(x->rows);
    free(x);
}

/* Rows: the profile's MPI functions in its order, then the window's functions it lacks, by
 * name (so that equal inputs print equal bytes). */
static ts_status build_rows(ts_xp_t *x, const ts_score_t *p, const ts_xp_in_t *in)
{
    x->rows = calloc((size_t)ts_score_nrows(p) + (size_t)in->nfuncs + 1, sizeof *x->rows);
    if (!x->rows)
        return TS_ENOMEM;
    for (int i = 0; i < ts_score_nrows(p); i++) {
        const ts_score_row_t *r = ts_score_row(p, i);
        if (strcmp(r->type, "MPI") != 0 || ts_score_is_group(r) ||
            strncmp(r->region, "MPI_", 4) != 0)
            continue;
        int dup = 0;
        for (int k = 0; k < x->nrows && !dup; k++)
            dup = strcmp(x->rows[k].name, r->region) == 0;
        if (dup)
            continue;
        const ts_xp_func_t *w = window_func(in, r->region);
        ts_xp_row_t *row = &x->rows[x->nrows++];
        row->name = r->region;
        row->prof_visits = r->visits;
        row->prof_time = r->time;
        if (w && w->visits) {
            row->win_visits = w->visits;
            row->win_time = w->time;
            row->per_call = w->time / (double)w->visits;
        }
        row->kind = is_startup(r->region) ? TS_XP_STARTUP
                    : (w && w->visits)    ? TS_XP_SCALED
                                          : TS_XP_NOT_TRACED;
    }
    ts_xp_func_t *extra = calloc((size_t)in->nfuncs + 1, sizeof *extra);
    if (!extra)
        return TS_ENOMEM;
    int nextra = 0;
    for (int32_t i = 0; i < in->nfuncs; i++) {
        const ts_xp_func_t *w = &in->funcs[i];
        if (!w->visits || strncmp(w->name, "MPI_", 4) != 0 || ts_score_find(p, "MPI", w->name))
            continue;
        extra[nextra++] = *w;
    }
    qsort(extra, (size_t)nextra, sizeof *extra, cmp_func_name);
    for (int i = 0; i < nextra; i++) {
        ts_xp_row_t *row = &x->rows[x->nrows++];
        row->name = extra[i].name; /* the caller's string, which outlives x */
        row->win_visits = extra[i].visits;
        row->win_time = extra[i].time;
        row->per_call = extra[i].time / (double)extra[i].visits;
        row->kind = is_startup(extra[i].name) ? TS_XP_STARTUP : TS_XP_NOT_PROFILED;
    }
    free(extra);
    return TS_OK;
}

/* Warnings about functions on one side only, each list on one line. */
static void one_sided_warnings(ts_xp_t *x)
{
    char list[256] = "";
    int n = 0;
    double share = 0;
    for (int i = 0; i < x->nrows; i++) {
        const ts_xp_row_t *r = &x->rows[i];
        if (r->kind != TS_XP_NOT_TRACED)
            continue;
        size_t l = strlen(list);
        if (l + strlen(r->name) + 8 < sizeof list)
            snprintf(list + l, sizeof list - l, "%s%s", n ? ", " : "", r->name);
        else if (l + 5 < sizeof list && !strstr(list, ", ..."))
            snprintf(list + l, sizeof list - l, ", ...");
        share += r->prof_time;
        n++;
    }
    if (n)
        add_warning(x,
                    "%s: %d MPI function%s of the profile %s not in the trace and not "
                    "predicted: %s (%.1f %% of the profile's MPI time)",
                    x->profile_name, n, n == 1 ? "" : "s", n == 1 ? "is" : "are", list,
                    x->mpi_group > 0 ? 100.0 * share / x->mpi_group : 0.0);
    list[0] = '\0';
    n = 0;
    for (int i = 0; i < x->nrows; i++) {
        const ts_xp_row_t *r = &x->rows[i];
        /* Local calls (MPI_Comm_rank, MPI_Get_count) cost nothing simulated: no warning. */
        if (r->kind != TS_XP_NOT_PROFILED || r->win_time <= 0)
            continue;
        size_t l = strlen(list);
        if (l + strlen(r->name) + 8 < sizeof list)
            snprintf(list + l, sizeof list - l, "%s%s", n ? ", " : "", r->name);
        n++;
    }
    if (n)
        add_warning(x,
                    "%s: the trace calls %s, which the profile lacks: left out (the "
                    "profile may be of another code path or version)",
                    x->profile_name, list);
}

ts_status ts_xp_check(const ts_score_t *p, const char *profile_name, int32_t nranks,
                      ts_error_t *err)
{
    if (!ts_score_find(p, "ALL", "ALL"))
        return ts_error_set(err, TS_EARG,
                            "%s: no ALL row: expected scorep-score's table with "
                            "its ALL, MPI and region rows",
                            profile_name);
    const ts_score_row_t *init = ts_score_find(p, "MPI", "MPI_Init_thread");
    if (!init)
        init = ts_score_find(p, "MPI", "MPI_Init");
    if (init && init->visits && init->visits != (uint64_t)nranks)
        return ts_error_set(err, TS_EARG,
                            "%s: a profile of %llu processes (%s visits), but the trace has %d "
                            "ranks: it comes from another run",
                            profile_name, (unsigned long long)init->visits, init->region,
                            (int)nranks);
    return TS_OK;
}

int ts_xp_profile_has_compute(const ts_score_t *p)
{
    const ts_score_row_t *all = ts_score_find(p, "ALL", "ALL"),
                         *mpi = ts_score_find(p, "MPI", "MPI"),
                         *pth = ts_score_find(p, "PTHREAD", "PTHREAD");
    return !all || !mpi || all->time > mpi->time + (pth ? pth->time : 0);
}

ts_status ts_xp_predict(const ts_score_t *p, const char *profile_name, const ts_xp_in_t *in,
                        ts_xp_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_xp_t *x = calloc(1, sizeof *x);
    if (!x)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    x->profile_name = profile_name;
    x->nranks = in->nranks;
    x->window_iterations = in->window_iterations > 0 ? in->window_iterations : 1;
    ts_status st = ts_xp_check(p, profile_name, in->nranks, err);
    if (st != TS_OK)
        goto fail;
    const ts_score_row_t *all = ts_score_find(p, "ALL", "ALL");
    /* How many processes: MPI_Init is visited once by each; without it, the trace's. */
    x->prof_ranks = in->nranks;
    if (!ts_score_find(p, "MPI", "MPI_Init_thread") && !ts_score_find(p, "MPI", "MPI_Init"))
        add_warning(x,
                    "%s: no MPI_Init row, so the processes are not known: taken as the "
                    "trace's %d",
                    profile_name, (int)in->nranks);
    if ((st = build_rows(x, p, in)) != TS_OK) {
        st = ts_error_set(err, st, "out of memory");
        goto fail;
    }
    const ts_score_row_t *mpi = ts_score_find(p, "MPI", "MPI");
    const ts_score_row_t *pth = ts_score_find(p, "PTHREAD", "PTHREAD");
    x->all_time = all->time;
    if (mpi)
        x->mpi_group = mpi->time;
    else
        for (int i = 0; i < x->nrows; i++)
            x->mpi_group += x->rows[i].prof_time;
    x->pthread_group = pth ? pth->time : 0;
    /* Score-P reads a region's exit time before its own exit work, so each visit leaves some
     * of the profiler's time in the caller's: the compute of a profiled run, not of a plain
     * one (model.scorep.visit_outside). */
    if (mpi)
        x->visits = mpi->visits;
    else
        for (int i = 0; i < x->nrows; i++)
            x->visits += x->rows[i].prof_visits;
    x->visits += pth ? pth->visits : 0;
    x->visit_outside = in->visit_outside > 0 ? in->visit_outside : 0;
    x->compute =
        (x->all_time - x->mpi_group - x->pthread_group - (double)x->visits * x->visit_outside) /
        (double)x->prof_ranks;
    if (x->compute < 0)
        x->compute = 0;

    /* The most visited scaled function: the iteration estimate by visits. */
    const ts_xp_row_t *ref = NULL;
    for (int i = 0; i < x->nrows; i++)
        if (x->rows[i].kind == TS_XP_SCALED && (!ref || x->rows[i].prof_visits > ref->prof_visits))
            ref = &x->rows[i];
    if (!ref) {
        st = ts_error_set(err, TS_EARG,
                          "%s: no MPI function of the profile is in the trace "
                          "(besides start-up): nothing to scale",
                          profile_name);
        goto fail;
    }
    double nr = (double)in->nranks, pr = (double)x->prof_ranks;
    x->scale = in->scale;
    x->ratio = in->compute_ratio > 0 ? in->compute_ratio : 1;
    x->win_compute = in->win_compute > 0 ? in->win_compute : 0;
    /* The run's length in windows from the window's compute as the profiled setting runs it:
     * a setting with faster compute (NPS2) runs the same iterations, not more of them. */
    if (x->win_compute > 0)
        x->windows = x->compute / (x->win_compute / x->ratio / nr);
    x->prof_compute = x->compute;
    x->compute *= x->ratio;
    if (x->scale == TS_XP_BY_COMPUTE && !(x->windows > 0)) {
        st = ts_error_set(err, TS_EARG,
                          "%s: %s: cannot scale by compute (expected time outside MPI in both); "
                          "scale by visits instead",
                          profile_name,
                          x->win_compute > 0 ? "the profile has no time outside MPI"
                                             : "the window has no compute");
        goto fail;
    }
    if (in->full_iterations > 0) {
        x->iterations = in->full_iterations;
    } else if (x->scale == TS_XP_BY_COMPUTE) {
        x->estimated = 1;
        x->estimated_from = "compute";
        x->iterations = x->windows * x->window_iterations;
    } else {
        x->estimated = 1;
        x->estimated_from = ref->name;
        x->iterations =
            ((double)ref->prof_visits / pr) / ((double)ref->win_visits / nr / x->window_iterations);
    }
    for (int i = 0; i < x->nrows; i++) {
        ts_xp_row_t *r = &x->rows[i];
        if (r->kind == TS_XP_STARTUP) {
            x->startup_prof += r->prof_time / pr;
            x->startup_win += r->win_time / nr;
            continue;
        }
        if (r->kind != TS_XP_SCALED)
            continue;
        r->visits_ratio = ((double)r->prof_visits / pr) / ((double)r->win_visits / nr);
        double by_visits = r->per_call * (double)r->prof_visits / pr;
        double by_compute = r->win_time / nr * x->windows;
        r->per_rank = x->scale == TS_XP_BY_COMPUTE ? by_compute : by_visits;
        x->mpi += r->per_rank;
        x->mpi_other += x->scale == TS_XP_BY_COMPUTE ? by_visits : by_compute;
        double prof_pi = (double)r->prof_visits / pr / x->iterations;
        double win_pi = (double)r->win_visits / nr / x->window_iterations;
        if (prof_pi > TS_XP_VISIT_FACTOR * win_pi || win_pi > TS_XP_VISIT_FACTOR * prof_pi)
            add_warning(x,
                        "%s: %s: %.3g visits per rank and iteration in the profile (%.0f "
                        "iterations), %.3g in the window: more than %.0fx apart, the "
                        "profile may be of another run",
                        profile_name, r->name, prof_pi, x->iterations, win_pi, TS_XP_VISIT_FACTOR);
    }
    one_sided_warnings(x);
    *out = x;
    return TS_OK;
fail:
    ts_xp_free(x);
    return st;
}

double ts_xp_total(const ts_xp_t *x)
{
    return x->compute + x->mpi;
}
double ts_xp_total_other(const ts_xp_t *x)
{
    if (x->scale == TS_XP_BY_VISITS && !(x->windows > 0))
        return 0;
    return x->compute + x->mpi_other;
}
double ts_xp_windows(const ts_xp_t *x)
{
    return x->windows;
}
double ts_xp_compute(const ts_xp_t *x)
{
    return x->compute;
}
double ts_xp_mpi(const ts_xp_t *x)
{
    return x->mpi;
}
double ts_xp_startup_profile(const ts_xp_t *x)
{
    return x->startup_prof;
}
double ts_xp_startup_window(const ts_xp_t *x)
{
    return x->startup_win;
}
int32_t ts_xp_profile_ranks(const ts_xp_t *x)
{
    return x->prof_ranks;
}
double ts_xp_iterations(const ts_xp_t *x)
{
    return x->iterations;
}
int ts_xp_estimated(const ts_xp_t *x)
{
    return x->estimated;
}
int ts_xp_nrows(const ts_xp_t *x)
{
    return x->nrows;
}
const ts_xp_row_t *ts_xp_row(const ts_xp_t *x, int i)
{
    return (i >= 0 && i < x->nrows) ? &x->rows[i] : NULL;
}
int ts_xp_nwarnings(const ts_xp_t *x)
{
    return x->nwarn;
}
const char *ts_xp_warning(const ts_xp_t *x, int i)
{
    return (i >= 0 && i < x->nwarn) ? x->warn[i] : NULL;
}

void ts_xp_interval(double nominal, const double *each, int n, double *lo, double *hi)
{
    *lo = *hi = nominal;
    double mean = 0, ss = 0;
    for (int k = 0; k < n; k++)
        mean += each[k] / n;
    for (int k = 0; k < n; k++) {
        ss += (each[k] - mean) * (each[k] - mean);
        *lo = each[k] < *lo ? each[k] : *lo;
        *hi = each[k] > *hi ? each[k] : *hi;
    }
    if (n < 2)
        return;
    double half = gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n);
    *lo = nominal - half < *lo ? nominal - half : *lo;
    *hi = nominal + half > *hi ? nominal + half : *hi;
    *lo = *lo < 0 ? 0 : *lo; /* two iterations apart (t is 12.7 at n = 2) reach below it */
}

void ts_xp_print(const ts_xp_t *x, FILE *fp)
{
    int by_compute = x->scale == TS_XP_BY_COMPUTE;
    char shown[4200];
    fprintf(fp, "\nfull run (scaled with %s: %d processes, ",
            ts_shown(x->profile_name, shown, sizeof shown), (int)x->prof_ranks);
    if (x->estimated)
        fprintf(fp, "about %.0f iterations by %s%s)\n", x->iterations, x->estimated_from,
                by_compute ? "" : "'s visits");
    else /* the length is the profile's; the count given only checks visits per iteration */
        fprintf(fp,
                "%.0f iterations as given: they check its visits per iteration; its %s sets "
                "the run's length)\n",
                x->iterations, by_compute ? "compute" : "visits");
    fprintf(fp,
            "  compute    %.3f s per rank: the profile's time outside MPI (ALL %.2f s - MPI "
            "%.2f s - PTHREAD %.2f s",
            x->prof_compute, x->all_time, x->mpi_group, x->pthread_group);
    if (x->visit_outside > 0)
        fprintf(fp, " - Score-P's own %.2f s: %" PRIu64 " visits x %.3f us",
                (double)x->visits * x->visit_outside, x->visits, x->visit_outside * 1e6);
    fprintf(fp, ") / %d\n", (int)x->prof_ranks);
    if (by_compute)
        fprintf(fp,
                "  scaled by  compute: the run is %.3f windows long (%.6f s per rank / the "
                "window's %.6f s); each function's window time per rank x %.3f\n",
                x->windows, x->prof_compute, x->win_compute / x->ratio / (double)x->nranks,
                x->windows);
    if (x->ratio != 1)
        fprintf(fp,
                "  this set   computes %.4f x as fast as the profiled setting: compute %.3f s x "
                "%.4f = %.3f s per rank\n",
                1 / x->ratio, x->prof_compute, x->ratio, x->compute);
    else
        fprintf(fp, "  scaled by  visits: each function's window time per call x the profile's "
                    "visits per process\n");
    int nlocal = 0;
    fprintf(fp, "  %-22s %12s %14s %13s %16s %9s %13s\n", "MPI function", "window calls",
            "window time[s]", "per call[us]", "profile visits", "visits x", "per rank[s]");
    for (int i = 0; i < x->nrows; i++) {
        const ts_xp_row_t *r = &x->rows[i];
        switch (r->kind) {
        case TS_XP_SCALED:
            fprintf(fp, "  %-22s %12" PRIu64 " %14.6f %13.3f %16" PRIu64 " %9.3f %13.6f\n", r->name,
                    r->win_visits, r->win_time, r->per_call * 1e6, r->prof_visits, r->visits_ratio,
                    r->per_rank);
            break;
        case TS_XP_STARTUP:
            fprintf(fp,
                    "  %-22s start-up, not scaled: profile %.6f s, window %.6f s per rank "
                    "(outside ExecutionTime)\n",
                    r->name, r->prof_time / (double)x->prof_ranks, r->win_time / (double)x->nranks);
            break;
        case TS_XP_NOT_TRACED:
            fprintf(fp,
                    "  %-22s not in the trace: not predicted (profile %" PRIu64
                    " visits, %.2f s)\n",
                    r->name, r->prof_visits, r->prof_time);
            break;
        case TS_XP_NOT_PROFILED:
            if (r->win_time > 0)
                fprintf(fp,
                        "  %-22s not in the profile: left out (window %" PRIu64 " calls, %.6f s)\n",
                        r->name, r->win_visits, r->win_time);
            else
                nlocal++;
            break;
        }
    }
    if (nlocal)
        fprintf(fp,
                "  %d more function%s of the window, not in the profile, took no simulated "
                "time (local calls such as MPI_Comm_rank)\n",
                nlocal, nlocal == 1 ? "" : "s");
    fprintf(fp, "  ExecutionTime %.3f s = compute %.3f s + MPI %.3f s per rank\n", ts_xp_total(x),
            x->compute, x->mpi);
    if (ts_xp_total_other(x) > 0)
        fprintf(fp, "  by %-7s  instead: ExecutionTime %.3f s (MPI %.3f s per rank)\n",
                by_compute ? "visits" : "compute", ts_xp_total_other(x), x->mpi_other);
    fprintf(fp, "  assumes    the window's iterations stand for the run's: the same pattern of "
                "calls, the window's message sizes, and (by compute) MPI time in proportion "
                "to compute\n");
    for (int i = 0; i < x->nwarn; i++)
        fprintf(fp, "  warning    %s\n", x->warn[i]);
}
