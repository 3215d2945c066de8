/* replay_cmd.c - `tunesim replay TRACE --platform NAME|FILE [--nodes N] [--ppn P] [--nps 1|2]
 * [--map-by block|cyclic] [-x K=V] [--mca K V] [--set K=V] [--mpirun "LINE"] [--json]`:
 * wires trace, parameters (models/params), protocol model, platform, placement and the
 * generated SimGrid platform file into one replay and prints the prediction. */
#include "replay_cmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../models/params.h"
#include "../models/protocol.h"
#include "../platforms/placement.h"
#include "../platforms/platform.h"
#include "../platforms/xml.h"
#include "../traces/store.h"
#include "../traces/trace.h"
#include "engine.h"

#define REPLAY_USAGE                                                                         \
    "tunesim replay TRACE [--platform NAME|FILE] [--nodes N] [--ppn P] [--nps 1|2] "          \
    "[--map-by block|cyclic] [-x KEY=VALUE] [--mca KEY VALUE] [--set KEY=VALUE] "             \
    "[--mpirun \"LINE\"] [--json]"

typedef struct replay_opts_s {
    const char *trace, *platform, *mpirun;
    ts_placement_opts_t place;
    int json;
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
        /* Explicit options win over what the pasted command line says. */
        if (st == TS_OK && !o->place.ppn && info.ppn > 0)
            o->place.ppn = info.ppn;
        if (st == TS_OK && info.map_by[0] && strncmp(info.map_by, "ppr:", 4) != 0)
            st = ts_map_by_parse(info.map_by, &o->place.map_by, err);
    }
    return st;
}

static ts_status open_platform(const char *name, ts_platform_t **out, ts_error_t *err)
{
    if (strchr(name, '/') || strstr(name, ".platform"))
        return ts_platform_open_file(name, out, err);
    return ts_platform_open_name(name, NULL, out, err);
}

static ts_locality layout_locality(const void *ctx, int32_t a, int32_t b)
{
    return ts_placement_locality(ctx, a, b);
}

/* ---- output ------------------------------------------------------------------------- */

typedef struct row_s {
    const char *name;
    uint64_t visits;
    double time;
} row_t;

static int cmp_row(const void *a, const void *b)
{
    const row_t *x = a, *y = b;
    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    return strcmp(x->name, y->name);
}

static row_t *rows_of(const ts_trace_t *t, const ts_replay_result_t *r, int *n)
{
    row_t *rows = calloc((size_t)r->nfuncs + 1, sizeof *rows);
    int k = 0;
    for (int32_t f = 0; rows && f < r->nfuncs; f++)
        if (r->visits[f])
            rows[k++] = (row_t){ts_trace_func_name(t, f), r->visits[f], r->time[f]};
    if (rows)
        qsort(rows, (size_t)k, sizeof *rows, cmp_row);
    *n = k;
    return rows;
}

