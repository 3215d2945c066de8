/* protocol_mxm.c - HPC-X's MXM under Open MPI's pml yalla, the point-to-point layer behind
 * protocol.h when MCA_PML is yalla: MXM's transports from MXM_TLS, its own eager / rendezvous
 * and bcopy / zero-copy thresholds, priced with the transports' existing costs (docs/mxm.md).
 *
 * What the model rests on is MXM 3.6's public configuration header (HPC-X v1.8.2,
 * mxm/api/mxm_config.h and mxm_def.h): every transport (self, shm, rc, dc, ud) carries its
 * own rndv_thresh, zcopy_thresh ("checking" zero copy), hard_zcopy_thresh ("employing" it)
 * and mss (a maximal segment "limited by the hardware"), and the transports rank self, shm,
 * rc, dc, ud from highest priority to lowest. MXM's library is closed and its defaults appear
 * in no source found: each threshold defaults to auto (unknown), and a locality class whose
 * messages would need an unknown one is refused by mxm_check rather than priced by a guess. */
#include "protocol_impl.h"

#include <stdio.h>
#include <string.h>

/* MXM_TLS's words: MXM's transports by name. */
static const struct {
    const char *name;
    unsigned bit;
} MXM_WORDS[] = {
    {"self", MXM_SELF}, {"shm", MXM_SHM}, {"ud", MXM_UD}, {"rc", MXM_RC}, {"dc", MXM_DC}};

/* MXM_TLS as bits; 0 for auto (unknown); -1 with the bad word in bad for a word that is not
 * an MXM transport (MXM has no tcp, posix or ^ exclusion). */
static int parse_tls(const char *s, unsigned *out, char *bad, size_t n)
{
    *out = 0;
    if (strcmp(s, "auto") == 0)
        return 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof MXM_WORDS / sizeof MXM_WORDS[0]; i++)
            if (strlen(MXM_WORDS[i].name) == len && strncmp(s, MXM_WORDS[i].name, len) == 0)
                bit = MXM_WORDS[i].bit;
        if (!bit) {
            snprintf(bad, n, "%.*s", (int)(len < 30 ? len : 30), s);
            return -1;
        }
        *out |= bit;
        s += len;
        if (*s == ',')
            s++;
    }
    return *out ? 1 : -1;
}

/* A size parameter, or the fallback's value while it is auto (MXM reads a transport's own
 * variable, e.g. MXM_SHM_RNDV_THRESH, over the one of every transport). */
static uint64_t size_or(const ts_params_t *p, ts_param_id id, ts_param_id fallback)
{
    uint64_t v = ts_params_size(p, id, 0);
    return v == TS_SIZE_AUTO ? ts_params_size(p, fallback, 0) : v;
}

