/* test_coll.c - the collective model (models/coll): every algorithm's schedule on 4, 5, 7, 8,
 * 12, 36 and 72 ranks and several roots is executed symbolically (messages matched in FIFO order
 * per pair, a send completing only once its receive is posted, so a schedule that relies on
 * buffering fails) while tracking whose contributions each rank holds; the result must be the
 * collective's definition (Allreduce: everyone holds all; Bcast: everyone holds the root's;
 * Scan: rank i holds 0..i; ...). Exact schedules of the textbook cases are checked message by
 * message; decision rules at the boundaries of their ranges; HCOLL groups under block /
 * cyclic placement and NPS1 / NPS2. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "models/coll.h"
#include "models/coll_impl.h"
#include "platforms/placement.h"
#include "platforms/platform.h"
#include "traces/events.h"

#define MAXN  80
#define WORDS ((MAXN + 63) / 64)

typedef struct know_s {
    uint64_t w[WORDS];
} know_t;

static void know_or(know_t *a, const know_t *b)
{
    for (int i = 0; i < WORDS; i++)
        a->w[i] |= b->w[i];
}

static int know_has(const know_t *a, int r)
{
    return (a->w[r / 64] >> (r % 64)) & 1;
}

static int know_count(const know_t *a)
{
    int c = 0;
    for (int i = 0; i < WORDS; i++)
        c += __builtin_popcountll(a->w[i]);
    return c;
}

static ts_coll_model_t *model_with(const char *const *sets)
{
    ts_params_t *p = NULL;
    CU_ASSERT_FATAL(ts_params_new(&p) == TS_OK);
    ts_error_t err;
    for (int i = 0; sets && sets[i]; i += 2)
        CU_ASSERT_FATAL(ts_params_set(p, sets[i], sets[i + 1], &err) == TS_OK);
    ts_coll_model_t *m = NULL;
    CU_ASSERT_FATAL(ts_coll_model_new(p, &m, &err) == TS_OK);
    ts_params_free(p);
    return m;
}

/* A flat topology: every rank on its own node (no hierarchy). */
static ts_locality loc_apart(const void *ctx, int32_t a, int32_t b)
{
    (void)ctx;
    return a == b ? TS_LOC_SELF : TS_LOC_SAME_LEAF;
}

/* Symbolic execution of the schedules of all n ranks. Returns 1 when every rank finished;
 * fills know[] and the per-rank round counts. */
typedef struct sim_s {
    int n;
    ts_csched_t s[MAXN];
    size_t pos[MAXN]; /* first step of the current round */
    know_t know[MAXN];
    int sent_total;
    int size_mismatch; /* receives whose bytes differ from their send's */
} sim_t;

/* Messages are matched by order: the k-th send from a to b meets the k-th receive at b from
 * a, and must carry the bytes that receive expects. posted_send[a][b] / posted_recv[a][b]
 * count what has been posted so far. */
static int run_sim(sim_t *S)
{
    static int psend[MAXN][MAXN], precv[MAXN][MAXN];
    static know_t payload[MAXN][MAXN][64];  /* ring buffer of in-flight contents per pair */
    static uint64_t pbytes[MAXN][MAXN][64]; /* and their sizes */
    memset(psend, 0, sizeof psend);
    memset(precv, 0, sizeof precv);
    int n = S->n, done = 0;
    int posted[MAXN] = {0};
    /* step indices of the sends/recvs of each rank's current round, with their ordinal */
    int ord[MAXN][4096];
    while (done < n) {
        int progress = 0;
        for (int r = 0; r < n; r++) {
            ts_csched_t *s = &S->s[r];
            if (S->pos[r] >= s->n)
                continue;
            size_t end = S->pos[r];
            while (end < s->n && s->step[end].kind != TS_CSTEP_END)
                end++;
            CU_ASSERT_FATAL(end < s->n); /* every round is closed */
            if (!posted[r]) {            /* post the round: sends carry what r knows now */
                for (size_t i = S->pos[r]; i < end; i++) {
                    const ts_cstep_t *st = &s->step[i];
                    if (st->kind == TS_CSTEP_CPU)
                        continue; /* no message */
                    CU_ASSERT_FATAL(st->peer >= 0 && st->peer < n && st->peer != r);
                    CU_ASSERT_FATAL(i - S->pos[r] < 4096);
                    if (st->kind == TS_CSTEP_SEND) {
                        int k = psend[r][st->peer]++;
                        payload[r][st->peer][k % 64] = S->know[r];
                        pbytes[r][st->peer][k % 64] = st->bytes;
                        ord[r][i - S->pos[r]] = k;
                        S->sent_total++;
                    } else {
                        ord[r][i - S->pos[r]] = precv[st->peer][r]++;
                    }
                }
                posted[r] = 1;
                progress = 1;
            }
            /* complete when each send's receive and each receive's send is posted */
            int ok = 1;
            for (size_t i = S->pos[r]; i < end && ok; i++) {
                const ts_cstep_t *st = &s->step[i];
                int k = ord[r][i - S->pos[r]];
                if (st->kind == TS_CSTEP_CPU)
                    continue;
                if (st->kind == TS_CSTEP_SEND)
                    ok = precv[r][st->peer] > k;
                else
                    ok = psend[st->peer][r] > k;
            }
            if (!ok)
                continue;
            for (size_t i = S->pos[r]; i < end; i++) {
                const ts_cstep_t *st = &s->step[i];
                if (st->kind != TS_CSTEP_RECV)
                    continue;
                int k = ord[r][i - S->pos[r]] % 64;
                know_or(&S->know[r], &payload[st->peer][r][k]);
                S->size_mismatch += pbytes[st->peer][r][k] != st->bytes;
            }
            S->pos[r] = end + 1;
            posted[r] = 0;
            progress = 1;
            if (S->pos[r] >= s->n)
                done++;
        }
        if (!progress)
            return 0;
    }
    /* nothing left unmatched, and every receive expected what its send carried */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (psend[a][b] != precv[a][b])
                return 0;
    return S->size_mismatch == 0;
}

