/* wrap_unrecorded.c - MPI calls the trace cannot represent (matched probes, neighbourhood
 * collectives): passed straight on and counted, so that MPI_Finalize's warning says how many
 * a trace lacks (their messages are missing from it, their time counts as compute) instead
 * of leaving the gap to be found as unmatched sends in `tunesim info`. */
#include "tracer.h"

TRC_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                          MPI_Status *status)
{
    trc_count_unrecorded();
    return PMPI_Mprobe(source, tag, comm, message, status);
}

TRC_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                           MPI_Status *status)
{
    trc_count_unrecorded();
    return PMPI_Improbe(source, tag, comm, flag, message, status);
}

TRC_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
                         MPI_Status *status)
{
    trc_count_unrecorded();
    return PMPI_Mrecv(buf, count, type, message, status);
}

TRC_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
                          MPI_Request *request)
{
    trc_count_unrecorded();
    return PMPI_Imrecv(buf, count, type, message, request);
}

TRC_EXPORT int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm)
{
    trc_count_unrecorded();
    return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm);
}

TRC_EXPORT int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request)
{
    trc_count_unrecorded();
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm, request);
}

TRC_EXPORT int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, const int recvcounts[], const int displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm)
{
    trc_count_unrecorded();
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm);
}

TRC_EXPORT int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    trc_count_unrecorded();
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, comm, request);
}

TRC_EXPORT int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm)
{
    trc_count_unrecorded();
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

TRC_EXPORT int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request *request)
{
    trc_count_unrecorded();
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                   request);
}

TRC_EXPORT int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                      const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm)
{
    trc_count_unrecorded();
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm);
}

TRC_EXPORT int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    trc_count_unrecorded();
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm, request);
}

TRC_EXPORT int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                      void *recvbuf, const int recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                      MPI_Comm comm)
{
    trc_count_unrecorded();
    return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, comm);
}

TRC_EXPORT int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm, MPI_Request *request)
{
    trc_count_unrecorded();
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                    rdispls, recvtypes, comm, request);
}
