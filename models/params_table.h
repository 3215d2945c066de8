/* params_table.h - THE table of every parameter tunesim knows: UCX variables, Open MPI MCA
 * parameters, and the model's own constants. Name, type, default, unit, source, help.
 * Parsing, validation, "did you mean", `tunesim params` and docs/parameters.md are all
 * generated from it; nothing else in the code may hard-code a default (ARCHITECTURE.md).
 *
 * X(id, name, type, default, unit, source, help)
 *   type: SIZE (bytes; b/kb/mb/gb suffixes, powers of 1024, plus "inf" and "auto"),
 *         SIZE2 (a SIZE, or "intra:SIZE,inter:SIZE" - UCX_RNDV_THRESH's split form),
 *         TIME (seconds; s/ms/us/ns suffixes), BW (bytes/s; B/s KB/s MB/s GB/s with
 *         MB = 10^6 as UCX and OSU print them, or "auto"), INT, DOUBLE, BOOL (0/1, y/n,
 *         yes/no, true/false, on/off), ENUM (one word of the help's {a|b|c} list),
 *         TLS (UCX_TLS list: comma separated, ^ to exclude, aliases sm/shm/mm/all),
 *         STRING (accepted and recorded, no effect on the models).
 *   source: the file in shared/reference the default comes from, or "calibration" with
 *         what calibrates it, or "assumed" with why no measured figure exists yet. */
#ifndef TS_PARAMS_TABLE_H
#define TS_PARAMS_TABLE_H

