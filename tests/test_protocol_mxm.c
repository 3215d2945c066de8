/* test_protocol_mxm.c - MXM under pml yalla (models/protocol_mxm.c) against numbers derived
 * by hand. Round constants: on-host latency 0.5 us at every distance, copies at 1e10 B/s;
 * network latency 2 us at 1e10 B/s, ud's datagram (path MTU) 4096 B, a registration 1.0001
 * us; every per-call, per-work-request and handshake cost 0. So:
 *   shm eager (s bytes):   0.5 us + 2s / 1e10       (copy-in, copy-out; nothing on the wire)
 *   shm rendezvous:        0.5 us (RTS) + s / 1e10  (the receiver's one kernel copy)
 *   ud eager bcopy:        2 us + 2s / 1e10 + s / 1e10 (two copies, the wire). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "models/protocol.h"

static const char *const ROUND[][2] = {
    {"pml", "yalla"},
    {"model.shm.latency", "0.5us"},
    {"model.shm.cross_numa_latency", "0.5us"},
    {"model.shm.cross_socket_latency", "0.5us"},
    {"model.shm.bandwidth", "10000MB/s"},
    {"model.net.latency", "2us"},
    {"model.net.spine_latency", "3us"},
    {"model.net.bandwidth", "10000MB/s"},
    {"model.net.reg_cost", "1.0001us"},
    {"model.net.reg_cost_per_byte", "0ns"},
    {"model.ud.seg_size", "4096b"},
    {"model.ud.extra_latency", "0ns"},
    {"model.dc.extra_latency", "0ns"},
    {"model.rc.wqe_overhead", "0ns"},
    {"model.ud.wqe_overhead", "0ns"},
    {"model.mxm.send_call", "0ns"},
    {"model.mxm.recv_call", "0ns"},
    {"model.mxm.rndv_overhead", "0ns"},
    {"model.cma.overhead", "0ns"},
};
enum { NROUND = sizeof ROUND / sizeof ROUND[0] };

/* The round set plus "KEY=VALUE" words (NULL-terminated); NULL with err set when the model
 * is refused. */
static ts_proto_model_t *mxm_model(ts_error_t *err, const char *words, ...)
{
    ts_params_t *p;
    CU_ASSERT_FATAL(ts_params_new(&p) == TS_OK);
    for (size_t i = 0; i < NROUND; i++)
        CU_ASSERT_EQUAL_FATAL(ts_params_set(p, ROUND[i][0], ROUND[i][1], err), TS_OK);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
        char *eq = strchr(w, '=');
        CU_ASSERT_PTR_NOT_NULL_FATAL(eq);
        *eq = '\0';
        CU_ASSERT_EQUAL_FATAL(ts_params_set(p, w, eq + 1, err), TS_OK);
    }
    ts_proto_model_t *m = NULL;
    if (ts_proto_model_new(p, 0, &m, err) != TS_OK)
        m = NULL;
    ts_params_free(p);
    return m;
}

static ts_msg_plan_t plan(const ts_proto_model_t *m, uint64_t size, ts_locality loc)
{
    ts_msg_plan_t pl;
    ts_proto_plan(m, size, loc, 0, &pl);
    return pl;
}

#define CHECK(m, size, loc, want_proto, want_tr)                                                   \
    do {                                                                                           \
        ts_msg_plan_t pl_ = plan(m, size, loc);                                                    \
        if (pl_.proto != (want_proto) || pl_.transport != (want_tr))                               \
            printf("\n  %llu B %s: got %s/%s\n", (unsigned long long)(size),                       \
                   ts_locality_name(loc), ts_proto_name(pl_.proto),                                \
                   ts_transport_name(pl_.transport));                                              \
        CU_ASSERT_EQUAL(pl_.proto, want_proto);                                                    \
        CU_ASSERT_EQUAL(pl_.transport, want_tr);                                                   \
    } while (0)

/* The seed study's line, with the two values it leaves to MXM's unknown defaults given. */
#define SEED                                                                                       \
    "MXM_TLS=self,shm,ud MXM_SHM_RNDV_THRESH=32768 MXM_ZCOPY_THRESH=inf "                          \
    "MXM_UD_HARD_ZCOPY_THRESH=inf MXM_UD_MSS=8mb MXM_RNDV_THRESH=64kb"

