/* test_sweep.c - `tunesim sweep` end to end on the bundled 2-rank simpleFoam trace (2 nodes x
 * 1 rank): the JSON and CSV schema and ranking, byte-identical outputs for -j 1 and -j 2,
 * resuming after a worker and after the whole sweep were killed mid-run (finished sets are not
 * rerun; the outputs equal an uninterrupted run's), every invalid set reported before any
 * run, the Slurm job array (bash -n, sbatch's own parser where it runs, the tasks run here,
 * then --merge), and the gnuplot pictures. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "testutil.h"

/* Four sets: the defaults, TCP between nodes (slower), and a two-value grid. */
static const char SETS[] = "# test sweep\n"
                           "[asis]\n"
                           "[tcp]\n"
                           "-x UCX_TLS=self,sm,tcp\n"
                           "[grid thr]\n"
                           "UCX_RNDV_THRESH = 256 | inter:1kb\n"
                           "--mca coll_hcoll_enable 0\n";
#define NSETS 4

static char g_sets[1024], g_trace[1024], g_ref_json[1024], g_ref_csv[1024];

static void setup_paths(void)
{
    snprintf(g_trace, sizeof g_trace, "%s/traces/data/simplefoam-pitzdaily-2", TS_SOURCE_DIR);
    snprintf(g_sets, sizeof g_sets, "%s/test.sets", tu_tmpdir());
    FILE *fp = fopen(g_sets, "w");
    if (fp) {
        fputs(SETS, fp);
        fclose(fp);
    }
}

static int count_lines(const char *path)
{
    char *t = tu_read_file(path, NULL);
    int n = 0;
    for (char *c = t; c && *c; c++)
        n += *c == '\n';
    free(t);
    return n;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    if (!same)
        printf("\n  %s and %s differ", a, b);
    free(x);
    free(y);
    return same;
}

/* Whether stderr text holds nothing but the sanitizer's notes about SimGrid's stack switches
 * (ASan build): a sweep is quiet when stderr is not a terminal. */
static int quiet(const char *err)
{
    for (const char *l = err; l && *l;) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        if (!(n >= 2 && l[0] == '=' && l[1] == '=') && !memmem(l, n, "False positive", 14) &&
            !memmem(l, n, "sanitizers/issues", 17)) {
            printf("\n  unexpected stderr: %.*s", (int)n, l);
            return 0;
        }
        l += n + (end ? 1 : 0);
    }
    return err != NULL;
}

static int sweep(const char *extra, char **out, char **err)
{
    char args[8192];
    snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 2 --ppn 1 %s", g_trace, g_sets,
             extra);
    int rc = tu_run_cli(args, out, err);
    if (rc != 0 && err && *err)
        printf("\n  tunesim %s -> %d: %s", args, rc, *err);
    return rc;
}

