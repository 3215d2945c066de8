/* test_whatif.c - the what-ifs beyond MPI settings (docs/what-if.md), through the replay job
 * as `tunesim replay` runs it, on small synthetic traces whose answers follow by hand:
 *  - link speed: model.net.bandwidth scales by the new rate over the platform's link_rate,
 *    so a 64 MiB message between two nodes takes twice the wire time at half the speed,
 *    while an 8-byte one (latency-bound) hardly moves;
 *  - memory bandwidth and clock: a burst's memory-bound part (model.cpu.memory_bound)
 *    scales with the memory, the rest with the clock;
 *  - load balance: each rank's compute moved a fraction of the way to the mean, the sum kept.
 * SimGrid's engine is a per-process singleton, so every replay runs in a forked child. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "params/params_args.h"
#include "sim/replay_job.h"
#include "traces/trace_impl.h"

/* ---- traces ---------------------------------------------------------------------------- */

static ts_trace_t *new_trace(int32_t n)
{
    ts_trace_t *t;
    CU_ASSERT_FATAL(ts__trace_new("synthetic", TS_FORMAT_OTF2, n, &t) == TS_OK);
    ts__trace_add_node(t, "n0");
    int32_t world[8];
    for (int32_t i = 0; i < n; i++)
        world[i] = i;
    ts__trace_add_comm(t, "MPI_COMM_WORLD", n, 0, world);
    return t;
}

static void put(ts_trace_t *t, int32_t rank, ts_event_t ev)
{
    CU_ASSERT_FATAL(ts_codec_put(&t->ranks[rank].buf, &ev) == TS_OK);
    t->ranks[rank].nevents++;
}

/* Rank 0 computes c0 ns, rank 1 c1 ns; then rank 1 sends `bytes` to rank 0 (MPI_Send /
 * MPI_Recv), so the run ends when the later of the two has computed and the message landed. */
static ts_trace_t *compute_then_message(int64_t c0, int64_t c1, uint64_t bytes)
{
    ts_trace_t *t = new_trace(2);
    int32_t f_send = ts__trace_intern_func(t, "MPI_Send");
    int32_t f_recv = ts__trace_intern_func(t, "MPI_Recv");
    if (c0 > 0)
        put(t, 0, (ts_event_t){.kind = TS_EV_COMPUTE, .time = c0});
    if (c1 > 0)
        put(t, 1, (ts_event_t){.kind = TS_EV_COMPUTE, .time = c1});
    put(t, 1, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f_send});
    put(t, 1, (ts_event_t){.kind = TS_EV_SEND, .peer = 0, .tag = 1, .bytes = bytes});
    put(t, 1, (ts_event_t){.kind = TS_EV_LEAVE});
    put(t, 0, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)f_recv});
    put(t, 0, (ts_event_t){.kind = TS_EV_RECV, .peer = 1, .tag = 1, .bytes = bytes});
    put(t, 0, (ts_event_t){.kind = TS_EV_LEAVE});
    ts__trace_seal(t);
    return t;
}

/* ---- one replay in a child ------------------------------------------------------------- */

typedef struct outcome_s {
    int ok;
    double makespan, compute, net_bw;
    char msg[400];
} outcome_t;

/* Replay t on the named platform with nodes x ppn and the words of args (as on the command
 * line: "--link-speed 50Gbps --set ..."). */
static outcome_t replay(const ts_trace_t *t, const char *platform, int nodes, int ppn,
                        const char *args)
{
    outcome_t o = {0};
    int fd[2];
    CU_ASSERT_FATAL(pipe(fd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        char buf[512], *words[32];
        int n = 0;
        snprintf(buf, sizeof buf, "%s", args);
        for (char *w = strtok(buf, " "); w && n < 32; w = strtok(NULL, " "))
            words[n++] = w;
        ts_params_t *p = NULL;
        ts_error_t err = {0};
        ts_job_t *job = NULL;
        ts_params_new(&p);
        ts_job_opts_t opts = {.platform = platform, .place = {.nodes = nodes, .ppn = ppn}};
        ts_status st = ts_params_parse_args(p, n, words, NULL, &err);
        if (st == TS_OK)
            st = ts_job_prepare(t, "synthetic", p, &opts, &job, &err);
        if (st == TS_OK)
            st = ts_job_run(job, &err);
        if (st == TS_OK) {
            o.ok = 1;
            o.makespan = ts_job_result(job)->makespan;
            o.compute = ts_job_result(job)->compute_time;
            o.net_bw = ts_params_bw(ts_job_params(job), TS_P_NET_BW);
        } else {
            snprintf(o.msg, sizeof o.msg, "%.390s", err.msg);
        }
        if (write(fd[1], &o, sizeof o) != (ssize_t)sizeof o)
            _exit(2);
        _exit(0);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], &o, sizeof o);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    CU_ASSERT_EQUAL(got, (ssize_t)sizeof o);
    if (!o.ok && strcmp(args, "") != 0 && o.msg[0] == '\0')
        printf("\n  replay %s: no outcome", args);
    return o;
}

