/* latefail.c - tracer test program: a run that completes MPI (the tracer has written its trace
 * at MPI_Finalize) and then exits with a failure, as a solver that reports an error after the
 * run does. tests/test_tracer_exclusive.c checks what `tunesim record` says then. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 5;
}
