/* test_tracer.c - the PMPI tracer (libtunesim-trace.so) end to end: the MPI programs of
 * tests/mpi run under `tunesim record` (tracerrun.h) at 2 and 4 ranks, with pml ob1 and ucx
 * and both clocks, plain and in exclusive mode; each trace is read back with ts_trace_open and
 * every record the programs are known to produce is asserted: counts, sizes, peers (world
 * ranks), tags, request ids, communicators, and the clocks' meaning. Also unit-tests the
 * collective byte rules (traces/tracer/collbytes.c) with hand-derived numbers. Exclusive mode's
 * timing and the safe replacement of a trace are in test_tracer_exclusive.c.
 * Skips (exit 77) when mpirun or the tracer is missing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "traces/tracer/collbytes.h"
#include "tracerrun.h"

/* ---- collective byte rules --------------------------------------------------------------- */

#define ASSERT_SIZES(s, want_sent, want_received)                                                  \
    do {                                                                                           \
        trc_sizes_t s_ = (s);                                                                      \
        CU_ASSERT_EQUAL(s_.sent, (uint64_t)(want_sent));                                           \
        CU_ASSERT_EQUAL(s_.received, (uint64_t)(want_received));                                   \
    } while (0)

/* Four ranks throughout; b is the per-rank block. */
static void test_collbytes(void)
{
    /* Gather / Reduce of b = 400 to root 0: the root receives 4 blocks, 3 when in place. */
    ASSERT_SIZES(trc_bytes_all_to_one(4, 0, 0, 0, 400, 400), 400, 1600);
    ASSERT_SIZES(trc_bytes_all_to_one(4, 2, 0, 0, 0, 400), 400, 0);
    ASSERT_SIZES(trc_bytes_all_to_one(4, 0, 0, 1, 400, 0), 0, 1200);
    /* Bcast / Scatter: the mirror image. */
    ASSERT_SIZES(trc_bytes_one_to_all(4, 1, 1, 0, 400, 400), 1600, 400);
    ASSERT_SIZES(trc_bytes_one_to_all(4, 3, 1, 0, 0, 400), 0, 400);
    ASSERT_SIZES(trc_bytes_one_to_all(4, 1, 1, 1, 400, 0), 1200, 0);
    /* Gatherv with counts 1..4 of 40-byte elements. */
    const int c1234[4] = {1, 2, 3, 4};
    ASSERT_SIZES(trc_bytes_gatherv(4, 0, 0, 0, c1234, 40, 40), 40, 400);
    ASSERT_SIZES(trc_bytes_gatherv(4, 0, 0, 1, c1234, 40, 0), 0, 360);
    ASSERT_SIZES(trc_bytes_gatherv(4, 2, 0, 0, NULL, 0, 120), 120, 0);
    ASSERT_SIZES(trc_bytes_scatterv(4, 3, 3, 0, c1234, 40, 160), 400, 160);
    /* Alltoall / Allgather / Allreduce. */
    ASSERT_SIZES(trc_bytes_alltoall(4, 0, 400, 400), 1600, 1600);
    /* In place: Score-P's (n-1) blocks received; n sent marks the call in place. */
    ASSERT_SIZES(trc_bytes_alltoall(4, 1, 0, 400), 1600, 1200);
    /* Alltoallv: sums; in place, what I receive from the others both ways. */
    const int s[4] = {0, 10, 20, 30}, r[4] = {0, 20, 80, 150};
    ASSERT_SIZES(trc_bytes_alltoallv(4, 0, 0, s, 4, r, 4), 240, 1000);
    ASSERT_SIZES(trc_bytes_alltoallv(4, 1, 1, NULL, 0, r, 4), 920, 920);
    /* Alltoallw with per-peer element sizes (two ranks). */
    const int sc[2] = {1, 2}, rc[2] = {3, 1};
    const uint64_t se[2] = {4, 8}, re[2] = {2, 16};
    ASSERT_SIZES(trc_bytes_alltoallw(2, 0, 0, sc, se, rc, re), 20, 22);
    ASSERT_SIZES(trc_bytes_alltoallw(2, 0, 1, NULL, NULL, rc, re), 16, 16);
    /* Allgatherv: counts 25, 50, 100, 125 of 16 bytes; rank 1 sends its 800 bytes n times. */
    const int ag[4] = {25, 50, 100, 125};
    ASSERT_SIZES(trc_bytes_allgatherv(4, 1, 0, 800, ag, 16), 3200, 4800);
    ASSERT_SIZES(trc_bytes_allgatherv(4, 1, 1, 0, ag, 16), 2400, 4000);
    /* Reduce_scatter with counts 10..40 of 4 bytes, rank 2. */
    const int rs[4] = {10, 20, 30, 40};
    ASSERT_SIZES(trc_bytes_reduce_scatter(4, 2, 0, rs, 4), 400, 480);
    ASSERT_SIZES(trc_bytes_reduce_scatter(4, 2, 1, rs, 4), 280, 360);
    ASSERT_SIZES(trc_bytes_reduce_scatter_block(4, 0, 400), 1600, 1600);
    ASSERT_SIZES(trc_bytes_reduce_scatter_block(4, 1, 400), 1200, 1200);
    /* Scan at rank 1: sends to itself and the two above, receives from 0 and itself. */
    ASSERT_SIZES(trc_bytes_scan(4, 1, 0, 400), 1200, 800);
    ASSERT_SIZES(trc_bytes_scan(4, 1, 1, 400), 800, 400); /* Exscan */
}

/* record's own checks, before anything runs: --exclusive takes a count 1-1024 or "cores",
 * only as --exclusive=VALUE (the word after it is the command). */
