/* tracer.c - libtunesim-trace.so: a PMPI interposition library (LD_PRELOAD) that writes an
 * OTF2 trace of every MPI call in Score-P's convention. This file holds the per-process
 * tracer state, the record helpers every wrapper uses (tracer.h), and MPI_Init,
 * MPI_Init_thread and MPI_Finalize, which open the archive and unify and close it. */
#define _POSIX_C_SOURCE 200809L
#include "tracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DIR       "./tunesim-trace"
#define DEFAULT_BUFFER_MB 8
#define HOST_LEN          256

/* The tracer's state for this process. It must be process-global: the application calls
 * MPI_Send & co. with MPI's own arguments only, so the interposed functions have no other
 * way to reach the archive, clock, communicator registry and request table of the process.
 * Everything else in the library receives this struct explicitly. */
static trc_state_t g_tracer;

/* ---- record helpers (tracer.h) --------------------------------------------------------- */

/* Calls that may block and have no polite form in exclusive mode (exclusive.h): they give
 * the token up while they run, or a rank spinning in one could hold every token while the
 * ranks it waits for queue for one. */
static int waits_impolitely(trc_region region)
{
    switch (region) {
    case TRC_R_Finalize:
    case TRC_R_Sendrecv_replace:
    case TRC_R_Comm_dup:
    case TRC_R_Comm_dup_with_info:
    case TRC_R_Comm_split:
    case TRC_R_Comm_split_type:
    case TRC_R_Comm_create:
    case TRC_R_Comm_create_group:
    case TRC_R_Cart_create:
    case TRC_R_Cart_sub:
    case TRC_R_Graph_create:
    case TRC_R_Dist_graph_create:
    case TRC_R_Dist_graph_create_adjacent:
    case TRC_R_Buffer_detach:
        return 1;
    default:
        return 0;
    }
}

