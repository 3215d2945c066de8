/* tracerrun.h - what the tracer's end-to-end tests (test_tracer.c, test_tracer_exclusive.c)
 * share: an MPI program of tests/mpi recorded under `tunesim record`, and its trace read back
 * one rank's stream at a time. */
#ifndef TS_TESTS_TRACERRUN_H
#define TS_TESTS_TRACERRUN_H

#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

typedef struct run_s {
    const char *program; /* tests/mpi/<program>.c, built as tracer_<program> */
    int nranks;
    const char *pml;       /* "ob1" or "ucx" */
    const char *clock;     /* "wall" or "cpu" */
    int small_buffer;      /* 1: TUNESIM_TRACE_BUFFER_MB=1, forcing mid-run flushes */
    const char *exclusive; /* NULL, or --exclusive's value ("" for the plain option) */
} run_t;

/* pml ucx is available (tracer_ready sets it). */
extern int have_ucx;

/* 1 when the tracer and mpirun exist (CMake found MPI, mpirun is installed), with the
 * environment the runs need set; else 0, the runs recorded as skipped (tu_skip) with why. */
int tracer_ready(void);
/* Record r with `tunesim record` into dir and open the trace; NULL (and a failed assertion)
 * on failure. */
ts_trace_t *record(const run_t *r, char *dir, size_t dirlen);

/* `tunesim record` of an MPMD line of two application contexts, each per_context ranks of
 * tracer_<program> with argument arg (may be ""), pml ob1, wall clock, into dir (named
 * after program and arg). Its exit status; its stderr in *err (the caller frees it). */
int record_mpmd(const char *program, const char *arg, int per_context, char *dir, size_t dirlen,
                char **err);

/* One rank's stream, with the function each event belongs to (-1 outside MPI calls). */
typedef struct stream_s {
    ts_event_t *ev;
    int32_t *func;
    size_t n;
} stream_t;

stream_t read_stream(const ts_trace_t *t, int32_t rank);
void free_stream(stream_t *s);
/* The name of function func, "(none)" outside MPI calls. */
const char *func_name(const ts_trace_t *t, int32_t func);

#endif
