/* test_scorep.c - the OTF2 reader on the real Score-P traces in shared/traces/scorep: the
 * exact visit counts their README gives, peers and communicators, every send matched, the
 * store round trip, TI export, and damaged copies refused with a clear error.
 * Skips (exit 77) when shared/ is absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "traces/stats.h"
#include "traces/store.h"
#include "traces/ti.h"

typedef struct expect_s {
    const char *func;
    uint64_t visits;
} expect_t;

typedef struct case_s {
    const char *dir;
    int32_t ranks, nodes;
    expect_t visits[16];
} case_t;

/* From shared/traces/scorep/README.md. */
static const case_t CASES[] = {
    {"sstmacro-otf2_test_traces",
     10,
     10,
     {{"MPI_Isend", 1440},
      {"MPI_Irecv", 1440},
      {"MPI_Wait", 1080},
      {"MPI_Waitall", 480},
      {"MPI_Allgather", 360},
      {"MPI_Allreduce", 360},
      {"MPI_Alltoall", 360},
      {"MPI_Iallgather", 360},
      {"MPI_Iallreduce", 360},
      {"MPI_Ialltoall", 360},
      {"MPI_Bcast", 30},
      {"MPI_Gather", 30},
      {"MPI_Scatter", 30},
      {"MPI_Reduce", 30},
      {"MPI_Comm_split", 20}}},
    {"tracer-stencil4d-32",
     32,
     2,
     {{"MPI_Send", 512}, {"MPI_Irecv", 512}, {"MPI_Waitall", 64}, {"MPI_Barrier", 96}}},
    {"tracer-stencil4d-64",
     64,
     0,
     {{"MPI_Send", 1024}, {"MPI_Irecv", 1024}, {"MPI_Waitall", 128}, {"MPI_Barrier", 192}}},
    {"casita-10_scorep_mpi_tags", 10, 0, {{"MPI_Send", 18}, {"MPI_Recv", 18}}},
    {"casita-4_mpi_ls_barr", 4, 0, {{"MPI_Send", 3}, {"MPI_Recv", 3}, {"MPI_Barrier", 4}}},
    {"casita-2_jacobi_blame_cpu_015",
     2,
     0,
     {{"MPI_Allreduce", 2000}, {"MPI_Sendrecv", 2000}, {"MPI_Barrier", 4}}},
    {"pipit-ping-pong-otf2", 2, 1, {{"MPI_Send", 16}, {"MPI_Recv", 16}}},
    {"pipit-ping-pong-otf2-papi", 2, 1, {{"MPI_Send", 16}, {"MPI_Recv", 16}}},
};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

static void test_counts(void)
{
    for (int i = 0; i < NCASES; i++) {
        const case_t *c = &CASES[i];
        ts_trace_t *t = tu_open(tu_scorep(c->dir));
        if (!t)
            continue;
        CU_ASSERT_EQUAL(ts_trace_nranks(t), c->ranks);
        if (c->nodes)
            CU_ASSERT_EQUAL(ts_trace_nnodes(t), c->nodes);
        ts_stats_t *s;
        ts_error_t err;
        CU_ASSERT_EQUAL_FATAL(ts_stats_compute(t, &s, &err), TS_OK);
        for (int k = 0; k < 16 && c->visits[k].func; k++) {
            int32_t f = ts_trace_func_find(t, c->visits[k].func);
            uint64_t got = f >= 0 ? ts_stats_func(s, f)->visits : 0;
            if (got != c->visits[k].visits)
                printf("\n  %s %s: %llu visits, expected %llu\n", c->dir, c->visits[k].func,
                       (unsigned long long)got, (unsigned long long)c->visits[k].visits);
            CU_ASSERT_EQUAL(got, c->visits[k].visits);
        }
        /* "Every send in the MPI traces above has a matching receive." */
        const ts_match_summary_t *m = ts_stats_match(s);
        CU_ASSERT(m->sends > 0);
        CU_ASSERT_EQUAL(m->sends, m->recvs);
        CU_ASSERT_EQUAL(m->unmatched_sends, 0);
        CU_ASSERT_EQUAL(m->unmatched_recvs, 0);
        CU_ASSERT_EQUAL(m->byte_mismatches, 0);
        CU_ASSERT_EQUAL(ts_trace_nonmaster_mpi_records(t), 0);
        ts_stats_free(s);
        ts_trace_close(t);
    }
}

