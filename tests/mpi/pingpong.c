/* pingpong.c - tracer test program: blocking point-to-point traffic between partners
 * (me ^ 1; an even number of ranks). tests/test_tracer.c asserts exactly what it produces.
 *
 * Even rank e, odd rank o = e + 1, all messages of MPI_CHAR:
 *  1. ROUNDS times: e Send 1024 << i bytes tag 100 + i, o Recv it; o Send it back with
 *     tag 200 + i, e Recv it.
 *  2. e Ssend 64 bytes tag 300; o Recv with MPI_ANY_SOURCE / MPI_ANY_TAG.
 *  3. Both Sendrecv 128 bytes, tag 400, with each other.
 *  4. e Send 33 bytes tag 500; o Probe (MPI_ANY_SOURCE, MPI_ANY_TAG), Get_count, Recv.
 *  5. e Bsend 17 bytes tag 600 (Buffer_attach / Buffer_detach); o polls Iprobe, Recv.
 *  6. Both Send to and Recv from MPI_PROC_NULL: no message records.
 *  7. Barrier. */
#include <mpi.h>
#include <stdlib.h>

#define ROUNDS 4

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int partner = me ^ 1;
    int even = (me % 2) == 0;
    char *buf = calloc(1024 << ROUNDS, 1);
    MPI_Status st;

    for (int i = 0; i < ROUNDS; i++) {
        int size = 1024 << i;
        if (even) {
            MPI_Send(buf, size, MPI_CHAR, partner, 100 + i, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_CHAR, partner, 200 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_CHAR, partner, 100 + i, MPI_COMM_WORLD, &st);
            MPI_Send(buf, size, MPI_CHAR, partner, 200 + i, MPI_COMM_WORLD);
        }
    }

    if (even)
        MPI_Ssend(buf, 64, MPI_CHAR, partner, 300, MPI_COMM_WORLD);
    else
        MPI_Recv(buf, 1024, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);

    char *other = calloc(128, 1);
    MPI_Sendrecv(buf, 128, MPI_CHAR, partner, 400, other, 128, MPI_CHAR, partner, 400,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    if (even) {
        MPI_Send(buf, 33, MPI_CHAR, partner, 500, MPI_COMM_WORLD);
    } else {
        int count = 0;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_CHAR, &count);
        MPI_Recv(buf, count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }

    if (even) {
        int bsize = 17 + MPI_BSEND_OVERHEAD;
        char *bbuf = malloc((size_t)bsize);
        MPI_Buffer_attach(bbuf, bsize);
        MPI_Bsend(buf, 17, MPI_CHAR, partner, 600, MPI_COMM_WORLD);
        void *detached;
        MPI_Buffer_detach(&detached, &bsize);
        free(bbuf);
    } else {
        int flag = 0;
        while (!flag)
            MPI_Iprobe(partner, 600, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(buf, 17, MPI_CHAR, partner, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Send(buf, 8, MPI_CHAR, MPI_PROC_NULL, 700, MPI_COMM_WORLD);
    MPI_Recv(buf, 8, MPI_CHAR, MPI_PROC_NULL, 700, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    free(other);
    free(buf);
    MPI_Finalize();
    return 0;
}
