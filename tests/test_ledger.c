/* test_ledger.c - sim/ledger: which flows under way cannot contend. Capacities in GB/s-like
 * round numbers so that every sum below is exact. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/ledger.h"
#include "testutil.h"

/* What the ledger reported for eviction, in order. */
typedef struct {
    void *users[64];
    int n;
} evicted_t;

static void record(void *ctx, void *user)
{
    evicted_t *ev = ctx;
    if (ev->n < 64)
        ev->users[ev->n++] = user;
}

static int was_evicted(const evicted_t *ev, void *user)
{
    int k = 0;
    for (int i = 0; i < ev->n; i++)
        k += ev->users[i] == user;
    return k;
}

/* One node: core copy links of 10 (one per core) into a memory link of 100, the platform's
 * shape for on-node transfers. Nine flows between distinct cores fit (90 <= 100): each runs
 * at 10, free. The tenth brings the memory link's sum to 100, within the margin of its
 * capacity, so it may bind: the tenth is not free and the nine are handed over, once each. */
static void test_memory_link_fills(void)
{
    ts_ledger_t *l = ts_ledger_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    int32_t copy[20], mem;
    for (int i = 0; i < 20; i++)
        copy[i] = ts_ledger_link(l, 10, 1);
    mem = ts_ledger_link(l, 100, 1);
    CU_ASSERT_EQUAL(mem, 20);
    int32_t routes[10][3];
    ts_lflow_t *f[10];
    int tag[10], is_free = -1;
    evicted_t ev = {.n = 0};
    for (int i = 0; i < 10; i++) {
        routes[i][0] = copy[2 * i];
        routes[i][1] = mem;
        routes[i][2] = copy[2 * i + 1];
        CU_ASSERT_DOUBLE_EQUAL(ts_ledger_solo(l, routes[i], 3), 10, 0);
        f[i] = ts_ledger_start(l, routes[i], 3, &tag[i], &is_free, record, &ev);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f[i]);
        CU_ASSERT_EQUAL(is_free, i < 9);
        CU_ASSERT_EQUAL(ev.n, i < 9 ? 0 : 9);
    }
    for (int i = 0; i < 9; i++)
        CU_ASSERT_EQUAL(was_evicted(&ev, &tag[i]), 1);
    CU_ASSERT_EQUAL(ts_ledger_flows(l), 10);
    CU_ASSERT_EQUAL(ts_ledger_free_flows(l), 0);
    /* Handed over stays handed over; a new flow while ten are under way contends too (the
     * memory link's sum would be 110). */
    for (int i = 0; i < 10; i++)
        ts_ledger_end(l, f[i]);
    CU_ASSERT_EQUAL(ts_ledger_flows(l), 0);
    /* All ended: the sums are back to zero and a flow is free again. */
    ev.n = 0;
    ts_lflow_t *g = ts_ledger_start(l, routes[0], 3, &tag[0], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 1);
    CU_ASSERT_EQUAL(ev.n, 0);
    ts_ledger_end(l, g);
    ts_ledger_free(l);
}

/* Two flows on one link of 10 (a NIC): the second would share it, so neither is free; the
 * first is reported once. A third on a link of its own stays free throughout. */
static void test_shared_link(void)
{
    ts_ledger_t *l = ts_ledger_new();
    int32_t nic = ts_ledger_link(l, 10, 1), other = ts_ledger_link(l, 10, 1);
    int32_t r1[] = {nic}, r2[] = {other};
    int a, b, c, is_free = -1;
    evicted_t ev = {.n = 0};
    ts_lflow_t *fa = ts_ledger_start(l, r1, 1, &a, &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 1);
    ts_lflow_t *fc = ts_ledger_start(l, r2, 1, &c, &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 1);
    ts_lflow_t *fb = ts_ledger_start(l, r1, 1, &b, &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 0);
    CU_ASSERT_EQUAL(ev.n, 1);
    CU_ASSERT_PTR_EQUAL(ev.users[0], &a);
    CU_ASSERT_EQUAL(ts_ledger_free_flows(l), 1); /* c */
    ts_ledger_end(l, fa);
    ts_ledger_end(l, fb);
    ts_ledger_end(l, fc);
    CU_ASSERT_EQUAL(ts_ledger_free_flows(l), 0);
    ts_ledger_free(l);
}

