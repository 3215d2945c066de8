/* protocol_ucx.c - UCX's protocol choice and costs per message, the point-to-point layer of
 * pml ucx behind protocol.h (see shared/reference/ucx-protocols.md).
 *
 * For a locality class the model first picks the transports UCX_TLS leaves: one "eager lane"
 * (short/bcopy/zcopy) and one "rendezvous lane". Then, per message, four candidates compete
 * the way UCX's protocol selection (>= 1.16) makes them:
 *   candidate   priority  threshold variable
 *   short        0        (none)
 *   bcopy       20        UCX_BCOPY_THRESH
 *   zcopy       30        UCX_ZCOPY_THRESH
 *   rndv        60        UCX_RNDV_THRESH (intra/inter), UCX_RNDV_SEND_NBR_THRESH for
 *                         blocking sends while UCX_RNDV_THRESH is auto
 * threshold auto: competes on estimated time; inf: disabled; size below a set threshold:
 * disabled; size at or above it: forced on, and every candidate of lower priority dropped.
 * The fastest remaining estimate wins. */
#include "protocol_impl.h"

#include <stdlib.h>
#include <string.h>

/* Preference orders when several transports are enabled. Off-host: RC at small scale, then
 * DC (which takes over from rc at scale, below), UD, TCP (UCX's FAQ in ucx-protocols.md). On-host
 * eager: posix then sysv (Open MPI reports posix + xpmem on BM.Optimized3.36), xpmem's FIFO last.
 */
static const ts_transport NET_ORDER[] = {TS_TR_RC, TS_TR_DC, TS_TR_UD, TS_TR_TCP};
static const ts_transport SHM_EAGER_ORDER[] = {TS_TR_POSIX, TS_TR_SYSV, TS_TR_XPMEM};
static const ts_transport SHM_RNDV_ORDER[] = {TS_TR_XPMEM, TS_TR_CMA, TS_TR_KNEM};

static int first_enabled(unsigned tls, const ts_transport *order, size_t n, ts_transport *out)
{
    for (size_t i = 0; i < n; i++)
        if (tls & ts__transports[order[i]].tl_bit) {
            *out = order[i];
            return 1;
        }
    return 0;
}