static void test_record_exclusive_words(void)
{
    const char *bad[] = {"record --exclusive=0 -- true", "record --exclusive=two -- true",
                         "record --exclusive=1025 -- true", "record --exclusive= -- true"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        int rc = tu_run_cli(bad[i], NULL, &err);
        CU_ASSERT_NOT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "--exclusive=N needs N from 1 to 1024") : NULL);
        free(err);
    }
}

/* record's refusals, each with its own message, before a trace could exist; exit 2 for usage
 * errors, 1 for the rest. The checks of the command itself come after record has found the
 * tracer's library: without MPI (no library) they are left to record_refusals_run. */
static int record_refused(const char *opts, const char *command, int rc, const char *msg)
{
    char args[1400], *err = NULL;
    snprintf(args, sizeof args, "record %s -o '%s' -- %s", opts, tu_path("refused"), command);
    int got = tu_run_cli(args, NULL, &err);
    int ok = got == rc && err != NULL && strstr(err, msg) != NULL;
    if (!ok)
        printf("\n  %s: exit %d, stderr: %s\n", args, got, err ? err : "");
    free(err);
    return ok;
}

static void test_record_refusals(void)
{
    char *err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli("record -o '' -- true", NULL, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, "record: -o needs a non-empty directory") : NULL);
    free(err);
    CU_ASSERT(record_refused("", "", 2, "record: missing the command to run"));
    CU_ASSERT(record_refused("--clock gpu", "true", 2, "--clock must be wall or cpu, not 'gpu'"));
}

static void test_record_refusals_run(void)
{
    /* 1024 is the largest count allowed: accepted, so the failure is `true` writing no trace,
     * not the option. */
    CU_ASSERT(record_refused("--exclusive=1024", "true", 1, "'true' finished but wrote no trace"));
    CU_ASSERT(record_refused("", "/nonexistent/tunesim-prog", 1,
                             "cannot run '/nonexistent/tunesim-prog': No such file or directory"));
    /* mpiexec is a launcher like mpirun: its -x LD_PRELOAD would replace the tracer. */
    CU_ASSERT(record_refused("", "mpiexec -x LD_PRELOAD=/lib/x.so -np 1 true", 1,
                             "the command sets LD_PRELOAD (-x LD_PRELOAD=/lib/x.so)"));
}

/* Number of calls of `name` on the stream. */
static int visits(const ts_trace_t *t, const stream_t *s, const char *name)
{
    int32_t f = ts_trace_func_find(t, name);
    int n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->ev[i].kind == TS_EV_ENTER && s->ev[i].func == f;
    return n;
}

/* Indices of the events of one kind, in order; returns how many (at most max). */
static int select_kind(const stream_t *s, int kind, size_t *idx, int max)
{
    int n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->ev[i].kind == kind) {
            if (n < max)
                idx[n] = i;
            n++;
        }
    return n;
}

/* An expected point-to-point record. */
typedef struct p2p_s {
    int32_t peer, tag;
    uint64_t bytes;
    const char *func;
} p2p_t;

static int same_p2p(const ts_trace_t *t, const stream_t *s, size_t i, const p2p_t *want)
{
    const ts_event_t *e = &s->ev[i];
    return e->peer == want->peer && e->tag == want->tag && e->bytes == want->bytes &&
           strcmp(func_name(t, s->func[i]), want->func) == 0;
}

/* The events of `kind` must be exactly `want`, in order. */
static void expect_p2p(const ts_trace_t *t, const stream_t *s, int rank, int kind,
                       const p2p_t *want, int nwant)
{
    size_t idx[64];
    int n = select_kind(s, kind, idx, 64);
    if (n != nwant)
        printf("\n  rank %d: %d %s records, expected %d\n", rank, n, ts_event_kind_name(kind),
               nwant);
    CU_ASSERT_EQUAL_FATAL(n, nwant);
    for (int k = 0; k < n; k++) {
        const ts_event_t *e = &s->ev[idx[k]];
        if (!same_p2p(t, s, idx[k], &want[k]))
            printf("\n  rank %d %s #%d: peer %d tag %d bytes %llu in %s; expected peer %d "
                   "tag %d bytes %llu in %s\n",
                   rank, ts_event_kind_name(kind), k, (int)e->peer, (int)e->tag,
                   (unsigned long long)e->bytes, func_name(t, s->func[idx[k]]), (int)want[k].peer,
                   (int)want[k].tag, (unsigned long long)want[k].bytes, want[k].func);
        CU_ASSERT(same_p2p(t, s, idx[k], &want[k]));
    }
}

/* Properties every trace of the tracer has, whatever the program: calls nest as Enter /
 * Leave pairs in time order with every record inside a call; every request completes exactly
 * once after it is posted (a persistent one once per start); all ranks on one node. On the
 * cpu clock, time inside MPI is only the per-record ticks. */
