/* store.c - writes and reads the binary trace store.
 *
 * Header (48 bytes, little-endian):
 *    0  magic       16 bytes "TUNESIM\x1aSTORE\0\0\0"
 *   16  version     u32  TS_STORE_VERSION; other versions are refused with a clear error
 *   20  flags       u32  0 (reserved)
 *   24  zsize       u64  bytes of the LZ4-compressed head that follows the header
 *   32  rawsize     u64  bytes of the head once decompressed
 *   40  head_crc    u32  CRC-32 of the compressed head
 *   44  header_crc  u32  CRC-32 of bytes 0..43
 * Head, decompressed: varint-coded definitions (ranks, nodes, communicators, functions,
 * clock), then per rank its event count and chunk table (offset after the head, compressed
 * and raw size, CRC-32 of each chunk).
 * Chunks: LZ4 blocks of at most TS__CHUNK_RAW bytes of encoded events (codec.h), cut at
 * event boundaries. Only the head is read when a store is opened; cursors read chunks as
 * they reach them, so a replay's memory does not grow with the trace's length. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h> /* crc32 */
#include <lz4.h>
#include <lz4hc.h>

#include "../common/outfile.h"
#include "trace_impl.h"

static const uint8_t MAGIC[16] = {'T', 'U', 'N', 'E', 'S', 'I', 'M', 0x1a,
                                  'S', 'T', 'O', 'R', 'E', 0,   0,   0};

enum {
    HDR_SIZE = 48,
    /* A body that claims to inflate beyond this is refused before allocating. */
    MAX_RAW = 1 << 30, /* 1 GiB raw per store; larger traces need a format with chunks */
    /* LZ4HC level 9: nearly level 12's ratio at a fraction of its write time. */
    STORE_LZ4HC_LEVEL = 9
};

/* Header fields after the magic: version u32, flags u32, zsize u64, rawsize u64,
 * body_crc u32, header_crc u32 (CRC-32 of bytes 0..43). */

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- body serialisation -------------------------------------------------------------- */

typedef struct wbuf_s {
    uint8_t *p;
    size_t n, cap;
    int oom;
} wbuf_t;

static void w_bytes(wbuf_t *w, const void *src, size_t len)
{
    if (w->oom)
        return;
    if (w->n + len > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->n + len)
            cap *= 2;
        uint8_t *q = realloc(w->p, cap);
        if (!q) {
            w->oom = 1;
            return;
        }
        w->p = q;
        w->cap = cap;
    }
    memcpy(w->p + w->n, src, len);
    w->n += len;
}

static void w_u(wbuf_t *w, uint64_t v)
{
    uint8_t tmp[10];
    int n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    w_bytes(w, tmp, (size_t)n);
}

static void w_str(wbuf_t *w, const char *s)
{
    size_t n = strlen(s);
    w_u(w, n);
    w_bytes(w, s, n);
}

static void serialise(const ts_trace_t *t, wbuf_t *w)
{
    w_u(w, (uint64_t)t->nranks);
    w_u(w, (uint64_t)t->nnodes);
    for (int32_t i = 0; i < t->nnodes; i++)
        w_str(w, t->node_names[i]);
    for (int32_t r = 0; r < t->nranks; r++)
        w_u(w, (uint64_t)t->ranks[r].node);
    w_u(w, (uint64_t)t->ncomms);
    for (int32_t c = 0; c < t->ncomms; c++) {
        const ts_comm_info_t *ci = &t->comms[c].info;
        w_str(w, ci->name);
        w_u(w, (uint64_t)ci->is_self);
        w_u(w, (uint64_t)ci->size);
        for (int32_t i = 0; !ci->is_self && i < ci->size; i++)
            w_u(w, (uint64_t)ci->members[i]);
    }
    w_u(w, (uint64_t)t->nfuncs);
    for (int32_t f = 0; f < t->nfuncs; f++)
        w_str(w, t->func_names[f]);
    w_u(w, (uint64_t)t->duration_ns);
    w_u(w, t->timer_resolution);
    w_u(w, t->nonmaster_mpi);
}

