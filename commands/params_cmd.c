/* params_cmd.c - `tunesim params`: prints the parameter table, or checks settings (-x, --mca,
 * --set, or a pasted mpirun line) and prints the changes they make. */
#include "params_cmd.h"

#include <string.h>

#include "../common/outfile.h"
#include "../params/params.h"
#include "../params/params_args.h"
#include "../models/protocol.h"
#include "../platforms/placement.h"

/* The protocol each message size gets per locality class under these settings, the way
 * UCX_PROTO_INFO prints UCX's own choice: what a user checks a threshold change against. */
static int protocols(FILE *out, int argc, char **argv, ts_error_t *err)
{
    ts_params_t *p;
    if (ts_params_new(&p) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "params: cannot build the default parameter set");
    ts_status st = ts_params_parse_args(p, argc, argv, NULL, err);
    ts_proto_model_t *m = NULL;
    if (st == TS_OK)
        st = ts_proto_model_new(p, 0, &m, err);
    if (st == TS_OK)
        ts_proto_model_print(m, out);
    ts_proto_model_free(m);
    ts_params_free(p);
    return st;
}

static int check(FILE *out, int argc, char **argv, const char *line, ts_error_t *err)
{
    ts_params_t *p;
    if (ts_params_new(&p) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "params: cannot build the default parameter set");
    ts_mpirun_info_t info;
    ts_status st = line ? ts_params_parse_mpirun(p, line, &info, err)
                        : ts_params_parse_args(p, argc, argv, NULL, err);
    if (st == TS_OK && line && info.map_by[0]) { /* a --map-by the placement cannot read */
        ts_placement_opts_t o = {0};
        st = ts_map_by_layout(info.map_by, &o, err);
    }
    if (st == TS_OK) {
        if (line) { /* what the line leaves unsaid is shown as "-", not as 0 */
            char r[16] = "-", n[16] = "-";
            if (info.ranks > 0)
                snprintf(r, sizeof r, "%d", info.ranks);
            if (info.ppn > 0)
                snprintf(n, sizeof n, "%d", info.ppn);
            fprintf(out, "# ranks %s, per node %s, map-by %s", r, n,
                    info.map_by[0] ? info.map_by : "-");
            if (info.nodes > 0)
                fprintf(out, ", nodes %d", info.nodes);
            fputc('\n', out);
            if (info.note[0])
                fprintf(out, "# note: %s\n", info.note);
        }
        if (ts_params_print_changes(p, out) == 0)
            fputs("# no changes: every parameter keeps its default\n", out);
    }
    ts_params_free(p);
    return st;
}

int ts_params_cmd_to(FILE *out, int argc, char **argv, ts_error_t *err)
{
    ts_status st;
    if (argc <= 1 || strcmp(argv[1], "--markdown") == 0 || strcmp(argv[1], "--wide") == 0) {
        if (argc > 2)
            return ts_error_set(err, TS_EUSAGE, "params: unexpected argument '%s'", argv[2]);
        ts_params_print_table(out, argc == 1                            ? TS_PTABLE_COMPACT
                                   : strcmp(argv[1], "--markdown") == 0 ? TS_PTABLE_MARKDOWN
                                                                        : TS_PTABLE_WIDE);
        st = TS_OK;
    } else if (argv[1][0] != '-') { /* tunesim params NAME...: each in full */
        ts_param_id id;
        for (int i = 1; i < argc; i++)
            if ((st = ts_param_lookup(argv[i], &id, err)) != TS_OK)
                return st;
        for (int i = 1; i < argc; i++)
            if (ts_param_lookup(argv[i], &id, err) == TS_OK)
                ts_params_print_one(out, id);
        st = TS_OK;
    } else if (strcmp(argv[1], "--uncertain") == 0) {
        if (argc > 2)
            return ts_error_set(err, TS_EUSAGE, "params: unexpected argument '%s'", argv[2]);
        /* What tunesim fit moves by default: each uncertain parameter with its prior range. */
        for (int id = 0; id < TS_P__COUNT; id++) {
            const char *why;
            char pr[96];
            if (!ts_param_prior((ts_param_id)id, NULL, NULL, &why))
                continue;
            fprintf(out, "%-30s %-10s %s\n    %s\n", ts_param_def((ts_param_id)id)->name,
                    ts_param_def((ts_param_id)id)->default_text,
                    ts_param_prior_text((ts_param_id)id, pr, sizeof pr), why);
        }
        st = TS_OK;
    } else if (strcmp(argv[1], "--check") == 0) {
        st = check(out, argc - 2, argv + 2, NULL, err);
    } else if (strcmp(argv[1], "--protocols") == 0) {
        st = protocols(out, argc - 2, argv + 2, err);
    } else if (strcmp(argv[1], "--mpirun") == 0) {
        if (argc != 3)
            return ts_error_set(err, TS_EUSAGE,
                                "params: --mpirun expects the command line as one argument");
        st = check(out, 0, NULL, argv[2], err);
    } else {
        return ts_error_set(err, TS_EUSAGE,
                            "params: unexpected argument '%s' (expected NAME..., --wide, "
                            "--markdown, --uncertain, --check ARGS..., --protocols ARGS... or "
                            "--mpirun LINE)",
                            argv[1]);
    }
    return st == TS_OK ? ts_report_check(out, NULL, err) : st;
}

int ts_params_cmd(int argc, char **argv, ts_error_t *err)
{
    return ts_params_cmd_to(stdout, argc, argv, err);
}
