/* calibrate_report.c - the calibration's report and model file (see calibrate.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "calibrate_int.h"

/* ---- output --------------------------------------------------------------------------- */

/* A value in the unit users read: us / ns for times, MB/s for bandwidths. */
static void fmt_in(char *buf, size_t n, double v, double unit_of, int is_bw, int digits)
{
    const char *unit = is_bw ? "MB/s" : unit_of >= 1e-7 ? "us" : "ns";
    double x = v * (is_bw ? 1e-6 : unit_of >= 1e-7 ? 1e6 : 1e9);
    /* digits significant digits, in plain notation where that is short (670, not 6.7e+02). */
    double mag = x > 0 ? pow(10, floor(log10(x)) - digits + 1) : 1;
    double r = x > 0 ? round(x / mag) * mag : x;
    if (r >= 1 && r < 1e9)
        snprintf(buf, n, "%.*f%s", mag < 1 ? (int)-floor(log10(mag) + 0.5) : 0, r, unit);
    else
        snprintf(buf, n, "%.*g%s", digits, x, unit);
}

void cal_fmt_value(char *buf, size_t n, double v, int is_bw, int digits)
{
    fmt_in(buf, n, v, v, is_bw, digits);
}

/* A standard error in its value's unit, two significant digits (at least one decimal
 * of the value's last digit: 0.1us, not 1e+02ns). */
static void fmt_stderr(char *buf, size_t n, double e, double value, int is_bw)
{
    fmt_in(buf, n, e, value, is_bw, 2);
}

/* A fitted value and its standard error as model files and reports write them (48 bytes
 * each); returns whether there is an error estimate. */
static int fmt_param(const ts_calib_param_t *cp, char v[48], char e[48])
{
    cal_fmt_value(v, 48, cp->value, cp->is_bw, 5);
    if (cp->stderr_value < 0)
        return 0;
    fmt_stderr(e, 48, cp->stderr_value, cp->value, cp->is_bw);
    return 1;
}

