/* tunesim-ddt-bruck: the CPU of the block handling of the two Bruck Alltoalls the models
 * replay, on one process (mpirun -np 1 tunesim-ddt-bruck).
 *
 * Open MPI's modified Bruck (coll_base_alltoall.c, ompi_coll_base_alltoall_intra_bruck) builds
 * an indexed datatype of the step's blocks in each of its log2(n) steps, commits it, exchanges
 * through it (packed and unpacked by the pml), copies the received blocks back through it and
 * frees it. Timed here with the MPI calls that do the same work (MPI_Type_indexed, commit, a
 * sendrecv to self, MPI_Pack, free) against the same bytes sent contiguously and copied with
 * memcpy; the difference per step, fitted as a + b x (the mean blocks a step sends) over 36
 * and 72 ranks at 1 and 8 B a block, is model.coll.bruck_step (a) and model.coll.bruck_block
 * (b).
 *
 * UCC's Bruck (tl/ucp alltoall_bruck.c) copies each block it sends into a merge buffer with
 * ucc_mc_memcpy and rotates the result back one block at a time: timed as a copy of one block
 * through a function pointer, model.ucc.block_copy.
 *
 * The bytes Open MPI's Bruck copies within the rank (its rotations of the whole buffer in and
 * out, and each step's copy back) go at the rate of a memcpy of data in the rank's cache:
 * timed on buffers of 36 and 72 blocks of 64 to 512 B, the slowest of them
 * model.cpu.copy_bandwidth. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*copy_fn)(void *, const void *, size_t);

/* Seconds per call of the step loop of a Bruck Alltoall on `size` ranks of `block` bytes a
 * rank: with datatypes (as Open MPI), or contiguous. */
static double steps(int size, int block, int with_ddt, int reps, char *tmp, char *rb)
{
    int lens[128], disp[128];
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        for (int distance = 1; distance < size; distance <<= 1) {
            int nb = 0, total = 0;
            for (int i = distance; i < size; i += 2 * distance) {
                int nblocks = i + distance >= size ? size - i : distance;
                lens[nb] = block * nblocks;
                disp[nb++] = i * block;
                total += block * nblocks;
            }
            if (with_ddt) {
                MPI_Datatype t;
                int pos = 0;
                MPI_Type_indexed(nb, lens, disp, MPI_BYTE, &t);
                MPI_Type_commit(&t);
                MPI_Sendrecv(tmp, 1, t, 0, 7, rb, 1, t, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
                MPI_Pack(rb, 1, t, tmp, size * block, &pos, MPI_COMM_SELF);
                MPI_Type_free(&t);
            } else {
                MPI_Sendrecv(tmp, total, MPI_BYTE, 0, 7, rb, total, MPI_BYTE, 0, 7, MPI_COMM_SELF,
                             MPI_STATUS_IGNORE);
                memcpy(tmp, rb, (size_t)total);
            }
        }
    return (MPI_Wtime() - t0) / reps;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int sizes[2] = {36, 72}, blocks[2] = {1, 8}, reps = 20000;
    char *tmp = malloc(72 * 64), *rb = malloc(72 * 64);
    char *big_in = malloc(72 * 512), *big_out = malloc(72 * 512 + 64);
    if (!tmp || !rb || !big_in || !big_out) {
        fprintf(stderr, "tunesim-ddt-bruck: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(tmp, 1, 72 * 64);
    memset(big_in, 2, 72 * 512);
    memset(big_out, 0, 72 * 512 + 64);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int np = 0;
    printf("# Open MPI's Bruck step: datatype against contiguous, per step (us)\n");
    printf("# ranks block_B blocks_a_step with_ddt contiguous extra_per_step\n");
    for (int si = 0; si < 2; si++)
        for (int bi = 0; bi < 2; bi++) {
            int size = sizes[si], block = blocks[bi], nsteps = 0, nblocks = 0;
            for (int d = 1; d < size; d <<= 1, nsteps++)
                for (int j = 0; j < size; j++)
                    nblocks += (j & d) != 0;           /* the blocks step d sends */
            steps(size, block, 1, reps / 10, tmp, rb); /* warm */
            double ddt = steps(size, block, 1, reps, tmp, rb);
            double flat = steps(size, block, 0, reps, tmp, rb);
            double extra = (ddt - flat) / nsteps, x = (double)nblocks / nsteps;
            printf("%d %d %.2f %.4f %.4f %.4f\n", size, block, x, ddt / nsteps * 1e6,
                   flat / nsteps * 1e6, extra * 1e6);
            sx += x, sy += extra, sxx += x * x, sxy += x * extra, np++;
        }
    double b = (np * sxy - sx * sy) / (np * sxx - sx * sx), a = (sy - b * sx) / np;
    printf("model.coll.bruck_step %.3fus\nmodel.coll.bruck_block %.2fns\n", a * 1e6, b * 1e9);

    volatile copy_fn copy = memcpy; /* ucc_mc_memcpy dispatches through a table */
    printf("# one block copied through a function pointer, 72 blocks scattered (ns)\n");
    double worst = 0;
    for (int block = 1; block <= 64; block *= 8) {
        long n = 200000;
        double t0 = MPI_Wtime();
        for (long r = 0; r < n; r++)
            for (int i = 0; i < 72; i++)
                copy(rb + ((i * 37) % 72) * block, tmp + i * block, (size_t)block);
        double t = (MPI_Wtime() - t0) / n / 72;
        printf("block %d B %.2f\n", block, t * 1e9);
        worst = t > worst ? t : worst;
    }
    printf("model.ucc.block_copy %.2fns\n", worst * 1e9);

    printf("# a buffer of n blocks copied whole, in cache (MB/s)\n");
    double slowest = 0;
    for (int si = 0; si < 2; si++)
        for (int block = 64; block <= 512; block *= 2) {
            size_t bytes = (size_t)sizes[si] * (size_t)block;
            long n = 200000000L / (long)bytes;
            double t0 = MPI_Wtime();
            for (long r = 0; r < n; r++)
                copy(big_out + (r & 1) * 64, big_in, bytes);
            double rate = (double)bytes * (double)n / (MPI_Wtime() - t0);
            printf("%d x %d B %.0f\n", sizes[si], block, rate / 1e6);
            slowest = slowest == 0 || rate < slowest ? rate : slowest;
        }
    printf("model.cpu.copy_bandwidth %.0fMB/s\n", slowest / 1e6);
    free(big_in);
    free(big_out);
    free(tmp);
    free(rb);
    MPI_Finalize();
    return 0;
}
