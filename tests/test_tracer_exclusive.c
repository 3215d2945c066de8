/* test_tracer_exclusive.c - `tunesim record --exclusive` timed (traces/tracer/exclusive.h):
 * with one token no two compute bursts overlap, and bursts.c's sweeps of 8 ranks under one
 * token match one rank alone; and a recording replaces only tunesim's own trace, and only once
 * the new one is complete. The programs run under mpirun (tracerrun.h); skips (exit 77) when
 * mpirun or the tracer is missing. A recording that fails or is interrupted leaves the
 * directory as it was, and its program ended. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "tracerrun.h"

/* With one token no two compute bursts run at once: on the wall clock (one clock for all the
 * ranks of a host) the bursts between compute.c's barriers do not overlap, and each lasts at
 * least its 50 ms of CPU time. Without the mode, 4 ranks on 2 cores overlap. */
static void test_exclusive_one_at_a_time(void)
{
    const run_t r = {"compute", 4, "ob1", "wall", 0, "1"};
    char dir[1024];
    ts_trace_t *t = record(&r, dir, sizeof dir);
    if (t == NULL)
        return;
    int32_t barrier = ts_trace_func_find(t, "MPI_Barrier");
    int64_t start[4] = {0}, end[4] = {0};
    for (int me = 0; me < 4; me++) {
        stream_t s = read_stream(t, me);
        int seen = 0;
        for (size_t i = 1; i < s.n; i++)
            if (s.ev[i].kind == TS_EV_ENTER && s.ev[i].func == barrier && ++seen == 2 &&
                s.ev[i - 1].kind == TS_EV_COMPUTE) {
                end[me] = s.ev[i].time;
                start[me] = end[me] - s.ev[i - 1].time;
            }
        CU_ASSERT(end[me] - start[me] >= 50 * 1000000LL);
        free_stream(&s);
    }
    int overlaps = 0;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            overlaps += start[a] < end[b] && start[b] < end[a];
    if (overlaps)
        for (int a = 0; a < 4; a++)
            printf("\n  rank %d: burst %lld .. %lld ns", a, (long long)start[a], (long long)end[a]);
    CU_ASSERT_EQUAL(overlaps, 0);
    ts_trace_close(t);
}

/* The sweeps of bursts.c (the compute bursts before each MPI_Sendrecv), in ns, sorted. */
static int sweeps(const ts_trace_t *t, int64_t *out, int max)
{
    int32_t sendrecv = ts_trace_func_find(t, "MPI_Sendrecv");
    int n = 0;
    for (int me = 0; me < ts_trace_nranks(t); me++) {
        stream_t s = read_stream(t, me);
        int first = 1;
        for (size_t i = 1; i < s.n; i++)
            if (s.ev[i].kind == TS_EV_ENTER && s.ev[i].func == sendrecv &&
                s.ev[i - 1].kind == TS_EV_COMPUTE) {
                if (!first && n < max) /* the first holds the array's set-up */
                    out[n++] = s.ev[i - 1].time;
                first = 0;
            }
        free_stream(&s);
    }
    for (int i = 1; i < n; i++) /* insertion sort: a few hundred values */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n;
}

/* bursts.c's sweeps recorded with 8 ranks on this machine's cores with one token against the
 * same program as one rank alone: the median within 20 %; the sweeps are a fixed amount of
 * work over a cache-sized array. One token, as the reference, keeps every burst alone on the
 * machine: with a token per core, the bursts of two ranks at once slow each other as this
 * machine's two vCPUs do (docs/recording.md), by as much as their overlap happens to be, and
 * two ranks one per core measured 13.2 ms against the two tokens' 10.4 ms on one run here.
 * The cpu clock, so the time a rank waits for its turn does not count either way. */
