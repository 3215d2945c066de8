/* coll_flat.c - Open MPI's flat collective algorithms, one builder per (operation, algorithm),
 * and the table FLAT that dispatches to them (coll_impl.h). */
#include "coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../traces/events.h"

/* ---- flat algorithms: one builder per (operation, algorithm) ---- */

/* What a builder gets besides the group: the collective's root (0 for rootless ones), the
 * bytes per rank, the segment size of segmented algorithms (0: unsegmented) and the steps a
 * pairwise Alltoall keeps posted (0 or 1: one at a time). */
typedef struct flat_args_s {
    int32_t root, posts;
    uint64_t bytes, seg;
} flat_args_t;

/* Appends the caller's schedule of one algorithm to b. Returns TS_OK, or the status of a
 * sub-collective it could not build; running out of memory is left in b->oom. */
typedef ts_status (*flat_builder)(build_t *b, const gview_t *g, const flat_args_t *a);

/* tuned's own fixed choice on a sub-group (nonoverlapping's reduce + bcast, HAN's low
 * level). */
ts_status ts__cs_flat_fixed(build_t *b, int op, const gview_t *g, int32_t root, uint64_t bytes)
{
    int a = ts_coll_tuned_fixed(op, g->n, bytes);
    return ts__cs_flat(b, op, ts__coll_tuned_alg(op, a), g, root, bytes, 0, 0);
}

/* -- bcast helpers -- */

/* The subtree of vrank v of Open MPI's binary tree (TREE_BINARY): 1 (left, the odd vranks),
 * 2 (right, the even ones) or 0 (the root). */
static int32_t side_of(int32_t v)
{
    return v ? 2 - v % 2 : 0;
}

/* The k-th vrank (by value) of a side of the binary tree of n, or -1. */
static int32_t nth_of_side(int32_t n, int32_t side, int32_t k)
{
    for (int32_t x = 1; x < n; x++)
        if (side_of(x) == side && k-- == 0)
            return x;
    return -1;
}

static void split_binary_bcast(build_t *b, const gview_t *g, int32_t root, uint64_t bytes,
                               uint64_t seg)
{
    /* ompi_coll_base_bcast_intra_split_bintree: each half of the message goes down one
     * subtree of the binary tree (the left one carries the first ceil(count / 2) elements);
     * then every rank swaps halves with its counterpart in the other subtree (vrank v + 1 of
     * an odd v); on an even number of ranks the last, a left rank without one, gets the right
     * half from the root. A message of fewer than two elements, or whose halves are shorter
     * than a segment, goes down a pipeline instead. */
    int32_t n = g->n;
    uint64_t elem = b->model->elem, count = bytes / elem;
    uint64_t half = (count + 1) / 2 * elem, other = bytes - half;
    if (count < 2 || (seg && (seg > half || seg > other))) {
        ts__cs_tree_bcast(b, g, TREE_CHAIN, 1, root, bytes, seg);
        return;
    }
    int32_t v = (g->me - root + n) % n, side = side_of(v);
    uint64_t mine = side == 2 ? other : half; /* the half this subtree carries */
    int32_t pos = 0, nleft = 0, nright = 0;
    for (int32_t x = 1; x < n; x++) {
        pos += x < v && side_of(x) == side;
        nleft += side_of(x) == 1;
        nright += side_of(x) == 2;
    }
    /* Phase 1: binary tree, each side carrying its half. */
    tree_t t;
    ts__cs_tree_node(TREE_BINARY, n, v, 2, &t);
    int32_t S = ts__cs_nsegs(mine, seg);
    for (int32_t s = 0; s <= S; s++) {
        if (t.parent >= 0 && s < S)
            ts__cs_recv_from(b, g, ts__cs_real_of(g, root, t.parent),
                             ts__cs_seg_bytes(mine, seg, S, s));
        int32_t fwd = t.parent >= 0 ? s - 1 : s;
        for (int32_t c = 0; c < t.nchild; c++) {
            uint64_t part = v == 0 ? (c == 0 ? half : other) : mine;
            int32_t cs = ts__cs_nsegs(part, seg);
            if (fwd >= 0 && fwd < cs)
                ts__cs_send_to(b, g, ts__cs_real_of(g, root, t.child[c]),
                               ts__cs_seg_bytes(part, seg, cs, fwd));
        }
        ts__cs_end_round(b, 0);
    }
    /* Phase 2: swap halves with the counterpart. */
    if (v == 0) {
        for (int32_t i = nright; i < nleft; i++) /* left ranks without a partner */
            ts__cs_send_to(b, g, ts__cs_real_of(g, root, nth_of_side(n, 1, i)), other);
        ts__cs_end_round(b, 0);
        return;
    }
    int32_t partner = nth_of_side(n, 3 - side, pos);
    if (partner >= 0) {
        ts__cs_send_to(b, g, ts__cs_real_of(g, root, partner), mine);
        ts__cs_recv_from(b, g, ts__cs_real_of(g, root, partner), bytes - mine);
    } else {
        ts__cs_recv_from(b, g, root, bytes - mine);
    }
    ts__cs_end_round(b, 0);
}

