/* calibrate.c - the calibration fit (see calibrate.h): benchmark points -> predictions by the
 * protocol model -> GSL nonlinear least squares on relative residuals -> fitted values with
 * uncertainties, identifiability, per-region view and report. */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "../models/protocol.h"

/* The parameters a calibration may determine, in the order they are preferred when the
 * points cannot separate two of them (the first keeps the fit, the later one its value). */
static const ts_param_id CANDIDATES[] = {
    TS_P_NET_LATENCY,
    TS_P_NET_BW,
    TS_P_TCP_LATENCY,
    TS_P_TCP_BW,
    TS_P_SHM_LATENCY,
    TS_P_SHM_BW,
    TS_P_SHM_CROSS_SOCKET_LATENCY,
    TS_P_NET_REG_COST,
    TS_P_NET_REG_COST_PER_BYTE,
    TS_P_NET_SPINE_LATENCY,
    TS_P_SHM_CROSS_NUMA_LATENCY,
    TS_P_UCX_BCOPY_BW,
    TS_P_UCX_RNDV_OVERHEAD,
    TS_P_CMA_OVERHEAD,
    /* ob1 over vader / tcp (--mca pml ob1) */
    TS_P_VADER_LATENCY,
    TS_P_VADER_BANDWIDTH,
    TS_P_VADER_CMA_OVERHEAD,
    TS_P_VADER_CMA_BANDWIDTH,
    TS_P_TCP_BTL_LATENCY,
    TS_P_TCP_BTL_BANDWIDTH,
    TS_P_OB1_OVERHEAD,
};
enum { NCAND = sizeof CANDIDATES / sizeof CANDIDATES[0], MAX_ROUNDS = 5 };

/* Log-scaled parameters stay inside this range (seconds or bytes/s): keeps exp() finite. */
#define LOG_MIN (-60.0)
#define LOG_MAX 60.0
/* Step of the finite differences that decide which parameters the points determine. */
#define JAC_STEP 1e-3
/* A point determines a parameter when the parameter makes at least this share of its
 * predicted value (d log prediction / d log value). This is what makes the fit piecewise:
 * the latency comes from the sizes where the latency dominates, a bandwidth from those where
 * the transfer does, and a point where neither dominates checks the model without pulling
 * a parameter towards its noise (a 1 B latency says nothing about a bandwidth). */
#define DEP_MIN 0.25
/* Below one bcopy segment (8 KiB on shared memory and IB) a bandwidth test measures the
 * message rate: per-message software costs the models do not have. Such points check the
 * model but determine nothing. */
#define BW_MIN_SIZE 8192
/* ob1's "small message" for the alltoall reading: UCX's shared-memory eager-short limit
 * (92 B, reference/ucx-protocols.md), so that both pmls read the same sizes. */
#define SMALL_MSG 92

/* One benchmark point as the fit sees it. */
typedef struct ipt_s {
    size_t series, index;
    ts_bench_kind kind;
    ts_locality loc;
    uint64_t size;
    double meas;
    int modelled; /* the models predict it */
    int blocking; /* MPI_Send-like (UCX_RNDV_SEND_NBR_THRESH applies) */
    int mult;     /* alltoall: messages in a row */
    int window;   /* bandwidth test: sends per ack */
    ts_proto proto, ack_proto;
    ts_transport transport;
} ipt_t;

/* The piecewise view: t = a + size / B over one region of one series. */
typedef struct region_fit_s {
    size_t series;
    char region[48];
    size_t n;
    double a, sa, g, sg; /* a in us, g in us per byte; s* < 0: exact fit */
    int ok;
} region_fit_t;

/* One independent group of the fit. */
typedef struct group_s {
    int nparams, dof, status;
    size_t nrows;
    double chi2;
} group_t;

