/* trace.c - the loaded-trace handle: accessors, the builder used by the readers, and cursors
 * over the encoded per-rank streams. Opening a path (which reader) is open.c's, so that the
 * readers (otf2.c, store.c) build on this file without this file depending on them. */
#include "trace_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <unistd.h>

#include <lz4.h>

/* Events are decoded in batches: per-call overhead then amortises over many events. */
enum { CURSOR_BATCH = 128 };
/* A cursor looks at most this many events past its position (ts_cursor_peek): its buffer
 * then holds up to that many decoded events. */
enum { PEEK_MAX = 1024 };

struct ts_cursor_s {
    const ts_trace_t *trace;
    int32_t rank;
    uint64_t recv_done; /* receive completions (TS_EV_IRECV_DONE) among them */
    uint64_t decoded;   /* events decoded so far: index plus those waiting in buf */
    ts_codec_reader_t reader;
    int nbuf, next, cap; /* buf[next..nbuf) are decoded and not returned yet */
    ts_event_t *buf;
    uint32_t chunk;  /* next store chunk to read */
    uint8_t *raw;    /* store traces: the current chunk, decoded from zbuf ... */
    uint8_t *rawbuf; /* ... inside this buffer, right after a copy of the dictionary */
    uint8_t *zbuf;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

ts_status ts__trace_new(const char *path, ts_trace_format format, int32_t nranks, ts_trace_t **out)
{
    *out = NULL;
    ts_trace_t *t = calloc(1, sizeof *t);
    if (!t)
        return TS_ENOMEM;
    t->path = dup_str(path);
    t->format = format;
    t->fd = -1;
    t->nranks = nranks;
    t->ranks = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *t->ranks);
    if (!t->path || !t->ranks) {
        ts_trace_close(t);
        return TS_ENOMEM;
    }
    for (int32_t r = 0; r < nranks; r++)
        ts_codec_buf_init(&t->ranks[r].buf);
    *out = t;
    return TS_OK;
}

