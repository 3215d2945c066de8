/* test_replay.c - `tunesim replay` end to end, as a user runs it: the bundled trace on the
 * default platform, JSON keys, byte-identical reruns, placement and parameters changing the
 * prediction, one-line errors for unknown parameters, impossible placements and transports
 * that cannot reach a peer; and every real Score-P trace replaying to completion (skipped,
 * with a message, without shared/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "testutil.h"

/* Replay with extra arguments; returns the parsed JSON (or NULL) and the exit status. */
static json_object *replay_json(const char *trace, const char *extra, int *rc)
{
    char args[3000], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "replay '%s' --json %s", trace, extra);
    *rc = tu_run_cli(args, &out, &err);
    if (*rc != 0)
        printf("\n  tunesim %s: %s", args, err ? err : "");
    json_object *j = (*rc == 0 && out) ? json_tokener_parse(out) : NULL;
    free(out);
    free(err);
    return j;
}

static double jdouble(json_object *j, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(j, key, &v) ? json_object_get_double(v) : -1;
}

static void test_bundled_json(void)
{
    int rc;
    json_object *j = replay_json(tu_bundled(), "", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    double t = jdouble(j, "predicted_time_s");
    /* The trace's compute alone is 0.128 s per rank (tunesim info: 0.256 s over 2 ranks);
     * communication adds to it, and nothing should take seconds. */
    CU_ASSERT(t > 0.128 && t < 1.0);
    json_object *funcs, *f, *v, *protos;
    CU_ASSERT_FATAL(json_object_object_get_ex(j, "functions", &funcs));
    CU_ASSERT_FATAL(json_object_object_get_ex(funcs, "MPI_Isend", &f));
    CU_ASSERT(json_object_object_get_ex(f, "visits", &v) && json_object_get_int64(v) == 4024);
    CU_ASSERT(json_object_object_get_ex(f, "time_s", &v));
    CU_ASSERT(json_object_object_get_ex(j, "protocols", &protos));
    CU_ASSERT(json_object_object_length(protos) >= 1);
    json_object_put(j);
}

static void test_deterministic(void)
{
    char args[1200], *a = NULL, *b = NULL;
    snprintf(args, sizeof args, "replay '%s'", tu_bundled());
    CU_ASSERT_EQUAL(tu_run_cli(args, &a, NULL), 0);
    CU_ASSERT_EQUAL(tu_run_cli(args, &b, NULL), 0);
    CU_ASSERT(a && b && strcmp(a, b) == 0);
    CU_ASSERT_PTR_NOT_NULL(a ? strstr(a, "predicted") : NULL);
    /* The collective table names Open MPI's component and algorithm: with the defaults
     * (HCOLL on) the bundled trace's Allreduce calls go to HCOLL's hierarchy. */
    CU_ASSERT_PTR_NOT_NULL(a ? strstr(a, "\ncollectives (") : NULL);
    const char *row = a ? strstr(a, "  Allreduce") : NULL;
    CU_ASSERT(row && strncmp(row + 2 + 16, "hcoll  hierarchical", 19) == 0);
    free(a);
    free(b);
}

/* coll_hcoll_enable=0 hands the Allreduce calls to tuned's fixed rules (2 ranks, 8 B: ring,
 * which runs recursive doubling below 2 doubles), and the JSON names it. On one node the
 * prediction differs: HCOLL fans in and out through flags in shared memory (two handoffs of
 * model.hcoll.sm_latency), recursive doubling exchanges one UCX message each way, which
 * costs more (the IMB study's 1 x 36 finding: HCOLL faster at small sizes). */
static void test_collective_settings(void)
{
    char args[1400], *out = NULL;
    snprintf(args, sizeof args, "replay '%s' --nodes 1 --ppn 2 --mca coll_hcoll_enable 0 --json",
             tu_bundled());
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, NULL), 0);
    json_object *j = json_tokener_parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    json_object *colls, *c, *v;
    CU_ASSERT_FATAL(json_object_object_get_ex(j, "collectives", &colls));
    CU_ASSERT_FATAL(json_object_array_length(colls) >= 1);
    int found = 0;
    for (size_t i = 0; i < json_object_array_length(colls); i++) {
        c = json_object_array_get_idx(colls, i);
        CU_ASSERT_FATAL(json_object_object_get_ex(c, "op", &v));
        if (strcmp(json_object_get_string(v), "Allreduce") != 0)
            continue;
        CU_ASSERT(json_object_object_get_ex(c, "component", &v) &&
                  strcmp(json_object_get_string(v), "tuned") == 0);
        CU_ASSERT(json_object_object_get_ex(c, "decision", &v) &&
                  strstr(json_object_get_string(v), "fixed rule") != NULL);
        /* Calls are summed over ranks, as info's visits are: pitzDaily's 2 ranks make 1597
         * each (info --json: 3194 MPI_Allreduce visits). */
        CU_ASSERT(json_object_object_get_ex(c, "calls", &v) && json_object_get_int64(v) == 3194);
        found = 1;
    }
    CU_ASSERT(found);
    double t_tuned = 0;
    CU_ASSERT(json_object_object_get_ex(j, "predicted_time_s", &v));
    t_tuned = json_object_get_double(v);
    json_object_put(j);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "replay '%s' --nodes 1 --ppn 2 --json", tu_bundled());
    CU_ASSERT_EQUAL_FATAL(tu_run_cli(args, &out, NULL), 0);
    j = json_tokener_parse(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT(json_object_object_get_ex(j, "predicted_time_s", &v));
    CU_ASSERT(json_object_get_double(v) < t_tuned); /* the component matters */
    json_object_put(j);
    free(out);
}