static void test_exclusive_bursts(void)
{
    const int ref_ranks = 1;
    const run_t ref = {"bursts", ref_ranks, "ob1", "cpu", 0, NULL};
    const run_t excl = {"bursts", 8, "ob1", "cpu", 0, "1"};
    char dir[1024];
    static int64_t a[8 * 40], b[8 * 40];
    ts_trace_t *t = record(&ref, dir, sizeof dir);
    if (t == NULL)
        return;
    int na = sweeps(t, a, 8 * 40);
    ts_trace_close(t);
    if ((t = record(&excl, dir, sizeof dir)) == NULL)
        return;
    int nb = sweeps(t, b, 8 * 40);
    ts_trace_close(t);
    CU_ASSERT_EQUAL(na, ref_ranks * 39);
    CU_ASSERT_EQUAL(nb, 8 * 39);
    if (na == 0 || nb == 0)
        return;
    double ma = (double)a[na / 2], mb = (double)b[nb / 2];
    printf("\n  sweep median: %.3f ms one rank alone, %.3f ms 8 ranks exclusive=1 (%+.1f %%)",
           ma / 1e6, mb / 1e6, 100 * (mb / ma - 1));
    CU_ASSERT(mb > 0.8 * ma && mb < 1.2 * ma);
}

/* Issue 30 item 3: a recording replaces only tunesim's own trace, and only once the new one
 * is complete: a run that fails keeps the previous trace as it was and leaves no unfinished
 * archive behind; a directory holding another tool's "traces" archive (Score-P's) is refused
 * before anything runs, its files untouched. */
static int record_into(const char *dir, const char *program, char **err)
{
    char args[4096];
    snprintf(args, sizeof args,
             "record -o '%s' --clock wall -- '%s' --allow-run-as-root --oversubscribe --timeout "
             "120 --mca pml ob1 -np 2 '%s/tracer_%s'",
             dir, TS_MPIEXEC, TS_MPI_BIN_DIR, program);
    return tu_run_cli(args, NULL, err);
}

static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

static void test_replace_safely(void)
{
    char dir[1024], anchor[1100], *err = NULL;
    snprintf(dir, sizeof dir, "%s/replace", tu_tmpdir());
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    CU_ASSERT_EQUAL_FATAL(record_into(dir, "ring", &err), 0);
    free(err);
    char *before = tu_read_file(anchor, NULL);
    struct stat sb;
    CU_ASSERT_FATAL(before != NULL && stat(anchor, &sb) == 0);
    time_t mtime = sb.st_mtime;
    sleep(1); /* a replaced anchor would show a newer time */
    /* A run that dies after MPI_Init: an error, the old trace kept, nothing hidden left. */
    CU_ASSERT_NOT_EQUAL(record_into(dir, "abort", &err), 0);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "its unfinished trace was removed") : NULL);
    free(err);
    CU_ASSERT_EQUAL(count_prefixed(dir, ".tunesim-"), 1); /* the mark only */
    CU_ASSERT_EQUAL(stat(anchor, &sb), 0);
    CU_ASSERT_EQUAL(sb.st_mtime, mtime);
    ts_trace_t *t = NULL;
    ts_error_t e;
    ts_error_clear(&e);
    CU_ASSERT_EQUAL(ts_trace_open(dir, &t, &e), TS_OK);
    ts_trace_close(t);
    /* A successful run replaces it: a newer anchor, no set-aside copy left. */
    CU_ASSERT_EQUAL(record_into(dir, "ring", &err), 0);
    free(err);
    CU_ASSERT(stat(anchor, &sb) == 0 && sb.st_mtime > mtime);
    CU_ASSERT_EQUAL(count_prefixed(dir, ".tunesim-old."), 0);
    CU_ASSERT_EQUAL(count_prefixed(dir, ".tunesim-trace."), 0);
    free(before);

    /* Another tool's archive: refused before the run, its files untouched. */
    char foreign[1024], path[1100];
    snprintf(foreign, sizeof foreign, "%s/scorep-like", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(mkdir(foreign, 0700), 0);
    snprintf(path, sizeof path, "%s/traces.otf2", foreign);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_FATAL(fp != NULL);
    fputs("OTF2 anchor written by Score-P 8.4\n", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/traces", foreign);
    CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
    CU_ASSERT_NOT_EQUAL(record_into(foreign, "ring", &err), 0);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "holds a trace tunesim did not write") : NULL);
    free(err);
    snprintf(path, sizeof path, "%s/traces.otf2", foreign);
    char *kept = tu_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(kept ? strstr(kept, "Score-P 8.4") : NULL);
    free(kept);
    CU_ASSERT_EQUAL(count_prefixed(foreign, ".tunesim-"), 0);
}

