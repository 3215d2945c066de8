/* ledger.h - which flows under way cannot contend, so that the engine computes their time
 * itself and only the others are SimGrid flows.
 *
 * Under the engine's network configuration (CM02: max-min sharing, every flow of equal
 * weight, no latency on links, no bandwidth factor, no TCP window) a flow alone would run at
 * its solo rate, the least capacity on its route, and no flow ever runs faster. If on every
 * link of a flow's route the solo rates of all flows crossing that link add up to no more
 * than the link's capacity, the link can bind no one but a flow that is alone on it; so the
 * flow runs at exactly its solo rate, and takes nothing from any other flow's share: it is
 * "free". The ledger keeps, per link, the sum of the solo rates of the flows under way and
 * the free flows crossing it. A flow that starts where the sums would pass a capacity is not
 * free, and neither is any free flow on that link from then on (the caller hands those to
 * SimGrid with the bytes they have left: their rates so far were their solo rates, exactly).
 * Flows that ended take their rate off the sums; a flow handed to SimGrid stays there. */
#ifndef TS_LEDGER_H
#define TS_LEDGER_H

#include <stddef.h>
#include <stdint.h>

/* The longest route the ledger follows; flows on longer routes are never free. */
#define TS_LEDGER_MAX_ROUTE 16

typedef struct ts_ledger_s ts_ledger_t;
typedef struct ts_lflow_s ts_lflow_t;

/* Called for each free flow that must go to SimGrid from now on (see ts_ledger_start). */
typedef void (*ts_ledger_evict_fn)(void *ctx, void *user);

/* An empty ledger; NULL when out of memory. */
ts_ledger_t *ts_ledger_new(void);
void ts_ledger_free(ts_ledger_t *l);
/* A new link of the given capacity (bytes/s) and sharing (a link that is not shared,
 * SimGrid's FATPIPE, gives every flow up to its capacity whatever the others take): its
 * number, counted from 0, or -1 when out of memory. */
int32_t ts_ledger_link(ts_ledger_t *l, double capacity, int shared);
/* A route's solo rate: the least capacity on links[0..n); HUGE_VAL for n = 0. */
double ts_ledger_solo(const ts_ledger_t *l, const int32_t *links, int32_t n);

/* A flow starts over links[0..n) (numbers from ts_ledger_link, kept by the caller until the flow
 * ends). Returns its
 * handle, *is_free says whether it runs at its solo rate; every free flow that may contend
 * from now on is reported once to evict(ctx, its user) and is not free any more. NULL when
 * out of memory or a link is not the ledger's (nothing changed then). */
ts_lflow_t *ts_ledger_start(ts_ledger_t *l, const int32_t *links, int32_t n, void *user,
                            int *is_free, ts_ledger_evict_fn evict, void *ctx);
/* The flow has ended (free or not): its rate comes off the sums; the handle is gone. */
void ts_ledger_end(ts_ledger_t *l, ts_lflow_t *f);
/* The most bytes/s flow f can get while the flows under way stay as they are: its solo rate
 * if it is free; otherwise what is left on its tightest shared link once every other flow
 * there has its least possible share (see bound_all), with a margin of 1e-4 of the link's
 * capacity for SimGrid's solver. Costs a pass over all flows under way after any start or
 * end. */
double ts_ledger_rate_bound(ts_ledger_t *l, ts_lflow_t *f);
/* Flows under way, and of those the free ones (for tests and reports). */
size_t ts_ledger_flows(const ts_ledger_t *l);
size_t ts_ledger_free_flows(const ts_ledger_t *l);

#endif
