/* coll_blocks.c - the building blocks of collective schedules (coll_impl.h): a group's
 * point-to-point rounds, and trees for bcast / reduce / gather / scatter. The patterns that
 * halve, double or ring the data are in coll_recursive.c, the allgather, alltoall and barrier
 * families in coll_families.c. */
#include "coll_impl.h"

#include "../common/grow.h"
#include "../traces/events.h"

/* ---- schedule building blocks ---------------------------------------------------------- */

/* The communicator rank of member i of the group. */
int32_t ts__cs_comm_rank(const gview_t *g, int32_t i)
{
    return g->m ? g->m[i] : i;
}

static void push(build_t *b, int kind, int32_t peer, uint64_t bytes)
{
    ts_csched_t *s = b->s;
    if (b->oom)
        return;
    if (TS_GROW(s->step, s->n, s->cap, 32) != 0) {
        b->oom = 1;
        return;
    }
    s->step[s->n++] = (ts_cstep_t){.kind = (uint8_t)kind,
                                   .shared = (uint8_t)b->shared,
                                   .registered = (uint8_t)b->registered,
                                   .peer = peer,
                                   .bytes = bytes};
}

/* Post a send of `bytes` to member idx of the group in the current round. */
void ts__cs_send_to(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes)
{
    push(b, TS_CSTEP_SEND, ts__cs_comm_rank(g, idx), bytes);
}

/* Post a receive of `bytes` from member idx of the group in the current round. */
void ts__cs_recv_from(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes)
{
    push(b, TS_CSTEP_RECV, ts__cs_comm_rank(g, idx), bytes);
}

/* The same, waited for at the end of the next round instead. */
void ts__cs_recv_next(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes)
{
    push(b, TS_CSTEP_RECV_NEXT, ts__cs_comm_rank(g, idx), bytes);
}

/* Spend `seconds` of the caller's CPU here, in the current round (before what follows). */
void ts__cs_cpu(build_t *b, double seconds)
{
    if (seconds > 0)
        push(b, TS_CSTEP_CPU, -1, (uint64_t)(seconds * 1e12 + 0.5));
}

/* Whether the round just closed (the last step is its END) posted a receive ahead, which the
 * next round waits for. */
static int posted_ahead(const ts_csched_t *s)
{
    for (size_t i = s->n - 1; i-- > 0 && s->step[i].kind != TS_CSTEP_END;)
        if (s->step[i].kind == TS_CSTEP_RECV_NEXT)
            return 1;
    return 0;
}

/* Close the round: wait for its messages (and those the round before posted ahead), then
 * combine `reduce` bytes (nothing is added if the round is empty, reduces nothing and waits
 * for nothing). */
void ts__cs_end_round(build_t *b, uint64_t reduce)
{
    ts_csched_t *s = b->s;
    if (!reduce && (s->n == 0 || (s->step[s->n - 1].kind == TS_CSTEP_END && !posted_ahead(s))))
        return;
    push(b, TS_CSTEP_END, -1, reduce);
    if (!b->oom)
        s->rounds++;
}

uint64_t ts__cs_red_bytes(int mode, int32_t r, uint64_t bytes)
{
    if (mode == TS_RED_NONE || r < 2)
        return 0;
    if (mode == TS_RED_FUSED)
        return bytes * (uint64_t)(r + 1) / 3;
    return bytes * (uint64_t)(r - 1);
}

