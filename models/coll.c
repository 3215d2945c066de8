/* coll.c - collective schedules and their selection (see coll.h).
 *
 * Layout: the tuned fixed-rule tables (data), the model built from the parameter table, the
 * selection by component priority, then the algorithms, the table FLAT that maps each
 * (operation, algorithm) to the function that builds its schedule, and the hierarchical
 * components. Every algorithm is written once for a "group view" (a list of communicator
 * ranks, the caller's index in it), so that the hierarchical components (HCOLL, HAN) reuse
 * the flat algorithms on their sub-groups. */
#include "coll.h"

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

struct ts_coll_model_s {
    int enabled[TS_CCOMP__COUNT];
    int64_t prio[TS_CCOMP__COUNT];
    int dynamic;
    int forced[TS_COLL__COUNT];       /* Open MPI's number, 0 = fixed rules */
    uint64_t segsize[TS_COLL__COUNT]; /* for forced algorithms */
    uint64_t elem;
    int32_t chain_fanout, knomial_radix, sm_radix, net_radix, ucc_radix;
    int hcoll_by_numa;
    uint64_t han_segment;
    double reduce_bw;
};

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
    for (int op = 0; op < TS_COLL__COUNT; op++)
        if (m->segsize[op] >= TS_SIZE_INF)
            m->segsize[op] = 0;
    int64_t elem = TS_PARAM_INT(p, COLL_DATATYPE_SIZE);
    m->elem = elem > 0 ? (uint64_t)elem : 1;
    m->chain_fanout = clamp_radix(TS_PARAM_INT(p, COLL_CHAIN_FANOUT), 1);
    m->knomial_radix = clamp_radix(TS_PARAM_INT(p, COLL_KNOMIAL_RADIX), 2);
    m->sm_radix = clamp_radix(TS_PARAM_INT(p, HCOLL_SM_RADIX), 2);
    m->net_radix = clamp_radix(TS_PARAM_INT(p, HCOLL_NET_RADIX), 2);
    m->ucc_radix = clamp_radix(TS_PARAM_INT(p, UCC_RADIX), 2);
    m->hcoll_by_numa = strcmp(TS_PARAM_ENUM(p, HCOLL_GROUP), "numa") == 0;
    uint64_t seg = TS_PARAM_SIZE(p, HAN_SEGMENT);
    m->han_segment = seg >= TS_SIZE_INF ? 0 : seg;
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

