/* test_everyday.c - issue 30: everyday use and the defects of a new hostile-input sweep. Each
 * test is one numbered item of the issue and asserts on what a user sees: the exit status,
 * the one-line message, and what the files are afterwards. Commands that used to hang run
 * under timeout(1), so a hang fails the test instead of stalling the suite. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "commands/gnuplot.h"
#include "commands/progress.h"

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_FATAL(fp != NULL);
    fputs(text, fp);
    fclose(fp);
}

/* `tunesim ARGS` under a 30 s timeout; stderr into *err (malloc'd). The exit status, 124 when
 * it had to be stopped. */
static int run_timed(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_timed(char **err, const char *fmt, ...)
{
    static int n;
    char args[3000], e[1024], cmd[4400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(e, sizeof e, "%s/timed-%d.err", tu_tmpdir(), n++);
    snprintf(cmd, sizeof cmd, "timeout 30 %s %s >/dev/null 2>'%s' </dev/null", TS_CLI, args, e);
    int status = system(cmd);
    *err = tu_read_file(e, NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Item 1: an output path that is a symbolic link is written through to its target (the link
 * stays); /dev/stdout and other devices are written, never replaced. */
static void test_item1_links_and_devices(void)
{
    char *out = NULL, *err = NULL, args[2048];
    const char *target = tu_path("t.csv"), *link = tu_path("o.csv");
    write_file(target, "stale\n");
    CU_ASSERT_FATAL(symlink(target, link) == 0);
    snprintf(args, sizeof args, "imb --nodes 2 --ppn 1 --bench pingpong --msglog 0:1 --csv %s",
             link);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    char *text = tu_read_file(target, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "benchmark,set,ranks,bytes"));
    free(text);
    struct stat sb;
    CU_ASSERT(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    free(out);
    free(err);
    /* The CSV to /dev/stdout: it arrives on standard output, /dev/stdout stays what it was. */
    snprintf(args, sizeof args,
             "imb --nodes 2 --ppn 1 --bench pingpong --msglog 0:1 --csv /dev/stdout");
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "benchmark,set,ranks,bytes"));
    CU_ASSERT(lstat("/dev/stdout", &sb) == 0 && S_ISLNK(sb.st_mode));
    free(out);
    free(err);
}

/* Issue 30 item 1, the rest: a relative link into another directory (sweep --json), a
 * dangling link (its target created), /dev/stdout on a pipe (written, not created beside
 * /proc's "pipe:[N]"), a link into a missing directory and a socket: one-line errors. */
static void test_issue30_outputs_through_links(void)
{
    char *out = NULL, *err = NULL, args[2048];
    const char *sets = tu_path("l.sets"), *other = tu_path("other");
    write_file(sets, "[a]\n");
    CU_ASSERT_FATAL(mkdir(other, 0755) == 0);
    char target[1024], link_path[1024], dangling[1024], created[1024];
    snprintf(target, sizeof target, "%s/t.json", other);
    snprintf(link_path, sizeof link_path, "%s/o.json", tu_tmpdir());
    snprintf(dangling, sizeof dangling, "%s/d.json", tu_tmpdir());
    snprintf(created, sizeof created, "%s/new.json", other);
    write_file(target, "stale\n");
    CU_ASSERT_FATAL(symlink("other/t.json", link_path) == 0);
    CU_ASSERT_FATAL(symlink("other/new.json", dangling) == 0);
    snprintf(args, sizeof args, "sweep '%s' --nodes 2 --ppn 1 --sets %s --json %s", tu_bundled(),
             sets, link_path);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    char *text = tu_read_file(target, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "\"baseline\""));
    free(text);
    struct stat sb;
    CU_ASSERT(lstat(link_path, &sb) == 0 && S_ISLNK(sb.st_mode));
    snprintf(args, sizeof args, "sweep '%s' --nodes 2 --ppn 1 --sets %s --json %s", tu_bundled(),
             sets, dangling);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    CU_ASSERT(stat(created, &sb) == 0 && S_ISREG(sb.st_mode));
    CU_ASSERT(lstat(dangling, &sb) == 0 && S_ISLNK(sb.st_mode));
    /* /dev/stdout on a pipe: the JSON comes through it. */
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "timeout 60 %s sweep '%s' --nodes 2 --ppn 1 --sets %s --json /dev/stdout "
             "2>/dev/null </dev/null | cat",
             TS_CLI, tu_bundled(), sets);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_FATAL(p != NULL);
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    CU_ASSERT_EQUAL(pclose(p), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"baseline\""));
    CU_ASSERT(lstat("/dev/stdout", &sb) == 0 && S_ISLNK(sb.st_mode));
    /* A link into a directory that does not exist, a socket: refused, one line. */
    const char *nodir = tu_path("nodir.json");
    CU_ASSERT_FATAL(symlink("missing-dir/x.json", nodir) == 0);
    snprintf(args, sizeof args, "sweep '%s' --nodes 2 --ppn 1 --sets %s --json %s --results %s",
             tu_bundled(), sets, nodir, tu_path("nodir.jsonl"));
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && tu_one_line(err) && strstr(err, "a symbolic link to") &&
                           strstr(err, "does not exist"));
    free(out);
    free(err);
    const char *sock = tu_path("sock");
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('%s')\"", sock);
    if (system(cmd) != 0) {
        tu_skip("an output that is a socket", "python3 could not make a socket");
        return;
    }
    snprintf(args, sizeof args, "imb --nodes 2 --ppn 1 --bench pingpong --msglog 0:1 --csv %s",
             sock);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && tu_one_line(err) && strstr(err, "is a socket, expected"));
    CU_ASSERT(lstat(sock, &sb) == 0 && S_ISSOCK(sb.st_mode));
    free(out);
    free(err);
}

