/* archive.c - OTF2 archive of the tracer: directory preparation, bounded event buffers,
 * mapping tables and Score-P-style global definitions; see archive.h. */
#define _POSIX_C_SOURCE 200809L
#include "archive.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

/* OTF2's header-only MPI collectives, made to call PMPI_* so that the archive's own
 * communication is never traced. The header's static helpers trip -Wextra. */
#define OTF2_MPI_USE_PMPI
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <otf2/OTF2_MPI_Collectives.h>
#pragma GCC diagnostic pop

#include "owner.h"
#include "regions.h"

#define ARCHIVE_NAME "traces"

static void set_msg(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

/* ---- memory and flush callbacks -------------------------------------------------------- */

/* The chunks OTF2 got for one buffer (one writer). */
typedef struct pool_s {
    void **chunks;
    size_t n, cap;
} pool_t;

/* OTF2 keeps every chunk in memory unless an allocation fails (its default pool is 128 MiB
 * per writer); refusing a chunk beyond the bound makes it flush the buffer to disk and free
 * the chunks. Only event buffers are bounded: definitions are small and must stay whole. */
static void *pool_allocate(void *user, OTF2_FileType type, OTF2_LocationRef location,
                           void **per_buffer, uint64_t chunk_size)
{
    (void)location;
    const trc_archive_t *ar = user;
    pool_t *pool = *per_buffer;
    if (pool == NULL) {
        pool = calloc(1, sizeof *pool);
        if (pool == NULL)
            return NULL;
        *per_buffer = pool;
    }
    if (type == OTF2_FILETYPE_EVENTS && pool->n >= ar->event_chunks)
        return NULL;
    if (pool->n == pool->cap) {
        size_t cap = pool->cap ? 2 * pool->cap : 8;
        void **bigger = realloc(pool->chunks, cap * sizeof *bigger);
        if (bigger == NULL)
            return NULL;
        pool->chunks = bigger;
        pool->cap = cap;
    }
    void *chunk = malloc(chunk_size);
    if (chunk != NULL)
        pool->chunks[pool->n++] = chunk;
    return chunk;
}

static void pool_free_all(void *user, OTF2_FileType type, OTF2_LocationRef location,
                          void **per_buffer, bool final)
{
    (void)user;
    (void)type;
    (void)location;
    pool_t *pool = *per_buffer;
    if (pool == NULL)
        return;
    for (size_t i = 0; i < pool->n; i++)
        free(pool->chunks[i]);
    pool->n = 0;
    if (final) {
        free(pool->chunks);
        free(pool);
        *per_buffer = NULL;
    }
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final)
{
    (void)user;
    (void)type;
    (void)location;
    (void)caller;
    (void) final;
    return OTF2_FLUSH;
}

/* The end of a mid-run flush, for the BufferFlush record OTF2 then writes (as Score-P). */
static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
    (void)type;
    (void)location;
    trc_archive_t *ar = user;
    return trc_clock_tick(ar->clock);
}

/* ---- directory ------------------------------------------------------------------------- */

static int mkdir_p(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return -1;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return (mkdir(path, 0777) != 0 && errno != EEXIST) ? -1 : 0;
}

