/* calibrate.c - the calibration fit (see calibrate.h, calibrate_int.h). */

/* GSL nonlinear least squares on relative residuals over independent groups of parameters,
 * rounds until the points' regions settle, and the result's accessors. */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "calibrate_int.h"

/* Rounds of classifying the points and fitting, at most, before the regions must have settled. */
enum { MAX_ROUNDS = 5 };

/* Log-scaled parameters stay inside this range (seconds or bytes/s): keeps exp() finite. */
#define LOG_MIN (-60.0)
#define LOG_MAX 60.0

/* ---- the fit -------------------------------------------------------------------------- */

/* Predictions of every modelled point with candidate k at values[k]; pred[i] < 0 where a
 * region does not exist at these values. */
ts_status cal_predict_all(ts_calib_t *c, const double *values, double *pred, ts_error_t *err)
{
    for (size_t s = 0; s < c->set->nseries; s++) {
        int any = 0;
        for (size_t i = c->sfirst[s]; i < c->sfirst[s + 1] && !any; i++)
            any = c->ipts[i].modelled;
        if (!any)
            continue;
        ts_params_t *p;
        if (ts_params_copy(c->sbase[s], &p) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        ts_status st = TS_OK;
        for (int k = 0; k < NCAND && st == TS_OK; k++)
            st = cal_set_value(p, k, values[k], err);
        models_t m;
        if (st == TS_OK)
            st = cal_models_build(p, &m, err);
        ts_params_free(p);
        if (st != TS_OK)
            return st;
        for (size_t i = c->sfirst[s]; i < c->sfirst[s + 1]; i++)
            if (c->ipts[i].modelled)
                pred[i] = cal_predict(&m, &c->ipts[i]);
        cal_models_free(&m);
    }
    return TS_OK;
}

static double rel_resid(double pred, double meas)
{
    /* A region that vanished counts as a residual of 10, a miss beyond any real one, so the fit
     * steers away from it. */
    return pred < 0 ? 10.0 : pred / meas - 1;
}

/* Residuals of the fit's rows with the active parameters at exp(x). */
static int eval_rows(fitctx_t *fc, const double *x, double *r, double *scratch)
{
    ts_calib_t *c = fc->c;
    double values[NCAND];
    for (int k = 0; k < NCAND; k++)
        values[k] = c->params[k].value;
    for (int a = 0; a < fc->nact; a++) {
        double lx = x[a] < LOG_MIN ? LOG_MIN : x[a] > LOG_MAX ? LOG_MAX : x[a];
        values[fc->act[a]] = exp(lx);
    }
    fc->st = cal_predict_all(c, values, scratch, fc->err);
    if (fc->st != TS_OK)
        return -1;
    for (size_t i = 0; i < fc->nrows; i++)
        r[i] = rel_resid(scratch[fc->rows[i]], c->ipts[fc->rows[i]].meas);
    return 0;
}

typedef struct gslctx_s {
    fitctx_t *fc;
    double *x, *r, *scratch;
} gslctx_t;

static int gsl_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    gslctx_t *g = params;
    for (int a = 0; a < g->fc->nact; a++)
        g->x[a] = gsl_vector_get(x, (size_t)a);
    if (eval_rows(g->fc, g->x, g->r, g->scratch))
        return GSL_EBADFUNC;
    for (size_t i = 0; i < g->fc->nrows; i++)
        gsl_vector_set(f, i, g->r[i]);
    return GSL_SUCCESS;
}

/* Nonlinear least squares of fc's rows over its active parameters, from x (log values, in
 * place). sigma[a]: standard errors of x scaled by the residual variance, or -1 with no
 * degree of freedom. Returns GSL's status (GSL_SUCCESS, GSL_EMAXITER, ...). */
