/* coll_hier.c - HCOLL's and HAN's hierarchical collectives over the flat algorithms on their
 * sub-groups, and ts_coll_schedule, which builds a rank's schedule for a choice (coll.h). */
#include "coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../traces/events.h"

/* ---- hierarchical components ---------------------------------------------------------- */

/* The members of each level that the caller belongs to: L0 (socket or NUMA domain, HCOLL
 * only), the node, and the node leaders. A group's leader is the root when the root is in
 * it (so data never travels back to the root), else its lowest rank. */
typedef struct hier_s {
    int32_t *buf;
    gview_t l0, node, lead; /* n = 0 where the caller is not a member */
} hier_t;

/* The leader of rank i's group at a level: the root when it shares the group, else the
 * group's lowest rank. level 0: socket (or NUMA domain) within the node; 1: the node. */
static int32_t leader_of(const ts_coll_topo_t *t, int32_t root, int level, int32_t i, int by_numa)
{
    const int32_t *grp = level ? t->node : by_numa ? t->numa : t->socket;
    const int32_t *low = level ? t->low_node : by_numa ? t->low_numa : t->low_socket;
    if (root >= 0 && grp[root] == grp[i] && t->node[root] == t->node[i])
        return root;
    return low[i];
}

static int hier_build(const ts_coll_topo_t *t, int32_t me, int32_t root, int two_level, int by_numa,
                      hier_t *h)
{
    int32_t n = t->n;
    memset(h, 0, sizeof *h);
    h->buf = malloc((size_t)n * 3 * sizeof *h->buf);
    if (!h->buf)
        return -1;
    int32_t *l0 = h->buf, *nd = h->buf + n, *ld = h->buf + 2 * n;
    int lvl0 = two_level ? 1 : 0;
    int32_t my_l0 = leader_of(t, root, lvl0, me, by_numa);
    int32_t my_node = leader_of(t, root, 1, me, by_numa);
    int32_t root_node = root >= 0 ? root : -1; /* the root leads its own node */
    int32_t n0 = 0, nn = 0, nl = 0;
    /* Leaders first in each list, so that index 0 is the group's root. */
    l0[n0++] = my_l0;
    for (int32_t j = 0; j < n; j++)
        if (j != my_l0 && t->node[j] == t->node[me] &&
            leader_of(t, root, lvl0, j, by_numa) == my_l0)
            l0[n0++] = j;
    for (int32_t i = 0; i < n0; i++)
        if (l0[i] == me)
            h->l0 = (gview_t){l0, n0, i};
    if (me == my_l0 && !two_level) {
        nd[nn++] = my_node;
        for (int32_t j = 0; j < n; j++)
            if (j != my_node && t->node[j] == t->node[me] && leader_of(t, root, 0, j, by_numa) == j)
                nd[nn++] = j;
        for (int32_t i = 0; i < nn; i++)
            if (nd[i] == me)
                h->node = (gview_t){nd, nn, i};
    }
    if (me == my_node) {
        if (root_node >= 0)
            ld[nl++] = root_node;
        for (int32_t j = 0; j < n; j++)
            if (j != root_node && leader_of(t, root, 1, j, by_numa) == j)
                ld[nl++] = j;
        for (int32_t i = 0; i < nl; i++)
            if (ld[i] == me)
                h->lead = (gview_t){ld, nl, i};
    }
    return 0;
}

/* The flags of the steps a level builds: inside a node, HCOLL's shared memory (sm) or the
 * pml's messages; across the nodes, messages between registered buffers (reg) or the MPI
 * buffers. */
static void on_node(build_t *b, int sm)
{
    b->shared = sm;
    b->registered = 0;
}

static void across_nodes(build_t *b, int reg)
{
    b->shared = TS_SM_NONE;
    b->registered = reg;
}

