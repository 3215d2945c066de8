/* test_coll_components.c - the collective components' schedules (models/coll_hier.c and
 * UCC's in coll_flat.c): HCOLL's groups under block / cyclic placement and NPS1 / NPS2, its
 * large-data Allreduce, its leaders' registered buffers and its pipelined shared-memory
 * fan-out; UCC's k-nomial and scatter-reduce-allgather Allreduce on UCC's pattern; and every
 * HCOLL, HAN and UCC schedule of every op executed symbolically (collsim.h). */
#include <stdlib.h>
#include <string.h>

#include "collsim.h"
#include "testutil.h"

/* The first round of a non-leader in HCOLL's Allreduce is its send up the socket tree: to a
 * rank of its own socket (or NUMA domain). Node leaders exchange across the network. */
static void check_hcoll(int nps, ts_map_by map_by, const char *group)
{
    ts_placement_t *pl = place(nps, map_by);
    const char *sets[] = {"model.hcoll.group", group, NULL};
    ts_coll_model_t *m = model_with(sets);
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(72, NULL, loc_place, pl, &topo) == TS_OK);
    CU_ASSERT(topo->nnodes == 2);
    int by_numa = strcmp(group, "numa") == 0;
    ts_coll_choice_t ch;
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &ch);
    CU_ASSERT_FATAL(ch.comp == TS_CCOMP_HCOLL);
    static sim_t S;
    CU_ASSERT(simulate(m, topo, TS_COLL_ALLREDUCE, &ch, -1, 8, &S) == 1);
    char why[128];
    CU_ASSERT(outcome_ok(TS_COLL_ALLREDUCE, &S, -1, why, sizeof why));
    int net_msgs = 0;
    for (int r = 0; r < 72; r++) {
        const ts_rank_place_t *pr = ts_placement_rank(pl, r);
        for (size_t i = 0; i < S.s[r].n; i++) {
            const ts_cstep_t *st = &S.s[r].step[i];
            if (st->kind != TS_CSTEP_SEND)
                continue;
            const ts_rank_place_t *pp = ts_placement_rank(pl, st->peer);
            if (pp->node != pr->node) {
                net_msgs++;
                /* only the node leaders (lowest rank of each node) talk across nodes */
                CU_ASSERT(r == 0 || r == 36);
            } else if (r != topo->low_node[r] &&
                       (by_numa ? topo->low_numa[r] : topo->low_socket[r]) != r) {
                /* a non-leader only talks inside its group */
                CU_ASSERT(by_numa ? pp->numa == pr->numa : pp->socket == pr->socket);
            }
        }
    }
    CU_ASSERT(net_msgs == 2); /* one exchange between the two node leaders */
    /* groups follow the placement: under cyclic placement ranks 0 and 1 are on different
     * NUMA domains, under block on the same */
    int same01 = by_numa ? topo->numa[0] == topo->numa[1] : topo->socket[0] == topo->socket[1];
    if (map_by == TS_MAP_BLOCK)
        CU_ASSERT(same01);
    if (map_by == TS_MAP_CYCLIC && by_numa)
        CU_ASSERT(!same01);
    sim_free(&S);
    ts_coll_topo_free(topo);
    ts_coll_model_free(m);
    ts_placement_close(pl);
}

static void test_hcoll_groups(void)
{
    check_hcoll(1, TS_MAP_BLOCK, "socket");
    check_hcoll(2, TS_MAP_BLOCK, "socket");
    check_hcoll(1, TS_MAP_CYCLIC, "socket");
    check_hcoll(2, TS_MAP_CYCLIC, "socket");
    check_hcoll(2, TS_MAP_BLOCK, "numa");
    check_hcoll(2, TS_MAP_CYCLIC, "numa");
    /* Under NPS1 block the socket groups are ranks 0-17 and 18-35 of each node. */
    ts_placement_t *pl = NULL;
    ts_coll_topo_t *topo = block_topo(72, &pl);
    CU_ASSERT(topo->low_socket[17] == 0 && topo->low_socket[18] == 18);
    CU_ASSERT(topo->low_socket[53] == 36 && topo->low_socket[54] == 54);
    CU_ASSERT(topo->low_node[71] == 36);
    ts_coll_topo_free(topo);
    ts_placement_close(pl);
}

