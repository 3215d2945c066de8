/* edges.c - tracer test program: what a tracer pass found recorded wrong or hanging
 * (tests/test_tracer.c, "edges"). Four ranks, run as two application contexts of one MPMD
 * line (mpirun -np 2 edges : -np 2 edges [inter]):
 *  1. A persistent send to and receive from MPI_PROC_NULL, started and waited for: no
 *     message records, and no completion of a request never posted.
 *  2. A helper thread per rank makes THREAD_CALLS barriers on a communicator of its own while
 *     the master thread makes as many: the other threads' calls are counted over all ranks.
 *  3. With argument "inter": the two halves of the world make an inter-communicator, which is
 *     duplicated (the tracer's key broadcast used to wait for ever there) and used for a
 *     barrier, an Allreduce of 1 int, and a Bcast, Gather, Reduce, Scatter, Ireduce and
 *     Iscatterv rooted at world rank 0 (roots the trace has no rank for: recorded as none);
 *     then calls the trace cannot represent: each odd
 *     rank takes its even partner's message with MPI_Mprobe and MPI_Mrecv, and all make one
 *     MPI_Neighbor_allgather on a ring (2 x 2 + 4 = 8 calls counted at MPI_Finalize). */
#include <mpi.h>
#include <pthread.h>
#include <string.h>

#define THREAD_CALLS 10

static void *helper(void *arg)
{
    MPI_Comm *comm = arg;
    for (int i = 0; i < THREAD_CALLS; i++)
        MPI_Barrier(*comm);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    char buf[16] = {0};
    MPI_Request rq[2];
    MPI_Send_init(buf, 8, MPI_CHAR, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(buf + 8, 8, MPI_CHAR, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[1]);
    for (int i = 0; i < 2; i++) {
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);

    if (provided == MPI_THREAD_MULTIPLE) {
        MPI_Comm side;
        MPI_Comm_dup(MPI_COMM_WORLD, &side);
        pthread_t t;
        pthread_create(&t, NULL, helper, &side);
        for (int i = 0; i < THREAD_CALLS; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        pthread_join(t, NULL);
        MPI_Comm_free(&side);
    }

    if (argc > 1 && strcmp(argv[1], "inter") == 0) {
        MPI_Comm half, inter, dup;
        int low = me < n / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, me, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? n / 2 : 0, 42, &inter);
        MPI_Comm_dup(inter, &dup);
        MPI_Barrier(dup);
        int word = 1, sum, all[64];
        MPI_Allreduce(&word, &sum, 1, MPI_INT, MPI_SUM, dup);
        /* Rooted at world rank 0: MPI_ROOT there, MPI_PROC_NULL in the rest of its group,
         * the root's rank in the remote group (0) on the other side. */
        int root = low ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_Bcast(&word, 1, MPI_INT, root, dup);
        MPI_Gather(&word, 1, MPI_INT, all, 1, MPI_INT, root, dup);
        MPI_Reduce(&word, &sum, 1, MPI_INT, MPI_SUM, root, dup);
        MPI_Scatter(all, 1, MPI_INT, &word, 1, MPI_INT, root, dup);
        int counts[64], displs[64];
        for (int k = 0; k < 64; k++)
            counts[k] = 1, displs[k] = k;
        MPI_Request nb;
        MPI_Ireduce(&word, &sum, 1, MPI_INT, MPI_SUM, root, dup, &nb);
        MPI_Wait(&nb, MPI_STATUS_IGNORE);
        MPI_Iscatterv(all, counts, displs, MPI_INT, &word, 1, MPI_INT, root, dup, &nb);
        MPI_Wait(&nb, MPI_STATUS_IGNORE);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
        if (me % 2 == 0) {
            MPI_Send(buf, 4, MPI_CHAR, me + 1, 2, MPI_COMM_WORLD);
        } else {
            MPI_Message msg;
            MPI_Status st;
            MPI_Mprobe(me - 1, 2, MPI_COMM_WORLD, &msg, &st);
            MPI_Mrecv(buf, 4, MPI_CHAR, &msg, &st);
        }
        MPI_Comm ring;
        int dims[1] = {n}, periods[1] = {1};
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
        int mine = me, theirs[2];
        MPI_Neighbor_allgather(&mine, 1, MPI_INT, theirs, 1, MPI_INT, ring);
        MPI_Comm_free(&ring);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
