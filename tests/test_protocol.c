/* test_protocol.c - the UCX protocol model against numbers derived by hand. Every test sets
 * round model constants first (tu_round_params, testutil.h), so the expected boundaries
 * follow from the formulas in models/protocol.c:
 *   latency L = 2 us, network bandwidth B = 1e10 B/s, UCX_BCOPY_BW C = 5e9 B/s,
 *   registration R = 1.0001 us (0 per byte; the 0.0001 keeps crossovers off whole bytes,
 *   so no test depends on how a floating-point tie falls), overheads 0, rc max_short 1000 B.
 *   short  (s <= 1000): L + s/B
 *   bcopy:  L + 2s/C + s/B          = 2us      + 5e-10 s
 *   zcopy:  L + R + s/C + s/B       = 3.0001us + 3e-10 s  (receiver copies out)
 *           + L under UCX_PROTO_ENABLE=y (the default: the ack UCX v2 waits for)
 *                                   = 5.0001us + 3e-10 s
 *   rndv:   L(RTS) + 2L + 2R + s/B  = 8.0002us + 1e-10 s  (get_zcopy on rc)
 * Selection v1 (UCX_PROTO_ENABLE=n): bcopy = zcopy at s = 5000.5 and zcopy = rndv at
 * s = 25000.5, so with everything auto, off-host: short to 1000, bcopy to 5000, zcopy to
 * 25000, rendezvous from 25001. v2: all three meet at s = 15000.5, so bcopy to 15000 and
 * rendezvous from 15001; eager zcopy only where a threshold forces it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocheck.h"
#include "testutil.h"

/* UCX's protocol selection v1 (UCX before 1.16), where eager zcopy has a range of its own. */
static const char *const sel_v1[][2] = {{"UCX_PROTO_ENABLE", "n"}};

static void test_auto_boundaries_off_host(void)
{
    ts_proto_model_t *m = model_with(NULL, 0); /* v2 */
    ts_locality loc = TS_LOC_SAME_LEAF;
    CHECK_PROTO(m, 1000, loc, 0, TS_PROTO_EAGER_SHORT);
    CHECK_PROTO(m, 1001, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 15000, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 15001, loc, 0, TS_PROTO_RNDV_GET);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_ZCOPY, 10000, loc), 8.0001e-6,
                           1e-12);
    /* the ack is in the choice only: what the engine charges is v1's */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m, TS_PROTO_EAGER_ZCOPY, 10000, loc), 6.0001e-6, 1e-12);
    ts_proto_model_free(m);
    m = model_with(sel_v1, 1);
    CHECK_PROTO(m, 0, loc, 0, TS_PROTO_EAGER_SHORT);
    CHECK_PROTO(m, 1000, loc, 0, TS_PROTO_EAGER_SHORT);
    CHECK_PROTO(m, 1001, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 5000, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 5001, loc, 0, TS_PROTO_EAGER_ZCOPY);
    CHECK_PROTO(m, 25000, loc, 0, TS_PROTO_EAGER_ZCOPY);
    CHECK_PROTO(m, 25001, loc, 0, TS_PROTO_RNDV_GET);
    /* The estimates themselves, in seconds. */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_SHORT, 1000, loc), 2.1e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 4000, loc), 4e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_ZCOPY, 10000, loc), 6.0001e-6,
                           1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_RNDV_GET, 20000, loc), 10.0002e-6, 1e-12);
    CU_ASSERT(ts_proto_estimate(m, TS_PROTO_EAGER_SHORT, 1001, loc) < 0); /* too long */
    ts_proto_model_free(m);
}

/* UCX's selection prices a network registration as its cache's lookup (it assumes a hit);
 * the plan still carries the miss's cost, which the engine charges when the cache misses. */
static void test_registration_estimate(void)
{
    static const char *const lookup[][2] = {{"model.ucx.rcache_overhead", "50ns"},
                                            {"UCX_PROTO_ENABLE", "n"}};
    ts_proto_model_t *m = model_with(lookup, 2);
    ts_locality loc = TS_LOC_SAME_LEAF;
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_ZCOPY, 10000, loc),
                           6.0001e-6 - 1.0001e-6 + 50e-9, 1e-12);
    /* rendezvous get: both sides register */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_RNDV_GET, 20000, loc),
                           10.0002e-6 - 2 * 1.0001e-6 + 2 * 50e-9, 1e-12);
    ts_msg_plan_t pl;
    ts_proto_plan(m, 10000, loc, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_ZCOPY);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_reg, 1.0001e-6, 1e-15);
    /* bcopy (4 us at 4,000 B) now loses to zcopy (2 us + 0.4 us + 0.05 us + 0.8 us copy-out) */
    CHECK_PROTO(m, 4000, loc, 0, TS_PROTO_EAGER_ZCOPY);
    ts_proto_model_free(m);
}

/* xpmem's page faults: a 1 MiB rkey_ptr rendezvous maps 256 pages plus one for alignment; at
 * 0.25 us a page the receiver's mapping costs attach 1.0001 us + 257 x 0.25 us = 65.2501 us,
 * which the plan pays and UCX's estimate (the protocol choice) does not see. */