/* The chunk tables of the ranks (offsets relative to the first chunk). */
static void serialise_chunks(const uint64_t *nevents, ts__chunk_t *const *chunks,
                             const uint32_t *nchunks, int32_t nranks, wbuf_t *w)
{
    for (int32_t r = 0; r < nranks; r++) {
        w_u(w, nevents[r]);
        w_u(w, nchunks[r]);
        for (uint32_t k = 0; k < nchunks[r]; k++) {
            const ts__chunk_t *c = &chunks[r][k];
            w_u(w, c->offset);
            w_u(w, c->zsize);
            w_u(w, c->rawsize);
            w_u(w, c->crc);
        }
    }
}

/* Compress one chunk of encoded events onto data and note it in the rank's table. Every
 * chunk but the store's first is compressed against the first as a dictionary: ranks repeat
 * each other's patterns, which chunks compressed alone would not see. */
static int flush_chunk(const ts_codec_buf_t *cb, const uint8_t *dict, int dict_size, wbuf_t *data,
                       ts__chunk_t **chunks, uint32_t *n)
{
    if (cb->size == 0)
        return 0;
    int cap = LZ4_compressBound((int)cb->size);
    uint8_t *z = malloc((size_t)cap);
    ts__chunk_t *grown = realloc(*chunks, (*n + 1) * sizeof **chunks);
    if (!z || !grown) {
        free(z);
        if (grown)
            *chunks = grown;
        return -1;
    }
    *chunks = grown;
    int zlen = -1;
    if (dict) {
        LZ4_streamHC_t *hc = LZ4_createStreamHC();
        if (hc) {
            LZ4_resetStreamHC_fast(hc, STORE_LZ4HC_LEVEL);
            LZ4_loadDictHC(hc, (const char *)dict, dict_size);
            zlen =
                LZ4_compress_HC_continue(hc, (const char *)cb->data, (char *)z, (int)cb->size, cap);
            LZ4_freeStreamHC(hc);
        }
    } else {
        zlen = LZ4_compress_HC((const char *)cb->data, (char *)z, (int)cb->size, cap,
                               STORE_LZ4HC_LEVEL);
    }
    if (zlen <= 0) {
        free(z);
        return -1;
    }
    (*chunks)[(*n)++] = (ts__chunk_t){data->n, (uint32_t)zlen, (uint32_t)cb->size,
                                      (uint32_t)crc32(0L, z, (uInt)zlen)};
    w_bytes(data, z, (size_t)zlen);
    free(z);
    return data->oom ? -1 : 0;
}

/* Flush a chunk; the store's first chunk becomes the dictionary of all the others. */
static int flush(const ts_codec_buf_t *cb, uint8_t *dict, int *dict_size, wbuf_t *data,
                 ts__chunk_t **chunks, uint32_t *n)
{
    if (cb->size == 0)
        return 0;
    if (*dict_size == 0 && data->n == 0) {
        memcpy(dict, cb->data, cb->size);
        *dict_size = (int)cb->size;
        return flush_chunk(cb, NULL, 0, data, chunks, n);
    }
    return flush_chunk(cb, dict, *dict_size, data, chunks, n);
}

/* Re-encode rank r's events into chunks of at most TS__CHUNK_RAW bytes, cut at event
 * boundaries; the encoder's delta state runs on across chunks, as the reader's does. */
