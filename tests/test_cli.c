/* test_cli.c - the tunesim command line end to end, as a user runs it: info (text and JSON),
 * convert (store and TI), exit codes, one-line errors, no partial outputs, byte-identical
 * reruns. Where shared/ is absent the part that reads it is skipped (tu_skip: the program
 * exits 77, which ctest reports as skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "testutil.h"
#include "traces/codec.h"
#include "traces/store.h"
#include "traces/trace_impl.h"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_usage_errors(void)
{
    char *out, *err;
    CU_ASSERT_EQUAL(tu_run_cli("--help", &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: tunesim"));
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("frobnicate", &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown command 'frobnicate'"));
    CU_ASSERT(tu_one_line(err));
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("info", &out, &err), 2);
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("info /nonexistent/x.otf2", &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x.otf2"));
    CU_ASSERT(tu_one_line(err));
    CU_ASSERT_STRING_EQUAL(out, "");
    free(out);
    free(err);
}

/* Every command answers --help and `tunesim help COMMAND` with its usage on stdout (exit 0);
 * a usage mistake is one line saying what is wrong with the command's usage (exit 2). */
static void test_help_everywhere(void)
{
    static const char *const cmds[] = {"info",   "convert",   "record", "replay", "sweep",
                                       "params", "calibrate", "imb",    "fit",    "validate"};
    char *out, *err, args[256], want[64];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(want, sizeof want, "usage: tunesim %s", cmds[i]);
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        if (!out || !strstr(out, want))
            printf("\n  tunesim %s: no '%s' on stdout", args, want);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        CU_ASSERT_STRING_EQUAL(err, "");
        /* Issue 30 item 12: within 100 columns, and every option of the synopsis explained
         * below it (record explains its own). */
        for (const char *l = out; l && *l;) {
            size_t len = strcspn(l, "\n");
            if (len > 100)
                printf("\n  tunesim %s: a line of %zu columns", args, len);
            CU_ASSERT(len <= 100);
            l += len + (l[len] != '\0');
        }
        const char *opts = out ? strstr(out, "\noptions:\n") : NULL;
        if (strcmp(cmds[i], "record") != 0) {
            CU_ASSERT_PTR_NOT_NULL(opts);
            for (const char *w = out; opts && w < opts && (w = strstr(w, "--")) && w < opts;) {
                char word[40];
                size_t n = 2;
                while (n < sizeof word - 1 && (w[n] == '-' || (w[n] >= 'a' && w[n] <= 'z')))
                    n++;
                snprintf(word, sizeof word, "%.*s", (int)n, w);
                w += n;
                if (n <= 2)
                    continue; /* "--" itself */
                if (!strstr(opts, word))
                    printf("\n  tunesim %s: %s is not explained", args, word);
                CU_ASSERT_PTR_NOT_NULL(strstr(opts, word));
            }
        }
        free(out);
        free(err);
        snprintf(args, sizeof args, "help %s", cmds[i]);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        free(out);
        free(err);
    }
    CU_ASSERT_EQUAL(tu_run_cli("replay --frobnicate", &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "--frobnicate"));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "(usage: tunesim replay TRACE [--platform"));
    CU_ASSERT(tu_one_line(err));
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("help frobnicate", &out, &err), 2);
    free(out);
    free(err);
    CU_ASSERT_EQUAL(tu_run_cli("--version", &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strncmp(out, "tunesim ", 8) == 0);
    free(out);
    free(err);
}

/* info --json carries at least ranks, nodes, events and functions{name: {visits, bytes}}. */
static json_object *info_json(const char *trace)
{
    char args[1200], *out, *err;
    snprintf(args, sizeof args, "info '%s' --json", trace);
    int rc = tu_run_cli(args, &out, &err);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0)
        printf("\n  %s", err ? err : "");
    json_object *j = out ? json_tokener_parse(out) : NULL;
    CU_ASSERT_PTR_NOT_NULL(j);
    free(out);
    free(err);
    return j;
}