/* Item 2: no command writes an output over one of its own inputs (sweep refused it already;
 * calibrate, validate and imb now do too), and the input is left as it was. */
static void test_item2_output_is_input(void)
{
    char *out = NULL, *err = NULL, args[2048];
    const char *osu = tu_path("osu.txt");
    write_file(osu, "# OSU MPI Latency Test v7.5.1\n# Size          Latency (us)\n1 1.67\n");
    snprintf(args, sizeof args, "calibrate %s -o %s", osu, osu);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is both an input (INPUTS) and an output (-o") &&
                           tu_one_line(err));
    free(out);
    free(err);
    char *text = tu_read_file(osu, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "1 1.67"));
    free(text);
    const char *m = tu_path("m.csv");
    write_file(m, "setting,seconds\nasis,17.85\n");
    snprintf(args, sizeof args, "validate --measured-csv %s --predicted %s --json %s", m,
             tu_path("p.json"), m);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is both an input (--measured-csv) and an output "
                                              "(--json"));
    free(out);
    free(err);
    text = tu_read_file(m, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "", "setting,seconds\nasis,17.85\n");
    free(text);
    const char *sets = tu_path("one.sets");
    write_file(sets, "[a]\n");
    snprintf(args, sizeof args, "imb --nodes 2 --ppn 1 --bench pingpong --sets %s --csv %s", sets,
             sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is both an input (--sets) and an output (--csv"));
    free(out);
    free(err);
}

/* Issue 30 item 2, the rest: one check in every command, by device and inode, so another
 * spelling (a hard link, ./x) is caught too; standard output counts as an output. */
static void test_issue30_one_input_output_check(void)
{
    char *out = NULL, *err = NULL, args[2048];
    const char *osu = tu_path("osu2.txt"), *hard = tu_path("osu2-link.txt");
    write_file(osu, "# OSU MPI Latency Test v7.5.1\n# Size          Latency (us)\n1 1.67\n");
    CU_ASSERT_FATAL(link(osu, hard) == 0);
    snprintf(args, sizeof args, "calibrate %s -o %s", osu, hard);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is both an input") && tu_one_line(err));
    free(out);
    free(err);
    /* sweep: --json over its own --sets, spelled another way. */
    const char *sets = tu_path("own.sets");
    write_file(sets, "[a]\n");
    snprintf(args, sizeof args, "sweep '%s' --nodes 2 --ppn 1 --sets %s --json %s/./own.sets",
             tu_bundled(), sets, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is both an input (--sets) and an output (--json"));
    free(out);
    free(err);
    char *text = tu_read_file(sets, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "", "[a]\n");
    free(text);
    /* Standard output appended to an input of calibrate: refused, the input kept. */
    char cmd[3000], e[1024];
    snprintf(e, sizeof e, "%s/own-stdout.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "%s calibrate %s -o %s >>%s 2>'%s' </dev/null", TS_CLI, osu,
             tu_path("own.xml"), osu, e);
    int status = system(cmd);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    err = tu_read_file(e, NULL);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "and an output (standard output)"));
    free(err);
    text = tu_read_file(osu, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "",
                           "# OSU MPI Latency Test v7.5.1\n# Size          Latency (us)\n1 1.67\n");
    free(text);
}

/* Item 5: the launchers users paste are recognised (Debian's mpirun.openmpi, sudo / env /
 * time prefixes, srun); another MPI's launcher and a line without one are refused; host
 * lists give the nodes, a host file is said to be unread. */
static void test_item5_launchers(void)
{
    const struct {
        const char *line, *want;
        int rc;
    } cases[] = {
        {"mpirun.openmpi -np 71 -x UCX_TLS=rc ./a",
         "# ranks 71, per node -, map-by -\nUCX_TLS=rc\n", 0},
        {"sudo -E time mpirun -np 4 -x UCX_TLS=rc ./a", "UCX_TLS=rc\n", 0},
        {"env UCX_TLS=ud mpirun -np 4 ./a", "UCX_TLS=ud\n", 0},
        {"srun -n 72 -N 2 --ntasks-per-node=36 --export=ALL,UCX_RNDV_THRESH=16kb ./a",
         "# ranks 72, per node 36, map-by -, nodes 2\nUCX_RNDV_THRESH=16kb\n", 0},
        {"mpirun -H a:36,b:36 -np 72 ./x", "nodes 2\n", 0},
        {"mpirun --hostfile hosts -np 72 ./x",
         "# note: --hostfile hosts: the host file is not read", 0},
        {"mpiexec.hydra -n 4 ./a", "is another MPI's launcher", 1},
        {"./a.out -n 4", "'./a.out' is not a launcher", 1},
        {"srun --bogus ./a", "unknown srun option '--bogus'", 1},
        {"srun -n 4 --export=ALL,UCX_TLS=self,sm,rc ./a", "Slurm splits --export at every comma",
         1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024], *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "params --mpirun '%s'", cases[i].line);
        int rc = tu_run_cli(args, &out, &err);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        const char *where = cases[i].rc ? err : out;
        if (!where || !strstr(where, cases[i].want))
            printf("\n  %s: '%s'\n", cases[i].line, where ? where : "(nothing)");
        CU_ASSERT_PTR_NOT_NULL(where && strstr(where, cases[i].want));
        free(out);
        free(err);
    }
    /* replay takes the nodes from srun -N and the ranks per node from --ntasks-per-node. */
    char args[1024], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "replay '%s' --mpirun 'srun -n 2 -N 2 --ntasks-per-node=1 ./x'",
             tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "2 nodes x 1"));
    free(out);
    free(err);
    /* srun -N alone: its 1 node is the placement's (not the trace's 2), both ranks on it. */
    snprintf(args, sizeof args, "replay '%s' --mpirun 'srun -n 2 -N 1 ./x'", tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "1 nodes x 2 ranks"));
    free(out);
    free(err);
}