static json_object *jget(json_object *o, const char *k)
{
    json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* The reference run (-j 1) and the same with -j 2: identical bytes; then the schema. */
static void test_schema_and_jobs(void)
{
    const char *d = tu_tmpdir();
    char a[8192], b[8192];
    snprintf(g_ref_json, sizeof g_ref_json, "%s/j1.json", d);
    snprintf(g_ref_csv, sizeof g_ref_csv, "%s/j1.csv", d);
    snprintf(a, sizeof a, "-j 1 --json '%s' --csv '%s'", g_ref_json, g_ref_csv);
    char *out1 = NULL, *out2 = NULL, *err = NULL;
    CU_ASSERT_EQUAL_FATAL(sweep(a, &out1, &err), 0);
    CU_ASSERT(quiet(err));
    free(err);
    char j2[2048], c2[2048];
    snprintf(j2, sizeof j2, "%s/j2.json", d);
    snprintf(c2, sizeof c2, "%s/j2.csv", d);
    snprintf(b, sizeof b, "-j 2 --json '%s' --csv '%s'", j2, c2);
    CU_ASSERT_EQUAL_FATAL(sweep(b, &out2, NULL), 0);
    CU_ASSERT(same_file(g_ref_json, j2));
    CU_ASSERT(same_file(g_ref_csv, c2));
    CU_ASSERT(out1 && out2 && strcmp(out1, out2) == 0);
    CU_ASSERT_PTR_NOT_NULL(out1 ? strstr(out1, "baseline asis") : NULL);
    free(out1);
    free(out2);
    /* One results line per set, beside the JSON output. */
    char res[2048];
    snprintf(res, sizeof res, "%s/j1.results.jsonl", d);
    CU_ASSERT_EQUAL(count_lines(res), NSETS);

    json_object *j = json_object_from_file(g_ref_json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(j, "trace")), g_trace);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(j, "platform")), "bm-optimized3.36");
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(j, "baseline")), "asis");
    json_object *sets = jget(j, "sets");
    CU_ASSERT_FATAL(sets && json_object_array_length(sets) == NSETS);
    CU_ASSERT_EQUAL(json_object_array_length(jget(j, "failed")), 0);
    double prev = 0, tasis = -1, ttcp = -1;
    const char *prev_name = "";
    for (size_t i = 0; i < NSETS; i++) {
        json_object *s = json_object_array_get_idx(sets, i);
        const char *name = json_object_get_string(jget(s, "name"));
        double t = json_object_get_double(jget(s, "predicted_time_s"));
        CU_ASSERT_EQUAL(json_object_get_int(jget(s, "rank")), (int)i + 1);
        CU_ASSERT(json_object_is_type(jget(s, "settings"), json_type_array));
        CU_ASSERT_EQUAL(json_object_get_int(jget(s, "nodes")), 2);
        CU_ASSERT_EQUAL(json_object_get_int(jget(s, "ppn")), 1);
        CU_ASSERT_EQUAL(json_object_get_int(jget(s, "nps")), 1);
        CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(s, "map_by")), "block");
        CU_ASSERT(t > 0.128 && t < 1.0); /* the trace's compute alone is 0.128 s per rank */
        CU_ASSERT(json_object_get_double(jget(s, "rank0_elapsed_s")) > 0);
        CU_ASSERT(json_object_is_type(jget(s, "gain_vs_baseline_pct"), json_type_double));
        json_object *isend = jget(jget(s, "functions"), "MPI_Isend");
        CU_ASSERT(isend && json_object_get_int64(jget(isend, "visits")) == 4024);
        CU_ASSERT(jget(isend, "time_s") != NULL);
        CU_ASSERT(json_object_object_length(jget(s, "protocols")) >= 1);
        /* Sorted by predicted time, ties by name. */
        CU_ASSERT(t > prev || (t == prev && strcmp(name, prev_name) > 0));
        prev = t;
        prev_name = name;
        if (strcmp(name, "asis") == 0) {
            tasis = t;
            CU_ASSERT_EQUAL(json_object_array_length(jget(s, "settings")), 0);
            CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(jget(s, "gain_vs_baseline_pct")), 0,
                                   1e-9);
        }
        if (strcmp(name, "tcp") == 0) {
            ttcp = t;
            CU_ASSERT_STRING_EQUAL(
                json_object_get_string(json_object_array_get_idx(jget(s, "settings"), 0)),
                "UCX_TLS=self,sm,tcp");
            CU_ASSERT(jget(jget(s, "protocols"), "tcp") != NULL);
            CU_ASSERT(json_object_get_double(jget(s, "gain_vs_baseline_pct")) < 0);
        }
        if (strcmp(name, "thr-2") == 0)
            CU_ASSERT_EQUAL(json_object_array_length(jget(s, "settings")), 2);
    }
    CU_ASSERT(tasis > 0 && ttcp > tasis); /* TCP between the nodes is slower than RDMA */
    json_object_put(j);

    /* CSV: the documented header, a row per set in the JSON's order. */
    char *csv = tu_read_file(g_ref_csv, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT(strncmp(csv,
                      "rank,name,predicted_time_s,rank0_elapsed_s,gain_vs_baseline_pct,"
                      "settings,nodes,ppn,nps,map_by,time_s:",
                      96) == 0);
    CU_ASSERT_EQUAL(count_lines(g_ref_csv), NSETS + 1);
    j = json_object_from_file(g_ref_json);
    char *line = strchr(csv, '\n');
    for (int i = 0; line && i < NSETS; i++) {
        char want[128];
        snprintf(want, sizeof want, "\n%d,%s,", i + 1,
                 json_object_get_string(
                     jget(json_object_array_get_idx(jget(j, "sets"), (size_t)i), "name")));
        CU_ASSERT(strncmp(line, want, strlen(want)) == 0);
        line = strchr(line + 1, '\n');
    }
    json_object_put(j);
    free(csv);
}

