/* test_hostile_passes.c - the later hostile-input passes (issue 12 went on): each pass a
 * helper's review of an area the earlier ones had not covered, each test asserting on what a
 * user sees (the exit status, the one-line message, which files exist and what they hold). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostilecheck.h"
#include "testutil.h"

/* Third pass (record, info, params, convert): a file name's control characters stay out of
 * the one line; a store with bytes after its last chunk, or cut, says which. The stores with
 * extreme times are test_codec's, record's signals test_tracer_exclusive's. */
static void test_third_pass(void)
{
    char name[600];
    snprintf(name, sizeof name, "%s/no\nsuch\x1b[31m.tss", tu_tmpdir());
    expect_cli(1, "no?such?[31m.tss", "info '%s'", name);
    const char *st = tu_path("third.tss");
    expect_cli(0, NULL, "convert '%s' -o '%s'", tu_bundled(), st);
    size_t n = 0;
    char *bytes = tu_read_file(st, &n);
    CU_ASSERT_FATAL(bytes != NULL && n > 200);
    const char *longer = tu_path("third-longer.tss"), *cut = tu_path("third-cut.tss");
    FILE *fp = fopen(longer, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    fwrite(bytes, 1, n, fp);
    fwrite("0123456789", 1, 10, fp);
    fclose(fp);
    expect_cli(1, "corrupt store: 10 bytes after its last event chunk", "info '%s'", longer);
    fp = fopen(cut, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    fwrite(bytes, 1, n - 100, fp);
    fclose(fp);
    expect_cli(1, "truncated store: its event chunks hold", "info '%s'", cut);
    char args[2048], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "info '%s'", cut);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    /* the chunks' data ends with the file: what the head indexes is 100 more than they hold */
    unsigned long long held = 0, indexed = 0;
    const char *h = err ? strstr(err, "chunks hold ") : NULL;
    CU_ASSERT_FATAL(
        h && sscanf(h, "chunks hold %llu bytes, the head indexes %llu", &held, &indexed) == 2);
    CU_ASSERT_EQUAL(indexed - held, 100);
    free(out);
    free(err);
    free(bytes);
}

/* The files a and b of the test directory hold the same bytes (a fresh run, and one that
 * might have reused results it should not). */
static void expect_same_file(const char *a, const char *b)
{
    char *x = tu_read_file(tu_path(a), NULL), *y = tu_read_file(tu_path(b), NULL);
    CU_ASSERT(x && y && strcmp(x, y) == 0);
    free(x);
    free(y);
}

/* Fifth pass (sweep's results and merge, fit, validate): a platform file is an input; the
 * results file is checked by type; --merge does not replace what it reads; validate's sweep
 * writes nothing; results kept for one trace are not taken for another of the same size. */
static void test_fifth_pass(void)
{
    /* tu_path's names are kept in a small ring: the ones used throughout are copied. */
    char sets[1100], pf[1100], meas[1100], dir[1100], a[1100], b[1100], res[1100];
    snprintf(sets, sizeof sets, "%s",
             write_tmp("five.sets", "[asis]\n[t0]\n-x UCX_TLS=self,sm,rc\n"));
    snprintf(pf, sizeof pf, "%s", tu_path("five.platform"));
    char *ptext = tu_read_file(TS_SOURCE_DIR "/platforms/bm-optimized3.36.platform", NULL);
    CU_ASSERT_FATAL(ptext != NULL);
    write_tmp("five.platform", ptext);
    expect_cli(2, "five.platform is both an input (--platform) and an output (--csv",
               "sweep '%s' --sets '%s' --platform '%s' --nodes 1 --ppn 2 --csv '%s'", tu_bundled(),
               sets, pf, pf);
    snprintf(meas, sizeof meas, "%s", write_tmp("five.csv", "asis,0.2\nt0,0.19\n"));
    expect_cli(2, "five.platform is both an input (--platform) and an output (-o",
               "fit '%s' --sets '%s' --measured-csv '%s' --platform '%s' --nodes 1 --ppn 2 -o '%s'",
               tu_bundled(), sets, meas, pf, pf);
    char *after = tu_read_file(pf, NULL);
    CU_ASSERT(after && strcmp(after, ptext) == 0);
    free(after);
    free(ptext);
    const char *ff = tu_path("five.fifo");
    CU_ASSERT_EQUAL_FATAL(mkfifo(ff, 0600), 0);
    expect_cli(1, "five.fifo: is a FIFO, expected a sweep results file",
               "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --results '%s'", tu_bundled(), sets, ff);
    expect_cli(2, "the sweep after -- writes no files (--csv)",
               "validate --measured-csv '%s' -- '%s' --sets '%s' --nodes 1 --ppn 2 --csv '%s'",
               meas, tu_bundled(), sets, meas);
    /* --merge: none of the files it reads is an output. */
    snprintf(dir, sizeof dir, "%s", tu_path("five-slurm"));
    expect_cli(0, NULL, "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --emit-slurm '%s'", tu_bundled(),
               sets, dir);
    expect_cli(2, "is the merge's own plan.json", "sweep --merge '%s' --json '%s/plan.json'", dir,
               dir);
    expect_cli(2, "which holds the array tasks' results",
               "sweep --merge '%s' --json '%s/results/task-0.jsonl'", dir, dir);
    expect_cli(2, "--merge: expected a directory name, got an empty one", "sweep --merge ''");
    expect_cli(2, "--emit-slurm: expected a directory name, got an empty one",
               "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --emit-slurm ''", tu_bundled(), sets);
    /* Two traces of the same ranks and events, their bursts different: one results file. */
    snprintf(a, sizeof a, "%s", tu_path("five-a.tss"));
    snprintf(b, sizeof b, "%s", tu_path("five-b.tss"));
    expect_cli(0, NULL, "convert '%s' -o '%s'", tu_bundled(), a);
    expect_cli(0, NULL, "convert '%s' -o '%s' --class-median", tu_bundled(), b);
    snprintf(res, sizeof res, "%s", tu_path("five.results.jsonl"));
    char args[8192];
    snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --csv '%s'", b, sets,
             tu_path("five-fresh.csv"));
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --results '%s'", a, sets,
             res);
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, NULL), 0);
    snprintf(args, sizeof args,
             "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --results '%s' --csv '%s'", b, sets, res,
             tu_path("five-kept.csv"));
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, NULL), 0);
    expect_same_file("five-fresh.csv", "five-kept.csv");
    /* A platform file edited between two runs: its results are not kept either. */
    snprintf(res, sizeof res, "%s", tu_path("five-p.results.jsonl"));
    snprintf(args, sizeof args,
             "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --platform '%s' --results '%s'", a, sets, pf,
             res);
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, NULL), 0);
    FILE *fp = fopen(pf, "a");
    CU_ASSERT_FATAL(fp != NULL);
    fputs("model.shm.latency = 5us\n", fp);
    fclose(fp);
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args,
                 "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --platform '%s' %s%s%s --csv '%s'", a,
                 sets, pf, k ? "--results '" : "", k ? res : "", k ? "'" : "",
                 tu_path(k ? "five-pk.csv" : "five-pf.csv"));
        CU_ASSERT_EQUAL(tu_run_cli(args, NULL, NULL), 0);
    }
    expect_same_file("five-pf.csv", "five-pk.csv");
}