static ts_status chunk_rank(const ts_trace_t *t, int32_t r, uint8_t *dict, int *dict_size,
                            wbuf_t *data, ts__chunk_t **chunks, uint32_t *n, ts_error_t *err)
{
    enum { MAX_EVENT = 3 + 6 * 8 }; /* codec.c's worst case */
    ts_cursor_t *c;
    if (ts_cursor_open(t, r, &c) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_codec_buf_t cb;
    ts_codec_buf_init(&cb);
    const ts_event_t *evs;
    int k, st = TS_OK;
    while (st == TS_OK && (k = ts_cursor_next_batch(c, &evs, err)) > 0) {
        for (int i = 0; i < k && st == TS_OK; i++) {
            if (cb.size + MAX_EVENT > TS__CHUNK_RAW) {
                if (flush(&cb, dict, dict_size, data, chunks, n))
                    st = ts_error_set(err, TS_ENOMEM, "out of memory");
                cb.size = 0;
            }
            if (st == TS_OK && ts_codec_put(&cb, &evs[i]) != TS_OK)
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
        }
    }
    if (st == TS_OK && k < 0)
        st = k;
    if (st == TS_OK && flush(&cb, dict, dict_size, data, chunks, n))
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_codec_buf_free(&cb);
    ts_cursor_close(c);
    return st;
}

ts_status ts_store_write(const ts_trace_t *t, const char *path, ts_error_t *err)
{
    int32_t nr = t->nranks;
    wbuf_t head = {0}, data = {0};
    ts__chunk_t **chunks = calloc((size_t)nr, sizeof *chunks);
    uint32_t *nchunks = calloc((size_t)nr, sizeof *nchunks);
    uint64_t *nevents = calloc((size_t)nr, sizeof *nevents);
    uint8_t *z = NULL, *dict = malloc(TS__CHUNK_RAW);
    int dict_size = 0;
    ts_status st = (chunks && nchunks && nevents && dict) ? TS_OK : TS_ENOMEM;
    for (int32_t r = 0; r < nr && st == TS_OK; r++) {
        nevents[r] = t->ranks[r].nevents;
        st = chunk_rank(t, r, dict, &dict_size, &data, &chunks[r], &nchunks[r], err);
    }
    if (st == TS_OK) {
        serialise(t, &head);
        serialise_chunks(nevents, chunks, nchunks, nr, &head);
        if (head.oom || data.oom)
            st = TS_ENOMEM;
    }
    int zcap = st == TS_OK ? LZ4_compressBound((int)head.n) : 0;
    int zlen = 0;
    if (st == TS_OK && (head.n > MAX_RAW || !(z = malloc(HDR_SIZE + (size_t)zcap))))
        st = head.n > MAX_RAW ? TS_EARG : TS_ENOMEM;
    if (st == TS_OK) {
        zlen = LZ4_compress_HC((const char *)head.p, (char *)z + HDR_SIZE, (int)head.n, zcap,
                               STORE_LZ4HC_LEVEL);
        if (zlen <= 0)
            st = TS_ENOMEM;
    }
    if (st == TS_OK) {
        memcpy(z, MAGIC, 16);
        put_le(z + 16, TS_STORE_VERSION, 4);
        put_le(z + 20, 0, 4);
        put_le(z + 24, (uint64_t)zlen, 8);
        put_le(z + 32, head.n, 8);
        put_le(z + 40, (uint32_t)crc32(0L, z + HDR_SIZE, (uInt)zlen), 4);
        put_le(z + 44, (uint32_t)crc32(0L, z, 44), 4);
        ts_outfile_t *of;
        st = ts_outfile_open(path, &of, err);
        if (st == TS_OK) {
            fwrite(z, 1, HDR_SIZE + (size_t)zlen, ts_outfile_stream(of));
            if (data.n) /* a store of ranks without events has none, and no buffer */
                fwrite(data.p, 1, data.n, ts_outfile_stream(of));
            st = ts_outfile_commit(of, err);
        }
    } else if (err && err->code == TS_OK) {
        ts_error_set(err, st, "%s: %s", path,
                     st == TS_EARG ? "trace definitions too large for a store" : "out of memory");
    }
    if (st != TS_OK && err && err->code == TS_OK)
        ts_error_set(err, st, "%s: %s", path, ts_status_message(st));
    for (int32_t r = 0; chunks && r < nr; r++)
        free(chunks[r]);
    free(chunks);
    free(nchunks);
    free(nevents);
    free(dict);
    free(head.p);
    free(data.p);
    free(z);
    return st;
}

/* ---- reading ------------------------------------------------------------------------- */

int ts_store_is_store(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    uint8_t m[16];
    size_t n = fread(m, 1, sizeof m, fp);
    fclose(fp);
    return n == sizeof m && memcmp(m, MAGIC, sizeof m) == 0;
}

typedef struct rbuf_s {
    const uint8_t *p, *end;
    int bad;
} rbuf_t;

static uint64_t r_u(rbuf_t *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            break;
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* A count that must fit in what is left of the buffer (each item takes >= 1 byte), which
 * bounds every allocation by the file's own size. */
static int64_t r_count(rbuf_t *r, uint64_t limit)
{
    uint64_t v = r_u(r);
    if (r->bad || v > limit || v > (uint64_t)(r->end - r->p) + 1) {
        r->bad = 1;
        return 0;
    }
    return (int64_t)v;
}

static char *r_str(rbuf_t *r)
{
    uint64_t n = r_u(r);
    if (r->bad || n > (uint64_t)(r->end - r->p)) {
        r->bad = 1;
        return NULL;
    }
    char *s = malloc(n + 1);
    if (!s) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, r->p, n);
    s[n] = '\0';
    r->p += n;
    return s;
}

/* Parse the decompressed head: definitions, then per rank its event count and chunk table.
 * Chunks live at data_base + offset in the file, data_size bytes being there. */
static ts_status parse_body(const uint8_t *raw, size_t rawsize, uint64_t data_base,
                            uint64_t data_size, const char *name, ts_trace_t **out, ts_error_t *err)
{
    rbuf_t r = {raw, raw + rawsize, 0};
    ts_trace_t *t = NULL;
    const char *what = "definitions";
    int truncated = 0;
    uint64_t indexed = 0; /* the end of the furthest chunk the head indexes */
    int32_t nranks = (int32_t)r_count(&r, INT32_MAX);
    if (r.bad || nranks <= 0)
        goto bad;
    if (ts__trace_new(name, TS_FORMAT_STORE, nranks, &t) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", name);
    int32_t nnodes = (int32_t)r_count(&r, INT32_MAX);
    for (int32_t i = 0; i < nnodes && !r.bad; i++) {
        char *s = r_str(&r);
        if (s && ts__trace_add_node(t, s) < 0)
            r.bad = 1;
        free(s);
    }
    for (int32_t i = 0; i < nranks && !r.bad; i++) {
        uint64_t node = r_u(&r);
        if (node >= (uint64_t)t->nnodes)
            r.bad = 1;
        t->ranks[i].node = (int32_t)node;
    }
    int32_t ncomms = (int32_t)r_count(&r, INT32_MAX);
    for (int32_t c = 0; c < ncomms && !r.bad; c++) {
        char *cname = r_str(&r);
        uint64_t is_self = r_u(&r);
        int32_t size = (int32_t)r_count(&r, (uint64_t)nranks);
        int32_t *m = NULL;
        if (!r.bad && is_self > 1)
            r.bad = 1;
        if (!r.bad && !is_self && size > 0) {
            m = malloc((size_t)size * sizeof *m);
            if (!m)
                r.bad = 1;
            for (int32_t i = 0; i < size && !r.bad; i++) {
                uint64_t v = r_u(&r);
                if (v >= (uint64_t)nranks)
                    r.bad = 1;
                m[i] = (int32_t)v;
            }
        }
        if (!r.bad && ts__trace_add_comm(t, cname, size, (int32_t)is_self, m) < 0)
            r.bad = 1;
        free(m);
        free(cname);
    }
    int32_t nfuncs = (int32_t)r_count(&r, UINT16_MAX);
    for (int32_t f = 0; f < nfuncs && !r.bad; f++) {
        char *s = r_str(&r);
        /* Names are unique in the table; interning keeps them so even in a damaged file. */
        if (!s || ts__trace_intern_func(t, s) != f)
            r.bad = 1;
        free(s);
    }
    uint64_t dur = r_u(&r);
    t->duration_ns = dur > INT64_MAX ? 0 : (int64_t)dur;
    if (dur > INT64_MAX)
        r.bad = 1;
    t->timer_resolution = r_u(&r);
    t->nonmaster_mpi = r_u(&r);
    what = "chunk tables";
    for (int32_t i = 0; i < nranks && !r.bad; i++) {
        ts__rank_t *rk = &t->ranks[i];
        rk->nevents = r_u(&r);
        /* Each chunk entry takes at least 4 bytes, which bounds the allocation. */
        uint64_t n = r_u(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p) / 4) {
            r.bad = 1;
            break;
        }
        rk->nchunks = (uint32_t)n;
        rk->chunks = n ? calloc(n, sizeof *rk->chunks) : NULL;
        if (n && !rk->chunks)
            r.bad = 1;
        uint64_t raw_total = 0;
        for (uint64_t k = 0; k < n && !r.bad; k++) {
            ts__chunk_t *c = &rk->chunks[k];
            uint64_t off = r_u(&r), zs = r_u(&r), rs = r_u(&r), crc = r_u(&r);
            if (!r.bad && (off > data_size || zs > data_size - off))
                truncated = 1; /* the table is intact but the data it indexes is cut */
            if (!r.bad && off <= UINT64_MAX - zs && off + zs > indexed)
                indexed = off + zs;
            if (zs == 0 || rs == 0 || rs > TS__CHUNK_RAW ||
                zs > (uint64_t)LZ4_compressBound(TS__CHUNK_RAW) || crc > UINT32_MAX)
                r.bad = 1;
            *c = (ts__chunk_t){data_base + off, (uint32_t)zs, (uint32_t)rs, (uint32_t)crc};
            raw_total += rs;
        }
        if (rk->nevents > raw_total) /* every event takes at least one byte */
            r.bad = 1;
    }
    if (!r.bad && r.p != r.end)
        r.bad = 1;
    if (r.bad)
        goto bad;
    if (truncated) {
        ts_trace_close(t);
        return ts_error_set(err, TS_ETRUNC,
                            "%s: truncated store: its event chunks hold %llu bytes, the head "
                            "indexes %llu",
                            name, (unsigned long long)data_size, (unsigned long long)indexed);
    }
    if (indexed < data_size) { /* the writer ends the file with its last chunk */
        ts_trace_close(t);
        return ts_error_set(err, TS_ECORRUPT,
                            "%s: corrupt store: %llu bytes after its last event chunk (expected "
                            "the file to end there)",
                            name, (unsigned long long)(data_size - indexed));
    }
    *out = t;
    return TS_OK;
bad:
    ts_trace_close(t);
    return ts_error_set(err, TS_ECORRUPT, "%s: corrupt store: malformed %s", name, what);
}

ts_status ts_store_parse_body(const uint8_t *body, size_t size, const char *name, ts_trace_t **out,
                              ts_error_t *err)
{
    /* No chunk data comes with a bare head: every chunk must lie in an empty range. */
    return parse_body(body, size, 0, 0, name, out, err);
}

ts_status ts__store_read_chunk(const ts_trace_t *t, const ts__chunk_t *ch, uint8_t *zbuf,
                               uint8_t *raw)
{
    if (t->mem) {
        if (ch->offset > t->mem_size || ch->zsize > t->mem_size - ch->offset)
            return TS_ECORRUPT;
        memcpy(zbuf, t->mem + ch->offset, ch->zsize);
    } else if (t->fd >= 0) {
        ssize_t got = pread(t->fd, zbuf, ch->zsize, (off_t)ch->offset);
        if (got != (ssize_t)ch->zsize)
            return got < 0 ? TS_EIO : TS_ETRUNC;
    } else {
        return TS_EIO;
    }
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if ((uint32_t)crc32(0L, zbuf, ch->zsize) != ch->crc)
        return TS_ECORRUPT;
#endif
    /* The store's first chunk is the dictionary of all the others (see flush()). Callers
     * place a copy of it right before raw: LZ4 decodes a contiguous prefix dictionary much
     * faster than a separate one. */
    int n;
    if (t->dict && ch->offset != t->dict_offset)
        n = LZ4_decompress_safe_usingDict((const char *)zbuf, (char *)raw, (int)ch->zsize,
                                          TS__CHUNK_RAW, (const char *)raw - t->dict_size,
                                          (int)t->dict_size);
    else
        n = LZ4_decompress_safe((const char *)zbuf, (char *)raw, (int)ch->zsize, TS__CHUNK_RAW);
    return n == (int)ch->rawsize ? TS_OK : TS_ECORRUPT;
}

/* Load the dictionary chunk (the first chunk of the data) once a store is open. */
static ts_status load_dict(ts_trace_t *t, ts_error_t *err)
{
    const ts__chunk_t *first = NULL;
    for (int32_t r = 0; r < t->nranks && !first; r++)
        if (t->ranks[r].nchunks)
            first = &t->ranks[r].chunks[0];
    if (!first)
        return TS_OK;
    uint8_t *z = malloc(first->zsize), *raw = malloc(TS__CHUNK_RAW);
    ts_status st = (z && raw) ? ts__store_read_chunk(t, first, z, raw) : TS_ENOMEM;
    free(z);
    if (st != TS_OK) {
        free(raw);
        return st == TS_ENOMEM
                   ? ts_error_set(err, st, "%s: out of memory reading its first chunk", t->path)
                   : ts_error_set(err, st, "%s: corrupt store: unreadable first chunk", t->path);
    }
    t->dict = raw;
    t->dict_size = first->rawsize;
    t->dict_offset = first->offset;
    return TS_OK;
}

/* Check the header of a store of file_size bytes (hdr: its first HDR_SIZE bytes) and return
 * the compressed head's size and its decompressed size. */
static ts_status check_header(const uint8_t *hdr, uint64_t file_size, const char *name,
                              uint64_t *zlen, uint64_t *rawsize, ts_error_t *err)
{
    if (file_size < 16 || memcmp(hdr, MAGIC, 16) != 0)
        return ts_error_set(err, TS_ENOTTRACE, "%s: not a tunesim store (bad magic)", name);
    if (file_size < HDR_SIZE)
        return ts_error_set(err, TS_ETRUNC,
                            "%s: truncated store: %llu bytes, expected a %d-byte header", name,
                            (unsigned long long)file_size, HDR_SIZE);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* The fuzzer (scripts/fuzz_store.sh) skips the checksums to reach the parser. */
    int check_crc = 0;
#else
    int check_crc = 1;
#endif
    if (check_crc && (uint32_t)get_le(hdr + 44, 4) != (uint32_t)crc32(0L, hdr, 44))
        return ts_error_set(err, TS_ECORRUPT, "%s: corrupt store: header checksum mismatch", name);
    uint32_t version = (uint32_t)get_le(hdr + 16, 4);
    if (version != TS_STORE_VERSION)
        return ts_error_set(err, TS_EVERSION,
                            "%s: store format version %u, this tunesim reads version %u", name,
                            version, TS_STORE_VERSION);
    *zlen = get_le(hdr + 24, 8);
    *rawsize = get_le(hdr + 32, 8);
    if (*zlen > file_size - HDR_SIZE)
        return ts_error_set(err, TS_ETRUNC,
                            "%s: truncated store: %llu bytes after the header, the head alone "
                            "needs %llu",
                            name, (unsigned long long)(file_size - HDR_SIZE),
                            (unsigned long long)*zlen);
    if (*rawsize == 0 || *rawsize > MAX_RAW)
        return ts_error_set(err, TS_ECORRUPT, "%s: corrupt store: head size %llu out of range",
                            name, (unsigned long long)*rawsize);
    return TS_OK;
}

/* Decompress and parse the head (zhead: zlen bytes) of a store of file_size bytes. */
static ts_status load_head(const uint8_t *hdr, const uint8_t *zhead, uint64_t zlen,
                           uint64_t rawsize, uint64_t file_size, const char *name, ts_trace_t **out,
                           ts_error_t *err)
{
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if ((uint32_t)get_le(hdr + 40, 4) != (uint32_t)crc32(0L, zhead, (uInt)zlen))
        return ts_error_set(err, TS_ECORRUPT, "%s: corrupt store: head checksum mismatch", name);
#else
    (void)hdr;
#endif
    uint8_t *raw = malloc((size_t)rawsize);
    if (!raw)
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", name);
    int got = LZ4_decompress_safe((const char *)zhead, (char *)raw, (int)zlen, (int)rawsize);
    ts_status st;
    if (got < 0 || (uint64_t)got != rawsize)
        st = ts_error_set(err, TS_ECORRUPT, "%s: corrupt store: head does not decompress", name);
    else
        st = parse_body(raw, (size_t)rawsize, HDR_SIZE + zlen, file_size - HDR_SIZE - zlen, name,
                        out, err);
    free(raw);
    return st;
}

ts_status ts_store_parse(const uint8_t *data, size_t size, const char *name, ts_trace_t **out,
                         ts_error_t *err)
{
    *out = NULL;
    uint64_t zlen, rawsize;
    uint8_t hdr[HDR_SIZE] = {0};
    memcpy(hdr, data, size < HDR_SIZE ? size : HDR_SIZE);
    ts_status st = check_header(hdr, size, name, &zlen, &rawsize, err);
    if (st == TS_OK)
        st = load_head(hdr, data + HDR_SIZE, zlen, rawsize, size, name, out, err);
    if (st != TS_OK)
        return st;
    uint8_t *copy = malloc(size);
    if (!copy) {
        ts_trace_close(*out);
        *out = NULL;
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", name);
    }
    memcpy(copy, data, size);
    (*out)->mem = copy; /* the chunks are read from this copy */
    (*out)->mem_size = size;
    if ((st = load_dict(*out, err)) != TS_OK) {
        ts_trace_close(*out);
        *out = NULL;
    }
    return st;
}

ts_status ts__store_read(const char *path, ts_trace_t **out, ts_error_t *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ts_error_set(err, TS_EIO, "%s: %s", path, strerror(errno));
    struct stat sb;
    uint8_t hdr[HDR_SIZE] = {0};
    uint64_t zlen = 0, rawsize = 0;
    ts_status st = TS_OK;
    if (fstat(fd, &sb) != 0 || sb.st_size < 0)
        st = ts_error_set(err, TS_EIO, "%s: cannot stat", path);
    uint64_t size = st == TS_OK ? (uint64_t)sb.st_size : 0;
    if (st == TS_OK && pread(fd, hdr, HDR_SIZE, 0) < 0)
        st = ts_error_set(err, TS_EIO, "%s: read failed: %s", path, strerror(errno));
    if (st == TS_OK)
        st = check_header(hdr, size, path, &zlen, &rawsize, err);
    uint8_t *zhead = NULL;
    if (st == TS_OK && !(zhead = malloc(zlen ? (size_t)zlen : 1)))
        st = ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
    if (st == TS_OK && pread(fd, zhead, (size_t)zlen, HDR_SIZE) != (ssize_t)zlen)
        st = ts_error_set(err, TS_EIO, "%s: read failed", path);
    if (st == TS_OK)
        st = load_head(hdr, zhead, zlen, rawsize, size, path, out, err);
    free(zhead);
    if (st != TS_OK) {
        close(fd);
        return st;
    }
    (*out)->fd = fd; /* chunks are read as cursors reach them */
    (*out)->source_bytes = size;
    if ((st = load_dict(*out, err)) != TS_OK) {
        ts_trace_close(*out);
        *out = NULL;
    }
    return st;
}