/* Pids of the children of pid (from /proc). */
static int children_of(pid_t pid, pid_t *out, int max)
{
    int n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *de; d && (de = readdir(d)) && n < max;) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (got <= 0)
            continue;
        buf[got] = '\0';
        char *rp = strrchr(buf, ')'); /* "pid (comm) state ppid ..." */
        int ppid;
        char state;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == pid && state != 'Z')
            out[n++] = (pid_t)atoi(de->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Start `tunesim sweep ... -j 1 --json JSON` in the background; stderr to errpath. */
static pid_t start_sweep(const char *json, const char *errpath)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        int fe = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fe, 2);
        execl(TS_CLI, TS_CLI, "sweep", g_trace, "--sets", g_sets, "--nodes", "2", "--ppn", "1",
              "-j", "1", "--json", json, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Wait until results has at least one line, then kill one of the sweep's workers (victim 0)
 * or the sweep itself (victim 1). Returns 1 if something was killed. */
static int kill_mid_run(pid_t sweep_pid, const char *results, int victim)
{
    for (int ms = 0; ms < 120000; ms += 2) {
        int status;
        if (waitpid(sweep_pid, &status, WNOHANG) == sweep_pid) {
            printf("\n  the sweep ended before it could be interrupted");
            return -1;
        }
        if (count_lines(results) >= 1) {
            pid_t kids[8];
            if (victim == 1) {
                kill(sweep_pid, SIGKILL);
                return 1;
            }
            if (children_of(sweep_pid, kids, 8) >= 1) {
                kill(kids[0], SIGKILL);
                return 1;
            }
        }
        sleep_ms(2);
    }
    return 0;
}

static void resume_after(int victim)
{
    char json[2048], results[2048], errp[2048], args[8192];
    const char *d = tu_tmpdir();
    snprintf(json, sizeof json, "%s/resume%d.json", d, victim);
    snprintf(results, sizeof results, "%s/resume%d.results.jsonl", d, victim);
    snprintf(errp, sizeof errp, "%s/resume%d.err", d, victim);
    pid_t pid = start_sweep(json, errp);
    CU_ASSERT_FATAL(pid > 0);
    int killed = kill_mid_run(pid, results, victim);
    CU_ASSERT_EQUAL(killed, 1);
    int status = 0;
    if (killed != -1)
        waitpid(pid, &status, 0);
    if (victim == 0) {
        /* The worker's set is reported as failed, the others finish, the exit is an error. */
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
        char *e = tu_read_file(errp, NULL);
        CU_ASSERT_PTR_NOT_NULL(e ? strstr(e, "killed by signal 9") : NULL);
        if (!e || !strstr(e, "killed by signal 9"))
            printf("\n  stderr: %s", e ? e : "(none)");
        free(e);
        CU_ASSERT_EQUAL(count_lines(results), NSETS - 1);
    } else {
        CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        /* Let the orphaned worker notice that nobody reads its pipe. */
        sleep_ms(100);
    }
    int before = count_lines(results);
    CU_ASSERT(before >= 1 && before < NSETS);
    /* Rerun: only the missing sets run (one line each), and the outputs are those of the
     * uninterrupted run. */
    snprintf(args, sizeof args, "-j 1 --json '%s'", json);
    CU_ASSERT_EQUAL(sweep(args, NULL, NULL), 0);
    CU_ASSERT_EQUAL(count_lines(results), NSETS);
    CU_ASSERT(same_file(json, g_ref_json));
    /* A third run has nothing to do and changes nothing. */
    CU_ASSERT_EQUAL(sweep(args, NULL, NULL), 0);
    CU_ASSERT_EQUAL(count_lines(results), NSETS);
    CU_ASSERT(same_file(json, g_ref_json));
}

static void test_resume_after_killed_worker(void)
{
    resume_after(0);
}
static void test_resume_after_killed_sweep(void)
{
    resume_after(1);
}

/* Every invalid set at once, each on its own line naming file:line, and nothing run. */
static void test_invalid_sets(void)
{
    char bad[2048], json[2048], args[8192];
    snprintf(bad, sizeof bad, "%s/bad.sets", tu_tmpdir());
    snprintf(json, sizeof json, "%s/bad.json", tu_tmpdir());
    FILE *fp = fopen(bad, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("[ok]\n"
          "[typo]\n"
          "-x UCX_RNDV_TRESH=8kb\n"
          "[shm-only]\n"
          "-x UCX_TLS=self,sm\n" /* cannot reach the other node */
          "[crowded]\n"
          "nodes = 1\n" /* 2 ranks on 1 node x 1 rank per node: named at this line */
          "[value]\n"
          "UCX_ZCOPY_THRESH = 12qb\n",
          fp);
    fclose(fp);
    snprintf(args, sizeof args,
             "sweep '%s' --sets '%s' --nodes 2 --ppn 1 --json '%s' "
             "--baseline nope",
             g_trace, bad, json);
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_STRING_EQUAL(out ? out : "x", "");
    static const char *const want[] = {"tunesim: ", ":3: [typo] unknown parameter 'UCX_RNDV_TRESH'",
                                       "tunesim: ", ":9: [value] UCX_ZCOPY_THRESH",
                                       "tunesim: ", "--baseline nope: no set of that name",
                                       "tunesim: ", ":4: [shm-only] UCX_TLS leaves no transport",
                                       "tunesim: ", ":7: [crowded] placement: 2 ranks do not fit",
                                       "tunesim: ", "5 mistakes in"};
    char *line = err;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i += 2) {
        char *end = line ? strchr(line, '\n') : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(end);
        *end = '\0';
        CU_ASSERT(strncmp(line, want[i], strlen(want[i])) == 0 && strstr(line, want[i + 1]));
        if (!strstr(line, want[i + 1]))
            printf("\n  line %zu: '%s' lacks '%s'", i / 2 + 1, line, want[i + 1]);
        line = end + 1;
    }
    CU_ASSERT_STRING_EQUAL(line ? line : "x", "");
    free(out);
    free(err);
    /* Nothing ran and nothing was written. */
    struct stat sb;
    CU_ASSERT(stat(json, &sb) != 0);
    char res[2048];
    snprintf(res, sizeof res, "%s/bad.results.jsonl", tu_tmpdir());
    CU_ASSERT(stat(res, &sb) != 0);

    /* Usage errors. */
    snprintf(args, sizeof args, "sweep '%s'", g_trace);
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, NULL), 2);
    CU_ASSERT_EQUAL(tu_run_cli("sweep --merge /nonexistent --sets x", NULL, NULL), 2);
}

