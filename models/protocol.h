/* protocol.h - the UCX point-to-point protocol model: for one message (size, where the peer
 * sits, blocking or not) which transport and protocol UCX would choose under a parameter set,
 * and what it costs, as a plan the replay engine executes (sim/ moves the bytes through
 * SimGrid so that flows contend; this file only decides and prices).
 * Follows shared/reference/ucx-protocols.md. Plain C, no SimGrid.
 *
 * With `--mca pml ob1` (MCA_PML = ob1) UCX is not used: messages go through Open MPI's ob1
 * pml over its BTLs (vader on-host, tcp off-host or when vader is excluded), priced the ob1
 * way: eager copy-in / copy-out up to the BTL's eager limit (ob1's match header included),
 * then a rendezvous whose data moves with vader's single copy (CMA, knem: the receiver reads;
 * xpmem: it maps and copies) or, without one (btl_vader_single_copy_mechanism none, tcp), as
 * copy-in / copy-out fragments after the receiver's acknowledgement. The plans reuse the UCX
 * protocol names: eager bcopy, rndv get_zcopy (CMA / knem read), rndv rkey_ptr (xpmem),
 * rndv am (fragments).
 *
 * With `--mca pml yalla` messages go through HPC-X's MXM (protocol_mxm.c, docs/mxm.md): its
 * transports from MXM_TLS, its own thresholds (MXM_SHM_RNDV_THRESH, MXM_RNDV_THRESH,
 * MXM_ZCOPY_THRESH, MXM_*HARD_ZCOPY_THRESH) and ud's segment (MXM_UD_MSS), priced with the
 * same transport costs. MXM's defaults are unknown to tunesim: ts_proto_model_check refuses a
 * locality class whose messages would need one. */
#ifndef TS_PROTOCOL_H
#define TS_PROTOCOL_H

#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"
#include "locality.h"
#include "../params/params.h"

typedef enum ts_transport {
    TS_TR_SELF,
    TS_TR_POSIX,
    TS_TR_SYSV,
    TS_TR_XPMEM,
    TS_TR_CMA,
    TS_TR_KNEM,
    TS_TR_RC,
    TS_TR_UD,
    TS_TR_DC,
    TS_TR_TCP,
    TS_TR_VADER,    /* ob1: Open MPI's shared-memory BTL (FIFOs, CMA / xpmem / knem single copy) */
    TS_TR_TCP_BTL,  /* ob1: Open MPI's tcp BTL */
    TS_TR_HCOLL_SM, /* HCOLL's shared-memory levels: flags in a shared segment, no UCX */
    TS_TR_MXM_SHM,  /* yalla: MXM's shared-memory transport */
    TS_TR_MXM_RC,   /* yalla: MXM's rc, dc and ud transports */
    TS_TR_MXM_DC,
    TS_TR_MXM_UD,
    TS_TR__COUNT
} ts_transport;

typedef enum ts_proto {
    TS_PROTO_EAGER_SHORT,
    TS_PROTO_EAGER_BCOPY,
    TS_PROTO_EAGER_ZCOPY,
    TS_PROTO_RNDV_GET,      /* get_zcopy: receiver reads, then ATS */
    TS_PROTO_RNDV_PUT,      /* put_zcopy: RTR, sender writes, then ATP */
    TS_PROTO_RNDV_RKEY_PTR, /* xpmem: receiver maps the sender's buffer and copies once */
    TS_PROTO_RNDV_AM,       /* data pushed as active messages after RTR (ud, tcp) */
    TS_PROTO__COUNT
} ts_proto;

const char *ts_transport_name(int tr);
const char *ts_proto_name(int proto);
int ts_proto_is_rndv(int proto);

/* What one message costs, in the steps the engine executes. Times in seconds, sizes in
 * bytes. The engine moves `wire_bytes` through the platform route between the two ranks (so
 * that flows share NICs and memory) and charges the rest as delays:
 *  eager:  the sender spends send_cpu + send_copy/copy_bw (+ send_reg unless its
 *          registration cache hits); the data then travels latency + wire time; the send
 *          completes at once (short, bcopy) or ack_latency after arrival (zcopy). The receiver,
 *          once matched, spends recv_copy/copy_bw, plus unexpected_copy/copy_bw if the data
 *          arrived before the receive was posted and UCX copied it aside (0 where it stays in
 *          the transport's receive descriptor). On-host plans that charge their copies to the
 *          CPUs have no wire_bytes: the copies are the whole move.
 *  rndv:   the sender spends send_cpu (+ send_reg); the RTS arrives rts_latency later; once
 *          the receive is matched (and, with TS_PROG_RECV, once the receiver is inside an
 *          MPI call) the receiver spends recv_reg; for put / am the RTR travels rtr_latency
 *          back (and, with TS_PROG_SEND, waits for the sender to be inside an MPI call); the
 *          data travels latency + wire time, the receiver spends recv_copy/copy_bw, and the
 *          send completes ack_latency later.
 *  Every receive also costs recv_cpu in the call that completes it. */
