/* gen_coll_trace.c - writes the synthetic traces of bench/bench_coll.sh as tunesim stores:
 *   allreduce  RANKS CALLS OUT: every rank calls MPI_Allreduce of 8 B CALLS times, 1 us of
 *              compute between calls;
 *   halo       RANKS ITERS OUT: point-to-point only: per iteration each rank posts Irecv and
 *              Isend of 2 KB with 7 neighbours (ring distances +-1, +-2, +-3, +36 mod RANKS:
 *              simpleFoam's 7.3 per Waitall), one Waitall, 1 us of compute;
 *   foam       RANKS ITERS OUT: the halo iteration followed by one 8 B Allreduce, the ratio
 *              of simpleFoam's steady window (about one Allreduce per Waitall);
 *   alltoall   RANKS CALLS OUT SIZE: MPI_Alltoall of SIZE bytes per peer, back to back (the
 *              OSU latency loop); allreduce also takes SIZE (default 8);
 *   lonecoll   RANKS CALLS OUT: rank 0 alone calls MPI_Allreduce, and
 *   lonesend   RANKS CALLS OUT: rank 0 alone sends (2 KB to rank 1, which never receives):
 *              traces that cannot complete, for tests/play.sh;
 *   alltoallw  RANKS CALLS OUT: every rank calls MPI_Alltoallw, which tunesim-play does not
 *              replay (tests/play.sh).
 * Usage: gen_coll_trace KIND RANKS COUNT OUT [SIZE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/codec.h"
#include "traces/store.h"
#include "traces/trace_impl.h"

typedef struct gen_s {
    ts_trace_t *t;
    uint64_t size;
    int64_t gap_ns;
    int32_t f_allreduce, f_alltoall, f_alltoallw, f_isend, f_irecv, f_waitall;
    uint64_t *req;
} gen_t;

static int put(gen_t *g, int32_t rank, ts_event_t ev)
{
    if (ts_codec_put(&g->t->ranks[rank].buf, &ev) != TS_OK)
        return -1;
    g->t->ranks[rank].nevents++;
    return 0;
}

/* One collective with Score-P's sizes (N x the per-rank payload on both sides). */
static int coll(gen_t *g, int32_t r, int32_t n, int op, int32_t func, uint64_t size)
{
    return put(g, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)func}) ||
           put(g, r,
               (ts_event_t){.kind = TS_EV_COLL,
                            .op = (uint8_t)op,
                            .peer = TS_ROOT_NONE,
                            .bytes = size * (uint64_t)n,
                            .bytes2 = size * (uint64_t)n}) ||
           put(g, r, (ts_event_t){.kind = TS_EV_LEAVE}) ||
           (g->gap_ns && put(g, r, (ts_event_t){.kind = TS_EV_COMPUTE, .time = g->gap_ns}));
}

static int allreduce(gen_t *g, int32_t r, int32_t n)
{
    return coll(g, r, n, TS_COLL_ALLREDUCE, g->f_allreduce, g->size);
}

static const int32_t HOPS[] = {1, -1, 2, -2, 3, -3, 36};