/* dir/name into path; -1 when it does not fit. */
static int join(char *path, size_t size, const char *dir, const char *name)
{
    int n = snprintf(path, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* All ranks agree on ok (logical and). */
static int agree(int ok)
{
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

int trc_archive_open(trc_archive_t *ar, const char *dir, int rank, trc_clock_t *clock,
                     size_t buffer_bytes, char *msg, size_t msglen)
{
    memset(ar, 0, sizeof *ar);
    ar->rank = rank;
    ar->clock = clock;
    ar->event_chunks = buffer_bytes / TRC_EVENT_CHUNK_BYTES;
    if (ar->event_chunks < 2)
        ar->event_chunks = 2;
    msg[0] = '\0';
    snprintf(ar->dir, sizeof ar->dir, "%s", dir);

    int ok = 1;
    if (rank == 0 && trc_foreign_archive(dir)) {
        set_msg(msg, msglen,
                "%s holds a trace tunesim did not write (%s.otf2 without %s, Score-P's "
                "perhaps): it is kept; record into another directory",
                dir, ARCHIVE_NAME, TRC_OWNER_MARK);
        ok = 0;
    } else if (rank == 0 && (mkdir_p(dir) != 0 ||
                             join(ar->tmp, sizeof ar->tmp, dir, ".tunesim-trace.XXXXXX") != 0 ||
                             mkdtemp(ar->tmp) == NULL)) {
        set_msg(msg, msglen, "cannot create the trace directory %s: %s", dir, strerror(errno));
        ok = 0;
    }
    PMPI_Bcast(ar->tmp, (int)sizeof ar->tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!agree(ok)) {
        if (msg[0] == '\0')
            set_msg(msg, msglen, "world rank 0 could not prepare %s", dir);
        return -1;
    }

    ar->archive = OTF2_Archive_Open(ar->tmp, ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                    TRC_EVENT_CHUNK_BYTES, OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                                    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    ok = ar->archive != NULL;
    if (ok) {
        static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
        static const OTF2_MemoryCallbacks memory = {pool_allocate, pool_free_all};
        ok = OTF2_Archive_SetFlushCallbacks(ar->archive, &flush, ar) == OTF2_SUCCESS &&
             OTF2_Archive_SetMemoryCallbacks(ar->archive, &memory, ar) == OTF2_SUCCESS &&
             OTF2_MPI_Archive_SetCollectiveCallbacks(ar->archive, MPI_COMM_WORLD, MPI_COMM_NULL) ==
                 OTF2_SUCCESS;
    }
    if (ok) {
        OTF2_Archive_SetCreator(ar->archive, TRC_CREATOR);
        ok = OTF2_Archive_OpenEvtFiles(ar->archive) == OTF2_SUCCESS;
    }
    if (ok) {
        ar->evt = OTF2_Archive_GetEvtWriter(ar->archive, (OTF2_LocationRef)rank);
        ok = ar->evt != NULL;
    }
    if (!agree(ok)) {
        set_msg(msg, msglen, "cannot open the OTF2 archive %s/%s.otf2", ar->tmp, ARCHIVE_NAME);
        if (ar->archive != NULL)
            OTF2_Archive_Close(ar->archive);
        ar->archive = NULL;
        ar->evt = NULL;
        return -1;
    }
    return 0;
}

uint64_t trc_archive_nevents(const trc_archive_t *ar)
{
    uint64_t n = 0;
    if (ar->evt != NULL)
        OTF2_EvtWriter_GetNumberOfEvents(ar->evt, &n);
    return n;
}

/* ---- definitions ----------------------------------------------------------------------- */

static int write_mapping(trc_archive_t *ar, const uint64_t *comm_map, uint32_t nlocal)
{
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar->archive, (OTF2_LocationRef)ar->rank);
    if (dw == NULL)
        return -1;
    int rc = 0;
    if (nlocal > 0) {
        OTF2_IdMap *map = OTF2_IdMap_CreateFromUint64Array(nlocal, comm_map, false);
        if (map == NULL ||
            OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, map) != OTF2_SUCCESS)
            rc = -1;
        OTF2_IdMap_Free(map);
    }
    if (OTF2_Archive_CloseDefWriter(ar->archive, dw) != OTF2_SUCCESS)
        rc = -1;
    return rc;
}

/* Global definition writer with a running string id. */
typedef struct gdefs_s {
    OTF2_GlobalDefWriter *w;
    OTF2_StringRef next;
    int failed;
} gdefs_t;

static OTF2_StringRef def_string(gdefs_t *g, const char *text)
{
    OTF2_StringRef id = g->next++;
    if (OTF2_GlobalDefWriter_WriteString(g->w, id, text) != OTF2_SUCCESS)
        g->failed = 1;
    return id;
}

static void check(gdefs_t *g, OTF2_ErrorCode rc)
{
    if (rc != OTF2_SUCCESS)
        g->failed = 1;
}

static void def_regions(gdefs_t *g)
{
    static const struct {
        const char *name;
        OTF2_RegionRole role;
    } regions[TRC_R__COUNT] = {
#define TRC__XX(name, role) {"MPI_" #name, OTF2_REGION_ROLE_##role},
        TRC_REGION_MAP(TRC__XX)
#undef TRC__XX
    };
    OTF2_StringRef empty = def_string(g, "");
    OTF2_StringRef file = def_string(g, "MPI");
    check(g, OTF2_GlobalDefWriter_WriteParadigm(g->w, OTF2_PARADIGM_MPI, file,
                                                OTF2_PARADIGM_CLASS_PROCESS));
    for (int r = 0; r < TRC_R__COUNT; r++) {
        OTF2_StringRef name = def_string(g, regions[r].name);
        check(g, OTF2_GlobalDefWriter_WriteRegion(g->w, (OTF2_RegionRef)r, name, name, empty,
                                                  regions[r].role, OTF2_PARADIGM_MPI,
                                                  OTF2_REGION_FLAG_NONE, file, 0, 0));
    }
}

static void def_system(gdefs_t *g, const trc_global_info_t *info)
{
    OTF2_StringRef machine = def_string(g, "machine");
    OTF2_StringRef node = def_string(g, "node");
    OTF2_StringRef linux_name = def_string(g, "Linux");
    check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(g->w, 0, linux_name, machine,
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    check(g,
          OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g->w, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    for (int n = 0; n < info->nnodes; n++) {
        OTF2_StringRef host = def_string(g, info->node_names[n]);
        check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(g->w, (OTF2_SystemTreeNodeRef)(1 + n),
                                                          host, node, 0));
        check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                     g->w, (OTF2_SystemTreeNodeRef)(1 + n), OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
    }
    OTF2_StringRef thread = def_string(g, "Master thread");
    for (int r = 0; r < info->nranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        check(g,
              OTF2_GlobalDefWriter_WriteLocationGroup(
                  g->w, (OTF2_LocationGroupRef)r, def_string(g, name),
                  OTF2_LOCATION_GROUP_TYPE_PROCESS,
                  (OTF2_SystemTreeNodeRef)(1 + info->rank_node[r]), OTF2_UNDEFINED_LOCATION_GROUP));
    }
    for (int r = 0; r < info->nranks; r++) {
        check(g, OTF2_GlobalDefWriter_WriteLocation(
                     g->w, (OTF2_LocationRef)r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                     info->rank_events[r], (OTF2_LocationGroupRef)r));
    }
}

/* Group of the created communicator i: an earlier group with the same members, or a new
 * one. Groups 0-2 are the locations, the world group and the self group. */
static OTF2_GroupRef comm_group(const trc_comm_table_t *t, uint32_t i, uint32_t *group_of,
                                int nranks)
{
    const uint32_t *mine = &t->members[t->first[i]];
    int is_world = t->size[i] == (uint32_t)nranks;
    for (uint32_t m = 0; is_world && m < t->size[i]; m++)
        is_world = mine[m] == m;
    if (is_world)
        return 1;
    for (uint32_t j = 0; j < i; j++) {
        if (t->size[j] == t->size[i] &&
            memcmp(&t->members[t->first[j]], mine, t->size[i] * sizeof *mine) == 0)
            return group_of[j];
    }
    return OTF2_UNDEFINED_GROUP;
}

static void def_comms(gdefs_t *g, const trc_global_info_t *info)
{
    const trc_comm_table_t *t = info->comms;
    OTF2_StringRef empty = 0;
    uint64_t *ids = malloc((size_t)info->nranks * sizeof *ids);
    uint32_t *group_of = malloc((t->n ? t->n : 1) * sizeof *group_of);
    uint64_t *members = NULL;
    if (ids == NULL || group_of == NULL) {
        g->failed = 1;
        goto out;
    }
    for (int r = 0; r < info->nranks; r++)
        ids[r] = (uint64_t)r;
    /* Location ids equal world ranks, so group 0 (locations) and 1 (world) list the same. */
    check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)info->nranks, ids));
    check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)info->nranks, ids));
    check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 2, empty, OTF2_GROUP_TYPE_COMM_SELF,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL));
    OTF2_GroupRef next_group = 3;
    for (uint32_t i = 0; i < t->n; i++) {
        group_of[i] = comm_group(t, i, group_of, info->nranks);
        if (group_of[i] != OTF2_UNDEFINED_GROUP)
            continue;
        uint64_t *bigger = realloc(members, (t->size[i] ? t->size[i] : 1) * sizeof *members);
        if (bigger == NULL) {
            g->failed = 1;
            goto out;
        }
        members = bigger;
        for (uint32_t m = 0; m < t->size[i]; m++)
            members[m] = t->members[t->first[i] + m];
        group_of[i] = next_group++;
        check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, group_of[i], empty,
                                                 OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                 OTF2_GROUP_FLAG_NONE, t->size[i], members));
    }
    check(g, OTF2_GlobalDefWriter_WriteComm(g->w, 0, def_string(g, "MPI_COMM_WORLD"), 1,
                                            OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    check(g, OTF2_GlobalDefWriter_WriteComm(g->w, 1, def_string(g, "MPI_COMM_SELF"), 2,
                                            OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    for (uint32_t i = 0; i < t->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "Comm %u", 2 + i);
        OTF2_CommRef parent = t->parent[i] == UINT32_MAX ? OTF2_UNDEFINED_COMM : t->parent[i];
        check(g, OTF2_GlobalDefWriter_WriteComm(g->w, 2 + i, def_string(g, name), group_of[i],
                                                parent, OTF2_COMM_FLAG_NONE));
    }
out:
    free(ids);
    free(group_of);
    free(members);
}

static int write_global(trc_archive_t *ar, const trc_global_info_t *info)
{
    gdefs_t g = {OTF2_Archive_GetGlobalDefWriter(ar->archive), 0, 0};
    if (g.w == NULL)
        return -1;
    /* Timestamps are nanoseconds on both clocks. */
    check(&g, OTF2_GlobalDefWriter_WriteClockProperties(
                  g.w, 1000000000u, info->global_offset, info->trace_length,
                  info->realtime_ns ? info->realtime_ns : OTF2_UNDEFINED_TIMESTAMP));
    def_regions(&g);
    def_system(&g, info);
    def_comms(&g, info);
    return g.failed ? -1 : 0;
}

/* World rank 0: move the finished archive from tmp into dir, the anchor last, since it is
 * what readers open. A previous archive of tunesim's is first moved aside into a directory of
 * its own and removed only once the new one is in place; if the new one cannot be moved in,
 * the old one is moved back. An archive tunesim did not write is never touched. */
static int publish(const trc_archive_t *ar, char *msg, size_t msglen)
{
    static const char *const parts[] = {ARCHIVE_NAME, ARCHIVE_NAME ".def", ARCHIVE_NAME ".otf2",
                                        TRC_OWNER_MARK};
    enum { NPARTS = sizeof parts / sizeof parts[0] };
    if (trc_foreign_archive(ar->dir)) {
        set_msg(msg, msglen,
                "%s holds a trace tunesim did not write (%s.otf2 without %s, Score-P's perhaps): "
                "it is kept, and the new trace is in %s",
                ar->dir, ARCHIVE_NAME, TRC_OWNER_MARK, ar->tmp);
        return -1;
    }
    char old[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
    int moved[NPARTS] = {0};
    if (join(old, sizeof old, ar->dir, ".tunesim-old.XXXXXX") != 0 || mkdtemp(old) == NULL) {
        set_msg(msg, msglen, "cannot set the previous trace in %s aside: %s", ar->dir,
                strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < NPARTS; i++) {
        if (join(from, sizeof from, ar->dir, parts[i]) != 0 ||
            join(to, sizeof to, old, parts[i]) != 0)
            continue;
        if (rename(from, to) == 0)
            moved[i] = 1;
        else if (errno != ENOENT)
            goto restore;
    }
    /* The mark first: a directory whose anchor is in place is marked as tunesim's. */
    char mark[PATH_MAX];
    if (join(mark, sizeof mark, ar->tmp, TRC_OWNER_MARK) == 0) {
        FILE *fp = fopen(mark, "w");
        if (fp != NULL) {
            fputs("written by tunesim record (its tracer): replaced by the next recording\n", fp);
            fclose(fp);
        }
    }
    static const char *const order[] = {TRC_OWNER_MARK, ARCHIVE_NAME, ARCHIVE_NAME ".def",
                                        ARCHIVE_NAME ".otf2"};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (join(from, sizeof from, ar->tmp, order[i]) != 0 ||
            join(to, sizeof to, ar->dir, order[i]) != 0 || rename(from, to) != 0) {
            set_msg(msg, msglen, "cannot move %s/%s to %s: %s; the previous trace is kept", ar->tmp,
                    order[i], ar->dir, strerror(errno));
            for (size_t k = 0; k < i; k++) /* the new parts back, then the old ones */
                if (join(from, sizeof from, ar->dir, order[k]) == 0 &&
                    join(to, sizeof to, ar->tmp, order[k]) == 0)
                    rename(from, to);
            goto restore_quiet;
        }
    }
    trc_remove_archive_dir(old);
    rmdir(ar->tmp);
    return 0;
restore:
    set_msg(msg, msglen, "cannot set the previous trace in %s aside: %s", ar->dir, strerror(errno));
restore_quiet:
    for (size_t i = 0; i < NPARTS; i++)
        if (moved[i] && join(from, sizeof from, old, parts[i]) == 0 &&
            join(to, sizeof to, ar->dir, parts[i]) == 0)
            rename(from, to);
    rmdir(old);
    return -1;
}

int trc_archive_close(trc_archive_t *ar, const uint64_t *comm_map, uint32_t nlocal,
                      const trc_global_info_t *info, char *msg, size_t msglen)
{
    int ok = 1;
    msg[0] = '\0';
    if (ar->evt != NULL && OTF2_Archive_CloseEvtWriter(ar->archive, ar->evt) != OTF2_SUCCESS)
        ok = 0;
    ar->evt = NULL;
    /* The following calls are collective in OTF2: every rank makes each of them. */
    if (OTF2_Archive_CloseEvtFiles(ar->archive) != OTF2_SUCCESS)
        ok = 0;
    if (OTF2_Archive_OpenDefFiles(ar->archive) != OTF2_SUCCESS) {
        ok = 0;
    } else {
        if (write_mapping(ar, comm_map, nlocal) != 0)
            ok = 0;
        if (OTF2_Archive_CloseDefFiles(ar->archive) != OTF2_SUCCESS)
            ok = 0;
    }
    /* World rank 0 without definitions cannot complete the archive. */
    if (ar->rank == 0 && (info == NULL || write_global(ar, info) != 0))
        ok = 0;
    if (OTF2_Archive_Close(ar->archive) != OTF2_SUCCESS)
        ok = 0;
    ar->archive = NULL;
    /* Once all agree, every rank has closed its files: only then may they move. */
    ok = agree(ok);
    if (!ok)
        set_msg(msg, msglen, "writing the OTF2 archive failed; what was written is in %s", ar->tmp);
    else if (ar->rank == 0 && publish(ar, msg, msglen) != 0)
        ok = 0;
    return agree(ok) ? 0 : -1;
}
