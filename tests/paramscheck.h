/* paramscheck.h - what the parameter tests (test_params.c, test_params_args.c,
 * test_params_cmd.c) share: sizes, a tolerance for doubles, a fresh parameter set, and the
 * capture of what a function writes to a FILE. */
#ifndef TS_TESTS_PARAMSCHECK_H
#define TS_TESTS_PARAMSCHECK_H

#include <stdio.h>

#include "params/params.h"

#define KB 1024ull
#define MB (1024ull * 1024)
#define GB (1024ull * 1024 * 1024)

/* The tests compare doubles that went through one multiplication: allow rounding. */
#define CLOSE(a, b) ((a) == (b) || ((a) - (b)) * ((a) - (b)) <= 1e-24 * (b) * (b))

/* The defaults (a failure ends the test). */
ts_params_t *fresh(void);
/* Set name=value on a fresh set; returns the status and leaves the message in err. */
ts_status try_set(ts_params_t **p, const char *name, const char *value, ts_error_t *err);

/* Everything fp received, malloc'ed, via open_memstream. */
typedef struct {
    FILE *fp;
    char *buf;
    size_t size;
} capture_t;
void capture_open(capture_t *c);
/* The text captured, malloc'ed (the caller frees it). */
char *capture_close(capture_t *c);

#endif
