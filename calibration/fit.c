/* fit.c - penalised least squares over an expensive model (fit.h). The solver works in
 * prior units u = (x - x0) / prior_sd, so that parameters of nanoseconds and of gigabytes per
 * second are alike to it and the penalty is plainly u. Every point evaluated is kept: GSL asks
 * for the residuals and then the Jacobian at the same point, and the evaluations are
 * deterministic, so a point is never evaluated twice. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

typedef struct point_s {
    double *x, *y;
} point_t;

typedef struct fitctx_s {
    const ts_fit_problem_t *p;
    int nused;
    int *used; /* indices of the used observations */
    point_t *pts;
    int npts, cap;
    int evaluations;
    ts_status st; /* the evaluator's failure, if any */
    ts_error_t *err;
} fitctx_t;

static double prior_weight(const ts_fit_param_t *q)
{
    return q->flat ? TS_FIT_FLAT_WEIGHT : 1.0;
}

static void to_x(const fitctx_t *c, const double *u, double *x)
{
    for (int j = 0; j < c->p->np; j++) {
        const ts_fit_param_t *q = &c->p->params[j];
        double v = q->x0 + u[j] * q->prior_sd;
        x[j] = v < q->min ? q->min : v > q->max ? q->max : v;
    }
}

static const double *cached(const fitctx_t *c, const double *x)
{
    for (int i = 0; i < c->npts; i++)
        if (memcmp(c->pts[i].x, x, (size_t)c->p->np * sizeof *x) == 0)
            return c->pts[i].y;
    return NULL;
}

/* Outputs at n points (rows of np), those not yet known evaluated in one batch; ys[i] then
 * points into the cache. */
