/* main.c - the tunesim command line: dispatches subcommands, prints errors as one line on
 * stderr and turns status codes into exit codes. The only place that exits. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../common/numparse.h"
#include "../common/outfile.h"
#include "../common/status.h"
#include "../common/tmpfiles.h"
#include "../traces/denoise.h"
#include "../traces/iterations.h"
#include "../traces/store.h"
#include "../traces/ti.h"
#include "../traces/trace.h"
#include "../traces/window.h"
#include "../sim/replay_job.h"
#include "calibrate_cmd.h"
#include "info_cmd.h"
#include "options.h"
#include "params_cmd.h"
#include "record_cmd.h"
#include "replay_cmd.h"
#include "sweep_cmd.h"
#include "imb_cmd.h"
#include "fit_cmd.h"
#include "validate_cmd.h"

#define TUNESIM_VERSION "0.1.0"

enum { EXIT_ERROR = 1, EXIT_USAGE = 2 };

/* Every command: its name, its synopsis (continuation lines indented), and what it does.
 * `tunesim --help` lists them all, `tunesim COMMAND --help` and `tunesim help COMMAND` print
 * one, and a usage mistake prints the command's synopsis after the one-line error. */
typedef struct cmd_doc_s {
    const char *name, *synopsis, *what;
    const char *options; /* every option: meaning, accepted values, default (lines <= 100) */
} cmd_doc_t;

/* Option help shared by the commands that take them. */
#define HELP_PLATFORM                                                                              \
    "  --platform NAME|FILE  the machine: bm-optimized3.36 (default; 2 x Xeon 6354, 100 Gbps\n"    \
    "                        RoCE), broadwell-e5-2690v4-edr, skylake-gold6148-edr, localhost\n"    \
    "                        (this machine), or a .platform file (platforms/README.md)\n"
#define HELP_PLACE                                                                                 \
    "  --nodes N             nodes to place the ranks on (default: the platform's, 2 for\n"        \
    "                        bm-optimized3.36)\n"                                                  \
    "  --ppn P               ranks per node (default: ranks / nodes, rounded up)\n"                \
    "  --nps 1|2             NUMA domains per socket, the nodes' BIOS setting (default 1)\n"       \
    "  --map-by block|cyclic|node  ranks to cores: consecutive ranks on one socket, or\n"          \
    "                        alternating sockets, or round-robin over the nodes (default block;\n" \
    "                        Open MPI's --map-by words are accepted, ppr:N:OBJ and :PE=n too)\n"
#define HELP_PARAMS                                                                                \
    "  -x KEY=VALUE          a UCX variable or model parameter, as mpirun -x (tunesim params\n"    \
    "                        lists them all with defaults, ranges and sources)\n"                  \
    "  --mca KEY VALUE       an Open MPI MCA parameter, as mpirun --mca\n"                         \
    "  --set KEY=VALUE       any parameter of tunesim params, model constants included\n"          \
    "  --model FILE          a model file of tunesim calibrate or fit, applied first\n"
#define HELP_WHATIF                                                                                \
    "  --link-speed RATE     what if the NIC ran at RATE (56Gbps, or FDR, EDR, HDR, 100GbE...)\n"  \
    "  --memory-bandwidth BW what if each socket's memory gave BW (e.g. 256GB/s)\n"                \
    "  --cpu-clock GHZ       what if the cores ran at GHZ\n"                                       \
    "  --balance F           what if each rank's compute moved F (0-1, or 50%) toward the mean\n"  \
    "                        (docs/what-if.md; a sets file takes the same words)\n"
#define HELP_FULLRUN                                                                               \
    "  --window FIRST:LAST   replay only these iterations (tunesim info lists them)\n"             \
    "  --profile SCORE.txt   scale the window to the full run with this scorep-score profile\n"    \
    "                        (its time outside MPI and its visits; docs/extrapolation.md)\n"       \
    "  --scale-by compute|visits  how the window's MPI time is scaled (default compute)\n"         \
    "  --iterations N        the full run's iterations: N x the window's time per iteration\n"     \
    "                        (with --profile the profile sets the length; N only checks its\n"     \
    "                        visits per iteration)\n"

