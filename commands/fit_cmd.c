/* fit_cmd.c - `tunesim fit` (fit_cmd.h): its options, the sets, measured runs and profiles it
 * reads, the outputs handed to the solver (calibration/fit.h) and the verdict. The outputs, in
 * this order: the measured sets' run times; each per-function change of a run with its own
 * profile against the first set; the unmeasured sets' run times (predicted, with the
 * propagated uncertainty). One evaluation of the model is in fit_eval.c, the report and the
 * model file in fit_report.c. */
#include "fit_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/numparse.h"
#include "../common/outfile.h"
#include "../params/params_args.h"
#include "../sim/extrapolate.h"
#include "fit_impl.h"
#include "full_run.h"
#include "options.h"

enum {
    FO_SETS,
    FO_PLATFORM,
    FO_PROFILE,
    FO_OUT,
    FO_PARAMS,
    FO_FREE,
    FO_MEASURED_CSV,
    FO_MEASURED,
    FO_MANIFEST,
    FO__STRINGS = FO_MANIFEST,
    FO_RUN_PROFILE,
    FO_TIME_SD,
    FO_FUNC_SD,
    FO_JOBS,
    FO_NODES,
    FO_PPN,
    FO_NPS,
    FO_MAP_BY,
    FO__COUNT
};
static const ts_opt_t FIT_OPTS[FO__COUNT] = {
    [FO_SETS] = {"sets", 0, 1},
    [FO_PLATFORM] = {"platform", 0, 1},
    [FO_PROFILE] = {"profile", 0, 1},
    [FO_OUT] = {"output", 'o', 1},
    [FO_PARAMS] = {"params", 0, 1},
    [FO_FREE] = {"free", 0, 1},
    [FO_MEASURED_CSV] = {"measured-csv", 0, 1},
    [FO_MEASURED] = {"logs", 0, 1},
    [FO_MANIFEST] = {"manifest", 0, 1},
    [FO_RUN_PROFILE] = {"run-profile", 0, 1},
    [FO_TIME_SD] = {"time-sd", 0, 1},
    [FO_FUNC_SD] = {"func-sd", 0, 1},
    [FO_JOBS] = {"jobs", 'j', 1},
    [FO_NODES] = {"nodes", 0, 1},
    [FO_PPN] = {"ppn", 0, 1},
    [FO_NPS] = {"nps", 0, 1},
    [FO_MAP_BY] = {"map-by", 0, 1},
};

static ts_status fit_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    fit_opts_t *o = ctx;
    const char **strs[FO__STRINGS + 1] = {[FO_SETS] = &o->sets,
                                          [FO_PLATFORM] = &o->platform,
                                          [FO_PROFILE] = &o->profile,
                                          [FO_OUT] = &o->out,
                                          [FO_PARAMS] = &o->params,
                                          [FO_FREE] = &o->free,
                                          [FO_MEASURED_CSV] = &o->measured_csv,
                                          [FO_MEASURED] = &o->measured_dir,
                                          [FO_MANIFEST] = &o->manifest};
    if (opt >= 0 && opt <= FO__STRINGS) {
        *strs[opt] = v;
        return TS_OK;
    }
    double pct;
    switch (opt) {
    case -1:
        if (o->trace)
            return ts_error_set(err, TS_EUSAGE, "fit: unexpected argument '%s'", v);
        o->trace = v;
        return TS_OK;
    case FO_RUN_PROFILE:
        if (o->nrun_profiles == FIT_MAX_RUN_PROFILES)
            return ts_error_set(err, TS_EUSAGE, "fit: at most %d --run-profile",
                                FIT_MAX_RUN_PROFILES);
        if (!strchr(v, '=') || v[0] == '=')
            return ts_error_set(err, TS_EUSAGE,
                                "fit: --run-profile expects SET=SCORE.txt, got '%s'", v);
        o->run_profile[o->nrun_profiles++] = v;
        return TS_OK;
    case FO_TIME_SD:
    case FO_FUNC_SD:
        /* below 0.001 % no timer resolves a run, and residuals in such units leave print */
        if (ts_parse_double(v, &pct) || !(pct >= 0.001) || pct > 100)
            return ts_error_set(err, TS_EUSAGE,
                                "fit: --%s expects a percentage from 0.001 to 100, got '%s'",
                                FIT_OPTS[opt].name, v);
        *(opt == FO_TIME_SD ? &o->time_sd_pct : &o->func_sd_pct) = pct;
        return TS_OK;
    case FO_JOBS:
        if (ts_parse_int(v, 1, 4096, &o->jobs))
            return ts_error_set(err, TS_EUSAGE, "fit: -j expects a count from 1 to 4096, got '%s'",
                                v);
        return TS_OK;
    default:
        return ts_opts_place("fit", opt - FO_NODES, v, &o->place, err);
    }
}

