/* wrap_comm.c - communicator management wrappers of the tracer, and calls recorded as
 * Enter / Leave only (Comm_rank, Comm_size, groups, Bsend buffers).
 *
 * Creating a communicator is recorded as Score-P does: Enter, MpiCollectiveBegin, the call,
 * MpiCollectiveEnd(CREATE_HANDLE) on the parent communicator (the one the creation is
 * collective over) with no root and sizes 0, Leave. The new communicator is registered with a
 * key all its members agree on (comms.h). MPI_Comm_free writes DESTROY_HANDLE on the freed
 * communicator. */
#include "tracer.h"

#define NO_ROOT ((uint32_t)OTF2_COLLECTIVE_ROOT_NONE)

static const trc_sizes_t ZERO = {0, 0};

/* After a creation call collective over `over`: register the result, end the collective. */
static int created(trc_state_t *st, trc_region region, int rc, MPI_Comm parent, MPI_Comm over,
                   const MPI_Comm *newcomm)
{
    if (rc == MPI_SUCCESS)
        trc_comms_created(&st->comms, parent, *newcomm);
    trc_coll_end(st, OTF2_COLLECTIVE_OP_CREATE_HANDLE, trc_comm(st, over), NO_ROOT, ZERO);
    trc_end(st, region);
    return rc;
}

#define TRC_CREATE(region, parent, call)                                                           \
    do {                                                                                           \
        trc_state_t *st_ = trc_begin(region);                                                      \
        if (st_ == NULL)                                                                           \
            return call;                                                                           \
        trc_coll_begin(st_);                                                                       \
        int rc_ = call;                                                                            \
        return created(st_, region, rc_, parent, parent, newcomm);                                 \
    } while (0)

TRC_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Comm_dup, comm, PMPI_Comm_dup(comm, newcomm));
}

TRC_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Comm_dup_with_info, comm, PMPI_Comm_dup_with_info(comm, info, newcomm));
}

TRC_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Comm_split, comm, PMPI_Comm_split(comm, color, key, newcomm));
}

TRC_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                   MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Comm_split_type, comm, PMPI_Comm_split_type(comm, type, key, info, newcomm));
}

TRC_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Comm_create, comm, PMPI_Comm_create(comm, group, newcomm));
}

/* Collective over the new group only, so the collective is recorded on the new
 * communicator (MPI_COMM_SELF for a rank that gets none). */
TRC_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    trc_state_t *st = trc_begin(TRC_R_Comm_create_group);
    if (st == NULL)
        return PMPI_Comm_create_group(comm, group, tag, newcomm);
    trc_coll_begin(st);
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    MPI_Comm over = rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL ? *newcomm : MPI_COMM_SELF;
    return created(st, TRC_R_Comm_create_group, rc, comm, over, newcomm);
}

TRC_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                               int reorder, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Cart_create, comm,
               PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm));
}

TRC_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Cart_sub, comm, PMPI_Cart_sub(comm, remain_dims, newcomm));
}

TRC_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                                int reorder, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Graph_create, comm,
               PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm));
}

TRC_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int nodes[], const int degrees[],
                                     const int targets[], const int weights[], MPI_Info info,
                                     int reorder, MPI_Comm *newcomm)
{
    TRC_CREATE(
        TRC_R_Dist_graph_create, comm,
        PMPI_Dist_graph_create(comm, n, nodes, degrees, targets, weights, info, reorder, newcomm));
}

TRC_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                              const int sourceweights[], int outdegree,
                                              const int destinations[], const int destweights[],
                                              MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    TRC_CREATE(TRC_R_Dist_graph_create_adjacent, comm,
               PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                               destinations, destweights, info, reorder, newcomm));
}

TRC_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    trc_state_t *st = trc_begin(TRC_R_Comm_free);
    if (st == NULL)
        return PMPI_Comm_free(comm);
    trc_coll_begin(st);
    uint32_t id = trc_comm(st, *comm);
    int rc = PMPI_Comm_free(comm);
    trc_coll_end(st, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, id, NO_ROOT, ZERO);
    trc_end(st, TRC_R_Comm_free);
    return rc;
}

/* ---- Enter / Leave only ---------------------------------------------------------------- */

TRC_EXPORT int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    TRC_PLAIN(TRC_R_Comm_rank, PMPI_Comm_rank(comm, rank));
}

TRC_EXPORT int MPI_Comm_size(MPI_Comm comm, int *size)
{
    TRC_PLAIN(TRC_R_Comm_size, PMPI_Comm_size(comm, size));
}

TRC_EXPORT int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    TRC_PLAIN(TRC_R_Comm_group, PMPI_Comm_group(comm, group));
}

TRC_EXPORT int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    TRC_PLAIN(TRC_R_Group_incl, PMPI_Group_incl(group, n, ranks, newgroup));
}

TRC_EXPORT int MPI_Group_free(MPI_Group *group)
{
    TRC_PLAIN(TRC_R_Group_free, PMPI_Group_free(group));
}

TRC_EXPORT int MPI_Buffer_attach(void *buffer, int size)
{
    TRC_PLAIN(TRC_R_Buffer_attach, PMPI_Buffer_attach(buffer, size));
}

TRC_EXPORT int MPI_Buffer_detach(void *buffer, int *size)
{
    TRC_PLAIN(TRC_R_Buffer_detach, PMPI_Buffer_detach(buffer, size));
}
