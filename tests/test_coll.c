/* test_coll.c - the collective model's flat algorithms (models/coll): every algorithm's
 * schedule on 4, 5, 7, 8, 12, 36 and 72 ranks and several roots is executed symbolically
 * (collsim.h) and must leave the collective's definition (Allreduce: everyone holds all; Bcast:
 * everyone holds the root's; Scan: rank i holds 0..i; ...). Exact schedules of the textbook
 * cases are checked message by message; tuned's decision rules at the boundaries of their
 * ranges; the selection among components; which calls with no data return at once. HCOLL's,
 * HAN's and UCC's schedules are in test_coll_components.c. */
#include <stdlib.h>
#include <string.h>

#include "collsim.h"
#include "testutil.h"

typedef struct algcase_s {
    int op;
    int alg;
} algcase_t;

static const algcase_t FLAT[] = {
    {TS_COLL_ALLREDUCE, TS_CALG_LINEAR},
    {TS_COLL_ALLREDUCE, TS_CALG_NONOVERLAPPING},
    {TS_COLL_ALLREDUCE, TS_CALG_RECURSIVE_DOUBLING},
    {TS_COLL_ALLREDUCE, TS_CALG_RING},
    {TS_COLL_ALLREDUCE, TS_CALG_SEGMENTED_RING},
    {TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER},
    {TS_COLL_ALLREDUCE, TS_CALG_KN_RECURSIVE},
    {TS_COLL_BCAST, TS_CALG_LINEAR},
    {TS_COLL_BCAST, TS_CALG_CHAIN},
    {TS_COLL_BCAST, TS_CALG_PIPELINE},
    {TS_COLL_BCAST, TS_CALG_SPLIT_BINARY},
    {TS_COLL_BCAST, TS_CALG_BINARY},
    {TS_COLL_BCAST, TS_CALG_BINOMIAL},
    {TS_COLL_BCAST, TS_CALG_KNOMIAL},
    {TS_COLL_BCAST, TS_CALG_SCATTER_ALLGATHER},
    {TS_COLL_BCAST, TS_CALG_SCATTER_ALLGATHER_RING},
    {TS_COLL_REDUCE, TS_CALG_LINEAR},
    {TS_COLL_REDUCE, TS_CALG_CHAIN},
    {TS_COLL_REDUCE, TS_CALG_PIPELINE},
    {TS_COLL_REDUCE, TS_CALG_BINARY},
    {TS_COLL_REDUCE, TS_CALG_BINOMIAL},
    {TS_COLL_REDUCE, TS_CALG_IN_ORDER_BINARY},
    {TS_COLL_REDUCE, TS_CALG_RABENSEIFNER},
    {TS_COLL_REDUCE, TS_CALG_KNOMIAL},
    {TS_COLL_ALLGATHER, TS_CALG_LINEAR},
    {TS_COLL_ALLGATHER, TS_CALG_BRUCK},
    {TS_COLL_ALLGATHER, TS_CALG_RECURSIVE_DOUBLING},
    {TS_COLL_ALLGATHER, TS_CALG_RING},
    {TS_COLL_ALLGATHER, TS_CALG_NEIGHBOR},
    {TS_COLL_ALLGATHER, TS_CALG_TWO_PROC},
    {TS_COLL_ALLGATHERV, TS_CALG_RING},
    {TS_COLL_ALLTOALL, TS_CALG_LINEAR},
    {TS_COLL_ALLTOALL, TS_CALG_PAIRWISE},
    {TS_COLL_ALLTOALL, TS_CALG_BRUCK},
    {TS_COLL_ALLTOALL, TS_CALG_LINEAR_SYNC},
    {TS_COLL_ALLTOALLV, TS_CALG_PAIRWISE},
    {TS_COLL_BARRIER, TS_CALG_LINEAR},
    {TS_COLL_BARRIER, TS_CALG_DOUBLE_RING},
    {TS_COLL_BARRIER, TS_CALG_RECURSIVE_DOUBLING},
    {TS_COLL_BARRIER, TS_CALG_BRUCK},
    {TS_COLL_BARRIER, TS_CALG_TREE},
    {TS_COLL_BARRIER, TS_CALG_KN_RECURSIVE},
    {TS_COLL_GATHER, TS_CALG_LINEAR},
    {TS_COLL_GATHER, TS_CALG_BINOMIAL},
    {TS_COLL_GATHER, TS_CALG_LINEAR_SYNC},
    {TS_COLL_GATHERV, TS_CALG_LINEAR},
    {TS_COLL_SCATTER, TS_CALG_LINEAR},
    {TS_COLL_SCATTER, TS_CALG_BINOMIAL},
    {TS_COLL_SCATTER, TS_CALG_LINEAR_NB},
    {TS_COLL_SCATTERV, TS_CALG_LINEAR},
    {TS_COLL_REDUCE_SCATTER, TS_CALG_NONOVERLAPPING},
    {TS_COLL_REDUCE_SCATTER, TS_CALG_RECURSIVE_HALVING},
    {TS_COLL_REDUCE_SCATTER, TS_CALG_RING},
    {TS_COLL_REDUCE_SCATTER, TS_CALG_BUTTERFLY},
    {TS_COLL_SCAN, TS_CALG_LINEAR},
};

static const int SIZES[] = {4, 5, 7, 8, 12, 36, 72};

/* Every flat algorithm, every size, three roots, small and large payloads (segments). */
static void test_all_algorithms_complete(void)
{
    ts_coll_model_t *m = model_with(NULL);
    static sim_t S;
    int cases = 0;
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        int n = SIZES[si];
        ts_coll_topo_t *topo = NULL;
        CU_ASSERT_FATAL(ts_coll_topo_new(n, NULL, loc_apart, NULL, &topo) == TS_OK);
        for (size_t a = 0; a < sizeof FLAT / sizeof FLAT[0]; a++) {
            int32_t roots[3] = {0, n - 1, n / 2};
            uint64_t sizes[2] = {8, 1 << 20};
            for (int ri = 0; ri < 3; ri++)
                for (int bi = 0; bi < 2; bi++) {
                    ts_coll_choice_t ch = {
                        .comp = TS_CCOMP_TUNED, .alg = FLAT[a].alg, .segsize = bi ? 65536 : 0};
                    int ok = simulate(m, topo, FLAT[a].op, &ch, roots[ri], sizes[bi], &S);
                    char why[128] = "";
                    if (ok != 1 || !outcome_ok(FLAT[a].op, &S, roots[ri], why, sizeof why)) {
                        fprintf(stderr, "\n  %s/%s n=%d root=%d bytes=%llu: %s\n",
                                ts_coll_op_name(FLAT[a].op), ts_coll_alg_name(FLAT[a].alg), n,
                                (int)roots[ri], (unsigned long long)sizes[bi],
                                ok < 0    ? "not applicable"
                                : ok == 0 ? "deadlock, unmatched or mis-sized"
                                          : why);
                        CU_FAIL("schedule does not implement the collective");
                    }
                    cases++;
                    sim_free(&S);
                }
        }
        ts_coll_topo_free(topo);
    }
    CU_ASSERT(cases ==
              (int)(sizeof SIZES / sizeof SIZES[0]) * (int)(sizeof FLAT / sizeof FLAT[0]) * 6);
    ts_coll_model_free(m);
}