/* HCOLL's large-data Allreduce (model.hcoll.allreduce_large, 64 KiB by default) on 2 x 36,
 * block, NPS1: from 64 KiB a k-nomial scatter-reduce-allgather inside each node at radix 6
 * (36 = 6^2, no rank left out: the auto radix), each rank's block combined with the rank of
 * the same place on the other node. 73,728 B = 9,216 doubles: blocks of 1,536 doubles
 * (12,288 B) at distance 1, then 256 (2,048 B) at distance 6, the 2,048 B across, then the
 * allgather back. Below 64 KiB the shared-memory fan-in stays. */
static void test_hcoll_large_allreduce(void)
{
    ts_placement_t *pl = place(1, TS_MAP_BLOCK);
    ts_coll_model_t *m = model_with(NULL);
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(72, NULL, loc_place, pl, &topo) == TS_OK);
    ts_coll_choice_t ch;
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 65535, &ch);
    CU_ASSERT(ch.comp == TS_CCOMP_HCOLL && ch.alg == TS_CALG_HIER);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 65536, &ch); /* from 64 KiB, itself included */
    CU_ASSERT(ch.comp == TS_CCOMP_HCOLL && ch.alg == TS_CALG_KN_SRA);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 73728, &ch);
    CU_ASSERT_FATAL(ch.comp == TS_CCOMP_HCOLL && ch.alg == TS_CALG_KN_SRA);
    ts_csched_t s = {0};
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 73728, &s) == TS_OK);
    CU_ASSERT(s.rounds == 5);
    ROUND_IS(&s, 0,
             "S1:12288 R1:12288 S2:12288 R2:12288 S3:12288 R3:12288 S4:12288 R4:12288 "
             "S5:12288 R5:12288 +61440");
    ROUND_IS(&s, 1,
             "S6:2048 R6:2048 S12:2048 R12:2048 S18:2048 R18:2048 S24:2048 R24:2048 "
             "S30:2048 R30:2048 +10240");
    ROUND_IS(&s, 2, "S36:2048 R36:2048 +2048");
    ROUND_IS(&s, 3,
             "S6:2048 R6:2048 S12:2048 R12:2048 S18:2048 R18:2048 S24:2048 R24:2048 "
             "S30:2048 R30:2048");
    ROUND_IS(&s, 4,
             "S1:12288 R1:12288 S2:12288 R2:12288 S3:12288 R3:12288 S4:12288 R4:12288 "
             "S5:12288 R5:12288");
    /* Rank 40 (place 4 of node 1): its block peers are 36-41's others, then 46, 52, ... */
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, 40, -1, 73728, &s) == TS_OK);
    ROUND_IS(&s, 2, "S4:2048 R4:2048 +2048");
    /* Every rank ends with every contribution, and nothing deadlocks. */
    static sim_t S;
    CU_ASSERT(simulate(m, topo, TS_COLL_ALLREDUCE, &ch, -1, 73728, &S) == 1);
    char why[128] = "";
    CU_ASSERT(outcome_ok(TS_COLL_ALLREDUCE, &S, -1, why, sizeof why));
    sim_free(&S);
    /* UCC's k-nomial pattern: the core, a multiple of k^(d-1), and each round's radix. */
    int32_t radix[64];
    int rounds = 0;
    CU_ASSERT(ts__cs_kn_core(36, 4, radix, &rounds) == 32 && rounds == 3);
    CU_ASSERT(radix[0] == 4 && radix[1] == 4 && radix[2] == 2);
    CU_ASSERT(ts__cs_kn_core(72, 4, radix, &rounds) == 64 && rounds == 3 && radix[2] == 4);
    CU_ASSERT(ts__cs_kn_core(36, 6, radix, &rounds) == 36 && rounds == 2);
    CU_ASSERT(ts__cs_kn_core(32, 8, radix, &rounds) == 32 && rounds == 2 && radix[1] == 4);
    CU_ASSERT(ts__cs_kn_core(1, 4, radix, &rounds) == 1 && rounds == 0);
    /* A radix that leaves ranks out (4: a core of 32, ranks 32-35 folded in) still completes. */
    const char *r4[] = {"model.hcoll.sra_radix", "4", NULL};
    ts_coll_model_t *m4 = model_with(r4);
    allreduce_completes(m4, topo, &ch, 73728);
    ts_coll_model_free(m4);
    ts_csched_free(&s);
    ts_coll_topo_free(topo);
    ts_coll_model_free(m);
    ts_placement_close(pl);
}