static void test_xpmem_faults(void)
{
    ts_proto_model_t *m0 = model_with(NULL, 0);
    static const char *const fault[][2] = {{"model.xpmem.fault_cost", "0.25us"}};
    ts_proto_model_t *m = model_with(fault, 1);
    ts_msg_plan_t pl;
    ts_proto_plan(m, 1 << 20, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_RKEY_PTR);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_reg, 1.0001e-6 + 257 * 0.25e-6, 1e-12);
    ts_proto_plan(m, 4096, TS_LOC_SAME_NUMA, 0, &pl); /* 1 page + 1 */
    if (pl.proto == TS_PROTO_RNDV_RKEY_PTR)
        CU_ASSERT_DOUBLE_EQUAL(pl.recv_reg, 1.0001e-6 + 2 * 0.25e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_RNDV_RKEY_PTR, 1 << 20, TS_LOC_SAME_NUMA),
                           ts_proto_estimate(m0, TS_PROTO_RNDV_RKEY_PTR, 1 << 20, TS_LOC_SAME_NUMA),
                           1e-15);
    for (uint64_t s = 64; s <= (1u << 20); s *= 2)
        CU_ASSERT_EQUAL(proto_at(m, s, TS_LOC_SAME_NUMA, 0), proto_at(m0, s, TS_LOC_SAME_NUMA, 0));
    ts_proto_model_free(m);
    ts_proto_model_free(m0);
}

static void test_rendezvous_plan(void)
{
    ts_proto_model_t *m = model_with(NULL, 0);
    ts_msg_plan_t pl;
    ts_proto_plan(m, 1 << 20, TS_LOC_CROSS_SPINE, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_GET);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_RC);
    CU_ASSERT_DOUBLE_EQUAL(pl.rts_latency, 3e-6, 1e-12); /* across the spine */
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 6e-6, 1e-12);     /* read request + data */
    CU_ASSERT_DOUBLE_EQUAL(pl.ack_latency, 3e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_reg, 1.0001e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_reg, 1.0001e-6, 1e-12);
    CU_ASSERT_EQUAL(pl.wire_bytes, 1 << 20);
    CU_ASSERT_EQUAL(pl.completes_locally, 0);
    ts_proto_plan(m, 3000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.send_copy, 3000);
    CU_ASSERT_EQUAL(pl.recv_copy, 3000);
    CU_ASSERT_EQUAL(pl.completes_locally, 1);
    ts_proto_model_free(m);
    /* A bcopy of several 8 KiB segments: the first at model.ucx.overhead_single (5 ns), each
     * further one at overhead_multi (10 ns); every other per-message cost at nothing. */
    const char *const bc[][2] = {{"UCX_BCOPY_THRESH", "0"},
                                 {"UCX_ZCOPY_THRESH", "inf"},
                                 {"UCX_RNDV_THRESH", "inf"},
                                 {"model.ucx.overhead_single", "5ns"},
                                 {"model.ucx.overhead_multi", "10ns"}};
    m = model_with(bc, 5);
    ts_proto_plan(m, 8192, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 5e-9, 1e-15);
    ts_proto_plan(m, 24576, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 25e-9, 1e-15);
    ts_proto_model_free(m);
}

/* Where an unexpected eager message waits (UCP keeps the transport's receive descriptor when
 * it is handed over: mm bcopy, rc / ud / dc; not the FIFO's inline shorts, tcp or self), and
 * which on-host plans move bytes through the platform (only a copy charged nowhere else). */
static void test_unexpected_and_on_host_flows(void)
{
    ts_proto_model_t *m = model_with(sel_v1, 1); /* v1: an auto zcopy range off-host */
    ts_msg_plan_t pl;
    ts_proto_plan(m, 80, TS_LOC_SAME_NUMA, 0, &pl); /* posix short: inline in the FIFO */
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_SHORT);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 80);
    CU_ASSERT_EQUAL(pl.wire_bytes, 80);
    ts_proto_plan(m, 500, TS_LOC_SAME_NUMA, 0, &pl); /* posix bcopy: a descriptor */
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_POSIX);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 0);
    CU_ASSERT_EQUAL(pl.send_copy, 500);
    CU_ASSERT_EQUAL(pl.recv_copy, 500);
    CU_ASSERT_EQUAL(pl.wire_bytes, 0);                   /* the two copies are the whole move */
    ts_proto_plan(m, 1 << 20, TS_LOC_SAME_NUMA, 0, &pl); /* xpmem rkey_ptr: the read is a flow */
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_RKEY_PTR);
    CU_ASSERT_EQUAL(pl.recv_copy, 0);
    CU_ASSERT_EQUAL(pl.wire_bytes, 1 << 20);
    ts_proto_plan(m, 500, TS_LOC_SAME_LEAF, 0, &pl); /* rc short, bcopy, zcopy */
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_SHORT);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 0);
    ts_proto_plan(m, 3000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 0);
    CU_ASSERT_EQUAL(pl.wire_bytes, 3000); /* off-host: the NICs carry it */
    ts_proto_plan(m, 12000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_ZCOPY);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 0);
    ts_proto_model_free(m);
    static const char *const tcp[][2] = {{"UCX_TLS", "self,tcp"}, {"UCX_ZCOPY_THRESH", "inf"}};
    m = model_with(tcp, 2);
    ts_proto_plan(m, 3000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_TCP);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 3000); /* copied aside out of tcp's buffer */
    ts_proto_plan(m, 500, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_SHORT);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 500);
    ts_proto_model_free(m);
}