static void scatter_allgather_bcast(build_t *b, const gview_t *g, int32_t root, uint64_t bytes,
                                    int ring)
{
    /* Binomial scatter of n blocks, then an allgather of the blocks (recursive doubling, or
     * the ring for _ring); blocks are relative to the root. The blocks are equal, ceil(bytes /
     * n) each: Open MPI's are ceil(count / n) elements with the last ones short or empty
     * (coll_base_bcast.c, scatter_count), which differs only where the count is not a
     * multiple of n, mostly for vectors of fewer elements than ranks, which the fixed rules
     * send by trees, not by this algorithm. */
    uint64_t block = (bytes + (uint64_t)g->n - 1) / (uint64_t)g->n;
    ts__cs_tree_gather(b, g, TREE_BINOMIAL, root, block, 1);
    gview_t rel = *g; /* the allgather runs on ranks relative to the root */
    int32_t *m = NULL;
    if (root) {
        m = malloc((size_t)g->n * sizeof *m);
        if (!m) {
            b->oom = 1;
            return;
        }
        for (int32_t v = 0; v < g->n; v++)
            m[v] = ts__cs_comm_rank(g, ts__cs_real_of(g, root, v));
        rel.m = m;
        rel.me = (g->me - root + g->n) % g->n;
    }
    if (ring)
        ts__cs_allgather_ring(b, &rel, block);
    else
        ts__cs_allgather_rd(b, &rel, block);
    free(m);
}

/* -- allreduce -- */

static ts_status build_reduce_linear(build_t *b, const gview_t *g, const flat_args_t *a);

static ts_status build_allreduce_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: linear reduce to 0, then linear bcast */
    build_reduce_linear(b, g, &(flat_args_t){.root = 0, .bytes = a->bytes, .seg = 0});
    ts__cs_tree_bcast(b, g, TREE_STAR, 0, 0, a->bytes, 0);
    return TS_OK;
}

static ts_status build_allreduce_nonoverlapping(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts_status st = ts__cs_flat_fixed(b, TS_COLL_REDUCE, g, 0, a->bytes);
    return st ? st : ts__cs_flat_fixed(b, TS_COLL_BCAST, g, 0, a->bytes);
}

static ts_status build_allreduce_recursive_doubling(build_t *b, const gview_t *g,
                                                    const flat_args_t *a)
{
    ts__cs_rd_allreduce(b, g, a->bytes, 1);
    return TS_OK;
}

/* Open MPI's ring: a count below the ranks goes to recursive doubling; a segmented ring
 * (seg > 0) whose count is below ranks x segment count runs the plain ring. */
static ts_status ring_or_doubling(build_t *b, const gview_t *g, uint64_t bytes, uint64_t seg)
{
    uint64_t elem = b->model->elem, count = bytes / elem;
    if (count < (uint64_t)g->n) {
        ts__cs_rd_allreduce(b, g, bytes, 1);
        return TS_OK;
    }
    if (seg && count < (uint64_t)g->n * (seg / elem ? seg / elem : 1))
        seg = 0;
    ts__cs_ring_allreduce(b, g, bytes, seg);
    return TS_OK;
}

static ts_status build_allreduce_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    return ring_or_doubling(b, g, a->bytes, 0);
}

static ts_status build_allreduce_segmented_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    return ring_or_doubling(b, g, a->bytes, a->seg);
}

static ts_status build_allreduce_rabenseifner(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* Open MPI: fewer elements than the power-of-two core goes to recursive doubling */
    if (a->bytes / b->model->elem < (uint64_t)ts__cs_pow2_floor(g->n))
        ts__cs_rd_allreduce(b, g, a->bytes, 1);
    else
        ts__cs_rabenseifner(b, g, a->bytes, RAB_ALLREDUCE, 0);
    return TS_OK;
}