/* ---- link speed ------------------------------------------------------------------------ */

static void test_link_speed(void)
{
    /* 64 MiB between two nodes: a rendezvous whose wire time s / B dominates. */
    ts_trace_t *big = compute_then_message(0, 0, 64u << 20);
    /* Registrations off (16 us + 0.06 ns a byte at each end: 8 ms for 64 MiB, which the
     * link does not change), so that the wire time is the run. */
    const char *noreg = "--set model.net.reg_cost=0 --set model.net.reg_cost_per_byte=0";
    char args[256];
    outcome_t full = replay(big, "bm-optimized3.36", 2, 1, noreg);
    snprintf(args, sizeof args, "%s --link-speed 50Gbps", noreg);
    outcome_t half = replay(big, "bm-optimized3.36", 2, 1, args);
    snprintf(args, sizeof args, "%s --link-speed FDR", noreg);
    outcome_t fdr = replay(big, "bm-optimized3.36", 2, 1, args);
    if (!full.ok)
        printf("\n  %s", full.msg);
    CU_ASSERT_FATAL(full.ok && half.ok && fdr.ok);
    /* model.net.bandwidth 12,254 MB/s at the platform's 100 Gbps: 6,127 MB/s at 50 Gbps. */
    CU_ASSERT_DOUBLE_EQUAL(full.net_bw, 12254e6, 1);
    CU_ASSERT_DOUBLE_EQUAL(half.net_bw, 6127e6, 1);
    CU_ASSERT_DOUBLE_EQUAL(fdr.net_bw, 12254e6 * 0.5454, 1e3);
    /* The wire time, 67,108,864 B / 12,254 MB/s = 5.4765 ms, doubles; the rest (latencies
     * and handshakes: microseconds) does not. */
    double wire = 67108864.0 / 12254e6;
    CU_ASSERT(full.makespan > wire && full.makespan < wire + 20e-6);
    CU_ASSERT_DOUBLE_EQUAL(half.makespan - full.makespan, wire, 5e-6);
    double ratio = half.makespan / full.makespan;
    CU_ASSERT(ratio > 1.95 && ratio < 2.0);
    printf("\n  64 MiB: %.4f ms at 100 Gbps, %.4f ms at 50 Gbps (x%.3f), %.4f ms at FDR",
           full.makespan * 1e3, half.makespan * 1e3, ratio, fdr.makespan * 1e3);
    ts_trace_close(big);

    /* 8 bytes: latency, not bandwidth: 8 B / 6 GB/s is a nanosecond. */
    ts_trace_t *small = compute_then_message(0, 0, 8);
    full = replay(small, "bm-optimized3.36", 2, 1, "");
    half = replay(small, "bm-optimized3.36", 2, 1, "--link-speed 50Gbps");
    CU_ASSERT_FATAL(full.ok && half.ok);
    CU_ASSERT(half.makespan >= full.makespan);
    CU_ASSERT(half.makespan - full.makespan < 0.01 * full.makespan);

    /* No machine of the kind: a bandwidth without its unit (56 B/s), a clock of 1e-320 GHz
     * (SimGrid aborted), memory 500 times the platform's: refused, naming the option. */
    static const char *const absurd[][2] = {
        {"--link-speed 56", "model.net.link_speed (--link-speed) 56 B/s: expected within a factor"},
        {"--cpu-clock 1e-320", "model.cpu.clock (--cpu-clock)"},
        {"--memory-bandwidth 100TB/s", "model.cpu.memory_bandwidth (--memory-bandwidth) 1e+14"}};
    for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        outcome_t o = replay(small, "bm-optimized3.36", 2, 1, absurd[i][0]);
        CU_ASSERT(!o.ok && strstr(o.msg, absurd[i][1]));
    }
    ts_trace_close(small);

    /* A platform that states no link rate: refused, naming the key. */
    ts_trace_t *one = compute_then_message(1000, 1000, 8);
    outcome_t bad = replay(one, "localhost", 1, 2, "--link-speed EDR");
    CU_ASSERT(!bad.ok);
    CU_ASSERT_PTR_NOT_NULL(strstr(bad.msg, "model.net.link_speed needs the platform's link_rate"));
    ts_trace_close(one);
}

