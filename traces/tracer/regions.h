/* regions.h - the MPI functions the tracer records, one table (private to the tracer).
 *
 * Each entry is (name without the "MPI_" prefix, OTF2 region role). The role mirrors what
 * Score-P writes, so that tools keyed on roles treat our traces like Score-P's. The table
 * gives both the region ids used in events (trc_region) and the Region definitions. */
#ifndef TRC_REGIONS_H
#define TRC_REGIONS_H

#define TRC_REGION_MAP(XX)                                                                         \
    XX(Init, FUNCTION)                                                                             \
    XX(Init_thread, FUNCTION)                                                                      \
    XX(Finalize, FUNCTION)                                                                         \
    XX(Send, POINT2POINT)                                                                          \
    XX(Bsend, POINT2POINT)                                                                         \
    XX(Ssend, POINT2POINT)                                                                         \
    XX(Rsend, POINT2POINT)                                                                         \
    XX(Recv, POINT2POINT)                                                                          \
    XX(Sendrecv, POINT2POINT)                                                                      \
    XX(Sendrecv_replace, POINT2POINT)                                                              \
    XX(Isend, POINT2POINT)                                                                         \
    XX(Ibsend, POINT2POINT)                                                                        \
    XX(Issend, POINT2POINT)                                                                        \
    XX(Irsend, POINT2POINT)                                                                        \
    XX(Irecv, POINT2POINT)                                                                         \
    XX(Send_init, POINT2POINT)                                                                     \
    XX(Bsend_init, POINT2POINT)                                                                    \
    XX(Ssend_init, POINT2POINT)                                                                    \
    XX(Rsend_init, POINT2POINT)                                                                    \
    XX(Recv_init, POINT2POINT)                                                                     \
    XX(Probe, POINT2POINT)                                                                         \
    XX(Iprobe, POINT2POINT)                                                                        \
    XX(Get_count, FUNCTION)                                                                        \
    XX(Start, POINT2POINT)                                                                         \
    XX(Startall, POINT2POINT)                                                                      \
    XX(Request_free, FUNCTION)                                                                     \
    XX(Cancel, FUNCTION)                                                                           \
    XX(Wait, FUNCTION)                                                                             \
    XX(Waitall, FUNCTION)                                                                          \
    XX(Waitany, FUNCTION)                                                                          \
    XX(Waitsome, FUNCTION)                                                                         \
    XX(Test, FUNCTION)                                                                             \
    XX(Testall, FUNCTION)                                                                          \
    XX(Testany, FUNCTION)                                                                          \
    XX(Testsome, FUNCTION)                                                                         \
    XX(Barrier, BARRIER)                                                                           \
    XX(Bcast, COLL_ONE2ALL)                                                                        \
    XX(Gather, COLL_ALL2ONE)                                                                       \
    XX(Gatherv, COLL_ALL2ONE)                                                                      \
    XX(Scatter, COLL_ONE2ALL)                                                                      \
    XX(Scatterv, COLL_ONE2ALL)                                                                     \
    XX(Allgather, COLL_ALL2ALL)                                                                    \
    XX(Allgatherv, COLL_ALL2ALL)                                                                   \
    XX(Alltoall, COLL_ALL2ALL)                                                                     \
    XX(Alltoallv, COLL_ALL2ALL)                                                                    \
    XX(Alltoallw, COLL_ALL2ALL)                                                                    \
    XX(Allreduce, COLL_ALL2ALL)                                                                    \
    XX(Reduce, COLL_ALL2ONE)                                                                       \
    XX(Reduce_scatter, COLL_ALL2ALL)                                                               \
    XX(Reduce_scatter_block, COLL_ALL2ALL)                                                         \
    XX(Scan, COLL_OTHER)                                                                           \
    XX(Exscan, COLL_OTHER)                                                                         \
    XX(Ibarrier, BARRIER)                                                                          \
    XX(Ibcast, COLL_ONE2ALL)                                                                       \
    XX(Igather, COLL_ALL2ONE)                                                                      \
    XX(Igatherv, COLL_ALL2ONE)                                                                     \
    XX(Iscatter, COLL_ONE2ALL)                                                                     \
    XX(Iscatterv, COLL_ONE2ALL)                                                                    \
    XX(Iallgather, COLL_ALL2ALL)                                                                   \
    XX(Iallgatherv, COLL_ALL2ALL)                                                                  \
    XX(Ialltoall, COLL_ALL2ALL)                                                                    \
    XX(Ialltoallv, COLL_ALL2ALL)                                                                   \
    XX(Iallreduce, COLL_ALL2ALL)                                                                   \
    XX(Ireduce, COLL_ALL2ONE)                                                                      \
    XX(Ireduce_scatter, COLL_ALL2ALL)                                                              \
    XX(Ireduce_scatter_block, COLL_ALL2ALL)                                                        \
    XX(Iscan, COLL_OTHER)                                                                          \
    XX(Iexscan, COLL_OTHER)                                                                        \
    XX(Comm_dup, FUNCTION)                                                                         \
    XX(Comm_dup_with_info, FUNCTION)                                                               \
    XX(Comm_split, FUNCTION)                                                                       \
    XX(Comm_split_type, FUNCTION)                                                                  \
    XX(Comm_create, FUNCTION)                                                                      \
    XX(Comm_create_group, FUNCTION)                                                                \
    XX(Cart_create, FUNCTION)                                                                      \
    XX(Cart_sub, FUNCTION)                                                                         \
    XX(Graph_create, FUNCTION)                                                                     \
    XX(Dist_graph_create, FUNCTION)                                                                \
    XX(Dist_graph_create_adjacent, FUNCTION)                                                       \
    XX(Comm_free, FUNCTION)                                                                        \
    XX(Comm_rank, FUNCTION)                                                                        \
    XX(Comm_size, FUNCTION)                                                                        \
    XX(Comm_group, FUNCTION)                                                                       \
    XX(Group_incl, FUNCTION)                                                                       \
    XX(Group_free, FUNCTION)                                                                       \
    XX(Buffer_attach, FUNCTION)                                                                    \
    XX(Buffer_detach, FUNCTION)

typedef enum trc_region {
#define TRC__XX(name, role) TRC_R_##name,
    TRC_REGION_MAP(TRC__XX)
#undef TRC__XX
        TRC_R__COUNT
} trc_region;

#endif