void ts_coll_select(const ts_coll_model_t *m, int op, int32_t n, uint64_t bytes,
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
        switch (op) {
        case TS_COLL_ALLREDUCE:
        case TS_COLL_BARRIER:
            out->alg = TS_CALG_KN_RECURSIVE;
            break;
        case TS_COLL_BCAST:
        case TS_COLL_REDUCE:
            out->alg = TS_CALG_KNOMIAL;
            break;
        case TS_COLL_ALLGATHER:
        case TS_COLL_ALLGATHERV:
            out->alg = TS_CALG_RING;
            break;
        default:
            out->alg = TS_CALG_PAIRWISE;
            break;
        }
    } else if (best == TS_CCOMP_HCOLL && (op == TS_COLL_ALLTOALL || op == TS_COLL_ALLTOALLV)) {
        out->alg = TS_CALG_PAIRWISE; /* HCOLL's alltoall is point-to-point over UCX */
    } else {
        out->alg = TS_CALG_HIER;
        if (best == TS_CCOMP_HAN)
            out->segsize = m->han_segment;
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

/* ---- schedule building blocks ---------------------------------------------------------- */

/* A group of communicator ranks and the caller's index in it (m == NULL: ranks 0..n-1). */
typedef struct gview_s {
    const int32_t *m;
    int32_t n, me;
} gview_t;

typedef struct build_s {
    const ts_coll_model_t *model;
    ts_csched_t *s;
    int oom;
} build_t;

/* The communicator rank of member i of the group. */
static int32_t comm_rank(const gview_t *g, int32_t i)
{
    return g->m ? g->m[i] : i;
}

static void push(build_t *b, int kind, int32_t peer, uint64_t bytes)
{
    ts_csched_t *s = b->s;
    if (b->oom)
        return;
    if (TS_GROW(s->step, s->n, s->cap, 32) != 0) {
        b->oom = 1;
        return;
    }
    s->step[s->n++] = (ts_cstep_t){.kind = (uint8_t)kind, .peer = peer, .bytes = bytes};
}

/* Post a send of `bytes` to member idx of the group in the current round. */
static void send_to(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes)
{
    push(b, TS_CSTEP_SEND, comm_rank(g, idx), bytes);
}

/* Post a receive of `bytes` from member idx of the group in the current round. */
static void recv_from(build_t *b, const gview_t *g, int32_t idx, uint64_t bytes)
{
    push(b, TS_CSTEP_RECV, comm_rank(g, idx), bytes);
}

/* Close the round: wait for its messages, then combine `reduce` bytes (nothing is added if
 * the round is empty and reduces nothing). */
static void end_round(build_t *b, uint64_t reduce)
{
    ts_csched_t *s = b->s;
    if (!reduce && (s->n == 0 || s->step[s->n - 1].kind == TS_CSTEP_END))
        return;
    push(b, TS_CSTEP_END, -1, reduce);
    if (!b->oom)
        s->rounds++;
}

static int32_t pow2_floor(int32_t n)
{
    int32_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int32_t ceil_log2(int32_t n)
{
    int32_t k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* Bytes of block i when `total` bytes of `elem`-byte elements are split into k blocks, the
 * first ones one element larger (Open MPI's split of a count into blocks). */
static uint64_t block_bytes(uint64_t total, uint64_t elem, int32_t k, int32_t i)
{
    uint64_t count = total / elem, q = count / (uint64_t)k, r = count % (uint64_t)k;
    return (q + ((uint64_t)i < r)) * elem;
}

/* ---- trees (for bcast, reduce, gather, scatter) ---- */

enum { TREE_STAR, TREE_CHAIN, TREE_BINARY, TREE_BINOMIAL, TREE_KNOMIAL };

typedef struct tree_s {
    int32_t parent; /* vrank, -1 at the root */
    int32_t nchild;
    int32_t child[64]; /* vranks, largest subtree first */
} tree_t;

/* Node v (a rank relative to the root: v = (rank - root) mod n) of a tree of n ranks. */
static void tree_node(int kind, int32_t n, int32_t v, int32_t fan, tree_t *t)
{
    t->parent = -1;
    t->nchild = 0;
    switch (kind) {
    case TREE_STAR:
        if (v)
            t->parent = 0;
        else
            for (int32_t c = 1; c < n && t->nchild < 64; c++)
                t->child[t->nchild++] = c;
        break;
    case TREE_CHAIN: {
        /* vranks 1..n-1 form fan chains of consecutive vranks hanging off the root. */
        int32_t rest = n - 1, f = fan < rest ? fan : rest;
        if (f < 1)
            f = 1;
        int32_t q = rest / f, r = rest % f, start = 1;
        for (int32_t c = 0; c < f; c++) {
            int32_t len = q + (c < r);
            if (len <= 0)
                continue;
            if (v == 0)
                t->child[t->nchild++] = start;
            else if (v >= start && v < start + len) {
                t->parent = v == start ? 0 : v - 1;
                if (v + 1 < start + len)
                    t->child[t->nchild++] = v + 1;
            }
            start += len;
        }
        break;
    }
    case TREE_BINARY:
        if (v)
            t->parent = (v - 1) / 2;
        for (int32_t c = 2 * v + 1; c <= 2 * v + 2 && c < n; c++)
            t->child[t->nchild++] = c;
        break;
    case TREE_BINOMIAL: {
        int32_t low = v ? (v & -v) : 1 << ceil_log2(n);
        if (v)
            t->parent = v - low;
        for (int32_t mask = low >> 1; mask >= 1; mask >>= 1)
            if (v + mask < n)
                t->child[t->nchild++] = v + mask;
        break;
    }
    case TREE_KNOMIAL: {
        int32_t k = fan < 2 ? 2 : fan;
        /* Lowest non-zero base-k digit of v gives the parent; the children add a digit
         * below it. */
        int64_t span = 1;
        while (span < n)
            span *= k;
        int64_t level = span;
        if (v) {
            int64_t p = 1;
            while ((v / p) % k == 0)
                p *= k;
            t->parent = (int32_t)(v - ((v / p) % k) * p);
            level = p;
        }
        for (int64_t p = level / k; p >= 1; p /= k)
            for (int32_t d = 1; d < k; d++)
                if (v + d * p < n && t->nchild < 64)
                    t->child[t->nchild++] = (int32_t)(v + d * p);
        break;
    }
    }
}

/* Ranks in the subtree of v (v included). */
static int32_t subtree_size(int kind, int32_t n, int32_t v, int32_t fan)
{
    tree_t t;
    tree_node(kind, n, v, fan, &t);
    int32_t s = 1;
    for (int32_t i = 0; i < t.nchild; i++)
        s += subtree_size(kind, n, t.child[i], fan);
    return s;
}

static int32_t real_of(const gview_t *g, int32_t root, int32_t v)
{
    return (v + root) % g->n;
}

static uint64_t seg_bytes(uint64_t total, uint64_t seg, int32_t nseg, int32_t s)
{
    if (nseg <= 1)
        return total;
    return s < nseg - 1 ? seg : total - seg * (uint64_t)(nseg - 1);
}

static int32_t nsegs(uint64_t total, uint64_t seg)
{
    if (!seg || total <= seg)
        return 1;
    uint64_t k = (total + seg - 1) / seg;
    return k > (1u << 20) ? (1 << 20) : (int32_t)k;
}

/* The caller's node of the tree rooted at root, and the number of segments of bytes. */
static int32_t tree_here(const gview_t *g, int kind, int32_t fan, int32_t root, uint64_t bytes,
                         uint64_t seg, tree_t *t)
{
    tree_node(kind, g->n, (g->me - root + g->n) % g->n, fan, t);
    return nsegs(bytes, seg);
}

/* Pipelined tree broadcast of `bytes` from root: segment s arrives from the parent in the
 * round that forwards segment s-1 to the children. */
static void tree_bcast(build_t *b, const gview_t *g, int kind, int32_t fan, int32_t root,
                       uint64_t bytes, uint64_t seg)
{
    if (kind == TREE_STAR) { /* linear: the root posts every send at once */
        if (g->me == root)
            for (int32_t i = 0; i < g->n; i++) {
                if (i != root)
                    send_to(b, g, i, bytes);
            }
        else
            recv_from(b, g, root, bytes);
        end_round(b, 0);
        return;
    }
    tree_t t;
    int32_t S = tree_here(g, kind, fan, root, bytes, seg, &t);
    for (int32_t s = 0; s <= S; s++) {
        if (t.parent >= 0 && s < S)
            recv_from(b, g, real_of(g, root, t.parent), seg_bytes(bytes, seg, S, s));
        int32_t fwd = t.parent >= 0 ? s - 1 : s; /* the root sends segment s at once */
        if (fwd >= 0 && fwd < S)
            for (int32_t c = 0; c < t.nchild; c++)
                send_to(b, g, real_of(g, root, t.child[c]), seg_bytes(bytes, seg, S, fwd));
        end_round(b, 0);
    }
}

/* Pipelined tree reduction to root: segment s of every child arrives and is combined in the
 * round that passes segment s-1 up. */
static void tree_reduce(build_t *b, const gview_t *g, int kind, int32_t fan, int32_t root,
                        uint64_t bytes, uint64_t seg)
{
    if (kind == TREE_STAR) { /* every rank sends at once; the root combines them all */
        if (g->me == root) {
            for (int32_t i = 0; i < g->n; i++)
                if (i != root)
                    recv_from(b, g, i, bytes);
            end_round(b, (uint64_t)(g->n - 1) * bytes);
        } else {
            send_to(b, g, root, bytes);
            end_round(b, 0);
        }
        return;
    }
    tree_t t;
    int32_t S = tree_here(g, kind, fan, root, bytes, seg, &t);
    for (int32_t s = 0; s <= S; s++) {
        uint64_t red = 0;
        if (s < S)
            for (int32_t c = 0; c < t.nchild; c++) {
                recv_from(b, g, real_of(g, root, t.child[c]), seg_bytes(bytes, seg, S, s));
                red += seg_bytes(bytes, seg, S, s);
            }
        int32_t up = t.nchild ? s - 1 : s; /* a leaf sends segment s at once */
        if (t.parent >= 0 && up >= 0 && up < S)
            send_to(b, g, real_of(g, root, t.parent), seg_bytes(bytes, seg, S, up));
        end_round(b, red);
    }
}

/* Tree gather (binomial): a rank receives its children's subtrees, then passes its own
 * subtree's blocks up. Scatter is the mirror. */
static void tree_gather(build_t *b, const gview_t *g, int kind, int32_t root, uint64_t block,
                        int scatter)
{
    int32_t v = (g->me - root + g->n) % g->n;
    tree_t t;
    tree_node(kind, g->n, v, 2, &t);
    uint64_t mine = (uint64_t)subtree_size(kind, g->n, v, 2) * block;
    if (scatter && t.parent >= 0) {
        recv_from(b, g, real_of(g, root, t.parent), mine);
        end_round(b, 0);
    }
    for (int32_t c = 0; c < t.nchild; c++) {
        uint64_t sub = (uint64_t)subtree_size(kind, g->n, t.child[c], 2) * block;
        if (scatter)
            send_to(b, g, real_of(g, root, t.child[c]), sub);
        else
            recv_from(b, g, real_of(g, root, t.child[c]), sub);
    }
    end_round(b, 0);
    if (!scatter && t.parent >= 0) {
        send_to(b, g, real_of(g, root, t.parent), mine);
        end_round(b, 0);
    }
}

/* Linear gather / scatter as coll/basic does them: the root handles one peer at a time in
 * rank order (blocking calls), or all at once (nonblocking variants). */
static void linear_gather(build_t *b, const gview_t *g, int32_t root, uint64_t block, int scatter,
                          int all_at_once)
{
    if (g->me != root) {
        if (scatter)
            recv_from(b, g, root, block);
        else
            send_to(b, g, root, block);
        end_round(b, 0);
        return;
    }
    for (int32_t i = 0; i < g->n; i++) {
        if (i == root)
            continue;
        if (scatter)
            send_to(b, g, i, block);
        else
            recv_from(b, g, i, block);
        if (!all_at_once)
            end_round(b, 0);
    }
    end_round(b, 0);
}

/* ---- recursive doubling with Open MPI's fold of the extra ranks ---- */

/* Allreduce (or barrier with bytes 0) by recursive doubling: the first 2*extra ranks pair
 * up, evens hand their data to the odd neighbour and sit out; 2^k ranks exchange and combine
 * for k rounds; the evens get the result back. */
static void rd_allreduce(build_t *b, const gview_t *g, uint64_t bytes, int reduce)
{
    int32_t n = g->n, me = g->me, p2 = pow2_floor(n), extra = n - p2, newrank;
    if (me < 2 * extra) {
        if (me % 2 == 0) {
            send_to(b, g, me + 1, bytes);
            end_round(b, 0);
            recv_from(b, g, me + 1, bytes);
            end_round(b, 0);
            return;
        }
        recv_from(b, g, me - 1, bytes);
        end_round(b, reduce ? bytes : 0);
        newrank = me / 2;
    } else {
        newrank = me - extra;
    }
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        int32_t nr = newrank ^ mask;
        int32_t peer = nr < extra ? nr * 2 + 1 : nr + extra;
        send_to(b, g, peer, bytes);
        recv_from(b, g, peer, bytes);
        end_round(b, reduce ? bytes : 0);
    }
    if (me < 2 * extra) {
        send_to(b, g, me - 1, bytes);
        end_round(b, 0);
    }
}

/* Recursive k-ing (UCC's knomial allreduce; k = 2 is recursive doubling with another fold):
 * ranks beyond the largest power of k hand their data to a proxy first and get the result
 * back last; the core exchanges with k-1 peers per round. */
static void kn_allreduce(build_t *b, const gview_t *g, int32_t k, uint64_t bytes, int reduce)
{
    int32_t n = g->n, me = g->me;
    int64_t pk = 1;
    while (pk * k <= n)
        pk *= k;
    /* Ranks beyond the core fold into core rank (rank mod pk): with k > 2 there may be more
     * extra ranks than core ones (36 ranks, k = 4: 16 core, 20 extra), so a core rank may
     * proxy several, one after another. */
    int32_t p = (int32_t)pk;
    if (me >= p) {
        send_to(b, g, me % p, bytes);
        end_round(b, 0);
        recv_from(b, g, me % p, bytes);
        end_round(b, 0);
        return;
    }
    for (int32_t x = me + p; x < n; x += p) {
        recv_from(b, g, x, bytes);
        end_round(b, reduce ? bytes : 0);
    }
    for (int64_t dist = 1; dist < pk; dist *= k) {
        int32_t d = (int32_t)((me / dist) % k);
        uint64_t red = 0;
        for (int32_t t = 1; t < k; t++) {
            int32_t peer = (int32_t)(me + (((d + t) % k) - d) * dist);
            send_to(b, g, peer, bytes);
            recv_from(b, g, peer, bytes);
            red += bytes;
        }
        end_round(b, reduce ? red : 0);
    }
    for (int32_t x = me + p; x < n; x += p) {
        send_to(b, g, x, bytes);
        end_round(b, 0);
    }
}

/* Ring allreduce: n-1 rounds of reduce-scatter then n-1 of allgather, block by block. With
 * segsize, each block travels as segments posted together (Open MPI's segmented ring
 * pipelines them; the rounds stay the ring's). */
static void ring_allreduce(build_t *b, const gview_t *g, uint64_t bytes, uint64_t seg)
{
    int32_t n = g->n, me = g->me, right = (me + 1) % n, left = (me - 1 + n) % n;
    uint64_t elem = b->model->elem;
    for (int phase = 0; phase < 2; phase++)
        for (int32_t k = 0; k < n - 1; k++) {
            /* reduce-scatter: send block (me - k), receive block (me - k - 1) and combine;
             * allgather: send block (me + 1 - k), receive block (me - k). */
            int32_t sb = phase == 0 ? (me - k + n) % n : (me + 1 - k + 2 * n) % n;
            int32_t rb = phase == 0 ? (me - k - 1 + 2 * n) % n : (me - k + n) % n;
            uint64_t sbytes = block_bytes(bytes, elem, n, sb);
            uint64_t rbytes = block_bytes(bytes, elem, n, rb);
            int32_t ss = nsegs(sbytes, seg), rs = nsegs(rbytes, seg);
            for (int32_t s = 0; s < ss; s++)
                send_to(b, g, right, seg_bytes(sbytes, seg, ss, s));
            for (int32_t s = 0; s < rs; s++)
                recv_from(b, g, left, seg_bytes(rbytes, seg, rs, s));
            end_round(b, phase == 0 ? rbytes : 0);
        }
}

/* Rabenseifner: fold to 2^k ranks as recursive doubling does, reduce-scatter by recursive
 * halving (halves of the vector, distance doubling), allgather by recursive doubling (the
 * reverse), unfold. With `gather_to` >= 0 the allgather becomes a gather of the blocks to
 * that rank (Reduce's rabenseifner); reduce_scatter keeps only the halving. */
enum { RAB_ALLREDUCE, RAB_REDUCE, RAB_REDUCE_SCATTER };

static void rabenseifner(build_t *b, const gview_t *g, uint64_t bytes, int mode, int32_t root)
{
    int32_t n = g->n, me = g->me, p2 = pow2_floor(n), extra = n - p2, newrank = -1;
    uint64_t elem = b->model->elem, count = bytes / elem;
    uint64_t share = (count / (uint64_t)p2) * elem; /* what a core rank holds after halving */
    if (me < 2 * extra && me % 2 == 0) { /* folded out: hand the vector to the odd neighbour */
        send_to(b, g, me + 1, bytes);
        end_round(b, 0);
        if (mode == RAB_ALLREDUCE) {
            recv_from(b, g, me + 1, bytes);
            end_round(b, 0);
        } else if (mode == RAB_REDUCE_SCATTER) {
            recv_from(b, g, me + 1, block_bytes(bytes, elem, n, me));
            end_round(b, 0);
        } else if (me == root) { /* Reduce: the core ranks' pieces come to the root */
            for (int32_t i = 0; i < n; i++)
                if (!(i < 2 * extra && i % 2 == 0))
                    recv_from(b, g, i, share);
            end_round(b, 0);
        }
        return;
    }
    if (me < 2 * extra) {
        recv_from(b, g, me - 1, bytes);
        end_round(b, bytes);
        newrank = me / 2;
    } else {
        newrank = me - extra;
    }
    /* reduce-scatter by recursive halving: the lower rank of each pair keeps the lower half */
    uint64_t window = count;
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        int32_t nr = newrank ^ mask;
        int32_t peer = nr < extra ? nr * 2 + 1 : nr + extra;
        uint64_t keep = (window + 1) / 2, give = window - keep;
        uint64_t send = newrank < nr ? give : keep, recv = newrank < nr ? keep : give;
        send_to(b, g, peer, send * elem);
        recv_from(b, g, peer, recv * elem);
        end_round(b, recv * elem);
        window = recv;
    }
    if (mode == RAB_ALLREDUCE) { /* allgather by recursive doubling, the reverse */
        uint64_t have = window;
        for (int32_t mask = p2 >> 1; mask >= 1; mask >>= 1) {
            int32_t nr = newrank ^ mask;
            int32_t peer = nr < extra ? nr * 2 + 1 : nr + extra;
            send_to(b, g, peer, have * elem);
            recv_from(b, g, peer, have * elem);
            end_round(b, 0);
            have = have * 2 > count ? count : have * 2;
        }
        if (me < 2 * extra) {
            send_to(b, g, me - 1, bytes);
            end_round(b, 0);
        }
    } else if (mode == RAB_REDUCE) { /* the pieces go to the root */
        if (me != root) {
            send_to(b, g, root, window * elem);
        } else {
            for (int32_t i = 0; i < n; i++)
                if (i != me && !(i < 2 * extra && i % 2 == 0))
                    recv_from(b, g, i, share);
        }
        end_round(b, 0);
    } else if (me < 2 * extra) { /* reduce_scatter: the folded neighbour's block */
        send_to(b, g, me - 1, block_bytes(bytes, elem, n, me - 1));
        end_round(b, 0);
    }
}

/* ---- allgather family ---- */

static void allgather_ring(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t k = 0; k < n - 1; k++) {
        send_to(b, g, (me + 1) % n, block);
        recv_from(b, g, (me - 1 + n) % n, block);
        end_round(b, 0);
    }
}

static void allgather_bruck(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t dist = 1; dist < n; dist <<= 1) {
        int32_t cnt = dist < n - dist ? dist : n - dist;
        send_to(b, g, (me - dist + n) % n, (uint64_t)cnt * block);
        recv_from(b, g, (me + dist) % n, (uint64_t)cnt * block);
        end_round(b, 0);
    }
}