/* --emit-slurm: scripts that bash and sbatch accept; the tasks run here; --merge. */
static void test_slurm(void)
{
    char dir[1024], args[8192], path[2048], cmd[8192];
    snprintf(dir, sizeof dir, "%s/slurm", tu_tmpdir());
    snprintf(args, sizeof args, "--emit-slurm '%s'", dir);
    char *out = NULL;
    CU_ASSERT_EQUAL_FATAL(sweep(args, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "4 array tasks") : NULL);
    free(out);
    static const char *const files[] = {"sweep.sbatch", "merge.sh", "plan.json", "sweep.sets"};
    for (size_t i = 0; i < 4; i++) {
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        CU_ASSERT(stat(path, &sb) == 0 && sb.st_size > 0);
    }
    snprintf(cmd, sizeof cmd, "bash -n '%s/sweep.sbatch' && bash -n '%s/merge.sh'", dir, dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    char *sb = NULL;
    snprintf(path, sizeof path, "%s/sweep.sbatch", dir);
    sb = tu_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(sb ? strstr(sb, "#SBATCH --array=0-3\n") : NULL);
    free(sb);

    /* Slurm's own parser: sbatch reads the #SBATCH lines before it contacts the controller.
     * There is no slurmctld here, so --test-only ends with "Unable to contact slurm
     * controller"; any complaint about the script comes before that. */
    if (system("command -v sbatch >/dev/null 2>&1") == 0) {
        char conf[2048], log[2048];
        snprintf(conf, sizeof conf, "%s/slurm.conf", tu_tmpdir());
        snprintf(log, sizeof log, "%s/sbatch.log", tu_tmpdir());
        FILE *fp = fopen(conf, "w");
        /* Port 1: refused at once, instead of sbatch retrying a real address. */
        fputs("ClusterName=tunesim-test\nSlurmctldHost=localhost\nSlurmctldPort=1\n"
              "MessageTimeout=1\n",
              fp);
        fclose(fp);
        for (int s = 0; s < 2; s++) {
            snprintf(cmd, sizeof cmd,
                     "SLURM_CONF='%s' timeout 30 sbatch --test-only '%s/%s' >'%s' 2>&1", conf, dir,
                     s ? "merge.sh" : "sweep.sbatch", log);
            int rc = system(cmd);
            char *l = tu_read_file(log, NULL);
            int parsed = l && strstr(l, "Unable to contact slurm controller") &&
                         !strstr(l, "unrecognized option") && !strstr(l, "invalid");
            CU_ASSERT(rc != 0 && parsed);
            if (!parsed)
                printf("\n  sbatch --test-only %s: %s", s ? "merge.sh" : "sweep.sbatch",
                       l ? l : "");
            free(l);
        }
        printf("(sbatch parsed both scripts; without a slurmctld here --test-only cannot "
               "check the allocation) ");
    } else { /* scripts/setup.sh installs slurm-client: its absence is worth a line */
        tu_skip("sbatch --test-only on the job scripts (only bash -n checked them)",
                "sbatch is not installed");
    }

    /* Each array task, run here as Slurm would, then the merge. */
    for (int t = 0; t < NSETS; t++) {
        snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=%d bash '%s/sweep.sbatch' >/dev/null", t,
                 dir);
        CU_ASSERT_EQUAL(system(cmd), 0);
    }
    snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=%d bash '%s/sweep.sbatch' 2>/dev/null", NSETS,
             dir);
    int rc = system(cmd);
    CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 2); /* no such task */
    /* Not task numbers, though bash's arithmetic would take them (-1: the last sets). */
    static const char *const NOT_TASKS[] = {"-1", "0x1", "08", "1e0"};
    for (size_t i = 0; i < sizeof NOT_TASKS / sizeof NOT_TASKS[0]; i++) {
        snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=%s bash '%s/sweep.sbatch' 2>/dev/null",
                 NOT_TASKS[i], dir);
        rc = system(cmd);
        CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
        snprintf(path, sizeof path, "%s/results/task-%s.jsonl", dir, NOT_TASKS[i]);
        CU_ASSERT(access(path, F_OK) != 0);
    }
    snprintf(cmd, sizeof cmd, "bash '%s/merge.sh' >/dev/null", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    CU_ASSERT(same_file(path, g_ref_json));
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    CU_ASSERT(same_file(path, g_ref_csv));

    /* A missing task: the merge says which sets have no result and fails. */
    snprintf(path, sizeof path, "%s/results/task-1.jsonl", dir);
    CU_ASSERT_EQUAL(unlink(path), 0);
    snprintf(args, sizeof args, "sweep --merge '%s' --baseline tcp", dir);
    char *err = NULL;
    out = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "1 of 4 sets have no result") : NULL);
    CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "baseline tcp") : NULL);
    free(out);
    free(err);
}