typedef struct ts_msg_plan_s {
    ts_proto proto;
    ts_transport transport;
    uint32_t fragments;       /* fragments of bcopy / zcopy (1 when single) */
    double send_cpu;          /* fixed software overheads at the sender */
    uint64_t send_copy;       /* bytes the sender copies (bcopy copy-in) */
    double send_reg;          /* registration at the sender, skipped on a cache hit */
    uint64_t wire_bytes;      /* bytes through the platform route */
    double latency;           /* one-way latency before the data arrives */
    double bandwidth;         /* per-flow bandwidth cap of the transport, bytes/s */
    uint64_t recv_copy;       /* bytes the receiver copies (bcopy copy-out) */
    uint64_t unexpected_copy; /* extra bytes copied when the message was unexpected */
    double recv_reg;          /* rndv: registration / mapping at the receiver */
    double rts_latency;       /* rndv: RTS one-way */
    double ack_latency;       /* zcopy, rndv: completion notice back to the sender */
    double rtr_latency;       /* rndv put / am: the receiver's RTR (or ob1's ACK) back to the
                               * sender, which then moves the data */
    double recv_cpu;          /* software cost of completing the receive, charged in its wait */
    double handshake;         /* rndv: software of the handshake UCX's estimate leaves out
                               * (model.ucx.rndv_overhead, + model.cma.overhead over cma):
                               * receiver CPU in the call that completes the receive; not part
                               * of the protocol choice */
    double busy_cost;         /* rndv: more receiver CPU when its RTS arrived while the
                               * receiver was computing (model.ucx.rndv_busy_cost) */
    double written_cost;      /* rndv: more receiver CPU when it sends what a reduction of the
                               * same collective has just written (model.ucx.rndv_written_cost) */
    unsigned progress;        /* TS_PROG_* bits: steps that happen only inside an MPI call of
                               * the rank that must act (no progress thread) */
    double est_delta;         /* UCX's estimate less the plan's time: it prices each network
                               * registration as a registration-cache lookup (a hit), does
                               * not see xpmem's page faults, and under its protocol selection
                               * v2 times an eager zcopy send to its remote ack */
    double copy_bw;           /* bytes/s of the copies above (UCX_BCOPY_BW) */
    int completes_locally;    /* the send completes after the sender's own work */
    double pml_recv;          /* the part of recv_cpu that is Open MPI's pml (its request and
                               * MPI_Waitall): not paid by a receive HCOLL or UCC post on
                               * UCX's tag API themselves */
    /* (a field added here is compared in protocol.c's plans_equal too) */
} ts_msg_plan_t;

/* Who must be inside an MPI call for a rendezvous to advance (model.mpi.progress = calls):
 * UCX has no progress thread by default; Open MPI drives it from opal_progress, i.e. only
 * inside MPI calls (ompi/mca/pml/ucx/pml_ucx.c registers its progress function there). */
enum {
    TS_PROG_RECV = 1 << 0, /* the receiver handles the RTS (starts the get / maps / sends RTR) */
    TS_PROG_SEND = 1 << 1, /* the sender handles the RTR and pushes the data (put, am) */
    TS_PROG_RECV_DATA = 1 << 2, /* the receiver's copy itself runs from UCX's progress loop,
                                 * even when its MPI_Irecv matched the RTS (rkey_ptr) */
    TS_PROG_ACK = 1 << 3,       /* the receiver sends the ATS only once it reaps the data's
                                 * completion in its progress loop (get_zcopy over RDMA) */
};

/* The model for one parameter set: transport choice per locality and resolved thresholds.
 * Immutable once built, so one model may serve many replays. */
typedef struct ts_proto_model_s ts_proto_model_t;

/* Build from params (values are copied; params may be freed afterwards) for a job of world
 * ranks (0 when unknown): UCX weighs its network transports by the endpoints it expects. */
ts_status ts_proto_model_new(const ts_params_t *params, int world, ts_proto_model_t **out,
                             ts_error_t *err);
void ts_proto_model_free(ts_proto_model_t *m);

/* Whether a rank's registration of a message size serves every later message of that size
 * (model.net.rcache=size), or every zero-copy / rendezvous buffer is registered anew (none). */
int ts_proto_reg_reuse(const ts_proto_model_t *m);