/* ---- setting up ------------------------------------------------------------------------- */

/* The parameters a --params / --free list names, each with a prior, none twice. */
static ts_status parse_names(const char *list, const char *opt, ts_param_id *ids, int *n, int max,
                             ts_error_t *err)
{
    const char *s = list;
    *n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        char name[128];
        if (len == 0 || len >= sizeof name)
            return ts_error_set(err, TS_EUSAGE, "fit: --%s expects NAME[,NAME...], got '%s'", opt,
                                list);
        memcpy(name, s, len);
        name[len] = '\0';
        ts_param_id id;
        ts_error_t e;
        ts_error_clear(&e);
        if (ts_param_lookup(name, &id, &e) != TS_OK)
            return ts_error_set(err, TS_EUSAGE, "fit: --%s: %s", opt, e.msg);
        if (!ts_param_prior(id, NULL, NULL, NULL))
            return ts_error_set(err, TS_EUSAGE,
                                "fit: --%s: %s has no prior range, so nothing says how far a "
                                "fit may move it (the uncertain parameters: tunesim params "
                                "--uncertain)",
                                opt, name);
        for (int j = 0; j < *n; j++)
            if (ids[j] == id)
                return ts_error_set(err, TS_EUSAGE, "fit: --%s names %s twice", opt, name);
        if (*n == max)
            return ts_error_set(err, TS_EUSAGE, "fit: too many --%s", opt);
        ids[(*n)++] = id;
        s += len;
        if (*s == ',')
            s++;
    }
    return TS_OK;
}

/* What is fitted: --params (default every parameter with a prior), plus any --free one. */
static ts_status choose_params(fit_t *f, ts_error_t *err)
{
    const int max = (int)(sizeof f->ids / sizeof f->ids[0]);
    ts_status st = TS_OK;
    if (!f->o.params) {
        for (int id = 0; id < TS_P__COUNT; id++)
            if (ts_param_prior((ts_param_id)id, NULL, NULL, NULL))
                f->ids[f->np++] = (ts_param_id)id;
    } else if ((st = parse_names(f->o.params, "params", f->ids, &f->np, max, err)) != TS_OK)
        return st;
    if (!f->o.free)
        return TS_OK;
    ts_param_id free_ids[32];
    int nfree;
    if ((st = parse_names(f->o.free, "free", free_ids, &nfree, max, err)) != TS_OK)
        return st;
    for (int k = 0; k < nfree; k++) {
        int j = 0;
        while (j < f->np && f->ids[j] != free_ids[k])
            j++;
        if (j == f->np) { /* not in --params: fitted too */
            if (f->np == max)
                return ts_error_set(err, TS_EUSAGE, "fit: too many --params and --free");
            f->ids[f->np++] = free_ids[k];
        }
        f->flat[j] = 1;
    }
    return TS_OK;
}

/* The priors, centred on the first set's values (the model file's where one was given). */
static ts_status make_priors(fit_t *f, ts_error_t *err)
{
    for (int j = 0; j < f->np; j++) {
        double lo, hi, x0, mn, mx;
        ts_param_prior(f->ids[j], &lo, &hi, NULL);
        if (!ts_params_number(f->s[0].params, f->ids[j], &x0) ||
            !ts_param_range(f->ids[j], &mn, &mx))
            return ts_error_set(err, TS_EARG, "fit: %s is not numeric",
                                ts_param_def(f->ids[j])->name);
        snprintf(f->fp_names[j], sizeof f->fp_names[j], "%s", ts_param_def(f->ids[j])->name);
        f->fp[j] = (ts_fit_param_t){.name = f->fp_names[j],
                                    .x0 = x0,
                                    .prior_sd = (hi - lo) / 4,
                                    .min = mn,
                                    .max = mx,
                                    .step = (hi - lo) / 20,
                                    .flat = f->flat[j]};
    }
    return TS_OK;
}