trc_state_t *trc_begin(trc_region region)
{
    trc_state_t *st = &g_tracer;
    if (st->phase != TRC_PHASE_ON)
        return NULL;
    /* Another thread's call counts whether or not the master thread is in one (depth). */
    if (!pthread_equal(pthread_self(), st->thread)) {
        __atomic_fetch_add(&st->untraced_calls, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    if (st->depth != 0)
        return NULL;
    st->depth = 1;
    OTF2_EvtWriter_Enter(st->archive.evt, NULL, trc_clock_enter(&st->clock), region);
    if (st->excl.on && waits_impolitely(region))
        trc_excl_release(&st->excl);
    return st;
}

void trc_count_unrecorded(void)
{
    if (g_tracer.phase == TRC_PHASE_ON)
        __atomic_fetch_add(&g_tracer.unrecorded_calls, 1, __ATOMIC_RELAXED);
}

void trc_end(trc_state_t *st, trc_region region)
{
    /* The wait for a token is part of the call, so the burst that follows is all computing. */
    trc_excl_acquire(&st->excl);
    st->last_time = trc_clock_leave(&st->clock);
    OTF2_EvtWriter_Leave(st->archive.evt, NULL, st->last_time, region);
    /* Resume the compute clock only now, so a buffer flush triggered by the Leave record
     * does not count as compute on the cpu clock. */
    trc_clock_resume(&st->clock);
    st->depth = 0;
}

void trc_end_poll(trc_state_t *st, trc_region region, int finished)
{
    if (!finished)
        trc_excl_release(&st->excl);
    trc_end(st, region);
}

uint64_t trc_now(trc_state_t *st)
{
    return trc_clock_tick(&st->clock);
}

uint32_t trc_comm(trc_state_t *st, MPI_Comm comm)
{
    return trc_comms_id(&st->comms, comm);
}

uint64_t trc_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}

uint64_t trc_recv_bytes(const MPI_Status *status)
{
    /* Counting in MPI_BYTE gives the bytes received whatever the receive datatype was, and
     * stays valid if the application freed that datatype after posting. */
    /* Get_elements_x: Get_count's int says MPI_UNDEFINED past 2 GiB. */
    MPI_Count count = 0;
    if (PMPI_Get_elements_x(status, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
        return 0;
    return (uint64_t)count;
}

void trc_track(trc_state_t *st, const trc_req_t *req)
{
    trc_reqmap_put(&st->requests, req);
}

void trc_complete(trc_state_t *st, MPI_Request handle, const MPI_Status *status)
{
    trc_req_t *req = trc_reqmap_get(&st->requests, handle);
    if (req == NULL || (req->persistent && !req->active))
        return;
    OTF2_EvtWriter *w = st->archive.evt;
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled) {
        OTF2_EvtWriter_MpiRequestCancelled(w, NULL, trc_now(st), req->id);
    } else if (req->kind == TRC_REQ_SEND) {
        /* A persistent send to MPI_PROC_NULL was started without a record (wrap_req.c). */
        if (req->peer != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiIsendComplete(w, NULL, trc_now(st), req->id);
    } else if (req->kind == TRC_REQ_RECV) {
        /* Source and tag as matched, from the status; a receive from MPI_PROC_NULL
         * exchanged nothing and leaves no record. */
        if (status->MPI_SOURCE != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiIrecv(w, NULL, trc_now(st), (uint32_t)status->MPI_SOURCE, req->comm,
                                    (uint32_t)status->MPI_TAG, trc_recv_bytes(status), req->id);
    } else if (req->kind == TRC_REQ_COLL) {
        OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, trc_now(st),
                                                     (OTF2_CollectiveOp)req->op, req->comm,
                                                     req->root, req->bytes, req->bytes2, req->id);
    }
    if (req->persistent)
        req->active = 0;
    else
        trc_reqmap_remove(&st->requests, req);
}

int trc_scratch(trc_state_t *st, int n, MPI_Request **requests, MPI_Status **statuses)
{
    size_t need = n > 0 ? (size_t)n : 1;
    if (need > st->scratch_cap) {
        size_t cap = st->scratch_cap ? st->scratch_cap : 64;
        while (cap < need)
            cap *= 2;
        MPI_Request *r = realloc(st->scratch_requests, cap * sizeof *r);
        if (r != NULL)
            st->scratch_requests = r;
        MPI_Status *s = realloc(st->scratch_statuses, cap * sizeof *s);
        if (s != NULL)
            st->scratch_statuses = s;
        if (r == NULL || s == NULL)
            return -1;
        st->scratch_cap = cap;
    }
    *requests = st->scratch_requests;
    *statuses = st->scratch_statuses;
    return 0;
}

void trc_coll_begin(trc_state_t *st)
{
    OTF2_EvtWriter_MpiCollectiveBegin(st->archive.evt, NULL, trc_now(st));
}

void trc_coll_end(trc_state_t *st, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                  trc_sizes_t sizes)
{
    OTF2_EvtWriter_MpiCollectiveEnd(st->archive.evt, NULL, trc_now(st), op, comm, root, sizes.sent,
                                    sizes.received);
}

/* ---- start ----------------------------------------------------------------------------- */

static void warn(const trc_state_t *st, const char *what)
{
    if (st->rank == 0)
        fprintf(stderr, "tunesim-trace: %s\n", what);
}

/* Before PMPI_Init: choose the clock and take MPI_Init's Enter timestamp. */
static uint64_t init_begin(trc_state_t *st)
{
    trc_clock_kind kind = TRC_CLOCK_WALL;
    if (trc_clock_parse(getenv("TUNESIM_TRACE_CLOCK"), &kind) != 0)
        fprintf(stderr, "tunesim-trace: TUNESIM_TRACE_CLOCK must be wall or cpu; using wall\n");
    trc_clock_init(&st->clock, kind);
    return trc_clock_enter(&st->clock);
}

/* After a successful PMPI_Init: open the archive (collective) and record MPI_Init the way
 * Score-P does, as a CREATE_HANDLE collective on MPI_COMM_WORLD. */
static void init_end(trc_state_t *st, trc_region region, uint64_t enter_time)
{
    if (st->phase != TRC_PHASE_OFF)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &st->size);
    const char *dir = getenv("TUNESIM_TRACE_DIR");
    if (dir == NULL || dir[0] == '\0')
        dir = DEFAULT_DIR;
    snprintf(st->dir, sizeof st->dir, "%s", dir);
    const char *mb_text = getenv("TUNESIM_TRACE_BUFFER_MB");
    long mb = mb_text ? strtol(mb_text, NULL, 10) : DEFAULT_BUFFER_MB;
    if (mb <= 0)
        mb = DEFAULT_BUFFER_MB;

    int ok = trc_comms_init(&st->comms) == 0 && trc_reqmap_init(&st->requests) == 0;
    char msg[PATH_MAX + 128];
    /* Every rank attaches to its host's tokens before any can finish and remove them. */
    if (ok && trc_excl_start(&st->excl, dir, msg, sizeof msg) != 0) {
        fprintf(stderr, "tunesim-trace: rank %d: %s\n", st->rank, msg);
        ok = 0;
    } else if (ok && msg[0] != '\0') {
        warn(st, msg);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
        warn(st, "cannot start (out of memory, MPI failure or the message above); not tracing");
    } else if (trc_archive_open(&st->archive, dir, st->rank, &st->clock, (size_t)mb * 1024 * 1024,
                                msg, sizeof msg) != 0) {
        warn(st, msg);
        ok = 0;
    }
    if (!ok) {
        trc_excl_stop(&st->excl);
        trc_comms_fini(&st->comms);
        trc_reqmap_fini(&st->requests);
        st->phase = TRC_PHASE_DONE;
        return;
    }
    st->thread = pthread_self();
    st->next_request = 1;
    st->first_time = enter_time;
    st->phase = TRC_PHASE_ON;
    st->depth = 1;
    OTF2_EvtWriter_Enter(st->archive.evt, NULL, enter_time, region);
    trc_coll_begin(st);
    trc_coll_end(st, OTF2_COLLECTIVE_OP_CREATE_HANDLE, TRC_COMM_WORLD, OTF2_COLLECTIVE_ROOT_NONE,
                 (trc_sizes_t){0, 0});
    trc_end(st, region);
}

TRC_EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = init_begin(&g_tracer);
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        init_end(&g_tracer, TRC_R_Init, t);
    return rc;
}

TRC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = init_begin(&g_tracer);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        init_end(&g_tracer, TRC_R_Init_thread, t);
    return rc;
}

