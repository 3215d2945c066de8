/* coll_impl.h - private to the collective model: what coll.c (selection), coll_blocks.c,
 * coll_recursive.c and coll_families.c (the schedule building blocks: point-to-point rounds,
 * trees, recursive doubling, k-nomial, rings, the allgather / alltoall / barrier families),
 * coll_flat.c (Open MPI's flat algorithms, one builder each) and coll_hier.c (HCOLL's and
 * HAN's hierarchical components) share. Every algorithm is written once for a group view, so
 * the hierarchical components reuse the flat ones on their sub-groups. */
#ifndef TS_COLL_IMPL_H
#define TS_COLL_IMPL_H

#include <stdint.h>

#include "coll.h"
#include "../traces/events.h"

struct ts_coll_model_s {
    int enabled[TS_CCOMP__COUNT];
    int64_t prio[TS_CCOMP__COUNT];
    int dynamic;
    int forced[TS_COLL__COUNT];       /* Open MPI's number, 0 = fixed rules */
    uint64_t segsize[TS_COLL__COUNT]; /* for forced algorithms */
    uint64_t elem;
    int32_t chain_fanout, knomial_radix, sm_radix, net_radix, ucc_radix, ucc_barrier_radix;
    int hcoll_by_numa;
    int hcoll_shared;  /* model.hcoll.sm_levels=shared: the levels inside a node as flags */
    int hcoll_net_reg; /* model.hcoll.net_buffers=registered: the leaders' buffers registered */
    int hcoll_payload; /* model.hcoll.sm_buffers=payload: data read and reduced in place */
    uint64_t hcoll_sm_frag;  /* model.hcoll.sm_fragment, 0: unpipelined */
    int32_t hcoll_sm_pieces; /* model.hcoll.sm_fragments_max */
    uint64_t han_segment;
    uint64_t hcoll_large;        /* model.hcoll.allreduce_large, UINT64_MAX: never */
    int hcoll_a2a;               /* model.hcoll.alltoall: HCOLL_A2A_* */
    uint64_t hcoll_a2a_pairwise; /* model.hcoll.alltoall_pairwise, UINT64_MAX: never */
    int32_t hcoll_sra_radix, ucc_sra_radix, ucc_ag_radix; /* 0: auto */
    int32_t ucc_a2a_posts, ucc_a2av_posts;                /* model.ucc.alltoall[v]_posts, 0: auto */
    double reduce_bw;
    double bruck_step, bruck_block; /* model.coll.bruck_step / _block: Open MPI's Bruck CPU */
    double copy_bw;                 /* model.cpu.copy_bandwidth: a memcpy in the rank's cache */
    double ucc_block_copy;          /* model.ucc.block_copy: UCC's Bruck, a block's copy */
};

enum { HCOLL_A2A_PAIRWISE, HCOLL_A2A_BRUCK, HCOLL_A2A_TUNED };

/* A group of communicator ranks and the caller's index in it (m == NULL: ranks 0..n-1). */
typedef struct gview_s {
    const int32_t *m;
    int32_t n, me;
} gview_t;

typedef struct build_s {
    const ts_coll_model_t *model;
    ts_csched_t *s;
    int oom;
    int shared;     /* how the steps being built move HCOLL's shared memory (TS_SM_*) */
    int registered; /* their buffers are registered already (ts_cstep_t.registered) */
    int comp;       /* the component whose implementation runs (ts_coll_comp) */
} build_t;

/* TREE_BINOMIAL: a vrank's parent clears its lowest set bit (Open MPI's in-order binomial
 * tree, its reduce's, gather's and scatter's); TREE_BMTREE: its highest (Open MPI's binomial
 * tree, its bcast's, and libnbc's). */
enum { TREE_STAR, TREE_CHAIN, TREE_BINARY, TREE_BINOMIAL, TREE_BMTREE, TREE_KNOMIAL };

typedef struct tree_s {
    int32_t parent; /* vrank, -1 at the root */
    int32_t nchild;
    int32_t child[64]; /* vranks, largest subtree first */
} tree_t;

/* What ts__cs_rabenseifner completes: the allreduce, a reduce to its root, or a reduce-scatter. */
enum { RAB_ALLREDUCE, RAB_REDUCE, RAB_REDUCE_SCATTER };

/* tuned's algorithm number i of op (Open MPI's numbering), as its fixed rules name them. */
ts_coll_alg ts__coll_tuned_alg(int op, int i);

/* Building blocks: rounds and trees (coll_blocks.c). */
int32_t ts__cs_comm_rank(const gview_t *g, int32_t i);
void ts__cs_send_to(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes);
void ts__cs_recv_from(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes);
/* A receive from member idx posted in the current round, waited for at the end of the next. */
void ts__cs_recv_next(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes);
void ts__cs_end_round(build_t *b, uint64_t reduce);
void ts__cs_cpu(build_t *b, double seconds);
int32_t ts__cs_pow2_floor(int32_t n);
uint64_t ts__cs_block_bytes(uint64_t total, uint64_t elem, int32_t k, int32_t i);
void ts__cs_tree_node(int kind, int32_t n, int32_t v, int32_t fan, tree_t *t);
int32_t ts__cs_real_of(const gview_t *g, int32_t root, int32_t v);
uint64_t ts__cs_seg_bytes(uint64_t total, uint64_t seg, int32_t nseg, int32_t s);
int32_t ts__cs_nsegs(uint64_t total, uint64_t seg);
void ts__cs_tree_bcast(build_t *b, const gview_t *g, int kind, int32_t fan, int32_t root,
                       uint64_t bytes, uint64_t seg);
