/* comms.h - the tracer's communicator registry and its unification at MPI_Finalize
 * (private to the tracer).
 *
 * Events name communicators by a LOCAL id (0 = MPI_COMM_WORLD, 1 = MPI_COMM_SELF, then one
 * per communicator in the order this rank first saw it), because a rank cannot know a global
 * numbering while events are being flushed. To unify, every communicator gets a key that all
 * its members agree on at creation: (world rank of its rank 0 = the owner, owner's creation
 * counter), broadcast inside the new communicator. At MPI_Finalize the owners send their
 * definitions (key, parent key, members as world ranks) to world rank 0, which sorts the keys
 * into global ids 2, 3, ... and broadcasts them; each rank then writes a local -> global
 * MAPPING_TABLE (OTF2_MAPPING_COMM) into its local definitions.
 *
 * Communicators the tracer did not see being created (inter-communicator tricks, MPI_Comm_idup,
 * ones made while tracing was off) are registered lazily at first use with the key (owner,
 * LAZY | per-owner ordinal of first use on this rank): consistent whenever members first use
 * such communicators of one owner in the same order, which holds for the usual SPMD code. Each
 * member then sends the definition and rank 0 keeps one per key. Inter-communicators are
 * recorded with their local group only. */
#ifndef TRC_COMMS_H
#define TRC_COMMS_H

#include <stdint.h>

#include <mpi.h>

enum { TRC_COMM_WORLD = 0, TRC_COMM_SELF = 1 };

typedef struct trc_comm_s {
    uint32_t owner; /* world rank of the communicator's rank 0 */
    uint32_t seq;   /* owner's creation counter (TRC_COMM_LAZY bit: found lazily) */
    int32_t parent; /* local id of the parent communicator, or -1 */
    int32_t size;
    int32_t *members; /* world ranks, kept only where this rank sends the definition */
    int inter;        /* an inter-communicator: recorded with its local group only */
} trc_comm_t;

typedef struct trc_comms_s {
    trc_comm_t *v;
    uint32_t n, cap;
    int keyval; /* MPI attribute holding local id + 1 on each known communicator */
    int world_rank, world_size;
    uint32_t next_seq;    /* creation counter of the communicators this rank owns */
    uint32_t *lazy_count; /* per owner: communicators of that owner found lazily so far */
    MPI_Group world_group;
    uint64_t inter_uses; /* calls recorded on inter-communicators (a replay cannot match them) */
} trc_comms_t;

/* A unified communicator table, held by world rank 0 after trc_comms_unify. Global ids are
 * 0 (MPI_COMM_WORLD), 1 (MPI_COMM_SELF), then 2 + i for entry i below. */
typedef struct trc_comm_table_s {
    uint32_t n;
    uint32_t *parent; /* global id of the parent, or UINT32_MAX (undefined) */
    uint32_t *size;
    uint32_t *first;   /* index of the entry's first member in members */
    uint32_t *members; /* world ranks */
} trc_comm_table_t;

/* Paired init/fini; call after MPI_Init. Returns 0, or -1 (out of memory, MPI failure). */
int trc_comms_init(trc_comms_t *comms);
void trc_comms_fini(trc_comms_t *comms);

/* Local id of comm, registering it lazily if it is unknown. Never fails: when memory or MPI
 * fail it answers MPI_COMM_WORLD's id (0) rather than abort the traced application. */
uint32_t trc_comms_id(trc_comms_t *comms, MPI_Comm comm);

/* Register newcomm, just created from parent (MPI_COMM_NULL when the creation has no single
 * parent). Collective over newcomm (one broadcast). Returns its local id, or 0 as above. */
uint32_t trc_comms_created(trc_comms_t *comms, MPI_Comm parent, MPI_Comm newcomm);

/* Collective over MPI_COMM_WORLD. Fills map (allocated, *nlocal entries: local id -> global
 * id) on every rank and, on world rank 0, table (release with trc_comm_table_fini).
 * Returns 0, or -1 on failure (then nothing is allocated). */
int trc_comms_unify(trc_comms_t *comms, uint64_t **map, uint32_t *nlocal, trc_comm_table_t *table);
void trc_comm_table_fini(trc_comm_table_t *table);

#endif