static ts_status build_allreduce_knomial_recursive(build_t *b, const gview_t *g,
                                                   const flat_args_t *a)
{
    ts__cs_kn_allreduce(b, g, b->model->ucc_radix, a->bytes, TS_RED_FUSED); /* UCC's */
    return TS_OK;
}

/* -- bcast -- */

static ts_status build_bcast_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_bcast(b, g, TREE_STAR, 0, a->root, a->bytes, 0);
    return TS_OK;
}

static ts_status build_bcast_chain(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_bcast(b, g, TREE_CHAIN, b->model->chain_fanout, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_pipeline(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_bcast(b, g, TREE_CHAIN, 1, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_split_binary(build_t *b, const gview_t *g, const flat_args_t *a)
{
    split_binary_bcast(b, g, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_binary(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_bcast(b, g, TREE_BINARY, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_bcast(b, g, TREE_BMTREE, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_knomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_bcast(b, g, TREE_KNOMIAL, b->model->knomial_radix, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_scatter_allgather(build_t *b, const gview_t *g, const flat_args_t *a)
{
    scatter_allgather_bcast(b, g, a->root, a->bytes, 0);
    return TS_OK;
}

static ts_status build_bcast_scatter_allgather_ring(build_t *b, const gview_t *g,
                                                    const flat_args_t *a)
{
    scatter_allgather_bcast(b, g, a->root, a->bytes, 1);
    return TS_OK;
}

/* -- reduce -- */

static ts_status build_reduce_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: the root receives and combines one rank at a time */
    if (g->me != a->root) {
        ts__cs_send_to(b, g, a->root, a->bytes);
        ts__cs_end_round(b, 0);
        return TS_OK;
    }
    for (int32_t i = 0; i < g->n; i++)
        if (i != a->root) {
            ts__cs_recv_from(b, g, i, a->bytes);
            ts__cs_end_round(b, a->bytes);
        }
    return TS_OK;
}

static ts_status build_reduce_chain(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_reduce(b, g, TREE_CHAIN, b->model->chain_fanout, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_pipeline(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_reduce(b, g, TREE_CHAIN, 1, a->root, a->bytes, a->seg);
    return TS_OK;
}

/* Also the in-order binary reduce (ompi_coll_base_topo_build_in_order_bintree, rooted at the
 * last rank, which forwards to the root): replayed on this tree, whose depth and fan-out it
 * shares; its ranks' places differ. */
static ts_status build_reduce_binary(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_reduce(b, g, TREE_BINARY, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_reduce(b, g, TREE_BINOMIAL, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_knomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_reduce(b, g, TREE_KNOMIAL, b->model->ucc_radix, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_rabenseifner(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* Open MPI: fewer elements than the power-of-two core goes to the binomial tree */
    if (a->bytes / b->model->elem < (uint64_t)ts__cs_pow2_floor(g->n))
        ts__cs_tree_reduce(b, g, TREE_BINOMIAL, 2, a->root, a->bytes, 0);
    else
        ts__cs_rabenseifner(b, g, a->bytes, RAB_REDUCE, a->root);
    return TS_OK;
}

/* -- allgather (and allgatherv: bytes is the block of one rank) -- */

static ts_status build_allgather_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: gather to 0, then bcast everything */
    ts__cs_linear_gather(b, g, 0, a->bytes, 0, 1);
    ts__cs_tree_bcast(b, g, TREE_STAR, 0, 0, a->bytes * (uint64_t)g->n, 0);
    return TS_OK;
}

static ts_status build_allgather_bruck(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_allgather_bruck(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_recursive_doubling(build_t *b, const gview_t *g,
                                                    const flat_args_t *a)
{
    ts__cs_allgather_rd(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_allgather_ring(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_neighbor(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_allgather_neighbor(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_two_proc(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_two_proc(b, g, a->bytes, ts__cs_allgather_ring);
    return TS_OK;
}

/* -- alltoall (and alltoallv / w: bytes is the block per peer) -- */

/* Also linear_sync, modelled as linear (its bounded window of requests is not). */
static ts_status build_alltoall_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_alltoall_linear(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_alltoall_pairwise(build_t *b, const gview_t *g, const flat_args_t *a)
{
    if (a->posts > 1) {
        ts__cs_alltoall_window(b, g, a->bytes, a->posts);
        return TS_OK;
    }
    ts__cs_alltoall_pairwise(b, g, a->bytes);
    return TS_OK;
}

/* Open MPI's (coll_base_alltoall.c) and UCC's (tl/ucp alltoall_bruck.c) handle their blocks
 * at a CPU cost of their own (model.coll.bruck_step and _block, model.ucc.block_copy); Open
 * MPI's also copies bytes within the rank (model.cpu.copy_bandwidth: its rotations and copies
 * back), where UCC's block copies are all it does (measured with their bytes). HCOLL's, whose
 * implementation is not published, is charged its messages only. */
static ts_status build_alltoall_bruck(build_t *b, const gview_t *g, const flat_args_t *a)
{
    const ts_coll_model_t *m = b->model;
    double step = 0, block = 0, byte = 0;
    if (b->comp == TS_CCOMP_UCC)
        block = m->ucc_block_copy;
    else if (b->comp != TS_CCOMP_HCOLL)
        step = m->bruck_step, block = m->bruck_block, byte = 1.0 / m->copy_bw;
    ts__cs_alltoall_bruck(b, g, a->bytes, step, block, byte);
    return TS_OK;
}

static ts_status build_alltoall_two_proc(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_two_proc(b, g, a->bytes, ts__cs_alltoall_pairwise);
    return TS_OK;
}

/* -- barrier (messages of 0 bytes; a->bytes is ignored) -- */

static ts_status build_barrier_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    ts__cs_linear_gather(b, g, 0, 0, 0, 1);
    ts__cs_tree_bcast(b, g, TREE_STAR, 0, 0, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_double_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    ts__cs_barrier_double_ring(b, g);
    return TS_OK;
}

static ts_status build_barrier_recursive_doubling(build_t *b, const gview_t *g,
                                                  const flat_args_t *a)
{
    (void)a;
    ts__cs_barrier_rd(b, g);
    return TS_OK;
}

static ts_status build_barrier_bruck(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    ts__cs_barrier_bruck(b, g);
    return TS_OK;
}

static ts_status build_barrier_two_proc(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    if (g->n != 2)
        ts__cs_barrier_bruck(b, g);
    else
        ts__cs_exchange(b, g, 1 - g->me, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_tree(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    ts__cs_tree_reduce(b, g, TREE_BINOMIAL, 2, 0, 0, 0);
    ts__cs_tree_bcast(b, g, TREE_BINOMIAL, 2, 0, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_knomial_recursive(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    ts__cs_kn_allreduce(b, g, b->model->ucc_barrier_radix, 0, TS_RED_NONE);
    return TS_OK;
}

/* -- gather and scatter (and their v variants: bytes is one rank's block) -- */

static ts_status build_gather_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_linear_gather(b, g, a->root, a->bytes, 0, 0);
    return TS_OK;
}

/* linear_sync and linear_nb: the root posts every transfer at once. */
static ts_status build_gather_linear_all(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_linear_gather(b, g, a->root, a->bytes, 0, 1);
    return TS_OK;
}

static ts_status build_gather_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_gather(b, g, TREE_BINOMIAL, a->root, a->bytes, 0);
    return TS_OK;
}

static ts_status build_scatter_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_linear_gather(b, g, a->root, a->bytes, 1, 0);
    return TS_OK;
}

static ts_status build_scatter_linear_all(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_linear_gather(b, g, a->root, a->bytes, 1, 1);
    return TS_OK;
}

static ts_status build_scatter_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts__cs_tree_gather(b, g, TREE_BINOMIAL, a->root, a->bytes, 1);
    return TS_OK;
}

/* -- reduce_scatter (and reduce_scatter_block) -- */

static ts_status build_reduce_scatter_nonoverlapping(build_t *b, const gview_t *g,
                                                     const flat_args_t *a)
{
    /* tuned's reduce to 0, then a linear scatter of each rank's own block (blocks differ in
     * size where the elements do not divide evenly) */
    ts_status st = ts__cs_flat_fixed(b, TS_COLL_REDUCE, g, 0, a->bytes);
    if (st)
        return st;
    uint64_t elem = b->model->elem;
    if (g->me != 0)
        ts__cs_recv_from(b, g, 0, ts__cs_block_bytes(a->bytes, elem, g->n, g->me));
    else
        for (int32_t i = 1; i < g->n; i++)
            ts__cs_send_to(b, g, i, ts__cs_block_bytes(a->bytes, elem, g->n, i));
    ts__cs_end_round(b, 0);
    return TS_OK;
}

/* Also butterfly, which the model runs as recursive halving. */
static ts_status build_reduce_scatter_recursive_halving(build_t *b, const gview_t *g,
                                                        const flat_args_t *a)
{
    ts__cs_rabenseifner(b, g, a->bytes, RAB_REDUCE_SCATTER, 0);
    return TS_OK;
}

static ts_status build_reduce_scatter_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    int32_t n = g->n, me = g->me;
    for (int32_t k = 0; k < n - 1; k++) {
        uint64_t sb = ts__cs_block_bytes(a->bytes, b->model->elem, n, (me - k - 1 + 2 * n) % n);
        uint64_t rb = ts__cs_block_bytes(a->bytes, b->model->elem, n, (me - k - 2 + 2 * n) % n);
        ts__cs_send_to(b, g, (me + 1) % n, sb);
        ts__cs_recv_from(b, g, (me - 1 + n) % n, rb);
        ts__cs_end_round(b, rb);
    }
    return TS_OK;
}

/* -- scan and exscan -- */

static ts_status build_scan_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: rank i waits for the prefix of i-1, combines, passes it on. */
    if (g->me > 0) {
        ts__cs_recv_from(b, g, g->me - 1, a->bytes);
        ts__cs_end_round(b, a->bytes);
    }
    if (g->me < g->n - 1) {
        ts__cs_send_to(b, g, g->me + 1, a->bytes);
        ts__cs_end_round(b, 0);
    }
    return TS_OK;
}

/* ---- the dispatch ---- */

/* The operation whose algorithms op runs: a v or w variant runs its base operation's
 * schedule on the per-rank payload, exscan runs scan's; -1 for the handle operations, which
 * move no data. */
static int flat_family(int op)
{
    switch (op) {
    case TS_COLL_ALLGATHERV:
        return TS_COLL_ALLGATHER;
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
        return TS_COLL_ALLTOALL;
    case TS_COLL_GATHERV:
        return TS_COLL_GATHER;
    case TS_COLL_SCATTERV:
        return TS_COLL_SCATTER;
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        return TS_COLL_REDUCE_SCATTER;
    case TS_COLL_EXSCAN:
        return TS_COLL_SCAN;
    case TS_COLL_ALLREDUCE:
    case TS_COLL_BCAST:
    case TS_COLL_REDUCE:
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLTOALL:
    case TS_COLL_BARRIER:
    case TS_COLL_GATHER:
    case TS_COLL_SCATTER:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_SCAN:
        return op;
    default:
        return -1;
    }
}

/* Every algorithm each operation can run, by Open MPI's name (coll.h); an empty cell is an
 * algorithm the operation does not have. */
static const flat_builder FLAT[TS_COLL__COUNT][TS_CALG__COUNT] = {
    [TS_COLL_ALLREDUCE] =
        {
            [TS_CALG_LINEAR] = build_allreduce_linear,
            [TS_CALG_NONOVERLAPPING] = build_allreduce_nonoverlapping,
            [TS_CALG_RECURSIVE_DOUBLING] = build_allreduce_recursive_doubling,
            [TS_CALG_RING] = build_allreduce_ring,
            [TS_CALG_SEGMENTED_RING] = build_allreduce_segmented_ring,
            [TS_CALG_RABENSEIFNER] = build_allreduce_rabenseifner,
            [TS_CALG_KN_RECURSIVE] = build_allreduce_knomial_recursive,
        },
    [TS_COLL_BCAST] =
        {
            [TS_CALG_LINEAR] = build_bcast_linear,
            [TS_CALG_CHAIN] = build_bcast_chain,
            [TS_CALG_PIPELINE] = build_bcast_pipeline,
            [TS_CALG_SPLIT_BINARY] = build_bcast_split_binary,
            [TS_CALG_BINARY] = build_bcast_binary,
            [TS_CALG_BINOMIAL] = build_bcast_binomial,
            [TS_CALG_KNOMIAL] = build_bcast_knomial,
            [TS_CALG_SCATTER_ALLGATHER] = build_bcast_scatter_allgather,
            [TS_CALG_SCATTER_ALLGATHER_RING] = build_bcast_scatter_allgather_ring,
        },
    [TS_COLL_REDUCE] =
        {
            [TS_CALG_LINEAR] = build_reduce_linear,
            [TS_CALG_CHAIN] = build_reduce_chain,
            [TS_CALG_PIPELINE] = build_reduce_pipeline,
            [TS_CALG_BINARY] = build_reduce_binary,
            [TS_CALG_IN_ORDER_BINARY] = build_reduce_binary,
            [TS_CALG_BINOMIAL] = build_reduce_binomial,
            [TS_CALG_KNOMIAL] = build_reduce_knomial,
            [TS_CALG_RABENSEIFNER] = build_reduce_rabenseifner,
        },
    [TS_COLL_ALLGATHER] =
        {
            [TS_CALG_LINEAR] = build_allgather_linear,
            [TS_CALG_BRUCK] = build_allgather_bruck,
            [TS_CALG_RECURSIVE_DOUBLING] = build_allgather_recursive_doubling,
            [TS_CALG_RING] = build_allgather_ring,
            [TS_CALG_NEIGHBOR] = build_allgather_neighbor,
            [TS_CALG_TWO_PROC] = build_allgather_two_proc,
        },
    [TS_COLL_ALLTOALL] =
        {
            [TS_CALG_LINEAR] = build_alltoall_linear,
            [TS_CALG_LINEAR_SYNC] = build_alltoall_linear,
            [TS_CALG_PAIRWISE] = build_alltoall_pairwise,
            [TS_CALG_BRUCK] = build_alltoall_bruck,
            [TS_CALG_TWO_PROC] = build_alltoall_two_proc,
        },
    [TS_COLL_BARRIER] =
        {
            [TS_CALG_LINEAR] = build_barrier_linear,
            [TS_CALG_DOUBLE_RING] = build_barrier_double_ring,
            [TS_CALG_RECURSIVE_DOUBLING] = build_barrier_recursive_doubling,
            [TS_CALG_BRUCK] = build_barrier_bruck,
            [TS_CALG_TWO_PROC] = build_barrier_two_proc,
            [TS_CALG_TREE] = build_barrier_tree,
            [TS_CALG_KN_RECURSIVE] = build_barrier_knomial_recursive,
        },
    [TS_COLL_GATHER] =
        {
            [TS_CALG_LINEAR] = build_gather_linear,
            [TS_CALG_LINEAR_SYNC] = build_gather_linear_all,
            [TS_CALG_LINEAR_NB] = build_gather_linear_all,
            [TS_CALG_BINOMIAL] = build_gather_binomial,
        },
    [TS_COLL_SCATTER] =
        {
            [TS_CALG_LINEAR] = build_scatter_linear,
            [TS_CALG_LINEAR_SYNC] = build_scatter_linear_all,
            [TS_CALG_LINEAR_NB] = build_scatter_linear_all,
            [TS_CALG_BINOMIAL] = build_scatter_binomial,
        },
    [TS_COLL_REDUCE_SCATTER] =
        {
            [TS_CALG_NONOVERLAPPING] = build_reduce_scatter_nonoverlapping,
            [TS_CALG_RECURSIVE_HALVING] = build_reduce_scatter_recursive_halving,
            [TS_CALG_BUTTERFLY] = build_reduce_scatter_recursive_halving,
            [TS_CALG_RING] = build_reduce_scatter_ring,
        },
    [TS_COLL_SCAN] =
        {
            [TS_CALG_LINEAR] = build_scan_linear,
        },
};

/* The caller's schedule of op by algorithm alg on group g. TS_EARG for an algorithm that op
 * does not have; nothing (TS_OK) on a group of one rank or for an operation that moves no
 * data. */
ts_status ts__cs_flat(build_t *b, int op, ts_coll_alg alg, const gview_t *g, int32_t root,
                      uint64_t bytes, uint64_t seg, int32_t posts)
{
    if (g->n <= 1)
        return TS_OK;
    int family = flat_family(op);
    if (family < 0)
        return TS_OK;
    if ((unsigned)alg >= TS_CALG__COUNT || !FLAT[family][alg])
        return TS_EARG;
    flat_args_t a = {.root = root < 0 ? 0 : root, .bytes = bytes, .seg = seg, .posts = posts};
    return FLAT[family][alg](b, g, &a);
}
