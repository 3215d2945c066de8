/* codec.c - varint encoding of per-rank event streams (see codec.h for the layout). */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

/* Set on the kind byte of an ENTER whose time is last_time + the COMPUTE just before it,
 * which is how every reader derives bursts: the time is then not stored twice. */
#define ENTER_AFTER_COMPUTE 0x80u
#define KIND_MASK           0x7fu

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

static void put_u(ts_codec_buf_t *b, uint64_t v)
{
    while (v >= 0x80) {
        b->data[b->size++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->data[b->size++] = (uint8_t)v;
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void put_s(ts_codec_buf_t *b, int64_t v)
{
    put_u(b, zigzag(v));
}

static void put_req(ts_codec_buf_t *b, uint64_t req)
{
    put_s(b, (int64_t)(req - b->last_req));
    b->last_req = req;
}

ts_status ts_codec_put(ts_codec_buf_t *b, const ts_event_t *ev)
{
    /* Worst case: kind + op + 7 varints of 10 bytes. */
    if (reserve(b, 2 + 7 * 10))
        return TS_ENOMEM;
    int64_t pending = b->pending_compute;
    b->pending_compute = -1;
    uint8_t kind = ev->kind;
    switch (kind) {
    case TS_EV_COMPUTE:
        b->data[b->size++] = kind;
        put_u(b, (uint64_t)(ev->time < 0 ? 0 : ev->time));
        b->pending_compute = ev->time < 0 ? 0 : ev->time;
        break;
    case TS_EV_ENTER:
        if (pending >= 0 && ev->time == b->last_time + pending) {
            b->data[b->size++] = (uint8_t)(kind | ENTER_AFTER_COMPUTE);
            put_u(b, ev->func);
        } else {
            b->data[b->size++] = kind;
            put_u(b, ev->func);
            put_s(b, ev->time - b->last_time);
        }
        b->last_time = ev->time;
        break;
    case TS_EV_LEAVE:
        b->data[b->size++] = kind;
        put_s(b, ev->time - b->last_time);
        b->last_time = ev->time;
        break;
    case TS_EV_SEND:
    case TS_EV_RECV:
    case TS_EV_ISEND:
    case TS_EV_IRECV_DONE:
        b->data[b->size++] = kind;
        put_s(b, ev->peer);
        put_s(b, ev->comm);
        put_s(b, ev->tag);
        put_u(b, ev->bytes);
        if (kind == TS_EV_ISEND || kind == TS_EV_IRECV_DONE)
            put_req(b, ev->req);
        break;
    case TS_EV_IRECV_POST:
    case TS_EV_ISEND_DONE:
    case TS_EV_CANCELLED:
    case TS_EV_REQ_TEST:
    case TS_EV_ICOLL_POST:
        b->data[b->size++] = kind;
        put_req(b, ev->req);
        break;
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE:
        b->data[b->size++] = kind;
        b->data[b->size++] = ev->op;
        put_s(b, ev->comm);
        put_s(b, ev->peer);
        put_u(b, ev->bytes);
        put_u(b, ev->bytes2);
        if (kind == TS_EV_ICOLL_DONE)
            put_req(b, ev->req);
        break;
    default:
        return TS_EARG;
    }
    return TS_OK;
}

void ts_codec_reader_init(ts_codec_reader_t *r, const uint8_t *data, size_t size, int32_t nranks,
                          int32_t ncomms, int32_t nfuncs)
{
    r->error = 0;
    r->nranks = nranks;
    r->ncomms = ncomms;
    r->nfuncs = nfuncs;
    r->p = data;
    r->end = data + size;
    r->last_time = 0;
    r->last_req = 0;
    r->pending_compute = -1;
}

/* Returns 0 on success, -1 if the buffer ends inside the varint or it is over-long. */
static int get_u_slow(ts_codec_reader_t *r, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return -1;
        uint8_t byte = *r->p++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Decoding runs in two modes. While at least MAX_EVENT_BYTES remain, no field can run past
 * the end, so the per-byte end checks are skipped ("unchecked"); the last events of a
 * stream are decoded with every check. Over-long varints are refused in both modes. */
/* + 8: the branchless decoder loads 8 bytes at the start of any field. */
enum { MAX_EVENT_BYTES = 2 + 7 * 10 + 8 };

/* Varint lengths vary from event to event, so branching on them mispredicts often; this
 * decodes up to 8 bytes without branches: load 8 bytes, find the first byte without the
 * continuation bit, mask the rest off and squeeze out the continuation bits pairwise. */
static inline int get_u_unchecked(ts_codec_reader_t *r, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, r->p, sizeof x);
    uint64_t stops = ~x & 0x8080808080808080ull;
    if (stops) {
        unsigned len = ((unsigned)__builtin_ctzll(stops) >> 3) + 1;
        x &= len == 8 ? ~0ull : (1ull << (8 * len)) - 1;
        x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
        x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
        x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
        r->p += len;
        *out = x;
        return 0;
    }
#endif
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t byte = *r->p++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Most fields fit in one byte: decode those without the loop. */
#define INLINE static inline __attribute__((always_inline))
INLINE int get_u(ts_codec_reader_t *r, uint64_t *out, int checked)
{
    if ((!checked || r->p < r->end) && *r->p < 0x80) {
        *out = *r->p++;
        return 0;
    }
    return checked ? get_u_slow(r, out) : get_u_unchecked(r, out);
}

INLINE int get_s(ts_codec_reader_t *r, int64_t *out, int checked)
{
    uint64_t u;
    if (get_u(r, &u, checked))
        return -1;
    *out = unzigzag(u);
    return 0;
}

INLINE int get_i32(ts_codec_reader_t *r, int32_t *out, int checked)
{
    int64_t v;
    if (get_s(r, &v, checked) || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

INLINE int get_req(ts_codec_reader_t *r, uint64_t *req, int checked)
{
    int64_t d;
    if (get_s(r, &d, checked))
        return -1;
    r->last_req += (uint64_t)d;
    *req = r->last_req;
    return 0;
}

INLINE int decode(ts_codec_reader_t *r, ts_event_t *ev, int checked)
{
    /* Field by field rather than memset: GCC calls libc's memset for the struct, which cost
     * a quarter of the decoding time. */
    ev->op = 0;
    ev->func = 0;
    ev->peer = ev->comm = ev->tag = 0;
    ev->bytes = ev->bytes2 = ev->req = 0;
    ev->time = 0;
    uint8_t byte = *r->p++;
    uint8_t kind = byte & KIND_MASK;
    int64_t pending = r->pending_compute;
    r->pending_compute = -1;
    uint64_t u;
    int64_t s;
    ev->kind = kind;
    if ((byte & ENTER_AFTER_COMPUTE) && (kind != TS_EV_ENTER || pending < 0))
        return TS_ECORRUPT;
    switch (kind) {
    case TS_EV_COMPUTE:
        if (get_u(r, &u, checked) || u > INT64_MAX)
            return TS_ECORRUPT;
        ev->time = (int64_t)u;
        r->pending_compute = ev->time;
        break;
    case TS_EV_ENTER:
        if (get_u(r, &u, checked) || u >= (uint64_t)r->nfuncs)
            return TS_ECORRUPT;
        ev->func = (uint16_t)u;
        if (byte & ENTER_AFTER_COMPUTE)
            s = pending;
        else if (get_s(r, &s, checked))
            return TS_ECORRUPT;
        r->last_time += s;
        ev->time = r->last_time;
        break;
    case TS_EV_LEAVE:
        if (get_s(r, &s, checked))
            return TS_ECORRUPT;
        r->last_time += s;
        ev->time = r->last_time;
        break;
    case TS_EV_SEND:
    case TS_EV_RECV:
    case TS_EV_ISEND:
    case TS_EV_IRECV_DONE:
        if (get_i32(r, &ev->peer, checked) || get_i32(r, &ev->comm, checked) ||
            get_i32(r, &ev->tag, checked) || get_u(r, &ev->bytes, checked))
            return TS_ECORRUPT;
        if ((kind == TS_EV_ISEND || kind == TS_EV_IRECV_DONE) && get_req(r, &ev->req, checked))
            return TS_ECORRUPT;
        if ((uint32_t)ev->peer >= (uint32_t)r->nranks || (uint32_t)ev->comm >= (uint32_t)r->ncomms)
            return TS_ECORRUPT;
        break;
    case TS_EV_IRECV_POST:
    case TS_EV_ISEND_DONE:
    case TS_EV_CANCELLED:
    case TS_EV_REQ_TEST:
    case TS_EV_ICOLL_POST:
        if (get_req(r, &ev->req, checked))
            return TS_ECORRUPT;
        break;
    case TS_EV_COLL:
    case TS_EV_ICOLL_DONE:
        if (checked && r->p >= r->end)
            return TS_ECORRUPT;
        ev->op = *r->p++;
        if (ev->op >= TS_COLL__COUNT || get_i32(r, &ev->comm, checked) ||
            get_i32(r, &ev->peer, checked) || get_u(r, &ev->bytes, checked) ||
            get_u(r, &ev->bytes2, checked))
            return TS_ECORRUPT;
        if (kind == TS_EV_ICOLL_DONE && get_req(r, &ev->req, checked))
            return TS_ECORRUPT;
        if ((ev->peer != TS_ROOT_NONE && (uint32_t)ev->peer >= (uint32_t)r->nranks) ||
            (uint32_t)ev->comm >= (uint32_t)r->ncomms)
            return TS_ECORRUPT;
        break;
    default:
        return TS_ECORRUPT;
    }
    return 1;
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
        rc = local.end - local.p >= MAX_EVENT_BYTES ? decode(&local, &ev[n], 0)
                                                    : decode(&local, &ev[n], 1);
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
