/* xml.h - the generator of SimGrid 3.32 platform files (DTD 4.1) from a platform, a placement
 * and a parameter set. The engine (sim/) loads the result with simgrid_load_platform; this
 * module only writes text and never calls SimGrid.
 *
 * What the file holds (the reasons are at the top of xml.c):
 *   hosts    one per core of every node that holds a rank, "n<node>c<core>", speed =
 *            core_speed, so each rank's actor has a CPU of its own;
 *   links    n<N>c<C>_copy  SPLITDUPLEX, model.shm.bandwidth: one core's copy rate, UP out of
 *                           its memory, DOWN into it;
 *            n<N>_mem       SHARED, model.node.memory_bandwidth: every copy on the node;
 *            n<N>_upi<A>-<B> SPLITDUPLEX, upi_bandwidth: socket A to socket B (UP) and back;
 *            n<N>_nic       SPLITDUPLEX, model.net.bandwidth: the RDMA adapter, UP = sending;
 *            leaf<L>        FATPIPE, model.net.bandwidth: a non-blocking leaf switch;
 *            leaf<L>_up     SPLITDUPLEX, nodes_per_leaf x model.net.bandwidth: its uplinks;
 *            spine          FATPIPE, model.net.bandwidth;
 *   routes   core a to core b of one node (a = b too): a_copy UP, mem, [upi], b_copy DOWN;
 *            to another node: [upi to the NIC's socket], nic UP, leaf, [leaf_up UP, spine,
 *            leaf_up DOWN, leaf], nic DOWN, [upi];
 *   latency  0 on every link: the models charge latencies per locality.
 * The same inputs always give the same bytes. */
#ifndef TS_XML_H
#define TS_XML_H

#include <stdio.h>

#include "../common/status.h"
#include "../params/params.h"
#include "placement.h"
#include "platform.h"

/* Write the platform of pl's nodes to path, atomically (common/outfile.h): a failed write
 * leaves no file. pl must come from pf. Bandwidths come from params (model.net.bandwidth,
 * model.shm.bandwidth, model.node.memory_bandwidth); one that is `auto` or not positive is an
 * error naming it. Nothing is kept after the call. */
ts_status ts_xml_write(const char *path, const ts_platform_t *pf, const ts_placement_t *pl,
                       const ts_params_t *params, ts_error_t *err);

/* TS_EARG naming the platform when pl's nodes hold more routes than SimGrid loads in
 * reasonable time and memory (the square of the cores a node; xml.c); ts_xml_write checks
 * it too. For refusing a job before anything runs. */
ts_status ts_xml_check_size(const ts_platform_t *pf, const ts_placement_t *pl, ts_error_t *err);

/* The same onto an open stream (not atomic; for printing). name labels errors. */
ts_status ts_xml_write_stream(FILE *fp, const char *name, const ts_platform_t *pf,
                              const ts_placement_t *pl, const ts_params_t *params, ts_error_t *err);

#endif