/* Item 6: every write checked, standard output's too: a report that cannot be written (here
 * /dev/full) is an error with one line saying so, never exit 0 (imb, replaying under ASan,
 * also prints SimGrid's stack warning: its own report check predates this). */
static void test_item6_stdout_checked(void)
{
    char info[1024], info_json[1024];
    snprintf(info, sizeof info, "info '%s'", tu_bundled());
    snprintf(info_json, sizeof info_json, "info '%s' --json", tu_bundled());
    const char *cmds[] = {info, info_json, "params", "--version"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char cmd[1400], e[512];
        const char *args = cmds[i];
        snprintf(e, sizeof e, "%s/full-%zu.err", tu_tmpdir(), i);
        snprintf(cmd, sizeof cmd, "%s %s >/dev/full 2>'%s' </dev/null", TS_CLI, args, e);
        int status = system(cmd);
        char *err = tu_read_file(e, NULL);
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
        CU_ASSERT(err && tu_one_line(err) && strncmp(err, "tunesim: ", 9) == 0);
        /* info's says which output and why (issue 30 item 3). */
        if (i < 2)
            CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "standard output: ") &&
                                   strstr(err, "No space left on device"));
        if (!(err && tu_one_line(err)))
            printf("\n  %s > /dev/full: '%s'\n", args, err ? err : "(nothing)");
        free(err);
    }
}

