/* tracerrun.c - recording the MPI programs of tests/mpi and reading their traces back, for the
 * tracer's tests (tracerrun.h). */
#include "tracerrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

int have_ucx;

static const char *pml_flags(const char *pml)
{
    return strcmp(pml, "ucx") == 0 ? "--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
                                   : "--mca pml ob1";
}

/* Record r with `tunesim record` into dir and open the trace; NULL (and a failed assertion)
 * on failure. */
ts_trace_t *record(const run_t *r, char *dir, size_t dirlen)
{
    snprintf(dir, dirlen, "%s/%s-%d-%s-%s%s%s", tu_tmpdir(), r->program, r->nranks, r->pml,
             r->clock, r->exclusive ? "-x" : "", r->exclusive ? r->exclusive : "");
    char args[4096], excl[64] = "";
    if (r->exclusive != NULL)
        snprintf(excl, sizeof excl, " --exclusive%s%s", r->exclusive[0] ? "=" : "", r->exclusive);
    snprintf(args, sizeof args,
             "record -o '%s' --clock %s%s -- '%s' --allow-run-as-root --oversubscribe --timeout "
             "120 %s%s -np %d '%s/tracer_%s'",
             dir, r->clock, excl, TS_MPIEXEC, pml_flags(r->pml),
             r->small_buffer ? " -x TUNESIM_TRACE_BUFFER_MB" : "", r->nranks, TS_MPI_BIN_DIR,
             r->program);
    char *out = NULL, *err = NULL;
    int rc = tu_run_cli(args, &out, &err);
    if (rc != 0 || out == NULL || strstr(out, "trace written to") == NULL)
        printf("\n  tunesim %s\n  exit %d\n  stdout: %s\n  stderr: %s\n", args, rc, out ? out : "",
               err ? err : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    free(err);
    if (rc != 0)
        return NULL;
    ts_trace_t *t = tu_open(dir);
    if (t != NULL)
        CU_ASSERT_EQUAL(ts_trace_nranks(t), r->nranks);
    return t;
}

int record_mpmd(const char *program, const char *arg, int per_context, char *dir, size_t dirlen,
                char **err)
{
    snprintf(dir, dirlen, "%s/%s-mpmd-%s", tu_tmpdir(), program, arg[0] ? arg : "plain");
    char args[4096], one[1200];
    snprintf(one, sizeof one, "-np %d '%s/tracer_%s' %s", per_context, TS_MPI_BIN_DIR, program,
             arg);
    snprintf(args, sizeof args,
             "record -o '%s' --clock wall -- '%s' --allow-run-as-root --oversubscribe --timeout "
             "120 %s %s : %s",
             dir, TS_MPIEXEC, pml_flags("ob1"), one, one);
    char *out = NULL;
    int rc = tu_run_cli(args, &out, err);
    free(out);
    return rc;
}

stream_t read_stream(const ts_trace_t *t, int32_t rank)
{
    stream_t s = {0};
    uint64_t cap = ts_trace_rank_nevents(t, rank);
    s.ev = malloc((cap ? cap : 1) * sizeof *s.ev);
    s.func = malloc((cap ? cap : 1) * sizeof *s.func);
    ts_cursor_t *cur = NULL;
    if (!s.ev || !s.func || ts_cursor_open(t, rank, &cur) != TS_OK) {
        CU_FAIL("cannot read a rank's events");
        return s;
    }
    int32_t func = -1;
    ts_event_t ev;
    ts_error_t err;
    int rc;
    while (s.n < cap && (rc = ts_cursor_next(cur, &ev, &err)) == 1) {
        if (ev.kind == TS_EV_ENTER)
            func = ev.func;
        s.ev[s.n] = ev;
        s.func[s.n++] = ev.kind == TS_EV_COMPUTE ? -1 : func;
        if (ev.kind == TS_EV_LEAVE)
            func = -1;
    }
    ts_cursor_close(cur);
    CU_ASSERT_EQUAL(s.n, cap);
    return s;
}

void free_stream(stream_t *s)
{
    free(s->ev);
    free(s->func);
}

const char *func_name(const ts_trace_t *t, int32_t func)
{
    return func >= 0 ? ts_trace_func_name(t, func) : "(none)";
}

/* The tracer and mpirun exist (CMake found MPI, and mpirun is installed). */
static const char *missing_mpi(void)
{
    if (TS_TRACER_LIB[0] == '\0')
        return "the tracer was not built (CMake found no MPI)";
    if (access(TS_TRACER_LIB, R_OK) != 0)
        return "libtunesim-trace.so is missing from the build directory";
    if (access(TS_MPIEXEC, X_OK) != 0)
        return "mpirun is not installed";
    return NULL;
}

int tracer_ready(void)
{
    const char *why = missing_mpi();
    if (why != NULL) {
        tu_skip("the tracer under mpirun", why);
        return 0;
    }
    /* Containers often forbid the cross-memory attach of Open MPI's shared-memory transport;
     * copying through the shared segment works everywhere. */
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
    setenv("TUNESIM_TRACE_BUFFER_MB", "1", 1); /* only passed on where a run asks (-x) */
    have_ucx = system("ompi_info 2>/dev/null | grep -q 'MCA pml: ucx'") == 0;
    return 1;
}