/* Set thresholds: exactly at, one below, one above. */
static void test_set_thresholds(void)
{
    const char *const rndv8k[][2] = {{"UCX_RNDV_THRESH", "inter:8kb"}, {"UCX_PROTO_ENABLE", "n"}};
    ts_proto_model_t *m = model_with(rndv8k, 2);
    CHECK_PROTO(m, 8191, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_ZCOPY);
    CHECK_PROTO(m, 8192, TS_LOC_SAME_LEAF, 0, TS_PROTO_RNDV_GET);
    CHECK_PROTO(m, 8193, TS_LOC_SAME_LEAF, 0, TS_PROTO_RNDV_GET);
    CHECK_PROTO(m, 500, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_SHORT);
    ts_proto_model_free(m);

    /* The reference's consequence: ZCOPY 128kb + RNDV inter:128kb: short, bcopy up to
     * 128 KiB - 1, rendezvous; eager zcopy never (ucx-protocols.md). */
    const char *const t0[][2] = {{"UCX_ZCOPY_THRESH", "128kb"},
                                 {"UCX_RNDV_THRESH", "intra:128kb,inter:128kb"}};
    m = model_with(t0, 2);
    CHECK_PROTO(m, 1000, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_SHORT);
    CHECK_PROTO(m, 1001, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 131071, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 131072, TS_LOC_SAME_LEAF, 0, TS_PROTO_RNDV_GET);
    ts_proto_model_free(m);

    const char *const inf[][2] = {{"UCX_RNDV_THRESH", "inf"}};
    m = model_with(inf, 1);
    CHECK_PROTO(m, (uint64_t)1 << 30, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_ZCOPY);
    ts_proto_model_free(m);
}

