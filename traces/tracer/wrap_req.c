/* wrap_req.c - request completion wrappers of the tracer: Wait, Waitall, Waitany, Waitsome,
 * Test, Testall, Testany, Testsome, plus Start / Startall (persistent requests), Request_free
 * and Cancel.
 *
 * Completing MPI calls free the request handles they complete, so each wrapper copies the
 * handles first, and supplies its own statuses when the caller ignores them: completion
 * records need the status (source, tag, bytes, cancellation). Completions are written in
 * the order MPI reports them (array order for *all). Unsuccessful tests write nothing, as
 * in Score-P's default configuration. In exclusive mode the waits poll politely
 * (exclusive.h), and an unsuccessful test gives its turn up: a program that loops on a test
 * is waiting, and holding the token would starve the rank it waits for. */
#include <string.h>

#include "tracer.h"

TRC_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Wait);
    if (st == NULL)
        return PMPI_Wait(request, status);
    MPI_Request handle = *request;
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    int rc = trc_excl_wait(&st->excl, request, s);
    if (rc == MPI_SUCCESS)
        trc_complete(st, handle, s);
    trc_end(st, TRC_R_Wait);
    return rc;
}

TRC_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Test);
    if (st == NULL)
        return PMPI_Test(request, flag, status);
    MPI_Request handle = *request;
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Test(request, flag, s);
    if (rc == MPI_SUCCESS && *flag)
        trc_complete(st, handle, s);
    trc_end_poll(st, TRC_R_Test, rc != MPI_SUCCESS || *flag);
    return rc;
}

/* Copies of the handles and the statuses to use, or -1 (then the call goes unrecorded
 * except for Enter / Leave). */
static int prepare(trc_state_t *st, int count, const MPI_Request *requests, MPI_Status *given,
                   MPI_Request **copy, MPI_Status **statuses)
{
    MPI_Status *scratch;
    if (count < 0 || trc_scratch(st, count, copy, &scratch) != 0)
        return -1;
    if (count > 0)
        memcpy(*copy, requests, (size_t)count * sizeof **copy);
    *statuses = given == MPI_STATUSES_IGNORE ? scratch : given;
    return 0;
}

/* Completions of an *all call: all requests on success; on MPI_ERR_IN_STATUS those whose
 * status reports success. */
static void complete_all(trc_state_t *st, int rc, int count, const MPI_Request *copy,
                         const MPI_Status *statuses)
{
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
        return;
    for (int i = 0; i < count; i++)
        if (rc == MPI_SUCCESS || statuses[i].MPI_ERROR == MPI_SUCCESS)
            trc_complete(st, copy[i], &statuses[i]);
}

TRC_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    trc_state_t *st = trc_begin(TRC_R_Waitall);
    MPI_Request *copy;
    MPI_Status *s;
    if (st == NULL || prepare(st, count, requests, statuses, &copy, &s) != 0) {
        int rc = trc_excl_waitall(st != NULL ? &st->excl : NULL, count, requests, statuses);
        if (st != NULL)
            trc_end(st, TRC_R_Waitall);
        return rc;
    }
    int rc = trc_excl_waitall(&st->excl, count, requests, s);
    complete_all(st, rc, count, copy, s);
    trc_end(st, TRC_R_Waitall);
    return rc;
}

TRC_EXPORT int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    trc_state_t *st = trc_begin(TRC_R_Testall);
    MPI_Request *copy;
    MPI_Status *s;
    if (st == NULL || prepare(st, count, requests, statuses, &copy, &s) != 0) {
        int rc = PMPI_Testall(count, requests, flag, statuses);
        if (st != NULL)
            trc_end_poll(st, TRC_R_Testall, rc != MPI_SUCCESS || *flag);
        return rc;
    }
    int rc = PMPI_Testall(count, requests, flag, s);
    if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *flag)
        complete_all(st, rc, count, copy, s);
    trc_end_poll(st, TRC_R_Testall, rc != MPI_SUCCESS || *flag);
    return rc;
}

TRC_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Waitany);
    MPI_Request *copy;
    MPI_Status *unused;
    if (st == NULL || prepare(st, count, requests, MPI_STATUSES_IGNORE, &copy, &unused) != 0) {
        int rc = trc_excl_waitany(st != NULL ? &st->excl : NULL, count, requests, index, status);
        if (st != NULL)
            trc_end(st, TRC_R_Waitany);
        return rc;
    }
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    int rc = trc_excl_waitany(&st->excl, count, requests, index, s);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        trc_complete(st, copy[*index], s);
    trc_end(st, TRC_R_Waitany);
    return rc;
}

