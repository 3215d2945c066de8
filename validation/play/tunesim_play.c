/* tunesim_play.c - tunesim-play: re-executes a trace's MPI calls for real, one MPI rank per
 * traced rank, with the compute bursts as busy loops, so that the exact events tunesim replays
 * can be timed on a real machine under any mpirun -x / --mca settings (ground truth for the
 * simulator, cheap to repeat, and runnable on a user's own cluster).
 *
 *   mpirun [settings] -np N tunesim-play TRACE [--repeat R] [--compute-scale F] [-o FILE]
 *
 * TRACE is anything tunesim reads (a store, an OTF2 anchor or its directory) with N ranks.
 * Each repetition replays the whole trace between two barriers; rank 0 prints one line per
 * repetition, "repeat K: S s", then "mean", "min" and "max". -o writes the same lines to FILE
 * (through a temporary name). Compute bursts spin on CLOCK_MONOTONIC for the traced duration
 * times F (default 1): the trace's clock says how long each burst took on the traced machine.
 *
 * Calls are issued as the traced ones were: a call holding one blocking send (receive) is an
 * MPI_Send (MPI_Recv); a call holding several blocking records (MPI_Sendrecv) posts them
 * non-blocking and completes them together at its end; MPI_Isend / MPI_Irecv are posted as
 * traced (a receive's source, tag and size come from its completion record further on, as in
 * the replay engine); the completions recorded inside one call (MPI_Wait, MPI_Waitall,
 * MPI_Test that succeeded) are completed together by one MPI_Waitall at the call's end;
 * collectives are called with the per-rank payload tunesim derives from Score-P's sizes
 * (reductions of doubles with MPI_SUM when the payload is a multiple of 8 B). Communicators
 * other than MPI_COMM_WORLD are rebuilt from their members with MPI_Comm_create_group. */
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/numparse.h"
#include "common/outfile.h"
#include "common/status.h"
#include "common/u64map.h"
#include "traces/recv_ahead.h"
#include "traces/stats.h"
#include "traces/trace.h"

enum { MAXBLK = 16 };

typedef struct play_s {
    const ts_trace_t *t;
    int rank, size;
    MPI_Comm *comms;       /* per trace communicator; MPI_COMM_NULL where this rank is no member */
    ts_u64map_t *reqs;     /* traced request id -> posted request (pending_t) */
    ts_recv_ahead_t *look; /* finds each receive's envelope further on */
    char *sbuf;            /* one send buffer for every send (MPI lets sends share a buffer) */
    size_t sbuf_size;
    char *cbuf; /* the receive buffer of collectives (one at a time) */
    size_t cbuf_size;
    MPI_Request *call; /* requests to complete at the end of the current call */
    void **call_bufs;  /* their receive buffers, freed then */
    size_t ncall, capcall;
    ts_event_t blk[MAXBLK]; /* blocking send / receive records of the current call */
    int nblocking;
    double scale;
} play_t;

typedef struct pending_s {
    MPI_Request req;
    void *buf;
} pending_t;

