/* collectives.c - tracer test program: collectives with known sizes on MPI_COMM_WORLD, on a
 * Comm_split sub-communicator and on a Comm_dup copy. tests/test_tracer.c asserts exactly
 * what it produces (sizeSent / sizeReceived per Score-P's rules).
 *
 * On MPI_COMM_WORLD (n ranks, me):
 *   Barrier; Bcast 10 ints from root 0; Allreduce 4 doubles; Allreduce 4 doubles in place;
 *   Reduce 3 ints to root n-1; Alltoall 2 ints per peer (received as 1 pair of ints, so the
 *   send and receive counts differ); Gatherv to root 0 of me+1 ints; Allgather 1 double;
 *   Scatter 5 ints from root 1 % n; Scan 2 ints; Gather of 3 ints to root 0, in place at
 *   the root (which passes 0 chars as its ignored send arguments); Gatherv to root 0 of 2
 *   ints per rank, received as 1 pair each; Exscan 2 ints; Reduce_scatter_block of 1 int,
 *   in place. On MPI_COMM_SELF: Allreduce 1 double.
 * Comm_split(color me % 2, key me) -> sub (the ranks of one parity, in world order):
 *   Allreduce 1 double; Bcast 6 chars from sub rank 0; Barrier; if the sub-communicator has
 *   two ranks or more, its rank 0 Sends 4 ints with tag 99 to its rank 1.
 * Comm_dup(MPI_COMM_WORLD) -> dup: Allreduce 1 int. Comm_free(dup), Comm_free(sub).
 * Non-blocking on MPI_COMM_WORLD: Iallreduce 1 int + Wait; Ibcast 3 doubles from root 0 +
 * Wait. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm world = MPI_COMM_WORLD;

    int ints[10] = {0}, ints2[10];
    double d4[4] = {0}, r4[4];
    MPI_Barrier(world);
    MPI_Bcast(ints, 10, MPI_INT, 0, world);
    MPI_Allreduce(d4, r4, 4, MPI_DOUBLE, MPI_SUM, world);
    MPI_Allreduce(MPI_IN_PLACE, r4, 4, MPI_DOUBLE, MPI_SUM, world);
    MPI_Reduce(ints, ints2, 3, MPI_INT, MPI_SUM, n - 1, world);

    int *a2a_out = calloc(2 * (size_t)n, sizeof *a2a_out);
    int *a2a_in = calloc(2 * (size_t)n, sizeof *a2a_in);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Alltoall(a2a_out, 2, MPI_INT, a2a_in, 1, pair, world);

    int *counts = malloc((size_t)n * sizeof *counts);
    int *displs = malloc((size_t)n * sizeof *displs);
    int total = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    int *gathered = calloc((size_t)total, sizeof *gathered);
    int *mine = calloc((size_t)me + 1, sizeof *mine);
    MPI_Gatherv(mine, me + 1, MPI_INT, gathered, counts, displs, MPI_INT, 0, world);

    double one = me, *all = calloc((size_t)n, sizeof *all);
    MPI_Allgather(&one, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, world);

    int *scatter_out = calloc(5 * (size_t)n, sizeof *scatter_out);
    int scatter_in[5];
    MPI_Scatter(scatter_out, 5, MPI_INT, scatter_in, 5, MPI_INT, 1 % n, world);

    int s2[2] = {1, 1}, s2r[2];
    MPI_Scan(s2, s2r, 2, MPI_INT, MPI_SUM, world);

    /* Send and receive arguments that differ in count or type, or are ignored: the sizes
     * must come from the arguments significant on each rank. */
    int g3[3] = {0}, *g3all = calloc(3 * (size_t)n, sizeof *g3all);
    if (me == 0)
        MPI_Gather(MPI_IN_PLACE, 0, MPI_CHAR, g3all, 3, MPI_INT, 0, world);
    else
        MPI_Gather(g3, 3, MPI_INT, NULL, 0, MPI_CHAR, 0, world);
    int *ones = malloc((size_t)n * sizeof *ones), *pairs = calloc(2 * (size_t)n, sizeof *pairs);
    for (int r = 0; r < n; r++) {
        ones[r] = 1;
        displs[r] = r;
    }
    MPI_Gatherv(g3, 2, MPI_INT, pairs, ones, displs, pair, 0, world);
    MPI_Exscan(s2, s2r, 2, MPI_INT, MPI_SUM, world);
    int *rsb = calloc((size_t)n, sizeof *rsb);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, rsb, 1, MPI_INT, MPI_SUM, world);
    /* On MPI_COMM_SELF, the other predefined communicator. */
    MPI_Allreduce(d4, r4, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    MPI_Type_free(&pair);

    MPI_Comm sub;
    MPI_Comm_split(world, me % 2, me, &sub);
    int sub_rank, sub_size;
    MPI_Comm_rank(sub, &sub_rank);
    MPI_Comm_size(sub, &sub_size);
    double x = 1, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, sub);
    char six[6] = "abcde";
    MPI_Bcast(six, 6, MPI_CHAR, 0, sub);
    MPI_Barrier(sub);
    if (sub_size >= 2 && sub_rank == 0)
        MPI_Send(ints, 4, MPI_INT, 1, 99, sub);
    else if (sub_size >= 2 && sub_rank == 1)
        MPI_Recv(ints, 4, MPI_INT, 0, 99, sub, MPI_STATUS_IGNORE);

    MPI_Comm dup;
    MPI_Comm_dup(world, &dup);
    int i1 = 1, i1r;
    MPI_Allreduce(&i1, &i1r, 1, MPI_INT, MPI_SUM, dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&sub);

    MPI_Request req;
    MPI_Iallreduce(&i1, &i1r, 1, MPI_INT, MPI_SUM, world, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    double d3[3] = {0};
    MPI_Ibcast(d3, 3, MPI_DOUBLE, 0, world, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    free(a2a_out);
    free(a2a_in);
    free(counts);
    free(displs);
    free(gathered);
    free(mine);
    free(all);
    free(scatter_out);
    free(g3all);
    free(ones);
    free(pairs);
    free(rsb);
    MPI_Finalize();
    return 0;
}
