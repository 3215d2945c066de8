/* full_run.c - a replay's JSON result scaled to the full run (full_run.h). */
#include "full_run.h"

#include <stdint.h>
#include <stdlib.h>

ts_status ts_full_run_from_json(json_object *result, const ts_score_t *profile,
                                const char *profile_name, const ts_xp_in_t *in, ts_xp_t **out,
                                ts_error_t *err)
{
    *out = NULL;
    json_object *funcs, *comp = NULL;
    if (!json_object_object_get_ex(result, "functions", &funcs) ||
        !json_object_is_type(funcs, json_type_object))
        return ts_error_set(err, TS_EARG, "%s: the replay has no MPI functions to scale",
                            profile_name);
    json_object_object_get_ex(result, "compute_time_s", &comp);
    int nf = json_object_object_length(funcs), k = 0;
    ts_xp_func_t *f = calloc((size_t)nf + 1, sizeof *f);
    if (!f)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    json_object_object_foreach(funcs, fname, fval)
    {
        json_object *v = NULL, *t = NULL;
        json_object_object_get_ex(fval, "visits", &v);
        json_object_object_get_ex(fval, "time_s", &t);
        f[k++] =
            (ts_xp_func_t){fname, (uint64_t)json_object_get_int64(v), json_object_get_double(t)};
    }
    ts_xp_in_t x = *in;
    x.funcs = f;
    x.nfuncs = k;
    x.win_compute = json_object_get_double(comp);
    ts_status st = ts_xp_predict(profile, profile_name, &x, out, err);
    free(f);
    return st;
}
