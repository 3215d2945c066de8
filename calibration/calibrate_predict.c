/* calibrate_predict.c - the calibration's predictions of benchmark points. */

/* Which points the models cover, their protocol regions and what the protocol model predicts
 * for them (see calibrate_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_int.h"

/* ob1's "small message" for the alltoall reading: UCX's shared-memory eager-short limit
 * (92 B, reference/ucx-protocols.md), so that both pmls read the same sizes. */
#define SMALL_MSG 92

/* ---- parameters as text --------------------------------------------------------------- */

int cal_cand_is_bw(int k)
{
    return ts_param_def(CANDIDATES[k])->type == TS_PT_BW;
}
static int is_reg(int k)
{
    return CANDIDATES[k] == TS_P_NET_REG_COST || CANDIDATES[k] == TS_P_NET_REG_COST_PER_BYTE;
}

/* The protocol regions in size order: eager short, bcopy, zcopy, rendezvous. */
int cal_region_class(ts_proto p)
{
    return p == TS_PROTO_EAGER_SHORT   ? 0
           : p == TS_PROTO_EAGER_BCOPY ? 1
           : p == TS_PROTO_EAGER_ZCOPY ? 2
                                       : 3;
}

/* The cost a probe test measures alone, beside a rendezvous the models charge otherwise: off
 * (0) in the table until measured. TS_P__COUNT for any other kind. */
ts_param_id cal_kind_cost(ts_bench_kind kind)
{
    return kind == TS_BENCH_WRITTEN ? TS_P_UCX_RNDV_WRITTEN_COST
           : kind == TS_BENCH_BUSY  ? TS_P_UCX_RNDV_BUSY_COST
                                    : TS_P__COUNT;
}

int cal_cand_is_kind_cost(int k)
{
    return CANDIDATES[k] == cal_kind_cost(TS_BENCH_WRITTEN) ||
           CANDIDATES[k] == cal_kind_cost(TS_BENCH_BUSY);
}

/* Which parameters a kind of benchmark may determine. A bandwidth test's small sizes measure
 * the message rate (a per-message software cost the model does not have), not a latency; a
 * collective's small-message points stand for a per-message latency (P - 1 steps of one
 * message), their size dependence is algorithm and noise; a registration test determines
 * registration, a written-buffer test the cost of sending freshly written data, a
 * busy-receiver test that of a rendezvous to a computing receiver, a copy test the copy rate
 * (UCX_BCOPY_BW, at which the models charge copies). */
int cal_may_determine(ts_bench_kind kind, int k)
{
    switch (kind) {
    case TS_BENCH_LATENCY:
        return !cal_cand_is_kind_cost(k);
    case TS_BENCH_WRITTEN:
    case TS_BENCH_BUSY:
        return CANDIDATES[k] == cal_kind_cost(kind);
    case TS_BENCH_BW:
        return cal_cand_is_bw(k);
    case TS_BENCH_ALLTOALL:
        return !cal_cand_is_bw(k) && !is_reg(k) && !cal_cand_is_kind_cost(k);
    case TS_BENCH_REG:
        return is_reg(k);
    case TS_BENCH_COPY:
        return CANDIDATES[k] == TS_P_UCX_BCOPY_BW;
    default:
        return 0;
    }
}

double cal_read_value(const ts_params_t *p, int k)
{
    return cal_cand_is_bw(k) ? ts_params_bw(p, CANDIDATES[k]) : ts_params_seconds(p, CANDIDATES[k]);
}

/* Set candidate k to v, kept inside its valid range (params/params_range.h): the fit's trial
 * steps may wander outside, where the parameter parser would refuse them. */
ts_status cal_set_value(ts_params_t *p, int k, double v, ts_error_t *err)
{
    double lo, hi;
    if (ts_param_range(CANDIDATES[k], &lo, &hi))
        v = v < lo ? lo : v > hi ? hi : v;
    char buf[64];
    snprintf(buf, sizeof buf, cal_cand_is_bw(k) ? "%.17gB/s" : "%.17gs", v);
    return ts_params_set(p, ts_param_def(CANDIDATES[k])->name, buf, err);
}

/* ---- predictions ---------------------------------------------------------------------- */

void cal_models_free(models_t *m)
{
    ts_proto_model_free(m->reg);
    ts_proto_model_free(m->noreg);
    memset(m, 0, sizeof *m);
}

