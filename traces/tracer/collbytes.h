/* collbytes.h - sizeSent / sizeReceived of a collective call as Score-P records them
 * (private to the tracer).
 *
 * shared/reference/score-p-otf2-mpi.md gives the rules: for a communicator of n ranks and a
 * per-rank block of b bytes, e.g. Allreduce records n*b both ways and (n-1)*b each with
 * MPI_IN_PLACE; the one departure is that last case's sizeSent (n*b: trc_bytes_alltoall). These
 * functions are pure (no MPI calls) so they are unit-tested alone: the caller passes the
 * communicator size, its rank, the root and block sizes in bytes. For the v-variants it passes the
 * counts array and the element size. */
#ifndef TRC_COLLBYTES_H
#define TRC_COLLBYTES_H

#include <stdint.h>

typedef struct trc_sizes_s {
    uint64_t sent;
    uint64_t received;
} trc_sizes_t;

/* Gather and Reduce. root_block: the root's receive block (recvcount x its size, which MPI
 * requires to equal every sender's block); my_block: this rank's send block. */
trc_sizes_t trc_bytes_all_to_one(int n, int me, int root, int in_place, uint64_t root_block,
                                 uint64_t my_block);
/* Scatter and Bcast: Gather with directions swapped. root_block: the root's send block;
 * my_block: this rank's receive block. */
trc_sizes_t trc_bytes_one_to_all(int n, int me, int root, int in_place, uint64_t root_block,
                                 uint64_t my_block);
/* Gatherv: recvcounts (significant at the root) times elem bytes; my_block as above. */
trc_sizes_t trc_bytes_gatherv(int n, int me, int root, int in_place, const int *recvcounts,
                              uint64_t elem, uint64_t my_block);
/* Scatterv: Gatherv with directions swapped. */
trc_sizes_t trc_bytes_scatterv(int n, int me, int root, int in_place, const int *sendcounts,
                               uint64_t elem, uint64_t my_block);
/* Alltoall, Allgather and Allreduce: n blocks each way; with IN_PLACE (n-1) received and, where
 * Score-P records (n-1) sent too, n sent: the in-place mark a replay needs (collbytes.c). */
trc_sizes_t trc_bytes_alltoall(int n, int in_place, uint64_t send_block, uint64_t recv_block);
/* Alltoallv: the sums of the counts; with IN_PLACE both equal the receive sum without me. */
trc_sizes_t trc_bytes_alltoallv(int n, int me, int in_place, const int *sendcounts,
                                uint64_t send_elem, const int *recvcounts, uint64_t recv_elem);
/* Alltoallw: per-peer element sizes. */
trc_sizes_t trc_bytes_alltoallw(int n, int me, int in_place, const int *sendcounts,
                                const uint64_t *send_elems, const int *recvcounts,
                                const uint64_t *recv_elems);
/* Allgatherv: n send blocks; the receive sum (without my block with IN_PLACE). */
trc_sizes_t trc_bytes_allgatherv(int n, int me, int in_place, uint64_t send_block,
                                 const int *recvcounts, uint64_t elem);
/* Reduce_scatter: sent is the sum of recvcounts; received n times my count. */
trc_sizes_t trc_bytes_reduce_scatter(int n, int me, int in_place, const int *recvcounts,
                                     uint64_t elem);
/* Reduce_scatter_block: n blocks each way, (n-1) with IN_PLACE. */
trc_sizes_t trc_bytes_reduce_scatter_block(int n, int in_place, uint64_t block);
/* Scan: (n-me) blocks sent, (me+1) received; Exscan is Scan with in_place = 1. */
trc_sizes_t trc_bytes_scan(int n, int me, int in_place, uint64_t block);

#endif
