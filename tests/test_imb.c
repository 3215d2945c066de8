/* test_imb.c - the synthesized IMB-MPI1 benchmarks (traces/imb.h): IMB's sizes and
 * repetition counts, the calls each rank makes, and `tunesim imb`'s tables with times derived
 * by hand from the parameters (every per-call and per-message overhead set to nothing, so a
 * message costs the off-host latency L and its bytes over the NIC). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "traces/imb.h"

/* No CPU per call or message: a small message then costs model.net.latency alone. */
#define ZERO                                                                                       \
    "--set model.ucx.send_call=0ns --set model.ucx.recv_call=0ns "                                 \
    "--set model.ucx.overhead_single=0ns --set model.ucx.overhead_multi=0ns "                      \
    "--set model.rc.wqe_overhead=0ns --set model.ucx.overhead_sw=0ns"

static void test_reps_and_sizes(void)
{
    /* IMB_settings.h: 1000 for 0 B, else min(1000, max(1, 40 MiB / size)). */
    CU_ASSERT_EQUAL(ts_imb_reps(0), 1000);
    CU_ASSERT_EQUAL(ts_imb_reps(1), 1000);
    CU_ASSERT_EQUAL(ts_imb_reps(32768), 1000); /* 40 MiB / 32 KiB = 1280 */
    CU_ASSERT_EQUAL(ts_imb_reps(65536), 640);
    CU_ASSERT_EQUAL(ts_imb_reps(4194304), 10);
    CU_ASSERT_EQUAL(ts_imb_reps(1u << 30), 1);
    ts_imb_spec_t a2a = {.bench = TS_IMB_ALLTOALL, .nranks = 4, .minlog = 0, .maxlog = 3};
    uint64_t s[32];
    CU_ASSERT_EQUAL(ts_imb_sizes(&a2a, s, 32), 5);
    CU_ASSERT_TRUE(s[0] == 0 && s[1] == 1 && s[2] == 2 && s[3] == 4 && s[4] == 8);
    /* Reductions start at one float: 0, 4, 8. */
    ts_imb_spec_t ar = {.bench = TS_IMB_ALLREDUCE, .nranks = 4, .minlog = 0, .maxlog = 3};
    CU_ASSERT_EQUAL(ts_imb_sizes(&ar, s, 32), 3);
    CU_ASSERT_TRUE(s[0] == 0 && s[1] == 4 && s[2] == 8);
    ar.reps_cap = 10;
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&ar, 8), 10);
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&ar, 1u << 26), 1);
    /* No cap: the message budget. Allreduce on 4 ranks sends about 2 x 4 x 2 = 16 messages a
     * call and its -sync barrier 4 x 2: IMB's own 1000; Alltoall on 288 ranks 288 x 287 =
     * 82,656 and a barrier of 288 x 9 = 2,592: 400,000 / 85,248 = 4; on 1,152 ranks the floor
     * of one call; a budget of 200,000 on 288 ranks: 2; of 170,000: 1 (2 with -sync off,
     * 170,000 / 82,656 = 2.06). */
    ar.reps_cap = 0;
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&ar, 8), 1000);
    ts_imb_spec_t big = {.bench = TS_IMB_ALLTOALL, .nranks = 288, .minlog = 0, .maxlog = 3};
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&big, 8), 4);
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&big, 1u << 22), 4);
    big.nranks = 1152;
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&big, 8), 1);
    big.nranks = 288;
    big.msg_budget = 200000;
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&big, 8), 2);
    big.msg_budget = 170000;
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&big, 8), 1);
    big.no_sync = 1;
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&big, 8), 2);
    /* Where the budget binds Allreduce: 1,024 ranks, 2 x 1,024 x 10 = 20,480 messages a call
     * and 1,024 x 10 = 10,240 for the barrier: 400,000 / 30,720 = 13. Alltoall's every pair
     * is n (n - 1), not n^2: 2 ranks without -sync send 2 a call, 10 / 2 = 5. */
    ts_imb_spec_t ar1k = {.bench = TS_IMB_ALLREDUCE, .nranks = 1024, .minlog = 0, .maxlog = 3};
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&ar1k, 8), 13);
    ts_imb_spec_t two = {
        .bench = TS_IMB_ALLTOALL, .nranks = 2, .maxlog = 3, .no_sync = 1, .msg_budget = 10};
    CU_ASSERT_EQUAL(ts_imb_reps_replayed(&two, 8), 5);
    CU_ASSERT_EQUAL(ts_imb_parse("allreduce"), TS_IMB_ALLREDUCE);
    CU_ASSERT_EQUAL(ts_imb_parse("PINGPONG"), TS_IMB_PINGPONG);
    CU_ASSERT_EQUAL(ts_imb_parse("bcast"), -1);
}

/* Events of rank r in function name. */
static int visits(const ts_trace_t *t, int32_t r, const char *name)
{
    int32_t f = ts_trace_func_find(t, name);
    ts_cursor_t *c;
    ts_event_t ev;
    ts_error_t err;
    int n = 0;
    if (f < 0 || ts_cursor_open(t, r, &c) != TS_OK)
        return -1;
    while (ts_cursor_next(c, &ev, &err) == 1)
        n += ev.kind == TS_EV_ENTER && ev.func == f;
    ts_cursor_close(c);
    return n;
}

