/* test_engine.c - golden tests of the replay engine's point-to-point messages: small
 * synthetic traces on hand-written contention-free (or deliberately shared) platforms
 * (enginerun.h), with predicted times derived by hand from the model's parameters. Its
 * collectives are tested in test_engine_coll.c.
 *
 * One-way message times, receiver already waiting (L, B, C, R: enginerun.h):
 *   eager short s:  L + s/B
 *   eager bcopy s:  s/C (copy-in) + L + s/B + s/C (copy-out) off-host (+ s/C more if
 *                   unexpected over tcp); s/C + L + s/C on-host (no flow)
 *   rendezvous s:   R (send registration) + L (RTS) + R (receive registration)
 *                   + 2L + s/B; the send completes L after the data lands. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enginerun.h"
#include "testutil.h"

static void isend_irecv(tb_t *b, int32_t from, int32_t to, uint64_t size)
{
    call(b, from, b->f_isend,
         (ts_event_t){.kind = TS_EV_ISEND, .peer = to, .tag = 3, .bytes = size, .req = 1});
    call(b, from, b->f_wait, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 1});
    call(b, to, b->f_irecv, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 1});
    call(b, to, b->f_wait,
         (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = from, .tag = 3, .bytes = size, .req = 1});
}

/* Rank 0 sends size bytes to rank 1, which sends them back; both on separate nodes. */
static outcome_t pingpong(uint64_t size)
{
    tb_t b = tb_new(2);
    send_(&b, 0, 1, size);
    recv_(&b, 0, 1, size);
    recv_(&b, 1, 0, size);
    send_(&b, 1, 0, size);
    return replay(&b, TWO_NODES);
}

static void test_pingpong_short(void)
{
    outcome_t o = pingpong(500);
    CHECK_TIME(o, 2 * (L_NET + 500 / B));
    /* What it asked the protocol model: one question, a blocking 500 B send off the node,
     * asked for both directions and kept once; nothing else (tunesim imb's twins). */
    CU_ASSERT_EQUAL(o.nasks, 1);
    CU_ASSERT_TRUE(o.asks_all);
    CU_ASSERT_EQUAL(o.asks[0].bytes, 500);
    CU_ASSERT_EQUAL(o.asks[0].loc, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(o.asks[0].kind, 1);
    /* The sender's CPU share of a short send (model.ucx.overhead_single, 1 us here) is spent
     * before the message leaves: each way 1 us more. */
    static const char *const ovh[] = {"model.ucx.overhead_single", "1us", NULL};
    tb_t b = tb_new(2);
    send_(&b, 0, 1, 500);
    recv_(&b, 0, 1, 500);
    recv_(&b, 1, 0, 500);
    send_(&b, 1, 0, 500);
    o = replay_ex(&b, TWO_NODES, ovh, 0);
    CHECK_TIME(o, 2 * (1e-6 + L_NET + 500 / B));
}

static void test_pingpong_bcopy(void)
{
    /* 1001 B: one above rc's max_short, the first bcopy size. */
    outcome_t o = pingpong(1001);
    CHECK_TIME(o, 2 * (1001 / C + L_NET + 1001 / B + 1001 / C));
}

/* Rank 1 computes 10 us before receiving a 3000 B bcopy message from rank 0, then replies.
 * Over rc the message waits in the receive descriptor rc handed to UCP and costs only its
 * copy-out at the match; over tcp (bcopy forced) UCP first copied it aside out of tcp's
 * receive buffer: one more copy. */
static outcome_t late_bcopy_receiver(const char *const *extra)
{
    tb_t b = tb_new(2);
    send_(&b, 0, 1, 3000);
    recv_(&b, 0, 1, 3000);
    compute(&b, 1, 10000);
    recv_(&b, 1, 0, 3000);
    send_(&b, 1, 0, 3000);
    return replay_ex(&b, TWO_NODES, extra, 0);
}

static void test_unexpected_copy(void)
{
    double reply = 3000 / C + L_NET + 3000 / B + 3000 / C;
    outcome_t o = late_bcopy_receiver(NULL);
    CHECK_TIME(o, 10e-6 + 3000 / C + reply);
    const char *const tcp[] = {"UCX_TLS",
                               "self,tcp",
                               "UCX_ZCOPY_THRESH",
                               "inf",
                               "model.tcp.latency",
                               "2us",
                               "model.tcp.bandwidth",
                               "10000MB/s",
                               NULL};
    o = late_bcopy_receiver(tcp);
    CHECK_TIME(o, 10e-6 + 3000 / C + 3000 / C + reply);
}

/* On one node a bcopy message is moved by its two copies through the shared-memory FIFO:
 * copy-in, the on-host latency, copy-out, and nothing through the platform besides. */
static void test_on_host_bcopy(void)
{
    tb_t b = tb_new(2);
    send_(&b, 0, 1, 3000);
    recv_(&b, 0, 1, 3000);
    recv_(&b, 1, 0, 3000);
    send_(&b, 1, 0, 3000);
    outcome_t o = replay(&b, ONE_NODE);
    CHECK_TIME(o, 2 * (3000 / C + 0.5e-6 + 3000 / C));
}

static void test_rendezvous(void)
{
    /* Isend / Irecv of 100,000 B (above the 15,000 B crossover), both posted at 0. */
    tb_t b = tb_new(2);
    isend_irecv(&b, 0, 1, 100000);
    outcome_t o = replay(&b, TWO_NODES);
    double landed = R + L_NET + R + 2 * L_NET + 100000 / B;
    CHECK_TIME(o, landed + L_NET); /* the sender's completion comes last */
}

static const char *const zcopy8k[] = {"UCX_ZCOPY_THRESH", "8kb", NULL};

static void test_zcopy(void)
{
    /* 12,000 B is eager zcopy from UCX_ZCOPY_THRESH=8kb (auto picks bcopy to 15,000 B and
     * rendezvous above: test_protocol.c): the sender registers, the data lands L + s/B later
     * and the receiver copies it out (s/C); the send completes when the ack is back, L after
     * the data landed. */
    tb_t b = tb_new(2);
    isend_irecv(&b, 0, 1, 12000);
    outcome_t o = replay_ex(&b, TWO_NODES, zcopy8k, 0);
    double landed = R + L_NET + 12000 / B;
    CHECK_TIME(o, landed + 12000 / C);                            /* the receiver ends last */
    CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], landed + L_NET, 1e-12); /* rank 0's completion */
}