/* Sixth pass (replay, imb, sets, profiles, model files): a platform whose routes SimGrid could
 * not load in reasonable time, a model file's element of thousands of attributes (libxml2
 * checks them pairwise), a profile's control characters and repeated MPI rows, file names'
 * control characters in report lines, a sets file past the limit, ppr:0, calibrate's empty
 * platform. */
static void test_sixth_pass(void)
{
    const char *big = write_tmp("big.platform", "nodes = 1\nsockets_per_node = 64\n"
                                                "cores_per_socket = 4032\nnps_options = 1\n"
                                                "nps = 1\nnic_socket = 0\ncore_speed = 1e9\n"
                                                "upi_bandwidth = 67.2e9\n");
    expect_cli(1, "big.platform: 1 node of 258048 cores need 3.33e+10 routes",
               "replay '%s' --platform '%s' --ppn 2", tu_bundled(), big);
    expect_cli(1, "big.platform: 1 node of 258048 cores need 3.33e+10 routes",
               "imb --platform '%s' --nodes 1 --ppn 2 --bench PingPong --msglog 0:0", big);

    size_t cap = 200000, k = 0;
    char *xml = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
    k += (size_t)snprintf(xml, cap, "<?xml version=\"1.0\"?>\n<tunesim-model platform=\"x\"");
    for (int i = 0; i < 10000; i++)
        k += (size_t)snprintf(xml + k, cap - k, " a%d=\"x\"", i);
    snprintf(xml + k, cap - k, "/>\n");
    const char *model = write_tmp("attrs.xml", xml);
    free(xml);
    expect_cli(1, "attrs.xml:2: an element with more than 64 attributes",
               "replay '%s' --nodes 1 --ppn 2 --model '%s'", tu_bundled(), model);

    static const char head[] = "flt type max_buf[B] visits time[s] time[%] time/visit[us] region\n"
                               " ALL 1,000 100,000 100.00 100.0 1000.00 ALL\n"
                               " MPI 1,000 90,000 20.00 20.0 222.22 MPI\n"
                               " COM 100 10,000 80.00 80.0 8000.00 COM\n"
                               " MPI 100 20,000 5.00 5.0 250.00 MPI_Isend\n"
                               " MPI 100 29,996 4.00 4.0 133.00 MPI_Allreduce\n"
                               " MPI 10 2 0.90 0.9 450000.00 MPI_Init_thread\n";
    char text[2048];
    snprintf(text, sizeof text, "%s MPI 100 20,000 5.00 5.0 250.00 MPI_Fake\033]0;x\007\n", head);
    const char *esc = write_tmp("esc.score.txt", text);
    expect_cli(1, "esc.score.txt:8: region 'MPI_Fake?]0;x?' holds control characters",
               "replay '%s' --nodes 1 --ppn 2 --profile '%s'", tu_bundled(), esc);
    snprintf(text, sizeof text, "%s MPI 100 20,000 500.00 5.0 250.00 MPI_Isend\n", head);
    const char *dup = write_tmp("dup.score.txt", text);
    expect_cli(1, "dup.score.txt:8: MPI row 'MPI_Isend' appears twice",
               "replay '%s' --nodes 1 --ppn 2 --profile '%s'", tu_bundled(), dup);

    /* The trace, the platform and the profile by names that hold a terminal escape: the
     * report shows them with '?'. */
    char trace[1024], prof[1024], pf[1024];
    snprintf(trace, sizeof trace, "%s", tu_path("tr\033[31m"));
    snprintf(prof, sizeof prof, "%s", write_tmp("p\033[31m.txt", head));
    char *ptext = tu_read_file(TS_SOURCE_DIR "/platforms/bm-optimized3.36.platform", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ptext);
    snprintf(pf, sizeof pf, "%s", write_tmp("pl\033[32m.platform", ptext));
    free(ptext);
    CU_ASSERT_EQUAL_FATAL(symlink(tu_bundled(), trace), 0);
    char args[4096], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "replay '%s' --nodes 1 --ppn 2 --profile '%s' --platform '%s'",
             trace, prof, pf);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT(out && strstr(out, "tr?[31m") && strstr(out, "pl?[32m") &&
              strstr(out, "p?[31m.txt") && !strchr(out, '\033'));
    CU_ASSERT(!err || !strchr(err, '\033'));
    free(out);
    free(err);
    out = err = NULL;
    snprintf(args, sizeof args,
             "imb --platform '%s' --nodes 1 --ppn 2 --bench PingPong "
             "--msglog 0:0",
             pf);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT(out && strstr(out, "pl?[32m") && !strchr(out, '\033'));
    free(out);
    free(err);

    /* Sections within the limit whose sum passes it: the file's total, said once. */
    size_t n = 100001 * 12 + 1;
    char *many = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(many);
    k = 0;
    for (int i = 0; i < 100001; i++)
        k += (size_t)snprintf(many + k, n - k, "[s%d]\n", i);
    const char *sets = write_tmp("many.sets", many);
    free(many);
    /* A sets file's mistakes are listed one a line, then how many. */
    snprintf(args, sizeof args, "imb --nodes 1 --ppn 2 --bench PingPong --msglog 0:0 --sets '%s'",
             sets);
    out = err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err &&
              strstr(err, "many.sets:100001: [s100000] would make the file's sets 100001, "
                          "more than the limit of 100000\n") &&
              strstr(err, "1 mistake in"));
    free(out);
    free(err);

    expect_cli(2, "map-by 'ppr:0:node': expected",
               "replay '%s' --nodes 1 --ppn 2 --map-by "
               "ppr:0:node",
               tu_bundled());
    expect_cli(2, "--platform expects a platform name or file, got an empty one",
               "calibrate --platform '' -o '%s' '%s'", tu_path("c.xml"), esc);
    expect_cli(2, "a directory name with control characters cannot be written into #SBATCH",
               "sweep '%s' --sets '%s' --nodes 1 --ppn 2 --emit-slurm '%s'", tu_bundled(), sets,
               tu_path("sl\033x"));
}

