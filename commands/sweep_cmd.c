/* sweep_cmd.c - `tunesim sweep TRACE --sets FILE [options]`: every set of the sets file is
 * checked (all mistakes reported at once) and placed in this process; the trace is opened
 * once and forked workers (-j N) each run one replay (SimGrid allows one per process) and
 * send its JSON document back through a pipe. The parent appends one line per finished set to
 * the results file (a single write of the whole line, then fsync), so a rerun skips the sets
 * already there and an interrupted sweep loses only the sets in flight (sweep_results.c). Also
 * writes Slurm job arrays (--emit-slurm DIR) and merges their results (--merge DIR):
 * sweep_slurm.c. Outputs: sweep_report.c. */
#include "sweep_cmd.h"
#include "sweep_impl.h"

#include <ctype.h>
#include <zlib.h>

#include "../common/outfile.h"
#include "../common/infile.h"

/* ---- options ------------------------------------------------------------------------------- */

/* sweep's options: the ones that only name a file or a word, then the rest. */
enum {
    SO_SETS,
    SO_PLATFORM,
    SO_CSV,
    SO_JSON,
    SO_PLOT,
    SO_RESULTS,
    SO_EMIT,
    SO_MERGE,
    SO_BASELINE,
    SO_WINDOW,
    SO_PROFILE,
    SO__STRINGS = SO_PROFILE,
    SO_ONLY,
    SO_JOBS,
    SO_ITERATIONS,
    SO_SCALE_BY,
    SO_NODES,
    SO_PPN,
    SO_NPS,
    SO_MAP_BY,
    SO__COUNT
};
static const ts_opt_t SWEEP_OPTS[SO__COUNT] = {
    [SO_SETS] = {"sets", 0, 1},         [SO_PLATFORM] = {"platform", 0, 1},
    [SO_CSV] = {"csv", 0, 1},           [SO_JSON] = {"json", 0, 1},
    [SO_PLOT] = {"plot", 0, 1},         [SO_RESULTS] = {"results", 0, 1},
    [SO_EMIT] = {"emit-slurm", 0, 1},   [SO_MERGE] = {"merge", 0, 1},
    [SO_BASELINE] = {"baseline", 0, 1}, [SO_WINDOW] = {"window", 0, 1},
    [SO_PROFILE] = {"profile", 0, 1},   [SO_ONLY] = {"only", 0, 1},
    [SO_JOBS] = {"jobs", 'j', 1},       [SO_ITERATIONS] = {"iterations", 0, 1},
    [SO_SCALE_BY] = {"scale-by", 0, 1}, [SO_NODES] = {"nodes", 0, 1},
    [SO_PPN] = {"ppn", 0, 1},           [SO_NPS] = {"nps", 0, 1},
    [SO_MAP_BY] = {"map-by", 0, 1},
};

static ts_status sweep_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    sweep_opts_t *o = ctx;
    const char **strs[SO__STRINGS + 1] = {
        [SO_SETS] = &o->sets,     [SO_PLATFORM] = &o->platform, [SO_CSV] = &o->csv,
        [SO_JSON] = &o->json,     [SO_PLOT] = &o->plot,         [SO_RESULTS] = &o->results,
        [SO_EMIT] = &o->emit,     [SO_MERGE] = &o->merge,       [SO_BASELINE] = &o->baseline,
        [SO_WINDOW] = &o->window, [SO_PROFILE] = &o->profile};
    if (opt >= 0 && opt <= SO__STRINGS) {
        *strs[opt] = v;
        return TS_OK;
    }
    switch (opt) {
    case -1:
        if (o->trace)
            return ts_error_set(err, TS_EUSAGE, "sweep: unexpected argument '%s'", v);
        o->trace = v;
        return TS_OK;
    case SO_ONLY:
        o->only[o->nonly++] = v;
        return TS_OK;
    case SO_JOBS:
        if (ts_parse_int(v, 1, 4096, &o->jobs))
            return ts_error_set(err, TS_EUSAGE,
                                "sweep: -j expects a count from 1 to 4096, got '%s'", v);
        return TS_OK;
    case SO_ITERATIONS:
        if (ts_parse_int(v, 1, 100000000, &o->iterations))
            return ts_error_set(err, TS_EUSAGE,
                                "sweep: --iterations expects a count of iterations, got '%s'", v);
        return TS_OK;
    case SO_SCALE_BY:
        return ts_opts_scale_by("sweep", v, &o->scale, err);
    default: /* SO_NODES .. SO_MAP_BY, in ts_opts_place's order */
        if (opt == SO_MAP_BY)
            o->map_by_text = v;
        return ts_opts_place("sweep", opt - SO_NODES, v, &o->place, err);
    }
}

