/* fit.h - penalised least squares for the parameters of a model that is expensive to
 * evaluate (`tunesim fit`: every evaluation is a replay of each measured run). The model
 * maps np parameters to nout outputs; the first nobs outputs are observed (a value and its
 * standard deviation each), the rest are predictions whose uncertainty is propagated.
 * Each parameter has a prior: its value before the fit and a standard deviation, so that a
 * parameter the observations do not determine stays where it was (the penalty
 * (x - x0) / prior_sd is one more residual). Solved with GSL's trust-region
 * Levenberg-Marquardt in the parameters' prior units; the Jacobian by forward differences,
 * all np points of one Jacobian handed to the evaluator at once so that it can run them in
 * parallel. Plain C and GSL; the evaluator is the caller's. */
#ifndef TS_FIT_H
#define TS_FIT_H

#include "../common/status.h"

typedef struct ts_fit_param_s {
    const char *name; /* for messages */
    double x0;        /* the value before the fit: the prior's centre */
    double prior_sd;  /* > 0 */
    double min, max;  /* what the model accepts: points are clamped into [min, max] */
    double step;      /* the difference step for derivatives (> 0, in the parameter's unit) */
    int flat;         /* free: the prior pulls with TS_FIT_FLAT_WEIGHT only (a range 100 times
                       * wider), for a parameter the user lets the runs place */
} ts_fit_param_t;

/* The pull of a flat prior, against 1 for the others: small enough to leave the parameter to
 * the observations, large enough to keep the normal equations regular when they say nothing. */
#define TS_FIT_FLAT_WEIGHT 0.01

typedef struct ts_fit_problem_s {
    int np, nobs, nout; /* nobs <= nout */
    const ts_fit_param_t *params;
    const double *obs, *obs_sd; /* nobs each; obs_sd > 0 */
    /* Observations to use (nobs flags; NULL: all): leave-one-out leaves some out. */
    const unsigned char *use;
    /* Evaluate the model at npts points (x: npts rows of np values), writing npts rows of
     * nout outputs into y. TS_OK, or an error in err (the fit stops with it). */
    ts_status (*eval)(void *ctx, int npts, const double *x, double *y, ts_error_t *err);
    void *ctx;
    /* Optional: told 0 while the fit iterates (then only the observed outputs are needed, and
     * the evaluator may leave the predictions out) and 1 before the final evaluations, which
     * need every output. */
    void (*all_outputs)(void *ctx, int all);
    int max_iter; /* 0: 25 */
} ts_fit_problem_t;

typedef struct ts_fit_result_s {
    int np, nout;
    double *x;         /* fitted values (np) */
    double *sd;        /* their standard deviations from the fit's covariance (np) */
    double *y;         /* outputs at x (nout) */
    double *y_sd;      /* their standard deviations propagated from the covariance (nout) */
    double *y0;        /* outputs at the priors' centres (nout): before the fit */
    double chi2_obs;   /* sum of squared observation residuals at x, used ones */
    double chi2_prior; /* sum of squared prior penalties at x */
    int iterations, evaluations, converged;
} ts_fit_result_t;

/* Fit. The result's arrays are the caller's (ts_fit_result_free). Fails with the
 * evaluator's error, TS_ENOMEM, or TS_EARG for a malformed problem. */
ts_status ts_fit_solve(const ts_fit_problem_t *p, ts_fit_result_t *r, ts_error_t *err);
void ts_fit_result_free(ts_fit_result_t *r);

#endif