ts_status ts__mxm_resolve(ts_proto_model_t *m, const ts_params_t *p, ts_error_t *err)
{
    mxm_t *x = &m->x;
    const char *tls = ts_params_str(p, TS_P_MXM_TLS);
    char bad[32] = "";
    int r = parse_tls(tls, &x->tls, bad, sizeof bad);
    if (r < 0)
        return ts_error_set(err, TS_EARG,
                            "MXM_TLS=%s: '%s' is not an MXM transport (expected a comma list "
                            "of self, shm, ud, rc, dc)",
                            tls, bad);
    x->shm_rndv = size_or(p, TS_P_MXM_SHM_RNDV_THRESH, TS_P_MXM_RNDV_THRESH);
    x->rndv = TS_PARAM_SIZE(p, MXM_RNDV_THRESH);
    x->zcopy = TS_PARAM_SIZE(p, MXM_ZCOPY_THRESH);
    x->hard_zcopy = TS_PARAM_SIZE(p, MXM_HARD_ZCOPY_THRESH);
    x->ud_hard_zcopy = size_or(p, TS_P_MXM_UD_HARD_ZCOPY_THRESH, TS_P_MXM_HARD_ZCOPY_THRESH);
    x->ud_mss = TS_PARAM_SIZE(p, MXM_UD_MSS);
    /* The header says the segment used is limited by the hardware: a UD datagram carries at
     * most the path MTU (model.ud.seg_size), so a larger MXM_UD_MSS (8mb) sends MTU-sized
     * datagrams. rc and dc segments are MXM's own and unknown: the IB segment stands in. */
    uint64_t mtu = TS_PARAM_SIZE(p, UD_SEG_SIZE);
    x->ud_seg =
        x->ud_mss == TS_SIZE_AUTO || x->ud_mss == TS_SIZE_INF || x->ud_mss > mtu ? mtu : x->ud_mss;
    x->net_seg = ts_params_size(p, TS_P_NET_SEG_SIZE, 0);
    x->send_call = TS_PARAM_SECONDS(p, MXM_SEND_CALL);
    x->recv_call = TS_PARAM_SECONDS(p, MXM_RECV_CALL);
    x->rndv_ovh = TS_PARAM_SECONDS(p, MXM_RNDV_OVERHEAD);
    /* MXM's shm moves rendezvous data with a kernel copy (knem, mxm_def.h's kcopy modes; users
     * turn it off with MXM_SHM_KCOPY_MODE=off, so it is on unless told): one system call, as
     * cma's, measured for UCX. */
    x->kcopy_ovh = TS_PARAM_SECONDS(p, CMA_OVERHEAD);
    double same = TS_PARAM_SECONDS(p, SHM_LATENCY);
    for (int loc = 0; loc < TS_LOC__COUNT; loc++)
        x->shm_lat[loc] = same;
    x->shm_lat[TS_LOC_SAME_SOCKET] = TS_PARAM_SECONDS(p, SHM_CROSS_NUMA_LATENCY);
    x->shm_lat[TS_LOC_CROSS_SOCKET] = TS_PARAM_SECONDS(p, SHM_CROSS_SOCKET_LATENCY);
    for (int loc = 0; loc < TS_LOC__COUNT; loc++)
        if (x->shm_lat[loc] < same)
            x->shm_lat[loc] = same; /* a farther pair is never faster (protocol_ucx.c) */
    x->shm_bw = TS_PARAM_BW(p, SHM_BW);
    x->net_lat = TS_PARAM_SECONDS(p, NET_LATENCY);
    x->spine_lat = TS_PARAM_SECONDS(p, NET_SPINE_LATENCY);
    x->net_bw = TS_PARAM_BW(p, NET_BW);
    x->ud_extra = TS_PARAM_SECONDS(p, UD_EXTRA_LATENCY);
    x->dc_extra = TS_PARAM_SECONDS(p, DC_EXTRA_LATENCY);
    x->rc_wqe = TS_PARAM_SECONDS(p, RC_WQE_OVERHEAD);
    x->ud_wqe = TS_PARAM_SECONDS(p, UD_WQE_OVERHEAD);
    x->progress = m->progress;
    if (x->shm_bw <= 0 || x->net_bw <= 0)
        return ts_error_set(err, TS_EARG,
                            "pml yalla: model.shm.bandwidth and model.net.bandwidth must be "
                            "bandwidths, not auto");
    return TS_OK;
}

/* The MXM transport for peers at loc, or -1: self for the rank itself, shm on-host, then the
 * network transport of highest priority (rc, dc, ud), also on-host when shm is left out. */
static int mxm_transport(const mxm_t *x, ts_locality loc)
{
    if (loc == TS_LOC_SELF && (x->tls & MXM_SELF))
        return TS_TR_SELF;
    if (on_host(loc) && (x->tls & MXM_SHM))
        return TS_TR_MXM_SHM;
    if (x->tls & MXM_RC)
        return TS_TR_MXM_RC;
    if (x->tls & MXM_DC)
        return TS_TR_MXM_DC;
    if (x->tls & MXM_UD)
        return TS_TR_MXM_UD;
    return -1;
}

/* Why peers at loc cannot be priced: an unreachable class, or an unknown default its
 * transport needs. NULL when they can. */
