/* test_extrapolate.c - the scorep-score parser (traces/scorep_score) on the bundled real
 * profile and on malformed ones, the full-run arithmetic (sim/extrapolate) on a tiny
 * hand-made profile with hand-derived numbers, and `tunesim replay --window / --profile /
 * --iterations` through the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/extrapolate.h"
#include "testutil.h"
#include "traces/scorep_score.h"

static char profile_path[1024];

static const char *bundled_profile(void)
{
    snprintf(profile_path, sizeof profile_path, "%s/traces/data/motorbike-72-asis.scorep-score.txt",
             TS_SOURCE_DIR);
    return profile_path;
}

static void test_real_profile(void)
{
    ts_score_t *s;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_score_read(bundled_profile(), &s, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_score_nrows(s), 22);
    const ts_score_row_t *all = ts_score_find(s, "ALL", "ALL");
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    CU_ASSERT_EQUAL(all->max_buf, 375260969);
    CU_ASSERT_EQUAL(all->visits, 280526204);
    CU_ASSERT_DOUBLE_EQUAL(all->time, 1707.00, 1e-9);
    CU_ASSERT_TRUE(ts_score_is_group(all));
    const ts_score_row_t *isend = ts_score_find(s, "MPI", "MPI_Isend");
    CU_ASSERT_PTR_NOT_NULL_FATAL(isend);
    CU_ASSERT_EQUAL(isend->visits, 84176201);
    CU_ASSERT_DOUBLE_EQUAL(isend->time, 95.05, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(isend->time_per_visit_us, 1.13, 1e-9);
    CU_ASSERT_EQUAL(isend->line, 9);
    CU_ASSERT_FALSE(ts_score_is_group(isend));
    const ts_score_row_t *app = ts_score_find(s, NULL, "simpleFoam");
    CU_ASSERT_PTR_NOT_NULL_FATAL(app);
    CU_ASSERT_STRING_EQUAL(app->type, "SCOREP");
    CU_ASSERT_DOUBLE_EQUAL(app->time, 801.67, 1e-9);
    CU_ASSERT_EQUAL(ts_score_find(s, "MPI", "MPI_Init_thread")->visits, 72);
    ts_score_free(s);
}

/* Each malformed text fails with one line naming the file (and the line where there is
 * one) and what was expected. */
static void test_malformed(void)
{
    static const char *hdr = "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n";
    struct {
        const char *body, *want;
    } cases[] = {
        {"", "p.txt: empty"},
        {"HEADER", "p.txt: no rows"},
        {"HEADER ALL 10 20 1.00 100.0 0.05 ALL\n MPI 4,156,230 11,49", "p.txt:3: too few columns"},
        {"HEADER ALL 10 2x0 1.00 100.0 0.05 ALL\n", "p.txt:2: visits '2x0' is not a number"},
        {"HEADER ALL 10 20 abc 100.0 0.05 ALL\n", "p.txt:2: time 'abc' is not a number"},
        {"HEADER MPI 10 20 1.00 100.0 0.05\n", "p.txt:2: missing region column"},
        {"HEADER ALL 1,23,456 20 1.00 100.0 0.05 ALL\n", "p.txt:2: max_buf '1,23,456' is not"},
        /* the last group after a comma short of three digits, with no comma after it */
        {"HEADER ALL 10 1,23 1.00 100.0 0.05 ALL\n", "p.txt:2: visits '1,23' is not a number"},
        {"HEADER all 10 20 1.00 100.0 0.05 ALL\n", "p.txt:2: type 'all' is not a region type"},
        {"HEADER ALL 10 20 -1.00 100.0 0.05 ALL\n", "p.txt:2: time '-1.00' is not a number"},
        {"HEADER ALL 10 20 1e308 100.0 0.05 ALL\n",
         "p.txt:2: time '1e308' is not a number from 0 to 1e12"},
        {" ALL 10 20 1.00 100.0 0.05 ALL\nnot a row at all\n", "p.txt:2: too few columns"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        const char *b = cases[i].body;
        if (strncmp(b, "HEADER", 6) == 0)
            snprintf(text, sizeof text, "%s%s", hdr, b + 6 + (b[6] == ' '));
        else
            snprintf(text, sizeof text, "%s", b);
        ts_score_t *s = NULL;
        ts_error_t err;
        ts_error_clear(&err);
        ts_status st = ts_score_parse(text, strlen(text), "p.txt", &s, &err);
        CU_ASSERT_EQUAL(st, TS_ECORRUPT);
        CU_ASSERT_PTR_NULL(s);
        if (!strstr(err.msg, cases[i].want))
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, err.msg, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].want));
        CU_ASSERT_TRUE(tu_one_line(err.msg));
    }
    /* Preamble before the header, a flt column and blank lines are fine. */
    const char *ok = "Estimated aggregate size of event trace: 18GB\n\n"
                     "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                     " + ALL 1,000 1,234 100.00 100.0 1.00 ALL\n\n"
                     "   MPI 900 1,200 40.00 40.0 1.00 MPI_Allreduce\n";
    ts_score_t *s;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_score_parse(ok, strlen(ok), "ok.txt", &s, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_score_nrows(s), 2);
    CU_ASSERT_EQUAL(ts_score_row(s, 0)->visits, 1234);
    CU_ASSERT_EQUAL(ts_score_row(s, 1)->line, 6);
    ts_score_free(s);
    CU_ASSERT_EQUAL(ts_score_read("/nonexistent/p.txt", &s, &err), TS_ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/p.txt"));
}

