/* wrap_coll.c - collective MPI wrappers of the tracer, blocking and non-blocking.
 *
 * Blocking: Enter, MpiCollectiveBegin, the call, MpiCollectiveEnd(op, comm, root, sizeSent,
 * sizeReceived), Leave. Non-blocking: Enter, NonBlockingCollectiveRequest(id), Leave; the
 * NonBlockingCollectiveComplete record comes when the request completes (wrap_req.c). Sizes
 * follow Score-P (collbytes.h) and are computed before the call from the arguments that are
 * significant on this rank only (an argument MPI ignores may be garbage). Roots are ranks in
 * the communicator. On inter-communicators the sizes are recorded as 0 and the root as none
 * (not supported). */
#include <stdlib.h>

#include "tracer.h"

#define NO_ROOT ((uint32_t)OTF2_COLLECTIVE_ROOT_NONE)

/* Size of comm and this rank in it; -1 for an inter-communicator or on failure. */
static int geometry(MPI_Comm comm, int *n, int *me)
{
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_size(comm, n) != MPI_SUCCESS || PMPI_Comm_rank(comm, me) != MPI_SUCCESS)
        return -1;
    return 0;
}

/* The root as recorded: a rank of comm, or none on an inter-communicator, where MPI's root
 * argument is MPI_ROOT, MPI_PROC_NULL or a rank of the other group, none of them a rank of
 * the local group the trace records the communicator as. */
static uint32_t root_of(MPI_Comm comm, int root)
{
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return NO_ROOT;
    return (uint32_t)root;
}

/* Record the end of a blocking collective and its Leave. */
static int coll_done(trc_state_t *st, trc_region region, int rc, OTF2_CollectiveOp op,
                     MPI_Comm comm, uint32_t root, trc_sizes_t sizes)
{
    trc_coll_end(st, op, trc_comm(st, comm), root, sizes);
    trc_end(st, region);
    return rc;
}

/* Post a non-blocking collective's request record; returns its id. */
static uint64_t icoll_begin(trc_state_t *st)
{
    uint64_t id = st->next_request++;
    OTF2_EvtWriter_NonBlockingCollectiveRequest(st->archive.evt, NULL, trc_now(st), id);
    return id;
}

static int icoll_done(trc_state_t *st, trc_region region, int rc, uint64_t id, MPI_Request *request,
                      OTF2_CollectiveOp op, MPI_Comm comm, uint32_t root, trc_sizes_t sizes)
{
    if (rc == MPI_SUCCESS) {
        trc_req_t req = {.handle = *request,
                         .id = id,
                         .kind = TRC_REQ_COLL,
                         .op = (uint8_t)op,
                         .comm = trc_comm(st, comm),
                         .root = root,
                         .bytes = sizes.sent,
                         .bytes2 = sizes.received};
        trc_track(st, &req);
    }
    trc_end(st, region);
    return rc;
}

/* ---- sizes per operation (see collbytes.h) --------------------------------------------- */

static const trc_sizes_t NONE = {0, 0};

static trc_sizes_t sizes_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    uint64_t b = trc_bytes(count, type);
    return trc_bytes_one_to_all(n, me, root, 0, b, b);
}

static trc_sizes_t sizes_reduce(const void *sendbuf, int count, MPI_Datatype type, int root,
                                MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    uint64_t b = trc_bytes(count, type);
    return trc_bytes_all_to_one(n, me, root, me == root && sendbuf == MPI_IN_PLACE, b, b);
}

static trc_sizes_t sizes_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = me == root && sendbuf == MPI_IN_PLACE;
    uint64_t root_block = me == root ? trc_bytes(recvcount, recvtype) : 0;
    uint64_t mine = in_place ? 0 : trc_bytes(sendcount, sendtype);
    return trc_bytes_all_to_one(n, me, root, in_place, root_block, mine);
}

