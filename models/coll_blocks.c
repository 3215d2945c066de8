/* coll_blocks.c - the building blocks of collective schedules (coll_impl.h): a group's
 * point-to-point rounds, trees for bcast / reduce / gather / scatter, recursive doubling and
 * k-nomial with Open MPI's fold of the extra ranks, rings, Rabenseifner, and the allgather,
 * alltoall and barrier families. */
#include "coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* Spend `seconds` of the caller's CPU here, in the current round (before what follows). */
void ts__cs_cpu(build_t *b, double seconds)
{
    if (seconds > 0)
        push(b, TS_CSTEP_CPU, -1, (uint64_t)(seconds * 1e12 + 0.5));
}

/* Close the round: wait for its messages, then combine `reduce` bytes (nothing is added if
 * the round is empty and reduces nothing). */
void ts__cs_end_round(build_t *b, uint64_t reduce)
{
    ts_csched_t *s = b->s;
    if (!reduce && (s->n == 0 || s->step[s->n - 1].kind == TS_CSTEP_END))
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
     * the children one at a time, each combined as it arrives while the next one's receive is
     * posted, and the segment sent up once its last child is in (with the next segment's
     * first receive). The binomial tree's children come smallest subtree first (the in-order
     * tree of ompi_coll_base_topo_build_in_order_bmtree: vrank + 1, + 2, + 4 ...), so its
     * larger subtrees work while the smaller ones are combined. Replayed a round a child, its
     * receive posted in that round rather than one child ahead: a rendezvous from the next
     * child starts once the previous combination ends. */
    for (int32_t s = 0; s < S; s++)
        for (int32_t i = 0; i < t.nchild; i++) {
            int32_t c = kind == TREE_BINOMIAL ? t.child[t.nchild - 1 - i] : t.child[i];
            uint64_t x = ts__cs_seg_bytes(bytes, seg, S, s);
            ts__cs_recv_from(b, g, ts__cs_real_of(g, root, c), x);
            if (i == 0 && s > 0 && parent >= 0)
                ts__cs_send_to(b, g, parent, ts__cs_seg_bytes(bytes, seg, S, s - 1));
            ts__cs_end_round(b, x);
        }
    if (parent >= 0) { /* the last segment up */
        ts__cs_send_to(b, g, parent, ts__cs_seg_bytes(bytes, seg, S, S - 1));
        ts__cs_end_round(b, 0);
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

/* ---- recursive doubling with Open MPI's fold of the extra ranks ---- */

/* Allreduce (or barrier with bytes 0) by recursive doubling: the first 2*extra ranks pair
 * up, evens hand their data to the odd neighbour and sit out; 2^k ranks exchange and combine
 * for k rounds; the evens get the result back. */
void ts__cs_rd_allreduce(build_t *b, const gview_t *g, uint64_t bytes, int reduce)
{
    int32_t n = g->n, me = g->me, p2 = ts__cs_pow2_floor(n), extra = n - p2, newrank;
    if (me < 2 * extra) {
        if (me % 2 == 0) {
            ts__cs_send_to(b, g, me + 1, bytes);
            ts__cs_end_round(b, 0);
            ts__cs_recv_from(b, g, me + 1, bytes);
            ts__cs_end_round(b, 0);
            return;
        }
        ts__cs_recv_from(b, g, me - 1, bytes);
        ts__cs_end_round(b, reduce ? bytes : 0);
        newrank = me / 2;
    } else {
        newrank = me - extra;
    }
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        int32_t nr = newrank ^ mask;
        int32_t peer = nr < extra ? nr * 2 + 1 : nr + extra;
        ts__cs_send_to(b, g, peer, bytes);
        ts__cs_recv_from(b, g, peer, bytes);
        ts__cs_end_round(b, reduce ? bytes : 0);
    }
    if (me < 2 * extra) {
        ts__cs_send_to(b, g, me - 1, bytes);
        ts__cs_end_round(b, 0);
    }
}

/* Where a rank stands in a k-nomial pattern of n ranks around a core of `core`: with `pairs`
 * (UCC's, coll_patterns/recursive_knomial.h) the n - core extra ranks are the odd ones below
 * twice their count, each folding into the even rank before it, and the core runs in loop
 * ranks (a proxy r is r / 2, a rank above the pairs r - extras); without, rank r >= core folds
 * into r - core and loop ranks are ranks. */
