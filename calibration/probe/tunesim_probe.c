/* tunesim_probe.c - tunesim-probe: the micro-benchmarks a calibration needs, measured with the
 * application's own mpirun settings, printed in OSU's text format so that one parser reads
 * OSU, IMB and probe output (calibration/bench_parse.c; tunesim calibrate fits them).
 *
 *   mpirun [the application's -x / --mca settings] -np N tunesim-probe [-o FILE] [--quick]
 *   mpirun [...] -np 2 tunesim-probe --percall [-o FILE]   (only the per-call costs below)
 *
 * Measures, between rank 0 and one partner per locality class it finds:
 *   - ping-pong latency per size (MPI_Send / MPI_Recv, half the round trip, like osu_latency);
 *   - streaming bandwidth per size (a window of 64 MPI_Isend, then a 4-byte ack, like osu_bw);
 *   - the first use of a fresh buffer against its repeated use (registration + first touch:
 *     mmap'ed buffers on both sides, one ping-pong, then repeated ping-pongs on the same ones);
 *   - a ping-pong of data each side has just written against the same one of untouched data
 *     (the extra cost of sending what a reduction has just written);
 *   - a rendezvous whose RTS arrives while the receiver computes against one it waits for
 *     (what a receiver busy in a compute burst pays once back in MPI);
 * (with --percall instead, only the CPU one MPI_Isend, MPI_Irecv post and per-request
 * MPI_Waitall completion costs the calling rank, against the nearest partner), and on rank 0
 * the memcpy bandwidth of one core, then over all ranks the latencies of
 * MPI_Allreduce (floats, MPI_SUM), MPI_Alltoall, MPI_Allgather and MPI_Bcast (root 0) per size,
 * as the OSU collective tests time them (barrier between iterations, average over ranks).
 *
 * Locality without hwloc: ranks on another MPI_Get_processor_name are "inter-node"; on the
 * same host, the CPU each rank runs on (sched_getcpu, after MPI_Init has bound it) and that
 * CPU's package (/sys/devices/system/cpu/cpuN/topology/physical_package_id) tell
 * "intra-socket" from "cross-socket". NUMA domains inside a socket (NPS2) are not told apart.
 * A rank that is not bound to one CPU may migrate; the header says so (bound=no).
 *
 * Each section's header records what was measured: "# tunesim-probe: key=value ..." (kind,
 * locality, ranks, nodes, the pair's hosts and CPUs, iterations) and "# settings: ..." (the
 * UCX_* and Open MPI MCA variables mpirun passed, plus the pml and BTLs actually loaded). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu, dl_iterate_phdr (CMake defines it already) */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_VERSION "1"
#define MAX_MSG       (4u << 20)
#define WINDOW        64

extern char **environ;

/* The output being written, removed when mpirun passes on an interruption (SIGTERM after the
 * user's SIGINT) so that no OUT.tmp.PID is left. */
static char tmp_out[4096];

static void remove_tmp_and_die(int sig)
{
    unlink(tmp_out);
    signal(sig, SIG_DFL);
    raise(sig);
}

typedef struct rinfo_s {
    char host[MPI_MAX_PROCESSOR_NAME];
    int cpu, package, bound;
} rinfo_t;

typedef struct probe_s {
    int rank, size, quick, percall;
    FILE *out;
    rinfo_t *info;
    int nodes;
    char settings[4096];
    char *buf_a, *buf_b;
} probe_t;

/* ---- where ranks sit ------------------------------------------------------------------ */

static int cpu_package(int cpu)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    FILE *f = fopen(path, "r");
    int pkg = 0;
    if (f) {
        if (fscanf(f, "%d", &pkg) != 1)
            pkg = 0;
        fclose(f);
    }
    return pkg;
}

static void gather_info(probe_t *p)
{
    rinfo_t me;
    memset(&me, 0, sizeof me);
    int len = 0;
    MPI_Get_processor_name(me.host, &len);
    me.cpu = sched_getcpu();
    me.package = me.cpu >= 0 ? cpu_package(me.cpu) : 0;
    cpu_set_t set;
    me.bound = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
    p->info = calloc((size_t)p->size, sizeof *p->info);
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, p->info, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    p->nodes = 0;
    for (int r = 0; r < p->size; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = strcmp(p->info[q].host, p->info[r].host) == 0;
        p->nodes += !seen;
    }
}