static int64_t jget(json_object *j, const char *a, const char *b, const char *c)
{
    json_object *x = j;
    const char *path[] = {a, b, c};
    for (int i = 0; i < 3 && path[i]; i++)
        if (!json_object_object_get_ex(x, path[i], &x))
            return -1;
    return json_object_get_int64(x);
}

/* The MPI profile a trace's info --json must report: visits and bytes per function, and
 * no function besides these. */
typedef struct fcount_s {
    const char *name;
    int64_t visits, bytes;
} fcount_t;

static void check_functions(json_object *j, const fcount_t *want, size_t n)
{
    json_object *f = NULL;
    CU_ASSERT_FATAL(json_object_object_get_ex(j, "functions", &f));
    CU_ASSERT_EQUAL(json_object_object_length(f), (int)n);
    for (size_t i = 0; i < n; i++) {
        int64_t v = jget(j, "functions", want[i].name, "visits");
        int64_t b = jget(j, "functions", want[i].name, "bytes");
        if (v != want[i].visits || b != want[i].bytes)
            printf("\n  %s: %lld visits, %lld bytes; want %lld, %lld", want[i].name, (long long)v,
                   (long long)b, (long long)want[i].visits, (long long)want[i].bytes);
        CU_ASSERT_EQUAL(v, want[i].visits);
        CU_ASSERT_EQUAL(b, want[i].bytes);
    }
}

/* The bundled trace is committed, so its counts are fixed: any change in what the reader
 * makes of it shows here. */
static void test_bundled_trace(void)
{
    static const fcount_t want[] = {
        {"MPI_Init_thread", 2, 0},   {"MPI_Waitall", 4024, 852232},
        {"MPI_Recv", 129, 4137},     {"MPI_Allreduce", 3194, 123840},
        {"MPI_Isend", 4024, 852232}, {"MPI_Irecv", 4024, 0},
        {"MPI_Probe", 30, 0},        {"MPI_Alltoall", 6, 96},
        {"MPI_Send", 129, 4137},     {"MPI_Comm_create", 2, 0},
        {"MPI_Comm_free", 2, 0},     {"MPI_Group_incl", 2, 0},
        {"MPI_Buffer_detach", 2, 0}, {"MPI_Get_count", 159, 0},
        {"MPI_Buffer_attach", 2, 0}, {"MPI_Group_free", 2, 0},
        {"MPI_Finalize", 2, 0},      {"MPI_Comm_group", 2, 0},
        {"MPI_Comm_rank", 6, 0},     {"MPI_Comm_size", 4, 0},
    };
    CU_ASSERT_FATAL(exists(tu_bundled())); /* committed: missing is a failure, not a skip */
    json_object *j = info_json(tu_bundled());
    if (!j)
        return; /* info_json has failed the test */
    CU_ASSERT_EQUAL(jget(j, "ranks", NULL, NULL), 2);
    CU_ASSERT_EQUAL(jget(j, "nodes", NULL, NULL), 1);
    CU_ASSERT_EQUAL(jget(j, "events", NULL, NULL), 66802);
    check_functions(j, want, sizeof want / sizeof want[0]);
    /* Every point-to-point message matched: 4024 Isend + 129 Send. */
    CU_ASSERT_EQUAL(jget(j, "matching", "sends", NULL), 4153);
    CU_ASSERT_EQUAL(jget(j, "matching", "receives", NULL), 4153);
    CU_ASSERT_EQUAL(jget(j, "matching", "unmatched_sends", NULL), 0);
    CU_ASSERT_EQUAL(jget(j, "matching", "unmatched_receives", NULL), 0);
    CU_ASSERT_EQUAL(jget(j, "matching", "byte_mismatches", NULL), 0);
    json_object_put(j);
}

