/* slow.c - tracer test program: a run that takes a minute after MPI_Init (the tracer has begun
 * its archive), for tests/test_tracer_exclusive.c to interrupt `tunesim record` during it. */
#include <mpi.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct timespec second = {1, 0};
    for (int i = 0; i < 60; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        nanosleep(&second, NULL);
    }
    MPI_Finalize();
    return 0;
}
