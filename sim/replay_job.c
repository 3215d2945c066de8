/* replay_job.c - one replay from inputs to report, shared by `tunesim replay` (replay_cmd.c)
 * and the workers of `tunesim sweep` (sweep_cmd.c): the trace made replayable, the platform,
 * placement and protocol model prepared and checked, the SimGrid run, and the text and JSON
 * reports. */
#include "replay_job.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/jsontext.h"
#include "../common/tmpfiles.h"
#include "../models/coll.h"
#include "coll_report.h"
#include "../models/protocol.h"
#include "../platforms/xml.h"
#include "../traces/store.h"
#include "../traces/window.h"
#include "engine.h"

/* ---- the trace ---------------------------------------------------------------------- */

struct ts_job_trace_s {
    ts_trace_t *trace;     /* what replays read: the whole trace, or the window's cut */
    ts_trace_t *whole;     /* the trace as opened, once a window is cut (else NULL) */
    ts_iters_t *iters;     /* of the whole trace, found on first use */
    int32_t wfirst, wlast; /* the window; 0 when none */
    char tss[PATH_MAX];    /* temporary store made from an OTF2 input; "" if none */
    pid_t owner;           /* only the opening process removes it */
};

ts_status ts_job_trace_open(const char *path, ts_job_trace_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_job_trace_t *jt = calloc(1, sizeof *jt);
    if (!jt)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    jt->owner = getpid();
    ts_status st = ts_trace_open(path, &jt->trace, err);
    if (st == TS_OK && ts_trace_format_of(jt->trace) == TS_FORMAT_OTF2) {
        /* Replay from a store: its cursors read events chunk by chunk, so the replay's memory
         * does not grow with the trace, where the OTF2 reader holds every event. */
        ts_trace_t *s = NULL;
        if ((st = ts_tmp_file("tunesim-trace", ".tss", jt->tss, sizeof jt->tss, err)) != TS_OK)
            jt->tss[0] = '\0';
        else if ((st = ts_store_write(jt->trace, jt->tss, err)) == TS_OK &&
                 (st = ts_trace_open(jt->tss, &s, err)) == TS_OK) {
            ts_trace_rename(s, ts_trace_path(jt->trace)); /* messages name the input */
            ts_trace_close(jt->trace);
            jt->trace = s;
            /* The open store reads through its descriptor (inherited by forked workers), so
             * the name can go now: an interrupted replay or sweep leaves nothing in /tmp. */
            ts_tmp_remove(jt->tss);
            jt->tss[0] = '\0';
        }
    }
    if (st != TS_OK) {
        ts_job_trace_close(jt);
        return st;
    }
    *out = jt;
    return TS_OK;
}

const ts_trace_t *ts_job_trace(const ts_job_trace_t *jt)
{
    return jt->trace;
}

static const ts_trace_t *whole_trace(const ts_job_trace_t *jt)
{
    return jt->whole ? jt->whole : jt->trace;
}

const ts_iters_t *ts_job_trace_iters(ts_job_trace_t *jt, ts_error_t *err)
{
    if (!jt->iters && ts_iters_find(whole_trace(jt), &jt->iters, err) != TS_OK)
        return NULL;
    return jt->iters;
}

ts_status ts_job_trace_window(ts_job_trace_t *jt, const char *who, const char *spec,
                              ts_error_t *err)
{
    int32_t a, b;
    /* The form first, so that a typing mistake costs no pass over the trace. */
    ts_status st = ts_iters_window_arg(who, spec, INT32_MAX, &a, &b, err);
    if (st != TS_OK)
        return st;
    const ts_iters_t *it = ts_job_trace_iters(jt, err);
    if (!it)
        return err ? err->code : TS_ENOITER;
    if ((st = ts_iters_window_arg(who, spec, ts_iters_count(it), &a, &b, err)) != TS_OK)
        return st;
    ts_trace_t *cut;
    st = ts_window_open(whole_trace(jt), it, a, b, &cut, err);
    if (st != TS_OK)
        return st;
    if (jt->whole)
        ts_trace_close(jt->trace);
    else
        jt->whole = jt->trace;
    jt->trace = cut;
    jt->wfirst = a;
    jt->wlast = b;
    return TS_OK;
}

