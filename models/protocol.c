/* protocol.c - the point-to-point model's public functions (protocol.h): building a model from
 * the parameters, and every question about a message answered by the layer the model holds
 * (protocol_impl.h's table of functions): UCX's protocol selection (protocol_ucx.c) or Open
 * MPI's ob1 over its BTLs (protocol_ob1.c, when MCA_PML is ob1) or HPC-X's MXM
 * (protocol_mxm.c, when it is yalla). The transports' names and capabilities are here, shared
 * by all three. */
#include "protocol_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tr_info_t ts__transports[TS_TR__COUNT] = {
    [TS_TR_SELF] = {"self", TS_TL_SELF, CAP_SHORT | CAP_BCOPY | CAP_ZCOPY, 1},
    [TS_TR_POSIX] = {"posix", TS_TL_POSIX, CAP_SHORT | CAP_BCOPY, 1, RX_KEEPS_BCOPY},
    [TS_TR_SYSV] = {"sysv", TS_TL_SYSV, CAP_SHORT | CAP_BCOPY, 1, RX_KEEPS_BCOPY},
    [TS_TR_XPMEM] = {"xpmem", TS_TL_XPMEM, CAP_SHORT | CAP_BCOPY | CAP_RKEY_PTR, 1, RX_KEEPS_BCOPY},
    [TS_TR_CMA] = {"cma", TS_TL_CMA, CAP_GET | CAP_PUT, 1},
    [TS_TR_KNEM] = {"knem", TS_TL_KNEM, CAP_GET | CAP_PUT, 1},
    [TS_TR_RC] = {"rc_mlx5", TS_TL_RC, CAP_SHORT | CAP_BCOPY | CAP_ZCOPY | CAP_GET | CAP_PUT, 0,
                  RX_KEEPS_BCOPY | RX_KEEPS_SHORT},
    [TS_TR_UD] = {"ud_mlx5", TS_TL_UD, CAP_SHORT | CAP_BCOPY | CAP_ZCOPY, 0,
                  RX_KEEPS_BCOPY | RX_KEEPS_SHORT},
    [TS_TR_DC] = {"dc_mlx5", TS_TL_DC, CAP_SHORT | CAP_BCOPY | CAP_ZCOPY | CAP_GET | CAP_PUT, 0,
                  RX_KEEPS_BCOPY | RX_KEEPS_SHORT},
    [TS_TR_TCP] = {"tcp", TS_TL_TCP, CAP_SHORT | CAP_BCOPY | CAP_ZCOPY, 0},
    /* ob1's BTLs: not UCX transports (no UCX_TLS bit); only protocol_ob1.c uses them. */
    [TS_TR_VADER] = {"vader", 0, 0, 1},
    [TS_TR_TCP_BTL] = {"tcp_btl", 0, 0, 0},
    /* HCOLL's own shared memory: not a UCX transport either (ts_proto_plan_shared). */
    [TS_TR_HCOLL_SM] = {"hcoll_sm", 0, 0, 1},
    /* MXM's transports under pml yalla (protocol_mxm.c): no UCX_TLS bit either. */
    [TS_TR_MXM_SHM] = {"mxm_shm", 0, 0, 1},
    [TS_TR_MXM_RC] = {"mxm_rc", 0, 0, 0},
    [TS_TR_MXM_DC] = {"mxm_dc", 0, 0, 0},
    [TS_TR_MXM_UD] = {"mxm_ud", 0, 0, 0},
};

static const char *const PROTO_NAMES[TS_PROTO__COUNT] = {
    "eager short",    "eager bcopy",   "eager zcopy", "rndv get_zcopy",
    "rndv put_zcopy", "rndv rkey_ptr", "rndv am"};

const char *ts_transport_name(int tr)
{
    return (tr >= 0 && tr < TS_TR__COUNT) ? ts__transports[tr].name : "?";
}

const char *ts_proto_name(int proto)
{
    return (proto >= 0 && proto < TS_PROTO__COUNT) ? PROTO_NAMES[proto] : "?";
}

int ts_proto_is_rndv(int proto)
{
    return proto >= TS_PROTO_RNDV_GET && proto < TS_PROTO__COUNT;
}

