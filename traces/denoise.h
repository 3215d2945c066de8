/* denoise.h - one recording's compute bursts replaced by the least of several recordings of
 * the same run. Why: the project's own recordings run 72 ranks on 2 cores, and a burst that
 * a rank spends descheduled and cache-cold comes out longer at random. The replay takes the
 * longest rank of every synchronisation as its critical path, so such noise turns into
 * imbalance that the real run does not have (docs/recording-noise.md measures it: the same
 * burst can differ by more than twice between two recordings). A deterministic solver does
 * the same work in every
 * recording, and noise only adds time, so the least of the recordings is the better estimate.
 *
 * Alignment: the recordings must make the same MPI calls in the same order on every rank
 * (the same run, the same decomposition). The gap before each call of the base recording (all
 * its compute since the previous call) is matched with the gap before the same call of each
 * other recording, by function name and by what the call before it sends (its messages'
 * peers, tags and sizes, its collective's operation and sizes, in any order: a run with
 * other message sizes is another run; completions, which depend on timing, are not
 * compared); where
 * a recording stops, calls something else or sends something else, it is left out for the
 * rest of that rank (a shorter recording ends earlier; counted in the
 * stats). The base's events stay as they are but for the compute durations, scaled within
 * each gap to the least gap's sum (integer nanoseconds, the sum exact). */
#ifndef TS_DENOISE_H
#define TS_DENOISE_H

#include <stdint.h>

#include "../common/status.h"
#include "trace.h"

enum { TS_DENOISE_MAX = 16 }; /* other recordings at most */

typedef struct ts_denoise_stats_s {
    uint64_t calls;                         /* the base's MPI calls, all ranks */
    uint64_t matched[TS_DENOISE_MAX];       /* calls each other recording matched */
    uint64_t lowered[TS_DENOISE_MAX];       /* gaps in which it was the least (below the base) */
    int32_t diverged_rank[TS_DENOISE_MAX];  /* the first rank where it stopped matching, or -1 */
    uint64_t diverged_call[TS_DENOISE_MAX]; /* and at which of that rank's calls (0-based) */
    double compute_before, compute_after;   /* the base's compute, seconds summed over ranks */
} ts_denoise_stats_t;

/* Build the denoised trace in memory (*out, owned by the caller: ts_trace_close). Fails
 * with TS_EARG (one line naming the file) when a recording has another rank count or
 * matches less than a tenth of the base's calls (another run: a shorter recording of the
 * same run matches its iterations, 2 of 6 are a third), TS_EARG when nothers is not
 * 1..TS_DENOISE_MAX, TS_ENOMEM, or a reading error of a recording. */
ts_status ts_denoise(const ts_trace_t *base, const ts_trace_t *const *others, int nothers,
                     ts_trace_t **out, ts_denoise_stats_t *stats, ts_error_t *err);

/* One recording's bursts replaced by the median of their class: within a rank, the gaps
 * (all compute between two MPI calls) whose calls on both sides look alike (function, and
 * every record's kind, peer, tag and sizes) do the same work again and again, one halo
 * exchange or solver sweep of a GAMG level after another, so their median is the burst
 * without the noise a descheduled, cache-cold run adds at random (docs/recording-noise.md).
 * Classes of fewer than min_members gaps (start-up, rare calls) and gaps without compute stay
 * as they are. The rank's work per class and the number of gaps are kept: only each gap's
 * compute is scaled to its class's median (integer nanoseconds, each gap's sum exact). */
typedef struct ts_classes_stats_s {
    uint64_t gaps;                        /* gaps with compute, all ranks */
    uint64_t classes;                     /* classes of at least min_members gaps */
    uint64_t gaps_classed;                /* gaps in those classes (scaled to the median) */
    double compute_before, compute_after; /* seconds summed over ranks */
} ts_classes_stats_t;

ts_status ts_denoise_classes(const ts_trace_t *base, int min_members, ts_trace_t **out,
                             ts_classes_stats_t *stats, ts_error_t *err);

#endif