/* s in single quotes for sh, into out. */
static const char *sq(char *out, size_t n, const char *s)
{
    size_t k = 0;
    out[k++] = '\'';
    for (; *s && k + 5 < n; s++) {
        if (*s == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *s;
        }
    }
    out[k++] = '\'';
    out[k] = '\0';
    return out;
}

/* Issue 30 item 11: --emit-slurm into a directory whose name has a blank, a quote and a '%':
 * every path in the scripts quoted for its reader (bash; sbatch for #SBATCH lines, which
 * knows double quotes only and expands '%'), and a merge.sh of the user's own refused with
 * one line, not overwritten. */
static void test_slurm_quoting(void)
{
    char dir[1024], qdir[2048], args[8192], path[2048], cmd[8192];
    snprintf(dir, sizeof dir, "%s/my jobs/it's 100%%", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "mkdir -p %s && echo 'echo mine' > %s/merge.sh",
             sq(qdir, sizeof qdir, dir), qdir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 2 --ppn 1 --emit-slurm %s", g_trace,
             g_sets, qdir);
    char *out = NULL, *err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(err && strstr(err, "merge.sh: exists and tunesim did not write it") &&
              tu_one_line(err));
    free(out);
    free(err);
    snprintf(path, sizeof path, "%s/merge.sh", dir);
    char *mine = tu_read_file(path, NULL);
    CU_ASSERT(mine && strcmp(mine, "echo mine\n") == 0);
    free(mine);
    snprintf(path, sizeof path, "%s/sweep.sbatch", dir);
    struct stat sb;
    CU_ASSERT(stat(path, &sb) != 0); /* nothing written */

    snprintf(path, sizeof path, "%s/merge.sh", dir);
    CU_ASSERT_EQUAL(unlink(path), 0);
    for (int run = 0; run < 2; run++) { /* the second replaces what the first wrote */
        out = err = NULL;
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        if (run == 0 && err && *err)
            printf("\n  %s", err);
        char want[2200]; /* the printed command quotes the script's whole path */
        snprintf(want, sizeof want, "sbatch --parsable %.*s/sweep.sbatch'", (int)strlen(qdir) - 1,
                 qdir);
        CU_ASSERT(out && strstr(out, want));
        free(out);
        free(err);
    }
    snprintf(path, sizeof path, "%s/sweep.sbatch", dir);
    char *text = tu_read_file(path, NULL), want[2200];
    snprintf(want, sizeof want,
             "#SBATCH --output=\"%s/my jobs/it's 100%%%%/logs/sweep-%%A_%%a.out\"\n", tu_tmpdir());
    CU_ASSERT(text && strstr(text, want));
    if (text && !strstr(text, want))
        printf("\n  expected %s  in\n%s", want, text);
    free(text);
    snprintf(path, sizeof path, "%s/merge.sh", dir);
    text = tu_read_file(path, NULL);
    snprintf(want, sizeof want, "#SBATCH --output=\"%s/my jobs/it's 100%%%%/logs/merge-%%j.out\"\n",
             tu_tmpdir());
    CU_ASSERT(text && strstr(text, want));
    free(text);
    snprintf(cmd, sizeof cmd, "bash -n %s/sweep.sbatch && bash -n %s/merge.sh", qdir, qdir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    /* One task, run here as Slurm would: every path it names reaches tunesim whole. */
    snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=0 bash %s/sweep.sbatch >/dev/null", qdir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    snprintf(path, sizeof path, "%s/results/task-0.jsonl", dir);
    CU_ASSERT(stat(path, &sb) == 0 && sb.st_size > 0);
}

/* --plot: PNG and SVG of the bars and of the breakdown, or a one-line error without
 * gnuplot. Uses --merge of the Slurm test's results: no replay needed. */
static void test_plot(void)
{
    char dir[1024], args[8192], path[2048];
    snprintf(dir, sizeof dir, "%s/slurm", tu_tmpdir());
    char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    snprintf(args, sizeof args, "sweep --merge '%s' --plot '%s/pic'", dir, tu_tmpdir());
    char *err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "needs gnuplot") && strchr(err, '\n') == strrchr(err, '\n'));
    free(err);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        tu_skip("the pictures of sweep --plot", "gnuplot is not installed");
        return;
    }
    tu_run_cli(args, NULL, NULL); /* exits 1: a set of the merge has no result */
    static const char *const pics[] = {"pic.png", "pic.svg", "pic-breakdown.png",
                                       "pic-breakdown.svg"};
    for (size_t i = 0; i < 4; i++) {
        size_t n = 0;
        snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), pics[i]);
        char *data = tu_read_file(path, &n);
        CU_ASSERT_PTR_NOT_NULL(data);
        if (data && i % 2 == 0)
            CU_ASSERT(n > 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0);
        if (data && i % 2 == 1)
            CU_ASSERT(strstr(data, "<svg") != NULL);
        free(data);
    }
}

