/* u64map.c - open-addressing hash map from uint64 keys to pointers (see u64map.h). Deletion
 * uses backward shifting, so there are no tombstones and lookups stay short. */
#include "u64map.h"

#include <stdlib.h>

typedef struct slot_s {
    uint64_t key;
    void *value; /* NULL: empty */
} slot_t;

struct ts_u64map_s {
    slot_t *slots;
    size_t cap, size; /* cap is a power of two */
};

static size_t hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

ts_u64map_t *ts_u64map_new(void)
{
    ts_u64map_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 16;
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots) {
        free(m);
        return NULL;
    }
    return m;
}

void ts_u64map_free(ts_u64map_t *m)
{
    if (m)
        free(m->slots);
    free(m);
}

static slot_t *find(const ts_u64map_t *m, uint64_t key)
{
    for (size_t i = hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        slot_t *s = &m->slots[i];
        if (!s->value || s->key == key)
            return s;
    }
}

void *ts_u64map_get(const ts_u64map_t *m, uint64_t key)
{
    return find(m, key)->value;
}

static int grow(ts_u64map_t *m)
{
    slot_t *old = m->slots;
    size_t oldcap = m->cap;
    slot_t *fresh = calloc(oldcap * 2, sizeof *fresh);
    if (!fresh)
        return -1;
    m->slots = fresh;
    m->cap = oldcap * 2;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].value)
            *find(m, old[i].key) = old[i];
    free(old);
    return 0;
}

int ts_u64map_put(ts_u64map_t *m, uint64_t key, void *value)
{
    if (4 * (m->size + 1) > 3 * m->cap && grow(m))
        return -1;
    slot_t *s = find(m, key);
    if (!s->value)
        m->size++;
    s->key = key;
    s->value = value;
    return 0;
}

void *ts_u64map_remove(ts_u64map_t *m, uint64_t key)
{
    slot_t *s = find(m, key);
    void *v = s->value;
    if (!v)
        return NULL;
    m->size--;
    /* Shift later members of the probe run back so that no lookup stops early. */
    size_t i = (size_t)(s - m->slots), j = i;
    for (;;) {
        m->slots[i].value = NULL;
        for (;;) {
            j = (j + 1) & (m->cap - 1);
            if (!m->slots[j].value)
                return v;
            size_t h = hash(m->slots[j].key, m->cap);
            /* Move j into the hole at i unless its home h lies cyclically in (i, j]. */
            if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
                break;
        }
        m->slots[i] = m->slots[j];
        i = j;
    }
}

size_t ts_u64map_size(const ts_u64map_t *m)
{
    return m->size;
}

void ts_u64map_each(const ts_u64map_t *m, void (*fn)(uint64_t, void *, void *), void *ctx)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].value)
            fn(m->slots[i].key, m->slots[i].value, ctx);
}