/* Two eager zcopy messages of one size in turn: with UCX's registration cache (a size stands
 * for a reused buffer) only the first registers; with every buffer new (model.net.rcache=
 * none, IMB's -off_cache) the second registers too, R more. The protocol choice is the
 * same either way: UCX's estimate assumes a hit. */
static void test_zcopy_registration_reuse(void)
{
    static const char *const none[] = {"model.net.rcache", "none", "UCX_ZCOPY_THRESH", "8kb", NULL};
    tb_t b = tb_new(2);
    isend_irecv(&b, 0, 1, 12000);
    isend_irecv(&b, 0, 1, 12000);
    outcome_t reuse = replay_ex(&b, TWO_NODES, zcopy8k, 0);
    b = tb_new(2);
    isend_irecv(&b, 0, 1, 12000);
    isend_irecv(&b, 0, 1, 12000);
    outcome_t fresh = replay_ex(&b, TWO_NODES, none, 0);
    CU_ASSERT_EQUAL(reuse.status, TS_OK);
    CU_ASSERT_EQUAL(fresh.status, TS_OK);
    CU_ASSERT_DOUBLE_EQUAL(fresh.makespan - reuse.makespan, R, 1e-12);
}

static void test_on_host_rendezvous(void)
{
    /* 1 MB on one node: xpmem's rkey_ptr rendezvous. RTS after the on-host latency, the
     * receiver maps the buffer (R), copies once over the node's route, and the completion
     * reaches the sender 0.5 us later. */
    tb_t b = tb_new(2);
    isend_irecv(&b, 0, 1, 1000000);
    outcome_t o = replay(&b, ONE_NODE);
    CHECK_TIME(o, 0.5e-6 + R + 1000000 / B + 0.5e-6);
}

