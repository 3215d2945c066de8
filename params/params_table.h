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

#define TS_PARAM_TABLE(X)                                                                          \
    /* ---- UCX environment variables (mpirun -x) ---------------------------------------- */      \
    X(UCX_TLS, "UCX_TLS", TLS, "all", "", "reference/ucx-protocols.md, Transports",                \
      "transports UCX may use: all, self, sm|shm (posix,sysv,xpmem,knem,cma), mm "                 \
      "(posix,sysv,xpmem), rc, ud, dc, tcp, or single transports; ^ excludes")                     \
    X(UCX_RNDV_THRESH, "UCX_RNDV_THRESH", SIZE2, "auto", "bytes",                                  \
      "reference/ucx-protocols.md, Thresholds",                                                    \
      "eager -> rendezvous switch; one size or "                                                   \
      "intra:SIZE,inter:SIZE (on-host / off-host peers)")                                          \
    X(UCX_ZCOPY_THRESH, "UCX_ZCOPY_THRESH", SIZE, "auto", "bytes",                                 \
      "reference/ucx-protocols.md, Thresholds", "bcopy -> zcopy switch")                           \
    X(UCX_BCOPY_THRESH, "UCX_BCOPY_THRESH", SIZE, "auto", "bytes",                                 \
      "reference/ucx-protocols.md, Thresholds", "short -> bcopy switch")                           \
    X(UCX_RNDV_SEND_NBR_THRESH, "UCX_RNDV_SEND_NBR_THRESH", SIZE, "256kb", "bytes",                \
      "reference/ucx-protocols.md, Thresholds",                                                    \
      "rendezvous threshold of blocking sends (MPI_Send) while UCX_RNDV_THRESH is auto")           \
    X(UCX_RNDV_SCHEME, "UCX_RNDV_SCHEME", ENUM, "auto", "",                                        \
      "reference/ucx-protocols.md, Thresholds",                                                    \
      "rendezvous data path {auto|get_zcopy|put_zcopy|rkey_ptr|am}")                               \
    X(UCX_BCOPY_BW, "UCX_BCOPY_BW", BW, "7000MB/s", "bytes/s",                                     \
      "reference/ucx-protocols.md, Thresholds (auto = 7,000 MB/s)",                                \
      "copy bandwidth UCX assumes when estimating protocol costs")                                 \
    X(UCX_PROTO_ENABLE, "UCX_PROTO_ENABLE", BOOL, "y", "",                                         \
      "UCX src/ucp/core/ucp_context.c (PROTO_ENABLE: n up to 1.15, y from 1.16); the reference "   \
      "runs' UCX 1.17-1.19 (reference/bm-optimized3.36.md, oracle-imb-bm-optimized3.36.md)",       \
      "UCX's protocol selection v2 (y) or v1 (n): v2 times an eager zcopy send to its remote "     \
      "ack, which moves the auto bcopy -> zcopy -> rendezvous switches up; a model file may "      \
      "carry the platform's UCX default")                                                          \
    X(UCX_RNDV_PERF_DIFF, "UCX_RNDV_PERF_DIFF", DOUBLE, "1", "%",                                  \
      "reference/ucx-protocols.md, Auto thresholds", "margin (percent) rendezvous must win by")    \
    X(UCX_MAX_EAGER_LANES, "UCX_MAX_EAGER_LANES", INT, "1", "lanes",                               \
      "reference/ucx-protocols.md, Thresholds", "rails used by eager protocols")                   \
    X(UCX_MAX_RNDV_LANES, "UCX_MAX_RNDV_LANES", INT, "2", "lanes",                                 \
      "reference/ucx-protocols.md, Thresholds", "rails used by rendezvous")                        \
    X(UCX_NUM_EPS, "UCX_NUM_EPS", INT, "0", "endpoints",                                           \
      "UCX src/ucp/core/ucp_context.c (NUM_EPS, default auto: the hint the MPI passes); Open MPI " \
      "ompi/mca/pml/ucx/pml_ucx.c (estimated_num_eps = the world's size)",                         \
      "endpoints UCX expects, which weighs rc against dc for the network lane; 0 = auto: the "     \
      "job's rank count")                                                                          \
    X(UCX_NET_DEVICES, "UCX_NET_DEVICES", STRING, "all", "",                                       \
      "reference/simplefoam-motorbike-72.md (runs pass mlx5_2:1)",                                 \
      "network devices; the modelled node has one RDMA NIC, so this has no effect")                \
    /* ---- Open MPI MCA parameters (mpirun --mca) --------------------------------------- */      \
    X(MCA_PML, "pml", ENUM, "ucx", "", "reference/bm-optimized3.36.md (Open MPI + UCX)",           \
      "point-to-point layer {ucx|ob1|yalla}: yalla is HPC-X's MXM (docs/mxm.md)")                  \
    X(MCA_COLL_HCOLL_ENABLE, "coll_hcoll_enable", BOOL, "1", "",                                   \
      "reference/openmpi-collectives.md, Components", "use HCOLL hierarchical collectives")        \
    X(MCA_COLL_UCC_ENABLE, "coll_ucc_enable", BOOL, "0", "",                                       \
      "reference/openmpi-collectives.md, Components", "use UCC collectives")                       \
    X(MCA_PML_UCX_TLS, "pml_ucx_tls", STRING, "any", "", "reference/ucx-protocols.md",             \
      "transports the UCX pml may select (recorded)")                                              \
    X(MCA_PML_UCX_DEVICES, "pml_ucx_devices", STRING, "any", "", "reference/ucx-protocols.md",     \
      "devices the UCX pml may select (recorded)")                                                 \
    X(MCA_BTL, "btl", STRING, "all", "", "Open MPI 4.1 default (every BTL)",                       \
      "byte transfer layers for ob1 and one-sided (recorded; the UCX pml does not use them)")      \
    X(MCA_OSC, "osc", STRING, "all", "", "Open MPI 4.1 default",                                   \
      "one-sided component (recorded; traces replay no RMA)")                                      \
    X(UCX_LOG_LEVEL, "UCX_LOG_LEVEL", STRING, "warn", "", "UCX default",                           \
      "UCX's logging (recorded; no effect on the models)")                                         \
    X(MCA_MPI_YIELD_WHEN_IDLE, "mpi_yield_when_idle", BOOL, "0", "",                               \
      "reference/simplefoam-motorbike-72.md (used when oversubscribed)",                           \
      "yield the core while waiting (recorded)")                                                   \
    /* ---- ob1 pml over the vader / tcp BTLs (--mca pml ob1) ---------------------------- */      \
    X(MCA_BTL_VADER_EAGER_LIMIT, "btl_vader_eager_limit", SIZE, "4096b", "bytes",                  \
      "Open MPI 4.1 default (ompi_info --param btl vader)",                                        \
      "largest vader fragment sent eagerly, ob1's match header included")                          \
    X(MCA_BTL_VADER_SINGLE_COPY_MECHANISM, "btl_vader_single_copy_mechanism", ENUM, "cma", "",     \
      "Open MPI 4.1 default on Linux without xpmem (Debian's build)",                              \
      "how vader moves rendezvous data {cma|xpmem|knem|none}; none: copy-in/copy-out fragments")   \
    X(MCA_BTL_VADER_MAX_SEND_SIZE, "btl_vader_max_send_size", SIZE, "32kb", "bytes",               \
      "Open MPI 4.1 default", "fragment size of large messages when there is no single copy")      \
    X(MCA_BTL_TCP_EAGER_LIMIT, "btl_tcp_eager_limit", SIZE, "64kb", "bytes",                       \
      "Open MPI 4.1 default", "largest tcp BTL fragment sent eagerly, header included")            \
    X(MCA_BTL_TCP_MAX_SEND_SIZE, "btl_tcp_max_send_size", SIZE, "128kb", "bytes",                  \
      "Open MPI 4.1 default", "fragment size of large messages over the tcp BTL")                  \
    X(OB1_MATCH_HEADER, "model.ob1.match_header", SIZE, "16b", "bytes",                            \
      "Open MPI 4.1 pml/ob1 match header (16 B)",                                                  \
      "bytes of each eager fragment ob1's header takes")                                           \
    X(OB1_OVERHEAD, "model.ob1.overhead", TIME, "150ns", "s",                                      \
      "assumed: ob1's send + match path; calibrated by tunesim-probe with --mca pml ob1",          \
      "software overhead of one ob1 message (each side)")                                          \
    X(VADER_LATENCY, "model.vader.latency", TIME, "0.4us", "s",                                    \
      "assumed (a little above model.shm.latency: ob1 adds its matching); calibrated by "          \
      "tunesim-probe with --mca pml ob1",                                                          \
      "one-way latency of a vader fragment (same NUMA)")                                           \
    X(VADER_BANDWIDTH, "model.vader.bandwidth", BW, "12179MB/s", "bytes/s",                        \
      "assumed equal to model.shm.bandwidth (both memcpy through shared memory); calibrated by "   \
      "tunesim-probe with --mca pml ob1",                                                          \
      "copy bandwidth of vader's copy-in / copy-out")                                              \
    X(VADER_CMA_OVERHEAD, "model.vader.cma_overhead", TIME, "1us", "s",                            \
      "assumed: one process_vm_readv system call; calibrated by tunesim-probe with --mca pml ob1", \
      "fixed cost of one CMA single-copy read")                                                    \
    X(VADER_CMA_BANDWIDTH, "model.vader.cma_bandwidth", BW, "9000MB/s", "bytes/s",                 \
      "assumed: a kernel copy across address spaces, below memcpy; calibrated by tunesim-probe "   \
      "with --mca pml ob1",                                                                        \
      "bandwidth of the CMA single-copy read")                                                     \
    X(TCP_BTL_LATENCY, "model.tcp_btl.latency", TIME, "15us", "s",                                 \
      "assumed equal to model.tcp.latency (same kernel sockets); calibrated by tunesim-probe "     \
      "with --mca pml ob1 --mca btl self,tcp",                                                     \
      "one-way latency of the tcp BTL")                                                            \
    X(TCP_BTL_BANDWIDTH, "model.tcp_btl.bandwidth", BW, "5000MB/s", "bytes/s",                     \
      "assumed equal to model.tcp.bandwidth; calibrated by tunesim-probe with --mca pml ob1 "      \
      "--mca btl self,tcp",                                                                        \
      "bandwidth of the tcp BTL")                                                                  \
    /* ---- MXM through pml yalla (--mca pml yalla, HPC-X 1.x-2.x; docs/mxm.md) ----------- */     \
    X(MXM_TLS, "MXM_TLS", STRING, "auto", "",                                                      \
      "MXM 3.6 API headers (HPC-X v1.8.2 mxm/api/mxm_def.h: transports self, shm, rc, dc, ud, "    \
      "in that order of priority); MXM's own default is in no source found: auto = unknown",       \
      "MXM's transports, a comma list of self, shm, ud, rc, dc (checked under pml yalla); auto "   \
      "(MXM's default, unknown to tunesim) refuses a yalla replay")                                \
    X(MXM_RNDV_THRESH, "MXM_RNDV_THRESH", SIZE, "auto", "bytes",                                   \
      "MXM 3.6 mxm_config.h (rndv_thresh of every transport); MXM 3.x's default is in no source "  \
      "found (MXM 1.x logged 65536 in 2013, another version): auto = unknown",                     \
      "eager -> rendezvous switch of every MXM transport (off-host: rc, dc, ud; on-host unless "   \
      "MXM_SHM_RNDV_THRESH is set); auto (unknown) refuses a yalla replay that needs it")          \
    X(MXM_SHM_RNDV_THRESH, "MXM_SHM_RNDV_THRESH", SIZE, "auto", "bytes",                           \
      "MXM 3.6 mxm_config.h (shm transport's rndv_thresh); default in no source found",            \
      "eager -> rendezvous switch between ranks of one node (MXM's shm); auto: "                   \
      "MXM_RNDV_THRESH's value")                                                                   \
    X(MXM_ZCOPY_THRESH, "MXM_ZCOPY_THRESH", SIZE, "auto", "bytes",                                 \
      "MXM 3.6 mxm_config.h (zcopy_thresh: \"checking\" zero copy); MXM 3.x's default is in no "   \
      "source found (MXM 1.x logged 2040): auto = unknown",                                        \
      "off-host eager messages from this size are sent zero-copy when their buffer is already "    \
      "registered (no registration charged); inf: never; auto (unknown) refuses")                  \
    X(MXM_HARD_ZCOPY_THRESH, "MXM_HARD_ZCOPY_THRESH", SIZE, "auto", "bytes",                       \
      "MXM 3.6 mxm_config.h (hard_zcopy_thresh: \"employing\" zero copy); default in no source "   \
      "found",                                                                                     \
      "off-host eager messages from this size are always sent zero-copy, registering the buffer "  \
      "(rc, dc; ud unless MXM_UD_HARD_ZCOPY_THRESH is set); inf: never; auto (unknown) refuses")   \
    X(MXM_UD_HARD_ZCOPY_THRESH, "MXM_UD_HARD_ZCOPY_THRESH", SIZE, "auto", "bytes",                 \
      "MXM 3.6 mxm_config.h (ud transport's hard_zcopy_thresh); default in no source found",       \
      "MXM_HARD_ZCOPY_THRESH for the ud transport; auto: MXM_HARD_ZCOPY_THRESH's value")           \
    X(MXM_UD_MSS, "MXM_UD_MSS", SIZE, "auto", "bytes",                                             \
      "MXM 3.6 mxm_config.h (mss: \"maximal segment size\", the one used limited by the "          \
      "hardware); default in no source found",                                                     \
      "ud's segment: a message is sent as datagrams of min(MXM_UD_MSS, model.ud.seg_size), the "   \
      "path MTU; auto (unknown) refuses a yalla replay over ud")                                   \
    X(MXM_RDMA_PORTS, "MXM_RDMA_PORTS", STRING, "auto", "",                                        \
      "the second seed study's runs; Open MPI users' scripts pass mlx5_0:1",                       \
      "HCA ports MXM uses; the modelled node has one port, so this has no effect")                 \
    X(MXM_SEND_CALL, "model.mxm.send_call", TIME, "0.04us", "s",                                   \
      "assumed equal to model.ucx.send_call (pml yalla hands MPI sends to MXM's tag API as "       \
      "directly as pml ucx to UCP: Open MPI PR #246); no MXM measurement; plausible 0.02-1 us",    \
      "CPU of one MPI send through pml yalla and MXM, besides the transport's work")               \
    X(MXM_RECV_CALL, "model.mxm.recv_call", TIME, "0.3us", "s",                                    \
      "assumed equal to model.ucx.recv_call (as model.mxm.send_call); plausible 0.1-1 us",         \
      "CPU of posting and completing one receive through pml yalla")                               \
    X(MXM_RNDV_OVERHEAD, "model.mxm.rndv_overhead", TIME, "0.745us", "s",                          \
      "assumed equal to model.ucx.rndv_overhead (a request, RTS and completion notice handled in " \
      "software); no MXM measurement; plausible 0.3-2 us",                                         \
      "software cost of one MXM rendezvous handshake, paid by the receiver")                       \
    /* ---- UCX protocol cost constants --------------------------------------------------- */     \
    X(UCX_OVH_SINGLE, "model.ucx.overhead_single", TIME, "5ns", "s",                               \
      "reference/ucx-protocols.md, Constants", "per-message overhead, single-fragment")            \
    X(UCX_OVH_MULTI, "model.ucx.overhead_multi", TIME, "10ns", "s",                                \
      "reference/ucx-protocols.md, Constants", "per-fragment overhead, multi-fragment")            \
    X(UCX_OVH_RTS, "model.ucx.overhead_rts", TIME, "275ns", "s",                                   \
      "reference/ucx-protocols.md, Constants", "rendezvous RTS handling")                          \
    X(UCX_OVH_RTR, "model.ucx.overhead_rtr", TIME, "40ns", "s",                                    \
      "reference/ucx-protocols.md, Constants", "rendezvous RTR handling")                          \
    X(UCX_OVH_SW, "model.ucx.overhead_sw", TIME, "40ns", "s",                                      \
      "reference/ucx-protocols.md, Constants", "software (am) protocol handling")                  \
    /* ---- progress and per-call software costs ------------------------------------------ */     \
    X(MPI_PROGRESS, "model.mpi.progress", ENUM, "calls", "",                                       \
      "Open MPI ompi/mca/pml/ucx/pml_ucx.c (UCX is progressed from opal_progress, i.e. inside "    \
      "MPI calls; UCX starts no progress thread by default)",                                      \
      "when rendezvous steps run {calls|async}: calls = only while the rank that must act is "     \
      "inside an MPI call (RTS at the receiver, RTR at the sender); async = at once")              \
    X(UCX_SEND_CALL, "model.ucx.send_call", TIME, "0.04us", "s",                                   \
      "tunesim-probe --percall, median of 18 values (6 runs, 8 and 64 B; 0.03-0.24 us), Open "     \
      "MPI 4.1 + UCX 1.13 on this project's machine: platforms/calibrations/probe-localhost/"      \
      "percall-ucx.txt; the OpenFOAM calibration: 0.213 +- 0.028 us fitted to the runs asis and "  \
      "t0 (docs/fit.md)",                                                                          \
      "CPU of one MPI_Isend / MPI_Send through pml_ucx and ucp_tag_send_nbx, besides the "         \
      "transport's own work")                                                                      \
    X(UCX_RECV_CALL, "model.ucx.recv_call", TIME, "0.3us", "s",                                    \
      "tunesim-probe --percall, median of 18 values: MPI_Irecv post (0.014 us) + completion of "   \
      "an arrived 8-64 B message in MPI_Waitall (0.16-0.41 us): platforms/calibrations/"           \
      "probe-localhost/percall-ucx.txt",                                                           \
      "CPU of posting and completing one receive through pml_ucx")                                 \
    X(UCX_PML_RECV, "model.ucx.pml_recv", TIME, "0.117us", "s",                                    \
      "tunesim-ucp-percall, median of 36 values (12 runs, 8, 64 and 1,024 B; 0.01-0.20 us): "      \
      "MPI_Waitall per arrived message less ucp_worker_progress per message on UCX's tag API "     \
      "with a completion callback, side by side in one run, Open MPI 4.1 + UCX 1.13 on this "      \
      "project's machine: platforms/calibrations/probe-localhost/ucp-percall.txt",                 \
      "the share of model.ucx.recv_call that is Open MPI's pml ucx (its request, MPI_Waitall): "   \
      "HCOLL and UCC post their messages on UCX's tag API and skip it")                            \
    X(UCX_RNDV_OVERHEAD, "model.ucx.rndv_overhead", TIME, "0.745us", "s",                          \
      "tunesim-probe ping-pong with UCX_RNDV_THRESH=1kb over active messages (UCX_TLS=self,"       \
      "sysv,posix: no kernel call) beside the all-eager run, fitted by tunesim calibrate: "        \
      "0.745 +- 0.038 us, 10 points, Open MPI 4.1 + UCX 1.13 on this project's machine "           \
      "(platforms/calibrations/README.md, probe-localhost/rndv-*.txt)",                            \
      "software cost of one rendezvous handshake beyond what UCX's own estimate counts (RTS "      \
      "275 ns, RTR 40 ns): the request, packing and handling the RTS and the ATS, the remote "     \
      "key's unpack and cache lookups; UCX's protocol choice does not see it, the message "        \
      "pays it")                                                                                   \
    X(UCX_RNDV_BUSY_COST, "model.ucx.rndv_busy_cost", TIME, "0us", "s",                            \
      "none by default; tunesim-probe's busy-receiver test measures it (tunesim calibrate fits "   \
      "it): on this project's machine fitted at 0.50-0.62 us in three runs (rendezvous from "      \
      "16 KiB, docs/calibrate.md). The OpenFOAM calibration (bm-optimized3.36-simplefoam.xml): "   \
      "8.73 +- 0.74 us fitted to the runs asis and t0, outside any plausible software cost: it "   \
      "carries the cost only asis pays, by a mechanism not known (docs/t0-gap.md)",                \
      "receiver CPU a rendezvous costs beyond the handshake when its RTS arrived while the "       \
      "receiver was computing: in a compute burst of the trace, or reducing between a "            \
      "collective's rounds")                                                                       \
    X(UCX_RNDV_WRITTEN_COST, "model.ucx.rndv_written_cost", TIME, "0us", "s",                      \
      "none by default; the IMB study (scripts/imb_common.sh) replays with 6 us, calibrated on "   \
      "its 1 x 36 training findings (docs/imb-models.md; with the OpenFOAM busy cost): 26 of 41 "  \
      "hold from 4 to 7 us (the HCOLL and UCC Allreduce thresholds 64 kb, HCOLL faster from 64 "   \
      "KB), 25 at 3 us, 24 at 8 us, 23 at 0; 6 us, the middle. tunesim-probe's written-buffer "    \
      "test measures it (tunesim calibrate fits it): on this project's machine 4-64 KiB within "   \
      "0.4 us of nothing, 7-10 us at 256 KiB (docs/calibrate.md), so at the 4-22 KB blocks it "    \
      "falls on it is a stand-in whose mechanism is not known, pending the cluster's figure",      \
      "receiver CPU a rendezvous costs beyond the handshake when it sends what a reduction of "    \
      "the same collective call has just written (its lines dirty in the sender's cache); on "     \
      "top of model.ucx.rndv_busy_cost where its RTS also found the receiver computing")           \
    X(CMA_OVERHEAD, "model.cma.overhead", TIME, "1.59us", "s",                                     \
      "the same fit on the cma run (UCX_RNDV_THRESH=1kb, get_zcopy over cma): 1.59 +- 0.06 us, "   \
      "9 points (probe-localhost/rndv-cma-1kb.txt)",                                               \
      "the process_vm_readv / process_vm_writev system call of one cma rendezvous (on-host, "      \
      "without xpmem); UCX's estimate does not see it")                                            \
    X(RC_WQE_OVERHEAD, "model.rc.wqe_overhead", TIME, "40ns", "s",                                 \
      "UCX src/uct/ib/mlx5/rc/rc_mlx5_common.h (UCT_RC_MLX5_IFACE_OVERHEAD 40e-9)",                \
      "CPU per work request posted or completed on rc_mlx5 / dc_mlx5 (each side, per fragment)")   \
    X(UD_WQE_OVERHEAD, "model.ud.wqe_overhead", TIME, "80ns", "s",                                 \
      "UCX src/uct/ib/mlx5/ud/ud_mlx5.c (UCT_UD_MLX5_IFACE_OVERHEAD 80e-9: software "              \
      "reliability, PSNs, acknowledgements)",                                                      \
      "CPU per datagram posted or received on ud_mlx5 (each side, per fragment)")                  \
    X(UD_EXTRA_LATENCY, "model.ud.extra_latency", TIME, "30ns", "s",                               \
      "UCX src/uct/ib/ud/base/ud_iface.c (latency += 30e-9: UD lacks scatter to CQE)",             \
      "latency UD adds to rc's one-way latency")                                                   \
    X(RC_LATENCY_PER_EP, "model.rc.latency_per_ep", TIME, "1ns", "s",                              \
      "UCX src/uct/ib/mlx5/rc/rc_mlx5_iface.c (latency.m += 1e-9: one more QP per endpoint)",      \
      "what UCX's lane selection adds to rc's latency per endpoint it expects (selection only: "   \
      "the measured latency holds what a few QPs cost)")                                           \
    X(DC_SELECT_LATENCY, "model.dc.select_latency", TIME, "60ns", "s",                             \
      "UCX src/uct/ib/mlx5/dc/dc_mlx5.c (latency.c += 60e-9: the connect packet and its "          \
      "completion entry); CONTRADICTED at 2 x 36: reference/ucx-protocols.md observes rc_mlx5 "    \
      "off-host under UCX_TLS=all there, where this value picks dc (docs/imb-models.md)",          \
      "what UCX's lane selection adds to dc's latency over rc's (selection only)")                 \
    X(DC_EXTRA_LATENCY, "model.dc.extra_latency", TIME, "60ns", "s",                               \
      "UCX's own estimate (model.dc.select_latency); no dc / rc comparison was published for "     \
      "this node",                                                                                 \
      "latency dc adds to rc's one-way latency on the wire")                                       \
    X(UD_SEG_SIZE, "model.ud.seg_size", SIZE, "4096b", "bytes",                                    \
      "UCX src/uct/ib/ud/base/ud_iface.c (segment = min(path MTU, UCX_IB_SEG_SIZE)); RoCE's "      \
      "largest path MTU is 4096 B",                                                                \
      "largest UD datagram payload (bcopy / am fragment)")                                         \
    /* ---- network transports (off-host) ------------------------------------------------- */     \
    X(NET_LATENCY, "model.net.latency", TIME, "1.66us", "s",                                       \
      "reference/bm-optimized3.36.md (IMB PingPong 0 B, same leaf)",                               \
      "end-to-end MPI latency between nodes under one leaf switch")                                \
    X(NET_SPINE_LATENCY, "model.net.spine_latency", TIME, "3.03us", "s",                           \
      "reference/bm-optimized3.36.md (IMB PingPong 0 B, across spine)",                            \
      "end-to-end MPI latency between nodes under different leaves")                               \
    X(NET_BW, "model.net.bandwidth", BW, "12254MB/s", "bytes/s",                                   \
      "reference/microbench/osu_bw_2node.txt (256 MiB)", "NIC bandwidth per node (100 Gbps RoCE)") \
    X(NET_LINK_SPEED, "model.net.link_speed", BW, "auto", "bytes/s",                               \
      "what-if (docs/what-if.md); auto = the platform's link_rate",                                \
      "the NIC's data rate to replay with, a rate (56Gbps) or a link's name (QDR, FDR, EDR, "      \
      "HDR100, HDR, NDR, 25GbE, 50GbE, 100GbE, 200GbE, 400GbE): "                                  \
      "model.net.bandwidth is scaled by it / the platform's link_rate (the measured efficiency "   \
      "kept); auto: the platform's own")                                                           \
    X(NET_NODES_PER_LEAF, "model.net.nodes_per_leaf", INT, "16", "nodes",                          \
      "assumed: leaf radix not published; reference runs use 2-4 nodes under one leaf",            \
      "nodes under one leaf switch")                                                               \
    X(RC_MAX_SHORT, "model.rc.max_short", SIZE, "2007b", "bytes",                                  \
      "reference/ucx-protocols.md (rc_mlx5 eager short 0-2007)",                                   \
      "largest eager-short message, rc")                                                           \
    X(UD_MAX_SHORT, "model.ud.max_short", SIZE, "2007b", "bytes",                                  \
      "assumed equal to rc (same mlx5 inline limit)", "largest eager-short message, ud")           \
    X(DC_MAX_SHORT, "model.dc.max_short", SIZE, "2007b", "bytes",                                  \
      "assumed equal to rc (same mlx5 inline limit)", "largest eager-short message, dc")           \
    X(NET_SEG_SIZE, "model.net.seg_size", SIZE, "8192b", "bytes",                                  \
      "reference/ucx-protocols.md, Constants (IB segment)", "bcopy fragment size on IB")           \
    X(NET_REG_COST, "model.net.reg_cost", TIME, "8us", "s",                                        \
      "calibrated on reference/oracle-imb-bm-optimized3.36.md, 2 x 36 Alltoall step 1 "            \
      "(self,sm,rc "                                                                               \
      "chosen over self,sm,ud under -off_cache): rc wins in the models only with a miss below "    \
      "about 11 us, so 8 us, inside the 2-20 us prior; UCX's own figure is 16 us "                 \
      "(src/uct/ib/base/ib_md.c UCX_IB_MEM_REG_OVERHEAD, marked to be taken from the device)",     \
      "memory registration with the NIC, fixed part, paid when UCX's registration cache misses "   \
      "(model.net.rcache)")                                                                        \
    X(NET_REG_COST_PER_BYTE, "model.net.reg_cost_per_byte", TIME, "0.06ns", "s",                   \
      "UCX src/uct/ib/base/ib_md.c (UCX_IB_MEM_REG_GROWTH, 0.06 ns a byte: 0.25 us a 4 KiB page)", \
      "memory registration, per byte")                                                             \
    X(UCX_RCACHE_OVERHEAD, "model.ucx.rcache_overhead", TIME, "50ns", "s",                         \
      "UCX src/ucp/core/ucp_mm.h (UCP_RCACHE_OVERHEAD_DEFAULT 50 ns); src/ucp/proto/proto_init.c " \
      "(with the cache on, the protocol estimates price a registration as its lookup)",            \
      "what UCX's protocol selection charges a registration: a cache lookup (it assumes a hit)")   \
    X(XPMEM_ATTACH_COST, "model.xpmem.attach_cost", TIME, "0.5us", "s",                            \
      "assumed: the value model.net.reg_cost had when the on-host auto threshold (2,792 B) was "   \
      "set against UCX's (reference/oracle-imb-bm-optimized3.36.md: near 2.8 KB); not measured",   \
      "the receiver's mapping of a sender buffer it has not mapped before (xpmem rendezvous)")     \
    X(XPMEM_FAULT_COST, "model.xpmem.fault_cost", TIME, "0ns", "s",                                \
      "assumed none (xpmem_attach maps lazily: UCX src/uct/sm/mm/xpmem/mm_xpmem.c; UCX's own "     \
      "estimate counts 60 ns a registration, no faults); tried on the IMB study: 0.5 us a page "   \
      "makes eager win to 128 KB on every one-node benchmark, 13 of 41 findings instead of 16 "    \
      "(docs/imb-models.md)",                                                                      \
      "page fault of a newly mapped sender page, per 4 KiB page of an xpmem rendezvous whose "     \
      "buffer was not mapped before (model.net.rcache)")                                           \
    X(NET_RCACHE, "model.net.rcache", ENUM, "size", "",                                            \
      "UCX's registration cache (src/ucs/memory/rcache.c: a region is registered once and reused " \
      "while its pages stay mapped); IMB's -off_cache (IMB_init.c: s_cache_iter, each repetition " \
      "at a new offset of a buffer twice the cache size)",                                         \
      "which zero-copy and rendezvous buffers hit UCX's registration cache {size|none}: size = "   \
      "a rank registers one buffer per message size (traces carry no addresses; applications "     \
      "reuse their buffers); none = every buffer is new (tunesim imb's default, as IMB's "         \
      "-off_cache)")                                                                               \
    X(TCP_LATENCY, "model.tcp.latency", TIME, "15us", "s",                                         \
      "assumed: typical kernel TCP round trip/2; to be calibrated (tunesim-probe)",                \
      "end-to-end MPI latency over tcp")                                                           \
    X(TCP_BW, "model.tcp.bandwidth", BW, "5000MB/s", "bytes/s",                                    \
      "assumed; to be calibrated (tunesim-probe)", "tcp bandwidth")                                \
    /* ---- shared-memory transports (on-host) -------------------------------------------- */     \
    X(SHM_LATENCY, "model.shm.latency", TIME, "0.3us", "s",                                        \
      "assumed: no intra-node ping-pong published (reference/bm-optimized3.36.md); the 1 x 36 "    \
      "OSU alltoall's small sizes fit 54 ns +- 100 ns (rms 52 %), below any physical value, so "   \
      "the shipped calibration keeps this (platforms/calibrations/README.md)",                     \
      "end-to-end MPI latency between ranks on one socket")                                        \
    X(SHM_CROSS_SOCKET_LATENCY, "model.shm.cross_socket_latency", TIME, "0.5us", "s",              \
      "assumed (see model.shm.latency)", "on-host latency between sockets (UPI)")                  \
    X(SHM_CROSS_NUMA_LATENCY, "model.shm.cross_numa_latency", TIME, "0.3us", "s",                  \
      "estimate: model.shm.latency, NPS1's on-socket latency (a message's lines are homed in "     \
      "the receiving rank's domain, so the sender's side crosses the mesh as under NPS1)",         \
      "on-host latency between NUMA domains of a socket (NPS2)")                                   \
    X(SHM_NPS2_GAIN, "model.shm.nps2_domain_gain", TIME, "20ns", "s",                              \
      "calibrated on the study's step 3 findings, 1 x 36 and 2 x 36 (NPS x placement, "            \
      "docs/imb-models.md): 12 of 20 hold at 20 ns, 9 at 0; the mechanism is sub-NUMA "            \
      "clustering, which homes a domain's memory in its own half of the socket's L3 slices",       \
      "under NPS2, how much less an on-host message between ranks of one NUMA domain takes "       \
      "than one within a socket under NPS1 (model.shm.latency, model.vader.latency and HCOLL's "   \
      "shared-memory steps)")                                                                      \
    X(SHM_BW, "model.shm.bandwidth", BW, "12179MB/s", "bytes/s",                                   \
      "reference/bm-optimized3.36.md (UCX shared-memory default per pair)",                        \
      "copy bandwidth of one pair of ranks")                                                       \
    X(NODE_MEM_BW, "model.node.memory_bandwidth", BW, "295800MB/s", "bytes/s",                     \
      "reference/bm-optimized3.36.md (STREAM Copy per node)",                                      \
      "memory bandwidth of one node as STREAM's Copy counts it (a copied byte read and written: "  \
      "the node copies half of it per second)")                                                    \
    X(SHM_MAX_SHORT, "model.shm.max_short", SIZE, "92b", "bytes",                                  \
      "reference/ucx-protocols.md (sysv eager short 0-92)", "largest eager-short message, shm")    \
    X(SHM_SEG_SIZE, "model.shm.seg_size", SIZE, "8248b", "bytes",                                  \
      "reference/ucx-protocols.md (sysv+xpmem bcopy single fragment 93-8248)",                     \
      "bcopy fragment size in shared memory")                                                      \
    X(CMA_SEG_SIZE, "model.cma.seg_size", SIZE, "512kb", "bytes",                                  \
      "reference/ucx-protocols.md, Constants", "cma/knem zero-copy fragment size")                 \
    /* ---- CPU ---------------------------------------------------------------------------- */    \
    X(CPU_SPEED_RATIO, "model.cpu.speed_ratio", DOUBLE, "1", "",                                   \
      "assumed: traced CPU = target CPU unless told",                                              \
      "traced CPU speed / target CPU speed; "                                                      \
      "compute bursts are scaled by it")                                                           \
    X(CPU_NPS2_RATIO, "model.cpu.nps2_compute_ratio", DOUBLE, "0.982", "",                         \
      "reference/bm-optimized3.36.md, NPS and OpenFOAM (Oracle: HPC_Motorbike, 36 ranks per "      \
      "node, NPS2 1.8 % shorter than NPS1)",                                                       \
      "compute bursts under NPS2 take this fraction of their NPS1 time (memory bandwidth "         \
      "per NUMA domain for a bandwidth-bound solver)")                                             \
    X(CPU_MEMORY_BOUND, "model.cpu.memory_bound", DOUBLE, "0.73", "",                              \
      "derived from reference/bm-optimized3.36.md (OpenFOAM on one node: 32 and 36 ranks about 3 " \
      "% "                                                                                         \
      "apart, taken as 36 faster; 12.5 % more cores would give 11 % if nothing were shared: "      \
      "1 - 0.03 / 0.111; believed 0.5-0.9); docs/what-if.md",                                      \
      "fraction of a compute burst's time bound by memory bandwidth on the platform as given: "    \
      "the what-ifs model.cpu.memory_bandwidth and model.cpu.clock scale that part and the rest "  \
      "respectively")                                                                              \
    X(CPU_MEMORY_BW, "model.cpu.memory_bandwidth", BW, "auto", "bytes/s",                          \
      "what-if (docs/what-if.md); auto = the platform's memory_bandwidth",                         \
      "memory bandwidth per socket to replay with (faster DIMMs, more channels): the "             \
      "memory-bound "                                                                              \
      "part of every burst (model.cpu.memory_bound) and the node's memory links scale by the "     \
      "platform's memory_bandwidth / it")                                                          \
    X(CPU_CLOCK, "model.cpu.clock", DOUBLE, "0", "GHz",                                            \
      "what-if (docs/what-if.md); 0 = the platform's core_clock",                                  \
      "core clock to replay with (another CPU generation or frequency): the part of every burst "  \
      "not bound by memory scales by the platform's core_clock / it")                              \
    X(CPU_BALANCE, "model.cpu.balance", DOUBLE, "0", "", "what-if (docs/what-if.md)",              \
      "load balance: every rank's compute moved this fraction of the way to the mean rank's "      \
      "(0 as traced, 1 perfectly balanced; the total kept): what a better decomposition gives")    \
    X(SCOREP_VISIT_OUTSIDE, "model.scorep.visit_outside", TIME, "0.067us", "s",                    \
      "Score-P's sources (SCOREP_Events.c: SCOREP_ExitRegion reads the clock before the "          \
      "profile's exit work, so that work and the wrapper's prologue count in the caller) and "     \
      "reference/simplefoam-motorbike-72.md (MPI_Test 0.13 us per visit inside its region: "       \
      "the profile's enter work plus the call, an upper bound for the exit side): half of it; "    \
      "the OpenFOAM calibration: 0.138 +- 0.020 us fitted to the runs asis and t0 (docs/fit.md)",  \
      "Score-P's own time per MPI or PTHREAD visit that a profile counts outside those regions "   \
      "(in the application's compute); removed from the profile's compute by --profile")           \
    X(CPU_REDUCE_BW, "model.cpu.reduce_bandwidth", BW, "5000MB/s", "bytes/s",                      \
      "assumed: one core combining two double arrays from cache; calibrated from the "             \
      "large-size points of microbench/osu_allreduce_4x36.txt in the calibration issue",           \
      "bytes per second a rank reduces (MPI_SUM on doubles) in reduction collectives")             \
    X(CPU_COPY_BW, "model.cpu.copy_bandwidth", BW, "47600MB/s", "bytes/s",                         \
      "measured: tunesim-ddt-bruck (calibration/probe/ddt_bruck.c) on this project's machine "     \
      "(AMD EPYC): a buffer of 36 or 72 blocks of 64-512 B copied whole with memcpy, the "         \
      "slowest rate of each run, 47,160-48,248 MB/s over 3 runs "                                  \
      "(platforms/calibrations/probe-localhost/ddt-bruck.txt, runs 4-6)",                          \
      "bytes per second of a rank's memcpy of data in its own cache: the bytes Open MPI's "        \
      "modified Bruck Alltoall copies within the rank (its two rotations of the whole buffer "     \
      "and each step's copy back; coll_base_alltoall.c)")                                          \
    /* ---- collectives: component selection (Open MPI MCA) ------------------------------- */     \
    X(MCA_COLL_HCOLL_PRIORITY, "coll_hcoll_priority", INT, "90", "",                               \
      "reference/openmpi-collectives.md, Components", "HCOLL's priority (highest wins)")           \
    X(MCA_COLL_UCC_PRIORITY, "coll_ucc_priority", INT, "100", "",                                  \
      "reference/openmpi-collectives.md, Components (Oracle sets 100; Open MPI's own is 10)",      \
      "UCC's priority when coll_ucc_enable=1")                                                     \
    X(MCA_COLL_HAN_PRIORITY, "coll_han_priority", INT, "0", "",                                    \
      "reference/openmpi-collectives.md, Components (4.1: 0 = off; 5.0: 35)",                      \
      "HAN's priority; 0 disables it (Open MPI 4.1), 35 is Open MPI 5.0's default")                \
    X(MCA_COLL_TUNED_PRIORITY, "coll_tuned_priority", INT, "30", "",                               \
      "reference/openmpi-collectives.md, Components", "tuned's priority")                          \
    X(MCA_COLL_TUNED_DYNAMIC, "coll_tuned_use_dynamic_rules", BOOL, "0", "", "Open MPI default",   \
      "let coll_tuned_<coll>_algorithm override the fixed decision rules")                         \
    X(MCA_COLL_TUNED_ALLREDUCE_ALG, "coll_tuned_allreduce_algorithm", INT, "0", "",                \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 basic_linear, 2 nonoverlapping, "                                          \
      "3 recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner")                            \
    X(MCA_COLL_TUNED_ALLREDUCE_SEG, "coll_tuned_allreduce_algorithm_segmentsize", SIZE, "0b",      \
      "bytes", "Open MPI default", "segment size of a forced segmented_ring (0: none)")            \
    X(MCA_COLL_TUNED_BCAST_ALG, "coll_tuned_bcast_algorithm", INT, "0", "",                        \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 basic_linear, 2 chain, "                                                   \
      "3 pipeline, 4 split_binary_tree, 5 binary_tree, 6 binomial, 7 knomial, "                    \
      "8 scatter_allgather, 9 scatter_allgather_ring")                                             \
    X(MCA_COLL_TUNED_BCAST_SEG, "coll_tuned_bcast_algorithm_segmentsize", SIZE, "0b", "bytes",     \
      "Open MPI default", "segment size of forced bcast trees (0: unsegmented)")                   \
    X(MCA_COLL_TUNED_REDUCE_ALG, "coll_tuned_reduce_algorithm", INT, "0", "",                      \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 linear, 2 chain, 3 pipeline, "                                             \
      "4 binary, 5 binomial, 6 in-order_binary, 7 rabenseifner")                                   \
    X(MCA_COLL_TUNED_REDUCE_SEG, "coll_tuned_reduce_algorithm_segmentsize", SIZE, "0b", "bytes",   \
      "Open MPI default", "segment size of forced reduce trees (0: unsegmented)")                  \
    X(MCA_COLL_TUNED_ALLGATHER_ALG, "coll_tuned_allgather_algorithm", INT, "0", "",                \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 linear, 2 bruck, "                                                         \
      "3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc")                                      \
    X(MCA_COLL_TUNED_ALLGATHERV_ALG, "coll_tuned_allgatherv_algorithm", INT, "0", "",              \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 default (gatherv + bcast), "                                               \
      "2 bruck, 3 ring, 4 neighbor, 5 two_proc")                                                   \
    X(MCA_COLL_TUNED_ALLTOALL_ALG, "coll_tuned_alltoall_algorithm", INT, "0", "",                  \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 linear, 2 pairwise, "                                                      \
      "3 modified_bruck, 4 linear_sync, 5 two_proc")                                               \
    X(MCA_COLL_TUNED_ALLTOALLV_ALG, "coll_tuned_alltoallv_algorithm", INT, "0", "",                \
      "Open MPI default (0 = fixed rules)", "0 fixed rules, 1 basic_linear, 2 pairwise")           \
    X(MCA_COLL_TUNED_BARRIER_ALG, "coll_tuned_barrier_algorithm", INT, "0", "",                    \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 linear, 2 double_ring, "                                                   \
      "3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree")                                         \
    X(MCA_COLL_TUNED_GATHER_ALG, "coll_tuned_gather_algorithm", INT, "0", "",                      \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 basic_linear, 2 binomial, "                                                \
      "3 linear_sync")                                                                             \
    X(MCA_COLL_TUNED_SCATTER_ALG, "coll_tuned_scatter_algorithm", INT, "0", "",                    \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 basic_linear, 2 binomial, "                                                \
      "3 linear_nb")                                                                               \
    X(MCA_COLL_TUNED_REDUCE_SCATTER_ALG, "coll_tuned_reduce_scatter_algorithm", INT, "0", "",      \
      "Open MPI default (0 = fixed rules)",                                                        \
      "0 fixed rules, 1 non-overlapping, "                                                         \
      "2 recursive_halving, 3 ring, 4 butterfly")                                                  \
    /* ---- collectives: model constants --------------------------------------------------- */    \
    X(COLL_DATATYPE_SIZE, "model.coll.datatype_size", INT, "8", "bytes",                           \
      "assumed: OpenFOAM reduces doubles; traces record bytes, not datatypes",                     \
      "element size behind Open MPI's count-based fallbacks (ring with count < ranks)")            \
    X(COLL_CHAIN_FANOUT, "model.coll.chain_fanout", INT, "4", "chains",                            \
      "Open MPI coll_tuned default chain fanout", "chains of the chain bcast / reduce")            \
    X(COLL_KNOMIAL_RADIX, "model.coll.knomial_radix", INT, "4", "",                                \
      "Open MPI coll_tuned default knomial radix", "radix of the tuned knomial bcast tree")        \
    X(COLL_BRUCK_STEP, "model.coll.bruck_step", TIME, "0.21us", "s",                               \
      "measured: tunesim-ddt-bruck (calibration/probe/ddt_bruck.c) on this project's machine, "    \
      "Open MPI 4.1.4, platforms/calibrations/probe-localhost/ddt-bruck.txt (0.20-0.22 us over "   \
      "runs 1-3; an indexed MPI datatype built, committed, sent to self, packed and freed, "       \
      "against the same bytes contiguous)",                                                        \
      "CPU of a step of Open MPI's modified Bruck Alltoall beside its messages: the step's "       \
      "datatype built, committed and freed, its blocks packed and copied back through it "         \
      "(coll_base_alltoall.c, ompi_coll_base_alltoall_intra_bruck)")                               \
    X(COLL_BRUCK_BLOCK, "model.coll.bruck_block", TIME, "6.9ns", "s",                              \
      "measured: tunesim-ddt-bruck, the same fit (6.5-7.3 ns over runs 1-3; "                      \
      "probe-localhost/ddt-bruck.txt); the final rotation's copies are charged the same, not "     \
      "timed on their own",                                                                        \
      "CPU per block of a step of Open MPI's modified Bruck Alltoall, and per block of its "       \
      "final rotation (ompi_datatype_copy_content_same_ddt a block)")                              \
    X(HCOLL_GROUP, "model.hcoll.group", ENUM, "socket", "",                                        \
      "reference/openmpi-collectives.md, HCOLL (subgroup basesmsocket)",                           \
      "first shared-memory level of HCOLL's hierarchy {socket|numa}")                              \
    X(HCOLL_SM_RADIX, "model.hcoll.sm_radix", INT, "4", "",                                        \
      "assumed: HCOLL is closed source; calibrated from microbench/osu_allreduce_4x36.txt",        \
      "radix of HCOLL's shared-memory fan-in / fan-out trees")                                     \
    X(HCOLL_SM_LEVELS, "model.hcoll.sm_levels", ENUM, "shared", "",                                \
      "reference/oracle-imb-bm-optimized3.36.md (HCOLL faster than no component for Allreduce "    \
      "over the whole range on 2 x 36, the reference shape, and at 4 KB and below on 1 x 36: "     \
      "shared agrees, pml does not) against microbench/osu_allreduce_4x36.txt (HCOLL, 4-64 B: "    \
      "11.5-12.1 us in 10 iterations; pml 10.6-10.8 us, shared 4.7 us); docs/imb-models.md",       \
      "how HCOLL's levels inside a node are priced {pml|shared}: pml, as UCX shared-memory "       \
      "messages; shared, as flag handoffs in a shared segment (model.hcoll.sm_latency)")           \
    X(HCOLL_SM_LATENCY, "model.hcoll.sm_latency", TIME, "0.15us", "s",                             \
      "assumed: HCOLL's shared-memory levels (its basesmuma component) signal through flags in "   \
      "a segment the node's ranks share: one cache-line handoff between cores (about 0.1 us "      \
      "within a socket) and the poll that sees it; no UCX request, no MPI message",                \
      "with model.hcoll.sm_levels=shared, one step of HCOLL's fan-in / fan-out inside a node: a "  \
      "rank writes its data and a flag, its peer polls the flag and reads the data "               \
      "(cross-socket and cross-NUMA pairs add model.shm's extra latency)")                         \
    X(HCOLL_SM_BUFFERS, "model.hcoll.sm_buffers", ENUM, "payload", "",                             \
      "github.com/open-mpi/ompi, ompi/mca/coll/ml (HCOLL's Open MPI ancestor): "                   \
      "coll_ml_allgather.c and coll_ml_allreduce.c put a rank's data into its payload buffer "     \
      "once and run every shared-memory level on those buffers (bcol/basesmuma reads a peer's "    \
      "buffer in place); docs/imb-models.md",                                                      \
      "with model.hcoll.sm_levels=shared, where the data of HCOLL's shared-memory steps lies "     \
      "{payload|copy}: payload, in the ranks' shared payload buffers: a rank copies its own data " \
      "in once, a fan-out's receiver reads from its parent's buffer, a fan-in's parent reduces "   \
      "its children's data in place; copy, every step copied in by the sender and out by the "     \
      "receiver")                                                                                  \
    X(HCOLL_SM_FRAGMENT, "model.hcoll.sm_fragment", SIZE, "4kb", "bytes",                          \
      "github.com/open-mpi/ompi, ompi/mca/coll/ml: coll_ml_mca.c (payload buffers of 4 KB, a "     \
      "large message fragmented through them, 2 in flight); docs/imb-models.md",                   \
      "with model.hcoll.sm_levels=shared, the fragment HCOLL's shared-memory fan-out pipelines "   \
      "a vector in, so that the tree's levels overlap; inf: each step waits for the whole vector") \
    X(HCOLL_SM_FRAGMENTS_MAX, "model.hcoll.sm_fragments_max", INT, "16", "",                       \
      "the replay's resolution, not HCOLL's: replaying every 4 KB fragment of a 16 MB Allgather "  \
      "would take some 300,000 steps a rank; with 16 pieces the pipeline's fill costs a tree of "  \
      "depth d about d/16 of one copy of the vector more than 4 KB fragments would",               \
      "most pieces a shared-memory fan-out is replayed in; larger vectors use larger pieces "      \
      "than model.hcoll.sm_fragment")                                                              \
    X(HCOLL_NET_BUFFERS, "model.hcoll.net_buffers", ENUM, "registered", "",                        \
      "github.com/open-mpi/ompi, ompi/mca/coll/ml (HCOLL's Open MPI ancestor, ORNL and "           \
      "Mellanox): "                                                                                \
      "coll_ml_allgather.c packs the data into ML payload buffers, which coll_ml_lmngr.c "         \
      "registers once (coll_ml_mca.c: 2 banks of 16 buffers of 4 KB, larger messages "             \
      "fragmented through them); reference/oracle-imb-bm-optimized3.36.md, 2 x 36 Allgather: "     \
      "UCX_ZCOPY_THRESH makes no significant difference under -off_cache; docs/imb-models.md",     \
      "the buffers of HCOLL's exchange among node leaders {registered|user}: registered, its "     \
      "own payload buffers, registered once (no registration per message, as a registration-"      \
      "cache hit); user, the MPI buffers, registered as MPI's own sends are (model.net.rcache); "  \
      "not its large-data Allreduce (model.hcoll.allreduce_large), which works on them")           \
    X(HCOLL_NET_RADIX, "model.hcoll.net_radix", INT, "2", "",                                      \
      "reference/openmpi-collectives.md, HCOLL (recursive doubling or k-nomial among leaders)",    \
      "radix of the exchange among node leaders (2 = recursive doubling)")                         \
    X(HCOLL_ALLREDUCE_LARGE, "model.hcoll.allreduce_large", SIZE, "64kb", "bytes",                 \
      "calibrated on reference/oracle-imb-bm-optimized3.36.md, 1 x 36 Allreduce: HCOLL faster "    \
      "than no component at 4 KB and below and from 64 KB, not between, so its switch lies in "    \
      "32-64 KB; that HCOLL has a large-data allreduce of its own: NVIDIA HPC-X docs, HCOLL "      \
      "(HCOLL_ALLREDUCE_ZCOPY_TUNE); docs/imb-models.md",                                          \
      "HCOLL's Allreduce from this size: its large-data algorithm, a k-nomial scatter-reduce-"     \
      "allgather over UCX inside each node with each block combined across the nodes "             \
      "(model.hcoll.sra_radix), instead of the shared-memory fan-in / fan-out; inf: never")        \
    X(HCOLL_ALLTOALL, "model.hcoll.alltoall", ENUM, "bruck", "",                                   \
      "calibrated on reference/oracle-imb-bm-optimized3.36.md: HCOLL faster than no component at " \
      "512 B and below on 1 x 36 and 2 x 36, which 35 or 71 rounds of pairwise cannot be against " \
      "tuned's Bruck (HCOLL's own selection is not published); microbench/osu_alltoall_1x36.txt "  \
      "(HCOLL on) supports tuned at 4-32 KB too, which the study's replay time rules out as the "  \
      "default; docs/imb-models.md",                                                               \
      "HCOLL's Alltoall {pairwise|bruck|tuned}: pairwise over UCX at every size; bruck, tuned's "  \
      "modified Bruck where tuned's fixed rules pick it (small blocks), pairwise above; tuned, "   \
      "tuned's fixed decision (Bruck, linear) below model.hcoll.alltoall_pairwise, pairwise from " \
      "there (every step posted at once replays many times slower on 2+ nodes)")                   \
    X(HCOLL_ALLTOALL_PAIRWISE, "model.hcoll.alltoall_pairwise", SIZE, "256kb", "bytes",            \
      "calibrated on reference/oracle-imb-bm-optimized3.36.md, 1 x 36 Alltoall: HCOLL slower "     \
      "than no component from 256 KB, which tuned's own linear exchange cannot be; "               \
      "docs/imb-models.md",                                                                        \
      "with model.hcoll.alltoall=tuned, HCOLL's Alltoall runs pairwise from this size a peer "     \
      "(inf: never)")                                                                              \
    X(HCOLL_SRA_RADIX, "model.hcoll.sra_radix", INT, "0", "",                                      \
      "NVIDIA HPC-X docs, HCOLL: HCOLL_ALLREDUCE_ZCOPY_TUNE=dynamic (the default) tunes the "      \
      "large-data allreduce's radix at run time; auto stands in for that tuner (36 ranks a "       \
      "node: 6)",                                                                                  \
      "radix of HCOLL's large-data Allreduce inside a node; 0 (auto): of 2-8, the one leaving "    \
      "the fewest ranks outside its core (k^d ranks), then the fewest rounds")                     \
    X(HAN_SEGMENT, "model.han.segment", SIZE, "64kb", "bytes",                                     \
      "reference/openmpi-collectives.md, Components (han segment 64 KiB); Open MPI 5.0.8 "         \
      "coll_han_component.c (allreduce_segsize and bcast_segsize 65536)",                          \
      "HAN's pipeline segment: its Allreduce's four stages and its leaders' broadcast (inf or 0: " \
      "unsegmented)")                                                                              \
    X(NET_FLOWLESS_BYTES, "model.net.flowless_bytes", SIZE, "256b", "bytes",                       \
      "assumed: 256 B is under 25 ns of any link here, against microseconds of latency",           \
      "eager messages up to this size arrive latency + size/bandwidth after they leave, "          \
      "without a network flow (they cannot measurably contend; collectives replay ~3x faster; "    \
      "inf: every eager message)")                                                                 \
    X(UCC_RADIX, "model.ucc.radix", INT, "4", "",                                                  \
      "UCC v1.3.0-v1.4.4 sources: cl/basic with tl/ucp serves a host allreduce (no tl/shm), "      \
      "knomial below 4 KiB, UCC_TL_UCP_ALLREDUCE_KN_RADIX=auto resolves to 4 "                     \
      "(tl_ucp_coll.h UCC_UUNITS_AUTO_RADIX); no published timing",                                \
      "radix of UCC's knomial allreduce and of the knomial reduce")                                \
    X(UCC_BARRIER_RADIX, "model.ucc.barrier_radix", INT, "8", "",                                  \
      "UCC v1.4.4 and v1.5.0 sources: tl_ucp.c UCC_TL_UCP_BARRIER_KN_RADIX=8 (v1.3.0 had 4); "     \
      "barrier/barrier_knomial.c runs the recursive k-nomial pattern at min(radix, team size)",    \
      "radix of UCC's recursive k-nomial barrier")                                                 \
    X(UCC_SRA_RADIX, "model.ucc.sra_radix", INT, "0", "",                                          \
      "UCC v1.5.0 sources: tl/ucp's allreduce runs sra_knomial from 4 KiB (allreduce.h "           \
      "allreduce:4k-inf:@1) at UCC_TL_UCP_ALLREDUCE_SRA_KN_RADIX=auto, the team's host radix "     \
      "(tl_ucp_team.c, ranks bound to sockets; recursive_knomial.h ucc_kn_get_opt_radix)",         \
      "radix of UCC's scatter-reduce-allgather allreduce; 0 (auto): of 2 .. the smallest "         \
      "socket's rank count, the first leaving no rank outside its k-nomial core, else the one "    \
      "leaving the fewest (6 on 36 and on 72 ranks)")                                              \
    X(UCC_AG_RADIX, "model.ucc.allgather_radix", INT, "0", "",                                     \
      "UCC v1.5.0 sources: tl/ucp's allgather runs knomial below 4 KiB (allgather.h "              \
      "allgather:0-4k:@0) at UCC_TL_UCP_ALLGATHER_KN_RADIX=auto, the team's host radix "           \
      "(allgather_knomial.c ucc_tl_ucp_get_knomial_radix; tl_ucp_team.c, as the sra's)",           \
      "radix of UCC's k-nomial allgather (below 4 KiB in all); 0 (auto): the team's host "         \
      "radix, as model.ucc.sra_radix's auto (6 on 36 and on 72 ranks)")                            \
    X(UCC_ALLTOALL_POSTS, "model.ucc.alltoall_posts", INT, "0", "messages",                        \
      "UCC v1.5.0 sources: UCC_TL_UCP_ALLTOALL_PAIRWISE_NUM_POSTS=auto (tl_ucp.c); "               \
      "alltoall_pairwise.c get_num_posts: one at a time where the whole send buffer exceeds "      \
      "66,000 B on a team of more than 32 ranks, else all at once",                                \
      "sends and receives UCC's pairwise Alltoall keeps posted each (its "                         \
      "UCC_TL_UCP_ALLTOALL_PAIRWISE_NUM_POSTS); 0 (auto): UCC's rule; 1: pairwise; the team's "    \
      "size or more: all at once")                                                                 \
    X(UCC_ALLTOALLV_POSTS, "model.ucc.alltoallv_posts", INT, "0", "messages",                      \
      "UCC v1.5.0 sources: UCC_TL_UCP_ALLTOALLV_PAIRWISE_NUM_POSTS=auto (tl_ucp.c); "              \
      "alltoallv_pairwise.c get_num_posts: all at once on a team of up to 32 ranks, else one at "  \
      "a "                                                                                         \
      "time",                                                                                      \
      "model.ucc.alltoall_posts for UCC's Alltoallv (its "                                         \
      "UCC_TL_UCP_ALLTOALLV_PAIRWISE_NUM_POSTS); 0 (auto): UCC's rule")                            \
    X(UCC_BLOCK_COPY, "model.ucc.block_copy", TIME, "3.4ns", "s",                                  \
      "measured: tunesim-ddt-bruck, a block of 1-64 B copied through a function pointer "          \
      "(3.1-3.7 ns over runs 1-3; probe-localhost/ddt-bruck.txt)",                                 \
      "CPU of one block copy of UCC's Bruck Alltoall: each block it sends, into its merge "        \
      "buffer, and each of its backward rotation (tl/ucp alltoall_bruck.c, ucc_mc_memcpy)")

#endif
