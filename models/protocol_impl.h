/* protocol_impl.h - private to the point-to-point models: what protocol.c (the public
 * functions of protocol.h) shares with the layers behind it, UCX's (protocol_ucx.c), ob1's
 * (protocol_ob1.c) and MXM's (protocol_mxm.c): the transports' capabilities, the model's
 * state, the table of functions each layer fills, and the small helpers they use. */
#ifndef TS_PROTOCOL_IMPL_H
#define TS_PROTOCOL_IMPL_H

#include <stdint.h>
#include <string.h>

#include "protocol.h"

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

extern const tr_info_t ts__transports[TS_TR__COUNT];

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

/* MXM under pml yalla (used instead of the UCX lanes when MCA_PML is yalla). */
enum { MXM_SELF = 1 << 0, MXM_SHM = 1 << 1, MXM_UD = 1 << 2, MXM_RC = 1 << 3, MXM_DC = 1 << 4 };

typedef struct mxm_s {
    unsigned tls; /* MXM_* bits of MXM_TLS; 0 while MXM_TLS is auto (unknown) */
    uint64_t shm_rndv, rndv, zcopy, hard_zcopy, ud_hard_zcopy, ud_mss; /* auto: unknown */
    uint64_t ud_seg, net_seg;
    double send_call, recv_call, rndv_ovh, kcopy_ovh;
    double shm_lat[TS_LOC__COUNT], shm_bw;
    double net_lat, spine_lat, net_bw, ud_extra, dc_extra, rc_wqe, ud_wqe;
    unsigned progress;
} mxm_t;

/* A point-to-point layer: how its model answers protocol.h's questions. */
typedef struct ts__p2p_ops_s {
    const char *word; /* what leaves a locality class unreachable: "UCX_TLS", "btl" */
    int (*reachable)(const ts_proto_model_t *m, ts_locality loc);
    /* ts_proto_model_check for a reachable-or-not class (loc is in range) */
    ts_status (*check)(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err);
    /* ts_proto_plan */
    void (*plan)(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking,
                 ts_msg_plan_t *out);
    /* The plan of proto at this size and locality, or 0 when it is not available there. */
    int (*plan_of)(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc,
                   ts_msg_plan_t *pl);
} ts__p2p_ops_t;

extern const ts__p2p_ops_t ts__p2p_ucx, ts__p2p_ob1, ts__p2p_mxm;

struct ts_proto_model_s {
    const ts__p2p_ops_t *ops; /* the point-to-point layer: UCX, ob1 or MXM (MCA_PML) */
    ob1_t o;
    mxm_t x;
    lane_t lane[TS_LOC__COUNT];
    uint64_t rndv_thresh[2]; /* [0] on-host, [1] off-host; TS_SIZE_AUTO / _INF / size */
    uint64_t zcopy_thresh, bcopy_thresh, send_nbr_thresh;
    char rndv_scheme[16];
    double bcopy_bw;
    int proto_v2; /* UCX_PROTO_ENABLE: UCX's protocol selection v2 (UCX 1.16 on) */
    double ovh_single, ovh_multi, ovh_rts, ovh_rtr, ovh_sw;
    double reg_fixed, reg_per_byte; /* a network registration that misses UCX's cache */
    double rcache_ovh;              /* what UCX's estimate puts on one: a cache lookup */
    double xpmem_attach;            /* mapping a peer's buffer not mapped before */
    double xpmem_fault;             /* and the first touch of each of its pages */
    double send_call, recv_call;    /* pml_ucx + UCP per MPI send / receive */
    double pml_recv;                /* pml_ucx's share of recv_call */
    double rndv_ovh, cma_ovh;       /* handshake costs UCX's estimate leaves out */
    double rndv_busy;               /* and the extra one with a computing receiver */
    double rndv_written;            /* and for data a reduction has just written */
    unsigned progress;              /* TS_PROG_* bits rendezvous plans carry */
    double hcoll_sm_lat;            /* one step of HCOLL's shared-memory levels */
    double sm_extra[TS_LOC__COUNT]; /* the on-host latency beyond a same-NUMA pair */
    unsigned tls;
    int est_eps;   /* endpoints UCX expects (UCX_NUM_EPS, or the MPI's hint: its world) */
    int reg_reuse; /* a size stands for a registered buffer (model.net.rcache=size) */
};

/* UCX's lanes of one locality class (protocol_ucx.c); resolved for ob1 too, so that two
 * models compare alike whatever the layer. */
void ts__ucx_resolve_lane(ts_proto_model_t *m, const ts_params_t *p, ts_locality loc);
/* ob1's state from the parameters (protocol_ob1.c). */
ts_status ts__ob1_resolve(ts_proto_model_t *m, const ts_params_t *p, ts_error_t *err);
/* MXM's state from the parameters (protocol_mxm.c); unknown defaults are kept, not refused:
 * the check of a locality class that needs one refuses it. */
ts_status ts__mxm_resolve(ts_proto_model_t *m, const ts_params_t *p, ts_error_t *err);

static inline int on_host(ts_locality loc)
{
    return loc < TS_LOC_SAME_LEAF;
}

static inline uint32_t fragments(uint64_t size, uint64_t seg)
{
    if (seg == 0 || size <= seg)
        return 1;
    uint64_t n = (size + seg - 1) / seg;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* On-host data moves by CPU copies only. Where a plan charges them to the ranks' CPUs
 * (copy-in and copy-out through a shared-memory FIFO, cma's kernel copy), nothing else
 * carries the data: no bytes cross the platform's links as well, which would count a copy
 * twice. Only a copy charged nowhere else (xpmem's rkey_ptr read) stays a flow through the
 * cores' copy links and the node's memory link. */
static inline void on_host_copies(ts_msg_plan_t *pl)
{
    if (pl->send_copy || pl->recv_copy)
        pl->wire_bytes = 0;
}

/* The progress bits of a rendezvous in which the sender acts too (put, am: it must see the
 * RTR), from the model's receiver-only bits. */
static inline unsigned both_sides(unsigned progress)
{
    return progress ? TS_PROG_RECV | TS_PROG_SEND : 0;
}

/* Between ranks of one host no platform link carries the data (the engine moves bytes only
 * between hosts), yet a network transport there still pushes them through the kernel's
 * loopback at the transport's pace: charge that as time in flight. */
static inline void loopback_wire(ts_msg_plan_t *pl, int loopback)
{
    if (!loopback || pl->bandwidth <= 0)
        return;
    pl->latency += (double)pl->wire_bytes / pl->bandwidth;
    pl->bandwidth = 0; /* counted once, in the latency */
}

/* Time of a plan when nothing contends, as UCX's estimates add it up: what the protocol
 * choice compares. The handshake's software cost is not in it (UCX does not know it). */
static inline double plan_time(const ts_msg_plan_t *pl, uint64_t size)
{
    double t = pl->send_cpu + pl->send_reg + pl->recv_reg + pl->rts_latency + pl->rtr_latency +
               pl->latency + pl->recv_cpu + (double)(pl->send_copy + pl->recv_copy) / pl->copy_bw;
    if (pl->bandwidth > 0)
        t += (double)size / pl->bandwidth;
    return t;
}

/* What UCX's protocol selection compares: the plan's time as UCX's estimate differs from it
 * (ts_msg_plan_t.est_delta: registrations priced as a cache hit, src/ucp/proto/proto_init.c
 * ucp_proto_init_add_memreg_time; a zcopy send's ack, ucp_proto_init_add_tl_perf). */
static inline double est_time(const ts_msg_plan_t *pl, uint64_t size)
{
    return plan_time(pl, size) + pl->est_delta;
}

#endif