/* Rank 1 posts its receive of 100,000 B, computes 50 us, then waits; rank 0 sends at 0 and
 * waits. With model.mpi.progress = calls the RTS (at R + L) sits until rank 1 enters its wait
 * at 50 us; then R (receive registration), the read 2L + s/B lands the data at
 * 50 + R + 2L + s/B, and the sender completes L later. With async the data lands at
 * R + L + R + 2L + s/B, long before rank 1 finishes computing at 50 us. */
static outcome_t late_receiver_with(const char *const *extra)
{
    tb_t b = tb_new(2);
    call(&b, 0, b.f_isend,
         (ts_event_t){.kind = TS_EV_ISEND, .peer = 1, .tag = 3, .bytes = 100000, .req = 1});
    call(&b, 0, b.f_wait, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 1});
    call(&b, 1, b.f_irecv, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 1});
    compute(&b, 1, 50000);
    call(&b, 1, b.f_wait,
         (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 0, .tag = 3, .bytes = 100000, .req = 1});
    return replay_ex(&b, TWO_NODES, extra, 0);
}

static outcome_t late_receiver(const char *progress, const char *scheme)
{
    const char *const extra[] = {"model.mpi.progress", progress, "UCX_RNDV_SCHEME", scheme, NULL};
    return late_receiver_with(extra);
}

static void test_rendezvous_waits_for_receiver(void)
{
    outcome_t o = late_receiver("calls", "auto");
    double landed = 50e-6 + R + 2 * L_NET + 100000 / B;
    CHECK_TIME(o, landed + L_NET);
    CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], landed + L_NET, 1e-12);
    o = late_receiver("async", "auto");
    CHECK_TIME(o, 50e-6); /* the receiver's compute is the longest path */
    CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], R + L_NET + R + 2 * L_NET + 100000 / B + L_NET, 1e-12);
}

/* On one node, 100,000 B as rkey_ptr (UCX_RNDV_THRESH=1kb): rank 1 computes 10 us, posts its
 * receive (the RTS has waited since 0.5 us, so MPI_Irecv matches it), computes 50 us, then
 * waits. UCX only queues the copy at the match; it runs from rank 1's progress, i.e. from its
 * wait at 60 us: R (mapping) + s/B (the copy) later the data is there, and the sender's
 * completion follows 0.5 us after. With async progress the copy starts at the match. */
static void test_rkey_ptr_copy_waits_for_progress(void)
{
    for (int async = 0; async < 2; async++) {
        tb_t b = tb_new(2);
        call(&b, 0, b.f_isend,
             (ts_event_t){.kind = TS_EV_ISEND, .peer = 1, .tag = 3, .bytes = 100000, .req = 1});
        call(&b, 0, b.f_wait, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 1});
        compute(&b, 1, 10000);
        call(&b, 1, b.f_irecv, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 1});
        compute(&b, 1, 50000);
        call(
            &b, 1, b.f_wait,
            (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 0, .tag = 3, .bytes = 100000, .req = 1});
        const char *const extra[] = {"UCX_RNDV_THRESH", "1kb", "model.mpi.progress",
                                     async ? "async" : "calls", NULL};
        outcome_t o = replay_ex(&b, ONE_NODE, extra, 0);
        double landed = (async ? 10e-6 : 60e-6) + R + 100000 / B;
        CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], landed + 0.5e-6, 1e-12);
        CHECK_TIME(o, async ? 60e-6 : landed + 0.5e-6);
    }
}

/* The handshake's software is the receiver's CPU in the call that completes the receive: in
 * test_rendezvous's exchange, 3 us of it puts the receiver's end at landed + 3 us, after the
 * sender's completion (landed + L), which it does not delay. */
static void test_handshake_on_receiver_cpu(void)
{
    tb_t b = tb_new(2);
    isend_irecv(&b, 0, 1, 100000);
    const char *const extra[] = {"model.ucx.rndv_overhead", "3us", NULL};
    outcome_t o = replay_ex(&b, TWO_NODES, extra, 0);
    double landed = R + L_NET + R + 2 * L_NET + 100000 / B;
    CHECK_TIME(o, landed + 3e-6);
    CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], landed + L_NET, 1e-12);
}