static void check_well_formed(const ts_trace_t *t, int cpu_clock)
{
    CU_ASSERT_EQUAL(ts_trace_nnodes(t), 1);
    CU_ASSERT_EQUAL(ts_trace_nonmaster_mpi_records(t), 0);
    CU_ASSERT_EQUAL(ts_trace_timer_resolution(t), 1000000000u);
    for (int32_t r = 0; r < ts_trace_nranks(t); r++) {
        stream_t s = read_stream(t, r);
        int depth = 0, order_ok = 1, nest_ok = 1, req_ok = 1, cpu_ok = 1;
        int64_t last = -1, enter = 0;
        /* Pending requests: id and the kind that completes it (flood.c has 256 at once). */
        enum { MAX_PENDING = 1024 };
        uint64_t pending[MAX_PENDING];
        int pending_kind[MAX_PENDING], npending = 0;
        for (size_t i = 0; i < s.n; i++) {
            const ts_event_t *e = &s.ev[i];
            if (e->kind == TS_EV_COMPUTE) {
                nest_ok &= depth == 0 && e->time > 0;
                continue;
            }
            if (e->kind == TS_EV_ENTER || e->kind == TS_EV_LEAVE) {
                order_ok &= e->time >= last;
                last = e->time;
            }
            if (e->kind == TS_EV_ENTER) {
                nest_ok &= depth == 0;
                depth = 1;
                enter = e->time;
                continue;
            }
            nest_ok &= depth == 1;
            if (e->kind == TS_EV_LEAVE) {
                depth = 0;
                if (cpu_clock && e->time - enter >= 1000) {
                    printf("\n  rank %d: %s lasted %lld ns on the cpu clock\n", (int)r,
                           func_name(t, s.func[i]), (long long)(e->time - enter));
                    cpu_ok = 0;
                }
                continue;
            }
            int completes = e->kind == TS_EV_ISEND        ? TS_EV_ISEND_DONE
                            : e->kind == TS_EV_IRECV_POST ? TS_EV_IRECV_DONE
                            : e->kind == TS_EV_ICOLL_POST ? TS_EV_ICOLL_DONE
                                                          : -1;
            if (completes >= 0) {
                if (npending < MAX_PENDING) {
                    pending[npending] = e->req;
                    pending_kind[npending++] = completes;
                }
            } else if (e->kind == TS_EV_ISEND_DONE || e->kind == TS_EV_IRECV_DONE ||
                       e->kind == TS_EV_ICOLL_DONE) {
                int k = 0;
                while (k < npending && !(pending[k] == e->req && pending_kind[k] == e->kind))
                    k++;
                req_ok &= k < npending;
                if (k < npending) {
                    pending[k] = pending[npending - 1];
                    pending_kind[k] = pending_kind[--npending];
                }
            }
        }
        CU_ASSERT_EQUAL(depth, 0);
        CU_ASSERT(order_ok);
        CU_ASSERT(nest_ok);
        CU_ASSERT(req_ok);
        CU_ASSERT_EQUAL(npending, 0);
        CU_ASSERT(cpu_ok);
        /* Every rank starts with MPI_Init, a CREATE_HANDLE on the world, and ends with
         * MPI_Finalize's DESTROY_HANDLE. */
        size_t colls[64];
        int nc = select_kind(&s, TS_EV_COLL, colls, 64);
        CU_ASSERT_FATAL(nc >= 2);
        CU_ASSERT_STRING_EQUAL(func_name(t, s.func[colls[0]]), "MPI_Init");
        CU_ASSERT_EQUAL(s.ev[colls[0]].op, TS_COLL_CREATE_HANDLE);
        CU_ASSERT_STRING_EQUAL(func_name(t, s.func[colls[nc < 64 ? nc - 1 : 63]]), "MPI_Finalize");
        free_stream(&s);
    }
}

/* ---- ring.c: non-blocking traffic ------------------------------------------------------- */

static void check_ring(const ts_trace_t *t)
{
    int n = ts_trace_nranks(t);
    for (int me = 0; me < n; me++) {
        int right = (me + 1) % n, left = (me + n - 1) % n;
        stream_t s = read_stream(t, me);
        const p2p_t isends[] = {{right, 10, 800, "MPI_Isend"},   {right, 11, 1600, "MPI_Isend"},
                                {right, 12, 2400, "MPI_Isend"},  {right, 42, 28, "MPI_Isend"},
                                {right, 50, 12, "MPI_Isend"},    {left, 51, 12, "MPI_Isend"},
                                {right, 60, 16, "MPI_Startall"}, {right, 60, 16, "MPI_Startall"}};
        expect_p2p(t, &s, me, TS_EV_ISEND, isends, 8);

        size_t rd[16];
        CU_ASSERT_EQUAL_FATAL(select_kind(&s, TS_EV_IRECV_DONE, rd, 16), 8);
        const p2p_t first[] = {{left, 10, 800, "MPI_Waitall"},
                               {left, 11, 1600, "MPI_Waitall"},
                               {left, 12, 2400, "MPI_Waitall"},
                               /* posted with MPI_ANY_SOURCE / MPI_ANY_TAG: as matched */
                               {left, 42, 28, "MPI_Test"}};
        for (int k = 0; k < 4; k++)
            CU_ASSERT(same_p2p(t, &s, rd[k], &first[k]));
        /* Waitany then Waitsome complete the two receives of phase 3, in either order. */
        p2p_t a = {left, 50, 12, "MPI_Waitany"}, b = {right, 51, 12, "MPI_Waitsome"};
        p2p_t a2 = {right, 51, 12, "MPI_Waitany"}, b2 = {left, 50, 12, "MPI_Waitsome"};
        CU_ASSERT((same_p2p(t, &s, rd[4], &a) && same_p2p(t, &s, rd[5], &b)) ||
                  (same_p2p(t, &s, rd[4], &a2) && same_p2p(t, &s, rd[5], &b2)));
        p2p_t pers = {left, 60, 16, "MPI_Waitall"};
        CU_ASSERT(same_p2p(t, &s, rd[6], &pers));
        CU_ASSERT(same_p2p(t, &s, rd[7], &pers));

        /* Request ids: a counter from 1, the persistent ones reused per start. */
        size_t post[16], is[16];
        CU_ASSERT_EQUAL_FATAL(select_kind(&s, TS_EV_IRECV_POST, post, 16), 8);
        select_kind(&s, TS_EV_ISEND, is, 16);
        CU_ASSERT_EQUAL(s.ev[post[0]].req, 1);
        CU_ASSERT_EQUAL(s.ev[is[0]].req, 2);
        CU_ASSERT_EQUAL(s.ev[post[6]].req, s.ev[post[7]].req);
        CU_ASSERT_EQUAL(s.ev[is[6]].req, s.ev[is[7]].req);
        CU_ASSERT_EQUAL(select_kind(&s, TS_EV_ISEND_DONE, is, 16), 8);

        /* MPI_PROC_NULL sends and receives leave calls without records. */
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Isend"), 7);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Irecv"), 7);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Waitall"), 7);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Wait"), 1);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Waitany"), 1);
        CU_ASSERT(visits(t, &s, "MPI_Waitsome") >= 1);
        CU_ASSERT(visits(t, &s, "MPI_Test") >= 1);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Send_init"), 1);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Recv_init"), 1);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Startall"), 2);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Request_free"), 2);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Comm_rank"), 1);
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Comm_size"), 1);
        size_t c[8];
        CU_ASSERT_EQUAL(select_kind(&s, TS_EV_COLL, c, 8), 3); /* Init, Barrier, Finalize */
        CU_ASSERT_EQUAL(s.ev[c[1]].op, TS_COLL_BARRIER);
        CU_ASSERT_EQUAL(ts_trace_comm(t, s.ev[c[1]].comm)->size, n);
        free_stream(&s);
    }
}

