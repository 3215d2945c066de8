/* placement.h - where each MPI rank runs: node, socket, NUMA domain, core and leaf switch, as
 * mpirun would place the trace's ranks on a platform, and the locality of any two ranks,
 * which the models use to pick a transport and its latency. Plain C, no SimGrid.
 *
 * Ranks go to nodes in blocks of ppn (rank r on node r / ppn, as `mpirun -N ppn` does). Inside
 * a node, with U = sockets x NPS NUMA domains of cores_per_socket / NPS cores each:
 *   block:  local rank i on core i: the ranks fill NUMA domain 0, then 1, ... (Open MPI
 *           ppr:18:package, or ppr:9:numa under NPS2, with --rank-by fill); a full node fills
 *           socket 0, then socket 1, and a half-full node stays on socket 0.
 *   cyclic: local rank i goes to NUMA domain i % U, on its (i / U)-th core: ranks alternate
 *           between NUMA domains.
 * (reference/bm-optimized3.36.md, "Placement vocabulary".) */
#ifndef TS_PLACEMENT_H
#define TS_PLACEMENT_H

#include "../common/status.h"
#include "../models/locality.h" /* ts_locality: SELF ... CROSS_SPINE, shared with the models */
#include "platform.h"

/* block: consecutive ranks fill a node's cores in order; cyclic: they alternate over its NUMA
 * domains; node: they go round-robin over the nodes (Open MPI's --map-by node), rank r on
 * node r % nodes, each node's ranks then filling its cores in order. */
typedef enum ts_map_by { TS_MAP_BLOCK = 0, TS_MAP_CYCLIC, TS_MAP_NODE } ts_map_by;

/* "block" / "cyclic". */
const char *ts_map_by_name(ts_map_by m);
/* Parse "block" or "cyclic", or an Open MPI --map-by value: core, slot, hwthread and
 * ppr:N:package|socket|numa|node fill cores in order (block); numa deals ranks round-robin over
 * the NUMA domains (cyclic). Of the modifiers after ':', PE=n (cores per rank, 1 to 999999)
 * is read by ts_map_by_layout, a malformed one refused; others are ignored. Open MPI's package /
 * socket round-robin is refused: it alternates sockets, not NUMA domains, and differs from
 * cyclic under NPS2. A one-line error otherwise. */
ts_status ts_map_by_parse(const char *text, ts_map_by *out, ts_error_t *err);

/* How to place. A zeroed struct asks for every default. */
typedef struct ts_placement_opts_s {
    int nodes;          /* nodes used; 0: the platform's default */
    int ppn;            /* ranks per node; 0: ranks / nodes, rounded up */
    int nps;            /* NUMA domains per socket; 0: the platform's default */
    ts_map_by map_by;   /* block (default) or cyclic */
    int nodes_per_leaf; /* nodes under one leaf switch: pass model.net.nodes_per_leaf
                           (ts_params_int); 0: every node under one leaf */
    int ppr_n, ppr_obj; /* map-by ppr:N:OBJ (ts_map_by_layout): N ranks per object; 0: none */
    int pe;             /* map-by modifier PE=n (ts_map_by_layout): cores per rank; 0: 1 */
} ts_placement_opts_t;

/* Everything an Open MPI --map-by value says: its policy into o->map_by (ts_map_by_parse,
 * whose one-line error it returns, o then unchanged), and beyond it: ppr:N:OBJ sets
 * o->ppr_n = N and o->ppr_obj (its object: a node, a socket
 * or package, a NUMA domain), so that the placement puts N ranks on each (its ranks per node
 * follow, and a --ppn that says otherwise is refused). PE=n sets o->pe: each rank takes n
 * consecutive cores, so ranks are n cores apart (core:PE=2 puts 18 ranks on both sockets of
 * a 36-core node, not on the first), and n x the ranks must fit on their objects' cores.
 * What the text lacks is cleared. */
ts_status ts_map_by_layout(const char *text, ts_placement_opts_t *o, ts_error_t *err);

/* Where one rank runs. numa counts the node's domains 0..sockets*nps-1 (socket s holds
 * s*nps..s*nps+nps-1); core counts the node's cores 0..cores_per_node-1. */
typedef struct ts_rank_place_s {
    int node, socket, numa, core, leaf;
} ts_rank_place_t;

typedef struct ts_placement_s ts_placement_t;

/* Place nranks ranks on pf. On success *out is owned by the caller (ts_placement_close) and
 * keeps no pointer to pf or opts. On failure *out is NULL and err says, in one line, why:
 * more ranks than nodes x ppn, more ranks per node than cores, an NPS the platform does not
 * offer, more than one node on a platform without network, bad counts. */
ts_status ts_placement_open(const ts_platform_t *pf, const ts_placement_opts_t *opts, int nranks,
                            ts_placement_t **out, ts_error_t *err);
/* Free a placement. Safe on NULL. */
void ts_placement_close(ts_placement_t *pl);

/* The settings actually used (defaults resolved). */
int ts_placement_nranks(const ts_placement_t *pl);
int ts_placement_nodes(const ts_placement_t *pl);
/* Nodes that hold at least one rank: 0 .. nodes_used - 1, since ranks fill nodes in order. At
 * most ts_placement_nodes; fewer when the trace has fewer ranks than nodes x ppn. */
int ts_placement_nodes_used(const ts_placement_t *pl);
int ts_placement_ppn(const ts_placement_t *pl);
/* Cores each rank takes (map-by PE=n), 1 without it. */
int ts_placement_pe(const ts_placement_t *pl);
/* The mapping as reports name it: "block", "cyclic", "node" or "ppr:N:OBJ", with " PE=n"
 * where each rank takes n cores; the text lives in buf (n bytes, 32 are enough), which is
 * returned. */
const char *ts_placement_map_text(const ts_placement_t *pl, char *buf, size_t n);
int ts_placement_nps(const ts_placement_t *pl);
ts_map_by ts_placement_map_by(const ts_placement_t *pl);
int ts_placement_nodes_per_leaf(const ts_placement_t *pl); /* resolved: >= 1 */
int ts_placement_leaves(const ts_placement_t *pl);         /* leaf switches used */
/* The platform's shape, copied so that a placement stands alone. */
int ts_placement_sockets(const ts_placement_t *pl);
int ts_placement_cores_per_socket(const ts_placement_t *pl);

/* Where rank runs (0 <= rank < nranks); the pointer lives until ts_placement_close. */
const ts_rank_place_t *ts_placement_rank(const ts_placement_t *pl, int rank);
/* The SimGrid host of rank ("n1c17"); lives until ts_placement_close. */
const char *ts_placement_host(const ts_placement_t *pl, int rank);
/* Locality of ranks a and b (both valid ranks). */
ts_locality ts_placement_locality(const ts_placement_t *pl, int a, int b);

#endif
