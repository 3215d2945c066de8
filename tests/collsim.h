/* collsim.h - what the collective model's tests (test_coll.c, test_coll_components.c) share.
 * Every rank's schedule of a collective is executed symbolically: messages matched in FIFO
 * order per pair, a send completing only once its receive is posted (a schedule that relies on
 * buffering fails), each rank tracking whose contributions it holds; outcome_ok checks them
 * against the collective's definition. */
#ifndef TS_TESTS_COLLSIM_H
#define TS_TESTS_COLLSIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "models/coll.h"
#include "models/coll_impl.h"
#include "platforms/placement.h"
#include "traces/events.h"

#define MAXN  80
#define WORDS ((MAXN + 63) / 64)

typedef struct know_s {
    uint64_t w[WORDS];
} know_t;

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

/* The collective model of the defaults with sets (name, value pairs, NULL-ended) applied. */
ts_coll_model_t *model_with(const char *const *sets);
/* A flat topology: every rank on its own node (no hierarchy). */
ts_locality loc_apart(const void *ctx, int32_t a, int32_t b);
/* Build every rank's schedule of op by (comp, alg) and run them: 1 when every rank finished
 * and every receive got the bytes it expects, 0 otherwise, -1 when a schedule failed to build. */
int simulate(const ts_coll_model_t *m, const ts_coll_topo_t *topo, int op,
             const ts_coll_choice_t *ch, int32_t root, uint64_t bytes, sim_t *S);
void sim_free(sim_t *S);
/* What each rank must hold afterwards, by the collective's definition (why: the first miss). */
int outcome_ok(int op, const sim_t *S, int32_t root, char *why, size_t len);

/* The steps of rank r in round k, as "S3:8 R3:8" text ("r3:8": a receive posted in round k and
 * waited for in the next). */
void round_text(const ts_csched_t *s, int k, char *out, size_t len);
/* Rank me's schedule of op by tuned's alg on n ranks apart. */
void sched_of(const ts_coll_model_t *m, int op, int alg, int n, int32_t me, int32_t root,
              uint64_t bytes, ts_csched_t *s);
#define ROUND_IS(s, k, text)                                                                       \
    do {                                                                                           \
        char got_[512];                                                                            \
        round_text((s), (k), got_, sizeof got_);                                                   \
        if (strcmp(got_, (text)) != 0)                                                             \
            fprintf(stderr, "\n  round %d: got '%s', want '%s'\n", (k), got_, (text));             \
        CU_ASSERT_STRING_EQUAL(got_, (text));                                                      \
    } while (0)

/* s has nrounds rounds, and round k reads want[k] wherever that is set (want has nrounds). */
void rounds_are(const ts_csched_t *s, int nrounds, const char *const *want);
/* The Allreduce of bytes by choice ch completes on every rank of topo with every contribution. */
void allreduce_completes(const ts_coll_model_t *m, const ts_coll_topo_t *topo,
                         const ts_coll_choice_t *ch, uint64_t bytes);

/* bm-optimized3.36's locality of two ranks of a placement (ctx). */
ts_locality loc_place(const void *ctx, int32_t a, int32_t b);
/* 2 x 36 ranks on bm-optimized3.36 under NPS nps and map_by. */
ts_placement_t *place(int nps, ts_map_by map_by);
/* The first n ranks of 2 x 36, block, NPS1 (*pl, which the caller closes) and their topology. */
ts_coll_topo_t *block_topo(int32_t n, ts_placement_t **pl);
/* The steps of kind with peer: their count and bytes (UINT64_MAX when they differ); -1 when a
 * SEND among them is not of how (TS_SM_*). */
int steps_of(const ts_csched_t *s, int kind, int32_t peer, int how, uint64_t *bytes);

#endif