static ts_status read_measured(fit_t *f, ts_error_t *err)
{
    ts_status st = ts_measured_new(&f->m, err);
    if (st == TS_OK && f->o.measured_csv)
        st = ts_measured_read_csv(f->m, f->o.measured_csv, err);
    if (st == TS_OK && f->o.measured_dir)
        st = ts_measured_read_dir(f->m, f->o.measured_dir, err);
    if (st == TS_OK && f->o.manifest)
        st = ts_measured_read_manifest(f->m, f->o.manifest, err);
    if (st == TS_OK) /* no log read through --logs or a manifest is the output */
        st = ts_measured_check_output(f->m, "fit", "-o", f->o.out, err);
    if (st != TS_OK)
        return st;
    size_t nm = ts_measured_count(f->m);
    for (size_t i = 0; i < nm; i++) {
        const ts_measured_setting_t *ms = ts_measured_get(f->m, i);
        int k = ts_sets_find(f->sets, ms->name);
        if (k < 0)
            return ts_error_set(err, TS_EARG,
                                "fit: measured setting '%s' (%s) is not a set of %s: which "
                                "settings it ran with is unknown",
                                ms->name, ms->n ? ms->sources[0] : "?", f->o.sets);
        for (size_t r = 0; r < ms->n; r++)
            if (!isfinite(ms->seconds[r]) || !(ms->seconds[r] > 0))
                return ts_error_set(err, TS_EARG,
                                    "fit: %s: measured time of '%s' is %g s: "
                                    "expected a positive number of seconds",
                                    ms->sources[r], ms->name, ms->seconds[r]);
        const ts_runstats_t *rs = &f->s[k].meas;
        ts_runstats_compute(ms->seconds, ms->n, &f->s[k].meas);
        /* Half the spread is the measurement's standard deviation: repeats further apart (a
         * mistyped or failed run among them) would let any prediction explain them. */
        if (rs->max > FIT_MAX_REPEAT_RATIO * rs->min)
            return ts_error_set(err, TS_EARG,
                                "fit: measured setting '%s': its %zu runs range from %g s to %g "
                                "s, more than a factor of %g apart: a mistyped or failed run "
                                "among them? (leave it out)",
                                ms->name, ms->n, rs->min, rs->max, FIT_MAX_REPEAT_RATIO);
    }
    if (!f->s[0].meas.n)
        return ts_error_set(err, TS_EARG,
                            "fit: the first set of %s (%s) has no measured run: it is the "
                            "setting the others are compared with (and the profile's)",
                            f->o.sets, f->s[0].name);
    int nmeas = 0;
    for (int i = 0; i < f->n; i++)
        nmeas += f->s[i].meas.n > 0;
    if (nmeas < 2)
        return ts_error_set(err, TS_EARG,
                            "fit: %d measured setting%s; at least 2 are needed (one run's time "
                            "cannot tell the settings' costs from the trace's own level)",
                            nmeas, nmeas == 1 ? "" : "s");
    return TS_OK;
}

/* The profile's time in func less Score-P's own work in it (visit_outside per visit for the
 * enter half, which the region holds), or -1 when absent. */
static double prof_time(const ts_score_t *p, const char *func, double per_visit)
{
    const ts_score_row_t *r = ts_score_find(p, "MPI", func);
    return r ? r->time - (double)r->visits * per_visit : -1;
}