/* model.ucx.rndv_busy_cost: more receiver CPU for a rendezvous whose RTS found the receiver
 * computing. In late_receiver's exchange the RTS arrives at R + L, inside rank 1's 50 us of
 * compute: 4 us of it puts the run's end (rank 1's) at landed + 4 us; the sender's completion,
 * landed + L, is unchanged. In test_handshake_on_receiver_cpu's exchange the receiver is blocked in
 * its wait when the RTS comes: the same setting changes nothing. IMB's Alltoall and Exchange
 * loops, which never compute, are such exchanges. */
static void test_busy_receiver_cost(void)
{
    const char *const busy[] = {"model.ucx.rndv_busy_cost", "4us", NULL};
    outcome_t o = late_receiver_with(busy);
    double landed = 50e-6 + R + 2 * L_NET + 100000 / B;
    CHECK_TIME(o, landed + 4e-6);
    CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], landed + L_NET, 1e-12);

    tb_t b = tb_new(2);
    isend_irecv(&b, 0, 1, 100000);
    o = replay_ex(&b, TWO_NODES, busy, 0);
    CHECK_TIME(o, R + L_NET + R + 2 * L_NET + 100000 / B + L_NET);
}

/* put_zcopy: the receiver answers the RTS with an RTR; the sender, computing 50 us after its
 * Isend, writes the data only from its wait. Sender: R (registration), then 50 us of compute:
 * it waits from R + 50 us; the RTR was back at R + L + R + L. Data L + s/B later, ack L. */
static void test_put_waits_for_sender(void)
{
    tb_t b = tb_new(2);
    call(&b, 0, b.f_isend,
         (ts_event_t){.kind = TS_EV_ISEND, .peer = 1, .tag = 3, .bytes = 100000, .req = 1});
    compute(&b, 0, 50000);
    call(&b, 0, b.f_wait, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 1});
    call(&b, 1, b.f_irecv, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = 1});
    call(&b, 1, b.f_wait,
         (ts_event_t){.kind = TS_EV_IRECV_DONE, .peer = 0, .tag = 3, .bytes = 100000, .req = 1});
    const char *const extra[] = {"UCX_RNDV_SCHEME", "put_zcopy", NULL};
    outcome_t o = replay_ex(&b, TWO_NODES, extra, 0);
    double landed = R + 50e-6 + L_NET + 100000 / B;
    CHECK_TIME(o, landed + L_NET);
}

static void test_nic_contention(void)
{
    /* Ranks 0 and 2 on node 0 each send 1 MB by rendezvous to ranks 1 and 3 on node 1 at
     * the same time: the two flows share node 0's NIC, each at B/2. */
    tb_t b = tb_new(4);
    isend_irecv(&b, 0, 1, 1000000);
    isend_irecv(&b, 2, 3, 1000000);
    outcome_t o = replay(&b, TWO_NODES);
    CHECK_TIME(o, R + L_NET + R + 2 * L_NET + 2 * 1000000 / B + L_NET);
}

static void test_flows_start_together(void)
{
    /* Ranks 0, 2, 4, 6 on node 0 each send 1 MB by rendezvous to ranks 1, 3, 5, 7 on node 1
     * at the same time: the four flows share node 0's NIC at B/4 each. Ranks 8..15 compute
     * 1 ms, then do the same: by then the first four couriers are idle again, so their flows
     * start together while the driver is ahead of SimGrid's clock (one courier sleeps until
     * then and wakes the three others), again at B/4 each, 1 ms later. */
    int node[16];
    for (int i = 0; i < 16; i++)
        node[i] = i % 2;
    tb_t b = tb_new(16);
    for (int32_t s = 0; s < 8; s += 2)
        isend_irecv(&b, s, s + 1, 1000000);
    for (int32_t s = 8; s < 16; s++)
        compute(&b, s, 1000000);
    for (int32_t s = 8; s < 16; s += 2)
        isend_irecv(&b, s, s + 1, 1000000);
    outcome_t o = replay(&b, node);
    double once = R + L_NET + R + 2 * L_NET + L_NET; /* a rendezvous without its data */
    CHECK_TIME(o, 1e-3 + once + 4 * 1000000 / B);
}