static int run_fit(fitctx_t *fc, double *x, double *sigma, double *chi2, ts_status *st)
{
    size_t n = fc->nrows, p = (size_t)fc->nact;
    gslctx_t g = {fc, calloc(p, sizeof(double)), calloc(n, sizeof(double)),
                  calloc(fc->c->npts + 1, sizeof(double))};
    gsl_vector *x0 = gsl_vector_alloc(p);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
    int gst = GSL_ENOMEM;
    *st = TS_OK;
    if (g.x && g.r && g.scratch && x0 && cov && w) {
        gsl_multifit_nlinear_fdf fdf = {
            .f = gsl_f, .df = NULL, .fvv = NULL, .n = n, .p = p, .params = &g};
        for (size_t a = 0; a < p; a++)
            gsl_vector_set(x0, a, x[a]);
        gst = gsl_multifit_nlinear_init(x0, &fdf, w);
        int info = 0;
        if (gst == GSL_SUCCESS)
            gst = gsl_multifit_nlinear_driver(500, 1e-8, 6e-6, 0.0, NULL, NULL, &info, w);
        /* The driver says "max iterations" when its very first step finds no progress: the
         * start is already the minimum (a later sweep, or an exact fit). */
        if (gst == GSL_EMAXITER && info == GSL_ENOPROG)
            gst = GSL_SUCCESS;
        if (fc->st != TS_OK) {
            *st = fc->st;
        } else {
            const gsl_vector *xs = gsl_multifit_nlinear_position(w);
            const gsl_vector *f = gsl_multifit_nlinear_residual(w);
            double fn;
            for (size_t a = 0; a < p; a++)
                x[a] = gsl_vector_get(xs, a);
            fn = gsl_blas_dnrm2(f);
            *chi2 = fn * fn;
            gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
            size_t dof = n - p;
            for (size_t a = 0; a < p; a++)
                sigma[a] = dof > 0 ? sqrt(gsl_matrix_get(cov, a, a) * *chi2 / (double)dof) : -1;
        }
    } else {
        *st = TS_ENOMEM;
    }
    gsl_multifit_nlinear_free(w);
    gsl_matrix_free(cov);
    gsl_vector_free(x0);
    free(g.x);
    free(g.r);
    free(g.scratch);
    return gst;
}

static int uf_find(int *parent, int a)
{
    while (parent[a] != a)
        a = parent[a] = parent[parent[a]];
    return a;
}

/* Fit the active parameters in independent groups: parameters that share no point are
 * fitted apart, each group with its own residual variance, so that the noise of one
 * benchmark does not widen the uncertainty of a parameter it does not inform. */
