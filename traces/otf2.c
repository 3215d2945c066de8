/* otf2.c - reads an OTF2 archive written with Score-P's MPI conventions
 * (shared/reference/score-p-otf2-mpi.md) into tunesim's per-rank event streams.
 *
 * Steps: global definitions (strings, system tree, locations, regions, groups, comms, clock);
 * then per location, local definitions (mapping tables and clock offsets, which OTF2 applies
 * only when they are read) followed by its events, encoded straight into the rank's stream.
 * Only the master thread of each MPI rank feeds a stream; MPI records on other threads are
 * counted and reported. Records of other paradigms are skipped.
 *
 * The state the reader calls back into (otf2_impl.h) is shared with the event callbacks,
 * otf2_events.c. */
#include <errno.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "../common/infile.h"
#include "otf2_impl.h"

/* ---- small helpers ---------------------------------------------------------------------- */

static int ensure_slot(void **arr, size_t *n, uint64_t id, size_t elem)
{
    if (id >= MAX_DEF_ID)
        return -1;
    if (id < *n)
        return 0;
    size_t want = (size_t)id + 1, cap = *n ? *n : 16;
    while (cap < want)
        cap *= 2;
    void *p = realloc(*arr, cap * elem);
    if (!p)
        return -1;
    memset((char *)p + *n * elem, 0, (cap - *n) * elem);
    *arr = p;
    *n = cap;
    return 0;
}

static void defs_bad(defs_t *d, const char *what, uint64_t id)
{
    if (!d->bad)
        snprintf(d->bad_msg, sizeof d->bad_msg, "%s definition %llu is out of range", what,
                 (unsigned long long)id);
    d->bad = 1;
}

