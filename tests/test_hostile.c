/* test_hostile.c - issue 12: the command line given careless or hostile input. Each test is one
 * numbered defect of the issue and asserts on what a user sees: the exit status, the one-line
 * message, and which files exist afterwards. */
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "common/outfile.h"
#include "common/tmpfiles.h"
#include "hostilecheck.h"
#include "testutil.h"

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* Defect 2: convert never empties a directory that is not its own earlier output. */
static void test_convert_refuses_foreign_dir(void)
{
    const char *v = tu_path("v"), *notes = tu_path("v/NOTES.txt"),
               *anchor = tu_path("v/traces.otf2");
    CU_ASSERT_EQUAL_FATAL(tu_copy_dir(tu_bundled(), v), 0);
    FILE *fp = fopen(notes, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("x\n", fp);
    fclose(fp);
    expect_cli(1, "is not a previous TI export", "convert '%s' --to ti -o '%s'", v, v);
    CU_ASSERT(exists(notes));
    CU_ASSERT(exists(anchor));
    CU_ASSERT_EQUAL(count_prefixed(tu_tmpdir(), "v."), 0);

    /* A fresh directory, then the same again: a previous TI export is replaced. */
    const char *ti = tu_path("ti");
    expect_cli(0, NULL, "convert '%s' --to ti -o '%s'", tu_bundled(), ti);
    CU_ASSERT(exists(tu_path("ti/ti.txt")));
    expect_cli(0, NULL, "convert '%s' --to ti -o '%s'", tu_bundled(), ti);
    CU_ASSERT(exists(tu_path("ti/rank-1.txt")));
    /* ... but not once it holds something else. */
    fp = fopen(tu_path("ti/keep.me"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fclose(fp);
    expect_cli(1, "holds 'keep.me'", "convert '%s' --to ti -o '%s'", tu_bundled(), ti);
    CU_ASSERT(exists(tu_path("ti/keep.me")));
    CU_ASSERT(exists(tu_path("ti/ti.txt")));

    /* A store replaces only a store, never the trace's own anchor. */
    expect_cli(1, "is not a tunesim store", "convert '%s' -o '%s'", v, anchor);
    char *a = tu_read_file(anchor, NULL), *b = NULL;
    char orig[1200];
    snprintf(orig, sizeof orig, "%s/traces.otf2", tu_bundled());
    b = tu_read_file(orig, NULL);
    CU_ASSERT(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    expect_cli(0, NULL, "convert '%s' -o '%s'", tu_bundled(), tu_path("s.tss"));
    expect_cli(0, NULL, "convert '%s' -o '%s'", tu_bundled(), tu_path("s.tss"));
}

/* Defect 8: values outside a parameter's valid range are refused, with the range, on the
 * command line and in a model file; `tunesim params` shows the ranges. */
static void test_out_of_range_values(void)
{
    static const struct {
        const char *arg, *msg;
    } bad[] = {
        {"--set model.cpu.speed_ratio=-1", "model.cpu.speed_ratio: value '-1' out of range "
                                           "(expected 0.001 .. 1000)"},
        {"-x UCX_MAX_RNDV_LANES=-3",
         "UCX_MAX_RNDV_LANES: value '-3' out of range (expected 1 .. 16)"},
        {"-x UCX_MAX_EAGER_LANES=-1", "out of range (expected 1 .. 16)"},
        {"-x UCX_RNDV_PERF_DIFF=-100", "out of range (expected 0 .. 100)"},
        {"--set model.net.seg_size=0", "out of range (expected 1b .. 1gb)"},
        {"--set model.net.nodes_per_leaf=0", "out of range (expected 1 .. 100000)"},
        {"--set model.net.latency=1e20s", "out of range (expected 0s .. 60s)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_cli(1, bad[i].msg, "replay '%s' --nodes 2 --ppn 1 %s", tu_bundled(), bad[i].arg);
    const char *model = write_tmp(
        "bad-model.xml",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<tunesim-model platform=\"bm-optimized3.36\" created-from=\"hand\" version=\"1\">\n"
        "  <param name=\"model.cpu.speed_ratio\" value=\"-1\" source=\"hand\"/>\n"
        "</tunesim-model>\n");
    expect_cli(1, "bad-model.xml:3: model.cpu.speed_ratio: value '-1' out of range",
               "replay '%s' --nodes 2 --ppn 1 --model '%s'", tu_bundled(), model);
    char *out = NULL;
    CU_ASSERT_EQUAL(tu_run_cli("params", &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "valid range"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "0.001 .. 1000"));
    free(out);
}

/* Run a shell command line (the CLI is TS_CLI); its stdout in *out (may be NULL). Returns the
 * exit status, or -1 if it did not exit normally. */
static int run_sh(const char *cmd, char **out)
{
    char full[8192], o[512];
    snprintf(o, sizeof o, "%s/sh.out", tu_tmpdir());
    snprintf(full, sizeof full, "( %s ) >'%s' 2>&1 </dev/null", cmd, o);
    int status = system(full);
    if (out)
        *out = tu_read_file(o, NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The "predicted" line of a replay's text report, copied into buf. */
static const char *predicted_line(const char *report, char *buf, size_t n)
{
    const char *l = report ? strstr(report, "predicted") : NULL;
    size_t len = l ? strcspn(l, "\n") : 0;
    snprintf(buf, n, "%.*s", (int)len, l ? l : "");
    return buf;
}

/* Defect 3: the platform is generated for the nodes that hold ranks. --nodes 100000 on the
 * 2-rank trace wrote gigabytes into /tmp and hung: here under a 100 MB file-size limit and a
 * minute, it must give the prediction of --nodes 2 (both nodes sit under one leaf either way). */
static void test_platform_only_used_nodes(void)
{
    char cmd[4096], a[256], b[256];
    char *big = NULL, *small = NULL;
    snprintf(cmd, sizeof cmd,
             "ulimit -f 102400; TMPDIR='%s' timeout 60 %s replay '%s' --nodes "
             "100000 --ppn 1",
             tu_tmpdir(), TS_CLI, tu_bundled());
    int rc = run_sh(cmd, &big);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0)
        printf("\n  exit %d: %.300s", rc, big ? big : "");
    snprintf(cmd, sizeof cmd, "%s replay '%s' --nodes 2 --ppn 1", TS_CLI, tu_bundled());
    CU_ASSERT_EQUAL(run_sh(cmd, &small), 0);
    predicted_line(big, a, sizeof a);
    predicted_line(small, b, sizeof b);
    CU_ASSERT(a[0] && strcmp(a, b) == 0);
    free(big);
    free(small);
}

/* Defect 4: a latency of 1e308 s killed SimGrid (SIGABRT, no tunesim message) and a bandwidth
 * of 1e-310 MB/s was reported as a deadlock of the trace: both are refused, as is a platform
 * file's rate that no run could use. */
static void test_extreme_rates(void)
{
    char *out = NULL, *err = NULL, args[2048];
    snprintf(args, sizeof args, "replay '%s' --nodes 2 --ppn 1 --set model.net.latency=1e308s",
             tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err && strstr(err, "tunesim: model.net.latency: value '1e308s' out of range"));
    CU_ASSERT(tu_one_line(err));
    free(out);
    free(err);
    snprintf(args, sizeof args,
             "replay '%s' --nodes 2 --ppn 1 --set model.net.bandwidth=1e-310MB/s", tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err && strstr(err, "model.net.bandwidth: value '1e-310MB/s' out of range"));
    CU_ASSERT(err && !strstr(err, "deadlock"));
    free(out);
    free(err);
    char src[1200];
    snprintf(src, sizeof src, "%s/platforms/bm-optimized3.36.platform", TS_SOURCE_DIR);
    char *text = tu_read_file(src, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *upi = strstr(text, "\nupi_bandwidth");
    CU_ASSERT_PTR_NOT_NULL_FATAL(upi);
    size_t at = (size_t)(upi - text) + 1, len = strcspn(upi + 1, "\n");
    char edited[16384];
    snprintf(edited, sizeof edited, "%.*supi_bandwidth = 1e-300%s", (int)at, text, upi + 1 + len);
    free(text);
    const char *pf = write_tmp("tiny.platform", edited);
    expect_cli(1, "bad value '1e-300' for upi_bandwidth (expected a number of bytes/s in 1 .. 1e14",
               "replay '%s' --platform '%s' --nodes 1 --ppn 2 --map-by cyclic", tu_bundled(), pf);
}

/* Defect 7: colliding or unwritable outputs are refused before any set runs: the results
 * file the run would create is absent afterwards, and nothing is overwritten. */
static void test_sweep_outputs_checked_first(void)
{
    const char *sets = write_tmp("two.sets", "[a]\n[b]\n-x UCX_TLS=self,sm,rc\n");
    const char *x = tu_path("x.out"), *r = tu_path("r.jsonl");
    expect_cli(2, "are the same file",
               "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1 "
               "--results '%s' --json '%s'",
               tu_bundled(), sets, x, x);
    CU_ASSERT(!exists(x));
    expect_cli(2, "are the same file",
               "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1 "
               "--json '%s' --csv '%s' --results '%s'",
               tu_bundled(), sets, x, x, r);
    CU_ASSERT(!exists(x));
    CU_ASSERT(!exists(r));
    /* The same file by another name, and an output over an input. */
    expect_cli(2, "are the same file",
               "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1 "
               "--json '%s' --csv '%s/./x.out' --results '%s'",
               tu_bundled(), sets, x, tu_tmpdir(), r);
    char *before = tu_read_file(sets, NULL);
    expect_cli(2, "is both an input (--sets) and an output (--csv",
               "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1 "
               "--csv '%s' --results '%s'",
               tu_bundled(), sets, sets, r);
    char *after = tu_read_file(sets, NULL);
    CU_ASSERT(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    CU_ASSERT(!exists(r));
    /* A --plot prefix in a directory that does not exist: found before the sets run. */
    expect_cli(1, "no directory",
               "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1 --plot "
               "'%s/nowhere/p' --results '%s'",
               tu_bundled(), sets, tu_tmpdir(), r);
    CU_ASSERT(!exists(r));
}

/* Defect 9: the rank count of --mpirun must be the trace's, and its -N the placement's. */
static void test_mpirun_counts(void)
{
    expect_cli(1, "--mpirun runs 1 rank, but the trace has 2",
               "replay '%s' --nodes 2 --mpirun 'mpirun -n 1'", tu_bundled());
    expect_cli(1, "--mpirun runs 72 ranks, but the trace has 2",
               "replay '%s' --mpirun 'mpirun -n 72 -N 36'", tu_bundled());
    expect_cli(2, "--mpirun places 1 ranks per node (-N), --ppn 2",
               "replay '%s' --ppn 2 --mpirun 'mpirun -np 2 -N 1'", tu_bundled());
    expect_cli(0, NULL, "replay '%s' --nodes 2 --mpirun 'mpirun -n 2 -N 1'", tu_bundled());
    /* srun -N 2 says 2 nodes: --nodes 1 contradicts it (a usage error, as -N vs --ppn is). */
    expect_cli(2, "--mpirun runs on 2 nodes, --nodes 1",
               "replay '%s' --nodes 1 --mpirun 'srun -n 2 -N 2'", tu_bundled());
    /* 0 nodes is no count (not "unset, take the trace's"). */
    expect_cli(2, "--nodes expects a count, got '0'", "replay '%s' --nodes 0", tu_bundled());
    expect_cli(2, "--nps expects NUMA domains per socket, 1 to 64", "replay '%s' --nps 0",
               tu_bundled());
}

/* Lines of a file (newline-terminated), -1 if unreadable. */
static int count_lines(const char *path)
{
    size_t n = 0;
    char *t = tu_read_file(path, &n);
    if (!t)
        return -1;
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += t[i] == '\n';
    free(t);
    return lines;
}

/* Defect 6: a results line of NUL bytes hid every later line (those sets ran again, and were
 * appended again, on every rerun), and an edited result was trusted. Each line now carries a
 * checksum; what does not verify runs again, with a note, and the lines after it still count. */
/* A sweep of the bundled trace over the sets text, its results in tu_path(results): run once
 * (it must succeed); args (size 4096) keeps the command line to run it again. */
static const char *sweep_with_results(const char *sets_text, const char *results, char *args)
{
    char name[64];
    snprintf(name, sizeof name, "%s.sets", results);
    const char *sets = write_tmp(name, sets_text);
    const char *r = tu_path(results);
    snprintf(args, 4096, "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1 --results '%s'",
             tu_bundled(), sets, r);
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    return r;
}

static void test_results_checksums(void)
{
    char args[4096];
    const char *r = sweep_with_results("[a]\n[b]\n-x UCX_TLS=self,sm,rc\n[c]\n"
                                       "-x UCX_ZCOPY_THRESH=128kb\n",
                                       "three.jsonl", args);
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL_FATAL(count_lines(r), 3);
    size_t n = 0;
    char *text = tu_read_file(r, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"check\":\""));
    /* The middle line becomes NUL bytes, newline kept. */
    char *l2 = strchr(text, '\n') + 1, *l3 = strchr(l2, '\n');
    memset(l2, 0, (size_t)(l3 - l2));
    FILE *fp = fopen(r, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite(text, 1, n, fp);
    fclose(fp);
    free(text);
    for (int run = 0; run < 2; run++) {
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT(err && strstr(err, "three.jsonl:2: NUL bytes in the line: its set runs again"));
        /* Set b once more, and only the first time: c's line was read. */
        CU_ASSERT_EQUAL(count_lines(r), 4);
        free(out);
        free(err);
    }
    /* An edited value: the line no longer verifies, so its set runs again. */
    text = tu_read_file(r, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *v = strstr(text, "\"predicted_time_s\":");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    v += strlen("\"predicted_time_s\":");
    CU_ASSERT_FATAL(*v >= '0' && *v <= '9');
    *v = *v == '9' ? '1' : (char)(*v + 1);
    fp = fopen(r, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite(text, 1, n, fp);
    fclose(fp);
    free(text);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT(err && strstr(err, "three.jsonl:1: the checksum does not match (edited or damaged)"));
    CU_ASSERT_EQUAL(count_lines(r), 5);
    free(out);
    free(err);
}

/* Defect 5, in the modules: a process killed by INT or TERM (or HUP, QUIT, PIPE: the seventh
 * pass) while it writes an output file, an output directory (convert --to ti) or a temporary
 * file under TMPDIR leaves none of them. */
static void test_interrupt_cleanup(void)
{
    const char *dir = tu_path("interrupted");
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            setenv("TMPDIR", dir, 1);
            struct rlimit nocore = {0, 0}; /* SIGQUIT's default dumps core */
            setrlimit(RLIMIT_CORE, &nocore);
            ts_tmp_install_handlers();
            char path[1200], made[1200];
            ts_outfile_t *f = NULL;
            ts_outdir_t *d = NULL;
            snprintf(path, sizeof path, "%s/out.json", dir);
            if (ts_outfile_open(path, &f, NULL) != TS_OK)
                _exit(3);
            fputs("{\"partial\":", ts_outfile_stream(f));
            fflush(ts_outfile_stream(f));
            snprintf(path, sizeof path, "%s/ti", dir);
            static const ts_outdir_kind_t kind = {"TI export", "ti.txt", NULL};
            if (ts_outdir_open(path, &kind, &d, NULL) != TS_OK)
                _exit(4);
            snprintf(path, sizeof path, "%s/rank-0.txt", ts_outdir_path(d));
            FILE *fp = fopen(path, "w");
            if (!fp)
                _exit(5);
            fputs("0 init\n", fp);
            fclose(fp);
            if (ts_tmp_file("tunesim-platform", ".xml", made, sizeof made, NULL) != TS_OK ||
                strncmp(made, dir, strlen(dir)) != 0)
                _exit(6);
            raise(sigs[k]);
            _exit(7); /* not reached: the handler dies of the signal */
        }
        int status = 0;
        CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
        CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
        if (!WIFSIGNALED(status))
            printf("\n  child exited with %d", WEXITSTATUS(status));
        CU_ASSERT_EQUAL(count_prefixed(dir, ""), 2); /* "." and ".." */
    }
}

/* Defect 5, end to end: the replay's platform XML is made under TMPDIR with an unpredictable
 * name and unlinked as soon as it is open (SimGrid reads it through /proc/self/fd), so neither
 * a running replay nor one killed by SIGKILL leaves a platform file (it used to be
 * /tmp/tunesim-platform.PID.xml until the end of the run). */
static void test_replay_platform_file(void)
{
    char gen[1200], trace[1200], cmd[4096];
    snprintf(gen, sizeof gen, "%s", TS_CLI);
    char *slash = strrchr(gen, '/');
    CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
    snprintf(slash, sizeof gen - (size_t)(slash - gen), "/gen_coll_trace");
    snprintf(trace, sizeof trace, "%s", tu_path("slow.tss"));
    /* 72 ranks x 100000 Allreduces: seconds of simulation after the platform is loaded (the
     * test kills it after about one). */
    snprintf(cmd, sizeof cmd, "'%s' allreduce 72 100000 '%s' >/dev/null", gen, trace);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    const char *dir = tu_path("replay-tmp");
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        setenv("TMPDIR", dir, 1);
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        execl(TS_CLI, TS_CLI, "replay", trace, "--nodes", "2", "--ppn", "36", (char *)NULL);
        _exit(127);
    }
    char old_name[256];
    snprintf(old_name, sizeof old_name, "/tmp/tunesim-platform.%d.xml", (int)pid);
    /* Into the run (the platform is written and loaded in well under a second; a slower,
     * sanitized build gets up to 30 s more for its name to go), before its end. */
    usleep(1000 * 1000);
    int status = 0;
    for (int i = 0; i < 3000 && count_prefixed(dir, "tunesim-") != 0; i++)
        usleep(10 * 1000);
    CU_ASSERT_EQUAL(waitpid(pid, &status, WNOHANG), 0);
    CU_ASSERT_EQUAL(count_prefixed(dir, "tunesim-"), 0);
    CU_ASSERT(!exists(old_name));
    kill(pid, SIGKILL);
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CU_ASSERT_EQUAL(count_prefixed(dir, "tunesim-"), 0);
    CU_ASSERT(!exists(old_name));
    unlink(old_name); /* what the old code left behind */
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A copy of the bundled trace as a store whose rank 1 has a corrupt chunk. */
static const char *corrupt_store(void)
{
    const char *st = tu_path("corrupt.tss");
    expect_cli(0, NULL, "convert '%s' -o '%s'", tu_bundled(), st);
    size_t n = 0;
    char *b = tu_read_file(st, &n);
    CU_ASSERT_FATAL(b && n > 200);
    memset(b + n - 100, 0xff, 4);
    FILE *fp = fopen(st, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite(b, 1, n, fp);
    fclose(fp);
    free(b);
    return st;
}

/* Defect 10, the smaller ones. */
static void test_smaller_ones(void)
{
    /* A NUL byte inside a sets line is an error, not the silent end of the line. */
    const char *sets = tu_path("nul.sets");
    FILE *fp = fopen(sets, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static const char text[] = "[a]\n-x UCX_TLS=rc\0 -x UCX_ZCOPY_THRESH=bogus\n";
    fwrite(text, 1, sizeof text - 1, fp);
    fclose(fp);
    char *out = NULL, *err = NULL, args[4096];
    snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1", tu_bundled(),
             sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err && strstr(err, "nul.sets:2: a NUL byte in the line (expected text)"));
    free(out);
    free(err);

    /* A corrupt chunk names the trace once, and the sweep's failed sets line up. */
    const char *bad = corrupt_store();
    snprintf(args, sizeof args, "replay '%s' --nodes 2 --ppn 1", bad);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err && strstr(err, "rank 1, chunk"));
    CU_ASSERT_EQUAL(count_of(err, "corrupt.tss"), 1);
    free(out);
    free(err);
    sets = write_tmp("failing.sets", "[a]\n[longer-name]\n-x UCX_TLS=rc\n");
    snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 2 --ppn 1 -j 1", bad, sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    const char *f = out ? strstr(out, "\nfailed\n") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    const char *l1 = f + strlen("\nfailed\n"), *l2 = strchr(l1, '\n') + 1;
    CU_ASSERT(strncmp(l1, "  a            /", 16) == 0);
    CU_ASSERT(strncmp(l2, "  longer-name  /", 16) == 0);
    free(out);
    free(err);

    /* A model file for another platform, or of an unknown version, is refused. */
    const char *other = write_tmp(
        "other.xml", "<?xml version=\"1.0\"?>\n<tunesim-model platform=\"localhost\" "
                     "created-from=\"hand\" version=\"1\">\n  <param name=\"model.net.latency\" "
                     "value=\"2us\" source=\"hand\"/>\n</tunesim-model>\n");
    expect_cli(1,
               "other.xml: a model file made for platform 'localhost', but the replay runs "
               "on 'bm-optimized3.36'",
               "replay '%s' --nodes 2 --ppn 1 --model '%s'", tu_bundled(), other);
    expect_cli(0, NULL, "replay '%s' --platform localhost --nodes 1 --ppn 2 --model '%s'",
               tu_bundled(), other);
    /* In a sets file the mistake is the --model line's, not the section's. */
    char msets[1200];
    snprintf(msets, sizeof msets, "[a]\nUCX_TLS=self,sm,rc\n--model %s\n", other);
    const char *ms = write_tmp("model.sets", msets);
    char margs[4096], *mo = NULL, *me = NULL;
    snprintf(margs, sizeof margs, "sweep '%s' --nodes 2 --ppn 1 --sets '%s'", tu_bundled(), ms);
    CU_ASSERT_EQUAL(tu_run_cli(margs, &mo, &me), 1);
    CU_ASSERT_PTR_NOT_NULL(me && strstr(me, "model.sets:3: [a] "));
    free(mo);
    free(me);
    const char *v2 = write_tmp(
        "v2.xml", "<?xml version=\"1.0\"?>\n<tunesim-model platform=\"bm-optimized3.36\" "
                  "created-from=\"hand\" version=\"2\">\n  <param name=\"model.net.latency\" "
                  "value=\"2us\" source=\"hand\"/>\n</tunesim-model>\n");
    expect_cli(1, "v2.xml:2: model file version 2 is not supported (expected 1)",
               "replay '%s' --nodes 2 --ppn 1 --model '%s'", tu_bundled(), v2);

    /* A directory as a model file: tunesim's one line, nothing from libxml2 before it. */
    snprintf(args, sizeof args, "replay '%s' --nodes 2 --ppn 1 --model '%s'", tu_bundled(),
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err && strncmp(err, "tunesim: ", 9) == 0 && tu_one_line(err));
    CU_ASSERT(err && strstr(err, "not a regular file (expected a model file)"));
    free(out);
    free(err);
}

/* No output replaces a model file a command reads (--model, or a set's own), an empty file
 * name is a usage error, and calibrate's --platform names a platform that exists and the one
 * its --model was made for. */
static void test_model_inputs_kept(void)
{
    static const char model[] =
        "<?xml version=\"1.0\"?>\n<tunesim-model platform=\"bm-optimized3.36\" "
        "created-from=\"hand\" version=\"1\">\n  <param name=\"model.net.latency\" "
        "value=\"2us\" source=\"hand\"/>\n</tunesim-model>\n";
    const char *m = write_tmp("keep.xml", model);
    const char *imb = "imb --nodes 1 --ppn 2 --bench PingPong --msglog 0:0";
    expect_cli(2, "keep.xml is both an input (--model) and an output (--csv",
               "%s --model '%s' --csv '%s'", imb, m, m);
    char with[4400];
    snprintf(with, sizeof with, "[a]\n--model '%s'\n", m);
    const char *sets = write_tmp("model.sets", with);
    expect_cli(2, "is both an input (--model of set [a]) and an output (--csv",
               "%s --sets '%s' --csv '%s'", imb, sets, m);
    expect_cli(2, "is both an input (--model of set [a]) and an output (--csv",
               "sweep '%s' --sets '%s' --csv '%s' --nodes 2 --ppn 1 -j 1", tu_bundled(), sets, m);
    expect_cli(2, "--csv: expected a file name, got an empty one", "%s --csv ''", imb);
    expect_cli(2, "--plot: expected a PREFIX, got an empty one", "%s --plot ''", imb);
    const char *lat = write_tmp("lat.txt", "# OSU MPI Latency Test v7.5.1\n"
                                           "# tunesim-probe: version=1 locality=intra-socket "
                                           "ranks=2 nodes=1\n# Size Latency (us)\n0 0.70\n"
                                           "1 0.71\n8 0.72\n");
    expect_cli(2, "keep.xml is both an input (--model) and an output (-o",
               "calibrate '%s' --model '%s' -o '%s'", lat, m, m);
    expect_cli(2, "-o: expected a file name, got an empty one", "calibrate '%s' -o ''", lat);
    expect_cli(2, "lat.txt are the same file: give each once", "calibrate '%s' '%s' -o '%s'", lat,
               lat, tu_path("c.xml"));
    expect_cli(1, "-o /nonexistent-dir/x.xml: no directory /nonexistent-dir to write it in",
               "calibrate '%s' -o /nonexistent-dir/x.xml", lat);
    expect_cli(1, "no platform 'bogus'", "calibrate '%s' -o '%s' --platform bogus", lat,
               tu_path("c.xml"));
    expect_cli(
        1, "a model file made for platform 'bm-optimized3.36', but --platform says 'localhost'",
        "calibrate '%s' -o '%s' --platform localhost --model '%s'", lat, tu_path("c.xml"), m);
    CU_ASSERT(!exists(tu_path("c.xml")));
    FILE *fp = fopen(m, "r");
    char buf[sizeof model + 8] = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(fread(buf, 1, sizeof buf - 1, fp), sizeof model - 1);
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, model);
}

/* Rewrite the number after the first FIELD of results file path's one line to value, and
 * seal the line again with its CRC-32, as only a hand-made record would be. */
static void reseal_field(const char *path, const char *field, const char *value)
{
    char *text = tu_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *v = strstr(text, field), *chk = strstr(text, ",\"check\":\"");
    CU_ASSERT_FATAL(v && chk && v < chk);
    v += strlen(field);
    const char *rest = v + strcspn(v, ",}");
    char body[65536];
    snprintf(body, sizeof body, "%.*s%s%.*s}", (int)(v - text), text, value, (int)(chk - rest),
             rest);
    unsigned long crc = crc32(0L, (const Bytef *)body, (uInt)strlen(body));
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fprintf(fp, "%.*s,\"check\":\"%08lx\"}\n", (int)strlen(body) - 1, body, crc);
    fclose(fp);
    free(text);
}

/* Second pass: FIFOs and devices among a command's inputs are refused before anything opens
 * them (a platform file, a file of an OTF2 archive, an OpenFOAM log), absurd numbers are
 * refused, and a results record whose checksum verifies but whose time is no replay's runs
 * its set again. */
static void test_second_pass(void)
{
    const char *ff = tu_path("ff");
    CU_ASSERT_EQUAL_FATAL(mkfifo(ff, 0600), 0);
    expect_cli(1, "ff: is a FIFO, expected a platform description", "replay '%s' --platform '%s'",
               tu_bundled(), ff);
    expect_cli(2, "map-by 'foo': expected block", "replay '%s' --map-by foo", tu_bundled());
    const char *nulp = tu_path("nul.platform");
    FILE *np = fopen(nulp, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(np);
    fwrite("nodes = 2\0\n", 1, 11, np);
    fclose(np);
    expect_cli(1, "nul.platform:1: a NUL byte in the line (expected text)",
               "replay '%s' --platform '%s'", tu_bundled(), nulp);
    /* control characters in a quoted key or name reach no terminal */
    const char *escp = write_tmp("esc.platform", "frob\x1b[31m = 1\n");
    expect_cli(1, "esc.platform:1: unknown key 'frob?[31m'", "replay '%s' --platform '%s'",
               tu_bundled(), escp);
    const char *escs = write_tmp("esc.sets", "[a\x1b]\n");
    char eargs[4096];
    snprintf(eargs, sizeof eargs, "sweep '%s' --sets '%s'", tu_bundled(), escs);
    char *eout = NULL, *eerr = NULL; /* the file's mistakes are listed, then counted */
    CU_ASSERT_EQUAL(tu_run_cli(eargs, &eout, &eerr), 1);
    CU_ASSERT(eerr && strstr(eerr, "esc.sets:1: set name 'a?'") && !strchr(eerr, '\x1b'));
    free(eout);
    free(eerr);
    /* a profile without time outside MPI is refused before the report, not after it */
    const char *zp = write_tmp("zero-profile.txt",
                               "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                               " ALL 100 20 0 100.0 0.00 ALL\n"
                               " MPI 90 18 9.00 100.0 0.50 MPI\n"
                               " MPI 10 2 1.00 10.0 0.50 MPI_Init\n"
                               " MPI 80 16 8.00 90.0 0.50 MPI_Allreduce\n");
    char zargs[4096];
    snprintf(zargs, sizeof zargs, "replay '%s' --nodes 2 --ppn 1 --profile '%s'", tu_bundled(), zp);
    char *zout = NULL, *zerr = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(zargs, &zout, &zerr), 1);
    CU_ASSERT(zerr && strstr(zerr, "the profile has no time outside MPI") && tu_one_line(zerr));
    CU_ASSERT_STRING_EQUAL(zout ? zout : "x", "");
    free(zout);
    free(zerr);
    const char *arch = tu_path("fifo-trace");
    CU_ASSERT_EQUAL_FATAL(tu_copy_dir(tu_bundled(), arch), 0);
    char evt[4200];
    snprintf(evt, sizeof evt, "%s/traces/0.evt", arch);
    if (exists(evt)) {
        CU_ASSERT_EQUAL_FATAL(unlink(evt), 0);
        CU_ASSERT_EQUAL_FATAL(mkfifo(evt, 0600), 0);
        expect_cli(1, "0.evt: is a FIFO, expected a file of the OTF2 archive", "info '%s'", arch);
    }
    static const char *const fps[] = {"inf", "1e308", "0.5", "4.9e-324"};
    for (int k = 0; k < 4; k++) {
        char want[128];
        snprintf(want, sizeof want, "--flops-per-second expects a rate from 1 to 1e15, got '%s'",
                 fps[k]);
        expect_cli(2, want, "convert '%s' -o '%s' --to ti --flops-per-second %s", tu_bundled(),
                   tu_path("ti-inf"), fps[k]);
    }
    const char *man = write_tmp("zero.manifest", "ucx /dev/zero\n");
    const char *csv = write_tmp("m.csv", "ucx,1\n");
    expect_cli(1, "/dev/zero: is a character device, expected an OpenFOAM log",
               "validate --manifest '%s' --measured-csv '%s' -- '%s' --sets /dev/null", man, csv,
               tu_bundled());

    /* A record resealed with a valid checksum around a time of 1e308 s, or around a negative
     * time of a collective inside it, or around an array of times (a "..._s" key) holding a
     * negative one. */
    static const struct {
        const char *field, *value, *results;
    } SEALED[] = {{"\"predicted_time_s\":", "1e308", "one.jsonl"},
                  {"\"time_s\":", "-5", "two.jsonl"},
                  {"\"rank0_elapsed_s\":", "[1,-5]", "three-times.jsonl"}};
    for (size_t i = 0; i < sizeof SEALED / sizeof SEALED[0]; i++) {
        char args[4096];
        const char *r = sweep_with_results("[a]\n", SEALED[i].results, args);
        reseal_field(r, SEALED[i].field, SEALED[i].value);
        char *out = NULL, *err = NULL;
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT(err && strstr(err, ".jsonl:1: a time that is not a number of seconds from 0 to "
                                     "1e12: its set runs again"));
        CU_ASSERT(out && !strstr(out, "inf") && !strstr(out, "-5"));
        free(out);
        free(err);
    }
    /* Two verified records of one set (a sweep resumed twice into one file): the last one
     * counts, 2 s here, not the first one's 1 s. */
    char args[4096];
    const char *r = sweep_with_results("[a]\n", "twice.jsonl", args);
    reseal_field(r, "\"predicted_time_s\":", "1");
    char *first = tu_read_file(r, NULL);
    reseal_field(r, "\"predicted_time_s\":", "2");
    char *second = tu_read_file(r, NULL);
    CU_ASSERT_FATAL(first && second);
    FILE *fp = fopen(r, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fprintf(fp, "%s%s", first, second);
    fclose(fp);
    char jargs[4200], *out = NULL, *err = NULL;
    snprintf(jargs, sizeof jargs, "%s --json '%s'", args, tu_path("twice.json"));
    CU_ASSERT_EQUAL(tu_run_cli(jargs, &out, &err), 0);
    CU_ASSERT_EQUAL(count_lines(r), 2); /* nothing ran again */
    char *json = tu_read_file(tu_path("twice.json"), NULL);
    CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "\"predicted_time_s\": 2,"));
    CU_ASSERT_PTR_NULL(json ? strstr(json, "\"predicted_time_s\": 1,") : "");
    free(json);
    free(first);
    free(second);
    free(out);
    free(err);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("hostile input (issue 12)", NULL, NULL);
    CU_add_test(s, "defect 2: convert refuses a directory it did not write",
                test_convert_refuses_foreign_dir);
    CU_add_test(s, "defect 8: out-of-range parameter values refused", test_out_of_range_values);
    CU_add_test(s, "defect 3: platform only for the nodes used", test_platform_only_used_nodes);
    CU_add_test(s, "defect 4: extreme latencies and rates refused", test_extreme_rates);
    CU_add_test(s, "defect 7: sweep outputs checked before running",
                test_sweep_outputs_checked_first);
    CU_add_test(s, "defect 9: mpirun -n / -N must match the trace and placement",
                test_mpirun_counts);
    CU_add_test(s, "defect 6: results lines carry a checksum; NUL lines hide nothing",
                test_results_checksums);
    CU_add_test(s, "defect 5: INT/TERM remove temporary files and directories",
                test_interrupt_cleanup);
    CU_add_test(s, "defect 5: the replay's platform file is gone once loaded",
                test_replay_platform_file);
    CU_add_test(s, "defect 10: the smaller ones", test_smaller_ones);
    CU_add_test(s, "model files read are never outputs; empty names; calibrate's platform",
                test_model_inputs_kept);
    CU_add_test(s, "second pass: FIFOs and devices as inputs, absurd numbers, resealed records",
                test_second_pass);
    return tu_run_all();
}