static void test_flows_while_driver_runs_ahead(void)
{
    /* Rank 0 sends 1 MB to rank 1 on the other node; rank 2 computes 50 us, then does the
     * same to rank 3: its flow starts when rank 0's is half through. Rank 0's other half
     * runs at B/2 (100 us), then rank 2's last quarter at B alone (50 us): rank 2's data
     * lands 150 us after its flow started, its send completes L later. Meanwhile ranks 4 and
     * 5 play 100 on-host ping-pongs of 8 B (no flow, 1 us each), whose steps the driver takes
     * while the flows are under way without asking SimGrid: the flows must still end on
     * time, and the ping-pongs do not touch the network. */
    static const int node[] = {0, 1, 0, 1, 0, 0};
    tb_t b = tb_new(6);
    isend_irecv(&b, 0, 1, 1000000);
    compute(&b, 2, 50000);
    isend_irecv(&b, 2, 3, 1000000);
    for (int i = 0; i < 100; i++) {
        send_(&b, 4, 5, 8);
        recv_(&b, 4, 5, 8);
        recv_(&b, 5, 4, 8);
        send_(&b, 5, 4, 8);
    }
    outcome_t o = replay(&b, node);
    CHECK_TIME(o, 50e-6 + R + L_NET + R + 2 * L_NET + 150e-6 + L_NET);
}

static void test_on_host_short(void)
{
    /* On one node: shared memory, latency 0.5 us, short up to 100 B. */
    tb_t b = tb_new(2);
    send_(&b, 0, 1, 100);
    recv_(&b, 1, 0, 100);
    outcome_t o = replay(&b, ONE_NODE);
    CHECK_TIME(o, 0.5e-6 + 100 / B);
}

/* Channels of many tags (the engine keeps at most 64 empty ones per rank, then drops them
 * all): rank 0 sends 500 B with tags 0..99 at once (no CPU cost: 100 flows sharing the NIC,
 * all through at L + 100 x 500 / B); rank 1 computes 1 ms, takes them in reverse tag order
 * (each unexpected, matched at once), replies 500 B (L + 500 / B), and rank 0 sends tags
 * 0..99 again, taken in order: L + 100 x 500 / B more. A channel dropped while it still held
 * a message, or one kept with stale contents, would deadlock or mismatch. */
static void test_many_tags(void)
{
    tb_t b = tb_new(2);
    for (int32_t t = 0; t < 100; t++)
        call(&b, 0, b.f_send, (ts_event_t){.kind = TS_EV_SEND, .peer = 1, .tag = t, .bytes = 500});
    compute(&b, 1, 1000000);
    for (int32_t t = 99; t >= 0; t--)
        call(&b, 1, b.f_recv, (ts_event_t){.kind = TS_EV_RECV, .peer = 0, .tag = t, .bytes = 500});
    send_(&b, 1, 0, 500);
    recv_(&b, 0, 1, 500);
    for (int32_t t = 0; t < 100; t++)
        call(&b, 0, b.f_send, (ts_event_t){.kind = TS_EV_SEND, .peer = 1, .tag = t, .bytes = 500});
    for (int32_t t = 0; t < 100; t++)
        call(&b, 1, b.f_recv, (ts_event_t){.kind = TS_EV_RECV, .peer = 0, .tag = t, .bytes = 500});
    outcome_t o = replay(&b, TWO_NODES);
    CHECK_TIME(o, 1e-3 + (L_NET + 500 / B) + (L_NET + 100 * 500 / B));
}

/* Two hundred flows under way at once, more than the engine carries by sg_host_sendto
 * (DETACHED_MAX, 128): the rest go as two-host parallel tasks, which must take the same
 * route in the same direction. Rank 0 sends 200 x 500 B to rank 1 at once on full-duplex
 * NICs; rank 1 takes them as they come. All 200 share rank 0's NIC going up: the last lands
 * at L + 200 x 500 / B. Tasks sent the wrong way (up rank 1's NIC) would leave rank 0's to
 * 128 flows and end at L + 128 x 500 / B. */
