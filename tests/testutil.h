/* testutil.h - shared helpers of the CUnit test programs: suite running, the location of the
 * real Score-P traces in ../shared, temporary directories, running the CLI. */
#ifndef TS_TESTUTIL_H
#define TS_TESTUTIL_H

#include <CUnit/CUnit.h>

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt). */
#define TS_TEST_SKIP 77

/* Directory of the real Score-P traces (shared/traces/scorep beside the checkout), or NULL
 * when it is absent, as in a user's fresh clone. */
const char *tu_scorep_dir(void);
/* Path of one trace directory under it, in a static buffer. */
const char *tu_scorep(const char *name);
/* If the shared traces are absent: say so and exit with TS_TEST_SKIP. */
void tu_require_shared(const char *program);

/* A fresh temporary directory (removed by tu_cleanup at exit). */
const char *tu_tmpdir(void);

/* The bundled 2-rank simpleFoam trace (traces/data/simplefoam-pitzdaily-2). */
const char *tu_bundled(void);

/* 1 when s is one line: no newline but perhaps a final one (errors are one line). */
int tu_one_line(const char *s);
/* Copy directory src recursively to dst (cp -r). 0 on success. */
int tu_copy_dir(const char *src, const char *dst);

/* Run `tunesim ARGS` (the CLI built beside the tests); capture stdout and stderr (each
 * malloc'ed, may be NULL) and return the exit status, or -1 if it did not exit normally. */
int tu_run_cli(const char *args, char **out, char **err);
/* Read a whole file; NULL on failure. *size may be NULL. */
char *tu_read_file(const char *path, size_t *size);

/* Run every registered suite verbosely; returns the process exit code. */
int tu_run_all(void);



#include "traces/trace.h"
/* 1 if both traces have the same definitions and event streams, event by event. */
int tu_traces_equal(const ts_trace_t *a, const ts_trace_t *b);
#endif
