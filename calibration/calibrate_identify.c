/* calibrate_identify.c - which parameters the benchmark points determine. */

/* The Jacobian's shares, the region rules, the rows and columns of the fit; also the piecewise
 * per-region view and each parameter's sources (see calibrate_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>

#include "calibrate_int.h"

/* Step of the finite differences that decide which parameters the points determine. */
#define JAC_STEP 1e-3

/* Each point's share of each candidate: d log prediction / d log value, by central
 * differences at the current values (0 where the candidate may not determine the point). */
static ts_status jac_shares(ts_calib_t *c, double *jac, ts_error_t *err)
{
    size_t n = c->npts;
    double *lo = jac + n * NCAND, *hi = lo + n, values[NCAND];
    double *mid = calloc(n + 1, sizeof(double));
    if (!mid)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int k = 0; k < NCAND; k++)
        values[k] = c->params[k].value;
    ts_status st = cal_predict_all(c, values, mid, err);
    for (int k = 0; k < NCAND && st == TS_OK; k++) {
        double v = values[k];
        values[k] = v * exp(JAC_STEP);
        st = cal_predict_all(c, values, hi, err);
        values[k] = v * exp(-JAC_STEP);
        if (st == TS_OK)
            st = cal_predict_all(c, values, lo, err);
        values[k] = v;
        for (size_t i = 0; i < n && st == TS_OK; i++) {
            /* The parameter's share of the prediction: d log prediction / d log value. */
            double d = 0;
            if (c->ipts[i].modelled && mid[i] > 0 && hi[i] >= 0 && lo[i] >= 0 &&
                cal_may_determine(c->ipts[i].kind, k) &&
                !(c->ipts[i].kind == TS_BENCH_BW && c->ipts[i].size < BW_MIN_SIZE))
                d = fabs(hi[i] - lo[i]) / (2 * JAC_STEP * mid[i]);
            jac[i * NCAND + k] = d;
        }
    }
    free(mid);
    return st;
}

/* The largest share of each candidate (c->jraw), then keep only the dominant shares. */
static void keep_dominant(ts_calib_t *c, double *jac)
{
    size_t n = c->npts;
    for (int k = 0; k < NCAND; k++) {
        c->jraw[k] = 0;
        for (size_t i = 0; i < n; i++)
            c->jraw[k] = jac[i * NCAND + k] > c->jraw[k] ? jac[i * NCAND + k] : c->jraw[k];
    }
    /* A point determines the parameters that dominate it: at least DEP_MIN of its value and
     * at least half the largest share (an 8 KiB message determines latency and bandwidth
     * alike; a 4 MiB one only the bandwidth). */
    for (size_t i = 0; i < n; i++) {
        double top = 0;
        for (int k = 0; k < NCAND; k++)
            top = jac[i * NCAND + k] > top ? jac[i * NCAND + k] : top;
        for (int k = 0; k < NCAND; k++)
            if (jac[i * NCAND + k] < DEP_MIN || jac[i * NCAND + k] < 0.5 * top)
                jac[i * NCAND + k] = 0;
    }
}

/* Each candidate to the protocol region where it dominates most. */
static void assign_regions(ts_calib_t *c, double *jac)
{
    size_t n = c->npts;
    /* Piecewise by protocol region: a parameter is determined by the points of the region
     * where it dominates most (the eager-short sizes for a latency, the rendezvous sizes for
     * a transport's bandwidth, bcopy for the copy rate); the other regions' points check the
     * value without pulling it. Copy, registration and collective points are not regions of
     * a ping-pong and keep theirs. */
    for (int k = 0; k < NCAND; k++) {
        double best[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            const ipt_t *q = &c->ipts[i];
            if (q->kind == TS_BENCH_LATENCY || q->kind == TS_BENCH_BW) {
                int cls = cal_region_class(q->proto);
                if (jac[i * NCAND + k] > best[cls])
                    best[cls] = jac[i * NCAND + k];
            }
        }
        int owner = -1;
        for (int cls = 0; cls < 4; cls++) {
            if (best[cls] <= 0)
                continue;
            /* Ties: a latency from the smaller sizes, a bandwidth from the larger. */
            if (owner < 0 || best[cls] > best[owner] + 1e-9 ||
                (fabs(best[cls] - best[owner]) <= 1e-9 && cal_cand_is_bw(k)))
                owner = cls;
        }
        for (size_t i = 0; i < n && owner >= 0; i++) {
            const ipt_t *q = &c->ipts[i];
            if ((q->kind == TS_BENCH_LATENCY || q->kind == TS_BENCH_BW) &&
                cal_region_class(q->proto) != owner)
                jac[i * NCAND + k] = 0;
        }
        /* A collective is read through an assumed algorithm: it determines a latency only
         * where no ping-pong measures it directly. */
        if (owner >= 0)
            for (size_t i = 0; i < n; i++)
                if (c->ipts[i].kind == TS_BENCH_ALLTOALL)
                    jac[i * NCAND + k] = 0;
    }
}