/* Seventh pass (the environment): a closed standard output keeps its number from the outputs;
 * a run with failed replays replaces no file; TMPDIR that takes no file is said once; a low
 * soft `ulimit -n` is raised; a file past `ulimit -f` is an error (EFBIG), not a silent death,
 * and leaves nothing. */
static void test_seventh_pass(void)
{
    char dir[1200], cmd[8192];
    snprintf(dir, sizeof dir, "%s", tu_path("seventh"));
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    static const char imb[] = "imb --nodes 1 --ppn 2 --bench PingPong --msglog 0:2";
    snprintf(cmd, sizeof cmd, "cd '%s' && %s %s --csv o.csv >&- 2>closed.txt", dir, TS_CLI, imb);
    int rc = system(cmd);
    CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    char path[1400];
    snprintf(path, sizeof path, "%s/o.csv", dir);
    CU_ASSERT(access(path, F_OK) != 0);
    /* said as closed, not as the full device main keeps in its place */
    snprintf(path, sizeof path, "%s/closed.txt", dir);
    char *said = tu_read_file(path, NULL);
    if (said)
        tu_drop_asan_notice(said);
    CU_ASSERT(said && strstr(said, "standard output: writing the report failed: closed (>&-)") &&
              tu_one_line(said));
    free(said);
    remove(path);

    snprintf(path, sizeof path, "%s/p.csv", dir);
    write_tmp("seventh/p.csv", "old\n");
    char args[4096], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "%s --csv '%s'", imb, path);
    setenv("TMPDIR", "/nonexistent-tunesim-tmp", 1);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    unsetenv("TMPDIR");
    CU_ASSERT(err && strstr(err, "/nonexistent-tunesim-tmp: cannot create a temporary file") &&
              tu_one_line(err));
    char *kept = tu_read_file(path, NULL);
    CU_ASSERT(kept && strcmp(kept, "old\n") == 0);
    free(kept);
    free(out);
    free(err);

    /* The redirection first: dash saves a descriptor above 9 to redirect, which the limit
     * refuses. */
    snprintf(cmd, sizeof cmd,
             "exec >/dev/null; ulimit -S -n 6 && exec %s replay '%s' --nodes 1 --ppn 2", TS_CLI,
             tu_bundled());
    rc = system(cmd);
    CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);

    snprintf(cmd, sizeof cmd, "cd '%s' && ulimit -f 1 && %s convert '%s' -o big.tss 2>err.txt", dir,
             TS_CLI, tu_bundled());
    rc = system(cmd);
    CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    char *e = tu_read_file(path, NULL);
    CU_ASSERT(e && strstr(e, "File too large") && tu_one_line(e));
    free(e);
    remove(path);
    /* calibrate's report is checked before its model file replaces an earlier one. */
    const char *lat = write_tmp("seventh/lat.txt", "# OSU MPI Latency Test v7.5.1\n"
                                                   "# tunesim-probe: version=1 locality=intra-"
                                                   "socket ranks=2 nodes=1\n# Size Latency (us)"
                                                   "\n0 0.70\n1 0.71\n8 0.72\n");
    write_tmp("seventh/c.xml", "old\n");
    snprintf(cmd, sizeof cmd, "cd '%s' && %s calibrate '%s' -o c.xml >/dev/full 2>/dev/null", dir,
             TS_CLI, lat);
    rc = system(cmd);
    CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    snprintf(path, sizeof path, "%s/c.xml", dir);
    kept = tu_read_file(path, NULL);
    CU_ASSERT(kept && strcmp(kept, "old\n") == 0);
    free(kept);
    remove(path);
    remove(lat);
    snprintf(path, sizeof path, "%s/p.csv", dir);
    remove(path);
    CU_ASSERT_EQUAL(count_prefixed(dir, ""), 2); /* "." and "..": no big.tss, no temporary */
}