/* How HCOLL's shared-memory steps move data that already lies in the sender's payload buffer
 * (the fan-out; the fan-in above its first level) and data a parent reduces (an Allreduce's
 * fan-in): with payload buffers (model.hcoll.sm_buffers) read, or reduced, in place; else
 * copied in and out at every step. Simplified: an Allreduce's socket leader pays its copy in
 * again at the node level, though its partial sum lies in its buffer, and Scatter's fan-out
 * keeps both copies (Scatter is in neither IMB's study nor the reference case). */
static int sm_in_buffer(const ts_coll_model_t *m, int sm)
{
    return !sm ? TS_SM_NONE : m->hcoll_payload ? TS_SM_READ : TS_SM_COPY;
}

static int sm_reduced(const ts_coll_model_t *m, int sm)
{
    return !sm ? TS_SM_NONE : m->hcoll_payload ? TS_SM_WRITE : TS_SM_COPY;
}

/* The piece HCOLL's shared-memory fan-out of `bytes` is replayed in (ts__cs_pipe_bcast's
 * segment): model.hcoll.sm_fragment, or larger so that there are at most
 * model.hcoll.sm_fragments_max pieces; 0 (whole) when unpipelined or not larger. */
static uint64_t sm_piece(const ts_coll_model_t *m, int sm, uint64_t bytes)
{
    uint64_t frag = m->hcoll_sm_frag;
    if (!sm || !frag || bytes <= frag)
        return 0;
    uint64_t piece = (bytes + (uint64_t)m->hcoll_sm_pieces - 1) / (uint64_t)m->hcoll_sm_pieces;
    return piece > frag ? piece : frag;
}

/* HCOLL's shared-memory fan-out of `bytes` from the node leader down levels[nlev-1..0]. In
 * pieces (sm_piece) it is pipelined through both levels at once, as coll/ml's fragments flow
 * through its hierarchy: one tree, the node level's k-nomial tree with each socket's hanging
 * off its leader, so a socket leader passes each piece on as it arrives. Whole, level after
 * level. */
static void sm_fanout(build_t *b, gview_t *const *levels, int nlev, int32_t r, uint64_t bytes,
                      uint64_t piece)
{
    if (!piece) {
        for (int l = nlev - 1; l >= 0; l--)
            if (levels[l]->n > 1)
                ts__cs_tree_bcast(b, levels[l], TREE_KNOMIAL, r, 0, bytes, 0);
        return;
    }
    /* a rank's children: at most 64 a level (tree_t), two levels */
    int32_t parent = -1, child[2 * 64], n = 0;
    for (int l = nlev - 1; l >= 0; l--) {
        const gview_t *g = levels[l];
        if (g->n <= 1)
            continue;
        tree_t t;
        ts__cs_tree_node(TREE_KNOMIAL, g->n, g->me, r, &t); /* each level's leader is index 0 */
        if (t.parent >= 0)
            parent = ts__cs_comm_rank(g, t.parent);
        for (int32_t c = 0; c < t.nchild; c++)
            child[n++] = ts__cs_comm_rank(g, t.child[c]);
    }
    ts__cs_pipe_bcast(b, parent, child, n, bytes, piece);
}

/* Down from the node leaders to every rank, `bytes` from their buffers: HCOLL's shared-memory
 * fan-out (sm on: its levels as flag handoffs), or HAN's tuned broadcast on each level. */
static ts_status fan_out(build_t *b, int han, gview_t *const *levels, int nlev, int sm,
                         uint64_t bytes)
{
    const ts_coll_model_t *m = b->model;
    on_node(b, sm_in_buffer(m, sm));
    if (!han) {
        sm_fanout(b, levels, nlev, m->sm_radix, bytes, sm_piece(m, sm, bytes));
        return TS_OK;
    }
    ts_status st = TS_OK;
    for (int l = nlev - 1; l >= 0 && !st; l--)
        if (levels[l]->n > 1)
            st = ts__cs_flat_fixed(b, TS_COLL_BCAST, levels[l], 0, bytes);
    return st;
}

/* Stage k (0 lr, 1 ur, 2 ub, 3 lb) of segment s of han_allreduce, where the segment exists and
 * the stage involves the caller. */
