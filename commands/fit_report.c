/* fit_report.c - what `tunesim fit` prints and writes (fit_impl.h): the tables of the fitted
 * parameters and the runs, and the model file labelled with the runs it was fitted to. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../params/model_file.h"
#include "fit_impl.h"

/* A value in its parameter's unit, as users write it. */
static void show(ts_param_id id, double v, char *buf, size_t n)
{
    switch (ts_param_def(id)->type) {
    case TS_PT_TIME:
        snprintf(buf, n, "%.4gus", v * 1e6);
        break;
    case TS_PT_BW:
        snprintf(buf, n, "%.5gMB/s", v / 1e6);
        break;
    default:
        snprintf(buf, n, "%.5g", v);
    }
}

int ts__fit_outside_prior(const fit_t *f, int j, double v)
{
    double lo, hi;
    ts_param_prior(f->ids[j], &lo, &hi, NULL);
    return v < lo - 1e-12 * fabs(lo) || v > hi + 1e-12 * fabs(hi);
}

void ts__fit_print_report(const fit_t *f, const ts_fit_result_t *r, const double *obs,
                          const double *sd, FILE *fp)
{
    fprintf(fp,
            "fit: %d measured setting%s, %d parameter%s, %d per-function constraint%s; %d "
            "model evaluation%s (x %d sets), %d iteration%s%s\n\n",
            f->nmeas, f->nmeas == 1 ? "" : "s", f->np, f->np == 1 ? "" : "s", f->ncons,
            f->ncons == 1 ? "" : "s", r->evaluations, r->evaluations == 1 ? "" : "s", f->n,
            r->iterations, r->iterations == 1 ? "" : "s",
            r->converged ? ", converged" : ", NOT converged (the iteration limit)");
    fprintf(fp, "%-30s %12s %12s %11s  %-24s %s\n", "parameter", "before", "fitted", "+-",
            "prior range", "");
    for (int j = 0; j < f->np; j++) {
        char a[32], b[32], c[32], pr[64];
        show(f->ids[j], f->fp[j].x0, a, sizeof a);
        show(f->ids[j], r->x[j], b, sizeof b);
        show(f->ids[j], r->sd[j], c, sizeof c);
        ts_param_prior_text(f->ids[j], pr, sizeof pr);
        double shrink = r->sd[j] / f->fp[j].prior_sd;
        fprintf(fp, "%-30s %12s %12s %11s  %-24s %s%s\n", f->fp[j].name, a, b, c, pr,
                f->fp[j].flat ? "free, " : "",
                ts__fit_outside_prior(f, j, r->x[j]) ? "OUTSIDE its prior range"
                : shrink > 0.9                       ? "not determined by the runs"
                                                     : "inside");
    }
    fprintf(fp, "\n%-16s %14s %10s %12s %12s %9s\n", "measured run", "measured [s]", "+-",
            "before [s]", "fitted [s]", "residual");
    for (int i = 0; i < f->n; i++) {
        const fset_t *s = &f->s[i];
        if (!s->meas.n)
            continue;
        int o = s->out;
        fprintf(fp, "%-16s %14.6g %10.3g %12.6g %12.6g %+8.2f sd\n", s->name, obs[o], sd[o],
                r->y0[o], r->y[o], (r->y[o] - obs[o]) / sd[o]);
    }
    if (f->ncons) {
        fprintf(fp, "\n%-16s %-16s %12s %12s %12s\n", "profile change", "function", "measured",
                "before", "fitted");
        for (int c = 0; c < f->ncons; c++) {
            int o = f->nmeas + c;
            fprintf(fp, "%-16s %-16s %+11.1f%% %+11.1f%% %+11.1f%%\n", f->s[f->cons[c].set].name,
                    f->funcs[f->cons[c].func], 100 * obs[o], 100 * r->y0[o], 100 * r->y[o]);
        }
    }
    if (f->nout > f->nmeas + f->ncons) {
        fprintf(fp, "\n%-16s %12s %12s %10s %10s\n", "not measured", "before [s]", "fitted [s]",
                "+-", "less time");
        for (int i = 0; i < f->n; i++) {
            const fset_t *s = &f->s[i];
            if (s->meas.n)
                continue;
            double gain = 1 - r->y[s->out] / r->y[f->s[0].out]; /* time saved */
            fprintf(fp, "%-16s %12.6g %12.6g %10.3g %+9.2f%%\n", s->name, r->y0[s->out],
                    r->y[s->out], r->y_sd[s->out], 100 * gain);
        }
    }
}

