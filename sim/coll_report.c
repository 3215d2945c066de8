/* coll_report.c - the collective section of the replay report (see coll_report.h). */
#include "coll_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../traces/events.h"

/* Most time first; ties by operation, component, algorithm, decision: a stable order, so that
 * the same inputs print the same bytes. */
static int cmp_stat(const void *a, const void *b)
{
    const ts_coll_stat_t *x = *(const ts_coll_stat_t *const *)a;
    const ts_coll_stat_t *y = *(const ts_coll_stat_t *const *)b;
    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    if (x->comp != y->comp)
        return x->comp < y->comp ? -1 : 1;
    if (x->alg != y->alg)
        return x->alg < y->alg ? -1 : 1;
    return strcmp(x->why, y->why);
}

static const ts_coll_stat_t **sorted(const ts_replay_result_t *r)
{
    const ts_coll_stat_t **v = calloc(r->ncoll + 1, sizeof *v);
    for (size_t i = 0; v && i < r->ncoll; i++)
        v[i] = &r->coll[i];
    if (v)
        qsort(v, r->ncoll, sizeof *v, cmp_stat);
    return v;
}

static int is_v(int op)
{
    return op == TS_COLL_GATHERV || op == TS_COLL_SCATTERV || op == TS_COLL_ALLGATHERV ||
           op == TS_COLL_ALLTOALLV || op == TS_COLL_ALLTOALLW;
}

void ts_coll_report_text(const ts_replay_result_t *r, FILE *fp)
{
    if (!r->ncoll)
        return;
    const ts_coll_stat_t **v = sorted(r);
    if (!v)
        return;
    fprintf(fp, "\ncollectives (as Open MPI would serve them; calls, messages and time summed "
                "over ranks)\n");
    fprintf(fp, "  %-15s %-6s %-20s %21s %12s %12s %12s  %s\n", "op", "comp", "algorithm",
            "payload[B]", "calls", "messages", "time[s]", "decision");
    int any_v = 0;
    for (size_t i = 0; i < r->ncoll; i++) {
        const ts_coll_stat_t *s = v[i];
        char range[48];
        if (s->bytes_min == s->bytes_max)
            snprintf(range, sizeof range, "%" PRIu64, s->bytes_min);
        else
            snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, s->bytes_min, s->bytes_max);
        fprintf(fp, "  %-15s %-6s %-20s %21s %12" PRIu64 " %12" PRIu64 " %12.6f  %s\n",
                ts_coll_op_name(s->op), ts_coll_comp_name(s->comp), ts_coll_alg_name(s->alg), range,
                s->calls, s->msgs, s->time, s->why);
        any_v |= is_v(s->op);
    }
    if (any_v)
        fprintf(fp, "  v-collectives: traces hold no per-peer counts, so every block a rank "
                    "sends has its recorded mean size\n");
    free(v);
}

json_object *ts_coll_report_json(const ts_replay_result_t *r)
{
    json_object *arr = json_object_new_array();
    const ts_coll_stat_t **v = sorted(r);
    for (size_t i = 0; arr && v && i < r->ncoll; i++) {
        const ts_coll_stat_t *s = v[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "op", json_object_new_string(ts_coll_op_name(s->op)));
        json_object_object_add(o, "component", json_object_new_string(ts_coll_comp_name(s->comp)));
        json_object_object_add(o, "algorithm", json_object_new_string(ts_coll_alg_name(s->alg)));
        json_object_object_add(o, "decision", json_object_new_string(s->why));
        json_object_object_add(o, "bytes_min", json_object_new_uint64(s->bytes_min));
        json_object_object_add(o, "bytes_max", json_object_new_uint64(s->bytes_max));
        json_object_object_add(o, "calls", json_object_new_uint64(s->calls));
        json_object_object_add(o, "messages", json_object_new_uint64(s->msgs));
        json_object_object_add(o, "time_s", json_object_new_double(s->time));
        json_object_array_add(arr, o);
    }
    free(v);
    return arr;
}