void ts_calib_report(const ts_calib_t *c, FILE *fp)
{
    size_t used = 0, modelled = 0;
    for (size_t i = 0; i < c->npts; i++) {
        used += c->pts[i].used;
        modelled += c->ipts[i].modelled;
    }
    fprintf(fp,
            "calibration: %zu benchmark points in %zu series; %zu fitted, %zu predicted as "
            "checks, %zu not covered by the models\n",
            c->npts, c->set->nseries, used, modelled - used, c->npts - modelled);
    fprintf(fp,
            "fit: GSL nonlinear least squares (trust region) on relative residuals, "
            "chi2 %.4g, %d degree%s of freedom, rms residual %.2f %%%s\n",
            c->chi2, c->dof, c->dof == 1 ? "" : "s",
            used ? 100 * sqrt(c->chi2 / (double)used) : 0.0,
            c->gsl_status == GSL_SUCCESS ? "" : " (did not converge: ");
    if (c->gsl_status != GSL_SUCCESS)
        fprintf(fp, "%s)\n", gsl_strerror(c->gsl_status));

    fprintf(fp, "\nfitted parameters (value +- one standard error, scaled by the residual "
                "variance of its group: parameters that share no point are fitted apart)\n");
    for (int k = 0; k < NCAND; k++) {
        const ts_calib_param_t *cp = &c->params[k];
        if (!cp->determined)
            continue;
        char v[48], e[48];
        if (!fmt_param(cp, v, e))
            snprintf(e, sizeof e, "n/a (as many points as parameters)");
        const group_t *g = &c->groups[c->pgroup[k]];
        fprintf(fp,
                "  %-32s %14s +- %-12s %3zu points  (group %d: %zu points, %d dof, rms "
                "residual %.2f %%%s%s)\n",
                cp->name, v, e, cp->npoints, c->pgroup[k] + 1, g->nrows, g->dof,
                g->nrows ? 100 * sqrt(g->chi2 / (double)g->nrows) : 0.0,
                g->status == GSL_SUCCESS ? "" : "; GSL: ",
                g->status == GSL_SUCCESS ? "" : gsl_strerror(g->status));
    }
    fprintf(fp, "\nnot determined by these points (the value kept and where it comes from)\n");
    for (int k = 0; k < NCAND; k++) {
        const ts_calib_param_t *cp = &c->params[k];
        if (cp->determined)
            continue;
        const ts_param_def_t *d = ts_param_def(CANDIDATES[k]);
        char v[48];
        cal_fmt_value(v, sizeof v, cp->value, cp->is_bw, 5);
        fprintf(fp, "  %-32s %14s  %s; source: %s\n", cp->name, v, cp->why, d->source);
    }
    fprintf(fp, "  (the other model.* parameters are not touched by a calibration: "
                "tunesim params lists their defaults and sources)\n");

    if (c->nrfits) {
        fprintf(fp, "\npiecewise view: per latency series and protocol region, "
                    "t = a + size / B fitted on the region's points\n");
        fprintf(fp, "  %-34s %-12s %-26s %6s %22s %26s\n", "series", "locality", "region", "points",
                "a [us]", "B [MB/s]");
        for (size_t r = 0; r < c->nrfits; r++) {
            const region_fit_t *rf = &c->rfits[r];
            const ts_bench_series_t *s = &c->set->series[rf->series];
            char where[64], a[48] = "-", b[48] = "-";
            snprintf(where, sizeof where, "%s:%d", cal_base_name(s->file), s->line);
            if (rf->ok) {
                if (rf->sa >= 0)
                    snprintf(a, sizeof a, "%.4g +- %.2g", rf->a, rf->sa);
                else
                    snprintf(a, sizeof a, "%.4g (exact)", rf->a);
                if (rf->g > 0 && rf->sg >= 0)
                    snprintf(b, sizeof b, "%.5g +- %.2g", 1 / rf->g, rf->sg / (rf->g * rf->g));
                else if (rf->g > 0)
                    snprintf(b, sizeof b, "%.5g (exact)", 1 / rf->g);
                else
                    snprintf(b, sizeof b, "n/a (no growth)");
            } else {
                snprintf(a, sizeof a, "(one size)");
            }
            fprintf(fp, "  %-34s %-12s %-26s %6zu %22s %26s\n", where, ts_bench_loc_name(s->loc),
                    rf->region, rf->n, a, b);
        }
    }

    fprintf(fp, "\nresiduals per point (predicted by the protocol model at the fitted values)\n");
    fprintf(fp, "  %-34s %-9s %-12s %10s %-28s %12s %12s %9s\n", "point", "kind", "locality",
            "size", "region", "measured", "predicted", "residual");
    for (size_t i = 0; i < c->npts; i++) {
        const ts_calib_point_t *pt = &c->pts[i];
        const ts_bench_series_t *s = pt->series;
        char where[64], pred[32], res[32];
        snprintf(where, sizeof where, "%s:%d", cal_base_name(s->file), s->points[pt->index].line);
        if (pt->predicted >= 0) {
            snprintf(pred, sizeof pred, "%.4g", pt->predicted);
            snprintf(res, sizeof res, "%+.1f%%", 100 * pt->residual);
        } else {
            snprintf(pred, sizeof pred, "-");
            snprintf(res, sizeof res, "-");
        }
        fprintf(fp, "  %-34s %-9s %-12s %10llu %-28s %12.4g %12s %9s%s%s\n", where,
                ts_bench_kind_name(s->kind),
                s->kind >= TS_BENCH_ALLREDUCE ? "-" : ts_bench_loc_name(s->loc),
                (unsigned long long)s->points[pt->index].size, pt->region[0] ? pt->region : "-",
                pt->measured, pred, res,
                pt->used ? "" : "  not fitted: ", pt->used ? "" : pt->why_not);
    }
    for (size_t s = 0; s < c->set->nseries; s++)
        if (c->ignored[s])
            fprintf(fp, "note: %s:%d: settings not in the parameter table, recorded only: %s\n",
                    cal_base_name(c->set->series[s].file), c->set->series[s].line, c->ignored[s]);
}

ts_status ts_calib_model(const ts_calib_t *c, const char *platform, const char *created_from,
                         ts_model_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_model_t *m = ts_model_new(platform, created_from);
    if (!m)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    char note[1024]; /* room for a parameter table source in full */
    snprintf(note, sizeof note,
             "tunesim calibrate: GSL nonlinear least squares on relative residuals; chi2 %.4g, "
             "%d degrees of freedom; stderr = one standard error scaled by the residual "
             "variance",
             c->chi2, c->dof);
    st = ts_model_add_note(m, note, err);
    for (int k = 0; k < NCAND && st == TS_OK; k++) {
        const ts_calib_param_t *cp = &c->params[k];
        if (cp->determined)
            continue;
        char v[48];
        cal_fmt_value(v, sizeof v, cp->value, cp->is_bw, 5);
        snprintf(note, sizeof note, "not determined: %s stays %s (%s; source: %s)", cp->name, v,
                 cp->why, ts_param_def(CANDIDATES[k])->source);
        st = ts_model_add_note(m, note, err);
    }
    for (int k = 0; k < NCAND && st == TS_OK; k++) {
        const ts_calib_param_t *cp = &c->params[k];
        if (!cp->determined)
            continue;
        char v[48], e[48];
        int has_e = fmt_param(cp, v, e);
        st = ts_model_add_param(m, cp->name, v, has_e ? e : NULL,
                                cp->sources ? cp->sources : "tunesim calibrate", err);
    }
    if (st != TS_OK) {
        ts_model_free(m);
        return st;
    }
    *out = m;
    return TS_OK;
}