/* Recursive doubling: 8 ranks exchange with r^1, r^2, r^4 and combine; 5 ranks fold rank 0
 * into 1; 72 ranks take 1 + 6 + 1 rounds at the folded pairs (reference). */
static void test_recursive_doubling_exact(void)
{
    ts_coll_model_t *m = model_with(NULL);
    ts_csched_t s = {0};
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RECURSIVE_DOUBLING, 8, 5, -1, 8, &s);
    CU_ASSERT(s.rounds == 3);
    ROUND_IS(&s, 0, "S4:8 R4:8 +8");
    ROUND_IS(&s, 1, "S7:8 R7:8 +8");
    ROUND_IS(&s, 2, "S1:8 R1:8 +8");
    /* 5 ranks: extra = 1; rank 0 hands its data to 1 and gets the result back; rank 1 is
     * newrank 0, rank 2 newrank 1, ... rank 4 newrank 3. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RECURSIVE_DOUBLING, 5, 0, -1, 8, &s);
    CU_ASSERT(s.rounds == 2);
    ROUND_IS(&s, 0, "S1:8");
    ROUND_IS(&s, 1, "R1:8");
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RECURSIVE_DOUBLING, 5, 1, -1, 8, &s);
    CU_ASSERT(s.rounds == 4);
    ROUND_IS(&s, 0, "R0:8 +8");
    ROUND_IS(&s, 1, "S2:8 R2:8 +8");
    ROUND_IS(&s, 2, "S3:8 R3:8 +8");
    ROUND_IS(&s, 3, "S0:8");
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RECURSIVE_DOUBLING, 7, 6, -1, 8, &s);
    /* 7 ranks: extra 3, rank 6 is newrank 3: partners newrank 2 (rank 5), 1 (rank 3) */
    CU_ASSERT(s.rounds == 2);
    ROUND_IS(&s, 0, "S5:8 R5:8 +8");
    ROUND_IS(&s, 1, "S3:8 R3:8 +8");
    for (int r = 0; r < 72; r++) {
        sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RECURSIVE_DOUBLING, 72, r, -1, 8, &s);
        int want = r < 16 ? (r % 2 ? 8 : 2) : 6;
        CU_ASSERT(s.rounds == want);
    }
    ts_csched_free(&s);
    ts_coll_model_free(m);
}