/* A 4-process run: ALL 100 s, MPI 40 s, PTHREAD 4 s; Allreduce 1,000 visits, Isend 192,
 * Init 4, Test 1 s (not traced). */
static const char *TINY = "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                          " ALL 1,000 1,234 100.00 100.0 1.00 ALL\n"
                          " MPI 900 1,200 40.00 40.0 1.00 MPI\n"
                          " PTHREAD 10 30 4.00 4.0 1.00 PTHREAD\n"
                          " SCOREP 46 4 56.00 56.0 1.00 SCOREP\n"
                          " MPI 100 1,000 30.00 30.0 30.00 MPI_Allreduce\n"
                          " MPI 100 192 5.00 5.0 1.00 MPI_Isend\n"
                          " MPI 10 4 4.00 4.0 1.00 MPI_Init_thread\n"
                          " MPI 10 4 1.00 1.0 1.00 MPI_Test\n";

/* The window: 4 ranks, 2 iterations; Allreduce 80 calls 0.8 s (0.01 s each), Isend 16 calls
 * 0.032 s (0.002 s each), Init 0.4 s, Comm_rank free. */
static const ts_xp_func_t WINDOW[] = {{"MPI_Allreduce", 80, 0.8},
                                      {"MPI_Isend", 16, 0.032},
                                      {"MPI_Init_thread", 4, 0.4},
                                      {"MPI_Comm_rank", 8, 0.0}};

/* The window above, 2 iterations of 4 ranks, scaled by visits. */
static const ts_xp_in_t WINDOW_IN = {
    .nranks = 4, .scale = TS_XP_BY_VISITS, .funcs = WINDOW, .nfuncs = 4, .window_iterations = 2};