/* Pick the lanes of one locality class and their costs. */
void ts__ucx_resolve_lane(ts_proto_model_t *m, const ts_params_t *p, ts_locality loc)
{
    lane_t *l = &m->lane[loc];
    memset(l, 0, sizeof *l);
    unsigned tls = m->tls;
    ts_transport net;
    int have_net = first_enabled(tls, NET_ORDER, sizeof NET_ORDER / sizeof NET_ORDER[0], &net);
    /* UCX scores the active-message lane by latency (src/ucp/wireup/select.c,
     * ucp_wireup_am_score_func) with the endpoints it expects (ucp_tl_iface_latency): rc's
     * latency grows with them (one QP each), dc's does not but starts higher, so with both
     * enabled (UCX_TLS=all) a job of more ranks than that break-even runs its network traffic
     * over dc, and self,sm,rc keeps it on rc. The overheads are the same mlx5 figure. */
    if (have_net && net == TS_TR_RC && (tls & TS_TL_DC) &&
        TS_PARAM_SECONDS(p, DC_SELECT_LATENCY) <
            TS_PARAM_SECONDS(p, RC_LATENCY_PER_EP) * (double)m->est_eps)
        net = TS_TR_DC;
    if (loc == TS_LOC_SELF && (tls & TS_TL_SELF)) {
        l->reachable = 1;
        l->eager = l->rndv = TS_TR_SELF;
        l->latency = ts_params_seconds(p, TS_P_UCX_OVH_SINGLE);
        l->bandwidth = ts_params_bw(p, TS_P_SHM_BW);
        l->max_short = ts_params_size(p, TS_P_SHM_MAX_SHORT, 0);
        l->seg_size = ts_params_size(p, TS_P_SHM_SEG_SIZE, 0);
        return;
    }
    if (on_host(loc)) {
        ts_transport eager, rndv;
        if (first_enabled(tls, SHM_EAGER_ORDER, 3, &eager)) {
            l->reachable = 1;
            l->eager = eager;
            /* Without a zero-copy shared-memory transport, rendezvous runs over the FIFO as
             * active messages. */
            l->rndv = first_enabled(tls, SHM_RNDV_ORDER, 3, &rndv) ? rndv : eager;
            static const ts_param_id lat[] = {[TS_LOC_SELF] = TS_P_SHM_LATENCY,
                                              [TS_LOC_SAME_NUMA] = TS_P_SHM_LATENCY,
                                              [TS_LOC_SAME_SOCKET] = TS_P_SHM_CROSS_NUMA_LATENCY,
                                              [TS_LOC_CROSS_SOCKET] =
                                                  TS_P_SHM_CROSS_SOCKET_LATENCY};
            /* A farther pair is never faster than a same-NUMA one (a calibration may raise
             * model.shm.latency above the assumed cross-domain defaults). */
            double same = ts_params_seconds(p, TS_P_SHM_LATENCY);
            l->latency = ts_params_seconds(p, lat[loc]);
            if (l->latency < same)
                l->latency = same;
            l->bandwidth = ts_params_bw(p, TS_P_SHM_BW);
            l->max_short = ts_params_size(p, TS_P_SHM_MAX_SHORT, 0);
            l->seg_size = ts_params_size(p, TS_P_SHM_SEG_SIZE, 0);
            return;
        }
        /* No shared-memory transport: on-host peers loop back through the network one. */
    }
    if (!have_net)
        return;
    l->reachable = 1;
    l->net = 1;
    l->loopback = on_host(loc);
    l->eager = l->rndv = net;
    if (net == TS_TR_TCP) {
        l->latency = ts_params_seconds(p, TS_P_TCP_LATENCY);
        l->bandwidth = ts_params_bw(p, TS_P_TCP_BW);
        l->max_short = ts_params_size(p, TS_P_RC_MAX_SHORT, 0);
    } else {
        l->latency = ts_params_seconds(p, loc == TS_LOC_CROSS_SPINE ? TS_P_NET_SPINE_LATENCY
                                                                    : TS_P_NET_LATENCY);
        l->bandwidth = ts_params_bw(p, TS_P_NET_BW);
        ts_param_id ms = net == TS_TR_UD   ? TS_P_UD_MAX_SHORT
                         : net == TS_TR_DC ? TS_P_DC_MAX_SHORT
                                           : TS_P_RC_MAX_SHORT;
        l->max_short = ts_params_size(p, ms, 0);
        /* UD: software reliability costs more CPU per datagram than rc's hardware one, the
         * completion path adds latency, and a datagram carries at most one path MTU. */
        l->wqe = TS_PARAM_SECONDS(p, RC_WQE_OVERHEAD);
        if (net == TS_TR_UD) {
            l->wqe = TS_PARAM_SECONDS(p, UD_WQE_OVERHEAD);
            l->latency += TS_PARAM_SECONDS(p, UD_EXTRA_LATENCY);
        }
        if (net == TS_TR_DC)
            l->latency += TS_PARAM_SECONDS(p, DC_EXTRA_LATENCY);
    }
    if (loc == TS_LOC_CROSS_SPINE && net == TS_TR_TCP)
        l->latency +=
            ts_params_seconds(p, TS_P_NET_SPINE_LATENCY) - ts_params_seconds(p, TS_P_NET_LATENCY);
    l->seg_size =
        net == TS_TR_UD ? TS_PARAM_SIZE(p, UD_SEG_SIZE) : ts_params_size(p, TS_P_NET_SEG_SIZE, 0);
}

static double reg_cost(const ts_proto_model_t *m, uint64_t size)
{
    return m->reg_fixed + m->reg_per_byte * (double)size;
}

/* A network registration in a plan: charged as a miss (the engine skips it on a hit),
 * estimated as the cache lookup UCX's selection assumes. */
