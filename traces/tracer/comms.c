/* comms.c - communicator registry with keys agreed at creation, unified at MPI_Finalize;
 * see comms.h. Only PMPI_* calls are used, so none of this is itself traced. */
#include "comms.h"

#include <stdlib.h>
#include <string.h>

#define TRC_COMM_LAZY 0x80000000u
/* Key owner of the predefined communicators (seq 0 = WORLD, 1 = SELF) and of "no parent". */
#define KEY_PREDEFINED UINT32_MAX

int trc_comms_init(trc_comms_t *comms)
{
    memset(comms, 0, sizeof *comms);
    comms->keyval = MPI_KEYVAL_INVALID;
    comms->world_group = MPI_GROUP_NULL;
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &comms->world_rank) != MPI_SUCCESS ||
        PMPI_Comm_size(MPI_COMM_WORLD, &comms->world_size) != MPI_SUCCESS ||
        PMPI_Comm_group(MPI_COMM_WORLD, &comms->world_group) != MPI_SUCCESS ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comms->keyval,
                                NULL) != MPI_SUCCESS)
        return -1;
    comms->cap = 16;
    comms->v = calloc(comms->cap, sizeof *comms->v);
    comms->lazy_count = calloc((size_t)comms->world_size, sizeof *comms->lazy_count);
    if (comms->v == NULL || comms->lazy_count == NULL)
        return -1;
    /* WORLD and SELF are predefined on every rank: no owner, no definition to send. */
    comms->v[TRC_COMM_WORLD] = (trc_comm_t){KEY_PREDEFINED, 0, -1, comms->world_size, NULL, 0};
    comms->v[TRC_COMM_SELF] = (trc_comm_t){KEY_PREDEFINED, 1, -1, 1, NULL, 0};
    comms->n = 2;
    return 0;
}

void trc_comms_fini(trc_comms_t *comms)
{
    for (uint32_t i = 0; i < comms->n; i++)
        free(comms->v[i].members);
    free(comms->v);
    free(comms->lazy_count);
    if (comms->keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&comms->keyval);
    if (comms->world_group != MPI_GROUP_NULL)
        PMPI_Group_free(&comms->world_group);
    memset(comms, 0, sizeof *comms);
}

static int lookup(trc_comms_t *comms, MPI_Comm comm, uint32_t *id)
{
    if (comm == MPI_COMM_WORLD) {
        *id = TRC_COMM_WORLD;
        return 1;
    }
    if (comm == MPI_COMM_SELF) {
        *id = TRC_COMM_SELF;
        return 1;
    }
    void *value = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, comms->keyval, &value, &found) != MPI_SUCCESS || !found)
        return 0;
    *id = (uint32_t)((uintptr_t)value - 1);
    return 1;
}

/* World ranks of comm's (local) group, allocated; NULL on failure. */
static int32_t *world_members(trc_comms_t *comms, MPI_Comm comm, int *size)
{
    MPI_Group group;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
        return NULL;
    int32_t *members = NULL;
    int *ranks = NULL;
    if (PMPI_Group_size(group, size) != MPI_SUCCESS || *size <= 0)
        goto out;
    members = malloc((size_t)*size * sizeof *members);
    ranks = malloc((size_t)*size * sizeof *ranks);
    if (members == NULL || ranks == NULL)
        goto fail;
    for (int i = 0; i < *size; i++)
        ranks[i] = i;
    _Static_assert(sizeof(int32_t) == sizeof(int), "members are ints");
    if (PMPI_Group_translate_ranks(group, *size, ranks, comms->world_group, (int *)members) !=
        MPI_SUCCESS)
        goto fail;
    goto out;
fail:
    free(members);
    members = NULL;
out:
    free(ranks);
    PMPI_Group_free(&group);
    return members;
}

static int append(trc_comms_t *comms, const trc_comm_t *entry, MPI_Comm comm, uint32_t *id)
{
    if (comms->n == comms->cap) {
        trc_comm_t *bigger = realloc(comms->v, 2 * comms->cap * sizeof *bigger);
        if (bigger == NULL)
            return -1;
        comms->v = bigger;
        comms->cap *= 2;
    }
    *id = comms->n;
    if (PMPI_Comm_set_attr(comm, comms->keyval, (void *)(uintptr_t)(*id + 1)) != MPI_SUCCESS)
        return -1;
    comms->v[comms->n++] = *entry;
    return 0;
}

/* Register comm found at first use (or an inter-communicator at its creation). */
static uint32_t register_lazily(trc_comms_t *comms, MPI_Comm comm)
{
    uint32_t id;
    trc_comm_t entry = {0, 0, -1, 0, NULL, 0};
    if (PMPI_Comm_test_inter(comm, &entry.inter) != MPI_SUCCESS)
        entry.inter = 0;
    entry.members = world_members(comms, comm, &entry.size);
    if (entry.members == NULL || entry.members[0] < 0 || entry.members[0] >= comms->world_size) {
        free(entry.members);
        return TRC_COMM_WORLD;
    }
    entry.owner = (uint32_t)entry.members[0];
    entry.seq = TRC_COMM_LAZY | comms->lazy_count[entry.owner]++;
    if (append(comms, &entry, comm, &id) != 0) {
        free(entry.members);
        return TRC_COMM_WORLD;
    }
    return id;
}