static void print_text(FILE *fp, const replay_opts_t *o, const ts_trace_t *t,
                       const ts_platform_t *pf, const ts_placement_t *pl,
                       const ts_params_t *params, const ts_replay_result_t *r)
{
    fprintf(fp, "trace       %s (%d ranks)\n", o->trace, (int)ts_trace_nranks(t));
    fprintf(fp, "platform    %s: %d nodes x %d ranks, %s, NPS%d, %d leaf switch%s\n",
            ts_platform_name(pf), ts_placement_nodes(pl), ts_placement_ppn(pl),
            ts_map_by_name(ts_placement_map_by(pl)), ts_placement_nps(pl),
            ts_placement_leaves(pl), ts_placement_leaves(pl) == 1 ? "" : "es");
    fprintf(fp, "settings   ");
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (ms) {
        ts_params_print_changes(params, ms);
        fclose(ms);
    }
    if (buf && len) {
        for (char *p = buf; *p; p++)
            if (*p == '\n' && p[1])
                *p = ' ';
        fprintf(fp, " %s", buf);
    } else {
        fprintf(fp, " defaults\n");
    }
    free(buf);
    fprintf(fp, "predicted   %.6f s (makespan); rank 0 finishes at %.6f s\n", r->makespan,
            r->rank0_elapsed);
    if (r->collectives)
        fprintf(fp,
                "note        %" PRIu64 " collective calls (all ranks) replayed with a "
                "placeholder algorithm: a dissemination exchange of the per-rank payload, "
                "ceil(log2 n) rounds; Open MPI's algorithms are not modelled yet\n",
                r->collectives);

    double all = r->compute_time;
    int n;
    row_t *rows = rows_of(t, r, &n);
    for (int i = 0; rows && i < n; i++)
        all += rows[i].time;
    double denom = all > 0 ? all : 1;
    fprintf(fp, "\n%-4s %14s %12s %7s %15s  %s\n", "type", "visits", "time[s]", "time[%]",
            "time/visit[us]", "region");
    fprintf(fp, "%-4s %14s %12.6f %7.1f %15s  %s\n", "ALL", "", all, all > 0 ? 100.0 : 0.0, "",
            "ALL");
    fprintf(fp, "%-4s %14s %12.6f %7.1f %15s  %s\n", "COMP", "", r->compute_time,
            100.0 * r->compute_time / denom, "", "outside MPI");
    for (int i = 0; rows && i < n; i++)
        fprintf(fp, "%-4s %14" PRIu64 " %12.6f %7.1f %15.2f  %s\n", "MPI", rows[i].visits,
                rows[i].time, 100.0 * rows[i].time / denom,
                rows[i].time * 1e6 / (double)rows[i].visits, rows[i].name);
    free(rows);

    fprintf(fp, "\nprotocols (messages, bytes)\n");
    for (int tr = 0; tr < TS_TR__COUNT; tr++)
        for (int p = 0; p < TS_PROTO__COUNT; p++)
            if (r->count[tr][p].msgs)
                fprintf(fp, "  %-8s %-15s %12" PRIu64 " %16" PRIu64 "\n", ts_transport_name(tr),
                        ts_proto_name(p), r->count[tr][p].msgs, r->count[tr][p].bytes);
}

