/* collsim.c - what the collective model's tests share (collsim.h): the symbolic execution of
 * every rank's schedule, the outcome each collective must leave, schedules written as text,
 * and the 2 x 36 placements of bm-optimized3.36. */
#include "collsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "platforms/platform.h"

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

ts_coll_model_t *model_with(const char *const *sets)
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
ts_locality loc_apart(const void *ctx, int32_t a, int32_t b)
{
    (void)ctx;
    return a == b ? TS_LOC_SELF : TS_LOC_SAME_LEAF;
}

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
    /* receives posted ahead (TS_CSTEP_RECV_NEXT): this round's, and the last round's that
     * this one waits for, as (peer, ordinal, bytes) */
    static struct {
        int peer, k;
        uint64_t bytes;
    } ahead[MAXN][2][64];
    int nahead[MAXN][2];
    memset(nahead, 0, sizeof nahead);
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
                    } else if (st->kind == TS_CSTEP_RECV_NEXT) {
                        int a = nahead[r][1]++;
                        CU_ASSERT_FATAL(a < 64);
                        ahead[r][1][a].peer = st->peer;
                        ahead[r][1][a].k = precv[st->peer][r]++;
                        ahead[r][1][a].bytes = st->bytes;
                    } else {
                        ord[r][i - S->pos[r]] = precv[st->peer][r]++;
                    }
                }
                posted[r] = 1;
                progress = 1;
            }
            /* complete when each send's receive and each receive's send is posted */
            int ok = 1;
            for (int a = 0; a < nahead[r][0] && ok; a++)
                ok = psend[ahead[r][0][a].peer][r] > ahead[r][0][a].k;
            for (size_t i = S->pos[r]; i < end && ok; i++) {
                const ts_cstep_t *st = &s->step[i];
                int k = ord[r][i - S->pos[r]];
                if (st->kind == TS_CSTEP_CPU || st->kind == TS_CSTEP_RECV_NEXT)
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
            for (int a = 0; a < nahead[r][0]; a++) {
                int peer = ahead[r][0][a].peer, k = ahead[r][0][a].k % 64;
                know_or(&S->know[r], &payload[peer][r][k]);
                S->size_mismatch += pbytes[peer][r][k] != ahead[r][0][a].bytes;
            }
            memcpy(ahead[r][0], ahead[r][1], sizeof ahead[r][0]);
            nahead[r][0] = nahead[r][1];
            nahead[r][1] = 0;
            S->pos[r] = end + 1;
            posted[r] = 0;
            progress = 1;
            if (S->pos[r] >= s->n) {
                CU_ASSERT(nahead[r][0] == 0); /* nothing posted ahead is left unwaited */
                done++;
            }
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
int simulate(const ts_coll_model_t *m, const ts_coll_topo_t *topo, int op,
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

void sim_free(sim_t *S)
{
    for (int r = 0; r < S->n; r++)
        ts_csched_free(&S->s[r]);
}

/* What each rank must hold afterwards, by the collective's definition. */
int outcome_ok(int op, const sim_t *S, int32_t root, char *why, size_t len)
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

/* The steps of rank r in round k, as "S3:8 R3:8" text ("r3:8": a receive posted in round k and
 * waited for in the next). */
void round_text(const ts_csched_t *s, int k, char *out, size_t len)
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
                                     st->kind == TS_CSTEP_SEND        ? 'S'
                                     : st->kind == TS_CSTEP_RECV_NEXT ? 'r'
                                                                      : 'R',
                                     (int)st->peer, (unsigned long long)st->bytes);
    }
}

void sched_of(const ts_coll_model_t *m, int op, int alg, int n, int32_t me, int32_t root,
              uint64_t bytes, ts_csched_t *s)
{
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(n, NULL, loc_apart, NULL, &topo) == TS_OK);
    ts_coll_choice_t ch = {.comp = TS_CCOMP_TUNED, .alg = alg};
    CU_ASSERT_FATAL(ts_coll_schedule(m, &ch, op, topo, me, root, bytes, s) == TS_OK);
    ts_coll_topo_free(topo);
}

/* s has nrounds rounds, and round k reads want[k] wherever that is set (want has nrounds). */
void rounds_are(const ts_csched_t *s, int nrounds, const char *const *want)
{
    CU_ASSERT_EQUAL(s->rounds, nrounds);
    for (int k = 0; k < nrounds; k++)
        if (want[k])
            ROUND_IS(s, k, want[k]);
}

/* The Allreduce of bytes by choice ch, run symbolically on every rank of topo: every rank ends
 * with every contribution, and each receive expects what its send carries. */
void allreduce_completes(const ts_coll_model_t *m, const ts_coll_topo_t *topo,
                         const ts_coll_choice_t *ch, uint64_t bytes)
{
    static sim_t S;
    char why[128] = "";
    CU_ASSERT(simulate(m, topo, TS_COLL_ALLREDUCE, ch, -1, bytes, &S) == 1);
    CU_ASSERT(outcome_ok(TS_COLL_ALLREDUCE, &S, -1, why, sizeof why));
    sim_free(&S);
}

ts_locality loc_place(const void *ctx, int32_t a, int32_t b)
{
    return ts_placement_locality(ctx, a, b);
}

ts_placement_t *place(int nps, ts_map_by map_by)
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
ts_coll_topo_t *block_topo(int32_t n, ts_placement_t **pl)
{
    *pl = place(1, TS_MAP_BLOCK);
    ts_coll_topo_t *topo = NULL;
    CU_ASSERT_FATAL(ts_coll_topo_new(n, NULL, loc_place, *pl, &topo) == TS_OK);
    return topo;
}

/* The steps of kind (TS_CSTEP_SEND or _RECV) with peer: their count, and their bytes in *bytes
 * (UINT64_MAX when they differ); -1 when a SEND among them is not of how (TS_SM_*; a RECV's
 * plan is its sender's). */
int steps_of(const ts_csched_t *s, int kind, int32_t peer, int how, uint64_t *bytes)
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