/* A link that is not shared (FATPIPE) gives each flow its capacity: any number of flows fit.
 * A route that crosses a link twice is never free (the ledger keeps one place per link) but
 * still counts on its links: a flow of 6 next to it on a link of 10 contends. */
static void test_fatpipe_and_odd_routes(void)
{
    ts_ledger_t *l = ts_ledger_new();
    int32_t pipe = ts_ledger_link(l, 10, 0), lk = ts_ledger_link(l, 10, 1),
            six = ts_ledger_link(l, 6, 1);
    int32_t rp[] = {pipe}, twice[] = {lk, lk}, r6[] = {six, lk};
    int u[8], is_free = -1;
    evicted_t ev = {.n = 0};
    ts_lflow_t *fp[5];
    for (int i = 0; i < 5; i++) {
        fp[i] = ts_ledger_start(l, rp, 1, &u[i], &is_free, record, &ev);
        CU_ASSERT_EQUAL(is_free, 1);
    }
    CU_ASSERT_EQUAL(ts_ledger_free_flows(l), 5);
    ts_lflow_t *ft = ts_ledger_start(l, twice, 2, &u[5], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 0);
    ts_lflow_t *f6 = ts_ledger_start(l, r6, 2, &u[6], &is_free, record, &ev);
    CU_ASSERT_DOUBLE_EQUAL(ts_ledger_solo(l, r6, 2), 6, 0);
    CU_ASSERT_EQUAL(is_free, 0);
    CU_ASSERT_EQUAL(ev.n, 0);
    ts_ledger_end(l, ft);
    ts_ledger_end(l, f6);
    for (int i = 0; i < 5; i++)
        ts_ledger_end(l, fp[i]);
    /* With nothing else on lk, the flow of 6 is free (6 <= 10). */
    f6 = ts_ledger_start(l, r6, 2, &u[6], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 1);
    ts_ledger_end(l, f6);
    CU_ASSERT(isinf(ts_ledger_solo(l, NULL, 0)));
    /* A link number the ledger never gave: refused, nothing counted. */
    int32_t unknown[] = {lk, 99};
    CU_ASSERT_PTR_NULL(ts_ledger_start(l, unknown, 2, &u[7], &is_free, record, &ev));
    CU_ASSERT_EQUAL(ts_ledger_flows(l), 0);
    /* A route of TS_LEDGER_MAX_ROUTE links, all fat pipes, can be free; one link more cannot
     * (a free flow keeps its place in at most that many lists), though nothing else runs. */
    int32_t longest[TS_LEDGER_MAX_ROUTE + 1];
    for (int i = 0; i <= TS_LEDGER_MAX_ROUTE; i++)
        longest[i] = ts_ledger_link(l, 10, 0);
    ts_lflow_t *fl = ts_ledger_start(l, longest, TS_LEDGER_MAX_ROUTE, &u[7], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 1);
    ts_ledger_end(l, fl);
    fl = ts_ledger_start(l, longest, TS_LEDGER_MAX_ROUTE + 1, &u[7], &is_free, record, &ev);
    CU_ASSERT_PTR_NOT_NULL(fl);
    CU_ASSERT_EQUAL(is_free, 0);
    ts_ledger_end(l, fl);
    CU_ASSERT_EQUAL(ts_ledger_flows(l), 0);
    ts_ledger_free(l);
}

/* Free flows leave the lists in any order: the lists stay whole (each remaining free flow is
 * reported exactly once when its link fills). Five free flows of 10 on a link of 100 (sum
 * 50); the 2nd and 4th end; four flows of 10 more keep the sum at 70; one of 40 fills it
 * (110): the seven free ones are reported once each, the ended ones never. */
