/* main.c - the tunesim command line: dispatches subcommands, prints errors as one line on
 * stderr and turns status codes into exit codes. The only place that exits. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/status.h"
#include "../common/tmpfiles.h"
#include "../traces/store.h"
#include "../traces/ti.h"
#include "../traces/trace.h"
#include "calibrate_cmd.h"
#include "info.h"
#include "params_cmd.h"
#include "record.h"
#include "replay_cmd.h"
#include "sweep_cmd.h"
#include "validate_cmd.h"

#define TUNESIM_VERSION "0.1.0"

enum { EXIT_ERROR = 1, EXIT_USAGE = 2 };

static const char USAGE[] =
    "usage: tunesim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  info TRACE [--json]               summarise a trace: ranks, nodes, MPI profile,\n"
    "                                    message sizes, communication matrix\n"
    "  convert TRACE -o OUT [--to store|ti] [--flops-per-second F]\n"
    "                                    write a tunesim store (default) or SimGrid\n"
    "                                    time-independent traces (a directory)\n"
    "  record [-o DIR] [--clock wall|cpu] -- mpirun ARGS...\n"
    "                                    run an MPI program under the tracer\n"
    "  replay TRACE [--platform NAME|FILE] [--nodes N] [--ppn P] [--nps 1|2]\n"
    "         [--map-by block|cyclic] [-x KEY=VALUE] [--mca KEY VALUE] [--set KEY=VALUE]\n"
    "         [--mpirun \"LINE\"] [--model FILE] [--json]\n"
    "                                    predict the run time under a parameter set\n"
    "  sweep TRACE --sets FILE [--platform P] [--nodes N] [--ppn P] [--nps N]\n"
    "        [--map-by M] [-j N] [--csv F] [--json F] [--plot PREFIX] [--results F]\n"
    "        [--baseline NAME] [--only NAME]... [--emit-slurm DIR] | --merge DIR\n"
    "                                    replay every parameter set of FILE in parallel\n"
    "                                    and rank them (resumable; Slurm job arrays)\n"
    "  params [--markdown] | --check ARGS...\n"
    "                                    list the known parameters, or check settings\n"
    "  calibrate INPUTS... -o FILE [--platform NAME] [-x KEY=VALUE] [--set KEY=VALUE]\n"
    "                                    fit model parameters to OSU / IMB / tunesim-probe\n"
    "                                    outputs and write a model file for --model FILE\n"
    "  validate (--logs DIR | --manifest FILE | --measured-csv FILE)...\n"
    "         (--predicted SWEEP.json | -- SWEEP_ARGS...) [--anchor NAME]\n"
    "         [--max-clock-ratio R] [--json FILE] [--csv FILE]\n"
    "                                    compare predicted with measured run times\n"
    "\n"
    "TRACE is an OTF2 anchor file (traces.otf2), the directory holding it, or a store.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tunesim: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (run 'tunesim --help' for usage)\n");
    va_end(ap);
    return EXIT_USAGE;
}

static int fail(const ts_error_t *err)
{
    fprintf(stderr, "tunesim: %s\n", err->msg[0] ? err->msg : ts_status_message(err->code));
    return EXIT_ERROR;
}

static int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (argv[i][0] == '-')
            return usage_error("info: unknown option '%s'", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return usage_error("info: unexpected argument '%s'", argv[i]);
    }
    if (!path)
        return usage_error("info: missing TRACE");
    ts_error_t err;
    ts_error_clear(&err);
    ts_trace_t *t;
    if (ts_trace_open(path, &t, &err) != TS_OK)
        return fail(&err);
    ts_status st = ts_info_print(t, stdout, json, &err);
    ts_trace_close(t);
    if (st != TS_OK)
        return fail(&err);
    return fflush(stdout) == 0 ? 0 : EXIT_ERROR;
}

static int cmd_convert(int argc, char **argv)
{
    const char *path = NULL, *out = NULL, *to = "store";
    double fps = 1e9;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc)
            to = argv[++i];
        else if (strcmp(argv[i], "--flops-per-second") == 0 && i + 1 < argc) {
            char *end;
            fps = strtod(argv[++i], &end);
            if (*end || !(fps > 0))
                return usage_error("convert: --flops-per-second expects a positive number, "
                                   "got '%s'",
                                   argv[i]);
        } else if (argv[i][0] == '-')
            return usage_error("convert: unknown option or missing value '%s'", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return usage_error("convert: unexpected argument '%s'", argv[i]);
    }
    if (!path || !out)
        return usage_error("convert: expected TRACE and -o OUT");
    if (strcmp(to, "store") != 0 && strcmp(to, "ti") != 0)
        return usage_error("convert: --to expects 'store' or 'ti', got '%s'", to);
    ts_error_t err;
    ts_error_clear(&err);
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
    ts_trace_t *t;
    if (ts_trace_open(path, &t, &err) != TS_OK)
        return fail(&err);
    ts_status st;
    if (strcmp(to, "ti") == 0) {
        ts_ti_report_t rep;
        st = ts_ti_write(t, out, fps, &rep, &err);
        if (st == TS_OK) {
            printf("wrote %s/ti.txt and %d rank files: %llu actions\n", out,
                   (int)ts_trace_nranks(t), (unsigned long long)rep.lines);
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
            printf("wrote %s: %llu events of %d ranks\n", out,
                   (unsigned long long)ts_trace_nevents(t), (int)ts_trace_nranks(t));
    }
    ts_trace_close(t);
    return st == TS_OK ? 0 : fail(&err);
}

int main(int argc, char **argv)
{
    /* Temporary files (outputs being written, the replay's platform) go on INT/TERM. */
    ts_tmp_install_handlers();
    if (argc < 2)
        return usage_error("missing COMMAND");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tunesim %s\n", TUNESIM_VERSION);
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
    else if (strcmp(cmd, "params") == 0)
        rc = ts_params_cmd(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "calibrate") == 0)
        rc = ts_calibrate_cmd(stdout, argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "validate") == 0)
        rc = ts_validate_cmd(argc - 1, argv + 1, &err);
    else
        return usage_error("unknown command '%s'", cmd);
    if (rc == TS_EUSAGE)
        return usage_error("%s", err.msg);
    return rc == TS_OK ? 0 : fail(&err);
}