/* ---- pingpong.c: blocking traffic ------------------------------------------------------- */

/* Calls that Score-P records as Enter / Leave only hold no records. */
static int only_enter_leave(const ts_trace_t *t, const stream_t *s, const char *name)
{
    int32_t f = ts_trace_func_find(t, name);
    for (size_t i = 0; i < s->n; i++)
        if (s->func[i] == f && s->ev[i].kind != TS_EV_ENTER && s->ev[i].kind != TS_EV_LEAVE)
            return 0;
    return 1;
}

static void check_pingpong(const ts_trace_t *t)
{
    int n = ts_trace_nranks(t);
    for (int me = 0; me < n; me++) {
        int p = me ^ 1;
        stream_t s = read_stream(t, me);
        if (me % 2 == 0) {
            const p2p_t sends[] = {{p, 100, 1024, "MPI_Send"}, {p, 101, 2048, "MPI_Send"},
                                   {p, 102, 4096, "MPI_Send"}, {p, 103, 8192, "MPI_Send"},
                                   {p, 300, 64, "MPI_Ssend"},  {p, 400, 128, "MPI_Sendrecv"},
                                   {p, 500, 33, "MPI_Send"},   {p, 600, 17, "MPI_Bsend"}};
            const p2p_t recvs[] = {{p, 200, 1024, "MPI_Recv"},
                                   {p, 201, 2048, "MPI_Recv"},
                                   {p, 202, 4096, "MPI_Recv"},
                                   {p, 203, 8192, "MPI_Recv"},
                                   {p, 400, 128, "MPI_Sendrecv"}};
            expect_p2p(t, &s, me, TS_EV_SEND, sends, 8);
            expect_p2p(t, &s, me, TS_EV_RECV, recvs, 5);
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Send"), 6); /* one to MPI_PROC_NULL */
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Recv"), 5);
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Buffer_attach"), 1);
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Buffer_detach"), 1);
        } else {
            const p2p_t sends[] = {{p, 200, 1024, "MPI_Send"},
                                   {p, 201, 2048, "MPI_Send"},
                                   {p, 202, 4096, "MPI_Send"},
                                   {p, 203, 8192, "MPI_Send"},
                                   {p, 400, 128, "MPI_Sendrecv"}};
            const p2p_t recvs[] = {{p, 100, 1024, "MPI_Recv"}, {p, 101, 2048, "MPI_Recv"},
                                   {p, 102, 4096, "MPI_Recv"}, {p, 103, 8192, "MPI_Recv"},
                                   {p, 300, 64, "MPI_Recv"},   {p, 400, 128, "MPI_Sendrecv"},
                                   {p, 500, 33, "MPI_Recv"},   {p, 600, 17, "MPI_Recv"}};
            expect_p2p(t, &s, me, TS_EV_SEND, sends, 5);
            expect_p2p(t, &s, me, TS_EV_RECV, recvs, 8);
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Send"), 5);
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Recv"), 8); /* one from MPI_PROC_NULL */
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Probe"), 1);
            CU_ASSERT_EQUAL(visits(t, &s, "MPI_Get_count"), 1);
            CU_ASSERT(visits(t, &s, "MPI_Iprobe") >= 1);
            CU_ASSERT(only_enter_leave(t, &s, "MPI_Probe"));
            CU_ASSERT(only_enter_leave(t, &s, "MPI_Get_count"));
            CU_ASSERT(only_enter_leave(t, &s, "MPI_Iprobe"));
        }
        CU_ASSERT_EQUAL(visits(t, &s, "MPI_Sendrecv"), 1);
        /* Every message travels on MPI_COMM_WORLD. */
        for (size_t i = 0; i < s.n; i++)
            if (s.ev[i].kind == TS_EV_SEND || s.ev[i].kind == TS_EV_RECV)
                CU_ASSERT_EQUAL(ts_trace_comm(t, s.ev[i].comm)->size, n);
        free_stream(&s);
    }
}

/* ---- collectives.c ---------------------------------------------------------------------- */

typedef struct coll_s {
    int kind; /* TS_EV_COLL or TS_EV_ICOLL_DONE */
    int op;
    char on;      /* communicator: 'w' world, 's' the split one, 'd' the dup, 'S' MPI_COMM_SELF */
    int32_t root; /* world rank or TS_ROOT_NONE */
    uint64_t sent, received;
} coll_t;