/* ---- global definitions ----------------------------------------------------------------- */

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t off, uint64_t len,
                                   uint64_t realtime)
{
    (void)realtime;
    defs_t *d = ud;
    d->resolution = res;
    d->offset = off;
    d->length = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    defs_t *d = ud;
    if (ensure_slot((void **)&d->strings, &d->nstrings, self, sizeof *d->strings)) {
        defs_bad(d, "string", self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    free(d->strings[self]);
    d->strings[self] = strdup(s ? s : "");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                 OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    defs_t *d = ud;
    if (ensure_slot((void **)&d->stns, &d->nstns, self, sizeof *d->stns)) {
        defs_bad(d, "system tree node", self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->stns[self] = (stn_def_t){1, name, cls, parent};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lg(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                OTF2_LocationGroupRef creator)
{
    (void)name;
    (void)creator;
    defs_t *d = ud;
    if (ensure_slot((void **)&d->lgs, &d->nlgs, self, sizeof *d->lgs)) {
        defs_bad(d, "location group", self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->lgs[self] = (lg_def_t){1, type, parent};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_loc(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                 OTF2_LocationType type, uint64_t nevents,
                                 OTF2_LocationGroupRef group)
{
    (void)name;
    (void)nevents;
    defs_t *d = ud;
    if (d->nlocs == d->caplocs) {
        size_t cap = d->caplocs ? d->caplocs * 2 : 64;
        loc_def_t *p = realloc(d->locs, cap * sizeof *p);
        if (!p)
            return OTF2_CALLBACK_INTERRUPT;
        d->locs = p;
        d->caplocs = cap;
    }
    d->locs[d->nlocs++] = (loc_def_t){self, type, group, -1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef descr,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t l0,
                                    uint32_t l1)
{
    (void)canonical, (void)descr, (void)role, (void)flags, (void)file, (void)l0, (void)l1;
    defs_t *d = ud;
    if (ensure_slot((void **)&d->regions, &d->nregions, self, sizeof *d->regions)) {
        defs_bad(d, "region", self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    /* Old Score-P versions tag some MPI regions with paradigm UNKNOWN; the MPI_ prefix of
     * the C binding name is what identifies them then. C++ binding wrappers ("MPI::...",
     * mangled) are user regions around the C call and stay compute. */
    const char *s = str_of(d, name);
    int is_mpi = paradigm == OTF2_PARADIGM_MPI || strncmp(s, "MPI_", 4) == 0;
    d->regions[self] = (region_def_t){1, is_mpi, -1, name};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name;
    defs_t *d = ud;
    if (ensure_slot((void **)&d->groups, &d->ngroups, self, sizeof *d->groups)) {
        defs_bad(d, "group", self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    group_def_t *g = &d->groups[self];
    free(g->members);
    *g = (group_def_t){1, type, paradigm, flags, n, NULL};
    if (n) {
        g->members = malloc(n * sizeof *g->members);
        if (!g->members)
            return OTF2_CALLBACK_INTERRUPT;
        memcpy(g->members, members, n * sizeof *members);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent;
    (void)flags;
    defs_t *d = ud;
    if (ensure_slot((void **)&d->comms, &d->ncomms, self, sizeof *d->comms)) {
        defs_bad(d, "communicator", self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->comms[self] = (comm_def_t){1, name, group};
    return OTF2_CALLBACK_SUCCESS;
}

static void defs_free(defs_t *d)
{
    for (size_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    free(d->strings);
    for (size_t i = 0; i < d->ngroups; i++)
        free(d->groups[i].members);
    free(d->groups);
    free(d->stns);
    free(d->lgs);
    free(d->regions);
    free(d->comms);
    free(d->locs);
}

/* ---- errors from the OTF2 library -------------------------------------------------------- */

/* OTF2 prints its errors to stderr by default; we keep the last one for our own one-line
 * message instead. */
static OTF2_ErrorCode otf2_error_handler(void *ud, const char *file, uint64_t line,
                                         const char *func, OTF2_ErrorCode code, const char *fmt,
                                         va_list va) __attribute__((format(printf, 6, 0)));

static OTF2_ErrorCode otf2_error_handler(void *ud, const char *file, uint64_t line,
                                         const char *func, OTF2_ErrorCode code, const char *fmt,
                                         va_list va)
{
    (void)file, (void)line, (void)func;
    reader_t *rd = ud;
    if (rd && fmt) {
        char tmp[200];
        vsnprintf(tmp, sizeof tmp, fmt, va);
        snprintf(rd->otf2_msg, sizeof rd->otf2_msg, "%s (%s)", tmp,
                 OTF2_Error_GetDescription(code));
    }
    return code;
}

static ts_status otf2_fail(reader_t *rd, OTF2_ErrorCode code, const char *what)
{
    if (rd->status != TS_OK)
        return rd->status;
    const char *detail = rd->otf2_msg[0] ? rd->otf2_msg : OTF2_Error_GetDescription(code);
    ts_status st = TS_EOTF2;
    if (code == OTF2_ERROR_ENOENT)
        st = TS_ENOENT;
    else if (code == OTF2_ERROR_INDEX_OUT_OF_BOUNDS || code == OTF2_ERROR_END_OF_BUFFER)
        st = TS_ETRUNC;
    rd->status = ts_error_set(rd->err, st, "%s: %s: %s", rd->anchor, what, detail);
    return rd->status;
}

/* ---- building the trace's definitions ---------------------------------------------------- */

static int cmp_loc(const void *a, const void *b)
{
    const loc_def_t *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static loc_def_t *find_loc(defs_t *d, OTF2_LocationRef id)
{
    loc_def_t key = {.id = id};
    return d->nlocs ? bsearch(&key, d->locs, d->nlocs, sizeof *d->locs, cmp_loc) : NULL;
}

/* World rank -> location: the MPI COMM_LOCATIONS group lists it (Score-P writes it for
 * every MPI run). Without it, each PROCESS location group's lowest CPU thread is a rank. */
static ts_status assign_ranks(reader_t *rd, OTF2_LocationRef **rank_loc, int32_t *nranks)
{
    defs_t *d = &rd->defs;
    *rank_loc = NULL;
    *nranks = 0;
    if (d->nlocs)
        qsort(d->locs, d->nlocs, sizeof *d->locs, cmp_loc);
    for (size_t g = 0; g < d->ngroups; g++) {
        group_def_t *gr = &d->groups[g];
        if (!gr->present || gr->type != OTF2_GROUP_TYPE_COMM_LOCATIONS ||
            gr->paradigm != OTF2_PARADIGM_MPI || gr->n == 0)
            continue;
        OTF2_LocationRef *map = malloc(gr->n * sizeof *map);
        if (!map)
            return TS_ENOMEM;
        for (uint32_t i = 0; i < gr->n; i++) {
            loc_def_t *l = find_loc(d, gr->members[i]);
            if (!l || l->rank >= 0) {
                free(map);
                return ts_error_set(rd->err, TS_ECORRUPT,
                                    "%s: MPI location group lists location %llu for rank %u, "
                                    "which is %s",
                                    rd->anchor, (unsigned long long)gr->members[i], i,
                                    l ? "listed twice" : "not defined");
            }
            l->rank = (int32_t)i;
            map[i] = gr->members[i];
        }
        *rank_loc = map;
        *nranks = (int32_t)gr->n;
        return TS_OK;
    }
    return TS_OK; /* no MPI locations: the caller reports a trace without MPI */
}

static int32_t node_of_location(reader_t *rd, const loc_def_t *l, int32_t **stn_node)
{
    defs_t *d = &rd->defs;
    if (l->group >= d->nlgs || !d->lgs[l->group].present)
        return -1;
    OTF2_SystemTreeNodeRef s = d->lgs[l->group].parent, first = s;
    /* Walk up to the node of class "node"; without one, the location group's direct parent
     * stands for the host. The hop limit guards against cycles in a damaged tree. */
    for (int hops = 0; s < d->nstns && d->stns[s].present && hops < 64; hops++) {
        if (strcmp(str_of(d, d->stns[s].cls), "node") == 0)
            break;
        s = d->stns[s].parent;
    }
    if (!(s < d->nstns && d->stns[s].present))
        s = first;
    if (!(s < d->nstns && d->stns[s].present))
        return -1;
    if ((*stn_node)[s] < 0) {
        const char *name = str_of(d, d->stns[s].name);
        int32_t idx = ts__trace_add_node(rd->trace, name[0] ? name : "node");
        if (idx < 0)
            return idx;
        (*stn_node)[s] = idx;
    }
    return (*stn_node)[s];
}

static ts_status build_nodes(reader_t *rd, const OTF2_LocationRef *rank_loc)
{
    defs_t *d = &rd->defs;
    ts_trace_t *t = rd->trace;
    int32_t *stn_node = malloc((d->nstns ? d->nstns : 1) * sizeof *stn_node);
    if (!stn_node)
        return TS_ENOMEM;
    for (size_t i = 0; i < d->nstns; i++)
        stn_node[i] = -1;
    int32_t unknown = -1;
    for (int32_t r = 0; r < t->nranks; r++) {
        int32_t n = node_of_location(rd, find_loc(d, rank_loc[r]), &stn_node);
        if (n == TS_ENOMEM) {
            free(stn_node);
            return TS_ENOMEM;
        }
        if (n < 0) {
            if (unknown < 0 && (unknown = ts__trace_add_node(t, "unknown")) < 0) {
                free(stn_node);
                return TS_ENOMEM;
            }
            n = unknown;
        }
        t->ranks[r].node = n;
    }
    free(stn_node);
    return TS_OK;
}

/* Communicators: COMM_GROUP members are indices into the COMM_LOCATIONS group, i.e. world
 * ranks (or location ids when the GLOBAL_MEMBERS flag is set); COMM_SELF has no members. */
static ts_status build_comms(reader_t *rd)
{
    defs_t *d = &rd->defs;
    ts_trace_t *t = rd->trace;
    rd->comm_map = malloc((d->ncomms ? d->ncomms : 1) * sizeof *rd->comm_map);
    if (!rd->comm_map)
        return TS_ENOMEM;
    for (size_t c = 0; c < d->ncomms; c++) {
        rd->comm_map[c] = -1;
        if (!d->comms[c].present)
            continue;
        OTF2_GroupRef g = d->comms[c].group;
        if (g >= d->ngroups || !d->groups[g].present)
            return ts_error_set(rd->err, TS_ECORRUPT,
                                "%s: communicator %zu refers to undefined group %u", rd->anchor, c,
                                (unsigned)g);
        group_def_t *gr = &d->groups[g];
        if (gr->paradigm != OTF2_PARADIGM_MPI)
            continue; /* OpenMP, CUDA, measurement-system communicators */
        const char *name = str_of(d, d->comms[c].name);
        int32_t idx;
        if (gr->type == OTF2_GROUP_TYPE_COMM_SELF) {
            idx = ts__trace_add_comm(t, name, 1, 1, NULL);
        } else if (gr->type == OTF2_GROUP_TYPE_COMM_GROUP ||
                   gr->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            int32_t *m = malloc((gr->n ? gr->n : 1) * sizeof *m);
            if (!m)
                return TS_ENOMEM;
            for (uint32_t i = 0; i < gr->n; i++) {
                uint64_t v = gr->members[i];
                if (gr->type == OTF2_GROUP_TYPE_COMM_LOCATIONS ||
                    (gr->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS)) {
                    loc_def_t *l = find_loc(d, v);
                    v = (l && l->rank >= 0) ? (uint64_t)l->rank : UINT64_MAX;
                }
                if (v >= (uint64_t)t->nranks) {
                    free(m);
                    return ts_error_set(rd->err, TS_ECORRUPT,
                                        "%s: communicator %zu member %u is not an MPI rank "
                                        "(expected a rank below %d)",
                                        rd->anchor, c, i, (int)t->nranks);
                }
                m[i] = (int32_t)v;
            }
            idx = ts__trace_add_comm(t, name, (int32_t)gr->n, 0, m);
            free(m);
        } else {
            continue;
        }
        if (idx < 0)
            return idx;
        rd->comm_map[c] = idx;
    }
    return TS_OK;
}

/* ---- the reader -------------------------------------------------------------------------- */

static uint64_t archive_bytes(const char *anchor)
{
    /* The anchor, <name>.def and everything in the <name>/ directory beside it. */
    struct stat st;
    uint64_t total = 0;
    char base[4096], path[4600];
    snprintf(base, sizeof base, "%s", anchor);
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".otf2") == 0)
        base[n - 5] = '\0';
    if (stat(anchor, &st) == 0)
        total += (uint64_t)st.st_size;
    snprintf(path, sizeof path, "%s.def", base);
    if (stat(path, &st) == 0)
        total += (uint64_t)st.st_size;
    DIR *dir = opendir(base);
    if (dir) {
        struct dirent *de;
        while ((de = readdir(dir))) {
            snprintf(path, sizeof path, "%s/%s", base, de->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                total += (uint64_t)st.st_size;
        }
        closedir(dir);
    }
    return total;
}

void ts__otf2_location_file(const char *anchor, OTF2_LocationRef loc, const char *ext, char *out,
                            size_t n)
{
    size_t len = strlen(anchor);
    if (len > 5 && strcmp(anchor + len - 5, ".otf2") == 0)
        len -= 5;
    snprintf(out, n, "%.*s/%llu.%s", (int)len, anchor, (unsigned long long)loc, ext);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static ts_status read_global_defs(reader_t *rd, OTF2_Reader *r)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    if (!gdr)
        return otf2_fail(rd, OTF2_ERROR_INVALID, "cannot read global definitions");
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb)
        return TS_ENOMEM;
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, def_stn);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_lg);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_loc);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, cb, &rd->defs);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    if (rd->defs.bad)
        return ts_error_set(rd->err, TS_ECORRUPT, "%s: %s", rd->anchor, rd->defs.bad_msg);
    if (ec != OTF2_SUCCESS)
        return otf2_fail(rd, ec, "reading global definitions");
    if (n == 0)
        return ts_error_set(rd->err, TS_ECORRUPT, "%s: global definitions are empty", rd->anchor);
    return TS_OK;
}

/* Report a failure on one location's file, naming that file. */
static ts_status location_fail(reader_t *rd, OTF2_ErrorCode code, const loc_def_t *l,
                               const char *ext, const char *what)
{
    if (rd->status != TS_OK)
        return rd->status;
    char path[4200];
    ts__otf2_location_file(rd->anchor, l->id, ext, path, sizeof path);
    ts_status st = TS_EOTF2;
    if (!file_exists(path))
        st = TS_ENOENT;
    else if (code == OTF2_ERROR_INTEGRITY_FAULT || code == OTF2_ERROR_END_OF_BUFFER ||
             code == OTF2_ERROR_INDEX_OUT_OF_BOUNDS)
        st = TS_ETRUNC;
    rd->status = ts_error_set(rd->err, st, "%s: %s of rank %d: %s", path, what, (int)l->rank,
                              st == TS_ENOENT   ? "file is missing"
                              : rd->otf2_msg[0] ? rd->otf2_msg
                                                : OTF2_Error_GetDescription(code));
    return rd->status;
}

/* Read one location's local definitions and events into ls. local_defs says whether the
 * archive has per-location definition files, in which case each location needs its own:
 * without it the mapping tables and clock offsets would silently be lost. */
static ts_status read_location(reader_t *rd, OTF2_Reader *r, OTF2_EvtReaderCallbacks *cb,
                               const loc_def_t *l, loc_state_t *ls, int local_defs)
{
    char path[4200];
    ts__otf2_location_file(rd->anchor, l->id, "evt", path, sizeof path);
    if (!file_exists(path))
        return location_fail(rd, OTF2_ERROR_ENOENT, l, "evt", "events");
    ts__otf2_location_file(rd->anchor, l->id, "def", path, sizeof path);
    if (local_defs && !file_exists(path))
        return location_fail(rd, OTF2_ERROR_ENOENT, l, "def", "local definitions");
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, l->id);
    if (!er)
        return location_fail(rd, OTF2_ERROR_INVALID, l, "evt", "events");
    /* Local definitions carry the mapping tables and clock offsets for this location. */
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, l->id);
    if (dr) {
        uint64_t n = 0;
        OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
        OTF2_Reader_CloseDefReader(r, dr);
        if (ec != OTF2_SUCCESS) {
            OTF2_Reader_CloseEvtReader(r, er);
            return location_fail(rd, ec, l, "def", "local definitions");
        }
    }
    OTF2_Reader_RegisterEvtCallbacks(r, er, cb, ls);
    uint64_t n = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalEvents(r, er, &n);
    OTF2_Reader_CloseEvtReader(r, er);
    if (rd->status != TS_OK)
        return rd->status;
    if (ec != OTF2_SUCCESS)
        return location_fail(rd, ec, l, "evt", "events");
    return TS_OK;
}

static ts_status read_events(reader_t *rd, OTF2_Reader *r)
{
    defs_t *d = &rd->defs;
    ts_trace_t *t = rd->trace;
    /* Only CPU threads of processes can make MPI calls; GPU streams and metric locations
     * are not read at all. */
    size_t nsel = 0;
    for (size_t i = 0; i < d->nlocs; i++) {
        const loc_def_t *l = &d->locs[i];
        if (l->type == OTF2_LOCATION_TYPE_CPU_THREAD || l->rank >= 0) {
            OTF2_Reader_SelectLocation(r, l->id);
            nsel++;
        }
    }
    if (nsel == 0)
        return TS_OK;
    OTF2_ErrorCode ec = OTF2_Reader_OpenEvtFiles(r);
    if (ec != OTF2_SUCCESS)
        return otf2_fail(rd, ec, "opening event files");
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_EvtReaderCallbacks *cb = ts__otf2_evt_callbacks();
    if (!cb)
        return TS_ENOMEM;
    int local_defs = 0;
    for (size_t i = 0; i < d->nlocs && !local_defs; i++) {
        char path[4200];
        ts__otf2_location_file(rd->anchor, d->locs[i].id, "def", path, sizeof path);
        local_defs = file_exists(path);
    }
    ts_status st = TS_OK;
    for (size_t i = 0; i < d->nlocs && st == TS_OK; i++) {
        const loc_def_t *l = &d->locs[i];
        if (!(l->type == OTF2_LOCATION_TYPE_CPU_THREAD || l->rank >= 0))
            continue;
        loc_state_t ls = {.rd = rd, .rank = l->rank, .loc = l->id};
        uint64_t dummy = 0;
        ts_codec_buf_t scratch;
        ts_codec_buf_init(&scratch);
        ls.buf = l->rank >= 0 ? &t->ranks[l->rank].buf : &scratch;
        ls.nevents = l->rank >= 0 ? &t->ranks[l->rank].nevents : &dummy;
        st = read_location(rd, r, cb, l, &ls, local_defs);
        if (st == TS_OK && l->rank >= 0 && ls.depth > 0) {
            /* The trace ended inside a call (killed run or measurement stopped): close it at
             * the last time seen so that the stream stays well formed. */
            if (ts__otf2_end_call(&ls, ls.last_time > ls.max_time ? ls.last_time : ls.max_time) !=
                OTF2_CALLBACK_SUCCESS)
                st = rd->status;
        }
        if (ls.max_time > t->duration_ns)
            t->duration_ns = ls.max_time;
        ts_codec_buf_free(&scratch);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    return st;
}

/* Every file of the archive (the anchor, its .def and what its directory holds) a regular
 * file: OTF2 would block opening a FIFO nobody writes, or read /dev/zero without end. */
static ts_status check_archive_files(const char *anchor, ts_error_t *err)
{
    ts_status st = ts_check_input(anchor, "an OTF2 anchor file", 0, err);
    size_t n = strlen(anchor);
    if (st != TS_OK || n < 5 || strcmp(anchor + n - 5, ".otf2") != 0)
        return st;
    char path[4200];
    snprintf(path, sizeof path, "%.*s.def", (int)(n - 5), anchor);
    if ((st = ts_check_input(path, "a file of the OTF2 archive", 0, err)) != TS_OK)
        return st;
    snprintf(path, sizeof path, "%.*s", (int)(n - 5), anchor);
    DIR *d = opendir(path);
    if (!d)
        return TS_OK; /* OTF2 says what is missing */
    struct dirent *e;
    while (st == TS_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char f[4500];
        snprintf(f, sizeof f, "%s/%s", path, e->d_name);
        st = ts_check_input(f, "a file of the OTF2 archive", 0, err);
    }
    closedir(d);
    return st;
}

ts_status ts__otf2_read(const char *anchor, ts_trace_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_status cs = check_archive_files(anchor, err);
    if (cs != TS_OK)
        return cs;
    reader_t rd = {.anchor = anchor, .err = err};
    OTF2_ErrorCallback prev = OTF2_Error_RegisterCallback(otf2_error_handler, &rd);
    ts_status st = TS_OK;
    OTF2_LocationRef *rank_loc = NULL;
    int32_t nranks = 0;

    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r) {
        st = ts_error_set(err, TS_ENOTTRACE, "%s: not an OTF2 archive: %s", anchor,
                          rd.otf2_msg[0] ? rd.otf2_msg : "cannot open the anchor file");
        goto done;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    if ((st = read_global_defs(&rd, r)) != TS_OK)
        goto done;
    if ((st = assign_ranks(&rd, &rank_loc, &nranks)) != TS_OK)
        goto done;
    if (nranks == 0) {
        st = ts_error_set(err, TS_ENOMPI,
                          "%s: no MPI records: the trace defines no MPI ranks (%zu locations "
                          "of other paradigms); expected a trace of an MPI program",
                          anchor, rd.defs.nlocs);
        goto done;
    }
    if ((st = ts__trace_new(anchor, TS_FORMAT_OTF2, nranks, &rd.trace)) != TS_OK)
        goto done;
    rd.trace->timer_resolution = rd.defs.resolution;
    if ((st = build_nodes(&rd, rank_loc)) != TS_OK || (st = build_comms(&rd)) != TS_OK)
        goto done;
    if ((st = read_events(&rd, r)) != TS_OK)
        goto done;
    if (rd.mpi_records == 0 && ts_trace_nfuncs(rd.trace) == 0) {
        st = ts_error_set(err, TS_ENOMPI,
                          "%s: no MPI records: %d ranks are defined but none made an MPI call",
                          anchor, (int)nranks);
        goto done;
    }
    if (rd.defs.length && rd.defs.resolution) {
        int64_t len =
            (int64_t)((__int128)rd.defs.length * 1000000000 / (__int128)rd.defs.resolution);
        if (len > rd.trace->duration_ns)
            rd.trace->duration_ns = len;
    }
    rd.trace->source_bytes = archive_bytes(anchor);
    ts__trace_seal(rd.trace);
    *out = rd.trace;
    rd.trace = NULL;
done:
    if (st != TS_OK && err && err->code == TS_OK)
        ts_error_set(err, st, "%s: %s", anchor, ts_status_message(st));
    if (r)
        OTF2_Reader_Close(r);
    OTF2_Error_RegisterCallback(prev, NULL);
    ts_trace_close(rd.trace);
    free(rank_loc);
    free(rd.comm_map);
    defs_free(&rd.defs);
    return st;
}
