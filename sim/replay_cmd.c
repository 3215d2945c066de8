/* replay_cmd.c - `tunesim replay TRACE --platform NAME|FILE [--nodes N] [--ppn P] [--nps 1|2]
 * [--map-by block|cyclic] [-x K=V] [--mca K V] [--set K=V] [--mpirun "LINE"] [--json]`:
 * parses the command line into a parameter set (models/params) and placement options, and
 * runs one replay job (replay_job.h: trace, platform, placement, protocol model, SimGrid)
 * that prints the prediction. */
#include "replay_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/params.h"
#include "../platforms/placement.h"
#include "replay_job.h"

#define REPLAY_USAGE                                                                         \
    "tunesim replay TRACE [--platform NAME|FILE] [--nodes N] [--ppn P] [--nps 1|2] "          \
    "[--map-by block|cyclic] [-x KEY=VALUE] [--mca KEY VALUE] [--set KEY=VALUE] "             \
    "[--mpirun \"LINE\"] [--model FILE] [--json]"

typedef struct replay_opts_s {
    const char *trace, *platform, *mpirun;
    ts_placement_opts_t place;
    int json;
    int mpirun_ranks; /* -n of --mpirun; 0 where absent (its -N becomes place.ppn) */
} replay_opts_t;

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static ts_status parse_opts(int argc, char **argv, ts_params_t *params, replay_opts_t *o,
                            ts_error_t *err)
{
    memset(o, 0, sizeof *o);
    o->platform = "bm-optimized3.36";
    unsigned char *used = calloc((size_t)argc + 1, 1);
    if (!used)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts_params_parse_args(params, argc - 1, argv + 1, used + 1, err);
    for (int i = 1; i < argc && st == TS_OK; i++) {
        if (used[i])
            continue;
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--json") == 0)
            o->json = 1;
        else if (strcmp(a, "--platform") == 0 && has)
            o->platform = argv[++i];
        else if (strcmp(a, "--mpirun") == 0 && has)
            o->mpirun = argv[++i];
        else if (strcmp(a, "--nodes") == 0 && has) {
            if (parse_int(argv[++i], 1, 1 << 20, &o->place.nodes))
                st = ts_error_set(err, TS_EUSAGE, "replay: --nodes expects a count, got '%s'",
                                  argv[i]);
        } else if (strcmp(a, "--ppn") == 0 && has) {
            if (parse_int(argv[++i], 1, 1 << 20, &o->place.ppn))
                st = ts_error_set(err, TS_EUSAGE, "replay: --ppn expects a count, got '%s'",
                                  argv[i]);
        } else if (strcmp(a, "--nps") == 0 && has) {
            if (parse_int(argv[++i], 1, 64, &o->place.nps))
                st = ts_error_set(err, TS_EUSAGE, "replay: --nps expects 1 or 2, got '%s'",
                                  argv[i]);
        } else if (strcmp(a, "--map-by") == 0 && has) {
            st = ts_map_by_parse(argv[++i], &o->place.map_by, err);
        } else if (a[0] == '-') {
            st = ts_error_set(err, TS_EUSAGE, "replay: unknown option or missing value '%s'",
                              a);
        } else if (!o->trace) {
            o->trace = a;
        } else {
            st = ts_error_set(err, TS_EUSAGE, "replay: unexpected argument '%s'", a);
        }
    }
    free(used);
    if (st == TS_OK && !o->trace)
        st = ts_error_set(err, TS_EUSAGE, "replay: missing TRACE");
    if (st == TS_OK && o->mpirun) {
        ts_mpirun_info_t info;
        st = ts_params_parse_mpirun(params, o->mpirun, &info, err);
        if (st == TS_OK)
            o->mpirun_ranks = info.ranks;
        /* The pasted line describes the run being predicted: a placement option that says
         * otherwise is a contradiction, not an override. */
        if (st == TS_OK && info.ppn > 0 && o->place.ppn && o->place.ppn != info.ppn)
            st = ts_error_set(err, TS_EUSAGE,
                              "replay: --mpirun places %d ranks per node (-N), "
                              "--ppn %d",
                              info.ppn, o->place.ppn);
        if (st == TS_OK && !o->place.ppn && info.ppn > 0)
            o->place.ppn = info.ppn;
        if (st == TS_OK && info.map_by[0] && strncmp(info.map_by, "ppr:", 4) != 0)
            st = ts_map_by_parse(info.map_by, &o->place.map_by, err);
    }
    return st;
}

/* ---- the command -------------------------------------------------------------------- */

int ts_replay_cmd(int argc, char **argv, ts_error_t *err)
{
    ts_params_t *params = NULL;
    ts_job_trace_t *jt = NULL;
    ts_job_t *job = NULL;
    replay_opts_t o;
    ts_status st = ts_params_new(&params);
    if (st != TS_OK) {
        ts_error_set(err, st, "out of memory");
        goto done;
    }
    if ((st = parse_opts(argc, argv, params, &o, err)) != TS_OK)
        goto done;
    ts_job_opts_t jo = {.platform = o.platform, .place = o.place};
    if ((st = ts_job_trace_open(o.trace, &jt, err)) != TS_OK)
        goto done;
    /* A rank count that disagrees with the trace predicts some other run: refuse it rather
     * than replay the trace's ranks under a line that claims another count. */
    int32_t nranks = ts_trace_nranks(ts_job_trace(jt));
    if (o.mpirun_ranks > 0 && o.mpirun_ranks != nranks) {
        st = ts_error_set(err, TS_EARG,
                          "%s: --mpirun runs %d rank%s, but the trace has %d: "
                          "the line must be the traced run's",
                          o.trace, o.mpirun_ranks, o.mpirun_ranks == 1 ? "" : "s", (int)nranks);
        goto done;
    }
    if ((st = ts_job_prepare(ts_job_trace(jt), o.trace, params, &jo, &job, err)) != TS_OK)
        goto done;
    if ((st = ts_job_run(job, err)) != TS_OK)
        goto done;
    if (o.json)
        ts_job_print_json(job, stdout);
    else
        ts_job_print_text(job, stdout);
    if (fflush(stdout) != 0)
        st = ts_error_set(err, TS_EIO, "writing the report failed");
done:
    ts_job_close(job);
    ts_job_trace_close(jt);
    ts_params_free(params);
    return st;
}