/* ---- settings in effect --------------------------------------------------------------- */

static int loaded_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    char *acc = data;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    const char *kinds[] = {"mca_pml_", "mca_btl_"};
    for (int k = 0; k < 2; k++) {
        size_t kl = strlen(kinds[k]);
        if (strncmp(base, kinds[k], kl) != 0)
            continue;
        char comp[64];
        snprintf(comp, sizeof comp, "%s", base + kl);
        char *dot = strchr(comp, '.');
        if (dot)
            *dot = '\0';
        size_t n = strlen(acc);
        snprintf(acc + n, 1024 - n, "%s%s:%s", n ? "," : "", k ? "btl" : "pml", comp);
    }
    return 0;
}

/* UCX_* and the MCA variables of the frameworks the models know, as KEY=VALUE words; then
 * the pml and BTL components Open MPI kept loaded after MPI_Init (the ones it selected). */
static void collect_settings(probe_t *p)
{
    static const char *const mca[] = {"pml", "btl", "coll", "osc", "mtl", "mpi_yield_when_idle"};
    char *s = p->settings;
    size_t cap = sizeof p->settings, n = 0;
    int pml_given = 0;
    s[0] = '\0';
    for (char **e = environ; *e; e++) {
        const char *v = *e;
        int keep = strncmp(v, "UCX_", 4) == 0;
        if (strncmp(v, "OMPI_MCA_", 9) == 0) {
            v += 9;
            for (size_t k = 0; k < sizeof mca / sizeof mca[0]; k++)
                keep |= strncmp(v, mca[k], strlen(mca[k])) == 0;
            pml_given |= strncmp(v, "pml=", 4) == 0;
        }
        if (keep && !strchr(v, ' ') && n + strlen(v) + 2 < cap)
            n += (size_t)snprintf(s + n, cap - n, "%s%s", n ? " " : "", v);
    }
    char loaded[1024] = "";
    dl_iterate_phdr(loaded_cb, loaded);
    const char *pml = strstr(loaded, "pml:");
    if (!pml_given && pml) {
        char name[64];
        sscanf(pml + 4, "%63s", name);
        if (n + strlen(name) + 6 < cap)
            n += (size_t)snprintf(s + n, cap - n, "%spml=%s", n ? " " : "", name);
    }
    if (loaded[0] && n + strlen(loaded) + 12 < cap)
        snprintf(s + n, cap - n, "%sloaded=%s", n ? " " : "", loaded);
}

/* ---- output --------------------------------------------------------------------------- */

static void header(probe_t *p, const char *title, const char *keys, const char *columns)
{
    if (p->rank != 0)
        return;
    fprintf(p->out, "\n# %s\n", title);
    fprintf(p->out, "# tunesim-probe: version=" PROBE_VERSION " %s\n", keys);
    fprintf(p->out, "# settings: %s\n", p->settings[0] ? p->settings : "(none)");
    fprintf(p->out, "# %-10s %s\n", "Size", columns);
}

/* ---- point-to-point ------------------------------------------------------------------- */

static int iters_for(const probe_t *p, size_t size, int small, int large)
{
    int n = size <= 8192 ? small : size <= (1u << 20) ? large : large / 4 + 2;
    return p->quick ? n / 5 + 2 : n;
}

/* One round trip of MPI_Send / MPI_Recv between me and peer (me_first: mine goes first). */
static void round_trip(char *sbuf, char *rbuf, size_t size, int me_first, int peer)
{
    if (me_first) {
        MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
}

/* Half the round trip of MPI_Send / MPI_Recv between me and peer, averaged over iters. */
static double pingpong(char *sbuf, char *rbuf, size_t size, int me_first, int peer, int iters,
                       int skip)
{
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t0 = MPI_Wtime();
        round_trip(sbuf, rbuf, size, me_first, peer);
    }
    return (MPI_Wtime() - t0) / iters / 2;
}