/* The model file: the --model file's parameters that were not fitted, then the fitted ones
 * labelled with the runs they came from. */
ts_status ts__fit_write_model(const fit_t *f, const ts_fit_result_t *r, ts_error_t *err)
{
    const char *measured = f->o.measured_csv ? f->o.measured_csv
                           : f->o.manifest   ? f->o.manifest
                                             : f->o.measured_dir;
    char from[1024], runs[512] = "";
    snprintf(from, sizeof from, "%s %s %s%s%s", f->o.trace, f->o.sets, measured,
             f->o.profile ? " " : "", f->o.profile ? f->o.profile : "");
    for (int i = 0, first = 1; i < f->n; i++)
        if (f->s[i].meas.n) {
            size_t l = strlen(runs);
            snprintf(runs + l, sizeof runs - l, "%s%s", first ? "" : ", ", f->s[i].name);
            first = 0;
        }
    ts_model_t *m = ts_model_new(ts_params_model_platform(f->s[0].params)[0]
                                     ? ts_params_model_platform(f->s[0].params)
                                 : f->o.platform ? f->o.platform
                                                 : "bm-optimized3.36",
                                 from);
    if (!m)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    char note[1024];
    snprintf(note, sizeof note,
             "tunesim fit: penalised least squares on %d measured runs (%s) and %d per-function "
             "profile changes; chi2 %.3f on the runs, %.3f on the priors",
             f->nmeas, runs, f->ncons, r->chi2_obs, r->chi2_prior);
    st = ts_model_add_note(m, note, err);
    const char *base = ts_params_model_file(f->s[0].params);
    if (st == TS_OK && base[0]) {
        ts_model_t *bm;
        if ((st = ts_model_read(base, &bm, err)) == TS_OK) {
            for (size_t i = 0; i < ts_model_nparams(bm) && st == TS_OK; i++) {
                const ts_model_param_t *q = ts_model_param(bm, i);
                int fitted = 0;
                for (int j = 0; j < f->np; j++)
                    fitted |= strcmp(q->name, f->fp[j].name) == 0;
                if (!fitted)
                    st = ts_model_add_param(m, q->name, q->value, q->stderr_text, q->source, err);
            }
            ts_model_free(bm);
        }
    }
    for (int j = 0; j < f->np && st == TS_OK; j++) {
        char v[40], e[40], src[2400], pr[64];
        ts_param_type t = ts_param_def(f->ids[j])->type;
        const char *u = t == TS_PT_TIME ? "s" : t == TS_PT_BW ? "B/s" : "";
        snprintf(v, sizeof v, "%.6g%s", r->x[j], u);
        snprintf(e, sizeof e, "%.3g%s", r->sd[j], u);
        snprintf(src, sizeof src,
                 "tunesim fit of the measured runs %s (%s); %sprior %s centred on %.6g%s%s", runs,
                 measured, f->fp[j].flat ? "free (--free: the prior's pull a hundredth), " : "",
                 ts_param_prior_text(f->ids[j], pr, sizeof pr), f->fp[j].x0, u,
                 ts__fit_outside_prior(f, j, r->x[j]) ? "; OUTSIDE the prior range" : "");
        st = ts_model_add_param(m, f->fp[j].name, v, e, src, err);
    }
    if (st == TS_OK)
        st = ts_model_write(m, f->o.out, err);
    ts_model_free(m);
    return st;
}