static trc_sizes_t sizes_scatter(int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = me == root && recvbuf == MPI_IN_PLACE;
    uint64_t root_block = me == root ? trc_bytes(sendcount, sendtype) : 0;
    uint64_t mine = in_place ? 0 : trc_bytes(recvcount, recvtype);
    return trc_bytes_one_to_all(n, me, root, in_place, root_block, mine);
}

static trc_sizes_t sizes_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 const int *recvcounts, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = me == root && sendbuf == MPI_IN_PLACE;
    uint64_t mine = in_place ? 0 : trc_bytes(sendcount, sendtype);
    if (me != root)
        return trc_bytes_gatherv(n, me, root, 0, NULL, 0, mine);
    return trc_bytes_gatherv(n, me, root, in_place, recvcounts, trc_bytes(1, recvtype), mine);
}

static trc_sizes_t sizes_scatterv(const int *sendcounts, MPI_Datatype sendtype, const void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = me == root && recvbuf == MPI_IN_PLACE;
    uint64_t mine = in_place ? 0 : trc_bytes(recvcount, recvtype);
    if (me != root)
        return trc_bytes_scatterv(n, me, root, 0, NULL, 0, mine);
    return trc_bytes_scatterv(n, me, root, in_place, sendcounts, trc_bytes(1, sendtype), mine);
}

/* Alltoall and Allgather: with MPI_IN_PLACE the send arguments are ignored. */
static trc_sizes_t sizes_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = sendbuf == MPI_IN_PLACE;
    return trc_bytes_alltoall(n, in_place, in_place ? 0 : trc_bytes(sendcount, sendtype),
                              trc_bytes(recvcount, recvtype));
}

static trc_sizes_t sizes_allreduce(const void *sendbuf, int count, MPI_Datatype type, MPI_Comm comm)
{
    return sizes_alltoall(sendbuf, count, type, count, type, comm);
}

static trc_sizes_t sizes_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    const int *recvcounts, MPI_Datatype recvtype, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = sendbuf == MPI_IN_PLACE;
    return trc_bytes_allgatherv(n, me, in_place, in_place ? 0 : trc_bytes(sendcount, sendtype),
                                recvcounts, trc_bytes(1, recvtype));
}

static trc_sizes_t sizes_alltoallv(const void *sendbuf, const int *sendcounts,
                                   MPI_Datatype sendtype, const int *recvcounts,
                                   MPI_Datatype recvtype, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = sendbuf == MPI_IN_PLACE;
    return trc_bytes_alltoallv(n, me, in_place, sendcounts, in_place ? 0 : trc_bytes(1, sendtype),
                               recvcounts, trc_bytes(1, recvtype));
}

static trc_sizes_t sizes_alltoallw(const void *sendbuf, const int *sendcounts,
                                   const MPI_Datatype *sendtypes, const int *recvcounts,
                                   const MPI_Datatype *recvtypes, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    int in_place = sendbuf == MPI_IN_PLACE;
    uint64_t *elems = malloc(2 * (size_t)n * sizeof *elems);
    if (elems == NULL)
        return NONE;
    for (int i = 0; i < n; i++) {
        elems[i] = in_place ? 0 : trc_bytes(1, sendtypes[i]);
        elems[n + i] = trc_bytes(1, recvtypes[i]);
    }
    trc_sizes_t s = trc_bytes_alltoallw(n, me, in_place, sendcounts, elems, recvcounts, elems + n);
    free(elems);
    return s;
}

static trc_sizes_t sizes_reduce_scatter(const void *sendbuf, const int *recvcounts,
                                        MPI_Datatype type, MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    return trc_bytes_reduce_scatter(n, me, sendbuf == MPI_IN_PLACE, recvcounts, trc_bytes(1, type));
}

static trc_sizes_t sizes_reduce_scatter_block(const void *sendbuf, int recvcount, MPI_Datatype type,
                                              MPI_Comm comm)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    return trc_bytes_reduce_scatter_block(n, sendbuf == MPI_IN_PLACE, trc_bytes(recvcount, type));
}