static const cmd_doc_t CMDS[] = {
    {"info", "TRACE [--json] [--window FIRST:LAST]",
     "summarise a trace (or a window of its iterations): ranks, nodes, MPI profile, message "
     "sizes, communication matrix, iterations",
     "  --json                the summary as JSON (default: text)\n"
     "  --window FIRST:LAST   only these iterations (1-based; the iterations are listed)\n"},
    {"convert",
     "TRACE -o OUT [--to store|ti] [--flops-per-second F] [--min-of TRACE2]...\n"
     "       [--class-median] [--window FIRST:LAST]",
     "write a tunesim store (default) or SimGrid time-independent traces (a directory); "
     "--min-of: each compute burst the least of several recordings of the same run; "
     "--class-median: the median of its class",
     "  -o OUT                the output: a store file, or with --to ti a directory\n"
     "  --to store|ti         store (default: tunesim's compressed binary trace) or SimGrid's\n"
     "                        time-independent traces (smpi_replay)\n"
     "  --flops-per-second F  --to ti: compute bursts as flops at this rate (default 1e9)\n"
     "  --min-of TRACE2       another recording of the same run: each compute burst becomes\n"
     "                        the least of the recordings (repeatable; docs/recording-noise.md)\n"
     "  --class-median        each compute burst the median of the rank's bursts between the\n"
     "                        same two calls (after --min-of; docs/recording-noise.md)\n"
     "  --window FIRST:LAST   keep only these iterations, between the start-up and the end\n"
     "                        (after the above: the class medians come from the whole run)\n"},
    {"record", "[-o DIR] [--clock wall|cpu] -- mpirun ARGS...",
     "run an MPI program under the tracer", NULL},
    {"replay",
     "TRACE [--platform NAME|FILE] [--nodes N] [--ppn P] [--nps 1|2]\n"
     "       [--map-by block|cyclic] [-x KEY=VALUE] [--mca KEY VALUE] [--set KEY=VALUE]\n"
     "       [--link-speed RATE] [--memory-bandwidth BW] [--cpu-clock GHZ] [--balance F]\n"
     "       [--mpirun \"LINE\"] [--model FILE] [--json]\n"
     "       [--window FIRST:LAST] [--profile SCORE.txt] [--scale-by compute|visits]\n"
     "       [--iterations N]",
     "predict the run time under a parameter set (a window of iterations; the full run "
     "scaled with a scorep-score profile)",
     HELP_PLATFORM HELP_PLACE HELP_PARAMS HELP_WHATIF
     "  --mpirun \"LINE\"       a whole mpirun / srun command line: its -x, --mca, -n, -N\n"
     "  --json                the prediction as JSON (with the full run when "
     "scaled)\n" HELP_FULLRUN},
    {"sweep",
     "TRACE --sets FILE [--platform P] [--nodes N] [--ppn P] [--nps N]\n"
     "       [--map-by M] [-j N] [--csv F] [--json F] [--plot PREFIX] [--results F]\n"
     "       [--baseline NAME] [--only NAME]... [--window FIRST:LAST] [--profile SCORE.txt]\n"
     "       [--scale-by compute|visits] [--iterations N] [--emit-slurm DIR] | --merge DIR",
     "replay every parameter set of FILE in parallel and rank them (resumable; Slurm job "
     "arrays)",
     "  --sets FILE           the parameter sets (format: commands/sets.h, "
     "sets/*.sets; the what-ifs\n"
     "                        too: --link-speed FDR, model.cpu.balance = 0 | 0.5 | "
     "1)\n" HELP_PLATFORM HELP_PLACE
     "  -j N                  replays at once (default: the cores)\n"
     "  --csv F, --json F     the table as CSV / JSON as well\n"
     "  --plot PREFIX         PREFIX.png and PREFIX.svg pictures (needs gnuplot)\n"
     "  --results F           the resume file (default: beside --json or --csv)\n"
     "  --baseline NAME       the set gains are against (default: the first)\n"
     "  --only NAME           replay only this set (repeatable)\n" HELP_FULLRUN
     "  --emit-slurm DIR      write a Slurm job array that runs the sweep; --merge DIR\n"
     "                        collects its results\n"},
    {"imb",
     "--nodes N --ppn P [--bench LIST] [--msglog [MIN:]MAX] [--reps N] [--budget M]\n"
     "       [--sync on|off] [--platform P] [--nps N] [--map-by M] [-x KEY=VALUE]\n"
     "       [--mca KEY VALUE] [--set KEY=VALUE] [--model FILE] [--sets FILE] [--tie PERCENT]\n"
     "       [-j N] [--csv F] [--plot PREFIX]",
     "predict Intel MPI Benchmarks tables (Alltoall, Allgather, Allreduce, Exchange, "
     "PingPong: t_min / t_max / t_avg per size) for a cluster shape, under one parameter set "
     "or each set of FILE",
     "  --nodes N --ppn P     the shape (required)\n"
     "  --bench LIST          Alltoall, Allgather, Allreduce, Exchange, PingPong (default the\n"
     "                        first four)\n"
     "  --msglog [MIN:]MAX    sizes 2^MIN .. 2^MAX bytes (default 0:22), as IMB's -msglog\n"
     "  --reps N              at most N repetitions a size (default IMB's own counts)\n"
     "  --budget M            at most M messages replayed a size (default 400000): fewer\n"
     "                        repetitions at large sizes, said in the table\n"
     "  --sync on|off         as IMB's -sync: a barrier after each timed call of Alltoall,\n"
     "                        Allgather, Allreduce (default on, as IMB 2018 on)\n" HELP_PLATFORM
     "  --nps 1|2, --map-by block|cyclic   as for replay\n" HELP_PARAMS HELP_WHATIF
     "  --sets FILE           one table per parameter set, with the comparison and winner\n"
     "  --tie PERCENT         sets within PERCENT of the winner's geometric mean are ties\n"
     "                        (default 0.5; the first in FILE's order wins)\n"
     "  -j N                  replays at once (default 1)\n"
     "  --csv F               the tables as CSV; --plot PREFIX pictures (needs gnuplot)\n"},
    {"params",
     "[NAME... | --wide | --markdown | --uncertain]\n"
     "       | --check ARGS... | --protocols ARGS... | --mpirun LINE",
     "list the known parameters (default, range, unit, source), check settings, or show "
     "the protocol per message size they give (like UCX_PROTO_INFO)",
     "  NAME...               each parameter in full: type, default, range, source, meaning\n"
     "  --wide, --markdown    the whole table, one line each / as docs/parameters.md\n"
     "  --uncertain           the parameters tunesim fit moves, with their plausible ranges\n"
     "  --check ARGS...       check settings (-x, --mca, --set words) and show what they set\n"
     "  --protocols ARGS...   the protocol per message size under the settings\n"
     "  --mpirun LINE         the same for a whole mpirun command line\n"},
    {"calibrate", "INPUTS... -o FILE [--platform NAME] [-x KEY=VALUE] [--set KEY=VALUE]",
     "fit model parameters to OSU / IMB / tunesim-probe outputs and write a model file for "
     "--model FILE",
     "  INPUTS...             OSU, IMB or tunesim-probe output files\n"
     "  -o FILE               the model file to write (required)\n"
     "  --platform NAME       the platform the benchmarks ran on: replay then refuses the\n"
     "                        model on others (default: none, it applies to any platform)\n"
     "  -x KEY=VALUE, --set KEY=VALUE   the settings the benchmarks ran with\n"
     "  (the model file written is what replay, sweep, imb and fit take with --model FILE)\n"},
    {"fit",
     "TRACE --sets FILE (--measured-csv FILE | --logs DIR | --manifest FILE)\n"
     "       [--profile SCORE.txt] [--run-profile SET=SCORE.txt]... [--params NAME,...]\n"
     "       [--free NAME,...]\n"
     "       [--model FILE] [-x KEY=VALUE] [--mca KEY VALUE] [--set KEY=VALUE]\n"
     "       [--platform P] [--nodes N] [--ppn P] [--time-sd PCT] [--func-sd PCT] [-j N]\n"
     "       [-o MODEL.xml]",
     "learn the uncertain model parameters (tunesim params --uncertain) from measured runs "
     "of the traced application by penalised least squares, and write a model file",
     "  --sets FILE           the settings of each measured run (the first is the baseline)\n"
     "  --measured-csv FILE   setting,seconds lines (repeats allowed); or --logs DIR of one\n"
     "                        directory of OpenFOAM logs per setting, or --manifest FILE\n"
     "  --profile SCORE.txt   the first set's profile: every set scaled to the full run\n"
     "  --run-profile SET=SCORE.txt   a run's own profile: its per-function changes constrain\n"
     "  --params NAME,...     what to fit (default: every parameter of params --uncertain)\n"
     "  --free NAME,...       fit these too, with their prior's pull a hundredth: where the runs\n"
     "                        want them, reported against their plausible range\n"
     "  --time-sd PCT         the least standard deviation of a measured time (default 0.5)\n"
     "  --func-sd PCT         of a per-function change, in points (default 5)\n" HELP_PLATFORM
         HELP_PLACE HELP_PARAMS "  -j N                  replays at once (default: the cores)\n"
     "  -o MODEL.xml          the model file, written only when every run is explained\n"},
    {"validate",
     "(--logs DIR | --manifest FILE | --measured-csv FILE)...\n"
     "       (--predicted SWEEP.json | -- SWEEP_ARGS...) [--anchor NAME]\n"
     "       [--max-clock-ratio R] [--json FILE] [--csv FILE]",
     "compare predicted with measured run times",
     "  --logs DIR            one directory of OpenFOAM logs per setting\n"
     "  --manifest FILE       SETTING LOG... lines\n"
     "  --measured-csv FILE   setting,seconds lines\n"
     "  --predicted F.json    a tunesim sweep --json file; or -- SWEEP_ARGS... to run the sweep\n"
     "  --anchor NAME         scale every prediction by that setting's measured / predicted\n"
     "  --max-clock-ratio R   leave out runs whose ClockTime exceeds R x ExecutionTime + 1 s\n"
     "  --json F, --csv F     the comparison as JSON / CSV as well\n"},
};
enum { NCMDS = sizeof CMDS / sizeof CMDS[0] };

