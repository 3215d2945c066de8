/* protocol_ob1.c - Open MPI's pml ob1 over its BTLs (self, vader, tcp), the point-to-point
 * layer behind protocol.h when MCA_PML is ob1: eager within the BTL's eager limit, then a
 * rendezvous by the vader single-copy mechanism or fragments. */
#include "protocol_impl.h"

#include <string.h>

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

ts_status ts__ob1_resolve(ts_proto_model_t *m, const ts_params_t *p, ts_error_t *err)
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
    /* The btl sizes are plain numbers of at least 1 byte: the parameters' parser refuses
     * auto, inf and 0 for them (params_value.c, size_special_ok; params_range.h). */
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

static int ob1_reachable(const ts_proto_model_t *m, ts_locality loc)
{
    return ob1_btl(&m->o, loc) >= 0;
}

static ts_status ob1_check(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err)
{
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

/* ob1 has one path per size: blocking sends take it too. */
static void ob1_plan_of_size(const ts_proto_model_t *m, uint64_t size, ts_locality loc,
                             int blocking, ts_msg_plan_t *out)
{
    (void)blocking;
    ob1_plan(&m->o, size, loc, out);
}

static int ob1_plan_of(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc,
                       ts_msg_plan_t *pl)
{
    if (ob1_btl(&m->o, loc) < 0)
        return 0;
    ob1_plan(&m->o, size, loc, pl);
    return pl->proto == proto;
}

const ts__p2p_ops_t ts__p2p_ob1 = {.word = "btl",
                                   .reachable = ob1_reachable,
                                   .check = ob1_check,
                                   .plan = ob1_plan_of_size,
                                   .plan_of = ob1_plan_of};
