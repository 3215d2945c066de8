/* protocol.c - UCX protocol choice and costs per message (see protocol.h and
 * shared/reference/ucx-protocols.md).
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
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

/* What a transport can do (UCX's interface capabilities, ucx-protocols.md): shared-memory
 * FIFOs have no zero-copy active messages; cma/knem only get/put; ud has no RDMA. */
enum {
    CAP_SHORT = 1 << 0,
    CAP_BCOPY = 1 << 1,
    CAP_ZCOPY = 1 << 2,    /* zero-copy active messages (eager zcopy) */
    CAP_GET = 1 << 3,      /* RDMA read / get_zcopy */
    CAP_PUT = 1 << 4,      /* RDMA write / put_zcopy */
    CAP_RKEY_PTR = 1 << 5, /* map the peer's memory */
};

/* Where an unexpected eager message waits until its receive is posted. UCP keeps it in the
 * transport's own receive buffer when the transport hands that buffer over
 * (UCT_CB_PARAM_FLAG_DESC; UCX src/ucp/core/ucp_request.inl, ucp_recv_desc_init): the data is
 * then copied once, at the match, as an expected message's is. Otherwise UCP copies it aside
 * into a buffer of its own first. Handed over: the shared-memory FIFOs' bcopy descriptors
 * (src/uct/sm/mm/base/mm_iface.c, uct_mm_iface_process_recv), but not their inline short
 * messages, which live in the FIFO element; every receive of rc / dc / ud (rc_mlx5.inl,
 * ud_iface.c), except the few bytes scattered into a 64-byte completion entry, whose copy is
 * left out. Not handed over: tcp's receive buffer (tcp_ep.c) and self's loopback (self.c). */
enum { RX_KEEPS_BCOPY = 1 << 0, RX_KEEPS_SHORT = 1 << 1 };

typedef struct tr_info_s {
    const char *name;
    unsigned tl_bit; /* ts_tl bit in UCX_TLS */
    unsigned caps;
    int on_host;       /* shared-memory transport (on-host peers only) */
    unsigned rx_keeps; /* RX_KEEPS_*: unexpected messages UCP keeps without a copy */
} tr_info_t;

static const tr_info_t TRANSPORTS[TS_TR__COUNT] = {
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
    /* ob1's BTLs: not UCX transports (no UCX_TLS bit); only the ob1 path below uses them. */
    [TS_TR_VADER] = {"vader", 0, 0, 1},
    [TS_TR_TCP_BTL] = {"tcp_btl", 0, 0, 0},
};

/* Preference orders when several transports are enabled. Off-host: RC at small scale, then
 * DC, UD, TCP (UCX's FAQ in ucx-protocols.md). On-host eager: posix then sysv (Open MPI
 * reports posix + xpmem on BM.Optimized3.36), xpmem's FIFO last. */
static const ts_transport NET_ORDER[] = {TS_TR_RC, TS_TR_DC, TS_TR_UD, TS_TR_TCP};
static const ts_transport SHM_EAGER_ORDER[] = {TS_TR_POSIX, TS_TR_SYSV, TS_TR_XPMEM};
static const ts_transport SHM_RNDV_ORDER[] = {TS_TR_XPMEM, TS_TR_CMA, TS_TR_KNEM};

/* Costs of one locality class, resolved from the parameters. */
typedef struct lane_s {
    int reachable;
    ts_transport eager, rndv;
    double latency, bandwidth;
    uint64_t max_short, seg_size;
    double wqe;   /* CPU per fragment posted / received (rc, dc, ud work requests) */
    int net;      /* the eager lane is a network transport */
    int loopback; /* a network transport between ranks of one host (tcp over loopback) */
} lane_t;

static void loopback_wire(ts_msg_plan_t *pl, int loopback);

/* On-host data moves by CPU copies only. Where a plan charges them to the ranks' CPUs
 * (copy-in and copy-out through a shared-memory FIFO, cma's kernel copy), nothing else
 * carries the data: no bytes cross the platform's links as well, which would count a copy
 * twice. Only a copy charged nowhere else (xpmem's rkey_ptr read) stays a flow through the
 * cores' copy links and the node's memory link. */