/* ---- memory bandwidth and clock -------------------------------------------------------- */

static void test_memory_and_clock(void)
{
    /* Two ranks on one node, 1 ms and 1 ms of compute: compute_time sums 2 ms. */
    ts_trace_t *t = compute_then_message(1000000, 1000000, 8);
    const struct {
        const char *args;
        double compute; /* hand-derived: f / (mem ratio) + (1 - f) / (clock ratio), x 2 ms */
    } cases[] = {
        {"", 2e-3},
        /* fully bound: the burst follows the memory (204.8 -> 409.6 GB/s halves it) */
        {"--set model.cpu.memory_bound=1 --memory-bandwidth 409.6GB/s", 1e-3},
        /* unbound: the memory does nothing, the clock (3.0 -> 6.0 GHz) halves it */
        {"--set model.cpu.memory_bound=0 --memory-bandwidth 409.6GB/s", 2e-3},
        {"--set model.cpu.memory_bound=0 --cpu-clock 6", 1e-3},
        {"--set model.cpu.memory_bound=1 --cpu-clock 6", 2e-3},
        /* the default 0.73 bound: 0.73 / 2 + 0.27 = 0.635 */
        {"--memory-bandwidth 409.6GB/s", 2e-3 * 0.635},
        /* both: 0.73 / 1.25 + 0.27 / 1.1 */
        {"--memory-bandwidth 256GB/s --cpu-clock 3.3", 2e-3 * (0.73 / 1.25 + 0.27 / 1.1)},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        outcome_t o = replay(t, "bm-optimized3.36", 1, 2, cases[k].args);
        CU_ASSERT_FATAL(o.ok);
        CU_ASSERT_DOUBLE_EQUAL(o.compute, cases[k].compute, 1e-12);
        if (fabs(o.compute - cases[k].compute) > 1e-12)
            printf("\n  %s: compute %.9g, want %.9g", cases[k].args, o.compute, cases[k].compute);
    }
    outcome_t bad = replay(t, "localhost", 1, 2, "--cpu-clock 4");
    CU_ASSERT(!bad.ok && strstr(bad.msg, "core_clock") != NULL);
    bad = replay(t, "bm-optimized3.36", 1, 2, "--balance 1.5");
    CU_ASSERT(!bad.ok && strstr(bad.msg, "model.cpu.balance") != NULL);
    ts_trace_close(t);
}

/* ---- load balance ---------------------------------------------------------------------- */

static void test_balance(void)
{
    /* 1 ms and 3 ms of compute, mean 2 ms: at balance b the slower rank computes
     * 3 - b ms and the run ends then (plus an 8-byte message's few microseconds). */
    ts_trace_t *t = compute_then_message(1000000, 3000000, 8);
    const double b[] = {0, 0.5, 1};
    outcome_t o[3];
    for (int k = 0; k < 3; k++) {
        char args[64];
        snprintf(args, sizeof args, "--balance %g", b[k]);
        o[k] = replay(t, "bm-optimized3.36", 1, 2, args);
        CU_ASSERT_FATAL(o[k].ok);
        CU_ASSERT_DOUBLE_EQUAL(o[k].compute, 4e-3, 1e-12); /* the total kept */
        CU_ASSERT(o[k].makespan >= (3 - b[k]) * 1e-3 && o[k].makespan < (3 - b[k]) * 1e-3 + 5e-6);
    }
    outcome_t pct = replay(t, "bm-optimized3.36", 1, 2, "--balance 50%");
    CU_ASSERT(pct.ok && pct.makespan == o[1].makespan);
    ts_trace_close(t);
    /* A rank without compute has nothing to scale and is left out of the mean: the other
     * rank, alone in it, keeps its 2 ms. */
    t = compute_then_message(0, 2000000, 8);
    outcome_t z = replay(t, "bm-optimized3.36", 1, 2, "--balance 1");
    CU_ASSERT(z.ok && fabs(z.compute - 2e-3) < 1e-12);
    ts_trace_close(t);
}

int main(void)
{
    CU_initialize_registry();
    CU_pSuite s = CU_add_suite("what-ifs", NULL, NULL);
    CU_add_test(s, "link speed: bandwidth-bound x2, latency-bound not", test_link_speed);
    CU_add_test(s, "memory bandwidth and clock by the bound fraction", test_memory_and_clock);
    CU_add_test(s, "load balance: toward the mean, the total kept", test_balance);
    return tu_run_all();
}
