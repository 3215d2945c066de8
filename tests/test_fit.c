/* test_fit.c - `tunesim fit` and its solver (calibration/fit.h): a linear model whose
 * answer and covariance are known in closed form; synthetic runs of the bundled 2-rank trace
 * replayed with known "true" parameters, which the fit must recover within its stated
 * uncertainty; and bad input, each refused with one line and no model written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibration/fit.h"
#include "testutil.h"

/* y = A x for a fixed 3 x 2 A; the fourth output (2 x0 + x1) is a prediction only. */
static ts_status lin_eval(void *ctx, int npts, const double *x, double *y, ts_error_t *err)
{
    (void)err;
    int *calls = ctx;
    *calls += npts;
    for (int p = 0; p < npts; p++) {
        const double *a = x + 2 * p;
        double *o = y + 4 * p;
        o[0] = a[0] + a[1];
        o[1] = a[0] - a[1];
        o[2] = 2 * a[0];
        o[3] = 2 * a[0] + a[1];
    }
    return TS_OK;
}

static void test_linear(void)
{
    /* True x = (3, 1); observations exact, sd 0.1; priors wide (sd 100) and far off (0, 0). */
    ts_fit_param_t prm[2] = {{"a", 0, 100, -1e9, 1e9, 0.5, 0}, {"b", 0, 100, -1e9, 1e9, 0.5, 0}};
    double obs[3] = {4, 2, 6}, sd[3] = {0.1, 0.1, 0.1};
    int calls = 0;
    ts_fit_problem_t p = {.np = 2,
                          .nobs = 3,
                          .nout = 4,
                          .params = prm,
                          .obs = obs,
                          .obs_sd = sd,
                          .eval = lin_eval,
                          .ctx = &calls};
    ts_fit_result_t r;
    ts_error_t err;
    ts_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(ts_fit_solve(&p, &r, &err), TS_OK);
    /* The prior pulls by (sd_obs / sd_prior)^2 = 1e-6: invisible at this tolerance. */
    CU_ASSERT_DOUBLE_EQUAL(r.x[0], 3, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(r.x[1], 1, 1e-4);
    /* Covariance (A^T A / 0.01)^-1: A^T A = [[6, 0], [0, 2]], so sd a = 0.1 / sqrt(6), sd b =
     * 0.1 / sqrt(2); the prediction 2a + b has variance 4 var(a) + var(b). */
    CU_ASSERT_DOUBLE_EQUAL(r.sd[0], 0.1 / sqrt(6), 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(r.sd[1], 0.1 / sqrt(2), 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(r.y[3], 7, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(r.y_sd[3], sqrt(4 * 0.01 / 6 + 0.01 / 2), 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(r.y0[0], 0, 1e-12);
    CU_ASSERT_TRUE(r.converged);
    CU_ASSERT_EQUAL(r.evaluations, calls); /* each point once */
    ts_fit_result_free(&r);

    /* Without observations the prior alone: x stays at its centre with the prior's sd. */
    p.nobs = 0;
    CU_ASSERT_EQUAL_FATAL(ts_fit_solve(&p, &r, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.x[0], 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.sd[0], 100, 1e-6);
    ts_fit_result_free(&r);
    /* Leave-one-out's mask: the first observation alone cannot separate a from b; with the
     * prior (sd 100) both move to share it: a = b = 2. */
    p.nobs = 3;
    unsigned char use[3] = {1, 0, 0};
    p.use = use;
    CU_ASSERT_EQUAL_FATAL(ts_fit_solve(&p, &r, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.x[0], 2, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(r.x[1], 2, 1e-3);
    ts_fit_result_free(&r);

    /* A narrow prior far from the truth (sd 0.01 around 0) holds the parameters: the normal
     * equations (100 A^T A + 10^4 I) x = 100 A^T obs, A^T obs = (18, 2), give x = (1800 /
     * 10600, 200 / 10200). Free (--free), the prior pulls a hundredth as hard, (100 A^T A + I)
     * x = 100 A^T obs: x = (1800 / 601, 200 / 201), next to the truth (3, 1). */
    p.use = NULL;
    prm[0].prior_sd = prm[1].prior_sd = 0.01;
    prm[0].step = prm[1].step = 1e-4;
    CU_ASSERT_EQUAL_FATAL(ts_fit_solve(&p, &r, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.x[0], 1800.0 / 10600, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(r.x[1], 200.0 / 10200, 1e-5);
    ts_fit_result_free(&r);
    prm[0].flat = prm[1].flat = 1;
    CU_ASSERT_EQUAL_FATAL(ts_fit_solve(&p, &r, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.x[0], 1800.0 / 601, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(r.x[1], 200.0 / 201, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(r.chi2_prior, (r.x[0] * r.x[0] + r.x[1] * r.x[1]), 1e-6);
    ts_fit_result_free(&r);
}

#define TRUE_SET "--set model.ucx.rndv_overhead=1.5us --set model.ucx.recv_call=0.2us"
#define PLACE    "--nodes 2 --ppn 1"

static const char SETS[] = "[a]\n"
                           "[b]\n-x UCX_RNDV_THRESH=0b\n"
                           "[c]\n-x UCX_RNDV_THRESH=64b\n"
                           "[d]\n-x UCX_RNDV_THRESH=1kb\n";
static const char *const SETTING[] = {"", "-x UCX_RNDV_THRESH=0b", "-x UCX_RNDV_THRESH=64b",
                                      "-x UCX_RNDV_THRESH=1kb"};

/* The replay's predicted time of one set with extra settings. */
static double replay_time(const char *setting, const char *extra)
{
    char args[1024], *out = NULL;
    snprintf(args, sizeof args, "replay %s " PLACE " %s %s --json", tu_bundled(), setting, extra);
    double t = -1;
    if (tu_run_cli(args, &out, NULL) == 0 && out) {
        const char *p = strstr(out, "\"predicted_time_s\":");
        if (p)
            t = strtod(p + strlen("\"predicted_time_s\":"), NULL);
    }
    free(out);
    return t;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
}

/* A parameter's value and stderr (seconds) in a model file. */
static int model_value(const char *xml, const char *name, double *v, double *sd)
{
    char key[128];
    snprintf(key, sizeof key, "name=\"%s\" value=\"", name);
    const char *p = strstr(xml, key);
    if (!p)
        return 0;
    *v = strtod(p + strlen(key), NULL);
    const char *e = strstr(p, "stderr=\"");
    *sd = e ? strtod(e + 8, NULL) : -1;
    return 1;
}

static void test_recovers(void)
{
    const char *sets = tu_path("fit.sets"), *csv = tu_path("fit.csv"), *out = tu_path("fit.xml");
    write_text(sets, SETS);
    char text[512] = "setting,seconds\n";
    double truth[4];
    for (int i = 0; i < 4; i++) {
        truth[i] = replay_time(SETTING[i], TRUE_SET);
        CU_ASSERT_FATAL(truth[i] > 0);
        if (i < 3) /* d is left unmeasured: predicted with an interval */
            snprintf(text + strlen(text), sizeof text - strlen(text), "%c,%.9f\n", 'a' + i,
                     truth[i]);
    }
    write_text(csv, text);
    char args[2048], *o = NULL, *e = NULL;
    /* The replays are exact: a spread of 0.01 % stands for a well-repeated measurement. */
    snprintf(args, sizeof args,
             "fit %s --sets %s --measured-csv %s " PLACE
             " --params model.ucx.rndv_overhead,model.ucx.recv_call --time-sd 0.01 -j 2 -o %s",
             tu_bundled(), sets, csv, out);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    char *xml = tu_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
    double v, sd;
    /* Started from 0.745 us and 0.3 us: each true value within two of its standard errors,
     * and each standard error well inside the prior's (the runs determine both). */
    CU_ASSERT_TRUE(model_value(xml, "model.ucx.rndv_overhead", &v, &sd));
    CU_ASSERT(fabs(v - 1.5e-6) <= 2 * sd && sd > 0 && sd < (2.0e-6 - 0.3e-6) / 4 / 2);
    CU_ASSERT_TRUE(model_value(xml, "model.ucx.recv_call", &v, &sd));
    CU_ASSERT(fabs(v - 0.2e-6) <= 2 * sd && sd > 0 && sd < (0.41e-6 - 0.16e-6) / 4 / 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(xml, "tunesim fit of the measured runs a, b, c"));
    /* The unmeasured set d: predicted within 3 of its propagated standard deviations of the
     * truth (the report's row: name, before, fitted, +-, less time). */
    const char *row = o ? strstr(o, "\nd ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    double before, fitted, psd;
    CU_ASSERT_EQUAL(sscanf(row + 2, "%lf %lf %lf", &before, &fitted, &psd), 3);
    CU_ASSERT(fabs(fitted - truth[3]) <= 3 * psd + 1e-9);
    CU_ASSERT(fabs(fitted - truth[3]) < fabs(before - truth[3]));
    CU_ASSERT_PTR_NOT_NULL(o ? strstr(o, "leave-one-out") : NULL);
    /* The model file takes: replay with it gives the fitted prediction of d (printed to six
     * digits). */
    char extra[1200];
    snprintf(extra, sizeof extra, "--model %s", out);
    double with = replay_time(SETTING[3], extra);
    CU_ASSERT_DOUBLE_EQUAL(with, fitted, 1e-5 * fitted);
    if (fabs(with - fitted) > 1e-5 * fitted)
        fprintf(stderr, "\nreplay --model %s: %.9g s, fit said %.9g s\n", out, with, fitted);
    free(xml);
    free(o);
    free(e);
}

/* A true value far outside its prior (the rendezvous handshake at 6 us; prior 0.3-2 us around
 * 0.745 us), the runs "measured" to 1 %: held by the prior, the fit cannot explain them
 * (run b 5.8 sd off) and writes nothing; with --free it recovers the value (5.999 +- 0.456 us)
 * and labels it as outside the plausible range. */
static void test_free(void)
{
    const char *sets = tu_path("free.sets"), *csv = tu_path("free.csv"), *out = tu_path("free.xml");
    write_text(sets, SETS);
    char text[512] = "setting,seconds\n";
    for (int i = 0; i < 3; i++) {
        double t = replay_time(SETTING[i], "--set model.ucx.rndv_overhead=6us");
        CU_ASSERT_FATAL(t > 0);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%c,%.9f\n", 'a' + i, t);
    }
    write_text(csv, text);
    char args[2048], *o = NULL, *e = NULL;
    const char *common = "--params model.ucx.rndv_overhead --time-sd 1 -j 2";
    snprintf(args, sizeof args, "fit %s --sets %s --measured-csv %s " PLACE " %s -o %s",
             tu_bundled(), sets, csv, common, out);
    unlink(out);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 1);
    CU_ASSERT_PTR_NOT_NULL(e ? strstr(e, "is not explained") : NULL);
    CU_ASSERT_EQUAL(access(out, F_OK), -1);
    free(o);
    free(e);
    o = e = NULL;
    snprintf(args, sizeof args,
             "fit %s --sets %s --measured-csv %s " PLACE " %s --free model.ucx.rndv_overhead -o %s",
             tu_bundled(), sets, csv, common, out);
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    CU_ASSERT_PTR_NOT_NULL(e ? strstr(e, "model.ucx.rndv_overhead fitted to") : NULL);
    CU_ASSERT_PTR_NOT_NULL(o ? strstr(o, "free, OUTSIDE its prior range") : NULL);
    char *xml = tu_read_file(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
    double v, sd;
    CU_ASSERT_TRUE(model_value(xml, "model.ucx.rndv_overhead", &v, &sd));
    CU_ASSERT(fabs(v - 6e-6) <= 2 * sd && sd > 0 && sd < 1e-6);
    if (!(fabs(v - 6e-6) <= 2 * sd))
        fprintf(stderr, "\nfree fit: %.6g +- %.3g, truth 6e-6\n", v, sd);
    CU_ASSERT_PTR_NOT_NULL(strstr(xml, "free (--free"));
    CU_ASSERT_PTR_NOT_NULL(strstr(xml, "OUTSIDE the prior range"));
    free(xml);
    free(o);
    free(e);
}

/* Bad input: exit 1 (2 for usage), one line naming what is wrong, no model written. */
static void expect_refused(const char *csv_text, const char *extra, int rc, const char *want)
{
    const char *sets = tu_path("bad.sets"), *csv = tu_path("bad.csv"), *out = tu_path("bad.xml");
    write_text(sets, SETS);
    write_text(csv, csv_text);
    unlink(out);
    char args[2048], *e = NULL;
    snprintf(args, sizeof args, "fit %s --sets %s --measured-csv %s " PLACE " -j 2 -o %s %s",
             tu_bundled(), sets, csv, out, extra);
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, &e), rc);
    CU_ASSERT_PTR_NOT_NULL(e ? strstr(e, want) : NULL);
    if (!e || !strstr(e, want))
        fprintf(stderr, "\nwanted '%s' in: %s\n", want, e ? e : "(nothing)");
    CU_ASSERT_EQUAL(access(out, F_OK), -1);
    free(e);
}

/* A setting measured more than once: its mean, and as its standard deviation half the spread
 * of its repeats where that is above the --time-sd floor (0.150 and 0.165 s: 0.1575 +- 0.0075
 * s), the floor where not (one run of 0.1637 s: 0.5 % of it, 0.000819 s); each run's residual
 * in those units. */
static void test_repeats(void)
{
    const char *sets = tu_path("rep.sets"), *csv = tu_path("rep.csv");
    write_text(sets, "[a]\n[b]\n-x UCX_RNDV_THRESH=0b\n");
    write_text(csv, "setting,seconds\na,0.150\na,0.165\nb,0.1637\n");
    char args[2048], *o = NULL, *e = NULL;
    snprintf(args, sizeof args,
             "fit %s --sets %s --measured-csv %s " PLACE " --params model.ucx.recv_call -o %s",
             tu_bundled(), sets, csv, tu_path("rep.xml"));
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    const char *a = o ? strstr(o, "\na ") : NULL, *b = o ? strstr(o, "\nb ") : NULL;
    CU_ASSERT_FATAL(a && b);
    double m, sd, before, fitted, z;
    CU_ASSERT_EQUAL_FATAL(sscanf(a + 2, "%lf %lf %lf %lf %lf", &m, &sd, &before, &fitted, &z), 5);
    CU_ASSERT_DOUBLE_EQUAL(m, 0.1575, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(sd, 0.0075, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(z, (fitted - m) / sd, 0.006); /* the table's two decimals */
    CU_ASSERT_EQUAL_FATAL(sscanf(b + 2, "%lf %lf", &m, &sd), 2);
    CU_ASSERT_DOUBLE_EQUAL(sd, 0.005 * 0.1637, 1e-6);
    free(o);
    free(e);
}

/* A run's own profile constrains each function's change against the first set: two sets of
 * the same settings whose profiles are the same file change nothing, measured or predicted
 * (0.0 %, not the ratio's 100 %), and the fit is explained. */
static void test_run_profile(void)
{
    const char *sets = tu_path("rp.sets"), *csv = tu_path("rp.csv"), *prof = tu_path("rp.txt");
    write_text(sets, "[a]\n[b]\n-x UCX_TLS=all\n");
    write_text(csv, "setting,seconds\na,3.40\nb,3.40\n");
    write_text(prof, "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                     " ALL 1 1 10.00 100.0 1.00 ALL\n"
                     " MPI 1 1 4.00 40.0 1.00 MPI\n"
                     " MPI 1 2 0.50 5.0 1.00 MPI_Init_thread\n"
                     " MPI 1 1,064,000 3.00 30.0 1.00 MPI_Allreduce\n"
                     " MPI 1 1,341,000 0.50 5.0 1.00 MPI_Waitall\n");
    char args[4096], *o = NULL, *e = NULL;
    snprintf(args, sizeof args,
             "fit %s --sets %s --measured-csv %s " PLACE
             " --params model.ucx.recv_call --profile %s --run-profile b=%s -o %s",
             tu_bundled(), sets, csv, prof, prof, tu_path("rp.xml"));
    CU_ASSERT_EQUAL(tu_run_cli(args, &o, &e), 0);
    CU_ASSERT_PTR_NOT_NULL(o && strstr(o, "2 per-function constraints"));
    const char *row = o ? strstr(o, "\nb                MPI_Allreduce") : NULL;
    double meas = 1, before = 1, fitted = 1;
    CU_ASSERT_FATAL(row && sscanf(row + 31, " %lf%% %lf%% %lf%%", &meas, &before, &fitted) == 3);
    CU_ASSERT_DOUBLE_EQUAL(meas, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(before, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(fitted, 0, 1e-9);
    free(o);
    free(e);
}

static void test_bad_input(void)
{
    expect_refused("a,0.1428\n", "", 1, "at least 2 are needed");
    expect_refused("a,nan\nb,0.16\n", "", 1, "bad.csv:1: expected a non-negative number");
    expect_refused("a,0.1428\nzz,0.15\n", "", 1, "measured setting 'zz'");
    expect_refused("b,0.16\nc,0.15\n", "", 1, "the first set of");
    /* A run of another trace (or another machine): twice the time no parameter gives. */
    expect_refused("a,0.1428\nb,0.33\n", "--params model.ucx.recv_call --time-sd 0.01", 1,
                   "run b is not explained");
    expect_refused("a,0.1428\nb,0.16\n", "--params model.net.latency", 2, "has no prior range");
    expect_refused("a,0.1428\nb,0.16\n", "--params model.ucx.recv_cal", 2,
                   "did you mean model.ucx.recv_call");
    expect_refused("a,0.1428\nb,0.16\n", "--free model.net.latency", 2,
                   "--free: model.net.latency has no prior range");
    /* The profile of a 72-rank run against the 2-rank trace. */
    char extra[1024];
    snprintf(extra, sizeof extra, "--profile %s/../motorbike-72-asis.scorep-score.txt",
             tu_bundled());
    expect_refused("a,0.1428\nb,0.16\n", extra, 1, "it comes from another run");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("fit", NULL, NULL);
    CU_add_test(s, "the solver on a linear model", test_linear);
    CU_add_test(s, "true parameters recovered from synthetic runs", test_recovers);
    CU_add_test(s, "a value outside its prior recovered with --free", test_free);
    CU_add_test(s, "repeats: their mean and half their spread", test_repeats);
    CU_add_test(s, "a run's own profile: per-function changes", test_run_profile);
    CU_add_test(s, "bad input refused, nothing written", test_bad_input);
    return tu_run_all();
}