/* Build every rank's schedule of op by (comp, alg) and run them. */
static int simulate(const ts_coll_model_t *m, const ts_coll_topo_t *topo, int op,
                    const ts_coll_choice_t *ch, int32_t root, uint64_t bytes, sim_t *S)
{
    memset(S, 0, sizeof *S);
    S->n = topo->n;
    for (int r = 0; r < topo->n; r++) {
        S->know[r].w[r / 64] |= 1ull << (r % 64);
        if (ts_coll_schedule(m, ch, op, topo, r, root, bytes, &S->s[r]) != TS_OK)
            return -1;
    }
    return run_sim(S);
}

static void sim_free(sim_t *S)
{
    for (int r = 0; r < S->n; r++)
        ts_csched_free(&S->s[r]);
}

/* What each rank must hold afterwards, by the collective's definition. */
static int outcome_ok(int op, const sim_t *S, int32_t root, char *why, size_t len)
{
    int n = S->n;
    for (int r = 0; r < n; r++) {
        const know_t *k = &S->know[r];
        int want_all = 0, want_root = 0, want_prefix = 0;
        switch (op) {
        case TS_COLL_ALLREDUCE:
        case TS_COLL_BARRIER:
        case TS_COLL_ALLGATHER:
        case TS_COLL_ALLGATHERV:
        case TS_COLL_ALLTOALL:
        case TS_COLL_ALLTOALLV:
        case TS_COLL_REDUCE_SCATTER:
            want_all = 1;
            break;
        case TS_COLL_REDUCE:
        case TS_COLL_GATHER:
        case TS_COLL_GATHERV:
            want_all = r == root;
            break;
        case TS_COLL_BCAST:
        case TS_COLL_SCATTER:
        case TS_COLL_SCATTERV:
            want_root = 1;
            break;
        case TS_COLL_SCAN:
            want_prefix = 1;
            break;
        }
        if (want_all && know_count(k) != n) {
            snprintf(why, len, "rank %d holds %d of %d contributions", r, know_count(k), n);
            return 0;
        }
        if (want_root && !know_has(k, root)) {
            snprintf(why, len, "rank %d never hears from root %d", r, (int)root);
            return 0;
        }
        for (int j = 0; want_prefix && j <= r; j++)
            if (!know_has(k, j)) {
                snprintf(why, len, "rank %d lacks the prefix of rank %d", r, j);
                return 0;
            }
    }
    return 1;
}

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

/* The steps of rank r in round k, as "S3:8 R3:8" text. */
static void round_text(const ts_csched_t *s, int k, char *out, size_t len)
{
    out[0] = '\0';
    int round = 0;
    size_t used = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ts_cstep_t *st = &s->step[i];
        if (st->kind == TS_CSTEP_END) {
            if (round == k && st->bytes)
                used += (size_t)snprintf(out + used, len - used, "%s+%llu", used ? " " : "",
                                         (unsigned long long)st->bytes);
            round++;
            continue;
        }
        if (round == k && st->kind == TS_CSTEP_CPU) /* CPU in picoseconds, written in ns */
            used += (size_t)snprintf(out + used, len - used, "%scpu:%gns", used ? " " : "",
                                     (double)st->bytes / 1000);
        else if (round == k)
            used += (size_t)snprintf(out + used, len - used, "%s%c%d:%llu", used ? " " : "",
                                     st->kind == TS_CSTEP_SEND ? 'S' : 'R', (int)st->peer,
                                     (unsigned long long)st->bytes);
    }
}

