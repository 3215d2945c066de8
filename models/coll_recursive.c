/* coll_recursive.c - schedule building blocks that halve, double or ring the data
 * (coll_impl.h): recursive doubling and k-nomial with Open MPI's fold of the extra ranks,
 * UCC's and HCOLL's k-nomial scatter-reduce-allgather and allgather, the ring Allreduce and
 * Rabenseifner's. The point-to-point rounds they are made of are in coll_blocks.c. */
#include "coll_impl.h"

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

/* The k-nomial pattern's extra ranks folded in: an extra rank hands its vector to its partner
 * and gets the result back at the end (1: its part is done); a proxy first takes its
 * partner's vector, reducing red bytes of it. */
static int kn_fold_in(build_t *b, const gview_t *g, kn_place_t at, uint64_t bytes, uint64_t red)
{
    if (at.extra) {
        ts__cs_send_to(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
        ts__cs_recv_from(b, g, at.partner, bytes);
        ts__cs_end_round(b, 0);
        return 1;
    }
    if (at.partner >= 0) {
        ts__cs_recv_from(b, g, at.partner, bytes);
        ts__cs_end_round(b, red);
    }
    return 0;
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
    if (kn_fold_in(b, g, at, bytes, reduce ? bytes : 0))
        return;
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
    if (kn_fold_in(b, g, at, bytes, bytes))
        return;
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
    /* reduce-scatter by recursive halving: the lower rank of each pair keeps the lower half,
     * rounded down (an odd window's middle element goes up, as Open MPI's rcount = wsize / 2
     * for the lower rank, coll_base_allreduce.c and coll_base_reduce.c) */
    uint64_t window = count, sent[32], kept[32];
    int steps = 0;
    for (int32_t mask = 1; mask < p2; mask <<= 1, steps++) {
        int32_t nr = newrank ^ mask;
        int32_t peer = nr < extra ? nr * 2 + stay : nr + extra;
        uint64_t low = window / 2, high = window - low;
        sent[steps] = newrank < nr ? high : low;
        kept[steps] = newrank < nr ? low : high;
        ts__cs_send_to(b, g, peer, sent[steps] * elem);
        ts__cs_recv_from(b, g, peer, kept[steps] * elem);
        ts__cs_end_round(b, kept[steps] * elem);
        window = kept[steps];
    }
    if (mode == RAB_ALLREDUCE) { /* allgather by recursive doubling, the reverse: each step
                                  * sends what it reduced and gets what it sent */
        for (int32_t mask = p2 >> 1; mask >= 1; mask >>= 1) {
            int32_t nr = newrank ^ mask;
            int32_t peer = nr < extra ? nr * 2 + stay : nr + extra;
            steps--;
            ts__cs_send_to(b, g, peer, kept[steps] * elem);
            ts__cs_recv_from(b, g, peer, sent[steps] * elem);
            ts__cs_end_round(b, 0);
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
