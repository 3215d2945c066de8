/* bursts.c - tracer test program: ROUNDS compute bursts of a fixed amount of work, each
 * followed by an exchange with the ring neighbours and an 8-byte Allreduce, like a solver's
 * sweep. The work streams over an array of ARRAY_KB, a working set that stays in a core's
 * cache only while the rank has the core to itself. tests/test_tracer.c records it one rank
 * per core and with more ranks than cores under --exclusive: the bursts must agree. */
#include <mpi.h>
#include <stdlib.h>

#define ROUNDS   40
#define ARRAY_KB 512
#define SWEEPS   40

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t len = ARRAY_KB * 1024 / sizeof(double);
    double *a = malloc(len * sizeof *a);
    if (a == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < len; i++)
        a[i] = (double)i;
    double halo[256] = {0}, in[256];
    for (int r = 0; r < ROUNDS; r++) {
        double s = 0;
        for (int k = 0; k < SWEEPS; k++)
            for (size_t i = 0; i < len; i++) {
                a[i] = a[i] * 0.999 + 1.0;
                s += a[i];
            }
        halo[0] = s;
        MPI_Sendrecv(halo, 256, MPI_DOUBLE, (me + 1) % n, 1, in, 256, MPI_DOUBLE, (me + n - 1) % n,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    free(a);
    MPI_Finalize();
    return 0;
}