static const cmd_doc_t *cmd_doc(const char *name)
{
    for (int i = 0; i < NCMDS; i++)
        if (strcmp(CMDS[i].name, name) == 0)
            return &CMDS[i];
    return NULL;
}

static void print_synopsis(FILE *fp, const cmd_doc_t *c)
{
    fprintf(fp, "usage: tunesim %s %s\n", c->name, c->synopsis);
}

/* COMMAND --help: the synopsis, what it does (wrapped within 100 columns) and every option. */
static void print_help(const cmd_doc_t *c)
{
    print_synopsis(stdout, c);
    putchar('\n');
    const char *w = c->what;
    while (*w) {
        size_t len = strlen(w), cut = len;
        if (len > 98) {
            cut = 98;
            while (cut > 0 && w[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = 98;
        }
        printf("%.*s\n", (int)cut, w);
        w += cut;
        while (*w == ' ')
            w++;
    }
    if (c->options)
        printf("\noptions:\n%s", c->options);
}

static void print_usage(FILE *fp)
{
    fputs("usage: tunesim COMMAND [ARGS]   (tunesim COMMAND --help, tunesim help COMMAND)\n"
          "       tunesim --version | -V | version\n\ncommands:\n",
          fp);
    for (int i = 0; i < NCMDS; i++)
        fprintf(fp, "  %-10s %s\n", CMDS[i].name, CMDS[i].what);
    fputs("\nTRACE is an OTF2 anchor file (traces.otf2), the directory holding it, or a store.\n",
          fp);
}

/* The command whose usage mistakes are being reported (set in main), or NULL. */
static const cmd_doc_t *current;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage mistake: one line saying what is wrong and the command's usage (its synopsis's
 * first line; the rest with --help), or outside a command where to find it; exit status 2. */
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tunesim: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (current) {
        size_t first = strcspn(current->synopsis, "\n");
        fprintf(stderr, " (usage: tunesim %s %.*s%s; 'tunesim %s --help' for all)\n", current->name,
                (int)first, current->synopsis, current->synopsis[first] ? " ..." : "",
                current->name);
    } else {
        fprintf(stderr, " (run 'tunesim --help' for usage)\n");
    }
    return EXIT_USAGE;
}