/* HCOLL's leaders exchange between its own registered buffers (model.hcoll.net_buffers):
 * on 2 x 36, block, the Allgather of 64 B sends 2,304 B (36 blocks) between ranks 0 and 36,
 * marked registered; the steps inside the node are shared-memory ones, never registered; with
 * net_buffers=user nothing is; HAN's leaders (its Allreduce of 8 B) use the MPI buffers;
 * HCOLL's large-data Allreduce works on the MPI buffers too. */
static void test_hcoll_registered_buffers(void)
{
    ts_placement_t *pl = NULL;
    ts_coll_topo_t *topo = block_topo(72, &pl);
    const char *user[] = {"model.hcoll.net_buffers", "user", NULL};
    const char *han[] = {"coll_hcoll_enable", "0", "coll_han_priority", "35", NULL};
    ts_coll_model_t *ms[3] = {model_with(NULL), model_with(user), model_with(han)};
    for (int k = 0; k < 3; k++) {
        /* HAN: its Allreduce of 8 B, whose leaders pass the 8 B */
        int op = k == 2 ? TS_COLL_ALLREDUCE : TS_COLL_ALLGATHER;
        uint64_t bytes = k == 2 ? 8 : 64, across = k == 2 ? 8 : 2304;
        ts_coll_choice_t ch;
        ts_coll_select(ms[k], op, 72, topo->nnodes, bytes, &ch);
        CU_ASSERT_FATAL(ch.comp == (k == 2 ? TS_CCOMP_HAN : TS_CCOMP_HCOLL));
        ts_csched_t s = {0};
        CU_ASSERT_FATAL(ts_coll_schedule(ms[k], &ch, op, topo, 0, -1, bytes, &s) == TS_OK);
        int net = 0, reg = 0, other_reg = 0;
        for (size_t i = 0; i < s.n; i++) {
            const ts_cstep_t *st = &s.step[i];
            if (st->kind != TS_CSTEP_SEND)
                continue;
            if (st->peer == 36) {
                net++;
                reg += st->registered;
                CU_ASSERT(st->bytes == across && !st->shared);
            } else {
                other_reg += st->registered;
            }
        }
        CU_ASSERT_EQUAL(net, 1);
        CU_ASSERT_EQUAL(reg, k == 0 ? 1 : 0);
        CU_ASSERT_EQUAL(other_reg, 0);
        ts_csched_free(&s);
    }
    /* HAN's leaders reduce to the first and it broadcasts back (coll_han_allreduce.c, ur
     * then ub): rank 0's only network steps are a receive from rank 36, then a send to it (an
     * exchange would send first). */
    ts_coll_choice_t ch;
    ts_coll_select(ms[2], TS_COLL_ALLREDUCE, 72, topo->nnodes, 8, &ch);
    ts_csched_t hs = {0};
    CU_ASSERT_FATAL(ts_coll_schedule(ms[2], &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 8, &hs) == TS_OK);
    int seq = 0;
    for (size_t i = 0; i < hs.n; i++)
        if (hs.step[i].kind != TS_CSTEP_END && hs.step[i].kind != TS_CSTEP_CPU &&
            hs.step[i].peer == 36)
            seq = seq * 10 + (hs.step[i].kind == TS_CSTEP_SEND ? 1 : 2);
    CU_ASSERT_EQUAL(seq, 21);
    ts_csched_free(&hs);
    /* Three 64 KiB segments (coll_han_allreduce.c's tasks): rank 0's steps with rank 1 (r:
     * the node's reduce takes its first child, s: the node's broadcast reaches it) and with
     * rank 36 (U: the leaders' reduce, B: their broadcast) come as issued: lr0, ur0, lr1, ub0,
     * ur1, lr2, then ub(s + 1), ur(s + 2), lb(s) for s = 0, 1, 2; rank 1 sends its three
     * segments up, then gets the three results. */
    {
        uint64_t three = 3 * 65536;
        ts_coll_select(ms[2], TS_COLL_ALLREDUCE, 72, topo->nnodes, three, &ch);
        CU_ASSERT_FATAL(ch.comp == TS_CCOMP_HAN && ch.segsize == 65536);
        char order[32] = "";
        size_t k = 0;
        CU_ASSERT_FATAL(ts_coll_schedule(ms[2], &ch, TS_COLL_ALLREDUCE, topo, 0, -1, three, &hs) ==
                        TS_OK);
        for (size_t i = 0; i < hs.n && k + 1 < sizeof order; i++) {
            const ts_cstep_t *st = &hs.step[i];
            int snd = st->kind == TS_CSTEP_SEND;
            int rcv = st->kind == TS_CSTEP_RECV || st->kind == TS_CSTEP_RECV_NEXT;
            if ((snd || rcv) && (st->peer == 1 || st->peer == 36)) {
                CU_ASSERT(st->bytes == 65536);
                order[k++] = st->peer == 1 ? (snd ? 's' : 'r') : (snd ? 'B' : 'U');
            }
        }
        order[k] = 0;
        CU_ASSERT_STRING_EQUAL(order, "rUrBUrBUsBss");
        CU_ASSERT_FATAL(ts_coll_schedule(ms[2], &ch, TS_COLL_ALLREDUCE, topo, 1, -1, three, &hs) ==
                        TS_OK);
        rounds_are(&hs, 6,
                   (const char *const[6]){"S0:65536", "S0:65536", "S0:65536", "R0:65536",
                                          "R0:65536", "R0:65536"});
        ts_csched_free(&hs);
    }
    ts_coll_select(ms[0], TS_COLL_ALLREDUCE, 72, topo->nnodes, 73728, &ch);
    CU_ASSERT_FATAL(ch.alg == TS_CALG_KN_SRA);
    ts_csched_t s = {0};
    CU_ASSERT_FATAL(ts_coll_schedule(ms[0], &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 73728, &s) ==
                    TS_OK);
    for (size_t i = 0; i < s.n; i++)
        CU_ASSERT(!s.step[i].registered);
    ts_csched_free(&s);
    for (int k = 0; k < 3; k++)
        ts_coll_model_free(ms[k]);
    ts_coll_topo_free(topo);
    ts_placement_close(pl);
}