static double net_reg(const ts_proto_model_t *m, uint64_t size, ts_msg_plan_t *pl)
{
    double c = reg_cost(m, size);
    pl->est_delta += m->rcache_ovh - c;
    return c;
}

/* The rendezvous scheme on the lane: UCX_RNDV_SCHEME when the transport can do it, else the
 * transport's natural one. */
static ts_proto rndv_scheme(const ts_proto_model_t *m, const lane_t *l)
{
    unsigned caps = ts__transports[l->rndv].caps;
    const char *s = m->rndv_scheme;
    if (strcmp(s, "get_zcopy") == 0 && (caps & CAP_GET))
        return TS_PROTO_RNDV_GET;
    if (strcmp(s, "put_zcopy") == 0 && (caps & CAP_PUT))
        return TS_PROTO_RNDV_PUT;
    if (strcmp(s, "rkey_ptr") == 0 && (caps & CAP_RKEY_PTR))
        return TS_PROTO_RNDV_RKEY_PTR;
    if (strcmp(s, "am") == 0)
        return TS_PROTO_RNDV_AM;
    if (caps & CAP_RKEY_PTR)
        return TS_PROTO_RNDV_RKEY_PTR;
    if (caps & CAP_GET)
        return TS_PROTO_RNDV_GET;
    if (caps & CAP_PUT)
        return TS_PROTO_RNDV_PUT;
    return TS_PROTO_RNDV_AM;
}

