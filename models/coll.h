/* coll.h - collective operations as Open MPI runs them: which component and algorithm serve a
 * call (tuned's fixed decision rules, HCOLL, HAN, UCC, in priority order), and the algorithm
 * as a schedule of point-to-point messages for one rank, which the replay engine executes
 * through the same protocol models and network as the application's own messages
 * (ARCHITECTURE.md: models/ decides, sim/ executes). Plain C, no SimGrid.
 *
 * A schedule is a list of rounds. In a round the rank posts every send and receive of the
 * round at once, waits for all of them, then spends the round's reduction work (bytes
 * combined, priced by model.cpu.reduce_bandwidth). Pipelined algorithms put segment s's
 * receive and segment s-1's forward in the same round, so segments overlap as in Open MPI.
 * Peers are ranks in the communicator (0..n-1). Sources: reference/openmpi-collectives.md and
 * Open MPI's coll/base algorithms and coll/tuned fixed rules (5.0 tables; their Allreduce
 * table is the one the reference gives for 4.1 and 5.0). */
#ifndef TS_COLL_H
#define TS_COLL_H

#include <stdint.h>
#include <stddef.h>

#include "../common/status.h"
#include "locality.h"
#include "../params/params.h"

/* Who serves a collective. */
typedef enum ts_coll_comp {
    TS_CCOMP_NONE = 0, /* nothing to do: a communicator of one rank, or a handle operation */
    TS_CCOMP_TUNED,
    TS_CCOMP_HCOLL,
    TS_CCOMP_HAN,
    TS_CCOMP_UCC,
    TS_CCOMP__COUNT
} ts_coll_comp;

/* Algorithms, across all operations (Open MPI's names). */
#define TS_COLL_ALG_MAP(X)                                                                         \
    X(NONE, "none")                                                                                \
    X(LINEAR, "linear")                                                                            \
    X(NONOVERLAPPING, "nonoverlapping")                                                            \
    X(RECURSIVE_DOUBLING, "recursive_doubling")                                                    \
    X(RING, "ring")                                                                                \
    X(SEGMENTED_RING, "segmented_ring")                                                            \
    X(RABENSEIFNER, "rabenseifner")                                                                \
    X(CHAIN, "chain")                                                                              \
    X(PIPELINE, "pipeline")                                                                        \
    X(SPLIT_BINARY, "split_binary_tree")                                                           \
    X(BINARY, "binary_tree")                                                                       \
    X(BINOMIAL, "binomial")                                                                        \
    X(KNOMIAL, "knomial")                                                                          \
    X(SCATTER_ALLGATHER, "scatter_allgather")                                                      \
    X(SCATTER_ALLGATHER_RING, "scatter_allgather_ring")                                            \
    X(IN_ORDER_BINARY, "in-order_binary")                                                          \
    X(BRUCK, "bruck")                                                                              \
    X(NEIGHBOR, "neighbor")                                                                        \
    X(TWO_PROC, "two_proc")                                                                        \
    X(PAIRWISE, "pairwise")                                                                        \
    X(LINEAR_SYNC, "linear_sync")                                                                  \
    X(LINEAR_NB, "linear_nb")                                                                      \
    X(DOUBLE_RING, "double_ring")                                                                  \
    X(TREE, "tree")                                                                                \
    X(RECURSIVE_HALVING, "recursive_halving")                                                      \
    X(BUTTERFLY, "butterfly")                                                                      \
    X(HIER, "hierarchical")                                                                        \
    X(KN_RECURSIVE, "knomial_recursive")                                                           \
    X(KN_SRA, "sra_knomial")

typedef enum ts_coll_alg {
#define TS__CALG(id, name) TS_CALG_##id,
    TS_COLL_ALG_MAP(TS__CALG)
#undef TS__CALG
        TS_CALG__COUNT
} ts_coll_alg;

const char *ts_coll_comp_name(int comp); /* "tuned", "hcoll", "han", "ucc", "none" */
const char *ts_coll_alg_name(int alg);

/* ---- placement of a communicator's ranks ------------------------------------------------ */

/* Where each member of a communicator runs, as hierarchical algorithms group them: dense
 * node, socket and NUMA ids (equal ids = same node / socket / domain). */
typedef struct ts_coll_topo_s {
    int32_t n;
    int32_t nnodes;
    int32_t min_socket;            /* members on the socket that holds the fewest of them */
    int32_t *node, *socket, *numa; /* per communicator rank; socket and numa ids are global */
    /* lowest communicator rank sharing the node / socket / NUMA domain of each rank: the
     * group leaders of rootless collectives */
    int32_t *low_node, *low_socket, *low_numa;
} ts_coll_topo_t;

/* Build from the locality of member pairs: loc(ctx, a, b) for world ranks members[a],
 * members[b] (members == NULL: rank i is world rank i). Caller frees with ts_coll_topo_free. */
ts_status ts_coll_topo_new(int32_t n, const int32_t *members,
                           ts_locality (*loc)(const void *ctx, int32_t a, int32_t b),
                           const void *ctx, ts_coll_topo_t **out);
void ts_coll_topo_free(ts_coll_topo_t *t);

/* ---- selection ------------------------------------------------------------------------ */

/* The collective model of one parameter set (components, priorities, forced algorithms,
 * segment sizes, radices); immutable, may serve many replays. */
typedef struct ts_coll_model_s ts_coll_model_t;

