/* fuzz_text.c - libFuzzer targets for tunesim's text and XML inputs: the sets-file parser, the
 * parameter and mpirun-line parsers, the model XML loader and the OSU / IMB / probe parsers.
 * Any bytes must be parsed or refused with an error, never crash, hang or trip a sanitizer.
 * Each target is a function; built with -DTS_FUZZ_TARGET=ts_fuzz_NAME it becomes the
 * LLVMFuzzerTestOneInput of one fuzzer (scripts/fuzz_text.sh), and tests/test_fuzz_text.c
 * replays every committed corpus through all of them in every test run. */
#include "fuzz_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibration/bench_parse.h"
#include "params/model_file.h"
#include "params/params.h"
#include "params/params_args.h"
#include "commands/sets.h"

/* The input as a NUL-terminated string (a NUL inside ends what the parsers see, as a C
 * caller's string would), or NULL when out of memory. */
static char *as_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

int ts_fuzz_sets(const uint8_t *data, size_t size)
{
    char *text = as_text(data, size);
    ts_sets_t *sets = NULL;
    ts_error_t err;
    ts_params_t *base = NULL;
    if (text && ts_sets_open("fuzz.sets", text, &sets, &err) == TS_OK &&
        ts_params_new(&base) == TS_OK) {
        /* Each set on a copy of one base, as the commands apply them; the first 1,000 only: a
         * grid may hold 100,000 (parsed above, all of them), whose settings repeat the same
         * lines, and applying them all takes the fuzzer's instrumented build over its time
         * limit while adding no coverage. */
        for (int i = 0; i < ts_sets_count(sets) && i < 1000; i++) {
            ts_params_t *p;
            if (ts_params_copy(base, &p) != TS_OK)
                break;
            (void)ts_sets_apply(sets, i, p, &err);
            ts_params_free(p);
        }
        for (int i = 0; i < ts_sets_nerrors(sets); i++)
            (void)ts_sets_error(sets, i);
    }
    ts_params_free(base);
    ts_sets_free(sets);
    free(text);
    return 0;
}

/* The first line is an mpirun command line; every further line NAME=VALUE a setting. */
int ts_fuzz_params(const uint8_t *data, size_t size)
{
    char *text = as_text(data, size);
    ts_params_t *p = NULL;
    ts_error_t err;
    if (text && ts_params_new(&p) == TS_OK) {
        char *save = NULL;
        char *line = strtok_r(text, "\n", &save);
        if (line) {
            ts_mpirun_info_t info;
            (void)ts_params_parse_mpirun(p, line, &info, &err);
        }
        while ((line = strtok_r(NULL, "\n", &save))) {
            char *eq = strchr(line, '=');
            if (!eq)
                continue;
            *eq = '\0';
            (void)ts_params_set(p, line, eq + 1, &err);
        }
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            (void)ts_params_print_changes(p, null);
            fclose(null);
        }
    }
    ts_params_free(p);
    free(text);
    return 0;
}

/* A file of the input's bytes (the XML loader and libxml2 read files). */
static int to_file(const uint8_t *data, size_t size, char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/tunesim-fuzz.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    int ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (!ok) {
        unlink(path);
        return -1;
    }
    return 0;
}

int ts_fuzz_model(const uint8_t *data, size_t size)
{
    char path[4096];
    if (to_file(data, size, path, sizeof path) != 0)
        return 0;
    ts_params_t *p;
    ts_error_t err;
    if (ts_params_new(&p) == TS_OK) {
        (void)ts_model_apply_file(path, p, &err);
        ts_params_free(p);
    }
    unlink(path);
    return 0;
}

int ts_fuzz_bench(const uint8_t *data, size_t size)
{
    FILE *fp = fmemopen((void *)data, size, "r");
    if (!fp)
        return 0;
    ts_bench_set_t set = {0};
    ts_error_t err;
    (void)ts_bench_parse_stream(&set, fp, "fuzz.txt", &err);
    ts_bench_set_clear(&set);
    fclose(fp);
    return 0;
}

#ifdef TS_FUZZ_TARGET
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return TS_FUZZ_TARGET(data, size);
}
#endif