static void test_json_counts(void)
{
    static const fcount_t want[] = {
        {"MPI_Init", 10, 0},
        {"MPI_Waitall", 480, 23592600},
        {"MPI_Alltoall", 360, 4193280},
        {"MPI_Isend", 1440, 23592600},
        {"MPI_Allreduce", 360, 4193280},
        {"MPI_Wait", 1080, 0},
        {"MPI_Allgather", 360, 4193280},
        {"MPI_Scatter", 30, 240},
        {"MPI_Irecv", 1440, 0},
        {"MPI_Finalize", 10, 0},
        {"MPI_Iallgather", 360, 0},
        {"MPI_Comm_split", 20, 0},
        {"MPI_Ialltoall", 360, 0},
        {"MPI_Gather", 30, 240},
        {"MPI_Reduce", 30, 240},
        {"MPI_Iallreduce", 360, 0},
        {"MPI_Bcast", 30, 240},
        {"MPI_Initialized", 20, 0},
        {"MPI_Comm_free", 20, 0},
        {"MPI_Comm_rank", 110, 0},
        {"MPI_Comm_size", 100, 0},
    };
    if (!tu_scorep_dir()) {
        tu_skip("info --json on the shared Score-P traces", "../shared/traces/scorep is absent");
        return;
    }
    json_object *j = info_json(tu_scorep("sstmacro-otf2_test_traces"));
    if (!j)
        return; /* info_json has failed the test */
    CU_ASSERT_EQUAL(jget(j, "ranks", NULL, NULL), 10);
    CU_ASSERT_EQUAL(jget(j, "nodes", NULL, NULL), 10);
    CU_ASSERT_EQUAL(jget(j, "events", NULL, NULL), 27990);
    check_functions(j, want, sizeof want / sizeof want[0]);
    json_object_put(j);
}