static int fail(const ts_error_t *err)
{
    /* Again: a message may have had text appended to it since ts_error_set. */
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg[0] ? err->msg : ts_status_message(err->code));
    fprintf(stderr, "tunesim: %s\n", ts_one_line(msg));
    return EXIT_ERROR;
}

/* info's and convert's options and operands. */
typedef struct main_args_s {
    const char *cmd, *path, *out, *to, *fps, *window;
    const char *min_of[TS_DENOISE_MAX]; /* convert --min-of, in order */
    int nmin_of;
    int json;
    int classes; /* convert --class-median */
} main_args_t;

static ts_status operand(main_args_t *a, const char *v, ts_error_t *err)
{
    if (a->path)
        return ts_error_set(err, TS_EUSAGE, "%s: unexpected argument '%s'", a->cmd, v);
    a->path = v;
    return TS_OK;
}

static const ts_opt_t INFO_OPTS[] = {{"json", 0, 0}, {"window", 0, 1}};

static ts_status info_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    main_args_t *a = ctx;
    if (opt < 0)
        return operand(a, v, err);
    if (opt == 1)
        a->window = v;
    else
        a->json = 1;
    return TS_OK;
}

enum { CO_OUTPUT, CO_TO, CO_FPS, CO_MIN_OF, CO_CLASSES, CO_WINDOW, CO__COUNT };
static const ts_opt_t CONVERT_OPTS[] = {
    [CO_OUTPUT] = {"output", 'o', 1},      [CO_TO] = {"to", 0, 1},
    [CO_FPS] = {"flops-per-second", 0, 1}, [CO_MIN_OF] = {"min-of", 0, 1},
    [CO_CLASSES] = {"class-median", 0, 0}, [CO_WINDOW] = {"window", 0, 1}};