ts_status ts_proto_model_new(const ts_params_t *p, int world, ts_proto_model_t **out,
                             ts_error_t *err)
{
    *out = NULL;
    ts_proto_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    m->tls = ts_params_tls(p);
    /* UCX_NUM_EPS overrides the hint; without either UCX assumes one endpoint. */
    int64_t eps = TS_PARAM_INT(p, UCX_NUM_EPS);
    m->est_eps = eps > 0 ? (int)eps : world > 0 ? world : 1;
    m->rndv_thresh[0] = ts_params_size(p, TS_P_UCX_RNDV_THRESH, 0);
    m->rndv_thresh[1] = ts_params_size(p, TS_P_UCX_RNDV_THRESH, 1);
    m->zcopy_thresh = ts_params_size(p, TS_P_UCX_ZCOPY_THRESH, 0);
    m->bcopy_thresh = ts_params_size(p, TS_P_UCX_BCOPY_THRESH, 0);
    m->send_nbr_thresh = ts_params_size(p, TS_P_UCX_RNDV_SEND_NBR_THRESH, 0);
    snprintf(m->rndv_scheme, sizeof m->rndv_scheme, "%s", ts_params_str(p, TS_P_UCX_RNDV_SCHEME));
    m->proto_v2 = TS_PARAM_BOOL(p, UCX_PROTO_ENABLE);
    m->bcopy_bw = ts_params_bw(p, TS_P_UCX_BCOPY_BW);
    if (m->bcopy_bw <= 0) {
        /* "auto" means UCX's own default, which is the table's default value. */
        ts_params_t *defaults;
        if (ts_params_new(&defaults) == TS_OK) {
            m->bcopy_bw = ts_params_bw(defaults, TS_P_UCX_BCOPY_BW);
            ts_params_free(defaults);
        }
        if (m->bcopy_bw <= 0) {
            free(m);
            return ts_error_set(err, TS_EARG, "UCX_BCOPY_BW: no copy bandwidth to use for auto");
        }
    }
    m->ovh_single = ts_params_seconds(p, TS_P_UCX_OVH_SINGLE);
    m->ovh_multi = ts_params_seconds(p, TS_P_UCX_OVH_MULTI);
    m->ovh_rts = ts_params_seconds(p, TS_P_UCX_OVH_RTS);
    m->ovh_rtr = ts_params_seconds(p, TS_P_UCX_OVH_RTR);
    m->ovh_sw = ts_params_seconds(p, TS_P_UCX_OVH_SW);
    m->reg_fixed = ts_params_seconds(p, TS_P_NET_REG_COST);
    m->reg_per_byte = ts_params_seconds(p, TS_P_NET_REG_COST_PER_BYTE);
    m->rcache_ovh = TS_PARAM_SECONDS(p, UCX_RCACHE_OVERHEAD);
    m->xpmem_attach = TS_PARAM_SECONDS(p, XPMEM_ATTACH_COST);
    m->xpmem_fault = TS_PARAM_SECONDS(p, XPMEM_FAULT_COST);
    m->reg_reuse = strcmp(TS_PARAM_ENUM(p, NET_RCACHE), "size") == 0;
    m->send_call = TS_PARAM_SECONDS(p, UCX_SEND_CALL);
    m->recv_call = TS_PARAM_SECONDS(p, UCX_RECV_CALL);
    m->pml_recv = TS_PARAM_SECONDS(p, UCX_PML_RECV);
    if (m->pml_recv > m->recv_call)
        m->pml_recv = m->recv_call;
    m->rndv_ovh = TS_PARAM_SECONDS(p, UCX_RNDV_OVERHEAD);
    m->cma_ovh = TS_PARAM_SECONDS(p, CMA_OVERHEAD);
    m->rndv_busy = TS_PARAM_SECONDS(p, UCX_RNDV_BUSY_COST);
    m->rndv_written = TS_PARAM_SECONDS(p, UCX_RNDV_WRITTEN_COST);
    m->progress = strcmp(TS_PARAM_ENUM(p, MPI_PROGRESS), "calls") == 0 ? TS_PROG_RECV : 0;
    /* HCOLL's shared-memory step and its on-host extras (as the shared-memory lanes add them). */
    double same = TS_PARAM_SECONDS(p, SHM_LATENCY);
    m->hcoll_sm_lat = TS_PARAM_SECONDS(p, HCOLL_SM_LATENCY);
    m->sm_extra[TS_LOC_SAME_SOCKET] = TS_PARAM_SECONDS(p, SHM_CROSS_NUMA_LATENCY) - same;
    m->sm_extra[TS_LOC_CROSS_SOCKET] = TS_PARAM_SECONDS(p, SHM_CROSS_SOCKET_LATENCY) - same;
    for (int loc = 0; loc < TS_LOC__COUNT; loc++)
        if (m->sm_extra[loc] < 0)
            m->sm_extra[loc] = 0;
    for (int loc = 0; loc < TS_LOC__COUNT; loc++)
        ts__ucx_resolve_lane(m, p, (ts_locality)loc);
    m->ops = &ts__p2p_ucx;
    if (strcmp(ts_params_str(p, TS_P_MCA_PML), "ob1") == 0) {
        ts_status st = ts__ob1_resolve(m, p, err);
        if (st != TS_OK) {
            free(m);
            return st;
        }
        m->ops = &ts__p2p_ob1;
    } else if (strcmp(ts_params_str(p, TS_P_MCA_PML), "yalla") == 0) {
        ts_status st = ts__mxm_resolve(m, p, err);
        if (st != TS_OK) {
            free(m);
            return st;
        }
        m->ops = &ts__p2p_mxm;
    }
    *out = m;
    return TS_OK;
}

