/* params_prior.h - the parameters of params_table.h that tunesim holds no firm figure for, with
 * the range their true value is believed to lie in and why: what `tunesim fit` may move (a
 * penalised least-squares fit keeps each near its value unless measured runs say otherwise),
 * what `tunesim params NAME` shows as "uncertain", and what the reference prediction moves for
 * its interval. One P(id, low, high, why) per uncertain TS_P_* id; low and high in the
 * parameter's base unit (seconds, bytes/s, plain number). The prior is centred on the
 * parameter's value (its default, or a model file's) with a standard deviation of a quarter of
 * the range, so that the range spans about two standard deviations either side. A fitted
 * value outside the range means the mechanism behind the parameter is not what the model
 * says: `tunesim fit` says so. */
#ifndef TS_PARAMS_PRIOR_H
#define TS_PARAMS_PRIOR_H

#define TS_PARAM_PRIORS(P)                                                                         \
    P(UCX_SEND_CALL, 0.03e-6, 0.24e-6,                                                             \
      "the spread of the 18 tunesim-probe --percall values behind the median (0.03-0.24 us), "     \
      "measured on this project's machine, not on a Xeon 6354")                                    \
    P(UCX_RECV_CALL, 0.16e-6, 0.41e-6,                                                             \
      "the spread of the 18 tunesim-probe --percall values (0.16-0.41 us), this project's "        \
      "machine")                                                                                   \
    P(UCX_RNDV_OVERHEAD, 0.3e-6, 2.0e-6,                                                           \
      "measured 0.745 +- 0.038 us with UCX 1.13 in a VM; the cluster runs UCX 1.17-1.19 (new "     \
      "protocol selection, more per-request work): assumed up to 2 us")                            \
    P(UCX_RNDV_BUSY_COST, 0, 2.0e-6, "none to a second handshake's software: nothing measures it") \
    P(SHM_LATENCY, 0.1e-6, 0.5e-6,                                                                 \
      "assumed: no on-host ping-pong was published for this node "                                 \
      "(reference/bm-optimized3.36.md); "                                                          \
      "from one cache-line handoff between cores of a socket (about 0.1 us) to two with UCX's "    \
      "FIFO bookkeeping")                                                                          \
    P(NET_REG_COST, 2e-6, 20e-6,                                                                   \
      "UCX's own 16 us (UCX_IB_MEM_REG_OVERHEAD, marked in UCX as to be taken from the device); "  \
      "an mlx5 registration served from the driver's cache of memory keys is a few us")            \
    P(SCOREP_VISIT_OUTSIDE, 0.0, 0.13e-6,                                                          \
      "none to MPI_Test's whole 0.13 us per visit (reference/simplefoam-motorbike-72.md)")         \
    P(HCOLL_SM_LATENCY, 0.05e-6, 0.5e-6,                                                           \
      "assumed: a cache-line handoff within a socket (0.05-0.1 us) up to the cost of a UCX "       \
      "shared-memory message it replaces (0.5 us)")                                                \
    P(DC_EXTRA_LATENCY, 0.03e-6, 0.5e-6,                                                           \
      "UCX's own 60 ns estimate (dc_mlx5.c); no dc / rc ping-pong was published for this node: "   \
      "from half that to a full handshake's extra wire turn and a second completion poll")         \
    P(CPU_NPS2_RATIO, 0.95, 1.0,                                                                   \
      "Oracle's 1.8 % shorter NPS2 run (reference/bm-optimized3.36.md) measured at 36 ranks a "    \
      "node on one case; none (1) to three times that")

#endif