ts_status cal_models_build(const ts_params_t *p, models_t *m, ts_error_t *err)
{
    memset(m, 0, sizeof *m);
    ts_params_t *z;
    if (ts_params_copy(p, &z) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts_params_set(z, "model.net.reg_cost", "0s", err);
    if (st == TS_OK)
        st = ts_params_set(z, "model.net.reg_cost_per_byte", "0s", err);
    if (st == TS_OK)
        st = ts_proto_model_new(z, 0, &m->noreg, err);
    if (st == TS_OK)
        st = ts_proto_model_new(p, 0, &m->reg, err);
    ts_params_free(z);
    if (st != TS_OK) {
        cal_models_free(m);
        return st;
    }
    /* The models charge copies (bcopy copy-in / copy-out) at UCX_BCOPY_BW; auto is UCX's
     * default, the table's. */
    m->copy_bw = ts_params_bw(p, TS_P_UCX_BCOPY_BW);
    if (m->copy_bw <= 0) {
        ts_params_t *d;
        if (ts_params_new(&d) == TS_OK) {
            m->copy_bw = ts_params_bw(d, TS_P_UCX_BCOPY_BW);
            ts_params_free(d);
        }
    }
    m->ovh_single = ts_params_seconds(p, TS_P_UCX_OVH_SINGLE);
    return TS_OK;
}

static ts_locality loc_of(ts_bench_loc l)
{
    return l == TS_BLOC_INTRA_SOCKET   ? TS_LOC_SAME_NUMA
           : l == TS_BLOC_CROSS_SOCKET ? TS_LOC_CROSS_SOCKET
                                       : TS_LOC_SAME_LEAF;
}

/* Decide whether the models cover q and, if so, its protocol region under m. NULL when
 * covered, else why not. */
const char *cal_classify(const models_t *m, const ts_bench_series_t *s, ipt_t *q)
{
    q->modelled = 0;
    if (!(q->meas > 0))
        return "a measurement of zero or less carries no information for a relative fit";
    if (q->kind == TS_BENCH_COPY) {
        q->modelled = 1;
        return NULL;
    }
    if (q->kind == TS_BENCH_ALLREDUCE || q->kind == TS_BENCH_ALLGATHER || q->kind == TS_BENCH_BCAST)
        return "collective algorithms are modelled in models/coll, not by this fit";
    if (q->kind == TS_BENCH_ALLTOALL) {
        if (s->nodes != 1 || s->ranks < 2)
            return "alltoall over several nodes: collective algorithms are modelled in "
                   "models/coll";
        q->loc = TS_LOC_SAME_NUMA;
        q->blocking = 0;
        q->mult = s->ranks - 1;
    } else {
        if (s->loc == TS_BLOC_UNKNOWN)
            return "the header does not say where the two ranks sit (add '# tunesim-probe: "
                   "locality=...')";
        q->loc = loc_of(s->loc);
        /* OSU latency and IMB PingPong send with MPI_Send; OSU bw with MPI_Isend. */
        q->blocking = q->kind != TS_BENCH_BW;
        q->window = s->window > 0 ? s->window : 64;
    }
    if (ts_proto_model_check(m->reg, q->loc, NULL) != TS_OK)
        return "UCX_TLS of its settings leaves no transport for this pair";
    ts_msg_plan_t pl;
    ts_proto_plan(m->reg, q->size, q->loc, q->blocking, &pl);
    q->proto = pl.proto;
    q->transport = pl.transport;
    if (q->kind == TS_BENCH_BW) {
        ts_proto_plan(m->reg, 4, q->loc, 1, &pl);
        q->ack_proto = pl.proto;
    }
    /* ob1 has no eager-short protocol: its small messages are eager copy-in / copy-out. */
    int ob1_eager = q->proto == TS_PROTO_EAGER_BCOPY &&
                    (q->transport == TS_TR_VADER || q->transport == TS_TR_TCP_BTL) &&
                    q->size <= SMALL_MSG;
    if (q->kind == TS_BENCH_ALLTOALL && q->proto != TS_PROTO_EAGER_SHORT && !ob1_eager)
        return "alltoall beyond the eager-short region: collective algorithms are modelled "
               "in models/coll";
    if (q->kind == TS_BENCH_WRITTEN && !ts_proto_is_rndv(q->proto))
        return "written data costs the models extra only by rendezvous (an eager send copies "
               "or reads it in the sender's own call)";
    if (q->kind == TS_BENCH_BUSY && !ts_proto_is_rndv(q->proto))
        return "a computing receiver costs the models extra only for a rendezvous (an eager "
               "message lands without it)";
    q->modelled = 1;
    return NULL;
}

void cal_region_name(const ipt_t *q, char *buf, size_t n)
{
    if (q->kind == TS_BENCH_COPY)
        snprintf(buf, n, "memcpy");
    else
        snprintf(buf, n, "%s%s/%s", q->kind == TS_BENCH_ALLTOALL ? "alltoall " : "",
                 ts_proto_name(q->proto), ts_transport_name(q->transport));
}

/* The predicted value of q (us or MB/s), or < 0 when the region does not exist there. */
double cal_predict(const models_t *m, const ipt_t *q)
{
    double t, t0, ack;
    switch (q->kind) {
    case TS_BENCH_COPY:
        return m->copy_bw / 1e6;
    case TS_BENCH_LATENCY:
        t = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        return t < 0 ? -1 : t * 1e6;
    case TS_BENCH_ALLTOALL:
        /* Pairwise exchange: P - 1 dependent steps of one message each. */
        t = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        return t < 0 ? -1 : q->mult * t * 1e6;
    case TS_BENCH_REG:
        t = ts_proto_cost(m->reg, q->proto, q->size, q->loc);
        t0 = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        return t < 0 || t0 < 0 ? -1 : (t - t0) * 1e6;
    case TS_BENCH_WRITTEN:
    case TS_BENCH_BUSY: {
        /* The receiver's extra CPU for a rendezvous of freshly written data (one per one-way
         * trip, the engine's BUSY_WRITTEN) or whose RTS found it computing (BUSY_COMPUTING). */
        ts_msg_plan_t pl;
        ts_proto_plan(m->noreg, q->size, q->loc, 1, &pl);
        if (!ts_proto_is_rndv(pl.proto))
            return -1;
        return (q->kind == TS_BENCH_WRITTEN ? pl.written_cost : pl.busy_cost) * 1e6;
    }
    case TS_BENCH_BW:
        /* A window of W sends, then a 4-byte ack: the first message takes its whole time,
         * each further one adds its size-dependent part (the pipeline's step), the ack one
         * small message. */
        t = ts_proto_cost(m->noreg, q->proto, q->size, q->loc);
        t0 = ts_proto_cost(m->noreg, q->proto, 0, q->loc);
        ack = ts_proto_cost(m->noreg, q->ack_proto, 4, q->loc);
        if (t < 0 || ack < 0)
            return -1;
        if (t0 < 0)
            t0 = 0;
        {
            double gap = t - t0 + m->ovh_single;
            double total = (q->window - 1) * gap + t + ack;
            return total > 0 ? (double)q->window * (double)q->size / total / 1e6 : -1;
        }
    default:
        return -1;
    }
}

/* Apply the series' settings line ("KEY=VALUE ...") to p; unknown keys go to *ignored. */
ts_status cal_apply_settings(const ts_bench_series_t *s, ts_params_t *p, char **ignored,
                             ts_error_t *err)
{
    *ignored = NULL;
    if (!s->settings)
        return TS_OK;
    char *buf = strdup(s->settings);
    if (!buf)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    size_t len = 0, k = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && st == TS_OK;
         w = strtok_r(NULL, " \t", &save), k++) {
        char *eq = strchr(w, '=');
        if (eq)
            *eq = '\0';
        if (!eq || ts_param_find(w) < 0) {
            if (eq)
                *eq = '=';
            char *n = realloc(*ignored, len + strlen(w) + 2);
            if (!n) {
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
                break;
            }
            *ignored = n;
            len += (size_t)sprintf(n + len, "%s%s", len ? " " : "", w);
            continue;
        }
        ts_error_t e2;
        ts_error_clear(&e2);
        if (ts_params_set_user(p, w, eq + 1, &e2) != TS_OK)
            st = ts_error_set(err, TS_EARG, "%s:%d: %s", s->file,
                              s->settings_line ? s->settings_line[k] : s->line, e2.msg);
    }
    free(buf);
    return st;
}

