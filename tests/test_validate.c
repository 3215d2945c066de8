/* test_validate.c - `tunesim validate` against hand-computed examples: OpenFOAM log parsing
 * (the last ExecutionTime line), trimmed mean / median / spread, log directories, manifests
 * and CSV input, anchoring, mean absolute % error, Spearman's rank correlation, the ordering
 * check, the reports, one-line errors naming file:line, and the committed localhost
 * validation (tests/data/validation-localhost) re-derived from its logs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "testutil.h"
#include "validation/measured.h"
#include "commands/validate_cmd.h"

static const char *tmp_path(const char *name)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tu_tmpdir(), name);
    return buf[k];
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_FATAL(fp != NULL);
    fputs(text, fp);
    fclose(fp);
}

/* A short OpenFOAM log ending at time `last`, with an earlier ExecutionTime line. */
static void write_log(const char *path, double last)
{
    char text[1024];
    snprintf(text, sizeof text,
             "/*---------------------------------------------------------------------------*\\\n"
             "Build  : v1912\nExec   : simpleFoam -parallel\nnProcs : 2\n\n"
             "Time = 1\n\nsmoothSolver:  Solving for Ux, Initial residual = 1, Final "
             "residual = 0.05, No Iterations 1\nExecutionTime = 0.5 s  ClockTime = 1 s\n\n"
             "Time = 2\n\nExecutionTime = %g s  ClockTime = 2 s\n\nEnd\n\nFinalising parallel "
             "run\n",
             last);
    write_file(path, text);
}