static void on_host_copies(ts_msg_plan_t *pl)
{
    if (pl->send_copy || pl->recv_copy)
        pl->wire_bytes = 0;
}

/* The progress bits of a rendezvous in which the sender acts too (put, am: it must see the
 * RTR), from the model's receiver-only bits. */
static unsigned both_sides(unsigned progress)
{
    return progress ? TS_PROG_RECV | TS_PROG_SEND : 0;
}

/* ob1 over Open MPI's BTLs (used instead of the UCX lanes when MCA_PML is ob1). */
enum { BTL_SELF = 1 << 0, BTL_VADER = 1 << 1, BTL_TCP = 1 << 2 };
typedef enum { SC_CMA, SC_XPMEM, SC_KNEM, SC_NONE } single_copy_t;

typedef struct ob1_s {
    unsigned btls; /* BTL_* bits the btl MCA parameter leaves */
    single_copy_t single_copy;
    uint64_t vader_eager, vader_max_send, tcp_eager, tcp_max_send, header;
    double overhead; /* ob1's per-message software cost */
    double vader_lat, vader_bw, cma_ovh, cma_bw;
    double cross_numa_extra, cross_socket_extra; /* on-host latency beyond the same NUMA */
    double tcp_lat, tcp_bw, spine_extra;
    unsigned progress; /* TS_PROG_RECV when rendezvous waits for MPI calls */
} ob1_t;

struct ts_proto_model_s {
    int ob1; /* MCA_PML is ob1: plan with `o`, not the UCX lanes */
    ob1_t o;
    lane_t lane[TS_LOC__COUNT];
    uint64_t rndv_thresh[2]; /* [0] on-host, [1] off-host; TS_SIZE_AUTO / _INF / size */
    uint64_t zcopy_thresh, bcopy_thresh, send_nbr_thresh;
    char rndv_scheme[16];
    double bcopy_bw;
    double ovh_single, ovh_multi, ovh_rts, ovh_rtr, ovh_sw;
    double reg_fixed, reg_per_byte;
    double send_call, recv_call; /* pml_ucx + UCP per MPI send / receive */
    double rndv_ovh, cma_ovh;    /* handshake costs UCX's estimate leaves out */
    unsigned progress;           /* TS_PROG_* bits rendezvous plans carry */
    unsigned tls;
};

static const char *const PROTO_NAMES[TS_PROTO__COUNT] = {
    "eager short",    "eager bcopy",   "eager zcopy", "rndv get_zcopy",
    "rndv put_zcopy", "rndv rkey_ptr", "rndv am"};

const char *ts_transport_name(int tr)
{
    return (tr >= 0 && tr < TS_TR__COUNT) ? TRANSPORTS[tr].name : "?";
}

const char *ts_proto_name(int proto)
{
    return (proto >= 0 && proto < TS_PROTO__COUNT) ? PROTO_NAMES[proto] : "?";
}

int ts_proto_is_rndv(int proto)
{
    return proto >= TS_PROTO_RNDV_GET && proto < TS_PROTO__COUNT;
}

static int on_host(ts_locality loc)
{
    return loc < TS_LOC_SAME_LEAF;
}

static int first_enabled(unsigned tls, const ts_transport *order, size_t n, ts_transport *out)
{
    for (size_t i = 0; i < n; i++)
        if (tls & TRANSPORTS[order[i]].tl_bit) {
            *out = order[i];
            return 1;
        }
    return 0;
}

/* Pick the lanes of one locality class and their costs. */
static void resolve_lane(ts_proto_model_t *m, const ts_params_t *p, ts_locality loc)
{
    lane_t *l = &m->lane[loc];
    memset(l, 0, sizeof *l);
    unsigned tls = m->tls;
    ts_transport net;
    int have_net = first_enabled(tls, NET_ORDER, sizeof NET_ORDER / sizeof NET_ORDER[0], &net);
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
    }
    if (loc == TS_LOC_CROSS_SPINE && net == TS_TR_TCP)
        l->latency +=
            ts_params_seconds(p, TS_P_NET_SPINE_LATENCY) - ts_params_seconds(p, TS_P_NET_LATENCY);
    l->seg_size =
        net == TS_TR_UD ? TS_PARAM_SIZE(p, UD_SEG_SIZE) : ts_params_size(p, TS_P_NET_SEG_SIZE, 0);
}

