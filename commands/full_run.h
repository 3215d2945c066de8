/* full_run.h - one replay's result (the JSON document of sim/replay_job.h's ts_job_json)
 * scaled to the full run with a profile (sim/extrapolate.h): how sweep scales each set and
 * fit each measured run. */
#ifndef TS_FULL_RUN_H
#define TS_FULL_RUN_H

#include <json-c/json.h>

#include "../common/status.h"
#include "../sim/extrapolate.h"
#include "../traces/scorep_score.h"

/* Scale result by profile: in gives everything but the window's functions and compute, which
 * come from result ("functions", "compute_time_s"). TS_EARG naming profile_name when result
 * has no functions; otherwise what ts_xp_predict returns (*out the caller's). */
ts_status ts_full_run_from_json(json_object *result, const ts_score_t *profile,
                                const char *profile_name, const ts_xp_in_t *in, ts_xp_t **out,
                                ts_error_t *err);

#endif