static void test_lists_after_ends(void)
{
    ts_ledger_t *l = ts_ledger_new();
    int32_t big = ts_ledger_link(l, 100, 1), wide = ts_ledger_link(l, 40, 1);
    int32_t own[9], r[9][2], rw[] = {wide, big};
    for (int i = 0; i < 9; i++) {
        own[i] = ts_ledger_link(l, 10, 1);
        r[i][0] = own[i];
        r[i][1] = big;
    }
    int u[10], is_free = -1;
    evicted_t ev = {.n = 0};
    ts_lflow_t *f[9];
    for (int i = 0; i < 5; i++)
        f[i] = ts_ledger_start(l, r[i], 2, &u[i], &is_free, record, &ev);
    ts_ledger_end(l, f[1]);
    ts_ledger_end(l, f[3]);
    for (int i = 5; i < 9; i++) {
        f[i] = ts_ledger_start(l, r[i], 2, &u[i], &is_free, record, &ev);
        CU_ASSERT_EQUAL(is_free, 1);
    }
    CU_ASSERT_EQUAL(ts_ledger_free_flows(l), 7);
    ts_lflow_t *fw = ts_ledger_start(l, rw, 2, &u[9], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 0);
    CU_ASSERT_EQUAL(ev.n, 7);
    for (int i = 0; i < 9; i++)
        CU_ASSERT_EQUAL(was_evicted(&ev, &u[i]), i == 1 || i == 3 ? 0 : 1);
    CU_ASSERT_EQUAL(ts_ledger_free_flows(l), 0);
    for (int i = 0; i < 9; i++)
        if (i != 1 && i != 3)
            ts_ledger_end(l, f[i]);
    ts_ledger_end(l, fw);
    CU_ASSERT_EQUAL(ts_ledger_flows(l), 0);
    ts_ledger_free(l);
}

/* Rate bounds against max-min worked by hand. A memory link of 100 and copy links of 10.
 * (a) Twelve flows, each on copy links of its own: the memory link's sum is 120, so none is
 * free; each one's fair share there is 100/12, the others take at least 11 x 100/12, so each
 * gets at most 100/12 plus the margin of 1e-4 x 100 (max-min gives exactly 100/12).
 * (b) Two of the twelve share a source copy link: their least share is 10/2 = 5, so on that
 * link each gets at most 10 - 5 (+ 1e-4 x 10); the ten others keep a lower bound of 100/12,
 * and on the memory link the others leave one of them 100 - (2 x 5 + 9 x 100/12) (+ 0.01),
 * more than its solo rate of 10: bound 10 (max-min: 5 each for the two, 90/10 = 9 for the
 * others: within both bounds). A free flow's bound is its solo rate. */
static void test_rate_bounds(void)
{
    ts_ledger_t *l = ts_ledger_new();
    int32_t mem = ts_ledger_link(l, 100, 1), cp[26], r[12][3];
    for (int i = 0; i < 26; i++)
        cp[i] = ts_ledger_link(l, 10, 1);
    int u[13], is_free = -1;
    evicted_t ev = {.n = 0};
    ts_lflow_t *f[12];
    for (int i = 0; i < 12; i++) {
        r[i][0] = cp[2 * i];
        r[i][1] = mem;
        r[i][2] = cp[2 * i + 1];
        f[i] = ts_ledger_start(l, r[i], 3, &u[i], &is_free, record, &ev);
    }
    for (int i = 0; i < 12; i++)
        CU_ASSERT_DOUBLE_EQUAL(ts_ledger_rate_bound(l, f[i]), 100.0 / 12 + 0.01, 1e-12);
    /* (b): the last flow leaves from the first flow's source copy link instead. */
    ts_ledger_end(l, f[11]);
    r[11][0] = cp[0];
    f[11] = ts_ledger_start(l, r[11], 3, &u[11], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 0);
    CU_ASSERT_DOUBLE_EQUAL(ts_ledger_rate_bound(l, f[0]), 5 + 1e-3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ts_ledger_rate_bound(l, f[11]), 5 + 1e-3, 1e-12);
    for (int i = 1; i < 11; i++)
        CU_ASSERT_DOUBLE_EQUAL(ts_ledger_rate_bound(l, f[i]), 10, 1e-12);
    for (int i = 0; i < 12; i++)
        ts_ledger_end(l, f[i]);
    int32_t lone[] = {cp[25], mem};
    ts_lflow_t *g = ts_ledger_start(l, lone, 2, &u[12], &is_free, record, &ev);
    CU_ASSERT_EQUAL(is_free, 1);
    CU_ASSERT_DOUBLE_EQUAL(ts_ledger_rate_bound(l, g), 10, 0);
    ts_ledger_end(l, g);
    ts_ledger_free(l);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("ledger", NULL, NULL);
    CU_add_test(s, "a memory link fills", test_memory_link_fills);
    CU_add_test(s, "a shared link", test_shared_link);
    CU_add_test(s, "fat pipes and odd routes", test_fatpipe_and_odd_routes);
    CU_add_test(s, "lists stay whole after ends", test_lists_after_ends);
    CU_add_test(s, "rate bounds", test_rate_bounds);
    return tu_run_all();
}
