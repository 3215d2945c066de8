/* compute.c - tracer test program: a known compute burst between two barriers. Each rank
 * spins until its thread has used BURST_MS of CPU time. tests/test_tracer.c runs it with
 * more ranks than cores: on the cpu clock the burst must read BURST_MS (the time spent
 * waiting for a core does not count), on the wall clock at least that. Rank 0 sleeps
 * SLEEP_MS before the first barrier, so that the others spend CPU time waiting inside it: on
 * the cpu clock that time is MPI's, not the burst's. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <time.h>

#define BURST_MS 50
#define SLEEP_MS 300

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
        struct timespec nap = {0, SLEEP_MS * 1000000L};
        while (nanosleep(&nap, &nap) != 0)
            ;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = thread_cpu_ms();
    volatile double sink = 0;
    while (thread_cpu_ms() - start < BURST_MS)
        for (int i = 0; i < 1000; i++)
            sink += i * 0.5;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