static void test_convert_and_determinism(void)
{
    const char *trace = tu_scorep_dir() ? tu_scorep("sstmacro-otf2_test_traces") : tu_bundled();
    CU_ASSERT_FATAL(exists(trace)); /* the bundled trace is committed */
    char args[2000], a[700], b[600], *out, *err, *out2;
    snprintf(a, sizeof a, "%s/cli.tss", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s'", trace, a);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    snprintf(b, sizeof b, "%s/cli2.tss", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s'", a, b);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0); /* a store converts to the same bytes */
    free(out);
    free(err);
    size_t na, nb;
    char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
    CU_ASSERT(da && db && na == nb && memcmp(da, db, na) == 0);
    free(da);
    free(db);

    /* Same report from the archive and from its store, and twice the same bytes. */
    json_object *x = info_json(trace), *y = info_json(a);
    json_object *fx, *fy;
    if (x && y && json_object_object_get_ex(x, "functions", &fx) &&
        json_object_object_get_ex(y, "functions", &fy))
        CU_ASSERT_STRING_EQUAL(json_object_to_json_string(fx), json_object_to_json_string(fy));
    json_object_put(x);
    json_object_put(y);
    snprintf(args, sizeof args, "info '%s'", a);
    tu_run_cli(args, &out, &err);
    free(err);
    tu_run_cli(args, &out2, &err);
    free(err);
    CU_ASSERT(out && out2 && strcmp(out, out2) == 0);
    free(out);
    free(out2);

    snprintf(b, sizeof b, "%s/ti-cli", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' --to ti -o '%s'", a, b);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    free(out);
    free(err);
    snprintf(a, sizeof a, "%s/ti.txt", b);
    CU_ASSERT(exists(a));
}

static void test_no_partial_output(void)
{
    char args[2000], *out, *err;
    const char *trace = tu_scorep_dir() ? tu_scorep("fastotf2-mi300") : "/nonexistent";
    char o[600];
    snprintf(o, sizeof o, "%s/never.tss", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s'", trace, o);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT(tu_one_line(err));
    CU_ASSERT(!exists(o));
    free(out);
    free(err);
    /* Output directory that does not exist: error naming it, nothing written. */
    if (exists(tu_bundled())) {
        snprintf(args, sizeof args, "convert '%s' -o /nonexistent/dir/x.tss", tu_bundled());
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/dir/x.tss"));
        free(out);
        free(err);
    }
}

/* Issue 29: MXM under pml yalla. A misspelled MXM_ word gets a did-you-mean; a yalla replay
 * that needs one of MXM's unknown defaults is refused in one line; the seed study's line,
 * with the two values it leaves to those defaults given, replays through --mpirun. */
static void test_mxm_yalla(void)
{
    char *out = NULL, *err = NULL, args[1024];
    CU_ASSERT_EQUAL(tu_run_cli("params --check -x MXM_UD_MS=8mb", &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "unknown parameter 'MXM_UD_MS' (did you mean "
                                              "MXM_UD_MSS?)"));
    free(out), free(err);
    CU_ASSERT_EQUAL(tu_run_cli("params --check -x MXM_SHM_RNDV_TRESH=32768", &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "(did you mean MXM_SHM_RNDV_THRESH?)"));
    free(out), free(err);
    CU_ASSERT_EQUAL(tu_run_cli("params --check -x MXM_UD_MSS=big", &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "MXM_UD_MSS: bad value 'big'"));
    free(out), free(err);
    CU_ASSERT_EQUAL(tu_run_cli("params --protocols --mca pml yalla -x MXM_TLS=self,shm,ud -x "
                               "MXM_SHM_RNDV_THRESH=32768 -x MXM_RNDV_THRESH=64kb -x "
                               "MXM_ZCOPY_THRESH=inf -x MXM_UD_HARD_ZCOPY_THRESH=inf -x "
                               "MXM_UD_MSS=8mb",
                               &out, &err),
                    0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "same_numa     MPI_Isend  0-32767 eager "
                                              "bcopy/mxm_shm, 32768+ rndv get_zcopy/knem\n"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "same_leaf     MPI_Send   0-65535 eager "
                                              "bcopy/mxm_ud, 65536+ rndv am/mxm_ud\n"));
    free(out), free(err);

    const char *seed = "mpirun -n 2 -N 1 -mca pml yalla -mca coll_hcoll_enable 0 -x "
                       "MXM_SHM_RNDV_THRESH=32768 -x MXM_ZCOPY_THRESH=inf -x "
                       "MXM_UD_HARD_ZCOPY_THRESH=inf -x MXM_UD_MSS=8mb ./x";
    snprintf(args, sizeof args, "replay '%s' --mpirun '%s'", tu_bundled(), seed);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && tu_one_line(err) &&
                           strstr(err, "MXM_TLS is auto, MXM's own default, which no source "
                                       "gives"));
    free(out), free(err);
    snprintf(args, sizeof args, "replay '%s' -x MXM_TLS=self,shm,ud --mpirun '%s'", tu_bundled(),
             seed);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "need MXM_RNDV_THRESH, whose default (auto)"));
    free(out), free(err);
    snprintf(args, sizeof args,
             "replay '%s' -x MXM_TLS=self,shm,ud -x MXM_RNDV_THRESH=64kb --mpirun '%s'",
             tu_bundled(), seed);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "settings    pml=yalla coll_hcoll_enable=0 "
                                              "MXM_TLS=self,shm,ud MXM_RNDV_THRESH=64kb"));
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\npredicted   "));
    free(out), free(err);
}

/* info --json's histograms: bucket k > 0 holds sizes [2^(k-1), 2^k), so its "max" is
 * 2 x its "min" - 1; bucket 0 holds the empty messages, min = max = 0. */
static void test_info_hist_bounds(void)
{
    json_object *j = info_json(tu_bundled()), *h;
    CU_ASSERT_FATAL(j && json_object_object_get_ex(j, "histograms", &h));
    int buckets = 0;
    json_object_object_foreach(h, op, arr)
    {
        (void)op;
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            json_object *b = json_object_array_get_idx(arr, i), *lo, *hi;
            CU_ASSERT_FATAL(json_object_object_get_ex(b, "min", &lo) &&
                            json_object_object_get_ex(b, "max", &hi));
            uint64_t min = json_object_get_uint64(lo), max = json_object_get_uint64(hi);
            CU_ASSERT_EQUAL(max, min ? 2 * min - 1 : 0);
            buckets++;
        }
    }
    CU_ASSERT(buckets > 0); /* the trace sends messages */
    json_object_put(j);
}

