/* test_engine_coll.c - golden tests of the replay engine's collectives: closed-form costs
 * on the contention-free platform of enginerun.h (every rank on a node of its own, full-duplex
 * NICs), derived by hand from the model's parameters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enginerun.h"
#include "testutil.h"

#define RB 1e9 /* model.cpu.reduce_bandwidth */

/* Every rank calls one collective of op with Score-P's sizes for per-rank payload pb. */
static void coll_call(tb_t *b, int op, int32_t n, uint64_t pb, int32_t root)
{
    int32_t f = ts__trace_intern_func(b->t, "MPI_Coll");
    for (int32_t r = 0; r < n; r++) {
        uint64_t sent = (uint64_t)n * pb, recvd = (uint64_t)n * pb;
        if (op == TS_COLL_BARRIER)
            sent = recvd = 0;
        if (op == TS_COLL_BCAST) {
            sent = r == root ? (uint64_t)n * pb : 0;
            recvd = pb;
        }
        call(b, r, f,
             (ts_event_t){.kind = TS_EV_COLL,
                          .op = (uint8_t)op,
                          .comm = 0,
                          .peer = root,
                          .bytes = sent,
                          .bytes2 = recvd});
    }
}

static const char *const TUNED[] = {"coll_hcoll_enable", "0", "model.cpu.reduce_bandwidth",
                                    "1000MB/s", NULL};

/* Recursive doubling on 2^k ranks: k x (latency + size/bandwidth + reduction). */
static void test_coll_recursive_doubling(void)
{
    for (int32_t n = 2; n <= 16; n *= 2) {
        tb_t b = tb_new(n);
        coll_call(&b, TS_COLL_ALLREDUCE, n, 8, TS_ROOT_NONE);
        outcome_t o = replay_ex(&b, APART, TUNED, 1);
        int k = n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : 4;
        /* 2 and 4 ranks at 8 B choose the ring in Open MPI's table, which runs recursive
         * doubling because 1 double is fewer elements than ranks. */
        CHECK_TIME(o, k * (L_NET + 8 / B + 8 / RB));
    }
}

/* Open MPI's ring allreduce forced on 4 ranks; on a payload of 4 x c bytes it makes 3
 * reduce-scatter rounds of c-byte blocks (combined) and 3 allgather rounds. */
static const char *const FORCED_RING[] = {"coll_hcoll_enable",
                                          "0",
                                          "model.cpu.reduce_bandwidth",
                                          "1000MB/s",
                                          "coll_tuned_use_dynamic_rules",
                                          "1",
                                          "coll_tuned_allreduce_algorithm",
                                          "4",
                                          NULL};

static double ring_time(double c)
{
    return 3 * (L_NET + c / B + c / RB) + 3 * (L_NET + c / B);
}

/* 4000 B: 1000 B blocks. */
static void test_coll_ring(void)
{
    tb_t b = tb_new(4);
    coll_call(&b, TS_COLL_ALLREDUCE, 4, 4000, TS_ROOT_NONE);
    outcome_t o = replay_ex(&b, APART, FORCED_RING, 1);
    CHECK_TIME(o, ring_time(1000));
}

/* The ring three times: 4000 B, 4000 B again (the rank's schedule is reused), then 2048 B (a
 * new schedule: 512 B blocks, 64 doubles each). Each call ends on every rank at once, so the
 * times add up. */
static void test_coll_schedule_reused(void)
{
    tb_t b = tb_new(4);
    coll_call(&b, TS_COLL_ALLREDUCE, 4, 4000, TS_ROOT_NONE);
    coll_call(&b, TS_COLL_ALLREDUCE, 4, 4000, TS_ROOT_NONE);
    coll_call(&b, TS_COLL_ALLREDUCE, 4, 2048, TS_ROOT_NONE);
    outcome_t o = replay_ex(&b, APART, FORCED_RING, 1);
    CHECK_TIME(o, 2 * ring_time(1000) + ring_time(512));
}