/* Fill the plan of proto for this message (no selection here). */
static void build_plan(const ts_proto_model_t *m, ts_proto proto, uint64_t size, const lane_t *l,
                       ts_msg_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->proto = proto;
    pl->transport = ts_proto_is_rndv(proto) ? l->rndv : l->eager;
    pl->fragments = 1;
    pl->latency = l->latency;
    pl->bandwidth = l->bandwidth;
    pl->copy_bw = m->bcopy_bw;
    pl->wire_bytes = size;
    /* Work requests each side posts or reaps on a network lane: one per fragment for eager;
     * RTS + the RDMA operation (+ ATS / RTR) for rendezvous. */
    double wqes = 1;
    switch (proto) {
    case TS_PROTO_EAGER_SHORT:
        pl->send_cpu = m->ovh_single;
        pl->unexpected_copy = ts__transports[l->eager].rx_keeps & RX_KEEPS_SHORT ? 0 : size;
        pl->completes_locally = 1;
        break;
    case TS_PROTO_EAGER_BCOPY:
        pl->fragments = fragments(size, l->seg_size);
        wqes = pl->fragments;
        pl->send_cpu = m->ovh_single + (double)(pl->fragments - 1) * m->ovh_multi;
        pl->send_copy = size;
        pl->recv_copy = size;
        pl->unexpected_copy = ts__transports[l->eager].rx_keeps & RX_KEEPS_BCOPY ? 0 : size;
        pl->completes_locally = 1;
        break;
    case TS_PROTO_EAGER_ZCOPY:
        /* No copy at the sender, but eager data lands in UCX's receive buffers, so the
         * receiver still copies it out (why UCX's rendezvous estimate compares against
         * min(zcopy bandwidth, UCX_BCOPY_BW)). */
        pl->fragments = fragments(size, l->seg_size);
        wqes = pl->fragments;
        pl->send_cpu = m->ovh_single + (double)(pl->fragments - 1) * m->ovh_multi;
        pl->send_reg = net_reg(m, size, pl);
        pl->recv_copy = size;
        pl->unexpected_copy = ts__transports[l->eager].rx_keeps & RX_KEEPS_BCOPY ? 0 : size;
        pl->ack_latency = l->latency;
        /* UCX's selection v2 counts a zcopy send as done when its ack is back, one more
         * transport latency (src/ucp/proto/proto_init.c, ucp_proto_init_add_tl_perf,
         * UCP_PROTO_COMMON_INIT_FLAG_SEND_ZCOPY); v1 compared the send alone. */
        if (m->proto_v2)
            pl->est_delta += l->latency;
        break;
    case TS_PROTO_RNDV_GET:
    case TS_PROTO_RNDV_PUT:
        /* get: the read request goes out and the data comes back; put: the RTR goes back
         * and the data comes: either way one more one-way latency before the data lands. */
        pl->send_cpu = m->ovh_rts;
        pl->rts_latency = l->latency;
        pl->send_reg = l->net ? net_reg(m, size, pl) : 0;
        pl->recv_reg = (l->net ? net_reg(m, size, pl) : 0) + m->ovh_rtr;
        pl->latency = 2 * l->latency;
        pl->ack_latency = l->latency;
        pl->progress = m->progress;
        /* An RDMA read completes on the receiver's completion queue, which only its
         * progress polls; the ATS goes from there (UCX v1.18 src/ucp/rndv/rndv_get.c,
         * ucp_proto_rndv_get_zcopy_fetch_completion). cma's read is a system call that
         * completes inside the call that issues it. */
        if (proto == TS_PROTO_RNDV_GET && l->net && m->progress)
            pl->progress |= TS_PROG_ACK;
        wqes = 2;
        if (proto == TS_PROTO_RNDV_PUT) {
            /* The RTR goes back and the sender, once it sees it, writes the data. */
            pl->rtr_latency = l->latency;
            pl->latency = l->latency;
            pl->progress = both_sides(m->progress);
        }
        if (!l->net) {
            /* cma / knem on-host: the kernel copies the data once between the two address
             * spaces; no network moves it, so the copy is the data's whole cost. */
            pl->recv_copy = size;
            pl->copy_bw = l->bandwidth;
        }
        break;
    case TS_PROTO_RNDV_RKEY_PTR:
        /* The receiver maps the sender's buffer (a registration-like cost) and copies once.
         * The copy is not done where the RTS is matched: UCX queues the request on the
         * worker and copies it from a progress callback, so it waits for the receiver's next
         * progress call even when MPI_Irecv found the RTS waiting (UCX v1.18
         * src/ucp/rndv/rndv_rkey_ptr.c, ucp_proto_rndv_rkey_ptr_fetch_progress registers
         * ucp_proto_rndv_progress_rkey_ptr with uct_worker_progress_register_safe). */
        pl->send_cpu = m->ovh_rts;
        pl->rts_latency = l->latency;
        /* A new mapping's pages fault in as the copy first touches them (xpmem_attach maps
         * lazily); UCX's xpmem rcache keeps the mapping, so a reused buffer pays neither. */
        {
            double faults = m->xpmem_fault * (double)((size + 4095) / 4096 + 1);
            pl->recv_reg = m->xpmem_attach + faults;
            pl->est_delta -= faults; /* UCX's selection does not see them */
        }
        pl->latency = 0;
        pl->ack_latency = l->latency;
        pl->progress = m->progress ? m->progress | TS_PROG_RECV_DATA : 0;
        break;
    case TS_PROTO_RNDV_AM:
        /* RTR back, then the data as bcopy fragments with a copy on each side. */
        pl->fragments = fragments(size, l->seg_size);
        pl->send_cpu = m->ovh_rts + (double)pl->fragments * m->ovh_sw;
        pl->rts_latency = l->latency;
        pl->recv_reg = m->ovh_rtr;
        pl->send_copy = size;
        pl->recv_copy = size;
        pl->rtr_latency = l->latency;
        pl->latency = l->latency;
        pl->ack_latency = l->latency;
        pl->progress = both_sides(m->progress);
        wqes = 1 + pl->fragments;
        break;
    default:
        break;
    }
    if (ts_proto_is_rndv(proto)) {
        pl->handshake = m->rndv_ovh + (pl->transport == TS_TR_CMA ? m->cma_ovh : 0);
        pl->busy_cost = m->rndv_busy;
        pl->written_cost = m->rndv_written;
    }
    pl->send_cpu += m->send_call;
    pl->recv_cpu = m->recv_call;
    pl->pml_recv = m->pml_recv;
    if (l->net && !l->loopback) {
        pl->send_cpu += wqes * l->wqe;
        pl->recv_cpu += wqes * l->wqe;
    }
    if (!l->net)
        on_host_copies(pl);
    loopback_wire(pl, l->loopback);
}