int ts_job_trace_window_of(const ts_job_trace_t *jt, int32_t *first, int32_t *last)
{
    *first = jt->wfirst;
    *last = jt->wlast;
    return jt->wfirst > 0;
}

ts_status ts_job_trace_full_window(ts_job_trace_t *jt, const char *who, int all, int32_t *first,
                                   int32_t *last, ts_error_t *err)
{
    const ts_iters_t *it = ts_job_trace_iters(jt, err);
    if (!it)
        return err ? err->code : TS_ENOITER;
    if (ts_job_trace_window_of(jt, first, last))
        return TS_OK;
    char spec[32];
    *first = 1;
    *last = ts_iters_count(it);
    if (!all)
        ts_iters_steady(it, first, last, NULL);
    snprintf(spec, sizeof spec, "%d:%d", (int)*first, (int)*last);
    return ts_job_trace_window(jt, who, spec, err);
}

ts_status ts_job_trace_cut(ts_job_trace_t *jt, int32_t first, int32_t last, ts_trace_t **out,
                           ts_error_t *err)
{
    *out = NULL;
    const ts_iters_t *it = ts_job_trace_iters(jt, err);
    if (!it)
        return err ? err->code : TS_ENOITER;
    return ts_window_open(whole_trace(jt), it, first, last, out, err);
}

void ts_job_trace_close(ts_job_trace_t *jt)
{
    if (!jt)
        return;
    ts_trace_close(jt->trace);
    ts_trace_close(jt->whole);
    ts_iters_free(jt->iters);
    if (jt->tss[0] && jt->owner == getpid())
        ts_tmp_remove(jt->tss);
    free(jt);
}

/* ---- preparing and running ------------------------------------------------------------ */

struct ts_job_s {
    const ts_trace_t *trace;
    const char *trace_name;
    const ts_params_t *params; /* the settings the models use: own, or the caller's */
    const ts_params_t *user;   /* the caller's settings, as reports show them */
    ts_params_t *own;          /* the caller's, with the platform's values and the what-ifs */
    double whatif_compute;     /* compute per burst from the memory and clock what-ifs */
    ts_platform_t *pf;
    ts_placement_t *pl;
    ts_proto_model_t *pm;
    ts_coll_model_t *coll;
    ts_replay_result_t *res;
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    int rank_times;
};

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

/* The what-if that asks for a platform reference the file lacks, as one line. */
static ts_status no_reference(const ts_job_t *job, const char *param, const char *key,
                              ts_error_t *err)
{
    return ts_error_set(err, TS_EARG,
                        "%s: %s needs the platform's %s, which %s does not give "
                        "(docs/what-if.md)",
                        ts_platform_path(job->pf), param, key, ts_platform_name(job->pf));
}

/* The job's own copy of the caller's settings, made once, for what the job changes in them
 * (the platform's values, the what-ifs, NPS2's latencies); job->params then points at it. */