static void test_trace_calls(void)
{
    ts_error_t err;
    ts_trace_t *t;
    /* Allreduce on 4 ranks, sizes 0, 4, 8, 3 timed repetitions each: per rank and size one
     * warm-up call, two barriers, three timed calls under the size's own function, each
     * followed by an untimed barrier (IMB_allreduce.c: IMB_do_n_barriers(comm,
     * c_info->sync), -sync on by default). */
    ts_imb_spec_t ar = {
        .bench = TS_IMB_ALLREDUCE, .nranks = 4, .minlog = 0, .maxlog = 3, .reps_cap = 3};
    CU_ASSERT_FATAL(ts_imb_trace(&ar, "ar", &t, &err) == TS_OK);
    for (int32_t r = 0; r < 4; r++) {
        CU_ASSERT_EQUAL(visits(t, r, "MPI_Allreduce"), 3);
        CU_ASSERT_EQUAL(visits(t, r, "MPI_Barrier"), 15);
        CU_ASSERT_EQUAL(visits(t, r, "imb:0 MPI_Allreduce"), 3);
        CU_ASSERT_EQUAL(visits(t, r, "imb:2 MPI_Allreduce"), 3);
    }
    CU_ASSERT_EQUAL(ts_imb_func_size(t, ts_trace_func_find(t, "imb:2 MPI_Allreduce")), 2);
    CU_ASSERT_EQUAL(ts_imb_func_size(t, ts_trace_func_find(t, "MPI_Barrier")), -1);
    /* enter, collective, leave: (1 + 2 + 3 + 3) x 3 sizes x 3 events per rank */
    CU_ASSERT_EQUAL(ts_trace_rank_nevents(t, 0), 81);
    ts_trace_close(t);
    /* -sync off: the timed calls back to back, (1 + 2 + 3) x 3 x 3 events. */
    ar.no_sync = 1;
    CU_ASSERT_FATAL(ts_imb_trace(&ar, "ar-nosync", &t, &err) == TS_OK);
    CU_ASSERT_EQUAL(visits(t, 2, "MPI_Barrier"), 6);
    CU_ASSERT_EQUAL(ts_trace_rank_nevents(t, 2), 54);
    ts_trace_close(t);
    ar.no_sync = 0;
    /* One size alone (one_size = 1 + its index): 8 B only, as above for that size. */
    ar.one_size = 3;
    CU_ASSERT_FATAL(ts_imb_trace(&ar, "ar8", &t, &err) == TS_OK);
    CU_ASSERT_EQUAL(visits(t, 1, "imb:2 MPI_Allreduce"), 3);
    CU_ASSERT_EQUAL(visits(t, 1, "MPI_Barrier"), 5);
    CU_ASSERT_EQUAL(ts_trace_func_find(t, "imb:0 MPI_Allreduce"), -1);
    CU_ASSERT_EQUAL(ts_trace_rank_nevents(t, 1), 27);
    ts_trace_close(t);
    ar.one_size = 4;
    CU_ASSERT_EQUAL(ts_imb_trace(&ar, "ar?", &t, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "size 4 of Allreduce: expected 1 to 3"));
    ar.one_size = 0;
    /* PingPong: only ranks 0 and 1 send; rank 2 takes part in the barriers alone. */
    ts_imb_spec_t pp = {
        .bench = TS_IMB_PINGPONG, .nranks = 3, .minlog = 0, .maxlog = 0, .reps_cap = 5};
    CU_ASSERT_FATAL(ts_imb_trace(&pp, "pp", &t, &err) == TS_OK);
    CU_ASSERT_EQUAL(visits(t, 0, "imb:1 MPI_Send"), 5);
    CU_ASSERT_EQUAL(visits(t, 1, "imb:1 MPI_Recv"), 5);
    CU_ASSERT_EQUAL(visits(t, 2, "imb:1 MPI_Send"), 0);
    CU_ASSERT_EQUAL(visits(t, 2, "MPI_Barrier"), 4);
    ts_trace_close(t);
    /* Exchange: two Isends, two Recvs and one Waitall per call, back to back (IMB_exchange.c
     * times the loop and has no -sync barrier). */
    ts_imb_spec_t ex = {
        .bench = TS_IMB_EXCHANGE, .nranks = 4, .minlog = 0, .maxlog = 0, .reps_cap = 2};
    CU_ASSERT_FATAL(ts_imb_trace(&ex, "ex", &t, &err) == TS_OK);
    CU_ASSERT_EQUAL(visits(t, 3, "imb:0 MPI_Isend"), 4);
    CU_ASSERT_EQUAL(visits(t, 3, "imb:0 MPI_Recv"), 4);
    CU_ASSERT_EQUAL(visits(t, 3, "imb:0 MPI_Waitall"), 2);
    CU_ASSERT_EQUAL(visits(t, 3, "MPI_Barrier"), 4);
    ts_trace_close(t);
    /* Impossible specs: one line each. */
    ts_imb_spec_t bad = {.bench = TS_IMB_ALLTOALL, .nranks = 1, .minlog = 0, .maxlog = 3};
    CU_ASSERT_EQUAL(ts_imb_trace(&bad, "b", &t, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected 2 to 65,536 ranks"));
    bad.nranks = 4;
    bad.maxlog = 31;
    CU_ASSERT_EQUAL(ts_imb_trace(&bad, "b", &t, &err), TS_EARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--msglog 0:31"));
}

/* The value of column col (1-based) of the table row of size bytes after the header line
 * that names benchmark bench; NAN when absent. */
static double cell(const char *out, const char *bench, unsigned long bytes, int col)
{
    char head[64];
    snprintf(head, sizeof head, "# Benchmarking %s\n", bench);
    const char *p = out ? strstr(out, head) : NULL;
    if (!p)
        return NAN;
    p = strstr(p, "#bytes");
    while (p && (p = strchr(p, '\n')) && p[1] && p[1] != '\n') {
        p++;
        char *end;
        if (strtoul(p, &end, 10) != bytes)
            continue;
        double v = NAN;
        for (int k = 1; k < col; k++)
            v = strtod(end, &end);
        return v;
    }
    return NAN;
}

static void test_tables(void)
{
    char *out = NULL, *err = NULL, args[2048], csv[1024];
    snprintf(csv, sizeof csv, "%s/imb.csv", tu_tmpdir());
    /* Two nodes, one rank each, L = 2 us, no overheads. PingPong: one-way time L + s/B with
     * B = 12,254 MB/s: 2.00 us at 0 B and 8 B; 8 / 2.0007 us = 4.00 MB/s. Exchange on a chain
     * of two: both sends reach the one neighbour, flowless, L after they leave: 2.00 us on
     * both ranks, t_min = t_max. Allreduce of 2 ranks: one exchange, L. A collective of 0
     * bytes returns at once in Open MPI's MPI layer (ompi/mpi/c/allreduce.c, alltoall.c,
     * allgather.c: a count of 0 returns MPI_SUCCESS before any component): 0.00; Exchange's
     * 0-byte messages still travel. */
    snprintf(args, sizeof args,
             "imb --nodes 2 --ppn 1 --bench pingpong,exchange,allreduce,alltoall,allgather "
             "--msglog 0:3 "
             "--set model.net.latency=2us " ZERO " --csv %s",
             csv);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "PingPong", 0, 3), 2.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "PingPong", 8, 3), 2.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "PingPong", 8, 4), 4.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "PingPong", 8, 2), 1000, 1e-9); /* IMB's count */
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Exchange", 4, 3), 2.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Exchange", 4, 4), 2.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allreduce", 8, 4), 2.00, 1e-9);
    CU_ASSERT(isnan(cell(out, "Allreduce", 2, 4))); /* below one float: not measured */
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Exchange", 0, 4), 2.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allreduce", 0, 4), 0.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Alltoall", 0, 4), 0.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allgather", 0, 4), 0.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Alltoall", 1, 4), 2.00, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allgather", 1, 4), 2.00, 1e-9);
    char *text = tu_read_file(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL(
        text && strstr(text, "benchmark,set,ranks,bytes,repetitions,replayed,t_min_us,"));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "PingPong,settings,2,8,1000,1000,"));
    free(text);
    free(out);
    free(err);

    /* Three nodes: PingPong's third rank idles and is not in its t_min or t_avg (2.00 us,
     * not 0 and 1.33); Exchange's bandwidth counts the four messages of each rank, 4 x 4 B in
     * 2.0003 us = 7.99 MB/s. */
    snprintf(args, sizeof args,
             "imb --nodes 3 --ppn 1 --bench pingpong,exchange --msglog 2:3 "
             "--set model.net.latency=2us " ZERO " --csv %s",
             csv);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Exchange", 4, 6), 7.99, 0.011);
    text = tu_read_file(csv, NULL);
    const char *pp = text ? strstr(text, "\nPingPong,settings,2,8,1000,1000,") : NULL;
    double tmin = 0, tmax = 0, tavg = 0;
    CU_ASSERT_FATAL(pp && sscanf(pp, "\nPingPong,settings,2,8,1000,1000,%lf,%lf,%lf", &tmin, &tmax,
                                 &tavg) == 3);
    CU_ASSERT_DOUBLE_EQUAL(tmin, 2.0, 0.001);
    CU_ASSERT_DOUBLE_EQUAL(tavg, 2.0, 0.001);
    free(text);
    free(out);
    free(err);

    /* HCOLL's levels inside a node as flag handoffs (model.hcoll.sm_levels=shared) of
     * model.hcoll.sm_latency = 1 us, every other cost at nothing: a 4-byte Allreduce of 4 ranks
     * on one socket is one k-nomial (radix 4) fan-in step and one fan-out step, 2.00 us; of 16
     * ranks two of each, 4.00 us. Priced as UCX messages (the default, pml) the same 4 ranks
     * take two on-host latencies, 2 x 0.3 us. */
    static const struct {
        int ppn;
        const char *mode;
        double want;
    } sm[] = {{4, "shared", 2.00}, {16, "shared", 4.00}, {4, "pml", 0.60}};
    for (size_t i = 0; i < sizeof sm / sizeof sm[0]; i++) {
        snprintf(args, sizeof args,
                 "imb --nodes 1 --ppn %d --bench allreduce --msglog 0:3 " ZERO
                 " --set model.hcoll.sm_levels=%s --set model.hcoll.sm_latency=1us"
                 " --set model.cpu.reduce_bandwidth=100TB/s --set UCX_BCOPY_BW=100TB/s",
                 sm[i].ppn, sm[i].mode);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allreduce", 4, 4), sm[i].want, 1e-9);
        free(out);
        free(err);
    }

    /* HCOLL's shared-memory levels on its payload buffers (model.hcoll.sm_buffers=payload):
     * 4 ranks on one socket, sm_latency 1 us, copies and reductions at 1000 MB/s (4.096 us
     * for 4 KiB), every other cost at nothing. Allreduce of 4 KiB: a child copies its data in
     * (4.096), the flag (1), the root reduces the three where they lie (12.288, no copy out),
     * the flag (1), each child reads the result (4.096): 22.480 us. Allgather of 4 KiB: each
     * child copies its block in (4.096), the flag (1), the root copies the three out of the
     * first level (12.288); the 16 KiB vector goes down in 4 KiB pieces, all flagged at once
     * (1) and read one after another (16.384): 34.768 us. */
    snprintf(args, sizeof args,
             "imb --nodes 1 --ppn 4 --bench allreduce,allgather --msglog 12:12 " ZERO
             " --set model.hcoll.sm_latency=1us --set UCX_BCOPY_BW=1000MB/s"
             " --set model.cpu.reduce_bandwidth=1000MB/s");
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allreduce", 4096, 4), 22.48, 0.006);
    CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allgather", 4096, 4), 34.768, 0.02);
    free(out);
    free(err);

    /* Open MPI's pml share of a receive (model.ucx.pml_recv) is paid by tuned's messages, not
     * by HCOLL's or UCC's, which use UCX's tag API themselves. Two nodes, one rank each,
     * L = 2 us, a receive's completion 1 us of which 0.4 us the pml's: the 8 B Allreduce is one
     * exchange, L + 1 = 3.00 us under tuned, L + 0.6 = 2.60 us under HCOLL (its two node
     * leaders) and UCC (k-nomial at radix min(4, 2): one round), each plus 8 B on the wire
     * (8 / 12,254 MB/s) and its reduction (8 / 5,000 MB/s): 2.253 ns. */
    char csets[512];
    snprintf(csets, sizeof csets, "%s/comp.sets", tu_tmpdir());
    FILE *cf = fopen(csets, "w");
    fprintf(cf, "[none]\n--mca coll_hcoll_enable 0\n[hcoll]\n[ucc]\n--mca coll_hcoll_enable 0 "
                "--mca coll_ucc_enable 1\n");
    fclose(cf);
    snprintf(args, sizeof args,
             "imb --nodes 2 --ppn 1 --bench allreduce --msglog 3:3 --sets %s --csv %s "
             "--set model.net.latency=2us " ZERO
             " --set model.ucx.recv_call=1us --set model.ucx.pml_recv=0.4us",
             csets, csv);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    text = tu_read_file(csv, NULL);
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "Allreduce,none,2,8,1000,1000,3.002253,3.002253"));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "Allreduce,hcoll,2,8,1000,1000,2.602253,2.602253"));
    CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "Allreduce,ucc,2,8,1000,1000,2.602253,2.602253"));
    free(text);
    free(out);
    free(err);

    /* The loop's time is divided by the repetitions replayed: 1 or 20 give the same t
     * (divided by IMB's 1000 instead, t would be 50 to 1000 times smaller). 1 MiB one way,
     * rendezvous: more than the 2 us latency plus 1 MiB / 12,254 MB/s = 85.6 us. */
    double t1 = 0, t20 = 0;
    for (int reps = 1; reps <= 20; reps += 19) {
        snprintf(args, sizeof args,
                 "imb --nodes 2 --ppn 1 --bench pingpong --msglog 20:20 --reps %d "
                 "--set model.net.latency=2us " ZERO,
                 reps);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        *(reps == 1 ? &t1 : &t20) = cell(out, "PingPong", 1048576, 3);
        free(out);
        free(err);
    }
    CU_ASSERT_TRUE(t1 > 2.0 + 85.5);
    CU_ASSERT_DOUBLE_EQUAL(t1, t20, 0.02 * t1);

    /* IMB's -sync (on by default): each timed Allgather starts from a barrier, so a rank's
     * time is its own call's; with --sync off the calls run back to back and overlap where
     * ranks finish at different times (3 nodes x 3 ranks, 8 B, 20 calls), which IMB with
     * its default -sync does not measure. */
    double ton = 0, toff = 0;
    for (int off = 0; off < 2; off++) {
        snprintf(args, sizeof args,
                 "imb --nodes 3 --ppn 3 --bench allgather --msglog 3:3 --reps 20%s",
                 off ? " --sync off" : "");
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, off ? "back to back (-sync off)"
                                                      : "followed by a barrier (-sync on)"));
        *(off ? &toff : &ton) = cell(out, "Allgather", 8, 4);
        free(out);
        free(err);
    }
    CU_ASSERT_TRUE(toff > 0 && toff < ton);

    /* IMB reduces MPI_FLOAT: a 128 B Allreduce on 36 ranks is 32 elements, as many as
     * Rabenseifner's power-of-two core, so tuned runs it; as doubles it would be 16, and Open
     * MPI falls back to recursive doubling. imb's default is the float; the table's doubles
     * (--set model.coll.datatype_size=8) give another time. */
    static const char *const dt[] = {"", " --set model.coll.datatype_size=4",
                                     " --set model.coll.datatype_size=8"};
    double tdt[3] = {0};
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args,
                 "imb --nodes 1 --ppn 36 --bench allreduce --msglog 7:7 --reps 5 --mca "
                 "coll_hcoll_enable 0%s",
                 dt[k]);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "Allreduce on MPI_FLOAT"));
        tdt[k] = cell(out, "Allreduce", 128, 4);
        free(out);
        free(err);
    }
    CU_ASSERT_TRUE(tdt[0] > 0);
    CU_ASSERT_DOUBLE_EQUAL(tdt[0], tdt[1], 1e-9);
    CU_ASSERT_TRUE(fabs(tdt[0] - tdt[2]) > 0.01);

    /* A grid: two sets, one with half the latency, wins by the geometric mean of t_max. */
    char sets[1024];
    snprintf(sets, sizeof sets, "%s/lat.sets", tu_tmpdir());
    FILE *fp = fopen(sets, "w");
    fprintf(fp, "[slow]\nmodel.net.latency = 2us\n[fast]\nmodel.net.latency = 1us\n");
    fclose(fp);
    snprintf(args, sizeof args,
             "imb --nodes 2 --ppn 1 --bench pingpong --msglog 0:2 --sets %s -j 2 " ZERO, sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# PingPong, t_max[usec] per set (2 ranks)"));
    CU_ASSERT_PTR_NOT_NULL(
        out && strstr(out, "# winner: fast (least geometric mean of t_max over the 4 sizes at "
                           "which the sets differ by more than 1 %: 1.000 us)"));
    free(out);
    free(err);

    /* Ties: a set 0.4 % behind ties within the default 0.5 %, not within --tie 0.3; at
     * --tie 100 every set ties and the first in the file's order wins. */
    fp = fopen(sets, "w");
    fprintf(fp, "[slow]\nmodel.net.latency = 2us\n[fast]\nmodel.net.latency = 1us\n"
                "[near]\nmodel.net.latency = 1.004us\n");
    fclose(fp);
    static const struct {
        const char *tie, *winner, *ties;
    } tc[] = {{"", "fast", "# ties within 0.5 %: near\n"},
              {"--tie 0.3", "fast", NULL},
              {"--tie 100", "slow", "# ties within 100 %: fast, near\n"}};
    for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++) {
        snprintf(args, sizeof args,
                 "imb --nodes 2 --ppn 1 --bench pingpong --msglog 0:2 --sets %s %s " ZERO, sets,
                 tc[i].tie);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        char want[64];
        snprintf(want, sizeof want, "# winner: %s (", tc[i].winner);
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, want));
        /* A tie before the least in the file's order wins, and the line says whose the
         * least is: fast's 1 us a size, slow's own 2 us. */
        if (strcmp(tc[i].winner, "slow") == 0)
            CU_ASSERT_PTR_NOT_NULL(
                out && strstr(out, "# winner: slow (the first in the sets' order within 100 % "
                                   "of the least geometric mean of t_max over the 4 sizes at "
                                   "which the sets differ by more than 1 %: fast 1.000 us, "
                                   "slow 2.000 us)"));
        if (tc[i].ties) {
            CU_ASSERT_PTR_NOT_NULL(out && strstr(out, tc[i].ties));
        } else {
            CU_ASSERT_PTR_NULL(out ? strstr(out, "# ties within") : "");
        }
        free(out);
        free(err);
    }
    snprintf(args, sizeof args, "imb --nodes 2 --ppn 1 --bench pingpong --sets %s --tie 101", sets);
    CU_ASSERT_NOT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(err &&
                           strstr(err, "--tie expects a percentage from 0 to 100, got '101'"));
    free(out);
    free(err);
}