static void allgather_rd(build_t *b, const gview_t *g, uint64_t block)
{
    if (g->n & (g->n - 1)) { /* Open MPI falls back to Bruck off powers of two */
        allgather_bruck(b, g, block);
        return;
    }
    for (int32_t dist = 1; dist < g->n; dist <<= 1) {
        send_to(b, g, g->me ^ dist, (uint64_t)dist * block);
        recv_from(b, g, g->me ^ dist, (uint64_t)dist * block);
        end_round(b, 0);
    }
}

static void allgather_neighbor(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    if (n % 2) { /* Open MPI falls back to the ring for odd sizes */
        allgather_ring(b, g, block);
        return;
    }
    int32_t even = me % 2 == 0;
    int32_t first = even ? (me + 1) % n : (me - 1 + n) % n;
    int32_t other = even ? (me - 1 + n) % n : (me + 1) % n;
    send_to(b, g, first, block);
    recv_from(b, g, first, block);
    end_round(b, 0);
    for (int32_t k = 1; k < n / 2; k++) {
        int32_t peer = k % 2 ? other : first;
        send_to(b, g, peer, 2 * block);
        recv_from(b, g, peer, 2 * block);
        end_round(b, 0);
    }
}

static void exchange(build_t *b, const gview_t *g, int32_t peer, uint64_t bytes, uint64_t red)
{
    send_to(b, g, peer, bytes);
    recv_from(b, g, peer, bytes);
    end_round(b, red);
}

