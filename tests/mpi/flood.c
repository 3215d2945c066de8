/* flood.c - tracer test program: enough records to overflow the tracer's in-memory event
 * buffer several times, so that OTF2 must flush to disk mid-run. tests/test_tracer.c runs
 * it with TUNESIM_TRACE_BUFFER_MB=1 (the tracer's minimum: two 1 MiB chunks) and checks
 * that every record survived.
 *
 * ITERS times: Irecv from left, Isend 8 bytes to right (tag i % 1000), Waitall. Then BURST
 * = 128 Irecvs from left (tags 1000 + k) posted at once, BURST Isends of 8 bytes to right
 * with the same tags, and one Waitall of all of them: 256 requests outstanding, as many as
 * the tracer's request map has slots at first, so it must grow (at half full: a full map
 * has no empty slot to end a probe run), and its entries collide and are removed from the
 * middle of probe runs. Last, an Irecv (tag 5000) that a Testall finds incomplete, a barrier,
 * the matching Isend, and Testall polled until both are done. */
#include <mpi.h>

#define ITERS 20000

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    double out = me, in;
    for (int i = 0; i < ITERS; i++) {
        MPI_Request reqs[2];
        MPI_Irecv(&in, 1, MPI_DOUBLE, left, i % 1000, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&out, 1, MPI_DOUBLE, right, i % 1000, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    enum { BURST = 128 };
    MPI_Request many[2 * BURST];
    double ins[BURST], outs[BURST];
    for (int k = 0; k < BURST; k++) {
        outs[k] = k;
        MPI_Irecv(&ins[k], 1, MPI_DOUBLE, left, 1000 + k, MPI_COMM_WORLD, &many[k]);
    }
    for (int k = 0; k < BURST; k++)
        MPI_Isend(&outs[k], 1, MPI_DOUBLE, right, 1000 + k, MPI_COMM_WORLD, &many[BURST + k]);
    MPI_Waitall(2 * BURST, many, MPI_STATUSES_IGNORE);
    /* A Testall that finds nothing complete (the left neighbour sends only after the barrier),
     * then one polled until it does: the receive completes once, when it is received. */
    double late = 0;
    int flag = 1;
    MPI_Irecv(&ins[0], 1, MPI_DOUBLE, left, 5000, MPI_COMM_WORLD, &many[0]);
    MPI_Testall(1, many, &flag, MPI_STATUSES_IGNORE);
    if (flag)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(&late, 1, MPI_DOUBLE, right, 5000, MPI_COMM_WORLD, &many[1]);
    for (flag = 0; !flag;)
        MPI_Testall(2, many, &flag, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