static void test_flows_beyond_detached(void)
{
    static const int node[] = {0, 1};
    tb_t b = tb_new(2);
    for (int i = 0; i < 200; i++)
        send_(&b, 0, 1, 500);
    for (int i = 0; i < 200; i++)
        recv_(&b, 1, 0, 500);
    outcome_t o = replay_ex(&b, node, NULL, 1);
    CHECK_TIME(o, L_NET + 200 * 500 / B);
}

/* Forty non-blocking sends open at once on rank 0 (more than a rank keeps in its small array
 * of open requests: the rest go to its map), completed in reverse order, then the same ids
 * again completed in order; rank 1 receives them after 1 ms, then sends rank 0 a last
 * message. Every request is found (a lost one would fail the replay): 1 ms + (L + 500/B). */
static void test_many_open_requests(void)
{
    tb_t b = tb_new(2);
    for (int round = 0; round < 2; round++) {
        for (uint64_t id = 1; id <= 40; id++)
            call(&b, 0, b.f_isend,
                 (ts_event_t){
                     .kind = TS_EV_ISEND, .peer = 1, .tag = (int32_t)id, .bytes = 500, .req = id});
        for (uint64_t k = 1; k <= 40; k++) {
            uint64_t id = round ? k : 41 - k;
            call(&b, 0, b.f_wait, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = id});
        }
    }
    compute(&b, 1, 1000000);
    for (int round = 0; round < 2; round++)
        for (int32_t t = 1; t <= 40; t++)
            call(&b, 1, b.f_recv,
                 (ts_event_t){.kind = TS_EV_RECV, .peer = 0, .tag = t, .bytes = 500});
    send_(&b, 1, 0, 500);
    recv_(&b, 0, 1, 500);
    outcome_t o = replay(&b, TWO_NODES);
    CHECK_TIME(o, 1e-3 + (L_NET + 500 / B));
}

/* A rank keeps its channels last used in a small cache before its map; channels dropped
 * from the map (chan_tidy) must leave the cache too. Rank 1 receives tags 0..64 from rank 0:
 * the 65th empty channel drops them all, (0, 64) among them. After 1 ms rank 2, on rank 1's
 * node, sends rank 1 66 messages on tags that share no cache slot with (0, 64): their
 * channels reuse the dropped ones. 100 us later it tells rank 0 (L + 500/B), which then sends
 * tag 64 again (L + 500/B). Rank 1 waits for rank 2's last message, then for (0, 64),
 * computes 5 ms, and takes rank 2's other messages. A stale cache entry would hand rank 1 one
 * of rank 2's messages for (0, 64), or a channel in the spares (the replay then fails). */
static void test_channel_cache_after_drop(void)
{
    static const int node[] = {0, 1, 1};
    tb_t b = tb_new(3);
    for (int32_t t = 0; t <= 64; t++) {
        call(&b, 0, b.f_send, (ts_event_t){.kind = TS_EV_SEND, .peer = 1, .tag = t, .bytes = 500});
        call(&b, 1, b.f_recv, (ts_event_t){.kind = TS_EV_RECV, .peer = 0, .tag = t, .bytes = 500});
    }
    int32_t tags[66];
    for (int32_t t = 100, n = 0; n < 66; t++)
        if ((14 + t) % 16 != 0) /* rank 1's slot for (2, t) is not that of (0, 64) */
            tags[n++] = t;
    compute(&b, 2, 1000000);
    for (int i = 0; i < 66; i++)
        call(&b, 2, b.f_send,
             (ts_event_t){.kind = TS_EV_SEND, .peer = 1, .tag = tags[i], .bytes = 500});
    compute(&b, 2, 100000);
    send_(&b, 2, 0, 500);
    recv_(&b, 0, 2, 500);
    call(&b, 0, b.f_send, (ts_event_t){.kind = TS_EV_SEND, .peer = 1, .tag = 64, .bytes = 500});
    call(&b, 1, b.f_recv,
         (ts_event_t){.kind = TS_EV_RECV, .peer = 2, .tag = tags[65], .bytes = 500});
    call(&b, 1, b.f_recv, (ts_event_t){.kind = TS_EV_RECV, .peer = 0, .tag = 64, .bytes = 500});
    compute(&b, 1, 5000000);
    for (int i = 0; i < 65; i++)
        call(&b, 1, b.f_recv,
             (ts_event_t){.kind = TS_EV_RECV, .peer = 2, .tag = tags[i], .bytes = 500});
    outcome_t o = replay(&b, node);
    /* Rank 2's on-host bcopy sends cost their copy-in (500/C each) before its 100 us, and
     * rank 1's copy-outs of the 65 it takes last come after its 5 ms. */
    CHECK_TIME(o, 1e-3 + 66 * 500 / C + 100e-6 + 2 * (L_NET + 500 / B) + 5e-3 + 65 * 500 / C);
}

