/* info_cmd.c - the `tunesim info` report. Statistics come from traces/stats; this file only
 * orders and formats them. */
#include "info_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../common/outfile.h"
#include "../common/jsontext.h"
#include "../traces/iterations.h"
#include "../traces/stats.h"

/* Functions ordered by time, then by name, so that equal inputs print equal bytes. */
typedef struct func_row_s {
    int32_t func;
    const char *name;
    const ts_func_stats_t *st;
} func_row_t;

static int cmp_row(const void *a, const void *b)
{
    const func_row_t *x = a, *y = b;
    if (x->st->time_ns != y->st->time_ns)
        return x->st->time_ns > y->st->time_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static func_row_t *sorted_rows(const ts_trace_t *t, const ts_stats_t *s, int32_t *n)
{
    int32_t nf = ts_trace_nfuncs(t), k = 0;
    func_row_t *rows = calloc(nf ? (size_t)nf : 1, sizeof *rows);
    if (!rows)
        return NULL;
    for (int32_t f = 0; f < nf; f++) {
        const ts_func_stats_t *st = ts_stats_func(s, f);
        if (st->visits == 0)
            continue;
        rows[k++] = (func_row_t){f, ts_trace_func_name(t, f), st};
    }
    qsort(rows, (size_t)k, sizeof *rows, cmp_row);
    *n = k;
    return rows;
}

static void size_label(uint64_t v, char *buf, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (v >= 1024 && v % 1024 == 0 && u < 6) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%" PRIu64 " %s", v, units[u]);
}

static void print_hist(FILE *fp, const char *title, const ts_hist_t *h)
{
    uint64_t total = 0;
    for (int k = 0; k < TS_HIST_BUCKETS; k++)
        total += h->count[k];
    fprintf(fp, "  %s (%" PRIu64 " messages)\n", title, total);
    for (int k = 0; k < TS_HIST_BUCKETS; k++) {
        if (!h->count[k])
            continue;
        /* Bucket k holds [lo, hi): "4 B .. < 8 B"; bucket 0 holds empty messages. */
        char lo[32], hi[40] = "";
        size_label(ts_hist_lo(k), lo, sizeof lo);
        if (k > 0) {
            size_label(ts_hist_hi(k), hi + 5, sizeof hi - 5);
            memcpy(hi, ".. < ", 5);
        }
        fprintf(fp, "    %10s %-14s %12" PRIu64 "  %5.1f%%\n", lo, hi, h->count[k],
                100.0 * (double)h->count[k] / (double)total);
    }
}

/* The iterations (traces/iterations.h), or why there are none: info describes any trace, so
 * a trace without a complete iteration is a line here, not an error. */
static void print_iterations(const ts_trace_t *t, FILE *fp)
{
    ts_iters_t *it = NULL;
    ts_error_t err;
    if (ts_iters_find(t, &it, &err) != TS_OK) {
        fprintf(fp, "\niterations none: %s\n", err.msg);
        return;
    }
    int32_t n = ts_iters_count(it), a, b;
    double spread;
    ts_iters_steady(it, &a, &b, &spread);
    fprintf(fp,
            "\niterations %d (%" PRIu64 " events of start-up before the first, %" PRIu64
            " of shutdown after the last)\n",
            (int)n, ts_iters_startup_events(it), ts_iters_tail_events(it));
    fprintf(fp, "  %5s %14s %12s %12s %9s\n", "iter", "events", "MPI calls", "collectives",
            "rel.len");
    for (int32_t k = 1; k <= n; k++) {
        const ts_iter_info_t *in = ts_iters_get(it, k);
        fprintf(fp, "  %5d %14" PRIu64 " %12" PRIu64 " %12" PRIu64 " %9.3f%s\n", (int)k, in->events,
                in->calls, in->collectives, in->rel,
                in->clean ? "" : "  (cannot be cut: a request or message crosses it)");
    }
    int all = ts_iters_steady_all(it);
    fprintf(fp,
            "steady     %d:%d (%siterations after the first within %.0f %% of their median "
            "events%s; spread %.1f %%)\n",
            (int)a, (int)b, all ? "no two consecutive " : "", 100.0 * TS_ITERS_STEADY_SPREAD,
            all ? ": all of them" : "", 100.0 * spread);
    ts_iters_free(it);
}

static json_object *iterations_json(const ts_trace_t *t)
{
    ts_iters_t *it = NULL;
    ts_error_t err;
    json_object *o = json_object_new_object();
    if (ts_iters_find(t, &it, &err) != TS_OK) {
        json_object_object_add(o, "count", json_object_new_int(0));
        json_object_object_add(o, "error", json_object_new_string(err.msg));
        return o;
    }
    int32_t n = ts_iters_count(it), a, b;
    double spread;
    ts_iters_steady(it, &a, &b, &spread);
    json_object_object_add(o, "count", json_object_new_int(n));
    json_object_object_add(o, "startup_events",
                           json_object_new_uint64(ts_iters_startup_events(it)));
    json_object_object_add(o, "tail_events", json_object_new_uint64(ts_iters_tail_events(it)));
    json_object_object_add(o, "steady_first", json_object_new_int(a));
    json_object_object_add(o, "steady_last", json_object_new_int(b));
    json_object_object_add(o, "steady_spread", json_object_new_double(spread));
    json_object_object_add(o, "steady_all", json_object_new_boolean(ts_iters_steady_all(it)));
    json_object *arr = json_object_new_array();
    for (int32_t k = 1; k <= n; k++) {
        const ts_iter_info_t *in = ts_iters_get(it, k);
        json_object *j = json_object_new_object();
        json_object_object_add(j, "index", json_object_new_int(k));
        json_object_object_add(j, "events", json_object_new_uint64(in->events));
        json_object_object_add(j, "calls", json_object_new_uint64(in->calls));
        json_object_object_add(j, "collectives", json_object_new_uint64(in->collectives));
        json_object_object_add(j, "relative_length", json_object_new_double(in->rel));
        json_object_object_add(j, "clean", json_object_new_boolean(in->clean));
        json_object_array_add(arr, j);
    }
    json_object_object_add(o, "list", arr);
    ts_iters_free(it);
    return o;
}

static void print_text(const ts_trace_t *t, const ts_stats_t *s, FILE *fp)
{
    int32_t nranks = ts_trace_nranks(t), nnodes = ts_trace_nnodes(t);
    char shown[4200]; /* names from the trace, shown without their control characters */
    fprintf(fp, "trace      %s (%s)\n", ts_shown(ts_trace_path(t), shown, sizeof shown),
            ts_trace_format_of(t) == TS_FORMAT_STORE ? "tunesim store" : "OTF2");
    fprintf(fp, "ranks      %d\n", (int)nranks);
    fprintf(fp, "nodes      %d:", (int)nnodes);
    for (int32_t n = 0; n < nnodes && n < 8; n++)
        fprintf(fp, " %s", ts_shown(ts_trace_node_name(t, n), shown, sizeof shown));
    fprintf(fp, "%s\n", nnodes > 8 ? " ..." : "");
    fprintf(fp, "duration   %.6f s (timer resolution %" PRIu64 " ticks/s)\n",
            (double)ts_trace_duration_ns(t) * 1e-9, ts_trace_timer_resolution(t));
    fprintf(fp, "events     %" PRIu64 "\n", ts_stats_events(s));
    if (ts_trace_nonmaster_mpi_records(t))
        fprintf(fp, "warning    %" PRIu64 " MPI records on non-master threads were left out\n",
                ts_trace_nonmaster_mpi_records(t));

    /* The profile, in scorep-score's columns; times summed over ranks. */
    int64_t mpi = ts_stats_mpi_ns(s), comp = ts_stats_compute_ns(s);
    double all = (double)mpi + (double)comp, denom = all > 0 ? all : 1.0;
    fprintf(fp, "\n%-4s %14s %12s %7s %15s %16s  %s\n", "type", "visits", "time[s]", "time[%]",
            "time/visit[us]", "bytes", "region");
    int32_t nrows = 0;
    func_row_t *rows = sorted_rows(t, s, &nrows);
    uint64_t visits = 0, bytes = 0;
    for (int32_t i = 0; rows && i < nrows; i++) {
        visits += rows[i].st->visits;
        bytes += rows[i].st->bytes;
    }
    fprintf(fp, "%-4s %14s %12.6f %7.1f %15s %16s  %s\n", "ALL", "", all * 1e-9,
            all > 0 ? 100.0 : 0.0, "", "", "ALL");
    fprintf(fp, "%-4s %14" PRIu64 " %12.6f %7.1f %15.2f %16" PRIu64 "  %s\n", "MPI", visits,
            (double)mpi * 1e-9, 100.0 * (double)mpi / denom,
            visits ? (double)mpi * 1e-3 / (double)visits : 0.0, bytes, "MPI");
    fprintf(fp, "%-4s %14s %12.6f %7.1f %15s %16s  %s\n", "COMP", "", (double)comp * 1e-9,
            100.0 * (double)comp / denom, "", "", "outside MPI");
    for (int32_t i = 0; rows && i < nrows; i++) {
        const ts_func_stats_t *st = rows[i].st;
        fprintf(fp, "%-4s %14" PRIu64 " %12.6f %7.1f %15.2f %16" PRIu64 "  %s\n", "MPI", st->visits,
                (double)st->time_ns * 1e-9, 100.0 * (double)st->time_ns / denom,
                (double)st->time_ns * 1e-3 / (double)st->visits, st->bytes,
                ts_shown(rows[i].name, shown, sizeof shown));
    }
    free(rows);

    fprintf(fp, "\nmessage sizes\n");
    print_hist(fp, "point-to-point sends", ts_stats_p2p_hist(s));
    for (int op = 0; op < TS_COLL__COUNT; op++) {
        const ts_hist_t *h = ts_stats_coll_hist(s, op);
        if (!h)
            continue;
        char title[64];
        snprintf(title, sizeof title, "MPI_%s per-rank payload", ts_coll_op_name(op));
        print_hist(fp, title, h);
    }

    const ts_matrix_summary_t *m = ts_stats_matrix(s);
    fprintf(fp, "\ncommunication matrix (point-to-point)\n");
    fprintf(fp, "  pairs            %" PRIu64 "\n", m->pairs);
    fprintf(fp, "  neighbours/rank  min %" PRIu64 "  mean %.2f  max %" PRIu64 "\n",
            m->neighbours_min, m->neighbours_mean, m->neighbours_max);
    fprintf(fp, "  bytes/pair       min %" PRIu64 "  mean %.1f  max %" PRIu64 "\n",
            m->pair_bytes_min, m->pair_bytes_mean, m->pair_bytes_max);
    fprintf(fp, "  intra-node       %" PRIu64 " messages, %" PRIu64 " bytes\n", m->intra_msgs,
            m->intra_bytes);
    fprintf(fp, "  inter-node       %" PRIu64 " messages, %" PRIu64 " bytes\n", m->inter_msgs,
            m->inter_bytes);

    const ts_match_summary_t *mt = ts_stats_match(s);
    fprintf(fp, "\nmatching   %" PRIu64 " sends, %" PRIu64 " receives", mt->sends, mt->recvs);
    if (!mt->unmatched_sends && !mt->unmatched_recvs && !mt->byte_mismatches)
        fprintf(fp, ": every send matches a receive\n");
    else
        fprintf(fp,
                ": %" PRIu64 " unmatched sends, %" PRIu64 " unmatched receives, %" PRIu64
                " streams with differing bytes\n",
                mt->unmatched_sends, mt->unmatched_recvs, mt->byte_mismatches);
    const ts_imbalance_t *ib = ts_stats_imbalance(s);
    if (ib->intervals)
        fprintf(fp,
                "imbalance  %" PRIu64 " intervals between collectives of every rank: the "
                "slowest rank's compute %.3f x the mean's, summed over intervals; the slowest "
                "rank's total %.3f x the mean's\n",
                ib->intervals, ib->interval_ratio, ib->rank_ratio);
    else
        fprintf(fp, "imbalance  not defined: the ranks make different numbers of collectives of "
                    "every rank, or none\n");
    print_iterations(t, fp);
}

static json_object *hist_json(const ts_hist_t *h)
{
    json_object *arr = json_object_new_array();
    for (int k = 0; k < TS_HIST_BUCKETS; k++) {
        if (!h->count[k])
            continue;
        json_object *b = json_object_new_object();
        json_object_object_add(b, "min", json_object_new_uint64(ts_hist_lo(k)));
        json_object_object_add(b, "max", json_object_new_uint64(k ? ts_hist_hi(k) - 1 : 0));
        json_object_object_add(b, "count", json_object_new_uint64(h->count[k]));
        json_object_array_add(arr, b);
    }
    return arr;
}

static json_object *build_json(const ts_trace_t *t, const ts_stats_t *s)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "trace", json_object_new_string(ts_trace_path(t)));
    json_object_object_add(
        root, "format",
        json_object_new_string(ts_trace_format_of(t) == TS_FORMAT_STORE ? "store" : "otf2"));
    json_object_object_add(root, "ranks", json_object_new_int(ts_trace_nranks(t)));
    json_object_object_add(root, "nodes", json_object_new_int(ts_trace_nnodes(t)));
    json_object *nodes = json_object_new_array();
    for (int32_t n = 0; n < ts_trace_nnodes(t); n++)
        json_object_array_add(nodes, json_object_new_string(ts_trace_node_name(t, n)));
    json_object_object_add(root, "node_names", nodes);
    json_object *rank_node = json_object_new_array();
    for (int32_t r = 0; r < ts_trace_nranks(t); r++)
        json_object_array_add(rank_node, json_object_new_int(ts_trace_rank_node(t, r)));
    json_object_object_add(root, "rank_node", rank_node);
    json_object_object_add(root, "duration_s",
                           json_object_new_double((double)ts_trace_duration_ns(t) * 1e-9));
    json_object_object_add(root, "timer_resolution",
                           json_object_new_uint64(ts_trace_timer_resolution(t)));
    json_object_object_add(root, "events", json_object_new_uint64(ts_stats_events(s)));
    json_object_object_add(root, "nonmaster_mpi_records",
                           json_object_new_uint64(ts_trace_nonmaster_mpi_records(t)));
    json_object_object_add(root, "mpi_time_s",
                           json_object_new_double((double)ts_stats_mpi_ns(s) * 1e-9));
    json_object_object_add(root, "compute_time_s",
                           json_object_new_double((double)ts_stats_compute_ns(s) * 1e-9));

    json_object *funcs = json_object_new_object();
    int32_t nrows = 0;
    func_row_t *rows = sorted_rows(t, s, &nrows);
    for (int32_t i = 0; rows && i < nrows; i++) {
        json_object *f = json_object_new_object();
        json_object_object_add(f, "visits", json_object_new_uint64(rows[i].st->visits));
        json_object_object_add(f, "time_s",
                               json_object_new_double((double)rows[i].st->time_ns * 1e-9));
        json_object_object_add(f, "bytes", json_object_new_uint64(rows[i].st->bytes));
        json_object_object_add(funcs, rows[i].name, f);
    }
    free(rows);
    json_object_object_add(root, "functions", funcs);

    json_object *hists = json_object_new_object();
    json_object_object_add(hists, "p2p", hist_json(ts_stats_p2p_hist(s)));
    for (int op = 0; op < TS_COLL__COUNT; op++) {
        const ts_hist_t *h = ts_stats_coll_hist(s, op);
        if (h)
            json_object_object_add(hists, ts_coll_op_name(op), hist_json(h));
    }
    json_object_object_add(root, "histograms", hists);

    const ts_matrix_summary_t *m = ts_stats_matrix(s);
    json_object *mj = json_object_new_object();
    json_object_object_add(mj, "pairs", json_object_new_uint64(m->pairs));
    json_object_object_add(mj, "neighbours_min", json_object_new_uint64(m->neighbours_min));
    json_object_object_add(mj, "neighbours_mean", json_object_new_double(m->neighbours_mean));
    json_object_object_add(mj, "neighbours_max", json_object_new_uint64(m->neighbours_max));
    json_object_object_add(mj, "pair_bytes_min", json_object_new_uint64(m->pair_bytes_min));
    json_object_object_add(mj, "pair_bytes_mean", json_object_new_double(m->pair_bytes_mean));
    json_object_object_add(mj, "pair_bytes_max", json_object_new_uint64(m->pair_bytes_max));
    json_object_object_add(mj, "intra_node_messages", json_object_new_uint64(m->intra_msgs));
    json_object_object_add(mj, "intra_node_bytes", json_object_new_uint64(m->intra_bytes));
    json_object_object_add(mj, "inter_node_messages", json_object_new_uint64(m->inter_msgs));
    json_object_object_add(mj, "inter_node_bytes", json_object_new_uint64(m->inter_bytes));
    json_object_object_add(root, "matrix", mj);

    const ts_match_summary_t *mt = ts_stats_match(s);
    json_object *mm = json_object_new_object();
    json_object_object_add(mm, "sends", json_object_new_uint64(mt->sends));
    json_object_object_add(mm, "receives", json_object_new_uint64(mt->recvs));
    json_object_object_add(mm, "unmatched_sends", json_object_new_uint64(mt->unmatched_sends));
    json_object_object_add(mm, "unmatched_receives", json_object_new_uint64(mt->unmatched_recvs));
    json_object_object_add(mm, "byte_mismatches", json_object_new_uint64(mt->byte_mismatches));
    json_object_object_add(root, "matching", mm);
    const ts_imbalance_t *ib = ts_stats_imbalance(s);
    json_object *ij = json_object_new_object();
    json_object_object_add(ij, "intervals", json_object_new_uint64(ib->intervals));
    json_object_object_add(ij, "interval_ratio", json_object_new_double(ib->interval_ratio));
    json_object_object_add(ij, "rank_ratio", json_object_new_double(ib->rank_ratio));
    json_object_object_add(root, "imbalance", ij);
    json_object_object_add(root, "iterations", iterations_json(t));
    return root;
}

ts_status ts_info_print(const ts_trace_t *t, FILE *fp, int json, ts_error_t *err)
{
    ts_stats_t *s;
    ts_status st = ts_stats_compute(t, &s, err);
    if (st != TS_OK)
        return st;
    errno = 0; /* what a failed write sets: the stream keeps only that one failed */
    if (json) {
        json_object *root = build_json(t, s);
        ts_json_fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_SPACED |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE),
                      fp);
        fputc('\n', fp);
        json_object_put(root);
    } else {
        print_text(t, s, fp);
    }
    int e = errno;
    ts_stats_free(s);
    errno = e;
    return ts_report_check(fp, NULL, err);
}