static ts_status parse_opts(int argc, char **argv, sweep_opts_t *o, ts_error_t *err)
{
    memset(o, 0, sizeof *o);
    o->only = calloc((size_t)argc + 1, sizeof *o->only);
    if (!o->only)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st =
        ts_opts_parse("sweep", argc, argv, NULL, SWEEP_OPTS, SO__COUNT, sweep_opt, o, err);
    if (st != TS_OK)
        return st;
    if ((o->merge && !*o->merge) || (o->emit && !*o->emit))
        return ts_error_set(err, TS_EUSAGE,
                            "sweep: --%s: expected a directory name, got an empty one",
                            o->merge && !*o->merge ? "merge" : "emit-slurm");
    for (const char *c = o->emit; c && *c; c++)
        if (iscntrl((unsigned char)*c)) { /* sbatch reads its #SBATCH lines one by one */
            char shown[4200];
            return ts_error_set(err, TS_EUSAGE,
                                "sweep: --emit-slurm '%s': a directory name with control "
                                "characters cannot be written into #SBATCH lines",
                                ts_shown(o->emit, shown, sizeof shown));
        }
    if (o->merge) {
        if (o->trace || o->sets || o->emit || o->nonly || o->results || o->window || o->profile ||
            o->iterations)
            return ts_error_set(err, TS_EUSAGE,
                                "sweep: --merge DIR takes only --csv, --json, --plot and "
                                "--baseline (the rest is in DIR/plan.json)");
        return TS_OK;
    }
    if (!o->trace)
        return ts_error_set(err, TS_EUSAGE, "sweep: missing TRACE");
    if (!o->sets)
        return ts_error_set(err, TS_EUSAGE, "sweep: missing --sets FILE");
    if (o->scale == TS_XP_BY_VISITS && !o->profile) /* it would be ignored */
        return ts_error_set(err, TS_EUSAGE,
                            "sweep: --scale-by visits scales a window with --profile's visits: "
                            "give the profile");
    if ((o->window || o->profile || o->iterations) && o->emit)
        return ts_error_set(err, TS_EUSAGE,
                            "sweep: --window, --profile and --iterations are not passed on to "
                            "--emit-slurm's tasks");
    if (o->emit && (o->nonly || o->results))
        return ts_error_set(err, TS_EUSAGE,
                            "sweep: --emit-slurm chooses --only and --results for each task");
    if (!o->jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n > 0 ? (int)n : 1;
    }
    return TS_OK;
}

/* ---- small helpers ------------------------------------------------------------------------- */

/* The settings that differ from the defaults, as a JSON array of "KEY=VALUE". */
static json_object *settings_of(const ts_params_t *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (!ms)
        return NULL;
    ts_params_print_changes(p, ms);
    if (fclose(ms) != 0) {
        free(buf);
        return NULL;
    }
    json_object *a = json_object_new_array();
    for (char *line = buf, *next; a && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        json_object_array_add(a, json_object_new_string(line));
    }
    free(buf);
    return a;
}

/* The identity of a result: set name, settings, where it ran and which trace (its size and
 * fingerprint: a result of another trace must not count). */
static char *make_key(const sset_t *s, const char *platform, const ts_placement_t *pl,
                      const ts_trace_t *t, uint32_t fingerprint)
{
    char *set = NULL, *key = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&set, &len);
    if (!ms)
        return NULL;
    size_t n = json_object_array_length(s->settings);
    for (size_t i = 0; i < n; i++)
        fprintf(ms, "%s%s", i ? " " : "",
                json_object_get_string(json_object_array_get_idx(s->settings, i)));
    if (fclose(ms) != 0) {
        free(set);
        return NULL;
    }
    char map[32];
    if (asprintf(&key,
                 "%s|%s|%s|nodes=%d|ppn=%d|nps=%d|map_by=%s|ranks=%d|events=%llu|trace=%08x|%s",
                 KEY_VERSION, s->name, platform, ts_placement_nodes(pl), ts_placement_ppn(pl),
                 ts_placement_nps(pl), ts_placement_map_text(pl, map, sizeof map),
                 (int)ts_trace_nranks(t), (unsigned long long)ts_trace_nevents(t),
                 (unsigned)fingerprint, set) < 0)
        key = NULL;
    free(set);
    return key;
}