static void test_ring_and_rabenseifner_exact(void)
{
    ts_coll_model_t *m = model_with(NULL);
    ts_csched_t s = {0};
    /* Ring on 5 ranks, 40 doubles = 320 B: blocks of 8 doubles (64 B); 2 x 4 rounds, right
     * neighbour 3, left neighbour 1; the first 4 rounds combine what they receive. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RING, 5, 2, -1, 320, &s);
    CU_ASSERT(s.rounds == 8);
    for (int k = 0; k < 4; k++)
        ROUND_IS(&s, k, "S3:64 R1:64 +64");
    for (int k = 4; k < 8; k++)
        ROUND_IS(&s, k, "S3:64 R1:64");
    /* Fewer elements than ranks: Open MPI's ring runs recursive doubling; as many (5 doubles)
     * still ring, one double a block. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RING, 5, 2, -1, 16, &s);
    CU_ASSERT(s.rounds == 2);
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RING, 5, 2, -1, 40, &s);
    CU_ASSERT(s.rounds == 8);
    for (int k = 0; k < 4; k++)
        ROUND_IS(&s, k, "S3:8 R1:8 +8");
    for (int k = 4; k < 8; k++)
        ROUND_IS(&s, k, "S3:8 R1:8");
    /* Ring on 3 ranks, 4 doubles: Open MPI's blocks give the extra element to the first
     * (16, 8, 8 B). Rank 0 sends block 0 and combines block 2 as it arrives (8 B), then sends
     * block 2 and combines block 1; it then holds block 1 whole and passes it on, receiving
     * block 0 (16 B), then passes block 0 on, receiving block 2. What a round combines is
     * the block it receives, not the one it sends. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RING, 3, 0, -1, 32, &s);
    rounds_are(&s, 4,
               (const char *const[4]){"S1:16 R2:8 +8", "S1:8 R2:8 +8", "S1:8 R2:16", "S1:16 R2:8"});
    /* Rabenseifner with as many elements as its power-of-two core (8 doubles on 8 ranks):
     * still halving, down to one double. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 8, 0, -1, 64, &s);
    CU_ASSERT(s.rounds == 6);
    ROUND_IS(&s, 0, "S1:32 R1:32 +32");
    ROUND_IS(&s, 1, "S2:16 R2:16 +16");
    ROUND_IS(&s, 2, "S4:8 R4:8 +8");
    /* Rabenseifner on 8 ranks, 1024 doubles: halving 4096, 2048, 1024 B, doubling back. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 8, 0, -1, 8192, &s);
    CU_ASSERT(s.rounds == 6);
    ROUND_IS(&s, 0, "S1:4096 R1:4096 +4096");
    ROUND_IS(&s, 1, "S2:2048 R2:2048 +2048");
    ROUND_IS(&s, 2, "S4:1024 R4:1024 +1024");
    ROUND_IS(&s, 3, "S4:1024 R4:1024");
    ROUND_IS(&s, 4, "S2:2048 R2:2048");
    ROUND_IS(&s, 5, "S1:4096 R1:4096");
    /* 6 ranks, 96 doubles, as Open MPI folds (coll_base_allreduce.c, redscat_allgather): ranks
     * 0 and 1 swap halves and reduce one each, 1 hands its reduced half to 0 and waits for the
     * result; 0 stands for the pair (loop rank 0; loop ranks 2 and 3 are ranks 4 and 5). */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 6, 1, -1, 768, &s);
    rounds_are(&s, 3, (const char *const[3]){"S0:384 R0:384 +384", "S0:384", "R0:768"});
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 6, 0, -1, 768, &s);
    rounds_are(&s, 7,
               (const char *const[7]){"S1:384 R1:384 +384", "R1:384", "S2:384 R2:384 +384",
                                      "S4:192 R4:192 +192", "S4:192 R4:192", "S2:384 R2:384",
                                      "S1:768"});
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 6, 5, -1, 768, &s);
    rounds_are(&s, 4,
               (const char *const[4]){"S4:384 R4:384 +384", "S2:192 R2:192 +192", "S2:192 R2:192",
                                      "S4:384 R4:384"});
    /* 4 ranks, 5 doubles: an odd window's middle element goes to the upper rank of the pair,
     * as Open MPI's lower rank receives wsize / 2 (coll_base_allreduce.c, redscat_allgather).
     * Rank 0 sends 3 doubles to rank 1 and keeps 2, then halves those with rank 2 (1 and 1);
     * back, it sends what it reduced and gets what it sent: 1 double, then 2 for 3. Rank 1
     * keeps 3, then of those sends 2 to rank 3 and keeps 1; back: 1 for 2, then 3 for 2. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 4, 0, -1, 40, &s);
    rounds_are(
        &s, 4,
        (const char *const[4]){"S1:24 R1:16 +16", "S2:8 R2:8 +8", "S2:8 R2:8", "S1:16 R1:24"});
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RABENSEIFNER, 4, 1, -1, 40, &s);
    rounds_are(
        &s, 4,
        (const char *const[4]){"S0:16 R0:24 +24", "S3:16 R3:8 +8", "S3:8 R3:16", "S0:24 R0:16"});
    ts_csched_free(&s);
    ts_coll_model_free(m);
}

static void test_trees_exact(void)
{
    ts_coll_model_t *m = model_with(NULL);
    ts_csched_t s = {0};
    /* Broadcast trees, rank me of n from root, hand-derived round by round. */
    static const struct {
        int alg, n;
        int32_t me, root;
        uint64_t bytes;
        int nrounds;
        const char *round[3];
    } bc[] = {
        /* Binomial on Open MPI's binomial tree (ompi_coll_base_topo_build_bmtree: a vrank's
         * parent clears its highest bit), 8 ranks, root 0: 0 -> 1, 2, 4; 1 -> 3, 5; 3 -> 7;
         * 2 -> 6: the largest subtree first. */
        {TS_CALG_BINOMIAL, 8, 0, 0, 100, 1, {"S1:100 S2:100 S4:100"}},
        {TS_CALG_BINOMIAL, 8, 1, 0, 100, 2, {"R0:100", "S3:100 S5:100"}},
        {TS_CALG_BINOMIAL, 8, 4, 0, 100, 1, {"R0:100"}},
        /* Root 3 of 7: vranks shift by 3; rank 3 sends to 3+1=4, 3+2=5, 3+4=0. */
        {TS_CALG_BINOMIAL, 7, 3, 3, 100, 1, {"S4:100 S5:100 S0:100"}},
        /* Binary on Open MPI's binary tree (ompi_coll_base_topo_build_tree with fanout 2, its
         * comment's example): 7 ranks, 0 -> 1, 2; 1 -> 3, 5; 2 -> 4, 6. */
        {TS_CALG_BINARY, 7, 0, 0, 100, 1, {"S1:100 S2:100"}},
        {TS_CALG_BINARY, 7, 1, 0, 100, 2, {"R0:100", "S3:100 S5:100"}},
        {TS_CALG_BINARY, 7, 6, 0, 100, 1, {"R2:100"}},
        /* 12 ranks: vrank 3 (level 2) takes 7 and 11; vrank 11 hangs off 3. */
        {TS_CALG_BINARY, 12, 3, 0, 100, 2, {"R1:100", "S7:100 S11:100"}},
        /* Split binary (ompi_coll_base_bcast_intra_split_bintree), 7 doubles: the odd vranks
         * carry the first 4 (32 B), the even ones the other 3 (24 B), then v swaps with v + 1. */
        {TS_CALG_SPLIT_BINARY, 7, 1, 0, 56, 3, {"R0:32", "S3:32 S5:32", "S2:32 R2:24"}},
        {TS_CALG_SPLIT_BINARY, 7, 6, 0, 56, 2, {"R2:24", "S5:24 R5:32"}},
        /* 6 ranks: the last (vrank 5, left) has no counterpart and gets the right half from
         * the root. */
        {TS_CALG_SPLIT_BINARY, 6, 5, 0, 48, 2, {"R1:24", "R0:24"}},
        {TS_CALG_SPLIT_BINARY, 6, 0, 0, 48, 2, {"S1:24 S2:24", "S5:24"}},
        /* One element: no halves; Open MPI falls back to a pipeline. */
        {TS_CALG_SPLIT_BINARY, 6, 1, 0, 8, 2, {"R0:8", "S2:8"}},
    };
    for (size_t i = 0; i < sizeof bc / sizeof bc[0]; i++) {
        sched_of(m, TS_COLL_BCAST, bc[i].alg, bc[i].n, bc[i].me, bc[i].root, bc[i].bytes, &s);
        rounds_are(&s, bc[i].nrounds, bc[i].round);
    }
    /* Pipeline (chain of one) of 3 segments on 4 ranks: rank 1 receives segment s while it
     * forwards s-1. */
    sched_of(m, TS_COLL_BCAST, TS_CALG_PIPELINE, 4, 1, 0, 0, &s); /* 0 B: one round each */
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(4, NULL, loc_apart, NULL, &topo) == TS_OK);
    ts_coll_choice_t ch = {.comp = TS_CCOMP_TUNED, .alg = TS_CALG_PIPELINE, .segsize = 1000};
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_BCAST, topo, 1, 0, 2500, &s) == TS_OK);
    CU_ASSERT(s.rounds == 4);
    ROUND_IS(&s, 0, "R0:1000");
    ROUND_IS(&s, 1, "R0:1000 S2:1000");
    ROUND_IS(&s, 2, "R0:500 S2:1000");
    ROUND_IS(&s, 3, "S2:500");
    ts_coll_topo_free(topo);
    /* Linear reduce: the root receives and combines one rank at a time. */
    sched_of(m, TS_COLL_REDUCE, TS_CALG_LINEAR, 4, 2, 2, 64, &s);
    CU_ASSERT(s.rounds == 3);
    ROUND_IS(&s, 0, "R0:64 +64");
    ROUND_IS(&s, 2, "R3:64 +64");
    /* Open MPI's binomial reduce (ompi_coll_base_reduce_generic over the in-order tree): one
     * child a round, smallest subtree first, each child's receive posted a round ahead ("r")
     * and combined in the round after. 8 ranks to 0: rank 0 posts 1, 2, 4 and combines each a
     * round later; rank 4 posts 5 and 6, combines them, then sends up; rank 7 only sends. */
    sched_of(m, TS_COLL_REDUCE, TS_CALG_BINOMIAL, 8, 0, 0, 64, &s);
    rounds_are(&s, 4, (const char *const[4]){"r1:64", "r2:64 +64", "r4:64 +64", "+64"});
    sched_of(m, TS_COLL_REDUCE, TS_CALG_BINOMIAL, 8, 4, 0, 64, &s);
    rounds_are(&s, 4, (const char *const[4]){"r5:64", "r6:64 +64", "+64", "S0:64"});
    sched_of(m, TS_COLL_REDUCE, TS_CALG_BINOMIAL, 8, 7, 0, 64, &s);
    rounds_are(&s, 1, (const char *const[1]){"S6:64"});
    /* Segmented (pipeline, a chain of one) on 3 ranks, 2500 B in 1000 B segments: rank 1
     * posts segment s's receive while it combines segment s - 1, and sends a segment up in
     * the round after it is combined. */
    {
        ts_coll_topo_t *t3 = NULL;
        CU_ASSERT_FATAL(ts_coll_topo_new(3, NULL, loc_apart, NULL, &t3) == TS_OK);
        ts_coll_choice_t pc = {.comp = TS_CCOMP_TUNED, .alg = TS_CALG_PIPELINE, .segsize = 1000};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &pc, TS_COLL_REDUCE, t3, 1, 0, 2500, &s) == TS_OK);
        rounds_are(&s, 5,
                   (const char *const[5]){"r2:1000", "r2:1000 +1000", "r2:500 S0:1000 +1000",
                                          "S0:1000 +500", "S0:500"});
        ts_coll_topo_free(t3);
    }
    /* Binomial gather on 8 ranks to 0: rank 4 collects 6 (2 blocks) and 5, then sends 4. */
    sched_of(m, TS_COLL_GATHER, TS_CALG_BINOMIAL, 8, 4, 0, 10, &s);
    ROUND_IS(&s, 0, "R6:20 R5:10");
    ROUND_IS(&s, 1, "S0:40");
    ts_csched_free(&s);
    ts_coll_model_free(m);
}