/* A trace of n ranks, one a node (node0, node1, ...), where rank 0 sends 8 B that rank 1
 * receives as 16 B, written as a store at path. */
static void write_wide(int32_t n, const char *path)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("wide", TS_FORMAT_OTF2, n, &t) == TS_OK);
    int32_t world[16];
    char name[16];
    for (int32_t r = 0; r < n; r++) {
        snprintf(name, sizeof name, "node%d", (int)r);
        t->ranks[r].node = ts__trace_add_node(t, name);
        world[r] = r;
    }
    ts__trace_add_comm(t, "MPI_COMM_WORLD", n, 0, world);
    const ts_event_t send[] = {
        {.kind = TS_EV_ENTER, .func = (uint16_t)ts__trace_intern_func(t, "MPI_Send")},
        {.kind = TS_EV_SEND, .peer = 1, .tag = 3, .bytes = 8},
        {.kind = TS_EV_LEAVE}};
    const ts_event_t recv[] = {
        {.kind = TS_EV_ENTER, .func = (uint16_t)ts__trace_intern_func(t, "MPI_Recv")},
        {.kind = TS_EV_RECV, .peer = 0, .tag = 3, .bytes = 16},
        {.kind = TS_EV_LEAVE}};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_FATAL(ts_codec_put(&t->ranks[0].buf, &send[i]) == TS_OK);
        CU_ASSERT_FATAL(ts_codec_put(&t->ranks[1].buf, &recv[i]) == TS_OK);
    }
    t->ranks[0].nevents = t->ranks[1].nevents = 3;
    ts__trace_seal(t);
    ts_error_t e;
    CU_ASSERT_EQUAL_FATAL(ts_store_write(t, path, &e), TS_OK);
    ts_trace_close(t);
}

/* info's node line names the first eight nodes and says where there are more; its matching
 * line counts a stream whose bytes differ (every send matched). */
static void test_info_wide_mismatched(void)
{
    static const struct {
        int32_t n;
        const char *line;
    } cases[] = {
        {8, "nodes      8: node0 node1 node2 node3 node4 node5 node6 node7\n"},
        {10, "nodes      10: node0 node1 node2 node3 node4 node5 node6 node7 ...\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[64], args[1200], *out = NULL, *err = NULL;
        snprintf(path, sizeof path, "wide%d.tss", (int)cases[i].n);
        write_wide(cases[i].n, tu_path(path));
        snprintf(args, sizeof args, "info '%s'", tu_path(path));
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, cases[i].line));
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "matching   1 sends, 1 receives: 0 unmatched "
                                                  "sends, 0 unmatched receives, 1 streams with "
                                                  "differing bytes\n"));
        free(out), free(err);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("cli", NULL, NULL);
    CU_add_test(s, "--help, help COMMAND and usage lines for every command", test_help_everywhere);
    CU_add_test(s, "usage and errors", test_usage_errors);
    CU_add_test(s, "bundled simpleFoam trace", test_bundled_trace);
    CU_add_test(s, "convert, store equivalence, determinism", test_convert_and_determinism);
    CU_add_test(s, "no partial output on failure", test_no_partial_output);
    CU_add_test(s, "MXM under pml yalla: did-you-mean, refusals, the seed line", test_mxm_yalla);
    CU_add_test(s, "info --json histogram bucket bounds", test_info_hist_bounds);
    CU_add_test(s, "info: ten nodes, bytes that differ", test_info_wide_mismatched);
    /* Reads ../shared: ctest runs it as test_cli_shared (tests/CMakeLists.txt). */
    CU_pSuite sh = CU_add_suite("shared", NULL, NULL);
    CU_add_test(sh, "info --json counts", test_json_counts);
    return tu_run_all();
}