/* Issue 30 item 3: gnuplot does not check its writes; on a full disk it leaves a truncated
 * SVG and exits 0. A stand-in gnuplot that does just that: sweep --plot fails, one line, and
 * no picture is left behind. */
static void test_issue30_plot_checked(void)
{
    const char *bin = tu_path("fake-bin"), *sets = tu_path("plot.sets"), *e = tu_path("plot.err");
    CU_ASSERT_FATAL(mkdir(bin, 0755) == 0);
    char gp[1024], cmd[4000];
    snprintf(gp, sizeof gp, "%s/gnuplot", bin);
    write_file(gp, "#!/bin/sh\ncd \"$(dirname \"$1\")\" || exit 1\n"
                   "sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\" |\n"
                   "while read -r f; do printf '<svg width=\"1\"' >\"$f\"; done\nexit 0\n");
    CU_ASSERT_FATAL(chmod(gp, 0755) == 0);
    write_file(sets, "[a]\n");
    snprintf(cmd, sizeof cmd,
             "PATH='%s':\"$PATH\" timeout 60 %s sweep '%s' --nodes 2 --ppn 1 --sets %s --plot %s "
             ">/dev/null 2>'%s' </dev/null",
             bin, TS_CLI, tu_bundled(), sets, tu_path("pic"), e);
    int status = system(cmd);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *err = tu_read_file(e, NULL);
    tu_drop_asan_notice(err);
    CU_ASSERT_PTR_NOT_NULL(err && tu_one_line(err) && strstr(err, "incomplete"));
    free(err);
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(tu_path("pic.svg"), &sb), 0);
    CU_ASSERT_NOT_EQUAL(stat(tu_path("pic.png"), &sb), 0);
}

/* Item 8: more nodes than the platform loads in reasonable time: refused at once, naming the
 * limit (it used to load for over 600 s at 1,821 nodes). */
static void test_item8_node_limit(void)
{
    char *err = NULL;
    int rc = run_timed(&err, "imb --nodes 1820 --ppn 36 --bench pingpong --msglog 0:0");
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "65520 ranks on 1820 nodes: the replay handles up "
                                              "to 512 nodes"));
    free(err);
}

/* How many processes have `needle` in their command line (pgrep -f). */
static int count_procs(const char *needle)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "pgrep -f -- '%s' | wc -l", needle);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

/* Item 7: Ctrl-C during a replay ends it promptly as SIGINT does (status 130 in a shell), with
 * no SimGrid backtrace and nothing left in TMPDIR (the replay's platform file). */