ts_status ts_coll_model_new(const ts_params_t *p, ts_coll_model_t **out, ts_error_t *err);
void ts_coll_model_free(ts_coll_model_t *m);

typedef struct ts_coll_choice_s {
    ts_coll_comp comp;
    ts_coll_alg alg;  /* the top-level algorithm (HIER for HCOLL / HAN) */
    uint64_t segsize; /* 0: unsegmented */
    int32_t posts; /* pairwise Alltoall: steps in flight when a window (UCC's num_posts), else 0 */
    int16_t rule;  /* tuned's fixed rule that decided (index in op's table), or -1 */
} ts_coll_choice_t;

/* Which component and algorithm serve op (ts_coll_op) on a communicator of n ranks spread
 * over nnodes nodes, for the per-rank payload bytes (ts_coll_payload), as Open MPI decides.
 * Called per call: it formats nothing (see ts_coll_choice_why). */
void ts_coll_select(const ts_coll_model_t *m, int op, int32_t n, int32_t nnodes, uint64_t bytes,
                    ts_coll_choice_t *out);

/* Whether Open MPI returns from a call of op at once, moving nothing and waiting for no one,
 * when the call has no data: its MPI layer (ompi/mpi/c/<op>.c, 4.1 and 5.0) checks the counts
 * before any component sees the call, for Bcast, Gather, Scatter, Allgather, Allgatherv (every
 * count 0), Alltoall, Allreduce, Reduce, Reduce_scatter (every count 0), Reduce_scatter_block,
 * Scan and Exscan, and of the non-blocking forms (nonblocking != 0) for Iallreduce, Ibcast,
 * Ireduce and Ireduce_scatter(_block). Barrier and the v-forms of Alltoall, Gather and Scatter
 * run whatever their counts. */
int ts_coll_empty_returns(int op, int nonblocking);

/* Whether component c posts its messages on UCX's tag API itself, past Open MPI's pml (HCOLL's
 * ucx_p2p level, UCC's tl/ucp): its receives do not pay model.ucx.pml_recv. */
static inline int ts_coll_comp_skips_pml(ts_coll_comp c)
{
    return c == TS_CCOMP_HCOLL || c == TS_CCOMP_UCC;
}

/* Why c was chosen, for reports: "hcoll: priority 90", "forced: coll_tuned_..._algorithm=4",
 * "fixed rule: 64-127 ranks, 0B-256KB", ... (m and op as given to ts_coll_select). */
void ts_coll_choice_why(const ts_coll_model_t *m, int op, const ts_coll_choice_t *c, char *buf,
                        size_t len);

/* tuned's fixed decision alone: Open MPI's algorithm number (1-based, as in
 * coll_tuned_<coll>_algorithm) for op at n ranks and bytes; 0 for ops tuned has no rule for. */
int ts_coll_tuned_fixed(int op, int32_t n, uint64_t bytes);

/* Seconds a rank spends combining `bytes` of reduction data (model.cpu.reduce_bandwidth). */
double ts_coll_reduce_seconds(const ts_coll_model_t *m, uint64_t bytes);

/* ---- schedules ------------------------------------------------------------------------ */

typedef enum ts_cstep_kind {
    TS_CSTEP_SEND = 0, /* peer, bytes */
    TS_CSTEP_RECV,     /* peer, bytes */
    TS_CSTEP_END,      /* end of a round: wait for its messages, then reduce `bytes` */
    TS_CSTEP_CPU,      /* CPU spent at this point of the round besides messages and
                        * reductions (a datatype built, a block copied); `bytes` holds its
                        * picoseconds */
    TS_CSTEP_RECV_NEXT /* peer, bytes: a receive posted in this round and waited for at the
                        * end of the next (Open MPI's reduce posts a child's receive while it
                        * waits for the child before) */
} ts_cstep_kind;

/* ts_cstep_t.shared: how a step of HCOLL's shared-memory levels moves its data (not as an MPI
 * message). */
enum {
    TS_SM_NONE = 0, /* an MPI message */
    TS_SM_COPY = 1, /* copied into the segment by the sender and out by the receiver */
    TS_SM_READ = 2, /* already in the sender's buffer: the receiver's copy only */
    TS_SM_WRITE = 3 /* copied in by the sender; the receiver reduces it in place, no copy out */
};

typedef struct ts_cstep_s {
    uint8_t kind;
    uint8_t shared;     /* SEND: TS_SM_* */
    uint8_t registered; /* SEND: from and into buffers registered before (HCOLL's own) */
    int32_t peer;       /* communicator rank */
    uint64_t bytes;
} ts_cstep_t;

/* One rank's schedule; reuse one across calls (ts_coll_schedule clears it). */
typedef struct ts_csched_s {
    ts_cstep_t *step;
    size_t n, cap;
    int32_t rounds;
} ts_csched_t;

void ts_csched_free(ts_csched_t *s);

/* The schedule of communicator rank me for op, served as choice says, on topo (n ranks),
 * root (communicator rank, or -1 for rootless ops), per-rank payload bytes. TS_ENOMEM, or
 * TS_EARG when the choice does not apply to op (a forced algorithm of another collective). */
ts_status ts_coll_schedule(const ts_coll_model_t *m, const ts_coll_choice_t *choice, int op,
                           const ts_coll_topo_t *topo, int32_t me, int32_t root, uint64_t bytes,
                           ts_csched_t *out);

#endif
