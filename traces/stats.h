/* stats.h - summary statistics of a trace: the per-MPI-function profile (as scorep-score
 * shows it), message-size histograms, the communication matrix summary and the
 * send/receive matching check. Computed in one pass over every rank's stream. */
#ifndef TS_STATS_H
#define TS_STATS_H

#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

typedef struct ts_stats_s ts_stats_t;

/* Per MPI function, summed over ranks. bytes = bytes sent + bytes received by the records
 * inside the calls (collectives: Score-P's sizeSent + sizeReceived). */
typedef struct ts_func_stats_s {
    uint64_t visits;
    int64_t time_ns;
    uint64_t bytes;
} ts_func_stats_t;

/* Log2 size histogram: bucket 0 holds 0-byte messages, bucket k >= 1 holds sizes in
 * [2^(k-1), 2^k). */
#define TS_HIST_BUCKETS 65
typedef struct ts_hist_s {
    uint64_t count[TS_HIST_BUCKETS];
} ts_hist_t;

/* Lower and upper (exclusive) bound of bucket k. */
uint64_t ts_hist_lo(int k);
uint64_t ts_hist_hi(int k);

typedef struct ts_matrix_summary_s {
    uint64_t pairs; /* ordered (src, dst) pairs with at least one message */
    uint64_t neighbours_min, neighbours_max;
    double neighbours_mean; /* distinct destinations per rank */
    uint64_t pair_bytes_min, pair_bytes_max;
    double pair_bytes_mean;
    uint64_t intra_msgs, intra_bytes, inter_msgs, inter_bytes;
} ts_matrix_summary_t;

typedef struct ts_match_summary_s {
    uint64_t sends, recvs;    /* point-to-point messages sent / received */
    uint64_t unmatched_sends; /* sends no receive consumed */
    uint64_t unmatched_recvs; /* receives no send produced */
    uint64_t byte_mismatches; /* (src, dst, comm, tag) streams whose byte totals differ */
} ts_match_summary_t;

/* How unevenly the ranks compute, as a replay turns it into waiting. An interval is the
 * compute of a rank between two blocking collectives on a communicator of every rank (the
 * synchronisations: each rank waits there for the slowest). interval_ratio = the sum over
 * intervals of the slowest rank's compute / the sum of the mean rank's; rank_ratio = the
 * slowest rank's compute over all intervals / the mean rank's. interval_ratio well above
 * rank_ratio means the slowest rank changes from interval to interval: with ranks recorded
 * on fewer cores, noise (docs/recording-noise.md). intervals = 0 when the ranks do not make
 * the same number of such collectives (then neither ratio is defined). */
typedef struct ts_imbalance_s {
    uint64_t intervals;
    double interval_ratio, rank_ratio;
} ts_imbalance_t;

/* Compute the statistics. On failure (a damaged stream) err names the rank and event. */
ts_status ts_stats_compute(const ts_trace_t *trace, ts_stats_t **out, ts_error_t *err);
void ts_stats_free(ts_stats_t *stats);

const ts_func_stats_t *ts_stats_func(const ts_stats_t *s, int32_t func);
uint64_t ts_stats_events(const ts_stats_t *s);
int64_t ts_stats_mpi_ns(const ts_stats_t *s);     /* summed over ranks */
int64_t ts_stats_compute_ns(const ts_stats_t *s); /* summed over ranks */
const ts_hist_t *ts_stats_p2p_hist(const ts_stats_t *s);
/* Histogram of per-rank payloads (ts_coll_payload) of collective op, NULL if none. */
const ts_hist_t *ts_stats_coll_hist(const ts_stats_t *s, int op);
const ts_matrix_summary_t *ts_stats_matrix(const ts_stats_t *s);
const ts_match_summary_t *ts_stats_match(const ts_stats_t *s);
const ts_imbalance_t *ts_stats_imbalance(const ts_stats_t *s);
/* Bytes sent from world rank src to dst (point-to-point). */
uint64_t ts_stats_pair_bytes(const ts_stats_t *s, int32_t src, int32_t dst);

#endif