/* Ninth pass (calibrate, fit, validate; convert, info, tunesim-play, the scripts): no output
 * replaces a file of a trace's OTF2 archive, a measured log, or an input of validate's sweep. */
#define RUN9 "--sets '%s' --nodes 2 --ppn 1 -j 1"
static void test_ninth_pass_outputs(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", tu_path("ninth"));
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    char tr[1300];
    snprintf(tr, sizeof tr, "%s/trace", dir);
    CU_ASSERT_EQUAL_FATAL(tu_copy_dir(TS_SOURCE_DIR "/traces/data/simplefoam-pitzdaily-2", tr), 0);
    const char *sets = write_tmp("ninth/s.sets", "[a]\n[b]\n-x UCX_RNDV_THRESH=0b\n");
    const char *csv = write_tmp("ninth/m.csv", "setting,seconds\na,0.1430\nb,0.1640\n");
    /* the archive's files, the trace given as its directory or as its anchor */
    expect_cli(2, "is a file of the trace", "sweep '%s' " RUN9 " --json '%s/traces.def'", tr, sets,
               tr);
    expect_cli(2, "0.evt is a file of the trace",
               "fit '%s/traces.otf2' " RUN9 " --measured-csv '%s' -o '%s/traces/0.evt'", tr, sets,
               csv, tr);
    /* validate's outputs against its sweep's inputs and its logs */
    expect_cli(1, "is both an input (--sets) and an output (--csv",
               "validate --measured-csv '%s' --csv '%s' -- '%s' " RUN9, csv, sets, tr, sets);
    char logs[1300], log[1400];
    snprintf(logs, sizeof logs, "%s/logs", dir);
    CU_ASSERT_EQUAL_FATAL(
        tu_copy_dir(TS_SOURCE_DIR "/tests/data/validation-localhost/run-1130-quiet/logs", logs), 0);
    snprintf(log, sizeof log, "%s/ob1/run2.log", logs);
    char *before = tu_read_file(log, NULL);
    expect_cli(2, "run2.log is both an input (a measured run's file)",
               "validate --logs '%s' --predicted '%s' --csv '%s'", logs,
               TS_SOURCE_DIR "/tests/data/validation-localhost/run-1130-quiet/predicted.json", log);
    char *after = tu_read_file(log, NULL);
    CU_ASSERT(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    /* a prediction beside the archive is no file of it */
    expect_cli(0, NULL, "sweep '%s' " RUN9 " --json '%s/pred.json'", tr, sets, tr);
    expect_cli(0, NULL, "sweep '%s' " RUN9 " --json '%s/pred.json'", tr, sets, tr);
}

/* An OSU latency file of three sizes whose header holds line. */
static const char *osu_headed(const char *name, const char *line)
{
    char text[2048];
    snprintf(text, sizeof text,
             "# OSU MPI Latency Test v7.5.1\n%s\n# Size Latency (us)\n0 0.70\n1 0.69\n8 0.68\n",
             line);
    return write_tmp(name, text);
}

/* Ninth pass, the measurements: each read as written or refused at its line. */
static void test_ninth_pass_readers(void)
{
    static const char osu[] = "# OSU MPI Latency Test v7.5.1\n# 2 nodes, 1 rank per node\n"
                              "# Size Latency (us)%s\n"
                              "0 1.60%s\n1 1.61%s\n8 1.62%s\n";
    char text[4096];
    /* OSU's -c column: Pass read, Fail refused */
    snprintf(text, sizeof text, osu, " Validation", " Pass", " Pass", " Pass");
    const char *pass = write_tmp("ninth-pass.txt", text);
    expect_cli(0, NULL, "calibrate '%s' -o '%s'", pass, tu_path("ninth-pass.xml"));
    snprintf(text, sizeof text, osu, " Validation", " Pass", " Fail", " Pass");
    expect_cli(1, "OSU's validation failed at 1 bytes", "calibrate '%s' -o '%s'",
               write_tmp("ninth-fail.txt", text), tu_path("ninth-fail.xml"));
    /* a name with an escape, a Latin-1 byte and U+FFFE: the model file still loads */
    char odd[1200];
    snprintf(odd, sizeof odd, "%s/lat\x1b[1m\xe9\xef\xbf\xbe.txt", tu_tmpdir());
    FILE *fp = fopen(odd, "w");
    CU_ASSERT_FATAL(fp != NULL);
    snprintf(text, sizeof text, osu, "", "", "", "");
    fputs(text, fp);
    fclose(fp);
    const char *xml = tu_path("ninth-odd.xml");
    expect_cli(0, NULL, "calibrate '%s' -o '%s'", odd, xml);
    expect_cli(0, NULL, "params --check --model '%s'", xml);
    /* hex floats are no measurement */
    snprintf(text, sizeof text, osu, "", "", " ", "");
    char *one = strstr(text, "1 1.61");
    CU_ASSERT_FATAL(one != NULL);
    memcpy(one + 2, "0x1p0", 5);
    expect_cli(1, "expected a non-negative time (us), got '0x1p0'", "calibrate '%s' -o '%s'",
               write_tmp("ninth-hex.txt", text), tu_path("ninth-hex.xml"));
    /* IMB's row cut short; a probe line longer than its reader holds; a long UCX_TLS word */
    expect_cli(1, "expected the 4 columns of IMB's header, got 3", "calibrate '%s' -o '%s'",
               write_tmp("ninth-imb.txt", "# Benchmarking PingPong\n# #processes = 2\n"
                                          "       #bytes #repetitions t[usec] Mbytes/sec\n"
                                          "            0 1000 1.66 0.00\n"
                                          "    268435456            1     2195"),
               tu_path("ninth-imb.xml"));
    char line[1400] = "# tunesim-probe: version=1 ranks=2 nodes=1 hosts=";
    size_t at = strlen(line);
    memset(line + at, 'x', 1100);
    snprintf(line + at + 1100, sizeof line - at - 1100, " locality=cross-socket");
    expect_cli(1, "a tunesim-probe line of", "calibrate '%s' -o '%s'",
               osu_headed("ninth-probe.txt", line), tu_path("ninth-probe.xml"));
    char tls[400] = "# UCX_TLS=";
    for (int i = 0; i < 30; i++)
        strcat(tls, "bogus,");
    expect_cli(1, "unknown transport 'bogus'", "calibrate '%s' -o '%s'",
               osu_headed("ninth-tls.txt", tls), tu_path("ninth-tls.xml"));
    /* measured runs: a BOM, a failed OpenFOAM run, two JSON documents, repeats far apart */
    const char *bom = write_tmp("ninth-bom.csv", "\xEF\xBB\xBFsetting,seconds\nucx,13.5\n"
                                                 "ob1,14.1\n");
    const char *pred =
        TS_SOURCE_DIR "/tests/data/validation-localhost/run-1130-quiet/predicted.json";
    expect_cli(0, NULL, "validate --measured-csv '%s' --predicted '%s'", bom, pred);
    CU_ASSERT_EQUAL_FATAL(mkdir(tu_path("ninth-fatal"), 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(tu_path("ninth-fatal/ucx"), 0755), 0);
    write_tmp("ninth-fatal/ucx/r.log", "ExecutionTime = 0.61 s  ClockTime = 1 s\n\n"
                                       "--> FOAM FATAL ERROR: (openfoam-1912)\n");
    expect_cli(1, "the run failed (FOAM FATAL ERROR)", "validate --logs '%s' --predicted '%s'",
               tu_path("ninth-fatal"), pred);
    char *json = tu_read_file(pred, NULL);
    CU_ASSERT_FATAL(json != NULL);
    char *two = malloc(2 * strlen(json) + 1);
    CU_ASSERT_FATAL(two != NULL);
    strcpy(two, json);
    strcat(two, json);
    expect_cli(1, "more after its JSON document", "validate --measured-csv '%s' --predicted '%s'",
               bom, write_tmp("ninth-two.json", two));
    free(two);
    free(json);
    char tr[1300];
    snprintf(tr, sizeof tr, "%s/ninth/trace", tu_tmpdir());
    const char *sets = write_tmp("ninth-r.sets", "[a]\n[b]\n-x UCX_RNDV_THRESH=0b\n");
    expect_cli(1, "its 3 runs range from 0.164 s to 16.4 s",
               "fit '%s' " RUN9 " --measured-csv '%s'", tr, sets,
               write_tmp("ninth-r.csv", "a,0.143\nb,0.164\nb,0.165\nb,16.4\n"));
    expect_cli(2, "a percentage from 0.001 to 100",
               "fit '%s' " RUN9 " --measured-csv x --time-sd 1e-300", tr, sets);
}

/* Tenth pass (replay's and sweep's options): options that changed nothing, or a machine of
 * no kind, now say so. The grid's keys are test_sets', ppr's test_platforms', the what-if
 * factors test_whatif's. */
static void test_tenth_pass(void)
{
    expect_cli(2, "--scale-by visits scales a window with --profile's visits",
               "replay '%s' --scale-by visits", tu_bundled());
    expect_cli(1, "model.cpu.clock (--cpu-clock)", "replay '%s' --cpu-clock 1e-320", tu_bundled());
    expect_cli(1, "model.net.link_speed (--link-speed) 56 B/s", "replay '%s' --link-speed 56",
               tu_bundled());
    expect_cli(1, "map-by ppr:36:node places 36 ranks a node: not the ranks per node given",
               "replay '%s' --map-by ppr:36:node --ppn 1", tu_bundled());
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("hostile input, later passes", NULL, NULL);
    CU_add_test(s, "third pass: names in messages, a store too long or cut", test_third_pass);
    CU_add_test(s, "fifth pass: platform files, results by type and trace, merge, validate",
                test_fifth_pass);
    CU_add_test(s, "sixth pass: huge platforms, XML attributes, profiles, names in reports",
                test_sixth_pass);
    CU_add_test(s, "seventh pass: closed streams, failed replays, ulimits", test_seventh_pass);
    CU_add_test(s, "ninth pass: outputs into a trace's archive, logs, validate's sweep",
                test_ninth_pass_outputs);
    CU_add_test(s, "ninth pass: measurements read as written or refused", test_ninth_pass_readers);
    CU_add_test(s, "tenth pass: options that changed nothing, machines of no kind",
                test_tenth_pass);
    return tu_run_all();
}