static ts_status convert_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    main_args_t *a = ctx;
    if (opt < 0)
        return operand(a, v, err);
    if (opt == CO_MIN_OF) {
        if (a->nmin_of == TS_DENOISE_MAX)
            return ts_error_set(err, TS_EUSAGE, "convert: at most %d --min-of recordings",
                                TS_DENOISE_MAX);
        a->min_of[a->nmin_of++] = v;
        return TS_OK;
    }
    if (opt == CO_CLASSES) {
        a->classes = 1;
        return TS_OK;
    }
    if (opt == CO_WINDOW) {
        a->window = v;
        return TS_OK;
    }
    *(opt == CO_OUTPUT ? &a->out : opt == CO_TO ? &a->to : &a->fps) = v;
    return TS_OK;
}

/* How far after is from before, in per cent of before, as a magnitude ("less" or "more"
 * says which way): the median of a class can exceed the gaps' sum as well as fall below it. */
static double pct_change(double before, double after)
{
    return before > 0 ? 100.0 * fabs(1 - after / before) : 0.0;
}
/* convert --min-of: t replaced by its compute bursts' least over the other recordings, with
 * a line on how well each matched. */
static ts_status min_of(const main_args_t *a, ts_trace_t **t, ts_error_t *err)
{
    ts_trace_t *others[TS_DENOISE_MAX] = {0}, *w = NULL;
    ts_status st = TS_OK;
    for (int j = 0; j < a->nmin_of && st == TS_OK; j++)
        st = ts_trace_open(a->min_of[j], &others[j], err);
    ts_denoise_stats_t ds;
    if (st == TS_OK)
        st = ts_denoise(*t, (const ts_trace_t *const *)others, a->nmin_of, &w, &ds, err);
    for (int j = 0; st == TS_OK && j < a->nmin_of; j++) {
        char shown[4200];
        printf("min-of %s: matched %llu of %llu calls", ts_shown(a->min_of[j], shown, sizeof shown),
               (unsigned long long)ds.matched[j], (unsigned long long)ds.calls);
        if (ds.diverged_rank[j] >= 0)
            printf(" (rank %d ends or differs at its call %llu)", (int)ds.diverged_rank[j],
                   (unsigned long long)ds.diverged_call[j]);
        printf(", the least in %llu gaps\n", (unsigned long long)ds.lowered[j]);
    }
    if (st == TS_OK) {
        printf("min-of: compute %.6f s -> %.6f s summed over ranks (%.1f %% %s)\n",
               ds.compute_before, ds.compute_after, pct_change(ds.compute_before, ds.compute_after),
               ds.compute_after > ds.compute_before ? "more" : "less");
        ts_trace_close(*t);
        *t = w;
    }
    for (int j = 0; j < a->nmin_of; j++)
        ts_trace_close(others[j]);
    return st;
}

/* The fewest gaps of a class whose median replaces them: a median of five still ignores two
 * noisy ones; rarer calls (start-up, the end) stay as recorded. */
#define CLASS_MIN_MEMBERS 5

