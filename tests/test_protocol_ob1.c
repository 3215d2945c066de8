/* test_protocol_ob1.c - the protocol model under pml ob1 (models/protocol_ob1.c) against
 * numbers derived by hand: vader's eager limit and single-copy mechanisms, the tcp BTL, and
 * which locality takes which BTL.
 *
 * Round constants: vader latency 1 us, vader copy 1e10 B/s, CMA read 2 us + s / 5e9 B/s, ob1
 * overhead 0.1 us, match header 16 B, vader eager limit 4096 B (payload up to 4080 B), tcp
 * BTL 10 us and 1e9 B/s, tcp eager limit 64 KiB (payload up to 65520 B). The estimate is
 * send_cpu + recv_reg + rts + latency + copies / copy_bw + s / bandwidth:
 *   vader eager:  0.1us + 1us + 2s/1e10 + s/1e10
 *   vader RGET:   0.1us + 1us (RTS) + 2us (CMA call) + s/5e9 + s/1e10 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocheck.h"
#include "testutil.h"

static const char *const OB1[][2] = {
    {"pml", "ob1"},
    {"model.vader.latency", "1us"},
    {"model.vader.bandwidth", "10000MB/s"},
    {"model.vader.cma_overhead", "2us"},
    {"model.vader.cma_bandwidth", "5000MB/s"},
    {"model.ob1.overhead", "0.1us"},
    {"model.tcp_btl.latency", "10us"},
    {"model.tcp_btl.bandwidth", "1000MB/s"},
};
enum { NOB1 = sizeof OB1 / sizeof OB1[0] };

static ts_proto_model_t *ob1_with(const char *k1, const char *v1, const char *k2, const char *v2)
{
    const char *set[NOB1 + 2][2];
    size_t n = 0;
    for (; n < NOB1; n++) {
        set[n][0] = OB1[n][0];
        set[n][1] = OB1[n][1];
    }
    if (k1) {
        set[n][0] = k1;
        set[n++][1] = v1;
    }
    if (k2) {
        set[n][0] = k2;
        set[n++][1] = v2;
    }
    return model_with((const char *const(*)[2])set, n);
}

static void test_ob1_vader_eager_limit(void)
{
    ts_proto_model_t *m = ob1_with(NULL, NULL, NULL, NULL);
    ts_locality loc = TS_LOC_SAME_NUMA;
    /* Below and at the limit (4080 + 16 = 4096): eager copy-in / copy-out; above: RGET. */
    CHECK_PROTO(m, 0, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 4079, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 4080, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 4081, loc, 0, TS_PROTO_RNDV_GET);
    CHECK_PROTO(m, 4081, loc, 1, TS_PROTO_RNDV_GET); /* MPI_Send: the same path */
    CHECK_PROTO(m, 1 << 20, loc, 0, TS_PROTO_RNDV_GET);

    ts_msg_plan_t pl;
    ts_proto_plan(m, 4080, loc, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_VADER);
    CU_ASSERT_STRING_EQUAL(ts_transport_name(pl.transport), "vader");
    CU_ASSERT_EQUAL(pl.send_copy, 4080);
    CU_ASSERT_EQUAL(pl.recv_copy, 4080);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 4080);
    CU_ASSERT(pl.completes_locally);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 1e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.copy_bw, 1e10, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 4080, loc),
                           0.1e-6 + 1e-6 + 2 * 4080 / 1e10 + 4080 / 1e10, 1e-15); /* 2.324 us */
    CU_ASSERT(ts_proto_estimate(m, TS_PROTO_RNDV_GET, 4080, loc) < 0);

    ts_proto_plan(m, 4081, loc, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_VADER);
    CU_ASSERT_EQUAL(pl.send_copy, 0); /* the receiver reads the sender's buffer */
    CU_ASSERT_EQUAL(pl.recv_copy, 4081);
    CU_ASSERT_EQUAL(pl.unexpected_copy, 0);
    CU_ASSERT(!pl.completes_locally); /* the send completes on the receiver's FIN */
    CU_ASSERT_DOUBLE_EQUAL(pl.rts_latency, 1e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 2e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.ack_latency, 1e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.copy_bw, 5e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_reg, 0, 1e-15); /* CMA registers nothing */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_RNDV_GET, 4081, loc),
                           0.1e-6 + 1e-6 + 2e-6 + 4081 / 5e9 + 4081 / 1e10, 1e-15);
    CU_ASSERT(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 4081, loc) < 0);
    ts_proto_model_free(m);

    /* A larger eager limit moves the switch: 8192 - 16 = 8176. */
    m = ob1_with("btl_vader_eager_limit", "8kb", NULL, NULL);
    CHECK_PROTO(m, 8176, loc, 0, TS_PROTO_EAGER_BCOPY);
    CHECK_PROTO(m, 8177, loc, 0, TS_PROTO_RNDV_GET);
    ts_proto_model_free(m);
}