static ts_status fit_groups(ts_calib_t *c, const fitctx_t *fc, const double *jac, ts_error_t *err)
{
    int parent[NCAND];
    for (int a = 0; a < fc->nact; a++)
        parent[a] = a;
    for (size_t r = 0; r < fc->nrows; r++) {
        int first = -1;
        for (int a = 0; a < fc->nact; a++) {
            if (fabs(jac[fc->rows[r] * NCAND + fc->act[a]]) <= DEP_MIN)
                continue;
            if (first < 0)
                first = a;
            else
                parent[uf_find(parent, a)] = uf_find(parent, first);
        }
    }
    c->chi2 = 0;
    c->dof = 0;
    c->ngroups = 0;
    c->gsl_status = GSL_SUCCESS;
    fitctx_t sub = *fc;
    sub.rows = calloc(fc->nrows + 1, sizeof *sub.rows);
    if (!sub.rows)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    /* Groups share no determining point, but a group's points may still feel another
     * group's values (a bcopy point's latency): a few sweeps settle them; the uncertainties
     * are those of the last sweep. */
    for (int sweep = 0; sweep < 3 && st == TS_OK; sweep++) {
        c->chi2 = 0;
        c->dof = 0;
        c->ngroups = 0;
        c->gsl_status = GSL_SUCCESS;
        for (int g = 0; g < fc->nact && st == TS_OK; g++) {
            if (uf_find(parent, g) != g)
                continue;
            sub.nact = 0;
            for (int a = 0; a < fc->nact; a++)
                if (uf_find(parent, a) == g)
                    sub.act[sub.nact++] = fc->act[a];
            sub.nrows = 0;
            for (size_t r = 0; r < fc->nrows; r++) {
                int dep = 0;
                for (int a = 0; a < sub.nact; a++)
                    dep |= fabs(jac[fc->rows[r] * NCAND + sub.act[a]]) > DEP_MIN;
                if (dep)
                    sub.rows[sub.nrows++] = fc->rows[r];
            }
            double x[NCAND], sigma[NCAND], chi2 = 0;
            for (int a = 0; a < sub.nact; a++)
                x[a] = log(c->params[sub.act[a]].value);
            int gst = run_fit(&sub, x, sigma, &chi2, &st);
            if (st != TS_OK) {
                if (st == TS_ENOMEM)
                    ts_error_set(err, TS_ENOMEM, "out of memory");
                break;
            }
            group_t *gr = &c->groups[c->ngroups];
            gr->nparams = sub.nact;
            gr->nrows = sub.nrows;
            gr->chi2 = chi2;
            gr->dof = (int)sub.nrows - sub.nact;
            gr->status = gst;
            if (gst != GSL_SUCCESS && c->gsl_status == GSL_SUCCESS)
                c->gsl_status = gst;
            c->chi2 += chi2;
            c->dof += gr->dof;
            for (int a = 0; a < sub.nact; a++) {
                ts_calib_param_t *cp = &c->params[sub.act[a]];
                double lx = x[a] < LOG_MIN ? LOG_MIN : x[a] > LOG_MAX ? LOG_MAX : x[a];
                cp->value = exp(lx);
                cp->determined = 1;
                cp->stderr_value = sigma[a] >= 0 ? cp->value * sigma[a] : -1;
                c->pgroup[sub.act[a]] = c->ngroups;
            }
            c->ngroups++;
        }
    }
    free(sub.rows);
    return st;
}