/* convert --class-median: each burst the median of its class (traces/denoise.h). */
static ts_status class_median(ts_trace_t **t, ts_error_t *err)
{
    ts_trace_t *w = NULL;
    ts_classes_stats_t cs;
    ts_status st = ts_denoise_classes(*t, CLASS_MIN_MEMBERS, &w, &cs, err);
    if (st != TS_OK)
        return st;
    printf("class-median: %llu of %llu gaps in %llu classes of %d or more; compute %.6f s -> "
           "%.6f s summed over ranks (%.1f %% %s)\n",
           (unsigned long long)cs.gaps_classed, (unsigned long long)cs.gaps,
           (unsigned long long)cs.classes, CLASS_MIN_MEMBERS, cs.compute_before, cs.compute_after,
           pct_change(cs.compute_before, cs.compute_after),
           cs.compute_after > cs.compute_before ? "more" : "less");
    ts_trace_close(*t);
    *t = w;
    return TS_OK;
}

/* convert --window: t with only iterations FIRST:LAST between its start-up and its end. */
static ts_status convert_window(const char *spec, ts_trace_t **t, ts_error_t *err)
{
    int32_t a, b;
    ts_status st = ts_iters_window_arg("convert", spec, INT32_MAX, &a, &b, err);
    if (st != TS_OK)
        return st;
    ts_iters_t *it = NULL;
    if ((st = ts_iters_find(*t, &it, err)) != TS_OK)
        return st;
    if ((st = ts_iters_window_arg("convert", spec, ts_iters_count(it), &a, &b, err)) != TS_OK) {
        ts_iters_free(it);
        return st;
    }
    ts_trace_t *cut = NULL;
    st = ts_window_splice(*t, it, a, b, &cut, err);
    ts_iters_free(it);
    if (st != TS_OK)
        return st;
    printf("window: iterations %d:%d\n", (int)a, (int)b);
    ts_trace_close(*t);
    *t = cut;
    return TS_OK;
}

static int cmd_info(int argc, char **argv)
{
    main_args_t a = {.cmd = "info"};
    ts_error_t perr;
    ts_error_clear(&perr);
    if (ts_opts_parse("info", argc, argv, NULL, INFO_OPTS, 2, info_opt, &a, &perr) != TS_OK)
        return usage_error("%s", perr.msg);
    const char *path = a.path;
    int json = a.json;
    if (!path)
        return usage_error("info: missing TRACE");
    ts_error_t err;
    ts_error_clear(&err);
    const ts_file_use_t uses[] = {{"TRACE", path, 0, "a trace", 1}};
    ts_status st = ts_check_files("info", uses, 1, &err);
    if (st != TS_OK)
        return st == TS_EUSAGE ? usage_error("%s", err.msg) : fail(&err);
    if (!a.window) { /* the trace as it is: no store copy of an OTF2 input */
        ts_trace_t *t;
        if ((st = ts_trace_open(path, &t, &err)) == TS_OK)
            st = ts_info_print(t, stdout, json, &err);
        ts_trace_close(t);
    } else { /* cut as replay and sweep cut it (same checks, same messages) */
        ts_job_trace_t *jt;
        if ((st = ts_job_trace_open(path, &jt, &err)) == TS_OK &&
            (st = ts_job_trace_window(jt, "info", a.window, &err)) == TS_OK)
            st = ts_info_print(ts_job_trace(jt), stdout, json, &err);
        ts_job_trace_close(jt);
    }
    if (st == TS_EUSAGE)
        return usage_error("%s", err.msg);
    if (st != TS_OK)
        return fail(&err);
    return 0; /* main checks that the report reached standard output */
}