static void test_item7_interrupt(void)
{
    const char *tmp = tu_path("int-tmp"), *errp = tu_path("int.err");
    CU_ASSERT_EQUAL_FATAL(mkdir(tmp, 0700), 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        signal(SIGINT, SIG_DFL); /* what a terminal's foreground job has */
        setenv("TMPDIR", tmp, 1);
        if (!freopen(errp, "w", stderr) || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execl(TS_CLI, TS_CLI, "replay", TS_SOURCE_DIR "/traces/data/motorbike-72-window.tss",
              "--nodes", "2", "--ppn", "36", "--profile",
              TS_SOURCE_DIR "/traces/data/motorbike-72-asis.scorep-score.txt", (char *)NULL);
        _exit(127);
    }
    usleep(1000000); /* into the replay: it takes seconds */
    kill(pid, SIGINT);
    int status = 0, done = 0;
    for (int k = 0; k < 100 && !done; k++) { /* promptly: within 2 s */
        done = waitpid(pid, &status, WNOHANG) == pid;
        if (!done)
            usleep(20000);
    }
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CU_ASSERT_TRUE(done);
    CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    char *err = tu_read_file(errp, NULL);
    CU_ASSERT_PTR_NULL(err ? strstr(err, "acktrace") : NULL);
    CU_ASSERT_PTR_NULL(err ? strstr(err, "simgrid") : NULL);
    free(err);
    /* Empty: the platform files went with the signal, the per-iteration children's too
     * (they end with the replay: PR_SET_PDEATHSIG), within a moment. */
    int gone = 0;
    for (int k = 0; k < 150 && !gone; k++) {
        gone = rmdir(tmp) == 0;
        if (!gone)
            usleep(20000);
    }
    CU_ASSERT_TRUE(gone);
}

/* Item 9: a sweep that ends (SIGTERM; here SIGKILL, which no handler sees) ends its
 * workers too: they used to finish their replays for nobody. */
static void test_item9_term_ends_workers(void)
{
    const char *sets = tu_path("term-unique-7f3a.sets"), *pidf = tu_path("sweep.pid");
    /* Two sets of a 72-rank Alltoall: replays of seconds each, in two workers (the pool is
     * sweep's and imb's). */
    write_file(sets, "[grid g]\nUCX_RNDV_THRESH = auto | 64kb\n");
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "%s imb --nodes 2 --ppn 36 --bench Alltoall --msglog 0:20 --sets '%s' -j 2 "
             ">/dev/null 2>&1 </dev/null & echo $! >'%s'",
             TS_CLI, sets, pidf);
    CU_ASSERT_FATAL(system(cmd) == 0);
    char *text = tu_read_file(pidf, NULL);
    pid_t pid = text ? (pid_t)atoi(text) : 0;
    free(text);
    CU_ASSERT_FATAL(pid > 0);
    int seen = 0;
    for (int k = 0; k < 200 && seen < 3; k++) {   /* the parent and both workers */
        seen = count_procs("term-unique-7f3[a]"); /* [a]: not the shell's own line */
        usleep(50000);
    }
    CU_ASSERT(seen >= 3);
    kill(pid, SIGKILL);
    for (int k = 0; k < 100 && kill(pid, 0) == 0; k++) /* until the parent is gone */
        usleep(20000);
    /* A moment later, not a replay's second later: a worker left running would still be. */
    usleep(200000);
    CU_ASSERT_EQUAL(count_procs("term-unique-7f3[a]"), 0);
    for (int k = 0; k < 100 && count_procs("term-unique-7f3[a]") > 0; k++)
        usleep(50000); /* whatever the outcome, leave nothing running */
}

/* Item 10: inputs that are FIFOs nobody writes (a model file, a sets file, a benchmark file,
 * a sweep's results) and directories: a clear one-line error at once, never a hang. */
static void test_item10_fifo_inputs(void)
{
    const char *fifo = tu_path("fifo");
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    char *err = NULL;
    int rc = run_timed(&err, "replay '%s' --nodes 2 --ppn 1 --model %s", tu_bundled(), fifo);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "not a regular file (expected a model file)"));
    free(err);
    rc = run_timed(&err, "sweep '%s' --nodes 2 --ppn 1 --sets %s", tu_bundled(), fifo);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is a FIFO, expected a sets file"));
    free(err);
    rc = run_timed(&err, "calibrate %s -o %s", fifo, tu_path("m.xml"));
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is a FIFO, expected an OSU, IMB"));
    free(err);
    /* Read whole, these never ended (a FIFO nobody writes, a device without end). */
    rc = run_timed(&err, "validate --measured-csv %s --predicted %s", fifo, tu_path("p.json"));
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && tu_one_line(err) &&
                           strstr(err, "is a FIFO, expected a CSV of measured runs"));
    free(err);
    rc = run_timed(&err, "fit '%s' --sets %s --measured-csv %s -o %s", tu_bundled(), fifo, fifo,
                   tu_path("fm.xml"));
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is a FIFO, expected a sets file"));
    free(err);
    rc = run_timed(&err, "sweep '%s' --nodes 2 --ppn 1 --sets /dev/zero", tu_bundled());
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "/dev/zero: is a character device, expected"));
    free(err);
    rc = run_timed(&err, "replay '%s' --nodes 2 --ppn 1 --profile %s", tu_bundled(), fifo);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is a FIFO, expected a scorep-score profile"));
    free(err);
    /* sweep --merge over a job directory whose results file is a FIFO (it used to block) */
    const char *dir = tu_path("slurm"), *sets = tu_path("a.sets");
    write_file(sets, "[a]\n");
    char args[2048], path[1024];
    snprintf(args, sizeof args, "sweep '%s' --nodes 2 --ppn 1 --sets %s --emit-slurm %s",
             tu_bundled(), sets, dir);
    char *out = NULL;
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    snprintf(path, sizeof path, "%s/results/task-0.jsonl", dir);
    CU_ASSERT_FATAL(mkfifo(path, 0600) == 0);
    rc = run_timed(&err, "sweep --merge %s", dir);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && tu_one_line(err) && strstr(err, "task-0.jsonl: is a FIFO") &&
                           strstr(err, "expected a results file"));
    free(err);
    /* A directory where a file is expected says so. */
    rc = run_timed(&err, "sweep '%s' --nodes 2 --ppn 1 --sets %s", tu_bundled(), tu_tmpdir());
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "is a directory, expected a sets file"));
    free(err);
}

