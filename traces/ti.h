/* ti.h - export of a trace to SimGrid's time-independent (TI) trace format, so that the
 * same trace can be replayed by SimGrid's own SMPI replay (smpi_replay) for comparison. */
#ifndef TS_TI_H
#define TS_TI_H

#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

typedef struct ts_ti_report_s {
    uint64_t lines;           /* actions written */
    uint64_t skipped_subcomm; /* collectives on sub-communicators: TI has only WORLD */
    uint64_t skipped_other;   /* records TI cannot express (cancel, persistent reuse) */
} ts_ti_report_t;

/* Whether dir may receive a TI export (new, empty, or an earlier export): checked before the
 * work that precedes the export, as ts_ti_write checks it again. */
ts_status ts_ti_check(const char *dir, ts_error_t *err);

/* Write dir/ti.txt (the list of per-rank files) and dir/rank-N.txt (one per rank)
 * atomically. Compute bursts become `compute F` with F = seconds x flops_per_second, so the
 * replaying platform's hosts must run at that speed for the traced durations to hold. */
ts_status ts_ti_write(const ts_trace_t *trace, const char *dir, double flops_per_second,
                      ts_ti_report_t *report, ts_error_t *err);

#endif