/* Sets whose UCX_TLS resolves to the same transports (all and self,sm,rc on one node: posix,
 * xpmem) are replayed once and say so; self,sm,ud does too on one node (no network), but
 * not on two (ud_mlx5's plans differ). */
static void test_twins(void)
{
    char sets[1024], args[2048], *out = NULL, *err = NULL;
    snprintf(sets, sizeof sets, "%s/tls.sets", tu_tmpdir());
    FILE *fp = fopen(sets, "w");
    fprintf(fp, "[grid t]\nUCX_TLS = all | self,sm,rc | self,sm,ud\n");
    fclose(fp);
    snprintf(args, sizeof args,
             "imb --nodes 2 --ppn 2 --bench Exchange --msglog 0:4 --sets %s --csv %s/tls.csv", sets,
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# set t-2: UCX_TLS=self,sm,rc (2 nodes x 2, NPS1, "
                                              "block)\n# plans every message as set t-1 does"));
    const char *ud = out ? strstr(out, "# set t-3: ") : NULL;
    CU_ASSERT_PTR_NOT_NULL(ud);
    CU_ASSERT(ud && strncmp(strchr(ud, '\n') + 1, "# plans every", 13) != 0);
    /* The twins' rows are the same numbers (the CSV: "Exchange,t-1,4,..." and "...t-2..."). */
    char path[1024];
    snprintf(path, sizeof path, "%s/tls.csv", tu_tmpdir());
    char *csv = tu_read_file(path, NULL);
    const char *a = csv ? strstr(csv, "Exchange,t-1,4,16,") : NULL;
    const char *b = csv ? strstr(csv, "Exchange,t-2,4,16,") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(strcspn(a, "\n"), strcspn(b, "\n"));
    CU_ASSERT(strncmp(a + 18, b + 18, strcspn(a, "\n") - 18) == 0);
    free(csv);
    free(out);
    free(err);
}