static void test_settings_change_prediction(void)
{
    int rc;
    /* Two ranks on one node: block puts them in one NUMA domain, cyclic under NPS2 in two
     * domains of one socket, whose latency is higher (model.shm.cross_numa_latency). */
    json_object *blk = replay_json(tu_bundled(), "--nodes 1 --ppn 2 --nps 2 --map-by block", &rc);
    json_object *cyc = replay_json(tu_bundled(), "--nodes 1 --ppn 2 --nps 2 --map-by cyclic", &rc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(blk);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cyc);
    CU_ASSERT(jdouble(cyc, "predicted_time_s") > jdouble(blk, "predicted_time_s"));
    json_object_put(blk);
    json_object_put(cyc);
    /* Off-host over TCP instead of RDMA: slower; the pasted mpirun form works too. */
    json_object *rdma = replay_json(tu_bundled(), "--nodes 2 --ppn 1", &rc);
    json_object *tcp = replay_json(tu_bundled(),
                                   "--nodes 2 --ppn 1 --mpirun 'mpirun -n 2 -N 1 -x "
                                   "UCX_TLS=self,sm,tcp ./simpleFoam -parallel'",
                                   &rc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rdma);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tcp);
    CU_ASSERT(jdouble(tcp, "predicted_time_s") > jdouble(rdma, "predicted_time_s"));
    json_object *protos, *p;
    CU_ASSERT(json_object_object_get_ex(tcp, "protocols", &protos) &&
              json_object_object_get_ex(protos, "tcp", &p));
    json_object_put(rdma);
    json_object_put(tcp);
}

/* NPS2 scales every compute burst by model.cpu.nps2_compute_ratio (on top of
 * model.cpu.speed_ratio); NPS1 leaves them alone. */
static void test_nps2_compute(void)
{
    int rc;
    json_object *n1 = replay_json(tu_bundled(), "--nodes 1 --ppn 2 --nps 1", &rc);
    json_object *n2 = replay_json(tu_bundled(), "--nodes 1 --ppn 2 --nps 2", &rc);
    json_object *half =
        replay_json(tu_bundled(),
                    "--nodes 1 --ppn 2 --nps 2 --set model.cpu.nps2_compute_ratio=0.5 "
                    "--set model.cpu.speed_ratio=0.5",
                    &rc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(half);
    double c1 = jdouble(n1, "compute_time_s");
    CU_ASSERT(c1 > 0.2); /* the bundled trace: 0.256 s of traced compute */
    CU_ASSERT_DOUBLE_EQUAL(jdouble(n2, "compute_time_s"), 0.982 * c1, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(jdouble(half, "compute_time_s"), 0.25 * c1, 1e-9);
    CU_ASSERT(jdouble(n2, "predicted_time_s") < jdouble(n1, "predicted_time_s"));
    json_object_put(n1);
    json_object_put(n2);
    json_object_put(half);
}

static void expect_error(const char *extra, int want_rc, const char *needle)
{
    char args[2000], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "replay '%s' %s", tu_bundled(), extra);
    int rc = tu_run_cli(args, &out, &err);
    CU_ASSERT_EQUAL(rc, want_rc);
    CU_ASSERT(tu_one_line(err));
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, needle) : NULL);
    if (!err || !strstr(err, needle))
        printf("\n  tunesim %s -> %d: %s", args, rc, err ? err : "");
    CU_ASSERT_STRING_EQUAL(out ? out : "", "");
    free(out);
    free(err);
}

static void test_errors(void)
{
    expect_error("--set UCX_RNDV_TRESH=8kb", 1, "did you mean UCX_RNDV_THRESH");
    expect_error("-x UCX_RNDV_THRESH=12qb", 1, "12qb");
    expect_error("--nodes 1 --ppn 1", 1, "do not fit");
    expect_error("--nodes 2 --ppn 1 -x UCX_TLS=self,sm", 1, "UCX_TLS leaves no transport");
    expect_error("--platform nowhere", 1, "no platform 'nowhere'");
    expect_error("--frobnicate", 2, "--frobnicate");
}

/* Every real Score-P trace replays to completion on the default platform. */
static void test_scorep_traces(void)
{
    if (!tu_scorep_dir()) {
        tu_skip("replays of the shared Score-P traces", "../shared/traces/scorep is absent");
        return;
    }
    static const char *const traces[] = {
        "sstmacro-otf2_test_traces", "tracer-stencil4d-32",      "tracer-stencil4d-64",
        "casita-10_scorep_mpi_tags", "casita-4_mpi_ls_barr",     "casita-2_jacobi_blame_cpu_015",
        "pipit-ping-pong-otf2",      "pipit-ping-pong-otf2-papi"};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        int rc;
        json_object *j = replay_json(tu_scorep(traces[i]), "", &rc);
        CU_ASSERT_EQUAL(rc, 0);
        if (j)
            CU_ASSERT(jdouble(j, "predicted_time_s") > 0);
        json_object_put(j);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("replay", NULL, NULL);
    CU_add_test(s, "NPS2 compute ratio", test_nps2_compute);
    CU_add_test(s, "bundled trace, JSON", test_bundled_json);
    CU_add_test(s, "byte-identical reruns", test_deterministic);
    CU_add_test(s, "collective component settings", test_collective_settings);
    CU_add_test(s, "placement and transports change the prediction",
                test_settings_change_prediction);
    CU_add_test(s, "one-line errors", test_errors);
    /* Reads ../shared: ctest runs it as test_replay_shared (tests/CMakeLists.txt). */
    CU_pSuite sh = CU_add_suite("shared", NULL, NULL);
    CU_add_test(sh, "real Score-P traces replay to completion", test_scorep_traces);
    return tu_run_all();
}
