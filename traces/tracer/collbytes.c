/* collbytes.c - Score-P's per-rank byte counts of collective operations; see collbytes.h. */
#include "collbytes.h"

static uint64_t sum_counts(int n, const int *counts, uint64_t elem)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += (uint64_t)counts[i] * elem;
    return total;
}

static trc_sizes_t swapped(trc_sizes_t s)
{
    return (trc_sizes_t){.sent = s.received, .received = s.sent};
}

trc_sizes_t trc_bytes_all_to_one(int n, int me, int root, int in_place, uint64_t root_block,
                                 uint64_t my_block)
{
    if (me != root)
        return (trc_sizes_t){.sent = my_block, .received = 0};
    /* The root's own block does not travel when it is already in place. */
    if (in_place)
        return (trc_sizes_t){.sent = 0, .received = (uint64_t)(n - 1) * root_block};
    return (trc_sizes_t){.sent = root_block, .received = (uint64_t)n * root_block};
}

trc_sizes_t trc_bytes_one_to_all(int n, int me, int root, int in_place, uint64_t root_block,
                                 uint64_t my_block)
{
    return swapped(trc_bytes_all_to_one(n, me, root, in_place, root_block, my_block));
}

trc_sizes_t trc_bytes_gatherv(int n, int me, int root, int in_place, const int *recvcounts,
                              uint64_t elem, uint64_t my_block)
{
    if (me != root)
        return (trc_sizes_t){.sent = my_block, .received = 0};
    uint64_t total = sum_counts(n, recvcounts, elem);
    uint64_t mine = (uint64_t)recvcounts[me] * elem;
    if (in_place)
        return (trc_sizes_t){.sent = 0, .received = total - mine};
    return (trc_sizes_t){.sent = mine, .received = total};
}

trc_sizes_t trc_bytes_scatterv(int n, int me, int root, int in_place, const int *sendcounts,
                               uint64_t elem, uint64_t my_block)
{
    return swapped(trc_bytes_gatherv(n, me, root, in_place, sendcounts, elem, my_block));
}

trc_sizes_t trc_bytes_alltoall(int n, int in_place, uint64_t send_block, uint64_t recv_block)
{
    if (in_place) {
        /* Score-P records (n-1) blocks both ways, which a reader cannot tell from a call of
         * (n-1)/n of the block. The tracer keeps Score-P's received and records the n blocks
         * sent that the call moves as a whole: sent != received marks the call in place, and
         * sent / n is its block (traces/events.c, ts_coll_payload). */
        return (trc_sizes_t){.sent = (uint64_t)n * recv_block,
                             .received = (uint64_t)(n - 1) * recv_block};
    }
    return (trc_sizes_t){.sent = (uint64_t)n * send_block, .received = (uint64_t)n * recv_block};
}

trc_sizes_t trc_bytes_alltoallv(int n, int me, int in_place, const int *sendcounts,
                                uint64_t send_elem, const int *recvcounts, uint64_t recv_elem)
{
    if (in_place) {
        /* Every pair exchanges the same amount, so what is sent equals what is received. */
        uint64_t b = sum_counts(n, recvcounts, recv_elem) - (uint64_t)recvcounts[me] * recv_elem;
        return (trc_sizes_t){.sent = b, .received = b};
    }
    return (trc_sizes_t){.sent = sum_counts(n, sendcounts, send_elem),
                         .received = sum_counts(n, recvcounts, recv_elem)};
}

trc_sizes_t trc_bytes_alltoallw(int n, int me, int in_place, const int *sendcounts,
                                const uint64_t *send_elems, const int *recvcounts,
                                const uint64_t *recv_elems)
{
    trc_sizes_t s = {0, 0};
    for (int i = 0; i < n; i++) {
        s.received += (uint64_t)recvcounts[i] * recv_elems[i];
        if (!in_place)
            s.sent += (uint64_t)sendcounts[i] * send_elems[i];
    }
    if (in_place) {
        s.received -= (uint64_t)recvcounts[me] * recv_elems[me];
        s.sent = s.received;
    }
    return s;
}

trc_sizes_t trc_bytes_allgatherv(int n, int me, int in_place, uint64_t send_block,
                                 const int *recvcounts, uint64_t elem)
{
    uint64_t total = sum_counts(n, recvcounts, elem);
    if (in_place) {
        uint64_t mine = (uint64_t)recvcounts[me] * elem;
        return (trc_sizes_t){.sent = (uint64_t)(n - 1) * mine, .received = total - mine};
    }
    return (trc_sizes_t){.sent = (uint64_t)n * send_block, .received = total};
}

trc_sizes_t trc_bytes_reduce_scatter(int n, int me, int in_place, const int *recvcounts,
                                     uint64_t elem)
{
    uint64_t total = sum_counts(n, recvcounts, elem);
    uint64_t mine = (uint64_t)recvcounts[me] * elem;
    if (in_place)
        return (trc_sizes_t){.sent = total - mine, .received = (uint64_t)(n - 1) * mine};
    return (trc_sizes_t){.sent = total, .received = (uint64_t)n * mine};
}

trc_sizes_t trc_bytes_reduce_scatter_block(int n, int in_place, uint64_t block)
{
    uint64_t b = (uint64_t)(in_place ? n - 1 : n) * block;
    return (trc_sizes_t){.sent = b, .received = b};
}

trc_sizes_t trc_bytes_scan(int n, int me, int in_place, uint64_t block)
{
    if (in_place)
        return (trc_sizes_t){.sent = (uint64_t)(n - me - 1) * block,
                             .received = (uint64_t)me * block};
    return (trc_sizes_t){.sent = (uint64_t)(n - me) * block,
                         .received = (uint64_t)(me + 1) * block};
}