/* The iterations run in BLOCKS blocks and the best block's mean is reported: on a shared
 * machine another process's time slice lands in some blocks (noise only ever adds time), so
 * the best block is the closest to the undisturbed value. Both ranks of a pair agree on it
 * because rank 0 decides. */
#define BLOCKS 5

static double pingpong_best(char *sbuf, char *rbuf, size_t size, int me_first, int peer, int iters)
{
    double best = 0;
    int per = iters / BLOCKS > 0 ? iters / BLOCKS : 1;
    for (int b = 0; b < BLOCKS; b++) {
        double t = pingpong(sbuf, rbuf, size, me_first, peer, per, b == 0 ? 10 : 1);
        if (b == 0 || t < best)
            best = t;
    }
    return best;
}

static const size_t P2P_EXTRA[] = {0, 92, 93, 2007, 2008, 8248, 8249};

static int size_list(size_t *out, size_t max, int extras)
{
    int n = 0;
    if (extras)
        out[n++] = 0;
    for (size_t s = 1; s <= max; s *= 2)
        out[n++] = s;
    if (extras)
        for (size_t k = 1; k < sizeof P2P_EXTRA / sizeof P2P_EXTRA[0]; k++)
            out[n++] = P2P_EXTRA[k];
    /* sort ascending */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            size_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static void p2p_latency(probe_t *p, int a, int b, const char *keys)
{
    header(p, "OSU MPI Latency Test (tunesim-probe " PROBE_VERSION ")", keys, "Latency (us)");
    int me_first = p->rank == a, peer = me_first ? b : a;
    size_t sizes[64];
    int n = size_list(sizes, MAX_MSG, 1);
    for (int k = 0; k < n; k++) {
        double t = 0;
        if (p->rank == a || p->rank == b)
            t = pingpong_best(p->buf_a, p->buf_b, sizes[k], me_first, peer,
                              iters_for(p, sizes[k], 2000, 200));
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.2f\n", sizes[k], t * 1e6);
    }
}

static void p2p_bandwidth(probe_t *p, int a, int b, const char *keys)
{
    header(p, "OSU MPI Bandwidth Test (tunesim-probe " PROBE_VERSION ")", keys, "Bandwidth (MB/s)");
    size_t sizes[64];
    int n = size_list(sizes, MAX_MSG, 0);
    MPI_Request req[WINDOW];
    for (int k = 0; k < n; k++) {
        size_t s = sizes[k];
        int iters = iters_for(p, s * 8, 100, 20), per = iters / BLOCKS > 0 ? iters / BLOCKS : 1;
        double best = 0;
        for (int blk = 0; blk < BLOCKS && (p->rank == a || p->rank == b); blk++) {
            double t0 = 0;
            int skip = blk == 0 ? 2 : 0;
            for (int i = 0; i < per + skip; i++) {
                if (i == skip)
                    t0 = MPI_Wtime();
                if (p->rank == a) {
                    for (int w = 0; w < WINDOW; w++)
                        MPI_Isend(p->buf_a, (int)s, MPI_CHAR, b, 2, MPI_COMM_WORLD, &req[w]);
                    MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                    MPI_Recv(p->buf_b, 4, MPI_CHAR, b, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    for (int w = 0; w < WINDOW; w++)
                        MPI_Irecv(p->buf_b, (int)s, MPI_CHAR, a, 2, MPI_COMM_WORLD, &req[w]);
                    MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                    MPI_Send(p->buf_a, 4, MPI_CHAR, a, 3, MPI_COMM_WORLD);
                }
            }
            double t = MPI_Wtime() - t0;
            double bw = t > 0 ? (double)s * WINDOW * per / t : 0;
            if (bw > best)
                best = bw;
        }
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.2f\n", s, best / 1e6);
    }
}

static char *fresh(size_t size)
{
    void *m =
        mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

/* First use of fresh (mmap'ed, untouched) buffers on both sides against their repeated use:
 * the extra time is page faults plus whatever registration the transport does. */
static void p2p_registration(probe_t *p, int a, int b, const char *keys)
{
    header(p, "tunesim-probe Registration Test (extra latency of a fresh buffer's first use)", keys,
           "Latency (us)");
    int me_first = p->rank == a, peer = me_first ? b : a;
    for (size_t s = 4096; s <= MAX_MSG * 4; s *= 4) {
        enum { MAXTRIALS = 9 };
        int trials = p->quick ? 3 : MAXTRIALS;
        double extra[MAXTRIALS];
        for (int tr = 0; tr < trials && (p->rank == a || p->rank == b); tr++) {
            char *sb = fresh(s), *rb = fresh(s);
            if (!sb || !rb)
                MPI_Abort(MPI_COMM_WORLD, 2);
            double first = pingpong(sb, rb, s, me_first, peer, 1, 0);
            double again = pingpong_best(sb, rb, s, me_first, peer, BLOCKS * 2);
            /* One round trip holds both sides' first use; a one-way figure is half of it,
             * as the latency columns are. */
            extra[tr] = first - again;
            munmap(sb, s);
            munmap(rb, s);
        }
        /* The median trial: a time slice lost in one trial does not move it. */
        for (int i = 1; i < trials; i++)
            for (int j = i; j > 0 && extra[j] < extra[j - 1]; j--) {
                double t = extra[j];
                extra[j] = extra[j - 1];
                extra[j - 1] = t;
            }
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.2f\n", s, extra[trials / 2] * 1e6);
    }
}

/* The header of a test printing extra one-way times for the pair (a, b): whether this rank is
 * a, and the other one in *peer. */
static int extra_section(probe_t *p, int a, int b, const char *keys, const char *title, int *peer)
{
    header(p, title, keys, "Latency (us)");
    *peer = p->rank == a ? b : a;
    return p->rank == a;
}

/* One block of round trips on rank a's clock, each between buffers that both sides rewrite
 * first when `written` (memset, outside the timed span: b rewrites its reply while a rewrites its
 * ping, so b is waiting when the ping comes), else untouched since the last round trip. Half the
 * mean round trip. */
static double pingpong_written(char *sbuf, char *rbuf, size_t size, int me_first, int peer,
                               int iters, int written)
{
    double sum = 0;
    for (int i = 0; i < iters + 1; i++) {
        if (written)
            memset(sbuf, 'a' + i % 16, size);
        double t0 = MPI_Wtime();
        round_trip(sbuf, rbuf, size, me_first, peer);
        if (i > 0) /* the first is a warm-up */
            sum += MPI_Wtime() - t0;
    }
    return sum / iters / 2;
}

/* A rendezvous of data the sender has just written (its lines dirty in the sender's cache,
 * where a reduction leaves them before the next round sends them: model.ucx.rndv_written_cost)
 * against the same sizes sent again untouched: the extra one-way time, best block of each,
 * the two interleaved block by block so that drift hits both. */
static void p2p_written(probe_t *p, int a, int b, const char *keys)
{
    int peer, me_first = extra_section(p, a, b, keys,
                                       "tunesim-probe Written Buffer Test (extra latency of a "
                                       "message the sender has just written)",
                                       &peer);
    for (size_t s = 4096; s <= MAX_MSG; s *= 4) {
        double best[2] = {0, 0};
        int per = iters_for(p, s, 1000, 100) / BLOCKS + 1;
        for (int blk = 0; blk < BLOCKS && (p->rank == a || p->rank == b); blk++)
            for (int w = 0; w < 2; w++) {
                double t = pingpong_written(p->buf_a, p->buf_b, s, me_first, peer, per, w);
                if (blk == 0 || t < best[w])
                    best[w] = t;
            }
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.2f\n", s, (best[1] - best[0]) * 1e6);
    }
}

/* Compute for `secs` without an MPI call, as a rank does inside a trace's compute burst
 * (MPI_Wtime reads a clock and drives no progress). */
static void compute_for(double secs)
{
    volatile double x = 1;
    for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < secs;)
        x = x * 1.0000001 + 1e-9;
}

/* How long a rank computes in the busy-receiver test: far longer than an RTS's flight. */
#define BUSY_SPAN 50e-6

/* One message of `size` bytes from a to b. b posts its receive, tells a (1 byte), then either
 * computes for BUSY_SPAN (`busy`: a's RTS arrives while b is out of MPI) or waits at once;
 * returns b's time in MPI_Wait (0 on a). */
static double busy_recv(probe_t *p, int a, int b, size_t size, int busy)
{
    char sync = 0;
    if (p->rank == b) {
        MPI_Request rq;
        MPI_Irecv(p->buf_b, (int)size, MPI_CHAR, a, 5, MPI_COMM_WORLD, &rq);
        MPI_Send(&sync, 1, MPI_CHAR, a, 6, MPI_COMM_WORLD);
        if (busy)
            compute_for(BUSY_SPAN);
        double t0 = MPI_Wtime();
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        return MPI_Wtime() - t0;
    }
    MPI_Recv(&sync, 1, MPI_CHAR, b, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(p->buf_a, (int)size, MPI_CHAR, b, 5, MPI_COMM_WORLD);
    return 0;
}

/* A rendezvous whose RTS arrives while the receiver computes (model.ucx.rndv_busy_cost: what
 * it costs the receiver beyond the handshake and the transfer, once it is back in MPI) against
 * one whose receiver waits from the start. b's wait after computing holds the transfer only;
 * waiting from the start it also holds the 1-byte notice's flight to a and the RTS's back: a
 * 1-byte round trip, measured here and added back. Best block of each, interleaved; printed by
 * rank a from b's figures. */
static void p2p_busy(probe_t *p, int a, int b, const char *keys)
{
    int peer, me_first = extra_section(p, a, b, keys,
                                       "tunesim-probe Busy Receiver Test (extra time of a message "
                                       "whose RTS arrives while the receiver computes)",
                                       &peer);
    double rtt = 0;
    if (p->rank == a || p->rank == b)
        rtt = 2 * pingpong_best(p->buf_a, p->buf_b, 1, me_first, peer, iters_for(p, 1, 2000, 200));
    for (size_t s = 16384; s <= MAX_MSG; s *= 4) {
        double best[2] = {0, 0}, extra = 0;
        int per = iters_for(p, s, 200, 50) / BLOCKS + 1;
        for (int blk = 0; blk < BLOCKS && (p->rank == a || p->rank == b); blk++)
            for (int w = 0; w < 2; w++) {
                double sum = 0;
                for (int i = 0; i < per + 1; i++) {
                    double t = busy_recv(p, a, b, s, w);
                    if (i > 0) /* the first is a warm-up */
                        sum += t;
                }
                if (blk == 0 || sum / per < best[w])
                    best[w] = sum / per;
            }
        if (p->rank == b) {
            extra = best[1] - best[0] + rtt;
            MPI_Send(&extra, 1, MPI_DOUBLE, a, 7, MPI_COMM_WORLD);
        } else if (p->rank == a) {
            MPI_Recv(&extra, 1, MPI_DOUBLE, b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.2f\n", s, extra * 1e6);
    }
}

/* ---- per-call software costs (--percall) ------------------------------------------------ */

enum { PERCALL_N = 512, PERCALL_RECV_N = 128 };

/* Seconds per call of one timed batch on rank a, best of BLOCKS batches: MPI_Isend of size
 * bytes (b has posted the receives), MPI_Irecv posts, and the completion of PERCALL_RECV_N of
 * those receives whose messages arrived while a made no MPI call (so its MPI_Waitall does the
 * matching and the copy-out). Only a's own CPU is timed: what the model charges as send_call, the
 * post half of recv_call, and the completion half of recv_call. */
static void percall_batch(probe_t *p, int a, int b, size_t size, double out[3])
{
    static MPI_Request req[PERCALL_N];
    int me = p->rank;
    for (int k = 0; k < 3; k++)
        out[k] = 1e9;
    for (int blk = 0; blk < BLOCKS + 1; blk++) { /* the first block warms up */
        double t[3] = {0, 0, 0};
        /* 1. Isend: b has posted its receives (a barrier orders it). */
        if (me == b)
            for (int i = 0; i < PERCALL_N; i++)
                MPI_Irecv(p->buf_b + (size_t)i * size, (int)size, MPI_CHAR, a, 7, MPI_COMM_WORLD,
                          &req[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == a) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < PERCALL_N; i++)
                MPI_Isend(p->buf_a + (size_t)i * size, (int)size, MPI_CHAR, b, 7, MPI_COMM_WORLD,
                          &req[i]);
            t[0] = MPI_Wtime() - t0;
        }
        if (me == a || me == b)
            MPI_Waitall(PERCALL_N, req, MPI_STATUSES_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        /* 2. Irecv posts on a, then b sends; 3. a completes them once all have arrived. */
        if (me == a) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < PERCALL_N; i++)
                MPI_Irecv(p->buf_a + (size_t)i * size, (int)size, MPI_CHAR, b, 8, MPI_COMM_WORLD,
                          &req[i]);
            t[1] = MPI_Wtime() - t0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == b) {
            for (int i = 0; i < PERCALL_RECV_N; i++)
                MPI_Isend(p->buf_b + (size_t)i * size, (int)size, MPI_CHAR, a, 8, MPI_COMM_WORLD,
                          &req[i]);
            MPI_Waitall(PERCALL_RECV_N, req, MPI_STATUSES_IGNORE);
        }
        if (me == a) {
            /* No MPI call while they arrive (they fit the shared-memory FIFO): the Waitall
             * then does all the receive-side work, matching and copy-out included. */
            usleep(20000);
            double t0 = MPI_Wtime();
            MPI_Waitall(PERCALL_RECV_N, req, MPI_STATUSES_IGNORE);
            t[2] = (MPI_Wtime() - t0) * PERCALL_N / PERCALL_RECV_N;
            for (int i = PERCALL_RECV_N; i < PERCALL_N; i++) /* posted but never sent to */
                MPI_Cancel(&req[i]), MPI_Request_free(&req[i]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < 3 && blk > 0; k++)
            if (t[k] / PERCALL_N < out[k])
                out[k] = t[k] / PERCALL_N;
    }
}

/* Mean time of one exchange between a and b (each posts MPI_Irecv and MPI_Isend of size
 * bytes, then MPI_Waitall), best of BLOCKS blocks: the progress engine's cost per message as
 * a halo exchange meets it, which grows with every transport UCX polls. */
static double exchange(probe_t *p, int a, int b, size_t size)
{
    int me = p->rank, peer = me == a ? b : a;
    double best = 1e9;
    if (me != a && me != b)
        return 0;
    for (int blk = 0; blk < BLOCKS + 1; blk++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < PERCALL_N; i++) {
            MPI_Request r[2];
            MPI_Irecv(p->buf_b, (int)size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(p->buf_a, (int)size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
        double t = (MPI_Wtime() - t0) / PERCALL_N;
        if (blk > 0 && t < best)
            best = t;
    }
    return best;
}

/* The CPU one MPI call costs the caller, per size (model.ucx.send_call, model.ucx.recv_call:
 * the protocols' own copies are in the larger sizes). */
static void percall(probe_t *p, int a, int b, const char *keys)
{
    header(p, "tunesim-probe Per-call Test (CPU of one call on the calling rank)", keys,
           "Isend (us)   Irecv post (us)   Waitall per request (us)   exchange (us)");
    static const size_t SIZES[] = {8, 64, 1024, 2048};
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        double t[3];
        percall_batch(p, a, b, SIZES[i], t);
        MPI_Barrier(MPI_COMM_WORLD);
        double x = exchange(p, a, b, SIZES[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.3f %17.3f %26.3f %15.3f\n", SIZES[i], t[0] * 1e6,
                    t[1] * 1e6, t[2] * 1e6, x * 1e6);
    }
}

static void copy_bandwidth(probe_t *p)
{
    char keys[MPI_MAX_PROCESSOR_NAME + 128]; /* the host name and a few numbers */
    snprintf(keys, sizeof keys, "locality=intra-socket ranks=1 nodes=1 host=%s cpu=%d",
             p->info[0].host, p->info[0].cpu);
    header(p, "tunesim-probe Copy Bandwidth Test (memcpy by one core)", keys, "Bandwidth (MB/s)");
    if (p->rank != 0)
        return;
    size_t max = 64u << 20;
    char *src = malloc(max), *dst = malloc(max);
    if (!src || !dst)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(src, 1, max);
    memset(dst, 2, max);
    for (size_t s = 64u << 10; s <= max; s *= 4) {
        double t0 = MPI_Wtime(), t;
        long reps = 0;
        do { /* at least 20 ms (5 ms with --quick) per size */
            memcpy(dst, src, s);
            src[reps % s] ^= 1; /* keep the copies from being merged */
            reps++;
            t = MPI_Wtime() - t0;
        } while (t < (p->quick ? 0.005 : 0.02));
        fprintf(p->out, "%-12zu %12.2f\n", s, (double)s * reps / t / 1e6);
    }
    free(src);
    free(dst);
}

/* ---- collectives ---------------------------------------------------------------------- */

typedef enum { C_ALLREDUCE, C_ALLTOALL, C_ALLGATHER, C_BCAST } coll_t;

static void collective(probe_t *p, coll_t which)
{
    static const char *const titles[] = {
        "OSU MPI Allreduce Latency Test (tunesim-probe " PROBE_VERSION ", MPI_FLOAT, MPI_SUM)",
        "OSU MPI All-to-All Personalized Exchange Latency Test (tunesim-probe " PROBE_VERSION ")",
        "OSU MPI Allgather Latency Test (tunesim-probe " PROBE_VERSION ")",
        "OSU MPI Broadcast Latency Test (tunesim-probe " PROBE_VERSION ", root 0)"};
    char keys[160];
    snprintf(keys, sizeof keys, "ranks=%d nodes=%d stat=best-of-%d-blocks", p->size, p->nodes,
             BLOCKS);
    header(p, titles[which], keys, "Avg Latency(us)");
    size_t max =
        which == C_ALLTOALL || which == C_ALLGATHER ? (1u << 20) / (size_t)p->size : (1u << 20);
    char *sb = malloc(max * (size_t)p->size + 8), *rb = malloc(max * (size_t)p->size + 8);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(sb, 0, max * (size_t)p->size + 8);
    for (size_t s = which == C_ALLREDUCE ? 4 : 1; s <= max; s *= 2) {
        int iters = iters_for(p, s * 4, 500, 50), per = iters / BLOCKS > 0 ? iters / BLOCKS : 1;
        double best = 0;
        for (int blk = 0; blk < BLOCKS; blk++) {
            double sum = 0;
            int skip = blk == 0 ? 5 : 0;
            for (int i = 0; i < per + skip; i++) {
                double t0 = MPI_Wtime();
                switch (which) {
                case C_ALLREDUCE:
                    MPI_Allreduce(sb, rb, (int)(s / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                    break;
                case C_ALLTOALL:
                    MPI_Alltoall(sb, (int)s, MPI_CHAR, rb, (int)s, MPI_CHAR, MPI_COMM_WORLD);
                    break;
                case C_ALLGATHER:
                    MPI_Allgather(sb, (int)s, MPI_CHAR, rb, (int)s, MPI_CHAR, MPI_COMM_WORLD);
                    break;
                case C_BCAST:
                    MPI_Bcast(sb, (int)s, MPI_CHAR, 0, MPI_COMM_WORLD);
                    break;
                }
                double t = MPI_Wtime() - t0;
                if (i >= skip)
                    sum += t;
                MPI_Barrier(MPI_COMM_WORLD);
            }
            /* OSU's figure: each rank's mean, averaged over ranks; then the best block. */
            double mine = sum / per, total = 0;
            MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            if (blk == 0 || total < best)
                best = total;
        }
        if (p->rank == 0)
            fprintf(p->out, "%-12zu %12.2f\n", s, best / p->size * 1e6);
    }
    free(sb);
    free(rb);
}

/* ---- main ------------------------------------------------------------------------------ */

static const char *const LOC_NAMES[] = {"intra-socket", "cross-socket", "inter-node"};

static int partner(const probe_t *p, int cls)
{
    const rinfo_t *z = &p->info[0];
    for (int r = 1; r < p->size; r++) {
        const rinfo_t *o = &p->info[r];
        int same_host = strcmp(o->host, z->host) == 0;
        int c = !same_host ? 2 : o->package == z->package ? 0 : 1;
        if (c == cls)
            return r;
    }
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    probe_t p;
    memset(&p, 0, sizeof p);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.size);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            p.quick = 1;
        else if (strcmp(argv[i], "--percall") == 0)
            p.percall = 1;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            path = argv[++i];
        else {
            if (p.rank == 0)
                fprintf(stderr, "usage: mpirun [settings] -np N tunesim-probe [-o FILE] "
                                "[--quick] [--percall]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (p.size < 2) {
        if (p.rank == 0)
            fprintf(stderr, "tunesim-probe: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    /* The output before minutes of measuring (its directory is tried below, by creating the
     * temporary file): a name, and not a directory. This program links no tunesim library
     * (it is built without sanitizers), hence its own check. */
    struct stat ps;
    if (path && (!*path || (stat(path, &ps) == 0 && S_ISDIR(ps.st_mode)))) {
        if (p.rank == 0)
            fprintf(stderr, "tunesim-probe: -o '%s': expected a file name%s\n", path,
                    *path ? ", got a directory" : "");
        MPI_Finalize();
        return 2;
    }
    char *tmp = tmp_out;
    p.out = stdout;
    if (p.rank == 0 && path) {
        snprintf(tmp, sizeof tmp_out, "%s.tmp.%d", path, (int)getpid());
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* never another's file */
        p.out = fd >= 0 ? fdopen(fd, "w") : NULL;
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
        for (size_t i = 0; p.out && i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], remove_tmp_and_die);
        if (!p.out) {
            fprintf(stderr, "tunesim-probe: %s: cannot create %s: %s\n", path, tmp,
                    strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    gather_info(&p);
    collect_settings(&p);
    p.buf_a = malloc(MAX_MSG);
    p.buf_b = malloc(MAX_MSG);
    if (!p.buf_a || !p.buf_b)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(p.buf_a, 'a', MAX_MSG);
    memset(p.buf_b, 'b', MAX_MSG);
    if (p.rank == 0)
        fprintf(p.out, "# tunesim-probe %s: %d ranks on %d node%s\n", PROBE_VERSION, p.size,
                p.nodes, p.nodes == 1 ? "" : "s");
    for (int cls = 0; cls < 3; cls++) {
        int b = partner(&p, cls);
        if (b < 0)
            continue;
        const rinfo_t *x = &p.info[0], *y = &p.info[b];
        char keys[2 * MPI_MAX_PROCESSOR_NAME + 256]; /* two host names and a few numbers */
        snprintf(keys, sizeof keys,
                 "locality=%s ranks=2 nodes=%d pair=0,%d hosts=%s,%s cpus=%d,%d packages=%d,%d "
                 "bound=%s window=%d stat=best-of-%d-blocks",
                 LOC_NAMES[cls], cls == 2 ? 2 : 1, b, x->host, y->host, x->cpu, y->cpu, x->package,
                 y->package, x->bound && y->bound ? "yes" : "no", WINDOW, BLOCKS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (p.percall) { /* only the per-call costs, on the nearest partner */
            percall(&p, 0, b, keys);
            break;
        }
        p2p_latency(&p, 0, b, keys);
        MPI_Barrier(MPI_COMM_WORLD);
        p2p_bandwidth(&p, 0, b, keys);
        MPI_Barrier(MPI_COMM_WORLD);
        p2p_registration(&p, 0, b, keys);
        MPI_Barrier(MPI_COMM_WORLD);
        p2p_written(&p, 0, b, keys);
        MPI_Barrier(MPI_COMM_WORLD);
        p2p_busy(&p, 0, b, keys);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!p.percall) {
        copy_bandwidth(&p);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int c = C_ALLREDUCE; c <= C_BCAST; c++)
            collective(&p, (coll_t)c);
    }
    int rc = 0;
    if (p.rank == 0 && path) {
        if (fclose(p.out) != 0 || rename(tmp, path) != 0) {
            fprintf(stderr, "tunesim-probe: %s: cannot write\n", path);
            unlink(tmp);
            rc = 1;
        }
    } else if (p.rank == 0) {
        fflush(stdout);
    }
    free(p.buf_a);
    free(p.buf_b);
    free(p.info);
    MPI_Finalize();
    return rc;
}