/* A result belongs to its placement: a set whose map-by changes from block to core:PE=2
 * (the same nodes, ranks per node and policy) runs again rather than resuming block's. */
static void test_resume_placement(void)
{
    const char *d = tu_tmpdir();
    char args[8192], sets[2048], res[2048];
    char *out = NULL, *err = NULL;
    snprintf(sets, sizeof sets, "%s/place.sets", d);
    snprintf(res, sizeof res, "%s/place.results.jsonl", d);
    const char *maps[] = {"block", "core:PE=2", "core:PE=2"};
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen(sets, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fprintf(f, "[s]\nmap_by = %s\n", maps[k]);
        fclose(f);
        snprintf(args, sizeof args, "sweep '%s' --sets '%s' --nodes 1 --results '%s'", g_trace,
                 sets, res);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        /* runs 1 and 2 replay (a line each), run 3 finds PE=2's result (no line) */
        CU_ASSERT_EQUAL(count_lines(res), k < 2 ? k + 1 : 2);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, k ? "NPS1, block PE=2)" : "NPS1, block)"));
        free(out);
        free(err);
    }
}

/* sets/floor.sets, as shipped: every parameter it names exists (the sweep refuses unknown ones
 * before running), and with every MPI cost at nothing the bundled trace takes less than asis
 * and at least its mean compute per rank (no rank can finish before its own compute); and
 * asis does pay for what the floor leaves out: a tenfold receive CPU makes it slower. */
