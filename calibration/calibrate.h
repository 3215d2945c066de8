/* calibrate.h - fitting model parameters to micro-benchmarks (tunesim calibrate).
 *
 * Every benchmark point the models cover is predicted by the protocol model itself
 * (models/protocol.c, the costs the replay charges), so a fitted value is what the replay
 * needs to reproduce the measurement. Each point falls in the protocol region UCX would use
 * at its size (eager short / bcopy / zcopy / rendezvous, by the thresholds of the series'
 * settings), and a parameter is determined only by the points of the region where it is the
 * dominant cost (a latency by the eager-short sizes, a bandwidth by the large ones): the fit
 * is piecewise by region, and the other points check it. Regions are re-derived from the
 * fitted values until they no longer change. The parameters (log-scaled, so they stay positive) are
 * fitted by GSL's nonlinear least squares (gsl_multifit_nlinear, trust region) on relative
 * residuals (predicted / measured - 1): a 1 B latency and a 256 MiB transfer weigh alike.
 * Uncertainties come from the covariance scaled by the residual variance. A parameter no
 * point depends on, or one the points cannot separate from another, is not fitted and keeps
 * its value (the table's default with its source, or what the base set says). */
#ifndef TS_CALIBRATE_H
#define TS_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "../common/status.h"
#include "bench_parse.h"
#include "../params/model_file.h"
#include "../params/params.h"

typedef struct ts_calib_s ts_calib_t;

typedef struct ts_calib_param_s {
    const char *name;    /* params_table.h name */
    int id;              /* ts_param_id */
    int is_bw;           /* value in bytes/s (else seconds) */
    int determined;      /* fitted from the points */
    double value;        /* fitted, or the kept value */
    double stderr_value; /* one standard error; < 0 when the fit had no degree of freedom */
    size_t npoints;      /* points whose prediction depends on it */
    const char *why;     /* undetermined: why (static text or owned by the result) */
    char *sources;       /* files and regions of its points, for the model file */
} ts_calib_param_t;

typedef struct ts_calib_point_s {
    const ts_bench_series_t *series;
    size_t index;               /* into series->points */
    int used;                   /* in the fit */
    const char *why_not;        /* not used: why */
    char region[48];            /* "eager short/posix", "copy", ... ("" when not modelled) */
    double measured, predicted; /* in the series' unit (us or MB/s); predicted < 0: none */
    double residual;            /* predicted / measured - 1 */
} ts_calib_point_t;

/* Fit the model parameters to every point of set. base holds the starting values and any
 * settings that apply to all inputs (-x, --set); each series' own settings line is applied
 * on top of it for its points. set must outlive the result. TS_EARG (one line) when no point
 * is covered by the models. */
ts_status ts_calibrate(const ts_bench_set_t *set, const ts_params_t *base, ts_calib_t **out,
                       ts_error_t *err);
void ts_calib_free(ts_calib_t *c);

size_t ts_calib_nparams(const ts_calib_t *c);
const ts_calib_param_t *ts_calib_param(const ts_calib_t *c, size_t i);
/* By table name; NULL if it was not a candidate. */
const ts_calib_param_t *ts_calib_find(const ts_calib_t *c, const char *name);
size_t ts_calib_npoints(const ts_calib_t *c);
const ts_calib_point_t *ts_calib_point(const ts_calib_t *c, size_t i);
/* Chi-square of the relative residuals, and its degrees of freedom. */
double ts_calib_chi2(const ts_calib_t *c, int *dof);

/* The human report: fitted values with uncertainties, undetermined parameters and where
 * their values come from, the piecewise per-region view, the residual of every point. */
void ts_calib_report(const ts_calib_t *c, FILE *fp);

/* The model file of the fitted values (undetermined ones become notes). */
ts_status ts_calib_model(const ts_calib_t *c, const char *platform, const char *created_from,
                         ts_model_t **out, ts_error_t *err);

/* What the models predict for point i of series s under p (the series' settings applied on
 * top): *value in the series' unit and the region's name. TS_EARG with the reason in err
 * when the models do not cover the point (an unknown locality, a collective algorithm). */
ts_status ts_calib_predict(const ts_params_t *p, const ts_bench_series_t *s, size_t i,
                           double *value, char *region, size_t region_len, ts_error_t *err);

#endif