static ts_status read_run_profiles(fit_t *f, ts_error_t *err)
{
    double per_visit = TS_PARAM_SECONDS(f->s[0].params, SCOREP_VISIT_OUTSIDE);
    for (int r = 0; r < f->o.nrun_profiles; r++) {
        const char *v = f->o.run_profile[r];
        const char *eq = strchr(v, '=');
        char name[80];
        snprintf(name, sizeof name, "%.*s", (int)(eq - v), v);
        int k = ts_sets_find(f->sets, name);
        if (k < 0)
            return ts_error_set(err, TS_EUSAGE, "fit: --run-profile %s: no set '%s' in %s", v, name,
                                f->o.sets);
        if (f->s[k].own)
            return ts_error_set(err, TS_EUSAGE, "fit: --run-profile: two profiles for '%s'", name);
        ts_status st = ts_score_read(eq + 1, &f->s[k].own, err);
        if (st == TS_OK)
            st = ts_xp_check(f->s[k].own, eq + 1, ts_trace_nranks(ts_job_trace(f->jt)), err);
        if (st != TS_OK)
            return st;
        f->s[k].own_path = eq + 1;
    }
    if (!f->o.nrun_profiles)
        return TS_OK;
    if (!f->profile)
        return ts_error_set(err, TS_EUSAGE,
                            "fit: --run-profile needs --profile (the first "
                            "set's profile, which the changes are against)");
    /* The functions that hold a share of the first set's MPI time. */
    const ts_score_row_t *mpi = ts_score_find(f->profile, "MPI", "MPI");
    double total = mpi ? mpi->time : 0;
    for (int i = 0; i < ts_score_nrows(f->profile) && f->nfuncs < FIT_MAX_FUNCS; i++) {
        const ts_score_row_t *row = ts_score_row(f->profile, i);
        if (strcmp(row->type, "MPI") != 0 || ts_score_is_group(row) ||
            strncmp(row->region, "MPI_Init", 8) == 0 || strcmp(row->region, "MPI_Finalize") == 0)
            continue;
        if (total > 0 && row->time >= FIT_FUNC_SHARE * total)
            f->funcs[f->nfuncs++] = row->region;
    }
    for (int i = 1; i < f->n; i++) {
        if (!f->s[i].own || !f->s[i].meas.n)
            continue;
        for (int k = 0; k < f->nfuncs; k++) {
            double a = prof_time(f->s[i].own, f->funcs[k], per_visit);
            double b = prof_time(f->profile, f->funcs[k], per_visit);
            if (a < 0 || !(b > 0))
                continue;
            f->cons[f->ncons++] = (fcons_t){i, k, a / b - 1};
        }
    }
    return TS_OK;
}