/* Item 13: GNU and mpirun conventions at the top level. */
/* Item 11, in part: an empty TRACE names what was expected; -j above the limit says the
 * limit; a measured time of 0 s has no relative error ("-", left out of the mean), not nan. */
static void test_item11_messages(void)
{
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli("info ''", &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "the trace's path is empty: expected") : NULL);
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("sweep x --sets y -j 10000", &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "from 1 to 4096, got '10000'") : NULL);
    free(out);
    free(err);
    const char *csv = tu_path("zero.csv"), *pj = tu_path("zero.json");
    write_file(csv, "a,0\nb,10\n");
    write_file(pj, "{\"sets\":[{\"name\":\"a\",\"predicted_time_s\":1},"
                   "{\"name\":\"b\",\"predicted_time_s\":2}]}");
    char args[2048];
    snprintf(args, sizeof args, "validate --measured-csv %s --predicted %s", csv, pj);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NULL(out ? strstr(out, "nan") : NULL);
    CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "(measured 0 s: no relative error)") : NULL);
    CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "mean absolute error: 80.00 % over 1 settings")
                               : NULL);
    free(out);
    free(err); /* A predictions file cut short: one line that says so. */
    write_file(pj, "{\"sets\": [");
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "the file ends inside its JSON (truncated?)") : NULL);
    CU_ASSERT(err && strchr(err, '\n') == err + strlen(err) - 1); /* one line */
    free(out);
    free(err);
    /* params on a full device names the reason. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s params >/dev/full 2>'%s'", TS_CLI, tu_path("params-full.err"));
    int status = system(cmd);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *perr = tu_read_file(tu_path("params-full.err"), NULL);
    CU_ASSERT_PTR_NOT_NULL(perr ? strstr(perr, "writing the report failed: No space left") : NULL);
    free(perr);
    /* record -o naming a file: refused before anything runs. */
    snprintf(args, sizeof args, "record -o %s -- true", csv);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "not a directory (expected a directory") : NULL);
    free(out);
    free(err);
}

/* Item 11: the progress line on a narrow terminal stays on one row (one column short of
 * the width, so that the cursor never wraps and "\r" redraws the whole line). */
static void test_item11_progress_width(void)
{
    char line[256];
    ts_progress_format(line, sizeof line, "replay", 0.5, 12000000, 3e6, 2, 20);
    CU_ASSERT_EQUAL(strlen(line), 19);
    CU_ASSERT_STRING_EQUAL(line, "replay:  50 % of 12");
    ts_progress_format(line, sizeof line, "replay", 0.5, 12000000, 3e6, 2, 200);
    CU_ASSERT_STRING_EQUAL(line, "replay:  50 % of 12.0 M events, 3.00 M events/s, about 2 s left");
    ts_progress_format(line, sizeof line, "replay", 0.5, 12000000, 3e6, 2, 1);
    CU_ASSERT_STRING_EQUAL(line, "");
}

