/* params_range.h - the valid range of every numeric parameter of params_table.h, kept apart
 * from that table so that rows and ranges can be edited independently. One R(id, min, max)
 * per TS_P_* id whose type is SIZE, SIZE2, TIME, BW, INT or DOUBLE (ENUM, TLS, BOOL and STRING
 * have their own fixed sets of values); test_params fails when a numeric row has none, and the
 * compiler when a row has two (-Woverride-init).
 *
 * Bounds are inclusive, in the parameter's base unit: bytes (SIZE, SIZE2: both parts; "auto"
 * and "inf" are always allowed), seconds (TIME), bytes/s (BW; "auto" is always allowed),
 * plain numbers (INT, DOUBLE; UCX_RNDV_PERF_DIFF in percent). They bound what the models and
 * SimGrid can compute with, not what is plausible: a range refuses nonsense (a negative lane
 * count, a zero segment, a latency of 1e20 s that overflows the simulated clock), and leaves
 * tuning to the user. */
#ifndef TS_PARAMS_RANGE_H
#define TS_PARAMS_RANGE_H

#include <math.h>

#define TS_RANGE_KB 1024.0
#define TS_RANGE_MB (1024.0 * 1024.0)
#define TS_RANGE_GB (1024.0 * 1024.0 * 1024.0)
#define TS_RANGE_TB (1024.0 * TS_RANGE_GB)
/* Thresholds compare with message sizes: any size above the largest message acts as inf. */
#define TS_RANGE_ANY_SIZE INFINITY
/* Rates: 1 B/s to 100 TB/s (above any memory system). Below a byte a second SimGrid's solver
 * rounds the rate to nothing and a replay looks like a deadlock of the trace. */
#define TS_RANGE_BW_MIN 1.0
#define TS_RANGE_BW_MAX 1e14
/* Latencies and overheads: 0 to 60 s; every measured one is below 100 us, and SimGrid aborts
 * when a latency overflows its clock (1e308 s). */
#define TS_RANGE_TIME_MAX 60.0

