/* coll.c - collective selection (see coll.h): the tuned fixed-rule tables (data), the model
 * built from the parameter table, the selection by component priority, and the placement
 * groups. The schedules are built by coll_blocks.c, coll_recursive.c,
 * coll_families.c, coll_flat.c and coll_hier.c. */
#include "coll_impl.h"

#include "../common/grow.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../traces/events.h"

const char *ts_coll_comp_name(int comp)
{
    static const char *const names[TS_CCOMP__COUNT] = {"none", "tuned", "hcoll", "han", "ucc"};
    return comp >= 0 && comp < TS_CCOMP__COUNT ? names[comp] : "?";
}

const char *ts_coll_alg_name(int alg)
{
    static const char *const names[TS_CALG__COUNT] = {
#define TS__CALG_NAME(id, name) name,
        TS_COLL_ALG_MAP(TS__CALG_NAME)
#undef TS__CALG_NAME
    };
    return alg >= 0 && alg < TS_CALG__COUNT ? names[alg] : "?";
}

/* ---- tuned's fixed decision rules ------------------------------------------------------ *
 * One row per (communicator band, size band): the first row whose band holds n (n < comm_lt)
 * and then bytes (bytes < size_lt) gives Open MPI's algorithm number. Transcribed from Open
 * MPI 5.0's coll_tuned_decision_fixed.c (commutative operations: MPI_SUM, what OpenFOAM
 * reduces with); the Allreduce rows are those of reference/openmpi-collectives.md. */
typedef struct rule_s {
    int32_t comm_lt;
    uint64_t size_lt;
    uint8_t alg;
} rule_t;

#define ANY UINT64_MAX
#define ALL INT32_MAX

static const rule_t R_ALLREDUCE[] = {
    {4, 8, 4},        {4, 4096, 3},   {4, 8192, 4},     {4, 16384, 3},   {4, 65536, 4},
    {4, 262144, 5},   {4, ANY, 6},    {8, 16, 4},       {8, 8192, 3},    {8, ANY, 6},
    {16, 8192, 3},    {16, ANY, 6},   {32, 64, 5},      {32, 4096, 3},   {32, ANY, 6},
    {64, 128, 5},     {64, ANY, 6},   {128, 262144, 3}, {128, ANY, 6},   {256, 131072, 2},
    {256, 262144, 3}, {256, ANY, 6},  {512, 4096, 2},   {512, ANY, 6},   {2048, 2048, 2},
    {2048, 16384, 3}, {2048, ANY, 6}, {4096, 2048, 2},  {4096, 4096, 5}, {4096, 16384, 3},
    {4096, ANY, 6},   {ALL, 2048, 2}, {ALL, 16384, 5},  {ALL, 32768, 3}, {ALL, ANY, 6}};
static const rule_t R_ALLTOALL[] = {
    {3, 2, 2},         {3, 4, 5},         {3, 16, 2},      {3, 64, 5},       {3, 256, 2},
    {3, 4096, 5},      {3, 32768, 2},     {3, 262144, 4},  {3, 1048576, 5},  {3, ANY, 2},
    {8, 8192, 4},      {8, 16384, 1},     {8, 65536, 4},   {8, 524288, 1},   {8, 1048576, 2},
    {8, ANY, 1},       {16, 262144, 4},   {16, ANY, 1},    {32, 4, 4},       {32, 512, 3},
    {32, 8192, 4},     {32, 32768, 1},    {32, 262144, 4}, {32, 524288, 1},  {32, ANY, 4},
    {64, 512, 3},      {64, 524288, 1},   {64, ANY, 4},    {128, 1024, 3},   {128, 2048, 1},
    {128, 4096, 4},    {128, 262144, 1},  {128, ANY, 2},   {256, 1024, 3},   {256, 2048, 4},
    {256, 262144, 1},  {256, ANY, 2},     {512, 1024, 3},  {512, 8192, 4},   {512, 32768, 1},
    {512, ANY, 2},     {1024, 512, 3},    {1024, 8192, 4}, {1024, 16384, 1}, {1024, 131072, 4},
    {1024, 262144, 1}, {1024, ANY, 2},    {2048, 512, 3},  {2048, 1024, 4},  {2048, 2048, 1},
    {2048, 16384, 4},  {2048, 262144, 1}, {2048, ANY, 4},  {4096, 1024, 3},  {4096, 4096, 4},
    {4096, 8192, 1},   {4096, 131072, 4}, {4096, ANY, 1},  {ALL, 2048, 3},   {ALL, 8192, 4},
    {ALL, 16384, 1},   {ALL, 32768, 4},   {ALL, 65536, 1}, {ALL, ANY, 4}};
static const rule_t R_ALLTOALLV[] = {{4, ANY, 2},   {64, ANY, 1},   {128, ANY, 2},
                                     {256, ANY, 1}, {1024, ANY, 2}, {ALL, ANY, 1}};