static void test_arithmetic(void)
{
    ts_score_t *p;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_score_parse(TINY, strlen(TINY), "tiny.txt", &p, &err) == TS_OK);
    ts_xp_in_t in = WINDOW_IN;
    ts_xp_t *x;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total_other(x), 0.0, 0.0); /* no window compute: no other */
    /* compute = (100 - 40 - 4) / 4 = 14; Allreduce 0.01 x 1000 / 4 = 2.5; Isend 0.002 x 192 /
     * 4 = 0.096; ExecutionTime 16.596 */
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_compute(x), 14.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_mpi(x), 2.596, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total(x), 16.596, 1e-12);
    /* start-up apart: the profile's 4 s / 4 = 1 s per rank, the window's 0.4 / 4 = 0.1 s */
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_startup_profile(x), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_startup_window(x), 0.1, 1e-12);
    /* iterations from Allreduce: (1000 / 4) / (80 / 4 / 2) = 25 */
    CU_ASSERT_TRUE(ts_xp_estimated(x));
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_iterations(x), 25.0, 1e-12);
    CU_ASSERT_EQUAL(ts_xp_profile_ranks(x), 4);
    int scaled = 0, not_traced = 0;
    for (int i = 0; i < ts_xp_nrows(x); i++) {
        const ts_xp_row_t *r = ts_xp_row(x, i);
        if (strcmp(r->name, "MPI_Allreduce") == 0) {
            CU_ASSERT_EQUAL(r->kind, TS_XP_SCALED);
            CU_ASSERT_DOUBLE_EQUAL(r->per_call, 0.01, 1e-15);
            CU_ASSERT_DOUBLE_EQUAL(r->per_rank, 2.5, 1e-12);
        }
        scaled += r->kind == TS_XP_SCALED;
        not_traced += r->kind == TS_XP_NOT_TRACED;
    }
    CU_ASSERT_EQUAL(scaled, 2);
    CU_ASSERT_EQUAL(not_traced, 1);
    /* One warning: MPI_Test (1 s of the 40 s of MPI: 2.5 %) is not in the trace. Isend's
     * 192 / 4 / 25 = 1.92 visits per rank and iteration against the window's 2 are fine;
     * Comm_rank costs nothing and is not warned about. */
    CU_ASSERT_EQUAL(ts_xp_nwarnings(x), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(ts_xp_warning(x, 0), "MPI_Test (2.5 % of the profile's MPI"));
    ts_xp_free(x);

    /* Told 1,000 iterations: Allreduce is 250 / 1000 = 0.25 visits per rank and iteration in
     * the profile against 10 in the window, 40x apart; Isend 0.048 against 2, 41.7x. */
    in.full_iterations = 1000;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total(x), 16.596, 1e-12); /* visits scale, not iterations */
    CU_ASSERT_EQUAL(ts_xp_nwarnings(x), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(ts_xp_warning(x, 0), "MPI_Allreduce: 0.25 visits"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ts_xp_warning(x, 0), "10 in the window"));
    ts_xp_free(x);

    /* By compute: the window's 2 s outside MPI over 4 ranks are 0.5 s per rank against the
     * profile's 14: the run is R = 28 windows, 56 iterations. MPI = (0.8 + 0.032) / 4 x 28 =
     * 5.824 s per rank (start-up apart as before), ExecutionTime 19.824; by visits instead
     * the 16.596 above. Allreduce: 250 / 56 = 4.46 visits per rank and iteration against the
     * window's 10, within 10x: only the MPI_Test warning. */
    in.full_iterations = 0;
    in.scale = TS_XP_BY_COMPUTE;
    in.win_compute = 2.0;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_windows(x), 28.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_iterations(x), 56.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_mpi(x), 5.824, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total(x), 19.824, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total_other(x), 16.596, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_startup_window(x), 0.1, 1e-12);
    for (int i = 0; i < ts_xp_nrows(x); i++)
        if (strcmp(ts_xp_row(x, i)->name, "MPI_Isend") == 0) {
            CU_ASSERT_DOUBLE_EQUAL(ts_xp_row(x, i)->per_rank, 0.224, 1e-12);
            CU_ASSERT_DOUBLE_EQUAL(ts_xp_row(x, i)->visits_ratio, 12.0, 1e-12); /* 48 / 4 */
        }
    CU_ASSERT_EQUAL(ts_xp_nwarnings(x), 1);
    ts_xp_free(x);
    /* A setting whose compute runs at 0.98 of the profiled one's (NPS2 of an NPS1 profile):
     * its window computes 2 x 0.98 = 1.96 s and sends the same MPI. The run is still R = 28
     * windows (1.96 / 0.98 / 4 = 0.5 s per rank against 14), its compute 14 x 0.98 = 13.72 s
     * and MPI 5.824 s as before: 19.544 s, 0.28 s less than the profiled setting. Before the
     * fix R was 14 / 0.49 = 28.571, MPI 5.943 s and the total 19.943 s: slower. */
    in.win_compute = 1.96;
    in.compute_ratio = 0.98;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_windows(x), 28.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_iterations(x), 56.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_compute(x), 13.72, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_mpi(x), 5.824, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total(x), 19.544, 1e-12);
    ts_xp_free(x);
    in.win_compute = 2.0;
    in.compute_ratio = 0;
    /* Score-P's own time outside the regions, 0.01 s per MPI or PTHREAD visit (1,200 + 30):
     * compute = (100 - 40 - 4 - 12.3) / 4 = 10.925 s, R = 10.925 / 0.5 = 21.85 windows, MPI =
     * 0.832 / 4 x 21.85 = 4.5448 s, ExecutionTime 15.4698 s. */
    in.visit_outside = 0.01;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_compute(x), 10.925, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_windows(x), 21.85, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_mpi(x), 4.5448, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total(x), 15.4698, 1e-12);
    ts_xp_free(x);
    in.visit_outside = 0;
    /* By compute with no compute in the window: one line saying so. */
    in.win_compute = 0;
    x = NULL;
    CU_ASSERT_EQUAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(x);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "tiny.txt: the window has no compute"));
    CU_ASSERT_TRUE(tu_one_line(err.msg));
    in.scale = TS_XP_BY_VISITS;

    /* Score-P's own time beyond the time outside MPI (0.1 s x 1,230 visits = 123 s against
     * 100 - 40 - 4 = 56 s): no compute, never a negative one; MPI by visits as before. */
    in.visit_outside = 0.1;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_compute(x), 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_total(x), 2.596, 1e-12);
    ts_xp_free(x);
    in.visit_outside = 0;

    /* Another rank count is an error saying both. */
    in.nranks = 8;
    x = NULL;
    CU_ASSERT_EQUAL(ts_xp_predict(p, "tiny.txt", &in, &x, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(x);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "tiny.txt: a profile of 4 processes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the trace has 8 ranks"));
    CU_ASSERT_TRUE(tu_one_line(err.msg));
    ts_score_free(p);
}

