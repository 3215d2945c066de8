/* calibrate_int.h - private to the calibration fit (calibrate*.c): its shared state, functions. */

/* Included by nothing else: the fit's interface is calibrate.h. Its files: calibrate_predict.c
 * (points -> the models' predictions), calibrate_identify.c (which parameters the points determine;
 * the per-region view), calibrate.c (the fit and its rounds), calibrate_report.c (report and model
 * file). */
#ifndef TS_CALIBRATE_INT_H
#define TS_CALIBRATE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../models/protocol.h"
#include "calibrate.h"

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
    TS_P_UCX_RNDV_WRITTEN_COST,
    TS_P_UCX_RNDV_BUSY_COST,
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
enum { NCAND = sizeof CANDIDATES / sizeof CANDIDATES[0] };

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
/* Where a candidate is a cost the models leave at 0 unless measured (cal_cand_is_kind_cost), the
 * fit starts from this many seconds: the fit moves values by factors, which 0 has none of. */
#define SEED_OFF 1e-6

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
    size_t *sfirst;      /* per series and one more: its first point (points are by series) */
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
    int off[NCAND];      /* a cost that is 0 (off) unless measured: fitted from SEED_OFF,
                          * and back to 0 where no point determines it */
    double jraw[NCAND];  /* largest share of a point's prediction, before the region rules */
    int pinned[NCAND];   /* held at its start value: 1, driven to zero by an earlier round;
                            2, fitted outside its plausible range (params/params_prior.h) */
    char implausible[NCAND][256]; /* pinned 2: the value that was refused, for the report */
};

typedef struct models_s {
    ts_proto_model_t *reg;   /* registration charged (a buffer's first use) */
    ts_proto_model_t *noreg; /* registration cached (steady state of a benchmark loop) */
    double copy_bw, ovh_single;
} models_t;

typedef struct fitctx_s {
    ts_calib_t *c;
    int nact, act[NCAND];
    size_t nrows, *rows; /* indices into ipts */
    ts_status st;
    ts_error_t *err;
} fitctx_t;

/* The file name of a path, for sources and reports. */
static inline const char *cal_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- calibrate_predict.c ----------------------------------------------------------------- */

/* Candidate k is a bandwidth (bytes/s), else a time (seconds). */
int cal_cand_is_bw(int k);
/* The protocol regions in size order: eager short 0, bcopy 1, zcopy 2, rendezvous 3. */
int cal_region_class(ts_proto p);
/* The cost a probe test of that kind measures alone (the written-buffer and busy-receiver
 * tests), or TS_P__COUNT; and whether candidate k is one of those costs, which are off (0) in
 * the table until measured. */
ts_param_id cal_kind_cost(ts_bench_kind kind);
int cal_cand_is_kind_cost(int k);
/* Whether a kind of benchmark may determine candidate k. */
int cal_may_determine(ts_bench_kind kind, int k);
double cal_read_value(const ts_params_t *p, int k);
/* Set candidate k to v, kept inside its valid range. */
ts_status cal_set_value(ts_params_t *p, int k, double v, ts_error_t *err);
ts_status cal_models_build(const ts_params_t *p, models_t *m, ts_error_t *err);
void cal_models_free(models_t *m);
/* Whether the models cover q and, if so, its protocol region under m: NULL when covered,
 * else why not. */
const char *cal_classify(const models_t *m, const ts_bench_series_t *s, ipt_t *q);
void cal_region_name(const ipt_t *q, char *buf, size_t n);
/* The predicted value of q (us or MB/s), or < 0 when the region does not exist there. */
double cal_predict(const models_t *m, const ipt_t *q);
/* Apply the series' settings line ("KEY=VALUE ...") to p; unknown keys go to *ignored. */
ts_status cal_apply_settings(const ts_bench_series_t *s, ts_params_t *p, char **ignored,
                             ts_error_t *err);

/* ---- calibrate.c ---------------------------------------------------------------------------- */

/* Predictions of every modelled point with candidate k at values[k]; pred[i] < 0 where a
 * region does not exist at these values. */
ts_status cal_predict_all(ts_calib_t *c, const double *values, double *pred, ts_error_t *err);

/* ---- calibrate_identify.c ------------------------------------------------------------------- */

/* Which candidates the modelled points determine: fills c->jcol, fc's rows and active set, and
 * *jac_out with the points' shares. */
ts_status cal_identify(ts_calib_t *c, fitctx_t *fc, double **jac_out, ts_error_t *err);
/* The fit's rows and active set from a Jacobian cal_identify made, again: after a parameter
 * was pinned, the rest are fitted again as they were identified. */
ts_status cal_select(ts_calib_t *c, fitctx_t *fc, const double *jac, ts_error_t *err);
/* The piecewise view: t = a + size / B per region of each series (c->rfits). */
ts_status cal_piecewise(ts_calib_t *c, ts_error_t *err);
/* Each fitted parameter's points, files and regions (its sources). */
ts_status cal_describe_sources(ts_calib_t *c, const double *jac, ts_error_t *err);

/* ---- calibrate_report.c --------------------------------------------------------------------- */

/* A value in the unit users read, digits significant digits. */
void cal_fmt_value(char *buf, size_t n, double v, int is_bw, int digits);

#endif
