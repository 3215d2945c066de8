/* fit_impl.h - private to tunesim fit: the fit's state, which fit_cmd.c (the options, the
 * measured runs and profiles, the command), fit_eval.c (one evaluation of the model: the sets
 * replayed in workers) and fit_report.c (the printed report and the model file written) share.
 * Nothing else includes it. */
#ifndef TS_FIT_IMPL_H
#define TS_FIT_IMPL_H

#include <stdio.h>

#include "../calibration/fit.h"
#include "../common/status.h"
#include "../params/params.h"
#include "../platforms/placement.h"
#include "../sim/replay_job.h"
#include "../traces/scorep_score.h"
#include "../validation/measured.h"
#include "sets.h"

/* A function constrains the fit when it holds at least this share of the first set's
 * profiled MPI time: smaller ones are noise against Score-P's own cost. */
#define FIT_FUNC_SHARE       0.05
#define FIT_MAX_RUN_PROFILES 64
#define FIT_MAX_FUNCS        8
/* A measured run whose fitted time stays further than this many standard deviations from its
 * measurement is not explained by the model. */
#define FIT_UNEXPLAINED_SD 3.0
/* The repeats of one setting may differ by at most this factor: beyond it half their spread,
 * the measurement's standard deviation, would let any prediction explain them. Runs of one
 * setting on a cluster differ by a few per cent (the seed's asis: 0.7 %); on this project's
 * noisy 2-core machine one recording took 49 % longer than the least of four
 * (docs/recording-noise.md). */
#define FIT_MAX_REPEAT_RATIO 2.0

typedef struct fit_opts_s {
    const char *trace, *sets, *platform, *profile, *out, *params, *free, *model;
    const char *measured_csv, *measured_dir, *manifest;
    const char *run_profile[FIT_MAX_RUN_PROFILES];
    int nrun_profiles;
    ts_placement_opts_t place;
    double time_sd_pct, func_sd_pct;
    int jobs;
} fit_opts_t;

/* One set of the sets file. */
typedef struct fset_s {
    const char *name;
    ts_params_t *params; /* the command line's settings, then the set's */
    ts_job_opts_t jo;
    ts_runstats_t meas; /* measured (meas.n > 0) */
    int out;            /* its run time's index among the outputs */
    ts_score_t *own;    /* its own profile (--run-profile), or NULL */
    const char *own_path;
} fset_t;

/* A per-function constraint: how set's time in func changes against the first set's. */
typedef struct fcons_s {
    int set;
    int func;   /* index into fit_t.funcs */
    double obs; /* the profiles' relative change */
} fcons_t;

typedef struct fit_s {
    fit_opts_t o;
    ts_job_trace_t *jt;
    ts_score_t *profile; /* the first set's: scales every set to the full run */
    int win_iterations;
    ts_sets_t *sets;
    fset_t *s;
    int n;
    ts_measured_t *m;
    int np;
    ts_param_id ids[32];
    unsigned char flat[32]; /* ids[j] named by --free: fitted with a flat prior */
    ts_fit_param_t fp[32];
    char fp_names[32][64];
    fcons_t cons[FIT_MAX_RUN_PROFILES * FIT_MAX_FUNCS];
    int ncons;
    const char *funcs[FIT_MAX_FUNCS]; /* the constrained functions (the first set's profile) */
    int nfuncs;
    int nmeas, nout;
    int all; /* every set replayed (else only those the fit observes: the first, the measured
              * and the profiled ones) */
    /* The batch being evaluated: npts points, each replayed for every set. */
    const double *bx;
    double *btotal; /* [point * n + set] */
    double *bfunc;  /* [(point * n + set) * nfuncs + k], per rank */
} fit_t;

/* The solver's evaluator (ts_fit_problem_t.eval): every set (or only those the fit observes,
 * until all_outputs asks for all) replayed at each of npts points into y. */
ts_status ts__fit_eval(void *ctx, int npts, const double *x, double *y, ts_error_t *err);
/* ts_fit_problem_t.all_outputs: whether the next evaluations replay every set. */
void ts__fit_all_outputs(void *ctx, int all);

/* Whether fitted value v of parameter j lies outside its prior range. */
int ts__fit_outside_prior(const fit_t *f, int j, double v);
/* The fit's tables (parameters, measured runs, profile changes, unmeasured sets) on fp. */
void ts__fit_print_report(const fit_t *f, const ts_fit_result_t *r, const double *obs,
                          const double *sd, FILE *fp);
/* The model file -o: the --model file's unfitted parameters, then the fitted ones. */
ts_status ts__fit_write_model(const fit_t *f, const ts_fit_result_t *r, ts_error_t *err);

#endif
