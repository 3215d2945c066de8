/* trace_impl.h - private to traces/: the layout of a loaded trace, the builder used by the
 * readers (OTF2, store) and the compact per-rank event encoding they share. */
#ifndef TS_TRACE_IMPL_H
#define TS_TRACE_IMPL_H

#include "trace.h"
#include "codec.h"

/* A piece of a rank's stream in a store: an LZ4 block of at most TS__CHUNK_RAW encoded bytes,
 * cut at an event boundary, read only when a cursor reaches it. */
#define TS__CHUNK_RAW (64 * 1024)
typedef struct ts__chunk_s {
    uint64_t offset;  /* in the store file */
    uint32_t zsize;   /* compressed bytes */
    uint32_t rawsize; /* encoded bytes */
    uint32_t crc;     /* CRC-32 of the compressed bytes */
} ts__chunk_t;

/* One rank's encoded events (codec.h): in memory (OTF2 input, owned by buf, data/size) or
 * as chunks of a store, which cursors read from the file one at a time, so that memory does
 * not grow with the trace. */
typedef struct ts__rank_s {
    ts_codec_buf_t buf;  /* owned encoding, when built in memory */
    const uint8_t *data; /* encoded events in memory */
    size_t size;         /* bytes at data */
    ts__chunk_t *chunks; /* store chunks (owned), or NULL */
    uint32_t nchunks;
    uint64_t nevents;
    int32_t node;
} ts__rank_t;

typedef struct ts__comm_s {
    ts_comm_info_t info;
    int32_t *members_owned;
    char *name_owned;
} ts__comm_t;

struct ts_trace_s {
    char *path;
    ts_trace_format format;
    uint64_t source_bytes;
    int32_t nranks;
    ts__rank_t *ranks;
    int32_t nnodes;
    char **node_names;
    int32_t ncomms;
    ts__comm_t *comms;
    int32_t nfuncs;
    char **func_names;
    int64_t duration_ns;
    uint64_t timer_resolution;
    uint64_t nonmaster_mpi;
    int fd;             /* store file the chunks are read from, or -1 */
    const uint8_t *mem; /* or a store image in memory (owned; tests, fuzzing) */
    size_t mem_size;
    uint8_t *dict; /* the store's first chunk, dictionary of the others (owned) */
    uint32_t dict_size;
    uint64_t dict_offset;
};

/* Read chunk ch of a store trace into raw (TS__CHUNK_RAW bytes), using zbuf (zsize bytes)
 * for the compressed form. Unless ch is the dictionary chunk itself, the dictionary
 * (t->dict, t->dict_size bytes) must lie right before raw. TS_OK, or TS_EIO / TS_ECORRUPT. */
ts_status ts__store_read_chunk(const ts_trace_t *t, const ts__chunk_t *ch, uint8_t *zbuf,
                               uint8_t *raw);

/* Builder: allocate an empty trace for nranks ranks. */
ts_status ts__trace_new(const char *path, ts_trace_format format, int32_t nranks, ts_trace_t **out);
/* Add a node name, a communicator (members copied; NULL for self), a function name; each
 * returns the new index or a negative status. */
int32_t ts__trace_add_node(ts_trace_t *t, const char *name);
int32_t ts__trace_add_comm(ts_trace_t *t, const char *name, int32_t size, int32_t is_self,
                           const int32_t *members);
/* Index of name in the function table, adding it if absent. */
int32_t ts__trace_intern_func(ts_trace_t *t, const char *name);
/* Copy the definitions of t (nodes, communicators, functions, clock, each rank's node) into
 * the new trace w, keeping their indices (a window or a denoised copy of t). */
ts_status ts__trace_copy_defs(const ts_trace_t *t, ts_trace_t *w);
/* Point each rank's data at its owned buffer once building is done. */
void ts__trace_seal(ts_trace_t *t);

/* Readers behind ts_trace_open. */
ts_status ts__otf2_read(const char *anchor, ts_trace_t **out, ts_error_t *err);
ts_status ts__store_read(const char *path, ts_trace_t **out, ts_error_t *err);

#endif