/* ---- checking and placing every set ------------------------------------------------------ */

static void sweep_free(sweep_t *sw)
{
    for (int i = 0; i < sw->n; i++) {
        ts_params_free(sw->s[i].params);
        json_object_put(sw->s[i].settings);
        json_object_put(sw->s[i].result);
        free(sw->s[i].key);
        free(sw->s[i].error);
    }
    free(sw->s);
    ts_score_free(sw->profile);
    json_object_put(sw->records);
    if (sw->results_fd > 0)
        close(sw->results_fd);
    free(sw->results_path);
    free(sw->platform_owned);
    ts_job_trace_close(sw->jt);
    ts_sets_free(sw->sets);
    free(sw->o.only);
}

/* Parse the sets file, open the trace, and prepare every set (placement, transports) without
 * running anything. Every mistake goes into the sets' error list. */
static ts_status check_outputs(const sweep_opts_t *o, const ts_file_use_t *extra, ts_error_t *err);

static ts_status prepare(sweep_t *sw, ts_error_t *err)
{
    ts_status st = ts_sets_open(sw->o.sets, NULL, &sw->sets, err);
    if (st != TS_OK)
        return st;
    ts_sets_t *sets = sw->sets;
    sw->n = ts_sets_count(sets);
    sw->s = calloc((size_t)sw->n + 1, sizeof *sw->s);
    if (!sw->s)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int i = 0; i < sw->n; i++) {
        sset_t *s = &sw->s[i];
        s->idx = i;
        s->name = ts_sets_name(sets, i);
        s->selected = sw->o.nonly == 0;
        for (int k = 0; k < sw->o.nonly; k++)
            s->selected |= strcmp(sw->o.only[k], s->name) == 0;
        if ((st = ts_params_new(&s->params)) != TS_OK)
            return ts_error_set(err, st, "out of memory");
        ts_error_t e;
        ts_error_clear(&e);
        if (ts_sets_apply(sets, i, s->params, &e) != TS_OK) {
            ts_params_free(s->params); /* already among the file's mistakes */
            s->params = NULL;
            continue;
        }
        if (!(s->settings = settings_of(s->params)))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        char flag[160];
        ts_file_use_t model = ts_opts_set_model_use(s->params, s->name, NULL, flag, sizeof flag);
        if (model.path && (st = check_outputs(&sw->o, &model, err)) != TS_OK)
            return st;
        s->jo.platform = sw->o.platform;
        s->jo.place = sw->o.place;
        ts_sets_place_over(sets, i, &s->jo.place);
    }
    for (int k = 0; k < sw->o.nonly; k++)
        if (ts_sets_find(sets, sw->o.only[k]) < 0)
            ts_sets_add_error(sets, "--only %s: no set of that name in %s", sw->o.only[k],
                              sw->o.sets);
    if (sw->o.baseline && ts_sets_find(sets, sw->o.baseline) < 0)
        ts_sets_add_error(sets, "--baseline %s: no set of that name in %s", sw->o.baseline,
                          sw->o.sets);
    /* The trace once, for every set and every worker. */
    if ((st = ts_job_trace_open(sw->o.trace, &sw->jt, err)) != TS_OK)
        return st;
    if (sw->o.window && (st = ts_job_trace_window(sw->jt, "sweep", sw->o.window, err)) != TS_OK)
        return st;
    if (sw->o.profile || sw->o.iterations) {
        /* As `tunesim replay`: the profile scales the window (default: every iteration), the
         * iterations alone the window (default: the steady one). */
        if (sw->o.profile &&
            ((st = ts_score_read(sw->o.profile, &sw->profile, err)) != TS_OK ||
             (st = ts_xp_check(sw->profile, sw->o.profile, ts_trace_nranks(ts_job_trace(sw->jt)),
                               err)) != TS_OK))
            return st;
        int32_t a, b;
        if ((st = ts_job_trace_full_window(sw->jt, "sweep", sw->o.profile != NULL, &a, &b, err)) !=
            TS_OK)
            return st;
        sw->win_iterations = b - a + 1;
    }
    const ts_trace_t *t = ts_job_trace(sw->jt);
    /* Results are kept per trace: another one with as many ranks and events is not this one. */
    uint32_t fingerprint = ts_trace_fingerprint(t);
    char pkey[1100] = ""; /* the platform as the results know it */
    for (int i = 0; i < sw->n; i++) {
        sset_t *s = &sw->s[i];
        if (!s->params)
            continue;
        ts_job_t *job;
        ts_error_t e;
        ts_error_clear(&e);
        if (ts_job_prepare(t, sw->o.trace, s->params, &s->jo, &job, &e) != TS_OK) {
            ts_job_opts_t given = s->jo;
            given.place = sw->o.place;
            ts_sets_add_error(sets, "%s:%d: [%s] %s", sw->o.sets,
                              ts_sets_job_line(sets, i, t, sw->o.trace, s->params, &given), s->name,
                              e.msg);
            continue;
        }
        if (!sw->platform_owned) { /* the first set placed: the platform is every set's */
            if (!(sw->platform_owned = strdup(ts_platform_name(ts_job_platform(job))))) {
                ts_job_close(job);
                return ts_error_set(err, TS_ENOMEM, "out of memory");
            }
            /* A platform file is known by its content too: edited, its results are not kept. */
            size_t len = 0;
            ts_status rst;
            char *text = sw->o.platform && ts_platform_is_path(sw->o.platform)
                             ? ts_read_whole(sw->o.platform, &len, &rst, NULL)
                             : NULL;
            if (text)
                snprintf(pkey, sizeof pkey, "%s@%08lx", sw->platform_owned,
                         (unsigned long)crc32(0L, (const Bytef *)text, (uInt)len));
            else
                snprintf(pkey, sizeof pkey, "%s", sw->platform_owned);
            free(text);
        }
        s->key = make_key(s, pkey, ts_job_placement(job), t, fingerprint);
        s->compute_scale = ts_job_compute_scale(job);
        ts_job_close(job);
        if (!s->key)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    sw->platform_name = sw->platform_owned;
    int nbad = ts_sets_nerrors(sets);
    if (nbad) {
        for (int i = 0; i < nbad; i++)
            fprintf(stderr, "tunesim: %s\n", ts_sets_error(sets, i));
        return ts_error_set(err, TS_EARG,
                            "sweep: %d mistake%s in %s (listed above); nothing was "
                            "run",
                            nbad, nbad == 1 ? "" : "s", sw->o.sets);
    }
    return TS_OK;
}