static void sched_of(const ts_coll_model_t *m, int op, int alg, int n, int32_t me, int32_t root,
                     uint64_t bytes, ts_csched_t *s)
{
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(n, NULL, loc_apart, NULL, &topo) == TS_OK);
    ts_coll_choice_t ch = {.comp = TS_CCOMP_TUNED, .alg = alg};
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, op, topo, me, root, bytes, s) == TS_OK);
    ts_coll_topo_free(topo);
}

#define ROUND_IS(s, k, text)                                                                       \
    do {                                                                                           \
        char got_[512];                                                                            \
        round_text((s), (k), got_, sizeof got_);                                                   \
        if (strcmp(got_, (text)) != 0)                                                             \
            fprintf(stderr, "\n  round %d: got '%s', want '%s'\n", (k), got_, (text));             \
        CU_ASSERT_STRING_EQUAL(got_, (text));                                                      \
    } while (0)

/* s has nrounds rounds, and round k reads want[k] wherever that is set (want has nrounds). */
static void rounds_are(const ts_csched_t *s, int nrounds, const char *const *want)
{
    CU_ASSERT_EQUAL(s->rounds, nrounds);
    for (int k = 0; k < nrounds; k++)
        if (want[k])
            ROUND_IS(s, k, want[k]);
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
    /* Fewer elements than ranks: Open MPI's ring runs recursive doubling. */
    sched_of(m, TS_COLL_ALLREDUCE, TS_CALG_RING, 5, 2, -1, 16, &s);
    CU_ASSERT(s.rounds == 2);
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
     * child a round, smallest subtree first, each combined as it comes. 8 ranks to 0: rank 0
     * takes 1, 2, then 4; rank 4 takes 5 and 6, then sends up; rank 7 only sends. */
    sched_of(m, TS_COLL_REDUCE, TS_CALG_BINOMIAL, 8, 0, 0, 64, &s);
    rounds_are(&s, 3, (const char *const[3]){"R1:64 +64", "R2:64 +64", "R4:64 +64"});
    sched_of(m, TS_COLL_REDUCE, TS_CALG_BINOMIAL, 8, 4, 0, 64, &s);
    rounds_are(&s, 3, (const char *const[3]){"R5:64 +64", "R6:64 +64", "S0:64"});
    sched_of(m, TS_COLL_REDUCE, TS_CALG_BINOMIAL, 8, 7, 0, 64, &s);
    rounds_are(&s, 1, (const char *const[1]){"S6:64"});
    /* Segmented (pipeline, a chain of one) on 3 ranks, 2500 B in 1000 B segments: rank 1
     * sends segment s - 1 up with the receive of segment s. */
    {
        ts_coll_topo_t *t3 = NULL;
        CU_ASSERT_FATAL(ts_coll_topo_new(3, NULL, loc_apart, NULL, &t3) == TS_OK);
        ts_coll_choice_t pc = {.comp = TS_CCOMP_TUNED, .alg = TS_CALG_PIPELINE, .segsize = 1000};
        CU_ASSERT_FATAL(ts_coll_schedule(m, &pc, TS_COLL_REDUCE, t3, 1, 0, 2500, &s) == TS_OK);
        rounds_are(&s, 4,
                   (const char *const[4]){"R2:1000 +1000", "R2:1000 S0:1000 +1000",
                                          "R2:500 S0:1000 +500", "S0:500"});
        ts_coll_topo_free(t3);
    }
    /* Binomial gather on 8 ranks to 0: rank 4 collects 6 (2 blocks) and 5, then sends 4. */
    sched_of(m, TS_COLL_GATHER, TS_CALG_BINOMIAL, 8, 4, 0, 10, &s);
    ROUND_IS(&s, 0, "R6:20 R5:10");
    ROUND_IS(&s, 1, "S0:40");
    ts_csched_free(&s);
    ts_coll_model_free(m);
}

static ts_coll_topo_t *block_topo(int32_t n, ts_placement_t **pl);

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
    /* Modified Bruck alltoall, 8 ranks: 4 blocks per round, each step's datatype built first
     * (Open MPI's, coll_base_alltoall.c: model.coll.bruck_step 0.21 us + 4 blocks x
     * model.coll.bruck_block 6.9 ns = 237.6 ns), then the rotation of the 8 blocks (55.2 ns).
     * UCC's copies each block it sends and rotates them back (model.ucc.block_copy 3.4 ns:
     * 13.6 and 27.2 ns); HCOLL's stand-in has the messages only. */
    sched_of(m, TS_COLL_ALLTOALL, TS_CALG_BRUCK, 8, 0, -1, 10, &s);
    rounds_are(&s, 4,
               (const char *const[4]){"cpu:237.6ns S1:40 R7:40", "cpu:237.6ns S2:40 R6:40",
                                      "cpu:237.6ns S4:40 R4:40", "cpu:55.2ns"});
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

