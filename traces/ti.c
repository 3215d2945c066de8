/* ti.c - writes SimGrid time-independent traces (the action format read by smpi_replay in
 * SimGrid 3.32: "<rank> <action> <args>", sizes in bytes with MPI_BYTE as the default type).
 *
 * Differences that the format imposes, reported in ts_ti_report_t:
 * - a receive request's source is known only at completion (Score-P writes MpiIrecv then),
 *   so each rank is read twice: first to learn every request's source, tag and size;
 * - SMPI replay identifies a pending request by (src, dst, tag), so each completion becomes
 *   one `wait src dst tag` line;
 * - collectives exist only on MPI_COMM_WORLD; those on other communicators are skipped;
 * - v-collectives get the mean per-peer count, since Score-P records only totals. */
#include "ti.h"

#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/u64map.h"
#include "../common/outfile.h"

/* What a request id stands for, learnt from its completion (receives) or post (sends). */
typedef struct req_info_s {
    uint64_t req;
    int32_t peer, tag;
    uint64_t bytes;
    uint64_t seq; /* occurrence of this id, for persistent requests that reuse it */
} req_info_t;

typedef struct req_table_s {
    req_info_t *v;
    size_t n, cap;
} req_table_t;

static int req_push(req_table_t *t, req_info_t r)
{
    if (TS_GROW(t->v, t->n, t->cap, 256) != 0)
        return -1;
    t->v[t->n++] = r;
    return 0;
}

