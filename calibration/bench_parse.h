/* bench_parse.h - reading micro-benchmark results as the tools print them: OSU (latency,
 * bandwidth, collective latency tests), IMB (PingPong and the collective benchmarks) and
 * tunesim-probe (OSU's layout plus "# tunesim-probe: key=value" and "# settings:" lines).
 * One file may hold several sections (the probe writes one per measurement). Each section
 * becomes a series: what was measured, between which ranks, under which settings, and its
 * (size, value) points with the line each came from. */
#ifndef TS_BENCH_PARSE_H
#define TS_BENCH_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"

typedef enum ts_bench_kind {
    TS_BENCH_LATENCY,   /* ping-pong, half the round trip (OSU latency, IMB PingPong), us */
    TS_BENCH_BW,        /* streaming bandwidth, a window of sends per ack (OSU bw), MB/s */
    TS_BENCH_REG,       /* probe: extra ping-pong time of a buffer's first use, us */
    TS_BENCH_COPY,      /* probe: memcpy bandwidth of one core, MB/s */
    TS_BENCH_ALLREDUCE, /* collective latencies, us */
    TS_BENCH_ALLTOALL,
    TS_BENCH_ALLGATHER,
    TS_BENCH_BCAST,
    TS_BENCH_WRITTEN, /* probe: extra ping-pong time of data the sender has just written, us */
    TS_BENCH_BUSY,    /* probe: extra time of a rendezvous to a computing receiver, us */
    TS_BENCH__COUNT
} ts_bench_kind;

/* Where the two ranks of a point-to-point benchmark sit. */
typedef enum ts_bench_loc {
    TS_BLOC_UNKNOWN,
    TS_BLOC_INTRA_SOCKET, /* one node, one socket */
    TS_BLOC_CROSS_SOCKET, /* one node, two sockets */
    TS_BLOC_INTER_NODE,   /* two nodes */
    TS_BLOC__COUNT
} ts_bench_loc;

typedef struct ts_bench_point_s {
    uint64_t size; /* bytes per message (per rank and peer for collectives) */
    double value;  /* us, or MB/s (10^6 bytes/s) for TS_BENCH_BW and TS_BENCH_COPY */
    int line;
} ts_bench_point_t;

typedef struct ts_bench_series_s {
    char *file;         /* as given to the parser */
    int line;           /* of the section's title */
    char *title;        /* "OSU MPI Latency Test v7.5.1", "IMB PingPong", ... */
    char *description;  /* the other comment lines, joined by " | " */
    char *settings;     /* "KEY=VALUE KEY=VALUE": UCX_* and MCA settings the header names */
    int *settings_line; /* per word of settings: the line it was read from */
    ts_bench_kind kind;
    ts_bench_loc loc;
    int ranks, nodes; /* 0 when the header does not say */
    int window;       /* sends per ack of a bandwidth test (OSU's default 64) */
    size_t npoints;
    ts_bench_point_t *points;
} ts_bench_series_t;

typedef struct ts_bench_set_s {
    size_t nseries;
    ts_bench_series_t *series;
} ts_bench_set_t;

/* Append the sections of path (or of fp, named name in messages) to set. Malformed input
 * fails with one line: "FILE:LINE: expected ..., got '...'"; set keeps what it had before. */
ts_status ts_bench_parse_file(ts_bench_set_t *set, const char *path, ts_error_t *err);
ts_status ts_bench_parse_stream(ts_bench_set_t *set, FILE *fp, const char *name, ts_error_t *err);
/* Free what set holds (set itself is the caller's) and zero it. */
void ts_bench_set_clear(ts_bench_set_t *set);

/* "latency", "bw", "reg", "copy", "allreduce", "alltoall", "allgather", "bcast". */
const char *ts_bench_kind_name(ts_bench_kind k);
/* "unknown", "intra-socket", "cross-socket", "inter-node". */
const char *ts_bench_loc_name(ts_bench_loc l);
/* 1 for kinds whose values are bandwidths (MB/s), 0 for times (us). */
int ts_bench_kind_is_bw(ts_bench_kind k);
/* The kind's figures are differences of two timings (the probe's registration, written-buffer
 * and busy-receiver tests), which noise can take below zero. */
int ts_bench_kind_is_diff(ts_bench_kind k);

#endif