/* Models alike for a replay's questions: thresholds matter only for the sizes asked. */
static void test_models_alike(void)
{
    const char *const r64[][2] = {{"UCX_RNDV_THRESH", "inter:64kb"}};
    const char *const r128[][2] = {{"UCX_RNDV_THRESH", "inter:128kb"}};
    const char *const reuse[][2] = {{"UCX_RNDV_THRESH", "inter:64kb"},
                                    {"model.net.rcache", "none"}};
    ts_proto_model_t *a = model_with(r64, 1), *b = model_with(r128, 1), *c = model_with(reuse, 2);
    ts_proto_model_t *d = model_with(NULL, 0);
    /* 16 KB off the node and 100 KB on it: eager under both thresholds (the on-host one is
     * auto in both) */
    ts_plan_ask_t small[] = {{16384, TS_LOC_SAME_LEAF, 0}, {100000, TS_LOC_SAME_NUMA, 0}};
    CU_ASSERT_TRUE(ts_proto_model_alike(a, b, small, 2));
    CU_ASSERT_FALSE(ts_proto_model_same(a, b));
    /* 100 KB off the node: rendezvous under 64kb, eager under 128kb */
    ts_plan_ask_t mid[] = {{16384, TS_LOC_SAME_LEAF, 0}, {100000, TS_LOC_SAME_LEAF, 1}};
    CU_ASSERT_FALSE(ts_proto_model_alike(a, b, mid, 2));
    /* 200 KB: rendezvous under both, forced by either threshold */
    ts_plan_ask_t big[] = {{200000, TS_LOC_SAME_LEAF, 0}};
    CU_ASSERT_TRUE(ts_proto_model_alike(a, b, big, 1));
    /* HCOLL's shared-memory steps do not depend on UCX's thresholds */
    ts_plan_ask_t shared[] = {{100000, TS_LOC_SAME_NUMA, 2}};
    CU_ASSERT_TRUE(ts_proto_model_alike(a, b, shared, 1));
    /* Registration reuse differs: never alike, whatever is asked */
    CU_ASSERT_FALSE(ts_proto_model_alike(a, c, small, 2));
    CU_ASSERT_FALSE(ts_proto_model_alike(a, c, NULL, 0));
    /* The cost of a rendezvous of freshly reduced data is the plan's: models that differ in it
     * differ where a rendezvous is asked, not where only eager messages are */
    const char *const written[][2] = {{"UCX_RNDV_THRESH", "inter:64kb"},
                                      {"model.ucx.rndv_written_cost", "3us"}};
    ts_proto_model_t *w = model_with(written, 2);
    CU_ASSERT_FALSE(ts_proto_model_alike(a, w, big, 1));
    ts_plan_ask_t eager[] = {{1024, TS_LOC_SAME_LEAF, 0}};
    CU_ASSERT_TRUE(ts_proto_model_alike(a, w, eager, 1));
    ts_proto_model_free(w);
    /* Between registered buffers (kind 3): the plan without its registrations, the same
     * protocol; a 200 KB rendezvous off the node registers at both ends otherwise. */
    ts_msg_plan_t x, y;
    ts_proto_plan(a, 200000, TS_LOC_SAME_LEAF, 0, &x);
    ts_proto_plan_registered(a, 200000, TS_LOC_SAME_LEAF, &y);
    CU_ASSERT(x.send_reg > 0 && x.recv_reg > 0);
    CU_ASSERT(y.send_reg == 0 && y.recv_reg == 0);
    CU_ASSERT(x.proto == y.proto && x.latency == y.latency && x.wire_bytes == y.wire_bytes);
    ts_plan_ask_t reg[] = {{200000, TS_LOC_SAME_LEAF, 3}};
    CU_ASSERT_TRUE(ts_proto_model_alike(a, b, reg, 1));
    /* HCOLL's shared memory (kinds 2, 4 and 5): copied in by the sender and out by the receiver,
     * or read from the sender's buffer (the receiver's copy only); the same latency. */
    ts_msg_plan_t sh, rd;
    ts_proto_plan_kind(a, 4096, TS_LOC_CROSS_SOCKET, TS_PLAN_SHARED, &sh);
    ts_proto_plan_kind(a, 4096, TS_LOC_CROSS_SOCKET, TS_PLAN_SHARED_READ, &rd);
    CU_ASSERT(sh.send_copy == 4096 && sh.recv_copy == 4096);
    CU_ASSERT(rd.send_copy == 0 && rd.recv_copy == 4096);
    CU_ASSERT(rd.latency == sh.latency && rd.latency > 0 && rd.wire_bytes == 0);
    /* reduced in place by the receiver (kind 5): the copy in only */
    ts_proto_plan_kind(a, 4096, TS_LOC_CROSS_SOCKET, TS_PLAN_SHARED_WRITE, &rd);
    CU_ASSERT(rd.send_copy == 4096 && rd.recv_copy == 0 && rd.latency == sh.latency);
    /* auto against 64kb off the node: at 500 B UCX's estimate picks eager short, as the
     * threshold leaves it to: alike; the models themselves differ */
    ts_plan_ask_t tiny[] = {{500, TS_LOC_SAME_LEAF, 0}, {0, TS_LOC_SAME_LEAF, 1}};
    CU_ASSERT_TRUE(ts_proto_model_alike(a, d, tiny, 2));
    CU_ASSERT_FALSE(ts_proto_model_same(a, d));
    ts_proto_model_free(a);
    ts_proto_model_free(b);
    ts_proto_model_free(c);
    ts_proto_model_free(d);
}

/* MPI_Send-like sends use UCX_RNDV_SEND_NBR_THRESH (256 KiB) while UCX_RNDV_THRESH is auto. */
static void test_blocking_sends(void)
{
    ts_proto_model_t *m = model_with(NULL, 0);
    CHECK_PROTO(m, 100000, TS_LOC_SAME_LEAF, 0, TS_PROTO_RNDV_GET);
    CHECK_PROTO(m, 100000, TS_LOC_SAME_LEAF, 1, TS_PROTO_EAGER_ZCOPY);
    CHECK_PROTO(m, 262143, TS_LOC_SAME_LEAF, 1, TS_PROTO_EAGER_ZCOPY);
    CHECK_PROTO(m, 262144, TS_LOC_SAME_LEAF, 1, TS_PROTO_RNDV_GET);
    ts_proto_model_free(m);
}