static void test_allgather_alltoall_barrier_exact(void)
{
    ts_coll_model_t *m = model_with(NULL);
    ts_csched_t s = {0};
    /* Bruck allgather, 7 ranks: distances 1, 2, 4 carrying 1, 2, 3 blocks. */
    sched_of(m, TS_COLL_ALLGATHER, TS_CALG_BRUCK, 7, 2, -1, 16, &s);
    CU_ASSERT(s.rounds == 3);
    ROUND_IS(&s, 0, "S1:16 R3:16");
    ROUND_IS(&s, 1, "S0:32 R4:32");
    ROUND_IS(&s, 2, "S5:48 R6:48");
    /* Pairwise alltoall, 5 ranks: round k to me+k, from me-k. */
    sched_of(m, TS_COLL_ALLTOALL, TS_CALG_PAIRWISE, 5, 1, -1, 100, &s);
    CU_ASSERT(s.rounds == 4);
    ROUND_IS(&s, 0, "S2:100 R0:100");
    ROUND_IS(&s, 3, "S0:100 R2:100");
    /* UCC's pairwise alltoall with 3 steps posted, 8 ranks: windows of steps 1-3, 4-6 and 7,
     * each receiving from me+k and sending to me-k (rank 1: from 2, 3, 4 and to 0, 7, 6). */
    {
        ts_coll_topo_t *topo = NULL;
        CU_ASSERT_FATAL(ts_coll_topo_new(8, NULL, loc_apart, NULL, &topo) == TS_OK);
        ts_coll_choice_t ch = {.comp = TS_CCOMP_UCC, .alg = TS_CALG_PAIRWISE, .posts = 3};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, TS_COLL_ALLTOALL, topo, 1, -1, 100, &s) == TS_OK);
        CU_ASSERT(s.rounds == 3);
        ROUND_IS(&s, 0, "R2:100 R3:100 R4:100 S0:100 S7:100 S6:100");
        ROUND_IS(&s, 1, "R5:100 R6:100 R7:100 S5:100 S4:100 S3:100");
        ROUND_IS(&s, 2, "R0:100 S2:100");
        ts_coll_topo_free(topo);
    }
    /* Modified Bruck alltoall, 8 ranks of 10 B a peer: 4 blocks per round, each step's
     * datatype built first (Open MPI's, coll_base_alltoall.c: model.coll.bruck_step 0.21 us + 4
     * blocks x model.coll.bruck_block 6.9 ns = 237.6 ns) and its 40 B copied back (at
     * model.cpu.copy_bandwidth 8000 MB/s, 5 ns), the whole 80 B rotated in before the first
     * (10 ns) and out after the last with its 8 blocks (55.2 + 10 ns). UCC's copies each block
     * it sends and rotates them back (model.ucc.block_copy 3.4 ns: 13.6 and 27.2 ns); HCOLL's
     * stand-in has the messages only. */
    {
        const char *copy8[] = {"model.cpu.copy_bandwidth", "8000MB/s", NULL};
        ts_coll_model_t *mc = model_with(copy8);
        sched_of(mc, TS_COLL_ALLTOALL, TS_CALG_BRUCK, 8, 0, -1, 10, &s);
        rounds_are(&s, 4,
                   (const char *const[4]){"cpu:252.6ns S1:40 R7:40", "cpu:242.6ns S2:40 R6:40",
                                          "cpu:242.6ns S4:40 R4:40", "cpu:65.2ns"});
        ts_coll_model_free(mc);
    }
    {
        ts_coll_topo_t *t8 = NULL;
        CU_ASSERT_FATAL(ts_coll_topo_new(8, NULL, loc_apart, NULL, &t8) == TS_OK);
        ts_coll_choice_t uc = {.comp = TS_CCOMP_UCC, .alg = TS_CALG_BRUCK};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &uc, TS_COLL_ALLTOALL, t8, 0, -1, 10, &s) == TS_OK);
        rounds_are(&s, 4,
                   (const char *const[4]){"cpu:13.6ns S1:40 R7:40", "cpu:13.6ns S2:40 R6:40",
                                          "cpu:13.6ns S4:40 R4:40", "cpu:27.2ns"});
        ts_coll_choice_t hc = {.comp = TS_CCOMP_HCOLL, .alg = TS_CALG_BRUCK};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &hc, TS_COLL_ALLTOALL, t8, 0, -1, 10, &s) == TS_OK);
        rounds_are(&s, 3, (const char *const[3]){"S1:40 R7:40", "S2:40 R6:40", "S4:40 R4:40"});
        ts_coll_topo_free(t8);
    }
    /* Dissemination barrier on 72 ranks: 7 rounds of empty messages. */
    sched_of(m, TS_COLL_BARRIER, TS_CALG_BRUCK, 72, 70, -1, 0, &s);
    CU_ASSERT(s.rounds == 7);
    ROUND_IS(&s, 6, "S62:0 R6:0");
    /* Ring allgather on 72 ranks: 71 rounds. */
    sched_of(m, TS_COLL_ALLGATHER, TS_CALG_RING, 72, 0, -1, 8, &s);
    CU_ASSERT(s.rounds == 71);
    /* Open MPI's recursive-doubling barrier on 36 ranks (coll_base_barrier.c), not the
     * allreduce's pairing: rank 33 checks in with rank 1 and waits for the release in one
     * sendrecv, then acknowledges it (the release is a synchronous send); rank 1 waits for
     * 33, pairs with 0, 3, 5, 9 and 17, then releases 33 and waits for the acknowledgement;
     * rank 20 only pairs, with 21, 22, 16, 28 and 4. */
    static const struct {
        int32_t me;
        int rounds, nchecks;
        struct {
            int k;
            const char *text;
        } at[5];
    } rd[] = {
        {33, 2, 2, {{0, "S1:0 R1:0"}, {1, "S1:0"}}},
        {1,
         7,
         5,
         {{0, "R33:0"},
          {1, "S0:0 R0:0"},
          {2, "S3:0 R3:0"},
          {5, "S17:0 R17:0"},
          {6, "S33:0 R33:0"}}},
        {20, 5, 3, {{0, "S21:0 R21:0"}, {2, "S16:0 R16:0"}, {4, "S4:0 R4:0"}}},
    };
    for (size_t i = 0; i < sizeof rd / sizeof rd[0]; i++) {
        sched_of(m, TS_COLL_BARRIER, TS_CALG_RECURSIVE_DOUBLING, 36, rd[i].me, -1, 0, &s);
        CU_ASSERT(s.rounds == rd[i].rounds);
        for (int j = 0; j < rd[i].nchecks; j++)
            ROUND_IS(&s, rd[i].at[j].k, rd[i].at[j].text);
    }
    /* UCC's k-nomial allgather: on 36 ranks at radix 6 no rank is extra, rank 0 exchanges its
     * 8 B with 1-5, then the 6 blocks of its group with 6, 12, 18, 24, 30. On 40 ranks at
     * radix 6 the core is 36: odd ranks 1-7 hand their block to 0-6; rank 0 (loop rank 0, two
     * ranks) sends 16 B to 2, 4, 6 (two each) and 8, 9 (one each), receiving the same, then
     * its group's 10 blocks (80 B) to loop ranks 6, 12, ... (ranks 10, 16, 22, 28, 34), each
     * of whose groups stands for 6 ranks (48 B), and hands rank 1 the whole 320 B. */
    {
        ts_placement_t *pl = NULL;
        ts_coll_topo_t *topo = block_topo(36, &pl);
        const char *ucc[] = {"coll_hcoll_enable", "0", "coll_ucc_enable", "1", NULL};
        ts_coll_model_t *mu = model_with(ucc);
        ts_coll_choice_t ch;
        ts_coll_select(mu, TS_COLL_ALLGATHER, 36, 1, 8, &ch);
        CU_ASSERT_FATAL(ch.comp == TS_CCOMP_UCC && ch.alg == TS_CALG_KNOMIAL);
        CU_ASSERT_FATAL(ts_coll_schedule(mu, &ch, TS_COLL_ALLGATHER, topo, 0, -1, 8, &s) == TS_OK);
        CU_ASSERT(s.rounds == 2);
        ROUND_IS(&s, 0, "S1:8 R1:8 S2:8 R2:8 S3:8 R3:8 S4:8 R4:8 S5:8 R5:8");
        ROUND_IS(&s, 1, "S6:48 R6:48 S12:48 R12:48 S18:48 R18:48 S24:48 R24:48 S30:48 R30:48");
        ts_coll_topo_free(topo);
        CU_ASSERT_FATAL(ts_coll_topo_new(40, NULL, loc_apart, NULL, &topo) == TS_OK);
        const char *ucc6[] = {"coll_hcoll_enable",
                              "0",
                              "coll_ucc_enable",
                              "1",
                              "model.ucc.allgather_radix",
                              "6",
                              NULL};
        ts_coll_model_t *m6 = model_with(ucc6);
        CU_ASSERT_FATAL(ts_coll_schedule(m6, &ch, TS_COLL_ALLGATHER, topo, 0, -1, 8, &s) == TS_OK);
        rounds_are(&s, 4,
                   (const char *const[4]){
                       "R1:8", "S2:16 R2:16 S4:16 R4:16 S6:16 R6:16 S8:16 R8:8 S9:16 R9:8",
                       "S10:80 R10:48 S16:80 R16:48 S22:80 R22:48 S28:80 R28:48 S34:80 R34:48",
                       "S1:320"});
        static sim_t S;
        CU_ASSERT(simulate(m6, topo, TS_COLL_ALLGATHER, &ch, -1, 8, &S) == 1);
        char why[128] = "";
        CU_ASSERT(outcome_ok(TS_COLL_ALLGATHER, &S, -1, why, sizeof why));
        sim_free(&S);
        ts_coll_model_free(m6);
        ts_coll_model_free(mu);
        ts_coll_topo_free(topo);
        ts_placement_close(pl);
    }
    /* UCC's barrier at its radix 8 (tl_ucp.c, v1.4.4 on) on UCC's pattern for 36 ranks: odd
     * ranks 1-7 fold into 0-6, a round at radix 8 then one at radix 4 over the 32 loop ranks;
     * rank 0 talks to 2, 4, 6, 8-11, then to 12, 20, 28. At radix 4: three loop rounds. */
    sched_of(m, TS_COLL_BARRIER, TS_CALG_KN_RECURSIVE, 36, 0, -1, 0, &s);
    rounds_are(&s, 4,
               (const char *const[4]){
                   "R1:0",
                   "S2:0 R2:0 S4:0 R4:0 S6:0 R6:0 S8:0 R8:0 S9:0 R9:0 S10:0 R10:0 S11:0 R11:0",
                   "S12:0 R12:0 S20:0 R20:0 S28:0 R28:0", "S1:0"});
    {
        const char *r4[] = {"model.ucc.barrier_radix", "4", NULL};
        ts_coll_model_t *m4 = model_with(r4);
        sched_of(m4, TS_COLL_BARRIER, TS_CALG_KN_RECURSIVE, 36, 0, -1, 0, &s);
        CU_ASSERT(s.rounds == 5);
        ts_coll_model_free(m4);
    }
    ts_csched_free(&s);
    ts_coll_model_free(m);
}

