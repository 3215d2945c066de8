/* testutil.c - helpers shared by the CUnit test programs. */
#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp_root[256];

const char *tu_scorep_dir(void)
{
    static char dir[1024];
    struct stat st;
    snprintf(dir, sizeof dir, "%s", TS_SHARED_SCOREP);
    return (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) ? dir : NULL;
}

const char *tu_scorep(const char *name)
{
    static char path[1200];
    snprintf(path, sizeof path, "%s/%s", TS_SHARED_SCOREP, name);
    return path;
}

void tu_require_shared(const char *program)
{
    if (!tu_scorep_dir()) {
        printf("%s: SKIPPED: the real Score-P traces are not at %s (shared/ beside the "
               "checkout, present in CI, absent in a fresh clone)\n",
               program, TS_SHARED_SCOREP);
        exit(TS_TEST_SKIP);
    }
}

/* The parts skipped so far (tu_skip), for tu_run_all's summary. */
static char skipped[16][256];
static int nskipped;

void tu_skip(const char *what, const char *why)
{
    printf("(skipped: %s) ", why);
    if (nskipped < (int)(sizeof skipped / sizeof skipped[0]))
        snprintf(skipped[nskipped], sizeof skipped[0], "%s (%s)", what, why);
    nskipped++;
}

static void cleanup(void)
{
    if (tmp_root[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
        if (system(cmd) != 0)
            fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    }
}

const char *tu_tmpdir(void)
{
    if (!tmp_root[0]) {
        snprintf(tmp_root, sizeof tmp_root, "/tmp/tunesim-test.XXXXXX");
        if (!mkdtemp(tmp_root)) {
            perror("mkdtemp");
            exit(1);
        }
        atexit(cleanup);
    }
    return tmp_root;
}

int tu_copy_dir(const char *src, const char *dst)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s' && chmod -R u+w '%s'", src, dst, dst);
    return system(cmd) == 0 ? 0 : -1;
}

char *tu_read_file(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) {
        buf[n] = '\0';
        if (size)
            *size = (size_t)n;
    }
    return buf;
}

const char *tu_path(const char *name)
{
    static char buf[8][1024];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tu_tmpdir(), name);
    return p;
}

/* Under ASan, SimGrid's context switches make ASan print a three-line notice on stderr
 * (google/sanitizers issue 189, as tests/golden.sh filters it): not tunesim's output, so
 * it is taken out of what the tests read. */
void tu_drop_asan_notice(char *s)
{
    /* Each line of the notice starts with one of these (the first after ASan's "==PID=="). */
    static const char *const marks[] = {
        "WARNING: ASan is ignoring requested __asan_handle_no_return",
        "False positive error reports may follow",
        "For details see https://github.com/google/sanitizers/issues/189"};
    char *w = s;
    for (char *r = s; r && *r;) {
        size_t len = strcspn(r, "\n") + (strchr(r, '\n') ? 1 : 0);
        const char *text = r;
        if (strncmp(r, "==", 2) == 0 && (text = strstr(r + 2, "==")) != NULL)
            text += 2; /* past "==PID==" */
        else
            text = r;
        int drop = 0;
        for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
            drop |= strncmp(text, marks[i], strlen(marks[i])) == 0;
        if (!drop) {
            memmove(w, r, len);
            w += len;
        }
        r += len;
    }
    if (w)
        *w = '\0';
}