/* The CSV row of set name at size bytes, less the set's name ("Exchange,NAME,4,BYTES,..."
 * becomes "4,BYTES,..."); NULL when absent. Caller frees. */
static char *csv_row(const char *csv, const char *bench, const char *name, unsigned long bytes)
{
    char head[128];
    snprintf(head, sizeof head, "\n%s,%s,", bench, name);
    for (const char *p = csv ? strstr(csv, head) : NULL; p; p = strstr(p + 1, head)) {
        const char *row = p + strlen(head);
        const char *comma = strchr(row, ',');
        if (comma && strtoul(comma + 1, NULL, 10) == bytes)
            return strndup(row, strcspn(row, "\n"));
    }
    return NULL;
}

/* Each size is replayed alone, once per group of sets that plan its messages alike. The grid
 * UCX_RNDV_THRESH = 1kb | 4kb | 64kb on Exchange, sizes 0, 1, ..., 64 KiB (18): the first set
 * replays all 18; 4kb plans as 1kb below 1 KiB (eager) and from 4 KiB (rendezvous), so it
 * replays 1 and 2 KiB; 64kb plans as 1kb below 1 KiB, as 4kb at 1-2 KiB (eager) and as both
 * from 64 KiB, so it replays 4-32 KiB: 18 + 2 + 4 = 24 of 54. Every row equals the set's
 * replay alone, byte for byte. */
