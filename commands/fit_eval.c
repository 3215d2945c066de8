/* fit_eval.c - one evaluation of `tunesim fit`'s model (fit_impl.h): at each parameter point,
 * every set of the sets file replayed in forked workers (commands/pool.h), scaled to the full
 * run as `tunesim sweep --profile` scales it (commands/full_run.h), and mapped into the
 * solver's outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../sim/extrapolate.h"
#include "fit_impl.h"
#include "full_run.h"
#include "pool.h"

/* Set i's parameters at point x (the caller frees them). */
static ts_status params_at(const fit_t *f, int i, const double *x, ts_params_t **out,
                           ts_error_t *err)
{
    ts_status st = ts_params_copy(f->s[i].params, out);
    if (st != TS_OK)
        return ts_error_set(err, st, "out of memory");
    for (int j = 0; j < f->np && st == TS_OK; j++)
        st = ts_params_set_number(*out, f->ids[j], x[j], err);
    if (st != TS_OK) {
        ts_params_free(*out);
        *out = NULL;
    }
    return st;
}

/* In a worker: replay one set at one point; answer "total SECONDS" and one "f NAME SECONDS"
 * line per constrained function (per rank, full run). */
static char *work_task(void *ctx, int task, ts_error_t *err)
{
    const fit_t *f = ctx;
    int pt = task / f->n, i = task % f->n;
    const double *x = f->bx + (size_t)pt * f->np;
    ts_params_t *p = NULL, *pb = NULL;
    ts_job_t *job = NULL, *bjob = NULL;
    json_object *j = NULL;
    ts_xp_t *xp = NULL;
    char *answer = NULL;
    const ts_trace_t *t = ts_job_trace(f->jt);
    ts_status st = params_at(f, i, x, &p, err);
    if (st == TS_OK)
        st = ts_job_prepare(t, f->o.trace, p, &f->s[i].jo, &job, err);
    if (st == TS_OK)
        st = ts_job_run(job, err);
    if (st == TS_OK && !(j = ts_job_json(job)))
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    double total = 0, per_rank[FIT_MAX_FUNCS] = {0};
    if (st == TS_OK && f->profile) {
        /* The first set at the same point, only prepared: its compute per burst is what the
         * profile's compute stands for (as sweep's baseline). For the first set, its own. */
        if (i != 0 && (st = params_at(f, 0, x, &pb, err)) == TS_OK)
            st = ts_job_prepare(t, f->o.trace, pb, &f->s[0].jo, &bjob, err);
        if (st == TS_OK) {
            double bs = ts_job_compute_scale(i != 0 ? bjob : job);
            ts_xp_in_t in = {.nranks = ts_trace_nranks(t),
                             .scale = TS_XP_BY_COMPUTE,
                             .window_iterations = f->win_iterations,
                             .visit_outside = TS_PARAM_SECONDS(p, SCOREP_VISIT_OUTSIDE),
                             .compute_ratio = bs > 0 ? ts_job_compute_scale(job) / bs : 1};
            st = ts_full_run_from_json(j, f->profile, f->o.profile, &in, &xp, err);
        }
        if (st == TS_OK) {
            total = ts_xp_total(xp);
            for (int r = 0; r < ts_xp_nrows(xp); r++) {
                const ts_xp_row_t *row = ts_xp_row(xp, r);
                for (int k = 0; k < f->nfuncs; k++)
                    if (row->kind == TS_XP_SCALED && strcmp(row->name, f->funcs[k]) == 0)
                        per_rank[k] = row->per_rank;
            }
        }
    } else if (st == TS_OK) {
        json_object *v, *funcs;
        json_object_object_get_ex(j, "predicted_time_s", &v);
        total = json_object_get_double(v);
        if (json_object_object_get_ex(j, "functions", &funcs))
            for (int k = 0; k < f->nfuncs; k++) {
                json_object *fv, *tv;
                if (json_object_object_get_ex(funcs, f->funcs[k], &fv) &&
                    json_object_object_get_ex(fv, "time_s", &tv))
                    per_rank[k] = json_object_get_double(tv) / ts_trace_nranks(t);
            }
    }
    if (st == TS_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *ms = open_memstream(&buf, &len);
        if (ms) {
            fprintf(ms, "total %.17g\n", total);
            for (int k = 0; k < f->nfuncs; k++)
                fprintf(ms, "f %d %.17g\n", k, per_rank[k]);
            if (fclose(ms) == 0)
                answer = buf;
            else
                free(buf);
        }
        if (!answer)
            ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    ts_xp_free(xp);
    json_object_put(j);
    ts_job_close(bjob);
    ts_job_close(job);
    ts_params_free(pb);
    ts_params_free(p);
    return answer;
}

static ts_status task_done(void *ctx, int task, const char *answer, const char *error, int *failed,
                           ts_error_t *err)
{
    fit_t *f = ctx;
    if (!answer) {
        *failed = 1;
        int pt = task / f->n, i = task % f->n;
        return ts_error_set(err, TS_ECHILD, "fit: set %s at point %d failed: %s", f->s[i].name,
                            pt + 1, error ? error : "no answer");
    }
    double v;
    int k;
    const char *line = answer;
    while (*line) {
        if (sscanf(line, "total %lf", &v) == 1)
            f->btotal[task] = v;
        else if (sscanf(line, "f %d %lf", &k, &v) == 2 && k >= 0 && k < f->nfuncs)
            f->bfunc[(size_t)task * f->nfuncs + k] = v;
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    return TS_OK;
}

/* Whether the fit observes set i: the first (the one compared with), a measured one, or one
 * with its own profile. */
static int observed(const fit_t *f, int i)
{
    if (i == 0 || f->s[i].meas.n)
        return 1;
    for (int c = 0; c < f->ncons; c++)
        if (f->cons[c].set == i)
            return 1;
    return 0;
}

void ts__fit_all_outputs(void *ctx, int all)
{
    ((fit_t *)ctx)->all = all;
}

/* The solver's evaluator: every set (or those observed, while the fit iterates) at each
 * point, mapped into the outputs; a set left out reads as 0. */
ts_status ts__fit_eval(void *ctx, int npts, const double *x, double *y, ts_error_t *err)
{
    fit_t *f = ctx;
    int ntask = npts * f->n;
    f->bx = x;
    f->btotal = calloc((size_t)ntask, sizeof *f->btotal);
    f->bfunc = calloc((size_t)ntask * (f->nfuncs ? f->nfuncs : 1), sizeof *f->bfunc);
    int *todo = malloc((size_t)ntask * sizeof *todo);
    ts_status st = TS_OK;
    if (!f->btotal || !f->bfunc || !todo)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    int ntodo = 0;
    for (int t = 0; st == TS_OK && t < ntask; t++)
        if (f->all || observed(f, t % f->n))
            todo[ntodo++] = t;
    ts_pool_t pool = {.jobs = f->o.jobs,
                      .who = "fit",
                      .what = "replays",
                      .ctx = f,
                      .work = work_task,
                      .done = task_done};
    if (st == TS_OK)
        st = ts_pool_run(&pool, todo, ntodo, 0, err);
    for (int pt = 0; st == TS_OK && pt < npts; pt++) {
        double *row = y + (size_t)pt * f->nout;
        const double *tot = f->btotal + (size_t)pt * f->n;
        for (int i = 0; i < f->n; i++)
            row[f->s[i].out] = tot[i];
        for (int c = 0; c < f->ncons; c++) {
            const fcons_t *cs = &f->cons[c];
            int k = cs->func;
            double a = f->bfunc[((size_t)pt * f->n + cs->set) * f->nfuncs + k];
            double b = f->bfunc[((size_t)pt * f->n + 0) * f->nfuncs + k];
            row[f->nmeas + c] = b > 0 ? a / b - 1 : 0;
        }
    }
    free(todo);
    free(f->btotal);
    free(f->bfunc);
    f->btotal = f->bfunc = NULL;
    return st;
}