static void print_json(FILE *fp, const char *trace_path, const ts_trace_t *t,
                       const ts_platform_t *pf, const ts_placement_t *pl,
                       const ts_replay_result_t *r)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "trace", json_object_new_string(trace_path));
    json_object_object_add(root, "platform", json_object_new_string(ts_platform_name(pf)));
    json_object_object_add(root, "nodes", json_object_new_int(ts_placement_nodes(pl)));
    json_object_object_add(root, "ppn", json_object_new_int(ts_placement_ppn(pl)));
    json_object_object_add(root, "nps", json_object_new_int(ts_placement_nps(pl)));
    json_object_object_add(root, "map_by",
                           json_object_new_string(ts_map_by_name(ts_placement_map_by(pl))));
    json_object_object_add(root, "predicted_time_s", json_object_new_double(r->makespan));
    json_object_object_add(root, "rank0_elapsed_s", json_object_new_double(r->rank0_elapsed));
    json_object_object_add(root, "compute_time_s", json_object_new_double(r->compute_time));
    json_object_object_add(root, "placeholder_collectives",
                           json_object_new_uint64(r->collectives));
    json_object *funcs = json_object_new_object();
    int n;
    row_t *rows = rows_of(t, r, &n);
    for (int i = 0; rows && i < n; i++) {
        json_object *f = json_object_new_object();
        json_object_object_add(f, "visits", json_object_new_uint64(rows[i].visits));
        json_object_object_add(f, "time_s", json_object_new_double(rows[i].time));
        json_object_object_add(funcs, rows[i].name, f);
    }
    free(rows);
    json_object_object_add(root, "functions", funcs);
    json_object *protos = json_object_new_object();
    for (int tr = 0; tr < TS_TR__COUNT; tr++) {
        json_object *pj = NULL;
        for (int p = 0; p < TS_PROTO__COUNT; p++) {
            if (!r->count[tr][p].msgs)
                continue;
            if (!pj)
                pj = json_object_new_object();
            json_object *c = json_object_new_object();
            json_object_object_add(c, "messages", json_object_new_uint64(r->count[tr][p].msgs));
            json_object_object_add(c, "bytes", json_object_new_uint64(r->count[tr][p].bytes));
            json_object_object_add(pj, ts_proto_name(p), c);
        }
        if (pj)
            json_object_object_add(protos, ts_transport_name(tr), pj);
    }
    json_object_object_add(root, "protocols", protos);
    fprintf(fp, "%s\n",
            json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                     JSON_C_TO_STRING_SPACED |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

/* ---- the command -------------------------------------------------------------------- */

int ts_replay_cmd(int argc, char **argv, ts_error_t *err)
{
    ts_params_t *params = NULL;
    ts_trace_t *t = NULL;
    ts_platform_t *pf = NULL;
    ts_placement_t *pl = NULL;
    ts_proto_model_t *pm = NULL;
    ts_replay_result_t *res = NULL;
    const char **hosts = NULL;
    char xml[64] = "", tss[64] = "";
    replay_opts_t o;
    ts_status st = ts_params_new(&params);
    if (st != TS_OK) {
        ts_error_set(err, st, "out of memory");
        goto done;
    }
    if ((st = parse_opts(argc, argv, params, &o, err)) != TS_OK)
        goto done;
    if ((st = ts_trace_open(o.trace, &t, err)) != TS_OK ||
        (st = open_platform(o.platform, &pf, err)) != TS_OK)
        goto done;
    if (ts_trace_format_of(t) == TS_FORMAT_OTF2) {
        /* Replay from a store: its cursors read events chunk by chunk, so the replay's memory
         * does not grow with the trace, where the OTF2 reader holds every event. */
        snprintf(tss, sizeof tss, "/tmp/tunesim-trace.%d.tss", (int)getpid());
        ts_trace_t *s = NULL;
        if ((st = ts_store_write(t, tss, err)) != TS_OK ||
            (st = ts_trace_open(tss, &s, err)) != TS_OK) {
            goto done;
        }
        ts_trace_close(t);
        t = s;
    }
    o.place.nodes_per_leaf = (int)ts_params_int(params, TS_P_NET_NODES_PER_LEAF);
    if ((st = ts_placement_open(pf, &o.place, ts_trace_nranks(t), &pl, err)) != TS_OK)
        goto done;
    if ((st = ts_proto_model_new(params, &pm, err)) != TS_OK)
        goto done;
    /* Every locality class the placement produces must have a transport under UCX_TLS
     * (UCX_TLS=self,sm on two nodes cannot run). */
    unsigned seen = 0, all = (1u << TS_LOC__COUNT) - 2; /* every class but SELF */
    for (int32_t a = 0; a < ts_trace_nranks(t) && seen != all; a++)
        for (int32_t b = a + 1; b < ts_trace_nranks(t) && seen != all; b++)
            seen |= 1u << ts_placement_locality(pl, a, b);
    for (int loc = 0; loc < TS_LOC__COUNT && st == TS_OK; loc++)
        if (seen & (1u << loc))
            st = ts_proto_model_check(pm, (ts_locality)loc, err);
    if (st != TS_OK)
        goto done;
    snprintf(xml, sizeof xml, "/tmp/tunesim-platform.%d.xml", (int)getpid());
    if ((st = ts_xml_write(xml, pf, pl, params, err)) != TS_OK) {
        xml[0] = '\0';
        goto done;
    }
    hosts = calloc((size_t)ts_trace_nranks(t), sizeof *hosts);
    if (!hosts) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < ts_trace_nranks(t); i++)
        hosts[i] = ts_placement_host(pl, i);
    ts_replay_spec_t spec = {
        .trace = t,
        .trace_name = o.trace,
        .proto = pm,
        .layout = {.platform_xml = xml, .rank_host = hosts, .locality = layout_locality,
                   .locality_ctx = pl},
        .compute_scale = ts_params_double(params, TS_P_CPU_SPEED_RATIO),
    };
    if ((st = ts_replay_run(&spec, &res, err)) != TS_OK)
        goto done;
    if (o.json)
        print_json(stdout, o.trace, t, pf, pl, res);
    else
        print_text(stdout, &o, t, pf, pl, params, res);
    if (fflush(stdout) != 0)
        st = ts_error_set(err, TS_EIO, "writing the report failed");
done:
    if (xml[0])
        unlink(xml);
    if (tss[0])
        unlink(tss);
    free(hosts);
    ts_replay_result_free(res);
    ts_proto_model_free(pm);
    ts_placement_close(pl);
    ts_platform_close(pf);
    ts_trace_close(t);
    ts_params_free(params);
    return st;
}
