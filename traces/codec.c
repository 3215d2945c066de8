/* codec.c - the byte encoding of per-rank event streams.
 *
 * Each event is a header byte, for some kinds a widths byte, then its fields. A field is
 * stored in 1, 2, 4 or 8 little-endian bytes, its width given by a 2-bit code in the header
 * or widths byte. Signed fields (peer, comm, tag, time and request-id deltas) are zigzag
 * coded; times and request ids are deltas from the previous event of the rank.
 *
 *   header bits 0-3: kind; bits 4-7 per kind:
 *   COMPUTE                 w(duration)@4
 *   ENTER                   w(time delta)@4, time implied@6, func is 2 bytes@7; func, [dt]
 *   LEAVE                   w(time delta)@4
 *   SEND RECV ISEND IRECV_DONE  w(bytes)@4 w(tag)@6; widths byte: w(peer)@0 w(comm)@2
 *                           w(req)@4; peer comm tag bytes [req]
 *   IRECV_POST ISEND_DONE CANCELLED REQ_TEST ICOLL_POST   w(req)@4; req
 *   COLL ICOLL_DONE         w(bytes)@4 w(bytes2)@6; widths byte: w(comm)@0 w(root)@2
 *                           w(req)@4; op comm root bytes bytes2 [req]
 *
 * "Time implied" marks an ENTER whose time is the previous time plus the COMPUTE just
 * before it, which is how every reader derives bursts, so the time is not stored twice.
 * Fixed widths rather than varints: the decoder reads each field with one unaligned load
 * and a mask, without a branch per byte; the sizes are about the same once compressed. */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

#define KIND_MASK 0x0fu

static const unsigned WIDTH[4] = {1, 2, 4, 8};
static const uint64_t MASK[4] = {0xffull, 0xffffull, 0xffffffffull, ~0ull};

static unsigned width_code(uint64_t v)
{
    return v < (1ull << 8) ? 0 : v < (1ull << 16) ? 1 : v < (1ull << 32) ? 2 : 3;
}

static uint64_t zigzag(int64_t v)
{
    /* the sign spread over all bits, without shifting a negative value */
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}
static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- encoding --------------------------------------------------------------------------- */

void ts_codec_buf_init(ts_codec_buf_t *b)
{
    memset(b, 0, sizeof *b);
    b->pending_compute = -1;
}

void ts_codec_buf_free(ts_codec_buf_t *b)
{
    free(b->data);
    ts_codec_buf_init(b);
}

static int reserve(ts_codec_buf_t *b, size_t more)
{
    if (b->size + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->size + more)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        return -1;
    b->data = p;
    b->cap = cap;
    return 0;
}

static void put_w(ts_codec_buf_t *b, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < WIDTH[w]; i++)
        b->data[b->size++] = (uint8_t)(v >> (8 * i));
}