static ts_status han_stage(build_t *b, const hier_t *h, int k, int32_t s, int32_t S, uint64_t bytes,
                           uint64_t seg)
{
    if (s >= S)
        return TS_OK;
    uint64_t x = ts__cs_seg_bytes(bytes, seg, S, s);
    int lead = h->lead.n > 1, node = h->l0.n > 1;
    if (k == 0 && node)
        return ts__cs_flat_fixed(b, TS_COLL_REDUCE, &h->l0, 0, x);
    if (k == 1 && lead)
        ts__cs_tree_reduce(b, &h->lead, TREE_BINOMIAL, 2, 0, x, 0);
    if (k == 2 && lead)
        ts__cs_tree_bcast(b, &h->lead, TREE_BMTREE, 2, 0, x, 0);
    if (k == 3 && node)
        return ts__cs_flat_fixed(b, TS_COLL_BCAST, &h->l0, 0, x);
    return TS_OK;
}

/* HAN's Allreduce (coll_han_allreduce.c, mca_coll_han_allreduce_intra: Open MPI 5.0.8's
 * default, use_simple_allreduce off): the vector in segments of model.han.segment
 * (coll_han_allreduce_segsize, 64 KiB; the last one shorter), each through four stages: lr,
 * tuned's reduce to the node leader; ur, the leaders' reduce to the first (libnbc's binomial
 * tree); ub, its broadcast back; lb, tuned's broadcast in the node. Its tasks issue them
 * staggered, so that the node reduces segment s + 3 while the leaders work on s + 1 and s + 2:
 * t0 lr(0); t1 ur(0), lr(1); t2 ub(0), ur(1), lr(2); then for each segment s, t3: ub(s + 1),
 * ur(s + 2), lr(s + 3), lb(s). The leaders' steps are nonblocking there and overlap the node's
 * reduce; they are replayed blocking, in the order issued (an upper bound by their own time:
 * ur and ub of 64 KiB against lr's six-level tree of the same). */
static ts_status han_allreduce(build_t *b, const hier_t *h, uint64_t bytes, uint64_t segsize)
{
    uint64_t elem = b->model->elem;
    /* COLL_BASE_COMPUTED_SEGCOUNT: whole elements; the vector whole when it fits one */
    uint64_t seg = segsize >= elem && segsize < bytes ? segsize / elem * elem : 0;
    int32_t S = ts__cs_nsegs(bytes, seg);
    /* t0, t1 and t2, then t3 for each segment: (stage, segment offset) in the order issued */
    static const int head[][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}};
    static const int loop[][2] = {{2, 1}, {1, 2}, {0, 3}, {3, 0}};
    ts_status st = TS_OK;
    for (size_t i = 0; i < sizeof head / sizeof head[0] && !st; i++)
        st = han_stage(b, h, head[i][0], head[i][1], S, bytes, seg);
    for (int32_t s = 0; s < S && !st; s++)
        for (size_t i = 0; i < sizeof loop / sizeof loop[0] && !st; i++)
            st = han_stage(b, h, loop[i][0], s + loop[i][1], S, bytes, seg);
    return st;
}

/* HCOLL: fan-in through shared memory (k-nomial trees inside each socket, then among the
 * node's socket leaders), the node leaders exchange over the network, fan-out the same way
 * back. HAN: two levels (node, leaders), with tuned's own choices inside the node. */
