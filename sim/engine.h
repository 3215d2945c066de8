/* engine.h - the replay engine: executes every rank's event stream in virtual-time order
 * (one SimGrid actor runs all ranks; SimGrid actors carry the flows) with MPI's
 * point-to-point semantics (matching on communicator, source and tag in FIFO
 * order, requests that complete as their protocol dictates), compute bursts as delays
 * scaled to the target CPU, and data moved through the platform so that flows contend.
 * What each message costs comes from models/protocol; this is the only module that calls
 * SimGrid (README.md, "Layout"). Its files are named in engine_int.h.
 *
 * SimGrid's engine is a per-process singleton: ts_replay_run may be called once per
 * process (sweeps run each replay in its own worker process). */
#ifndef TS_ENGINE_H
#define TS_ENGINE_H

#include <stdint.h>

#include "../common/status.h"
#include "../models/coll.h"
#include "../models/protocol.h"
#include "../traces/trace.h"

/* Where ranks run, as the engine needs it: a SimGrid host per rank and the locality class
 * of every pair (from platforms/placement). */
typedef struct ts_replay_layout_s {
    const char *platform_xml;     /* SimGrid platform file */
    const char *const *rank_host; /* host name per world rank */
    ts_locality (*locality)(const void *ctx, int32_t a, int32_t b);
    const void *locality_ctx;
} ts_replay_layout_t;

typedef struct ts_replay_spec_s {
    const ts_trace_t *trace;
    const char *trace_name; /* for messages; NULL: the trace's path */
    const ts_proto_model_t *proto;
    const ts_coll_model_t *coll; /* collective selection and schedules; NULL: the defaults */
    ts_replay_layout_t layout;
    double compute_scale; /* traced burst x compute_scale = simulated burst */
    /* Per world rank, a further factor on its bursts (the load-balance what-if,
     * model.cpu.balance); NULL: 1 for every rank. */
    const double *rank_scale;
    /* Eager messages of at most this many wire bytes that complete at the sender are timed
     * without a network flow: they arrive latency + bytes / transport bandwidth after they
     * leave (model.net.flowless_bytes). 0: only empty messages skip the network. */
    uint64_t flowless_bytes;
    /* Called now and then (every 65,536 events, all ranks together) with the events replayed
     * so far and the trace's total, for a progress display; NULL: none. It must not call
     * SimGrid. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* Keep each rank's time per function too (ts_replay_result_t.rank_time): what a
     * benchmark's t_min / t_max / t_avg over ranks need (commands/imb). */
    int rank_times;
} ts_replay_spec_t;

/* Collective calls served by one (operation, component, algorithm, decision): calls are
 * counted per rank (a 72-rank Allreduce is 72 calls), time is summed over ranks. */
typedef struct ts_coll_stat_s {
    uint8_t op, comp, alg;
    int16_t rule; /* as in ts_coll_choice_t */
    uint64_t calls;
    uint64_t bytes_min, bytes_max; /* per-rank payload */
    uint64_t msgs;                 /* point-to-point messages the schedules sent */
    double time;
    char why[96];
} ts_coll_stat_t;

/* Per (transport, protocol): messages and bytes. */
typedef struct ts_proto_count_s {
    uint64_t msgs, bytes;
} ts_proto_count_t;

typedef struct ts_replay_result_s {
    double makespan;      /* simulated time until the last rank finished */
    double rank0_elapsed; /* rank 0's finish time (what OpenFOAM's ExecutionTime mirrors) */
    int32_t nfuncs;       /* as in the trace */
    uint64_t *visits;     /* per function, summed over ranks */
    double *time;         /* per function, simulated seconds summed over ranks */
    double compute_time;  /* summed over ranks */
    /* With spec->rank_times: simulated seconds of rank r in function f at
     * [r * nfuncs + f] (nranks x nfuncs); else NULL. */
    int32_t nranks;
    double *rank_time;
    ts_proto_count_t count[TS_TR__COUNT][TS_PROTO__COUNT];
    /* What the replay asked the protocol model, each question once (unordered), and whether
     * that is every question (0 when the engine's cache of plans overflowed): a model that
     * answers each alike replays this trace alike (ts_proto_model_alike). */
    ts_plan_ask_t *asks;
    size_t nasks;
    int asks_all;
    ts_coll_stat_t *coll; /* per (op, component, algorithm, decision), in first-use order */
    size_t ncoll;
} ts_replay_result_t;

/* Replay spec->trace. On success *out holds the result (free with ts_replay_result_free).
 * A trace that cannot complete (a receive nobody sends, a wait on a request never posted)
 * fails with TS_EUNMATCHED and a message naming each blocked rank and what it waits for. */
ts_status ts_replay_run(const ts_replay_spec_t *spec, ts_replay_result_t **out, ts_error_t *err);
void ts_replay_result_free(ts_replay_result_t *r);

#endif