static const rule_t R_BARRIER[] = {{4, ANY, 3},   {8, ANY, 1},    {64, ANY, 3},   {256, ANY, 4},
                                   {512, ANY, 6}, {1024, ANY, 4}, {4096, ANY, 6}, {ALL, ANY, 4}};
static const rule_t R_BCAST[] = {
    {4, 32, 3},      {4, 256, 5},       {4, 512, 3},      {4, 1024, 7},      {4, 32768, 1},
    {4, 131072, 5},  {4, 262144, 2},    {4, 524288, 1},   {4, 1048576, 6},   {4, ANY, 5},
    {8, 64, 5},      {8, 128, 6},       {8, 2048, 5},     {8, 8192, 6},      {8, 1048576, 1},
    {8, ANY, 2},     {16, 8, 7},        {16, 64, 5},      {16, 4096, 7},     {16, 16384, 5},
    {16, 32768, 6},  {16, ANY, 1},      {32, 4096, 7},    {32, 1048576, 6},  {32, ANY, 8},
    {64, 2048, 6},   {64, ANY, 7},      {128, ANY, 7},    {256, 2, 6},       {256, 16384, 5},
    {256, 32768, 1}, {256, 65536, 5},   {256, ANY, 7},    {1024, 16384, 7},  {1024, 32768, 4},
    {1024, ANY, 7},  {2048, 524288, 7}, {2048, ANY, 8},   {4096, 262144, 7}, {4096, ANY, 8},
    {ALL, 8192, 7},  {ALL, 16384, 5},   {ALL, 262144, 7}, {ALL, ANY, 8}};
static const rule_t R_REDUCE[] = {
    {4, 8, 7},        {4, 16, 4},      {4, 32, 3},      {4, 262144, 1},  {4, 524288, 3},
    {4, 1048576, 2},  {4, ANY, 3},     {8, 4096, 4},    {8, 65536, 2},   {8, 262144, 5},
    {8, 524288, 1},   {8, 1048576, 5}, {8, ANY, 1},     {16, 8192, 4},   {16, ANY, 5},
    {32, 4096, 4},    {32, ANY, 5},    {256, ANY, 5},   {512, 8192, 5},  {512, 16384, 6},
    {512, ANY, 5},    {2048, ANY, 5},  {4096, 512, 5},  {4096, 1024, 6}, {4096, 8192, 5},
    {4096, 16384, 6}, {4096, ANY, 5},  {ALL, 16, 5},    {ALL, 32, 6},    {ALL, 1024, 5},
    {ALL, 2048, 6},   {ALL, 8192, 5},  {ALL, 16384, 6}, {ALL, ANY, 5}};
static const rule_t R_REDUCE_SCATTER[] = {
    {4, 65536, 3},    {4, 131072, 4},   {4, ANY, 3},    {8, 8, 1},      {8, 262144, 2},
    {8, ANY, 3},      {32, 262144, 2},  {32, ANY, 3},   {64, 64, 1},    {64, 2048, 2},
    {64, 524288, 4},  {64, ANY, 3},     {128, 256, 1},  {128, 512, 2},  {128, 2048, 4},
    {128, 4096, 2},   {128, ANY, 4},    {256, 256, 1},  {256, 512, 2},  {256, ANY, 4},
    {512, 256, 1},    {512, 1024, 2},   {512, ANY, 4},  {1024, 512, 1}, {1024, 2048, 2},
    {1024, 8192, 4},  {1024, 16384, 2}, {1024, ANY, 4}, {2048, 512, 1}, {2048, 4096, 2},
    {2048, 16384, 4}, {2048, 32768, 2}, {2048, ANY, 4}, {4096, 512, 1}, {4096, 4096, 2},
    {4096, ANY, 4},   {ALL, 1024, 1},   {ALL, 8192, 2}, {ALL, ANY, 4}};
static const rule_t R_ALLGATHER[] = {
    {3, ANY, 6},      {32, ANY, 3},      {64, 1024, 3},    {64, 65536, 5},    {64, ANY, 4},
    {128, 512, 3},    {128, 65536, 5},   {128, ANY, 4},    {256, 512, 3},     {256, 131072, 5},
    {256, 524288, 4}, {256, 1048576, 5}, {256, ANY, 4},    {512, 32, 3},      {512, 128, 2},
    {512, 1024, 3},   {512, 131072, 5},  {512, 524288, 4}, {512, 1048576, 5}, {512, ANY, 4},
    {1024, 64, 3},    {1024, 256, 2},    {1024, 2048, 3},  {1024, ANY, 5},    {2048, 4, 3},
    {2048, 8, 2},     {2048, 16, 3},     {2048, 32, 2},    {2048, 256, 3},    {2048, 512, 2},
    {2048, 4096, 3},  {2048, ANY, 5},    {4096, 32, 2},    {4096, 128, 3},    {4096, 512, 2},
    {4096, 4096, 3},  {4096, ANY, 5},    {ALL, 2, 3},      {ALL, 8, 2},       {ALL, 16, 3},
    {ALL, 512, 2},    {ALL, 4096, 3},    {ALL, ANY, 5}};