/* The Allreduce of bytes by choice ch, run symbolically on every rank of topo: every rank ends
 * with every contribution, and each receive expects what its send carries. */
static void allreduce_completes(const ts_coll_model_t *m, const ts_coll_topo_t *topo,
                                const ts_coll_choice_t *ch, uint64_t bytes)
{
    static sim_t S;
    char why[128] = "";
    CU_ASSERT(simulate(m, topo, TS_COLL_ALLREDUCE, ch, -1, bytes, &S) == 1);
    CU_ASSERT(outcome_ok(TS_COLL_ALLREDUCE, &S, -1, why, sizeof why));
    sim_free(&S);
}

/* ---- HCOLL groups on real placements ---- */

static ts_locality loc_place(const void *ctx, int32_t a, int32_t b)
{
    return ts_placement_locality(ctx, a, b);
}

static ts_placement_t *place(int nps, ts_map_by map_by)
{
    ts_platform_t *pf = NULL;
    ts_error_t err;
    CU_ASSERT_FATAL(ts_platform_open_name("bm-optimized3.36", NULL, &pf, &err) == TS_OK);
    ts_placement_opts_t o = {.nodes = 2, .ppn = 36, .nps = nps, .map_by = map_by};
    ts_placement_t *pl = NULL;
    CU_ASSERT_FATAL(ts_placement_open(pf, &o, 72, &pl, &err) == TS_OK);
    ts_platform_close(pf);
    return pl;
}

/* The first n ranks of 2 x 36, block, NPS1 (*pl, which the caller closes) and their topology. */
static ts_coll_topo_t *block_topo(int32_t n, ts_placement_t **pl)
{
    *pl = place(1, TS_MAP_BLOCK);
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(n, NULL, loc_place, *pl, &topo) == TS_OK);
    return topo;
}

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
        if ((hs.step[i].kind == TS_CSTEP_SEND || hs.step[i].kind == TS_CSTEP_RECV) &&
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
            int snd = st->kind == TS_CSTEP_SEND, rcv = st->kind == TS_CSTEP_RECV;
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

/* The steps of kind (TS_CSTEP_SEND or _RECV) with peer: their count, and their bytes in *bytes
 * (UINT64_MAX when they differ); -1 when a SEND among them is not of how (TS_SM_*; a RECV's
 * plan is its sender's). */
static int steps_of(const ts_csched_t *s, int kind, int32_t peer, int how, uint64_t *bytes)
{
    int k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ts_cstep_t *st = &s->step[i];
        if (st->kind != kind || st->peer != peer)
            continue;
        if (kind == TS_CSTEP_SEND && st->shared != how)
            return -1;
        if (k++ == 0)
            *bytes = st->bytes;
        else if (*bytes != st->bytes)
            *bytes = UINT64_MAX;
    }
    return k;
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
    CU_pSuite s = CU_add_suite("coll", NULL, NULL);
    CU_add_test(s, "every algorithm completes as defined (4,5,7,8,12,36,72 ranks)",
                test_all_algorithms_complete);
    CU_add_test(s, "recursive doubling, exact", test_recursive_doubling_exact);
    CU_add_test(s, "ring and Rabenseifner, exact", test_ring_and_rabenseifner_exact);
    CU_add_test(s, "trees, exact", test_trees_exact);
    CU_add_test(s, "allgather, alltoall, barrier, exact", test_allgather_alltoall_barrier_exact);
    CU_add_test(s, "tuned decision boundaries", test_decision_boundaries);
    CU_add_test(s, "component selection", test_component_selection);
    CU_add_test(s, "HCOLL groups under placements", test_hcoll_groups);
    CU_add_test(s, "HCOLL, HAN and UCC schedules complete", test_components_complete);
    CU_add_test(s, "HCOLL's large-data Allreduce, exact", test_hcoll_large_allreduce);
    CU_add_test(s, "HCOLL's leaders between registered buffers", test_hcoll_registered_buffers);
    CU_add_test(s, "UCC's scatter-reduce-allgather Allreduce, exact", test_ucc_sra_allreduce);
    CU_add_test(s, "UCC's k-nomial Allreduce on UCC's pattern, exact", test_ucc_knomial_allreduce);
    CU_add_test(s, "HCOLL's pipelined shared-memory fan-out, exact", test_hcoll_pipelined_fanout);
    CU_add_test(s, "a call with no data: which return at once", test_empty_returns);
    return tu_run_all();
}
