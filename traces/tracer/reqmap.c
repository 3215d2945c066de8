/* reqmap.c - MPI_Request -> posted-request facts, an open-addressing hash map; see reqmap.h. */
#include "reqmap.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "MPI_Request must fit in 64 bits");

/* A handle is a pointer (Open MPI) or an int (MPICH): mix all its bits. */
static size_t hash_handle(MPI_Request handle)
{
    uint64_t x = 0;
    memcpy(&x, &handle, sizeof handle);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static void clear_slots(trc_req_t *slots, size_t cap)
{
    for (size_t i = 0; i < cap; i++)
        slots[i].handle = MPI_REQUEST_NULL;
}

int trc_reqmap_init(trc_reqmap_t *map)
{
    map->cap = 256;
    map->count = 0;
    map->slots = malloc(map->cap * sizeof *map->slots);
    if (map->slots == NULL)
        return -1;
    clear_slots(map->slots, map->cap);
    return 0;
}

void trc_reqmap_fini(trc_reqmap_t *map)
{
    free(map->slots);
    map->slots = NULL;
    map->cap = map->count = 0;
}

/* The first empty slot of handle's probe run. */
static size_t free_slot(const trc_reqmap_t *map, MPI_Request handle)
{
    size_t mask = map->cap - 1;
    size_t i = hash_handle(handle) & mask;
    while (map->slots[i].handle != MPI_REQUEST_NULL)
        i = (i + 1) & mask;
    return i;
}

static int grow(trc_reqmap_t *map)
{
    trc_reqmap_t bigger = {.cap = map->cap * 2, .count = 0};
    bigger.slots = malloc(bigger.cap * sizeof *bigger.slots);
    if (bigger.slots == NULL)
        return -1;
    clear_slots(bigger.slots, bigger.cap);
    for (size_t i = 0; i < map->cap; i++) {
        if (map->slots[i].handle != MPI_REQUEST_NULL) {
            bigger.slots[free_slot(&bigger, map->slots[i].handle)] = map->slots[i];
            bigger.count++;
        }
    }
    free(map->slots);
    *map = bigger;
    return 0;
}

int trc_reqmap_put(trc_reqmap_t *map, const trc_req_t *req)
{
    if (req->handle == MPI_REQUEST_NULL)
        return 0;
    if ((map->count + 1) * 2 > map->cap && grow(map) != 0)
        return -1;
    map->slots[free_slot(map, req->handle)] = *req;
    map->count++;
    return 0;
}

trc_req_t *trc_reqmap_get(trc_reqmap_t *map, MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL || map->slots == NULL)
        return NULL;
    size_t mask = map->cap - 1;
    trc_req_t *oldest = NULL;
    for (size_t i = hash_handle(handle) & mask; map->slots[i].handle != MPI_REQUEST_NULL;
         i = (i + 1) & mask) {
        trc_req_t *e = &map->slots[i];
        if (e->handle == handle && (oldest == NULL || e->id < oldest->id))
            oldest = e;
    }
    return oldest;
}

void trc_reqmap_remove(trc_reqmap_t *map, trc_req_t *entry)
{
    size_t mask = map->cap - 1;
    size_t hole = (size_t)(entry - map->slots);
    /* Backward-shift deletion: move later members of the probe run into the hole so that
     * lookups never stop early, without tombstones. */
    for (size_t j = (hole + 1) & mask; map->slots[j].handle != MPI_REQUEST_NULL;
         j = (j + 1) & mask) {
        size_t home = hash_handle(map->slots[j].handle) & mask;
        /* The entry at j may fill the hole only if its home is not cyclically in (hole, j]. */
        int home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!home_in_range) {
            map->slots[hole] = map->slots[j];
            hole = j;
        }
    }
    map->slots[hole].handle = MPI_REQUEST_NULL;
    map->count--;
}