static const rule_t R_ALLGATHERV[] = {
    {3, 2048, 3},   {3, 4096, 5},   {3, 8192, 3},    {3, ANY, 5},     {8, 256, 1},
    {8, 4096, 4},   {8, 8192, 3},   {8, 16384, 4},   {8, 262144, 2},  {8, ANY, 4},
    {16, 1024, 1},  {16, ANY, 2},   {32, 128, 1},    {32, 262144, 2}, {32, ANY, 3},
    {64, 256, 1},   {64, 8192, 2},  {64, ANY, 3},    {128, 256, 1},   {128, 4096, 2},
    {128, ANY, 3},  {256, 1024, 2}, {256, 65536, 4}, {256, ANY, 3},   {512, 1024, 2},
    {512, ANY, 3},  {1024, 512, 2}, {1024, 1024, 1}, {1024, 4096, 2}, {1024, 1048576, 4},
    {1024, ANY, 3}, {ALL, 4096, 2}, {ALL, ANY, 4}};
static const rule_t R_GATHER[] = {{4, 2, 3},      {4, 4, 1},      {4, 32768, 2}, {4, 65536, 1},
                                  {4, 131072, 2}, {4, ANY, 3},    {8, 1024, 2},  {8, 8192, 1},
                                  {8, 32768, 2},  {8, 262144, 1}, {8, ANY, 3},   {256, ANY, 2},
                                  {512, 2048, 2}, {512, 8192, 1}, {512, ANY, 2}, {ALL, ANY, 2}};
static const rule_t R_SCATTER[] = {
    {4, 2, 3},      {4, 131072, 1}, {4, 262144, 3},  {4, ANY, 1},  {8, 2048, 2},   {8, 4096, 1},
    {8, 8192, 2},   {8, 32768, 1},  {8, 1048576, 3}, {8, ANY, 1},  {16, 16384, 2}, {16, 1048576, 3},
    {16, ANY, 1},   {32, 16384, 2}, {32, 32768, 1},  {32, ANY, 3}, {64, 512, 2},   {64, 8192, 3},
    {64, 16384, 2}, {64, ANY, 3},   {ALL, 512, 2},   {ALL, ANY, 3}};

/* Open MPI's algorithm numbers per collective, as coll_tuned_<coll>_algorithm counts them. */
#define MAXALG 10
typedef struct tuned_coll_s {
    const rule_t *rules;
    size_t nrules;
    ts_param_id forced;      /* coll_tuned_<coll>_algorithm */
    ts_coll_alg alg[MAXALG]; /* index = Open MPI's number; 0 unused */
} tuned_coll_t;

