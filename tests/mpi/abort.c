/* abort.c - tracer test program: a run that fails after MPI_Init (the tracer has begun its
 * archive) and never reaches MPI_Finalize, as a crashing solver does. tests/test_tracer.c
 * checks that `tunesim record` then leaves the directory's previous trace as it was. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 0;
}