int32_t ts__cs_pow2_floor(int32_t n)
{
    int32_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int32_t ceil_log2(int32_t n)
{
    int32_t k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* Bytes of block i when `total` bytes of `elem`-byte elements are split into k blocks, the
 * first ones one element larger (Open MPI's split of a count into blocks). */
uint64_t ts__cs_block_bytes(uint64_t total, uint64_t elem, int32_t k, int32_t i)
{
    uint64_t count = total / elem, q = count / (uint64_t)k, r = count % (uint64_t)k;
    return (q + ((uint64_t)i < r)) * elem;
}

/* ---- trees (for bcast, reduce, gather, scatter) ---- */

/* Node v (a rank relative to the root: v = (rank - root) mod n) of a tree of n ranks. */
void ts__cs_tree_node(int kind, int32_t n, int32_t v, int32_t fan, tree_t *t)
{
    t->parent = -1;
    t->nchild = 0;
    switch (kind) {
    case TREE_STAR:
        if (v)
            t->parent = 0;
        else
            for (int32_t c = 1; c < n && t->nchild < 64; c++)
                t->child[t->nchild++] = c;
        break;
    case TREE_CHAIN: {
        /* vranks 1..n-1 form fan chains of consecutive vranks hanging off the root. */
        int32_t rest = n - 1, f = fan < rest ? fan : rest;
        if (f < 1)
            f = 1;
        int32_t q = rest / f, r = rest % f, start = 1;
        for (int32_t c = 0; c < f; c++) {
            int32_t len = q + (c < r);
            if (len <= 0)
                continue;
            if (v == 0)
                t->child[t->nchild++] = start;
            else if (v >= start && v < start + len) {
                t->parent = v == start ? 0 : v - 1;
                if (v + 1 < start + len)
                    t->child[t->nchild++] = v + 1;
            }
            start += len;
        }
        break;
    }
    case TREE_BINARY: {
        /* ompi_coll_base_topo_build_tree(2): level L holds vranks 2^L - 1 .. 2^(L+1) - 2 and a
         * vrank's children are v + 2^L and v + 2^(L+1), so the root's left subtree is the odd
         * vranks and its right the even ones (7 ranks: 0 -> 1, 2; 1 -> 3, 5; 2 -> 4, 6); the
         * parent steps back by 2^(L-1) until it lies above level L. */
        int64_t delta = 1;
        while (2 * delta - 1 <= v)
            delta *= 2;
        if (v) {
            int64_t p = v, above = delta - 1;
            while (p >= above)
                p -= delta / 2;
            t->parent = (int32_t)p;
        }
        for (int64_t c = v + delta; c <= v + 2 * delta && c < n; c += delta)
            t->child[t->nchild++] = (int32_t)c;
        break;
    }
    case TREE_BINOMIAL: {
        int32_t low = v ? (v & -v) : 1 << ceil_log2(n);
        if (v)
            t->parent = v - low;
        for (int32_t mask = low >> 1; mask >= 1; mask >>= 1)
            if (v + mask < n)
                t->child[t->nchild++] = v + mask;
        break;
    }
    case TREE_BMTREE: {
        /* ompi_coll_base_topo_build_bmtree: children v + 2^j above v's highest bit, smallest
         * first (the largest subtree first) */
        int32_t high = 1;
        while (v && high * 2 <= v)
            high *= 2;
        if (v)
            t->parent = v - high;
        for (int64_t m = v ? 2 * (int64_t)high : 1; v + m < n && t->nchild < 64; m *= 2)
            t->child[t->nchild++] = (int32_t)(v + m);
        break;
    }
    case TREE_KNOMIAL: {
        int32_t k = fan < 2 ? 2 : fan;
        /* Lowest non-zero base-k digit of v gives the parent; the children add a digit
         * below it. */
        int64_t span = 1;
        while (span < n)
            span *= k;
        int64_t level = span;
        if (v) {
            int64_t p = 1;
            while ((v / p) % k == 0)
                p *= k;
            t->parent = (int32_t)(v - ((v / p) % k) * p);
            level = p;
        }
        for (int64_t p = level / k; p >= 1; p /= k)
            for (int32_t d = 1; d < k; d++)
                if (v + d * p < n && t->nchild < 64)
                    t->child[t->nchild++] = (int32_t)(v + d * p);
        break;
    }
    }
}

/* Ranks in the subtree of v (v included). */
static int32_t subtree_size(int kind, int32_t n, int32_t v, int32_t fan)
{
    tree_t t;
    ts__cs_tree_node(kind, n, v, fan, &t);
    int32_t s = 1;
    for (int32_t i = 0; i < t.nchild; i++)
        s += subtree_size(kind, n, t.child[i], fan);
    return s;
}

int32_t ts__cs_real_of(const gview_t *g, int32_t root, int32_t v)
{
    return (v + root) % g->n;
}

uint64_t ts__cs_seg_bytes(uint64_t total, uint64_t seg, int32_t nseg, int32_t s)
{
    if (nseg <= 1)
        return total;
    return s < nseg - 1 ? seg : total - seg * (uint64_t)(nseg - 1);
}

int32_t ts__cs_nsegs(uint64_t total, uint64_t seg)
{
    if (!seg || total <= seg)
        return 1;
    uint64_t k = (total + seg - 1) / seg;
    return k > (1u << 20) ? (1 << 20) : (int32_t)k;
}

/* The caller's node of the tree rooted at root, and the number of segments of bytes. */
static int32_t tree_here(const gview_t *g, int kind, int32_t fan, int32_t root, uint64_t bytes,
                         uint64_t seg, tree_t *t)
{
    ts__cs_tree_node(kind, g->n, (g->me - root + g->n) % g->n, fan, t);
    return ts__cs_nsegs(bytes, seg);
}

/* Pipelined tree broadcast of `bytes` from root: segment s arrives from the parent in the
 * round that forwards segment s-1 to the children. */
void ts__cs_tree_bcast(build_t *b, const gview_t *g, int kind, int32_t fan, int32_t root,
                       uint64_t bytes, uint64_t seg)
{
    if (kind == TREE_STAR) { /* linear: the root posts every send at once */
        if (g->me == root)
            for (int32_t i = 0; i < g->n; i++) {
                if (i != root)
                    ts__cs_send_to(b, g, i, bytes);
            }
        else
            ts__cs_recv_from(b, g, root, bytes);
        ts__cs_end_round(b, 0);
        return;
    }
    tree_t t;
    tree_here(g, kind, fan, root, bytes, seg, &t);
    int32_t child[64];
    for (int32_t c = 0; c < t.nchild; c++)
        child[c] = ts__cs_comm_rank(g, ts__cs_real_of(g, root, t.child[c]));
    int32_t parent = t.parent >= 0 ? ts__cs_comm_rank(g, ts__cs_real_of(g, root, t.parent)) : -1;
    ts__cs_pipe_bcast(b, parent, child, t.nchild, bytes, seg);
}

void ts__cs_pipe_bcast(build_t *b, int32_t parent, const int32_t *child, int32_t nchild,
                       uint64_t bytes, uint64_t seg)
{
    int32_t S = ts__cs_nsegs(bytes, seg);
    for (int32_t s = 0; s <= S; s++) {
        if (parent >= 0 && s < S)
            push(b, TS_CSTEP_RECV, parent, ts__cs_seg_bytes(bytes, seg, S, s));
        int32_t fwd = parent >= 0 ? s - 1 : s; /* the root sends segment s at once */
        if (fwd >= 0 && fwd < S)
            for (int32_t c = 0; c < nchild; c++)
                push(b, TS_CSTEP_SEND, child[c], ts__cs_seg_bytes(bytes, seg, S, fwd));
        ts__cs_end_round(b, 0);
    }
}

/* Pipelined tree reduction to root: segment s of every child arrives and is combined in the
 * round that passes segment s-1 up. */
void ts__cs_tree_reduce(build_t *b, const gview_t *g, int kind, int32_t fan, int32_t root,
                        uint64_t bytes, uint64_t seg)
{
    if (kind == TREE_STAR) { /* every rank sends at once; the root combines them all */
        if (g->me == root) {
            for (int32_t i = 0; i < g->n; i++)
                if (i != root)
                    ts__cs_recv_from(b, g, i, bytes);
            ts__cs_end_round(b, (uint64_t)(g->n - 1) * bytes);
        } else {
            ts__cs_send_to(b, g, root, bytes);
            ts__cs_end_round(b, 0);
        }
        return;
    }
    tree_t t;
    int32_t S = tree_here(g, kind, fan, root, bytes, seg, &t);
    int32_t parent = t.parent >= 0 ? ts__cs_real_of(g, root, t.parent) : -1;
    if (!t.nchild) { /* a leaf sends segment after segment */
        for (int32_t s = 0; s < S && parent >= 0; s++) {
            ts__cs_send_to(b, g, parent, ts__cs_seg_bytes(bytes, seg, S, s));
            ts__cs_end_round(b, 0);
        }
        return;
    }
    if (kind == TREE_KNOMIAL) {
        /* a k-nomial parent receives and combines its children together */
        for (int32_t s = 0; s <= S; s++) {
            uint64_t red = 0;
            if (s < S)
                for (int32_t c = 0; c < t.nchild; c++) {
                    ts__cs_recv_from(b, g, ts__cs_real_of(g, root, t.child[c]),
                                     ts__cs_seg_bytes(bytes, seg, S, s));
                    red += ts__cs_seg_bytes(bytes, seg, S, s);
                }
            if (parent >= 0 && s > 0)
                ts__cs_send_to(b, g, parent, ts__cs_seg_bytes(bytes, seg, S, s - 1));
            ts__cs_end_round(b, red);
        }
        return;
    }
    /* Open MPI's trees (coll_base_reduce.c, ompi_coll_base_reduce_generic): for each segment
     * the children one at a time. Each step posts the next child's receive, waits for the one
     * before and combines it; the segment goes up (a blocking send) once its last child is
     * combined, with the next segment's first receive already posted. The binomial tree's
     * children come smallest subtree first (the in-order tree of
     * ompi_coll_base_topo_build_in_order_bmtree: vrank + 1, + 2, + 4 ...), so its larger
     * subtrees work while the smaller ones are combined. Replayed a round a step: round k
     * posts item k's receive (waited for at the end of round k + 1) and combines item k - 1;
     * the send of segment s, ready after round (s + 1) x nchild, is posted in the round after
     * it. */
    int32_t K = S * t.nchild;
    for (int32_t k = 0; k <= K + 1; k++) {
        if (k < K) {
            int32_t s = k / t.nchild, i = k % t.nchild;
            int32_t c = kind == TREE_BINOMIAL ? t.child[t.nchild - 1 - i] : t.child[i];
            ts__cs_recv_next(b, g, ts__cs_real_of(g, root, c), ts__cs_seg_bytes(bytes, seg, S, s));
        }
        if (parent >= 0 && k >= t.nchild + 1 && (k - 1) % t.nchild == 0)
            ts__cs_send_to(b, g, parent, ts__cs_seg_bytes(bytes, seg, S, (k - 1) / t.nchild - 1));
        uint64_t red = k >= 1 && k <= K ? ts__cs_seg_bytes(bytes, seg, S, (k - 1) / t.nchild) : 0;
        if (k <= K || parent >= 0)
            ts__cs_end_round(b, red);
    }
}

/* Tree gather (binomial): a rank receives its children's subtrees, then passes its own
 * subtree's blocks up. Scatter is the mirror. */
void ts__cs_tree_gather(build_t *b, const gview_t *g, int kind, int32_t root, uint64_t block,
                        int scatter)
{
    int32_t v = (g->me - root + g->n) % g->n;
    tree_t t;
    ts__cs_tree_node(kind, g->n, v, 2, &t);
    uint64_t mine = (uint64_t)subtree_size(kind, g->n, v, 2) * block;
    if (scatter && t.parent >= 0) {
        ts__cs_recv_from(b, g, ts__cs_real_of(g, root, t.parent), mine);
        ts__cs_end_round(b, 0);
    }
    for (int32_t c = 0; c < t.nchild; c++) {
        uint64_t sub = (uint64_t)subtree_size(kind, g->n, t.child[c], 2) * block;
        if (scatter)
            ts__cs_send_to(b, g, ts__cs_real_of(g, root, t.child[c]), sub);
        else
            ts__cs_recv_from(b, g, ts__cs_real_of(g, root, t.child[c]), sub);
    }
    ts__cs_end_round(b, 0);
    if (!scatter && t.parent >= 0) {
        ts__cs_send_to(b, g, ts__cs_real_of(g, root, t.parent), mine);
        ts__cs_end_round(b, 0);
    }
}

/* Linear gather / scatter as coll/basic does them: the root handles one peer at a time in
 * rank order (blocking calls), or all at once (nonblocking variants). */
void ts__cs_linear_gather(build_t *b, const gview_t *g, int32_t root, uint64_t block, int scatter,
                          int all_at_once)
{
    if (g->me != root) {
        if (scatter)
            ts__cs_recv_from(b, g, root, block);
        else
            ts__cs_send_to(b, g, root, block);
        ts__cs_end_round(b, 0);
        return;
    }
    for (int32_t i = 0; i < g->n; i++) {
        if (i == root)
            continue;
        if (scatter)
            ts__cs_send_to(b, g, i, block);
        else
            ts__cs_recv_from(b, g, i, block);
        if (!all_at_once)
            ts__cs_end_round(b, 0);
    }
    ts__cs_end_round(b, 0);
}