/* The candidates' start values: the base parameters (UCX's default where one is "auto"). */
static ts_status calib_start_values(ts_calib_t *c, const ts_params_t *base, ts_error_t *err)
{
    ts_params_t *defaults = NULL;
    if (ts_params_new(&defaults) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    for (int k = 0; k < NCAND; k++) {
        c->params[k].name = ts_param_def(CANDIDATES[k])->name;
        c->params[k].id = CANDIDATES[k];
        c->params[k].is_bw = cal_cand_is_bw(k);
        c->params[k].value = cal_read_value(base, k);
        if (c->params[k].value <= 0) /* UCX_BCOPY_BW=auto: UCX's default, as protocol.c does */
            c->params[k].value = cal_read_value(defaults, k);
        if (c->params[k].value <= 0 && cal_cand_is_kind_cost(k)) {
            c->off[k] = 1;
            c->params[k].value = SEED_OFF;
        }
        c->start[k] = c->params[k].value;
        c->params[k].stderr_value = -1;
        c->params[k].why = c->why[k];
        if (!(c->params[k].value > 0)) {
            st = ts_error_set(err, TS_EARG, "%s must be positive to be fitted", c->params[k].name);
            break;
        }
    }
    ts_params_free(defaults);
    return st;
}

/* Every benchmark point, with its series' settings applied to a copy of the base. */
static ts_status calib_load_points(ts_calib_t *c, const ts_params_t *base, ts_error_t *err)
{
    ts_status st = TS_OK;
    size_t at = 0;
    for (size_t s = 0; s < c->set->nseries && st == TS_OK; s++) {
        const ts_bench_series_t *sr = &c->set->series[s];
        c->sfirst[s] = at;
        if (ts_params_copy(base, &c->sbase[s]) != TS_OK) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        st = cal_apply_settings(sr, c->sbase[s], &c->ignored[s], err);
        for (size_t i = 0; i < sr->npoints; i++, at++) {
            c->pts[at].series = sr;
            c->pts[at].index = i;
            c->pts[at].measured = sr->points[i].value;
            c->pts[at].predicted = -1;
            c->ipts[at] = (ipt_t){.series = s,
                                  .index = i,
                                  .kind = sr->kind,
                                  .size = sr->points[i].size,
                                  .meas = sr->points[i].value};
        }
    }
    c->sfirst[c->set->nseries] = at;
    return st;
}

/* Each point's protocol region at the current values; *changed when one moved. */
static ts_status calib_classify(ts_calib_t *c, int *changed, ts_error_t *err)
{
    ts_status st = TS_OK;
    double values[NCAND];
    for (int k = 0; k < NCAND; k++)
        values[k] = c->params[k].value;
    for (size_t s = 0; s < c->set->nseries && st == TS_OK; s++) {
        ts_params_t *p;
        if (ts_params_copy(c->sbase[s], &p) != TS_OK) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        for (int k = 0; k < NCAND && st == TS_OK; k++)
            st = cal_set_value(p, k, values[k], err);
        models_t m;
        if (st == TS_OK && (st = cal_models_build(p, &m, err)) == TS_OK) {
            for (size_t i = c->sfirst[s]; i < c->sfirst[s + 1]; i++) {
                ipt_t before = c->ipts[i];
                const char *why = cal_classify(&m, &c->set->series[s], &c->ipts[i]);
                c->pts[i].why_not = why;
                c->pts[i].region[0] = '\0';
                if (!why)
                    cal_region_name(&c->ipts[i], c->pts[i].region, sizeof c->pts[i].region);
                *changed |= before.proto != c->ipts[i].proto ||
                            before.transport != c->ipts[i].transport ||
                            before.modelled != c->ipts[i].modelled;
            }
            cal_models_free(&m);
        }
        ts_params_free(p);
    }
    return st;
}

/* Final predictions and residuals at the fitted values, and why each point not fitted is
 * not. */
static ts_status calib_finish_points(ts_calib_t *c, const fitctx_t *fc, const double *jac,
                                     ts_error_t *err)
{
    ts_status st;
    double values[NCAND], *pred = calloc(c->npts + 1, sizeof(double));
    if (!pred)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int k = 0; k < NCAND; k++)
        values[k] = c->params[k].value;
    for (size_t i = 0; i < c->npts; i++)
        pred[i] = -1;
    st = cal_predict_all(c, values, pred, err);
    for (size_t i = 0; i < c->npts && st == TS_OK; i++) {
        ts_calib_point_t *pt = &c->pts[i];
        pt->predicted = c->ipts[i].modelled ? pred[i] : -1;
        pt->residual = pt->predicted >= 0 ? pt->predicted / pt->measured - 1 : 0;
    }
    for (size_t r = 0; r < fc->nrows; r++)
        c->pts[fc->rows[r]].used = 1;
    for (size_t i = 0; i < c->npts; i++) {
        if (!c->ipts[i].modelled || c->pts[i].used)
            continue;
        int refused = 0;
        for (int k = 0; k < NCAND; k++)
            refused |= c->pinned[k] && fabs(jac[i * NCAND + k]) > DEP_MIN;
        if (refused)
            c->pts[i].why_not = "a check only: the value its parameter was fitted to is not "
                                "kept (the parameter's line says why)";
        else if (c->ipts[i].kind == TS_BENCH_ALLTOALL)
            c->pts[i].why_not = "a check only: ping-pong points measure this latency "
                                "directly";
        else if (c->ipts[i].kind == TS_BENCH_BW && c->ipts[i].size < BW_MIN_SIZE)
            c->pts[i].why_not = "a check only: below 8 KiB a bandwidth test measures the "
                                "message rate (per-message costs the models do not have)";
        else if (c->pts[i].predicted == 0)
            c->pts[i].why_not = "a check only: the model charges no such cost on this "
                                "transport";
        else
            c->pts[i].why_not = "a check only: its parameters are determined by the "
                                "points of the region where they dominate";
    }
    free(pred);
    return st;
}