/* The COLL / ICOLL_DONE records collectives.c produces on rank me of n (Score-P's rules). */
static int expected_colls(int n, int me, coll_t *c)
{
    const int none = TS_ROOT_NONE;
    int m = (n + 1 - me % 2) / 2; /* ranks of my parity */
    int sub_rank = me / 2, sub_root = me % 2;
    uint64_t N = (uint64_t)n, M = (uint64_t)m;
    int k = 0;
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_CREATE_HANDLE, 'w', none, 0, 0}; /* MPI_Init */
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_BARRIER, 'w', none, 0, 0};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_BCAST, 'w', 0, me == 0 ? N * 40 : 0, 40};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_ALLREDUCE, 'w', none, N * 32, N * 32};
    c[k++] =
        (coll_t){TS_EV_COLL, TS_COLL_ALLREDUCE, 'w', none, N * 32, (N - 1) * 32}; /* in place */
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_REDUCE, 'w', n - 1, 12, me == n - 1 ? N * 12 : 0};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_ALLTOALL, 'w', none, N * 8, N * 8};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_GATHERV,        'w',
                      0,          (uint64_t)(me + 1) * 4, me == 0 ? N * (N + 1) / 2 * 4 : 0};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_ALLGATHER, 'w', none, N * 8, N * 8};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_SCATTER, 'w', 1 % n, me == 1 % n ? N * 20 : 0, 20};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_SCAN,           'w',
                      none,       (N - (uint64_t)me) * 8, (uint64_t)(me + 1) * 8};
    /* Gather of 12 bytes in place at root 0: the root's own block stays, so it sends nothing
     * and receives the n-1 others' 12 bytes; its send arguments (0 chars) do not count. */
    c[k++] =
        (coll_t){TS_EV_COLL, TS_COLL_GATHER, 'w', 0, me == 0 ? 0 : 12, me == 0 ? (N - 1) * 12 : 0};
    /* Gatherv of 2 ints sent, received as 1 pair of 8 bytes per rank: counts are in pairs. */
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_GATHERV, 'w', 0, 8, me == 0 ? N * 8 : 0};
    /* Exscan of 8 bytes: rank me sends to the n-me-1 ranks above it, receives from the me
     * below it. */
    c[k++] = (coll_t){TS_EV_COLL,      TS_COLL_EXSCAN, 'w', none, (N - 1 - (uint64_t)me) * 8,
                      (uint64_t)me * 8};
    /* Reduce_scatter_block of 4 bytes in place: (n-1) blocks both ways. */
    c[k++] =
        (coll_t){TS_EV_COLL, TS_COLL_REDUCE_SCATTER_BLOCK, 'w', none, (N - 1) * 4, (N - 1) * 4};
    /* Allreduce of 8 bytes on MPI_COMM_SELF: one rank, so one block each way. */
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_ALLREDUCE, 'S', none, 8, 8};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_CREATE_HANDLE, 'w', none, 0, 0}; /* Comm_split */
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_ALLREDUCE, 's', none, M * 8, M * 8};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_BCAST, 's', sub_root, sub_rank == 0 ? M * 6 : 0, 6};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_BARRIER, 's', none, 0, 0};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_CREATE_HANDLE, 'w', none, 0, 0}; /* Comm_dup */
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_ALLREDUCE, 'd', none, N * 4, N * 4};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_DESTROY_HANDLE, 'd', none, 0, 0};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_DESTROY_HANDLE, 's', none, 0, 0};
    c[k++] = (coll_t){TS_EV_ICOLL_DONE, TS_COLL_ALLREDUCE, 'w', none, N * 4, N * 4};
    c[k++] = (coll_t){TS_EV_ICOLL_DONE, TS_COLL_BCAST, 'w', 0, me == 0 ? N * 24 : 0, 24};
    c[k++] = (coll_t){TS_EV_COLL, TS_COLL_DESTROY_HANDLE, 'w', none, 0, 0}; /* Finalize */
    return k;
}