static ts_status prepare(fit_t *f, const ts_params_t *base, ts_error_t *err)
{
    ts_status st = ts_sets_open(f->o.sets, NULL, &f->sets, err);
    if (st != TS_OK)
        return st;
    int nbad = ts_sets_nerrors(f->sets);
    if (nbad) {
        for (int i = 0; i < nbad; i++)
            fprintf(stderr, "tunesim: %s\n", ts_sets_error(f->sets, i));
        return ts_error_set(err, TS_EARG, "fit: %d mistake%s in %s (listed above)", nbad,
                            nbad == 1 ? "" : "s", f->o.sets);
    }
    f->n = ts_sets_count(f->sets);
    if (f->n < 1)
        return ts_error_set(err, TS_EARG, "fit: %s has no sets", f->o.sets);
    if (!(f->s = calloc((size_t)f->n, sizeof *f->s)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int i = 0; i < f->n; i++) {
        fset_t *s = &f->s[i];
        s->name = ts_sets_name(f->sets, i);
        if ((st = ts_params_copy(base, &s->params)) != TS_OK)
            return ts_error_set(err, st, "out of memory");
        if ((st = ts_sets_apply(f->sets, i, s->params, err)) != TS_OK)
            return st;
        s->jo.platform = f->o.platform;
        s->jo.place = f->o.place;
        ts_sets_place_over(f->sets, i, &s->jo.place);
    }
    if ((st = ts_job_trace_open(f->o.trace, &f->jt, err)) != TS_OK)
        return st;
    if (f->o.profile) {
        if ((st = ts_score_read(f->o.profile, &f->profile, err)) != TS_OK ||
            (st = ts_xp_check(f->profile, f->o.profile, ts_trace_nranks(ts_job_trace(f->jt)),
                              err)) != TS_OK)
            return st;
        int32_t a, b;
        if ((st = ts_job_trace_full_window(f->jt, "fit", 1, &a, &b, err)) != TS_OK)
            return st;
        f->win_iterations = b - a + 1;
    }
    /* Every set must place and find its transports before anything runs. */
    for (int i = 0; i < f->n; i++) {
        ts_job_t *job;
        ts_error_t e;
        ts_error_clear(&e);
        if ((st = ts_job_prepare(ts_job_trace(f->jt), f->o.trace, f->s[i].params, &f->s[i].jo, &job,
                                 &e)) != TS_OK)
            return ts_error_set(err, st, "fit: set %s: %s", f->s[i].name, e.msg);
        ts_job_close(job);
    }
    if ((st = read_measured(f, err)) != TS_OK || (st = read_run_profiles(f, err)) != TS_OK)
        return st;
    /* Outputs: measured run times, the function constraints, the other sets' run times. */
    int k = 0;
    for (int i = 0; i < f->n; i++)
        if (f->s[i].meas.n)
            f->s[i].out = k++;
    f->nmeas = k;
    k += f->ncons;
    for (int i = 0; i < f->n; i++)
        if (!f->s[i].meas.n)
            f->s[i].out = k++;
    f->nout = k;
    if ((st = choose_params(f, err)) != TS_OK)
        return st;
    return make_priors(f, err);
}

static void fit_free(fit_t *f)
{
    for (int i = 0; i < f->n; i++) {
        ts_params_free(f->s[i].params);
        ts_score_free(f->s[i].own);
    }
    free(f->s);
    ts_sets_free(f->sets);
    ts_score_free(f->profile);
    ts_measured_free(f->m);
    ts_job_trace_close(f->jt);
}

int ts_fit_cmd(int argc, char **argv, ts_error_t *err)
{
    fit_t f = {.o = {.platform = NULL, .time_sd_pct = 0.5, .func_sd_pct = 5}};
    ts_params_t *base = NULL;
    ts_status st = ts_params_new(&base);
    if (st != TS_OK)
        return ts_error_set(err, st, "out of memory");
    if (st == TS_OK)
        st = ts_opts_parse_params("fit", argc, argv, base, FIT_OPTS, FO__COUNT, fit_opt, &f.o, err);
    if (st == TS_OK && !f.o.trace)
        st = ts_error_set(err, TS_EUSAGE, "fit: missing TRACE");
    if (st == TS_OK && !f.o.sets)
        st = ts_error_set(err, TS_EUSAGE, "fit: missing --sets FILE (the settings of each run)");
    if (st == TS_OK && !f.o.measured_csv && !f.o.measured_dir && !f.o.manifest)
        st = ts_error_set(err, TS_EUSAGE,
                          "fit: missing the measured runs (--measured-csv FILE, --logs DIR or "
                          "--manifest FILE)");
    /* Before anything is read: each input a file of its kind, none of them the output. */
    if (st == TS_OK) {
        ts_file_use_t uses[8 + FIT_MAX_RUN_PROFILES] = {
            {"TRACE", f.o.trace, 0, "a trace", 1},
            {"--sets", f.o.sets, 0, "a sets file", 0},
            {"--measured-csv", f.o.measured_csv, 0, "a CSV of measured runs", 0},
            {"--manifest", f.o.manifest, 0, "a manifest of measured runs", 0},
            {"--profile", f.o.profile, 0, "a scorep-score profile", 0},
            {"-o", f.o.out, 1, NULL, 0},
            {"--platform", f.o.platform && ts_platform_is_path(f.o.platform) ? f.o.platform : NULL,
             0, "a platform description", 0}};
        for (int i = 0; i < f.o.nrun_profiles; i++) /* SET=SCORE.txt */
            uses[7 + i] = (ts_file_use_t){"--run-profile", strchr(f.o.run_profile[i], '=') + 1, 0,
                                          "a scorep-score profile", 0};
        uses[7 + f.o.nrun_profiles] = ts_opts_model_use(base, "--model");
        st = ts_check_files("fit", uses, 8 + f.o.nrun_profiles, err);
    }
    if (st == TS_OK && !f.o.jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        f.o.jobs = n > 0 ? (int)n : 1;
    }
    if (st == TS_OK)
        st = prepare(&f, base, err);
    for (int i = 0; i < f.n && st == TS_OK && f.o.out; i++) { /* a set's own --model */
        char flag[160];
        const ts_file_use_t uses[2] = {
            ts_opts_set_model_use(f.s[i].params, f.s[i].name, base, flag, sizeof flag),
            {"-o", f.o.out, 1, NULL, 0}};
        if (uses[0].path)
            st = ts_check_files("fit", uses, 2, err);
    }
    double *obs = NULL, *sd = NULL;
    unsigned char *use = NULL;
    ts_fit_result_t r = {0};
    if (st == TS_OK) {
        obs = calloc((size_t)f.nout + 1, sizeof *obs);
        sd = calloc((size_t)f.nout + 1, sizeof *sd);
        use = calloc((size_t)f.nout + 1, 1);
        if (!obs || !sd || !use)
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    if (st == TS_OK) {
        for (int i = 0; i < f.n; i++) {
            const fset_t *s = &f.s[i];
            if (!s->meas.n)
                continue;
            obs[s->out] = s->meas.trimmed_mean;
            double half = s->meas.spread / 2, floor = f.o.time_sd_pct / 100 * obs[s->out];
            sd[s->out] = half > floor ? half : floor;
        }
        for (int c = 0; c < f.ncons; c++) {
            obs[f.nmeas + c] = f.cons[c].obs;
            sd[f.nmeas + c] = f.o.func_sd_pct / 100;
        }
        ts_fit_problem_t pb = {.np = f.np,
                               .nobs = f.nmeas + f.ncons,
                               .nout = f.nout,
                               .params = f.fp,
                               .obs = obs,
                               .obs_sd = sd,
                               .eval = ts__fit_eval,
                               .all_outputs = ts__fit_all_outputs,
                               .ctx = &f};
        st = ts_fit_solve(&pb, &r, err);
        if (st == TS_OK) {
            ts__fit_print_report(&f, &r, obs, sd, stdout);
            /* Leave one out: each measured run (with its profile changes) predicted by a fit of
             * the others; from three runs, where two remain to fit. */
            if (f.nmeas >= 3) {
                double sum = 0;
                fprintf(stdout, "\nleave-one-out (each measured run predicted from the others):\n");
                for (int i = 0; i < f.n && st == TS_OK; i++) {
                    if (!f.s[i].meas.n || i == 0)
                        continue;
                    for (int k = 0; k < pb.nobs; k++)
                        use[k] = k != f.s[i].out && !(k >= f.nmeas && f.cons[k - f.nmeas].set == i);
                    ts_fit_problem_t lp = pb;
                    lp.use = use;
                    ts_fit_result_t lr;
                    if ((st = ts_fit_solve(&lp, &lr, err)) != TS_OK)
                        break;
                    double e = 100 * (lr.y[f.s[i].out] - obs[f.s[i].out]) / obs[f.s[i].out];
                    sum += fabs(e);
                    fprintf(stdout, "  %-16s predicted %.6g s +- %.3g, measured %.6g s: %+.2f %%\n",
                            f.s[i].name, lr.y[f.s[i].out], lr.y_sd[f.s[i].out], obs[f.s[i].out], e);
                    ts_fit_result_free(&lr);
                }
                if (st == TS_OK)
                    fprintf(stdout,
                            "  mean |error| %.2f %% over %d runs (the first set stays in "
                            "every fit: the others are compared with it)\n",
                            sum / (f.nmeas - 1), f.nmeas - 1);
            }
        }
    }
    /* The verdict: a run the fitted model leaves far from its measurement is not explained by
     * any parameter within reach, and a model fitted to it would carry the error elsewhere. */
    if (st == TS_OK) {
        int bad = -1;
        double worst = 0;
        for (int i = 0; i < f.n; i++) {
            const fset_t *s = &f.s[i];
            if (!s->meas.n)
                continue;
            double z = fabs(r.y[s->out] - obs[s->out]) / sd[s->out];
            if (z > FIT_UNEXPLAINED_SD && z > worst)
                worst = z, bad = i;
        }
        for (int j = 0; j < f.np; j++)
            if (ts__fit_outside_prior(&f, j, r.x[j]))
                fprintf(stderr,
                        "tunesim: warning: %s fitted to %.6g, outside its prior range: the "
                        "mechanism behind it is not what the model says\n",
                        f.fp[j].name, r.x[j]);
        if (bad >= 0) {
            const fset_t *s = &f.s[bad];
            st = ts_error_set(
                err, TS_EARG,
                "fit: run %s is not explained: measured %.6g s, fitted %.6g s "
                "(%.1f standard deviations) after the fit, every parameter held by its "
                "prior; no model written",
                s->name, obs[s->out], r.y[s->out], worst);
        }
    }
    /* The report checked before the model file replaces an earlier one. */
    if (st == TS_OK && f.o.out) {
        char after[4300], so[4200];
        snprintf(after, sizeof after, "; %s not written", ts_shown(f.o.out, so, sizeof so));
        st = ts_report_check(stdout, after, err);
    }
    if (st == TS_OK && f.o.out) {
        char shown[4200];
        st = ts__fit_write_model(&f, &r, err);
        if (st == TS_OK)
            fprintf(stdout, "\nwrote %s (use it with --model)\n",
                    ts_shown(f.o.out, shown, sizeof shown));
    }
    ts_fit_result_free(&r);
    free(obs);
    free(sd);
    free(use);
    fit_free(&f);
    ts_params_free(base);
    return st;
}