/* Two scaled functions of the profile with as many visits: the iterations are estimated from
 * the first of them in the profile's order, Allreduce: (1000 / 4) / (80 / 4 / 2) = 25, not
 * from Isend's (1000 / 4) / (16 / 4 / 2) = 125. Whether the profile has compute: ALL beyond
 * MPI and PTHREAD; exactly their sum is none. */
static void test_reference_and_compute(void)
{
    const char *tie = "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                      " ALL 1,000 1,234 100.00 100.0 1.00 ALL\n"
                      " MPI 900 1,200 40.00 40.0 1.00 MPI\n"
                      " MPI 100 1,000 30.00 30.0 30.00 MPI_Allreduce\n"
                      " MPI 100 1,000 5.00 5.0 1.00 MPI_Isend\n"
                      " MPI 10 4 4.00 4.0 1.00 MPI_Init_thread\n";
    ts_score_t *p;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_score_parse(tie, strlen(tie), "tie.txt", &p, &err) == TS_OK);
    ts_xp_in_t in = WINDOW_IN;
    ts_xp_t *x;
    CU_ASSERT_FATAL(ts_xp_predict(p, "tie.txt", &in, &x, &err) == TS_OK);
    CU_ASSERT_TRUE(ts_xp_estimated(x));
    CU_ASSERT_DOUBLE_EQUAL(ts_xp_iterations(x), 25.0, 1e-12);
    ts_xp_free(x);
    CU_ASSERT_TRUE(ts_xp_profile_has_compute(p)); /* 100 > 40 */
    ts_score_free(p);

    static const struct {
        const char *rows;
        int want;
    } cases[] = {
        {" ALL 1 1 10.00 100.0 1.00 ALL\n MPI 1 1 9.00 90.0 1.00 MPI\n"
         " PTHREAD 1 1 1.00 10.0 1.00 PTHREAD\n",
         0},                                                                   /* 10 = 9 + 1 */
        {" ALL 1 1 10.00 100.0 1.00 ALL\n MPI 1 1 10.00 100.0 1.00 MPI\n", 0}, /* 10 = 10 */
        {" ALL 1 1 10.00 100.0 1.00 ALL\n MPI 1 1 9.00 90.0 1.00 MPI\n", 1},   /* 10 > 9 */
        {" ALL 1 1 10.00 100.0 1.00 ALL\n", 1}, /* no MPI group row: cannot tell */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "flt type max_buf[B] visits time[s] time[%%] time/visit[us] region\n%s",
                 cases[i].rows);
        CU_ASSERT_FATAL(ts_score_parse(text, strlen(text), "c.txt", &p, &err) == TS_OK);
        CU_ASSERT_EQUAL(ts_xp_profile_has_compute(p), cases[i].want);
        ts_score_free(p);
    }
}