static ts_status hier(build_t *b, const ts_coll_choice_t *c, int op, const ts_coll_topo_t *t,
                      int32_t me, int32_t root, uint64_t bytes)
{
    const ts_coll_model_t *m = b->model;
    int han = c->comp == TS_CCOMP_HAN;
    hier_t h;
    if (hier_build(t, me, root, han, m->hcoll_by_numa, &h))
        return TS_ENOMEM;
    int32_t r = m->sm_radix;
    ts_status st = TS_OK;
    uint64_t data = op == TS_COLL_BARRIER ? 0 : bytes;
    gview_t *levels[2] = {&h.l0, &h.node};
    int nlev = han ? 1 : 2;
    /* HCOLL's levels inside the node run over its own shared memory (basesmuma): with
     * model.hcoll.sm_levels=shared they are priced as flag handoffs, else (pml, the default)
     * as UCX messages; HAN's are tuned's, over the pml. Set before each level, cleared for
     * the leaders' network level. */
    const int sm = !han && m->hcoll_shared;
    /* HCOLL's leaders send from and into its own payload buffers, registered once
     * (model.hcoll.net_buffers); HAN's are the MPI buffers. */
    const int net_reg = !han && m->hcoll_net_reg;
    switch (op) {
    case TS_COLL_ALLREDUCE:
    case TS_COLL_BARRIER:
        if (han && op == TS_COLL_ALLREDUCE) {
            st = han_allreduce(b, &h, data, c->segsize);
            break;
        }
        if (han && op == TS_COLL_BARRIER) {
            /* coll_han_barrier.c: the node's barrier, the leaders', the node's again */
            if (h.l0.n > 1) /* HAN's one level in the node */
                st = ts__cs_flat_fixed(b, TS_COLL_BARRIER, &h.l0, 0, 0);
            if (!st && h.lead.n > 1)
                st = ts__cs_flat_fixed(b, TS_COLL_BARRIER, &h.lead, 0, 0);
            if (!st && h.l0.n > 1)
                st = ts__cs_flat_fixed(b, TS_COLL_BARRIER, &h.l0, 0, 0);
            break;
        }
        /* HCOLL's barrier: a fan-in and a fan-out of nothing */
        /* fall through */
    case TS_COLL_REDUCE:
        /* up: each parent reduces its children's data where they wrote it */
        on_node(b, sm_reduced(m, sm));
        for (int l = 0; l < nlev; l++)
            if (levels[l]->n > 1) {
                if (han)
                    st = ts__cs_flat_fixed(b, TS_COLL_REDUCE, levels[l], 0, data);
                else
                    ts__cs_tree_reduce(b, levels[l], TREE_KNOMIAL, r, 0, data, 0);
            }
        if (st)
            break;
        across_nodes(b, net_reg);
        if (h.lead.n > 1) {
            if (op == TS_COLL_REDUCE)
                ts__cs_tree_reduce(b, &h.lead, TREE_BINOMIAL, 2, 0, data, 0);
            else if (m->net_radix == 2)
                ts__cs_rd_allreduce(b, &h.lead, data, op != TS_COLL_BARRIER);
            else
                ts__cs_kn_allreduce(b, &h.lead, m->net_radix, data,
                                    op != TS_COLL_BARRIER ? TS_RED_PAIRWISE : TS_RED_NONE);
        }
        if (op == TS_COLL_REDUCE)
            break;
        st = fan_out(b, han, levels, nlev, sm, data);
        break;
    case TS_COLL_BCAST:
        across_nodes(b, net_reg);
        if (h.lead.n > 1)
            ts__cs_tree_bcast(b, &h.lead, TREE_BMTREE, 2, 0, data, han ? c->segsize : 0);
        /* (the root's own copy into its buffer is left out) */
        st = fan_out(b, han, levels, nlev, sm, data);
        break;
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
    case TS_COLL_GATHER:
    case TS_COLL_SCATTER: {
        /* Gather blocks up to the node leaders (each level passes its whole group's blocks),
         * exchange node blocks among leaders (ring; gather: to the root's leader), then
         * broadcast everything down (allgather) or scatter it (scatter). */
        int scatter = op == TS_COLL_SCATTER;
        int all = op == TS_COLL_ALLGATHER || op == TS_COLL_ALLGATHERV;
        uint64_t node_ranks = 0;
        for (int32_t j = 0; j < t->n; j++)
            node_ranks += t->node[j] == t->node[me];
        if (scatter) {
            across_nodes(b, net_reg);
            if (h.lead.n > 1)
                ts__cs_tree_gather(b, &h.lead, TREE_BINOMIAL, 0, bytes * node_ranks, 1);
            on_node(b, sm);
            for (int l = nlev - 1; l >= 0 && !st; l--)
                if (levels[l]->n > 1) {
                    if (han) /* coll_han_scatter.c: tuned's scatter in the node */
                        st = ts__cs_flat_fixed(b, TS_COLL_SCATTER, levels[l], 0, bytes);
                    else
                        ts__cs_linear_gather(b, levels[l], 0, bytes, 1, 1);
                }
            break;
        }
        /* up: a rank's first level copies its block into its buffer (a leader's own copy is
         * left out); above it the blocks lie in the leaders' buffers already. A rank alone in
         * its socket group starts at the node level, with its block still to copy in. */
        uint64_t have = bytes;
        int above = 0;
        for (int l = 0; l < nlev && !st; l++)
            if (levels[l]->n > 1) {
                on_node(b, above ? sm_in_buffer(m, sm) : sm);
                if (han) /* coll_han_allgather.c, coll_han_gather.c: tuned's gather (lg) */
                    st = ts__cs_flat_fixed(b, TS_COLL_GATHER, levels[l], 0, have);
                else
                    ts__cs_linear_gather(b, levels[l], 0, have, 0, 1);
                if (levels[l]->me == 0)
                    have *= (uint64_t)levels[l]->n;
                above = 1;
            }
        if (st)
            break;
        across_nodes(b, net_reg);
        if (h.lead.n > 1) {
            if (all)
                ts__cs_allgather_ring(b, &h.lead, bytes * node_ranks);
            else
                ts__cs_tree_gather(b, &h.lead, TREE_BINOMIAL, 0, bytes * node_ranks, 0);
        }
        if (all)
            st = fan_out(b, han, levels, nlev, sm, bytes * (uint64_t)t->n);
        break;
    }
    default:
        st = TS_EARG;
    }
    /* Reduce's result lands at the root's node leader, which is the root (leaders are the
     * root where it is a member). */
    across_nodes(b, 0);
    free(h.buf);
    return st;
}