/* ---- finish ---------------------------------------------------------------------------- */

/* Per-rank facts world rank 0 needs for the global definitions. */
typedef struct rank_facts_s {
    uint64_t nevents, first, last;
} rank_facts_t;

/* World rank 0: distinct host names in rank order; rank_node[r] indexes them. */
static int group_hosts(const char *hosts, int nranks, const char **names, int *rank_node)
{
    int nnodes = 0;
    for (int r = 0; r < nranks; r++) {
        const char *h = hosts + (size_t)r * HOST_LEN;
        int n = 0;
        while (n < nnodes && strcmp(names[n], h) != 0)
            n++;
        if (n == nnodes)
            names[nnodes++] = h;
        rank_node[r] = n;
    }
    return nnodes;
}

/* Collective: unify communicators, gather what the global definitions need, close. */
static int finish(trc_state_t *st)
{
    int is_root = st->rank == 0, n = st->size;
    uint64_t *comm_map = NULL;
    uint32_t nlocal = 0;
    trc_comm_table_t table;
    int ok = trc_comms_unify(&st->comms, &comm_map, &nlocal, &table) == 0;

    rank_facts_t mine = {trc_archive_nevents(&st->archive), st->first_time, st->last_time};
    char host[HOST_LEN] = {0};
    gethostname(host, sizeof host - 1);

    rank_facts_t *facts = NULL;
    char *hosts = NULL;
    const char **names = NULL;
    int *rank_node = NULL;
    uint64_t *events = NULL;
    int have_room = 1;
    if (is_root) {
        facts = malloc((size_t)n * sizeof *facts);
        hosts = malloc((size_t)n * HOST_LEN);
        names = malloc((size_t)n * sizeof *names);
        rank_node = malloc((size_t)n * sizeof *rank_node);
        events = malloc((size_t)n * sizeof *events);
        have_room = facts && hosts && names && rank_node && events;
    }
    /* Everyone learns whether world rank 0 can receive, so that the gathers match up. */
    PMPI_Bcast(&have_room, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* Every rank's calls from other threads, on inter-communicators and unrecorded, not rank
     * 0's alone. */
    unsigned long long counts[3] = {__atomic_load_n(&st->untraced_calls, __ATOMIC_RELAXED),
                                    st->comms.inter_uses,
                                    __atomic_load_n(&st->unrecorded_calls, __ATOMIC_RELAXED)},
                       all[3] = {0, 0, 0};
    PMPI_Reduce(counts, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (have_room) {
        PMPI_Gather(&mine, 3, MPI_UINT64_T, facts, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        PMPI_Gather(host, HOST_LEN, MPI_CHAR, hosts, HOST_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    }

    trc_global_info_t info = {0};
    int with_info = is_root && have_room && ok;
    uint64_t total = 0;
    if (with_info) {
        uint64_t first = UINT64_MAX, last = 0;
        for (int r = 0; r < n; r++) {
            events[r] = facts[r].nevents;
            total += facts[r].nevents;
            first = facts[r].first < first ? facts[r].first : first;
            last = facts[r].last > last ? facts[r].last : last;
        }
        info = (trc_global_info_t){.nranks = n,
                                   .nnodes = group_hosts(hosts, n, names, rank_node),
                                   .node_names = names,
                                   .rank_node = rank_node,
                                   .rank_events = events,
                                   .global_offset = first,
                                   .trace_length = last - first,
                                   .realtime_ns = trc_clock_realtime_of(&st->clock, first),
                                   .comms = &table};
    }
    char msg[3 * PATH_MAX];
    int rc = trc_archive_close(&st->archive, comm_map, nlocal, with_info ? &info : NULL, msg,
                               sizeof msg);
    if (is_root) {
        if (rc == 0)
            fprintf(stderr,
                    "tunesim-trace: wrote %s/traces.otf2 (%d ranks, %llu events, %s clock)\n",
                    st->dir, n, (unsigned long long)total, trc_clock_name(st->clock.kind));
        else
            fprintf(stderr, "tunesim-trace: %s\n",
                    msg[0] ? msg : "writing the trace failed (out of memory)");
        if (all[0] > 0)
            fprintf(stderr,
                    "tunesim-trace: %llu MPI calls from other threads (all ranks) were not "
                    "traced\n",
                    all[0]);
        if (all[1] > 0)
            fprintf(stderr,
                    "tunesim-trace: %llu MPI calls on inter-communicators were recorded with "
                    "their local group's ranks: a replay cannot match them\n",
                    all[1]);
        if (all[2] > 0)
            fprintf(stderr,
                    "tunesim-trace: %llu MPI calls the trace cannot represent (matched probes, "
                    "neighbourhood collectives) were not recorded: their messages are missing "
                    "and their time counts as compute\n",
                    all[2]);
    }
    trc_comm_table_fini(&table);
    free(comm_map);
    free(facts);
    free(hosts);
    free(names);
    free(rank_node);
    free(events);
    return rc;
}

TRC_EXPORT int MPI_Finalize(void)
{
    trc_state_t *st = trc_begin(TRC_R_Finalize);
    if (st != NULL) {
        /* Score-P's pattern: MPI_Finalize destroys MPI_COMM_WORLD's handle collectively. */
        trc_coll_begin(st);
        trc_coll_end(st, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, TRC_COMM_WORLD,
                     OTF2_COLLECTIVE_ROOT_NONE, (trc_sizes_t){0, 0});
        trc_end(st, TRC_R_Finalize);
        st->phase = TRC_PHASE_DONE;
        if (st->excl.on && st->rank == 0 && st->excl.token_waits > 0)
            fprintf(stderr, "tunesim-trace: exclusive mode: rank 0 waited for a turn %lu times\n",
                    st->excl.token_waits);
        trc_excl_stop(&st->excl);
        finish(st);
        trc_comms_fini(&st->comms);
        trc_reqmap_fini(&st->requests);
        free(st->scratch_requests);
        free(st->scratch_statuses);
        st->scratch_requests = NULL;
        st->scratch_statuses = NULL;
        st->scratch_cap = 0;
    }
    return PMPI_Finalize();
}