/* UCC's Allreduce below 4 KiB: recursive k-ing at radix 4 on UCC's k-nomial pattern. 72
 * ranks: a core of 64, and 8 extra ranks, the odd ones below 16, each paired with the even
 * rank before it (on its own node). Rank 0 takes rank 1's vector, exchanges with loop ranks
 * 1-3 (ranks 2, 4, 6), 4, 8, 12 (8, 16, 20) and 16, 32, 48 (24, 40, 56), and gives rank 1 the
 * result; rank 71 (loop rank 63) with 68-70, 59, 63, 67 and 23, 39, 55; rank 1 only folds. */
static void test_ucc_knomial_allreduce(void)
{
    ts_placement_t *pl = NULL;
    ts_coll_topo_t *topo = block_topo(72, &pl);
    const char *ucc[] = {"coll_hcoll_enable", "0", "coll_ucc_enable", "1", NULL};
    ts_coll_model_t *m = model_with(ucc);
    ts_coll_choice_t ch;
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, topo->nnodes, 8, &ch);
    CU_ASSERT_FATAL(ch.comp == TS_CCOMP_UCC && ch.alg == TS_CALG_KN_RECURSIVE);
    static const struct {
        int32_t me, first_recv, sends[10];
        int nsends;
    } want[] = {{0, 1, {2, 4, 6, 8, 16, 20, 24, 40, 56, 1}, 10},
                {71, 68, {68, 69, 70, 59, 63, 67, 23, 39, 55}, 9},
                {1, 0, {0}, 1}};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        ts_csched_t s = {0};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, want[w].me, -1, 8, &s) ==
                        TS_OK);
        int ns = 0, first = -1;
        for (size_t i = 0; i < s.n; i++) {
            const ts_cstep_t *st = &s.step[i];
            if (st->kind == TS_CSTEP_RECV && first < 0)
                first = st->peer;
            if (st->kind != TS_CSTEP_SEND)
                continue;
            CU_ASSERT(ns < want[w].nsends && st->peer == want[w].sends[ns]);
            CU_ASSERT_EQUAL(st->bytes, 8);
            ns++;
        }
        CU_ASSERT_EQUAL(ns, want[w].nsends);
        CU_ASSERT_EQUAL(first, want[w].first_recv);
        ts_csched_free(&s);
    }
    /* UCC's executor combines a round's four vectors in one pass (ec_cpu_reduce.c): 3,000 B
     * a vector is charged as 3,000 x 5 / 3 = 5,000 B of two-operand reduction a round, where
     * three pairwise passes would be 9,000 B. Rank 0: rank 1's fold (two operands, 3,000 B),
     * then three rounds of radix 4. */
    ts_csched_t s = {0};
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 3000, &s) == TS_OK);
    uint64_t want_red[] = {3000, 5000, 5000, 5000};
    size_t nred = 0;
    for (size_t i = 0; i < s.n; i++)
        if (s.step[i].kind == TS_CSTEP_END && s.step[i].bytes > 0) {
            CU_ASSERT(nred < 4 && s.step[i].bytes == want_red[nred]);
            nred++;
        }
    CU_ASSERT_EQUAL(nred, 4);
    ts_csched_free(&s);
    CU_ASSERT_EQUAL(ts__cs_red_bytes(TS_RED_FUSED, 6, 600), 1400);
    CU_ASSERT_EQUAL(ts__cs_red_bytes(TS_RED_PAIRWISE, 6, 600), 3000);
    CU_ASSERT_EQUAL(ts__cs_red_bytes(TS_RED_FUSED, 2, 600), 600); /* two operands: the same */
    CU_ASSERT_EQUAL(ts__cs_red_bytes(TS_RED_NONE, 6, 600), 0);
    allreduce_completes(m, topo, &ch, 8);
    ts_coll_model_free(m);
    ts_coll_topo_free(topo);
    ts_placement_close(pl);
}