uint32_t trc_comms_id(trc_comms_t *comms, MPI_Comm comm)
{
    uint32_t id;
    if (comm == MPI_COMM_NULL)
        return TRC_COMM_WORLD;
    if (!lookup(comms, comm, &id))
        id = register_lazily(comms, comm);
    if (id < comms->n && comms->v[id].inter)
        comms->inter_uses++;
    return id;
}

uint32_t trc_comms_created(trc_comms_t *comms, MPI_Comm parent, MPI_Comm newcomm)
{
    uint32_t id;
    if (newcomm == MPI_COMM_NULL)
        return TRC_COMM_WORLD;
    /* An inter-communicator's rank 0 is the other group's to a broadcast: both groups would
     * wait to receive the key. It is registered as found (its local group). */
    int inter = 0;
    if (PMPI_Comm_test_inter(newcomm, &inter) == MPI_SUCCESS && inter)
        return register_lazily(comms, newcomm);
    int rank;
    if (PMPI_Comm_rank(newcomm, &rank) != MPI_SUCCESS)
        return TRC_COMM_WORLD;
    trc_comm_t entry = {0, 0, -1, 0, NULL, 0};
    uint32_t key[2] = {(uint32_t)comms->world_rank, 0};
    if (rank == 0)
        key[1] = comms->next_seq++;
    /* The owner tells every member the key; all members take part, even if one fails. */
    if (PMPI_Bcast(key, 2, MPI_UINT32_T, 0, newcomm) != MPI_SUCCESS)
        return TRC_COMM_WORLD;
    entry.owner = key[0];
    entry.seq = key[1];
    if (parent != MPI_COMM_NULL)
        entry.parent = (int32_t)trc_comms_id(comms, parent);
    if (rank == 0) {
        entry.members = world_members(comms, newcomm, &entry.size);
        if (entry.members == NULL)
            return TRC_COMM_WORLD;
    } else if (PMPI_Comm_size(newcomm, &entry.size) != MPI_SUCCESS) {
        return TRC_COMM_WORLD;
    }
    if (append(comms, &entry, newcomm, &id) != 0) {
        free(entry.members);
        return TRC_COMM_WORLD;
    }
    return id;
}

/* ---- unification ---------------------------------------------------------------------- */

typedef struct def_s {
    uint32_t owner, seq, parent_owner, parent_seq, size;
    const uint32_t *members;
} def_t;

static int cmp_key(uint32_t ao, uint32_t as, uint32_t bo, uint32_t bs)
{
    if (ao != bo)
        return ao < bo ? -1 : 1;
    return as < bs ? -1 : as > bs;
}

static int cmp_def(const void *a, const void *b)
{
    const def_t *x = a, *y = b;
    return cmp_key(x->owner, x->seq, y->owner, y->seq);
}

/* Global id of a key given the sorted keys (owner, seq pairs), or UINT32_MAX. */
static uint32_t global_id(const uint32_t *keys, uint32_t n, uint32_t owner, uint32_t seq)
{
    if (owner == KEY_PREDEFINED)
        return seq <= 1 ? seq : UINT32_MAX;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp_key(keys[2 * mid], keys[2 * mid + 1], owner, seq);
        if (c == 0)
            return 2 + mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

/* This rank's definitions as a flat array: owner, seq, parent owner, parent seq, size,
 * members..., repeated. Sent by owners, and by every member for lazily found ones. */
static uint32_t *pack_defs(const trc_comms_t *comms, int *len)
{
    size_t total = 0;
    for (uint32_t i = 2; i < comms->n; i++)
        if (comms->v[i].members != NULL)
            total += 5 + (size_t)comms->v[i].size;
    uint32_t *buf = malloc((total ? total : 1) * sizeof *buf);
    *len = 0;
    if (buf == NULL)
        return NULL;
    size_t k = 0;
    for (uint32_t i = 2; i < comms->n; i++) {
        const trc_comm_t *c = &comms->v[i];
        if (c->members == NULL)
            continue;
        uint32_t po = KEY_PREDEFINED, ps = UINT32_MAX;
        if (c->parent >= 0) {
            po = comms->v[c->parent].owner;
            ps = comms->v[c->parent].seq;
        }
        buf[k++] = c->owner;
        buf[k++] = c->seq;
        buf[k++] = po;
        buf[k++] = ps;
        buf[k++] = (uint32_t)c->size;
        for (int32_t m = 0; m < c->size; m++)
            buf[k++] = (uint32_t)c->members[m];
    }
    *len = (int)k;
    return buf;
}

/* Rank 0: parse the gathered definitions, sort and de-duplicate them by key. */
static def_t *parse_defs(const uint32_t *all, size_t len, uint32_t *ndefs)
{
    size_t cap = 0;
    for (size_t k = 0; k + 5 <= len; k += 5 + all[k + 4])
        cap++;
    def_t *defs = malloc((cap ? cap : 1) * sizeof *defs);
    *ndefs = 0;
    if (defs == NULL)
        return NULL;
    size_t n = 0;
    for (size_t k = 0; k + 5 <= len && n < cap; k += 5 + all[k + 4]) {
        defs[n++] = (def_t){all[k], all[k + 1], all[k + 2], all[k + 3], all[k + 4], &all[k + 5]};
    }
    qsort(defs, n, sizeof *defs, cmp_def);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || cmp_def(&defs[u - 1], &defs[i]) != 0)
            defs[u++] = defs[i];
    *ndefs = (uint32_t)u;
    return defs;
}