static trc_sizes_t sizes_scan(const void *sendbuf, int count, MPI_Datatype type, MPI_Comm comm,
                              int exclusive)
{
    int n, me;
    if (geometry(comm, &n, &me) != 0)
        return NONE;
    return trc_bytes_scan(n, me, exclusive || sendbuf == MPI_IN_PLACE, trc_bytes(count, type));
}

/* ---- blocking collectives -------------------------------------------------------------- */

/* The common body: Enter and MpiCollectiveBegin, sizes, the call, MpiCollectiveEnd, Leave. */
/* In exclusive mode, icall (the non-blocking form, posting req_) and a polite wait instead. */
#define TRC_BLOCKING(region, op, comm, root, sizes_expr, call, icall)                              \
    do {                                                                                           \
        trc_state_t *st_ = trc_begin(region);                                                      \
        if (st_ == NULL)                                                                           \
            return call;                                                                           \
        trc_coll_begin(st_);                                                                       \
        trc_sizes_t sizes_ = sizes_expr;                                                           \
        MPI_Request req_;                                                                          \
        int rc_ = TRC_POLITE(st_, req_, call, icall);                                              \
        return coll_done(st_, region, rc_, op, comm, root, sizes_);                                \
    } while (0)

TRC_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, NO_ROOT, NONE, PMPI_Barrier(comm),
                 PMPI_Ibarrier(comm, &req_));
}

TRC_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, root_of(comm, root),
                 sizes_bcast(count, type, root, comm), PMPI_Bcast(buf, count, type, root, comm),
                 PMPI_Ibcast(buf, count, type, root, comm, &req_));
}

TRC_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, int root, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, root_of(comm, root),
                 sizes_reduce(sendbuf, count, type, root, comm),
                 PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm),
                 PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, &req_));
}

TRC_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, NO_ROOT,
                 sizes_allreduce(sendbuf, count, type, comm),
                 PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm),
                 PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, &req_));
}

TRC_EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TRC_BLOCKING(
        TRC_R_Gather, OTF2_COLLECTIVE_OP_GATHER, comm, root_of(comm, root),
        sizes_gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm),
        PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     &req_));
}

TRC_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, root_of(comm, root),
                 sizes_gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm),
                 PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              root, comm),
                 PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               root, comm, &req_));
}

TRC_EXPORT int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TRC_BLOCKING(
        TRC_R_Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root_of(comm, root),
        sizes_scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      &req_));
}

TRC_EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, root_of(comm, root),
                 sizes_scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm),
                 PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, comm),
                 PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                                root, comm, &req_));
}

TRC_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TRC_BLOCKING(
        TRC_R_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, NO_ROOT,
        sizes_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm),
        PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req_));
}

TRC_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    TRC_BLOCKING(
        TRC_R_Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, NO_ROOT,
        sizes_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm),
        PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
        PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                         &req_));
}

TRC_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TRC_BLOCKING(
        TRC_R_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, NO_ROOT,
        sizes_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm),
        PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &req_));
}

TRC_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, NO_ROOT,
                 sizes_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm),
                 PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm),
                 PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, &req_));
}

TRC_EXPORT int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Alltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, NO_ROOT,
                 sizes_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm),
                 PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                rdispls, recvtypes, comm),
                 PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, &req_));
}

TRC_EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, NO_ROOT,
                 sizes_reduce_scatter(sendbuf, recvcounts, type, comm),
                 PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm),
                 PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, &req_));
}

TRC_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, NO_ROOT,
                 sizes_reduce_scatter_block(sendbuf, recvcount, type, comm),
                 PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm),
                 PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, &req_));
}

TRC_EXPORT int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Scan, OTF2_COLLECTIVE_OP_SCAN, comm, NO_ROOT,
                 sizes_scan(sendbuf, count, type, comm, 0),
                 PMPI_Scan(sendbuf, recvbuf, count, type, op, comm),
                 PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, &req_));
}