/* Whether a and b plan every message alike: equal in everything but a UCX_TLS list that
 * resolved to the same transports (UCX_TLS=all and self,sm,rc on a node whose network
 * transport is rc). A sweep may replay such sets once. */
int ts_proto_model_same(const ts_proto_model_t *a, const ts_proto_model_t *b);
/* A hash of what ts_proto_model_same compares: equal for models that plan alike, so that
 * thousands of sets are grouped by looking up, not by comparing each with every other. */
uint64_t ts_proto_model_hash(const ts_proto_model_t *m);

/* The kinds of message a replay asks the model to plan (ts_proto_plan_kind). */
enum {
    TS_PLAN_ISEND = 0,        /* MPI_Isend (ts_proto_plan, blocking 0) */
    TS_PLAN_BLOCKING = 1,     /* a blocking send (ts_proto_plan, blocking 1) */
    TS_PLAN_SHARED = 2,       /* a step of HCOLL's shared memory (ts_proto_plan_shared) */
    TS_PLAN_REGISTERED = 3,   /* between registered buffers (ts_proto_plan_registered) */
    TS_PLAN_SHARED_READ = 4,  /* a shared-memory step read from the sender's buffer: no copy in */
    TS_PLAN_SHARED_WRITE = 5, /* a shared-memory step reduced in place: no copy out */
    TS_PLAN__COUNT
};

/* One question a replay asks the model: the plan of a message of bytes to a peer at loc, of a
 * kind TS_PLAN_*. */
typedef struct ts_plan_ask_s {
    uint64_t bytes;
    ts_locality loc;
    int kind;
} ts_plan_ask_t;

/* Whether a and b answer each of the n questions with the same plan and reuse registrations
 * alike: a replay that asked only these then runs alike under both, whatever else differs in
 * them (UCX_RNDV_THRESH=64kb and 128kb send a 16 KB message the same way). */
int ts_proto_model_alike(const ts_proto_model_t *a, const ts_proto_model_t *b,
                         const ts_plan_ask_t *asks, size_t n);

/* TS_OK if UCX_TLS leaves a transport for peers at loc; else an error saying which. */
ts_status ts_proto_model_check(const ts_proto_model_t *m, ts_locality loc, ts_error_t *err);

/* Plan one message of size bytes to a peer at loc. blocking: the send is MPI_Send-like
 * (UCX_RNDV_SEND_NBR_THRESH applies while UCX_RNDV_THRESH is auto). */
void ts_proto_plan(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int blocking,
                   ts_msg_plan_t *out);

/* The estimated one-way time UCX's selection uses for proto at this size and locality, or a
 * negative value when the protocol is not available there. Exposed for tests and reports. */
double ts_proto_estimate(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc);

/* The one-way time the model charges for proto when nothing contends: UCX's estimate plus the
 * costs UCX's estimate leaves out (the rendezvous handshake's software), with the data's wire
 * time only where it crosses the platform (not for on-host copies charged to the CPUs). What
 * a ping-pong measures, so what a calibration fits; negative where proto is not available. */
double ts_proto_cost(const ts_proto_model_t *m, ts_proto proto, uint64_t size, ts_locality loc);

/* Print the chosen protocol per size range for each locality class, like UCX_PROTO_INFO. */
void ts_proto_model_print(const ts_proto_model_t *m, FILE *fp);

/* The plan of one step of HCOLL's shared-memory levels (a collective's step inside a node,
 * not an MPI message): the sender copies its data into the shared segment and raises a flag,
 * the receiver sees the flag after model.hcoll.sm_latency (plus the on-host extra latency of
 * its locality) and copies the data out. No UCX or MPI per-message software. A step whose data
 * already lies in the sender's buffer (TS_PLAN_SHARED_READ) has no copy in; one the receiver
 * reduces in place (TS_PLAN_SHARED_WRITE) no copy out (ts_proto_plan_kind). */
void ts_proto_plan_shared(const ts_proto_model_t *m, uint64_t size, ts_locality loc,
                          ts_msg_plan_t *out);

/* The plan of a non-blocking send whose buffers were registered before, at both ends (HCOLL's
 * own payload buffers, model.hcoll.net_buffers): ts_proto_plan's, without the registrations
 * (what a registration-cache hit leaves). The protocol choice is UCX's, which prices every
 * registration as a hit anyway. */
void ts_proto_plan_registered(const ts_proto_model_t *m, uint64_t size, ts_locality loc,
                              ts_msg_plan_t *out);

/* The plan of a message of a kind TS_PLAN_*: whichever of the functions above answers it. */
void ts_proto_plan_kind(const ts_proto_model_t *m, uint64_t size, ts_locality loc, int kind,
                        ts_msg_plan_t *out);

#endif
