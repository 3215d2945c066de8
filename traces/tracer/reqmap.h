/* reqmap.h - what the tracer remembers about each pending MPI request (private to the tracer).
 *
 * A request's completion records (MpiIsendComplete, MpiIrecv, NonBlockingCollectiveComplete)
 * need facts from when it was posted: its id, communicator, and for receives and collectives
 * the sizes. This is a hash map from the MPI_Request handle to those facts. Entries are
 * removed when the request completes (or is freed), so a handle MPI reuses later starts
 * fresh; persistent requests stay until MPI_Request_free.
 *
 * One handle may stand for several pending requests: Open MPI's ob1 answers an Isend that
 * completed on the spot with its one shared, already complete request object. So the map
 * keeps every entry and a lookup answers the oldest (lowest id) for the handle: requests
 * sharing a handle are all complete, and completing them in posting order is the best
 * guess the handle allows. */
#ifndef TRC_REQMAP_H
#define TRC_REQMAP_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

typedef enum trc_req_kind {
    TRC_REQ_SEND = 1, /* Isend & co., or a persistent send */
    TRC_REQ_RECV,     /* Irecv or a persistent receive */
    TRC_REQ_COLL      /* a non-blocking collective */
} trc_req_kind;

typedef struct trc_req_s {
    MPI_Request handle;
    uint64_t id;        /* request id written in the records */
    uint8_t kind;       /* trc_req_kind */
    uint8_t persistent; /* created by *_init: survives completion */
    uint8_t active;     /* persistent: started and not yet completed */
    uint8_t op;         /* collective: OTF2_CollectiveOp */
    uint32_t comm;      /* local communicator id */
    int32_t peer;       /* persistent send: destination (comm rank); MPI_PROC_NULL if none */
    int32_t tag;        /* persistent send: tag */
    uint32_t root;      /* collective: root rank or OTF2_COLLECTIVE_ROOT_NONE */
    uint64_t bytes;     /* persistent send: message bytes; collective: sizeSent */
    uint64_t bytes2;    /* collective: sizeReceived */
} trc_req_t;

typedef struct trc_reqmap_s {
    trc_req_t *slots; /* open addressing, linear probing; handle MPI_REQUEST_NULL = empty */
    size_t cap;       /* power of two */
    size_t count;
} trc_reqmap_t;

/* Paired init/fini. init returns 0, or -1 when out of memory. */
int trc_reqmap_init(trc_reqmap_t *map);
void trc_reqmap_fini(trc_reqmap_t *map);

/* Add an entry for req->handle (MPI_REQUEST_NULL is ignored). Returns 0, or -1 when out of
 * memory. Pointers returned by trc_reqmap_get are invalid after a put or a remove. */
int trc_reqmap_put(trc_reqmap_t *map, const trc_req_t *req);
/* The oldest entry for handle, or NULL. */
trc_req_t *trc_reqmap_get(trc_reqmap_t *map, MPI_Request handle);
/* Remove an entry returned by trc_reqmap_get. */
void trc_reqmap_remove(trc_reqmap_t *map, trc_req_t *entry);

#endif