#define RULES(r) r, sizeof r / sizeof r[0]
static const tuned_coll_t *tuned_of(int op)
{
    static const tuned_coll_t allreduce = {RULES(R_ALLREDUCE),
                                           TS_P_MCA_COLL_TUNED_ALLREDUCE_ALG,
                                           {0, TS_CALG_LINEAR, TS_CALG_NONOVERLAPPING,
                                            TS_CALG_RECURSIVE_DOUBLING, TS_CALG_RING,
                                            TS_CALG_SEGMENTED_RING, TS_CALG_RABENSEIFNER}};
    static const tuned_coll_t bcast = {RULES(R_BCAST),
                                       TS_P_MCA_COLL_TUNED_BCAST_ALG,
                                       {0, TS_CALG_LINEAR, TS_CALG_CHAIN, TS_CALG_PIPELINE,
                                        TS_CALG_SPLIT_BINARY, TS_CALG_BINARY, TS_CALG_BINOMIAL,
                                        TS_CALG_KNOMIAL, TS_CALG_SCATTER_ALLGATHER,
                                        TS_CALG_SCATTER_ALLGATHER_RING}};
    static const tuned_coll_t reduce = {RULES(R_REDUCE),
                                        TS_P_MCA_COLL_TUNED_REDUCE_ALG,
                                        {0, TS_CALG_LINEAR, TS_CALG_CHAIN, TS_CALG_PIPELINE,
                                         TS_CALG_BINARY, TS_CALG_BINOMIAL, TS_CALG_IN_ORDER_BINARY,
                                         TS_CALG_RABENSEIFNER}};
    static const tuned_coll_t allgather = {RULES(R_ALLGATHER),
                                           TS_P_MCA_COLL_TUNED_ALLGATHER_ALG,
                                           {0, TS_CALG_LINEAR, TS_CALG_BRUCK,
                                            TS_CALG_RECURSIVE_DOUBLING, TS_CALG_RING,
                                            TS_CALG_NEIGHBOR, TS_CALG_TWO_PROC}};
    static const tuned_coll_t allgatherv = {
        RULES(R_ALLGATHERV),
        TS_P_MCA_COLL_TUNED_ALLGATHERV_ALG,
        {0, TS_CALG_LINEAR, TS_CALG_BRUCK, TS_CALG_RING, TS_CALG_NEIGHBOR, TS_CALG_TWO_PROC}};
    static const tuned_coll_t alltoall = {RULES(R_ALLTOALL),
                                          TS_P_MCA_COLL_TUNED_ALLTOALL_ALG,
                                          {0, TS_CALG_LINEAR, TS_CALG_PAIRWISE, TS_CALG_BRUCK,
                                           TS_CALG_LINEAR_SYNC, TS_CALG_TWO_PROC}};
    static const tuned_coll_t alltoallv = {RULES(R_ALLTOALLV),
                                           TS_P_MCA_COLL_TUNED_ALLTOALLV_ALG,
                                           {0, TS_CALG_LINEAR, TS_CALG_PAIRWISE}};
    static const tuned_coll_t barrier = {RULES(R_BARRIER),
                                         TS_P_MCA_COLL_TUNED_BARRIER_ALG,
                                         {0, TS_CALG_LINEAR, TS_CALG_DOUBLE_RING,
                                          TS_CALG_RECURSIVE_DOUBLING, TS_CALG_BRUCK,
                                          TS_CALG_TWO_PROC, TS_CALG_TREE}};
    static const tuned_coll_t gather = {RULES(R_GATHER),
                                        TS_P_MCA_COLL_TUNED_GATHER_ALG,
                                        {0, TS_CALG_LINEAR, TS_CALG_BINOMIAL, TS_CALG_LINEAR_SYNC}};
    static const tuned_coll_t scatter = {RULES(R_SCATTER),
                                         TS_P_MCA_COLL_TUNED_SCATTER_ALG,
                                         {0, TS_CALG_LINEAR, TS_CALG_BINOMIAL, TS_CALG_LINEAR_NB}};
    static const tuned_coll_t reduce_scatter = {
        RULES(R_REDUCE_SCATTER),
        TS_P_MCA_COLL_TUNED_REDUCE_SCATTER_ALG,
        {0, TS_CALG_NONOVERLAPPING, TS_CALG_RECURSIVE_HALVING, TS_CALG_RING, TS_CALG_BUTTERFLY}};
    switch (op) {
    case TS_COLL_ALLREDUCE:
        return &allreduce;
    case TS_COLL_BCAST:
        return &bcast;
    case TS_COLL_REDUCE:
        return &reduce;
    case TS_COLL_ALLGATHER:
        return &allgather;
    case TS_COLL_ALLGATHERV:
        return &allgatherv;
    case TS_COLL_ALLTOALL:
        return &alltoall;
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
        return &alltoallv;
    case TS_COLL_BARRIER:
        return &barrier;
    case TS_COLL_GATHER:
        return &gather;
    case TS_COLL_SCATTER:
        return &scatter;
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        return &reduce_scatter;
    default:
        return NULL; /* Gatherv, Scatterv, Scan, Exscan: coll/basic's linear algorithm */
    }
}

/* The index of the rule for (n, bytes). Every table ends with {ALL, ANY}, so one applies. */
static int rule_find(const tuned_coll_t *tc, int32_t n, uint64_t bytes)
{
    size_t i = 0;
    while (i + 1 < tc->nrules && !(n < tc->rules[i].comm_lt && bytes < tc->rules[i].size_lt))
        i++;
    return (int)i;
}

/* The lower ends of rule i's communicator and size bands (for reports). */
static void rule_bounds(const tuned_coll_t *tc, int i, int32_t *lo_n, uint64_t *lo_b)
{
    int first = i; /* the first rule of i's communicator band */
    while (first > 0 && tc->rules[first - 1].comm_lt == tc->rules[i].comm_lt)
        first--;
    *lo_n = first > 0 ? tc->rules[first - 1].comm_lt : 0;
    *lo_b = i > first ? tc->rules[i - 1].size_lt : 0;
}

int ts_coll_tuned_fixed(int op, int32_t n, uint64_t bytes)
{
    const tuned_coll_t *tc = tuned_of(op);
    return tc ? tc->rules[rule_find(tc, n, bytes)].alg : 0;
}

/* ---- the model ------------------------------------------------------------------------ */

static int clamp_radix(int64_t v, int lo)
{
    return v < lo ? lo : v > 64 ? 64 : (int)v;
}