/* MXM's defaults are unknown: a class that needs one is refused, with what to set. */
static void test_unknown_defaults_refused(void)
{
    ts_error_t err;
    ts_proto_model_t *m = mxm_model(&err, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    for (int loc = 0; loc < TS_LOC__COUNT; loc++) {
        CU_ASSERT_EQUAL(ts_proto_model_check(m, (ts_locality)loc, &err), TS_EARG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "MXM_TLS is auto"));
    }
    ts_proto_model_free(m);

    m = mxm_model(&err, "MXM_TLS=self,shm,ud");
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SELF, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_NUMA, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "need MXM_SHM_RNDV_THRESH (or MXM_RNDV_THRESH)"));
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "pml yalla: same_leaf peers over mxm_ud need "
                                    "MXM_RNDV_THRESH, whose default (auto) is MXM's own and "
                                    "unknown to tunesim; set it");
    ts_proto_model_free(m);

    /* The seed line as written leaves the off-host rendezvous threshold unknown. */
    m = mxm_model(&err, "MXM_TLS=self,shm,ud MXM_SHM_RNDV_THRESH=32768 MXM_ZCOPY_THRESH=inf "
                        "MXM_UD_HARD_ZCOPY_THRESH=inf MXM_UD_MSS=8mb");
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_CROSS_SOCKET, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_EARG);
    ts_proto_model_free(m);
    /* ... and ud's segment, the hard threshold of rc, each in turn. */
    m = mxm_model(&err, "MXM_TLS=shm,ud MXM_RNDV_THRESH=64kb MXM_ZCOPY_THRESH=inf "
                        "MXM_HARD_ZCOPY_THRESH=inf");
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "need MXM_UD_MSS"));
    ts_proto_model_free(m);
    m = mxm_model(&err, "MXM_TLS=shm,rc MXM_RNDV_THRESH=64kb MXM_ZCOPY_THRESH=inf "
                        "MXM_UD_HARD_ZCOPY_THRESH=inf");
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "over mxm_rc need MXM_HARD_ZCOPY_THRESH,"));
    ts_proto_model_free(m);

    /* A word MXM has no transport for; shm alone on two nodes. */
    CU_ASSERT_PTR_NULL(mxm_model(&err, "MXM_TLS=self,shm,tcp"));
    CU_ASSERT_STRING_EQUAL(err.msg, "MXM_TLS=self,shm,tcp: 'tcp' is not an MXM transport "
                                    "(expected a comma list of self, shm, ud, rc, dc)");
    CU_ASSERT_PTR_NULL(mxm_model(&err, "MXM_TLS=^ud"));
    m = mxm_model(&err, "MXM_TLS=self,shm MXM_RNDV_THRESH=64kb");
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_NUMA, &err), TS_OK);
    CU_ASSERT_EQUAL(ts_proto_model_check(m, TS_LOC_SAME_LEAF, &err), TS_EARG);
    CU_ASSERT_STRING_EQUAL(err.msg, "pml yalla: MXM_TLS leaves no transport for same_leaf "
                                    "peers (enable rc, dc or ud)");
    ts_proto_model_free(m);
}

/* On-host: eager through the shared segment below MXM_SHM_RNDV_THRESH, then one kernel
 * copy; MXM_RNDV_THRESH stands in while the shm one is auto. */
static void test_shm_threshold(void)
{
    ts_error_t err;
    ts_proto_model_t *m = mxm_model(&err, SEED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    for (int loc = TS_LOC_SAME_NUMA; loc <= TS_LOC_CROSS_SOCKET; loc++) {
        CHECK(m, 0, (ts_locality)loc, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_SHM);
        CHECK(m, 32767, (ts_locality)loc, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_SHM);
        CHECK(m, 32768, (ts_locality)loc, TS_PROTO_RNDV_GET, TS_TR_KNEM);
    }
    CHECK(m, 1 << 20, TS_LOC_SELF, TS_PROTO_EAGER_BCOPY, TS_TR_SELF);
    /* 1000 B eager: 0.5 us + 2000 / 1e10 = 0.7 us; 32768 B: 0.5 us + 3.2768 us. */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m, TS_PROTO_EAGER_BCOPY, 1000, TS_LOC_SAME_NUMA), 0.7e-6,
                           1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m, TS_PROTO_RNDV_GET, 32768, TS_LOC_SAME_NUMA), 3.7768e-6,
                           1e-15);
    ts_msg_plan_t pl = plan(m, 32767, TS_LOC_SAME_NUMA);
    CU_ASSERT_EQUAL(pl.wire_bytes, 0); /* the copies are the whole move */
    CU_ASSERT_EQUAL(pl.send_copy, 32767);
    CU_ASSERT_EQUAL(pl.recv_copy, 32767);
    ts_proto_model_free(m);

    m = mxm_model(&err, "MXM_TLS=shm,ud MXM_RNDV_THRESH=16kb");
    CHECK(m, 16383, TS_LOC_SAME_NUMA, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_SHM);
    CHECK(m, 16384, TS_LOC_SAME_NUMA, TS_PROTO_RNDV_GET, TS_TR_KNEM);
    /* Without self the rank's own messages go through shm. */
    CHECK(m, 100, TS_LOC_SELF, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_SHM);
    ts_proto_model_free(m);
    m = mxm_model(&err, "MXM_TLS=shm,ud MXM_RNDV_THRESH=16kb MXM_SHM_RNDV_THRESH=inf");
    CHECK(m, 1 << 30, TS_LOC_SAME_NUMA, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_SHM);
    ts_proto_model_free(m);
}