static const char *mxm_unknown(const mxm_t *x, ts_locality loc, char *buf, size_t n)
{
    if (!x->tls) {
        snprintf(buf, n,
                 "pml yalla: MXM_TLS is auto, MXM's own default, which no source gives; set "
                 "it (e.g. -x MXM_TLS=self,shm,ud)");
        return buf;
    }
    int tr = mxm_transport(x, loc);
    if (tr < 0) {
        snprintf(buf, n, "pml yalla: MXM_TLS leaves no transport for %s peers (enable %s)",
                 ts_locality_name(loc), on_host(loc) ? "shm, rc, dc or ud" : "rc, dc or ud");
        return buf;
    }
    const char *need = NULL;
    if (tr == TS_TR_MXM_SHM && x->shm_rndv == TS_SIZE_AUTO)
        need = "MXM_SHM_RNDV_THRESH (or MXM_RNDV_THRESH)";
    else if (tr != TS_TR_MXM_SHM && tr != TS_TR_SELF) {
        if (x->rndv == TS_SIZE_AUTO)
            need = "MXM_RNDV_THRESH";
        else if (x->zcopy == TS_SIZE_AUTO)
            need = "MXM_ZCOPY_THRESH";
        else if (tr == TS_TR_MXM_UD && x->ud_hard_zcopy == TS_SIZE_AUTO)
            need = "MXM_UD_HARD_ZCOPY_THRESH (or MXM_HARD_ZCOPY_THRESH)";
        else if (tr != TS_TR_MXM_UD && x->hard_zcopy == TS_SIZE_AUTO)
            need = "MXM_HARD_ZCOPY_THRESH";
        else if (tr == TS_TR_MXM_UD && x->ud_mss == TS_SIZE_AUTO)
            need = "MXM_UD_MSS";
    }
    if (!need)
        return NULL;
    snprintf(buf, n,
             "pml yalla: %s peers over %s need %s, whose default (auto) is MXM's own and "
             "unknown to tunesim; set it",
             ts_locality_name(loc), ts_transport_name(tr), need);
    return buf;
}

/* A network registration that misses the cache (model.net.reg_cost: the verbs registration
 * UCX prices; MXM registers through the same verbs call). */
static double reg_of(const ts_proto_model_t *m, uint64_t size)
{
    return m->reg_fixed + m->reg_per_byte * (double)size;
}

static uint64_t hard_zcopy_of(const mxm_t *x, int tr)
{
    return tr == TS_TR_MXM_UD ? x->ud_hard_zcopy : x->hard_zcopy;
}

/* Whether size reaches a threshold (inf never does; auto is refused before any plan). */
static int reaches(uint64_t size, uint64_t thresh)
{
    return thresh < TS_SIZE_INF && size >= thresh;
}

/* The network transport's one-way latency, bandwidth and per-fragment work. */
static void net_lane(const mxm_t *x, int tr, ts_locality loc, ts_msg_plan_t *pl, double *wqe,
                     uint64_t *seg)
{
    pl->latency = loc == TS_LOC_CROSS_SPINE ? x->spine_lat : x->net_lat;
    if (tr == TS_TR_MXM_UD)
        pl->latency += x->ud_extra;
    if (tr == TS_TR_MXM_DC)
        pl->latency += x->dc_extra;
    pl->bandwidth = x->net_bw;
    *wqe = tr == TS_TR_MXM_UD ? x->ud_wqe : x->rc_wqe;
    *seg = tr == TS_TR_MXM_UD ? x->ud_seg : x->net_seg;
}

