/* extrapolate.h - a replayed window scaled to the full run with a scorep-score profile, plus
 * the profile's time outside MPI. Plain arithmetic, no SimGrid: the replay's numbers come
 * in, a prediction with what was scaled by what comes out. Two ways to scale the window's
 * MPI time, T_win(f) (simulated, summed over its N ranks) of each MPI function f:
 *
 *   by compute (the default):  ExecutionTime = compute x k + sum_f T_win(f) / N x R,
 *                              R = compute / (C_win / k / N), the run's length in windows
 *   by visits:                 ExecutionTime = compute x k
 *                                               + sum_f T_win(f) / V_win(f) x V_prof(f) / P
 *
 * with C_win the window's simulated time outside MPI summed over its ranks, V_win, V_prof
 * the window's and the profile's visits of f, P the profile's processes, and compute the
 * profile's time outside MPI per process: the ALL row less the MPI and PTHREAD groups and
 * less the profiler's own time that it counts there (visit_outside per MPI or PTHREAD visit:
 * Score-P reads a region's exit time before its exit bookkeeping), and k the replayed
 * setting's compute per burst over that of the setting the profile was measured under (1 for
 * that setting; model.cpu.nps2_compute_ratio for an NPS2 set of an NPS1 profile). The run's
 * length is a property of the run (its iterations), not of the setting: R comes from the
 * window's compute as the profiled setting would run it, and each setting's compute follows
 * its own compute model.
 * Why compute is the default: in a bulk-synchronous solver most MPI time is waiting for the
 * slowest rank, which grows with the compute between synchronisations, not with the number
 * of calls (docs/extrapolation.md compares the two on the 72-rank motorBike trace: an
 * iteration can make more Allreduce calls than the one before and spend less time in them).
 * MPI_Init(_thread) and MPI_Finalize are
 * the start-up phase: reported apart, never scaled, not part of ExecutionTime (OpenFOAM's
 * ExecutionTime starts after MPI_Init). Both rest on: the window's iterations stand for the run's
 * (same pattern, same message sizes); the visits are then a check (a warning when they disagree).
 */
#ifndef TS_EXTRAPOLATE_H
#define TS_EXTRAPOLATE_H

#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"
#include "../traces/scorep_score.h"

/* Visits per rank and iteration that differ by more than this factor between the profile and
 * the window mean the profile is of another run (or another code path): a warning. */
#define TS_XP_VISIT_FACTOR 10.0

/* One MPI function of the replayed window: visits and simulated seconds, summed over ranks. */
typedef struct ts_xp_func_s {
    const char *name;
    uint64_t visits;
    double time;
} ts_xp_func_t;

typedef enum ts_xp_scale {
    TS_XP_BY_COMPUTE = 0, /* MPI time x the run's compute / the window's */
    TS_XP_BY_VISITS       /* each function's cost per call x the profile's visits */
} ts_xp_scale;

typedef struct ts_xp_in_s {
    int32_t nranks; /* the trace's ranks */
    ts_xp_scale scale;
    double win_compute;        /* the window's simulated time outside MPI, summed over ranks
                                  (needed to scale by compute) */
    const ts_xp_func_t *funcs; /* the window's functions */
    int32_t nfuncs;
    double window_iterations; /* iterations the window's visits come from (> 0) */
    int32_t full_iterations;  /* the full run's iterations; 0: estimated from the visits */
    double visit_outside;     /* seconds of the profiler's own work per MPI or PTHREAD visit
                                 that the profile counts outside those regions, i.e. in the
                                 compute (model.scorep.visit_outside): removed from it */
    double compute_ratio;     /* k: this setting's compute per burst / the profiled setting's
                                 (win_compute is this setting's); 0 is taken as 1 */
} ts_xp_in_t;