static void test_on_host_and_transports(void)
{
    ts_proto_model_t *m = model_with(NULL, 0);
    ts_msg_plan_t pl;
    /* Shared memory: no eager zcopy; rendezvous by xpmem's rkey_ptr. */
    ts_proto_plan(m, 100, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_SHORT);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_POSIX);
    CHECK_PROTO(m, 101, TS_LOC_SAME_NUMA, 0, TS_PROTO_EAGER_BCOPY);
    for (uint64_t s = 101; s < (1u << 24); s *= 3)
        CU_ASSERT_NOT_EQUAL(proto_at(m, s, TS_LOC_CROSS_SOCKET, 0), TS_PROTO_EAGER_ZCOPY);
    ts_proto_plan(m, 1 << 22, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_RKEY_PTR);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_XPMEM);
    ts_proto_model_free(m);
    /* Not even where zcopy is asked for from 0 B and rendezvous never (v1, where zcopy has a
     * range of its own): on-host lanes copy, off-host ones take zcopy. */
    const char *const zc[][2] = {
        {"UCX_PROTO_ENABLE", "n"}, {"UCX_ZCOPY_THRESH", "0"}, {"UCX_RNDV_THRESH", "inf"}};
    m = model_with(zc, 3);
    for (int loc = TS_LOC_SELF; loc <= TS_LOC_CROSS_SOCKET; loc++)
        CU_ASSERT_NOT_EQUAL(proto_at(m, 65536, (ts_locality)loc, 0), TS_PROTO_EAGER_ZCOPY);
    CHECK_PROTO(m, 65536, TS_LOC_SAME_LEAF, 0, TS_PROTO_EAGER_ZCOPY);
    /* A set threshold forces only a protocol the lane has: posix has no zcopy, so
     * UCX_ZCOPY_THRESH=0 drops nothing below it there, and with rendezvous off bcopy is all
     * that is left (not the rendezvous UCX falls back to when every candidate is gone). */
    CHECK_PROTO(m, 65536, TS_LOC_SAME_NUMA, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 100, TS_LOC_SAME_NUMA, 0, TS_PROTO_EAGER_SHORT); /* max_short 100 B */
    ts_proto_model_free(m);

    /* The on-host lanes' latencies by distance: a set cross-socket latency (0.9 us) is the
     * lane's own; the cross-NUMA default (0.3 us) lies below model.shm.latency (0.5 us in the
     * round constants), and a farther pair is never faster, so it is raised to 0.5 us. */
    const char *const far[][2] = {{"model.shm.cross_socket_latency", "0.9us"},
                                  {"model.hcoll.sm_latency", "0.2us"}};
    m = model_with(far, 2);
    ts_proto_plan(m, 64, TS_LOC_CROSS_SOCKET, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_SHORT);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 0.9e-6, 1e-15);
    ts_proto_plan(m, 64, TS_LOC_SAME_SOCKET, 0, &pl);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 0.5e-6, 1e-15);
    /* HCOLL's shared-memory step pays what a farther pair adds beyond a same-NUMA one:
     * 0.2 us + (0.9 - 0.5) us across sockets; across NUMA domains nothing (0.3 us is below
     * 0.5 us, and a farther pair is never faster). Its data moves by the two copies only. */
    ts_proto_plan_shared(m, 64, TS_LOC_CROSS_SOCKET, &pl);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 0.6e-6, 1e-15);
    CU_ASSERT(pl.send_copy == 64 && pl.recv_copy == 64 && pl.wire_bytes == 0);
    ts_proto_plan_shared(m, 64, TS_LOC_SAME_SOCKET, &pl);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 0.2e-6, 1e-15);
    /* Data read in place from the shared buffer costs only the receiver's copy out; data
     * written straight into it, only the sender's copy in. */
    ts_proto_plan_kind(m, 64, TS_LOC_SAME_NUMA, TS_PLAN_SHARED_READ, &pl);
    CU_ASSERT(pl.send_copy == 0 && pl.recv_copy == 64);
    ts_proto_plan_kind(m, 64, TS_LOC_SAME_NUMA, TS_PLAN_SHARED_WRITE, &pl);
    CU_ASSERT(pl.send_copy == 64 && pl.recv_copy == 0);
    ts_proto_model_free(m);

    /* ud has no RDMA: a rendezvous (forced here by a set threshold; with auto, eager zcopy's
     * single copy beats active messages' two) goes over active messages. */
    const char *const ud[][2] = {{"UCX_TLS", "self,sm,ud"}, {"UCX_RNDV_THRESH", "inter:64kb"}};
    m = model_with(ud, 2);
    ts_proto_plan(m, 1 << 22, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_UD);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    ts_proto_model_free(m);

    /* Without a network transport off-host peers are unreachable; without shared memory
     * on-host peers loop back through the network transport. */
    const char *const sm[][2] = {{"UCX_TLS", "self,sm"}};
    m = model_with(sm, 1);
    ts_error_t err;
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_NUMA, &err), TS_OK);
    CU_ASSERT_NOT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "UCX_TLS"));
    ts_proto_model_free(m);
    const char *const tcp[][2] = {{"UCX_TLS", "self,tcp"}};
    m = model_with(tcp, 1);
    ts_proto_plan(m, 64, TS_LOC_CROSS_SOCKET, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_TCP);
    ts_proto_model_free(m);
}

static void test_bcopy_bw_auto(void)
{
    /* UCX_BCOPY_BW=auto is UCX's own figure, the table's default (7,000 MB/s). */
    const char *const autobw[][2] = {{"UCX_BCOPY_BW", "auto"}};
    ts_proto_model_t *m = model_with(autobw, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 4000, TS_LOC_SAME_LEAF),
                           2e-6 + 2 * 4000 / 7e9 + 4000 / 1e10, 1e-15);
    ts_proto_model_free(m);
}

static void test_print_ranges(void)
{
    for (int v = 2; v >= 1; v--) {
        ts_proto_model_t *m = model_with(v == 1 ? sel_v1 : NULL, v == 1 ? 1 : 0);
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        ts_proto_model_print(m, fp);
        fclose(fp);
        CU_ASSERT_PTR_NOT_NULL(strstr(
            buf, v == 1 ? "same_leaf     MPI_Isend  0-1000 eager short/rc_mlx5, "
                          "1001-5000 eager bcopy/rc_mlx5, 5001-25000 eager "
                          "zcopy/rc_mlx5, 25001+ rndv get_zcopy/rc_mlx5\n"
                        : "same_leaf     MPI_Isend  0-1000 eager short/rc_mlx5, "
                          "1001-15000 eager bcopy/rc_mlx5, 15001+ rndv get_zcopy/rc_mlx5\n"));
        free(buf);
        ts_proto_model_free(m);
    }
}