/* The pipelined broadcast of ts__cs_tree_bcast down an explicit tree: the caller's parent
 * (communicator rank, -1 at the root) and its children (communicator ranks, in sending order). */
void ts__cs_pipe_bcast(build_t *b, int32_t parent, const int32_t *child, int32_t nchild,
                       uint64_t bytes, uint64_t seg);
void ts__cs_tree_reduce(build_t *b, const gview_t *g, int kind, int32_t fan, int32_t root,
                        uint64_t bytes, uint64_t seg);
void ts__cs_tree_gather(build_t *b, const gview_t *g, int kind, int32_t root, uint64_t block,
                        int scatter);
void ts__cs_linear_gather(build_t *b, const gview_t *g, int32_t root, uint64_t block, int scatter,
                          int all_at_once);
/* How a round that combines r - 1 received vectors with the rank's own is charged: not at all;
 * pairwise, r - 1 passes of two operands (Open MPI's ompi_op_reduce; HCOLL's, not published,
 * taken as the same); fused, one pass over all r sources (UCC's CPU executor,
 * src/components/ec/cpu/ec_cpu_reduce.c, ucc_dt_reduce_multi / _strided), whose r reads and one
 * write an element are (r + 1) / 3 of a two-operand pass's three (model.cpu.reduce_bandwidth
 * prices a two-operand pass). */
enum { TS_RED_NONE = 0, TS_RED_PAIRWISE = 1, TS_RED_FUSED = 2 };
/* The bytes a round reducing r sources of `bytes` each is charged as (ts__cs_end_round). */
uint64_t ts__cs_red_bytes(int mode, int32_t r, uint64_t bytes);
/* Recursive doubling, k-nomial, rings and Rabenseifner (coll_recursive.c). */
void ts__cs_rd_allreduce(build_t *b, const gview_t *g, uint64_t bytes, int reduce);
void ts__cs_kn_allreduce(build_t *b, const gview_t *g, int32_t k, uint64_t bytes, int reduce);
void ts__cs_ring_allreduce(build_t *b, const gview_t *g, uint64_t bytes, uint64_t seg);
void ts__cs_rabenseifner(build_t *b, const gview_t *g, uint64_t bytes, int mode, int32_t root);
int32_t ts__cs_kn_core(int32_t n, int32_t k, int32_t radix[64], int *rounds);
void ts__cs_kn_sra(build_t *b, const gview_t *g, int32_t k, uint64_t bytes, int pairs, int reduce,
                   const gview_t *across, int32_t across_radix);
void ts__cs_kn_allgather(build_t *b, const gview_t *g, int32_t k, uint64_t block);
/* The allgather, alltoall and barrier families (coll_families.c). */
void ts__cs_allgather_ring(build_t *b, const gview_t *g, uint64_t block);
void ts__cs_allgather_bruck(build_t *b, const gview_t *g, uint64_t block);
void ts__cs_allgather_rd(build_t *b, const gview_t *g, uint64_t block);
void ts__cs_allgather_neighbor(build_t *b, const gview_t *g, uint64_t block);
void ts__cs_exchange(build_t *b, const gview_t *g, int32_t peer, uint64_t bytes, uint64_t red);
void ts__cs_alltoall_linear(build_t *b, const gview_t *g, uint64_t block);
void ts__cs_alltoall_pairwise(build_t *b, const gview_t *g, uint64_t block);
void ts__cs_alltoall_window(build_t *b, const gview_t *g, uint64_t block, int32_t posts);
/* The modified Bruck Alltoall: each step costs the rank step_cpu + block_cpu a block it sends
 * + byte_cpu a byte it copies back; the rotations in and out cost byte_cpu a byte, the one
 * out also block_cpu a block. */
void ts__cs_alltoall_bruck(build_t *b, const gview_t *g, uint64_t block, double step_cpu,
                           double block_cpu, double byte_cpu);
void ts__cs_two_proc(build_t *b, const gview_t *g, uint64_t bytes,
                     void (*fallback)(build_t *, const gview_t *, uint64_t));
void ts__cs_barrier_double_ring(build_t *b, const gview_t *g);
void ts__cs_barrier_rd(build_t *b, const gview_t *g);
void ts__cs_barrier_bruck(build_t *b, const gview_t *g);

/* Flat algorithms (coll_flat.c): the caller's schedule of alg for op on group g (seg: the
 * segment size of segmented ones; posts: the steps a pairwise Alltoall keeps posted, 0 or 1
 * one at a time); tuned's own fixed choice on a sub-group. */
ts_status ts__cs_flat(build_t *b, int op, ts_coll_alg alg, const gview_t *g, int32_t root,
                      uint64_t bytes, uint64_t seg, int32_t posts);
ts_status ts__cs_flat_fixed(build_t *b, int op, const gview_t *g, int32_t root, uint64_t bytes);

#endif