/* Candidate of each priority class at this size, or -1 when the lane cannot do it. */
static int candidate(const ts_proto_model_t *m, const lane_t *l, int cls, uint64_t size)
{
    unsigned caps = ts__transports[l->eager].caps;
    switch (cls) {
    case 0:
        return (caps & CAP_SHORT) && size <= l->max_short ? TS_PROTO_EAGER_SHORT : -1;
    case 1:
        return (caps & CAP_BCOPY) ? TS_PROTO_EAGER_BCOPY : -1;
    case 2:
        return (caps & CAP_ZCOPY) && !ts__transports[l->eager].on_host ? TS_PROTO_EAGER_ZCOPY : -1;
    default:
        return (int)rndv_scheme(m, l);
    }
}

/* The plan of proto at this size and locality, or 0 when it is not available there. */
static int ucx_plan_of(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc,
                       ts_msg_plan_t *pl)
{
    const lane_t *l = &m->lane[loc];
    if (!l->reachable)
        return 0;
    int cls = proto == TS_PROTO_EAGER_SHORT   ? 0
              : proto == TS_PROTO_EAGER_BCOPY ? 1
              : proto == TS_PROTO_EAGER_ZCOPY ? 2
                                              : 3;
    if (candidate(m, l, cls, size) != (int)proto)
        return 0;
    build_plan(m, proto, size, l, pl);
    return 1;
}

/* ts_proto_plan for UCX: the candidates, their thresholds, the fastest estimate. */
static void ucx_plan(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking,
                     ts_msg_plan_t *out)
{
    const lane_t *l = &m->lane[loc];
    uint64_t rndv = m->rndv_thresh[on_host(loc) ? 0 : 1];
    if (blocking && rndv == TS_SIZE_AUTO)
        rndv = m->send_nbr_thresh;
    const uint64_t thresh[4] = {TS_SIZE_AUTO, m->bcopy_thresh, m->zcopy_thresh, rndv};
    int cand[4], forced = -1;
    for (int c = 0; c < 4; c++) {
        cand[c] = candidate(m, l, c, size);
        if (thresh[c] == TS_SIZE_INF || (thresh[c] != TS_SIZE_AUTO && size < thresh[c]))
            cand[c] = -1;
        else if (thresh[c] != TS_SIZE_AUTO && cand[c] >= 0)
            forced = c;
    }
    int best = -1;
    double best_t = 0;
    for (int c = 0; c < 4; c++) {
        if (cand[c] < 0 || c < forced)
            continue;
        ts_msg_plan_t pl;
        build_plan(m, (ts_proto)cand[c], size, l, &pl);
        double t = est_time(&pl, size);
        if (best < 0 || t < best_t) { /* ties keep the lower priority, as UCX lists them */
            best = c;
            best_t = t;
            *out = pl;
        }
    }
    if (best < 0) /* every candidate disabled: UCX still sends, as rendezvous */
        build_plan(m, rndv_scheme(m, l), size, l, out);
}

static ts_status ucx_check(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err)
{
    if (loc >= 0 && loc < TS_LOC__COUNT && m->lane[loc].reachable)
        return TS_OK;
    return ts_error_set(
        err, TS_EARG, "UCX_TLS leaves no transport for %s peers (enable %s)", ts_locality_name(loc),
        on_host(loc) ? "sm, posix, sysv or a network transport" : "rc, dc, ud or tcp");
}

static int ucx_reachable(const ts_proto_model_t *m, ts_locality loc)
{
    return m->lane[loc].reachable;
}

const ts__p2p_ops_t ts__p2p_ucx = {.word = "UCX_TLS",
                                   .reachable = ucx_reachable,
                                   .check = ucx_check,
                                   .plan = ucx_plan,
                                   .plan_of = ucx_plan_of};
