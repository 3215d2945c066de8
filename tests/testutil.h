/* testutil.h - shared helpers of the CUnit test programs: suite running, the location of the
 * real Score-P traces in ../shared, temporary directories, running the CLI. */
#ifndef TS_TESTUTIL_H
#define TS_TESTUTIL_H

#include <CUnit/CUnit.h>

#include "params/params.h"

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt). */
#define TS_TEST_SKIP 77

/* Directory of the real Score-P traces (shared/traces/scorep beside the checkout), or NULL
 * when it is absent, as in a user's fresh clone. */
const char *tu_scorep_dir(void);
/* Path of one trace directory under it, in a static buffer. */
const char *tu_scorep(const char *name);
/* If the shared traces are absent: say so and exit with TS_TEST_SKIP. */
void tu_require_shared(const char *program);
/* Record that part of a test could not run (what: a few words) for a reason outside the
 * code under test (why: a missing input or tool); the test then returns. CUnit has no skip
 * and would count the test as passed, so tu_run_all prints one "SKIPPED" line per part and,
 * if nothing failed, returns TS_TEST_SKIP as the program's exit code: ctest then shows the
 * program as skipped (SKIP_RETURN_CODE), and the lines are in its log or `ctest -V`. */
void tu_skip(const char *what, const char *why);

/* A fresh temporary directory (removed by tu_cleanup at exit). */
const char *tu_tmpdir(void);
/* tu_tmpdir()/name, in one of eight rotating static buffers. */
const char *tu_path(const char *name);

/* The bundled 2-rank simpleFoam trace (traces/data/simplefoam-pitzdaily-2). */
const char *tu_bundled(void);

/* 1 when s is one line: no newline but perhaps a final one (errors are one line). */
int tu_one_line(const char *s);
/* Copy directory src recursively to dst (cp -r). 0 on success. */
int tu_copy_dir(const char *src, const char *dst);

/* Run `tunesim ARGS` (the CLI built beside the tests); capture stdout and stderr (each
 * malloc'ed, may be NULL) and return the exit status, or -1 if it did not exit normally. */
int tu_run_cli(const char *args, char **out, char **err);
/* Take ASan's notice about SimGrid's stack switches (three lines) out of captured stderr. */
void tu_drop_asan_notice(char *s);
/* Read a whole file; NULL on failure. *size may be NULL. */
char *tu_read_file(const char *path, size_t *size);

/* Run every registered suite verbosely; returns the process exit code: 1 if anything
 * failed, else TS_TEST_SKIP if a part was skipped (tu_skip), else 0. */
int tu_run_all(void);

#include "traces/trace.h"
/* The trace at path, opened; NULL (the reader's message printed, and a failed assertion)
 * where it does not open. */
ts_trace_t *tu_open(const char *path);
/* 1 if both traces have the same definitions and event streams, event by event. */
int tu_traces_equal(const ts_trace_t *a, const ts_trace_t *b);
/* The round parameters test_protocol.c and test_engine.c derive their times from: latency 2 us
 * off-host (3 us across the spine), 0.5 us on-host; network and shared-memory bandwidth
 * 1e10 B/s; UCX_BCOPY_BW 5e9 B/s; registrations and mappings 1.0001 us (the rcache lookup
 * too); every per-call, per-request and handshake overhead 0; rc max_short 1000 B, shm 100 B.
 * A new set the caller frees; NULL (and a failed assertion) when a value is refused. */
ts_params_t *tu_round_params(void);

#endif