/* UCC's Allreduce from 4 KiB: one scatter-reduce-allgather over all 72 ranks (2 x 36, block,
 * NPS1: 18 ranks a socket) at UCC's own radix, 6 (72 = 6 x 6 x 2: no rank outside the core).
 * Rank 0's vector of 73,728 B (9,216 doubles): round 1 sends ranks 1-5 a sixth each
 * (12,288 B), round 2 ranks 6, 12, .. 30 a sixth of its 1,536 doubles (2,048 B), round 3
 * rank 36, across the network, half of its 256 (1,024 B); the allgather sends the same back
 * in reverse. model.ucc.sra_radix=4 gives 64 ranks a core, and the 8 extra ranks pair as
 * UCC pairs them: rank 1 folds into rank 0. */
static void test_ucc_sra_allreduce(void)
{
    ts_placement_t *pl = NULL;
    ts_coll_topo_t *topo = block_topo(72, &pl);
    const char *ucc[] = {"coll_hcoll_enable", "0", "coll_ucc_enable", "1", NULL};
    const char *ucc4[] = {
        "coll_hcoll_enable", "0", "coll_ucc_enable", "1", "model.ucc.sra_radix", "4", NULL};
    ts_coll_model_t *m = model_with(ucc), *m4 = model_with(ucc4);
    ts_coll_choice_t ch;
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, topo->nnodes, 73728, &ch);
    CU_ASSERT_FATAL(ch.comp == TS_CCOMP_UCC && ch.alg == TS_CALG_KN_SRA);
    ts_csched_t s = {0};
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 73728, &s) == TS_OK);
    uint64_t bytes = 0, total = 0;
    for (int32_t p = 1; p <= 5; p++) {
        CU_ASSERT_EQUAL(steps_of(&s, TS_CSTEP_SEND, p, TS_SM_NONE, &bytes), 2);
        CU_ASSERT_EQUAL(bytes, 12288);
        CU_ASSERT_EQUAL(steps_of(&s, TS_CSTEP_SEND, p * 6, TS_SM_NONE, &bytes), 2);
        CU_ASSERT_EQUAL(bytes, 2048);
    }
    CU_ASSERT_EQUAL(steps_of(&s, TS_CSTEP_SEND, 36, TS_SM_NONE, &bytes), 2);
    CU_ASSERT_EQUAL(bytes, 1024);
    for (size_t i = 0; i < s.n; i++)
        if (s.step[i].kind == TS_CSTEP_SEND)
            total += s.step[i].bytes;
    CU_ASSERT_EQUAL(total, 2 * (5 * 12288 + 5 * 2048 + 1024));
    /* each round's blocks combined in one pass over its six sources (ec_cpu_reduce.c): the
     * first round 12,288 x 7 / 3 = 28,672 B of two-operand reduction (five pairwise passes:
     * 61,440); the radix-2 third round 1,024 either way */
    uint64_t red[8];
    size_t nred = 0;
    for (size_t i = 0; i < s.n && nred < 8; i++)
        if (s.step[i].kind == TS_CSTEP_END && s.step[i].bytes > 0)
            red[nred++] = s.step[i].bytes;
    CU_ASSERT_EQUAL_FATAL(nred, 3);
    CU_ASSERT_EQUAL(red[0], 28672);
    CU_ASSERT_EQUAL(red[1], 2048 * 7 / 3);
    CU_ASSERT_EQUAL(red[2], 1024);
    ts_csched_free(&s);
    /* radix 4, UCC's pattern: rank 0 first takes rank 1's whole vector, and hands it the
     * result last; rank 64, in the core, never folds */
    CU_ASSERT_FATAL(ts_coll_schedule(m4, &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 73728, &s) == TS_OK);
    CU_ASSERT_EQUAL(steps_of(&s, TS_CSTEP_RECV, 1, TS_SM_NONE, &bytes), 1);
    CU_ASSERT_EQUAL(bytes, 73728);
    CU_ASSERT_EQUAL(steps_of(&s, TS_CSTEP_SEND, 1, TS_SM_NONE, &bytes), 1);
    CU_ASSERT_EQUAL(bytes, 73728);
    CU_ASSERT(s.step[0].kind == TS_CSTEP_RECV && s.step[0].peer == 1);
    ts_csched_free(&s);
    allreduce_completes(m4, topo, &ch, 73728);
    allreduce_completes(m, topo, &ch, 73728);
    ts_coll_model_free(m);
    ts_coll_model_free(m4);
    ts_coll_topo_free(topo);
    ts_placement_close(pl);
}