static int is_world(const ts_comm_info_t *c, int n)
{
    if (c->is_self || c->size != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (c->members[i] != i)
            return 0;
    return 1;
}

static void check_collectives(const ts_trace_t *t)
{
    int n = ts_trace_nranks(t);
    int32_t split_comm[2] = {-1, -1}; /* per parity: the same communicator on all its ranks */
    for (int me = 0; me < n; me++) {
        stream_t s = read_stream(t, me);
        coll_t want[32];
        int nwant = expected_colls(n, me, want);
        size_t idx[64];
        int got = 0;
        for (size_t i = 0; i < s.n && got < 64; i++)
            if (s.ev[i].kind == TS_EV_COLL || s.ev[i].kind == TS_EV_ICOLL_DONE)
                idx[got++] = i;
        CU_ASSERT_EQUAL_FATAL(got, nwant);
        int32_t world = -1, sub = -1, dup = -1;
        for (int k = 0; k < nwant; k++) {
            const ts_event_t *e = &s.ev[idx[k]];
            const coll_t *w = &want[k];
            const ts_comm_info_t *c = ts_trace_comm(t, e->comm);
            int ok = e->kind == w->kind && e->op == w->op && e->peer == w->root &&
                     e->bytes == w->sent && e->bytes2 == w->received;
            if (w->on == 'w') {
                ok &= is_world(c, n) && (world < 0 || world == e->comm);
                world = e->comm;
            } else if (w->on == 'S') {
                ok &= c->is_self && c->size == 1;
            } else if (w->on == 'd') {
                ok &= is_world(c, n) && (dup < 0 || dup == e->comm);
                dup = e->comm;
            } else {
                /* The split communicator: the ranks of my parity, in world order. */
                int m = (n + 1 - me % 2) / 2;
                ok &= !c->is_self && c->size == m && (sub < 0 || sub == e->comm);
                for (int j = 0; ok && j < m; j++)
                    ok &= c->members[j] == me % 2 + 2 * j;
                sub = e->comm;
            }
            if (!ok)
                printf("\n  rank %d collective #%d: %s %s on comm %d (size %d) root %d "
                       "sent %llu received %llu; expected %s root %d sent %llu received "
                       "%llu on '%c'\n",
                       me, k, ts_event_kind_name(e->kind), ts_coll_op_name(e->op), (int)e->comm,
                       (int)c->size, (int)e->peer, (unsigned long long)e->bytes,
                       (unsigned long long)e->bytes2, ts_coll_op_name(w->op), (int)w->root,
                       (unsigned long long)w->sent, (unsigned long long)w->received, w->on);
            CU_ASSERT(ok);
        }
        /* The dup is a communicator of its own; each parity shares one split communicator
         * across its ranks, and the two parities have different ones. */
        CU_ASSERT(dup != world);
        if (split_comm[me % 2] < 0)
            split_comm[me % 2] = sub;
        CU_ASSERT_EQUAL(split_comm[me % 2], sub);
        if (split_comm[0] >= 0 && split_comm[1] >= 0)
            CU_ASSERT(split_comm[0] != split_comm[1]);

        /* Non-blocking collectives: posted with request ids 1 and 2. */
        size_t post[4];
        CU_ASSERT_EQUAL_FATAL(select_kind(&s, TS_EV_ICOLL_POST, post, 4), 2);
        CU_ASSERT_EQUAL(s.ev[post[0]].req, 1);
        CU_ASSERT_EQUAL(s.ev[post[1]].req, 2);

        /* The message inside the split communicator, peers as world ranks. */
        size_t p[4];
        int m = (n + 1 - me % 2) / 2;
        int nsend = select_kind(&s, TS_EV_SEND, p, 4);
        int nrecv = select_kind(&s, TS_EV_RECV, p + 2, 2);
        if (m >= 2 && me / 2 == 0) {
            CU_ASSERT_EQUAL_FATAL(nsend, 1);
            const p2p_t want_send = {me + 2, 99, 16, "MPI_Send"};
            CU_ASSERT(same_p2p(t, &s, p[0], &want_send));
            CU_ASSERT_EQUAL(s.ev[p[0]].comm, sub);
        } else if (m >= 2 && me / 2 == 1) {
            CU_ASSERT_EQUAL_FATAL(nrecv, 1);
            const p2p_t want_recv = {me - 2, 99, 16, "MPI_Recv"};
            CU_ASSERT(same_p2p(t, &s, p[2], &want_recv));
            CU_ASSERT_EQUAL(s.ev[p[2]].comm, sub);
        } else {
            CU_ASSERT_EQUAL(nsend + nrecv, 0);
        }
        free_stream(&s);
    }
}

/* ---- flood.c and compute.c -------------------------------------------------------------- */

/* flood.c's k-th message's tag: the loop's cycle through 0..999, the burst's 1000 + j, the
 * Testall's 5000. */
static int32_t flood_tag(int k)
{
    enum { ITERS = 20000, BURST = 128 };
    return k < ITERS ? k % 1000 : k < ITERS + BURST ? 1000 + k - ITERS : 5000;
}

static void check_flood(const ts_trace_t *t, const char *dir)
{
    enum { ITERS = 20000, BURST = 128 };
    for (int me = 0; me < ts_trace_nranks(t); me++) {
        stream_t s = read_stream(t, me);
        int isend = 0, irecv = 0, done = 0, bad = 0, order = 0;
        uint64_t last_done = 0;
        for (size_t i = 0; i < s.n; i++) {
            const ts_event_t *e = &s.ev[i];
            /* Tags as flood_tag gives them, completed in the order of the Waitall's array. */
            if (e->kind == TS_EV_ISEND) {
                bad += e->tag != flood_tag(isend) || e->bytes != 8;
                isend++;
            } else if (e->kind == TS_EV_IRECV_DONE) {
                bad += e->tag != flood_tag(irecv) || e->bytes != 8;
                irecv++;
            } else if (e->kind == TS_EV_ISEND_DONE) {
                /* Every Waitall takes the sends in posting order, and ids grow as they are
                 * posted (also where ob1 hands several sends one shared, complete handle). */
                order += e->req <= last_done;
                last_done = e->req;
                done++;
            }
        }
        CU_ASSERT_EQUAL(isend, ITERS + BURST + 1);
        CU_ASSERT_EQUAL(irecv, ITERS + BURST + 1);
        CU_ASSERT_EQUAL(done, ITERS + BURST + 1);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_EQUAL(order, 0);
        /* More than the 2 MiB the tracer may hold: it must have flushed mid-run. */
        char path[1200];
        struct stat st;
        snprintf(path, sizeof path, "%s/traces/%d.evt", dir, me);
        CU_ASSERT(stat(path, &st) == 0 && st.st_size > 2 * 1024 * 1024);
        free_stream(&s);
    }
}

/* The burst between the two barriers, in ns, on each rank. */
static void check_compute(const ts_trace_t *t, int cpu_clock)
{
    const int64_t burst = 50 * 1000000LL;
    int32_t barrier = ts_trace_func_find(t, "MPI_Barrier");
    for (int me = 0; me < ts_trace_nranks(t); me++) {
        stream_t s = read_stream(t, me);
        int64_t measured = -1;
        int seen = 0;
        for (size_t i = 0; i < s.n; i++) {
            if (s.ev[i].kind == TS_EV_ENTER && s.ev[i].func == barrier && ++seen == 2 && i > 0 &&
                s.ev[i - 1].kind == TS_EV_COMPUTE)
                measured = s.ev[i - 1].time;
        }
        int ok = cpu_clock ? measured >= burst && measured < burst + 5000000 : measured >= burst;
        if (!ok)
            printf("\n  rank %d: compute burst %lld ns on the %s clock\n", me, (long long)measured,
                   cpu_clock ? "cpu" : "wall");
        CU_ASSERT(ok);
        free_stream(&s);
    }
}

/* ---- the runs --------------------------------------------------------------------------- */

static void run_and_check(const run_t *r)
{
    if (strcmp(r->pml, "ucx") == 0 && !have_ucx) {
        char what[128];
        snprintf(what, sizeof what, "%s on %d ranks with pml ucx", r->program, r->nranks);
        tu_skip(what, "Open MPI has no pml ucx here");
        return;
    }
    char dir[1024];
    ts_trace_t *t = record(r, dir, sizeof dir);
    if (t == NULL)
        return;
    int cpu = strcmp(r->clock, "cpu") == 0;
    check_well_formed(t, cpu);
    if (strcmp(r->program, "ring") == 0)
        check_ring(t);
    else if (strcmp(r->program, "pingpong") == 0)
        check_pingpong(t);
    else if (strcmp(r->program, "collectives") == 0)
        check_collectives(t);
    else if (strcmp(r->program, "flood") == 0)
        check_flood(t, dir);
    else if (strcmp(r->program, "compute") == 0)
        check_compute(t, cpu);
    ts_trace_close(t);
}

#define RUN_TEST(fname, prog, n, pml, clock, small)                                                \
    static void fname(void)                                                                        \
    {                                                                                              \
        const run_t r = {prog, n, pml, clock, small, NULL};                                        \
        run_and_check(&r);                                                                         \
    }
/* The same checks on a recording in exclusive mode: the records do not change. */
#define RUN_TEST_X(fname, prog, n, pml, clock, excl)                                               \
    static void fname(void)                                                                        \
    {                                                                                              \
        const run_t r = {prog, n, pml, clock, 0, excl};                                            \
        run_and_check(&r);                                                                         \
    }

RUN_TEST(test_ring_4_ob1_wall, "ring", 4, "ob1", "wall", 0)
RUN_TEST(test_ring_2_ucx_cpu, "ring", 2, "ucx", "cpu", 0)
RUN_TEST(test_pingpong_2_ob1_cpu, "pingpong", 2, "ob1", "cpu", 0)
RUN_TEST(test_pingpong_4_ucx_wall, "pingpong", 4, "ucx", "wall", 0)
RUN_TEST(test_collectives_4_ob1_wall, "collectives", 4, "ob1", "wall", 0)
RUN_TEST(test_collectives_2_ucx_cpu, "collectives", 2, "ucx", "cpu", 0)
RUN_TEST(test_collectives_3_ob1_cpu, "collectives", 3, "ob1", "cpu", 0)
RUN_TEST(test_flood_2_ob1_wall, "flood", 2, "ob1", "wall", 1)
RUN_TEST(test_compute_4_ob1_cpu, "compute", 4, "ob1", "cpu", 0)
RUN_TEST(test_compute_4_ob1_wall, "compute", 4, "ob1", "wall", 0)
RUN_TEST_X(test_ring_4_ob1_wall_x, "ring", 4, "ob1", "wall", "")
/* One token: ring.c's phase 2 loops on MPI_Test for a message its left neighbour has not
 * sent yet; the looping rank must give its turn up (it held the one token for ever before). */
RUN_TEST_X(test_ring_4_ob1_wall_x1, "ring", 4, "ob1", "wall", "1")
RUN_TEST_X(test_pingpong_4_ucx_wall_x, "pingpong", 4, "ucx", "wall", "1")
RUN_TEST_X(test_collectives_4_ob1_wall_x, "collectives", 4, "ob1", "wall", "2")
RUN_TEST_X(test_collectives_3_ucx_cpu_x, "collectives", 3, "ucx", "cpu", "1")
RUN_TEST_X(test_compute_4_ob1_cpu_x, "compute", 4, "ob1", "cpu", "")

/* The tracer pass's edges (tests/mpi/edges.c): every context of an MPMD line traced; persistent
 * requests to MPI_PROC_NULL leave no completion of a request never posted (the trace
 * replays); other threads' calls counted over all ranks; an inter-communicator duplicated
 * without the key broadcast waiting for ever, and its calls said to be unmatchable; matched
 * probes and a neighbourhood collective counted as not represented. */
static void test_edges(void)
{
    char dir[1200], *err = NULL;
    CU_ASSERT_EQUAL(record_mpmd("edges", "", 2, dir, sizeof dir, &err), 0);
    CU_ASSERT(err && strstr(err, "(4 ranks,") &&
              strstr(err, "40 MPI calls from other threads (all ranks) were not traced"));
    if (!err || !strstr(err, "40 MPI calls"))
        printf("\n  stderr: %s\n", err ? err : "");
    free(err);
    char args[1400];
    snprintf(args, sizeof args, "replay '%s' --nodes 1 --ppn 4", dir);
    err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, &err), 0);
    free(err);
    err = NULL;
    CU_ASSERT_EQUAL(record_mpmd("edges", "inter", 2, dir, sizeof dir, &err), 0);
    CU_ASSERT(err &&
              strstr(err, "MPI calls on inter-communicators were recorded with their "
                          "local group's ranks") &&
              strstr(err, "8 MPI calls the trace cannot represent (matched probes, "
                          "neighbourhood collectives) were not recorded"));
    if (!err || !strstr(err, "8 MPI calls the trace cannot"))
        printf("\n  stderr: %s\n", err ? err : "");
    free(err);
    /* The collectives on the inter-communicator are recorded once per rank with sizes 0 and
     * the six rooted ones without a root: the tracer does not size collectives on
     * inter-communicators (the local group's size and rank would give wrong ones), and their
     * roots (MPI_ROOT, MPI_PROC_NULL, a rank of the other group) are no rank of the local
     * group. */
    ts_trace_t *t = tu_open(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int32_t r = 0; r < ts_trace_nranks(t); r++) {
        stream_t s = read_stream(t, r);
        int allreduces = 0, rooted = 0, sized = 0, with_root = 0;
        for (size_t i = 0; i < s.n; i++) {
            if (s.ev[i].kind != TS_EV_COLL && s.ev[i].kind != TS_EV_ICOLL_DONE)
                continue;
            int op = s.ev[i].op;
            int is_rooted = op == TS_COLL_BCAST || op == TS_COLL_GATHER || op == TS_COLL_REDUCE ||
                            op == TS_COLL_SCATTER || op == TS_COLL_SCATTERV;
            if (op != TS_COLL_ALLREDUCE && !is_rooted)
                continue;
            allreduces += op == TS_COLL_ALLREDUCE;
            rooted += is_rooted;
            sized += s.ev[i].bytes != 0 || s.ev[i].bytes2 != 0;
            with_root += is_rooted && s.ev[i].peer != TS_ROOT_NONE;
        }
        CU_ASSERT_EQUAL(allreduces, 1);
        CU_ASSERT_EQUAL(rooted, 6); /* Bcast, Gather, Reduce, Scatter, Ireduce, Iscatterv */
        CU_ASSERT_EQUAL(sized, 0);
        CU_ASSERT_EQUAL(with_root, 0);
        free_stream(&s);
    }
    int nranks = (int)ts_trace_nranks(t);
    ts_trace_close(t);
    /* And it replays. */
    snprintf(args, sizeof args, "replay '%s' --nodes 1 --ppn %d", dir, nranks);
    char *out = NULL;
    err = NULL;
    CU_ASSERT_EQUAL(tu_run_cli(args, &out, &err), 0);
    if (err && *err)
        printf("\n  %s\n", err);
    free(out);
    free(err);
    /* A command's own LD_PRELOAD would replace the tracer's: refused before it runs. */
    err = NULL;
    snprintf(args, sizeof args, "record -o '%s/none' -- mpirun -x LD_PRELOAD=/lib/x.so -np 1 true",
             tu_tmpdir());
    CU_ASSERT_EQUAL(tu_run_cli(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "the command sets LD_PRELOAD (-x LD_PRELOAD=/lib/x.so)") &&
              tu_one_line(err));
    free(err);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite unit = CU_add_suite("collective byte rules", NULL, NULL);
    CU_add_test(unit, "Score-P's sizeSent / sizeReceived", test_collbytes);
    CU_add_test(unit, "record --exclusive's values", test_record_exclusive_words);
    CU_add_test(unit, "record's other refusals", test_record_refusals);
    if (!tracer_ready())
        return tu_run_all();
    CU_pSuite s = CU_add_suite("tracer under mpirun", NULL, NULL);
    CU_add_test(s, "record's refusals of the command it runs", test_record_refusals_run);
    CU_add_test(s, "ring, 4 ranks, ob1, wall clock", test_ring_4_ob1_wall);
    CU_add_test(s, "ring, 2 ranks, ucx, cpu clock", test_ring_2_ucx_cpu);
    CU_add_test(s, "pingpong, 2 ranks, ob1, cpu clock", test_pingpong_2_ob1_cpu);
    CU_add_test(s, "pingpong, 4 ranks, ucx, wall clock", test_pingpong_4_ucx_wall);
    CU_add_test(s, "collectives, 4 ranks, ob1, wall clock", test_collectives_4_ob1_wall);
    CU_add_test(s, "collectives, 2 ranks, ucx, cpu clock", test_collectives_2_ucx_cpu);
    CU_add_test(s, "collectives, 3 ranks, ob1, cpu clock", test_collectives_3_ob1_cpu);
    CU_add_test(s, "flood with mid-run flushes, 2 ranks", test_flood_2_ob1_wall);
    CU_add_test(s, "compute burst, 4 ranks on fewer cores, cpu clock", test_compute_4_ob1_cpu);
    CU_add_test(s, "compute burst, 4 ranks, wall clock", test_compute_4_ob1_wall);
    CU_add_test(s, "exclusive: ring, 4 ranks, ob1, wall clock", test_ring_4_ob1_wall_x);
    CU_add_test(s, "exclusive=1: ring, a test loop waits its turn", test_ring_4_ob1_wall_x1);
    CU_add_test(s, "exclusive=1: pingpong, 4 ranks, ucx", test_pingpong_4_ucx_wall_x);
    CU_add_test(s, "exclusive=2: collectives, 4 ranks, ob1", test_collectives_4_ob1_wall_x);
    CU_add_test(s, "exclusive=1: collectives, 3 ranks, ucx, cpu", test_collectives_3_ucx_cpu_x);
    CU_add_test(s, "exclusive: compute burst, 4 ranks, cpu clock", test_compute_4_ob1_cpu_x);
    CU_add_test(s, "edges: MPMD, PROC_NULL persistent, threads, inter-communicators", test_edges);
    return tu_run_all();
}