/* Item 11: a TI export that runs out of room says why, and leaves no export behind. The
 * file-size limit stands in for a full disk (writes past it fail with EFBIG once SIGXFSZ
 * is ignored), which a test cannot make. */
static void test_item11_ti_full(void)
{
    char cmd[4096];
    const char *dir = tu_path("ti-full"), *errf = tu_path("ti-full.err");
    snprintf(cmd, sizeof cmd,
             "sh -c \"ulimit -f 8; trap '' XFSZ; exec %s convert '%s' -o '%s' --to ti\" "
             ">/dev/null 2>'%s' </dev/null",
             TS_CLI, tu_bundled(), dir, errf);
    int status = system(cmd);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *err = tu_read_file(errf, NULL);
    tu_drop_asan_notice(err);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "failed: File too large") : NULL);
    if (err && !strstr(err, "failed: File too large"))
        printf("\n  %s", err);
    free(err);
    struct stat st;
    CU_ASSERT(stat(dir, &st) != 0); /* nothing published */
}

/* Item 11: a trace path that is not UTF-8 (a Latin-1 name) keeps info --json valid: the
 * byte becomes the escape \ufffd. */
static void test_item11_json_utf8(void)
{
    char dir[1024], args[2048], *out = NULL, *err = NULL;
    snprintf(dir, sizeof dir, "%s/caf\xe9", tu_tmpdir());
    CU_ASSERT_FATAL(tu_copy_dir(tu_bundled(), dir) == 0);
    snprintf(args, sizeof args, "info '%s' --json", dir);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "caf\\ufffd/") : NULL);
    for (const char *c = out; c && *c; c++)
        CU_ASSERT_FATAL((unsigned char)*c < 0x80); /* the rest of the report is ASCII */
    free(out);
    free(err);
}

/* Item 14: --json wherever text is printed, the full run included, and numbers at a
 * sensible precision (at most ten significant digits, not json-c's 17). */
static void test_item14_json(void)
{
    char *out = NULL, *err = NULL, args[2048];
    snprintf(args, sizeof args,
             "replay %s/traces/data/motorbike-72-window.tss --nodes 2 --ppn 36 --profile "
             "%s/traces/data/motorbike-72-asis.scorep-score.txt",
             TS_SOURCE_DIR, TS_SOURCE_DIR);
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, &err), 0);
    const char *p = out ? strstr(out, "predicted   ExecutionTime ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    double text = strtod(p + strlen("predicted   ExecutionTime "), NULL);
    free(out);
    free(err);
    strcat(args, " --json");
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, &err), 0);
    p = out ? strstr(out, "\"full_run\"") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p = strstr(p, "\"execution_time_s\": ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    double json = strtod(p + strlen("\"execution_time_s\": "), NULL);
    CU_ASSERT_DOUBLE_EQUAL(json, text, 0.0005 + 1e-9); /* the text shows three decimals */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"interval_s\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"iterations_alone\""));
    /* --profile without --scale-by scales by compute, as the text report says. */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"scaled_by\": \"compute\""));
    /* No number with more than ten significant digits (leading zeros are not). */
    int longest = 0;
    for (const char *c = out; *c;) {
        if (!(*c >= '0' && *c <= '9') || (c > out && c[-1] == '"')) {
            c++;
            continue;
        }
        int sig = 0, lead = 1;
        for (; (*c >= '0' && *c <= '9') || *c == '.'; c++) {
            if (*c == '.')
                continue;
            lead &= *c == '0';
            sig += !lead;
        }
        if (sig > longest)
            longest = sig;
        if (*c == 'e' || *c == 'E') /* the exponent's digits are not the mantissa's */
            for (c++; *c == '-' || *c == '+' || (*c >= '0' && *c <= '9'); c++)
                ;
    }
    CU_ASSERT(longest <= 10);
    free(out);
    free(err);
    /* --iterations alone, too. */
    snprintf(args, sizeof args, "replay %s --nodes 2 --ppn 1 --iterations 100 --json",
             tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "\"scaled_by\": \"iterations\"") : NULL);
    free(out);
    free(err);
}

