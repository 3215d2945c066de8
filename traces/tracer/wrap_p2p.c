/* wrap_p2p.c - point-to-point MPI wrappers of the tracer: blocking and non-blocking sends
 * and receives, Sendrecv, persistent requests' *_init, Probe / Iprobe / Get_count.
 *
 * Records (shared/reference/score-p-otf2-mpi.md): a blocking send writes MpiSend before the
 * call, a blocking receive MpiRecv after it with source and tag from the status; Isend
 * writes MpiIsend with a fresh request id taken before the call; Irecv writes
 * MpiIrecvRequest, and its MpiIrecv comes at completion (wrap_req.c). Nothing is written for
 * MPI_PROC_NULL peers. Peers are ranks in the call's communicator. In exclusive mode the
 * blocking calls are made as their non-blocking forms and a polite wait (exclusive.h), except
 * Sendrecv_replace (rare: it would need a copy of the buffer). */
#include "tracer.h"

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void record_send(trc_state_t *st, int count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm)
{
    if (dest != MPI_PROC_NULL)
        OTF2_EvtWriter_MpiSend(st->archive.evt, NULL, trc_now(st), (uint32_t)dest,
                               trc_comm(st, comm), (uint32_t)tag, trc_bytes(count, type));
}

static void record_recv(trc_state_t *st, const MPI_Status *status, MPI_Comm comm)
{
    if (status->MPI_SOURCE != MPI_PROC_NULL)
        OTF2_EvtWriter_MpiRecv(st->archive.evt, NULL, trc_now(st), (uint32_t)status->MPI_SOURCE,
                               trc_comm(st, comm), (uint32_t)status->MPI_TAG,
                               trc_recv_bytes(status));
}

static int blocking_send(trc_region region, send_fn call, isend_fn icall, const void *buf,
                         int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    trc_state_t *st = trc_begin(region);
    if (st == NULL)
        return call(buf, count, type, dest, tag, comm);
    record_send(st, count, type, dest, tag, comm);
    MPI_Request req;
    int rc = TRC_POLITE(st, req, call(buf, count, type, dest, tag, comm),
                        icall(buf, count, type, dest, tag, comm, &req));
    trc_end(st, region);
    return rc;
}

TRC_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm)
{
    return blocking_send(TRC_R_Send, PMPI_Send, PMPI_Isend, buf, count, type, dest, tag, comm);
}

TRC_EXPORT int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm)
{
    return blocking_send(TRC_R_Bsend, PMPI_Bsend, PMPI_Ibsend, buf, count, type, dest, tag, comm);
}

TRC_EXPORT int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm)
{
    return blocking_send(TRC_R_Ssend, PMPI_Ssend, PMPI_Issend, buf, count, type, dest, tag, comm);
}

TRC_EXPORT int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm)
{
    return blocking_send(TRC_R_Rsend, PMPI_Rsend, PMPI_Irsend, buf, count, type, dest, tag, comm);
}

TRC_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                        MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Recv);
    if (st == NULL)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    MPI_Request req;
    int rc = st->excl.on
                 ? trc_excl_finish(&st->excl, PMPI_Irecv(buf, count, type, source, tag, comm, &req),
                                   &req, s)
                 : PMPI_Recv(buf, count, type, source, tag, comm, s);
    if (rc == MPI_SUCCESS)
        record_recv(st, s, comm);
    trc_end(st, TRC_R_Recv);
    return rc;
}

/* Sendrecv as a receive and a send posted together and waited for politely. */
static int polite_sendrecv(trc_excl_t *e, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           int dest, int sendtag, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status *status)
{
    MPI_Request reqs[2];
    MPI_Status sts[2];
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &reqs[1]);
    if (rc != MPI_SUCCESS) {
        PMPI_Cancel(&reqs[0]);
        PMPI_Request_free(&reqs[0]);
        return rc;
    }
    rc = trc_excl_waitall(e, 2, reqs, sts);
    *status = sts[0];
    return rc;
}

TRC_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                            int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                            int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Sendrecv);
    if (st == NULL)
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    record_send(st, sendcount, sendtype, dest, sendtag, comm);
    int rc = st->excl.on ? polite_sendrecv(&st->excl, sendbuf, sendcount, sendtype, dest, sendtag,
                                           recvbuf, recvcount, recvtype, source, recvtag, comm, s)
                         : PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                         recvcount, recvtype, source, recvtag, comm, s);
    if (rc == MPI_SUCCESS)
        record_recv(st, s, comm);
    trc_end(st, TRC_R_Sendrecv);
    return rc;
}

TRC_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Sendrecv_replace);
    if (st == NULL)
        return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm,
                                     status);
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    record_send(st, count, type, dest, sendtag, comm);
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, s);
    if (rc == MPI_SUCCESS)
        record_recv(st, s, comm);
    trc_end(st, TRC_R_Sendrecv_replace);
    return rc;
}