/* Off-host over ud: eager below MXM_RNDV_THRESH in datagrams of min(MXM_UD_MSS, MTU); zero
 * copy from the thresholds on; rendezvous as datagrams after the receiver's reply. */
static void test_ud_thresholds_and_mss(void)
{
    ts_error_t err;
    ts_proto_model_t *m = mxm_model(&err, SEED);
    CHECK(m, 65535, TS_LOC_SAME_LEAF, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_UD);
    CHECK(m, 65536, TS_LOC_SAME_LEAF, TS_PROTO_RNDV_AM, TS_TR_MXM_UD);
    CHECK(m, 65536, TS_LOC_CROSS_SPINE, TS_PROTO_RNDV_AM, TS_TR_MXM_UD);
    /* 8mb is capped by the 4096 B path MTU: ceil(65535 / 4096) = 16 datagrams. */
    ts_msg_plan_t pl = plan(m, 65535, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(pl.fragments, 16);
    CU_ASSERT_EQUAL(pl.send_copy, 65535); /* ZCOPY_THRESH=inf: never zero copy */
    /* 8192 B eager: 2 us + 2 * 0.8192 us (copies) + 0.8192 us (wire). */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m, TS_PROTO_EAGER_BCOPY, 8192, TS_LOC_SAME_LEAF),
                           4.4576e-6, 1e-15);
    pl = plan(m, 1 << 20, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(pl.fragments, 256);
    CU_ASSERT_EQUAL(pl.send_copy, 1 << 20);
    CU_ASSERT_EQUAL(pl.recv_copy, 1 << 20);
    CU_ASSERT_DOUBLE_EQUAL(pl.rts_latency, 2e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.rtr_latency, 2e-6, 1e-15);
    ts_proto_model_free(m);

    /* Every datagram is a work request each side posts or reaps (10 ns each here): eager
     * 65,535 B is 16 of them (160 ns); a 1 MiB rendezvous over active messages is the RTS
     * plus 256 data datagrams, 257 (2.57 us) on each side. */
    m = mxm_model(&err, SEED " model.ud.wqe_overhead=10ns");
    pl = plan(m, 65535, TS_LOC_SAME_LEAF);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 160e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_cpu, 160e-9, 1e-15);
    pl = plan(m, 1 << 20, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_cpu, 2.57e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_cpu, 2.57e-6, 1e-15);
    ts_proto_model_free(m);

    /* A 1 KiB segment: ceil(65535 / 1024) = 64 datagrams. */
    m = mxm_model(&err, SEED " MXM_UD_MSS=1kb");
    CU_ASSERT_EQUAL(plan(m, 65535, TS_LOC_SAME_LEAF).fragments, 64);
    ts_proto_model_free(m);

    /* Zero copy from 16 KiB for registered buffers (no registration), always from 32 KiB
     * (one registration charged). */
    m = mxm_model(&err, SEED " MXM_ZCOPY_THRESH=16kb MXM_UD_HARD_ZCOPY_THRESH=32kb");
    CHECK(m, 16383, TS_LOC_SAME_LEAF, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_UD);
    CHECK(m, 16384, TS_LOC_SAME_LEAF, TS_PROTO_EAGER_ZCOPY, TS_TR_MXM_UD);
    pl = plan(m, 16384, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(pl.send_copy, 0);
    CU_ASSERT_EQUAL(pl.recv_copy, 16384);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_reg, 0, 1e-18);
    pl = plan(m, 32768, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_ZCOPY);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_reg, 1.0001e-6, 1e-15);
    pl = plan(m, 65536, TS_LOC_SAME_LEAF); /* rendezvous sends zero copy too */
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_RNDV_AM);
    CU_ASSERT_EQUAL(pl.send_copy, 0);
    ts_proto_model_free(m);

    /* The hard threshold turns zero copy on by itself: set below MXM_ZCOPY_THRESH (16 KiB
     * against 32 KiB), 16 KiB already goes zero copy, registering the buffer (1.0001 us);
     * one byte less still copies. */
    m = mxm_model(&err, SEED " MXM_ZCOPY_THRESH=32kb MXM_UD_HARD_ZCOPY_THRESH=16kb");
    CHECK(m, 16383, TS_LOC_SAME_LEAF, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_UD);
    pl = plan(m, 16384, TS_LOC_SAME_LEAF);
    CU_ASSERT_EQUAL(pl.proto, TS_PROTO_EAGER_ZCOPY);
    CU_ASSERT_EQUAL(pl.send_copy, 0);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_reg, 1.0001e-6, 1e-15);
    ts_proto_model_free(m);
}

