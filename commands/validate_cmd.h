/* validate_cmd.h - `tunesim validate`: compare predicted run times with measured ones, per
 * setting (predicted, measured trimmed mean / median / spread, error %) and over all (mean
 * absolute % error, Spearman rank correlation, whether the measured ordering is reproduced
 * wherever the measured difference exceeds the measured spread). Predictions come from a
 * `tunesim sweep --json` file, or from running the sweep; measurements from validation/measured.h.
 * The computation is exposed for the tests. */
#ifndef TS_VALIDATE_CMD_H
#define TS_VALIDATE_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "../common/status.h"
#include "../validation/measured.h"

/* Predicted times per setting name (a sweep's "sets", plus its "baseline" when that is an
 * object with predicted_time_s and no set has the name "baseline"). */
typedef struct ts_predictions_s {
    char **names;
    double *seconds;
    size_t n;
} ts_predictions_t;

/* Read a `tunesim sweep --json` file: {"sets": [{"name": ..., "predicted_time_s": ...}, ...]}.
 * Errors name the file and the set index / key that is wrong. */
ts_status ts_predictions_read(const char *path, ts_predictions_t *out, ts_error_t *err);
void ts_predictions_free(ts_predictions_t *p);

typedef struct ts_validate_row_s {
    const char *name;     /* owned by the measured set it came from */
    double predicted_raw; /* as predicted */
    double predicted;     /* after anchoring (scale * predicted_raw) */
    ts_runstats_t measured;
    double error_pct; /* (predicted - measured trimmed mean) / measured * 100 */
    int is_anchor;
} ts_validate_row_t;

/* A pair of settings whose measured trimmed means differ by more than the larger of their
 * spreads: the ordering the prediction should reproduce. */
typedef struct ts_validate_pair_s {
    size_t faster, slower; /* row indices, by measurement */
    int reproduced;        /* the prediction orders them the same way (a tie does not) */
} ts_validate_pair_t;

typedef struct ts_validate_s {
    ts_validate_row_t *rows; /* in the measured settings' order */
    size_t n;
    const char *anchor; /* NULL when not anchored */
    double scale;       /* 1 when not anchored */
    double mape;        /* mean |error %| over the rows that are not the anchor; NAN if none */
    size_t mape_n;
    double spearman; /* rank correlation predicted vs measured; NAN if undefined */
    ts_validate_pair_t *pairs;
    size_t npairs, reproduced;
    size_t within_5pct;            /* rows (anchor excluded) with |error| <= 5 % */
    const ts_measured_t *measured; /* the input (for the runs it left out); not owned */
} ts_validate_t;

/* Match every measured setting with its prediction (a measured setting without one is an
 * error naming it), anchor on the setting named anchor (NULL: no anchoring; unknown name:
 * error) and compute the figures above. *out is freed with ts_validate_free. */
ts_status ts_validate_compute(const ts_measured_t *m, const ts_predictions_t *p, const char *anchor,
                              ts_validate_t **out, ts_error_t *err);
void ts_validate_free(ts_validate_t *v);

/* Spearman's rank correlation of x and y (ties get their mean rank); NAN when n < 2 or when
 * either side has all ranks equal. */
double ts_spearman(const double *x, const double *y, size_t n);

/* The report: an aligned table and the summary lines. */
void ts_validate_print(const ts_validate_t *v, FILE *fp);
/* The same as JSON or CSV, written atomically (common/outfile.h). */
ts_status ts_validate_write_json(const ts_validate_t *v, const char *path, ts_error_t *err);
ts_status ts_validate_write_csv(const ts_validate_t *v, const char *path, ts_error_t *err);

/* argv[0] is "validate". Usage errors return TS_EUSAGE with the message in err. */
int ts_validate_cmd(int argc, char **argv, ts_error_t *err);

#endif