static void test_deadlock_report(void)
{
    tb_t b = tb_new(2);
    recv_(&b, 0, 1, 8);
    recv_(&b, 1, 0, 8);
    outcome_t o = replay(&b, TWO_NODES);
    CU_ASSERT_EQUAL(o.status, TS_EUNMATCHED);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.msg, "rank 0 in MPI_Recv: receive from rank 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.msg, "rank 1 in MPI_Recv: receive from rank 0"));
    CU_ASSERT_PTR_NULL(strchr(o.msg, '\n'));
}

static void test_wait_never_posted(void)
{
    tb_t b = tb_new(2);
    call(&b, 0, b.f_wait, (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = 42});
    outcome_t o = replay(&b, TWO_NODES);
    CU_ASSERT_EQUAL(o.status, TS_EUNMATCHED);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.msg, "request 42, which was never posted"));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("engine", NULL, NULL);
    CU_add_test(s, "ping-pong, eager short", test_pingpong_short);
    CU_add_test(s, "ping-pong, eager bcopy", test_pingpong_bcopy);
    CU_add_test(s, "unexpected message copy", test_unexpected_copy);
    CU_add_test(s, "on-host bcopy: two copies, no flow", test_on_host_bcopy);
    CU_add_test(s, "rendezvous", test_rendezvous);
    CU_add_test(s, "eager zcopy", test_zcopy);
    CU_add_test(s, "registration: a size reused, or every buffer new",
                test_zcopy_registration_reuse);
    CU_add_test(s, "on-host rendezvous", test_on_host_rendezvous);
    CU_add_test(s, "rendezvous waits for the receiver's MPI call",
                test_rendezvous_waits_for_receiver);
    CU_add_test(s, "put rendezvous waits for the sender's MPI call", test_put_waits_for_sender);
    CU_add_test(s, "a rendezvous to a computing receiver costs model.ucx.rndv_busy_cost",
                test_busy_receiver_cost);
    CU_add_test(s, "rkey_ptr's copy waits for the receiver's progress",
                test_rkey_ptr_copy_waits_for_progress);
    CU_add_test(s, "the handshake is the receiver's CPU", test_handshake_on_receiver_cpu);
    CU_add_test(s, "two flows share a NIC", test_nic_contention);
    CU_add_test(s, "flows that start together", test_flows_start_together);
    CU_add_test(s, "flows end on time while the driver runs ahead",
                test_flows_while_driver_runs_ahead);
    CU_add_test(s, "on-host eager short", test_on_host_short);
    CU_add_test(s, "channels of many tags", test_many_tags);
    CU_add_test(s, "forty open requests", test_many_open_requests);
    CU_add_test(s, "flows beyond sg_host_sendto's share", test_flows_beyond_detached);
    CU_add_test(s, "a channel dropped leaves the cache", test_channel_cache_after_drop);
    CU_add_test(s, "deadlock report", test_deadlock_report);
    CU_add_test(s, "wait on a request never posted", test_wait_never_posted);
    return tu_run_all();
}