static void test_on_host_cma_copies(void)
{
    /* UCX_TLS=self,sysv,cma (what this project's machine has, without xpmem): rendezvous is
     * get_zcopy over cma and the receiver's copy of the data runs at model.shm.bandwidth
     * (1e10 B/s here); estimate: 2L (0.5 us each) + RTS L + s/B (copy) + s/B (route). */
    const char *const tls[][2] = {{"UCX_TLS", "self,sysv,cma"}, {"UCX_RNDV_THRESH", "16kb"}};
    ts_proto_model_t *m = model_with(tls, 2);
    ts_msg_plan_t pl;
    ts_proto_plan(m, 100000, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_GET);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_CMA);
    CU_ASSERT_EQUAL(pl.recv_copy, 100000);
    CU_ASSERT_DOUBLE_EQUAL(pl.copy_bw, 1e10, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_RNDV_GET, 100000, TS_LOC_SAME_NUMA),
                           1.5e-6 + 2 * 100000 / 1e10, 1e-15);
    ts_proto_model_free(m);

    /* UCX_TLS=self,tcp between ranks of one host: tcp over the kernel's loopback, the data's
     * time at model.tcp.bandwidth counted in flight. */
    const char *const tcp[][2] = {{"UCX_TLS", "self,tcp"},
                                  {"model.tcp.bandwidth", "1000MB/s"},
                                  {"model.tcp.latency", "20us"}};
    m = model_with(tcp, 3);
    ts_proto_plan(m, 500, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_TCP);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 20e-6 + 500 / 1e9, 1e-15);
    ts_proto_plan(m, 500, TS_LOC_SAME_LEAF, 0, &pl); /* off-host: the platform's link */
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 20e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.bandwidth, 1e9, 1);
    ts_proto_model_free(m);
}

/* The handshake's software (model.ucx.rndv_overhead, model.cma.overhead) is what the
 * message pays beyond UCX's estimate: it must not move UCX's choice (the thresholds stay
 * where UCX's own estimate puts them), and ts_proto_cost adds exactly it, to rendezvous only. */
static void test_handshake_outside_choice(void)
{
    const char *const base[][2] = {{"UCX_TLS", "self,sysv,cma"}};
    const char *const big[][2] = {{"UCX_TLS", "self,sysv,cma"},
                                  {"model.ucx.rndv_overhead", "50us"},
                                  {"model.cma.overhead", "7us"}};
    ts_proto_model_t *m0 = model_with(base, 1), *m1 = model_with(big, 3);
    for (uint64_t size = 1000; size <= 1000000; size += 997) {
        ts_msg_plan_t a, b;
        ts_proto_plan(m0, size, TS_LOC_SAME_NUMA, 0, &a);
        ts_proto_plan(m1, size, TS_LOC_SAME_NUMA, 0, &b);
        CU_ASSERT_EQUAL(a.proto, b.proto);
        CU_ASSERT_DOUBLE_EQUAL(b.handshake, ts_proto_is_rndv(b.proto) ? 57e-6 : 0.0, 1e-18);
        ts_proto_plan(m1, size, TS_LOC_SAME_LEAF, 0, &b);
        CU_ASSERT_DOUBLE_EQUAL(b.handshake, ts_proto_is_rndv(b.proto) ? 50e-6 : 0.0, 1e-18);
    }
    double est = ts_proto_estimate(m1, TS_PROTO_RNDV_GET, 100000, TS_LOC_SAME_NUMA);
    CU_ASSERT(est > 0);
    /* On-host, cma's one kernel copy and the FIFO's two copies are the CPUs' work: UCX's
     * estimate adds the interface's wire time s/B (B = 1e10 B/s) on top, the cost does not. */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m1, TS_PROTO_RNDV_GET, 100000, TS_LOC_SAME_NUMA),
                           est + 57e-6 - 100000 / 1e10, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(
        ts_proto_cost(m1, TS_PROTO_EAGER_BCOPY, 4000, TS_LOC_SAME_NUMA),
        ts_proto_estimate(m1, TS_PROTO_EAGER_BCOPY, 4000, TS_LOC_SAME_NUMA) - 4000 / 1e10, 1e-15);
    /* Off-host the NICs carry the data: cost and estimate agree for eager. */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m1, TS_PROTO_EAGER_BCOPY, 4000, TS_LOC_SAME_LEAF),
                           ts_proto_estimate(m1, TS_PROTO_EAGER_BCOPY, 4000, TS_LOC_SAME_LEAF),
                           1e-15);
    CU_ASSERT(ts_proto_cost(m1, TS_PROTO_RNDV_RKEY_PTR, 100000, TS_LOC_SAME_NUMA) < 0);
    ts_proto_model_free(m0);
    ts_proto_model_free(m1);
}