int ts_proto_model_same(const ts_proto_model_t *a, const ts_proto_model_t *b)
{
    /* Both come from calloc and field assignments, so their padding is zero: compare the
     * bytes with the UCX_TLS list, used only to resolve the lanes, left out. */
    ts_proto_model_t x = *a, y = *b;
    x.tls = y.tls = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

uint64_t ts_proto_model_hash(const ts_proto_model_t *m)
{
    ts_proto_model_t x = *m; /* the same bytes ts_proto_model_same compares */
    x.tls = 0;
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    const unsigned char *b = (const unsigned char *)&x;
    for (size_t i = 0; i < sizeof x; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Field by field: plans are built as locals, so their padding is not comparable. */
static int plans_equal(const ts_msg_plan_t *a, const ts_msg_plan_t *b)
{
    return a->proto == b->proto && a->transport == b->transport && a->fragments == b->fragments &&
           a->send_cpu == b->send_cpu && a->send_copy == b->send_copy &&
           a->send_reg == b->send_reg && a->wire_bytes == b->wire_bytes &&
           a->latency == b->latency && a->bandwidth == b->bandwidth &&
           a->recv_copy == b->recv_copy && a->unexpected_copy == b->unexpected_copy &&
           a->recv_reg == b->recv_reg && a->rts_latency == b->rts_latency &&
           a->ack_latency == b->ack_latency && a->rtr_latency == b->rtr_latency &&
           a->recv_cpu == b->recv_cpu && a->handshake == b->handshake &&
           a->busy_cost == b->busy_cost && a->written_cost == b->written_cost &&
           a->progress == b->progress && a->est_delta == b->est_delta && a->copy_bw == b->copy_bw &&
           a->completes_locally == b->completes_locally && a->pml_recv == b->pml_recv;
}

int ts_proto_model_alike(const ts_proto_model_t *a, const ts_proto_model_t *b,
                         const ts_plan_ask_t *asks, size_t n)
{
    /* What the engine asks of the model besides the plans: never alike where they differ. */
    if (a->reg_reuse != b->reg_reuse)
        return 0;
    for (size_t i = 0; i < n; i++) {
        ts_msg_plan_t x, y;
        ts_proto_plan_kind(a, asks[i].bytes, asks[i].loc, asks[i].kind, &x);
        ts_proto_plan_kind(b, asks[i].bytes, asks[i].loc, asks[i].kind, &y);
        if (!plans_equal(&x, &y))
            return 0;
    }
    return 1;
}

int ts_proto_reg_reuse(const ts_proto_model_t *m)
{
    return m->reg_reuse;
}

void ts_proto_model_free(ts_proto_model_t *m)
{
    free(m);
}

ts_status ts_proto_model_check(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err)
{
    return m->ops->check(m, loc, err);
}

double ts_proto_estimate(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc)
{
    ts_msg_plan_t pl;
    return m->ops->plan_of(m, proto, size, loc, &pl) ? est_time(&pl, size) : -1;
}

double ts_proto_cost(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc)
{
    ts_msg_plan_t pl;
    if (!m->ops->plan_of(m, proto, size, loc, &pl))
        return -1;
    /* What the engine charges, which differs from UCX's estimate in two ways: the handshake's
     * software, and the data's time on the wire only for the bytes that cross the platform
     * (on-host copies charged to the CPUs have none: see on_host_copies). */
    return plan_time(&pl, pl.wire_bytes) + pl.handshake;
}

void ts_proto_plan(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking,
                   ts_msg_plan_t *out)
{
    m->ops->plan(m, size, loc, blocking, out);
}

static int same_choice(const ts_msg_plan_t *a, const ts_msg_plan_t *b)
{
    return a->proto == b->proto && a->transport == b->transport;
}

void ts_proto_model_print(const ts_proto_model_t *m, FILE *fp)
{
    const uint64_t limit = (uint64_t)1 << 40;
    for (int loc = 0; loc < TS_LOC__COUNT; loc++) {
        if (!m->ops->reachable(m, (ts_locality)loc)) {
            /* MXM's classes may be refused for an unknown default, not only unreachable:
             * its check says which. */
            ts_error_t e = {0};
            if (m->ops == &ts__p2p_mxm && m->ops->check(m, (ts_locality)loc, &e) != TS_OK)
                fprintf(fp, "%-13s %s\n", ts_locality_name(loc), e.msg);
            else
                fprintf(fp, "%-13s unreachable with this %s\n", ts_locality_name(loc),
                        m->ops->word);
            continue;
        }
        for (int blocking = 0; blocking < 2; blocking++) {
            ts_locality l = (ts_locality)loc;
            fprintf(fp, "%-13s %-10s", ts_locality_name(loc), blocking ? "MPI_Send" : "MPI_Isend");
            uint64_t lo = 0;
            ts_msg_plan_t a, b;
            ts_proto_plan(m, lo, l, blocking, &a);
            for (;;) {
                /* Gallop to a size with another choice, then bisect to its first byte. A
                 * choice that changes and changes back between two probes is not shown. */
                uint64_t same = lo, step = 1, s;
                for (s = lo + 1; s <= limit; s = lo + (step *= 2)) {
                    ts_proto_plan(m, s, l, blocking, &b);
                    if (!same_choice(&a, &b))
                        break;
                    same = s;
                }
                if (s > limit)
                    break;
                while (s - same > 1) {
                    uint64_t mid = same + (s - same) / 2;
                    ts_proto_plan(m, mid, l, blocking, &b);
                    if (same_choice(&a, &b))
                        same = mid;
                    else
                        s = mid;
                }
                fprintf(fp, " %llu-%llu %s/%s,", (unsigned long long)lo, (unsigned long long)same,
                        ts_proto_name(a.proto), ts_transport_name(a.transport));
                lo = s;
                ts_proto_plan(m, lo, l, blocking, &a);
            }
            fprintf(fp, " %llu+ %s/%s\n", (unsigned long long)lo, ts_proto_name(a.proto),
                    ts_transport_name(a.transport));
        }
    }
    /* With both rc and dc enabled the network lane depends on the job's size. */
    if (m->ops == &ts__p2p_ucx && (m->tls & TS_TL_RC) && (m->tls & TS_TL_DC))
        fprintf(fp,
                "(network lane for %d expected endpoint%s: UCX_NUM_EPS, or a job's rank count, "
                "weighs rc against dc)\n",
                m->est_eps, m->est_eps == 1 ? "" : "s");
    /* The same settings choose differently under UCX's two selections. */
    if (m->ops == &ts__p2p_ucx)
        fprintf(fp, "(UCX's protocol selection %s: UCX_PROTO_ENABLE=%s)\n",
                m->proto_v2 ? "v2, UCX 1.16 on" : "v1, UCX before 1.16", m->proto_v2 ? "y" : "n");
}

void ts_proto_plan_registered(const ts_proto_model_t *m, uint64_t size, ts_locality loc,
                              ts_msg_plan_t *out)
{
    ts_proto_plan(m, size, loc, 0, out);
    out->send_reg = 0;
    out->recv_reg = 0;
}

void ts_proto_plan_kind(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int kind,
                        ts_msg_plan_t *out)
{
    if (kind == TS_PLAN_SHARED || kind == TS_PLAN_SHARED_READ || kind == TS_PLAN_SHARED_WRITE) {
        ts_proto_plan_shared(m, size, loc, out);
        if (kind == TS_PLAN_SHARED_READ)
            out->send_copy = 0;
        if (kind == TS_PLAN_SHARED_WRITE)
            out->recv_copy = 0;
    } else if (kind == TS_PLAN_REGISTERED) {
        ts_proto_plan_registered(m, size, loc, out);
    } else {
        ts_proto_plan(m, size, loc, kind == TS_PLAN_BLOCKING, out);
    }
}

void ts_proto_plan_shared(const ts_proto_model_t *m, uint64_t size, ts_locality loc,
                          ts_msg_plan_t *out)
{
    memset(out, 0, sizeof *out);
    out->proto = TS_PROTO_EAGER_BCOPY;
    out->transport = TS_TR_HCOLL_SM;
    out->fragments = 1;
    out->latency = m->hcoll_sm_lat + (loc >= 0 && loc < TS_LOC__COUNT ? m->sm_extra[loc] : 0);
    out->copy_bw = m->bcopy_bw;
    out->send_copy = size;
    out->recv_copy = size;
    out->completes_locally = 1;
    /* The data moves by the two copies only (on_host_copies): no flow through the platform. */
    out->wire_bytes = 0;
}