typedef struct kn_place_s {
    int32_t vme;     /* my loop rank (core ranks only) */
    int32_t partner; /* the rank I fold into, or that folds into me; -1: none */
    int extra;       /* I only fold in and get the result back */
} kn_place_t;

static kn_place_t kn_place(int32_t me, int32_t n, int32_t core, int pairs)
{
    int32_t ne = n - core;
    if (pairs && me < 2 * ne)
        return (kn_place_t){me / 2, me % 2 ? me - 1 : me + 1, me % 2};
    if (pairs)
        return (kn_place_t){me - ne, -1, 0};
    if (me >= core)
        return (kn_place_t){me, me - core, 1};
    return (kn_place_t){me, me + core < n ? me + core : -1, 0};
}

/* The rank of loop rank vp (kn_place's inverse). */
static int32_t kn_rank(int32_t vp, int32_t n, int32_t core, int pairs)
{
    int32_t ne = n - core;
    return !pairs ? vp : vp < ne ? 2 * vp : vp + ne;
}

/* Recursive k-ing on UCC's k-nomial pattern (coll_patterns/recursive_knomial.h; its knomial
 * allreduce; k = 2 is recursive doubling with another fold). The core is the largest multiple
 * of the largest power of k below n (ts__cs_kn_core: 32 of 36 ranks at k = 4, its last round
 * at radix 2; 64 of 72); each extra rank hands its data to its proxy (kn_place, UCC's pairs)
 * first and gets the result back last; the core exchanges its whole vector with the round's
 * radix - 1 peers. `reduce`: TS_RED_NONE, _PAIRWISE or _FUSED (ts__cs_red_bytes). */