/* How many processes run the test program prog (their command line names it). */
static int count_running(const char *prog)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[300], buf[4096];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        size_t got = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        for (size_t i = 0; i < got; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        buf[got] = '\0';
        n += strstr(buf, prog) != NULL;
    }
    if (d)
        closedir(d);
    return n;
}

/* Interrupted during the run, with SIGTERM to tunesim alone (a batch system ending the job) or
 * SIGINT to tunesim and the program (Ctrl-C): tunesim ends the program, removes its unfinished
 * trace and the directory it made, and dies of the signal; no rank goes on to write a trace. */
static void test_interrupted(void)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    for (int k = 0; k < 2; k++) {
        char dir[1024], prog[1024], errp[1100];
        snprintf(dir, sizeof dir, "%s/interrupted-%d", tu_tmpdir(), k);
        snprintf(prog, sizeof prog, "%s/tracer_slow", TS_MPI_BIN_DIR);
        snprintf(errp, sizeof errp, "%s.err", dir);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            setpgid(0, 0); /* a group of its own, as a terminal's foreground job */
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            if (!freopen(errp, "w", stderr) || !freopen("/dev/null", "w", stdout))
                _exit(126);
            execl(TS_CLI, TS_CLI, "record", "-o", dir, "--clock", "wall", "--", TS_MPIEXEC,
                  "--allow-run-as-root", "--oversubscribe", "--timeout", "120", "--mca", "pml",
                  "ob1", "-np", "2", prog, (char *)NULL);
            _exit(127);
        }
        setpgid(pid, pid);
        /* Into the run: the tracer has begun its archive (seconds, mpirun's start). */
        int begun = 0;
        for (int i = 0; i < 600 && !begun; i++) {
            begun = count_prefixed(dir, ".tunesim-trace.") > 0;
            if (!begun)
                usleep(100000);
        }
        CU_ASSERT_TRUE(begun);
        kill(k ? -pid : pid, sigs[k]);
        int status = 0, done = 0;
        for (int i = 0; i < 900 && !done; i++) { /* within 90 s: ended, not left to finish */
            done = waitpid(pid, &status, WNOHANG) == pid;
            if (!done)
                usleep(100000);
        }
        if (!done) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        CU_ASSERT_TRUE(done);
        CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]))
            printf("\n  signal %d: status %#x\n", sigs[k], status);
        CU_ASSERT_EQUAL(count_running("tracer_slow"), 0);
        struct stat sb;
        CU_ASSERT_NOT_EQUAL(stat(dir, &sb), 0); /* tunesim made it; it is gone */
    }
}

/* A program that fails after MPI_Finalize has a complete trace, which the tracer has moved in:
 * the failure says so. */
static void test_fails_after_finalize(void)
{
    char dir[1024], anchor[1100], *err = NULL;
    snprintf(dir, sizeof dir, "%s/latefail", tu_tmpdir());
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    CU_ASSERT_EQUAL(record_into(dir, "latefail", &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "after its ranks finished MPI: its complete trace "
                                             "was written to")
                               : NULL);
    free(err); /* mpirun's own lines come before tunesim's */
    ts_trace_t *t = NULL;
    ts_error_t e;
    ts_error_clear(&e);
    CU_ASSERT_EQUAL(ts_trace_open(dir, &t, &e), TS_OK);
    ts_trace_close(t);
    /* A run that fails before MPI_Init's archive is moved in, into a directory that did not
     * exist: the directory goes too. */
    snprintf(dir, sizeof dir, "%s/aborted-new", tu_tmpdir());
    CU_ASSERT_NOT_EQUAL(record_into(dir, "abort", &err), 0);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "is as it was") : NULL);
    free(err);
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(dir, &sb), 0);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    if (!tracer_ready())
        return tu_run_all();
    CU_pSuite s = CU_add_suite("tracer, exclusive mode and replacement", NULL, NULL);
    CU_add_test(s, "a trace replaced only when the new one is complete", test_replace_safely);
    CU_add_test(s, "a failure after MPI_Finalize says the trace is in", test_fails_after_finalize);
    CU_add_test(s, "interrupted: the program ended, nothing left", test_interrupted);
    CU_add_test(s, "exclusive=1: no two bursts at once", test_exclusive_one_at_a_time);
    CU_add_test(s, "exclusive=1: bursts as one rank alone", test_exclusive_bursts);
    return tu_run_all();
}
