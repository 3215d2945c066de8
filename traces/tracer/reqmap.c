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

static size_t find_slot(const trc_reqmap_t *map, MPI_Request handle)
{
    size_t mask = map->cap - 1;
    size_t i = hash_handle(handle) & mask;
    while (map->slots[i].handle != MPI_REQUEST_NULL && map->slots[i].handle != handle)
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
            bigger.slots[find_slot(&bigger, map->slots[i].handle)] = map->slots[i];
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
    size_t i = find_slot(map, req->handle);
    if (map->slots[i].handle == MPI_REQUEST_NULL)
        map->count++;
    map->slots[i] = *req;
    return 0;
}

trc_req_t *trc_reqmap_get(trc_reqmap_t *map, MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL || map->slots == NULL)
        return NULL;
    size_t i = find_slot(map, handle);
    return map->slots[i].handle == MPI_REQUEST_NULL ? NULL : &map->slots[i];
}

void trc_reqmap_del(trc_reqmap_t *map, MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL || map->slots == NULL)
        return;
    size_t mask = map->cap - 1;
    size_t i = find_slot(map, handle);
    if (map->slots[i].handle == MPI_REQUEST_NULL)
        return;
    /* Backward-shift deletion: move later members of the probe run into the hole so that
     * lookups never stop early, without tombstones. */
    size_t hole = i;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (map->slots[j].handle == MPI_REQUEST_NULL)
            break;
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