/* Which steps wait for an MPI call (model.mpi.progress = calls): rkey_ptr's copy runs from
 * the receiver's progress loop; an RDMA read's ATS leaves when the receiver reaps the read's
 * completion; cma's read completes inside the call. With async, none. */
static void test_progress_bits(void)
{
    const char *const calls[][2] = {{"UCX_RNDV_THRESH", "1kb"}};
    const char *const async[][2] = {{"UCX_RNDV_THRESH", "1kb"}, {"model.mpi.progress", "async"}};
    const char *const cma[][2] = {{"UCX_RNDV_THRESH", "1kb"}, {"UCX_TLS", "self,sysv,cma"}};
    ts_proto_model_t *m = model_with(calls, 1);
    ts_msg_plan_t pl;
    ts_proto_plan(m, 100000, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_RKEY_PTR);
    CU_ASSERT_EQUAL(pl.progress, TS_PROG_RECV | TS_PROG_RECV_DATA);
    ts_proto_plan(m, 100000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_GET);
    CU_ASSERT_EQUAL(pl.progress, TS_PROG_RECV | TS_PROG_ACK);
    ts_proto_model_free(m);
    m = model_with(cma, 2);
    ts_proto_plan(m, 100000, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_CMA);
    CU_ASSERT_EQUAL(pl.progress, TS_PROG_RECV);
    ts_proto_model_free(m);
    m = model_with(async, 2);
    ts_proto_plan(m, 100000, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.progress, 0);
    ts_proto_plan(m, 100000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.progress, 0);
    ts_proto_model_free(m);
}

static ts_transport transport_at(const ts_proto_model_t *m, uint64_t size, ts_locality loc)
{
    ts_msg_plan_t pl;
    ts_proto_plan(m, size, loc, 0, &pl);
    return pl.transport;
}

/* UCX_TLS=all: rc's estimated latency grows 1 ns per expected endpoint, dc's is 60 ns above
 * rc's base, so dc takes the network lane from 61 ranks on (60 is a tie, which rc keeps);
 * self,sm,rc never uses dc. The wire then charges dc's extra latency. */