int tu_run_cli(const char *args, char **out, char **err)
{
    static int n;
    char o[512], e[512], cmd[4096];
    snprintf(o, sizeof o, "%s/cli-%d.out", tu_tmpdir(), n);
    snprintf(e, sizeof e, "%s/cli-%d.err", tu_tmpdir(), n++);
    snprintf(cmd, sizeof cmd, "%s %s >'%s' 2>'%s' </dev/null", TS_CLI, args, o, e);
    int status = system(cmd);
    if (out)
        *out = tu_read_file(o, NULL);
    if (err) {
        *err = tu_read_file(e, NULL);
        tu_drop_asan_notice(*err);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tu_run_all(void)
{
    CU_basic_set_mode(CU_BRM_VERBOSE);
    /* TS_TEST_SUITE=NAME runs that suite alone, =!NAME every other one (CMake's
     * tunesim_test_shared_part: the suite that reads ../shared as a ctest test of its own). */
    const char *only = getenv("TS_TEST_SUITE");
    if (only && *only) {
        int except = only[0] == '!';
        const char *name = only + except;
        CU_set_fail_on_inactive(CU_FALSE); /* a suite left out is not a failure */
        CU_pSuite found = NULL;
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
            int match = strcmp(s->pName, name) == 0;
            if (match)
                found = s;
            CU_set_suite_active(s, except ? !match : match);
        }
        if (!found) {
            printf("TS_TEST_SUITE=%s: no suite '%s' in this program\n", only, name);
            CU_cleanup_registry();
            return 1;
        }
    }
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    for (int i = 0; i < nskipped && i < (int)(sizeof skipped / sizeof skipped[0]); i++)
        printf("SKIPPED: %s\n", skipped[i]);
    return failed ? 1 : nskipped ? TS_TEST_SKIP : 0;
}

ts_trace_t *tu_open(const char *path)
{
    ts_trace_t *t = NULL;
    ts_error_t e;
    ts_error_clear(&e);
    ts_status st = ts_trace_open(path, &t, &e);
    if (st != TS_OK)
        printf("\n  %s: %s\n", path, e.msg);
    CU_ASSERT_EQUAL(st, TS_OK);
    return st == TS_OK ? t : NULL;
}

int tu_traces_equal(const ts_trace_t *a, const ts_trace_t *b)
{
    if (ts_trace_nranks(a) != ts_trace_nranks(b) || ts_trace_nnodes(a) != ts_trace_nnodes(b) ||
        ts_trace_ncomms(a) != ts_trace_ncomms(b) || ts_trace_nfuncs(a) != ts_trace_nfuncs(b) ||
        ts_trace_duration_ns(a) != ts_trace_duration_ns(b) ||
        ts_trace_timer_resolution(a) != ts_trace_timer_resolution(b))
        return 0;
    for (int32_t f = 0; f < ts_trace_nfuncs(a); f++)
        if (strcmp(ts_trace_func_name(a, f), ts_trace_func_name(b, f)) != 0)
            return 0;
    for (int32_t n = 0; n < ts_trace_nnodes(a); n++)
        if (strcmp(ts_trace_node_name(a, n), ts_trace_node_name(b, n)) != 0)
            return 0;
    for (int32_t c = 0; c < ts_trace_ncomms(a); c++) {
        const ts_comm_info_t *x = ts_trace_comm(a, c), *y = ts_trace_comm(b, c);
        if (x->size != y->size || x->is_self != y->is_self || strcmp(x->name, y->name) != 0)
            return 0;
        if (!x->is_self && memcmp(x->members, y->members, (size_t)x->size * sizeof(int32_t)))
            return 0;
    }
    for (int32_t r = 0; r < ts_trace_nranks(a); r++) {
        if (ts_trace_rank_node(a, r) != ts_trace_rank_node(b, r) ||
            ts_trace_rank_nevents(a, r) != ts_trace_rank_nevents(b, r))
            return 0;
        ts_cursor_t *ca, *cb;
        ts_cursor_open(a, r, &ca);
        ts_cursor_open(b, r, &cb);
        ts_event_t ea, eb;
        int ra, rb, same = 1;
        do {
            ra = ts_cursor_next(ca, &ea, NULL);
            rb = ts_cursor_next(cb, &eb, NULL);
            if (ra != rb || (ra == 1 && memcmp(&ea, &eb, sizeof ea) != 0))
                same = 0;
        } while (same && ra == 1);
        ts_cursor_close(ca);
        ts_cursor_close(cb);
        if (!same)
            return 0;
    }
    return 1;
}

const char *tu_bundled(void)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/traces/data/simplefoam-pitzdaily-2", TS_SOURCE_DIR);
    return p;
}

int tu_one_line(const char *s)
{
    const char *nl = s ? strchr(s, '\n') : NULL;
    return s && (!nl || nl[1] == '\0');
}

ts_params_t *tu_round_params(void)
{
    static const char *const set[][2] = {
        {"model.net.latency", "2us"},
        {"model.net.spine_latency", "3us"},
        {"model.net.bandwidth", "10000MB/s"},
        {"UCX_BCOPY_BW", "5000MB/s"},
        {"model.net.reg_cost", "1.0001us"},
        {"model.ucx.rcache_overhead", "1.0001us"},
        {"model.xpmem.attach_cost", "1.0001us"},
        {"model.net.reg_cost_per_byte", "0ns"},
        {"model.ucx.overhead_single", "0ns"},
        {"model.ucx.overhead_multi", "0ns"},
        {"model.ucx.overhead_rts", "0ns"},
        {"model.ucx.overhead_rtr", "0ns"},
        {"model.ucx.overhead_sw", "0ns"},
        {"model.rc.max_short", "1000b"},
        {"model.ucx.send_call", "0ns"},
        {"model.ucx.recv_call", "0ns"},
        {"model.rc.wqe_overhead", "0ns"},
        {"model.ud.wqe_overhead", "0ns"},
        {"model.shm.latency", "0.5us"},
        {"model.shm.bandwidth", "10000MB/s"},
        {"model.shm.max_short", "100b"},
        {"model.ucx.rndv_overhead", "0ns"},
        {"model.cma.overhead", "0ns"},
    };
    ts_params_t *p;
    ts_error_t err;
    if (ts_params_new(&p) != TS_OK)
        return NULL;
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        ts_status st = ts_params_set(p, set[i][0], set[i][1], &err);
        CU_ASSERT_EQUAL(st, TS_OK);
        if (st != TS_OK) {
            printf("\n  %s\n", err.msg);
            ts_params_free(p);
            return NULL;
        }
    }
    return p;
}