static void test_log_parsing(void)
{
    ts_error_t err;
    double x = -1;
    const char *log = tmp_path("a.log");
    write_log(log, 12.34);
    CU_ASSERT_EQUAL(ts_foam_execution_time(log, &x, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(x, 12.34, 1e-12); /* the last line, not the first */

    /* No ExecutionTime line: an error naming the file. */
    const char *none = tmp_path("none.log");
    write_file(none, "Exec   : simpleFoam -parallel\nTime = 1\n");
    CU_ASSERT_EQUAL(ts_foam_execution_time(none, &x, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, none));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no 'ExecutionTime = X s' line"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    /* A run that failed, before or after its timing lines: its time is no run's. */
    write_file(none, "Exec   : simpleFoam -parallel\nTime = 1\nExecutionTime = 0.61 s  ClockTime "
                     "= 1 s\n\n--> FOAM FATAL ERROR:\n");
    CU_ASSERT_EQUAL(ts_foam_execution_time(none, &x, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none.log:5: the run failed (FOAM FATAL ERROR)"));

    /* A garbled value: file:line. */
    const char *bad = tmp_path("bad.log");
    write_file(bad, "Time = 1\nExecutionTime = 1.5 s  ClockTime = 2 s\nExecutionTime = x s\n");
    CU_ASSERT_EQUAL(ts_foam_execution_time(bad, &x, &err), TS_ECORRUPT);
    char want[1100];
    snprintf(want, sizeof want, "%s:3: expected 'ExecutionTime = SECONDS s'", bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));

    /* Other lines starting with the word are not the timing line. */
    const char *other = tmp_path("other.log");
    write_file(other, "ExecutionTime = 3 s  ClockTime = 3 s\nExecutionTimeIndex 7\n");
    CU_ASSERT_EQUAL(ts_foam_execution_time(other, &x, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(x, 3, 1e-12);

    CU_ASSERT_EQUAL(ts_foam_execution_time(tmp_path("missing.log"), &x, &err), TS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing.log"));
}

static void test_stats(void)
{
    ts_runstats_t s;
    /* Five runs: the middle three (11, 12, 13) -> 12, whatever the outlier. */
    const double five[] = {13, 100, 11, 10, 12};
    ts_runstats_compute(five, 5, &s);
    CU_ASSERT_EQUAL(s.n, 5);
    CU_ASSERT_EQUAL(s.trimmed, 1);
    CU_ASSERT_DOUBLE_EQUAL(s.trimmed_mean, 12, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.median, 12, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.min, 10, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.max, 100, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.spread, 90, 1e-12);
    /* Four: nothing trimmed, plain mean 2.5, median between the middle two. */
    const double four[] = {4, 1, 3, 2};
    ts_runstats_compute(four, 4, &s);
    CU_ASSERT_EQUAL(s.trimmed, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.trimmed_mean, 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.median, 2.5, 1e-12);
    /* Ten: two dropped at each end: mean of 3..8 = 5.5. */
    const double ten[] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    ts_runstats_compute(ten, 10, &s);
    CU_ASSERT_EQUAL(s.trimmed, 2);
    CU_ASSERT_DOUBLE_EQUAL(s.trimmed_mean, 5.5, 1e-12);
    /* One run. */
    const double one[] = {7};
    ts_runstats_compute(one, 1, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.trimmed_mean, 7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.spread, 0, 1e-12);
}

static void test_spearman(void)
{
    const double x[] = {1, 2, 3, 4, 5};
    const double same[] = {10, 20, 30, 40, 50}, rev[] = {5, 4, 3, 2, 1};
    CU_ASSERT_DOUBLE_EQUAL(ts_spearman(x, same, 5), 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_spearman(x, rev, 5), -1, 1e-12);
    /* Ties: y = 5 6 7 8 7 has ranks 1 2 3.5 5 3.5; Pearson of the ranks:
     * sum dx dy = 8, sum dx^2 = 10, sum dy^2 = 9.5 -> 8 / sqrt(95) = 0.8207827. */
    const double tied[] = {5, 6, 7, 8, 7};
    CU_ASSERT_DOUBLE_EQUAL(ts_spearman(x, tied, 5), 8 / sqrt(95), 1e-12);
    /* 1 3 2 against 1 2 3: d = 0 1 -1 -> 1 - 6 * 2 / (3 * 8) = 0.5. */
    const double a[] = {1, 2, 3}, b[] = {1, 3, 2};
    CU_ASSERT_DOUBLE_EQUAL(ts_spearman(a, b, 3), 0.5, 1e-12);
    const double flat[] = {2, 2, 2};
    CU_ASSERT(isnan(ts_spearman(a, flat, 3)));
    CU_ASSERT(isnan(ts_spearman(a, b, 1)));
}

static void test_csv_and_errors(void)
{
    ts_error_t err;
    ts_measured_t *m;
    const char *csv = tmp_path("m.csv");
    write_file(csv, "setting,seconds\n# a comment\nbase, 10\nfast,8\nbase,10.5\n\nfast, 8.5 \n");
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_csv(m, csv, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_measured_count(m), 2);
    const ts_measured_setting_t *b = ts_measured_get(m, 0);
    CU_ASSERT_STRING_EQUAL(b->name, "base");
    CU_ASSERT_EQUAL(b->n, 2);
    CU_ASSERT_DOUBLE_EQUAL(b->seconds[1], 10.5, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(strstr(b->sources[1], "m.csv:5"));
    CU_ASSERT_PTR_NOT_NULL(ts_measured_find(m, "fast"));
    CU_ASSERT_PTR_NULL(ts_measured_find(m, "slow"));
    /* The same CSV again, by another spelling of its path: its runs would count twice. */
    char again[4200];
    snprintf(again, sizeof again, "%s/./m.csv", tu_tmpdir());
    CU_ASSERT_EQUAL(ts_measured_read_csv(m, again, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the same file as"));
    CU_ASSERT_EQUAL(ts_measured_get(m, 0)->n, 2);
    ts_measured_free(m);

    static const struct {
        const char *text, *want;
    } BAD[] = {
        {"base,10\nbase 11\n", ":2: expected 'setting,seconds'"},
        {"base,10\nbase,abc\n", ":2: expected a non-negative number of seconds, got 'abc'"},
        {"base,-1\n", ":1: expected a non-negative number"},
        {"base,1e-320\n", ":1: expected a non-negative number of seconds (this one under- or "
                          "overflows a double), got '1e-320'"},
        {"base,1,2\n", ":1: expected 'setting,seconds'"},
        {"ba se,1\n", ":1: setting name 'ba se'"},
        {"# nothing\n", "no 'setting,seconds' rows"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        write_file(csv, BAD[i].text);
        CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
        ts_status st = ts_measured_read_csv(m, csv, &err);
        CU_ASSERT_NOT_EQUAL(st, TS_OK);
        if (!strstr(err.msg, BAD[i].want) || !strstr(err.msg, csv))
            printf("\n  case %zu: got '%s'\n", i, err.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, BAD[i].want));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, csv));
        ts_measured_free(m);
    }
    /* A set name may be as long as a sets file allows (64), not longer. */
    char longrow[200];
    snprintf(longrow, sizeof longrow, "%s,1\n",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    write_file(csv, longrow);
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_csv(m, csv, &err), TS_OK);
    ts_measured_free(m);
    snprintf(longrow, sizeof longrow, "%s,1\n",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    write_file(csv, longrow);
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_NOT_EQUAL(ts_measured_read_csv(m, csv, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected 1-64 letters"));
    ts_measured_free(m);
    /* A NUL byte would hide the rest of its line ("base,17" read, "junk" not). */
    static const char nul[] = "base,17\0junk\nt0,15\n";
    FILE *fp = fopen(csv, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite(nul, 1, sizeof nul - 1, fp);
    fclose(fp);
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_csv(m, csv, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":1: expected text, got a NUL byte"));
    ts_measured_free(m);
}

static void test_dir_and_manifest(void)
{
    ts_error_t err;
    ts_measured_t *m;
    /* DIR/SETTING/NAME.log, read in name order: "a" before "b", run1 before run2. */
    const char *dir = tmp_path("logs");
    char p[1200];
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/b", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/b/run2.log", dir);
    write_log(p, 22);
    snprintf(p, sizeof p, "%s/b/run1.log", dir);
    write_log(p, 21);
    snprintf(p, sizeof p, "%s/b/notes.txt", dir);
    write_file(p, "not a log\n");
    snprintf(p, sizeof p, "%s/a/run1.log", dir);
    write_log(p, 11);
    snprintf(p, sizeof p, "%s/README", dir);
    write_file(p, "ignored\n");
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_dir(m, dir, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_measured_count(m), 2);
    CU_ASSERT_STRING_EQUAL(ts_measured_get(m, 0)->name, "a");
    const ts_measured_setting_t *b = ts_measured_get(m, 1);
    CU_ASSERT_EQUAL(b->n, 2);
    CU_ASSERT_DOUBLE_EQUAL(b->seconds[0], 21, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(b->seconds[1], 22, 1e-12);
    ts_measured_free(m);

    /* A log without ExecutionTime inside a setting directory: the error names that file. */
    snprintf(p, sizeof p, "%s/a/run2.log", dir);
    write_file(p, "Time = 1\n");
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_dir(m, dir, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a/run2.log: no 'ExecutionTime"));
    ts_measured_free(m);
    remove(p);

    /* A setting directory without logs. */
    snprintf(p, sizeof p, "%s/c", dir);
    mkdir(p, 0755);
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_dir(m, dir, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no *.log files for setting 'c'"));
    ts_measured_free(m);
    rmdir(p);

    /* Manifest: paths relative to the manifest, comments, several logs a line. */
    const char *man = tmp_path("manifest.txt");
    write_file(man,
               "# setting logs\nslow logs/b/run1.log logs/b/run2.log\n\nquick logs/a/run1.log\n");
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_manifest(m, man, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_measured_count(m), 2);
    CU_ASSERT_STRING_EQUAL(ts_measured_get(m, 0)->name, "slow");
    CU_ASSERT_EQUAL(ts_measured_get(m, 0)->n, 2);
    CU_ASSERT_DOUBLE_EQUAL(ts_measured_get(m, 1)->seconds[0], 11, 1e-12);
    ts_measured_free(m);
    static const struct {
        const char *text;
        ts_status st;
        const char *want;
    } BADMAN[] = {
        {"slow logs/b/run1.log\nlonely\n", TS_ECORRUPT,
         "manifest.txt:2: expected 'SETTING LOG [LOG...]'"},
        {"slow logs/b/nope.log\n", TS_EIO, "logs/b/nope.log: cannot open"},
        /* one log listed twice would count its run twice; /dev/zero never ends */
        {"slow logs/b/run1.log\nslow logs/b/run1.log\n", TS_EARG, "run1.log: the same log as"},
        {"slow /dev/zero\n", TS_EARG, "/dev/zero: is a character device"},
    };
    for (size_t i = 0; i < sizeof BADMAN / sizeof BADMAN[0]; i++) {
        write_file(man, BADMAN[i].text);
        CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
        CU_ASSERT_EQUAL(ts_measured_read_manifest(m, man, &err), BADMAN[i].st);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, BADMAN[i].want));
        ts_measured_free(m);
    }
    write_file(p, "ExecutionTime = 1e308 s  ClockTime = 14 s\n");
    double sec;
    CU_ASSERT_EQUAL(ts_foam_execution_time(p, &sec, &err), TS_ECORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ExecutionTime 1e+308 s is no run's"));
    remove(p);
}

static void write_timed_log(const char *path, double exec, double clock)
{
    char text[256];
    snprintf(text, sizeof text,
             "Exec   : simpleFoam -parallel\nTime = 1\n\nExecutionTime = %g s"
             "  ClockTime = %g s\n\nEnd\n",
             exec, clock);
    write_file(path, text);
}

/* --max-clock-ratio: runs descheduled too long (ClockTime > R x ExecutionTime + 1 s) are left
 * out and listed; a setting left without runs is an error. */
static void test_clock_ratio(void)
{
    ts_error_t err;
    double x, clock;
    const char *log = tmp_path("timed.log");
    write_timed_log(log, 13.2, 14);
    CU_ASSERT_EQUAL(ts_foam_times(log, &x, &clock, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(x, 13.2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(clock, 14, 1e-12);
    write_file(log, "ExecutionTime = 5 s\n");
    CU_ASSERT_EQUAL(ts_foam_times(log, &x, &clock, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(clock, -1, 1e-12);

    const char *dir = tmp_path("clock");
    char p[1200];
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/a", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/run1.log", dir);
    write_timed_log(p, 10, 13); /* 13 <= 1.2 * 10 + 1: kept */
    snprintf(p, sizeof p, "%s/a/run2.log", dir);
    write_timed_log(p, 10, 14); /* 14 > 13: left out */
    snprintf(p, sizeof p, "%s/a/run3.log", dir);
    write_file(p, "ExecutionTime = 12 s\n"); /* no ClockTime: kept */
    ts_measured_t *m;
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    ts_measured_set_max_clock_ratio(m, 1.2);
    CU_ASSERT_EQUAL(ts_measured_read_dir(m, dir, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_measured_check_rejected(m, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_measured_count(m), 1);
    CU_ASSERT_EQUAL(ts_measured_get(m, 0)->n, 2);
    CU_ASSERT_EQUAL_FATAL(ts_measured_rejected_count(m), 1);
    const ts_measured_rejected_t *r = ts_measured_rejected(m, 0);
    CU_ASSERT_STRING_EQUAL(r->name, "a");
    CU_ASSERT_PTR_NOT_NULL(strstr(r->source, "a/run2.log"));
    CU_ASSERT_DOUBLE_EQUAL(r->clock, 14, 1e-12);
    ts_measured_free(m);
    /* Without the ratio every run counts. */
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_EQUAL(ts_measured_read_dir(m, dir, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_measured_get(m, 0)->n, 3);
    CU_ASSERT_EQUAL(ts_measured_rejected_count(m), 0);
    ts_measured_free(m);
    /* A setting whose every run is left out. */
    snprintf(p, sizeof p, "%s/b", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/b/run1.log", dir);
    write_timed_log(p, 10, 40);
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    ts_measured_set_max_clock_ratio(m, 1.2);
    CU_ASSERT_EQUAL(ts_measured_read_dir(m, dir, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_measured_check_rejected(m, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "setting 'b': every run was rejected"));
    ts_measured_free(m);

    /* Through the CLI: the report lists what it left out; a bad ratio is a usage error. */
    const char *csv = tmp_path("clock.csv"), *pj = tmp_path("clock.json");
    write_file(csv, "a,10\n");
    write_file(pj, "{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": 9}, "
                   "{\"name\": \"b\", \"predicted_time_s\": 9}]}");
    remove(p); /* b has no logs now: drop its directory */
    snprintf(p, sizeof p, "%s/b", dir);
    rmdir(p);
    char args[4096], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "validate --logs %s --max-clock-ratio 1.2 --predicted %s", dir, pj);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "left out: 1 runs"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "run2.log (ExecutionTime 10.00 s, ClockTime 14 s)"));
    free(out);
    free(errs);
    snprintf(args, sizeof args, "validate --max-clock-ratio 0.5 --measured-csv %s --predicted %s",
             csv, pj);
    CU_ASSERT_NOT_EQUAL(tu_run_cli(args, &out, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL(errs && strstr(errs, "--max-clock-ratio expects a number >= 1"));
    free(out);
    free(errs);
}

/* Measured: A 10 (one run), B 12 and C 9 (five runs each, spreads 0.4 and 0.2);
 * predicted: A 5, B 6.5, C 4. Anchored on A: scale 2 -> 10, 13, 8 -> errors 0, +8.333 %,
 * -11.111 %; MAPE over B and C = 9.7222 %. */
static ts_measured_t *example_measured(void)
{
    ts_error_t err;
    ts_measured_t *m;
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    CU_ASSERT_FATAL(ts_measured_add(m, "A", 10, "t", &err) == TS_OK);
    const double b[] = {12, 11.8, 12.2, 12.1, 11.9}, c[] = {9, 9.1, 8.9, 9.05, 8.95};
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_FATAL(ts_measured_add(m, "B", b[i], "t", &err) == TS_OK);
        CU_ASSERT_FATAL(ts_measured_add(m, "C", c[i], "t", &err) == TS_OK);
    }
    return m;
}

static const char PRED_JSON[] =
    "{\"baseline\": {\"name\": \"A\", \"predicted_time_s\": 5.0},\n"
    " \"sets\": [{\"name\": \"A\", \"settings\": [], \"predicted_time_s\": 5.0},\n"
    "          {\"name\": \"B\", \"predicted_time_s\": 6.5, \"gain_vs_baseline_pct\": -30},\n"
    "          {\"name\": \"C\", \"predicted_time_s\": 4, \"functions\": {}},\n"
    "          {\"name\": \"D\", \"predicted_time_s\": 7}]}\n";

/* v's text report, as ts_validate_print writes it (the caller frees it). */
static char *report_of(const ts_validate_t *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    ts_validate_print(v, fp);
    fclose(fp);
    return buf;
}

static void test_anchor_mape_ordering(void)
{
    ts_error_t err;
    ts_measured_t *m = example_measured();
    const char *pj = tmp_path("pred.json");
    write_file(pj, PRED_JSON);
    ts_predictions_t p;
    CU_ASSERT_FATAL(ts_predictions_read(pj, &p, &err) == TS_OK);
    CU_ASSERT_EQUAL(p.n, 4 + 1); /* the four sets and the baseline */
    ts_validate_t *v;
    CU_ASSERT_FATAL(ts_validate_compute(m, &p, "A", &v, &err) == TS_OK);
    CU_ASSERT_STRING_EQUAL(v->anchor, "A");
    CU_ASSERT_DOUBLE_EQUAL(v->scale, 2, 1e-12);
    CU_ASSERT_EQUAL(v->n, 3);
    CU_ASSERT(v->rows[0].is_anchor);
    CU_ASSERT_DOUBLE_EQUAL(v->rows[0].error_pct, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(v->rows[1].measured.trimmed_mean, 12, 1e-12); /* 11.9 12 12.1 */
    CU_ASSERT_DOUBLE_EQUAL(v->rows[1].predicted, 13, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(v->rows[1].error_pct, 100.0 / 12, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(v->rows[2].measured.trimmed_mean, 9, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(v->rows[2].error_pct, -100.0 / 9, 1e-9);
    CU_ASSERT_EQUAL(v->mape_n, 2);
    CU_ASSERT_DOUBLE_EQUAL(v->mape, (100.0 / 12 + 100.0 / 9) / 2, 1e-9);
    CU_ASSERT_EQUAL(v->within_5pct, 0);
    CU_ASSERT_DOUBLE_EQUAL(v->spearman, 1, 1e-12); /* C < A < B both ways */
    /* All three pairs differ by more than their spreads (0, 0.4, 0.2) and are reproduced. */
    CU_ASSERT_EQUAL(v->npairs, 3);
    CU_ASSERT_EQUAL(v->reproduced, 3);

    char *buf = report_of(v);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "anchored on A: measured 10.000 s / predicted 5.000 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "(anchor)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "+8.33"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-11.11"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "mean absolute error: 9.72 % over 2 settings"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "3 of 3 pairs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "target (every setting within 5 %, ordering "
                                       "reproduced): not met"));
    free(buf);
    ts_validate_free(v);

    /* Not anchored: raw predictions; every row counts in the MAPE (A: -50 %, B: -45.83 %,
     * C: -55.56 %). */
    CU_ASSERT_FATAL(ts_validate_compute(m, &p, NULL, &v, &err) == TS_OK);
    CU_ASSERT_PTR_NULL(v->anchor);
    CU_ASSERT_EQUAL(v->mape_n, 3);
    CU_ASSERT_DOUBLE_EQUAL(v->mape, (50 + 100 * 5.5 / 12 + 100 * 5.0 / 9) / 3, 1e-9);
    ts_validate_free(v);

    /* An ordering the prediction gets wrong: B predicted below A. */
    p.seconds[1] = 4.9; /* B */
    CU_ASSERT_FATAL(ts_validate_compute(m, &p, "A", &v, &err) == TS_OK);
    CU_ASSERT_EQUAL(v->reproduced, 2);
    CU_ASSERT_DOUBLE_EQUAL(v->spearman, 0.5, 1e-12); /* measured C A B, predicted C B A */
    buf = report_of(v);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missed: A faster than B"));
    free(buf);
    ts_validate_free(v);

    /* Errors: unknown anchor, a measured setting without prediction. */
    CU_ASSERT_EQUAL(ts_validate_compute(m, &p, "Z", &v, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--anchor Z"));
    ts_measured_add(m, "E", 3, "e.log", &err);
    CU_ASSERT_EQUAL(ts_validate_compute(m, &p, "A", &v, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'E' was measured (e.log) but has no prediction"));
    ts_predictions_free(&p);
    ts_measured_free(m);

    /* A difference within the spread is not a pair to reproduce. */
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    const double x[] = {10, 11, 12}, y[] = {10.5, 11.5, 12.5};
    for (int i = 0; i < 3; i++) {
        ts_measured_add(m, "x", x[i], "t", &err);
        ts_measured_add(m, "y", y[i], "t", &err);
    }
    ts_predictions_t q = {0};
    char *names[] = {"x", "y"};
    double secs[] = {2, 1};
    q.names = names;
    q.seconds = secs;
    q.n = 2;
    CU_ASSERT_FATAL(ts_validate_compute(m, &q, NULL, &v, &err) == TS_OK);
    CU_ASSERT_EQUAL(v->npairs, 0);
    ts_validate_free(v);
    ts_measured_free(m);
}

/* The report's edges, each exactly on it: an anchor measured at 0 s is refused; an error of
 * exactly 5 % is within 5 %; a pair whose difference equals the larger spread is no pair to
 * reproduce, a larger one is; every setting within 5 % with an ordering missed is not the
 * target. x runs 19.75 and 20.25 (mean 20, spread 0.5); y one run. */
static void test_report_edges(void)
{
    ts_error_t err;
    ts_validate_t *v;
    char *names[] = {"x", "y", "z"};
    double secs[] = {21, 20.5, 1};
    ts_predictions_t p = {.names = names, .seconds = secs, .n = 3};
    ts_measured_t *m;
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    ts_measured_add(m, "x", 19.75, "t", &err);
    ts_measured_add(m, "x", 20.25, "t", &err);
    ts_measured_add(m, "y", 20.5, "t", &err); /* 0.5 from x: equal to the spread */
    ts_measured_add(m, "z", 0, "z.log", &err);
    CU_ASSERT_EQUAL(ts_validate_compute(m, &p, "z", &v, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--anchor z: its measured time is 0"));
    CU_ASSERT_FATAL(ts_validate_compute(m, &p, NULL, &v, &err) == TS_OK);
    CU_ASSERT(v->rows[0].error_pct == 5); /* (21 - 20) / 20 */
    CU_ASSERT(v->rows[1].error_pct == 0);
    CU_ASSERT(isnan(v->rows[2].error_pct)); /* z: no relative error, left out */
    CU_ASSERT_EQUAL(v->mape_n, 2);
    CU_ASSERT_EQUAL(v->within_5pct, 2);
    /* The pairs are z's with x and with y (z faster, predicted so), not x's with y. */
    CU_ASSERT_EQUAL_FATAL(v->npairs, 2);
    CU_ASSERT_EQUAL(v->pairs[0].faster, 2);
    CU_ASSERT_EQUAL(v->pairs[1].faster, 2);
    CU_ASSERT_EQUAL(v->reproduced, 2);
    ts_validate_free(v);
    ts_measured_free(m);

    /* y at 21 s: 1 s from x, over the spread: a pair, x faster; predicted x 20.5 (+2.5 %),
     * y 20.25 (-3.57 %): both within 5 %, the ordering missed, the target not met. */
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    ts_measured_add(m, "x", 19.75, "t", &err);
    ts_measured_add(m, "x", 20.25, "t", &err);
    ts_measured_add(m, "y", 21, "t", &err);
    secs[0] = 20.5;
    secs[1] = 20.25;
    CU_ASSERT_FATAL(ts_validate_compute(m, &p, NULL, &v, &err) == TS_OK);
    CU_ASSERT_EQUAL(v->within_5pct, 2);
    CU_ASSERT_EQUAL(v->npairs, 1);
    CU_ASSERT_EQUAL(v->reproduced, 0);
    char *buf = report_of(v);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "2 of 2 within 5 %"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "0 of 1 pairs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missed: x faster than y"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "reproduced): not met"));
    free(buf);
    ts_validate_free(v);
    /* The same with y predicted slower: every setting within 5 %, the ordering kept: met. */
    secs[1] = 21;
    CU_ASSERT_FATAL(ts_validate_compute(m, &p, NULL, &v, &err) == TS_OK);
    buf = report_of(v);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1 of 1 pairs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "reproduced): met"));
    free(buf);
    ts_validate_free(v);
    ts_measured_free(m);

    /* --max-clock-ratio 1, its least: ClockTime up to ExecutionTime + 1 s is kept. */
    const char *dir = tmp_path("clock1");
    char path[1200];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/a", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/a/run1.log", dir);
    write_timed_log(path, 10, 11); /* 11 <= 1 x 10 + 1: kept */
    snprintf(path, sizeof path, "%s/a/run2.log", dir);
    write_timed_log(path, 10, 12); /* left out (OpenFOAM prints whole seconds) */
    const char *pj = tmp_path("clock1.json");
    write_file(pj, "{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": 10}]}");
    char args[4096], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "validate --logs %s --max-clock-ratio 1 --predicted %s", dir, pj);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "left out: 1 runs"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "run2.log (ExecutionTime 10.00 s, ClockTime 12 s)"));
    CU_ASSERT(out && !strstr(out, "run1.log"));
    free(out);
    free(errs);
}

static void test_predictions_errors(void)
{
    ts_error_t err;
    ts_predictions_t p;
    const char *pj = tmp_path("bad.json");
    static const struct {
        const char *text, *want;
    } BAD[] = {
        {"not json", "not JSON at byte 1 (null expected)"},
        {"{\"sets\": 3}", "with a \"sets\" array"},
        {"{\"sets\": [{\"predicted_time_s\": 1}]}", "sets[0]: expected an object with a \"name\""},
        {"{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": 1}, {\"name\": \"b\"}]}",
         "sets[1]: expected a number \"predicted_time_s\""},
        {"{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": -1}]}", "must be positive"},
        {"{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": 0}]}", "must be positive"},
        {"{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": 1e308}]}",
         "at most 1e9 s, got 1e+308"},
        {"{\"sets\": [{\"name\": \"a\", \"predicted_time_s\": 1}, {\"name\": \"a\", "
         "\"predicted_time_s\": 2}]}",
         "set 'a' appears twice"},
        {"{\"sets\": []}", "no predicted sets"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        write_file(pj, BAD[i].text);
        CU_ASSERT_NOT_EQUAL(ts_predictions_read(pj, &p, &err), TS_OK);
        if (!strstr(err.msg, BAD[i].want))
            printf("\n  case %zu: got '%s'\n", i, err.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, BAD[i].want));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.json"));
    }
}

static void test_cli(void)
{
    const char *csv = tmp_path("cli.csv"), *pj = tmp_path("cli.json");
    write_file(csv, "A,10\nB,12\nB,11.8\nB,12.2\nB,12.1\nB,11.9\nC,9\nC,9.1\nC,8.9\nC,9.05\n"
                    "C,8.95\n");
    write_file(pj, PRED_JSON);
    char args[4096], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args,
             "validate --measured-csv %s --predicted %s --anchor A --json %s/v.json --csv "
             "%s/v.csv",
             csv, pj, tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "anchored on A"));
    char *j1 = tu_read_file(tmp_path("v.json"), NULL), *c1 = tu_read_file(tmp_path("v.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c1);
    CU_ASSERT_PTR_NOT_NULL(strstr(c1, "B,5,13.000000,12.000000,12.000000,11.800000,12.200000,"
                                      "0.400000,8.3333,0\n"));
    json_object *root = json_tokener_parse(j1), *x;
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT(json_object_object_get_ex(root, "mape_pct", &x));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(x), (100.0 / 12 + 100.0 / 9) / 2, 1e-5);
    json_object_put(root);
    free(out);
    free(errs);
    /* Deterministic: the same inputs give byte-identical outputs. */
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &errs), 0);
    char *j2 = tu_read_file(tmp_path("v.json"), NULL), *c2 = tu_read_file(tmp_path("v.csv"), NULL);
    CU_ASSERT(j2 && strcmp(j1, j2) == 0);
    CU_ASSERT(c2 && strcmp(c1, c2) == 0);
    free(j1);
    free(j2);
    free(c1);
    free(c2);
    free(out);
    free(errs);

    /* Bad inputs: non-zero exit, one line on stderr naming the problem, no output file. */
    const char *bad = tmp_path("bad.csv");
    write_file(bad, "A,10\nB;3\n");
    static const char *const WANT[] = {"bad.csv:2: expected", "no measured runs given",
                                       "either as --predicted", "unknown option"};
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        if (i == 0)
            snprintf(args, sizeof args,
                     "validate --measured-csv %s --predicted %s --json %s/no.json", bad, pj,
                     tu_tmpdir());
        else if (i == 1)
            snprintf(args, sizeof args, "validate --predicted %s", pj);
        else if (i == 2)
            snprintf(args, sizeof args, "validate --measured-csv %s", csv);
        else
            snprintf(args, sizeof args, "validate --bogus %s", csv);
        int rc = tu_run_cli(args, &out, &errs);
        CU_ASSERT_NOT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(errs && strstr(errs, WANT[i]));
        if (errs) {
            if (!strstr(errs, WANT[i]))
                printf("\n  case %zu: got '%s'\n", i, errs);
            char *nl = strchr(errs, '\n');
            CU_ASSERT(nl && nl[1] == '\0');
        }
        free(out);
        free(errs);
    }
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(tmp_path("no.json"), &sb), 0);
}

/* Predictions computed by running `tunesim sweep` on the bundled trace (arguments after --). */
static void test_cli_runs_sweep(void)
{
    const char *sets = tmp_path("two.sets"), *csv = tmp_path("two.csv");
    write_file(sets, "[a]\n--mca pml ob1\n\n[b]\n-x UCX_TLS=self,tcp\n");
    write_file(csv, "a,10\nb,12\n");
    char args[4096], *out = NULL, *errs = NULL;
    /* Its temporary directory, with the sweep's files, is gone afterwards (it once stayed
     * behind, empty: unlink does not remove a directory). */
    const char *tmp = tmp_path("tmpdir");
    CU_ASSERT_EQUAL_FATAL(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1);
    snprintf(args, sizeof args,
             "validate --measured-csv %s --anchor a --json %s/sw.json -- "
             "%s/traces/data/simplefoam-pitzdaily-2 --sets %s --platform localhost --nodes 1",
             csv, tu_tmpdir(), TS_SOURCE_DIR, sets);
    int rc = tu_run_cli(args, &out, &errs);
    if (rc != 0)
        printf("\n  stderr: %s\n", errs ? errs : "");
    CU_ASSERT_EQUAL(rc, 0);
    unsetenv("TMPDIR");
    CU_ASSERT_EQUAL(rmdir(tmp), 0); /* fails when anything was left in it */
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "anchored on a"));
    /* The sweep's own table went to stderr; stdout holds the validation alone. */
    CU_ASSERT_PTR_NULL(out ? strstr(out, "sweep ") : NULL);
    json_object *root = json_object_from_file(tmp_path("sw.json")), *rows, *x;
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT(json_object_object_get_ex(root, "settings", &rows));
    CU_ASSERT_EQUAL(json_object_array_length(rows), 2);
    for (size_t i = 0; i < 2; i++) {
        CU_ASSERT(
            json_object_object_get_ex(json_object_array_get_idx(rows, i), "predicted_raw_s", &x));
        CU_ASSERT(json_object_get_double(x) > 0);
    }
    json_object_put(root);
    free(out);
    free(errs);
    /* A sweep that fails: one line naming what failed, and a non-zero exit. The sweep runs in
     * validate's own process (the sweep library), not as a child of its own. */
    snprintf(args, sizeof args, "validate --measured-csv %s -- %s/no-such-trace --sets %s", csv,
             tu_tmpdir(), sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &errs), 1);
    CU_ASSERT_PTR_NOT_NULL(errs && strstr(errs, "tunesim: the sweep after --: "));
    CU_ASSERT_PTR_NOT_NULL(errs && strstr(errs, "no-such-trace"));
    CU_ASSERT(errs && tu_one_line(errs));
    free(out);
    free(errs);
}

