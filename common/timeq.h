/* timeq.h - a queue of items by time (a binary min-heap), for the replay engine's ranks that
 * wait to run at a virtual time. Items of equal time come out in the order they went in, so
 * a replay that pushes the same items in the same order pops them in the same order. */
#ifndef TS_TIMEQ_H
#define TS_TIMEQ_H

#include <stddef.h>

typedef struct ts_timeq_s ts_timeq_t;

ts_timeq_t *ts_timeq_new(void); /* NULL on allocation failure */
void ts_timeq_free(ts_timeq_t *q);
/* Queue item (any pointer) at time t; 0 on success, -1 when out of memory. */
int ts_timeq_push(ts_timeq_t *q, double t, void *item);
size_t ts_timeq_size(const ts_timeq_t *q);
/* The earliest time queued; only when the queue is not empty. */
double ts_timeq_first(const ts_timeq_t *q);
/* The earliest item, left in the queue; NULL if empty. */
void *ts_timeq_peek(const ts_timeq_t *q);
/* Remove and return the earliest item (the first pushed among equal times); NULL if empty. */
void *ts_timeq_pop(ts_timeq_t *q);

#endif