/* ---- workers -----------------------------------------------------------------------------------
 */

/* In a worker (commands/pool.h): replay one set, answer its JSON document. */
static char *work_set(void *ctx, int task, ts_error_t *err)
{
    const sweep_t *sw = ctx;
    const sset_t *s = &sw->s[task];
    ts_job_t *job = NULL;
    ts_status st = ts_job_prepare(ts_job_trace(sw->jt), sw->o.trace, s->params, &s->jo, &job, err);
    if (st == TS_OK)
        st = ts_job_run(job, err);
    char *answer = NULL;
    if (st == TS_OK) {
        json_object *j = ts_job_json(job);
        const char *txt = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
                                                                    JSON_C_TO_STRING_NOSLASHESCAPE)
                            : NULL;
        if (!txt || !(answer = strdup(txt)))
            ts_error_set(err, TS_ENOMEM, "out of memory");
        json_object_put(j);
    }
    return answer;
}

static void set_failed(sset_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_failed(sset_t *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(s->error);
    if (vasprintf(&s->error, fmt, ap) < 0)
        s->error = NULL;
    va_end(ap);
}

/* In the parent: a set's worker ended; keep and record its result, or say why it failed. */
static ts_status set_done(void *ctx, int task, const char *answer, const char *error, int *failed,
                          ts_error_t *err)
{
    sweep_t *sw = ctx;
    sset_t *s = &sw->s[task];
    ts_status st = TS_OK;
    if (answer) {
        json_object *j = json_tokener_parse(answer);
        if (j && json_object_is_type(j, json_type_object)) {
            s->result = j;
            st = ts__sweep_append_record(sw, s, err);
        } else {
            json_object_put(j);
            set_failed(s, "the worker's result is not a JSON document");
        }
    } else {
        set_failed(s, "%s", error);
    }
    if (!s->result) {
        *failed = 1;
        ts_pool_clear_line();
        fprintf(stderr, "tunesim: set %s failed: %s\n", s->name, s->error);
    }
    return st;
}

static ts_status run_sets(sweep_t *sw, ts_error_t *err)
{
    int total = 0, done = 0, ntodo = 0;
    int *todo = calloc((size_t)sw->n + 1, sizeof *todo);
    if (!todo)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    for (int i = 0; i < sw->n; i++) {
        if (!sw->s[i].selected)
            continue;
        total++;
        if (sw->s[i].result)
            done++;
        else
            todo[ntodo++] = i;
    }
    char shown[4200];
    if (isatty(STDERR_FILENO) && done)
        fprintf(stderr, "sweep: resuming: %d of %d sets already in %s\n", done, total,
                ts_shown(sw->results_path, shown, sizeof shown));
    ts_pool_t pool = {.jobs = sw->o.jobs,
                      .who = "sweep",
                      .what = "sets",
                      .ctx = sw,
                      .work = work_set,
                      .done = set_done};
    ts_status st = ts_pool_run(&pool, todo, ntodo, done, err);
    free(todo);
    return st;
}

/* ---- reports ----------------------------------------------------------------------------------
 */

ts_status ts__sweep_report(const char *trace, const char *platform, const char *baseline,
                           const sweep_opts_t *o, int n, const ts_sweep_entry_t *e, ts_error_t *err)
{
    ts_sweep_report_t r = {trace, platform, baseline, n, e};
    ts_sweep_print_table(&r, o->out);
    ts_status st = TS_OK;
    st = ts_report_check(o->out, NULL, err);
    if (st == TS_OK && o->json)
        st = ts_sweep_write_json(&r, o->json, err);
    if (st == TS_OK && o->csv)
        st = ts_sweep_write_csv(&r, o->csv, err);
    if (st == TS_OK && o->plot)
        st = ts_sweep_write_plot(&r, o->plot, err);
    return st;
}

static ts_status report_sweep(sweep_t *sw, ts_error_t *err)
{
    ts_sweep_entry_t *e = calloc((size_t)sw->n + 1, sizeof *e);
    if (!e)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    int n = 0, failed = 0;
    for (int i = 0; i < sw->n; i++) {
        const sset_t *s = &sw->s[i];
        if (!s->selected)
            continue;
        e[n++] =
            (ts_sweep_entry_t){s->name, s->settings, s->result, s->error ? s->error : "not run"};
        failed += !s->result;
    }
    const char *baseline = sw->o.baseline ? sw->o.baseline : sw->s[0].name;
    ts_status st = ts__sweep_report(sw->o.trace, sw->platform_name, baseline, &sw->o, n, e, err);
    free(e);
    if (st == TS_OK && failed)
        st = ts_error_set(err, TS_ECHILD,
                          "sweep: %d of %d sets failed (listed above); the same command reruns "
                          "only them",
                          failed, n);
    return st;
}

/* ---- the full run ---------------------------------------------------------------------- */

/* Each set's replay scaled to the full run (extrapolate.h): with --profile, the profile's
 * compute (or visits, --scale-by visits); with --iterations alone, N x the window's time per
 * iteration. The result goes into the set's result as full_time_s and full_mpi_s, so that the
 * CSV and JSON reports carry it; *first keeps one set's scaling table for the report. */
/* The set the profile was measured under: the baseline (--baseline, else the first set). */
static const sset_t *profiled_set(const sweep_t *sw)
{
    int b = sw->o.baseline ? ts_sets_find(sw->sets, sw->o.baseline) : 0;
    return b >= 0 && b < sw->n ? &sw->s[b] : NULL;
}

static ts_status full_run_attach(const sweep_t *sw, ts_xp_t **first, ts_error_t *err)
{
    *first = NULL;
    ts_status st = TS_OK;
    const sset_t *base = profiled_set(sw);
    for (int i = 0; i < sw->n && st == TS_OK; i++) {
        const sset_t *s = &sw->s[i];
        json_object *funcs, *mk;
        if (!s->selected || !s->result)
            continue;
        double total, mpi = 0;
        if (!sw->profile) {
            json_object_object_get_ex(s->result, "predicted_time_s", &mk);
            total = json_object_get_double(mk) / sw->win_iterations * sw->o.iterations;
        } else {
            if (!json_object_object_get_ex(s->result, "functions", &funcs))
                continue;
            ts_xp_in_t in = {.nranks = ts_trace_nranks(ts_job_trace(sw->jt)),
                             .scale = sw->o.scale,
                             .window_iterations = sw->win_iterations,
                             .full_iterations = sw->o.iterations,
                             .visit_outside = TS_PARAM_SECONDS(s->params, SCOREP_VISIT_OUTSIDE),
                             .compute_ratio = base && base->compute_scale > 0
                                                  ? s->compute_scale / base->compute_scale
                                                  : 1};
            ts_xp_t *x;
            st = ts_full_run_from_json(s->result, sw->profile, sw->o.profile, &in, &x, err);
            if (st != TS_OK)
                break;
            total = ts_xp_total(x);
            mpi = ts_xp_mpi(x);
            if (!*first)
                *first = x; /* its table and warnings stand for every set's */
            else
                ts_xp_free(x);
        }
        json_object_object_add(s->result, "full_time_s", json_object_new_double(total));
        json_object_object_add(s->result, "full_mpi_s", json_object_new_double(mpi));
    }
    return st;
}

typedef struct full_row_s {
    const char *name;
    double total;
} full_row_t;

static int cmp_full(const void *a, const void *b)
{
    const full_row_t *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* After the sweep's own table: the scaling (one set's table) and the sets ranked by their
 * full-run time. No interval here: `tunesim replay` replays each iteration. */
static ts_status full_run_report(const sweep_t *sw, const ts_xp_t *first, ts_error_t *err)
{
    full_row_t *rows = calloc((size_t)sw->n + 1, sizeof *rows);
    if (!rows)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    int n = 0;
    ts_status st = TS_OK;
    for (int i = 0; i < sw->n; i++) {
        json_object *ft;
        if (sw->s[i].selected && sw->s[i].result &&
            json_object_object_get_ex(sw->s[i].result, "full_time_s", &ft))
            rows[n++] = (full_row_t){sw->s[i].name, json_object_get_double(ft)};
    }
    if (n) {
        if (first)
            ts_xp_print(first, sw->o.out);
        else
            fprintf(sw->o.out,
                    "\nfull run (%d iterations: each set's makespan / %d window iteration%s x "
                    "%d; assumes every iteration costs what the window's do)\n",
                    sw->o.iterations, (int)sw->win_iterations, sw->win_iterations == 1 ? "" : "s",
                    sw->o.iterations);
        qsort(rows, (size_t)n, sizeof *rows, cmp_full);
        const char *base = sw->o.baseline ? sw->o.baseline : sw->s[0].name;
        double tb = 0;
        for (int i = 0; i < n; i++)
            if (strcmp(rows[i].name, base) == 0)
                tb = rows[i].total;
        fprintf(
            sw->o.out,
            "\nfull run per set (ExecutionTime; gain: time saved against %s; the interval: tunesim "
            "replay --profile, one set at a time)\n%4s  %-16s %17s %10s\n",
            base, "rank", "set", "ExecutionTime[s]", "gain[%]");
        for (int i = 0; i < n; i++)
            fprintf(sw->o.out, "%4d  %-16s %17.3f %+10.2f\n", i + 1, rows[i].name, rows[i].total,
                    tb > 0 ? 100.0 * (tb - rows[i].total) / tb : 0.0); /* time saved */
        st = ts_report_check(sw->o.out, NULL, err);
    }
    free(rows);
    return st;
}

/* ---- outputs, checked before anything runs ------------------------------------------------------
 */

/* Every file the sweep will write, checked before the first replay: no two outputs (nor an
 * output and an input) may be the same file, and each must be writable. A sweep of hours
 * that fails at its last step, or whose JSON overwrites its own results, loses them all. */
static ts_status check_outputs(const sweep_opts_t *o, const ts_file_use_t *extra, ts_error_t *err)
{
    enum { MAXF = 13 + SWEEP_MAX_ALSO };
    ts_file_use_t f[MAXF];
    char *owned[MAXF];
    int n = 0, nowned = 0;
    ts_status st = TS_OK;
#define ADD(fl, p, out, what, dir_ok)                                                              \
    do {                                                                                           \
        if (p)                                                                                     \
            f[n++] = (ts_file_use_t){(fl), (p), (out), (what), (dir_ok)};                          \
    } while (0)
    ADD("--csv", o->csv, 1, NULL, 0);
    ADD("--json", o->json, 1, NULL, 0);
    if (!o->merge && !o->emit) {
        char *res = o->results ? NULL : ts__sweep_default_results_path(o);
        if (res)
            owned[nowned++] = res;
        ADD(o->results ? "--results" : "the results file (from --json / --csv)",
            o->results ? o->results : res, 1, NULL, 0);
    }
    if (o->plot) {
        static const char *const ext[] = {".png", ".svg", "-breakdown.png", "-breakdown.svg"};
        for (int i = 0; i < 4; i++) {
            char *p = NULL;
            if (asprintf(&p, "%s%s", o->plot, ext[i]) < 0)
                st = TS_ENOMEM;
            else
                owned[nowned++] = p;
            ADD("--plot", p, 1, NULL, 0);
        }
    }
    ADD("TRACE", o->trace, 0, "a trace", 1);
    ADD("--sets", o->sets, 0, "a sets file", 0);
    ADD("--profile", o->profile, 0, "a scorep-score profile", 0);
    ADD("--platform", o->platform && ts_platform_is_path(o->platform) ? o->platform : NULL, 0,
        "a platform description", 0);
    if (extra && extra->path) /* a set's own model file */
        f[n++] = *extra;
    for (int i = 0; i < o->nalso && i < SWEEP_MAX_ALSO; i++)
        ADD(o->also[i].flag, o->also[i].path, 1, NULL, 0);
#undef ADD
    if (st != TS_OK)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    if (st == TS_OK)
        st = ts_check_files("sweep", f, n, err);
    for (int i = 0; st == TS_OK && o->merge && i < n; i++)
        if (f[i].output)
            st = ts__sweep_merge_check_output(o->merge, f[i].flag, f[i].path, err);
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    return st;
}

/* ---- the command --------------------------------------------------------------------------------
 */

int ts_sweep_cmd(int argc, char **argv, ts_error_t *err)
{
    return ts_sweep_cmd_to(stdout, NULL, 0, argc, argv, err);
}

int ts_sweep_cmd_to(FILE *out, const ts_file_use_t *also, int nalso, int argc, char **argv,
                    ts_error_t *err)
{
    sweep_t sw;
    memset(&sw, 0, sizeof sw);
    sw.results_fd = -1;
    ts_status st = parse_opts(argc, argv, &sw.o, err);
    sw.o.out = out;
    sw.o.also = also;
    sw.o.nalso = nalso;
    /* Find out before hours of replays that the pictures cannot be drawn. */
    if (st == TS_OK && sw.o.plot && !ts_sweep_have_gnuplot())
        st = ts_error_set(err, TS_EIO,
                          "--plot needs gnuplot, which is not installed "
                          "(Debian: apt-get install gnuplot-nox)");
    if (st == TS_OK)
        st = check_outputs(&sw.o, NULL, err);
    if (st == TS_OK && sw.o.merge) {
        st = ts__sweep_merge(&sw.o, err);
        free(sw.o.only);
        return st;
    }
    if (st == TS_OK)
        st = prepare(&sw, err);
    if (st == TS_OK && sw.o.emit)
        st = ts__sweep_emit_slurm(&sw, err);
    else if (st == TS_OK) {
        ts_xp_t *first = NULL;
        int full = sw.profile || sw.o.iterations;
        if ((st = ts__sweep_open_results(&sw, err)) == TS_OK &&
            (st = run_sets(&sw, err)) == TS_OK && full)
            st = full_run_attach(&sw, &first, err);
        if (st == TS_OK)
            st = report_sweep(&sw, err);
        /* The full run also for a sweep with failed sets: the others are scaled. */
        if ((st == TS_OK || st == TS_ECHILD) && full) {
            ts_error_t e2;
            ts_status st2 = full_run_report(&sw, first, &e2);
            if (st2 != TS_OK) {
                st = st2;
                if (err)
                    *err = e2;
            }
        }
        ts_xp_free(first);
    }
    sweep_free(&sw);
    return st;
}
