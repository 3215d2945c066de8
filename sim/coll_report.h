/* coll_report.h - the replay report's collective section: which component and algorithm
 * served each collective and size range (as Open MPI would choose them under the parameter
 * set), how many calls, messages and how much time, so that a user sees why a setting such as
 * coll_hcoll_enable changes the prediction. */
#ifndef TS_COLL_REPORT_H
#define TS_COLL_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "engine.h"

/* Text table (nothing when the replay had no collectives). */
void ts_coll_report_text(const ts_replay_result_t *r, FILE *fp);
/* JSON array of {"op", "component", "algorithm", "decision", "bytes_min", "bytes_max",
 * "calls", "messages", "time_s"}, most time first; a new object owned by the caller. */
json_object *ts_coll_report_json(const ts_replay_result_t *r);

#endif