static int cmp_req(const void *a, const void *b)
{
    const req_info_t *x = a, *y = b;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static const req_info_t *req_find(const req_table_t *t, uint64_t req, uint64_t seq)
{
    req_info_t key = {.req = req, .seq = seq};
    if (!t->n)
        return NULL;
    return bsearch(&key, t->v, t->n, sizeof *t->v, cmp_req);
}

/* Occurrence counters per request id (a request id is reused once its request completes):
 * the common hash map holds next-occurrence + 1, so that an absent key (NULL) reads as 0.
 * *seq gets this occurrence's index; -1 when out of memory. */
static int seq_next(ts_u64map_t *m, uint64_t key, uint64_t *seq)
{
    uintptr_t stored = (uintptr_t)ts_u64map_get(m, key);
    *seq = stored ? (uint64_t)stored - 1 : 0;
    return ts_u64map_put(m, key, (void *)(uintptr_t)(*seq + 2));
}

/* Pass 1: every receive completion and send post, keyed by (request id, occurrence). */
static ts_status learn_requests(const ts_trace_t *t, int32_t rank, req_table_t *recvs,
                                req_table_t *sends, ts_error_t *err)
{
    ts_cursor_t *c;
    if (ts_cursor_open(t, rank, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_u64map_t *rseq = ts_u64map_new(), *sseq = ts_u64map_new();
    ts_event_t ev;
    int rc = 0;
    ts_status st = rseq && sseq ? TS_OK : ts_error_set(err, TS_ENOMEM, "out of memory");
    while (st == TS_OK && (rc = ts_cursor_next(c, &ev, err)) == 1) {
        if (ev.kind == TS_EV_IRECV_DONE || ev.kind == TS_EV_ISEND) {
            int is_recv = ev.kind == TS_EV_IRECV_DONE;
            req_info_t r = {ev.req, ev.peer, ev.tag, ev.bytes, 0};
            if (seq_next(is_recv ? rseq : sseq, ev.req, &r.seq) != 0 ||
                req_push(is_recv ? recvs : sends, r))
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
        }
    }
    if (st == TS_OK && rc < 0)
        st = rc;
    ts_cursor_close(c);
    ts_u64map_free(rseq);
    ts_u64map_free(sseq);
    if (recvs->n)
        qsort(recvs->v, recvs->n, sizeof *recvs->v, cmp_req);
    if (sends->n)
        qsort(sends->v, sends->n, sizeof *sends->v, cmp_req);
    return st;
}

static void put_counts(FILE *fp, int32_t n, uint64_t each)
{
    for (int32_t i = 0; i < n; i++)
        fprintf(fp, " %" PRIu64, each);
}

/* One collective as a TI action on MPI_COMM_WORLD. Returns 0 if written, 1 if skipped. */
static int put_coll(FILE *fp, const ts_trace_t *t, int32_t rank, const ts_event_t *ev)
{
    const ts_comm_info_t *ci = ts_trace_comm(t, ev->comm);
    int32_t n = ts_trace_nranks(t);
    if (ci->is_self || ci->size != n)
        return 1;
    for (int32_t i = 0; i < n; i++)
        if (ci->members[i] != i)
            return 1;
    uint64_t b = ts_coll_payload(ev->op, n, ev->peer == rank, rank, ev->bytes, ev->bytes2);
    int root = ev->peer == TS_ROOT_NONE ? 0 : ev->peer;
    switch (ev->op) {
    case TS_COLL_BARRIER:
        fprintf(fp, "%d barrier\n", rank);
        break;
    case TS_COLL_BCAST:
        fprintf(fp, "%d bcast %" PRIu64 " %d\n", rank, b, root);
        break;
    case TS_COLL_REDUCE:
        fprintf(fp, "%d reduce %" PRIu64 " 0 %d\n", rank, b, root);
        break;
    case TS_COLL_ALLREDUCE:
        fprintf(fp, "%d allreduce %" PRIu64 " 0\n", rank, b);
        break;
    case TS_COLL_ALLTOALL:
        fprintf(fp, "%d alltoall %" PRIu64 " %" PRIu64 "\n", rank, b, ev->bytes2 / (uint64_t)n);
        break;
    case TS_COLL_ALLGATHER:
        fprintf(fp, "%d allgather %" PRIu64 " %" PRIu64 "\n", rank, b, ev->bytes2 / (uint64_t)n);
        break;
    case TS_COLL_GATHER:
        fprintf(fp, "%d gather %" PRIu64 " %" PRIu64 " %d\n", rank, b, b, root);
        break;
    case TS_COLL_SCATTER:
        fprintf(fp, "%d scatter %" PRIu64 " %" PRIu64 " %d\n", rank, b, b, root);
        break;
    case TS_COLL_GATHERV:
        fprintf(fp, "%d gatherv %" PRIu64, rank, ev->bytes);
        put_counts(fp, n, ev->peer == rank ? ev->bytes2 / (uint64_t)n : ev->bytes);
        fprintf(fp, " %d\n", root);
        break;
    case TS_COLL_ALLGATHERV:
        fprintf(fp, "%d allgatherv %" PRIu64, rank, ev->bytes / (uint64_t)n);
        put_counts(fp, n, ev->bytes2 / (uint64_t)n);
        fputc('\n', fp);
        break;
    case TS_COLL_SCATTERV:
        fprintf(fp, "%d scatterv", rank);
        put_counts(fp, n, ev->peer == rank ? ev->bytes / (uint64_t)n : ev->bytes2);
        fprintf(fp, " %" PRIu64 " %d\n", ev->bytes2, root);
        break;
    case TS_COLL_ALLTOALLV:
        fprintf(fp, "%d alltoallv %" PRIu64, rank, ev->bytes);
        put_counts(fp, n, ev->bytes / (uint64_t)n);
        fprintf(fp, " %" PRIu64, ev->bytes2);
        put_counts(fp, n, ev->bytes2 / (uint64_t)n);
        fputc('\n', fp);
        break;
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        fprintf(fp, "%d reducescatter", rank);
        put_counts(fp, n, ev->bytes / (uint64_t)n);
        fprintf(fp, " 0\n");
        break;
    default:
        return 1; /* Scan, Exscan, handles: no TI action */
    }
    return 0;
}

static ts_status write_rank(const ts_trace_t *t, int32_t rank, FILE *fp, double fps,
                            ts_ti_report_t *rep, ts_error_t *err)
{
    req_table_t recvs = {0}, sends = {0};
    ts_status st = learn_requests(t, rank, &recvs, &sends, err);
    ts_cursor_t *c = NULL;
    /* Which occurrence of its request id each post and completion is. */
    ts_u64map_t *post_seq = ts_u64map_new(), *done_seq = ts_u64map_new();
    /* Receives posted and not yet completed, per request id (count + 1, as seq_next keeps):
     * a completion of one never posted has no TI action to wait for (SMPI aborts on the
     * wait), and tunesim replay refuses such a trace. */
    ts_u64map_t *open = ts_u64map_new();
    if (st == TS_OK && (!post_seq || !done_seq || !open || ts_cursor_open(t, rank, &c) != TS_OK))
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    fprintf(fp, "%d init\n", rank);
    rep->lines++;
    ts_event_t ev;
    int rc = 0;
    while (st == TS_OK && (rc = ts_cursor_next(c, &ev, err)) == 1) {
        const req_info_t *ri = NULL;
        uint64_t seq;
        switch (ev.kind) {
        case TS_EV_COMPUTE:
            fprintf(fp, "%d compute %.15g\n", rank, (double)ev.time * (fps / 1e9));
            break;
        case TS_EV_SEND:
            fprintf(fp, "%d send %d %d %" PRIu64 "\n", rank, ev.peer, ev.tag, ev.bytes);
            break;
        case TS_EV_RECV:
            fprintf(fp, "%d recv %d %d %" PRIu64 "\n", rank, ev.peer, ev.tag, ev.bytes);
            break;
        case TS_EV_ISEND:
            fprintf(fp, "%d isend %d %d %" PRIu64 "\n", rank, ev.peer, ev.tag, ev.bytes);
            break;
        case TS_EV_IRECV_POST:
            ri = seq_next(post_seq, ev.req, &seq) == 0 ? req_find(&recvs, ev.req, seq) : NULL;
            if (!ri) { /* never completed (cancelled or the trace ends first) */
                rep->skipped_other++;
                continue;
            }
            if (seq_next(open, ev.req, &seq) != 0) {
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
                continue;
            }
            fprintf(fp, "%d irecv %d %d %" PRIu64 "\n", rank, ri->peer, ri->tag, ri->bytes);
            break;
        case TS_EV_IRECV_DONE: {
            uintptr_t posted = (uintptr_t)ts_u64map_get(open, ev.req);
            if (posted <= 1) {
                char sp[4200];
                st = ts_error_set(err, TS_ECORRUPT,
                                  "%s: rank %d: a receive completes request %llu, which was "
                                  "never posted (expected an MPI_Irecv before its completion)",
                                  ts_shown(ts_trace_path(t), sp, sizeof sp), (int)rank,
                                  (unsigned long long)ev.req);
                continue;
            }
            if (ts_u64map_put(open, ev.req, (void *)(posted - 1)) != 0) {
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
                continue;
            }
            fprintf(fp, "%d wait %d %d %d\n", rank, ev.peer, rank, ev.tag);
            break;
        }
        case TS_EV_ISEND_DONE:
            ri = seq_next(done_seq, ev.req, &seq) == 0 ? req_find(&sends, ev.req, seq) : NULL;
            if (!ri) {
                rep->skipped_other++;
                continue;
            }
            fprintf(fp, "%d wait %d %d %d\n", rank, rank, ri->peer, ri->tag);
            break;
        case TS_EV_COLL:
        case TS_EV_ICOLL_DONE:
            if (ev.op == TS_COLL_CREATE_HANDLE || ev.op == TS_COLL_DESTROY_HANDLE)
                continue;
            if (put_coll(fp, t, rank, &ev)) {
                rep->skipped_subcomm++;
                continue;
            }
            break;
        case TS_EV_CANCELLED:
            rep->skipped_other++;
            continue;
        default:
            continue; /* ENTER, LEAVE, tests: no action of their own */
        }
        rep->lines++;
    }
    if (st == TS_OK && rc < 0)
        st = rc;
    fprintf(fp, "%d finalize\n", rank);
    rep->lines++;
    ts_cursor_close(c);
    ts_u64map_free(post_seq);
    ts_u64map_free(done_seq);
    ts_u64map_free(open);
    free(recvs.v);
    free(sends.v);
    return st;
}

/* The files a TI export writes: ti.txt and rank-N.txt. */
static int ti_owns(const char *name)
{
    if (strcmp(name, "ti.txt") == 0)
        return 1;
    if (strncmp(name, "rank-", 5) != 0)
        return 0;
    const char *c = name + 5;
    if (*c < '0' || *c > '9')
        return 0;
    while (*c >= '0' && *c <= '9')
        c++;
    return strcmp(c, ".txt") == 0;
}

static const ts_outdir_kind_t ti_kind = {"TI export", "ti.txt", ti_owns};

ts_status ts_ti_check(const char *dir, ts_error_t *err)
{
    return ts_outdir_check(dir, &ti_kind, err);
}

ts_status ts_ti_write(const ts_trace_t *t, const char *dir, double fps, ts_ti_report_t *rep,
                      ts_error_t *err)
{
    ts_ti_report_t local = {0};
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    ts_outdir_t *od;
    ts_status st = ts_outdir_open(dir, &ti_kind, &od, err);
    if (st != TS_OK)
        return st;
    char path[4096];
    snprintf(path, sizeof path, "%s/ti.txt", ts_outdir_path(od));
    FILE *index = fopen(path, "w");
    if (!index) {
        ts_outdir_abort(od);
        return ts_error_set(err, TS_EIO, "%s: cannot write the TI index: %s", dir, strerror(errno));
    }
    for (int32_t r = 0; r < ts_trace_nranks(t) && st == TS_OK; r++) {
        fprintf(index, "rank-%d.txt\n", (int)r);
        snprintf(path, sizeof path, "%s/rank-%d.txt", ts_outdir_path(od), (int)r);
        FILE *fp = fopen(path, "w");
        if (!fp) {
            st = ts_error_set(err, TS_EIO, "%s: cannot write rank-%d.txt: %s", dir, (int)r,
                              strerror(errno));
            break;
        }
        st = write_rank(t, r, fp, fps, rep, err);
        /* A full disk shows as a stream error or at the close: name the reason (errno of
         * the write that failed, ENOSPC there). */
        int werr = ferror(fp) ? errno : 0;
        if (fclose(fp) != 0 && !werr)
            werr = errno;
        if (werr && st == TS_OK)
            st = ts_error_set(err, TS_EIO, "%s: writing rank-%d.txt failed: %s", dir, (int)r,
                              strerror(werr));
    }
    int ierr = ferror(index) ? errno : 0;
    if (fclose(index) != 0 && !ierr)
        ierr = errno;
    if (ierr && st == TS_OK)
        st = ts_error_set(err, TS_EIO, "%s: writing ti.txt failed: %s", dir, strerror(ierr));
    if (st != TS_OK) {
        ts_outdir_abort(od);
        return st;
    }
    return ts_outdir_commit(od, err);
}