static int grow(void **arr, int32_t n, size_t elem)
{
    /* Grow to the next power of two when n reaches one: amortised O(1) appends. */
    if (n & (n - 1))
        return 0;
    size_t cap = n ? (size_t)n * 2 : 1;
    void *p = realloc(*arr, cap * elem);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

int32_t ts__trace_add_node(ts_trace_t *t, const char *name)
{
    char *copy = dup_str(name);
    if (!copy || grow((void **)&t->node_names, t->nnodes, sizeof *t->node_names)) {
        free(copy);
        return TS_ENOMEM;
    }
    t->node_names[t->nnodes] = copy;
    return t->nnodes++;
}

int32_t ts__trace_add_comm(ts_trace_t *t, const char *name, int32_t size, int32_t is_self,
                           const int32_t *members)
{
    if (grow((void **)&t->comms, t->ncomms, sizeof *t->comms))
        return TS_ENOMEM;
    ts__comm_t *c = &t->comms[t->ncomms];
    memset(c, 0, sizeof *c);
    c->name_owned = dup_str(name ? name : "");
    if (!c->name_owned)
        return TS_ENOMEM;
    if (!is_self && size > 0) {
        c->members_owned = malloc((size_t)size * sizeof *c->members_owned);
        if (!c->members_owned) {
            free(c->name_owned);
            return TS_ENOMEM;
        }
        memcpy(c->members_owned, members, (size_t)size * sizeof *members);
    }
    c->info.name = c->name_owned;
    c->info.size = is_self ? 1 : size;
    c->info.is_self = is_self;
    c->info.members = c->members_owned;
    return t->ncomms++;
}

int32_t ts__trace_intern_func(ts_trace_t *t, const char *name)
{
    int32_t f = ts_trace_func_find(t, name);
    if (f >= 0)
        return f;
    if (t->nfuncs >= UINT16_MAX)
        return TS_EARG;
    char *copy = dup_str(name);
    if (!copy || grow((void **)&t->func_names, t->nfuncs, sizeof *t->func_names)) {
        free(copy);
        return TS_ENOMEM;
    }
    t->func_names[t->nfuncs] = copy;
    return t->nfuncs++;
}

void ts__trace_seal(ts_trace_t *t)
{
    for (int32_t r = 0; r < t->nranks; r++) {
        t->ranks[r].data = t->ranks[r].buf.data;
        t->ranks[r].size = t->ranks[r].buf.size;
    }
}

/* An OTF2 archive is recognised by its anchor file; a directory by the anchor inside it. */
void ts_trace_close(ts_trace_t *t)
{
    if (!t)
        return;
    for (int32_t r = 0; r < t->nranks && t->ranks; r++) {
        ts_codec_buf_free(&t->ranks[r].buf);
        free(t->ranks[r].chunks);
    }
    if (t->fd >= 0)
        close(t->fd);
    free((void *)t->mem);
    free(t->dict);
    free(t->ranks);
    for (int32_t i = 0; i < t->nnodes; i++)
        free(t->node_names[i]);
    free(t->node_names);
    for (int32_t i = 0; i < t->ncomms; i++) {
        free(t->comms[i].members_owned);
        free(t->comms[i].name_owned);
    }
    free(t->comms);
    for (int32_t i = 0; i < t->nfuncs; i++)
        free(t->func_names[i]);
    free(t->func_names);
    free(t->path);
    free(t);
}

const char *ts_trace_path(const ts_trace_t *t)
{
    return t->path;
}
ts_trace_format ts_trace_format_of(const ts_trace_t *t)
{
    return t->format;
}
uint64_t ts_trace_source_bytes(const ts_trace_t *t)
{
    return t->source_bytes;
}
int32_t ts_trace_nranks(const ts_trace_t *t)
{
    return t->nranks;
}
int32_t ts_trace_nnodes(const ts_trace_t *t)
{
    return t->nnodes;
}

const char *ts_trace_node_name(const ts_trace_t *t, int32_t node)
{
    return (node >= 0 && node < t->nnodes) ? t->node_names[node] : "?";
}

int32_t ts_trace_rank_node(const ts_trace_t *t, int32_t rank)
{
    return (rank >= 0 && rank < t->nranks) ? t->ranks[rank].node : -1;
}

int32_t ts_trace_ncomms(const ts_trace_t *t)
{
    return t->ncomms;
}

const ts_comm_info_t *ts_trace_comm(const ts_trace_t *t, int32_t comm)
{
    return (comm >= 0 && comm < t->ncomms) ? &t->comms[comm].info : NULL;
}

int32_t ts_trace_comm_rank(const ts_trace_t *t, int32_t comm, int32_t world)
{
    const ts_comm_info_t *c = ts_trace_comm(t, comm);
    if (!c)
        return -1;
    if (c->is_self)
        return 0;
    for (int32_t i = 0; i < c->size; i++)
        if (c->members[i] == world)
            return i;
    return -1;
}

int32_t ts_trace_nfuncs(const ts_trace_t *t)
{
    return t->nfuncs;
}

const char *ts_trace_func_name(const ts_trace_t *t, int32_t func)
{
    return (func >= 0 && func < t->nfuncs) ? t->func_names[func] : "?";
}

int32_t ts_trace_func_find(const ts_trace_t *t, const char *name)
{
    for (int32_t i = 0; i < t->nfuncs; i++)
        if (strcmp(t->func_names[i], name) == 0)
            return i;
    return -1;
}

int64_t ts_trace_duration_ns(const ts_trace_t *t)
{
    return t->duration_ns;
}
uint64_t ts_trace_timer_resolution(const ts_trace_t *t)
{
    return t->timer_resolution;
}

uint64_t ts_trace_rank_nevents(const ts_trace_t *t, int32_t rank)
{
    return (rank >= 0 && rank < t->nranks) ? t->ranks[rank].nevents : 0;
}

uint64_t ts_trace_nevents(const ts_trace_t *t)
{
    uint64_t n = 0;
    for (int32_t r = 0; r < t->nranks; r++)
        n += t->ranks[r].nevents;
    return n;
}

uint32_t ts_trace_fingerprint(const ts_trace_t *t)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    for (int32_t r = 0; r < t->nranks; r++) {
        const ts__rank_t *rk = &t->ranks[r];
        uint64_t head[2] = {rk->nevents, rk->nchunks};
        crc = crc32(crc, (const Bytef *)head, sizeof head);
        for (uint32_t k = 0; k < rk->nchunks; k++) {
            uint32_t c[2] = {rk->chunks[k].crc, rk->chunks[k].rawsize};
            crc = crc32(crc, (const Bytef *)c, sizeof c);
        }
        /* In memory: the encoded events themselves, in pieces zlib's uInt can take. */
        for (size_t off = 0; !rk->nchunks && off < rk->size; off += 1u << 30) {
            size_t n = rk->size - off < (1u << 30) ? rk->size - off : (1u << 30);
            crc = crc32(crc, rk->data + off, (uInt)n);
        }
    }
    crc = crc32(crc, (const Bytef *)&t->duration_ns, sizeof t->duration_ns);
    return (uint32_t)crc;
}