struct ts_calib_s {
    const ts_bench_set_t *set;
    ts_params_t **sbase; /* per series: base + the series' settings */
    char **ignored;      /* per series: settings words not in the table (recorded only) */
    ts_calib_param_t params[NCAND];
    char why[NCAND][320];
    double jcol[NCAND]; /* largest |d residual / d log value| over the points */
    size_t npts;
    ts_calib_point_t *pts;
    ipt_t *ipts;
    double chi2;
    int dof, rounds, gsl_status;
    region_fit_t *rfits;
    size_t nrfits;
    group_t groups[NCAND];
    int ngroups, pgroup[NCAND];
    double start[NCAND]; /* values before the fit: an undetermined parameter keeps it */
    double jraw[NCAND];  /* largest share of a point's prediction, before the region rules */
    int pinned[NCAND];   /* held at its start value: 1, driven to zero by an earlier round;
                            2, fitted outside its plausible range (params/params_prior.h) */
    char implausible[NCAND][256]; /* pinned 2: the value that was refused, for the report */
};

/* ---- parameters as text --------------------------------------------------------------- */

static void fmt_value(char *buf, size_t n, double v, int is_bw, int digits);

static int cand_is_bw(int k)
{
    return ts_param_def(CANDIDATES[k])->type == TS_PT_BW;
}
static int is_reg(int k)
{
    return CANDIDATES[k] == TS_P_NET_REG_COST || CANDIDATES[k] == TS_P_NET_REG_COST_PER_BYTE;
}

/* The protocol regions in size order: eager short, bcopy, zcopy, rendezvous. */
static int region_class(ts_proto p)
{
    return p == TS_PROTO_EAGER_SHORT   ? 0
           : p == TS_PROTO_EAGER_BCOPY ? 1
           : p == TS_PROTO_EAGER_ZCOPY ? 2
                                       : 3;
}

/* Which parameters a kind of benchmark may determine. A bandwidth test's small sizes measure
 * the message rate (a per-message software cost the model does not have), not a latency; a
 * collective's small-message points stand for a per-message latency (P - 1 steps of one
 * message), their size dependence is algorithm and noise; a registration test determines
 * registration, a copy test the copy rate (UCX_BCOPY_BW, at which the models charge copies). */
static int may_determine(ts_bench_kind kind, int k)
{
    switch (kind) {
    case TS_BENCH_LATENCY:
        return 1;
    case TS_BENCH_BW:
        return cand_is_bw(k);
    case TS_BENCH_ALLTOALL:
        return !cand_is_bw(k) && !is_reg(k);
    case TS_BENCH_REG:
        return is_reg(k);
    case TS_BENCH_COPY:
        return CANDIDATES[k] == TS_P_UCX_BCOPY_BW;
    default:
        return 0;
    }
}

static double read_value(const ts_params_t *p, int k)
{
    return cand_is_bw(k) ? ts_params_bw(p, CANDIDATES[k]) : ts_params_seconds(p, CANDIDATES[k]);
}

/* Set candidate k to v, kept inside its valid range (params/params_range.h): the fit's trial
 * steps may wander outside, where the parameter parser would refuse them. */
static ts_status set_value(ts_params_t *p, int k, double v, ts_error_t *err)
{
    double lo, hi;
    if (ts_param_range(CANDIDATES[k], &lo, &hi))
        v = v < lo ? lo : v > hi ? hi : v;
    char buf[64];
    snprintf(buf, sizeof buf, cand_is_bw(k) ? "%.17gB/s" : "%.17gs", v);
    return ts_params_set(p, ts_param_def(CANDIDATES[k])->name, buf, err);
}

/* ---- predictions ---------------------------------------------------------------------- */

typedef struct models_s {
    ts_proto_model_t *reg;   /* registration charged (a buffer's first use) */
    ts_proto_model_t *noreg; /* registration cached (steady state of a benchmark loop) */
    double copy_bw, ovh_single;
} models_t;

static void models_free(models_t *m)
{
    ts_proto_model_free(m->reg);
    ts_proto_model_free(m->noreg);
    memset(m, 0, sizeof *m);
}