static ts_status eval_points(fitctx_t *c, int n, const double *xs, const double **ys)
{
    const int np = c->p->np, nout = c->p->nout;
    double *todo = malloc((size_t)(n * np + 1) * sizeof *todo);
    int nt = 0;
    ts_status st = TS_OK;
    if (!todo) {
        st = ts_error_set(c->err, TS_ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        ys[i] = cached(c, xs + (size_t)i * np);
        int dup = 0; /* the same new point twice in one batch (a clamped step) */
        for (int k = 0; k < nt && !ys[i]; k++)
            dup |= memcmp(todo + (size_t)k * np, xs + (size_t)i * np, (size_t)np * sizeof *xs) == 0;
        if (!ys[i] && !dup) {
            memcpy(todo + (size_t)nt++ * np, xs + (size_t)i * np, (size_t)np * sizeof *xs);
        }
    }
    if (nt) {
        double *y = malloc((size_t)(nt * nout + 1) * sizeof *y);
        if (!y) {
            st = ts_error_set(c->err, TS_ENOMEM, "out of memory");
            goto out;
        }
        if ((st = c->p->eval(c->p->ctx, nt, todo, y, c->err)) != TS_OK) {
            free(y);
            goto out;
        }
        c->evaluations += nt;
        for (int k = 0; k < nt; k++) {
            if (c->npts == c->cap) {
                int cap = c->cap ? 2 * c->cap : 64;
                point_t *np2 = realloc(c->pts, (size_t)cap * sizeof *np2);
                if (!np2) {
                    free(y);
                    st = ts_error_set(c->err, TS_ENOMEM, "out of memory");
                    goto out;
                }
                c->pts = np2;
                c->cap = cap;
            }
            point_t *pt = &c->pts[c->npts];
            pt->x = malloc((size_t)np * sizeof *pt->x);
            pt->y = malloc((size_t)(nout + 1) * sizeof *pt->y);
            if (!pt->x || !pt->y) {
                free(pt->x);
                free(pt->y);
                free(y);
                st = ts_error_set(c->err, TS_ENOMEM, "out of memory");
                goto out;
            }
            memcpy(pt->x, todo + (size_t)k * np, (size_t)np * sizeof *pt->x);
            memcpy(pt->y, y + (size_t)k * nout, (size_t)nout * sizeof *pt->y);
            c->npts++;
        }
        free(y);
        for (int i = 0; i < n; i++)
            if (!ys[i])
                ys[i] = cached(c, xs + (size_t)i * np);
    }
out:
    free(todo);
    return st;
}

/* The difference points of a Jacobian at x: row j is x with parameter j moved by its step
 * (backwards where forwards would leave its range); *dx the moves actually made. */
static void step_points(const fitctx_t *c, const double *x, double *xs, double *dx)
{
    const int np = c->p->np;
    for (int j = 0; j < np; j++) {
        const ts_fit_param_t *q = &c->p->params[j];
        double *row = xs + (size_t)j * np;
        memcpy(row, x, (size_t)np * sizeof *x);
        double h = q->step;
        if (x[j] + h > q->max)
            h = -h;
        if (x[j] + h < q->min)
            h = q->min - x[j];
        row[j] = x[j] + h;
        dx[j] = row[j] - x[j];
    }
}

static int gsl_f(const gsl_vector *u, void *vc, gsl_vector *f)
{
    fitctx_t *c = vc;
    const int np = c->p->np;
    double x[64];
    to_x(c, u->data, x);
    const double *y;
    if ((c->st = eval_points(c, 1, x, &y)) != TS_OK)
        return GSL_EFAILED;
    for (int k = 0; k < c->nused; k++) {
        int o = c->used[k];
        gsl_vector_set(f, (size_t)k, (y[o] - c->p->obs[o]) / c->p->obs_sd[o]);
    }
    for (int j = 0; j < np; j++)
        gsl_vector_set(f, (size_t)(c->nused + j),
                       prior_weight(&c->p->params[j]) * gsl_vector_get(u, (size_t)j));
    return GSL_SUCCESS;
}

/* d output / d u at x for every output (nout rows of np), by forward differences. */
static ts_status gradients(fitctx_t *c, const double *x, double *g)
{
    const int np = c->p->np, nout = c->p->nout;
    double xs[64 * 64], dx[64];
    const double *ys[65];
    memcpy(xs, x, (size_t)np * sizeof *x);
    step_points(c, x, xs + np, dx);
    ts_status st = eval_points(c, np + 1, xs, ys);
    if (st != TS_OK)
        return st;
    for (int j = 0; j < np; j++) {
        double du = dx[j] / c->p->params[j].prior_sd;
        for (int k = 0; k < nout; k++)
            g[(size_t)k * np + j] = du != 0 ? (ys[j + 1][k] - ys[0][k]) / du : 0;
    }
    return TS_OK;
}

static int gsl_df(const gsl_vector *u, void *vc, gsl_matrix *J)
{
    fitctx_t *c = vc;
    const int np = c->p->np, nout = c->p->nout;
    double x[64];
    to_x(c, u->data, x);
    double *g = malloc((size_t)(nout * np + 1) * sizeof *g);
    if (!g) {
        c->st = ts_error_set(c->err, TS_ENOMEM, "out of memory");
        return GSL_EFAILED;
    }
    if ((c->st = gradients(c, x, g)) != TS_OK) {
        free(g);
        return GSL_EFAILED;
    }
    gsl_matrix_set_zero(J);
    for (int k = 0; k < c->nused; k++) {
        int o = c->used[k];
        for (int j = 0; j < np; j++)
            gsl_matrix_set(J, (size_t)k, (size_t)j, g[(size_t)o * np + j] / c->p->obs_sd[o]);
    }
    for (int j = 0; j < np; j++)
        gsl_matrix_set(J, (size_t)(c->nused + j), (size_t)j, prior_weight(&c->p->params[j]));
    free(g);
    return GSL_SUCCESS;
}

void ts_fit_result_free(ts_fit_result_t *r)
{
    if (!r)
        return;
    free(r->x);
    free(r->sd);
    free(r->y);
    free(r->y_sd);
    free(r->y0);
    memset(r, 0, sizeof *r);
}

ts_status ts_fit_solve(const ts_fit_problem_t *p, ts_fit_result_t *r, ts_error_t *err)
{
    memset(r, 0, sizeof *r);
    if (p->np < 1 || p->np > 63 || p->nobs < 0 || p->nout < p->nobs || !p->eval)
        return ts_error_set(err, TS_EARG, "fit: %d parameters, %d observations, %d outputs", p->np,
                            p->nobs, p->nout);
    for (int j = 0; j < p->np; j++) {
        const ts_fit_param_t *q = &p->params[j];
        if (!(q->prior_sd > 0) || !(q->step > 0) || !(q->min <= q->max) || !isfinite(q->x0))
            return ts_error_set(err, TS_EARG, "fit: parameter %s: bad prior", q->name);
    }
    fitctx_t c = {.p = p, .err = err, .st = TS_OK};
    c.used = malloc((size_t)(p->nobs + 1) * sizeof *c.used);
    r->np = p->np;
    r->nout = p->nout;
    r->x = calloc((size_t)p->np, sizeof *r->x);
    r->sd = calloc((size_t)p->np, sizeof *r->sd);
    r->y = calloc((size_t)p->nout + 1, sizeof *r->y);
    r->y_sd = calloc((size_t)p->nout + 1, sizeof *r->y_sd);
    r->y0 = calloc((size_t)p->nout + 1, sizeof *r->y0);
    ts_status st = TS_OK;
    gsl_multifit_nlinear_workspace *w = NULL;
    gsl_vector *u0 = gsl_vector_calloc((size_t)p->np);
    gsl_matrix *cov = gsl_matrix_alloc((size_t)p->np, (size_t)p->np);
    double *g = malloc((size_t)(p->nout * p->np + 1) * sizeof *g);
    if (!c.used || !r->x || !r->sd || !r->y || !r->y_sd || !r->y0 || !u0 || !cov || !g) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto out;
    }
    for (int k = 0; k < p->nobs; k++)
        if (!p->use || p->use[k])
            c.used[c.nused++] = k;
    size_t nres = (size_t)(c.nused + p->np);
    gsl_set_error_handler_off();
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    if (!(w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, nres, (size_t)p->np))) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto out;
    }
    if (p->all_outputs)
        p->all_outputs(p->ctx, 0);
    gsl_multifit_nlinear_fdf fdf = {
        .f = gsl_f, .df = gsl_df, .fvv = NULL, .n = nres, .p = (size_t)p->np, .params = &c};
    int info = 0;
    int gst = gsl_multifit_nlinear_init(u0, &fdf, w);
    if (gst == GSL_SUCCESS)
        gst = gsl_multifit_nlinear_driver((size_t)(p->max_iter > 0 ? p->max_iter : 25), 1e-3, 1e-6,
                                          0.0, NULL, NULL, &info, w);
    if (c.st != TS_OK) {
        st = c.st;
        goto out;
    }
    r->converged = gst == GSL_SUCCESS;
    r->iterations = (int)gsl_multifit_nlinear_niter(w);
    const gsl_vector *us = gsl_multifit_nlinear_position(w);
    to_x(&c, us->data, r->x);
    /* Covariance in prior units from the Jacobian at the solution (the residuals are in
     * units of their standard deviations: no rescaling by the residual variance). */
    gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
    if (p->all_outputs) { /* the points seen so far may lack the predictions */
        p->all_outputs(p->ctx, 1);
        for (int i = 0; i < c.npts; i++) {
            free(c.pts[i].x);
            free(c.pts[i].y);
        }
        c.npts = 0;
    }
    /* Before the fit: the outputs at the priors' centres. */
    double x[64];
    const double *y0;
    to_x(&c, u0->data, x);
    if ((st = eval_points(&c, 1, x, &y0)) != TS_OK)
        goto out;
    memcpy(r->y0, y0, (size_t)p->nout * sizeof *y0);
    if ((st = gradients(&c, r->x, g)) != TS_OK)
        goto out;
    const double *yx;
    if ((st = eval_points(&c, 1, r->x, &yx)) != TS_OK)
        goto out;
    memcpy(r->y, yx, (size_t)p->nout * sizeof *yx);
    for (int j = 0; j < p->np; j++)
        r->sd[j] = sqrt(gsl_matrix_get(cov, (size_t)j, (size_t)j)) * p->params[j].prior_sd;
    for (int k = 0; k < p->nout; k++) {
        double v = 0;
        for (int a = 0; a < p->np; a++)
            for (int b = 0; b < p->np; b++)
                v += g[(size_t)k * p->np + a] * gsl_matrix_get(cov, (size_t)a, (size_t)b) *
                     g[(size_t)k * p->np + b];
        r->y_sd[k] = sqrt(v > 0 ? v : 0);
    }
    for (int k = 0; k < c.nused; k++) {
        int o = c.used[k];
        double d = (r->y[o] - p->obs[o]) / p->obs_sd[o];
        r->chi2_obs += d * d;
    }
    for (int j = 0; j < p->np; j++) {
        double d =
            prior_weight(&p->params[j]) * (r->x[j] - p->params[j].x0) / p->params[j].prior_sd;
        r->chi2_prior += d * d;
    }
out:
    r->evaluations = c.evaluations;
    for (int i = 0; i < c.npts; i++) {
        free(c.pts[i].x);
        free(c.pts[i].y);
    }
    free(c.pts);
    free(c.used);
    free(g);
    gsl_matrix_free(cov);
    gsl_vector_free(u0);
    if (w)
        gsl_multifit_nlinear_free(w);
    if (st != TS_OK)
        ts_fit_result_free(r);
    return st;
}