TRC_EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                           MPI_Status *status)
{
    trc_state_t *st = trc_begin(TRC_R_Testany);
    MPI_Request *copy;
    MPI_Status *unused;
    if (st == NULL || prepare(st, count, requests, MPI_STATUSES_IGNORE, &copy, &unused) != 0) {
        int rc = PMPI_Testany(count, requests, index, flag, status);
        if (st != NULL)
            trc_end_poll(st, TRC_R_Testany, rc != MPI_SUCCESS || *flag);
        return rc;
    }
    MPI_Status local;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Testany(count, requests, index, flag, s);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        trc_complete(st, copy[*index], s);
    trc_end_poll(st, TRC_R_Testany, rc != MPI_SUCCESS || *flag);
    return rc;
}

/* Completions of a *some call, in the order MPI lists them (outcount is only read when
 * the call succeeded). */
static void complete_some(trc_state_t *st, int rc, const int *outcount, const int *indices,
                          const MPI_Request *copy, const MPI_Status *statuses)
{
    if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount == MPI_UNDEFINED)
        return;
    for (int k = 0; k < *outcount; k++)
        if (rc == MPI_SUCCESS || statuses[k].MPI_ERROR == MPI_SUCCESS)
            trc_complete(st, copy[indices[k]], &statuses[k]);
}

TRC_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    trc_state_t *st = trc_begin(TRC_R_Waitsome);
    MPI_Request *copy;
    MPI_Status *s;
    if (st == NULL || prepare(st, incount, requests, statuses, &copy, &s) != 0) {
        int rc = trc_excl_waitsome(st != NULL ? &st->excl : NULL, incount, requests, outcount,
                                   indices, statuses);
        if (st != NULL)
            trc_end(st, TRC_R_Waitsome);
        return rc;
    }
    int rc = trc_excl_waitsome(&st->excl, incount, requests, outcount, indices, s);
    complete_some(st, rc, outcount, indices, copy, s);
    trc_end(st, TRC_R_Waitsome);
    return rc;
}

TRC_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    trc_state_t *st = trc_begin(TRC_R_Testsome);
    MPI_Request *copy;
    MPI_Status *s;
    if (st == NULL || prepare(st, incount, requests, statuses, &copy, &s) != 0) {
        int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
        if (st != NULL)
            trc_end_poll(st, TRC_R_Testsome, rc != MPI_SUCCESS || *outcount != 0);
        return rc;
    }
    int rc = PMPI_Testsome(incount, requests, outcount, indices, s);
    complete_some(st, rc, outcount, indices, copy, s);
    trc_end_poll(st, TRC_R_Testsome, rc != MPI_SUCCESS || *outcount != 0);
    return rc;
}

/* A persistent request starts a new operation under the id it got at *_init. */
static void record_start(trc_state_t *st, MPI_Request handle)
{
    trc_req_t *req = trc_reqmap_get(&st->requests, handle);
    if (req == NULL || !req->persistent)
        return;
    req->active = 1;
    if (req->peer == MPI_PROC_NULL)
        return;
    if (req->kind == TRC_REQ_SEND)
        OTF2_EvtWriter_MpiIsend(st->archive.evt, NULL, trc_now(st), (uint32_t)req->peer, req->comm,
                                (uint32_t)req->tag, req->bytes, req->id);
    else if (req->kind == TRC_REQ_RECV)
        OTF2_EvtWriter_MpiIrecvRequest(st->archive.evt, NULL, trc_now(st), req->id);
}

TRC_EXPORT int MPI_Start(MPI_Request *request)
{
    trc_state_t *st = trc_begin(TRC_R_Start);
    if (st == NULL)
        return PMPI_Start(request);
    record_start(st, *request);
    int rc = PMPI_Start(request);
    trc_end(st, TRC_R_Start);
    return rc;
}

TRC_EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
    trc_state_t *st = trc_begin(TRC_R_Startall);
    if (st == NULL)
        return PMPI_Startall(count, requests);
    for (int i = 0; i < count; i++)
        record_start(st, requests[i]);
    int rc = PMPI_Startall(count, requests);
    trc_end(st, TRC_R_Startall);
    return rc;
}

TRC_EXPORT int MPI_Request_free(MPI_Request *request)
{
    trc_state_t *st = trc_begin(TRC_R_Request_free);
    if (st == NULL)
        return PMPI_Request_free(request);
    MPI_Request handle = *request;
    int rc = PMPI_Request_free(request);
    /* The handle may be reused by MPI from now on: forget it (an active non-persistent
     * request freed this way completes silently, without a completion record). */
    trc_req_t *req = rc == MPI_SUCCESS ? trc_reqmap_get(&st->requests, handle) : NULL;
    if (req != NULL)
        trc_reqmap_remove(&st->requests, req);
    trc_end(st, TRC_R_Request_free);
    return rc;
}

TRC_EXPORT int MPI_Cancel(MPI_Request *request)
{
    TRC_PLAIN(TRC_R_Cancel, PMPI_Cancel(request));
}