static int build_table(const def_t *defs, uint32_t n, const uint32_t *keys, trc_comm_table_t *table)
{
    size_t nmembers = 0;
    for (uint32_t i = 0; i < n; i++)
        nmembers += defs[i].size;
    table->n = n;
    table->parent = malloc((n ? n : 1) * sizeof *table->parent);
    table->size = malloc((n ? n : 1) * sizeof *table->size);
    table->first = malloc((n ? n : 1) * sizeof *table->first);
    table->members = malloc((nmembers ? nmembers : 1) * sizeof *table->members);
    if (!table->parent || !table->size || !table->first || !table->members) {
        trc_comm_table_fini(table);
        return -1;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        table->parent[i] = global_id(keys, n, defs[i].parent_owner, defs[i].parent_seq);
        table->size[i] = defs[i].size;
        table->first[i] = at;
        memcpy(&table->members[at], defs[i].members, defs[i].size * sizeof *table->members);
        at += defs[i].size;
    }
    return 0;
}

int trc_comms_unify(trc_comms_t *comms, uint64_t **map, uint32_t *nlocal, trc_comm_table_t *table)
{
    const int root = 0;
    int is_root = comms->world_rank == root;
    int nranks = comms->world_size;
    int len = 0, ok = 1;
    uint32_t *mine = pack_defs(comms, &len);
    int *counts = NULL, *displs = NULL;
    uint32_t *all = NULL, *keys = NULL;
    def_t *defs = NULL;
    uint32_t ndefs = 0;

    memset(table, 0, sizeof *table);
    *map = NULL;
    *nlocal = 0;
    if (mine == NULL)
        ok = 0;
    if (is_root) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
        if (counts == NULL || displs == NULL)
            ok = 0;
    }
    /* Every rank takes part in each collective below whatever happened locally, so that a
     * failure on one rank cannot leave the others waiting. */
    PMPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, root, MPI_COMM_WORLD);
    size_t total = 0;
    if (is_root && counts != NULL) {
        for (int r = 0; r < nranks; r++) {
            displs[r] = (int)total;
            total += (size_t)counts[r];
        }
        all = malloc((total ? total : 1) * sizeof *all);
        if (all == NULL)
            ok = 0;
    }
    PMPI_Gatherv(mine, len, MPI_UINT32_T, all, counts, displs, MPI_UINT32_T, root, MPI_COMM_WORLD);
    if (is_root && all != NULL) {
        defs = parse_defs(all, total, &ndefs);
        if (defs == NULL)
            ok = 0;
    }
    PMPI_Bcast(&ndefs, 1, MPI_UINT32_T, root, MPI_COMM_WORLD);
    keys = malloc((2 * (size_t)ndefs + 1) * sizeof *keys);
    if (keys == NULL)
        ok = 0;
    if (is_root && keys != NULL && defs != NULL) {
        for (uint32_t i = 0; i < ndefs; i++) {
            keys[2 * i] = defs[i].owner;
            keys[2 * i + 1] = defs[i].seq;
        }
    }
    uint32_t dummy[1];
    PMPI_Bcast(keys ? keys : dummy, keys ? 2 * (int)ndefs : 0, MPI_UINT32_T, root, MPI_COMM_WORLD);
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    if (ok) {
        *map = malloc(comms->n * sizeof **map);
        if (*map == NULL) {
            ok = 0;
        } else {
            *nlocal = comms->n;
            for (uint32_t i = 0; i < comms->n; i++) {
                uint32_t g = global_id(keys, ndefs, comms->v[i].owner, comms->v[i].seq);
                (*map)[i] = g;
            }
        }
    }
    if (ok && is_root && build_table(defs, ndefs, keys, table) != 0)
        ok = 0;
    if (!ok) {
        free(*map);
        *map = NULL;
        *nlocal = 0;
    }
    free(mine);
    free(counts);
    free(displs);
    free(all);
    free(keys);
    free(defs);
    return ok ? 0 : -1;
}

void trc_comm_table_fini(trc_comm_table_t *table)
{
    free(table->parent);
    free(table->size);
    free(table->first);
    free(table->members);
    memset(table, 0, sizeof *table);
}