/* ---- alltoall family ---- */

static void alltoall_linear(build_t *b, const gview_t *g, uint64_t block)
{
    for (int32_t i = 1; i < g->n; i++)
        recv_from(b, g, (g->me + i) % g->n, block);
    for (int32_t i = 1; i < g->n; i++)
        send_to(b, g, (g->me - i + g->n) % g->n, block);
    end_round(b, 0);
}

static void alltoall_pairwise(build_t *b, const gview_t *g, uint64_t block)
{
    for (int32_t k = 1; k < g->n; k++) {
        send_to(b, g, (g->me + k) % g->n, block);
        recv_from(b, g, (g->me - k + g->n) % g->n, block);
        end_round(b, 0);
    }
}

static void alltoall_bruck(build_t *b, const gview_t *g, uint64_t block)
{
    int32_t n = g->n, me = g->me;
    for (int32_t dist = 1; dist < n; dist <<= 1) {
        int32_t cnt = 0;
        for (int32_t j = 0; j < n; j++)
            cnt += (j & dist) != 0;
        send_to(b, g, (me + dist) % n, (uint64_t)cnt * block);
        recv_from(b, g, (me - dist + n) % n, (uint64_t)cnt * block);
        end_round(b, 0);
    }
}

/* Open MPI's two_proc algorithms: one exchange on 2 ranks; on more, Open MPI would not pick
 * them, and a forced one runs the fallback. */
static void two_proc(build_t *b, const gview_t *g, uint64_t bytes,
                     void (*fallback)(build_t *, const gview_t *, uint64_t))
{
    if (g->n == 2)
        exchange(b, g, 1 - g->me, bytes, 0);
    else
        fallback(b, g, bytes);
}

/* ---- barrier family (messages of 0 bytes) ---- */

static void barrier_double_ring(build_t *b, const gview_t *g)
{
    int32_t n = g->n, me = g->me, left = (me - 1 + n) % n, right = (me + 1) % n;
    for (int pass = 0; pass < 2; pass++) {
        if (me == 0) {
            send_to(b, g, right, 0);
            end_round(b, 0);
            recv_from(b, g, left, 0);
            end_round(b, 0);
        } else {
            recv_from(b, g, left, 0);
            end_round(b, 0);
            send_to(b, g, right, 0);
            end_round(b, 0);
        }
    }
}

static void barrier_bruck(build_t *b, const gview_t *g)
{
    for (int32_t dist = 1; dist < g->n; dist <<= 1) {
        send_to(b, g, (g->me + dist) % g->n, 0);
        recv_from(b, g, (g->me - dist + g->n) % g->n, 0);
        end_round(b, 0);
    }
}

/* ---- flat algorithms: one builder per (operation, algorithm) ---- */

/* What a builder gets besides the group: the collective's root (0 for rootless ones), the
 * bytes per rank and the segment size of segmented algorithms (0: unsegmented). */
typedef struct flat_args_s {
    int32_t root;
    uint64_t bytes, seg;
} flat_args_t;

/* Appends the caller's schedule of one algorithm to b. Returns TS_OK, or the status of a
 * sub-collective it could not build; running out of memory is left in b->oom. */
typedef ts_status (*flat_builder)(build_t *b, const gview_t *g, const flat_args_t *a);

static ts_status flat(build_t *b, int op, ts_coll_alg alg, const gview_t *g, int32_t root,
                      uint64_t bytes, uint64_t seg);

/* tuned's own fixed choice on a sub-group (nonoverlapping's reduce + bcast, HAN's low
 * level). */
static ts_status flat_fixed(build_t *b, int op, const gview_t *g, int32_t root, uint64_t bytes)
{
    int a = ts_coll_tuned_fixed(op, g->n, bytes);
    return flat(b, op, tuned_of(op)->alg[a], g, root, bytes, 0);
}

/* -- bcast helpers -- */

/* The subtree of vrank v of a binary tree: 1 (left), 2 (right) or 0 (the root). */
static int32_t side_of(int32_t v)
{
    while (v > 2)
        v = (v - 1) / 2;
    return v;
}

/* The k-th vrank (by value) of a side of the binary tree of n, or -1. */
static int32_t nth_of_side(int32_t n, int32_t side, int32_t k)
{
    for (int32_t x = 1; x < n; x++)
        if (side_of(x) == side && k-- == 0)
            return x;
    return -1;
}