/* The fit's rows: modelled points that some candidate not pinned moves. */
static void select_rows(const ts_calib_t *c, const double *jac, fitctx_t *fc)
{
    size_t n = c->npts;
    fc->nrows = 0;
    for (size_t i = 0; i < n; i++) {
        int dep = 0;
        for (int k = 0; k < NCAND && c->ipts[i].modelled; k++)
            dep |= !c->pinned[k] && fabs(jac[i * NCAND + k]) > DEP_MIN;
        if (dep)
            fc->rows[fc->nrows++] = i;
    }
}

/* The fit's columns: greedy Gram-Schmidt over the rows, in preference order; a candidate
 * left out says why (c->why). */
static ts_status select_columns(ts_calib_t *c, const double *jac, fitctx_t *fc, ts_error_t *err)
{
    double *basis = calloc((size_t)NCAND * (fc->nrows + 1), sizeof(double));
    if (!basis)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    fc->nact = 0;
    int nb = 0;
    for (int k = 0; k < NCAND; k++) {
        ts_calib_param_t *cp = &c->params[k];
        cp->determined = 0;
        cp->npoints = 0;
        for (size_t r = 0; r < fc->nrows; r++)
            cp->npoints += fabs(jac[fc->rows[r] * NCAND + k]) > DEP_MIN;
        if (c->pinned[k]) {
            if (c->pinned[k] == 2)
                snprintf(c->why[k], sizeof c->why[k], "%s", c->implausible[k]);
            else
                snprintf(c->why[k], sizeof c->why[k],
                         "the fit drove it towards zero: these points show no such cost");
            c->params[k].value = c->start[k];
            c->params[k].stderr_value = -1;
            continue;
        }
        if (c->jcol[k] <= DEP_MIN) {
            snprintf(c->why[k], sizeof c->why[k], "%s",
                     c->jraw[k] < DEP_MIN ? "no benchmark point depends on it"
                                          : "it is never the dominant cost of a point (the "
                                            "points fold it into the parameters that are)");
            c->params[k].value = c->start[k];
            c->params[k].stderr_value = -1;
            continue;
        }
        double *v = basis + (size_t)nb * fc->nrows, norm0 = 0, norm = 0;
        for (size_t r = 0; r < fc->nrows; r++) {
            v[r] = jac[fc->rows[r] * NCAND + k];
            norm0 += v[r] * v[r];
        }
        for (int b = 0; b < nb; b++) {
            const double *u = basis + (size_t)b * fc->nrows;
            double dot = 0;
            for (size_t r = 0; r < fc->nrows; r++)
                dot += u[r] * v[r];
            for (size_t r = 0; r < fc->nrows; r++)
                v[r] -= dot * u[r];
        }
        for (size_t r = 0; r < fc->nrows; r++)
            norm += v[r] * v[r];
        if (norm <= 1e-10 * norm0 || (size_t)nb >= fc->nrows) {
            /* Name the fitted parameters it overlaps with. */
            size_t off = (size_t)snprintf(c->why[k], sizeof c->why[k],
                                          "these points cannot separate it from");
            for (int a = 0; a < fc->nact && off < sizeof c->why[k]; a++)
                off += (size_t)snprintf(c->why[k] + off, sizeof c->why[k] - off, "%s %s",
                                        a ? "," : "", ts_param_def(CANDIDATES[fc->act[a]])->name);
            c->params[k].value = c->start[k];
            c->params[k].stderr_value = -1;
            continue;
        }
        for (size_t r = 0; r < fc->nrows; r++)
            v[r] /= sqrt(norm);
        nb++;
        fc->act[fc->nact++] = k;
        c->why[k][0] = '\0';
    }
    free(basis);
    return TS_OK;
}

ts_status cal_select(ts_calib_t *c, fitctx_t *fc, const double *jac, ts_error_t *err)
{
    for (int k = 0; k < NCAND; k++) {
        c->jcol[k] = 0;
        for (size_t i = 0; i < c->npts; i++)
            c->jcol[k] = jac[i * NCAND + k] > c->jcol[k] ? jac[i * NCAND + k] : c->jcol[k];
    }
    select_rows(c, jac, fc);
    return select_columns(c, jac, fc, err);
}

/* Which candidates the modelled points determine: finite differences of every point's
 * residual in each log value. Fills c->jcol, the rows that depend on something, and the
 * active set (independent columns, in preference order). */
ts_status cal_identify(ts_calib_t *c, fitctx_t *fc, double **jac_out, ts_error_t *err)
{
    size_t n = c->npts;
    double *jac = calloc(n * NCAND + 2 * n + 1, sizeof(double));
    if (!jac)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = jac_shares(c, jac, err);
    if (st == TS_OK) {
        keep_dominant(c, jac);
        assign_regions(c, jac);
        st = cal_select(c, fc, jac, err);
    }
    if (st != TS_OK) {
        free(jac);
        return st;
    }
    *jac_out = jac;
    return TS_OK;
}