static void test_sizes_alone(void)
{
    char sets[1024], one[1024], args[2048], path[1024], *out = NULL, *err = NULL;
    snprintf(sets, sizeof sets, "%s/rndv.sets", tu_tmpdir());
    snprintf(one, sizeof one, "%s/rndv-one.sets", tu_tmpdir());
    FILE *fp = fopen(sets, "w");
    fprintf(fp, "[grid r]\nUCX_RNDV_THRESH = 1kb | 4kb | 64kb\n");
    fclose(fp);
    fp = fopen(one, "w");
    fprintf(fp, "[r-3]\nUCX_RNDV_THRESH = 64kb\n");
    fclose(fp);
    const char *common = "imb --nodes 2 --ppn 2 --bench Exchange --msglog 0:16 -j 2";
    snprintf(args, sizeof args, "%s --sets %s --csv %s/grid.csv", common, sets, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "# 24 of the 54 sizes under the sets replayed"));
    free(out);
    free(err);
    snprintf(args, sizeof args, "%s --sets %s --csv %s/alone.csv", common, one, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(out && !strstr(out, "sizes under the sets replayed"));
    snprintf(path, sizeof path, "%s/grid.csv", tu_tmpdir());
    char *grid = tu_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/alone.csv", tu_tmpdir());
    char *alone = tu_read_file(path, NULL);
    unsigned long sizes[] = {0, 512, 1024, 2048, 4096, 32768, 65536};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *a = csv_row(grid, "Exchange", "r-3", sizes[i]);
        char *b = csv_row(alone, "Exchange", "r-3", sizes[i]);
        CU_ASSERT_PTR_NOT_NULL(a);
        CU_ASSERT_TRUE(a && b && strcmp(a, b) == 0);
        if (a && b && strcmp(a, b) != 0)
            printf("\n  %lu B: grid %s, alone %s\n", sizes[i], a, b);
        free(a);
        free(b);
    }
    /* and the sizes differ where the thresholds do: 2 KiB eager (64kb) against rendezvous */
    char *a = csv_row(grid, "Exchange", "r-1", 2048), *b = csv_row(grid, "Exchange", "r-3", 2048);
    CU_ASSERT_TRUE(a && b && strcmp(a, b) != 0);
    free(a);
    free(b);
    free(grid);
    free(alone);
    free(out);
    free(err);
}