/* MXM's priority order rc, dc, ud picks the network transport; rc and dc read the data. */
static void test_network_priority(void)
{
    ts_error_t err;
    ts_proto_model_t *m =
        mxm_model(&err, SEED " MXM_TLS=self,shm,ud,dc,rc MXM_HARD_ZCOPY_THRESH=inf");
    CHECK(m, 100, TS_LOC_SAME_LEAF, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_RC);
    CHECK(m, 65536, TS_LOC_SAME_LEAF, TS_PROTO_RNDV_GET, TS_TR_MXM_RC);
    ts_msg_plan_t pl = plan(m, 65536, TS_LOC_SAME_LEAF);
    CU_ASSERT_DOUBLE_EQUAL(pl.send_reg, 1.0001e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pl.recv_reg, 1.0001e-6, 1e-15);
    /* RTS 2 us, read request and data 4 us, registrations, the wire: 8.0002 + 6.5536 us. */
    CU_ASSERT_DOUBLE_EQUAL(ts_proto_cost(m, TS_PROTO_RNDV_GET, 65536, TS_LOC_SAME_LEAF), 14.5538e-6,
                           1e-12);
    ts_proto_model_free(m);
    m = mxm_model(&err, SEED " MXM_TLS=ud,dc MXM_HARD_ZCOPY_THRESH=inf");
    CHECK(m, 100, TS_LOC_CROSS_SPINE, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_DC);
    /* Without shm, on-host peers loop back through the network transport. */
    CHECK(m, 100, TS_LOC_SAME_NUMA, TS_PROTO_EAGER_BCOPY, TS_TR_MXM_DC);
    ts_proto_model_free(m);
}

/* `tunesim params --protocols --mca pml yalla ...` prints MXM's choices per class. */
static void test_print(void)
{
    ts_error_t err;
    ts_proto_model_t *m = mxm_model(&err, SEED);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    ts_proto_model_print(m, fp);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "self          MPI_Isend  0+ eager bcopy/self\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "same_numa     MPI_Isend  0-32767 eager bcopy/mxm_shm, "
                                        "32768+ rndv get_zcopy/knem\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "cross_spine   MPI_Send   0-65535 eager bcopy/mxm_ud, "
                                        "65536+ rndv am/mxm_ud\n"));
    free(text);
    ts_proto_model_free(m);

    m = mxm_model(&err, "MXM_TLS=self,shm,ud MXM_SHM_RNDV_THRESH=4kb");
    text = NULL;
    fp = open_memstream(&text, &len);
    ts_proto_model_print(m, fp);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "same_numa     MPI_Isend  0-4095 eager bcopy/mxm_shm"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "same_leaf     pml yalla: same_leaf peers over mxm_ud "
                                        "need MXM_RNDV_THRESH"));
    free(text);
    ts_proto_model_free(m);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("protocol_mxm", NULL, NULL);
    CU_add_test(s, "unknown MXM defaults refused", test_unknown_defaults_refused);
    CU_add_test(s, "shm: MXM_SHM_RNDV_THRESH and MXM_RNDV_THRESH", test_shm_threshold);
    CU_add_test(s, "ud: thresholds, zero copy and MXM_UD_MSS", test_ud_thresholds_and_mss);
    CU_add_test(s, "network transport by MXM's priority", test_network_priority);
    CU_add_test(s, "protocol ranges report", test_print);
    return tu_run_all();
}