#define TS_PARAM_TABLE(X)                                                                         \
    /* ---- UCX environment variables (mpirun -x) ---------------------------------------- */  \
    X(UCX_TLS, "UCX_TLS", TLS, "all", "", "reference/ucx-protocols.md, Transports",              \
      "transports UCX may use: all, self, sm|shm (posix,sysv,xpmem,knem,cma), mm "              \
      "(posix,sysv,xpmem), rc, ud, dc, tcp, or single transports; ^ excludes")                  \
    X(UCX_RNDV_THRESH, "UCX_RNDV_THRESH", SIZE2, "auto", "bytes",                                \
      "reference/ucx-protocols.md, Thresholds", "eager -> rendezvous switch; one size or "      \
      "intra:SIZE,inter:SIZE (on-host / off-host peers)")                                       \
    X(UCX_ZCOPY_THRESH, "UCX_ZCOPY_THRESH", SIZE, "auto", "bytes",                               \
      "reference/ucx-protocols.md, Thresholds", "bcopy -> zcopy switch")                        \
    X(UCX_BCOPY_THRESH, "UCX_BCOPY_THRESH", SIZE, "auto", "bytes",                               \
      "reference/ucx-protocols.md, Thresholds", "short -> bcopy switch")                        \
    X(UCX_RNDV_SEND_NBR_THRESH, "UCX_RNDV_SEND_NBR_THRESH", SIZE, "256kb", "bytes",              \
      "reference/ucx-protocols.md, Thresholds",                                                  \
      "rendezvous threshold of blocking sends (MPI_Send) while UCX_RNDV_THRESH is auto")        \
    X(UCX_RNDV_SCHEME, "UCX_RNDV_SCHEME", ENUM, "auto", "",                                      \
      "reference/ucx-protocols.md, Thresholds",                                                  \
      "rendezvous data path {auto|get_zcopy|put_zcopy|rkey_ptr|am}")                            \
    X(UCX_BCOPY_BW, "UCX_BCOPY_BW", BW, "7000MB/s", "bytes/s",                                   \
      "reference/ucx-protocols.md, Thresholds (auto = 7,000 MB/s)",                              \
      "copy bandwidth UCX assumes when estimating protocol costs")                              \
    X(UCX_RNDV_PERF_DIFF, "UCX_RNDV_PERF_DIFF", DOUBLE, "1", "%",                                \
      "reference/ucx-protocols.md, Auto thresholds", "margin (percent) rendezvous must win by") \
    X(UCX_MAX_EAGER_LANES, "UCX_MAX_EAGER_LANES", INT, "1", "lanes",                             \
      "reference/ucx-protocols.md, Thresholds", "rails used by eager protocols")                \
    X(UCX_MAX_RNDV_LANES, "UCX_MAX_RNDV_LANES", INT, "2", "lanes",                               \
      "reference/ucx-protocols.md, Thresholds", "rails used by rendezvous")                     \
    X(UCX_NET_DEVICES, "UCX_NET_DEVICES", STRING, "all", "",                                     \
      "reference/simplefoam-motorbike-72.md (runs pass mlx5_2:1)",                               \
      "network devices; the modelled node has one RDMA NIC, so this has no effect")             \
    /* ---- Open MPI MCA parameters (mpirun --mca) --------------------------------------- */  \
    X(MCA_PML, "pml", ENUM, "ucx", "", "reference/bm-optimized3.36.md (Open MPI + UCX)",         \
      "point-to-point layer {ucx|ob1}")                                                         \
    X(MCA_COLL_HCOLL_ENABLE, "coll_hcoll_enable", BOOL, "1", "",                                 \
      "reference/openmpi-collectives.md, Components", "use HCOLL hierarchical collectives")    \
    X(MCA_COLL_UCC_ENABLE, "coll_ucc_enable", BOOL, "0", "",                                     \
      "reference/openmpi-collectives.md, Components", "use UCC collectives")                   \
    X(MCA_PML_UCX_TLS, "pml_ucx_tls", STRING, "any", "", "reference/ucx-protocols.md",           \
      "transports the UCX pml may select (recorded)")                                           \
    X(MCA_PML_UCX_DEVICES, "pml_ucx_devices", STRING, "any", "", "reference/ucx-protocols.md",   \
      "devices the UCX pml may select (recorded)")                                              \
    X(MCA_BTL, "btl", STRING, "all", "", "Open MPI 4.1 default (every BTL)",                     \
      "byte transfer layers for ob1 and one-sided (recorded; the UCX pml does not use them)")    \
    X(MCA_OSC, "osc", STRING, "all", "", "Open MPI 4.1 default",                                \
      "one-sided component (recorded; traces replay no RMA)")                                   \
    X(UCX_LOG_LEVEL, "UCX_LOG_LEVEL", STRING, "warn", "", "UCX default",                         \
      "UCX's logging (recorded; no effect on the models)")                                      \
    X(MCA_MPI_YIELD_WHEN_IDLE, "mpi_yield_when_idle", BOOL, "0", "",                             \
      "reference/simplefoam-motorbike-72.md (used when oversubscribed)",                         \
      "yield the core while waiting (recorded)")                                                \
    /* ---- UCX protocol cost constants --------------------------------------------------- */ \
    X(UCX_OVH_SINGLE, "model.ucx.overhead_single", TIME, "5ns", "s",                             \
      "reference/ucx-protocols.md, Constants", "per-message overhead, single-fragment")         \
    X(UCX_OVH_MULTI, "model.ucx.overhead_multi", TIME, "10ns", "s",                              \
      "reference/ucx-protocols.md, Constants", "per-fragment overhead, multi-fragment")         \
    X(UCX_OVH_RTS, "model.ucx.overhead_rts", TIME, "275ns", "s",                                 \
      "reference/ucx-protocols.md, Constants", "rendezvous RTS handling")                       \
    X(UCX_OVH_RTR, "model.ucx.overhead_rtr", TIME, "40ns", "s",                                  \
      "reference/ucx-protocols.md, Constants", "rendezvous RTR handling")                       \
    X(UCX_OVH_SW, "model.ucx.overhead_sw", TIME, "40ns", "s",                                    \
      "reference/ucx-protocols.md, Constants", "software (am) protocol handling")               \
    /* ---- network transports (off-host) ------------------------------------------------- */ \
    X(NET_LATENCY, "model.net.latency", TIME, "1.66us", "s",                                     \
      "reference/bm-optimized3.36.md (IMB PingPong 0 B, same leaf)",                             \
      "end-to-end MPI latency between nodes under one leaf switch")                             \
    X(NET_SPINE_LATENCY, "model.net.spine_latency", TIME, "3.03us", "s",                         \
      "reference/bm-optimized3.36.md (IMB PingPong 0 B, across spine)",                          \
      "end-to-end MPI latency between nodes under different leaves")                            \
    X(NET_BW, "model.net.bandwidth", BW, "12254MB/s", "bytes/s",                                 \
      "reference/microbench/osu_bw_2node.txt (256 MiB)", "NIC bandwidth per node (100 Gbps RoCE)") \
    X(NET_NODES_PER_LEAF, "model.net.nodes_per_leaf", INT, "16", "nodes",                         \
      "assumed: leaf radix not published; reference runs use 2-4 nodes under one leaf",          \
      "nodes under one leaf switch")                                                            \
    X(RC_MAX_SHORT, "model.rc.max_short", SIZE, "2007b", "bytes",                                \
      "reference/ucx-protocols.md (rc_mlx5 eager short 0-2007)", "largest eager-short message, rc") \
    X(UD_MAX_SHORT, "model.ud.max_short", SIZE, "2007b", "bytes",                                \
      "assumed equal to rc (same mlx5 inline limit)", "largest eager-short message, ud")        \
    X(DC_MAX_SHORT, "model.dc.max_short", SIZE, "2007b", "bytes",                                \
      "assumed equal to rc (same mlx5 inline limit)", "largest eager-short message, dc")        \
    X(NET_SEG_SIZE, "model.net.seg_size", SIZE, "8192b", "bytes",                                \
      "reference/ucx-protocols.md, Constants (IB segment)", "bcopy fragment size on IB")        \
    X(NET_REG_COST, "model.net.reg_cost", TIME, "0.5us", "s",                                    \
      "assumed: not published; to be calibrated (registration step in tunesim-probe)",           \
      "memory registration, fixed part (a cache hit costs nothing)")                            \
    X(NET_REG_COST_PER_BYTE, "model.net.reg_cost_per_byte", TIME, "0.01ns", "s",                 \
      "assumed: not published; to be calibrated (tunesim-probe)",                                \
      "memory registration, per byte")                                                          \
    X(TCP_LATENCY, "model.tcp.latency", TIME, "15us", "s",                                       \
      "assumed: typical kernel TCP round trip/2; to be calibrated (tunesim-probe)",              \
      "end-to-end MPI latency over tcp")                                                        \
    X(TCP_BW, "model.tcp.bandwidth", BW, "5000MB/s", "bytes/s",                                  \
      "assumed; to be calibrated (tunesim-probe)", "tcp bandwidth")                             \
    /* ---- shared-memory transports (on-host) -------------------------------------------- */ \
    X(SHM_LATENCY, "model.shm.latency", TIME, "0.3us", "s",                                      \
      "assumed: no intra-node ping-pong published (reference/bm-optimized3.36.md); calibrated "  \
      "from microbench/osu_alltoall_1x36.txt in the calibration issue",                          \
      "end-to-end MPI latency between ranks on one socket")                                     \
    X(SHM_CROSS_SOCKET_LATENCY, "model.shm.cross_socket_latency", TIME, "0.5us", "s",           \
      "assumed (see model.shm.latency)", "on-host latency between sockets (UPI)")               \
    X(SHM_CROSS_NUMA_LATENCY, "model.shm.cross_numa_latency", TIME, "0.35us", "s",              \
      "assumed (see model.shm.latency)", "on-host latency between NUMA domains of a socket (NPS2)") \
    X(SHM_BW, "model.shm.bandwidth", BW, "12179MB/s", "bytes/s",                                 \
      "reference/bm-optimized3.36.md (UCX shared-memory default per pair)",                      \
      "copy bandwidth of one pair of ranks")                                                    \
    X(NODE_MEM_BW, "model.node.memory_bandwidth", BW, "295800MB/s", "bytes/s",                   \
      "reference/bm-optimized3.36.md (STREAM Copy per node)", "memory bandwidth of one node")   \
    X(SHM_MAX_SHORT, "model.shm.max_short", SIZE, "92b", "bytes",                                \
      "reference/ucx-protocols.md (sysv eager short 0-92)", "largest eager-short message, shm") \
    X(SHM_SEG_SIZE, "model.shm.seg_size", SIZE, "8248b", "bytes",                                \
      "reference/ucx-protocols.md (sysv+xpmem bcopy single fragment 93-8248)",                   \
      "bcopy fragment size in shared memory")                                                   \
    X(CMA_SEG_SIZE, "model.cma.seg_size", SIZE, "512kb", "bytes",                                \
      "reference/ucx-protocols.md, Constants", "cma/knem zero-copy fragment size")              \
    /* ---- CPU ---------------------------------------------------------------------------- */ \
    X(CPU_SPEED_RATIO, "model.cpu.speed_ratio", DOUBLE, "1", "",                                 \
      "assumed: traced CPU = target CPU unless told", "traced CPU speed / target CPU speed; "    \
      "compute bursts are scaled by it")

#endif