/* ---- the committed localhost validation -------------------------------------------------- */

/* Re-derive the table of one committed measurement (tests/data/validation-localhost/RUN) from
 * its logs and predictions, and compare it with its table.json field by field. */
static void check_committed(const char *run)
{
    char dir[1024], logs[1100], pj[1100], tj[1100];
    snprintf(dir, sizeof dir, "%s/tests/data/validation-localhost/%s", TS_SOURCE_DIR, run);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    snprintf(pj, sizeof pj, "%s/predicted.json", dir);
    snprintf(tj, sizeof tj, "%s/table.json", dir);
    struct stat sb;
    CU_ASSERT_FATAL(stat(tj, &sb) == 0); /* committed with scripts/validate_localhost.sh */
    json_object *table = json_object_from_file(tj), *anchor, *rows;
    CU_ASSERT_PTR_NOT_NULL_FATAL(table);
    CU_ASSERT_FATAL(json_object_object_get_ex(table, "anchor", &anchor));
    CU_ASSERT_FATAL(json_object_object_get_ex(table, "settings", &rows));

    ts_error_t err;
    ts_measured_t *m;
    ts_predictions_t p;
    ts_validate_t *v;
    CU_ASSERT_FATAL(ts_measured_new(&m, &err) == TS_OK);
    json_object *ratio, *left;
    if (json_object_object_get_ex(table, "max_clock_ratio", &ratio) && ratio)
        ts_measured_set_max_clock_ratio(m, json_object_get_double(ratio));
    CU_ASSERT_EQUAL_FATAL(ts_measured_read_dir(m, logs, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_measured_check_rejected(m, &err), TS_OK);
    CU_ASSERT(json_object_object_get_ex(table, "left_out", &left));
    CU_ASSERT_EQUAL(json_object_array_length(left), ts_measured_rejected_count(m));
    CU_ASSERT_EQUAL_FATAL(ts_predictions_read(pj, &p, &err), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_validate_compute(m, &p, json_object_get_string(anchor), &v, &err),
                          TS_OK);
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(rows), v->n);
    CU_ASSERT(v->n >= 6);
    /* Every setting was run at least five times, whatever was left out. */
    for (size_t i = 0; i < v->n; i++) {
        size_t runs = ts_measured_get(m, i)->n;
        for (size_t k = 0; k < ts_measured_rejected_count(m); k++)
            runs += strcmp(ts_measured_rejected(m, k)->name, v->rows[i].name) == 0;
        CU_ASSERT(runs >= 5);
    }
    static const char *const KEYS[] = {"predicted_s", "measured_s", "median_s", "min_s",
                                       "max_s",       "spread_s",   "error_pct"};
    for (size_t i = 0; i < v->n; i++) {
        json_object *r = json_object_array_get_idx(rows, i), *x;
        const ts_validate_row_t *row = &v->rows[i];
        CU_ASSERT(json_object_object_get_ex(r, "name", &x));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(x), row->name);
        CU_ASSERT(json_object_object_get_ex(r, "runs", &x));
        CU_ASSERT_EQUAL(json_object_get_int(x), (int)row->measured.n);
        CU_ASSERT(row->measured.n >= 1);
        const double got[] = {row->predicted,    row->measured.trimmed_mean, row->measured.median,
                              row->measured.min, row->measured.max,          row->measured.spread,
                              row->error_pct};
        for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++) {
            CU_ASSERT(json_object_object_get_ex(r, KEYS[k], &x));
            CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(x), got[k], 1e-5);
        }
    }
    json_object *x;
    CU_ASSERT(json_object_object_get_ex(table, "mape_pct", &x));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(x), v->mape, 1e-5);
    CU_ASSERT(json_object_object_get_ex(table, "spearman", &x));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(x), v->spearman, 1e-5);
    json_object *ord;
    CU_ASSERT(json_object_object_get_ex(table, "ordering", &ord));
    CU_ASSERT(json_object_object_get_ex(ord, "reproduced", &x));
    CU_ASSERT_EQUAL(json_object_get_int(x), (int)v->reproduced);
    CU_ASSERT(json_object_object_get_ex(ord, "pairs", &x));
    CU_ASSERT_EQUAL(json_object_get_int(x), (int)v->npairs);
    ts_validate_free(v);
    ts_predictions_free(&p);
    ts_measured_free(m);
    json_object_put(table);
}