/* tuned's fixed rules at the edges of their ranges (reference/openmpi-collectives.md). */
static void test_decision_boundaries(void)
{
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 72, 8) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 72, 262143) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 72, 262144) == 6);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 63, 127) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 63, 128) == 6);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 64, 127) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 3, 7) == 4);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 3, 8) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 3, 4095) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 3, 4096) == 4);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 3, 262143) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 3, 262144) == 6);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 4, 15) == 4);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 7, 16) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 8, 8191) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 15, 8192) == 6);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 16, 63) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 31, 4095) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 128, 131071) == 2);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 255, 131072) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 256, 4095) == 2);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 511, 4096) == 6);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLREDUCE, 100000, 16383) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_BCAST, 72, 1 << 30) == 7);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_BCAST, 36, 2047) == 6);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_BCAST, 36, 2048) == 7);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLTOALL, 36, 511) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLTOALL, 36, 512) == 1);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLTOALL, 36, 524288) == 4);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLTOALL, 2, 3) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_BARRIER, 72, 0) == 4);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_BARRIER, 63, 0) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_GATHER, 72, 100) == 2);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLGATHER, 72, 511) == 3);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_ALLGATHER, 72, 512) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_REDUCE, 72, 8) == 5);
    CU_ASSERT(ts_coll_tuned_fixed(TS_COLL_SCAN, 72, 8) == 0);
}