ts_status ts_coll_model_new(const ts_params_t *p, ts_coll_model_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_coll_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    m->enabled[TS_CCOMP_TUNED] = 1;
    m->enabled[TS_CCOMP_HCOLL] = TS_PARAM_BOOL(p, MCA_COLL_HCOLL_ENABLE);
    m->enabled[TS_CCOMP_UCC] = TS_PARAM_BOOL(p, MCA_COLL_UCC_ENABLE);
    m->prio[TS_CCOMP_TUNED] = TS_PARAM_INT(p, MCA_COLL_TUNED_PRIORITY);
    m->prio[TS_CCOMP_HCOLL] = TS_PARAM_INT(p, MCA_COLL_HCOLL_PRIORITY);
    m->prio[TS_CCOMP_UCC] = TS_PARAM_INT(p, MCA_COLL_UCC_PRIORITY);
    m->prio[TS_CCOMP_HAN] = TS_PARAM_INT(p, MCA_COLL_HAN_PRIORITY);
    /* Open MPI skips a component whose priority is negative; HAN's 0 in 4.1 means off. */
    m->enabled[TS_CCOMP_HAN] = m->prio[TS_CCOMP_HAN] > 0;
    m->dynamic = TS_PARAM_BOOL(p, MCA_COLL_TUNED_DYNAMIC);
    for (int op = 0; op < TS_COLL__COUNT; op++) {
        const tuned_coll_t *tc = tuned_of(op);
        if (!tc)
            continue;
        int64_t v = ts_params_int(p, tc->forced);
        if (v < 0 || v >= MAXALG || (v > 0 && tc->alg[v] == TS_CALG_NONE)) {
            free(m);
            return ts_error_set(err, TS_EARG, "%s=%lld: no such algorithm (see tunesim params)",
                                ts_param_def(tc->forced)->name, (long long)v);
        }
        m->forced[op] = (int)v;
    }
    m->segsize[TS_COLL_ALLREDUCE] = TS_PARAM_SIZE(p, MCA_COLL_TUNED_ALLREDUCE_SEG);
    m->segsize[TS_COLL_BCAST] = TS_PARAM_SIZE(p, MCA_COLL_TUNED_BCAST_SEG);
    m->segsize[TS_COLL_REDUCE] = TS_PARAM_SIZE(p, MCA_COLL_TUNED_REDUCE_SEG);
    /* no inf: Open MPI's MCA sizes are numbers, and the parser refuses it (0: unsegmented) */
    int64_t elem = TS_PARAM_INT(p, COLL_DATATYPE_SIZE);
    m->elem = elem > 0 ? (uint64_t)elem : 1;
    m->chain_fanout = clamp_radix(TS_PARAM_INT(p, COLL_CHAIN_FANOUT), 1);
    m->knomial_radix = clamp_radix(TS_PARAM_INT(p, COLL_KNOMIAL_RADIX), 2);
    m->sm_radix = clamp_radix(TS_PARAM_INT(p, HCOLL_SM_RADIX), 2);
    m->net_radix = clamp_radix(TS_PARAM_INT(p, HCOLL_NET_RADIX), 2);
    m->ucc_radix = clamp_radix(TS_PARAM_INT(p, UCC_RADIX), 2);
    m->ucc_barrier_radix = clamp_radix(TS_PARAM_INT(p, UCC_BARRIER_RADIX), 2);
    int64_t usra = TS_PARAM_INT(p, UCC_SRA_RADIX);
    m->ucc_sra_radix = usra == 0 ? 0 : clamp_radix(usra, 2); /* 0: auto (coll_hier.c) */
    int64_t uag = TS_PARAM_INT(p, UCC_AG_RADIX);
    m->ucc_ag_radix = uag == 0 ? 0 : clamp_radix(uag, 2);            /* 0: auto (coll_hier.c) */
    m->ucc_a2a_posts = (int32_t)TS_PARAM_INT(p, UCC_ALLTOALL_POSTS); /* 0-2^20 */
    m->ucc_a2av_posts = (int32_t)TS_PARAM_INT(p, UCC_ALLTOALLV_POSTS);
    m->hcoll_by_numa = strcmp(TS_PARAM_ENUM(p, HCOLL_GROUP), "numa") == 0;
    m->hcoll_shared = strcmp(TS_PARAM_ENUM(p, HCOLL_SM_LEVELS), "shared") == 0;
    m->hcoll_net_reg = strcmp(TS_PARAM_ENUM(p, HCOLL_NET_BUFFERS), "registered") == 0;
    m->hcoll_payload = strcmp(TS_PARAM_ENUM(p, HCOLL_SM_BUFFERS), "payload") == 0;
    uint64_t frag = TS_PARAM_SIZE(p, HCOLL_SM_FRAGMENT);
    m->hcoll_sm_frag = frag >= TS_SIZE_INF ? 0 : frag;
    m->hcoll_sm_pieces = (int32_t)TS_PARAM_INT(p, HCOLL_SM_FRAGMENTS_MAX); /* 1-4096 */
    uint64_t seg = TS_PARAM_SIZE(p, HAN_SEGMENT);
    m->han_segment = seg >= TS_SIZE_INF ? 0 : seg;
    m->hcoll_large = TS_PARAM_SIZE(p, HCOLL_ALLREDUCE_LARGE);
    if (m->hcoll_large >= TS_SIZE_INF)
        m->hcoll_large = UINT64_MAX;
    const char *a2a = TS_PARAM_ENUM(p, HCOLL_ALLTOALL);
    m->hcoll_a2a = strcmp(a2a, "tuned") == 0   ? HCOLL_A2A_TUNED
                   : strcmp(a2a, "bruck") == 0 ? HCOLL_A2A_BRUCK
                                               : HCOLL_A2A_PAIRWISE;
    m->hcoll_a2a_pairwise = TS_PARAM_SIZE(p, HCOLL_ALLTOALL_PAIRWISE);
    if (m->hcoll_a2a_pairwise >= TS_SIZE_INF)
        m->hcoll_a2a_pairwise = UINT64_MAX;
    int64_t sra = TS_PARAM_INT(p, HCOLL_SRA_RADIX);
    m->hcoll_sra_radix = sra == 0 ? 0 : clamp_radix(sra, 2); /* 0: auto (coll_hier.c) */
    m->bruck_step = TS_PARAM_SECONDS(p, COLL_BRUCK_STEP);
    m->bruck_block = TS_PARAM_SECONDS(p, COLL_BRUCK_BLOCK);
    m->copy_bw = TS_PARAM_BW(p, CPU_COPY_BW);
    m->ucc_block_copy = TS_PARAM_SECONDS(p, UCC_BLOCK_COPY);
    m->reduce_bw = TS_PARAM_BW(p, CPU_REDUCE_BW);
    if (m->reduce_bw <= 0) {
        free(m);
        return ts_error_set(err, TS_EARG, "model.cpu.reduce_bandwidth must be a positive rate");
    }
    *out = m;
    return TS_OK;
}