void ts__cs_kn_allreduce(build_t *b, const gview_t *g, int32_t k, uint64_t bytes, int reduce)
{
    int32_t n = g->n, me = g->me, radix[64];
    if (k > n) /* a radix beyond the group is the group (UCC: radix = min(radix, team size)) */
        k = n;
    if (n <= 1)
        return;
    int rounds = 0;
    int32_t core = ts__cs_kn_core(n, k, radix, &rounds);
    kn_place_t at = kn_place(me, n, core, 1);
    if (at.extra) {
        ts__cs_send_to(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
        ts__cs_recv_from(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
        return;
    }
    if (at.partner >= 0) {
        ts__cs_recv_from(b, g, at.partner, bytes);
        ts__cs_end_round(b, reduce ? bytes : 0);
    }
    int64_t dist = 1;
    for (int l = 0; l < rounds; l++) {
        int32_t r = radix[l], d = (int32_t)((at.vme / dist) % r);
        for (int32_t t = 1; t < r; t++) {
            int32_t peer = kn_rank((int32_t)(at.vme + (((d + t) % r) - d) * dist), n, core, 1);
            ts__cs_send_to(b, g, peer, bytes);
            ts__cs_recv_from(b, g, peer, bytes);
        }
        ts__cs_end_round(b, ts__cs_red_bytes(reduce, r, bytes));
        dist *= r;
    }
    if (at.partner >= 0) {
        ts__cs_send_to(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
    }
}

/* The k-nomial pattern of UCC's scatter-reduce-allgather (ucc_knomial_pattern.h): d rounds,
 * d the least with k^d >= n; the core is the largest multiple of k^(d-1) that fits, whose last
 * round runs at radix core / k^(d-1) (a round of radix 1 is none); each rank beyond the core
 * folds into core rank (rank - core), at most one each. Fills radix[] per round, returns the
 * core. */
int32_t ts__cs_kn_core(int32_t n, int32_t k, int32_t radix[64], int *rounds)
{
    int64_t sup = 1;
    int d = 0;
    while (sup < n) {
        sup *= k;
        d++;
    }
    int64_t big = d ? sup / k : 1;
    int32_t core = sup == n ? n : (int32_t)((n / big) * big);
    *rounds = 0;
    for (int l = 0; l < d; l++) {
        int32_t r = l == d - 1 ? (int32_t)(core / big) : k;
        if (r > 1)
            radix[(*rounds)++] = r;
    }
    return core;
}

/* k-nomial scatter-reduce-allgather on that pattern: the extra ranks fold in; the core
 * reduce-scatters round by round (a rank's window splits into the round's radix of blocks: it
 * sends its peers theirs and reduces its own from them), allgathers in the reverse order, and
 * hands the result back to the ranks folded in (kn_place: UCC's pairs with `pairs`, else
 * rank - core). With `across` (core
 * ranks only), each core rank's block is allreduced within that group between the two halves
 * (recursive doubling at radix 2, else k-nomial): the hierarchical form, one
 * scatter-reduce-allgather per node and the nodes' blocks combined by the ranks of equal
 * place. `reduce`: TS_RED_PAIRWISE or TS_RED_FUSED (ts__cs_red_bytes). */
void ts__cs_kn_sra(build_t *b, const gview_t *g, int32_t k, uint64_t bytes, int pairs, int reduce,
                   const gview_t *across, int32_t across_radix)
{
    int32_t n = g->n, me = g->me, radix[64];
    uint64_t elem = b->model->elem, window = bytes / elem, was[64];
    int rounds = 0;
    int32_t core = ts__cs_kn_core(n, k, radix, &rounds);
    kn_place_t at = kn_place(me, n, core, pairs);
    if (at.extra) {
        ts__cs_send_to(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
        ts__cs_recv_from(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
        return;
    }
    if (at.partner >= 0) {
        ts__cs_recv_from(b, g, at.partner, bytes);
        ts__cs_end_round(b, bytes);
    }
    int64_t dist = 1;
    for (int l = 0; l < rounds; l++) {
        int32_t r = radix[l], d = (int32_t)((at.vme / dist) % r);
        uint64_t mine = ts__cs_block_bytes(window * elem, elem, r, d);
        for (int32_t t = 1; t < r; t++) {
            int32_t pd = (d + t) % r;
            int32_t peer = kn_rank((int32_t)(at.vme + (pd - d) * dist), n, core, pairs);
            ts__cs_send_to(b, g, peer, ts__cs_block_bytes(window * elem, elem, r, pd));
            ts__cs_recv_from(b, g, peer, mine);
        }
        ts__cs_end_round(b, ts__cs_red_bytes(reduce, r, mine));
        was[l] = window;
        window = mine / elem;
        dist *= r;
    }
    if (across && across->n > 1) {
        if (across_radix <= 2)
            ts__cs_rd_allreduce(b, across, window * elem, 1);
        else
            ts__cs_kn_allreduce(b, across, across_radix, window * elem, TS_RED_PAIRWISE);
    }
    for (int l = rounds - 1; l >= 0; l--) {
        int32_t r = radix[l];
        dist /= r;
        int32_t d = (int32_t)((at.vme / dist) % r);
        for (int32_t t = 1; t < r; t++) {
            int32_t pd = (d + t) % r;
            int32_t peer = kn_rank((int32_t)(at.vme + (pd - d) * dist), n, core, pairs);
            ts__cs_send_to(b, g, peer, window * elem);
            ts__cs_recv_from(b, g, peer, ts__cs_block_bytes(was[l] * elem, elem, r, pd));
        }
        ts__cs_end_round(b, 0);
        window = was[l];
    }
    if (at.partner >= 0) {
        ts__cs_send_to(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
    }
}

/* The ranks a group of dist loop ranks around loop rank vme stands for on UCC's pattern: the
 * loop ranks below ne are proxies, two ranks each (kn_place with pairs). */
static uint64_t group_ranks(int32_t vme, int64_t dist, int32_t ne)
{
    int64_t base = vme - vme % dist, top = base + dist < ne ? base + dist : ne;
    return (uint64_t)(dist + (top > base ? top - base : 0));
}

/* UCC's k-nomial allgather (tl/ucp allgather_knomial.c; coll_patterns/sra_knomial.h,
 * ucc_kn_ag_pattern_init: the recursive k-nomial pattern): each extra rank hands its block to
 * its proxy (kn_place, UCC's pairs) and gets the whole vector back last; in each round a core
 * rank sends the blocks its group of loop ranks holds to the round's radix - 1 peers and
 * receives theirs, the groups growing by the radix. */
void ts__cs_kn_allgather(build_t *b, const gview_t *g, int32_t k, uint64_t block)
{
    int32_t n = g->n, me = g->me, radix[64];
    if (k > n)
        k = n;
    if (n <= 1)
        return;
    int rounds = 0;
    int32_t core = ts__cs_kn_core(n, k, radix, &rounds), ne = n - core;
    kn_place_t at = kn_place(me, n, core, 1);
    if (at.extra) {
        ts__cs_send_to(b, g, at.partner, block);
        ts__cs_end_round(b, 0);
        ts__cs_recv_from(b, g, at.partner, block * (uint64_t)n);
        ts__cs_end_round(b, 0);
        return;
    }
    if (at.partner >= 0) {
        ts__cs_recv_from(b, g, at.partner, block);
        ts__cs_end_round(b, 0);
    }
    int64_t dist = 1;
    for (int l = 0; l < rounds; l++) {
        int32_t r = radix[l], d = (int32_t)((at.vme / dist) % r);
        for (int32_t t = 1; t < r; t++) {
            int32_t pv = (int32_t)(at.vme + (((d + t) % r) - d) * dist);
            int32_t peer = kn_rank(pv, n, core, 1);
            ts__cs_send_to(b, g, peer, block * group_ranks(at.vme, dist, ne));
            ts__cs_recv_from(b, g, peer, block * group_ranks(pv, dist, ne));
        }
        ts__cs_end_round(b, 0);
        dist *= r;
    }
    if (at.partner >= 0) {
        ts__cs_send_to(b, g, at.partner, block * (uint64_t)n);
        ts__cs_end_round(b, 0);
    }
}

/* Ring allreduce: n-1 rounds of reduce-scatter then n-1 of allgather, block by block. With
 * segsize, each block travels as segments posted together (Open MPI's segmented ring
 * pipelines them; the rounds stay the ring's). */
void ts__cs_ring_allreduce(build_t *b, const gview_t *g, uint64_t bytes, uint64_t seg)
{
    int32_t n = g->n, me = g->me, right = (me + 1) % n, left = (me - 1 + n) % n;
    uint64_t elem = b->model->elem;
    for (int phase = 0; phase < 2; phase++)
        for (int32_t k = 0; k < n - 1; k++) {
            /* reduce-scatter: send block (me - k), receive block (me - k - 1) and combine;
             * allgather: send block (me + 1 - k), receive block (me - k). */
            int32_t sb = phase == 0 ? (me - k + n) % n : (me + 1 - k + 2 * n) % n;
            int32_t rb = phase == 0 ? (me - k - 1 + 2 * n) % n : (me - k + n) % n;
            uint64_t sbytes = ts__cs_block_bytes(bytes, elem, n, sb);
            uint64_t rbytes = ts__cs_block_bytes(bytes, elem, n, rb);
            int32_t ss = ts__cs_nsegs(sbytes, seg), rs = ts__cs_nsegs(rbytes, seg);
            for (int32_t s = 0; s < ss; s++)
                ts__cs_send_to(b, g, right, ts__cs_seg_bytes(sbytes, seg, ss, s));
            for (int32_t s = 0; s < rs; s++)
                ts__cs_recv_from(b, g, left, ts__cs_seg_bytes(rbytes, seg, rs, s));
            ts__cs_end_round(b, phase == 0 ? rbytes : 0);
        }
}

/* Rabenseifner: fold to 2^k ranks, reduce-scatter by recursive halving (halves of the
 * vector, distance doubling), allgather by recursive doubling (the reverse), unfold. With
 * mode RAB_REDUCE the allgather becomes a gather of the blocks to root (Reduce's
 * rabenseifner); RAB_REDUCE_SCATTER keeps only the halving.
 * The Allreduce folds as Open MPI's does (coll_base_allreduce.c,
 * ompi_coll_base_allreduce_intra_redscat_allgather): below twice the surplus, each even rank
 * and the odd one after it swap halves and each reduces one, the odd rank hands its reduced
 * half to the even one and drops out until the result comes back; the even ranks stand for
 * the pairs. Reduce and reduce_scatter fold as recursive doubling does, the even rank handing
 * the whole vector to the odd one. */
static void rab_allreduce_fold(build_t *b, const gview_t *g, int32_t me, uint64_t bytes)
{
    uint64_t elem = b->model->elem, count = bytes / elem;
    uint64_t lhalf = count / 2 * elem, rhalf = bytes - lhalf;
    int odd = me % 2, peer = odd ? me - 1 : me + 1;
    ts__cs_send_to(b, g, peer, odd ? lhalf : rhalf);
    ts__cs_recv_from(b, g, peer, odd ? rhalf : lhalf);
    ts__cs_end_round(b, odd ? rhalf : lhalf);
    if (odd)
        ts__cs_send_to(b, g, peer, rhalf);
    else
        ts__cs_recv_from(b, g, peer, rhalf);
    ts__cs_end_round(b, 0);
}

void ts__cs_rabenseifner(build_t *b, const gview_t *g, uint64_t bytes, int mode, int32_t root)
{
    int32_t n = g->n, me = g->me, p2 = ts__cs_pow2_floor(n), extra = n - p2, newrank = -1;
    uint64_t elem = b->model->elem, count = bytes / elem;
    uint64_t share = (count / (uint64_t)p2) * elem; /* what a core rank holds after halving */
    /* which rank of a folded pair stays in: the even one (Allreduce) or the odd one */
    const int stay = mode == RAB_ALLREDUCE ? 0 : 1;
    if (me >= 2 * extra) {
        newrank = me - extra;
    } else if (mode == RAB_ALLREDUCE) {
        rab_allreduce_fold(b, g, me, bytes);
        if (me % 2) { /* dropped out: the result comes back at the end */
            ts__cs_recv_from(b, g, me - 1, bytes);
            ts__cs_end_round(b, 0);
            return;
        }
        newrank = me / 2;
    } else if (me % 2 == 0) { /* folded out: hand the vector to the odd neighbour */
        ts__cs_send_to(b, g, me + 1, bytes);
        ts__cs_end_round(b, 0);
        if (mode == RAB_REDUCE_SCATTER) {
            ts__cs_recv_from(b, g, me + 1, ts__cs_block_bytes(bytes, elem, n, me));
            ts__cs_end_round(b, 0);
        } else if (me == root) { /* Reduce: the core ranks' pieces come to the root */
            for (int32_t i = 0; i < n; i++)
                if (!(i < 2 * extra && i % 2 == 0))
                    ts__cs_recv_from(b, g, i, share);
            ts__cs_end_round(b, 0);
        }
        return;
    } else {
        ts__cs_recv_from(b, g, me - 1, bytes);
        ts__cs_end_round(b, bytes);
        newrank = me / 2;
    }
    /* reduce-scatter by recursive halving: the lower rank of each pair keeps the lower half */
    uint64_t window = count;
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        int32_t nr = newrank ^ mask;
        int32_t peer = nr < extra ? nr * 2 + stay : nr + extra;
        uint64_t keep = (window + 1) / 2, give = window - keep;
        uint64_t send = newrank < nr ? give : keep, recv = newrank < nr ? keep : give;
        ts__cs_send_to(b, g, peer, send * elem);
        ts__cs_recv_from(b, g, peer, recv * elem);
        ts__cs_end_round(b, recv * elem);
        window = recv;
    }
    if (mode == RAB_ALLREDUCE) { /* allgather by recursive doubling, the reverse */
        uint64_t have = window;
        for (int32_t mask = p2 >> 1; mask >= 1; mask >>= 1) {
            int32_t nr = newrank ^ mask;
            int32_t peer = nr < extra ? nr * 2 + stay : nr + extra;
            ts__cs_send_to(b, g, peer, have * elem);
            ts__cs_recv_from(b, g, peer, have * elem);
            ts__cs_end_round(b, 0);
            have = have * 2 > count ? count : have * 2;
        }
        if (me < 2 * extra) { /* the result back to the odd rank of the pair */
            ts__cs_send_to(b, g, me + 1, bytes);
            ts__cs_end_round(b, 0);
        }
    } else if (mode == RAB_REDUCE) { /* the pieces go to the root */
        if (me != root) {
            ts__cs_send_to(b, g, root, window * elem);
        } else {
            for (int32_t i = 0; i < n; i++)
                if (i != me && !(i < 2 * extra && i % 2 == 0))
                    ts__cs_recv_from(b, g, i, share);
        }
        ts__cs_end_round(b, 0);
    } else if (me < 2 * extra) { /* reduce_scatter: the folded neighbour's block */
        ts__cs_send_to(b, g, me - 1, ts__cs_block_bytes(bytes, elem, n, me - 1));
        ts__cs_end_round(b, 0);
    }
}

/* ---- allgather family ---- */

void ts__cs_allgather_ring(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t k = 0; k < n - 1; k++) {
        ts__cs_send_to(b, g, (me + 1) % n, block);
        ts__cs_recv_from(b, g, (me - 1 + n) % n, block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_allgather_bruck(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t dist = 1; dist < n; dist <<= 1) {
        int32_t cnt = dist < n - dist ? dist : n - dist;
        ts__cs_send_to(b, g, (me - dist + n) % n, (uint64_t)cnt * block);
        ts__cs_recv_from(b, g, (me + dist) % n, (uint64_t)cnt * block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_allgather_rd(build_t *b, const gview_t *g, uint64_t block)
{
    if (g->n & (g->n - 1)) { /* Open MPI falls back to Bruck off powers of two */
        ts__cs_allgather_bruck(b, g, block);
        return;
    }
    for (int32_t dist = 1; dist < g->n; dist <<= 1) {
        ts__cs_send_to(b, g, g->me ^ dist, (uint64_t)dist * block);
        ts__cs_recv_from(b, g, g->me ^ dist, (uint64_t)dist * block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_allgather_neighbor(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    if (n % 2) { /* Open MPI falls back to the ring for odd sizes */
        ts__cs_allgather_ring(b, g, block);
        return;
    }
    int32_t even = me % 2 == 0;
    int32_t first = even ? (me + 1) % n : (me - 1 + n) % n;
    int32_t other = even ? (me - 1 + n) % n : (me + 1) % n;
    ts__cs_send_to(b, g, first, block);
    ts__cs_recv_from(b, g, first, block);
    ts__cs_end_round(b, 0);
    for (int32_t k = 1; k < n / 2; k++) {
        int32_t peer = k % 2 ? other : first;
        ts__cs_send_to(b, g, peer, 2 * block);
        ts__cs_recv_from(b, g, peer, 2 * block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_exchange(build_t *b, const gview_t *g, int32_t peer, uint64_t bytes, uint64_t red)
{
    ts__cs_send_to(b, g, peer, bytes);
    ts__cs_recv_from(b, g, peer, bytes);
    ts__cs_end_round(b, red);
}

/* ---- alltoall family ---- */

/* Every receive (from me + i) and send (to me - i) posted at once: one window of them all. */
void ts__cs_alltoall_linear(build_t *b, const gview_t *g, uint64_t block)
{
    ts__cs_alltoall_window(b, g, block, g->n);
}

void ts__cs_alltoall_pairwise(build_t *b, const gview_t *g, uint64_t block)
{
    for (int32_t k = 1; k < g->n; k++) {
        ts__cs_send_to(b, g, (g->me + k) % g->n, block);
        ts__cs_recv_from(b, g, (g->me - k + g->n) % g->n, block);
        ts__cs_end_round(b, 0);
    }
}

/* UCC's pairwise Alltoall with num_posts steps in flight (alltoall_pairwise.c): it posts the
 * next step's receive (from me + k) and send (to me - k) as soon as one of its own completes,
 * a sliding window; replayed here as windows of posts steps posted together and completed
 * before the next window (posts >= n - 1: one window, the linear exchange). The self step
 * (k = 0, a local copy) is left out as in the others. */
void ts__cs_alltoall_window(build_t *b, const gview_t *g, uint64_t block, int32_t posts)
{
    for (int32_t k = 1; k < g->n; k += posts) {
        int32_t end = k + posts < g->n ? k + posts : g->n;
        for (int32_t i = k; i < end; i++)
            ts__cs_recv_from(b, g, (g->me + i) % g->n, block);
        for (int32_t i = k; i < end; i++)
            ts__cs_send_to(b, g, (g->me - i + g->n) % g->n, block);
        ts__cs_end_round(b, 0);
    }
}

/* Bruck's Alltoall: in step d a rank sends its peer d ahead every block whose index has bit d
 * set. Besides the messages, each step costs the caller step_cpu plus block_cpu a block it
 * sends (Open MPI: the step's datatype and its packing; UCC: the copy into its merge buffer),
 * and the rotation into place at the end block_cpu for each of the n blocks. Open MPI's
 * rotation in at the start (two copies of the send buffer) is not charged. */
void ts__cs_alltoall_bruck(build_t *b, const gview_t *g, uint64_t block, double step_cpu,
                           double block_cpu)
{
    int32_t n = g->n, me = g->me;
    for (int32_t dist = 1; dist < n; dist <<= 1) {
        int32_t cnt = 0;
        for (int32_t j = 0; j < n; j++)
            cnt += (j & dist) != 0;
        ts__cs_cpu(b, step_cpu + cnt * block_cpu);
        ts__cs_send_to(b, g, (me + dist) % n, (uint64_t)cnt * block);
        ts__cs_recv_from(b, g, (me - dist + n) % n, (uint64_t)cnt * block);
        ts__cs_end_round(b, 0);
    }
    ts__cs_cpu(b, n * block_cpu);
    ts__cs_end_round(b, 0);
}

/* Open MPI's two_proc algorithms: one exchange on 2 ranks; on more, Open MPI would not pick
 * them, and a forced one runs the fallback. */
void ts__cs_two_proc(build_t *b, const gview_t *g, uint64_t bytes,
                     void (*fallback)(build_t *, const gview_t *, uint64_t))
{
    if (g->n == 2)
        ts__cs_exchange(b, g, 1 - g->me, bytes, 0);
    else
        fallback(b, g, bytes);
}

/* ---- barrier family (messages of 0 bytes) ---- */

void ts__cs_barrier_double_ring(build_t *b, const gview_t *g)
{
    int32_t n = g->n, me = g->me, left = (me - 1 + n) % n, right = (me + 1) % n;
    for (int pass = 0; pass < 2; pass++) {
        if (me == 0) {
            ts__cs_send_to(b, g, right, 0);
            ts__cs_end_round(b, 0);
            ts__cs_recv_from(b, g, left, 0);
            ts__cs_end_round(b, 0);
        } else {
            ts__cs_recv_from(b, g, left, 0);
            ts__cs_end_round(b, 0);
            ts__cs_send_to(b, g, right, 0);
            ts__cs_end_round(b, 0);
        }
    }
}

/* Open MPI's recursive-doubling barrier (coll_base_barrier.c,
 * ompi_coll_base_barrier_intra_recursivedoubling): not the allreduce's pairing. A rank at or
 * above the power of two p below n checks in with rank - p; ranks below p pair by rank ^ mask;
 * then rank r < n - p releases r + p by a synchronous send, which completes when the receiver
 * has matched it (pml ucx: an eager-sync message and UCX's acknowledgement, here a 0-byte
 * message back). */
void ts__cs_barrier_rd(build_t *b, const gview_t *g)
{
    int32_t n = g->n, me = g->me, p2 = ts__cs_pow2_floor(n);
    if (me >= p2) { /* one sendrecv: the check-in out, the release back */
        ts__cs_send_to(b, g, me - p2, 0);
        ts__cs_recv_from(b, g, me - p2, 0);
        ts__cs_end_round(b, 0);
        ts__cs_send_to(b, g, me - p2, 0); /* the release's acknowledgement */
        ts__cs_end_round(b, 0);
        return;
    }
    if (me < n - p2) {
        ts__cs_recv_from(b, g, me + p2, 0);
        ts__cs_end_round(b, 0);
    }
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        ts__cs_send_to(b, g, me ^ mask, 0);
        ts__cs_recv_from(b, g, me ^ mask, 0);
        ts__cs_end_round(b, 0);
    }
    if (me < n - p2) {
        ts__cs_send_to(b, g, me + p2, 0);
        ts__cs_recv_from(b, g, me + p2, 0);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_barrier_bruck(build_t *b, const gview_t *g)
{
    for (int32_t dist = 1; dist < g->n; dist <<= 1) {
        ts__cs_send_to(b, g, (g->me + dist) % g->n, 0);
        ts__cs_recv_from(b, g, (g->me - dist + g->n) % g->n, 0);
        ts__cs_end_round(b, 0);
    }
}