static ts_status ob1_resolve(ts_proto_model_t *m, const ts_params_t *p, ts_error_t *err);

ts_status ts_proto_model_new(const ts_params_t *p, ts_proto_model_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_proto_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    m->tls = ts_params_tls(p);
    m->rndv_thresh[0] = ts_params_size(p, TS_P_UCX_RNDV_THRESH, 0);
    m->rndv_thresh[1] = ts_params_size(p, TS_P_UCX_RNDV_THRESH, 1);
    m->zcopy_thresh = ts_params_size(p, TS_P_UCX_ZCOPY_THRESH, 0);
    m->bcopy_thresh = ts_params_size(p, TS_P_UCX_BCOPY_THRESH, 0);
    m->send_nbr_thresh = ts_params_size(p, TS_P_UCX_RNDV_SEND_NBR_THRESH, 0);
    snprintf(m->rndv_scheme, sizeof m->rndv_scheme, "%s", ts_params_str(p, TS_P_UCX_RNDV_SCHEME));
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
    m->send_call = TS_PARAM_SECONDS(p, UCX_SEND_CALL);
    m->recv_call = TS_PARAM_SECONDS(p, UCX_RECV_CALL);
    m->rndv_ovh = TS_PARAM_SECONDS(p, UCX_RNDV_OVERHEAD);
    m->cma_ovh = TS_PARAM_SECONDS(p, CMA_OVERHEAD);
    m->progress = strcmp(TS_PARAM_ENUM(p, MPI_PROGRESS), "calls") == 0 ? TS_PROG_RECV : 0;
    for (int loc = 0; loc < TS_LOC__COUNT; loc++)
        resolve_lane(m, p, (ts_locality)loc);
    if (strcmp(ts_params_str(p, TS_P_MCA_PML), "ob1") == 0) {
        ts_status st = ob1_resolve(m, p, err);
        if (st != TS_OK) {
            free(m);
            return st;
        }
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

void ts_proto_model_free(ts_proto_model_t *m)
{
    free(m);
}

static int ob1_btl(const ob1_t *o, ts_locality loc);

ts_status ts_proto_model_check(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err)
{
    if (m->ob1) {
        if (loc >= 0 && loc < TS_LOC__COUNT && ob1_btl(&m->o, loc) >= 0)
            return TS_OK;
        return ts_error_set(err, TS_EARG,
                            "pml ob1: the btl parameter leaves no BTL for %s "
                            "peers (enable %s)",
                            ts_locality_name(loc),
                            loc == TS_LOC_SELF ? "self, vader or tcp"
                            : on_host(loc)     ? "vader or tcp"
                                               : "tcp");
    }
    if (loc >= 0 && loc < TS_LOC__COUNT && m->lane[loc].reachable)
        return TS_OK;
    return ts_error_set(
        err, TS_EARG, "UCX_TLS leaves no transport for %s peers (enable %s)", ts_locality_name(loc),
        on_host(loc) ? "sm, posix, sysv or a network transport" : "rc, dc, ud or tcp");
}

static uint32_t fragments(uint64_t size, uint64_t seg)
{
    if (seg == 0 || size <= seg)
        return 1;
    uint64_t n = (size + seg - 1) / seg;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* ---- ob1 -------------------------------------------------------------------------------- */

/* The BTLs Open MPI's `btl` MCA parameter leaves among the modelled ones (self, vader, tcp):
 * "all" (the default), a comma list ("self,vader"), or a list to exclude ("^tcp,openib").
 * Other BTLs (openib, ofi, ...) are not modelled and are ignored. */
static ts_status parse_btls(const char *s, unsigned *out, ts_error_t *err)
{
    static const struct {
        const char *name;
        unsigned bit;
    } KNOWN[] = {{"self", BTL_SELF}, {"vader", BTL_VADER}, {"sm", BTL_VADER}, {"tcp", BTL_TCP}};
    const unsigned all = BTL_SELF | BTL_VADER | BTL_TCP;
    if (strcmp(s, "all") == 0 || s[0] == '\0') {
        *out = all;
        return TS_OK;
    }
    int exclude = s[0] == '^';
    unsigned bits = 0;
    const char *w = s + exclude;
    while (*w) {
        size_t n = strcspn(w, ",");
        for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
            if (strlen(KNOWN[i].name) == n && strncmp(w, KNOWN[i].name, n) == 0)
                bits |= KNOWN[i].bit;
        w += n;
        if (*w == ',')
            w++;
    }
    *out = exclude ? all & ~bits : bits;
    if (!*out)
        return ts_error_set(err, TS_EARG,
                            "btl=%s: leaves none of the BTLs ob1 is modelled with (self, vader, "
                            "tcp)",
                            s);
    return TS_OK;
}

static ts_status ob1_resolve(ts_proto_model_t *m, const ts_params_t *p, ts_error_t *err)
{
    ob1_t *o = &m->o;
    ts_status st = parse_btls(ts_params_str(p, TS_P_MCA_BTL), &o->btls, err);
    if (st != TS_OK)
        return st;
    const char *sc = ts_params_str(p, TS_P_MCA_BTL_VADER_SINGLE_COPY_MECHANISM);
    o->single_copy = strcmp(sc, "xpmem") == 0  ? SC_XPMEM
                     : strcmp(sc, "knem") == 0 ? SC_KNEM
                     : strcmp(sc, "none") == 0 ? SC_NONE
                                               : SC_CMA;
    o->vader_eager = TS_PARAM_SIZE(p, MCA_BTL_VADER_EAGER_LIMIT);
    o->vader_max_send = TS_PARAM_SIZE(p, MCA_BTL_VADER_MAX_SEND_SIZE);
    o->tcp_eager = TS_PARAM_SIZE(p, MCA_BTL_TCP_EAGER_LIMIT);
    o->tcp_max_send = TS_PARAM_SIZE(p, MCA_BTL_TCP_MAX_SEND_SIZE);
    o->header = TS_PARAM_SIZE(p, OB1_MATCH_HEADER);
    const uint64_t sizes[] = {o->vader_eager, o->vader_max_send, o->tcp_eager, o->tcp_max_send};
    const char *names[] = {"btl_vader_eager_limit", "btl_vader_max_send_size",
                           "btl_tcp_eager_limit", "btl_tcp_max_send_size"};
    for (int i = 0; i < 4; i++)
        if (sizes[i] == TS_SIZE_AUTO || sizes[i] == TS_SIZE_INF || sizes[i] == 0)
            return ts_error_set(err, TS_EARG,
                                "%s: Open MPI takes a size in bytes here, not "
                                "auto, inf or 0",
                                names[i]);
    o->overhead = TS_PARAM_SECONDS(p, OB1_OVERHEAD);
    o->vader_lat = TS_PARAM_SECONDS(p, VADER_LATENCY);
    o->vader_bw = TS_PARAM_BW(p, VADER_BANDWIDTH);
    o->cma_ovh = TS_PARAM_SECONDS(p, VADER_CMA_OVERHEAD);
    o->cma_bw = TS_PARAM_BW(p, VADER_CMA_BANDWIDTH);
    o->tcp_lat = TS_PARAM_SECONDS(p, TCP_BTL_LATENCY);
    o->tcp_bw = TS_PARAM_BW(p, TCP_BTL_BANDWIDTH);
    if (o->vader_bw <= 0 || o->cma_bw <= 0 || o->tcp_bw <= 0)
        return ts_error_set(err, TS_EARG,
                            "model.vader.bandwidth, model.vader.cma_bandwidth "
                            "and model.tcp_btl.bandwidth must be bandwidths, not auto");
    /* The placement's latency steps apply to vader as they do to UCX's shared memory. */
    double shm = TS_PARAM_SECONDS(p, SHM_LATENCY);
    o->cross_numa_extra = TS_PARAM_SECONDS(p, SHM_CROSS_NUMA_LATENCY) - shm;
    o->cross_socket_extra = TS_PARAM_SECONDS(p, SHM_CROSS_SOCKET_LATENCY) - shm;
    o->spine_extra = TS_PARAM_SECONDS(p, NET_SPINE_LATENCY) - TS_PARAM_SECONDS(p, NET_LATENCY);
    o->progress = m->progress;
    m->ob1 = 1;
    return TS_OK;
}

/* The BTL ob1 uses for peers at loc, or -1: self for the rank itself, vader on-host, tcp
 * off-host and on-host when vader is excluded. */
static int ob1_btl(const ob1_t *o, ts_locality loc)
{
    if (loc == TS_LOC_SELF && (o->btls & BTL_SELF))
        return TS_TR_SELF;
    if (on_host(loc) && (o->btls & BTL_VADER))
        return TS_TR_VADER;
    if (o->btls & BTL_TCP)
        return TS_TR_TCP_BTL;
    return -1;
}

/* ob1's plan (see protocol.h): eager while the payload and ob1's match header fit the BTL's
 * eager limit; then a rendezvous. */
static void ob1_plan_costs(const ob1_t *o, uint64_t size, ts_locality loc, ts_msg_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    int btl = ob1_btl(o, loc);
    pl->transport = btl < 0 ? TS_TR_TCP_BTL : (ts_transport)btl;
    pl->fragments = 1;
    pl->wire_bytes = size;
    pl->send_cpu = o->overhead;
    if (btl == TS_TR_SELF) {
        /* Loopback: one copy from the send buffer to the receive buffer. */
        pl->proto = TS_PROTO_EAGER_BCOPY;
        pl->latency = o->overhead;
        pl->bandwidth = o->vader_bw;
        pl->copy_bw = o->vader_bw;
        pl->recv_copy = size;
        pl->completes_locally = 1;
        return;
    }
    int vader = btl == TS_TR_VADER;
    double lat = vader ? o->vader_lat : o->tcp_lat;
    if (vader && loc == TS_LOC_SAME_SOCKET)
        lat += o->cross_numa_extra;
    else if (vader && loc == TS_LOC_CROSS_SOCKET)
        lat += o->cross_socket_extra;
    else if (!vader && loc == TS_LOC_CROSS_SPINE)
        lat += o->spine_extra;
    uint64_t eager = vader ? o->vader_eager : o->tcp_eager;
    pl->latency = lat;
    pl->bandwidth = vader ? o->vader_bw : o->tcp_bw;
    /* tcp: the copies into and out of the kernel's socket buffers run at the socket's pace. */
    pl->copy_bw = vader ? o->vader_bw : o->tcp_bw;
    if (size + o->header <= eager) {
        /* Copy-in to a shared-memory fragment (or the socket), copy-out at the receiver; an
         * unexpected fragment is first copied aside by ob1 and copied again at the match. */
        pl->proto = TS_PROTO_EAGER_BCOPY;
        pl->send_copy = size;
        pl->recv_copy = size;
        pl->unexpected_copy = size;
        pl->completes_locally = 1;
        loopback_wire(pl, !vader && on_host(loc));
        return;
    }
    pl->rts_latency = lat;
    pl->ack_latency = lat; /* FIN (single copy) or the last fragment's completion */
    if (vader && (o->single_copy == SC_CMA || o->single_copy == SC_KNEM)) {
        /* RGET: the receiver, once matched, reads the sender's buffer with one system call
         * and one kernel copy, then sends FIN. */
        pl->proto = TS_PROTO_RNDV_GET;
        pl->progress = o->progress;
        pl->latency = o->cma_ovh;
        pl->recv_copy = size;
        pl->copy_bw = o->cma_bw;
        return;
    }
    if (vader && o->single_copy == SC_XPMEM) {
        /* The receiver maps the sender's buffer and copies once. */
        pl->proto = TS_PROTO_RNDV_RKEY_PTR;
        pl->progress = o->progress;
        pl->latency = 0;
        pl->recv_copy = size;
        return;
    }
    /* No single copy: RTS, the receiver's ACK, then copy-in / copy-out fragments of the BTL's
     * max send size, each with ob1's overhead. */
    uint64_t frag = vader ? o->vader_max_send : o->tcp_max_send;
    pl->proto = TS_PROTO_RNDV_AM;
    pl->fragments = fragments(size, frag);
    pl->send_cpu = o->overhead * (double)(1 + pl->fragments);
    pl->send_copy = size;
    pl->recv_copy = size;
    pl->rtr_latency = lat; /* the receiver's ACK, which the sender must see to push data */
    pl->latency = lat;
    pl->progress = both_sides(o->progress);
    loopback_wire(pl, !vader && on_host(loc));
}

static void ob1_plan(const ob1_t *o, uint64_t size, ts_locality loc, ts_msg_plan_t *pl)
{
    ob1_plan_costs(o, size, loc, pl);
    if (pl->transport == TS_TR_VADER || pl->transport == TS_TR_SELF)
        on_host_copies(pl);
}

static double reg_cost(const ts_proto_model_t *m, uint64_t size)
{
    return m->reg_fixed + m->reg_per_byte * (double)size;
}

/* The rendezvous scheme on the lane: UCX_RNDV_SCHEME when the transport can do it, else the
 * transport's natural one. */
static ts_proto rndv_scheme(const ts_proto_model_t *m, const lane_t *l)
{
    unsigned caps = TRANSPORTS[l->rndv].caps;
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

/* Between ranks of one host no platform link carries the data (the engine moves bytes only
 * between hosts), yet a network transport there still pushes them through the kernel's
 * loopback at the transport's pace: charge that as time in flight. */
static void loopback_wire(ts_msg_plan_t *pl, int loopback)
{
    if (!loopback || pl->bandwidth <= 0)
        return;
    pl->latency += (double)pl->wire_bytes / pl->bandwidth;
    pl->bandwidth = 0; /* counted once, in the latency */
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
        pl->unexpected_copy = TRANSPORTS[l->eager].rx_keeps & RX_KEEPS_SHORT ? 0 : size;
        pl->completes_locally = 1;
        break;
    case TS_PROTO_EAGER_BCOPY:
        pl->fragments = fragments(size, l->seg_size);
        wqes = pl->fragments;
        pl->send_cpu = m->ovh_single + (double)(pl->fragments - 1) * m->ovh_multi;
        pl->send_copy = size;
        pl->recv_copy = size;
        pl->unexpected_copy = TRANSPORTS[l->eager].rx_keeps & RX_KEEPS_BCOPY ? 0 : size;
        pl->completes_locally = 1;
        break;
    case TS_PROTO_EAGER_ZCOPY:
        /* No copy at the sender, but eager data lands in UCX's receive buffers, so the
         * receiver still copies it out (why UCX's rendezvous estimate compares against
         * min(zcopy bandwidth, UCX_BCOPY_BW)). */
        pl->fragments = fragments(size, l->seg_size);
        wqes = pl->fragments;
        pl->send_cpu = m->ovh_single + (double)(pl->fragments - 1) * m->ovh_multi;
        pl->send_reg = reg_cost(m, size);
        pl->recv_copy = size;
        pl->unexpected_copy = TRANSPORTS[l->eager].rx_keeps & RX_KEEPS_BCOPY ? 0 : size;
        pl->ack_latency = l->latency;
        break;
    case TS_PROTO_RNDV_GET:
    case TS_PROTO_RNDV_PUT:
        /* get: the read request goes out and the data comes back; put: the RTR goes back
         * and the data comes: either way one more one-way latency before the data lands. */
        pl->send_cpu = m->ovh_rts;
        pl->rts_latency = l->latency;
        pl->send_reg = l->net ? reg_cost(m, size) : 0;
        pl->recv_reg = (l->net ? reg_cost(m, size) : 0) + m->ovh_rtr;
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
        pl->recv_reg = reg_cost(m, size);
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
    if (ts_proto_is_rndv(proto))
        pl->handshake = m->rndv_ovh + (pl->transport == TS_TR_CMA ? m->cma_ovh : 0);
    pl->send_cpu += m->send_call;
    pl->recv_cpu = m->recv_call;
    if (l->net && !l->loopback) {
        pl->send_cpu += wqes * l->wqe;
        pl->recv_cpu += wqes * l->wqe;
    }
    if (!l->net)
        on_host_copies(pl);
    loopback_wire(pl, l->loopback);
}

/* Time of a plan when nothing contends, as UCX's estimates add it up: what the protocol
 * choice compares. The handshake's software cost is not in it (UCX does not know it). */
static double plan_time(const ts_msg_plan_t *pl, uint64_t size)
{
    double t = pl->send_cpu + pl->send_reg + pl->recv_reg + pl->rts_latency + pl->rtr_latency +
               pl->latency + pl->recv_cpu + (double)(pl->send_copy + pl->recv_copy) / pl->copy_bw;
    if (pl->bandwidth > 0)
        t += (double)size / pl->bandwidth;
    return t;
}

/* Candidate of each priority class at this size, or -1 when the lane cannot do it. */
static int candidate(const ts_proto_model_t *m, const lane_t *l, int cls, uint64_t size)
{
    unsigned caps = TRANSPORTS[l->eager].caps;
    switch (cls) {
    case 0:
        return (caps & CAP_SHORT) && size <= l->max_short ? TS_PROTO_EAGER_SHORT : -1;
    case 1:
        return (caps & CAP_BCOPY) ? TS_PROTO_EAGER_BCOPY : -1;
    case 2:
        return (caps & CAP_ZCOPY) && !TRANSPORTS[l->eager].on_host ? TS_PROTO_EAGER_ZCOPY : -1;
    default:
        return (int)rndv_scheme(m, l);
    }
}

/* The plan of proto at this size and locality, or 0 when it is not available there. */
static int plan_of(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc,
                   ts_msg_plan_t *pl)
{
    if (m->ob1) {
        if (ob1_btl(&m->o, loc) < 0)
            return 0;
        ob1_plan(&m->o, size, loc, pl);
        return pl->proto == proto;
    }
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

double ts_proto_estimate(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc)
{
    ts_msg_plan_t pl;
    return plan_of(m, proto, size, loc, &pl) ? plan_time(&pl, size) : -1;
}

double ts_proto_cost(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc)
{
    ts_msg_plan_t pl;
    if (!plan_of(m, proto, size, loc, &pl))
        return -1;
    /* What the engine charges, which differs from UCX's estimate in two ways: the handshake's
     * software, and the data's time on the wire only for the bytes that cross the platform
     * (on-host copies charged to the CPUs have none: see on_host_copies). */
    return plan_time(&pl, pl.wire_bytes) + pl.handshake;
}

void ts_proto_plan(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking,
                   ts_msg_plan_t *out)
{
    if (m->ob1) { /* ob1 has one path per size: blocking sends take it too */
        ob1_plan(&m->o, size, loc, out);
        return;
    }
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
        double t = plan_time(&pl, size);
        if (best < 0 || t < best_t) { /* ties keep the lower priority, as UCX lists them */
            best = c;
            best_t = t;
            *out = pl;
        }
    }
    if (best < 0) /* every candidate disabled: UCX still sends, as rendezvous */
        build_plan(m, rndv_scheme(m, l), size, l, out);
}

static int same_choice(const ts_msg_plan_t *a, const ts_msg_plan_t *b)
{
    return a->proto == b->proto && a->transport == b->transport;
}

void ts_proto_model_print(const ts_proto_model_t *m, FILE *fp)
{
    const uint64_t limit = (uint64_t)1 << 40;
    for (int loc = 0; loc < TS_LOC__COUNT; loc++) {
        if (m->ob1 ? ob1_btl(&m->o, (ts_locality)loc) < 0 : !m->lane[loc].reachable) {
            fprintf(fp, "%-13s unreachable with this %s\n", ts_locality_name(loc),
                    m->ob1 ? "btl" : "UCX_TLS");
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
}