static void test_component_selection(void)
{
    ts_coll_choice_t c;
    ts_coll_model_t *m = model_with(NULL); /* HCOLL on: it serves Allreduce */
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_HCOLL && c.alg == TS_CALG_HIER);
    ts_coll_select(m, TS_COLL_SCAN, 72, 2, 8, &c); /* HCOLL has no Scan: basic linear */
    CU_ASSERT(c.comp == TS_CCOMP_TUNED && c.alg == TS_CALG_LINEAR);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 1, 2, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_NONE);
    /* HCOLL's Alltoall (model.hcoll.alltoall): by default tuned's modified Bruck where tuned's
     * fixed rules pick it (36 ranks: below 512 B a peer; 72: below 1 KiB), pairwise above;
     * "tuned": tuned's whole fixed decision (linear from 512 B on 36 ranks, linear_sync at
     * 2-4 KiB on 72) below model.hcoll.alltoall_pairwise (256 KiB), pairwise from there;
     * "pairwise": pairwise at every size. */
    static const struct {
        int32_t n;
        uint64_t bytes;
        ts_coll_alg bruck, tuned;
    } hcoll_a2a[] = {{36, 511, TS_CALG_BRUCK, TS_CALG_BRUCK},
                     {36, 512, TS_CALG_PAIRWISE, TS_CALG_LINEAR},
                     {36, 262143, TS_CALG_PAIRWISE, TS_CALG_LINEAR},
                     {36, 262144, TS_CALG_PAIRWISE, TS_CALG_PAIRWISE},
                     {72, 1023, TS_CALG_BRUCK, TS_CALG_BRUCK},
                     {72, 2048, TS_CALG_PAIRWISE, TS_CALG_LINEAR_SYNC},
                     {72, 1 << 20, TS_CALG_PAIRWISE, TS_CALG_PAIRWISE}};
    const char *tuned[] = {"model.hcoll.alltoall", "tuned", NULL};
    const char *pairwise[] = {"model.hcoll.alltoall", "pairwise", NULL};
    ts_coll_model_t *mt = model_with(tuned), *mp = model_with(pairwise);
    for (size_t i = 0; i < sizeof hcoll_a2a / sizeof hcoll_a2a[0]; i++) {
        ts_coll_select(m, TS_COLL_ALLTOALL, hcoll_a2a[i].n, 1, hcoll_a2a[i].bytes, &c);
        CU_ASSERT(c.comp == TS_CCOMP_HCOLL && c.alg == hcoll_a2a[i].bruck);
        ts_coll_select(mt, TS_COLL_ALLTOALL, hcoll_a2a[i].n, 1, hcoll_a2a[i].bytes, &c);
        CU_ASSERT(c.comp == TS_CCOMP_HCOLL && c.alg == hcoll_a2a[i].tuned);
        ts_coll_select(mp, TS_COLL_ALLTOALL, hcoll_a2a[i].n, 1, hcoll_a2a[i].bytes, &c);
        CU_ASSERT(c.comp == TS_CCOMP_HCOLL && c.alg == TS_CALG_PAIRWISE);
    }
    ts_coll_model_free(mt);
    ts_coll_model_free(mp);
    ts_coll_model_free(m);

    const char *off[] = {"coll_hcoll_enable", "0", NULL};
    m = model_with(off);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_TUNED && c.alg == TS_CALG_RECURSIVE_DOUBLING);
    char why[96];
    ts_coll_choice_why(m, TS_COLL_ALLREDUCE, &c, why, sizeof why);
    CU_ASSERT(strstr(why, "64-127 ranks") != NULL);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 1 << 20, &c);
    CU_ASSERT(c.alg == TS_CALG_RABENSEIFNER);
    ts_coll_model_free(m);

    const char *ucc[] = {"coll_hcoll_enable", "0", "coll_ucc_enable", "1", NULL};
    m = model_with(ucc);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_UCC && c.alg == TS_CALG_KN_RECURSIVE);
    ts_coll_select(m, TS_COLL_GATHER, 72, 2, 8, &c); /* UCC here has no Gather */
    CU_ASSERT(c.comp == TS_CCOMP_TUNED);
    /* UCC's own size switches: Alltoall Bruck below 129 bytes a peer, then pairwise with every
     * step posted at once (linear) unless the whole buffer passes 66,000 B on more than 32
     * ranks (72 x 916 = 65,952, 72 x 917 = 66,024; 36 x 1,833 = 65,988, 36 x 1,834 =
     * 66,024; 32 ranks never); Alltoallv linear on up to 32 ranks; Allgather knomial (Bruck
     * here) below 4 KiB in all, then neighbor exchange (an even team) or ring (an odd one);
     * Allreduce knomial below 4 KiB, scatter-reduce-allgather from there. */
    static const struct {
        int op;
        int32_t n;
        uint64_t bytes;
        ts_coll_alg alg;
    } ucc_sizes[] = {{TS_COLL_ALLTOALL, 72, 128, TS_CALG_BRUCK},
                     {TS_COLL_ALLTOALL, 72, 129, TS_CALG_LINEAR},
                     {TS_COLL_ALLTOALL, 72, 916, TS_CALG_LINEAR},
                     {TS_COLL_ALLTOALL, 72, 917, TS_CALG_PAIRWISE},
                     {TS_COLL_ALLTOALL, 36, 1833, TS_CALG_LINEAR},
                     {TS_COLL_ALLTOALL, 36, 1834, TS_CALG_PAIRWISE},
                     {TS_COLL_ALLTOALL, 32, 1 << 20, TS_CALG_LINEAR},
                     {TS_COLL_ALLTOALLV, 32, 1 << 20, TS_CALG_LINEAR},
                     {TS_COLL_ALLTOALLV, 33, 8, TS_CALG_PAIRWISE},
                     {TS_COLL_ALLGATHER, 36, 113, TS_CALG_KNOMIAL},  /* 4,068 bytes in all */
                     {TS_COLL_ALLGATHER, 36, 114, TS_CALG_NEIGHBOR}, /* 4,104 */
                     {TS_COLL_ALLGATHER, 35, 128, TS_CALG_RING},     /* 4,480, an odd team */
                     {TS_COLL_ALLREDUCE, 72, 4095, TS_CALG_KN_RECURSIVE},
                     {TS_COLL_ALLREDUCE, 72, 4096, TS_CALG_KN_SRA}};
    for (size_t i = 0; i < sizeof ucc_sizes / sizeof ucc_sizes[0]; i++) {
        ts_coll_select(m, ucc_sizes[i].op, ucc_sizes[i].n, 2, ucc_sizes[i].bytes, &c);
        CU_ASSERT(c.comp == TS_CCOMP_UCC && c.alg == ucc_sizes[i].alg && c.posts == 0);
    }
    ts_coll_model_free(m);
    /* A set num_posts: 1 pairwise, 4 a window of 4, 71 (every peer of 72) linear. */
    static const struct {
        const char *posts;
        ts_coll_alg alg;
        int32_t kept;
    } posts[] = {{"1", TS_CALG_PAIRWISE, 0}, {"4", TS_CALG_PAIRWISE, 4}, {"71", TS_CALG_LINEAR, 0}};
    for (size_t i = 0; i < sizeof posts / sizeof posts[0]; i++) {
        const char *set[] = {
            "coll_hcoll_enable", "0", "coll_ucc_enable", "1", "model.ucc.alltoall_posts",
            posts[i].posts,      NULL};
        m = model_with(set);
        ts_coll_select(m, TS_COLL_ALLTOALL, 72, 2, 8,
                       &c); /* Bruck below 129 B whatever the posts */
        CU_ASSERT(c.alg == TS_CALG_BRUCK);
        ts_coll_select(m, TS_COLL_ALLTOALL, 72, 2, 4096, &c);
        CU_ASSERT(c.comp == TS_CCOMP_UCC && c.alg == posts[i].alg && c.posts == posts[i].kept);
        ts_coll_model_free(m);
    }

    const char *han[] = {"coll_hcoll_enable", "0", "coll_han_priority", "35", NULL};
    m = model_with(han);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_HAN && c.alg == TS_CALG_HIER);
    /* HAN declines a communicator on one node: tuned serves it (36 ranks, 8 B: segmented
     * ring below 128 B), and HAN has no Alltoall. */
    ts_coll_select(m, TS_COLL_ALLREDUCE, 36, 1, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_TUNED && c.alg == TS_CALG_SEGMENTED_RING);
    ts_coll_select(m, TS_COLL_ALLTOALL, 72, 2, 8, &c);
    CU_ASSERT(c.comp == TS_CCOMP_TUNED);
    /* HAN's barrier (coll_han_barrier.c): tuned's barrier in the node, the leaders' barrier,
     * the node's again. On 2 x 36, block: rank 0 runs the 36-rank recursive doubling (7
     * rounds, it releases rank 32), the leaders' pair with rank 36, and the 7 again; rank 40
     * (local 4) pairs with 41, 42, 36, 48 and 56 twice, no leaders' round. */
    ts_coll_select(m, TS_COLL_BARRIER, 72, 2, 0, &c);
    CU_ASSERT_FATAL(c.comp == TS_CCOMP_HAN);
    {
        ts_placement_t *pl = NULL;
        ts_coll_topo_t *topo = block_topo(72, &pl);
        ts_csched_t s = {0};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &c, TS_COLL_BARRIER, topo, 0, -1, 0, &s) == TS_OK);
        rounds_are(&s, 15,
                   (const char *const[15]){
                       [0] = "R32:0", [6] = "S32:0 R32:0", [7] = "S36:0 R36:0", [8] = "R32:0"});
        CU_ASSERT_FATAL(ts_coll_schedule(m, &c, TS_COLL_BARRIER, topo, 40, -1, 0, &s) == TS_OK);
        rounds_are(
            &s, 10,
            (const char *const[10]){[0] = "S41:0 R41:0", [2] = "S36:0 R36:0", [9] = "S56:0 R56:0"});
        /* HAN's Allgather (coll_han_allgather.c: lg, uag, lb): tuned's gather in the node
         * (binomial on 36 ranks), the leaders' exchange of their node's 36 blocks, tuned's
         * broadcast of all 72 in the node (binomial below 2 KB, on the bmtree). 8 B a rank:
         * rank 0 takes its children's subtrees (32-35, 16-31, 8-15, 4-7, 2-3, 1). */
        ts_coll_select(m, TS_COLL_ALLGATHER, 72, 2, 8, &c);
        CU_ASSERT_FATAL(c.comp == TS_CCOMP_HAN);
        CU_ASSERT_FATAL(ts_coll_schedule(m, &c, TS_COLL_ALLGATHER, topo, 0, -1, 8, &s) == TS_OK);
        rounds_are(&s, 3,
                   (const char *const[3]){"R32:32 R16:128 R8:64 R4:32 R2:16 R1:8",
                                          "S36:288 R36:288",
                                          "S1:576 S2:576 S4:576 S8:576 S16:576 S32:576"});
        ts_csched_free(&s);
        ts_coll_topo_free(topo);
        ts_placement_close(pl);
    }
    ts_coll_model_free(m);

    /* A forced algorithm counts only with dynamic rules on, as in Open MPI. */
    const char *forced[] = {"coll_hcoll_enable", "0", "coll_tuned_allreduce_algorithm", "4", NULL};
    m = model_with(forced);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &c);
    CU_ASSERT(c.alg == TS_CALG_RECURSIVE_DOUBLING);
    ts_coll_model_free(m);
    const char *dyn[] = {"coll_hcoll_enable",
                         "0",
                         "coll_tuned_use_dynamic_rules",
                         "1",
                         "coll_tuned_allreduce_algorithm",
                         "4",
                         NULL};
    m = model_with(dyn);
    ts_coll_select(m, TS_COLL_ALLREDUCE, 72, 2, 8, &c);
    CU_ASSERT(c.alg == TS_CALG_RING);
    ts_coll_choice_why(m, TS_COLL_ALLREDUCE, &c, why, sizeof why);
    CU_ASSERT(strstr(why, "coll_tuned_allreduce_algorithm=4") != NULL);
    ts_coll_model_free(m);

    /* An algorithm number that does not exist is refused, by its valid range (0 .. 9). */
    ts_params_t *p = NULL;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_params_new(&p) == TS_OK);
    CU_ASSERT(ts_params_set(p, "coll_tuned_bcast_algorithm", "12", &err) == TS_EARG);
    CU_ASSERT(strstr(err.msg, "coll_tuned_bcast_algorithm: value '12' out of range") != NULL);
    ts_coll_model_t *ok = NULL;
    CU_ASSERT(ts_coll_model_new(p, &ok, &err) == TS_OK);
    ts_coll_model_free(ok);
    ts_params_free(p);
}