/* model.ucx.rndv_written_cost: the ring on 8000 B (2000 B blocks) with UCX_RNDV_THRESH=1kb
 * sends each block by rendezvous. The first reduce-scatter round sends the rank's own input;
 * the other two send what the round's reduction has just written, and so do the three
 * allgather rounds: five rendezvous a rank that pay the written cost (3 us), each on its
 * receiver, in lockstep: 5 x 3 us more than at 0. Every receiver is in its wait when its RTS
 * comes, so model.ucx.rndv_busy_cost (4 us), the cost of a computing receiver, adds nothing
 * to either. */
static void test_coll_written_cost(void)
{
    static const char *const costs[][2] = {
        {"0us", "0us"}, {"0us", "3us"}, {"4us", "0us"}, {"4us", "3us"}};
    double end[4];
    for (int k = 0; k < 4; k++) {
        const char *set[sizeof FORCED_RING / sizeof *FORCED_RING + 6];
        size_t n = 0;
        for (; FORCED_RING[n]; n++)
            set[n] = FORCED_RING[n];
        set[n++] = "UCX_RNDV_THRESH";
        set[n++] = "1kb";
        set[n++] = "model.ucx.rndv_busy_cost";
        set[n++] = costs[k][0];
        set[n++] = "model.ucx.rndv_written_cost";
        set[n++] = costs[k][1];
        set[n] = NULL;
        tb_t b = tb_new(4);
        coll_call(&b, TS_COLL_ALLREDUCE, 4, 8000, TS_ROOT_NONE);
        outcome_t o = replay_ex(&b, APART, set, 1);
        CU_ASSERT_EQUAL(o.status, TS_OK);
        end[k] = o.makespan;
    }
    CU_ASSERT_DOUBLE_EQUAL(end[1] - end[0], 5 * 3e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(end[2], end[0], 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(end[3], end[1], 1e-12);
}

/* Barriers move no data: the dissemination barrier on 8 ranks (fixed rule: 4-7 ranks linear,
 * 8-63 recursive doubling) costs 3 latencies; on 5 ranks the linear barrier costs 2. */
static void test_coll_barrier(void)
{
    tb_t b = tb_new(8);
    coll_call(&b, TS_COLL_BARRIER, 8, 0, TS_ROOT_NONE);
    outcome_t o = replay_ex(&b, APART, TUNED, 1);
    CHECK_TIME(o, 3 * L_NET);
    b = tb_new(5);
    coll_call(&b, TS_COLL_BARRIER, 5, 0, TS_ROOT_NONE);
    o = replay_ex(&b, APART, TUNED, 1);
    CHECK_TIME(o, 2 * L_NET);
}

/* A collective with no data returns at once in Open MPI's MPI layer (ompi/mpi/c/allreduce.c:
 * "if (0 == count) return MPI_SUCCESS"), so rank 0 does not wait for rank 1's 1 ms of
 * computing before it: its own time is 0. A Barrier, or an Alltoallv of zero counts (no such
 * check in alltoallv.c), still holds it until rank 1 arrives. */
static void test_coll_empty_returns(void)
{
    static const struct {
        int op;
        int waits;
    } c[] = {{TS_COLL_ALLREDUCE, 0},
             {TS_COLL_ALLTOALL, 0},
             {TS_COLL_BCAST, 0},
             {TS_COLL_BARRIER, 1},
             {TS_COLL_ALLTOALLV, 1}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tb_t b = tb_new(4);
        compute(&b, 1, 1000000);
        coll_call(&b, c[i].op, 4, 0, c[i].op == TS_COLL_BCAST ? 1 : TS_ROOT_NONE);
        outcome_t o = replay_ex(&b, APART, TUNED, 1);
        CU_ASSERT_EQUAL(o.status, TS_OK);
        CU_ASSERT(o.makespan >= 1e-3);
        if (c[i].waits) {
            CU_ASSERT(o.rank_end[0] >= 1e-3);
        } else {
            CU_ASSERT_DOUBLE_EQUAL(o.rank_end[0], 0, 1e-12);
        }
    }
}

/* Bcast of 900 B on 16 ranks: the fixed rule (16-31 ranks, < 4 KB) picks knomial, radix 4.
 * The root posts its 6 children (4, 8, 12, 1, 2, 3) at once and their flows share its NIC
 * (6 s/B after the latency); ranks 4, 8 and 12 then serve 3 children each (3 s/B). */
static void test_coll_bcast_knomial(void)
{
    tb_t b = tb_new(16);
    coll_call(&b, TS_COLL_BCAST, 16, 900, 0);
    outcome_t o = replay_ex(&b, APART, TUNED, 1);
    CHECK_TIME(o, 2 * L_NET + 9 * 900 / B);
}

/* An 8 B Allreduce of 4 ranks on 2 nodes under HCOLL, its on-host levels priced as UCX
 * messages (model.hcoll.sm_levels=pml), with model.net.flowless_bytes at flowless (NULL: the
 * default). */
static outcome_t hcoll_allreduce(const char *flowless)
{
    const char *const extra[] = {"model.cpu.reduce_bandwidth",
                                 "1000MB/s",
                                 "model.hcoll.sm_levels",
                                 "pml",
                                 flowless ? "model.net.flowless_bytes" : NULL,
                                 flowless,
                                 NULL};
    tb_t b = tb_new(4);
    coll_call(&b, TS_COLL_ALLREDUCE, 4, 8, TS_ROOT_NONE);
    return replay_ex(&b, TWO_NODES, extra, 0);
}

/* HCOLL's hierarchy in time: fan-in on-host, exchange between node leaders, fan-out. */
static void test_coll_hcoll_two_nodes(void)
{
    /* 4 ranks on 2 nodes (0,2 on node 0; 1,3 on node 1): HCOLL fans in on each node (one
     * on-host short message, 0.5 us + 8/B, combined), leaders 0 and 1 exchange over the
     * network (2 us + 8/B, combined), then fan out on-host (0.5 us + 8/B). 8 B messages are
     * below model.net.flowless_bytes: they do not share the half-duplex NICs as flows. */
    const double host = (0.5e-6 + 8 / B + 8 / RB) + (0.5e-6 + 8 / B);
    outcome_t o = hcoll_allreduce(NULL);
    CHECK_TIME(o, host + (L_NET + 8 / B + 8 / RB));
    /* With every message a flow, the two opposite 8 B flows share each NIC: 16/B. */
    o = hcoll_allreduce("0b");
    CHECK_TIME(o, host + (L_NET + 16 / B + 8 / RB));
    /* The bound is inclusive: at 8b the 8 B messages are flowless again, at 7b flows. */
    o = hcoll_allreduce("8b");
    CHECK_TIME(o, host + (L_NET + 8 / B + 8 / RB));
    o = hcoll_allreduce("7b");
    CHECK_TIME(o, host + (L_NET + 16 / B + 8 / RB));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("engine_coll", NULL, NULL);
    CU_add_test(s, "a rendezvous of data a reduction just wrote costs model.ucx.rndv_written_cost",
                test_coll_written_cost);
    CU_add_test(s, "collective: recursive doubling closed form", test_coll_recursive_doubling);
    CU_add_test(s, "collective: ring closed form", test_coll_ring);
    CU_add_test(s, "collective: a schedule reused, then rebuilt", test_coll_schedule_reused);
    CU_add_test(s, "collective: barriers", test_coll_barrier);
    CU_add_test(s, "collective: a call with no data returns at once", test_coll_empty_returns);
    CU_add_test(s, "collective: knomial bcast", test_coll_bcast_knomial);
    CU_add_test(s, "collective: HCOLL on two nodes", test_coll_hcoll_two_nodes);
    return tu_run_all();
}