/* HCOLL's shared-memory fan-out is pipelined (model.hcoll.sm_fragment, 4 KiB; at most
 * model.hcoll.sm_fragments_max, 16, pieces): on 1 x 36, block, NPS1, the Allgather of 1 KiB
 * a rank gathers 36 KiB; the leaders' vector goes down in 9 pieces of 4 KiB, each read from
 * the parent's buffer (TS_SM_READ). The fan-in's first level copies a rank's own 1 KiB in
 * (TS_SM_COPY); socket 1's leader (18) passes its 18 blocks (18 KiB) up from its buffer, and
 * the pieces down to its socket as they arrive (one pipeline through both levels). At
 * 1 MiB a rank the 36 MiB go in 16 pieces of 2.25 MiB. The Allreduce's fan-in is reduced in
 * place (TS_SM_WRITE: copied in, no copy out). With sm_fragment=inf and sm_buffers=copy every
 * step carries the whole vector, copied in and out. */
static void test_hcoll_pipelined_fanout(void)
{
    ts_placement_t *pl = NULL;
    ts_coll_topo_t *topo = block_topo(36, &pl);
    const char *whole[] = {"model.hcoll.sm_fragment", "inf", "model.hcoll.sm_buffers", "copy",
                           NULL};
    ts_coll_model_t *m = model_with(NULL), *mw = model_with(whole);
    ts_coll_choice_t ch;
    ts_coll_select(m, TS_COLL_ALLGATHER, 36, 2, 1024, &ch);
    CU_ASSERT_FATAL(ch.comp == TS_CCOMP_HCOLL && ch.alg == TS_CALG_HIER);
    ts_csched_t s = {0};
    uint64_t by = 0;
    /* rank 1: its block up to 0, the vector back from its parent in the socket's tree */
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLGATHER, topo, 1, -1, 1024, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_SEND, 0, TS_SM_COPY, &by) == 1 && by == 1024);
    CU_ASSERT(steps_of(&s, TS_CSTEP_RECV, 0, 0, &by) == 9 && by == 4096);
    /* rank 18: socket 1's 18 blocks up from its buffer, the vector from 0 in 9 pieces */
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLGATHER, topo, 18, -1, 1024, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_SEND, 0, TS_SM_READ, &by) == 1 && by == 18432);
    CU_ASSERT(steps_of(&s, TS_CSTEP_RECV, 0, 0, &by) == 9 && by == 4096);
    /* ... and passes each piece on to its socket (19 first) as it comes: its first send to 19
     * is in the round after its first piece arrived, long before the last */
    size_t first_to_19 = s.n, last_from_0 = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.step[i].kind == TS_CSTEP_SEND && s.step[i].peer == 19 && first_to_19 == s.n)
            first_to_19 = i;
        if (s.step[i].kind == TS_CSTEP_RECV && s.step[i].peer == 0)
            last_from_0 = i;
    }
    CU_ASSERT(first_to_19 < last_from_0);
    /* rank 0 reads nothing back; its sends to 18 are the 9 pieces, from its buffer */
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLGATHER, topo, 0, -1, 1024, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_SEND, 18, TS_SM_READ, &by) == 9 && by == 4096);
    /* 1 MiB a rank: 16 pieces of 36 MiB / 16 */
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLGATHER, topo, 1, -1, 1 << 20, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_RECV, 0, 0, &by) == 16 && by == (36u << 20) / 16);
    /* unpipelined: one step of the whole vector, copied in and out */
    CU_ASSERT_FATAL(ts_coll_schedule(mw, &ch, TS_COLL_ALLGATHER, topo, 0, -1, 1024, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_SEND, 18, TS_SM_COPY, &by) == 1 && by == 36864);
    /* Allreduce of 4 KiB: rank 1 writes its data for 0 to reduce in place; the result comes
     * back in one piece (not larger than a fragment), read from 0's buffer */
    ts_coll_select(m, TS_COLL_ALLREDUCE, 36, 2, 4096, &ch);
    CU_ASSERT_FATAL(ch.comp == TS_CCOMP_HCOLL && ch.alg == TS_CALG_HIER);
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, 1, -1, 4096, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_SEND, 0, TS_SM_WRITE, &by) == 1 && by == 4096);
    CU_ASSERT(steps_of(&s, TS_CSTEP_RECV, 0, 0, &by) == 1 && by == 4096);
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLREDUCE, topo, 0, -1, 4096, &s) == TS_OK);
    CU_ASSERT(steps_of(&s, TS_CSTEP_SEND, 1, TS_SM_READ, &by) == 1 && by == 4096);
    ts_coll_select(m, TS_COLL_ALLGATHER, 36, 2, 1024, &ch);
    /* the pipelined schedules still complete as an Allgather */
    static sim_t S;
    char why[128] = "";
    CU_ASSERT(simulate(m, topo, TS_COLL_ALLGATHER, &ch, -1, 1 << 20, &S) == 1);
    CU_ASSERT(outcome_ok(TS_COLL_ALLGATHER, &S, -1, why, sizeof why));
    sim_free(&S);
    ts_csched_free(&s);
    ts_coll_model_free(m);
    ts_coll_model_free(mw);
    ts_coll_topo_free(topo);
    ts_placement_close(pl);
}