static void test_item13_conventions(void)
{
    char *out = NULL, *err = NULL;
    const char *version[] = {"--version", "-V", "version"};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(tu_run_cli(version[i], &out, &err), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strncmp(out, "tunesim ", 8) == 0);
        free(out);
        free(err);
    }
    CU_ASSERT_EQUAL(tu_run_cli("--version extra", &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "--version takes no arguments, got 'extra'"));
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("--bogus", &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "unknown option '--bogus'"));
    CU_ASSERT(tu_one_line(err));
    free(out);
    free(err);
    /* params: one parameter in full; the listing within 100 columns (test_params). */
    CU_ASSERT_EQUAL(tu_run_cli("params model.shm.latency", &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "model.shm.latency\n  type      time\n"));
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("params --mpirun 'mpirun -np 4 ./a.out'", &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# ranks 4, per node -, map-by -"));
    free(out);
    free(err);
    /* -xKEY=VALUE without a space, as mpirun users write it, and --map-by node. */
    char *o13 = NULL, *e13 = NULL;
    CU_ASSERT_EQUAL(tu_run_cli("params --check -xUCX_TLS=self,sm,rc", &o13, &e13), 0);
    CU_ASSERT_PTR_NOT_NULL(o13 ? strstr(o13, "UCX_TLS=self,sm,rc") : NULL);
    free(o13);
    free(e13);
    CU_ASSERT_EQUAL(
        tu_run_cli("params --mpirun 'mpirun -np 72 --map-by node -xUCX_TLS=rc a.out'", &o13, &e13),
        0);
    CU_ASSERT_PTR_NOT_NULL(o13 ? strstr(o13, "map-by node") : NULL);
    CU_ASSERT_PTR_NOT_NULL(o13 ? strstr(o13, "UCX_TLS=rc") : NULL);
    free(o13);
    free(e13);
}

/* A title that quotes a file name cannot end gnuplot's string and start a command. */
static void test_gnuplot_quote(void)
{
    char buf[128] = "";
    FILE *fp = fmemopen(buf, sizeof buf, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    ts_gnuplot_quote(fp, "it's\nsystem('x')");
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, "'it''s?system(''x'')'");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("everyday use (issue 30)", NULL, NULL);
    CU_add_test(s, "item 1: outputs through links, into devices", test_item1_links_and_devices);
    CU_add_test(s, "item 2: no output over an input", test_item2_output_is_input);
    CU_add_test(s, "issue 30 item 1: outputs through links, pipes refused sockets",
                test_issue30_outputs_through_links);
    CU_add_test(s, "issue 30 item 2: one input/output check, by inode",
                test_issue30_one_input_output_check);
    CU_add_test(s, "issue 30 item 3: a truncated plot is an error", test_issue30_plot_checked);
    CU_add_test(s, "item 5: launchers as users paste them", test_item5_launchers);
    CU_add_test(s, "item 6: standard output checked", test_item6_stdout_checked);
    CU_add_test(s, "item 7: Ctrl-C ends a replay promptly, nothing left", test_item7_interrupt);
    CU_add_test(s, "item 8: a stated limit on nodes", test_item8_node_limit);
    CU_add_test(s, "item 9: a sweep's end ends its workers", test_item9_term_ends_workers);
    CU_add_test(s, "item 10: FIFOs and directories as inputs", test_item10_fifo_inputs);
    CU_add_test(s, "item 11 (part): empty TRACE, -j limit, measured 0 s, JSON, record -o",
                test_item11_messages);
    CU_add_test(s, "item 13: -V, version, unknown options, params NAME", test_item13_conventions);
    CU_add_test(s, "item 11: the progress line fits a narrow terminal", test_item11_progress_width);
    CU_add_test(s, "item 11: a TI export out of room says why", test_item11_ti_full);
    CU_add_test(s, "item 11: JSON stays UTF-8 with a Latin-1 path", test_item11_json_utf8);
    CU_add_test(s, "item 14: --json with the full run, ten digits", test_item14_json);
    CU_add_test(s, "gnuplot strings: quotes doubled, control characters '?'", test_gnuplot_quote);
    return tu_run_all();
}