TRC_EXPORT int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm)
{
    TRC_BLOCKING(TRC_R_Exscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, NO_ROOT,
                 sizes_scan(sendbuf, count, type, comm, 1),
                 PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm),
                 PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, &req_));
}

/* ---- non-blocking collectives ---------------------------------------------------------- */

/* The common body: Enter, sizes, NonBlockingCollectiveRequest, the call, Leave; the sizes
 * travel with the request to its completion record. */
#define TRC_NONBLOCKING(region, op, comm, root, sizes_expr, call)                                  \
    do {                                                                                           \
        trc_state_t *st_ = trc_begin(region);                                                      \
        if (st_ == NULL)                                                                           \
            return call;                                                                           \
        trc_sizes_t sizes_ = sizes_expr;                                                           \
        uint64_t id_ = icoll_begin(st_);                                                           \
        int rc_ = call;                                                                            \
        return icoll_done(st_, region, rc_, id_, request, op, comm, root, sizes_);                 \
    } while (0)

TRC_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Ibarrier, OTF2_COLLECTIVE_OP_BARRIER, comm, NO_ROOT, NONE,
                    PMPI_Ibarrier(comm, request));
}

TRC_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                          MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Ibcast, OTF2_COLLECTIVE_OP_BCAST, comm, root_of(comm, root),
                    sizes_bcast(count, type, root, comm),
                    PMPI_Ibcast(buf, count, type, root, comm, request));
}

TRC_EXPORT int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Ireduce, OTF2_COLLECTIVE_OP_REDUCE, comm, root_of(comm, root),
                    sizes_reduce(sendbuf, count, type, root, comm),
                    PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request));
}

TRC_EXPORT int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Iallreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, NO_ROOT,
                    sizes_allreduce(sendbuf, count, type, comm),
                    PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request));
}

TRC_EXPORT int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                           MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Igather, OTF2_COLLECTIVE_OP_GATHER, comm, root_of(comm, root),
                    sizes_gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm),
                    PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                 comm, request));
}

TRC_EXPORT int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Igatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, root_of(comm, root),
                    sizes_gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm),
                    PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, root, comm, request));
}

TRC_EXPORT int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Iscatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root_of(comm, root),
                    sizes_scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
                    PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                  comm, request));
}

TRC_EXPORT int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Iscatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, root_of(comm, root),
                    sizes_scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm),
                    PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                   recvtype, root, comm, request));
}

TRC_EXPORT int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request)
{
    TRC_NONBLOCKING(
        TRC_R_Iallgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, NO_ROOT,
        sizes_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm),
        PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

TRC_EXPORT int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Iallgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, NO_ROOT,
                    sizes_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm),
                    PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, comm, request));
}

TRC_EXPORT int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    TRC_NONBLOCKING(
        TRC_R_Ialltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, NO_ROOT,
        sizes_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm),
        PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

TRC_EXPORT int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Ialltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, NO_ROOT,
                    sizes_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm),
                    PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm, request));
}

TRC_EXPORT int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                   MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Ireduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, NO_ROOT,
                    sizes_reduce_scatter(sendbuf, recvcounts, type, comm),
                    PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request));
}

TRC_EXPORT int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                         MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                         MPI_Request *request)
{
    TRC_NONBLOCKING(
        TRC_R_Ireduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, NO_ROOT,
        sizes_reduce_scatter_block(sendbuf, recvcount, type, comm),
        PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request));
}

TRC_EXPORT int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Iscan, OTF2_COLLECTIVE_OP_SCAN, comm, NO_ROOT,
                    sizes_scan(sendbuf, count, type, comm, 0),
                    PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, request));
}

TRC_EXPORT int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TRC_NONBLOCKING(TRC_R_Iexscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, NO_ROOT,
                    sizes_scan(sendbuf, count, type, comm, 1),
                    PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, request));
}