static int halo(gen_t *g, int32_t r, int32_t n)
{
    int k = (int)(sizeof HOPS / sizeof HOPS[0]);
    uint64_t base = g->req[r];
    int rc = 0;
    for (int i = 0; i < k && !rc; i++) { /* receive from the rank whose send reaches us */
        rc |= put(g, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)g->f_irecv});
        rc |= put(g, r, (ts_event_t){.kind = TS_EV_IRECV_POST, .req = base + (uint64_t)i});
        rc |= put(g, r, (ts_event_t){.kind = TS_EV_LEAVE});
    }
    for (int i = 0; i < k && !rc; i++) {
        int32_t to = ((r + HOPS[i]) % n + n) % n;
        rc |= put(g, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)g->f_isend});
        rc |= put(g, r,
                  (ts_event_t){.kind = TS_EV_ISEND,
                               .peer = to,
                               .tag = i,
                               .bytes = 2048,
                               .req = base + (uint64_t)k + (uint64_t)i});
        rc |= put(g, r, (ts_event_t){.kind = TS_EV_LEAVE});
    }
    rc |= put(g, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)g->f_waitall});
    for (int i = 0; i < k && !rc; i++) {
        int32_t from = ((r - HOPS[i]) % n + n) % n;
        rc |= put(g, r,
                  (ts_event_t){.kind = TS_EV_IRECV_DONE,
                               .peer = from,
                               .tag = i,
                               .bytes = 2048,
                               .req = base + (uint64_t)i});
    }
    for (int i = 0; i < k && !rc; i++)
        rc |= put(g, r,
                  (ts_event_t){.kind = TS_EV_ISEND_DONE, .req = base + (uint64_t)k + (uint64_t)i});
    rc |= put(g, r, (ts_event_t){.kind = TS_EV_LEAVE});
    rc |= put(g, r, (ts_event_t){.kind = TS_EV_COMPUTE, .time = 1000});
    g->req[r] += 2 * (uint64_t)k;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr,
                "usage: gen_coll_trace allreduce|alltoall|alltoallw|halo|foam|lonecoll|lonesend "
                "RANKS COUNT OUT [SIZE]\n");
        return 2;
    }
    const char *kind = argv[1];
    int32_t n = atoi(argv[2]);
    long count = atol(argv[3]);
    int osu = argc == 6; /* the OSU loop: given size, calls back to back */
    gen_t g = {.size = osu ? strtoull(argv[5], NULL, 10) : 8, .gap_ns = osu ? 0 : 1000};
    if (n < 2 || n > 65536 || count < 1 ||
        (strcmp(kind, "allreduce") && strcmp(kind, "alltoall") && strcmp(kind, "alltoallw") &&
         strcmp(kind, "halo") && strcmp(kind, "foam") && strcmp(kind, "lonecoll") &&
         strcmp(kind, "lonesend"))) {
        fprintf(stderr, "gen_coll_trace: bad arguments\n");
        return 2;
    }
    ts_error_t err;
    if (ts__trace_new(argv[4], TS_FORMAT_OTF2, n, &g.t) != TS_OK)
        return 1;
    ts__trace_add_node(g.t, "n0");
    int32_t *world = malloc((size_t)n * sizeof *world);
    g.req = calloc((size_t)n, sizeof *g.req);
    if (!world || !g.req)
        return 1;
    for (int32_t i = 0; i < n; i++) {
        world[i] = i;
        g.req[i] = 1;
    }
    ts__trace_add_comm(g.t, "MPI_COMM_WORLD", n, 0, world);
    g.f_allreduce = ts__trace_intern_func(g.t, "MPI_Allreduce");
    g.f_alltoall = ts__trace_intern_func(g.t, "MPI_Alltoall");
    g.f_alltoallw = ts__trace_intern_func(g.t, "MPI_Alltoallw");
    g.f_isend = ts__trace_intern_func(g.t, "MPI_Isend");
    g.f_irecv = ts__trace_intern_func(g.t, "MPI_Irecv");
    g.f_waitall = ts__trace_intern_func(g.t, "MPI_Waitall");
    for (int32_t r = 0; r < n; r++)
        for (long c = 0; c < count; c++) {
            int rc = 0;
            if (strcmp(kind, "allreduce") == 0 || (strcmp(kind, "lonecoll") == 0 && r == 0))
                rc = allreduce(&g, r, n);
            else if (strcmp(kind, "lonesend") == 0 && r == 0)
                rc = put(&g, r, (ts_event_t){.kind = TS_EV_ENTER, .func = (uint16_t)g.f_isend}) ||
                     put(&g, r,
                         (ts_event_t){
                             .kind = TS_EV_ISEND, .peer = 1, .bytes = 2048, .req = (uint64_t)c}) ||
                     put(&g, r, (ts_event_t){.kind = TS_EV_LEAVE});
            else if (kind[0] == 'l')
                continue;
            else if (strcmp(kind, "alltoall") == 0)
                rc = coll(&g, r, n, TS_COLL_ALLTOALL, g.f_alltoall, g.size);
            else if (strcmp(kind, "alltoallw") == 0)
                rc = coll(&g, r, n, TS_COLL_ALLTOALLW, g.f_alltoallw, g.size);
            else
                rc = halo(&g, r, n) || (kind[0] == 'f' && allreduce(&g, r, n));
            if (rc) {
                fprintf(stderr, "gen_coll_trace: out of memory\n");
                return 1;
            }
        }
    ts__trace_seal(g.t);
    ts_status st = ts_store_write(g.t, argv[4], &err);
    if (st != TS_OK)
        fprintf(stderr, "gen_coll_trace: %s\n", err.msg);
    ts_trace_close(g.t);
    free(world);
    free(g.req);
    return st == TS_OK ? 0 : 1;
}
