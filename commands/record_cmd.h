/* record_cmd.h - `tunesim record`: run an MPI program under the PMPI tracer libtunesim-trace.so
 * and leave an OTF2 trace (Score-P's convention) in a directory. */
#ifndef TS_RECORD_CMD_H
#define TS_RECORD_CMD_H

#include "../common/status.h"

/* tunesim record [-o DIR] [--clock wall|cpu] -- mpirun ARGS...
 *
 * argv[0] is "record". Runs the command with the tracer preloaded in the MPI ranks: for
 * mpirun / mpiexec / orterun, "-x LD_PRELOAD=... -x TUNESIM_TRACE_DIR=... -x
 * TUNESIM_TRACE_CLOCK=..." are inserted right after the launcher's name, so that only the
 * ranks load the tracer; any other command (a singleton MPI program) gets them in its
 * environment. The tracer is found next to the tunesim executable, or at $TUNESIM_TRACE_LIB.
 * DIR (default ./tunesim-trace) receives DIR/traces.otf2, replacing a trace already there.
 * Prints where the trace went. Returns TS_OK; TS_EUSAGE (message printed) for bad
 * arguments; TS_ENOENT when the tracer library is missing; TS_ECHILD when the command cannot
 * run, fails, or leaves no trace; err says which. */
int ts_record_main(int argc, char **argv, ts_error_t *err);

#endif