static void split_binary_bcast(build_t *b, const gview_t *g, int32_t root, uint64_t bytes,
                               uint64_t seg)
{
    /* Each half of the message goes down one subtree of a binary tree; then every rank
     * swaps halves with its counterpart (same position, by value) in the other subtree; a
     * left rank without one gets the right half from the root. */
    int32_t n = g->n;
    if (n <= 2) {
        tree_bcast(b, g, TREE_BINARY, 2, root, bytes, seg);
        return;
    }
    uint64_t half = bytes / 2, other = bytes - half;
    int32_t v = (g->me - root + n) % n, side = side_of(v);
    uint64_t mine = side == 2 ? other : half; /* the half this subtree carries */
    int32_t pos = 0, nleft = 0, nright = 0;
    for (int32_t x = 1; x < n; x++) {
        pos += x < v && side_of(x) == side;
        nleft += side_of(x) == 1;
        nright += side_of(x) == 2;
    }
    /* Phase 1: binary tree, each side carrying its half. */
    tree_t t;
    tree_node(TREE_BINARY, n, v, 2, &t);
    int32_t S = nsegs(mine, seg);
    for (int32_t s = 0; s <= S; s++) {
        if (t.parent >= 0 && s < S)
            recv_from(b, g, real_of(g, root, t.parent), seg_bytes(mine, seg, S, s));
        int32_t fwd = t.parent >= 0 ? s - 1 : s;
        for (int32_t c = 0; c < t.nchild; c++) {
            uint64_t part = v == 0 ? (c == 0 ? half : other) : mine;
            int32_t cs = nsegs(part, seg);
            if (fwd >= 0 && fwd < cs)
                send_to(b, g, real_of(g, root, t.child[c]), seg_bytes(part, seg, cs, fwd));
        }
        end_round(b, 0);
    }
    /* Phase 2: swap halves with the counterpart. */
    if (v == 0) {
        for (int32_t i = nright; i < nleft; i++) /* left ranks without a partner */
            send_to(b, g, real_of(g, root, nth_of_side(n, 1, i)), other);
        end_round(b, 0);
        return;
    }
    int32_t partner = nth_of_side(n, 3 - side, pos);
    if (partner >= 0) {
        send_to(b, g, real_of(g, root, partner), mine);
        recv_from(b, g, real_of(g, root, partner), bytes - mine);
    } else {
        recv_from(b, g, root, bytes - mine);
    }
    end_round(b, 0);
}

static void scatter_allgather_bcast(build_t *b, const gview_t *g, int32_t root, uint64_t bytes,
                                    int ring)
{
    /* Binomial scatter of n blocks, then an allgather of the blocks (recursive doubling, or
     * the ring for _ring); blocks are relative to the root. */
    uint64_t block = (bytes + (uint64_t)g->n - 1) / (uint64_t)g->n;
    tree_gather(b, g, TREE_BINOMIAL, root, block, 1);
    gview_t rel = *g; /* the allgather runs on ranks relative to the root */
    int32_t *m = NULL;
    if (root) {
        m = malloc((size_t)g->n * sizeof *m);
        if (!m) {
            b->oom = 1;
            return;
        }
        for (int32_t v = 0; v < g->n; v++)
            m[v] = comm_rank(g, real_of(g, root, v));
        rel.m = m;
        rel.me = (g->me - root + g->n) % g->n;
    }
    if (ring)
        allgather_ring(b, &rel, block);
    else
        allgather_rd(b, &rel, block);
    free(m);
}

/* -- allreduce -- */

static ts_status build_reduce_linear(build_t *b, const gview_t *g, const flat_args_t *a);

static ts_status build_allreduce_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: linear reduce to 0, then linear bcast */
    build_reduce_linear(b, g, &(flat_args_t){.root = 0, .bytes = a->bytes, .seg = 0});
    tree_bcast(b, g, TREE_STAR, 0, 0, a->bytes, 0);
    return TS_OK;
}

static ts_status build_allreduce_nonoverlapping(build_t *b, const gview_t *g, const flat_args_t *a)
{
    ts_status st = flat_fixed(b, TS_COLL_REDUCE, g, 0, a->bytes);
    return st ? st : flat_fixed(b, TS_COLL_BCAST, g, 0, a->bytes);
}

static ts_status build_allreduce_recursive_doubling(build_t *b, const gview_t *g,
                                                    const flat_args_t *a)
{
    rd_allreduce(b, g, a->bytes, 1);
    return TS_OK;
}

/* Open MPI's ring: a count below the ranks goes to recursive doubling; a segmented ring
 * (seg > 0) whose count is below ranks x segment count runs the plain ring. */
static ts_status ring_or_doubling(build_t *b, const gview_t *g, uint64_t bytes, uint64_t seg)
{
    uint64_t elem = b->model->elem, count = bytes / elem;
    if (count < (uint64_t)g->n) {
        rd_allreduce(b, g, bytes, 1);
        return TS_OK;
    }
    if (seg && count < (uint64_t)g->n * (seg / elem ? seg / elem : 1))
        seg = 0;
    ring_allreduce(b, g, bytes, seg);
    return TS_OK;
}

static ts_status build_allreduce_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    return ring_or_doubling(b, g, a->bytes, 0);
}

static ts_status build_allreduce_segmented_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    return ring_or_doubling(b, g, a->bytes, a->seg);
}

static ts_status build_allreduce_rabenseifner(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* Open MPI: fewer elements than the power-of-two core goes to recursive doubling */
    if (a->bytes / b->model->elem < (uint64_t)pow2_floor(g->n))
        rd_allreduce(b, g, a->bytes, 1);
    else
        rabenseifner(b, g, a->bytes, RAB_ALLREDUCE, 0);
    return TS_OK;
}

static ts_status build_allreduce_knomial_recursive(build_t *b, const gview_t *g,
                                                   const flat_args_t *a)
{
    kn_allreduce(b, g, b->model->ucc_radix, a->bytes, 1);
    return TS_OK;
}

/* -- bcast -- */

static ts_status build_bcast_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_bcast(b, g, TREE_STAR, 0, a->root, a->bytes, 0);
    return TS_OK;
}