/* The radix of HCOLL's large-data allreduce inside a node of n ranks: model.hcoll.sra_radix,
 * or with 0 (auto) the radix of 2-8 that leaves the fewest ranks outside its core
 * (ts__cs_kn_core), then the fewest rounds: HCOLL tunes its radix at run time
 * (HCOLL_ALLREDUCE_ZCOPY_TUNE), and a fold of extra ranks costs a whole vector each way. */
static int32_t sra_radix(const ts_coll_model_t *m, int32_t n)
{
    if (m->hcoll_sra_radix >= 2)
        return m->hcoll_sra_radix;
    int32_t best = 2, best_extra = INT32_MAX, best_rounds = INT32_MAX, radix[64];
    for (int32_t k = 2; k <= 8; k++) {
        int rounds = 0;
        int32_t extra = n - ts__cs_kn_core(n, k, radix, &rounds);
        if (extra < best_extra || (extra == best_extra && rounds < best_rounds)) {
            best = k;
            best_extra = extra;
            best_rounds = rounds;
        }
    }
    return best;
}

/* HCOLL's large-data allreduce: a k-nomial scatter-reduce-allgather over UCX inside each node,
 * each block combined across the nodes by the ranks of equal place in their node. Nodes of
 * unequal rank counts run one scatter-reduce-allgather over all ranks. */
