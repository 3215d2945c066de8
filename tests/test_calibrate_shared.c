/* test_calibrate_shared.c - the calibration against the BM.Optimized3.36 micro-benchmarks of
 * ../shared/reference/microbench (skipped, exit 77, where ../shared is absent): every file
 * parses with the expected sections; the committed calibration
 * platforms/calibrations/bm-optimized3.36.xml is what `tunesim calibrate` makes of them today;
 * and a report of predicted vs measured for every point the point-to-point model covers, with
 * the defaults and with the calibration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "calibration/bench_parse.h"
#include "calibration/calibrate.h"
#include "params/model_file.h"
#include "params/params.h"

#define MB TS_SHARED_MICROBENCH
static const char *const FILES[] = {"imb_pingpong_2node.txt", "osu_allreduce_4x36.txt",
                                    "osu_alltoall_1x36.txt", "osu_bw_2node.txt",
                                    "osu_latency_2node.txt"};
enum { NFILES = sizeof FILES / sizeof FILES[0] };

static void load_all(ts_bench_set_t *set)
{
    for (int i = 0; i < NFILES; i++) {
        char path[1024];
        ts_error_t err;
        snprintf(path, sizeof path, "%s/%s", MB, FILES[i]);
        CU_ASSERT_EQUAL_FATAL(ts_bench_parse_file(set, path, &err), TS_OK);
    }
}

static void test_parse_reference(void)
{
    ts_bench_set_t set = {0};
    load_all(&set);
    CU_ASSERT_EQUAL_FATAL(set.nseries, 5);
    const ts_bench_series_t *imb = &set.series[0], *ar = &set.series[1], *a2a = &set.series[2],
                            *bw = &set.series[3], *lat = &set.series[4];
    CU_ASSERT_EQUAL(imb->kind, TS_BENCH_LATENCY);
    CU_ASSERT_EQUAL(imb->loc, TS_BLOC_INTER_NODE);
    CU_ASSERT_EQUAL(imb->ranks, 2);
    CU_ASSERT_EQUAL_FATAL(imb->npoints, 2);
    CU_ASSERT_DOUBLE_EQUAL(imb->points[0].value, 1.66, 1e-12);
    CU_ASSERT_EQUAL(imb->points[1].size, 268435456u);
    CU_ASSERT_DOUBLE_EQUAL(imb->points[1].value, 21957.85, 1e-9);
    CU_ASSERT_EQUAL(ar->kind, TS_BENCH_ALLREDUCE);
    CU_ASSERT_EQUAL(ar->nodes, 4);
    CU_ASSERT_EQUAL(ar->ranks, 144);
    CU_ASSERT_EQUAL(ar->npoints, 27);
    CU_ASSERT_EQUAL(a2a->kind, TS_BENCH_ALLTOALL);
    CU_ASSERT_EQUAL(a2a->nodes, 1);
    CU_ASSERT_EQUAL(a2a->ranks, 36);
    CU_ASSERT_EQUAL(a2a->npoints, 27);
    CU_ASSERT_EQUAL(bw->kind, TS_BENCH_BW);
    CU_ASSERT_EQUAL(bw->loc, TS_BLOC_INTER_NODE);
    CU_ASSERT_DOUBLE_EQUAL(bw->points[0].value, 12254.16, 1e-9);
    CU_ASSERT_EQUAL(lat->kind, TS_BENCH_LATENCY);
    CU_ASSERT_EQUAL(lat->loc, TS_BLOC_INTER_NODE);
    CU_ASSERT_DOUBLE_EQUAL(lat->points[0].value, 1.67, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(lat->settings && strstr(lat->settings, "UCX_NET_DEVICES=mlx5_2:1"));
    ts_bench_set_clear(&set);
}

/* The committed file is what the documented command makes now (platforms/calibrations/
 * README.md), byte for byte. */
static void test_shipped_calibration_current(void)
{
    char out[512], cmd[4096];
    snprintf(out, sizeof out, "%s/bm.xml", tu_tmpdir());
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' calibrate ../shared/reference/microbench/imb_pingpong_2node.txt "
             "../shared/reference/microbench/osu_allreduce_4x36.txt "
             "../shared/reference/microbench/osu_alltoall_1x36.txt "
             "../shared/reference/microbench/osu_bw_2node.txt "
             "../shared/reference/microbench/osu_latency_2node.txt "
             "--platform bm-optimized3.36 -o '%s' >/dev/null",
             TS_SOURCE_DIR, TS_CLI, out);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    size_t na, nb;
    char *fresh = tu_read_file(out, &na);
    char *shipped = tu_read_file(TS_SOURCE_DIR "/platforms/calibrations/bm-optimized3.36.xml", &nb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fresh);
    CU_ASSERT_PTR_NOT_NULL_FATAL(shipped);
    CU_ASSERT(na == nb && memcmp(fresh, shipped, na) == 0);
    free(fresh);
    free(shipped);
}

/* Predicted vs measured for the points the point-to-point model covers. */
static void test_report(void)
{
    ts_bench_set_t set = {0};
    load_all(&set);
    ts_params_t *def = NULL, *cal = NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&def), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&cal), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_model_apply_file(TS_SOURCE_DIR
                                              "/platforms/calibrations/bm-optimized3.36.xml",
                                              cal, &err),
                          TS_OK);
    printf("\n    %-28s %-8s %10s %-24s %11s %11s %7s %11s %7s", "point", "kind", "size", "region",
           "measured", "defaults", "err", "calibrated", "err");
    int covered = 0;
    for (size_t s = 0; s < set.nseries; s++) {
        const ts_bench_series_t *sr = &set.series[s];
        if (sr->kind != TS_BENCH_LATENCY && sr->kind != TS_BENCH_BW)
            continue; /* collectives: the collective microbench report */
        for (size_t i = 0; i < sr->npoints; i++) {
            double pd, pc;
            char region[48];
            CU_ASSERT_EQUAL_FATAL(ts_calib_predict(def, sr, i, &pd, region, sizeof region, &err),
                                  TS_OK);
            CU_ASSERT_EQUAL_FATAL(ts_calib_predict(cal, sr, i, &pc, region, sizeof region, &err),
                                  TS_OK);
            double m = sr->points[i].value;
            const char *f = strrchr(sr->file, '/') + 1;
            printf("\n    %-24s:%-3d %-8s %10llu %-24s %11.4g %11.4g %+6.1f%% %11.4g %+6.1f%%", f,
                   sr->points[i].line, ts_bench_kind_name(sr->kind),
                   (unsigned long long)sr->points[i].size, region, m, pd, 100 * (pd / m - 1), pc,
                   100 * (pc / m - 1));
            /* The calibration reproduces every point it was fitted on within 1 %. */
            CU_ASSERT(fabs(pc / m - 1) < 0.01);
            covered++;
        }
    }
    printf("\n");
    CU_ASSERT_EQUAL(covered, 4);
    ts_params_free(def);
    ts_params_free(cal);
    ts_bench_set_clear(&set);
}

int main(void)
{
    struct stat st;
    if (stat(MB, &st) != 0) {
        printf("test_calibrate_shared: SKIPPED: %s is absent (shared/ beside the checkout, "
               "present in CI, absent in a fresh clone)\n",
               MB);
        return TS_TEST_SKIP;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("calibrate (shared microbench)", NULL, NULL);
    CU_add_test(s, "parse the reference micro-benchmarks", test_parse_reference);
    CU_add_test(s, "shipped bm-optimized3.36 calibration is current",
                test_shipped_calibration_current);
    CU_add_test(s, "report: predicted vs measured (point-to-point)", test_report);
    return tu_run_all();
}