static ts_status build_bcast_chain(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_bcast(b, g, TREE_CHAIN, b->model->chain_fanout, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_pipeline(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_bcast(b, g, TREE_CHAIN, 1, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_split_binary(build_t *b, const gview_t *g, const flat_args_t *a)
{
    split_binary_bcast(b, g, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_binary(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_bcast(b, g, TREE_BINARY, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_bcast(b, g, TREE_BINOMIAL, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_knomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_bcast(b, g, TREE_KNOMIAL, b->model->knomial_radix, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_bcast_scatter_allgather(build_t *b, const gview_t *g, const flat_args_t *a)
{
    scatter_allgather_bcast(b, g, a->root, a->bytes, 0);
    return TS_OK;
}

static ts_status build_bcast_scatter_allgather_ring(build_t *b, const gview_t *g,
                                                    const flat_args_t *a)
{
    scatter_allgather_bcast(b, g, a->root, a->bytes, 1);
    return TS_OK;
}

/* -- reduce -- */

static ts_status build_reduce_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: the root receives and combines one rank at a time */
    if (g->me != a->root) {
        send_to(b, g, a->root, a->bytes);
        end_round(b, 0);
        return TS_OK;
    }
    for (int32_t i = 0; i < g->n; i++)
        if (i != a->root) {
            recv_from(b, g, i, a->bytes);
            end_round(b, a->bytes);
        }
    return TS_OK;
}

static ts_status build_reduce_chain(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_reduce(b, g, TREE_CHAIN, b->model->chain_fanout, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_pipeline(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_reduce(b, g, TREE_CHAIN, 1, a->root, a->bytes, a->seg);
    return TS_OK;
}

/* Also in-order binary: with a commutative operation the order changes nothing here. */
static ts_status build_reduce_binary(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_reduce(b, g, TREE_BINARY, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_reduce(b, g, TREE_BINOMIAL, 2, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_knomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_reduce(b, g, TREE_KNOMIAL, b->model->ucc_radix, a->root, a->bytes, a->seg);
    return TS_OK;
}

static ts_status build_reduce_rabenseifner(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* Open MPI: fewer elements than the power-of-two core goes to the binomial tree */
    if (a->bytes / b->model->elem < (uint64_t)pow2_floor(g->n))
        tree_reduce(b, g, TREE_BINOMIAL, 2, a->root, a->bytes, 0);
    else
        rabenseifner(b, g, a->bytes, RAB_REDUCE, a->root);
    return TS_OK;
}

/* -- allgather (and allgatherv: bytes is the block of one rank) -- */

static ts_status build_allgather_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: gather to 0, then bcast everything */
    linear_gather(b, g, 0, a->bytes, 0, 1);
    tree_bcast(b, g, TREE_STAR, 0, 0, a->bytes * (uint64_t)g->n, 0);
    return TS_OK;
}

static ts_status build_allgather_bruck(build_t *b, const gview_t *g, const flat_args_t *a)
{
    allgather_bruck(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_recursive_doubling(build_t *b, const gview_t *g,
                                                    const flat_args_t *a)
{
    allgather_rd(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    allgather_ring(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_neighbor(build_t *b, const gview_t *g, const flat_args_t *a)
{
    allgather_neighbor(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_allgather_two_proc(build_t *b, const gview_t *g, const flat_args_t *a)
{
    two_proc(b, g, a->bytes, allgather_ring);
    return TS_OK;
}

/* -- alltoall (and alltoallv / w: bytes is the block per peer) -- */

/* Also linear_sync, modelled as linear (its bounded window of requests is not). */
static ts_status build_alltoall_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    alltoall_linear(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_alltoall_pairwise(build_t *b, const gview_t *g, const flat_args_t *a)
{
    alltoall_pairwise(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_alltoall_bruck(build_t *b, const gview_t *g, const flat_args_t *a)
{
    alltoall_bruck(b, g, a->bytes);
    return TS_OK;
}

static ts_status build_alltoall_two_proc(build_t *b, const gview_t *g, const flat_args_t *a)
{
    two_proc(b, g, a->bytes, alltoall_pairwise);
    return TS_OK;
}

/* -- barrier (messages of 0 bytes; a->bytes is ignored) -- */

static ts_status build_barrier_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    linear_gather(b, g, 0, 0, 0, 1);
    tree_bcast(b, g, TREE_STAR, 0, 0, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_double_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    barrier_double_ring(b, g);
    return TS_OK;
}

static ts_status build_barrier_recursive_doubling(build_t *b, const gview_t *g,
                                                  const flat_args_t *a)
{
    (void)a;
    rd_allreduce(b, g, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_bruck(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    barrier_bruck(b, g);
    return TS_OK;
}

static ts_status build_barrier_two_proc(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    if (g->n != 2)
        barrier_bruck(b, g);
    else
        exchange(b, g, 1 - g->me, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_tree(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    tree_reduce(b, g, TREE_BINOMIAL, 2, 0, 0, 0);
    tree_bcast(b, g, TREE_BINOMIAL, 2, 0, 0, 0);
    return TS_OK;
}

static ts_status build_barrier_knomial_recursive(build_t *b, const gview_t *g, const flat_args_t *a)
{
    (void)a;
    kn_allreduce(b, g, b->model->ucc_radix, 0, 0);
    return TS_OK;
}

/* -- gather and scatter (and their v variants: bytes is one rank's block) -- */

static ts_status build_gather_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    linear_gather(b, g, a->root, a->bytes, 0, 0);
    return TS_OK;
}

/* linear_sync and linear_nb: the root posts every transfer at once. */
static ts_status build_gather_linear_all(build_t *b, const gview_t *g, const flat_args_t *a)
{
    linear_gather(b, g, a->root, a->bytes, 0, 1);
    return TS_OK;
}

static ts_status build_gather_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_gather(b, g, TREE_BINOMIAL, a->root, a->bytes, 0);
    return TS_OK;
}

static ts_status build_scatter_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    linear_gather(b, g, a->root, a->bytes, 1, 0);
    return TS_OK;
}

static ts_status build_scatter_linear_all(build_t *b, const gview_t *g, const flat_args_t *a)
{
    linear_gather(b, g, a->root, a->bytes, 1, 1);
    return TS_OK;
}

static ts_status build_scatter_binomial(build_t *b, const gview_t *g, const flat_args_t *a)
{
    tree_gather(b, g, TREE_BINOMIAL, a->root, a->bytes, 1);
    return TS_OK;
}

/* -- reduce_scatter (and reduce_scatter_block) -- */

static ts_status build_reduce_scatter_nonoverlapping(build_t *b, const gview_t *g,
                                                     const flat_args_t *a)
{
    /* tuned's reduce to 0, then a linear scatter of each rank's block */
    ts_status st = flat_fixed(b, TS_COLL_REDUCE, g, 0, a->bytes);
    if (!st)
        linear_gather(b, g, 0, block_bytes(a->bytes, b->model->elem, g->n, g->me), 1, 1);
    return st;
}

/* Also butterfly, which the model runs as recursive halving. */
static ts_status build_reduce_scatter_recursive_halving(build_t *b, const gview_t *g,
                                                        const flat_args_t *a)
{
    rabenseifner(b, g, a->bytes, RAB_REDUCE_SCATTER, 0);
    return TS_OK;
}

static ts_status build_reduce_scatter_ring(build_t *b, const gview_t *g, const flat_args_t *a)
{
    int32_t n = g->n, me = g->me;
    for (int32_t k = 0; k < n - 1; k++) {
        uint64_t sb = block_bytes(a->bytes, b->model->elem, n, (me - k - 1 + 2 * n) % n);
        uint64_t rb = block_bytes(a->bytes, b->model->elem, n, (me - k - 2 + 2 * n) % n);
        send_to(b, g, (me + 1) % n, sb);
        recv_from(b, g, (me - 1 + n) % n, rb);
        end_round(b, rb);
    }
    return TS_OK;
}

/* -- scan and exscan -- */

static ts_status build_scan_linear(build_t *b, const gview_t *g, const flat_args_t *a)
{
    /* coll/basic: rank i waits for the prefix of i-1, combines, passes it on. */
    if (g->me > 0) {
        recv_from(b, g, g->me - 1, a->bytes);
        end_round(b, a->bytes);
    }
    if (g->me < g->n - 1) {
        send_to(b, g, g->me + 1, a->bytes);
        end_round(b, 0);
    }
    return TS_OK;
}

/* ---- the dispatch ---- */

/* The operation whose algorithms op runs: a v or w variant runs its base operation's
 * schedule on the per-rank payload, exscan runs scan's; -1 for the handle operations, which
 * move no data. */
static int flat_family(int op)
{
    switch (op) {
    case TS_COLL_ALLGATHERV:
        return TS_COLL_ALLGATHER;
    case TS_COLL_ALLTOALLV:
    case TS_COLL_ALLTOALLW:
        return TS_COLL_ALLTOALL;
    case TS_COLL_GATHERV:
        return TS_COLL_GATHER;
    case TS_COLL_SCATTERV:
        return TS_COLL_SCATTER;
    case TS_COLL_REDUCE_SCATTER_BLOCK:
        return TS_COLL_REDUCE_SCATTER;
    case TS_COLL_EXSCAN:
        return TS_COLL_SCAN;
    case TS_COLL_ALLREDUCE:
    case TS_COLL_BCAST:
    case TS_COLL_REDUCE:
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLTOALL:
    case TS_COLL_BARRIER:
    case TS_COLL_GATHER:
    case TS_COLL_SCATTER:
    case TS_COLL_REDUCE_SCATTER:
    case TS_COLL_SCAN:
        return op;
    default:
        return -1;
    }
}

/* Every algorithm each operation can run, by Open MPI's name (coll.h); an empty cell is an
 * algorithm the operation does not have. */
static const flat_builder FLAT[TS_COLL__COUNT][TS_CALG__COUNT] = {
    [TS_COLL_ALLREDUCE] =
        {
            [TS_CALG_LINEAR] = build_allreduce_linear,
            [TS_CALG_NONOVERLAPPING] = build_allreduce_nonoverlapping,
            [TS_CALG_RECURSIVE_DOUBLING] = build_allreduce_recursive_doubling,
            [TS_CALG_RING] = build_allreduce_ring,
            [TS_CALG_SEGMENTED_RING] = build_allreduce_segmented_ring,
            [TS_CALG_RABENSEIFNER] = build_allreduce_rabenseifner,
            [TS_CALG_KN_RECURSIVE] = build_allreduce_knomial_recursive,
        },
    [TS_COLL_BCAST] =
        {
            [TS_CALG_LINEAR] = build_bcast_linear,
            [TS_CALG_CHAIN] = build_bcast_chain,
            [TS_CALG_PIPELINE] = build_bcast_pipeline,
            [TS_CALG_SPLIT_BINARY] = build_bcast_split_binary,
            [TS_CALG_BINARY] = build_bcast_binary,
            [TS_CALG_BINOMIAL] = build_bcast_binomial,
            [TS_CALG_KNOMIAL] = build_bcast_knomial,
            [TS_CALG_SCATTER_ALLGATHER] = build_bcast_scatter_allgather,
            [TS_CALG_SCATTER_ALLGATHER_RING] = build_bcast_scatter_allgather_ring,
        },
    [TS_COLL_REDUCE] =
        {
            [TS_CALG_LINEAR] = build_reduce_linear,
            [TS_CALG_CHAIN] = build_reduce_chain,
            [TS_CALG_PIPELINE] = build_reduce_pipeline,
            [TS_CALG_BINARY] = build_reduce_binary,
            [TS_CALG_IN_ORDER_BINARY] = build_reduce_binary,
            [TS_CALG_BINOMIAL] = build_reduce_binomial,
            [TS_CALG_KNOMIAL] = build_reduce_knomial,
            [TS_CALG_RABENSEIFNER] = build_reduce_rabenseifner,
        },
    [TS_COLL_ALLGATHER] =
        {
            [TS_CALG_LINEAR] = build_allgather_linear,
            [TS_CALG_BRUCK] = build_allgather_bruck,
            [TS_CALG_RECURSIVE_DOUBLING] = build_allgather_recursive_doubling,
            [TS_CALG_RING] = build_allgather_ring,
            [TS_CALG_NEIGHBOR] = build_allgather_neighbor,
            [TS_CALG_TWO_PROC] = build_allgather_two_proc,
        },
    [TS_COLL_ALLTOALL] =
        {
            [TS_CALG_LINEAR] = build_alltoall_linear,
            [TS_CALG_LINEAR_SYNC] = build_alltoall_linear,
            [TS_CALG_PAIRWISE] = build_alltoall_pairwise,
            [TS_CALG_BRUCK] = build_alltoall_bruck,
            [TS_CALG_TWO_PROC] = build_alltoall_two_proc,
        },
    [TS_COLL_BARRIER] =
        {
            [TS_CALG_LINEAR] = build_barrier_linear,
            [TS_CALG_DOUBLE_RING] = build_barrier_double_ring,
            [TS_CALG_RECURSIVE_DOUBLING] = build_barrier_recursive_doubling,
            [TS_CALG_BRUCK] = build_barrier_bruck,
            [TS_CALG_TWO_PROC] = build_barrier_two_proc,
            [TS_CALG_TREE] = build_barrier_tree,
            [TS_CALG_KN_RECURSIVE] = build_barrier_knomial_recursive,
        },
    [TS_COLL_GATHER] =
        {
            [TS_CALG_LINEAR] = build_gather_linear,
            [TS_CALG_LINEAR_SYNC] = build_gather_linear_all,
            [TS_CALG_LINEAR_NB] = build_gather_linear_all,
            [TS_CALG_BINOMIAL] = build_gather_binomial,
        },
    [TS_COLL_SCATTER] =
        {
            [TS_CALG_LINEAR] = build_scatter_linear,
            [TS_CALG_LINEAR_SYNC] = build_scatter_linear_all,
            [TS_CALG_LINEAR_NB] = build_scatter_linear_all,
            [TS_CALG_BINOMIAL] = build_scatter_binomial,
        },
    [TS_COLL_REDUCE_SCATTER] =
        {
            [TS_CALG_NONOVERLAPPING] = build_reduce_scatter_nonoverlapping,
            [TS_CALG_RECURSIVE_HALVING] = build_reduce_scatter_recursive_halving,
            [TS_CALG_BUTTERFLY] = build_reduce_scatter_recursive_halving,
            [TS_CALG_RING] = build_reduce_scatter_ring,
        },
    [TS_COLL_SCAN] =
        {
            [TS_CALG_LINEAR] = build_scan_linear,
        },
};

/* The caller's schedule of op by algorithm alg on group g. TS_EARG for an algorithm that op
 * does not have; nothing (TS_OK) on a group of one rank or for an operation that moves no
 * data. */
static ts_status flat(build_t *b, int op, ts_coll_alg alg, const gview_t *g, int32_t root,
                      uint64_t bytes, uint64_t seg)
{
    if (g->n <= 1)
        return TS_OK;
    int family = flat_family(op);
    if (family < 0)
        return TS_OK;
    if ((unsigned)alg >= TS_CALG__COUNT || !FLAT[family][alg])
        return TS_EARG;
    flat_args_t a = {.root = root < 0 ? 0 : root, .bytes = bytes, .seg = seg};
    return FLAT[family][alg](b, g, &a);
}

/* ---- hierarchical components ---------------------------------------------------------- */

/* The members of each level that the caller belongs to: L0 (socket or NUMA domain, HCOLL
 * only), the node, and the node leaders. A group's leader is the root when the root is in
 * it (so data never travels back to the root), else its lowest rank. */
typedef struct hier_s {
    int32_t *buf;
    gview_t l0, node, lead; /* n = 0 where the caller is not a member */
} hier_t;

/* The leader of rank i's group at a level: the root when it shares the group, else the
 * group's lowest rank. level 0: socket (or NUMA domain) within the node; 1: the node. */
static int32_t leader_of(const ts_coll_topo_t *t, int32_t root, int level, int32_t i, int by_numa)
{
    const int32_t *grp = level ? t->node : by_numa ? t->numa : t->socket;
    const int32_t *low = level ? t->low_node : by_numa ? t->low_numa : t->low_socket;
    if (root >= 0 && grp[root] == grp[i] && t->node[root] == t->node[i])
        return root;
    return low[i];
}

static int hier_build(const ts_coll_topo_t *t, int32_t me, int32_t root, int two_level, int by_numa,
                      hier_t *h)
{
    int32_t n = t->n;
    memset(h, 0, sizeof *h);
    h->buf = malloc((size_t)n * 3 * sizeof *h->buf);
    if (!h->buf)
        return -1;
    int32_t *l0 = h->buf, *nd = h->buf + n, *ld = h->buf + 2 * n;
    int lvl0 = two_level ? 1 : 0;
    int32_t my_l0 = leader_of(t, root, lvl0, me, by_numa);
    int32_t my_node = leader_of(t, root, 1, me, by_numa);
    int32_t root_node = root >= 0 ? root : -1; /* the root leads its own node */
    int32_t n0 = 0, nn = 0, nl = 0;
    /* Leaders first in each list, so that index 0 is the group's root. */
    l0[n0++] = my_l0;
    for (int32_t j = 0; j < n; j++)
        if (j != my_l0 && t->node[j] == t->node[me] &&
            leader_of(t, root, lvl0, j, by_numa) == my_l0)
            l0[n0++] = j;
    for (int32_t i = 0; i < n0; i++)
        if (l0[i] == me)
            h->l0 = (gview_t){l0, n0, i};
    if (me == my_l0 && !two_level) {
        nd[nn++] = my_node;
        for (int32_t j = 0; j < n; j++)
            if (j != my_node && t->node[j] == t->node[me] && leader_of(t, root, 0, j, by_numa) == j)
                nd[nn++] = j;
        for (int32_t i = 0; i < nn; i++)
            if (nd[i] == me)
                h->node = (gview_t){nd, nn, i};
    }
    if (me == my_node) {
        if (root_node >= 0)
            ld[nl++] = root_node;
        for (int32_t j = 0; j < n; j++)
            if (j != root_node && leader_of(t, root, 1, j, by_numa) == j)
                ld[nl++] = j;
        for (int32_t i = 0; i < nl; i++)
            if (ld[i] == me)
                h->lead = (gview_t){ld, nl, i};
    }
    return 0;
}

/* HCOLL: fan-in through shared memory (k-nomial trees inside each socket, then among the
 * node's socket leaders), the node leaders exchange over the network, fan-out the same way
 * back. HAN: two levels (node, leaders), with tuned's own choices inside the node. */
static ts_status hier(build_t *b, const ts_coll_choice_t *c, int op, const ts_coll_topo_t *t,
                      int32_t me, int32_t root, uint64_t bytes)
{
    const ts_coll_model_t *m = b->model;
    int han = c->comp == TS_CCOMP_HAN;
    hier_t h;
    if (hier_build(t, me, root, han, m->hcoll_by_numa, &h))
        return TS_ENOMEM;
    int32_t r = m->sm_radix;
    ts_status st = TS_OK;
    uint64_t data = op == TS_COLL_BARRIER ? 0 : bytes;
    gview_t *levels[2] = {&h.l0, &h.node};
    int nlev = han ? 1 : 2;
    switch (op) {
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE:
    case TS_COLL_BARRIER:
        /* up */
        for (int l = 0; l < nlev; l++)
            if (levels[l]->n > 1) {
                if (han)
                    st = flat_fixed(b, TS_COLL_REDUCE, levels[l], 0, data);
                else
                    tree_reduce(b, levels[l], TREE_KNOMIAL, r, 0, data, 0);
            }
        if (st)
            break;
        if (h.lead.n > 1) {
            if (op == TS_COLL_REDUCE)
                tree_reduce(b, &h.lead, TREE_BINOMIAL, 2, 0, data, 0);
            else if (han || m->net_radix == 2)
                rd_allreduce(b, &h.lead, data, op != TS_COLL_BARRIER);
            else
                kn_allreduce(b, &h.lead, m->net_radix, data, op != TS_COLL_BARRIER);
        }
        if (op == TS_COLL_REDUCE)
            break;
        /* down */
        for (int l = nlev - 1; l >= 0; l--)
            if (levels[l]->n > 1) {
                if (han)
                    st = flat_fixed(b, TS_COLL_BCAST, levels[l], 0, data);
                else
                    tree_bcast(b, levels[l], TREE_KNOMIAL, r, 0, data, 0);
            }
        break;
    case TS_COLL_BCAST:
        if (h.lead.n > 1)
            tree_bcast(b, &h.lead, TREE_BINOMIAL, 2, 0, data, han ? c->segsize : 0);
        for (int l = nlev - 1; l >= 0 && !st; l--)
            if (levels[l]->n > 1) {
                if (han)
                    st = flat_fixed(b, TS_COLL_BCAST, levels[l], 0, data);
                else
                    tree_bcast(b, levels[l], TREE_KNOMIAL, r, 0, data, 0);
            }
        break;
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLGATHERV:
    case TS_COLL_GATHER:
    case TS_COLL_SCATTER: {
        /* Gather blocks up to the node leaders (each level passes its whole group's blocks),
         * exchange node blocks among leaders (ring; gather: to the root's leader), then
         * broadcast everything down (allgather) or scatter it (scatter). */
        int scatter = op == TS_COLL_SCATTER;
        int all = op == TS_COLL_ALLGATHER || op == TS_COLL_ALLGATHERV;
        uint64_t node_ranks = 0;
        for (int32_t j = 0; j < t->n; j++)
            node_ranks += t->node[j] == t->node[me];
        if (scatter) {
            if (h.lead.n > 1)
                tree_gather(b, &h.lead, TREE_BINOMIAL, 0, bytes * node_ranks, 1);
            for (int l = nlev - 1; l >= 0; l--)
                if (levels[l]->n > 1)
                    linear_gather(b, levels[l], 0, bytes, 1, 1);
            break;
        }
        uint64_t have = bytes;
        for (int l = 0; l < nlev; l++)
            if (levels[l]->n > 1) {
                linear_gather(b, levels[l], 0, have, 0, 1);
                if (levels[l]->me == 0)
                    have *= (uint64_t)levels[l]->n;
            }
        if (h.lead.n > 1) {
            if (all)
                allgather_ring(b, &h.lead, bytes * node_ranks);
            else
                tree_gather(b, &h.lead, TREE_BINOMIAL, 0, bytes * node_ranks, 0);
        }
        if (all)
            for (int l = nlev - 1; l >= 0; l--)
                if (levels[l]->n > 1) {
                    if (han)
                        st = flat_fixed(b, TS_COLL_BCAST, levels[l], 0, bytes * (uint64_t)t->n);
                    else
                        tree_bcast(b, levels[l], TREE_KNOMIAL, r, 0, bytes * (uint64_t)t->n, 0);
                }
        break;
    }
    default:
        st = TS_EARG;
    }
    /* Reduce's result lands at the root's node leader, which is the root (leaders are the
     * root where it is a member). */
    free(h.buf);
    return st;
}

ts_status ts_coll_schedule(const ts_coll_model_t *m, const ts_coll_choice_t *choice, int op,
                           const ts_coll_topo_t *topo, int32_t me, int32_t root, uint64_t bytes,
                           ts_csched_t *out)
{
    out->n = 0;
    out->rounds = 0;
    build_t b = {.model = m, .s = out};
    ts_status st = TS_OK;
    if (choice->comp == TS_CCOMP_NONE || topo->n <= 1)
        return TS_OK;
    if (choice->alg == TS_CALG_HIER) {
        st = hier(&b, choice, op, topo, me, root, bytes);
    } else {
        gview_t g = {NULL, topo->n, me};
        st = flat(&b, op, choice->alg, &g, root, bytes, choice->segsize);
    }
    if (b.oom)
        return TS_ENOMEM;
    return st;
}

void ts_csched_free(ts_csched_t *s)
{
    free(s->step);
    s->step = NULL;
    s->n = s->cap = 0;
}