static ts_status hcoll_sra(build_t *b, const ts_coll_topo_t *t, int32_t me, uint64_t bytes)
{
    int32_t n = t->n, *buf = calloc((size_t)n * 3, sizeof *buf);
    if (!buf)
        return TS_ENOMEM;
    /* One pass in rank order: a rank's place is how many of its node came before it (counted
     * per node, keyed by the node's lowest rank); the ranks of my place form `across`. */
    int32_t *nd = buf, *ac = buf + n, *seen = buf + 2 * n, nn = 0, na = 0, li = -1;
    for (int32_t j = 0; j < n; j++)
        if (t->node[j] == t->node[me]) {
            if (j == me)
                li = nn;
            nd[nn++] = j;
        }
    for (int32_t j = 0; j < n; j++)
        if (seen[t->low_node[j]]++ == li)
            ac[na++] = j;
    int equal = 1;
    for (int32_t j = 0; j < n; j++)
        equal &= seen[t->low_node[j]] == nn;
    if (!equal) {
        gview_t all = {NULL, n, me};
        ts__cs_kn_sra(b, &all, sra_radix(b->model, n), bytes, 0, TS_RED_PAIRWISE, NULL, 0);
        free(buf);
        return TS_OK;
    }
    int32_t radix[64], k = sra_radix(b->model, nn);
    int rounds = 0;
    int32_t core = ts__cs_kn_core(nn, k, radix, &rounds);
    int32_t ai = 0;
    for (int32_t i = 0; i < na; i++)
        if (ac[i] == me)
            ai = i;
    gview_t node = {nd, nn, li}, across = {ac, na, ai};
    ts__cs_kn_sra(b, &node, k, bytes, 0, TS_RED_PAIRWISE, li < core ? &across : NULL,
                  b->model->net_radix);
    free(buf);
    return TS_OK;
}

/* UCC's radix on host memory for its scatter-reduce-allgather (model.ucc.sra_radix) and its
 * k-nomial allgather (model.ucc.allgather_radix): the parameter, or with 0 (auto) the team's
 * host radix (tl_ucp_team.c, ranks bound within a socket): of the radices 2 .. the smallest
 * socket's rank count, the first whose k-nomial pattern leaves no rank outside its core, else
 * the one leaving the fewest (recursive_knomial.h, ucc_kn_get_opt_radix): 6 on 36 and on 72
 * ranks. */
static int32_t ucc_host_radix(int32_t set, const ts_coll_topo_t *t)
{
    if (set >= 2)
        return set;
    int32_t best = 2, least = t->n, radix[64], hi = t->min_socket > 2 ? t->min_socket : 2;
    for (int32_t k = 2; k <= hi; k++) {
        int rounds = 0;
        int32_t extra = t->n - ts__cs_kn_core(t->n, k, radix, &rounds);
        if (extra == 0)
            return k;
        if (extra < least) {
            least = extra;
            best = k;
        }
    }
    return best;
}

ts_status ts_coll_schedule(const ts_coll_model_t *m, const ts_coll_choice_t *choice, int op,
                           const ts_coll_topo_t *topo, int32_t me, int32_t root, uint64_t bytes,
                           ts_csched_t *out)
{
    out->n = 0;
    out->rounds = 0;
    build_t b = {.model = m, .s = out, .comp = choice->comp};
    ts_status st = TS_OK;
    if (choice->comp == TS_CCOMP_NONE || topo->n <= 1)
        return TS_OK;
    if (choice->comp == TS_CCOMP_HCOLL && choice->alg == TS_CALG_KN_SRA) {
        st = hcoll_sra(&b, topo, me, bytes);
    } else if (choice->comp == TS_CCOMP_UCC && choice->alg == TS_CALG_KN_SRA) {
        gview_t all = {NULL, topo->n, me};
        ts__cs_kn_sra(&b, &all, ucc_host_radix(m->ucc_sra_radix, topo), bytes, 1, TS_RED_FUSED,
                      NULL, 0);
    } else if (choice->comp == TS_CCOMP_UCC && op == TS_COLL_ALLGATHER &&
               choice->alg == TS_CALG_KNOMIAL) {
        gview_t all = {NULL, topo->n, me};
        ts__cs_kn_allgather(&b, &all, ucc_host_radix(m->ucc_ag_radix, topo), bytes);
    } else if (choice->alg == TS_CALG_HIER) {
        st = hier(&b, choice, op, topo, me, root, bytes);
    } else {
        gview_t g = {NULL, topo->n, me};
        st = ts__cs_flat(&b, op, choice->alg, &g, root, bytes, choice->segsize, choice->posts);
    }
    if (b.oom)
        return TS_ENOMEM;
    return st;
}

void ts_csched_free(ts_csched_t *s)
{
    free(s->step);
    s->step = NULL;
    s->n = s->cap = 0;
}