typedef enum ts_xp_kind {
    TS_XP_SCALED = 0,  /* scaled to the full run (by compute or by visits) */
    TS_XP_STARTUP,     /* MPI_Init(_thread), MPI_Finalize: kept apart */
    TS_XP_NOT_TRACED,  /* in the profile, not in the window: not predicted */
    TS_XP_NOT_PROFILED /* in the window, not in the profile: left out */
} ts_xp_kind;

typedef struct ts_xp_row_s {
    const char *name;
    ts_xp_kind kind;
    uint64_t win_visits, prof_visits;
    double win_time, prof_time; /* seconds summed over ranks (window: simulated) */
    double per_call;            /* win_time / win_visits */
    double visits_ratio;        /* SCALED: profile visits per process / window visits per rank */
    double per_rank;            /* SCALED: this function's full-run seconds per rank */
} ts_xp_row_t;

typedef struct ts_xp_s ts_xp_t;

/* The checks that need no replay: an ALL row, and the profile's processes (its MPI_Init
 * visits) equal to the trace's ranks. TS_EARG with one line saying what disagrees. */
/* Whether the profile shows time outside MPI (its ALL row beyond its MPI and PTHREAD groups),
 * which scaling by compute needs; 1 where it has no MPI group row to tell. Known before any
 * replay, so that a command can refuse before it prints anything. */
int ts_xp_profile_has_compute(const ts_score_t *profile);
ts_status ts_xp_check(const ts_score_t *profile, const char *profile_name, int32_t nranks,
                      ts_error_t *err);

/* Scale. profile_name names the profile in messages. Fails (one line, TS_EARG) when the
 * profile is of another rank count (its MPI_Init visits), has no ALL row, shares no MPI
 * function with the window, or (by compute) the window has no compute; other disagreements
 * are warnings (ts_xp_warning). */
ts_status ts_xp_predict(const ts_score_t *profile, const char *profile_name, const ts_xp_in_t *in,
                        ts_xp_t **out, ts_error_t *err);
void ts_xp_free(ts_xp_t *x);

double ts_xp_total(const ts_xp_t *x);           /* ExecutionTime, seconds */
double ts_xp_compute(const ts_xp_t *x);         /* time outside MPI per rank, this setting */
double ts_xp_mpi(const ts_xp_t *x);             /* scaled MPI time per rank */
double ts_xp_windows(const ts_xp_t *x);         /* by compute: R, the run in windows */
double ts_xp_total_other(const ts_xp_t *x);     /* ExecutionTime scaled the other way (by
                                                   visits when by compute; by compute when by
                                                   visits and the window's compute is known,
                                                   else 0) */
double ts_xp_startup_profile(const ts_xp_t *x); /* MPI_Init + MPI_Finalize per rank, profile */
double ts_xp_startup_window(const ts_xp_t *x);  /* the same, simulated in the window */
int32_t ts_xp_profile_ranks(const ts_xp_t *x);
/* The full run's iterations: as given, or estimated (by compute: R x the window's; by
 * visits: from the most visited function). */
double ts_xp_iterations(const ts_xp_t *x);
int ts_xp_estimated(const ts_xp_t *x);
int ts_xp_nrows(const ts_xp_t *x);
const ts_xp_row_t *ts_xp_row(const ts_xp_t *x, int i);
int ts_xp_nwarnings(const ts_xp_t *x);
const char *ts_xp_warning(const ts_xp_t *x, int i);

/* The interval from the spread between the window's iterations: each[k] is the full run
 * predicted from iteration k alone (n of them). The window's prediction stands for their
 * mean; its 95 % interval is nominal +- t(0.975, n-1) x s / sqrt(n), s their standard
 * deviation (Student's t: with 3 iterations t is 4.30, so a small window says so by a wide
 * interval). Widened where needed to hold every single iteration's prediction and nominal
 * itself, and never below 0. n < 2: no spread, the interval is [min, max] of what there is. */
void ts_xp_interval(double nominal, const double *each, int n, double *lo, double *hi);

/* The "what was scaled by what" table, the assumption, the warnings and the totals. */
void ts_xp_print(const ts_xp_t *x, FILE *fp);

#endif