static void test_committed_localhost(void)
{
    /* The two measurements scripts/validate_localhost.sh made on 2026-11-30. */
    check_committed("run-1130-0618");
    check_committed("run-1130-0715");
    check_committed("run-1130-quiet");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("validate", NULL, NULL);
    CU_add_test(s, "OpenFOAM logs: last ExecutionTime, errors", test_log_parsing);
    CU_add_test(s, "trimmed mean, median, spread", test_stats);
    CU_add_test(s, "Spearman rank correlation", test_spearman);
    CU_add_test(s, "CSV input and its errors", test_csv_and_errors);
    CU_add_test(s, "log directories and manifests", test_dir_and_manifest);
    CU_add_test(s, "anchoring, MAPE, ordering", test_anchor_mape_ordering);
    CU_add_test(s, "--max-clock-ratio: descheduled runs left out", test_clock_ratio);
    CU_add_test(s, "the report's edges: anchor 0 s, 5 %, spread, target, ratio 1",
                test_report_edges);
    CU_add_test(s, "sweep JSON errors", test_predictions_errors);
    CU_add_test(s, "tunesim validate CLI", test_cli);
    CU_add_test(s, "tunesim validate running the sweep", test_cli_runs_sweep);
    CU_add_test(s, "committed localhost validation", test_committed_localhost);
    return tu_run_all();
}
