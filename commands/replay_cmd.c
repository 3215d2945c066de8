/* replay_cmd.c - `tunesim replay TRACE --platform NAME|FILE [--nodes N] [--ppn P] [--nps 1|2]
 * [--map-by block|cyclic] [-x K=V] [--mca K V] [--set K=V] [--mpirun "LINE"] [--json]
 * [--window FIRST:LAST] [--profile SCORE.txt] [--scale-by compute|visits] [--iterations N]`: parses
 * the command line into a parameter set (params/params) and placement options, and runs one replay
 * job (replay_job.h: trace, platform, placement, protocol model, SimGrid) that prints the
 * prediction; with --profile or --iterations the window is scaled to the full run
 * (extrapolate.h), with an interval from replaying each of its iterations alone. */
#include "replay_cmd.h"

#include "../common/jsontext.h"
#include "../common/numparse.h"
#include "../common/outfile.h"
#include "options.h"
#include "progress.h"

#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../params/params.h"
#include "../params/params_args.h"
#include "../platforms/placement.h"
#include "../traces/scorep_score.h"
#include "../sim/extrapolate.h"
#include "../sim/replay_job.h"

#include <json-c/json.h>

#define REPLAY_USAGE                                                                               \
    "tunesim replay TRACE [--platform NAME|FILE] [--nodes N] [--ppn P] [--nps 1|2] "               \
    "[--map-by block|cyclic] [-x KEY=VALUE] [--mca KEY VALUE] [--set KEY=VALUE] "                  \
    "[--link-speed RATE] [--memory-bandwidth BW] [--cpu-clock GHZ] [--balance F] "                 \
    "[--mpirun \"LINE\"] [--model FILE] [--json] [--window FIRST:LAST] [--profile SCORE.txt] "     \
    "[--scale-by compute|visits] [--iterations N]"

typedef struct replay_opts_s {
    const char *trace, *platform, *mpirun;
    const char *window, *profile;
    int iterations; /* the full run's iterations; 0: not given */
    ts_xp_scale scale;
    ts_placement_opts_t place;
    int json;
    int mpirun_ranks; /* -n of --mpirun; 0 where absent (its -N becomes place.ppn) */
} replay_opts_t;

/* replay's own options (the parameter words are the params layer's). */
enum {
    RO_JSON,
    RO_PLATFORM,
    RO_MPIRUN,
    RO_WINDOW,
    RO_PROFILE,
    RO_ITERATIONS,
    RO_SCALE_BY,
    RO_NODES,
    RO_PPN,
    RO_NPS,
    RO_MAP_BY
};
static const ts_opt_t REPLAY_OPTS[] = {
    [RO_JSON] = {"json", 0, 0},         [RO_PLATFORM] = {"platform", 0, 1},
    [RO_MPIRUN] = {"mpirun", 0, 1},     [RO_WINDOW] = {"window", 0, 1},
    [RO_PROFILE] = {"profile", 0, 1},   [RO_ITERATIONS] = {"iterations", 0, 1},
    [RO_SCALE_BY] = {"scale-by", 0, 1}, [RO_NODES] = {"nodes", 0, 1},
    [RO_PPN] = {"ppn", 0, 1},           [RO_NPS] = {"nps", 0, 1},
    [RO_MAP_BY] = {"map-by", 0, 1},
};

static ts_status replay_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    replay_opts_t *o = ctx;
    switch (opt) {
    case -1:
        if (o->trace)
            return ts_error_set(err, TS_EUSAGE, "replay: unexpected argument '%s'", v);
        o->trace = v;
        return TS_OK;
    case RO_JSON:
        o->json = 1;
        return TS_OK;
    case RO_PLATFORM:
        o->platform = v;
        return TS_OK;
    case RO_MPIRUN:
        o->mpirun = v;
        return TS_OK;
    case RO_WINDOW:
        o->window = v;
        return TS_OK;
    case RO_PROFILE:
        o->profile = v;
        return TS_OK;
    case RO_ITERATIONS:
        if (ts_parse_int(v, 1, 100000000, &o->iterations))
            return ts_error_set(err, TS_EUSAGE,
                                "replay: --iterations expects a count of iterations, got '%s'", v);
        return TS_OK;
    case RO_SCALE_BY:
        return ts_opts_scale_by("replay", v, &o->scale, err);
    default: /* RO_NODES .. RO_MAP_BY, in ts_opts_place's order */
        return ts_opts_place("replay", opt - RO_NODES, v, &o->place, err);
    }
}