void ts_coll_model_free(ts_coll_model_t *m)
{
    free(m);
}

double ts_coll_reduce_seconds(const ts_coll_model_t *m, uint64_t bytes)
{
    return (double)bytes / m->reduce_bw;
}

/* ---- selection ------------------------------------------------------------------------ */

/* Which operations each component provides (as far as public material shows; the rest
 * fall through to the next component by priority, in the end tuned). */
static int provides(ts_coll_comp c, int op)
{
    switch (c) {
    case TS_CCOMP_TUNED:
        return 1;
    case TS_CCOMP_HCOLL:
        return op == TS_COLL_BARRIER || op == TS_COLL_BCAST || op == TS_COLL_ALLREDUCE ||
               op == TS_COLL_REDUCE || op == TS_COLL_ALLGATHER || op == TS_COLL_ALLGATHERV ||
               op == TS_COLL_ALLTOALL || op == TS_COLL_ALLTOALLV;
    case TS_CCOMP_HAN:
        return op == TS_COLL_BARRIER || op == TS_COLL_BCAST || op == TS_COLL_ALLREDUCE ||
               op == TS_COLL_REDUCE || op == TS_COLL_ALLGATHER || op == TS_COLL_GATHER ||
               op == TS_COLL_SCATTER;
    case TS_CCOMP_UCC:
        return op == TS_COLL_BARRIER || op == TS_COLL_BCAST || op == TS_COLL_ALLREDUCE ||
               op == TS_COLL_REDUCE || op == TS_COLL_ALLGATHER || op == TS_COLL_ALLGATHERV ||
               op == TS_COLL_ALLTOALL || op == TS_COLL_ALLTOALLV;
    default:
        return 0;
    }
}

static int is_data_op(int op)
{
    return op >= TS_COLL_BARRIER && op <= TS_COLL_REDUCE_SCATTER_BLOCK;
}

static void size_text(char *buf, size_t len, uint64_t v)
{
    if (v == ANY)
        snprintf(buf, len, "inf");
    else if (v >= 1024 * 1024 && v % (1024 * 1024) == 0)
        snprintf(buf, len, "%lluMB", (unsigned long long)(v >> 20));
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%lluKB", (unsigned long long)(v >> 10));
    else
        snprintf(buf, len, "%lluB", (unsigned long long)v);
}

static void tuned_choice(const ts_coll_model_t *m, int op, int32_t n, uint64_t bytes,
                         ts_coll_choice_t *out)
{
    const tuned_coll_t *tc = tuned_of(op);
    out->comp = TS_CCOMP_TUNED;
    if (!tc) {
        out->alg = TS_CALG_LINEAR;
    } else if (m->dynamic && m->forced[op] > 0) {
        out->alg = tc->alg[m->forced[op]];
        out->segsize = m->segsize[op];
    } else {
        out->rule = (int16_t)rule_find(tc, n, bytes);
        out->alg = tc->alg[tc->rules[out->rule].alg];
    }
}

/* UCC's size switches (tl_ucp's default selection strings): 4 KiB for Allgather, 129 bytes a
 * peer for Alltoall (ALLTOALL_DEFAULT_ALG_SWITCH); its pairwise Alltoall's auto num_posts
 * (alltoall_pairwise.c, get_num_posts): one step at a time above 66,000 B in all on a team of
 * more than 32 ranks, every step at once otherwise. */
#define UCC_SMALL          4096
#define UCC_ALLTOALL_BRUCK 129
#define UCC_A2A_MEDIUM     66000
#define UCC_A2A_NP_THRESH  32

/* UCC's pairwise exchange with out->posts steps in flight on n ranks: linear when they cover
 * every peer, pairwise one at a time, a window in between (out->posts kept only then). */
static void ucc_pairwise(int32_t n, ts_coll_choice_t *out)
{
    out->alg = out->posts >= n - 1 ? TS_CALG_LINEAR : TS_CALG_PAIRWISE;
    if (out->alg == TS_CALG_LINEAR || out->posts == 1)
        out->posts = 0;
}