ts_status ts_codec_put(ts_codec_buf_t *b, const ts_event_t *ev)
{
    /* Worst case: header, widths, op and six 8-byte fields. */
    if (reserve(b, 3 + 6 * 8))
        return TS_ENOMEM;
    int64_t pending = b->pending_compute;
    b->pending_compute = -1;
    uint8_t kind = ev->kind;
    switch (kind) {
    case TS_EV_COMPUTE: {
        uint64_t d = ev->time < 0 ? 0 : (uint64_t)ev->time;
        unsigned w = width_code(d);
        b->data[b->size++] = (uint8_t)(kind | w << 4);
        put_w(b, d, w);
        b->pending_compute = (int64_t)d;
        break;
    }
    case TS_EV_ENTER: {
        unsigned wide = ev->func > 0xff;
        if (pending >= 0 && ev->time == b->last_time + pending) {
            b->data[b->size++] = (uint8_t)(kind | 1u << 6 | wide << 7);
            put_w(b, ev->func, wide);
        } else {
            uint64_t dt = zigzag(ev->time - b->last_time);
            unsigned w = width_code(dt);
            b->data[b->size++] = (uint8_t)(kind | w << 4 | wide << 7);
            put_w(b, ev->func, wide);
            put_w(b, dt, w);
        }
        b->last_time = ev->time;
        break;
    }
    case TS_EV_LEAVE: {
        uint64_t dt = zigzag(ev->time - b->last_time);
        unsigned w = width_code(dt);
        b->data[b->size++] = (uint8_t)(kind | w << 4);
        put_w(b, dt, w);
        b->last_time = ev->time;
        break;
    }
    case TS_EV_SEND:
    case TS_EV_RECV:
    case TS_EV_ISEND:
    case TS_EV_IRECV_DONE: {
        uint64_t peer = zigzag(ev->peer), comm = zigzag(ev->comm), tag = zigzag(ev->tag);
        uint64_t dreq = zigzag((int64_t)(ev->req - b->last_req));
        int has_req = kind == TS_EV_ISEND || kind == TS_EV_IRECV_DONE;
        unsigned wb = width_code(ev->bytes), wt = width_code(tag), wp = width_code(peer),
                 wc = width_code(comm), wr = has_req ? width_code(dreq) : 0;
        b->data[b->size++] = (uint8_t)(kind | wb << 4 | wt << 6);
        b->data[b->size++] = (uint8_t)(wp | wc << 2 | wr << 4);
        put_w(b, peer, wp);
        put_w(b, comm, wc);
        put_w(b, tag, wt);
        put_w(b, ev->bytes, wb);
        if (has_req) {
            put_w(b, dreq, wr);
            b->last_req = ev->req;
        }
        break;
    }
    case TS_EV_IRECV_POST:
    case TS_EV_ISEND_DONE:
    case TS_EV_CANCELLED:
    case TS_EV_REQ_TEST:
    case TS_EV_ICOLL_POST: {
        uint64_t dreq = zigzag((int64_t)(ev->req - b->last_req));
        unsigned wr = width_code(dreq);
        b->data[b->size++] = (uint8_t)(kind | wr << 4);
        put_w(b, dreq, wr);
        b->last_req = ev->req;
        break;
    }
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE: {
        uint64_t comm = zigzag(ev->comm), root = zigzag(ev->peer);
        uint64_t dreq = zigzag((int64_t)(ev->req - b->last_req));
        int has_req = kind == TS_EV_ICOLL_DONE;
        unsigned wb = width_code(ev->bytes), wb2 = width_code(ev->bytes2), wc = width_code(comm),
                 wo = width_code(root), wr = has_req ? width_code(dreq) : 0;
        b->data[b->size++] = (uint8_t)(kind | wb << 4 | wb2 << 6);
        b->data[b->size++] = (uint8_t)(wc | wo << 2 | wr << 4);
        b->data[b->size++] = ev->op;
        put_w(b, comm, wc);
        put_w(b, root, wo);
        put_w(b, ev->bytes, wb);
        put_w(b, ev->bytes2, wb2);
        if (has_req) {
            put_w(b, dreq, wr);
            b->last_req = ev->req;
        }
        break;
    }
    default:
        return TS_EARG;
    }
    return TS_OK;
}

/* ---- decoding --------------------------------------------------------------------------- */

void ts_codec_reader_init(ts_codec_reader_t *r, const uint8_t *data, size_t size, int32_t nranks,
                          int32_t ncomms, int32_t nfuncs)
{
    r->p = data;
    r->end = data + size;
    r->last_time = 0;
    r->last_req = 0;
    r->pending_compute = -1;
    r->compute_sum = 0;
    r->timed = 0;
    r->error = 0;
    r->why = NULL;
    r->nranks = nranks;
    r->ncomms = ncomms;
    r->nfuncs = nfuncs;
}

/* Decoding runs in two modes. While at least MAX_EVENT_BYTES remain, no field can end past
 * the buffer and every field may be read with one 8-byte load ("fast"); the last events of
 * a stream are read byte by byte with bounds checks. */
