/* otf2_events.c - the OTF2 event callbacks of the reader (otf2_impl.h): each record of a
 * master thread's location becomes events of its rank's stream, with the compute gaps
 * between MPI calls, translated communicators and peers, and times checked. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "otf2_impl.h"

/* 128-bit so that 1e15-tick offsets times 1e9 cannot overflow; integer for determinism. */
static __int128 ns_of(const defs_t *d, OTF2_TimeStamp t)
{
    __int128 dt = (__int128)t - (__int128)d->offset;
    uint64_t res = d->resolution ? d->resolution : 1000000000u;
    return dt * 1000000000 / (__int128)res;
}

/* A record's time in ns since the trace's start; next_record has refused any beyond
 * TS_TIME_MAX_NS, so it fits. */
static int64_t to_ns(const defs_t *d, OTF2_TimeStamp t)
{
    return (int64_t)ns_of(d, t);
}

static OTF2_CallbackCode fail_event(loc_state_t *ls, ts_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static OTF2_CallbackCode fail_event(loc_state_t *ls, ts_status st, const char *fmt, ...)
{
    reader_t *rd = ls->rd;
    if (rd->status == TS_OK) {
        char tmp[300];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tmp, sizeof tmp, fmt, ap);
        va_end(ap);
        rd->status = ts_error_set(rd->err, st, "%s: rank %d, record %llu: %s", rd->anchor,
                                  (int)ls->rank, (unsigned long long)ls->records, tmp);
    }
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode emit(loc_state_t *ls, const ts_event_t *ev)
{
    if (ts_codec_put(ls->buf, ev) != TS_OK)
        return fail_event(ls, TS_ENOMEM, "out of memory");
    (*ls->nevents)++;
    return OTF2_CALLBACK_SUCCESS;
}

static int32_t func_of_region(loc_state_t *ls, OTF2_RegionRef region)
{
    reader_t *rd = ls->rd;
    region_def_t *r = &rd->defs.regions[region];
    if (r->func < 0)
        r->func = ts__trace_intern_func(rd->trace, str_of(&rd->defs, r->name));
    return r->func;
}

static OTF2_CallbackCode begin_call(loc_state_t *ls, int32_t func, int64_t t)
{
    if (func < 0)
        return fail_event(ls, TS_ENOMEM, "function table full");
    if (t > ls->last_time) {
        ts_event_t c = {.kind = TS_EV_COMPUTE, .time = t - ls->last_time};
        if (emit(ls, &c) != OTF2_CALLBACK_SUCCESS)
            return OTF2_CALLBACK_INTERRUPT;
    }
    ts_event_t e = {.kind = TS_EV_ENTER, .func = (uint16_t)func, .time = t};
    ls->depth = 1;
    return emit(ls, &e);
}

OTF2_CallbackCode ts__otf2_end_call(loc_state_t *ls, int64_t t)
{
    ts_event_t e = {.kind = TS_EV_LEAVE, .time = t};
    ls->depth = 0;
    ls->last_time = t;
    if (t > ls->max_time)
        ls->max_time = t;
    return emit(ls, &e);
}

/* Counts a record of the location and refuses one earlier than the previous, or beyond
 * TS_TIME_MAX_NS of the trace's start: a clock that went back (a damaged or merged file)
 * would otherwise become a negative compute gap, which replay clamps silently, or an absurd
 * duration in info; a damaged clock far ahead, times and sums beyond int64_t. */
static OTF2_CallbackCode next_record(loc_state_t *ls, OTF2_TimeStamp time)
{
    ls->records++;
    reader_t *rd = ls->rd;
    const defs_t *d = &rd->defs;
    __int128 ns = ns_of(d, time);
    int back = ls->records > 1 && time < ls->prev_tick;
    if (back || ns > TS_TIME_MAX_NS || ns < -TS_TIME_MAX_NS) {
        if (rd->status == TS_OK) {
            char path[4200], who[64], what[160];
            ts__otf2_location_file(rd->anchor, ls->loc, "evt", path, sizeof path);
            if (ls->rank >= 0)
                snprintf(who, sizeof who, "rank %d", (int)ls->rank);
            else
                snprintf(who, sizeof who, "location %llu", (unsigned long long)ls->loc);
            if (back)
                snprintf(what, sizeof what,
                         "timestamp %lld ns is earlier than the previous record's %lld ns "
                         "(expected timestamps that never go back within a location)",
                         (long long)to_ns(d, time), (long long)to_ns(d, ls->prev_tick));
            else
                snprintf(what, sizeof what,
                         "timestamp %llu is more than 1e6 s from the trace's start (expected "
                         "a traced run's)",
                         (unsigned long long)time);
            rd->status = ts_error_set(rd->err, TS_ECORRUPT, "%s: %s, record %llu: %s", path, who,
                                      (unsigned long long)ls->records, what);
        }
        return OTF2_CALLBACK_INTERRUPT;
    }
    ls->prev_tick = time;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)attrs;
    loc_state_t *ls = ud;
    defs_t *d = &ls->rd->defs;
    if (next_record(ls, time) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    if (region >= d->nregions || !d->regions[region].present)
        return fail_event(ls, TS_ECORRUPT, "Enter of undefined region %u", (unsigned)region);
    if (!d->regions[region].is_mpi)
        return OTF2_CALLBACK_SUCCESS;
    if (ls->rank < 0) {
        ls->rd->trace->nonmaster_mpi++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (ls->depth > 0) { /* an MPI call made inside another: part of the outer call */
        ls->depth++;
        return OTF2_CALLBACK_SUCCESS;
    }
    return begin_call(ls, func_of_region(ls, region), to_ns(d, time));
}

static OTF2_CallbackCode cb_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)attrs;
    loc_state_t *ls = ud;
    defs_t *d = &ls->rd->defs;
    if (next_record(ls, time) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    if (region >= d->nregions || !d->regions[region].present)
        return fail_event(ls, TS_ECORRUPT, "Leave of undefined region %u", (unsigned)region);
    if (!d->regions[region].is_mpi || ls->rank < 0 || ls->depth == 0)
        return OTF2_CALLBACK_SUCCESS;
    if (--ls->depth > 0)
        return OTF2_CALLBACK_SUCCESS;
    return ts__otf2_end_call(ls, to_ns(d, time));
}

/* Switching measurement off inside an MPI call loses its Leave: close the call there. */
static OTF2_CallbackCode cb_onoff(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud,
                                  OTF2_AttributeList *attrs, OTF2_MeasurementMode mode)
{
    (void)loc, (void)pos, (void)attrs;
    loc_state_t *ls = ud;
    if (next_record(ls, time) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    if (mode == OTF2_MEASUREMENT_OFF && ls->rank >= 0 && ls->depth > 0)
        return ts__otf2_end_call(ls, to_ns(&ls->rd->defs, time));
    return OTF2_CALLBACK_SUCCESS;
}

/* Common entry of every MPI record: counts it, and opens a call named after the record when
 * a filter dropped the enclosing Enter, so that every record sits inside a call. */
static int mpi_record(loc_state_t *ls, OTF2_TimeStamp time, const char *implied_func,
                      int *synthetic)
{
    *synthetic = 0;
    if (next_record(ls, time) != OTF2_CALLBACK_SUCCESS)
        return -1;
    if (ls->rank < 0) {
        ls->rd->trace->nonmaster_mpi++;
        return 0;
    }
    ls->rd->mpi_records++;
    if (ls->depth == 0) {
        int64_t t = to_ns(&ls->rd->defs, time);
        if (begin_call(ls, ts__trace_intern_func(ls->rd->trace, implied_func), t) !=
            OTF2_CALLBACK_SUCCESS)
            return -1;
        *synthetic = 1;
    }
    return 1;
}

static OTF2_CallbackCode finish_record(loc_state_t *ls, const ts_event_t *ev, int synthetic,
                                       OTF2_TimeStamp time)
{
    if (emit(ls, ev) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    return synthetic ? ts__otf2_end_call(ls, to_ns(&ls->rd->defs, time)) : OTF2_CALLBACK_SUCCESS;
}

/* Translate (comm, rank in comm) to (trace comm, world rank). */
static int translate(loc_state_t *ls, OTF2_CommRef comm, uint32_t peer, int allow_none,
                     int32_t *tcomm, int32_t *world)
{
    reader_t *rd = ls->rd;
    if (comm >= rd->defs.ncomms || rd->comm_map[comm] < 0) {
        fail_event(ls, TS_ECORRUPT, "communicator %u is not an MPI communicator", (unsigned)comm);
        return -1;
    }
    *tcomm = rd->comm_map[comm];
    const ts_comm_info_t *c = ts_trace_comm(rd->trace, *tcomm);
    if (allow_none && peer == OTF2_COLLECTIVE_ROOT_NONE) {
        *world = TS_ROOT_NONE;
        return 0;
    }
    if (c->is_self && peer == 0) {
        *world = ls->rank;
        return 0;
    }
    if (peer >= (uint32_t)c->size) {
        fail_event(ls, TS_ECORRUPT,
                   "peer %u is outside communicator %u of size %d (expected a rank below %d)", peer,
                   (unsigned)comm, (int)c->size, (int)c->size);
        return -1;
    }
    *world = c->is_self ? ls->rank : c->members[peer];
    return 0;
}

static OTF2_CallbackCode p2p(loc_state_t *ls, OTF2_TimeStamp time, uint8_t kind,
                             const char *implied, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                             uint64_t len, uint64_t req)
{
    int synthetic;
    int rc = mpi_record(ls, time, implied, &synthetic);
    if (rc <= 0)
        return rc < 0 ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    if (len > TS_BYTES_MAX)
        return fail_event(ls, TS_ECORRUPT,
                          "a message of %llu bytes (expected at most 2^40, a traced run's)",
                          (unsigned long long)len);
    ts_event_t ev = {.kind = kind, .tag = (int32_t)tag, .bytes = len, .req = req};
    if (translate(ls, comm, peer, 0, &ev.comm, &ev.peer))
        return OTF2_CALLBACK_INTERRUPT;
    return finish_record(ls, &ev, synthetic, time);
}

static OTF2_CallbackCode req_only(loc_state_t *ls, OTF2_TimeStamp time, uint8_t kind,
                                  const char *implied, uint64_t req)
{
    int synthetic;
    int rc = mpi_record(ls, time, implied, &synthetic);
    if (rc <= 0)
        return rc < 0 ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    ts_event_t ev = {.kind = kind, .req = req};
    return finish_record(ls, &ev, synthetic, time);
}

static OTF2_CallbackCode coll(loc_state_t *ls, OTF2_TimeStamp time, uint8_t kind,
                              OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                              uint64_t recvd, uint64_t req)
{
    char implied[64];
    snprintf(implied, sizeof implied, "MPI_%s%s", kind == TS_EV_ICOLL_DONE ? "I" : "",
             ts_coll_op_name(op));
    if (kind == TS_EV_ICOLL_DONE)
        implied[5] = (char)(implied[5] - 'A' + 'a'); /* MPI_Iallreduce */
    int synthetic;
    int rc = mpi_record(ls, time, implied, &synthetic);
    if (rc <= 0)
        return rc < 0 ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
    if (op >= TS_COLL__COUNT)
        return fail_event(ls, TS_ECORRUPT, "unknown collective operation %u", (unsigned)op);
    if (sent > TS_BYTES_MAX || recvd > TS_BYTES_MAX)
        return fail_event(ls, TS_ECORRUPT,
                          "a collective of %llu bytes sent, %llu received (expected at most "
                          "2^40 each, a traced run's)",
                          (unsigned long long)sent, (unsigned long long)recvd);
    ts_event_t ev = {.kind = kind, .op = op, .bytes = sent, .bytes2 = recvd, .req = req};
    if (translate(ls, comm, root, 1, &ev.comm, &ev.peer))
        return OTF2_CALLBACK_INTERRUPT;
    return finish_record(ls, &ev, synthetic, time);
}

#define EVT_ARGS                                                                                   \
    OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud, OTF2_AttributeList *attrs
#define EVT_UNUSED (void)loc, (void)pos, (void)attrs

static OTF2_CallbackCode cb_send(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len)
{
    EVT_UNUSED;
    return p2p(ud, time, TS_EV_SEND, "MPI_Send", peer, comm, tag, len, 0);
}

static OTF2_CallbackCode cb_isend(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    EVT_UNUSED;
    return p2p(ud, time, TS_EV_ISEND, "MPI_Isend", peer, comm, tag, len, req);
}

static OTF2_CallbackCode cb_recv(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len)
{
    EVT_UNUSED;
    return p2p(ud, time, TS_EV_RECV, "MPI_Recv", peer, comm, tag, len, 0);
}

static OTF2_CallbackCode cb_irecv(EVT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    EVT_UNUSED;
    return p2p(ud, time, TS_EV_IRECV_DONE, "MPI_Wait", peer, comm, tag, len, req);
}

/* Records that carry only a request id differ in the event kind they become and in the
 * function named when no enclosing call was recorded. */
#define REQ_CALLBACK(name, kind, implied)                                                          \
    static OTF2_CallbackCode name(EVT_ARGS, uint64_t req)                                          \
    {                                                                                              \
        EVT_UNUSED;                                                                                \
        return req_only(ud, time, kind, implied, req);                                             \
    }

REQ_CALLBACK(cb_isend_done, TS_EV_ISEND_DONE, "MPI_Wait")
REQ_CALLBACK(cb_irecv_req, TS_EV_IRECV_POST, "MPI_Irecv")
REQ_CALLBACK(cb_test, TS_EV_REQ_TEST, "MPI_Test")
REQ_CALLBACK(cb_cancelled, TS_EV_CANCELLED, "MPI_Cancel")
REQ_CALLBACK(cb_icoll_req, TS_EV_ICOLL_POST, "MPI_Icollective")

static OTF2_CallbackCode cb_coll_end(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                     uint32_t root, uint64_t sent, uint64_t recvd)
{
    EVT_UNUSED;
    return coll(ud, time, TS_EV_COLL, op, comm, root, sent, recvd, 0);
}

static OTF2_CallbackCode cb_icoll_done(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                       uint32_t root, uint64_t sent, uint64_t recvd, uint64_t req)
{
    EVT_UNUSED;
    return coll(ud, time, TS_EV_ICOLL_DONE, op, comm, root, sent, recvd, req);
}

OTF2_EvtReaderCallbacks *ts__otf2_evt_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, cb_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, cb_leave);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, cb_onoff);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, cb_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, cb_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, cb_isend_done);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, cb_irecv_req);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, cb_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, cb_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, cb_test);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, cb_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, cb_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, cb_icoll_req);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, cb_icoll_done);
    return cb;
}
