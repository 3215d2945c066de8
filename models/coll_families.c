/* coll_families.c - schedule building blocks of the allgather, alltoall and barrier
 * families (coll_impl.h): rings, Bruck, recursive doubling, neighbour exchange, linear,
 * pairwise and windowed exchanges, two-process shortcuts. The point-to-point rounds they are
 * made of are in coll_blocks.c. */
#include "coll_impl.h"

/* ---- allgather family ---- */

void ts__cs_allgather_ring(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t k = 0; k < n - 1; k++) {
        ts__cs_send_to(b, g, (me + 1) % n, block);
        ts__cs_recv_from(b, g, (me - 1 + n) % n, block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_allgather_bruck(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t dist = 1; dist < n; dist <<= 1) {
        int32_t cnt = dist < n - dist ? dist : n - dist;
        ts__cs_send_to(b, g, (me - dist + n) % n, (uint64_t)cnt * block);
        ts__cs_recv_from(b, g, (me + dist) % n, (uint64_t)cnt * block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_allgather_rd(build_t *b, const gview_t *g, uint64_t block)
{
    if (g->n & (g->n - 1)) { /* Open MPI falls back to Bruck off powers of two */
        ts__cs_allgather_bruck(b, g, block);
        return;
    }
    for (int32_t dist = 1; dist < g->n; dist <<= 1) {
        ts__cs_send_to(b, g, g->me ^ dist, (uint64_t)dist * block);
        ts__cs_recv_from(b, g, g->me ^ dist, (uint64_t)dist * block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_allgather_neighbor(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    if (n % 2) { /* Open MPI falls back to the ring for odd sizes */
        ts__cs_allgather_ring(b, g, block);
        return;
    }
    int32_t even = me % 2 == 0;
    int32_t first = even ? (me + 1) % n : (me - 1 + n) % n;
    int32_t other = even ? (me - 1 + n) % n : (me + 1) % n;
    ts__cs_send_to(b, g, first, block);
    ts__cs_recv_from(b, g, first, block);
    ts__cs_end_round(b, 0);
    for (int32_t k = 1; k < n / 2; k++) {
        int32_t peer = k % 2 ? other : first;
        ts__cs_send_to(b, g, peer, 2 * block);
        ts__cs_recv_from(b, g, peer, 2 * block);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_exchange(build_t *b, const gview_t *g, int32_t peer, uint64_t bytes, uint64_t red)
{
    ts__cs_send_to(b, g, peer, bytes);
    ts__cs_recv_from(b, g, peer, bytes);
    ts__cs_end_round(b, red);
}

/* ---- alltoall family ---- */

/* Every receive (from me + i) and send (to me - i) posted at once: one window of them all. */
void ts__cs_alltoall_linear(build_t *b, const gview_t *g, uint64_t block)
{
    ts__cs_alltoall_window(b, g, block, g->n);
}

void ts__cs_alltoall_pairwise(build_t *b, const gview_t *g, uint64_t block)
{
    for (int32_t k = 1; k < g->n; k++) {
        ts__cs_send_to(b, g, (g->me + k) % g->n, block);
        ts__cs_recv_from(b, g, (g->me - k + g->n) % g->n, block);
        ts__cs_end_round(b, 0);
    }
}

/* UCC's pairwise Alltoall with num_posts steps in flight (alltoall_pairwise.c): it posts the
 * next step's receive (from me + k) and send (to me - k) as soon as one of its own completes,
 * a sliding window; replayed here as windows of posts steps posted together and completed
 * before the next window (posts >= n - 1: one window, the linear exchange). The self step
 * (k = 0, a local copy) is left out as in the others. */
void ts__cs_alltoall_window(build_t *b, const gview_t *g, uint64_t block, int32_t posts)
{
    for (int32_t k = 1; k < g->n; k += posts) {
        int32_t end = k + posts < g->n ? k + posts : g->n;
        for (int32_t i = k; i < end; i++)
            ts__cs_recv_from(b, g, (g->me + i) % g->n, block);
        for (int32_t i = k; i < end; i++)
            ts__cs_send_to(b, g, (g->me - i + g->n) % g->n, block);
        ts__cs_end_round(b, 0);
    }
}

/* Bruck's Alltoall: in step d a rank sends its peer d ahead every block whose index has bit d
 * set. Besides the messages, each step costs the caller step_cpu plus block_cpu a block it
 * sends (Open MPI: the step's datatype and its packing; UCC: the copy into its merge buffer),
 * and the rotation into place at the end block_cpu for each of the n blocks. byte_cpu prices
 * the bytes a rank copies within itself (Open MPI: the whole buffer rotated in before the first
 * step and out after the last, and each step's received blocks copied back; UCC's block copies
 * are measured with their bytes, so it passes 0). */
void ts__cs_alltoall_bruck(build_t *b, const gview_t *g, uint64_t block, double step_cpu,
                           double block_cpu, double byte_cpu)
{
    int32_t n = g->n, me = g->me;
    double whole = (double)n * (double)block * byte_cpu; /* a rotation of the whole buffer */
    for (int32_t dist = 1; dist < n; dist <<= 1) {
        int32_t cnt = 0;
        for (int32_t j = 0; j < n; j++)
            cnt += (j & dist) != 0;
        ts__cs_cpu(b, (dist == 1 ? whole : 0) + step_cpu + cnt * block_cpu +
                          (double)cnt * (double)block * byte_cpu);
        ts__cs_send_to(b, g, (me + dist) % n, (uint64_t)cnt * block);
        ts__cs_recv_from(b, g, (me - dist + n) % n, (uint64_t)cnt * block);
        ts__cs_end_round(b, 0);
    }
    ts__cs_cpu(b, n * block_cpu + whole);
    ts__cs_end_round(b, 0);
}

/* Open MPI's two_proc algorithms: one exchange on 2 ranks; on more, Open MPI would not pick
 * them, and a forced one runs the fallback. */
void ts__cs_two_proc(build_t *b, const gview_t *g, uint64_t bytes,
                     void (*fallback)(build_t *, const gview_t *, uint64_t))
{
    if (g->n == 2)
        ts__cs_exchange(b, g, 1 - g->me, bytes, 0);
    else
        fallback(b, g, bytes);
}

/* ---- barrier family (messages of 0 bytes) ---- */

void ts__cs_barrier_double_ring(build_t *b, const gview_t *g)
{
    int32_t n = g->n, me = g->me, left = (me - 1 + n) % n, right = (me + 1) % n;
    for (int pass = 0; pass < 2; pass++) {
        if (me == 0) {
            ts__cs_send_to(b, g, right, 0);
            ts__cs_end_round(b, 0);
            ts__cs_recv_from(b, g, left, 0);
            ts__cs_end_round(b, 0);
        } else {
            ts__cs_recv_from(b, g, left, 0);
            ts__cs_end_round(b, 0);
            ts__cs_send_to(b, g, right, 0);
            ts__cs_end_round(b, 0);
        }
    }
}

/* Open MPI's recursive-doubling barrier (coll_base_barrier.c,
 * ompi_coll_base_barrier_intra_recursivedoubling): not the allreduce's pairing. A rank at or
 * above the power of two p below n checks in with rank - p; ranks below p pair by rank ^ mask;
 * then rank r < n - p releases r + p by a synchronous send, which completes when the receiver
 * has matched it (pml ucx: an eager-sync message and UCX's acknowledgement, here a 0-byte
 * message back). */
void ts__cs_barrier_rd(build_t *b, const gview_t *g)
{
    int32_t n = g->n, me = g->me, p2 = ts__cs_pow2_floor(n);
    if (me >= p2) { /* one sendrecv: the check-in out, the release back */
        ts__cs_send_to(b, g, me - p2, 0);
        ts__cs_recv_from(b, g, me - p2, 0);
        ts__cs_end_round(b, 0);
        ts__cs_send_to(b, g, me - p2, 0); /* the release's acknowledgement */
        ts__cs_end_round(b, 0);
        return;
    }
    if (me < n - p2) {
        ts__cs_recv_from(b, g, me + p2, 0);
        ts__cs_end_round(b, 0);
    }
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        ts__cs_send_to(b, g, me ^ mask, 0);
        ts__cs_recv_from(b, g, me ^ mask, 0);
        ts__cs_end_round(b, 0);
    }
    if (me < n - p2) {
        ts__cs_send_to(b, g, me + p2, 0);
        ts__cs_recv_from(b, g, me + p2, 0);
        ts__cs_end_round(b, 0);
    }
}

void ts__cs_barrier_bruck(build_t *b, const gview_t *g)
{
    for (int32_t dist = 1; dist < g->n; dist <<= 1) {
        ts__cs_send_to(b, g, (g->me + dist) % g->n, 0);
        ts__cs_recv_from(b, g, (g->me - dist + g->n) % g->n, 0);
        ts__cs_end_round(b, 0);
    }
}