void ts_coll_select(const ts_coll_model_t *m, int op, int32_t n, int32_t nnodes, uint64_t bytes,
                    ts_coll_choice_t *out)
{
    memset(out, 0, sizeof *out);
    out->rule = -1;
    if (n <= 1 || !is_data_op(op)) {
        out->comp = TS_CCOMP_NONE;
        out->alg = TS_CALG_NONE;
        return;
    }
    /* Highest priority among the enabled components that provide op; ties go to the first
     * in this order. */
    static const ts_coll_comp order[] = {TS_CCOMP_HCOLL, TS_CCOMP_UCC, TS_CCOMP_HAN,
                                         TS_CCOMP_TUNED};
    ts_coll_comp best = TS_CCOMP_TUNED;
    int64_t best_prio = INT64_MIN;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        ts_coll_comp c = order[i];
        /* HAN declines a communicator whose ranks all share one node (coll_han_module.c,
         * mca_coll_han_comm_query: "comm has only local processes"). */
        if (c == TS_CCOMP_HAN && nnodes <= 1)
            continue;
        if (m->enabled[c] && m->prio[c] >= 0 && provides(c, op) && m->prio[c] > best_prio) {
            best = c;
            best_prio = m->prio[c];
        }
    }
    if (best == TS_CCOMP_TUNED) {
        tuned_choice(m, op, n, bytes, out);
        return;
    }
    out->comp = best;
    if (best == TS_CCOMP_UCC) {
        /* UCC's tl_ucp default selections, by its message size (the whole destination buffer:
         * n blocks for Allgather and Alltoall; src/utils/ucc_coll_utils.c,
         * ucc_coll_args_msgsize): Allreduce knomial below 4 KiB and scatter-reduce-allgather
         * from there (allreduce/allreduce.h); Allgather knomial below 4 KiB at the team's host
         * radix and neighbor exchange above for an even team, ring for an odd one
         * (allgather/allgather.[ch]); Alltoall Bruck up to 129 bytes a peer and
         * pairwise above (alltoall/alltoall.[ch]), its steps posted as num_posts says. */
        switch (op) {
        case TS_COLL_ALLREDUCE:
            out->alg = bytes < UCC_SMALL ? TS_CALG_KN_RECURSIVE : TS_CALG_KN_SRA;
            break;
        case TS_COLL_BARRIER:
            out->alg = TS_CALG_KN_RECURSIVE;
            break;
        case TS_COLL_BCAST:
        case TS_COLL_REDUCE:
            out->alg = TS_CALG_KNOMIAL;
            break;
        case TS_COLL_ALLGATHER:
            out->alg = bytes * (uint64_t)n < UCC_SMALL ? TS_CALG_KNOMIAL
                       : n % 2                         ? TS_CALG_RING
                                                       : TS_CALG_NEIGHBOR;
            break;
        case TS_COLL_ALLGATHERV:
            out->alg = TS_CALG_RING;
            break;
        case TS_COLL_ALLTOALL:
            if (bytes < UCC_ALLTOALL_BRUCK) {
                out->alg = TS_CALG_BRUCK;
                break;
            }
            /* Pairwise, with as many steps posted at once as UCC's num_posts says: all of
             * them (a linear exchange) unless auto finds a large buffer on a large team. */
            out->posts = m->ucc_a2a_posts;
            if (out->posts == 0)
                out->posts = bytes * (uint64_t)n > UCC_A2A_MEDIUM && n > UCC_A2A_NP_THRESH ? 1 : n;
            ucc_pairwise(n, out);
            break;
        case TS_COLL_ALLTOALLV:
        case TS_COLL_ALLTOALLW:
            /* alltoallv_pairwise.c's auto: every step at once on up to 32 ranks. */
            out->posts = m->ucc_a2av_posts;
            if (out->posts == 0)
                out->posts = n > UCC_A2A_NP_THRESH ? 1 : n;
            ucc_pairwise(n, out);
            break;
        default:
            out->alg = TS_CALG_PAIRWISE;
            break;
        }
    } else if (best == TS_CCOMP_HCOLL && (op == TS_COLL_ALLTOALL || op == TS_COLL_ALLTOALLV)) {
        /* HCOLL's Alltoall is point-to-point over UCX's tag API; its algorithms are not
         * published, so tuned's fixed decision stands in where model.hcoll.alltoall says
         * (its parameter table entry says why), pairwise elsewhere. */
        out->alg = TS_CALG_PAIRWISE;
        if (op == TS_COLL_ALLTOALL && m->hcoll_a2a != HCOLL_A2A_PAIRWISE) {
            ts_coll_alg t = ts__coll_tuned_alg(op, ts_coll_tuned_fixed(op, n, bytes));
            if (t == TS_CALG_BRUCK ||
                (m->hcoll_a2a == HCOLL_A2A_TUNED && bytes < m->hcoll_a2a_pairwise))
                out->alg = t;
        }
    } else if (best == TS_CCOMP_HCOLL && op == TS_COLL_ALLREDUCE && bytes >= m->hcoll_large) {
        out->alg = TS_CALG_KN_SRA; /* HCOLL's large-data allreduce, over UCX (coll_hier.c) */
    } else {
        out->alg = TS_CALG_HIER;
        if (best == TS_CCOMP_HAN)
            out->segsize = m->han_segment;
    }
}