/* Which calls with no data return at once, read off Open MPI 5.0.8's (and 4.1's) MPI layer,
 * ompi/mpi/c/<op>.c: a count check before the component for the blocking Bcast, Gather,
 * Scatter, Allgather(v), Alltoall, Allreduce, Reduce, Reduce_scatter(_block), Scan, Exscan;
 * none in barrier.c, alltoallv.c, alltoallw.c, gatherv.c, scatterv.c; of the non-blocking
 * forms only iallreduce.c, ibcast.c, ireduce.c, ireduce_scatter.c and
 * ireduce_scatter_block.c return ompi_request_empty. */
static void test_empty_returns(void)
{
    static const int blocking[] = {TS_COLL_BCAST,          TS_COLL_GATHER,
                                   TS_COLL_SCATTER,        TS_COLL_ALLGATHER,
                                   TS_COLL_ALLGATHERV,     TS_COLL_ALLTOALL,
                                   TS_COLL_ALLREDUCE,      TS_COLL_REDUCE,
                                   TS_COLL_REDUCE_SCATTER, TS_COLL_REDUCE_SCATTER_BLOCK,
                                   TS_COLL_SCAN,           TS_COLL_EXSCAN};
    static const int nonblocking[] = {TS_COLL_ALLREDUCE, TS_COLL_BCAST, TS_COLL_REDUCE,
                                      TS_COLL_REDUCE_SCATTER, TS_COLL_REDUCE_SCATTER_BLOCK};
    for (int op = 0; op < TS_COLL__COUNT; op++) {
        int b = 0, nb = 0;
        for (size_t i = 0; i < sizeof blocking / sizeof *blocking; i++)
            b |= blocking[i] == op;
        for (size_t i = 0; i < sizeof nonblocking / sizeof *nonblocking; i++)
            nb |= nonblocking[i] == op;
        CU_ASSERT_EQUAL(ts_coll_empty_returns(op, 0), b);
        CU_ASSERT_EQUAL(ts_coll_empty_returns(op, 1), nb);
    }
    CU_ASSERT_FALSE(ts_coll_empty_returns(TS_COLL_BARRIER, 0));
    CU_ASSERT_FALSE(ts_coll_empty_returns(TS_COLL_ALLTOALLV, 0));
    CU_ASSERT_FALSE(ts_coll_empty_returns(TS_COLL_ALLTOALL, 1));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("coll", NULL, NULL);
    CU_add_test(s, "every algorithm completes as defined (4,5,7,8,12,36,72 ranks)",
                test_all_algorithms_complete);
    CU_add_test(s, "recursive doubling, exact", test_recursive_doubling_exact);
    CU_add_test(s, "ring and Rabenseifner, exact", test_ring_and_rabenseifner_exact);
    CU_add_test(s, "trees, exact", test_trees_exact);
    CU_add_test(s, "allgather, alltoall, barrier, exact", test_allgather_alltoall_barrier_exact);
    CU_add_test(s, "tuned decision boundaries", test_decision_boundaries);
    CU_add_test(s, "component selection", test_component_selection);
    CU_add_test(s, "a call with no data: which return at once", test_empty_returns);
    return tu_run_all();
}