/* The piecewise view of one series: per region, t = a + g * size on its points, by least
 * squares on relative residuals ((a + g s) / t - 1, as the main fit weighs them), which is a
 * linear fit weighted by 1 / t^2: GSL's closed form. GSL's covariance treats the weights as
 * known variances; the standard errors scale it by the residual variance, chi^2 / (n - 2), as
 * the main fit's do (none with two points: the line is exact). */
static void region_fit(region_fit_t *rf, const double *s, const double *t, size_t n)
{
    rf->n = n;
    rf->ok = 0;
    double *w = malloc(n * sizeof *w);
    if (!w)
        return;
    for (size_t i = 0; i < n; i++)
        w[i] = t[i] > 0 ? 1 / (t[i] * t[i]) : 0;
    double c00, c01, c11, chi2;
    if (gsl_fit_wlinear(s, 1, w, 1, t, 1, n, &rf->a, &rf->g, &c00, &c01, &c11, &chi2) ==
        GSL_SUCCESS) {
        double var = n > 2 ? chi2 / (double)(n - 2) : -1;
        rf->sa = var >= 0 ? sqrt(c00 * var) : -1;
        rf->sg = var >= 0 ? sqrt(c11 * var) : -1;
        rf->ok = 1;
    }
    free(w);
}

ts_status cal_piecewise(ts_calib_t *c, ts_error_t *err)
{
    for (size_t s = 0; s < c->set->nseries; s++) {
        if (c->set->series[s].kind != TS_BENCH_LATENCY)
            continue;
        size_t s0 = c->nrfits, end = c->sfirst[s + 1];
        for (size_t i = c->sfirst[s]; i < end; i++) {
            const ts_calib_point_t *pi = &c->pts[i];
            if (!c->ipts[i].modelled)
                continue;
            int seen = 0; /* a region is fitted at its first point */
            for (size_t r = s0; r < c->nrfits && !seen; r++)
                seen = strcmp(c->rfits[r].region, pi->region) == 0;
            if (seen)
                continue;
            double *sz = calloc(c->npts, sizeof(double)), *t = calloc(c->npts, sizeof(double));
            region_fit_t *n = realloc(c->rfits, (c->nrfits + 1) * sizeof *n);
            if (!sz || !t || !n) {
                free(sz);
                free(t);
                if (n)
                    c->rfits = n;
                return ts_error_set(err, TS_ENOMEM, "out of memory");
            }
            c->rfits = n;
            size_t k = 0;
            for (size_t j = i; j < end; j++)
                if (c->ipts[j].modelled && strcmp(c->pts[j].region, pi->region) == 0) {
                    sz[k] = (double)c->ipts[j].size;
                    t[k++] = c->ipts[j].meas;
                }
            region_fit_t *rf = &c->rfits[c->nrfits++];
            memset(rf, 0, sizeof *rf);
            rf->series = s;
            snprintf(rf->region, sizeof rf->region, "%s", pi->region);
            rf->n = k;
            if (k >= 2 && sz[k - 1] > sz[0])
                region_fit(rf, sz, t, k);
            free(sz);
            free(t);
        }
    }
    return TS_OK;
}

/* For each fitted parameter: "N points: file (regions), ..." from the final Jacobian. */
ts_status cal_describe_sources(ts_calib_t *c, const double *jac, ts_error_t *err)
{
    for (int k = 0; k < NCAND; k++) {
        ts_calib_param_t *cp = &c->params[k];
        free(cp->sources);
        cp->sources = NULL;
        if (!cp->determined)
            continue;
        size_t cap = 256, len = 0;
        char *buf = malloc(cap);
        if (!buf)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        len = (size_t)snprintf(buf, cap, "tunesim calibrate fit of %zu point%s:", cp->npoints,
                               cp->npoints == 1 ? "" : "s");
        for (size_t i = 0; i < c->npts; i++) {
            if (!c->pts[i].used || fabs(jac[i * NCAND + k]) <= DEP_MIN)
                continue;
            /* One entry per file and region, in first-appearance order. */
            int dup = 0;
            for (size_t j = 0; j < i && !dup; j++)
                dup = c->pts[j].used && fabs(jac[j * NCAND + k]) > DEP_MIN &&
                      strcmp(c->pts[j].series->file, c->pts[i].series->file) == 0 &&
                      strcmp(c->pts[j].region, c->pts[i].region) == 0;
            if (dup)
                continue;
            const char *f = cal_base_name(c->pts[i].series->file);
            size_t need = len + strlen(f) + strlen(c->pts[i].region) + 8;
            if (need > cap) {
                char *nb = realloc(buf, cap = need * 2);
                if (!nb) {
                    free(buf);
                    return ts_error_set(err, TS_ENOMEM, "out of memory");
                }
                buf = nb;
            }
            len += (size_t)sprintf(buf + len, " %s (%s);", f, c->pts[i].region);
        }
        if (len && buf[len - 1] == ';')
            buf[--len] = '\0';
        cp->sources = buf;
    }
    return TS_OK;
}