int ts_coll_empty_returns(int op, int nonblocking)
{
    switch (op) {
    case TS_COLL_BCAST:
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        return 1;
    case TS_COLL_GATHER:
    case TS_COLL_SCATTER:
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
    case TS_COLL_ALLTOALL:
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
        return !nonblocking; /* their non-blocking forms go to the component with any count */
    default:
        return 0;
    }
}

void ts_coll_choice_why(const ts_coll_model_t *m, int op, const ts_coll_choice_t *c, char *buf,
                        size_t len)
{
    const tuned_coll_t *tc = tuned_of(op);
    if (c->comp == TS_CCOMP_NONE) {
        snprintf(buf, len, "nothing to do");
    } else if (c->comp != TS_CCOMP_TUNED) {
        snprintf(buf, len, "%s: priority %lld", ts_coll_comp_name(c->comp),
                 (long long)m->prio[c->comp]);
    } else if (!tc) {
        snprintf(buf, len, "coll/basic (tuned has no %s)", ts_coll_op_name(op));
    } else if (c->rule < 0) {
        snprintf(buf, len, "forced: %s=%d", ts_param_def(tc->forced)->name, m->forced[op]);
    } else {
        const rule_t *r = &tc->rules[c->rule];
        int32_t lo_n;
        uint64_t lo_b;
        rule_bounds(tc, c->rule, &lo_n, &lo_b);
        char a[16], b[16];
        size_text(a, sizeof a, lo_b);
        size_text(b, sizeof b, r->size_lt);
        if (r->comm_lt == ALL)
            snprintf(buf, len, "fixed rule: >= %d ranks, %s-%s", (int)lo_n, a, b);
        else
            snprintf(buf, len, "fixed rule: %d-%d ranks, %s-%s", (int)lo_n, (int)r->comm_lt - 1, a,
                     b);
    }
}

/* ---- placement groups --------------------------------------------------------------- */

ts_status ts_coll_topo_new(int32_t n, const int32_t *members,
                           ts_locality (*loc)(const void *ctx, int32_t a, int32_t b),
                           const void *ctx, ts_coll_topo_t **out)
{
    *out = NULL;
    ts_coll_topo_t *t = calloc(1, sizeof *t);
    int32_t *ids = calloc((size_t)(n > 0 ? n : 1) * 6, sizeof *ids);
    if (!t || !ids) {
        free(t);
        free(ids);
        return TS_ENOMEM;
    }
    t->n = n;
    t->node = ids;
    t->socket = ids + n;
    t->numa = ids + 2 * n;
    t->low_node = ids + 3 * n;
    t->low_socket = ids + 4 * n;
    t->low_numa = ids + 5 * n;
    int32_t nodes = 0, sockets = 0, numas = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t wi = members ? members[i] : i;
        t->node[i] = t->socket[i] = t->numa[i] = -1;
        t->low_node[i] = t->low_socket[i] = t->low_numa[i] = i;
        /* The first earlier rank that shares each level gives its ids (and is the lowest). */
        for (int32_t j = 0; j < i; j++) {
            ts_locality l = loc(ctx, members ? members[j] : j, wi);
            if (l >= TS_LOC_SAME_LEAF)
                continue;
            if (t->node[i] < 0) {
                t->node[i] = t->node[j];
                t->low_node[i] = j;
            }
            if (l <= TS_LOC_SAME_SOCKET && t->socket[i] < 0) {
                t->socket[i] = t->socket[j];
                t->low_socket[i] = j;
            }
            if (l <= TS_LOC_SAME_NUMA && t->numa[i] < 0) {
                t->numa[i] = t->numa[j];
                t->low_numa[i] = j;
            }
        }
        if (t->node[i] < 0)
            t->node[i] = nodes++;
        if (t->socket[i] < 0)
            t->socket[i] = sockets++;
        if (t->numa[i] < 0)
            t->numa[i] = numas++;
    }
    t->nnodes = nodes;
    int32_t *per = calloc((size_t)(sockets > 0 ? sockets : 1), sizeof *per);
    if (!per) {
        ts_coll_topo_free(t);
        return TS_ENOMEM;
    }
    for (int32_t i = 0; i < n; i++)
        per[t->socket[i]]++;
    t->min_socket = n;
    for (int32_t s = 0; s < sockets; s++)
        t->min_socket = per[s] < t->min_socket ? per[s] : t->min_socket;
    free(per);
    *out = t;
    return TS_OK;
}

void ts_coll_topo_free(ts_coll_topo_t *t)
{
    if (!t)
        return;
    free(t->node);
    free(t);
}

ts_coll_alg ts__coll_tuned_alg(int op, int i)
{
    return tuned_of(op)->alg[i];
}