/* Every hierarchical and UCC schedule of every op completes with the right outcome on the
 * real 2 x 36 placement, any root: at 64 B, and at 32 KiB, where HCOLL's fan-outs go down in
 * pieces through both levels (and UCC's Alltoall runs pairwise, or in windows of 5 steps). */
static void test_components_complete(void)
{
    ts_placement_t *pl = place(2, TS_MAP_CYCLIC);
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(72, NULL, loc_place, pl, &topo) == TS_OK);
    const char *hc[] = {NULL};
    const char *han[] = {"coll_hcoll_enable", "0", "coll_han_priority", "35", NULL};
    const char *ucc[] = {"coll_hcoll_enable", "0", "coll_ucc_enable", "1", NULL};
    const char *window[] = {
        "coll_hcoll_enable", "0", "coll_ucc_enable", "1", "model.ucc.alltoall_posts", "5", NULL};
    const char *const *sets[] = {hc, han, ucc, window};
    static const int ops[] = {TS_COLL_ALLREDUCE, TS_COLL_BCAST,     TS_COLL_REDUCE,
                              TS_COLL_BARRIER,   TS_COLL_ALLGATHER, TS_COLL_ALLTOALL,
                              TS_COLL_GATHER,    TS_COLL_SCATTER,   TS_COLL_ALLGATHERV};
    static sim_t S;
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        ts_coll_model_t *m = model_with(sets[k]);
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            for (uint64_t bytes = 64; bytes <= 32768; bytes *= 512)
                for (int32_t root = 0; root < 72; root += 37) {
                    ts_coll_choice_t ch;
                    ts_coll_select(m, ops[i], 72, topo->nnodes, bytes, &ch);
                    int ok = simulate(m, topo, ops[i], &ch, root, bytes, &S);
                    char why[128] = "";
                    if (ok != 1 || !outcome_ok(ops[i], &S, root, why, sizeof why)) {
                        fprintf(stderr, "\n  %s of %llu B by %s/%s root %d: %s\n",
                                ts_coll_op_name(ops[i]), (unsigned long long)bytes,
                                ts_coll_comp_name(ch.comp), ts_coll_alg_name(ch.alg), (int)root,
                                ok != 1 ? "deadlock, unmatched or mis-sized" : why);
                        CU_FAIL("component schedule does not implement the collective");
                    }
                    sim_free(&S);
                }
        ts_coll_model_free(m);
    }
    ts_coll_topo_free(topo);
    ts_placement_close(pl);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("coll_components", NULL, NULL);
    CU_add_test(s, "HCOLL groups under placements", test_hcoll_groups);
    CU_add_test(s, "HCOLL, HAN and UCC schedules complete", test_components_complete);
    CU_add_test(s, "HCOLL's large-data Allreduce, exact", test_hcoll_large_allreduce);
    CU_add_test(s, "HCOLL's leaders between registered buffers", test_hcoll_registered_buffers);
    CU_add_test(s, "UCC's scatter-reduce-allgather Allreduce, exact", test_ucc_sra_allreduce);
    CU_add_test(s, "UCC's k-nomial Allreduce on UCC's pattern, exact", test_ucc_knomial_allreduce);
    CU_add_test(s, "HCOLL's pipelined shared-memory fan-out, exact", test_hcoll_pipelined_fanout);
    return tu_run_all();
}