enum { MAX_EVENT_BYTES = 3 + 6 * 8 + 8 };

#define INLINE static inline __attribute__((always_inline))

/* Read a field of width code w; returns 0, or -1 if it would run past the end. */
INLINE int get_w(ts_codec_reader_t *r, unsigned w, uint64_t *out, int fast)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (fast) {
        uint64_t x;
        memcpy(&x, r->p, sizeof x);
        *out = x & MASK[w];
        r->p += WIDTH[w];
        return 0;
    }
#else
    (void)fast;
#endif
    if ((size_t)(r->end - r->p) < WIDTH[w])
        return -1;
    uint64_t v = 0;
    for (unsigned i = 0; i < WIDTH[w]; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += WIDTH[w];
    *out = v;
    return 0;
}

INLINE int get_i32(ts_codec_reader_t *r, unsigned w, int32_t *out, int fast)
{
    uint64_t u;
    if (get_w(r, w, &u, fast))
        return -1;
    int64_t v = unzigzag(u);
    if (v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

INLINE int get_req(ts_codec_reader_t *r, unsigned w, uint64_t *req, int fast)
{
    uint64_t u;
    if (get_w(r, w, &u, fast))
        return -1;
    r->last_req += (uint64_t)unzigzag(u);
    *req = r->last_req;
    return 0;
}

/* Move the rank's clock by d: never back once it has a time, never beyond TS_TIME_MAX_NS
 * (the first time may lie before the trace's start, as far). */
INLINE int advance_time(ts_codec_reader_t *r, int64_t d)
{
    if (r->timed && d < 0) {
        r->why = "a time earlier than the one before (expected times that never go back)";
        return -1;
    }
    if (d > TS_TIME_MAX_NS - r->last_time || d < -TS_TIME_MAX_NS) {
        r->why = "a time beyond 1e6 s (expected a traced run's)";
        return -1;
    }
    r->last_time += d;
    r->timed = 1;
    return 0;
}

INLINE int get_time(ts_codec_reader_t *r, unsigned w, int64_t *t, int fast)
{
    uint64_t u;
    if (get_w(r, w, &u, fast))
        return -1;
    if (advance_time(r, unzigzag(u)))
        return -1;
    *t = r->last_time;
    return 0;
}

INLINE int decode(ts_codec_reader_t *r, ts_event_t *ev, int fast)
{
    /* Field by field rather than memset: GCC emits a call to libc's memset for the struct,
     * which cost a quarter of the decoding time. */
    ev->op = 0;
    ev->func = 0;
    ev->peer = ev->comm = ev->tag = 0;
    ev->bytes = ev->bytes2 = ev->req = 0;
    ev->time = 0;
    unsigned h = *r->p++, kind = h & KIND_MASK, w1 = (h >> 4) & 3, w2 = h >> 6;
    int64_t pending = r->pending_compute;
    r->pending_compute = -1;
    ev->kind = (uint8_t)kind;
    uint64_t u;
    switch (kind) {
    case TS_EV_COMPUTE:
        if (get_w(r, w1, &u, fast))
            return TS_ECORRUPT;
        if (u > (uint64_t)(TS_TIME_MAX_NS - r->compute_sum)) {
            r->why = "compute bursts adding up to more than 1e6 s (expected a traced run's)";
            return TS_ECORRUPT;
        }
        r->compute_sum += (int64_t)u;
        ev->time = r->pending_compute = (int64_t)u;
        return 1;
    case TS_EV_ENTER:
        if (get_w(r, h >> 7, &u, fast) || u >= (uint64_t)r->nfuncs)
            return TS_ECORRUPT;
        ev->func = (uint16_t)u;
        if (h & 0x40) {
            if (pending < 0)
                return TS_ECORRUPT; /* implied time without a burst before it */
            if (advance_time(r, pending))
                return TS_ECORRUPT;
            ev->time = r->last_time;
        } else if (get_time(r, w1, &ev->time, fast)) {
            return TS_ECORRUPT;
        }
        return 1;
    case TS_EV_LEAVE:
        return get_time(r, w1, &ev->time, fast) ? TS_ECORRUPT : 1;
    case TS_EV_SEND:
    case TS_EV_RECV:
    case TS_EV_ISEND:
    case TS_EV_IRECV_DONE: {
        if (!fast && r->p >= r->end)
            return TS_ECORRUPT;
        unsigned l = *r->p++;
        if (get_i32(r, l & 3, &ev->peer, fast) || get_i32(r, (l >> 2) & 3, &ev->comm, fast) ||
            get_i32(r, w2, &ev->tag, fast) || get_w(r, w1, &ev->bytes, fast))
            return TS_ECORRUPT;
        if (ev->bytes > TS_BYTES_MAX) {
            r->why = "a message of more than 2^40 bytes (expected a traced run's)";
            return TS_ECORRUPT;
        }
        if ((kind == TS_EV_ISEND || kind == TS_EV_IRECV_DONE) &&
            get_req(r, (l >> 4) & 3, &ev->req, fast))
            return TS_ECORRUPT;
        if ((uint32_t)ev->peer >= (uint32_t)r->nranks || (uint32_t)ev->comm >= (uint32_t)r->ncomms)
            return TS_ECORRUPT;
        return 1;
    }
    case TS_EV_IRECV_POST:
    case TS_EV_ISEND_DONE:
    case TS_EV_CANCELLED:
    case TS_EV_REQ_TEST:
    case TS_EV_ICOLL_POST:
        return get_req(r, w1, &ev->req, fast) ? TS_ECORRUPT : 1;
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE: {
        if (!fast && r->end - r->p < 2)
            return TS_ECORRUPT;
        unsigned l = *r->p++;
        ev->op = *r->p++;
        if (ev->op >= TS_COLL__COUNT || get_i32(r, l & 3, &ev->comm, fast) ||
            get_i32(r, (l >> 2) & 3, &ev->peer, fast) || get_w(r, w1, &ev->bytes, fast) ||
            get_w(r, w2, &ev->bytes2, fast))
            return TS_ECORRUPT;
        if (ev->bytes > TS_BYTES_MAX || ev->bytes2 > TS_BYTES_MAX) {
            r->why = "a collective of more than 2^40 bytes (expected a traced run's)";
            return TS_ECORRUPT;
        }
        if (kind == TS_EV_ICOLL_DONE && get_req(r, (l >> 4) & 3, &ev->req, fast))
            return TS_ECORRUPT;
        if ((ev->peer != TS_ROOT_NONE && (uint32_t)ev->peer >= (uint32_t)r->nranks) ||
            (uint32_t)ev->comm >= (uint32_t)r->ncomms)
            return TS_ECORRUPT;
        return 1;
    }
    default:
        return TS_ECORRUPT;
    }
}

int ts_codec_get_batch(ts_codec_reader_t *r, ts_event_t *ev, int max)
{
    if (r->error)
        return r->error;
    /* Decode on a local copy of the state: the input is read through a byte pointer, which
     * may alias anything, so state reached through r would be reloaded after every store
     * to ev[]; a local whose address never escapes stays in registers. */
    ts_codec_reader_t local = *r;
    int n = 0, rc = 1;
    while (n < max && local.p < local.end) {
        rc = local.end - local.p >= MAX_EVENT_BYTES ? decode(&local, &ev[n], 1)
                                                    : decode(&local, &ev[n], 0);
        if (rc != 1)
            break;
        n++;
    }
    *r = local;
    if (rc < 0) {
        r->error = rc;
        return n ? n : rc;
    }
    return n;
}

int ts_codec_get(ts_codec_reader_t *r, ts_event_t *ev)
{
    return ts_codec_get_batch(r, ev, 1);
}