static int nonblocking_send(trc_region region, isend_fn call, const void *buf, int count,
                            MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request *request)
{
    trc_state_t *st = trc_begin(region);
    if (st == NULL)
        return call(buf, count, type, dest, tag, comm, request);
    trc_req_t req = {.kind = TRC_REQ_SEND};
    if (dest != MPI_PROC_NULL) {
        req.id = st->next_request++;
        req.comm = trc_comm(st, comm);
        OTF2_EvtWriter_MpiIsend(st->archive.evt, NULL, trc_now(st), (uint32_t)dest, req.comm,
                                (uint32_t)tag, trc_bytes(count, type), req.id);
    }
    int rc = call(buf, count, type, dest, tag, comm, request);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {
        req.handle = *request;
        trc_track(st, &req);
    }
    trc_end(st, region);
    return rc;
}

TRC_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(TRC_R_Isend, PMPI_Isend, buf, count, type, dest, tag, comm, request);
}

TRC_EXPORT int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(TRC_R_Ibsend, PMPI_Ibsend, buf, count, type, dest, tag, comm, request);
}

TRC_EXPORT int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(TRC_R_Issend, PMPI_Issend, buf, count, type, dest, tag, comm, request);
}

TRC_EXPORT int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(TRC_R_Irsend, PMPI_Irsend, buf, count, type, dest, tag, comm, request);
}

TRC_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Request *request)
{
    trc_state_t *st = trc_begin(TRC_R_Irecv);
    if (st == NULL)
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
        trc_req_t req = {.handle = *request,
                         .id = st->next_request++,
                         .kind = TRC_REQ_RECV,
                         .comm = trc_comm(st, comm)};
        OTF2_EvtWriter_MpiIrecvRequest(st->archive.evt, NULL, trc_now(st), req.id);
        trc_track(st, &req);
    }
    trc_end(st, TRC_R_Irecv);
    return rc;
}

/* ---- persistent requests: remembered here, recorded at MPI_Start (wrap_req.c) ----------- */

static int persistent_send(trc_region region, isend_fn call, const void *buf, int count,
                           MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    trc_state_t *st = trc_begin(region);
    if (st == NULL)
        return call(buf, count, type, dest, tag, comm, request);
    int rc = call(buf, count, type, dest, tag, comm, request);
    if (rc == MPI_SUCCESS) {
        trc_req_t req = {.handle = *request,
                         .id = st->next_request++,
                         .kind = TRC_REQ_SEND,
                         .persistent = 1,
                         .comm = trc_comm(st, comm),
                         .peer = dest,
                         .tag = tag,
                         .bytes = trc_bytes(count, type)};
        trc_track(st, &req);
    }
    trc_end(st, region);
    return rc;
}

TRC_EXPORT int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request)
{
    return persistent_send(TRC_R_Send_init, PMPI_Send_init, buf, count, type, dest, tag, comm,
                           request);
}

TRC_EXPORT int MPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request)
{
    return persistent_send(TRC_R_Bsend_init, PMPI_Bsend_init, buf, count, type, dest, tag, comm,
                           request);
}

TRC_EXPORT int MPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request)
{
    return persistent_send(TRC_R_Ssend_init, PMPI_Ssend_init, buf, count, type, dest, tag, comm,
                           request);
}

TRC_EXPORT int MPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request)
{
    return persistent_send(TRC_R_Rsend_init, PMPI_Rsend_init, buf, count, type, dest, tag, comm,
                           request);
}

TRC_EXPORT int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag,
                             MPI_Comm comm, MPI_Request *request)
{
    trc_state_t *st = trc_begin(TRC_R_Recv_init);
    if (st == NULL)
        return PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    if (rc == MPI_SUCCESS) {
        trc_req_t req = {.handle = *request,
                         .id = st->next_request++,
                         .kind = TRC_REQ_RECV,
                         .persistent = 1,
                         .comm = trc_comm(st, comm),
                         .peer = source};
        trc_track(st, &req);
    }
    trc_end(st, TRC_R_Recv_init);
    return rc;
}

/* ---- recorded as Enter / Leave only, as Score-P does ------------------------------------ */

TRC_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Probe);
    int rc = trc_excl_probe(st != NULL ? &st->excl : NULL, source, tag, comm, status);
    if (st != NULL)
        trc_end(st, TRC_R_Probe);
    return rc;
}

TRC_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Iprobe);
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    if (st != NULL)
        trc_end_poll(st, TRC_R_Iprobe, rc != MPI_SUCCESS || *flag);
    return rc;
}

TRC_EXPORT int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count)
{
    TRC_PLAIN(TRC_R_Get_count, PMPI_Get_count(status, type, count));
}