static ts_status models_build(const ts_params_t *p, models_t *m, ts_error_t *err)
{
    memset(m, 0, sizeof *m);
    ts_params_t *z;
    if (ts_params_copy(p, &z) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts_params_set(z, "model.net.reg_cost", "0s", err);
    if (st == TS_OK)
        st = ts_params_set(z, "model.net.reg_cost_per_byte", "0s", err);
    if (st == TS_OK)
        st = ts_proto_model_new(z, 0, &m->noreg, err);
    if (st == TS_OK)
        st = ts_proto_model_new(p, 0, &m->reg, err);
    ts_params_free(z);
    if (st != TS_OK) {
        models_free(m);
        return st;
    }
    /* The models charge copies (bcopy copy-in / copy-out) at UCX_BCOPY_BW; auto is UCX's
     * default, the table's. */
    m->copy_bw = ts_params_bw(p, TS_P_UCX_BCOPY_BW);
    if (m->copy_bw <= 0) {
        ts_params_t *d;
        if (ts_params_new(&d) == TS_OK) {
            m->copy_bw = ts_params_bw(d, TS_P_UCX_BCOPY_BW);
            ts_params_free(d);
        }
    }
    m->ovh_single = ts_params_seconds(p, TS_P_UCX_OVH_SINGLE);
    return TS_OK;
}

static ts_locality loc_of(ts_bench_loc l)
{
    return l == TS_BLOC_INTRA_SOCKET   ? TS_LOC_SAME_NUMA
           : l == TS_BLOC_CROSS_SOCKET ? TS_LOC_CROSS_SOCKET
                                       : TS_LOC_SAME_LEAF;
}

/* Decide whether the models cover q and, if so, its protocol region under m. NULL when
 * covered, else why not. */
static const char *classify(const models_t *m, const ts_bench_series_t *s, ipt_t *q)
{
    q->modelled = 0;
    if (!(q->meas > 0))
        return "a zero measurement carries no information for a relative fit";
    if (q->kind == TS_BENCH_COPY) {
        q->modelled = 1;
        return NULL;
    }
    if (q->kind == TS_BENCH_ALLREDUCE || q->kind == TS_BENCH_ALLGATHER || q->kind == TS_BENCH_BCAST)
        return "collective algorithms are modelled in models/coll, not by this fit";
    if (q->kind == TS_BENCH_ALLTOALL) {
        if (s->nodes != 1 || s->ranks < 2)
            return "alltoall over several nodes: collective algorithms are modelled in "
                   "models/coll";
        q->loc = TS_LOC_SAME_NUMA;
        q->blocking = 0;
        q->mult = s->ranks - 1;
    } else {
        if (s->loc == TS_BLOC_UNKNOWN)
            return "the header does not say where the two ranks sit (add '# tunesim-probe: "
                   "locality=...')";
        q->loc = loc_of(s->loc);
        /* OSU latency and IMB PingPong send with MPI_Send; OSU bw with MPI_Isend. */
        q->blocking = q->kind != TS_BENCH_BW;
        q->window = s->window > 0 ? s->window : 64;
    }
    if (ts_proto_model_check(m->reg, q->loc, NULL) != TS_OK)
        return "UCX_TLS of its settings leaves no transport for this pair";
    ts_msg_plan_t pl;
    ts_proto_plan(m->reg, q->size, q->loc, q->blocking, &pl);
    q->proto = pl.proto;
    q->transport = pl.transport;
    if (q->kind == TS_BENCH_BW) {
        ts_proto_plan(m->reg, 4, q->loc, 1, &pl);
        q->ack_proto = pl.proto;
    }
    /* ob1 has no eager-short protocol: its small messages are eager copy-in / copy-out. */
    int ob1_eager = q->proto == TS_PROTO_EAGER_BCOPY &&
                    (q->transport == TS_TR_VADER || q->transport == TS_TR_TCP_BTL) &&
                    q->size <= SMALL_MSG;
    if (q->kind == TS_BENCH_ALLTOALL && q->proto != TS_PROTO_EAGER_SHORT && !ob1_eager)
        return "alltoall beyond the eager-short region: collective algorithms are modelled "
               "in models/coll";
    q->modelled = 1;
    return NULL;
}

static void region_name(const ipt_t *q, char *buf, size_t n)
{
    if (q->kind == TS_BENCH_COPY)
        snprintf(buf, n, "memcpy");
    else
        snprintf(buf, n, "%s%s/%s", q->kind == TS_BENCH_ALLTOALL ? "alltoall " : "",
                 ts_proto_name(q->proto), ts_transport_name(q->transport));
}

/* The predicted value of q (us or MB/s), or < 0 when the region does not exist there. */
static double predict(const models_t *m, const ipt_t *q)
{
    double t, t0, ack;
    switch (q->kind) {
    case TS_BENCH_COPY:
        return m->copy_bw / 1e6;
    case TS_BENCH_LATENCY:
        t = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        return t < 0 ? -1 : t * 1e6;
    case TS_BENCH_ALLTOALL:
        /* Pairwise exchange: P - 1 dependent steps of one message each. */
        t = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        return t < 0 ? -1 : q->mult * t * 1e6;
    case TS_BENCH_REG:
        t = ts_proto_cost(m->reg, q->proto, q->size, q->loc);
        t0 = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        return t < 0 || t0 < 0 ? -1 : (t - t0) * 1e6;
    case TS_BENCH_BW:
        /* A window of W sends, then a 4-byte ack: the first message takes its whole time,
         * each further one adds its size-dependent part (the pipeline's step), the ack one
         * small message. */
        t = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        t0 = ts_proto_cost(m->noreg, q->proto, 0, q->loc);
        ack = ts_proto_cost(m->noreg, q->ack_proto, 4, q->loc);
        if (t < 0 || ack < 0)
            return -1;
        if (t0 < 0)
            t0 = 0;
        {
            double gap = t - t0 + m->ovh_single;
            double total = (q->window - 1) * gap + t + ack;
            return total > 0 ? (double)q->window * (double)q->size / total / 1e6 : -1;
        }
    default:
        return -1;
    }
}

/* Apply the series' settings line ("KEY=VALUE ...") to p; unknown keys go to *ignored. */
static ts_status apply_settings(const ts_bench_series_t *s, ts_params_t *p, char **ignored,
                                ts_error_t *err)
{
    *ignored = NULL;
    if (!s->settings)
        return TS_OK;
    char *buf = strdup(s->settings);
    if (!buf)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    size_t len = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && st == TS_OK;
         w = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(w, '=');
        if (eq)
            *eq = '\0';
        if (!eq || ts_param_find(w) < 0) {
            if (eq)
                *eq = '=';
            char *n = realloc(*ignored, len + strlen(w) + 2);
            if (!n) {
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
                break;
            }
            *ignored = n;
            len += (size_t)sprintf(n + len, "%s%s", len ? " " : "", w);
            continue;
        }
        ts_error_t e2;
        ts_error_clear(&e2);
        if (ts_params_set(p, w, eq + 1, &e2) != TS_OK)
            st = ts_error_set(err, TS_EARG, "%s:%d: settings: %s", s->file, s->line, e2.msg);
    }
    free(buf);
    return st;
}