static int cmd_convert(int argc, char **argv)
{
    main_args_t a = {.cmd = "convert", .to = "store"};
    ts_error_t perr;
    ts_error_clear(&perr);
    if (ts_opts_parse("convert", argc, argv, NULL, CONVERT_OPTS, CO__COUNT, convert_opt, &a,
                      &perr) != TS_OK)
        return usage_error("%s", perr.msg);
    const char *path = a.path, *out = a.out, *to = a.to;
    double fps = 1e9;
    if (a.fps) {
        char *end;
        fps = ts_strtod_dec(a.fps, &end);
        /* A core's rate: beyond 1e15 a long burst's flops leave the numbers TI files hold. */
        if (*end || end == a.fps || !(fps >= 1 && fps <= 1e15))
            return usage_error("convert: --flops-per-second expects a rate from 1 to 1e15, "
                               "got '%s'",
                               a.fps);
    }
    if (!path || !out)
        return usage_error("convert: expected TRACE and -o OUT");
    if (strcmp(to, "store") != 0 && strcmp(to, "ti") != 0)
        return usage_error("convert: --to expects 'store' or 'ti', got '%s'", to);
    ts_error_t err;
    ts_error_clear(&err);
    ts_file_use_t uses[2 + TS_DENOISE_MAX] = {{"TRACE", path, 0, "a trace", 1},
                                              {"-o", out, 1, NULL, strcmp(to, "ti") == 0}};
    for (int j = 0; j < a.nmin_of; j++)
        uses[2 + j] = (ts_file_use_t){"--min-of", a.min_of[j], 0, "a trace", 1};
    ts_status cs = ts_check_files("convert", uses, 2 + a.nmin_of, &err);
    if (cs != TS_OK)
        return cs == TS_EUSAGE ? usage_error("%s", err.msg) : fail(&err);
    /* The least of one recording and itself is that recording: said, not reported as a
     * least of two. */
    for (int j = 0; j < a.nmin_of; j++)
        for (int k = -1; k < j; k++)
            if (ts_same_file(a.min_of[j], k < 0 ? path : a.min_of[k]))
                return usage_error("convert: --min-of %s is the same recording as %s: give "
                                   "other recordings of the run",
                                   a.min_of[j], k < 0 ? "TRACE" : a.min_of[k]);
    /* A store replaces only an earlier store: -o pointed at the trace's own anchor, or any
     * other file, would be lost. (A TI directory is checked the same way by ts_ti_write.) */
    struct stat sb;
    if (strcmp(to, "store") == 0 && lstat(out, &sb) == 0 &&
        !(S_ISREG(sb.st_mode) && (sb.st_size == 0 || ts_store_is_store(out) == 1))) {
        ts_error_set(&err, TS_EARG,
                     "%s: exists and is not a tunesim store: refusing to "
                     "replace it; choose a new output file",
                     out);
        return fail(&err);
    }
    /* a TI directory as a store is checked above: before the work, not after it */
    if (strcmp(to, "ti") == 0 && ts_ti_check(out, &err) != TS_OK)
        return fail(&err);
    ts_trace_t *t;
    if (ts_trace_open(path, &t, &err) != TS_OK)
        return fail(&err);
    ts_status st = a.nmin_of ? min_of(&a, &t, &err) : TS_OK;
    if (st == TS_OK && a.classes)
        st = class_median(&t, &err);
    if (st == TS_OK && a.window)
        st = convert_window(a.window, &t, &err);
    if (st != TS_OK) {
        ts_trace_close(t);
        return st == TS_EUSAGE ? usage_error("%s", err.msg) : fail(&err);
    }
    char shown[4200];
    if (strcmp(to, "ti") == 0) {
        ts_ti_report_t rep;
        st = ts_ti_write(t, out, fps, &rep, &err);
        if (st == TS_OK) {
            char dir[4200]; /* "out/" as a shell completes it: out */
            snprintf(dir, sizeof dir, "%s", out);
            for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/';)
                dir[--n] = '\0';
            printf("wrote %s/ti.txt and %d rank files: %llu actions\n",
                   ts_shown(dir, shown, sizeof shown), (int)ts_trace_nranks(t),
                   (unsigned long long)rep.lines);
            if (rep.skipped_subcomm)
                printf("note: %llu collectives on sub-communicators left out (TI replay "
                       "knows only MPI_COMM_WORLD)\n",
                       (unsigned long long)rep.skipped_subcomm);
            if (rep.skipped_other)
                printf("note: %llu records without a TI equivalent left out (cancelled or "
                       "never-completed requests)\n",
                       (unsigned long long)rep.skipped_other);
        }
    } else {
        st = ts_store_write(t, out, &err);
        if (st == TS_OK)
            printf("wrote %s: %llu events of %d ranks\n", ts_shown(out, shown, sizeof shown),
                   (unsigned long long)ts_trace_nevents(t), (int)ts_trace_nranks(t));
    }
    ts_trace_close(t);
    return st == TS_OK ? 0 : fail(&err);
}

