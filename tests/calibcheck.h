/* calibcheck.h - what the calibration tests (test_calibrate.c, test_calibrate_cli.c) share:
 * files written under the test's temporary directory, one-line and file:line errors, and the
 * defaults the synthetic benchmarks are made with. */
#ifndef TS_TESTS_CALIBCHECK_H
#define TS_TESTS_CALIBCHECK_H

#include "params/params.h"

/* The committed probe outputs of this project's machine. */
#define PROBE_DIR TS_SOURCE_DIR "/platforms/calibrations/probe-localhost"

/* text written to tu_tmpdir()/name; the path, in one of eight rotating static buffers. */
const char *write_tmp(const char *name, const char *text);
/* A command's stderr: exactly one line. */
int one_out_line(const char *s);
/* err names path:line at its start. */
int names_line(const ts_error_t *err, const char *path, int line);
/* The defaults, with UCX's estimate pricing a registration as the synthetic truth's miss
 * (test_calibrate.c's TRUTH) rather than a cache lookup. */
ts_params_t *defaults(void);

#endif