/* The CPU of the Bruck Alltoalls besides their messages, through the engine: 16 ranks, 4 B a
 * peer (tuned's and UCC's Bruck), 4 steps of 8 blocks and a rotation of 16. Open MPI's at
 * model.coll.bruck_step 1 us and _block 10 ns: 4 x (1 + 8 x 0.01) + 16 x 0.01 = 4.48 us more
 * than with both at 0, and its bytes copied within the rank at model.cpu.copy_bandwidth 100
 * MB/s (against 1e14 B/s): the two rotations of 64 B and 4 copies back of 32 B, 256 B, 2.56 us
 * more: 7.04; UCC's at model.ucc.block_copy 10 ns: 4 x 8 x 0.01 + 16 x 0.01 = 0.48 us more;
 * HCOLL's stand-in pays none of them. */
static void test_bruck_cpu(void)
{
    static const struct {
        const char *comp;
        double more;
    } c[] = {{"--mca coll_hcoll_enable 0", 7.04},
             {"--mca coll_hcoll_enable 0 --mca coll_ucc_enable 1", 0.48},
             {"", 0.0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double t[2];
        for (int on = 0; on < 2; on++) {
            char args[1024], *out = NULL, *err = NULL;
            snprintf(args, sizeof args,
                     "imb --nodes 1 --ppn 16 --bench alltoall --msglog 2:2 " ZERO " %s"
                     " --set model.coll.bruck_step=%s --set model.coll.bruck_block=%s"
                     " --set model.ucc.block_copy=%s --set model.cpu.copy_bandwidth=%s",
                     c[i].comp, on ? "1us" : "0ns", on ? "10ns" : "0ns", on ? "10ns" : "0ns",
                     on ? "100MB/s" : "100000000MB/s");
            CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
            t[on] = cell(out, "Alltoall", 4, 4);
            free(out);
            free(err);
        }
        CU_ASSERT_DOUBLE_EQUAL(t[1] - t[0], c[i].more, 0.006); /* the table's two decimals */
    }
}

/* NPS2's latencies (model.shm.nps2_domain_gain): 4 ranks on one node, every overhead at
 * nothing, model.shm.latency 1 us, the gain 0.25 us, 1.5 us between the domains of a socket
 * and 2 us between sockets. Block puts all four in socket 0's first domain, cyclic deals
 * them over the four domains in turn (0 and 1 on socket 0, 2 and 3 on socket 1). PingPong of
 * 1 B (ranks 0 and 1): 1.00 us under NPS1, 0.75 under NPS2 block (one domain), 1.50 under
 * NPS2 cyclic (two domains of a socket: absolute, no gain). HCOLL's Allreduce
 * of 4 B as flag handoffs of model.hcoll.sm_latency 1 us (a fan-in and a fan-out step,
 * radix 4): 2.00 under NPS1, 2 x 0.75 = 1.50 under NPS2 block; under NPS2 cyclic each socket
 * is a pair from two domains (0.75 + 1.5 - 0.75 = 1.50 a step) and the node level crosses
 * the sockets (0.75 + 2 - 0.75 = 2.00): 2 x (1.50 + 2.00) = 7.00 us. With the cross-domain
 * latency set below NPS1's on-socket one (0.5 us) a pair of two domains still pays NPS1's
 * 1 us: PingPong 1.00, the Allreduce's socket steps 1.00, 2 x (1.00 + 2.00) = 6.00 us.
 * core:PE=9 puts the four ranks 9 cores apart, one in each domain (cores 0, 9, 18, 27): as
 * cyclic; core:PE=2 keeps them in the first (cores 0, 2, 4, 6): as block. In one --sets run
 * the two are two placements, not one set replayed once (they were, the key lacking PE). */
static void test_nps2_domains(void)
{
    static const struct {
        const char *place;
        double pingpong, allreduce;
    } c[] = {{"--nps 1 --map-by block", 1.00, 2.00},
             {"--nps 2 --map-by block", 0.75, 1.50},
             {"--nps 2 --map-by cyclic", 1.50, 7.00},
             {"--nps 2 --map-by cyclic --set model.shm.cross_numa_latency=0.5us", 1.00, 6.00},
             {"--nps 2 --map-by core:PE=9", 1.50, 7.00},
             {"--nps 2 --map-by core:PE=2", 0.75, 1.50}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char *out = NULL, *err = NULL, args[2048];
        snprintf(args, sizeof args,
                 "imb --nodes 1 --ppn 4 --bench pingpong,allreduce --msglog 0:2 " ZERO
                 " --set model.shm.latency=1us --set model.shm.nps2_domain_gain=0.25us"
                 " --set model.shm.cross_numa_latency=1.5us"
                 " --set model.shm.cross_socket_latency=2us --set model.hcoll.sm_levels=shared"
                 " --set model.hcoll.sm_latency=1us --set model.cpu.reduce_bandwidth=100TB/s"
                 " --set UCX_BCOPY_BW=100TB/s %s",
                 c[i].place);
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, "PingPong", 1, 3), c[i].pingpong, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(cell(out, "Allreduce", 4, 4), c[i].allreduce, 1e-9);
        free(out);
        free(err);
    }
    char sets[1024], *out = NULL, *err = NULL, args[2048];
    snprintf(sets, sizeof sets, "%s/pe.sets", tu_tmpdir());
    FILE *f = fopen(sets, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("[pe2]\nmap_by = core:PE=2\n[pe9]\nmap_by = core:PE=9\n", f);
    fclose(f);
    snprintf(args, sizeof args,
             "imb --nodes 1 --ppn 4 --nps 2 --bench pingpong --msglog 0:0 " ZERO
             " --set model.shm.latency=1us --set model.shm.nps2_domain_gain=0.25us"
             " --set model.shm.cross_numa_latency=1.5us --set model.shm.cross_socket_latency=2us"
             " --sets %s",
             sets);
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    const char *row = out ? strstr(out, "# PingPong, t_max[usec] per set") : NULL;
    row = row ? strstr(row, "\n           1 ") : NULL;
    double pe2 = 0, pe9 = 0;
    CU_ASSERT_FATAL(row && sscanf(row, " 1 %lf %lf", &pe2, &pe9) == 2);
    CU_ASSERT_DOUBLE_EQUAL(pe2, 0.75, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(pe9, 1.50, 1e-9);
    free(out);
    free(err);
}

static void test_bad_input(void)
{
    const struct {
        const char *args, *msg;
        int rc;
    } cases[] = {
        {"imb --ppn 4", "--nodes N and --ppn P give the shape", 2},
        {"imb --nodes 1 --ppn 4 --msglog 5:3", "--msglog expects [MIN:]MAX", 2},
        {"imb --nodes 1 --ppn 4 --msglog 0:31", "--msglog expects [MIN:]MAX", 2},
        {"imb --nodes 1 --ppn 4 --bench bcast", "unknown benchmark 'bcast'", 2},
        {"imb --nodes 1 --ppn 4 --reps 0", "--reps expects 1 to 1000", 2},
        {"imb --nodes 1 --ppn 4 --budget x", "--budget expects a number of messages", 2},
        {"imb --nodes 1 --ppn 4 --sync maybe", "--sync expects on or off, got 'maybe'", 2},
        {"imb --nodes 1 --ppn 4 -x UCX_TLS=bogus", "UCX_TLS", 1},
        {"imb --nodes 1 --ppn 4 --csv /nonexistent/dir/x.csv", "/nonexistent/dir/x.csv", 1},
        {"imb --nodes 1 --ppn 4 --sets /nonexistent.sets", "/nonexistent.sets", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL, *err = NULL;
        int rc = tu_run_cli(cases[i].args, &out, &err);
        CU_ASSERT_TRUE(rc == 1 || rc == 2);
        if (cases[i].rc == 2)
            CU_ASSERT_EQUAL(rc, 2);
        CU_ASSERT_TRUE(out && out[0] == '\0');
        CU_ASSERT_TRUE(tu_one_line(err));
        if (!err || !strstr(err, cases[i].msg))
            printf("\n  %s: %s\n", cases[i].args, err ? err : "(nothing)");
        CU_ASSERT_PTR_NOT_NULL(err && strstr(err, cases[i].msg));
        free(out);
        free(err);
    }
    /* A set the platform cannot place names the file, the set and the line that asks for it,
     * not the set's header; every such set is listed, then how many (as sweep lists them). */
    static const char *const body[] = {
        "[a]\nUCX_TLS = rc\n\nnps = 3\n", "[b]\n\nppn = 3\n", "[c]\nnps = 3\n[d]\n[e]\nnps = 4\n",
        "[f]\nUCX_TLS = bogus\n[g]\nnps = 3\n", "[h]\nnps = 3\nmap-by = ppr:30:socket\n"};
    static const char *const want[] = {":4: [a] placement: NPS 3 is not offered",
                                       ":3: [b] imb takes the shape from --nodes and --ppn",
                                       ":5: [e] placement: NPS 4 is not offered",
                                       ":4: [g] placement: NPS 3 is not offered",
                                       ":2: [h] placement: NPS 3 is not offered"};
    /* [f]'s own mistake beside [g]'s placement; [h]'s two lines each wrong, the one named
     * the one the message names (each alone fails, so neither alone is to blame) */
    static const int nlines[] = {2, 2, 3, 3, 2};
    for (int k = 0; k < 5; k++) {
        char sets[1024], args[2048];
        snprintf(sets, sizeof sets, "%s/place%d.sets", tu_tmpdir(), k);
        FILE *fp = fopen(sets, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fputs(body[k], fp);
        fclose(fp);
        snprintf(args, sizeof args,
                 "imb --nodes 2 --ppn 2 --bench allreduce --msglog 0:1 --sets %s", sets);
        char *out = NULL, *err = NULL;
        CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 1);
        int lines = 0;
        for (const char *c = err; c && *c; c++)
            lines += *c == '\n';
        CU_ASSERT_EQUAL(lines, nlines[k]);
        CU_ASSERT_PTR_NOT_NULL(err && strstr(err, sets) && strstr(err, want[k]));
        CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "nothing was run"));
        if (!err || !strstr(err, want[k]))
            printf("\n  %s: %s\n", args, err ? err : "(nothing)");
        free(out);
        free(err);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("imb", NULL, NULL);
    CU_add_test(s, "IMB's sizes and repetitions", test_reps_and_sizes);
    CU_add_test(s, "the calls of each benchmark", test_trace_calls);
    CU_add_test(s, "tunesim imb's tables, hand-derived", test_tables);
    CU_add_test(s, "sets that plan alike are replayed once", test_twins);
    CU_add_test(s, "each size alone, once per group that plans alike", test_sizes_alone);
    CU_add_test(s, "the Bruck Alltoalls' CPU besides their messages", test_bruck_cpu);
    CU_add_test(s, "NPS2's latencies within and across domains", test_nps2_domains);
    CU_add_test(s, "bad input", test_bad_input);
    return tu_run_all();
}