ts_status ts_calib_predict(const ts_params_t *p, const ts_bench_series_t *s, size_t i,
                           double *value, char *region, size_t region_len, ts_error_t *err)
{
    *value = -1;
    if (region_len)
        region[0] = '\0';
    if (i >= s->npoints)
        return ts_error_set(err, TS_EARG, "%s: no point %zu", s->file, i);
    ts_params_t *q;
    if (ts_params_copy(p, &q) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    char *ignored = NULL;
    models_t m = {0};
    ts_status st = cal_apply_settings(s, q, &ignored, err);
    free(ignored);
    if (st == TS_OK)
        st = cal_models_build(q, &m, err);
    if (st == TS_OK) {
        ipt_t pt = {.kind = s->kind, .size = s->points[i].size, .meas = s->points[i].value};
        if (!(pt.meas > 0))
            pt.meas = 1; /* a prediction does not need the measurement */
        const char *why = cal_classify(&m, s, &pt);
        if (why) {
            st = ts_error_set(err, TS_EARG, "%s:%d: not predicted: %s", s->file, s->points[i].line,
                              why);
        } else {
            *value = cal_predict(&m, &pt);
            cal_region_name(&pt, region, region_len);
        }
    }
    cal_models_free(&m);
    ts_params_free(q);
    return st;
}
