/* test_fuzz_text.c - the fuzz targets of fuzz/fuzz_text.c in every test run: every committed
 * input under fuzz/text/TARGET/ (the seeds, seed-*, and what scripts/fuzz_text.sh kept) goes
 * through its target and must come back without a crash or a sanitizer report (this build
 * runs under ASan and UBSan in CI); the seeds are real inputs and must parse cleanly. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "fuzz/fuzz_text.h"
#include "calibration/bench_parse.h"
#include "params/model_file.h"
#include "params/params.h"
#include "commands/sets.h"

typedef int (*target_fn)(const uint8_t *, size_t);

/* Feed every file of fuzz/text/NAME to fn; returns how many there were. */
static int replay_dir(const char *name, target_fn fn)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/text/%s", TS_SOURCE_DIR, name);
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *fp = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fseek(fp, 0, SEEK_END);
        long len = ftell(fp);
        rewind(fp);
        uint8_t *buf = malloc((size_t)len + 1);
        CU_ASSERT_FATAL(buf && fread(buf, 1, (size_t)len, fp) == (size_t)len);
        fclose(fp);
        CU_ASSERT_EQUAL(fn(buf, (size_t)len), 0);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static void test_corpora(void)
{
    static const struct {
        const char *name;
        target_fn fn;
    } T[] = {{"sets", ts_fuzz_sets},
             {"params", ts_fuzz_params},
             {"model", ts_fuzz_model},
             {"bench", ts_fuzz_bench}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        int n = replay_dir(T[i].name, T[i].fn);
        if (n < 2)
            printf("\n  fuzz/text/%s holds %d inputs", T[i].name, n);
        CU_ASSERT(n >= 2); /* at least the seeds */
    }
}

static void seed_path(char *out, size_t cap, const char *rel)
{
    snprintf(out, cap, "%s/tests/fuzz/text/%s", TS_SOURCE_DIR, rel);
}

/* The seeds are what the fuzzers start from: real inputs that parse without a mistake. */
static void test_seeds_parse(void)
{
    char path[4096];
    ts_error_t err;
    seed_path(path, sizeof path, "sets/seed-motorbike-72.sets");
    ts_sets_t *sets;
    CU_ASSERT_EQUAL_FATAL(ts_sets_open(path, NULL, &sets, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_sets_nerrors(sets), 0);
    CU_ASSERT_EQUAL(ts_sets_count(sets), 10);
    ts_sets_free(sets);
    seed_path(path, sizeof path, "sets/seed-grid.sets");
    CU_ASSERT_EQUAL_FATAL(ts_sets_open(path, NULL, &sets, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_sets_nerrors(sets), 0);
    CU_ASSERT_EQUAL(ts_sets_count(sets), 5); /* asis and the 2 x 2 grid */
    ts_sets_free(sets);

    ts_params_t *p;
    CU_ASSERT_FATAL(ts_params_new(&p) == TS_OK);
    seed_path(path, sizeof path, "model/seed-bm.xml");
    CU_ASSERT_EQUAL(ts_model_apply_file(path, p, &err), TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(ts_params_seconds(p, TS_P_NET_LATENCY), 1.2399e-6, 1e-12);
    ts_params_free(p);

    ts_bench_set_t set = {0};
    seed_path(path, sizeof path, "bench/seed-percall.txt");
    CU_ASSERT_EQUAL(ts_bench_parse_file(&set, path, &err), TS_OK);
    ts_bench_set_clear(&set);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("fuzz_text", NULL, NULL);
    CU_add_test(s, "every committed fuzz input, through its target", test_corpora);
    CU_add_test(s, "the seeds parse", test_seeds_parse);
    return tu_run_all();
}