static ts_status own_params(ts_job_t *job, ts_error_t *err)
{
    if (!job->own) {
        if (ts_params_copy(job->params, &job->own) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        job->params = job->own;
    }
    return TS_OK;
}

/* The settings the models see: the platform file's parameter values where the caller sets
 * none, then the what-ifs turned into what the models read. The link speed scales the NIC's
 * bandwidth by the new rate over the platform's (its measured efficiency kept); the memory
 * and clock what-ifs scale each burst's memory-bound part (model.cpu.memory_bound) and the
 * rest, and the memory links of the nodes with the memory. Without any, the caller's
 * settings are used as they are. */
#define WHATIF_MIN_FACTOR 0.01
#define WHATIF_MAX_FACTOR 100.0

static ts_status apply_platform(ts_job_t *job, ts_error_t *err)
{
    const ts_params_t *p = job->user;
    double link = TS_PARAM_BW(p, NET_LINK_SPEED), mem = TS_PARAM_BW(p, CPU_MEMORY_BW);
    double clock = TS_PARAM_DOUBLE(p, CPU_CLOCK) * 1e9;
    if (link > 0 && ts_platform_link_rate(job->pf) <= 0)
        return no_reference(job, "model.net.link_speed", "link_rate", err);
    if (mem > 0 && ts_platform_memory_bandwidth(job->pf) <= 0)
        return no_reference(job, "model.cpu.memory_bandwidth", "memory_bandwidth", err);
    if (clock > 0 && ts_platform_core_clock(job->pf) <= 0)
        return no_reference(job, "model.cpu.clock", "core_clock", err);
    double mem_speedup = mem > 0 ? mem / ts_platform_memory_bandwidth(job->pf) : 1;
    double clock_speedup = clock > 0 ? clock / ts_platform_core_clock(job->pf) : 1;
    double link_speedup = link > 0 ? link * 8 / ts_platform_link_rate(job->pf) : 1;
    /* A what-if is another machine of this kind, within a factor of 100 of the platform: a
     * bare 56 (bytes/s, where 56 Gbps was meant) or a clock of 1e-320 GHz is no machine, and
     * made a two-rank replay last hours or SimGrid abort. */
    static const struct {
        const char *param, *option, *unit;
    } what[] = {{"model.net.link_speed", "--link-speed", "B/s"},
                {"model.cpu.memory_bandwidth", "--memory-bandwidth", "B/s"},
                {"model.cpu.clock", "--cpu-clock", "GHz"}};
    const double speedup[] = {link_speedup, mem_speedup, clock_speedup},
                 given[] = {link, mem, clock / 1e9},
                 ref[] = {ts_platform_link_rate(job->pf) / 8, ts_platform_memory_bandwidth(job->pf),
                          ts_platform_core_clock(job->pf) / 1e9};
    for (int i = 0; i < 3; i++)
        if (!(speedup[i] >= WHATIF_MIN_FACTOR && speedup[i] <= WHATIF_MAX_FACTOR))
            return ts_error_set(
                err, TS_EARG, "%s (%s) %g %s: expected within a factor of 100 of %s's %g %s%s",
                what[i].param, what[i].option, given[i], what[i].unit, ts_platform_name(job->pf),
                ref[i], what[i].unit, i < 2 ? " (a bandwidth with its unit: 56Gbps, 7GB/s)" : "");
    double f = TS_PARAM_DOUBLE(p, CPU_MEMORY_BOUND);
    job->whatif_compute = f / mem_speedup + (1 - f) / clock_speedup;
    if (ts_platform_param_count(job->pf) == 0 && link <= 0 && mem <= 0)
        return TS_OK;
    ts_status st = own_params(job, err);
    if (st == TS_OK)
        st = ts_platform_apply_params(job->pf, job->own, err);
    if (st == TS_OK && link > 0)
        st = ts_params_set_number(job->own, TS_P_NET_BW,
                                  TS_PARAM_BW(job->own, NET_BW) * link_speedup, err);
    if (st == TS_OK && mem > 0)
        st = ts_params_set_number(job->own, TS_P_NODE_MEM_BW,
                                  TS_PARAM_BW(job->own, NODE_MEM_BW) * mem_speedup, err);
    return st;
}

/* Under NPS2 (sub-NUMA clustering) a NUMA domain's memory is homed in its own half of the
 * socket's L3 slices, so a message between two ranks of one domain takes
 * model.shm.nps2_domain_gain less than one within a socket under NPS1: every same-domain
 * on-host latency moves by it (UCX's shared memory, vader, HCOLL's shared-memory steps).
 * The cross-domain and cross-socket latencies are absolute and stay: a message's lines are
 * homed in the receiver's domain, and the sender's side of the path crosses the mesh. */
static ts_status apply_nps(ts_job_t *job, ts_error_t *err)
{
    double gain = TS_PARAM_SECONDS(job->params, SHM_NPS2_GAIN);
    if (ts_placement_nps(job->pl) != 2 || gain <= 0)
        return TS_OK;
    ts_status st = own_params(job, err);
    /* A pair of two domains pays at least NPS1's on-socket latency (a calibration may raise
     * model.shm.latency above the cross-domain default). */
    double nps1 = st == TS_OK ? TS_PARAM_SECONDS(job->own, SHM_LATENCY) : 0;
    if (st == TS_OK && TS_PARAM_SECONDS(job->own, SHM_CROSS_NUMA_LATENCY) < nps1)
        st = ts_params_set_number(job->own, TS_P_SHM_CROSS_NUMA_LATENCY, nps1, err);
    static const ts_param_id same[] = {TS_P_SHM_LATENCY, TS_P_VADER_LATENCY, TS_P_HCOLL_SM_LATENCY};
    for (size_t i = 0; i < sizeof same / sizeof *same && st == TS_OK; i++) {
        double v = ts_params_seconds(job->own, same[i]) - gain;
        st = ts_params_set_number(job->own, same[i], v > 0 ? v : 0, err);
    }
    return st;
}

ts_status ts_job_prepare(const ts_trace_t *t, const char *trace_name, const ts_params_t *params,
                         const ts_job_opts_t *opts, ts_job_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_job_t *job = calloc(1, sizeof *job);
    if (!job)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    job->trace = t;
    job->trace_name = trace_name;
    job->params = job->user = params;
    job->whatif_compute = 1;
    ts_placement_opts_t place = opts->place;
    job->progress = opts->progress;
    job->progress_ctx = opts->progress_ctx;
    job->rank_times = opts->rank_times;
    ts_status st =
        open_platform(opts->platform ? opts->platform : "bm-optimized3.36", &job->pf, err);
    /* A calibration holds one platform's costs: on another it predicts nothing meaningful. */
    const char *mp = ts_params_model_platform(params);
    if (st == TS_OK && mp[0] && strcmp(mp, ts_platform_name(job->pf)) != 0)
        st = ts_error_set(err, TS_EARG,
                          "%s: a model file made for platform '%s', but the replay "
                          "runs on '%s' (give --platform %s, or a model file made for %s)",
                          ts_params_model_file(params), mp, ts_platform_name(job->pf), mp,
                          ts_platform_name(job->pf));
    if (st == TS_OK)
        st = apply_platform(job, err);
    /* From here on the job's settings (job->params), which the steps above and apply_nps may
     * have copied and changed, not the caller's. */
    place.nodes_per_leaf = (int)ts_params_int(job->params, TS_P_NET_NODES_PER_LEAF);
    if (st == TS_OK)
        st = ts_placement_open(job->pf, &place, ts_trace_nranks(t), &job->pl, err);
    /* SimGrid 3.32's platform loading grows faster than the nodes (1.9 s for 128 nodes, 5.4 s
     * for 256, 34.6 s for 512, still loading after 600 s for 1,821): refused above what loads
     * in under a minute, rather than left to hang. */
    if (st == TS_OK && ts_placement_nodes_used(job->pl) > TS_JOB_MAX_NODES)
        st = ts_error_set(err, TS_EARG,
                          "%s: %d ranks on %d nodes: the replay handles up to %d nodes "
                          "(SimGrid's platform loading grows faster than the nodes: 35 s at "
                          "512); use more ranks per node or fewer ranks",
                          trace_name ? trace_name : ts_trace_path(t), (int)ts_trace_nranks(t),
                          ts_placement_nodes_used(job->pl), TS_JOB_MAX_NODES);
    if (st == TS_OK)
        st = ts_xml_check_size(job->pf, job->pl, err);
    if (st == TS_OK)
        st = apply_nps(job, err);
    if (st == TS_OK)
        st = ts_proto_model_new(job->params, (int)ts_trace_nranks(t), &job->pm, err);
    if (st == TS_OK) /* the set's collective components (coll_hcoll_enable, ...) */
        st = ts_coll_model_new(job->params, &job->coll, err);
    if (st == TS_OK) {
        /* Every locality class the placement produces must have a transport under UCX_TLS
         * (UCX_TLS=self,sm on two nodes cannot run). */
        unsigned seen = 0, all = (1u << TS_LOC__COUNT) - 2; /* every class but SELF */
        for (int32_t a = 0; a < ts_trace_nranks(t) && seen != all; a++)
            for (int32_t b = a + 1; b < ts_trace_nranks(t) && seen != all; b++)
                seen |= 1u << ts_placement_locality(job->pl, a, b);
        for (int loc = 0; loc < TS_LOC__COUNT && st == TS_OK; loc++)
            if (seen & (1u << loc))
                st = ts_proto_model_check(job->pm, (ts_locality)loc, err);
    }
    if (st != TS_OK) {
        ts_job_close(job);
        return st;
    }
    *out = job;
    return TS_OK;
}

const ts_platform_t *ts_job_platform(const ts_job_t *job)
{
    return job->pf;
}
const ts_params_t *ts_job_params(const ts_job_t *job)
{
    return job->params;
}

const ts_placement_t *ts_job_placement(const ts_job_t *job)
{
    return job->pl;
}

/* Traced burst -> simulated burst: the CPU speed ratio, under NPS2 the published NPS2 / NPS1
 * ratio of a memory-bandwidth-bound solver (model.cpu.nps2_compute_ratio), and the memory
 * and clock what-ifs. */
double ts_job_compute_ratio_base(const ts_job_t *job)
{
    double nps = ts_placement_nps(job->pl) == 2 ? TS_PARAM_DOUBLE(job->params, CPU_NPS2_RATIO) : 1;
    return nps * job->whatif_compute;
}

double ts_job_compute_scale(const ts_job_t *job)
{
    return TS_PARAM_DOUBLE(job->params, CPU_SPEED_RATIO) * ts_job_compute_ratio_base(job);
}

/* The load-balance what-if (model.cpu.balance = b): rank r's bursts scaled so that its
 * compute C_r becomes C_r + b (mean - C_r), the mean over the ranks that compute; the sum is
 * unchanged. A rank without compute keeps none (it has no bursts to scale, and is left out
 * of the mean so that the others' sum stays whole). *out NULL when b is 0. */
static ts_status balance_scales(const ts_job_t *job, double **out, ts_error_t *err)
{
    *out = NULL;
    double b = TS_PARAM_DOUBLE(job->params, CPU_BALANCE);
    const ts_trace_t *t = job->trace;
    int32_t n = ts_trace_nranks(t);
    if (b <= 0 || n <= 0)
        return TS_OK;
    double *c = calloc((size_t)n, sizeof *c);
    if (!c)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    double sum = 0;
    for (int32_t r = 0; r < n; r++) {
        ts_cursor_t *cur;
        if (ts_cursor_open(t, r, &cur) != TS_OK) {
            free(c);
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        }
        const ts_event_t *evs;
        int k;
        while ((k = ts_cursor_next_batch(cur, &evs, err)) > 0)
            for (int i = 0; i < k; i++)
                if (evs[i].kind == TS_EV_COMPUTE)
                    c[r] += (double)evs[i].time;
        ts_cursor_close(cur);
        if (k < 0) {
            free(c);
            return (ts_status)k;
        }
        sum += c[r];
    }
    int32_t computing = 0;
    for (int32_t r = 0; r < n; r++)
        computing += c[r] > 0;
    double mean = computing ? sum / computing : 0;
    for (int32_t r = 0; r < n; r++)
        c[r] = c[r] > 0 ? (c[r] + b * (mean - c[r])) / c[r] : 1;
    *out = c;
    return TS_OK;
}

ts_status ts_job_run(ts_job_t *job, ts_error_t *err)
{
    const ts_trace_t *t = job->trace;
    /* The platform goes to an unpredictable name under TMPDIR that is unlinked as soon as it
     * is open: SimGrid reads it through /proc/self/fd, so no end of the process (SIGKILL, an
     * abort in SimGrid) can leave it behind. */
    char xml[PATH_MAX], fdpath[64];
    FILE *fp = ts_tmp_stream("tunesim-platform", ".xml", xml, sizeof xml, err);
    if (!fp)
        return err && err->code != TS_OK ? err->code : TS_EIO;
    ts_status st = ts_xml_write_stream(fp, xml, job->pf, job->pl, job->params, err);
    if (st == TS_OK && fflush(fp) != 0)
        st = ts_error_set(err, TS_EIO, "%s: write failed: %s", xml, strerror(errno));
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fileno(fp));
    const char **hosts = st == TS_OK ? calloc((size_t)ts_trace_nranks(t) + 1, sizeof *hosts) : NULL;
    if (!hosts) {
        fclose(fp);
        return st != TS_OK ? st : ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    for (int32_t i = 0; i < ts_trace_nranks(t); i++)
        hosts[i] = ts_placement_host(job->pl, i);
    double *scales = NULL;
    st = balance_scales(job, &scales, err);
    if (st != TS_OK) {
        fclose(fp);
        free(hosts);
        return st;
    }
    ts_replay_spec_t spec = {
        .trace = t,
        .trace_name = job->trace_name,
        .proto = job->pm,
        .coll = job->coll,
        .layout = {.platform_xml = fdpath,
                   .rank_host = hosts,
                   .locality = layout_locality,
                   .locality_ctx = job->pl},
        .compute_scale = ts_job_compute_scale(job),
        .rank_scale = scales,
        .flowless_bytes = ts_params_size(job->params, TS_P_NET_FLOWLESS_BYTES, 0),
        .progress = job->progress,
        .progress_ctx = job->progress_ctx,
        .rank_times = job->rank_times,
    };
    st = ts_replay_run(&spec, &job->res, err);
    fclose(fp);
    free(hosts);
    free(scales);
    return st;
}

const ts_replay_result_t *ts_job_result(const ts_job_t *job)
{
    return job->res;
}

void ts_job_close(ts_job_t *job)
{
    if (!job)
        return;
    ts_replay_result_free(job->res);
    ts_proto_model_free(job->pm);
    ts_coll_model_free(job->coll);
    ts_placement_close(job->pl);
    ts_platform_close(job->pf);
    ts_params_free(job->own);
    free(job);
}

/* ---- reports ---------------------------------------------------------------------------- */

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

/* The functions called, most time first (ties by name). */
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

void ts_job_print_text(const ts_job_t *job, FILE *fp)
{
    const ts_trace_t *t = job->trace;
    const ts_platform_t *pf = job->pf;
    const ts_placement_t *pl = job->pl;
    const ts_replay_result_t *r = job->res;
    char shown[4200];
    fprintf(fp, "trace       %s (%d ranks)\n", ts_shown(job->trace_name, shown, sizeof shown),
            (int)ts_trace_nranks(t));
    char map[32];
    fprintf(fp, "platform    %s: %d nodes x %d ranks, %s, NPS%d, %d leaf switch%s\n",
            ts_shown(ts_platform_name(pf), shown, sizeof shown), ts_placement_nodes(pl),
            ts_placement_ppn(pl), ts_placement_map_text(pl, map, sizeof map), ts_placement_nps(pl),
            ts_placement_leaves(pl), ts_placement_leaves(pl) == 1 ? "" : "es");
    fprintf(fp, "settings   ");
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (ms) {
        ts_params_print_changes(job->user, ms);
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
    ts_coll_report_text(r, fp);
}

json_object *ts_job_json(const ts_job_t *job)
{
    const ts_trace_t *t = job->trace;
    const ts_placement_t *pl = job->pl;
    const ts_replay_result_t *r = job->res;
    json_object *root = json_object_new_object();
    if (!root)
        return NULL;
    json_object_object_add(root, "trace", json_object_new_string(job->trace_name));
    json_object_object_add(root, "platform", json_object_new_string(ts_platform_name(job->pf)));
    json_object_object_add(root, "nodes", json_object_new_int(ts_placement_nodes(pl)));
    json_object_object_add(root, "ppn", json_object_new_int(ts_placement_ppn(pl)));
    json_object_object_add(root, "nps", json_object_new_int(ts_placement_nps(pl)));
    char map[32];
    json_object_object_add(root, "map_by",
                           json_object_new_string(ts_placement_map_text(pl, map, sizeof map)));
    json_object_object_add(root, "predicted_time_s", json_object_new_double(r->makespan));
    json_object_object_add(root, "rank0_elapsed_s", json_object_new_double(r->rank0_elapsed));
    json_object_object_add(root, "compute_time_s", json_object_new_double(r->compute_time));
    json_object_object_add(root, "collectives", ts_coll_report_json(r));
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
    return root;
}

void ts_job_print_json(const ts_job_t *job, FILE *fp)
{
    json_object *root = ts_job_json(job);
    if (!root)
        return;
    ts_json_fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                           JSON_C_TO_STRING_SPACED |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE),
                  fp);
    fputc('\n', fp);
    json_object_put(root);
}