/* The plan of one message (see protocol.h); the class is known to be priceable. */
static void mxm_plan_costs(const ts_proto_model_t *m, uint64_t size, ts_locality loc,
                           ts_msg_plan_t *pl)
{
    const mxm_t *x = &m->x;
    memset(pl, 0, sizeof *pl);
    int tr = mxm_transport(x, loc);
    pl->transport = tr < 0 ? TS_TR_MXM_UD : (ts_transport)tr;
    pl->fragments = 1;
    pl->wire_bytes = size;
    pl->copy_bw = x->shm_bw; /* every copy is a memcpy by a core */
    pl->send_cpu = x->send_call;
    pl->recv_cpu = x->recv_call;
    if (tr == TS_TR_SELF) {
        /* Loopback: one copy from the send buffer to the receive buffer. */
        pl->proto = TS_PROTO_EAGER_BCOPY;
        pl->recv_copy = size;
        pl->completes_locally = 1;
        on_host_copies(pl);
        return;
    }
    if (tr == TS_TR_MXM_SHM) {
        pl->latency = x->shm_lat[loc];
        pl->bandwidth = x->shm_bw;
        if (!reaches(size, x->shm_rndv)) {
            /* Copy-in to the shared segment, copy-out at the receiver. Where an unexpected
             * message waits is not documented: it is taken to stay in the segment. */
            pl->proto = TS_PROTO_EAGER_BCOPY;
            pl->send_copy = size;
            pl->recv_copy = size;
            pl->completes_locally = 1;
        } else {
            /* RTS, then the receiver's one kernel copy (knem) and the completion notice. */
            pl->proto = TS_PROTO_RNDV_GET;
            pl->transport = TS_TR_KNEM;
            pl->rts_latency = pl->latency;
            pl->latency = 0;
            pl->ack_latency = x->shm_lat[loc];
            pl->recv_copy = size;
            pl->progress = x->progress;
            pl->handshake = x->rndv_ovh + x->kcopy_ovh;
        }
        on_host_copies(pl);
        return;
    }
    double wqe;
    uint64_t seg;
    net_lane(x, tr, loc, pl, &wqe, &seg);
    int loopback = on_host(loc);
    double wqes = 1;
    /* Zero copy from the hard threshold on, registering the buffer (a registration-cache
     * miss charged, skipped by the engine on a hit); from the checking threshold on only for
     * a buffer already registered, so nothing is registered there. The first message of a
     * size in between really goes bcopy: left out (docs/mxm.md). */
    int hard = reaches(size, hard_zcopy_of(x, tr));
    int zcopy = hard || reaches(size, x->zcopy);
    double reg = hard ? reg_of(m, size) : 0;
    if (!reaches(size, x->rndv)) {
        pl->fragments = fragments(size, seg);
        wqes = pl->fragments;
        pl->recv_copy = size; /* eager data lands in MXM's receive buffers */
        if (zcopy) {
            pl->proto = TS_PROTO_EAGER_ZCOPY;
            pl->send_reg = reg;
            pl->ack_latency = pl->latency;
        } else {
            pl->proto = TS_PROTO_EAGER_BCOPY;
            pl->send_copy = size;
            pl->completes_locally = 1;
        }
    } else if (tr != TS_TR_MXM_UD) {
        /* rc / dc: RTS, the receiver reads the registered buffer (rndv mode read, the first of
         * mxm_def.h's modes), then the completion notice. */
        double one = reg_of(m, size);
        pl->proto = TS_PROTO_RNDV_GET;
        pl->rts_latency = pl->latency;
        pl->send_reg = one;
        pl->recv_reg = one;
        pl->latency *= 2;
        pl->ack_latency = pl->rts_latency;
        pl->progress = x->progress ? x->progress | TS_PROG_ACK : 0;
        pl->handshake = x->rndv_ovh;
        wqes = 2;
    } else {
        /* ud has no RDMA: RTS, the receiver's reply, then the data as datagrams the receiver
         * copies out (MXM's ud zero-copy receive is left out: whether it is on by default is
         * unknown), copied in at the sender below the zero-copy thresholds. */
        pl->proto = TS_PROTO_RNDV_AM;
        pl->fragments = fragments(size, seg);
        pl->rts_latency = pl->latency;
        pl->rtr_latency = pl->latency;
        pl->ack_latency = pl->latency;
        pl->recv_copy = size;
        pl->send_copy = zcopy ? 0 : size;
        pl->send_reg = reg;
        pl->progress = both_sides(x->progress);
        pl->handshake = x->rndv_ovh;
        wqes = 1 + pl->fragments;
    }
    if (!loopback) {
        pl->send_cpu += wqes * wqe;
        pl->recv_cpu += wqes * wqe;
    }
    loopback_wire(pl, loopback);
}

static int mxm_reachable(const ts_proto_model_t *m, ts_locality loc)
{
    char buf[256];
    return mxm_unknown(&m->x, loc, buf, sizeof buf) == NULL;
}

static ts_status mxm_check(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err)
{
    char buf[256];
    if (loc < 0 || loc >= TS_LOC__COUNT)
        return ts_error_set(err, TS_EARG, "pml yalla: no locality class %d", (int)loc);
    const char *why = mxm_unknown(&m->x, loc, buf, sizeof buf);
    return why ? ts_error_set(err, TS_EARG, "%s", why) : TS_OK;
}

/* MXM has one path per size: blocking sends take it too. A class refused by mxm_check is
 * never planned by a replay; --protocols does not print it. */
static void mxm_plan(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking,
                     ts_msg_plan_t *out)
{
    (void)blocking;
    mxm_plan_costs(m, size, loc, out);
}

static int mxm_plan_of(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc,
                       ts_msg_plan_t *pl)
{
    if (!mxm_reachable(m, loc))
        return 0;
    mxm_plan_costs(m, size, loc, pl);
    return pl->proto == proto;
}

const ts__p2p_ops_t ts__p2p_mxm = {.word = "MXM_TLS",
                                   .reachable = mxm_reachable,
                                   .check = mxm_check,
                                   .plan = mxm_plan,
                                   .plan_of = mxm_plan_of};