ts_status ts_calib_predict(const ts_params_t *p, const ts_bench_series_t *s, size_t i,
                           double *value, char *region, size_t region_len, ts_error_t *err)
{
    *value = -1;
    if (region_len)
        region[0] = '\0';
    if (i >= s->npoints)
        return ts_error_set(err, TS_EARG, "%s: no point %zu", s->file, i);
    ts_params_t *q;
    if (ts_params_copy(p, &q) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    char *ignored = NULL;
    models_t m = {0};
    ts_status st = apply_settings(s, q, &ignored, err);
    free(ignored);
    if (st == TS_OK)
        st = models_build(q, &m, err);
    if (st == TS_OK) {
        ipt_t pt = {.kind = s->kind, .size = s->points[i].size, .meas = s->points[i].value};
        if (!(pt.meas > 0))
            pt.meas = 1; /* a prediction does not need the measurement */
        const char *why = classify(&m, s, &pt);
        if (why) {
            st = ts_error_set(err, TS_EARG, "%s:%d: not predicted: %s", s->file, s->points[i].line,
                              why);
        } else {
            *value = predict(&m, &pt);
            region_name(&pt, region, region_len);
        }
    }
    models_free(&m);
    ts_params_free(q);
    return st;
}

/* ---- the fit -------------------------------------------------------------------------- */

typedef struct fitctx_s {
    ts_calib_t *c;
    int nact, act[NCAND];
    size_t nrows, *rows; /* indices into ipts */
    ts_status st;
    ts_error_t *err;
} fitctx_t;

/* Predictions of every modelled point with candidate k at values[k]; pred[i] < 0 where a
 * region does not exist at these values. */
static ts_status predict_all(ts_calib_t *c, const double *values, double *pred, ts_error_t *err)
{
    for (size_t s = 0; s < c->set->nseries; s++) {
        int any = 0;
        for (size_t i = 0; i < c->npts && !any; i++)
            any = c->ipts[i].series == s && c->ipts[i].modelled;
        if (!any)
            continue;
        ts_params_t *p;
        if (ts_params_copy(c->sbase[s], &p) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        ts_status st = TS_OK;
        for (int k = 0; k < NCAND && st == TS_OK; k++)
            st = set_value(p, k, values[k], err);
        models_t m;
        if (st == TS_OK)
            st = models_build(p, &m, err);
        ts_params_free(p);
        if (st != TS_OK)
            return st;
        for (size_t i = 0; i < c->npts; i++)
            if (c->ipts[i].series == s && c->ipts[i].modelled)
                pred[i] = predict(&m, &c->ipts[i]);
        models_free(&m);
    }
    return TS_OK;
}

static double rel_resid(double pred, double meas)
{
    /* A region that vanished counts as a 1000 % miss, so the fit steers away from it. */
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
    fc->st = predict_all(c, values, scratch, fc->err);
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
        int info;
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
    ts_status st = predict_all(c, values, mid, err);
    for (int k = 0; k < NCAND && st == TS_OK; k++) {
        double v = values[k];
        values[k] = v * exp(JAC_STEP);
        st = predict_all(c, values, hi, err);
        values[k] = v * exp(-JAC_STEP);
        if (st == TS_OK)
            st = predict_all(c, values, lo, err);
        values[k] = v;
        for (size_t i = 0; i < n && st == TS_OK; i++) {
            /* The parameter's share of the prediction: d log prediction / d log value. */
            double d = 0;
            if (c->ipts[i].modelled && mid[i] > 0 && hi[i] >= 0 && lo[i] >= 0 &&
                may_determine(c->ipts[i].kind, k) &&
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

/* Each candidate to the protocol region where it dominates most (c->jcol). */
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
                int cls = region_class(q->proto);
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
                (fabs(best[cls] - best[owner]) <= 1e-9 && cand_is_bw(k)))
                owner = cls;
        }
        for (size_t i = 0; i < n && owner >= 0; i++) {
            const ipt_t *q = &c->ipts[i];
            if ((q->kind == TS_BENCH_LATENCY || q->kind == TS_BENCH_BW) &&
                region_class(q->proto) != owner)
                jac[i * NCAND + k] = 0;
        }
        /* A collective is read through an assumed algorithm: it determines a latency only
         * where no ping-pong measures it directly. */
        if (owner >= 0)
            for (size_t i = 0; i < n; i++)
                if (c->ipts[i].kind == TS_BENCH_ALLTOALL)
                    jac[i * NCAND + k] = 0;
        c->jcol[k] = 0;
        for (size_t i = 0; i < n; i++)
            c->jcol[k] = jac[i * NCAND + k] > c->jcol[k] ? jac[i * NCAND + k] : c->jcol[k];
    }
}

/* The fit's rows: modelled points that some candidate moves. */
static void select_rows(const ts_calib_t *c, const double *jac, fitctx_t *fc)
{
    size_t n = c->npts;
    fc->nrows = 0;
    for (size_t i = 0; i < n; i++) {
        int dep = 0;
        for (int k = 0; k < NCAND && c->ipts[i].modelled; k++)
            dep |= fabs(jac[i * NCAND + k]) > DEP_MIN;
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

/* Which candidates the modelled points determine: finite differences of every point's
 * residual in each log value. Fills c->jcol, the rows that depend on something, and the
 * active set (independent columns, in preference order). */
static ts_status identify(ts_calib_t *c, fitctx_t *fc, double **jac_out, ts_error_t *err)
{
    size_t n = c->npts;
    double *jac = calloc(n * NCAND + 2 * n + 1, sizeof(double));
    if (!jac)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = jac_shares(c, jac, err);
    if (st == TS_OK) {
        keep_dominant(c, jac);
        assign_regions(c, jac);
        select_rows(c, jac, fc);
        st = select_columns(c, jac, fc, err);
    }
    if (st != TS_OK) {
        free(jac);
        return st;
    }
    *jac_out = jac;
    return TS_OK;
}

/* The piecewise view of one series: per region, t = a + g * size fitted on its points. */
typedef struct linctx_s {
    const double *s, *t;
    size_t n;
} linctx_t;

static int lin_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    const linctx_t *l = params;
    for (size_t i = 0; i < l->n; i++)
        gsl_vector_set(f, i, (gsl_vector_get(x, 0) + gsl_vector_get(x, 1) * l->s[i]) / l->t[i] - 1);
    return GSL_SUCCESS;
}

static void region_fit(region_fit_t *rf, const double *s, const double *t, size_t n)
{
    rf->n = n;
    rf->ok = 0;
    linctx_t l = {s, t, n};
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, 2);
    gsl_vector *x0 = gsl_vector_alloc(2);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    if (w && x0 && cov) {
        gsl_multifit_nlinear_fdf fdf = {.f = lin_f, .n = n, .p = 2, .params = &l};
        double smax = s[n - 1] > 0 ? s[n - 1] : 1;
        gsl_vector_set(x0, 0, t[0]);
        gsl_vector_set(x0, 1, (t[n - 1] - t[0]) / smax);
        int info;
        if (gsl_multifit_nlinear_init(x0, &fdf, w) == GSL_SUCCESS) {
            gsl_multifit_nlinear_driver(500, 1e-8, 6e-6, 0.0, NULL, NULL, &info, w);
            const gsl_vector *xs = gsl_multifit_nlinear_position(w);
            double fn = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
            gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
            rf->a = gsl_vector_get(xs, 0);
            rf->g = gsl_vector_get(xs, 1);
            double var = n > 2 ? fn * fn / (double)(n - 2) : -1;
            rf->sa = var >= 0 ? sqrt(gsl_matrix_get(cov, 0, 0) * var) : -1;
            rf->sg = var >= 0 ? sqrt(gsl_matrix_get(cov, 1, 1) * var) : -1;
            rf->ok = 1;
        }
    }
    gsl_matrix_free(cov);
    gsl_vector_free(x0);
    gsl_multifit_nlinear_free(w);
}

static ts_status piecewise(ts_calib_t *c, ts_error_t *err)
{
    for (size_t s = 0; s < c->set->nseries; s++) {
        if (c->set->series[s].kind != TS_BENCH_LATENCY)
            continue;
        for (size_t i = 0; i < c->npts; i++) {
            const ts_calib_point_t *pi = &c->pts[i];
            if (c->ipts[i].series != s || !c->ipts[i].modelled)
                continue;
            int seen = 0; /* a region is fitted at its first point */
            for (size_t j = 0; j < i && !seen; j++)
                seen = c->ipts[j].series == s && c->ipts[j].modelled &&
                       strcmp(c->pts[j].region, pi->region) == 0;
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
            for (size_t j = i; j < c->npts; j++)
                if (c->ipts[j].series == s && c->ipts[j].modelled &&
                    strcmp(c->pts[j].region, pi->region) == 0) {
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

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* For each fitted parameter: "N points: file (regions), ..." from the final Jacobian. */
static ts_status describe_sources(ts_calib_t *c, const double *jac, ts_error_t *err)
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
            const char *f = base_name(c->pts[i].series->file);
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
        c->params[k].is_bw = cand_is_bw(k);
        c->params[k].value = read_value(base, k);
        if (c->params[k].value <= 0) /* UCX_BCOPY_BW=auto: UCX's default, as protocol.c does */
            c->params[k].value = read_value(defaults, k);
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
        if (ts_params_copy(base, &c->sbase[s]) != TS_OK) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        st = apply_settings(sr, c->sbase[s], &c->ignored[s], err);
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
            st = set_value(p, k, values[k], err);
        models_t m;
        if (st == TS_OK && (st = models_build(p, &m, err)) == TS_OK) {
            for (size_t i = 0; i < c->npts; i++) {
                if (c->ipts[i].series != s)
                    continue;
                ipt_t before = c->ipts[i];
                const char *why = classify(&m, &c->set->series[s], &c->ipts[i]);
                c->pts[i].why_not = why;
                c->pts[i].region[0] = '\0';
                if (!why)
                    region_name(&c->ipts[i], c->pts[i].region, sizeof c->pts[i].region);
                *changed |= before.proto != c->ipts[i].proto ||
                            before.transport != c->ipts[i].transport ||
                            before.modelled != c->ipts[i].modelled;
            }
            models_free(&m);
        }
        ts_params_free(p);
    }
    return st;
}

/* Final predictions and residuals at the fitted values, and why each point not fitted is
 * not. */
static ts_status calib_finish_points(ts_calib_t *c, const fitctx_t *fc, ts_error_t *err)
{
    ts_status st;
    double values[NCAND], *pred = calloc(c->npts + 1, sizeof(double));
    if (!pred)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int k = 0; k < NCAND; k++)
        values[k] = c->params[k].value;
    for (size_t i = 0; i < c->npts; i++)
        pred[i] = -1;
    st = predict_all(c, values, pred, err);
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
        if (c->ipts[i].kind == TS_BENCH_ALLTOALL)
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
    c->pts = calloc(n + 1, sizeof *c->pts);
    c->ipts = calloc(n + 1, sizeof *c->ipts);
    fitctx_t fc = {.c = c, .rows = calloc(n + 1, sizeof(size_t)), .err = err};
    double *jac = NULL;
    if (!c->sbase || !c->ignored || !c->pts || !c->ipts || !fc.rows) {
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
        force_round = 0;
        free(jac);
        jac = NULL;
        if ((st = identify(c, &fc, &jac, err)) != TS_OK)
            break;
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
            if (cp->determined && cp->value < c->start[k] * 1e-6) {
                c->pinned[k] = 1;
                cp->value = c->start[k];
                pinned = 1;
            } else if (cp->determined && ts_param_prior(CANDIDATES[k], &lo, &hi, NULL) &&
                       (cp->value < lo || cp->value > hi)) {
                /* A value no physical figure allows says the points are fitted through the
                 * wrong mechanism: it is not shipped as physics; the default stays. */
                char v[48], e[48], pr[64];
                fmt_value(v, sizeof v, cp->value, cp->is_bw, 5);
                fmt_value(e, sizeof e, cp->stderr_value, cp->is_bw, 3);
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
    st = calib_finish_points(c, &fc, err);
    if (st == TS_OK)
        st = describe_sources(c, jac, err);
    if (st == TS_OK)
        st = piecewise(c, err);
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

static void fmt_value(char *buf, size_t n, double v, int is_bw, int digits)
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
    fmt_value(v, 48, cp->value, cp->is_bw, 5);
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
        fmt_value(v, sizeof v, cp->value, cp->is_bw, 5);
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
            snprintf(where, sizeof where, "%s:%d", base_name(s->file), s->line);
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
        snprintf(where, sizeof where, "%s:%d", base_name(s->file), s->points[pt->index].line);
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
                    base_name(c->set->series[s].file), c->set->series[s].line, c->ignored[s]);
}

ts_status ts_calib_model(const ts_calib_t *c, const char *platform, const char *created_from,
                         ts_model_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_model_t *m = ts_model_new(platform, created_from);
    if (!m)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    char note[512];
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
        fmt_value(v, sizeof v, cp->value, cp->is_bw, 5);
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