static void die(const play_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line naming the rank and what went wrong, then the whole job ends. A reader's message
 * (fmt "%s") names the trace and the rank already. */
static void die(const play_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (strcmp(fmt, "%s") == 0)
        fputs("tunesim-play: ", stderr);
    else {
        char shown[4200];
        fprintf(stderr,
                "tunesim-play: %s: rank %d: ", ts_shown(ts_trace_path(p->t), shown, sizeof shown),
                p->rank);
    }
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *xmalloc(const play_t *p, size_t n)
{
    void *m = malloc(n ? n : 1);
    if (!m)
        die(p, "out of memory (%zu bytes)", n);
    return m;
}

/* What one call may send, and what one collective's buffers may hold (a gather's root holds
 * every rank's block): a trace past them is not one this player reproduces on a node. */
#define PLAY_MAX_CALL   ((uint64_t)1 << 30)
#define PLAY_MAX_BUFFER ((uint64_t)4 << 30)

static int mpi_count(const play_t *p, uint64_t bytes)
{
    if (bytes > PLAY_MAX_CALL)
        die(p, "%llu bytes in one call: more than this player sends", (unsigned long long)bytes);
    return (int)bytes;
}

/* *buf grown to at least bytes (its old content is not kept): buffers are made once, not
 * per call, so that allocation stays out of what is timed. */
static char *grown(const play_t *p, char **buf, size_t *size, uint64_t bytes)
{
    if (bytes > *size) {
        free(*buf);
        *size = bytes;
        *buf = xmalloc(p, bytes);
        memset(*buf, 1, bytes);
    }
    return *buf;
}

static char *send_buffer(play_t *p, uint64_t bytes)
{
    return grown(p, &p->sbuf, &p->sbuf_size, bytes);
}

/* Spin for ns nanoseconds: a busy loop keeps the core as busy as the traced compute did. */
static void spin(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < ns);
}

static MPI_Comm comm_of(const play_t *p, int32_t comm)
{
    if (comm < 0 || comm >= ts_trace_ncomms(p->t) || p->comms[comm] == MPI_COMM_NULL)
        die(p, "communicator %d: not one this rank belongs to", (int)comm);
    return p->comms[comm];
}

/* Peer's rank inside communicator comm (traces name peers by world rank). */
static int comm_rank(const play_t *p, int32_t comm, int32_t world)
{
    int32_t r = ts_trace_comm_rank(p->t, comm, world);
    if (r < 0)
        die(p, "peer rank %d is not in communicator %d", (int)world, (int)comm);
    return (int)r;
}

static void call_add(play_t *p, MPI_Request r, void *buf)
{
    if (p->ncall == p->capcall) {
        p->capcall = p->capcall ? 2 * p->capcall : 64;
        p->call = realloc(p->call, p->capcall * sizeof *p->call);
        p->call_bufs = realloc(p->call_bufs, p->capcall * sizeof *p->call_bufs);
        if (!p->call || !p->call_bufs)
            die(p, "out of memory (%zu requests)", p->capcall);
    }
    p->call[p->ncall] = r;
    p->call_bufs[p->ncall++] = buf;
}

static void call_finish(play_t *p)
{
    if (p->ncall)
        MPI_Waitall((int)p->ncall, p->call, MPI_STATUSES_IGNORE);
    for (size_t i = 0; i < p->ncall; i++)
        free(p->call_bufs[i]);
    p->ncall = 0;
    p->nblocking = 0;
}

/* The blocking records of a call: one alone is an MPI_Send or MPI_Recv (blocking sends take
 * UCX's RNDV_SEND_NBR_THRESH path); several (MPI_Sendrecv) are posted together and completed
 * with the call's other requests, so that the send cannot block its own receive. */
static void blocking(play_t *p)
{
    for (int i = 0; i < p->nblocking; i++) {
        const ts_event_t *b = &p->blk[i];
        MPI_Comm c = comm_of(p, b->comm);
        int peer = comm_rank(p, b->comm, b->peer), n = mpi_count(p, b->bytes);
        if (b->kind == TS_EV_SEND) {
            char *s = send_buffer(p, b->bytes);
            if (p->nblocking == 1) {
                MPI_Send(s, n, MPI_BYTE, peer, b->tag, c);
            } else {
                MPI_Request r;
                MPI_Isend(s, n, MPI_BYTE, peer, b->tag, c, &r);
                call_add(p, r, NULL);
            }
        } else {
            void *buf = xmalloc(p, b->bytes);
            if (p->nblocking == 1) {
                MPI_Recv(buf, n, MPI_BYTE, peer, b->tag, c, MPI_STATUS_IGNORE);
                free(buf);
            } else {
                MPI_Request r;
                MPI_Irecv(buf, n, MPI_BYTE, peer, b->tag, c, &r);
                call_add(p, r, buf);
            }
        }
    }
    p->nblocking = 0;
}

/* One collective call with the per-rank payload b. */
static void collective(play_t *p, const ts_event_t *ev)
{
    const ts_comm_info_t *ci = ts_trace_comm(p->t, ev->comm);
    /* Communicator and window handle records (MPI_Comm_create, ...): the communicators were
     * built before the first repetition. */
    if (!ci || ci->is_self || ci->size <= 1 || ev->op >= TS_COLL_CREATE_HANDLE)
        return;
    MPI_Comm c = comm_of(p, ev->comm);
    int me = comm_rank(p, ev->comm, p->rank);
    int root = ev->peer == TS_ROOT_NONE ? 0 : comm_rank(p, ev->comm, ev->peer);
    uint64_t b = ts_coll_payload(ev->op, ci->size, ev->peer == p->rank, me, ev->bytes, ev->bytes2);
    int n = ci->size;
    size_t total = (size_t)b * (size_t)n;
    int dbl = b % 8 == 0;
    MPI_Datatype ty = dbl ? MPI_DOUBLE : MPI_BYTE;
    MPI_Op op = dbl ? MPI_SUM : MPI_BOR;
    int cnt = mpi_count(p, b); /* the limit is on bytes, whatever type carries them */
    cnt = dbl ? cnt / 8 : cnt;
    if (total > (size_t)PLAY_MAX_BUFFER)
        die(p, "%zu bytes of buffers for one collective: more than this player allocates (%llu)",
            total, (unsigned long long)PLAY_MAX_BUFFER);
    char *s = send_buffer(p, total + 8);
    char *r = grown(p, &p->cbuf, &p->cbuf_size, total + 8);
    switch (ev->op) {
    case TS_COLL_BARRIER:
        MPI_Barrier(c);
        break;
    case TS_COLL_BCAST:
        MPI_Bcast(me == root ? s : r, cnt, ty, root, c);
        break;
    case TS_COLL_ALLREDUCE:
        MPI_Allreduce(s, r, cnt, ty, op, c);
        break;
    case TS_COLL_REDUCE:
        MPI_Reduce(s, r, cnt, ty, op, root, c);
        break;
    case TS_COLL_SCAN:
        MPI_Scan(s, r, cnt, ty, op, c);
        break;
    case TS_COLL_EXSCAN:
        MPI_Exscan(s, r, cnt, ty, op, c);
        break;
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
        MPI_Allgather(s, cnt, ty, r, cnt, ty, c);
        break;
    case TS_COLL_ALLTOALL:
    case TS_COLL_ALLTOALLV:
        MPI_Alltoall(s, cnt, ty, r, cnt, ty, c);
        break;
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
        MPI_Gather(s, cnt, ty, r, cnt, ty, root, c);
        break;
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
        MPI_Scatter(s, cnt, ty, r, cnt, ty, root, c);
        break;
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        MPI_Reduce_scatter_block(s, r, cnt, ty, op, c);
        break;
    default:
        die(p, "MPI_%s is not replayed by tunesim-play", ts_coll_op_name(ev->op));
    }
}

/* The collectives collective() issues (of the rest, handle records are skipped and the
 * others end the job there). */
static int coll_played(int op)
{
    switch (op) {
    case TS_COLL_BARRIER:
    case TS_COLL_BCAST:
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE:
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
    case TS_COLL_ALLTOALL:
    case TS_COLL_ALLTOALLV:
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        return 1;
    default:
        return 0;
    }
}

/* What the scan before the run finds that would end the job on the ranks that meet it, each
 * with a line of its own: collective calls collective() does not play (on a communicator of
 * more than one rank, not a handle record), and calls past PLAY_MAX_CALL or, for a collective,
 * PLAY_MAX_BUFFER, as mpi_count() and collective() tell them; summed over ranks, with the
 * first of each. */
typedef struct scan_s {
    int64_t unplayed, oversize;
    int op;               /* the first unplayed call's operation */
    int32_t big_rank;     /* the first oversize call's rank, */
    const char *big_call; /* its MPI function less "MPI_" ("Isend", "Allreduce"), */
    int big_coll;         /* whether a collective, */
    uint64_t big_bytes;   /* and its bytes (a collective's per rank, */
    uint64_t big_total;   /* and its buffers' in all) */
} scan_t;

static void scan_event(const ts_trace_t *t, int32_t r, const ts_event_t *ev, scan_t *sc)
{
    uint64_t b = 0, total = 0;
    const char *call = NULL;
    switch (ev->kind) {
    case TS_EV_SEND:
    case TS_EV_ISEND:
    case TS_EV_RECV:
    case TS_EV_IRECV_DONE:
        b = total = ev->bytes;
        call = ev->kind == TS_EV_SEND    ? "Send"
               : ev->kind == TS_EV_ISEND ? "Isend"
               : ev->kind == TS_EV_RECV  ? "Recv"
                                         : "Irecv";
        break;
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE: {
        const ts_comm_info_t *ci = ts_trace_comm(t, ev->comm);
        if (!ci || ci->is_self || ci->size <= 1 || ev->op >= TS_COLL_CREATE_HANDLE)
            return;
        if (!coll_played(ev->op)) {
            if (!sc->unplayed++)
                sc->op = ev->op;
            return;
        }
        int32_t me = ts_trace_comm_rank(t, ev->comm, r);
        b = ts_coll_payload(ev->op, ci->size, ev->peer == r, me < 0 ? 0 : me, ev->bytes,
                            ev->bytes2);
        total = b * (uint64_t)ci->size;
        call = ts_coll_op_name(ev->op);
        break;
    }
    default:
        return;
    }
    if (b <= PLAY_MAX_CALL && total <= PLAY_MAX_BUFFER)
        return;
    if (!sc->oversize++) {
        sc->big_rank = r;
        sc->big_call = call;
        sc->big_coll = ev->kind == TS_EV_COLL || ev->kind == TS_EV_ICOLL_DONE;
        sc->big_bytes = b;
        sc->big_total = total;
    }
}

/* Scan every rank of t (scan_t); a negative status when the trace cannot be read. */
static ts_status scan_trace(const ts_trace_t *t, scan_t *sc, ts_error_t *err)
{
    *sc = (scan_t){0};
    for (int32_t r = 0; r < ts_trace_nranks(t); r++) {
        ts_cursor_t *c;
        if (ts_cursor_open(t, r, &c) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        const ts_event_t *evs;
        int k;
        while ((k = ts_cursor_next_batch(c, &evs, err)) > 0)
            for (int i = 0; i < k; i++)
                scan_event(t, r, &evs[i], sc);
        ts_cursor_close(c);
        if (k < 0)
            return (ts_status)k;
    }
    return TS_OK;
}

/* The watchdog. A trace that cannot complete under the player's MPI (a deadlock the
 * recording's eager sends hid, a collective one rank never calls) would wait for ever: each
 * rank counts the events it has played, and one that plays none for longer than the whole trace
 * could take (its duration at the compute scale, plus --patience seconds) ends the job with a
 * line that says so. */
static atomic_ulong played;
static int watch_done; /* under watch_lock; set, with watch_wake signalled, when play is over */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_wake = PTHREAD_COND_INITIALIZER;

typedef struct watch_s {
    const play_t *p;
    double limit_s;
} watch_t;

static void *watch(void *arg)
{
    const watch_t *w = arg;
    unsigned long last = atomic_load(&played);
    struct timespec since, mono;
    clock_gettime(CLOCK_MONOTONIC, &since);
    pthread_mutex_lock(&watch_lock);
    while (!watch_done) {
        struct timespec at;
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_sec += 1;
        pthread_cond_timedwait(&watch_wake, &watch_lock, &at);
        if (watch_done)
            break;
        unsigned long now = atomic_load(&played);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        if (now != last)
            since = mono;
        last = now;
        double idle = (double)(mono.tv_sec - since.tv_sec) + 1e-9 * (mono.tv_nsec - since.tv_nsec);
        if (idle > w->limit_s) {
            char shown[4200];
            fprintf(stderr,
                    "tunesim-play: %s: rank %d: no progress for %.0f s after %lu events: the "
                    "trace cannot complete under these settings (a deadlock, or a call other "
                    "ranks never make; does tunesim replay finish it?)\n",
                    ts_shown(ts_trace_path(w->p->t), shown, sizeof shown), w->p->rank, idle, now);
            fflush(stderr);
            _exit(1); /* no MPI call from this thread: mpirun ends the other ranks */
        }
    }
    pthread_mutex_unlock(&watch_lock);
    return NULL;
}

/* One pass over this rank's events. */
static void play_once(play_t *p)
{
    ts_cursor_t *cur;
    ts_error_t err;
    if (ts_cursor_open(p->t, p->rank, &cur) != TS_OK ||
        ts_recv_ahead_open(p->t, p->rank, cur, &p->look) != TS_OK)
        die(p, "cannot open the trace's cursors");
    ts_event_t ev;
    int rc;
    while ((rc = ts_cursor_next(cur, &ev, &err)) == 1) {
        atomic_fetch_add(&played, 1);
        pending_t *q;
        switch (ev.kind) {
        case TS_EV_COMPUTE:
            spin((int64_t)((double)ev.time * p->scale));
            break;
        case TS_EV_LEAVE:
            blocking(p);
            call_finish(p);
            break;
        case TS_EV_SEND:
        case TS_EV_RECV:
            /* Issued at the call's end, when it is known whether the call held one. */
            if (p->nblocking == MAXBLK)
                die(p, "more than %d blocking records in one call", MAXBLK);
            p->blk[p->nblocking++] = ev;
            break;
        case TS_EV_ISEND:
            q = xmalloc(p, sizeof *q);
            q->buf = NULL;
            MPI_Isend(send_buffer(p, ev.bytes), mpi_count(p, ev.bytes), MPI_BYTE,
                      comm_rank(p, ev.comm, ev.peer), ev.tag, comm_of(p, ev.comm), &q->req);
            if (ts_u64map_put(p->reqs, ev.req, q))
                die(p, "out of memory");
            break;
        case TS_EV_IRECV_POST: {
            ts_recv_info_t in;
            int found = ts_recv_ahead_find(p->look, ev.req, &in, &err);
            if (found < 0)
                die(p, "%s", err.msg);
            if (!found) /* never completed in the trace: nobody waits for it */
                break;
            q = xmalloc(p, sizeof *q);
            q->buf = xmalloc(p, in.bytes);
            MPI_Irecv(q->buf, mpi_count(p, in.bytes), MPI_BYTE, comm_rank(p, in.comm, in.peer),
                      in.tag, comm_of(p, in.comm), &q->req);
            if (ts_u64map_put(p->reqs, ev.req, q))
                die(p, "out of memory");
            break;
        }
        case TS_EV_ISEND_DONE:
        case TS_EV_IRECV_DONE:
            q = ts_u64map_remove(p->reqs, ev.req);
            if (!q)
                die(p, "request %llu completes but was never posted", (unsigned long long)ev.req);
            call_add(p, q->req, q->buf);
            free(q);
            break;
        case TS_EV_COLL:
        case TS_EV_ICOLL_DONE:
            collective(p, &ev);
            break;
        default:
            break;
        }
    }
    if (rc < 0)
        die(p, "%s", err.msg);
    call_finish(p);
    ts_cursor_close(cur);
    ts_recv_ahead_close(p->look);
    p->look = NULL;
}

/* Every trace communicator as an MPI one, built in the same order on every rank. */
static void build_comms(play_t *p)
{
    int32_t n = ts_trace_ncomms(p->t);
    p->comms = xmalloc(p, (size_t)n * sizeof *p->comms);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int32_t c = 0; c < n; c++) {
        const ts_comm_info_t *ci = ts_trace_comm(p->t, c);
        p->comms[c] = MPI_COMM_NULL;
        if (ci->is_self) {
            p->comms[c] = MPI_COMM_SELF;
            continue;
        }
        if (ci->size == p->size) {
            int identity = 1;
            for (int32_t i = 0; i < ci->size && identity; i++)
                identity = ci->members[i] == i;
            if (identity) {
                p->comms[c] = MPI_COMM_WORLD;
                continue;
            }
        }
        if (ts_trace_comm_rank(p->t, c, p->rank) < 0)
            continue;
        MPI_Group g;
        MPI_Group_incl(world, ci->size, ci->members, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, (int)c, &p->comms[c]);
        MPI_Group_free(&g);
    }
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    play_t p = {.scale = 1};
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.size);
    const char *path = NULL, *out = NULL, *bad = NULL;
    int repeat = 1;
    double patience = 60;
    for (int i = 1; i < argc && !bad; i++) {
        /* A rank's bursts add up to 1e15 ns at most (TS_TIME_MAX_NS): scaled by 1000 they
         * stay inside int64_t. */
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (ts_parse_int(argv[++i], 1, 1000000, &repeat) != 0)
                bad = "--repeat expects a count from 1 to 1000000";
        } else if (strcmp(argv[i], "--compute-scale") == 0 && i + 1 < argc) {
            if (ts_parse_double(argv[++i], &p.scale) != 0 || !(p.scale >= 0 && p.scale <= 1000))
                bad = "--compute-scale expects a factor from 0 to 1000";
        } else if (strcmp(argv[i], "--patience") == 0 && i + 1 < argc) {
            if (ts_parse_double(argv[++i], &patience) != 0 || !(patience >= 1 && patience <= 1e6))
                bad = "--patience expects seconds from 1 to 1e6";
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            bad = "unknown option or a second TRACE";
        }
    }
    if (!path || bad) {
        if (p.rank == 0)
            fprintf(stderr,
                    "tunesim-play: %s (usage: mpirun [settings] -np N tunesim-play TRACE "
                    "[--repeat R] [--compute-scale F] [--patience S] [-o FILE])\n",
                    bad ? bad : "expected TRACE");
        MPI_Finalize();
        return 2;
    }
    /* The output before the run: a name, a writable directory, not the trace nor a file
     * inside the trace's archive directory. */
    ts_error_t err;
    const ts_file_use_t uses[] = {{"TRACE", path, 0, "a trace", 1}, {"-o", out, 1, NULL, 0}};
    ts_status cst = ts_check_files("tunesim-play", uses, 2, &err);
    struct stat sb;
    char rtrace[PATH_MAX], rout[PATH_MAX];
    if (cst == TS_OK && out && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
        realpath(path, rtrace) && realpath(out, rout) &&
        strncmp(rout, rtrace, strlen(rtrace)) == 0 && rout[strlen(rtrace)] == '/')
        cst = ts_error_set(&err, TS_EUSAGE,
                           "tunesim-play: -o %s is a file of the trace's archive %s (expected a "
                           "file outside it)",
                           out, path);
    if (cst != TS_OK) {
        if (p.rank == 0)
            fprintf(stderr, "%s\n", err.msg);
        MPI_Finalize();
        return cst == TS_EUSAGE ? 2 : 1;
    }
    ts_trace_t *t;
    if (ts_trace_open(path, &t, &err) != TS_OK) {
        if (p.rank == 0)
            fprintf(stderr, "tunesim-play: %s\n", err.msg);
        MPI_Finalize();
        return 1;
    }
    p.t = t;
    if (ts_trace_nranks(t) != p.size) {
        if (p.rank == 0)
            fprintf(stderr, "tunesim-play: %s: the trace has %d ranks, mpirun started %d\n",
                    ts_shown(path, (char[4200]){0}, 4200), (int)ts_trace_nranks(t), p.size);
        ts_trace_close(t);
        MPI_Finalize();
        return 1;
    }
    /* A message no call consumes would leave its sender or receiver waiting: refused before
     * anything is played, as tunesim replay refuses it. */
    char why[600] = "";
    if (p.rank == 0) {
        ts_stats_t *st = NULL;
        if (ts_stats_compute(t, &st, &err) != TS_OK) {
            snprintf(why, sizeof why, "tunesim-play: %s", err.msg);
        } else {
            const ts_match_summary_t *m = ts_stats_match(st);
            /* A call every rank meets alike would end the job on every rank at once, one
             * line each: said once, here. */
            scan_t sc;
            char shown[4200];
            ts_shown(path, shown, sizeof shown);
            if (scan_trace(t, &sc, &err) != TS_OK)
                snprintf(why, sizeof why, "tunesim-play: %s", err.msg);
            else if (sc.unplayed > 0)
                snprintf(why, sizeof why,
                         "tunesim-play: %s: %lld collective calls it does not replay (the "
                         "first: MPI_%s)",
                         shown, (long long)sc.unplayed, ts_coll_op_name(sc.op));
            else if (sc.oversize > 0) {
                char total[64] = "";
                if (sc.big_coll)
                    snprintf(total, sizeof total, " a rank, %llu in all",
                             (unsigned long long)sc.big_total);
                snprintf(why, sizeof why,
                         "tunesim-play: %s: %lld messages or collectives larger than it sends in "
                         "one call (%llu bytes) or holds for one collective (%llu) (the first: "
                         "rank %d's MPI_%s of %llu bytes%s)",
                         shown, (long long)sc.oversize, (unsigned long long)PLAY_MAX_CALL,
                         (unsigned long long)PLAY_MAX_BUFFER, (int)sc.big_rank, sc.big_call,
                         (unsigned long long)sc.big_bytes, total);
            }
            if (!why[0] && (m->unmatched_sends || m->unmatched_recvs))
                snprintf(why, sizeof why,
                         "tunesim-play: %s: %llu sends and %llu receives match no call: the "
                         "trace cannot complete (tunesim info shows its matching)",
                         shown, (unsigned long long)m->unmatched_sends,
                         (unsigned long long)m->unmatched_recvs);
        }
        ts_stats_free(st);
    }
    MPI_Bcast(why, sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (why[0]) {
        if (p.rank == 0)
            fprintf(stderr, "%s\n", why);
        ts_trace_close(t);
        MPI_Finalize();
        return 1;
    }
    p.reqs = ts_u64map_new();
    if (!p.reqs)
        die(&p, "out of memory");
    build_comms(&p);
    double *times = xmalloc(&p, (size_t)repeat * sizeof *times);
    double scale = p.scale > 1 ? p.scale : 1;
    watch_t w = {&p, (double)ts_trace_duration_ns(t) * 1e-9 * scale + patience};
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, watch, &w) != 0)
        die(&p, "cannot start the watchdog thread");
    for (int k = 0; k < repeat; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        play_once(&p);
        MPI_Barrier(MPI_COMM_WORLD);
        atomic_fetch_add(&played, 1);
        times[k] = MPI_Wtime() - t0;
    }
    pthread_mutex_lock(&watch_lock);
    watch_done = 1;
    pthread_cond_signal(&watch_wake);
    pthread_mutex_unlock(&watch_lock);
    pthread_join(watcher, NULL);
    int rc = 0;
    if (p.rank == 0) {
        /* through ts_outfile as tunesim's outputs: a link written through, a FIFO or a device
         * written directly, a file replaced only when complete */
        ts_outfile_t *of = NULL;
        FILE *fp = stdout;
        if (out) {
            if (ts_outfile_open(out, &of, &err) != TS_OK) {
                fprintf(stderr, "tunesim-play: %s\n", err.msg);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fp = ts_outfile_stream(of);
        }
        double sum = 0, lo = times[0], hi = times[0];
        char shown[4200];
        fprintf(fp, "# tunesim-play %s: %d ranks, %d repetitions\n",
                ts_shown(path, shown, sizeof shown), p.size, repeat);
        for (int k = 0; k < repeat; k++) {
            fprintf(fp, "repeat %d: %.6f s\n", k + 1, times[k]);
            sum += times[k];
            lo = times[k] < lo ? times[k] : lo;
            hi = times[k] > hi ? times[k] : hi;
        }
        fprintf(fp, "mean %.6f s\nmin %.6f s\nmax %.6f s\n", sum / repeat, lo, hi);
        if (of ? ts_outfile_commit(of, &err) != TS_OK : fflush(stdout) != 0) {
            fprintf(stderr, "tunesim-play: %s\n", of ? err.msg : "standard output: cannot write");
            rc = 1;
        }
    }
    free(times);
    for (int32_t c = 0; c < ts_trace_ncomms(t); c++)
        if (p.comms[c] != MPI_COMM_NULL && p.comms[c] != MPI_COMM_WORLD &&
            p.comms[c] != MPI_COMM_SELF)
            MPI_Comm_free(&p.comms[c]);
    free(p.comms);
    free(p.sbuf);
    free(p.cbuf);
    free(p.call);
    free(p.call_bufs);
    ts_u64map_free(p.reqs);
    ts_trace_close(t);
    MPI_Finalize();
    return rc;
}