static ts_status parse_opts(int argc, char **argv, ts_params_t *params, replay_opts_t *o,
                            ts_error_t *err)
{
    memset(o, 0, sizeof *o);
    o->platform = "bm-optimized3.36";
    ts_status st =
        ts_opts_parse_params("replay", argc, argv, params, REPLAY_OPTS,
                             (int)(sizeof REPLAY_OPTS / sizeof REPLAY_OPTS[0]), replay_opt, o, err);
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
        /* Nodes from a host list (-H a,b) or srun -N, unless --nodes says otherwise. */
        if (st == TS_OK && info.nodes > 0 && o->place.nodes && o->place.nodes != info.nodes)
            st = ts_error_set(err, TS_EUSAGE, "replay: --mpirun runs on %d nodes, --nodes %d",
                              info.nodes, o->place.nodes);
        if (st == TS_OK && !o->place.nodes && info.nodes > 0)
            o->place.nodes = info.nodes;
        if (st == TS_OK && info.note[0])
            fprintf(stderr, "tunesim: note: --mpirun: %s\n", info.note);
        if (st == TS_OK && info.map_by[0]) /* ppr:N:OBJ and PE=n as --map-by reads them */
            st = ts_map_by_layout(info.map_by, &o->place, err);
    }
    return st;
}

/* ---- one replay per iteration: the interval ------------------------------------------- */

/* What a replay of one iteration sends back: its makespan, compute and per-function totals. */
typedef struct iter_run_s {
    int ok;
    double makespan, compute;
    int32_t nfuncs;
    uint64_t *visits;
    double *time;
} iter_run_t;

/* Move all n bytes through a pipe end (write when out, else read), across EINTR and short
 * transfers: 0, or -1 on an error or an early end. */
