/* calibcheck.c - the calibration tests' helpers (calibcheck.h). */
#include "calibcheck.h"

#include <stdio.h>
#include <string.h>

#include "testutil.h"

const char *write_tmp(const char *name, const char *text)
{
    static char path[8][512];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 512, "%s/%s", tu_tmpdir(), name);
    FILE *fp = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
    return p;
}

/* A command's stderr: exactly one line. */
int one_out_line(const char *s)
{
    return s && *s && strchr(s, '\n') == s + strlen(s) - 1;
}

/* err names path:line at its start. */
int names_line(const ts_error_t *err, const char *path, int line)
{
    char want[600];
    snprintf(want, sizeof want, "%s:%d:", path, line);
    return strncmp(err->msg, want, strlen(want)) == 0;
}

/* The defaults, with UCX's estimate pricing a registration as the synthetic truth's miss
 * (TRUTH below) rather than a cache lookup: the hand-made benchmarks then keep the eager
 * bcopy range off-host that lets UCX_BCOPY_BW be recovered. */
ts_params_t *defaults(void)
{
    ts_params_t *p = NULL;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_params_new(&p), TS_OK);
    CU_ASSERT_EQUAL_FATAL(ts_params_set(p, "model.ucx.rcache_overhead", "5us", &err), TS_OK);
    return p;
}
