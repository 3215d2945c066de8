/* ucp_percall.c - what Open MPI's pml ucx adds to a receive, measured beside UCX's own tag API.
 *
 *   mpirun -np 2 [--bind-to core] tunesim-ucp-percall [-o FILE]
 *
 * HCOLL and UCC post their point-to-point messages on UCX's tag API themselves
 * (ucp_tag_send_nbx / ucp_tag_recv_nbx with a completion callback) and progress the UCX worker
 * in their own loop; Open MPI's own collectives (tuned, HAN) and the application go through
 * MPI_Irecv / MPI_Waitall and the pml. This program times, on rank 0 and in the same run, the
 * completion of messages that arrived while rank 0 made no call, both ways:
 *   MPI:  MPI_Waitall over posted MPI_Irecv requests (tunesim-probe --percall's third column);
 *   UCP:  ucp_worker_progress until the callbacks of posted ucp_tag_recv_nbx requests counted
 *         them all, on a UCP worker of this program's own (addresses exchanged over MPI).
 * The difference per message is the pml's share of model.ucx.recv_call, which messages of HCOLL
 * and UCC schedules do not pay (model.coll.direct_recv_saving). Output: one line a size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

enum { N = 128, BLOCKS = 7 };
static const size_t SIZES[] = {8, 64, 1024};

static int done_count;

static void on_recv(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *user)
{
    (void)req, (void)st, (void)info, (void)user;
    done_count++;
}

static void on_send(void *req, ucs_status_t st, void *user)
{
    (void)req, (void)st, (void)user;
}

static void die(const char *what)
{
    fprintf(stderr, "tunesim-ucp-percall: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else
            die("usage: mpirun -np 2 tunesim-ucp-percall [-o FILE]");
    if (np != 2)
        die("needs exactly 2 ranks");
    int peer = 1 - me;

    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};
    ucp_context_h ctx;
    if (ucp_init(&params, NULL, &ctx) != UCS_OK)
        die("ucp_init failed");
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    ucp_worker_h worker;
    if (ucp_worker_create(ctx, &wp, &worker) != UCS_OK)
        die("ucp_worker_create failed");
    ucp_address_t *addr;
    size_t alen;
    if (ucp_worker_get_address(worker, &addr, &alen) != UCS_OK)
        die("ucp_worker_get_address failed");
    unsigned long mine = alen, theirs = 0;
    MPI_Sendrecv(&mine, 1, MPI_UNSIGNED_LONG, peer, 1, &theirs, 1, MPI_UNSIGNED_LONG, peer, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *raddr = malloc(theirs);
    if (!raddr)
        die("out of memory");
    MPI_Sendrecv(addr, (int)alen, MPI_BYTE, peer, 2, raddr, (int)theirs, MPI_BYTE, peer, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ucp_ep_params_t ep_params = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                                 .address = (const ucp_address_t *)raddr};
    ucp_ep_h ep;
    if (ucp_ep_create(worker, &ep_params, &ep) != UCS_OK)
        die("ucp_ep_create failed");

    size_t maxsz = SIZES[sizeof SIZES / sizeof SIZES[0] - 1];
    char *buf = calloc(N, maxsz);
    static void *ureq[N];
    static MPI_Request mreq[N];
    if (!buf)
        die("out of memory");
    /* The report is kept in memory and written whole at the end: a failed run leaves no
     * half-written file. */
    char report[1024];
    size_t used = (size_t)snprintf(report, sizeof report,
                                   "# tunesim-ucp-percall: completion of %d arrived messages on "
                                   "rank 0, best of %d blocks\n# Size   MPI_Waitall per request "
                                   "(us)   UCP progress per request (us)   pml share (us)\n",
                                   N, BLOCKS);
    for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
        size_t size = SIZES[s];
        double best_mpi = 1e9, best_ucp = 1e9;
        for (int blk = 0; blk < BLOCKS + 1; blk++) { /* the first block warms up */
            /* MPI: rank 0 posts, rank 1 sends, rank 0 completes them after they arrived. */
            if (me == 0)
                for (int i = 0; i < N; i++)
                    MPI_Irecv(buf + i * size, (int)size, MPI_CHAR, 1, 7, MPI_COMM_WORLD, &mreq[i]);
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 1) {
                for (int i = 0; i < N; i++)
                    MPI_Isend(buf + i * size, (int)size, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &mreq[i]);
                MPI_Waitall(N, mreq, MPI_STATUSES_IGNORE);
            } else {
                usleep(20000);
                double t0 = MPI_Wtime();
                MPI_Waitall(N, mreq, MPI_STATUSES_IGNORE);
                double t = (MPI_Wtime() - t0) / N;
                if (blk > 0 && t < best_mpi)
                    best_mpi = t;
            }
            MPI_Barrier(MPI_COMM_WORLD);
            /* UCP: the same on this program's own worker, completion by callback. */
            done_count = 0;
            if (me == 0)
                for (int i = 0; i < N; i++) {
                    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
                                              .cb.recv = on_recv};
                    ureq[i] = ucp_tag_recv_nbx(worker, buf + i * size, size, 7, ~(ucp_tag_t)0, &rp);
                    if (UCS_PTR_IS_ERR(ureq[i]))
                        die("ucp_tag_recv_nbx failed");
                }
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 1) {
                for (int i = 0; i < N; i++) {
                    ucp_request_param_t sp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
                                              .cb.send = on_send};
                    ureq[i] = ucp_tag_send_nbx(ep, buf + i * size, size, 7, &sp);
                    if (UCS_PTR_IS_ERR(ureq[i]))
                        die("ucp_tag_send_nbx failed");
                }
                for (int i = 0; i < N; i++)
                    if (UCS_PTR_IS_PTR(ureq[i])) {
                        while (ucp_request_check_status(ureq[i]) == UCS_INPROGRESS)
                            ucp_worker_progress(worker);
                        ucp_request_free(ureq[i]);
                    }
            } else {
                usleep(20000);
                double t0 = MPI_Wtime();
                while (done_count < N)
                    ucp_worker_progress(worker);
                for (int i = 0; i < N; i++)
                    if (UCS_PTR_IS_PTR(ureq[i]))
                        ucp_request_free(ureq[i]);
                double t = (MPI_Wtime() - t0) / N;
                if (blk > 0 && t < best_ucp)
                    best_ucp = t;
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (me == 0 && used < sizeof report)
            used += (size_t)snprintf(report + used, sizeof report - used,
                                     "%-8zu %27.3f %30.3f %16.3f\n", size, best_mpi * 1e6,
                                     best_ucp * 1e6, (best_mpi - best_ucp) * 1e6);
    }
    if (me == 0 && !out_path)
        fputs(report, stdout);
    if (me == 0 && out_path) {
        FILE *out = fopen(out_path, "w");
        int ok = out && fputs(report, out) >= 0;
        if (out && fclose(out) != 0)
            ok = 0;
        if (!ok) {
            char msg[1200];
            remove(out_path);
            snprintf(msg, sizeof msg, "%s: cannot write the report there", out_path);
            die(msg);
        }
    }
    /* Keep the peer's endpoint until both are done with it. */
    MPI_Barrier(MPI_COMM_WORLD);
    ucp_ep_destroy(ep);
    ucp_worker_release_address(worker, addr);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    free(raddr);
    free(buf);
    MPI_Finalize();
    return 0;
}
