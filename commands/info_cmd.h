/* info_cmd.h - `tunesim info`: the first look at a trace (ranks, nodes, duration, events, the
 * per-MPI-function profile in scorep-score's layout, message-size histograms, communication
 * matrix summary, send/receive matching), as text or JSON. */
#ifndef TS_INFO_CMD_H
#define TS_INFO_CMD_H

#include <stdio.h>

#include "../common/status.h"
#include "../traces/trace.h"

/* Print the report on fp. json != 0 selects JSON. */
ts_status ts_info_print(const ts_trace_t *trace, FILE *fp, int json, ts_error_t *err);

#endif