uint64_t ts_trace_nonmaster_mpi_records(const ts_trace_t *t)
{
    return t->nonmaster_mpi;
}

ts_status ts_cursor_open(const ts_trace_t *t, int32_t rank, ts_cursor_t **out)
{
    *out = NULL;
    if (rank < 0 || rank >= t->nranks)
        return TS_EARG;
    ts_cursor_t *c = calloc(1, sizeof *c);
    if (!c)
        return TS_ENOMEM;
    c->trace = t;
    c->rank = rank;
    c->cap = CURSOR_BATCH;
    if (!(c->buf = malloc(CURSOR_BATCH * sizeof *c->buf))) {
        ts_cursor_close(c);
        return TS_ENOMEM;
    }
    if (t->ranks[rank].chunks) {
        c->rawbuf = malloc(2 * TS__CHUNK_RAW);
        c->zbuf = malloc((size_t)LZ4_compressBound(TS__CHUNK_RAW));
        if (!c->rawbuf || !c->zbuf) {
            ts_cursor_close(c);
            return TS_ENOMEM;
        }
        c->raw = c->rawbuf + TS__CHUNK_RAW;
        if (t->dict)
            memcpy(c->raw - t->dict_size, t->dict, t->dict_size);
    }
    /* The decoder checks indices against the tables, whatever bytes a damaged store holds.
     * A store rank starts empty: refill() loads its first chunk. */
    ts_codec_reader_init(&c->reader, t->ranks[rank].data, t->ranks[rank].size, t->nranks, t->ncomms,
                         t->nfuncs);
    *out = c;
    return TS_OK;
}

/* Room for a batch more after buf[nbuf]: the events not returned yet move to the front, and
 * the buffer grows only while a peek holds more than a batch of them. */
static int make_room(ts_cursor_t *c)
{
    if (c->cap - c->nbuf >= CURSOR_BATCH)
        return 0;
    if (c->next > 0) {
        memmove(c->buf, c->buf + c->next, (size_t)(c->nbuf - c->next) * sizeof *c->buf);
        c->nbuf -= c->next;
        c->next = 0;
    }
    if (c->cap - c->nbuf >= CURSOR_BATCH)
        return 0;
    ts_event_t *b = realloc(c->buf, (size_t)(c->cap * 2) * sizeof *b);
    if (!b)
        return -1;
    c->buf = b;
    c->cap *= 2;
    return 0;
}

/* Decode up to a batch of events after buf[nbuf], loading chunks as needed: how many were
 * added, 0 at the end of the stream, or an error (err set). */
static int decode_more(ts_cursor_t *c, ts_error_t *err)
{
    const ts_trace_t *t = c->trace;
    const ts__rank_t *rk = &t->ranks[c->rank];
    if (make_room(c) != 0)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    int rc = ts_codec_get_batch(&c->reader, c->buf + c->nbuf, CURSOR_BATCH);
    while (rc == 0 && c->chunk < rk->nchunks) {
        /* Next chunk: the decoder keeps its delta state, only the bytes change. */
        const ts__chunk_t *ch = &rk->chunks[c->chunk];
        ts_status st = ts__store_read_chunk(t, ch, c->zbuf, c->raw);
        if (st != TS_OK)
            return ts_error_set(err, st, "%s: rank %d, chunk %u: %s", t->path, (int)c->rank,
                                (unsigned)c->chunk,
                                st == TS_EIO ? "read failed" : "corrupt compressed events");
        c->chunk++;
        c->reader.p = c->raw;
        c->reader.end = c->raw + ch->rawsize;
        rc = ts_codec_get_batch(&c->reader, c->buf + c->nbuf, CURSOR_BATCH);
    }
    if (rc > 0)
        c->decoded += (uint64_t)rc;
    if (rc == 0 && c->decoded != rk->nevents)
        rc = TS_ETRUNC;
    if (rc > 0 && c->decoded > rk->nevents)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s: rank %d: more events in the event stream than the %llu its "
                            "head announces",
                            t->path, (int)c->rank, (unsigned long long)rk->nevents);
    if (rc < 0)
        return ts_error_set(err, rc, "%s: rank %d, event %llu: %s in the event stream", t->path,
                            (int)c->rank, (unsigned long long)c->decoded,
                            rc == TS_ETRUNC ? "stream ends early"
                            : c->reader.why ? c->reader.why
                                            : "undecodable event");
    c->nbuf += rc;
    return rc;
}