#define TS_PARAM_RANGES(R)                                                                         \
    /* UCX */                                                                                      \
    R(UCX_RNDV_THRESH, 0, TS_RANGE_ANY_SIZE)                                                       \
    R(UCX_ZCOPY_THRESH, 0, TS_RANGE_ANY_SIZE)                                                      \
    R(UCX_BCOPY_THRESH, 0, TS_RANGE_ANY_SIZE)                                                      \
    R(UCX_RNDV_SEND_NBR_THRESH, 0, TS_RANGE_ANY_SIZE)                                              \
    R(UCX_BCOPY_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                              \
    R(UCX_RNDV_PERF_DIFF, 0, 100)                                                                  \
    R(UCX_MAX_EAGER_LANES, 1, 16)                                                                  \
    R(UCX_MAX_RNDV_LANES, 1, 16)                                                                   \
    R(UCX_NUM_EPS, 0, 1e9)                                                                         \
    /* ob1 over vader / tcp: fragment sizes are divided by, so at least a byte */                  \
    R(MCA_BTL_VADER_EAGER_LIMIT, 1, TS_RANGE_GB)                                                   \
    R(MCA_BTL_VADER_MAX_SEND_SIZE, 1, TS_RANGE_GB)                                                 \
    R(MCA_BTL_TCP_EAGER_LIMIT, 1, TS_RANGE_GB)                                                     \
    R(MCA_BTL_TCP_MAX_SEND_SIZE, 1, TS_RANGE_GB)                                                   \
    R(OB1_MATCH_HEADER, 0, TS_RANGE_KB)                                                            \
    R(OB1_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                          \
    R(VADER_LATENCY, 0, TS_RANGE_TIME_MAX)                                                         \
    R(VADER_BANDWIDTH, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                           \
    R(VADER_CMA_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                    \
    R(VADER_CMA_BANDWIDTH, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                       \
    R(TCP_BTL_LATENCY, 0, TS_RANGE_TIME_MAX)                                                       \
    R(TCP_BTL_BANDWIDTH, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                         \
    /* the UCX model */                                                                            \
    R(UCX_OVH_SINGLE, 0, TS_RANGE_TIME_MAX)                                                        \
    R(UCX_OVH_MULTI, 0, TS_RANGE_TIME_MAX)                                                         \
    R(UCX_OVH_RTS, 0, TS_RANGE_TIME_MAX)                                                           \
    R(UCX_OVH_RTR, 0, TS_RANGE_TIME_MAX)                                                           \
    R(UCX_OVH_SW, 0, TS_RANGE_TIME_MAX)                                                            \
    /* progress and per-call software costs */                                                     \
    R(UCX_SEND_CALL, 0, TS_RANGE_TIME_MAX)                                                         \
    R(UCX_RECV_CALL, 0, TS_RANGE_TIME_MAX)                                                         \
    R(UCX_PML_RECV, 0, TS_RANGE_TIME_MAX)                                                          \
    R(MXM_RNDV_THRESH, 0, TS_RANGE_ANY_SIZE)                                                       \
    R(MXM_SHM_RNDV_THRESH, 0, TS_RANGE_ANY_SIZE)                                                   \
    R(MXM_ZCOPY_THRESH, 0, TS_RANGE_ANY_SIZE)                                                      \
    R(MXM_HARD_ZCOPY_THRESH, 0, TS_RANGE_ANY_SIZE)                                                 \
    R(MXM_UD_HARD_ZCOPY_THRESH, 0, TS_RANGE_ANY_SIZE)                                              \
    R(MXM_UD_MSS, 1, TS_RANGE_GB)                                                                  \
    R(MXM_SEND_CALL, 0, TS_RANGE_TIME_MAX)                                                         \
    R(MXM_RECV_CALL, 0, TS_RANGE_TIME_MAX)                                                         \
    R(MXM_RNDV_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                     \
    R(UCX_RNDV_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                     \
    R(UCX_RNDV_BUSY_COST, 0, TS_RANGE_TIME_MAX)                                                    \
    R(UCX_RNDV_WRITTEN_COST, 0, TS_RANGE_TIME_MAX)                                                 \
    R(CMA_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                          \
    R(RC_WQE_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                       \
    R(UD_WQE_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                       \
    R(UD_EXTRA_LATENCY, 0, TS_RANGE_TIME_MAX)                                                      \
    R(RC_LATENCY_PER_EP, 0, TS_RANGE_TIME_MAX)                                                     \
    R(DC_EXTRA_LATENCY, 0, TS_RANGE_TIME_MAX)                                                      \
    R(DC_SELECT_LATENCY, 0, TS_RANGE_TIME_MAX)                                                     \
    R(UD_SEG_SIZE, 64, 1 * TS_RANGE_MB)                                                            \
    R(NET_LATENCY, 0, TS_RANGE_TIME_MAX)                                                           \
    R(NET_SPINE_LATENCY, 0, TS_RANGE_TIME_MAX)                                                     \
    R(NET_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                                    \
    R(NET_NODES_PER_LEAF, 1, 100000)                                                               \
    R(RC_MAX_SHORT, 0, TS_RANGE_MB)                                                                \
    R(UD_MAX_SHORT, 0, TS_RANGE_MB)                                                                \
    R(DC_MAX_SHORT, 0, TS_RANGE_MB)                                                                \
    R(NET_SEG_SIZE, 1, TS_RANGE_GB)                                                                \
    R(NET_REG_COST, 0, TS_RANGE_TIME_MAX)                                                          \
    R(UCX_RCACHE_OVERHEAD, 0, TS_RANGE_TIME_MAX)                                                   \
    R(XPMEM_ATTACH_COST, 0, TS_RANGE_TIME_MAX)                                                     \
    R(XPMEM_FAULT_COST, 0, TS_RANGE_TIME_MAX)                                                      \
    R(NET_REG_COST_PER_BYTE, 0, 1e-6)                                                              \
    R(TCP_LATENCY, 0, TS_RANGE_TIME_MAX)                                                           \
    R(TCP_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                                    \
    R(SHM_LATENCY, 0, TS_RANGE_TIME_MAX)                                                           \
    R(SHM_CROSS_SOCKET_LATENCY, 0, TS_RANGE_TIME_MAX)                                              \
    R(SHM_CROSS_NUMA_LATENCY, 0, TS_RANGE_TIME_MAX)                                                \
    R(SHM_NPS2_GAIN, 0, TS_RANGE_TIME_MAX)                                                         \
    R(SHM_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                                    \
    R(NODE_MEM_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                               \
    R(NET_LINK_SPEED, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                            \
    R(CPU_MEMORY_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                             \
    R(CPU_MEMORY_BOUND, 0, 1)                                                                      \
    R(CPU_CLOCK, 0, 100)                                                                           \
    R(CPU_BALANCE, 0, 1)                                                                           \
    R(SHM_MAX_SHORT, 0, TS_RANGE_MB)                                                               \
    R(SHM_SEG_SIZE, 1, TS_RANGE_GB)                                                                \
    R(CMA_SEG_SIZE, 1, TS_RANGE_GB)                                                                \
    R(CPU_SPEED_RATIO, 0.001, 1000)                                                                \
    R(CPU_NPS2_RATIO, 0.1, 10)                                                                     \
    R(SCOREP_VISIT_OUTSIDE, 0, 1e-3) /* a millisecond per visit would be no profile */             \
    R(CPU_REDUCE_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                             \
    R(CPU_COPY_BW, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX)                                               \
    /* collectives: priorities as Open MPI compares them (below 0 = skipped, so 0 is off) */       \
    R(MCA_COLL_HCOLL_PRIORITY, 0, 1000)                                                            \
    R(MCA_COLL_UCC_PRIORITY, 0, 1000)                                                              \
    R(MCA_COLL_HAN_PRIORITY, 0, 1000)                                                              \
    R(MCA_COLL_TUNED_PRIORITY, 0, 1000)                                                            \
    /* forced algorithms: 0 = the fixed rules, then Open MPI 4.1's numbers (models/coll.c) */      \
    R(MCA_COLL_TUNED_ALLREDUCE_ALG, 0, 6)                                                          \
    R(MCA_COLL_TUNED_ALLREDUCE_SEG, 0, TS_RANGE_GB)                                                \
    R(MCA_COLL_TUNED_BCAST_ALG, 0, 9)                                                              \
    R(MCA_COLL_TUNED_BCAST_SEG, 0, TS_RANGE_GB)                                                    \
    R(MCA_COLL_TUNED_REDUCE_ALG, 0, 7)                                                             \
    R(MCA_COLL_TUNED_REDUCE_SEG, 0, TS_RANGE_GB)                                                   \
    R(MCA_COLL_TUNED_ALLGATHER_ALG, 0, 6)                                                          \
    R(MCA_COLL_TUNED_ALLGATHERV_ALG, 0, 5)                                                         \
    R(MCA_COLL_TUNED_ALLTOALL_ALG, 0, 5)                                                           \
    R(MCA_COLL_TUNED_ALLTOALLV_ALG, 0, 2)                                                          \
    R(MCA_COLL_TUNED_BARRIER_ALG, 0, 6)                                                            \
    R(MCA_COLL_TUNED_GATHER_ALG, 0, 3)                                                             \
    R(MCA_COLL_TUNED_SCATTER_ALG, 0, 3)                                                            \
    R(MCA_COLL_TUNED_REDUCE_SCATTER_ALG, 0, 4)                                                     \
    R(COLL_DATATYPE_SIZE, 1, 1024)                                                                 \
    R(COLL_CHAIN_FANOUT, 1, 1024)                                                                  \
    R(COLL_KNOMIAL_RADIX, 2, 1024)                                                                 \
    R(COLL_BRUCK_STEP, 0, TS_RANGE_TIME_MAX)                                                       \
    R(COLL_BRUCK_BLOCK, 0, TS_RANGE_TIME_MAX)                                                      \
    R(HCOLL_SM_RADIX, 2, 1024)                                                                     \
    R(HCOLL_SM_LATENCY, 0, TS_RANGE_TIME_MAX)                                                      \
    R(HCOLL_SM_FRAGMENT, 64, TS_RANGE_GB)                                                          \
    R(HCOLL_SM_FRAGMENTS_MAX, 1, 4096)                                                             \
    R(HCOLL_NET_RADIX, 2, 1024)                                                                    \
    R(HCOLL_ALLREDUCE_LARGE, 0, TS_RANGE_GB)                                                       \
    R(HCOLL_ALLTOALL_PAIRWISE, 0, TS_RANGE_GB)                                                     \
    R(HCOLL_SRA_RADIX, 0, 1024)                                                                    \
    R(HAN_SEGMENT, 0, TS_RANGE_GB)                                                                 \
    R(NET_FLOWLESS_BYTES, 0, TS_RANGE_GB)                                                          \
    R(UCC_RADIX, 2, 1024)                                                                          \
    R(UCC_BARRIER_RADIX, 2, 1024)                                                                  \
    R(UCC_SRA_RADIX, 0, 1024)                                                                      \
    R(UCC_AG_RADIX, 0, 1024)                                                                       \
    R(UCC_ALLTOALL_POSTS, 0, 1048576)                                                              \
    R(UCC_ALLTOALLV_POSTS, 0, 1048576)                                                             \
    R(UCC_BLOCK_COPY, 0, TS_RANGE_TIME_MAX)

#endif