/* sst-macro splits WORLD into pairs {r, r+6}; collectives on them must name world ranks. */
static void test_subcommunicators(void)
{
    ts_trace_t *t = tu_open(tu_scorep("sstmacro-otf2_test_traces"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int pairs = 0, self = 0, world = 0;
    for (int32_t c = 0; c < ts_trace_ncomms(t); c++) {
        const ts_comm_info_t *ci = ts_trace_comm(t, c);
        if (ci->is_self)
            self++;
        else if (ci->size == 10)
            world++;
        else if (ci->size == 2 && ci->members[1] == ci->members[0] + 6)
            pairs++;
    }
    CU_ASSERT_EQUAL(world, 1);
    CU_ASSERT_EQUAL(pairs, 4);
    CU_ASSERT(self >= 1);
    /* Rank 7's collectives on its pair communicator have roots 1 or 7, never a local 0/1. */
    ts_cursor_t *cur;
    ts_cursor_open(t, 7, &cur);
    ts_event_t ev;
    int on_pair = 0, bad_root = 0;
    while (ts_cursor_next(cur, &ev, NULL) == 1) {
        if (ev.kind != TS_EV_COLL || ts_trace_comm(t, ev.comm)->size != 2)
            continue;
        on_pair++;
        if (ev.peer != TS_ROOT_NONE && ev.peer != 1 && ev.peer != 7)
            bad_root++;
    }
    ts_cursor_close(cur);
    CU_ASSERT(on_pair > 0);
    CU_ASSERT_EQUAL(bad_root, 0);
    ts_trace_close(t);
}

/* Stencil: rank 0 sends 128 KiB messages to world-rank peers with tags, on WORLD. */
static void test_peers_and_tags(void)
{
    ts_trace_t *t = tu_open(tu_scorep("tracer-stencil4d-32"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ts_cursor_t *cur;
    ts_cursor_open(t, 0, &cur);
    ts_event_t ev;
    int sends = 0, first_peer = -1, first_tag = -1;
    int64_t last = -1;
    int monotonic = 1;
    while (ts_cursor_next(cur, &ev, NULL) == 1) {
        if (ev.kind == TS_EV_ENTER || ev.kind == TS_EV_LEAVE) {
            monotonic &= ev.time >= last;
            last = ev.time;
        }
        if (ev.kind != TS_EV_SEND)
            continue;
        if (sends++ == 0) {
            first_peer = ev.peer;
            first_tag = ev.tag;
        }
        CU_ASSERT_EQUAL(ev.bytes, 131072);
        CU_ASSERT_STRING_EQUAL(ts_trace_comm(t, ev.comm)->name, "MPI_COMM_WORLD");
    }
    ts_cursor_close(cur);
    CU_ASSERT_EQUAL(sends, 16);
    CU_ASSERT_EQUAL(first_peer, 1); /* otf2-print: Receiver 1, Tag 2, Length 131072 */
    CU_ASSERT_EQUAL(first_tag, 2);
    CU_ASSERT(monotonic);
    ts_trace_close(t);
}

/* Clock: sst-macro's ranks carry ~1e15-tick offsets; with local definitions applied all
 * ranks start within the trace, not 1e15 ticks apart. */
static void test_clock_offsets(void)
{
    ts_trace_t *t = tu_open(tu_scorep("sstmacro-otf2_test_traces"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int64_t dur = ts_trace_duration_ns(t);
    CU_ASSERT(dur > 0 && dur < 10LL * 1000000000LL);
    for (int32_t r = 0; r < ts_trace_nranks(t); r++) {
        ts_cursor_t *cur;
        ts_cursor_open(t, r, &cur);
        ts_event_t ev;
        while (ts_cursor_next(cur, &ev, NULL) == 1)
            if (ev.kind == TS_EV_LEAVE)
                CU_ASSERT(ev.time >= 0 && ev.time <= dur);
        ts_cursor_close(cur);
    }
    ts_trace_close(t);
}

static void test_store_roundtrip_all(void)
{
    for (int i = 0; i < NCASES; i++) {
        ts_trace_t *t = tu_open(tu_scorep(CASES[i].dir));
        if (!t)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s.tss", tu_tmpdir(), CASES[i].dir);
        ts_error_t err;
        CU_ASSERT_EQUAL_FATAL(ts_store_write(t, path, &err), TS_OK);
        ts_trace_t *back = tu_open(path);
        CU_ASSERT_PTR_NOT_NULL_FATAL(back);
        CU_ASSERT(tu_traces_equal(t, back));
        /* The store is far smaller than the archive. */
        CU_ASSERT(ts_trace_source_bytes(back) * 5 <= ts_trace_source_bytes(t));
        ts_trace_close(back);
        ts_trace_close(t);
    }
}

static int count_lines_with(const char *path, const char *needle)
{
    char *s = tu_read_file(path, NULL);
    int n = 0;
    for (char *p = s; p && (p = strstr(p, needle)); p++)
        n++;
    free(s);
    return n;
}

static void test_ti_export(void)
{
    ts_trace_t *t = tu_open(tu_scorep("tracer-stencil4d-32"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char dir[512], p[600];
    snprintf(dir, sizeof dir, "%s/ti-stencil", tu_tmpdir());
    ts_ti_report_t rep;
    ts_error_t err;
    CU_ASSERT_EQUAL_FATAL(ts_ti_write(t, dir, 1e9, &rep, &err), TS_OK);
    snprintf(p, sizeof p, "%s/ti.txt", dir);
    CU_ASSERT_EQUAL(count_lines_with(p, "rank-"), 32);
    snprintf(p, sizeof p, "%s/rank-0.txt", dir);
    CU_ASSERT_EQUAL(count_lines_with(p, "0 send "), 16);
    CU_ASSERT_EQUAL(count_lines_with(p, "0 irecv "), 16);
    CU_ASSERT_EQUAL(count_lines_with(p, "0 wait "), 16);
    CU_ASSERT_EQUAL(count_lines_with(p, "0 barrier"), 3);
    CU_ASSERT_EQUAL(count_lines_with(p, "0 init"), 1);
    CU_ASSERT_EQUAL(count_lines_with(p, "0 finalize"), 1);
    CU_ASSERT_EQUAL(rep.skipped_subcomm, 0);
    ts_trace_close(t);
}

/* Damaged or foreign inputs: one line naming the file, an error status, no trace. */
static void expect_fail(const char *path, ts_status want, const char *must_name)
{
    ts_trace_t *t = NULL;
    ts_error_t err;
    ts_error_clear(&err);
    ts_status st = ts_trace_open(path, &t, &err);
    if (st != want)
        printf("\n  %s: got %s (%s)\n", path, ts_status_name(st), err.msg);
    CU_ASSERT_EQUAL(st, want);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, must_name));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    ts_trace_close(t);
}

static void truncate_half(const char *path)
{
    size_t n;
    char *s = tu_read_file(path, &n);
    FILE *fp = fopen(path, "wb");
    fwrite(s, 1, n / 2, fp);
    fclose(fp);
    free(s);
}

static void test_bad_inputs(void)
{
    const char *tmp = tu_tmpdir();
    char d[512], f[600];
    const char *src = tu_scorep("casita-4_mpi_ls_barr");

    snprintf(d, sizeof d, "%s/noevt", tmp);
    tu_copy_dir(src, d);
    snprintf(f, sizeof f, "%s/traces/2.evt", d);
    unlink(f);
    expect_fail(d, TS_ENOENT, "traces/2.evt");

    snprintf(d, sizeof d, "%s/truncevt", tmp);
    tu_copy_dir(src, d);
    snprintf(f, sizeof f, "%s/traces/1.evt", d);
    truncate_half(f);
    ts_trace_t *t = NULL;
    CU_ASSERT_NOT_EQUAL(ts_trace_open(d, &t, NULL), TS_OK);
    CU_ASSERT_PTR_NULL(t);
    expect_fail(d, ts_trace_open(d, &t, NULL), "traces/1.evt");

    snprintf(d, sizeof d, "%s/nodef", tmp);
    tu_copy_dir(src, d);
    snprintf(f, sizeof f, "%s/traces/3.def", d);
    unlink(f);
    expect_fail(d, TS_ENOENT, "traces/3.def");

    snprintf(d, sizeof d, "%s/noglobaldef", tmp);
    tu_copy_dir(src, d);
    snprintf(f, sizeof f, "%s/traces.def", d);
    unlink(f);
    expect_fail(d, TS_EOTF2, "traces.otf2");

    snprintf(d, sizeof d, "%s/badanchor", tmp);
    tu_copy_dir(src, d);
    snprintf(f, sizeof f, "%s/traces.otf2", d);
    FILE *fp = fopen(f, "w");
    fputs("not an anchor\n", fp);
    fclose(fp);
    expect_fail(d, TS_ENOTTRACE, "traces.otf2");

    snprintf(d, sizeof d, "%s/emptydir", tmp);
    tu_copy_dir(src, d); /* then remove everything that makes it a trace */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/traces* '%s'/*.cubex", d, d);
    CU_ASSERT_EQUAL(system(cmd), 0);
    expect_fail(d, TS_ENOTTRACE, "emptydir");

    expect_fail(tu_scorep("fastotf2-mi300"), TS_ENOMPI, "no MPI records");
    expect_fail("/nonexistent/trace.otf2", TS_ENOENT, "/nonexistent/trace.otf2");
}

int main(void)
{
    tu_require_shared("test_scorep");
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("scorep traces", NULL, NULL);
    CU_add_test(s, "visit counts from the README", test_counts);
    CU_add_test(s, "sub-communicators and roots", test_subcommunicators);
    CU_add_test(s, "peers, tags, ordering", test_peers_and_tags);
    CU_add_test(s, "clock offsets", test_clock_offsets);
    CU_add_test(s, "store round trip on every trace", test_store_roundtrip_all);
    CU_add_test(s, "TI export", test_ti_export);
    CU_add_test(s, "bad inputs", test_bad_inputs);
    return tu_run_all();
}