/* The interval: nominal +- t(0.975, n-1) s / sqrt(n), widened to hold every iteration. */
static void test_interval(void)
{
    double lo, hi;
    /* 9, 10, 11: s = 1, t(0.975, 2) = 4.3027 (GSL), half 4.3027 / sqrt(3) = 2.48414 */
    ts_xp_interval(10.0, (const double[]){9.0, 10.0, 11.0}, 3, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 10.0 - 2.484138, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(hi, 10.0 + 2.484138, 1e-6);
    /* the same spread about a nominal of 8 (the window is not the plain mean): 5.52-10.48 */
    ts_xp_interval(8.0, (const double[]){9.0, 10.0, 11.0}, 3, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 8.0 - 2.484138, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(hi, 11.0, 1e-12); /* widened to the highest iteration */
    /* 1 and 3 about 2: s = sqrt(2), t(0.975, 1) = 12.7062, half 12.7062: never below 0 */
    ts_xp_interval(2.0, (const double[]){1.0, 3.0}, 2, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 2.0 + 12.706205, 1e-5);
    /* one iteration: no spread, [nominal, it] */
    ts_xp_interval(10.0, (const double[]){12.0}, 1, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 10.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 12.0, 0.0);
    ts_xp_interval(10.0, NULL, 0, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 10.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 10.0, 0.0);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_FATAL(fp != NULL);
    fputs(text, fp);
    fclose(fp);
}

/* Through the command line on pitzDaily (2 ranks, 3 iterations). */
static void test_cli(void)
{
    char args[4096], prof2[1024], bad[1024], *out = NULL, *err = NULL;
    const char *pd = tu_bundled();
    /* A 2-process profile: the Allreduce visits of 1,000 iterations. */
    snprintf(prof2, sizeof prof2, "%s/pd2.txt", tu_tmpdir());
    write_file(prof2, "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                      " ALL 1 1 10.00 100.0 1.00 ALL\n"
                      " MPI 1 1 4.00 40.0 1.00 MPI\n"
                      " MPI 1 2 0.50 5.0 1.00 MPI_Init_thread\n"
                      " MPI 1 1,064,000 3.00 30.0 1.00 MPI_Allreduce\n"
                      " MPI 1 1,341,000 0.50 5.0 1.00 MPI_Waitall\n");
    snprintf(args, sizeof args, "replay %s --nodes 2 --ppn 1 --window 2:3 --profile %s", pd, prof2);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "window      iterations 2:3 of"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "compute    3.000 s per rank"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "iteration 3    alone: ExecutionTime"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scaled by  compute: the run is"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "by visits   instead: ExecutionTime"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "(95 % from the spread of the 2 iterations"));
    /* Both iterations replayed alone (the interval counts 2 of 2): no warning of a missing one. */
    CU_ASSERT(out && !strstr(out, "could not be replayed alone"));
    free(out);
    free(err);
    snprintf(args, sizeof args,
             "replay %s --nodes 2 --ppn 1 --window 2:3 --profile %s --scale-by visits", pd, prof2);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "scaled by  visits"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "by compute  instead: ExecutionTime"));
    free(out);
    free(err);
    /* No window: every iteration, the start-up left out (it happens once). */
    snprintf(args, sizeof args, "replay %s --nodes 2 --ppn 1 --profile %s", pd, prof2);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "window      iterations 1:3 of"));
    CU_ASSERT_PTR_NOT_NULL(out &&
                           strstr(out, "(start-up and shutdown left out: they happen once)"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "(95 % from the spread of the 3 iterations"));
    free(out);
    free(err);
    snprintf(args, sizeof args, "replay %s --profile %s --scale-by calls", pd, prof2);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_TRUE(tu_one_line(err));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "--scale-by expects compute or visits, got 'calls'"));
    free(out);
    free(err);
    /* --iterations counts the full run's iterations: 0 is no count (the range starts at 1). */
    snprintf(args, sizeof args, "replay %s --iterations 0", pd);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_TRUE(tu_one_line(err));
    CU_ASSERT_PTR_NOT_NULL(err &&
                           strstr(err, "--iterations expects a count of iterations, got '0'"));
    free(out);
    free(err);
    /* A profile whose only MPI function in the trace is the start-up (MPI_Init_thread; the
     * trace makes no MPI_Alltoallv) has nothing to scale: refused before any replay. */
    char prof_init[1024];
    snprintf(prof_init, sizeof prof_init, "%s/pd2-init.txt", tu_tmpdir());
    write_file(prof_init, "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                          " ALL 1 1 10.00 100.0 1.00 ALL\n"
                          " MPI 1 1 4.00 40.0 1.00 MPI\n"
                          " MPI 1 2 0.50 5.0 1.00 MPI_Init_thread\n"
                          " MPI 1 1,000 3.50 35.0 1.00 MPI_Alltoallv\n");
    snprintf(args, sizeof args, "replay %s --nodes 2 --ppn 1 --profile %s", pd, prof_init);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_TRUE(out && out[0] == '\0');
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "(besides start-up): nothing to scale"));
    free(out);
    free(err);
    /* The 72-process profile against the 2-rank trace: one line, nothing on stdout. */
    snprintf(args, sizeof args, "replay %s --nodes 2 --ppn 1 --profile %s", pd, bundled_profile());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_TRUE(out && out[0] == '\0');
    CU_ASSERT_TRUE(tu_one_line(err));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "a profile of 72 processes"));
    free(out);
    free(err);
    /* A malformed profile names its line. */
    snprintf(bad, sizeof bad, "%s/bad.txt", tu_tmpdir());
    write_file(bad, "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                    " ALL 1 1 1O.00 100.0 1.00 ALL\n");
    snprintf(args, sizeof args, "replay %s --profile %s", pd, bad);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "bad.txt:2: time '1O.00' is not a number"));
    free(out);
    free(err);
    /* Bad windows: usage errors (exit 2), one line. */
    const char *windows[] = {"0:1", "3:2", "1:4", "x", "1:", "2:3:4"};
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
        snprintf(args, sizeof args, "replay %s --window %s", pd, windows[i]);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
        CU_ASSERT_TRUE(out && out[0] == '\0');
        CU_ASSERT_TRUE(tu_one_line(err));
        CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "--window expects FIRST:LAST"));
        free(out);
        free(err);
        snprintf(args, sizeof args, "sweep %s --sets %s/sets/motorbike-72.sets --window %s", pd,
                 TS_SOURCE_DIR, windows[i]);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
        CU_ASSERT_TRUE(tu_one_line(err));
        free(out);
        free(err);
    }
    /* --iterations alone: the steady window (iterations 2-3: no two agree) times 10 / 2; the
     * interval of two iterations this far apart reaches 0, not below. */
    snprintf(args, sizeof args, "replay %s --nodes 2 --ppn 1 --iterations 10", pd);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "full run (10 iterations)"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "/ 2 iterations"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ", interval 0.000-"));
    /* The numbers: per iteration the window's makespan over its 2 iterations, the full run
     * that times 10 (both read back from the same lines). */
    double per = -1, span = -1, full = -1;
    const char *pl = out ? strstr(out, "  per iteration ") : NULL;
    CU_ASSERT_FATAL(
        pl && sscanf(pl, "  per iteration %lf s: the window's makespan %lf s", &per, &span) == 2);
    const char *fl = strstr(out, "predicted   ExecutionTime ");
    CU_ASSERT_FATAL(fl && sscanf(fl, "predicted   ExecutionTime %lf", &full) == 1);
    CU_ASSERT(span > 0);
    CU_ASSERT_DOUBLE_EQUAL(per, span / 2, 2e-6);  /* both printed with six decimals */
    CU_ASSERT_DOUBLE_EQUAL(full, per * 10, 1e-3); /* printed with three */
    free(out);
    free(err);
    /* sweep: every set scaled; another run's profile refused before anything runs. */
    char sets[1024];
    snprintf(sets, sizeof sets, "%s/two.sets", tu_tmpdir());
    write_file(sets, "[asis]\n[noh]\ncoll_hcoll_enable = 0\n");
    char csv[1024];
    snprintf(csv, sizeof csv, "%s/full.csv", tu_tmpdir());
    snprintf(args, sizeof args,
             "sweep %s --sets %s --nodes 2 --ppn 1 -j 1 --window 2:3 --profile %s --csv %s", pd,
             sets, prof2, csv);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    /* The CSV carries each set's full-run time, the table's number. */
    char *text = tu_read_file(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, ",map_by,full_time_s,time_s:"));
    const char *row = text ? strstr(text, ",noh,") : NULL, *line = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    for (int comma = 0; *row && comma < 10; row++) /* from the comma before field 1 to 10 */
        comma += *row == ',';
    double csv_full = strtod(row, NULL), table_full = 0;
    line = out ? strstr(out, "full run per set") : NULL;
    line = line ? strstr(line, "  noh  ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    table_full = strtod(line + 5, NULL);
    CU_ASSERT_TRUE(csv_full > 3.0);
    CU_ASSERT_DOUBLE_EQUAL(csv_full, table_full, 0.0005);
    free(text);
    CU_ASSERT_PTR_NOT_NULL(
        out && strstr(out, "full run per set (ExecutionTime; gain: time saved against asis"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "compute    3.000 s per rank"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "  noh  "));
    free(out);
    free(err);
    /* An NPS2 set of the NPS1 profile: the same run (R windows from the baseline's compute),
     * its compute 0.982 x the profile's, so faster in the full run, not slower. */
    write_file(sets, "[asis]\n[nps2]\nnps = 2\n");
    snprintf(args, sizeof args,
             "sweep %s --sets %s --nodes 2 --ppn 1 -j 1 --window 2:3 --profile %s", pd, sets,
             prof2);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    const char *ra = out ? strstr(out, "full run per set") : NULL, *rn = ra;
    ra = ra ? strstr(ra, "  asis  ") : NULL;
    rn = rn ? strstr(rn, "  nps2  ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(ra);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rn);
    double full_asis = strtod(ra + 6, NULL), full_nps2 = strtod(rn + 6, NULL);
    /* compute 3.000 s per rank x (1 - 0.982): 0.054 s less, MPI within a few ms */
    CU_ASSERT_TRUE(full_nps2 < full_asis);
    CU_ASSERT_DOUBLE_EQUAL(full_asis - full_nps2, 0.054, 0.02);
    /* One ranking: the sets' table follows the full run, and says so. */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "; ranked by the full run (its table below)\n"));
    const char *first = out ? strstr(out, "\n   1  ") : NULL;
    CU_ASSERT_PTR_NOT_NULL(first && strncmp(first, "\n   1  nps2 ", 12) == 0 ? first : NULL);
    free(out);
    free(err);
    snprintf(args, sizeof args, "sweep %s --sets %s --nodes 2 --ppn 1 -j 1 --iterations 10", pd,
             sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "full run (10 iterations: each set's makespan / 2"));
    free(out);
    free(err);
    snprintf(args, sizeof args, "sweep %s --sets %s --profile %s", pd, sets, bundled_profile());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_TRUE(out && out[0] == '\0');
    CU_ASSERT_TRUE(tu_one_line(err));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "a profile of 72 processes"));
    free(out);
    free(err);
    /* info lists the iterations. */
    snprintf(args, sizeof args, "info %s", pd);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "iterations 3 ("));
    CU_ASSERT_PTR_NOT_NULL(
        out && strstr(out, "steady     2:3 (no two consecutive iterations after the first"));
    free(out);
    free(err);
    /* info of a window: its own iterations and visits; a bad window is a usage error. */
    snprintf(args, sizeof args, "info %s --window 2:3", pd);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out &&
                           strstr(out, "simplefoam-pitzdaily-2/traces.otf2[2:3] (tunesim store)"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "events     37982")); /* of the 66802 */
    free(out);
    free(err);
    snprintf(args, sizeof args, "info %s --window 0:1", pd);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_TRUE(tu_one_line(err));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "info: --window expects FIRST:LAST"));
    free(out);
    free(err);
}

int main(void)
{
    if (access(bundled_profile(), R_OK) != 0 || access(tu_bundled(), R_OK) != 0) {
        printf("test_extrapolate: skipped: %s or %s is missing\n", bundled_profile(), tu_bundled());
        return TS_TEST_SKIP;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("extrapolate", NULL, NULL);
    CU_add_test(s, "the bundled scorep-score profile", test_real_profile);
    CU_add_test(s, "malformed profiles", test_malformed);
    CU_add_test(s, "scaling arithmetic, hand-derived", test_arithmetic);
    CU_add_test(s, "the reference function on a tie; whether a profile has compute",
                test_reference_and_compute);
    CU_add_test(s, "the interval from the iterations' spread", test_interval);
    CU_add_test(s, "replay --window / --profile / --iterations, info", test_cli);
    return tu_run_all();
}