static int pipe_all(int fd, void *p, size_t n, int out)
{
    char *c = p;
    while (n) {
        ssize_t k = out ? write(fd, c, n) : read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Replay iteration k alone in a child process (SimGrid runs once per process) and collect
 * its totals. A failure leaves run->ok 0: the interval then says it lacks that iteration. */
static void run_iteration(ts_job_trace_t *jt, int32_t k, const char *name,
                          const ts_params_t *params, const ts_job_opts_t *jo, iter_run_t *run)
{
    memset(run, 0, sizeof *run);
    int fds[2];
    if (pipe(fds) != 0)
        return;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        /* Ends with the replay (Ctrl-C, SIGTERM, a crash): SIGTERM, whose handler removes this
         * child's platform file (common/tmpfiles.h). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        close(fds[0]);
        ts_error_t e;
        ts_trace_t *cut = NULL;
        ts_job_t *job = NULL;
        int rc = 1;
        if (ts_job_trace_cut(jt, k, k, &cut, &e) == TS_OK &&
            ts_job_prepare(cut, name, params, jo, &job, &e) == TS_OK &&
            ts_job_run(job, &e) == TS_OK) {
            const ts_replay_result_t *r = ts_job_result(job);
            double makespan = r->makespan, compute = r->compute_time;
            int32_t nfuncs = r->nfuncs;
            if (pipe_all(fds[1], &makespan, sizeof makespan, 1) == 0 &&
                pipe_all(fds[1], &compute, sizeof compute, 1) == 0 &&
                pipe_all(fds[1], &nfuncs, sizeof nfuncs, 1) == 0 &&
                pipe_all(fds[1], r->visits, (size_t)nfuncs * sizeof *r->visits, 1) == 0 &&
                pipe_all(fds[1], r->time, (size_t)nfuncs * sizeof *r->time, 1) == 0)
                rc = 0;
        }
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    int ok = pipe_all(fds[0], &run->makespan, sizeof run->makespan, 0) == 0 &&
             pipe_all(fds[0], &run->compute, sizeof run->compute, 0) == 0 &&
             pipe_all(fds[0], &run->nfuncs, sizeof run->nfuncs, 0) == 0 && run->nfuncs >= 0 &&
             run->nfuncs < 65536;
    if (ok) {
        run->visits = calloc((size_t)run->nfuncs + 1, sizeof *run->visits);
        run->time = calloc((size_t)run->nfuncs + 1, sizeof *run->time);
        ok = run->visits && run->time &&
             pipe_all(fds[0], run->visits, (size_t)run->nfuncs * sizeof *run->visits, 0) == 0 &&
             pipe_all(fds[0], run->time, (size_t)run->nfuncs * sizeof *run->time, 0) == 0;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    run->ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void free_run(iter_run_t *run)
{
    free(run->visits);
    free(run->time);
}

/* The window's functions for the extrapolation (names from the trace, which outlives them). */
static ts_xp_func_t *xp_funcs(const ts_trace_t *t, int32_t nfuncs, const uint64_t *visits,
                              const double *time)
{
    ts_xp_func_t *f = calloc((size_t)nfuncs + 1, sizeof *f);
    for (int32_t i = 0; f && i < nfuncs; i++)
        f[i] = (ts_xp_func_t){ts_trace_func_name(t, i), visits[i], time[i]};
    return f;
}

/* The full-run prediction and its interval, printed after the replay's own report (fp), or
 * with --json added to its document as "full_run" (j; fp is then NULL and nothing prints). */
static ts_status extrapolate(ts_job_trace_t *jt, const replay_opts_t *o, const ts_score_t *prof,
                             const ts_params_t *params, const ts_job_t *job, int32_t first,
                             int32_t last, const iter_run_t *runs, FILE *fp, json_object *j,
                             ts_error_t *err)
{
    const ts_trace_t *t = ts_job_trace(jt);
    const ts_replay_result_t *r = ts_job_result(job);
    int32_t nwin = last - first + 1;
    json_object *alone = j ? json_object_new_array() : NULL;
    char shown[4200];
    if (fp)
        fprintf(fp, "\nwindow      iterations %d:%d of %s%s\n", (int)first, (int)last,
                ts_shown(o->trace, shown, sizeof shown),
                o->window ? "" : " (start-up and shutdown left out: they happen once)");
    double x_compute = 0, x_mpi = 0, x_windows = 0, x_iters = 0;
    double lo, hi, nominal;
    double *each = calloc((size_t)nwin + 1, sizeof *each);
    if (!each) {
        json_object_put(alone);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    int nok = 0;
    if (prof) {
        ts_xp_func_t *f = xp_funcs(t, r->nfuncs, r->visits, r->time);
        if (!f) {
            free(each);
            json_object_put(alone);
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        }
        ts_xp_in_t in = {.nranks = ts_trace_nranks(t),
                         .scale = o->scale,
                         .win_compute = r->compute_time,
                         .funcs = f,
                         .nfuncs = r->nfuncs,
                         .window_iterations = nwin,
                         .full_iterations = o->iterations,
                         .visit_outside = TS_PARAM_SECONDS(params, SCOREP_VISIT_OUTSIDE),
                         /* the profile is taken as measured at NPS1 (the defaults') */
                         .compute_ratio = ts_job_compute_ratio_base(job)};
        ts_xp_t *x;
        ts_status st = ts_xp_predict(prof, o->profile, &in, &x, err);
        free(f);
        if (st != TS_OK) {
            free(each);
            json_object_put(alone);
            return st;
        }
        if (fp)
            ts_xp_print(x, fp);
        nominal = ts_xp_total(x);
        x_compute = ts_xp_compute(x);
        x_mpi = ts_xp_mpi(x);
        x_windows = ts_xp_windows(x);
        x_iters = ts_xp_iterations(x);
        for (int32_t k = 0; k < nwin; k++) {
            if (!runs[k].ok)
                continue;
            ts_xp_func_t *fk = xp_funcs(t, runs[k].nfuncs, runs[k].visits, runs[k].time);
            ts_xp_in_t ik = in;
            ts_xp_t *xk;
            ik.funcs = fk;
            ik.nfuncs = runs[k].nfuncs;
            ik.win_compute = runs[k].compute;
            ik.window_iterations = 1;
            if (fk && ts_xp_predict(prof, o->profile, &ik, &xk, NULL) == TS_OK) {
                double v = ts_xp_total(xk);
                if (fp)
                    fprintf(fp,
                            "  iteration %-4d alone: ExecutionTime %.3f s (MPI %.3f s per rank)\n",
                            (int)(first + k), v, ts_xp_mpi(xk));
                each[nok++] = v;
                if (alone) {
                    json_object *it = json_object_new_object();
                    json_object_object_add(it, "iteration", json_object_new_int(first + k));
                    json_object_object_add(it, "execution_time_s", json_object_new_double(v));
                    json_object_array_add(alone, it);
                }
                ts_xp_free(xk);
            }
            free(fk);
        }
        ts_xp_free(x);
    } else {
        double per_iter = r->makespan / nwin;
        nominal = per_iter * o->iterations;
        if (fp)
            fprintf(fp,
                    "\nfull run (%d iterations)\n  per iteration %.6f s: the window's makespan "
                    "%.6f s / %d iteration%s\n",
                    o->iterations, per_iter, r->makespan, (int)nwin, nwin == 1 ? "" : "s");
        for (int32_t k = 0; k < nwin; k++) {
            if (!runs[k].ok)
                continue;
            double v = runs[k].makespan * o->iterations;
            if (fp)
                fprintf(fp, "  iteration %-4d alone: %.6f s, x %d = %.3f s\n", (int)(first + k),
                        runs[k].makespan, o->iterations, v);
            each[nok++] = v;
            if (alone) {
                json_object *it = json_object_new_object();
                json_object_object_add(it, "iteration", json_object_new_int(first + k));
                json_object_object_add(it, "execution_time_s", json_object_new_double(v));
                json_object_array_add(alone, it);
            }
        }
        if (fp)
            fprintf(fp, "  assumes    every iteration costs what the window's do on average; "
                        "start-up and shutdown are left out\n");
    }
    ts_xp_interval(nominal, each, nok, &lo, &hi);
    free(each);
    if (fp && nok >= 2)
        fprintf(fp,
                "predicted   ExecutionTime %.3f s, interval %.3f-%.3f s (95 %% from the spread "
                "of the %d iterations, each replayed alone: Student's t)\n",
                nominal, lo, hi, nok);
    else if (fp)
        fprintf(fp, "predicted   ExecutionTime %.3f s, interval %.3f-%.3f s (%s)\n", nominal, lo,
                hi,
                nok ? "one iteration: no spread between iterations to judge by"
                    : "no single iteration replayed: no interval");
    if (fp && nok < nwin)
        fprintf(fp, "  warning    %d of %d iterations could not be replayed alone\n",
                (int)(nwin - nok), (int)nwin);
    if (j) {
        /* The same numbers as the text, in the units the text gives them. */
        json_object *fr = json_object_new_object();
        json_object_object_add(fr, "first_iteration", json_object_new_int(first));
        json_object_object_add(fr, "last_iteration", json_object_new_int(last));
        json_object_object_add(fr, "scaled_by",
                               json_object_new_string(!prof                         ? "iterations"
                                                      : o->scale == TS_XP_BY_VISITS ? "visits"
                                                                                    : "compute"));
        if (prof) {
            json_object_object_add(fr, "profile", json_object_new_string(o->profile));
            json_object_object_add(fr, "compute_per_rank_s", json_object_new_double(x_compute));
            json_object_object_add(fr, "mpi_per_rank_s", json_object_new_double(x_mpi));
            json_object_object_add(fr, "windows", json_object_new_double(x_windows));
            json_object_object_add(fr, "iterations", json_object_new_double(x_iters));
        } else {
            json_object_object_add(fr, "iterations", json_object_new_int(o->iterations));
        }
        json_object_object_add(fr, "execution_time_s", json_object_new_double(nominal));
        json_object *iv = json_object_new_array();
        json_object_array_add(iv, json_object_new_double(lo));
        json_object_array_add(iv, json_object_new_double(hi));
        json_object_object_add(fr, "interval_s", iv);
        json_object_object_add(fr, "iterations_alone", alone);
        json_object_object_add(j, "full_run", fr);
    }
    return TS_OK;
}

/* ---- the command -------------------------------------------------------------------- */

int ts_replay_cmd(int argc, char **argv, ts_error_t *err)
{
    ts_params_t *params = NULL;
    ts_job_trace_t *jt = NULL;
    ts_job_t *job = NULL;
    ts_score_t *prof = NULL;
    iter_run_t *runs = NULL;
    int32_t first = 0, last = 0, nruns = 0;
    replay_opts_t o;
    ts_status st = ts_params_new(&params);
    if (st != TS_OK) {
        ts_error_set(err, st, "out of memory");
        goto done;
    }
    if ((st = parse_opts(argc, argv, params, &o, err)) != TS_OK)
        goto done;
    if (o.scale == TS_XP_BY_VISITS && !o.profile) { /* it would be ignored */
        st = ts_error_set(err, TS_EUSAGE,
                          "replay: --scale-by visits scales a window with --profile's visits: "
                          "give the profile");
        goto done;
    }
    /* Its inputs by type, none of them the file standard output writes. */
    const ts_file_use_t uses[] = {{"TRACE", o.trace, 0, "a trace", 1},
                                  {"--profile", o.profile, 0, "a scorep-score profile", 0}};
    if ((st = ts_check_files("replay", uses, 2, err)) != TS_OK)
        goto done;
    /* The profile first: a malformed one should not cost a replay. */
    if (o.profile && (st = ts_score_read(o.profile, &prof, err)) != TS_OK)
        goto done;
    ts_job_opts_t jo = {.platform = o.platform, .place = o.place};
    ts_progress_t progress;
    ts_progress_init(&progress, "replay");
    if ((st = ts_job_trace_open(o.trace, &jt, err)) != TS_OK)
        goto done;
    if (prof &&
        (st = ts_xp_check(prof, o.profile, ts_trace_nranks(ts_job_trace(jt)), err)) != TS_OK)
        goto done;
    if (prof && o.scale == TS_XP_BY_COMPUTE && !ts_xp_profile_has_compute(prof)) {
        st = ts_error_set(err, TS_EARG,
                          "%s: the profile has no time outside MPI: cannot scale by compute "
                          "(expected time outside MPI in both); scale by visits instead",
                          o.profile);
        goto done;
    }
    if (prof) {
        /* Nothing to scale is known before the replay: say so before printing anything. */
        int shared = 0;
        for (int i = 0; i < ts_score_nrows(prof) && !shared; i++) {
            const ts_score_row_t *row = ts_score_row(prof, i);
            shared = strcmp(row->type, "MPI") == 0 && strncmp(row->region, "MPI_Init", 8) != 0 &&
                     strcmp(row->region, "MPI_Finalize") != 0 &&
                     ts_trace_func_find(ts_job_trace(jt), row->region) >= 0;
        }
        if (!shared) {
            st = ts_error_set(err, TS_EARG,
                              "%s: no MPI function of the profile is in %s (besides start-up): "
                              "nothing to scale",
                              o.profile, o.trace);
            goto done;
        }
    }
    if (o.window && (st = ts_job_trace_window(jt, "replay", o.window, err)) != TS_OK)
        goto done;
    if ((o.profile || o.iterations) &&
        (st = ts_job_trace_full_window(jt, "replay", o.profile != NULL, &first, &last, err)) !=
            TS_OK)
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
    /* A window says so wherever the report names the trace. */
    char name[4200];
    int32_t wa, wb;
    if (ts_job_trace_window_of(jt, &wa, &wb))
        snprintf(name, sizeof name, "%s (iterations %d:%d)", o.trace, (int)wa, (int)wb);
    else
        snprintf(name, sizeof name, "%s", o.trace);
    /* The progress line is the main replay's only: the per-iteration children stay quiet.
     * Without a terminal there is no line, and the engine need not count events for it. */
    jo.progress = progress.on ? ts_progress_update : NULL;
    jo.progress_ctx = &progress;
    st = ts_job_prepare(ts_job_trace(jt), name, params, &jo, &job, err);
    jo.progress = NULL;
    if (st != TS_OK)
        goto done;
    if (first > 0) {
        /* Each iteration alone, before this process runs SimGrid (once per process). */
        nruns = last - first + 1;
        runs = calloc((size_t)nruns, sizeof *runs);
        if (!runs) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            goto done;
        }
        for (int32_t k = 0; k < nruns; k++)
            run_iteration(jt, first + k, o.trace, params, &jo, &runs[k]);
    }
    ts_progress_init(&progress, "replay");
    st = ts_job_run(job, err);
    ts_progress_end(&progress);
    if (st != TS_OK)
        goto done;
    if (o.json && first > 0) {
        /* The replay's document with the full run in it. */
        json_object *root = ts_job_json(job);
        if (!root) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            goto done;
        }
        st = extrapolate(jt, &o, prof, params, job, first, last, runs, NULL, root, err);
        if (st == TS_OK) {
            ts_json_fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_SPACED |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE),
                          stdout);
            putchar('\n');
        }
        json_object_put(root);
        if (st != TS_OK)
            goto done;
    } else if (o.json) {
        ts_job_print_json(job, stdout);
    } else {
        ts_job_print_text(job, stdout);
        if (first > 0 && (st = extrapolate(jt, &o, prof, params, job, first, last, runs, stdout,
                                           NULL, err)) != TS_OK)
            goto done;
    }
    st = ts_report_check(stdout, NULL, err);
done:
    for (int32_t k = 0; runs && k < nruns; k++)
        free_run(&runs[k]);
    free(runs);
    ts_score_free(prof);
    ts_job_close(job);
    ts_job_trace_close(jt);
    ts_params_free(params);
    return st;
}