static void test_ob1_single_copy_mechanisms(void)
{
    ts_locality loc = TS_LOC_SAME_NUMA;
    ts_msg_plan_t pl;
    /* none: RTS, ACK, then copy-in / copy-out fragments of btl_vader_max_send_size (32 KiB):
     * 100000 B are 4 fragments, ob1's overhead once per fragment plus once for the RTS. */
    ts_proto_model_t *m = ob1_with("btl_vader_single_copy_mechanism", "none", NULL, NULL);
    CHECK_PROTO(m, 4080, loc, 0, TS_PROTO_EAGER_BCOPY);
    ts_proto_plan(m, 100000, loc, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    CU_ASSERT_EQUAL(pl.fragments, 4);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 5 * 0.1e-6, 1e-15);
    CU_ASSERT_EQUAL(pl.send_copy, 100000);
    CU_ASSERT_EQUAL(pl.recv_copy, 100000);
    /* ACK back, data forth */
    CU_ASSERT_DOUBLE_EQUAL(pl.rtr_latency + pl.latency, 2e-6, 1e-15);
    CU_ASSERT_EQUAL(pl.progress, TS_PROG_RECV | TS_PROG_SEND);
    CU_ASSERT_DOUBLE_EQUAL(pl.copy_bw, 1e10, 1);
    ts_proto_model_free(m);
    /* xpmem: the receiver maps the buffer and copies once at vader's copy bandwidth. */
    m = ob1_with("btl_vader_single_copy_mechanism", "xpmem", NULL, NULL);
    ts_proto_plan(m, 100000, loc, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_RKEY_PTR);
    CU_ASSERT_EQUAL(pl.recv_copy, 100000);
    CU_ASSERT_DOUBLE_EQUAL(pl.copy_bw, 1e10, 1);
    ts_proto_model_free(m);
    /* knem reads like CMA. */
    m = ob1_with("btl_vader_single_copy_mechanism", "knem", NULL, NULL);
    CHECK_PROTO(m, 100000, loc, 0, TS_PROTO_RNDV_GET);
    ts_proto_model_free(m);
}

static void test_ob1_tcp_and_localities(void)
{
    ts_msg_plan_t pl;
    /* Off-host: the tcp BTL; eager up to 65536 - 16 = 65520 B, then fragments of 128 KiB. */
    ts_proto_model_t *m = ob1_with(NULL, NULL, NULL, NULL);
    ts_proto_plan(m, 65520, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_BCOPY);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_TCP_BTL);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 10e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.copy_bw, 1e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 65520, TS_LOC_SAME_LEAF),
                           0.1e-6 + 10e-6 + 2 * 65520 / 1e9 + 65520 / 1e9, 1e-15);
    ts_proto_plan(m, 65521, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    CU_ASSERT_EQUAL(pl.fragments, 1);
    ts_proto_plan(m, 300000, TS_LOC_SAME_LEAF, 0, &pl);
    CU_ASSERT_EQUAL(pl.fragments, 3);
    /* Self: one copy, completes at once. */
    ts_proto_plan(m, 1 << 20, TS_LOC_SELF, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_SELF);
    CU_ASSERT_EQUAL(pl.recv_copy, 1 << 20);
    CU_ASSERT(pl.completes_locally);
    ts_error_t err;
    for (int loc = 0; loc < TS_LOC__COUNT; loc++)
        CU_ASSERT_EQUAL(ts_proto_model_check(m, (ts_locality)loc, &err), TS_OK);
    ts_proto_model_free(m);

    /* Cross-socket: vader's latency plus the shared-memory step (0.9 - 0.5 us). */
    m = ob1_with("model.shm.cross_socket_latency", "0.9us", NULL, NULL);
    ts_proto_plan(m, 100, TS_LOC_CROSS_SOCKET, 0, &pl);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 1.4e-6, 1e-15);
    ts_proto_model_free(m);

    /* --mca btl self,tcp: on-host peers go through tcp too, over the kernel's loopback: no
     * platform link carries the data, so its time at 1e9 B/s is part of the latency. */
    m = ob1_with("btl", "self,tcp", NULL, NULL);
    ts_proto_plan(m, 100, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.transport, TS_TR_TCP_BTL);
    CU_ASSERT_DOUBLE_EQUAL(pl.latency, 10e-6 + 100 / 1e9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.bandwidth, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_estimate(m, TS_PROTO_EAGER_BCOPY, 100, TS_LOC_SAME_NUMA),
                           0.1e-6 + 10e-6 + 100 / 1e9 + 2 * 100 / 1e9, 1e-15);
    ts_proto_plan(m, 300000, TS_LOC_SAME_NUMA, 0, &pl);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    CU_ASSERT_DOUBLE_EQUAL(pl.rtr_latency + pl.latency, 2 * 10e-6 + 300000 / 1e9, 1e-15);
    ts_proto_model_free(m);
    /* --mca btl ^tcp: no path off-host, a one-line error naming the BTL to enable. */
    m = ob1_with("btl", "^tcp", NULL, NULL);
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_NUMA, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "enable tcp"));
    ts_proto_model_free(m);
    /* A btl list with none of the modelled BTLs is refused when the model is built. */
    ts_params_t *p = round_params();
    CU_ASSERT_EQUAL(ts_params_set(p, "pml", "ob1", &err), TS_OK);
    CU_ASSERT_EQUAL(ts_params_set(p, "btl", "openib", &err), TS_OK);
    ts_proto_model_t *bad = NULL;
    CU_ASSERT_EQUAL(ts_proto_model_new(p, 0, &bad, &err), TS_EARG);
    CU_ASSERT_PTR_NULL(bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "btl=openib"));
    ts_params_free(p);
    /* The report names ob1's paths. */
    m = ob1_with(NULL, NULL, NULL, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ts_proto_model_print(m, fp);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "same_numa     MPI_Isend  0-4080 eager bcopy/vader, "
                                       "4081+ rndv get_zcopy/vader\n"));
    free(buf);
    ts_proto_model_free(m);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("protocol_ob1", NULL, NULL);
    CU_add_test(s, "ob1: vader eager limit (at, below, above)", test_ob1_vader_eager_limit);
    CU_add_test(s, "ob1: single-copy mechanisms", test_ob1_single_copy_mechanisms);
    CU_add_test(s, "ob1: tcp BTL, self, localities, btl lists", test_ob1_tcp_and_localities);
    return tu_run_all();
}