static void test_dc_at_scale(void)
{
    static const char *const all[][2] = {{"UCX_TLS", "all"}, {"model.dc.extra_latency", "0.25us"}};
    static const char *const rc[][2] = {{"UCX_TLS", "self,sm,rc"},
                                        {"model.dc.extra_latency", "0.25us"}};
    static const char *const eps[][2] = {{"UCX_TLS", "all"}, {"UCX_NUM_EPS", "16"}};
    static const char *const sel[][2] = {{"UCX_TLS", "all"}, {"model.dc.select_latency", "100ns"}};
    const struct {
        const char *const (*set)[2];
        size_t n;
        int world;
        ts_transport want;
    } cases[] = {
        {all, 2, 0, TS_TR_RC},  /* no hint: UCX assumes one endpoint */
        {all, 2, 60, TS_TR_RC}, /* 60 ns each: a tie */
        {all, 2, 61, TS_TR_DC},  {all, 2, 72, TS_TR_DC},  {rc, 2, 72, TS_TR_RC},
        {rc, 2, 4096, TS_TR_RC}, {eps, 2, 72, TS_TR_RC}, /* UCX_NUM_EPS overrides the hint */
        {sel, 2, 72, TS_TR_RC},  {sel, 2, 101, TS_TR_DC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ts_proto_model_t *m = model_for(cases[i].set, cases[i].n, cases[i].world);
        ts_transport got = transport_at(m, 100, TS_LOC_SAME_LEAF);
        if (got != cases[i].want)
            printf("\n  case %zu: %s, expected %s\n", i, ts_transport_name(got),
                   ts_transport_name(cases[i].want));
        CU_ASSERT_EQUAL(got, cases[i].want);
        /* On-host peers stay on shared memory whatever the network lane. */
        CU_ASSERT_EQUAL(transport_at(m, 100, TS_LOC_SAME_NUMA), TS_TR_POSIX);
        ts_proto_model_free(m);
    }
    /* dc's latency: rc's 2 us (round_params) + 0.25 us, off-host only. */
    ts_proto_model_t *d = model_for(all, 2, 72), *r = model_for(rc, 2, 72);
    ts_msg_plan_t pd, pr;
    ts_proto_plan(d, 100, TS_LOC_SAME_LEAF, 0, &pd);
    ts_proto_plan(r, 100, TS_LOC_SAME_LEAF, 0, &pr);
    CU_ASSERT_DOUBLE_EQUAL(pr.latency, 2e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pd.latency, 2.25e-6, 1e-15);
    CU_ASSERT_FALSE(ts_proto_model_same(d, r));
    ts_proto_model_free(d);
    ts_proto_model_free(r);
}

/* Per-call and per-work-request CPU, UD's datagrams, and which rendezvous steps wait for MPI
 * calls: every number derived by hand from the parameters set here. */
static void test_call_and_transport_costs(void)
{
    static const char *const rc[][2] = {
        {"model.ucx.send_call", "0.2us"},   {"model.ucx.recv_call", "0.3us"},
        {"model.rc.wqe_overhead", "40ns"},  {"model.ud.wqe_overhead", "80ns"},
        {"model.ud.extra_latency", "30ns"}, {"model.ud.seg_size", "4096b"},
        {"UCX_TLS", "self,sm,rc"}};
    ts_proto_model_t *m = model_with(rc, sizeof rc / sizeof rc[0]);
    ts_msg_plan_t pl;
    /* rc eager bcopy of 4,000 B: one 8 KiB fragment, one work request each side. */
    ts_proto_plan(m, 4000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.fragments, 1);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 0.2e-6 + 40e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_cpu, 0.3e-6 + 40e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 2e-6, 1e-15);
    /* The estimate UCX's selection compares holds both sides' CPU. */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 4000, TS_LOC_SAME_LEAF),
                           0.5e-6 + 80e-9 + 2e-6 + 4000 / 1e10 + 2 * 4000 / 5e9, 1e-15);
    /* Rendezvous get: RTS + the read on each side; it waits for the receiver's MPI call,
     * and so does its ATS (the read's completion is reaped there). */
    ts_proto_plan(m, 1000000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_GET);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_cpu, 0.3e-6 + 2 * 40e-9, 1e-15);
    CU_ASSERT_EQUAL(pl.progress, TS_PROG_RECV | TS_PROG_ACK);
    /* On-host: shared memory, no work requests. */
    ts_proto_plan(m, 4000, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 0.2e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_cpu, 0.3e-6, 1e-15);
    ts_proto_model_free(m);

    static const char *const ud[][2] = {
        {"model.ucx.send_call", "0.2us"},   {"model.ucx.recv_call", "0.3us"},
        {"model.rc.wqe_overhead", "40ns"},  {"model.ud.wqe_overhead", "80ns"},
        {"model.ud.extra_latency", "30ns"}, {"model.ud.seg_size", "4096b"},
        {"UCX_TLS", "self,sm,ud"},          {"UCX_ZCOPY_THRESH", "128kb"},
        {"UCX_RNDV_THRESH", "128kb"}};
    m = model_with(ud, sizeof ud / sizeof ud[0]);
    /* ud eager bcopy of 10,000 B: three 4,096 B datagrams, 80 ns each on each side, and
     * rc's latency plus 30 ns. */
    ts_proto_plan(m, 10000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_UD);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.fragments, 3);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 0.2e-6 + 3 * 80e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_cpu, 0.3e-6 + 3 * 80e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 2.03e-6, 1e-15);
    /* No RDMA: 200 KB goes by the am rendezvous, 49 datagrams after the RTR, which the
     * sender must see inside an MPI call too. */
    ts_proto_plan(m, 200000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    CU_ASSERT_EQUAL(pl.fragments, 49);
    CU_ASSERT_DOUBLE_EQUAL(pl.rtr_latency, 2.03e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 0.2e-6 + 50 * 80e-9, 1e-15);
    CU_ASSERT_EQUAL(pl.progress, TS_PROG_RECV | TS_PROG_SEND);
    ts_proto_model_free(m);

    /* model.mpi.progress=async: no step waits. */
    static const char *const as[][2] = {{"model.mpi.progress", "async"}};
    m = model_with(as, 1);
    ts_proto_plan(m, 1000000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.progress, 0);
    ts_proto_model_free(m);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("protocol", NULL, NULL);
    CU_add_test(s, "per-call, per-work-request and UD costs; progress",
                test_call_and_transport_costs);
    CU_add_test(s, "auto boundaries off-host", test_auto_boundaries_off_host);
    CU_add_test(s, "models alike for a replay's questions", test_models_alike);
    CU_add_test(s, "UCX_TLS=all: dc takes the network lane at scale", test_dc_at_scale);
    CU_add_test(s, "rendezvous and bcopy plans", test_rendezvous_plan);
    CU_add_test(s, "xpmem page faults paid, not estimated", test_xpmem_faults);
    CU_add_test(s, "registrations estimated as cache hits", test_registration_estimate);
    CU_add_test(s, "set thresholds at, below, above", test_set_thresholds);
    CU_add_test(s, "unexpected messages and on-host flows", test_unexpected_and_on_host_flows);
    CU_add_test(s, "blocking sends", test_blocking_sends);
    CU_add_test(s, "on-host and transports", test_on_host_and_transports);
    CU_add_test(s, "UCX_BCOPY_BW=auto", test_bcopy_bw_auto);
    CU_add_test(s, "protocol ranges report", test_print_ranges);
    CU_add_test(s, "on-host cma copies and tcp loopback", test_on_host_cma_copies);
    CU_add_test(s, "handshake costs stay out of the protocol choice",
                test_handshake_outside_choice);
    CU_add_test(s, "which rendezvous steps wait for an MPI call", test_progress_bits);
    return tu_run_all();
}
