/* ring.c - tracer test program: non-blocking point-to-point traffic with known sizes, tags
 * and completion calls. tests/test_tracer.c asserts exactly what this produces.
 *
 * Phases, with n ranks, right = (me + 1) % n, left = (me + n - 1) % n:
 *  1. ITERS times: Irecv from left, Isend to right (tag 10 + i, (i + 1) * 100 doubles),
 *     Waitall on {recv, send}.
 *  2. Irecv with MPI_ANY_SOURCE / MPI_ANY_TAG from left (tag 42, 7 ints), completed by a
 *     Test loop; the matching Isend is completed by Wait. A Barrier follows, so that no
 *     message of phase 3 can match the wildcard receive.
 *  3. Two Irecvs (from left tag 50, from right tag 51, 3 ints each), completed by Waitany
 *     then Waitsome; sends by Waitall with MPI_STATUSES_IGNORE.
 *  4. Isend / Irecv with MPI_PROC_NULL: no message records.
 *  5. Persistent Send_init / Recv_init (tag 60, 16 bytes), Startall + Waitall twice,
 *     Request_free. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 3

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;

    double *out = calloc((ITERS + 1) * 100, sizeof *out);
    double *in = calloc((ITERS + 1) * 100, sizeof *in);
    for (int i = 0; i < ITERS; i++) {
        MPI_Request reqs[2];
        MPI_Irecv(in, (i + 1) * 100, MPI_DOUBLE, left, 10 + i, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(out, (i + 1) * 100, MPI_DOUBLE, right, 10 + i, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }

    int small_out[7] = {0}, small_in[7];
    MPI_Request rreq, sreq;
    MPI_Irecv(small_in, 7, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq);
    MPI_Isend(small_out, 7, MPI_INT, right, 42, MPI_COMM_WORLD, &sreq);
    int done = 0;
    while (!done)
        MPI_Test(&rreq, &done, MPI_STATUS_IGNORE);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    int a[3] = {0}, b[3] = {0}, c[3], d[3];
    MPI_Request r2[2], s2[2];
    MPI_Irecv(c, 3, MPI_INT, left, 50, MPI_COMM_WORLD, &r2[0]);
    MPI_Irecv(d, 3, MPI_INT, right, 51, MPI_COMM_WORLD, &r2[1]);
    MPI_Isend(a, 3, MPI_INT, right, 50, MPI_COMM_WORLD, &s2[0]);
    MPI_Isend(b, 3, MPI_INT, left, 51, MPI_COMM_WORLD, &s2[1]);
    int index, outcount, indices[2];
    MPI_Status statuses[2];
    MPI_Waitany(2, r2, &index, &statuses[0]);
    do {
        MPI_Waitsome(2, r2, &outcount, indices, statuses);
    } while (outcount != MPI_UNDEFINED && outcount == 0);
    MPI_Waitall(2, s2, MPI_STATUSES_IGNORE);

    MPI_Request nulls[2];
    MPI_Isend(a, 3, MPI_INT, MPI_PROC_NULL, 70, MPI_COMM_WORLD, &nulls[0]);
    MPI_Irecv(c, 3, MPI_INT, MPI_PROC_NULL, 70, MPI_COMM_WORLD, &nulls[1]);
    MPI_Waitall(2, nulls, MPI_STATUSES_IGNORE);

    char pout[16] = {0}, pin[16];
    MPI_Request preq[2];
    MPI_Recv_init(pin, 16, MPI_CHAR, left, 60, MPI_COMM_WORLD, &preq[0]);
    MPI_Send_init(pout, 16, MPI_CHAR, right, 60, MPI_COMM_WORLD, &preq[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, preq);
        MPI_Waitall(2, preq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&preq[0]);
    MPI_Request_free(&preq[1]);

    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