/* Refill the cursor's empty buffer: the number of events it now holds, 0 at the end, or an
 * error. */
static int refill(ts_cursor_t *c, ts_error_t *err)
{
    c->nbuf = c->next = 0;
    return decode_more(c, err);
}

int ts_cursor_peek(ts_cursor_t *c, size_t k, const ts_event_t **evs, ts_error_t *err)
{
    if (k >= PEEK_MAX)
        return ts_error_set(err, TS_EARG, "%s: rank %d: a look %zu events ahead (at most %d)",
                            c->trace->path, (int)c->rank, k, PEEK_MAX);
    while ((size_t)(c->nbuf - c->next) <= k) {
        int rc = decode_more(c, err);
        if (rc <= 0)
            return rc;
    }
    *evs = &c->buf[c->next + k];
    return c->nbuf - c->next - (int)k;
}

size_t ts_cursor_peek_max(void)
{
    return PEEK_MAX;
}

uint64_t ts_cursor_index(const ts_cursor_t *c)
{
    return c->decoded - (uint64_t)(c->nbuf - c->next);
}

uint64_t ts_cursor_receives_passed(const ts_cursor_t *c)
{
    return c->recv_done;
}

/* Hand over the next n buffered events: they count as returned (and their receive
 * completions as passed). */
static void pass(ts_cursor_t *c, int n)
{
    for (int i = 0; i < n; i++)
        c->recv_done += c->buf[c->next + i].kind == TS_EV_IRECV_DONE;
    c->next += n;
}

int ts_cursor_skip(ts_cursor_t *c, uint64_t n, ts_error_t *err)
{
    while (n > 0) {
        if (c->next == c->nbuf) {
            int rc = refill(c, err);
            if (rc <= 0)
                return rc;
        }
        int take = c->nbuf - c->next;
        if ((uint64_t)take > n)
            take = (int)n;
        pass(c, take);
        n -= (uint64_t)take;
    }
    return 1;
}

int ts_cursor_next_ref(ts_cursor_t *c, const ts_event_t **ev, ts_error_t *err)
{
    if (c->next == c->nbuf) {
        int rc = refill(c, err);
        if (rc <= 0)
            return rc;
    }
    *ev = &c->buf[c->next];
    pass(c, 1);
    return 1;
}

int ts_cursor_next(ts_cursor_t *c, ts_event_t *ev, ts_error_t *err)
{
    const ts_event_t *at;
    int rc = ts_cursor_next_ref(c, &at, err);
    if (rc == 1)
        *ev = *at;
    return rc;
}

int ts_cursor_next_batch(ts_cursor_t *c, const ts_event_t **evs, ts_error_t *err)
{
    if (c->next == c->nbuf) {
        int rc = refill(c, err);
        if (rc <= 0)
            return rc;
    }
    int n = c->nbuf - c->next;
    *evs = &c->buf[c->next];
    pass(c, n);
    return n;
}

void ts_cursor_close(ts_cursor_t *c)
{
    if (c) {
        free(c->buf);
        free(c->rawbuf);
        free(c->zbuf);
    }
    free(c);
}

ts_status ts__trace_copy_defs(const ts_trace_t *t, ts_trace_t *w)
{
    for (int32_t n = 0; n < t->nnodes; n++)
        if (ts__trace_add_node(w, t->node_names[n]) < 0)
            return TS_ENOMEM;
    for (int32_t c = 0; c < t->ncomms; c++) {
        const ts_comm_info_t *ci = &t->comms[c].info;
        if (ts__trace_add_comm(w, ci->name, ci->size, ci->is_self, ci->members) < 0)
            return TS_ENOMEM;
    }
    for (int32_t f = 0; f < t->nfuncs; f++) {
        /* Interning keeps indices: the source table holds each name once. */
        if (ts__trace_intern_func(w, t->func_names[f]) != f)
            return TS_ENOMEM;
    }
    w->duration_ns = t->duration_ns;
    w->timer_resolution = t->timer_resolution;
    w->nonmaster_mpi = t->nonmaster_mpi;
    for (int32_t r = 0; r < t->nranks; r++)
        w->ranks[r].node = t->ranks[r].node;
    return TS_OK;
}

ts_status ts_trace_rename(ts_trace_t *t, const char *name)
{
    char *copy = strdup(name);
    if (!copy)
        return TS_ENOMEM;
    free(t->path);
    t->path = copy;
    return TS_OK;
}
