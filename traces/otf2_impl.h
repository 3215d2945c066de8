/* otf2_impl.h - private to traces/otf2.c (the definitions and the reader) and otf2_events.c
 * (the event callbacks): the state OTF2's reader calls back into, one per archive. Nothing
 * else includes it. */
#ifndef TS_OTF2_IMPL_H
#define TS_OTF2_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "trace_impl.h"

/* Definition ids are dense small integers in every writer we know; anything beyond this is
 * treated as corrupt rather than allocated. */
#define MAX_DEF_ID (1u << 24)

typedef struct stn_def_s {
    int present;
    OTF2_StringRef name, cls;
    OTF2_SystemTreeNodeRef parent;
} stn_def_t;
typedef struct lg_def_s {
    int present;
    OTF2_LocationGroupType type;
    OTF2_SystemTreeNodeRef parent;
} lg_def_t;
typedef struct loc_def_s {
    OTF2_LocationRef id;
    OTF2_LocationType type;
    OTF2_LocationGroupRef group;
    int32_t rank; /* world rank whose stream it feeds, or -1 */
} loc_def_t;
typedef struct region_def_s {
    int present;
    int is_mpi;
    int32_t func; /* index in the trace's function table, -1 until first used */
    OTF2_StringRef name;
} region_def_t;
typedef struct group_def_s {
    int present;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    OTF2_GroupFlag flags;
    uint32_t n;
    uint64_t *members;
} group_def_t;
typedef struct comm_def_s {
    int present;
    OTF2_StringRef name;
    OTF2_GroupRef group;
} comm_def_t;

typedef struct defs_s {
    char **strings;
    size_t nstrings;
    stn_def_t *stns;
    size_t nstns;
    lg_def_t *lgs;
    size_t nlgs;
    region_def_t *regions;
    size_t nregions;
    group_def_t *groups;
    size_t ngroups;
    comm_def_t *comms;
    size_t ncomms;
    loc_def_t *locs;
    size_t nlocs, caplocs;
    uint64_t resolution, offset, length;
    int bad; /* a definition was malformed */
    char bad_msg[200];
} defs_t;

/* Per-location event state while reading. */
typedef struct loc_state_s {
    struct reader_s *rd;
    int32_t rank; /* -1: non-master location (only counted) */
    ts_codec_buf_t *buf;
    uint64_t *nevents;
    int depth;         /* nesting of MPI regions; > 0 inside an MPI call */
    int64_t last_time; /* end of the previous MPI call, ns */
    int64_t max_time;
    uint64_t records; /* OTF2 records seen, for error messages */
    OTF2_LocationRef loc;
    OTF2_TimeStamp prev_tick; /* timestamp of the previous record, to refuse going back */
} loc_state_t;

typedef struct reader_s {
    const char *anchor;
    ts_trace_t *trace;
    defs_t defs;
    int32_t *comm_map; /* OTF2 comm id -> trace comm index, -1 if not MPI */
    ts_status status;
    ts_error_t *err;
    uint64_t mpi_records; /* MPI records on master threads */
    char otf2_msg[256];   /* last message from OTF2's error handler */
} reader_t;

/* A string definition's text, "" for one not defined. */
static inline const char *str_of(const defs_t *d, OTF2_StringRef ref)
{
    return (ref < d->nstrings && d->strings[ref]) ? d->strings[ref] : "";
}

/* Path of a location's file in the archive: <anchor without .otf2>/<location>.<ext>. */
void ts__otf2_location_file(const char *anchor, OTF2_LocationRef loc, const char *ext, char *out,
                            size_t n);
/* The event callbacks, each reading into the loc_state_t it is handed; NULL when out of
 * memory. The caller frees them (OTF2_EvtReaderCallbacks_Delete). */
OTF2_EvtReaderCallbacks *ts__otf2_evt_callbacks(void);
/* Leave the MPI call the location is in at time t (ns): its LEAVE event, and t its last time. */
OTF2_CallbackCode ts__otf2_end_call(loc_state_t *ls, int64_t t);

#endif
