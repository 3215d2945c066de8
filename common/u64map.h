/* u64map.h - a hash map from 64-bit keys to pointers (open addressing, linear probing),
 * for the engine's per-rank request and lookahead tables: O(1) with memory proportional to
 * what is in flight, not to the trace. */
#ifndef TS_U64MAP_H
#define TS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_u64map_s ts_u64map_t;

ts_u64map_t *ts_u64map_new(void); /* NULL on allocation failure */
void ts_u64map_free(ts_u64map_t *m);
/* The value stored under key, or NULL. */
void *ts_u64map_get(const ts_u64map_t *m, uint64_t key);
/* Store value (not NULL) under key, replacing any; 0 on success, -1 when out of memory. */
int ts_u64map_put(ts_u64map_t *m, uint64_t key, void *value);
/* Remove key; returns its value or NULL. */
void *ts_u64map_remove(ts_u64map_t *m, uint64_t key);
size_t ts_u64map_size(const ts_u64map_t *m);
/* Call fn for every entry (in table order). */
void ts_u64map_each(const ts_u64map_t *m, void (*fn)(uint64_t key, void *value, void *ctx),
                    void *ctx);

#endif