ts_status ts_calibrate(const ts_bench_set_t *set, const ts_params_t *base, ts_calib_t **out,
                       ts_error_t *err)
{
    *out = NULL;
    ts_calib_t *c = calloc(1, sizeof *c);
    if (!c)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    c->set = set;
    ts_status st = TS_OK;
    size_t n = 0;
    for (size_t s = 0; s < set->nseries; s++)
        n += set->series[s].npoints;
    c->npts = n;
    c->sbase = calloc(set->nseries + 1, sizeof *c->sbase);
    c->ignored = calloc(set->nseries + 1, sizeof *c->ignored);
    c->sfirst = calloc(set->nseries + 1, sizeof *c->sfirst);
    c->pts = calloc(n + 1, sizeof *c->pts);
    c->ipts = calloc(n + 1, sizeof *c->ipts);
    fitctx_t fc = {.c = c, .rows = calloc(n + 1, sizeof(size_t)), .err = err};
    double *jac = NULL;
    if (!c->sbase || !c->ignored || !c->sfirst || !c->pts || !c->ipts || !fc.rows) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    if ((st = calib_start_values(c, base, err)) != TS_OK ||
        (st = calib_load_points(c, base, err)) != TS_OK)
        goto done;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int force_round = 0;
    for (c->rounds = 1; c->rounds <= MAX_ROUNDS && st == TS_OK; c->rounds++) {
        /* Regions at the current values; stop once they no longer move. */
        int changed = 0;
        st = calib_classify(c, &changed, err);
        if (st != TS_OK || (c->rounds > 1 && !changed && !force_round))
            break;
        double *prev = jac;
        jac = NULL;
        if ((st = cal_identify(c, &fc, &jac, err)) != TS_OK) {
            free(prev);
            break;
        }
        if (fc.nact == 0 && force_round && prev) {
            /* Only pinned parameters left the previous round's fit, yet judged afresh at the
             * fitted values nothing is determined: a parameter whose share of its points sits
             * just under DEP_MIN there (a 0.11 us on-host latency of 0.46 us ping-pongs) has
             * dropped out. The rest are fitted again as the previous round identified them. */
            free(jac);
            jac = prev;
            prev = NULL;
            st = cal_select(c, &fc, jac, err);
        }
        free(prev);
        force_round = 0;
        if (st != TS_OK)
            break;
        int refused = -1;
        for (int k = 0; k < NCAND && refused < 0; k++)
            refused = c->pinned[k] ? k : -1;
        if (fc.nact == 0 && refused >= 0) {
            st = ts_error_set(err, TS_EARG,
                              "no parameter kept: every one these points determine is refused "
                              "(%s: %s)",
                              c->params[refused].name,
                              c->pinned[refused] == 2 ? c->implausible[refused]
                                                      : "the fit drove it towards zero");
            break;
        }
        if (fc.nact == 0 || fc.nrows == 0) {
            st = ts_error_set(err, TS_EARG,
                              "no benchmark point determines a model parameter (point-to-point "
                              "latency or bandwidth with a known locality, 1-node alltoall, "
                              "registration or copy tests are needed)");
            break;
        }
        st = fit_groups(c, &fc, jac, err);
        /* A value the fit drove many orders of magnitude down is a cost the points do not
         * show: hold it at its start value and fit the rest again without it. */
        int pinned = 0;
        for (int k = 0; k < NCAND && st == TS_OK; k++) {
            double lo, hi;
            ts_calib_param_t *cp = &c->params[k];
            const group_t *gr = cp->determined ? &c->groups[c->pgroup[k]] : NULL;
            double rms = gr && gr->nrows ? sqrt(gr->chi2 / (double)gr->nrows) : 0;
            char v[48], pr[64];
            cal_fmt_value(v, sizeof v, cp->value, cp->is_bw, 5);
            if (cp->determined && cp->value < c->start[k] * 1e-6) {
                c->pinned[k] = 1;
                cp->value = c->start[k];
                pinned = 1;
            } else if (cp->determined && fabs(cp->value / c->start[k] - 1) < 1e-6 && rms > 0.5) {
                /* Relative residuals barely move when the points lie orders of magnitude above
                 * what the parameter can give: GSL stops where it started. */
                snprintf(c->implausible[k], sizeof c->implausible[k],
                         "the fit could not move it from its start value: its %zu points lie %.0f "
                         "%% (rms) from every prediction near it, so they measure something else: "
                         "not kept",
                         cp->npoints, 100 * rms);
                c->pinned[k] = 2;
                pinned = 1;
            } else if (cp->determined && ts_param_range(CANDIDATES[k], &lo, &hi) &&
                       (cp->value < lo || cp->value > hi)) {
                snprintf(c->implausible[k], sizeof c->implausible[k],
                         "fitted %s from %zu points, outside its valid %s (params/params_range.h): "
                         "not kept",
                         v, cp->npoints, ts_param_range_text(CANDIDATES[k], pr, sizeof pr));
                c->pinned[k] = 2;
                cp->value = c->start[k];
                pinned = 1;
            } else if (cp->determined && ts_param_prior(CANDIDATES[k], &lo, &hi, NULL) &&
                       (cp->value < lo || cp->value > hi)) {
                /* A value no physical figure allows says the points are fitted through the
                 * wrong mechanism: it is not shipped as physics; the default stays. */
                char e[48] = "undetermined";
                /* one point leaves no residual to scale the covariance by: no error to give */
                if (isfinite(cp->stderr_value) && cp->stderr_value >= 0)
                    cal_fmt_value(e, sizeof e, cp->stderr_value, cp->is_bw, 3);
                snprintf(c->implausible[k], sizeof c->implausible[k],
                         "fitted %s +- %s from %zu points, outside the plausible %s "
                         "(params/params_prior.h): not kept",
                         v, e, cp->npoints, ts_param_prior_text(CANDIDATES[k], pr, sizeof pr));
                c->pinned[k] = 2;
                cp->value = c->start[k];
                pinned = 1;
            }
        }
        if (pinned)
            force_round = 1;
    }
    gsl_set_error_handler(old);
    if (st != TS_OK)
        goto done;
    for (int k = 0; k < NCAND; k++)
        if (c->off[k] && !c->params[k].determined)
            c->params[k].value = c->start[k] = 0; /* unmeasured: stays off */
    st = calib_finish_points(c, &fc, jac, err);
    if (st == TS_OK)
        st = cal_describe_sources(c, jac, err);
    if (st == TS_OK)
        st = cal_piecewise(c, err);
done:
    free(jac);
    free(fc.rows);
    if (st != TS_OK) {
        ts_calib_free(c);
        return st;
    }
    *out = c;
    return TS_OK;
}