static int run(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("missing COMMAND");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
        (strcmp(cmd, "help") == 0 && argc == 2)) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) { /* tunesim help COMMAND */
        const cmd_doc_t *c = cmd_doc(argv[2]);
        if (!c || argc > 3)
            return usage_error("help: expected one of the commands, got '%s'", argv[2]);
        if (strcmp(c->name, "record") == 0) { /* record explains its options itself */
            char *args[] = {"record", "--help", NULL};
            ts_error_t e;
            return ts_record_main(2, args, &e) == TS_OK ? 0 : EXIT_ERROR;
        }
        print_help(c);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        if (argc > 2)
            return usage_error("%s takes no arguments, got '%s'", cmd, argv[2]);
        printf("tunesim %s\n", TUNESIM_VERSION);
        return 0;
    }
    current = cmd_doc(cmd);
    if (!current && cmd[0] == '-')
        return usage_error("unknown option '%s' (a COMMAND comes first)", cmd);
    if (!current)
        return usage_error("unknown command '%s'", cmd);
    /* COMMAND --help (or -h) anywhere before a "--" (record's and validate's separator);
     * record explains its options itself. */
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0 && strcmp(cmd, "record") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_help(current);
            return 0;
        }
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "convert") == 0)
        return cmd_convert(argc - 1, argv + 1);
    ts_error_t err;
    ts_error_clear(&err);
    int rc;
    if (strcmp(cmd, "record") == 0) {
        /* record prints its own usage message. */
        rc = ts_record_main(argc - 1, argv + 1, &err);
        return rc == TS_OK ? 0 : (rc == TS_EUSAGE ? EXIT_USAGE : fail(&err));
    }
    if (strcmp(cmd, "replay") == 0)
        rc = ts_replay_cmd(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "sweep") == 0)
        rc = ts_sweep_cmd(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "imb") == 0)
        rc = ts_imb_cmd(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "params") == 0)
        rc = ts_params_cmd(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "calibrate") == 0)
        rc = ts_calibrate_cmd(stdout, argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "validate") == 0)
        rc = ts_validate_cmd(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "fit") == 0)
        rc = ts_fit_cmd(argc - 1, argv + 1, &err);
    else
        return usage_error("unknown command '%s'", cmd);
    if (rc == TS_EUSAGE)
        return usage_error("%s", err.msg);
    return rc == TS_OK ? 0 : fail(&err);
}

/* The open files a run needs at least: SimGrid's platform loading, a worker's pipes, the
 * outputs being written (measured: a replay aborts below 7, a sweep's workers below 10). */
enum { MIN_FILES = 64 };

int main(int argc, char **argv)
{
    /* A standard stream the caller closed (>&-) keeps its number from the files tunesim opens:
     * an output opened as descriptor 1 would receive the report. Standard output and error
     * then fail every write, as closed they would have. */
    int closed[3] = {0, 0, 0};
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
            closed[fd] = open(fd ? "/dev/full" : "/dev/null", fd ? O_WRONLY : O_RDONLY) == fd;
    for (int fd = 1; fd < 3; fd++)
        if (closed[fd])
            ts_std_mark_closed(fd);
    /* SimGrid opens files while it loads a platform and aborts with a backtrace when it cannot;
     * the workers take two pipes each. A low soft limit (ulimit -n) is raised toward the hard
     * one; below what a run needs, one line says so. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < MIN_FILES) {
        rl.rlim_cur = rl.rlim_max < MIN_FILES ? rl.rlim_max : MIN_FILES;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < MIN_FILES) {
            fprintf(stderr,
                    "tunesim: %llu open files allowed (ulimit -n, its hard limit too): tunesim "
                    "needs %d\n",
                    (unsigned long long)rl.rlim_max, MIN_FILES);
            return EXIT_ERROR;
        }
    }
    /* Temporary files (outputs being written, the replay's platform) go on INT, TERM and the
     * like. */
    ts_tmp_install_handlers();
    /* JSON numbers to ten significant digits: json-c's default (%.17g) prints 6.9966008380000009
     * where the models know four or five; ten keep nanoseconds of a run of hours. */
    json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_GLOBAL);
    int rc = run(argc, argv);
    /* Every write checked, standard output's too: a report that did not reach it (a full disk,
     * /dev/full) is an error, said once, not an exit 0 over an empty file. */
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout), e = errno;
    /* The close too: a file system may report a failed write only then (NFS, quotas). A
     * standard output closed by the shell (>&-) is no error when nothing was written. */
    if (fclose(stdout) != 0 && !bad && errno != EBADF && !closed[1]) {
        bad = 1;
        e = errno;
    }
    if (bad && rc == 0) {
        fprintf(stderr, "tunesim: standard output: %s\n",
                closed[1] ? "closed (>&-)"
                : e       ? strerror(e)
                          : "write error");
        rc = EXIT_ERROR;
    }
    return rc;
}