static void test_floor_sets(void)
{
    const char *d = tu_tmpdir();
    char args[8192], json[2048];
    char *out = NULL, *err = NULL;
    snprintf(json, sizeof json, "%s/floor.json", d);
    snprintf(args, sizeof args,
             "sweep '%s' --sets '%s/sets/floor.sets' --nodes 2 --ppn 1 --json '%s'", g_trace,
             TS_SOURCE_DIR, json);
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    json_object *j = json_object_from_file(json);
    json_object *sets = jget(j, "sets");
    CU_ASSERT_FATAL(sets && json_object_array_length(sets) == 1);
    json_object *f = json_object_array_get_idx(sets, 0);
    CU_ASSERT_STRING_EQUAL(json_object_get_string(jget(f, "name")), "floor");
    double floor_t = json_object_get_double(jget(f, "predicted_time_s"));
    double compute = json_object_get_double(jget(f, "compute_time_s"));
    json_object_put(j);

    snprintf(json, sizeof json, "%s/asis.json", d);
    snprintf(args, sizeof args, "replay '%s' --nodes 2 --ppn 1 --json", g_trace);
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, &err), 0);
    j = json_tokener_parse(out ? out : "");
    double asis_t = json_object_get_double(jget(j, "predicted_time_s"));
    json_object_put(j);
    free(out);
    free(err);
    CU_ASSERT(compute > 0.2); /* 0.128 s per rank, two ranks */
    CU_ASSERT(floor_t >= compute / 2);
    CU_ASSERT(floor_t < asis_t);

    /* Tenfold receive CPU: asis slows, the floor does not move. */
    snprintf(args, sizeof args,
             "replay '%s' --nodes 2 --ppn 1 --json --set model.ucx.recv_call=3us", g_trace);
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, &err), 0);
    j = json_tokener_parse(out ? out : "");
    CU_ASSERT(json_object_get_double(jget(j, "predicted_time_s")) > asis_t);
    json_object_put(j);
    free(out);
    free(err);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    setup_paths();
    CU_pSuite s = CU_add_suite("sweep", NULL, NULL);
    CU_add_test(s, "JSON/CSV schema; -j 1 and -j 2 identical", test_schema_and_jobs);
    CU_add_test(s, "resume after a killed worker", test_resume_after_killed_worker);
    CU_add_test(s, "resume after a killed sweep", test_resume_after_killed_sweep);
    CU_add_test(s, "invalid sets all at once, nothing run", test_invalid_sets);
    CU_add_test(s, "a result belongs to its placement", test_resume_placement);
    CU_add_test(s, "Slurm job array: syntax, tasks, merge", test_slurm);
    CU_add_test(s, "issue 30 item 11: --emit-slurm quotes paths, keeps the user's files",
                test_slurm_quoting);
    CU_add_test(s, "pictures with gnuplot", test_plot);
    CU_add_test(s, "sets/floor.sets: below asis, at least the compute", test_floor_sets);
    return tu_run_all();
}