void ts_calib_free(ts_calib_t *c)
{
    if (!c)
        return;
    for (size_t s = 0; c->set && s < c->set->nseries; s++) {
        if (c->sbase)
            ts_params_free(c->sbase[s]);
        if (c->ignored)
            free(c->ignored[s]);
    }
    for (int k = 0; k < NCAND; k++)
        free(c->params[k].sources);
    free(c->sbase);
    free(c->sfirst);
    free(c->ignored);
    free(c->pts);
    free(c->ipts);
    free(c->rfits);
    free(c);
}

size_t ts_calib_nparams(const ts_calib_t *c)
{
    return c ? NCAND : 0;
}
const ts_calib_param_t *ts_calib_param(const ts_calib_t *c, size_t i)
{
    return i < NCAND ? &c->params[i] : NULL;
}
const ts_calib_param_t *ts_calib_find(const ts_calib_t *c, const char *name)
{
    for (int k = 0; k < NCAND; k++)
        if (strcmp(c->params[k].name, name) == 0)
            return &c->params[k];
    return NULL;
}
size_t ts_calib_npoints(const ts_calib_t *c)
{
    return c->npts;
}
const ts_calib_point_t *ts_calib_point(const ts_calib_t *c, size_t i)
{
    return i < c->npts ? &c->pts[i] : NULL;
}
double ts_calib_chi2(const ts_calib_t *c, int *dof)
{
    if (dof)
        *dof = c->dof;
    return c->chi2;
}
