/* test_cli.c - the tunesim command line end to end, as a user runs it: info (text and JSON),
 * convert (store and TI), exit codes, one-line errors, no partial outputs, byte-identical
 * reruns. Parts that read shared/ are skipped, with a message, when it is absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "testutil.h"


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
    static const char *const cmds[] = {"info",   "convert",   "record",  "replay",
                                       "sweep",  "params",    "calibrate", "validate"};
    char *out, *err, args[256], want[64];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(want, sizeof want, "usage: tunesim %s", cmds[i]);
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        if (!out || !strstr(out, want))
            printf("\n  tunesim %s: no '%s' on stdout", args, want);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        CU_ASSERT_STRING_EQUAL(err, "");
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

static void test_bundled_trace(void)
{
    if (!exists(tu_bundled())) {
        CU_FAIL("the bundled default trace traces/data/simplefoam-pitzdaily-2 is missing");
        return;
    }
    json_object *j = info_json(tu_bundled());
    if (!j)
        return;
    CU_ASSERT_EQUAL(jget(j, "ranks", NULL, NULL), 2);
    CU_ASSERT_EQUAL(jget(j, "nodes", NULL, NULL), 1);
    CU_ASSERT(jget(j, "events", NULL, NULL) > 100);
    /* simpleFoam's halo exchange and residual reductions. */
    CU_ASSERT(jget(j, "functions", "MPI_Isend", "visits") > 0);
    CU_ASSERT(jget(j, "functions", "MPI_Allreduce", "visits") > 0);
    CU_ASSERT_EQUAL(jget(j, "matching", "unmatched_sends", NULL), 0);
    CU_ASSERT_EQUAL(jget(j, "matching", "unmatched_receives", NULL), 0);
    json_object_put(j);
}

static void test_json_counts(void)
{
    if (!tu_scorep_dir()) {
        printf("(skipped: no shared/ traces) ");
        return;
    }
    json_object *j = info_json(tu_scorep("sstmacro-otf2_test_traces"));
    if (!j)
        return;
    CU_ASSERT_EQUAL(jget(j, "ranks", NULL, NULL), 10);
    CU_ASSERT_EQUAL(jget(j, "nodes", NULL, NULL), 10);
    CU_ASSERT_EQUAL(jget(j, "functions", "MPI_Isend", "visits"), 1440);
    CU_ASSERT_EQUAL(jget(j, "functions", "MPI_Allreduce", "visits"), 360);
    CU_ASSERT(jget(j, "functions", "MPI_Isend", "bytes") > 0);
    CU_ASSERT(jget(j, "events", NULL, NULL) > 0);
    json_object_put(j);
}

static void test_convert_and_determinism(void)
{
    const char *trace = tu_scorep_dir() ? tu_scorep("sstmacro-otf2_test_traces") : tu_bundled();
    if (!exists(trace))
        return;
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

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    if (!tu_scorep_dir())
        printf("note: shared/traces/scorep is absent: the parts that read it are skipped\n");
    CU_pSuite s = CU_add_suite("cli", NULL, NULL);
    CU_add_test(s, "--help, help COMMAND and usage lines for every command", test_help_everywhere);
    CU_add_test(s, "usage and errors", test_usage_errors);
    CU_add_test(s, "bundled simpleFoam trace", test_bundled_trace);
    CU_add_test(s, "info --json counts", test_json_counts);
    CU_add_test(s, "convert, store equivalence, determinism", test_convert_and_determinism);
    CU_add_test(s, "no partial output on failure", test_no_partial_output);
    return tu_run_all();
}
