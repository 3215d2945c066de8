/* validate_cmd.c - `tunesim validate` (see validate_cmd.h): predicted vs measured run times. */
#include "validate_cmd.h"
#include "sweep_cmd.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/numparse.h"
#include "../common/jsontext.h"
#include "../common/infile.h"
#include "../common/outfile.h"
#include "../common/tmpfiles.h"
#include "options.h"

/* ---- predictions ------------------------------------------------------------------------ */

void ts_predictions_free(ts_predictions_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->names[i]);
    free(p->names);
    free(p->seconds);
    memset(p, 0, sizeof *p);
}

static ts_status pred_add(ts_predictions_t *p, const char *name, double s, ts_error_t *err)
{
    char **n = realloc(p->names, (p->n + 1) * sizeof *n);
    if (!n)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    p->names = n;
    double *v = realloc(p->seconds, (p->n + 1) * sizeof *v);
    if (!v)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    p->seconds = v;
    if (!(n[p->n] = strdup(name)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    v[p->n++] = s;
    return TS_OK;
}

static int pred_find(const ts_predictions_t *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->names[i], name) == 0)
            return (int)i;
    return -1;
}

/* A positive predicted time from obj's "predicted_time_s", or -1 with err set. */
static double pred_time(json_object *obj, const char *path, const char *where, ts_error_t *err)
{
    json_object *t;
    if (!json_object_object_get_ex(obj, "predicted_time_s", &t) ||
        !(json_object_is_type(t, json_type_double) || json_object_is_type(t, json_type_int))) {
        ts_error_set(err, TS_ECORRUPT, "%s: %s: expected a number \"predicted_time_s\"", path,
                     where);
        return -1;
    }
    double s = json_object_get_double(t);
    if (!(s > 0) || !(s <= TS_MEASURED_MAX_S)) {
        ts_error_set(err, TS_ECORRUPT,
                     "%s: %s: predicted_time_s must be positive and at most 1e9 s, got %g", path,
                     where, s);
        return -1;
    }
    return s;
}

ts_status ts_predictions_read(const char *path, ts_predictions_t *out, ts_error_t *err)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    ts_status rst = TS_OK;
    char *text = ts_read_whole(path, &len, &rst, err);
    if (!text)
        return rst;
    /* json-c's own words ("json_tokener_parse_ex failed: continue") say nothing to a user: say
     * where the text stops being JSON, or that it ends inside it. */
    json_tokener *tok = len <= INT_MAX ? json_tokener_new() : NULL;
    if (!tok) {
        free(text);
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory reading it", path);
    }
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t at = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    size_t rest = at; /* after the document only white space: two documents pasted are not one */
    while (root && rest < len && text[rest] && strchr(" \t\r\n", text[rest]))
        rest++;
    free(text);
    if (root && jerr == json_tokener_success && rest < len) {
        json_object_put(root);
        return ts_error_set(err, TS_ECORRUPT,
                            "%s: more after its JSON document, at byte %zu; expected the one "
                            "JSON document of tunesim sweep --json",
                            path, rest);
    }
    if (!root || jerr != json_tokener_success) {
        json_object_put(root);
        if (jerr == json_tokener_continue)
            return ts_error_set(err, TS_ECORRUPT,
                                "%s: the file ends inside its JSON (truncated?); expected the "
                                "JSON of tunesim sweep --json",
                                path);
        return ts_error_set(err, TS_ECORRUPT,
                            "%s: not JSON at byte %zu (%s); expected the JSON of tunesim sweep "
                            "--json",
                            path, at, json_tokener_error_desc(jerr));
    }
    ts_status st = TS_OK;
    json_object *sets;
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "sets", &sets) ||
        !json_object_is_type(sets, json_type_array)) {
        st = ts_error_set(err, TS_ECORRUPT,
                          "%s: expected a `tunesim sweep --json` object with a \"sets\" array",
                          path);
        goto done;
    }
    size_t n = json_object_array_length(sets);
    for (size_t i = 0; i < n && st == TS_OK; i++) {
        json_object *s = json_object_array_get_idx(sets, i), *name;
        char where[64];
        snprintf(where, sizeof where, "sets[%zu]", i);
        if (!json_object_is_type(s, json_type_object) ||
            !json_object_object_get_ex(s, "name", &name) ||
            !json_object_is_type(name, json_type_string)) {
            st = ts_error_set(err, TS_ECORRUPT, "%s: %s: expected an object with a \"name\"", path,
                              where);
            break;
        }
        double t = pred_time(s, path, where, err);
        if (t < 0) {
            st = err ? err->code : TS_ECORRUPT;
            break;
        }
        if (pred_find(out, json_object_get_string(name)) >= 0) {
            st = ts_error_set(err, TS_ECORRUPT, "%s: %s: set '%s' appears twice", path, where,
                              json_object_get_string(name));
            break;
        }
        st = pred_add(out, json_object_get_string(name), t, err);
    }
    json_object *base;
    if (st == TS_OK && json_object_object_get_ex(root, "baseline", &base) &&
        json_object_is_type(base, json_type_object) && pred_find(out, "baseline") < 0) {
        json_object *t;
        if (json_object_object_get_ex(base, "predicted_time_s", &t)) {
            double s = pred_time(base, path, "baseline", err);
            st = s < 0 ? (err ? err->code : TS_ECORRUPT) : pred_add(out, "baseline", s, err);
        }
    }
    if (st == TS_OK && out->n == 0)
        st = ts_error_set(err, TS_ECORRUPT, "%s: no predicted sets", path);
done:
    json_object_put(root);
    if (st != TS_OK)
        ts_predictions_free(out);
    return st;
}

/* ---- the comparison ------------------------------------------------------------------- */

/* Ranks of v (1-based, ties get their mean rank) into r. */
static void ranks(const double *v, size_t n, double *r)
{
    for (size_t i = 0; i < n; i++) {
        size_t below = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            below += v[j] < v[i];
            equal += v[j] == v[i];
        }
        r[i] = (double)below + ((double)equal + 1) / 2;
    }
}

double ts_spearman(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    double rho = NAN;
    if (rx && ry) {
        ranks(x, n, rx);
        ranks(y, n, ry);
        /* Pearson's correlation of the ranks (exact with ties, unlike 1 - 6 sum d^2 / ...). */
        double mean = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
        for (size_t i = 0; i < n; i++) {
            sxy += (rx[i] - mean) * (ry[i] - mean);
            sxx += (rx[i] - mean) * (rx[i] - mean);
            syy += (ry[i] - mean) * (ry[i] - mean);
        }
        if (sxx > 0 && syy > 0)
            rho = sxy / sqrt(sxx * syy);
    }
    free(rx);
    free(ry);
    return rho;
}

void ts_validate_free(ts_validate_t *v)
{
    if (!v)
        return;
    free(v->rows);
    free(v->pairs);
    free(v);
}

ts_status ts_validate_compute(const ts_measured_t *m, const ts_predictions_t *p, const char *anchor,
                              ts_validate_t **out, ts_error_t *err)
{
    *out = NULL;
    size_t n = ts_measured_count(m);
    if (n == 0)
        return ts_error_set(err, TS_EARG, "no measured settings");
    ts_validate_t *v = calloc(1, sizeof *v);
    if (!v || !(v->rows = calloc(n, sizeof *v->rows))) {
        ts_validate_free(v);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    v->n = n;
    v->scale = 1;
    v->measured = m;
    for (size_t i = 0; i < n; i++) {
        const ts_measured_setting_t *s = ts_measured_get(m, i);
        int k = pred_find(p, s->name);
        if (k < 0) {
            ts_validate_free(v);
            return ts_error_set(err, TS_EARG,
                                "setting '%s' was measured (%s) but has no prediction", s->name,
                                s->sources[0]);
        }
        ts_validate_row_t *r = &v->rows[i];
        r->name = s->name;
        r->predicted_raw = p->seconds[k];
        ts_runstats_compute(s->seconds, s->n, &r->measured);
    }
    if (anchor) {
        size_t a = n;
        for (size_t i = 0; i < n; i++)
            if (strcmp(v->rows[i].name, anchor) == 0)
                a = i;
        if (a == n) {
            ts_validate_free(v);
            return ts_error_set(err, TS_EARG, "--anchor %s: no measured setting of that name",
                                anchor);
        }
        if (!(v->rows[a].measured.trimmed_mean > 0)) {
            ts_validate_free(v);
            return ts_error_set(err, TS_EARG, "--anchor %s: its measured time is 0", anchor);
        }
        v->rows[a].is_anchor = 1;
        v->anchor = v->rows[a].name;
        v->scale = v->rows[a].measured.trimmed_mean / v->rows[a].predicted_raw;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        ts_validate_row_t *r = &v->rows[i];
        r->predicted = r->predicted_raw * v->scale;
        double meas = r->measured.trimmed_mean;
        r->error_pct = meas > 0 ? (r->predicted - meas) / meas * 100 : NAN;
        /* A measured time of 0 s (a run too short to time) has no relative error: it is
         * shown as "-" and left out of the mean, as the anchor is. */
        if (r->is_anchor || isnan(r->error_pct))
            continue;
        sum += fabs(r->error_pct);
        v->mape_n++;
        v->within_5pct += fabs(r->error_pct) <= 5;
    }
    v->mape = v->mape_n ? sum / (double)v->mape_n : NAN;

    double *pr = malloc(n * sizeof *pr), *ms = malloc(n * sizeof *ms);
    v->pairs = malloc((n * (n - 1) / 2 + 1) * sizeof *v->pairs);
    if (!pr || !ms || !v->pairs) {
        free(pr);
        free(ms);
        ts_validate_free(v);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        pr[i] = v->rows[i].predicted;
        ms[i] = v->rows[i].measured.trimmed_mean;
    }
    v->spearman = ts_spearman(pr, ms, n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const ts_runstats_t *a = &v->rows[i].measured, *b = &v->rows[j].measured;
            double diff = fabs(a->trimmed_mean - b->trimmed_mean);
            if (!(diff > fmax(a->spread, b->spread)))
                continue;
            ts_validate_pair_t *q = &v->pairs[v->npairs++];
            q->faster = ms[i] < ms[j] ? i : j;
            q->slower = ms[i] < ms[j] ? j : i;
            q->reproduced = pr[q->faster] < pr[q->slower];
            v->reproduced += (size_t)q->reproduced;
        }
    free(pr);
    free(ms);
    *out = v;
    return TS_OK;
}

/* ---- reports ------------------------------------------------------------------------- */

void ts_validate_print(const ts_validate_t *v, FILE *fp)
{
    if (v->anchor) {
        const ts_validate_row_t *a = NULL;
        for (size_t i = 0; i < v->n; i++)
            if (v->rows[i].is_anchor)
                a = &v->rows[i];
        fprintf(fp,
                "anchored on %s: measured %.3f s / predicted %.3f s, every prediction scaled "
                "by %.4f\n",
                v->anchor, a->measured.trimmed_mean, a->predicted_raw, v->scale);
    } else {
        fprintf(fp, "not anchored: predictions as the model gives them\n");
    }
    fprintf(fp, "%-16s %4s %12s %12s %10s %10s %17s %9s\n", "setting", "runs", "predicted_s",
            "measured_s", "median_s", "spread_s", "min-max_s", "error_%");
    for (size_t i = 0; i < v->n; i++) {
        const ts_validate_row_t *r = &v->rows[i];
        char mm[48];
        snprintf(mm, sizeof mm, "%.3f-%.3f", r->measured.min, r->measured.max);
        char ep[32];
        if (isnan(r->error_pct))
            snprintf(ep, sizeof ep, "%9s", "-");
        else
            snprintf(ep, sizeof ep, "%+9.2f", r->error_pct);
        fprintf(fp, "%-16s %4zu %12.3f %12.3f %10.3f %10.3f %17s %s%s\n", r->name, r->measured.n,
                r->predicted, r->measured.trimmed_mean, r->measured.median, r->measured.spread, mm,
                ep,
                r->is_anchor          ? " (anchor)"
                : isnan(r->error_pct) ? " (measured 0 s: no relative error)"
                                      : "");
    }
    fprintf(fp, "measured_s: mean of the runs left after dropping the lowest and highest "
                "fifth (the middle three of five)\n");
    size_t nrej = ts_measured_rejected_count(v->measured);
    if (nrej)
        fprintf(fp,
                "left out: %zu runs descheduled too long (ClockTime > --max-clock-ratio x "
                "ExecutionTime + 1 s):\n",
                nrej);
    for (size_t i = 0; i < nrej; i++) {
        const ts_measured_rejected_t *r = ts_measured_rejected(v->measured, i);
        fprintf(fp, "  %s: %s (ExecutionTime %.2f s, ClockTime %.0f s)\n", r->name, r->source,
                r->seconds, r->clock);
    }
    if (v->mape_n)
        fprintf(fp, "mean absolute error: %.2f %% over %zu settings%s; %zu of %zu within 5 %%\n",
                v->mape, v->mape_n, v->anchor ? " (the anchor excluded)" : "", v->within_5pct,
                v->mape_n);
    else
        fprintf(fp, "mean absolute error: none (no setting besides the anchor)\n");
    if (isnan(v->spearman))
        fprintf(fp, "Spearman rank correlation: undefined (fewer than 2 settings or all tied)\n");
    else
        fprintf(fp, "Spearman rank correlation (predicted vs measured): %.3f over %zu settings\n",
                v->spearman, v->n);
    fprintf(fp,
            "measured ordering: %zu of %zu pairs whose measured difference exceeds the "
            "spread reproduced\n",
            v->reproduced, v->npairs);
    for (size_t i = 0; i < v->npairs; i++) {
        const ts_validate_pair_t *q = &v->pairs[i];
        if (q->reproduced)
            continue;
        const ts_validate_row_t *f = &v->rows[q->faster], *s = &v->rows[q->slower];
        fprintf(fp,
                "  missed: %s faster than %s (measured %.3f vs %.3f s, predicted %.3f vs "
                "%.3f s)\n",
                f->name, s->name, f->measured.trimmed_mean, s->measured.trimmed_mean, f->predicted,
                s->predicted);
    }
    int met = v->within_5pct == v->mape_n && v->reproduced == v->npairs;
    fprintf(fp, "target (every setting within 5 %%, ordering reproduced): %s\n",
            met ? "met" : "not met");
}

static json_object *jnum(double x)
{
    /* Fixed precision keeps the file byte-identical across runs and readable. */
    if (!isfinite(x))
        return NULL;
    char buf[64];
    snprintf(buf, sizeof buf, "%.6f", x);
    return json_object_new_double_s(x, buf);
}

ts_status ts_validate_write_json(const ts_validate_t *v, const char *path, ts_error_t *err)
{
    json_object *root = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(root, "anchor", v->anchor ? json_object_new_string(v->anchor) : NULL);
    json_object_object_add(root, "scale", jnum(v->scale));
    for (size_t i = 0; i < v->n; i++) {
        const ts_validate_row_t *r = &v->rows[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(r->name));
        json_object_object_add(o, "runs", json_object_new_int((int)r->measured.n));
        json_object_object_add(o, "predicted_raw_s", jnum(r->predicted_raw));
        json_object_object_add(o, "predicted_s", jnum(r->predicted));
        json_object_object_add(o, "measured_s", jnum(r->measured.trimmed_mean));
        json_object_object_add(o, "median_s", jnum(r->measured.median));
        json_object_object_add(o, "min_s", jnum(r->measured.min));
        json_object_object_add(o, "max_s", jnum(r->measured.max));
        json_object_object_add(o, "spread_s", jnum(r->measured.spread));
        json_object_object_add(o, "error_pct", jnum(r->error_pct));
        json_object_object_add(o, "anchor", json_object_new_boolean(r->is_anchor));
        json_object_array_add(rows, o);
    }
    json_object_object_add(root, "settings", rows);
    json_object_object_add(root, "mape_pct", jnum(v->mape));
    json_object_object_add(root, "within_5pct", json_object_new_int((int)v->within_5pct));
    json_object_object_add(root, "spearman", jnum(v->spearman));
    json_object *ord = json_object_new_object(), *missed = json_object_new_array();
    json_object_object_add(ord, "pairs", json_object_new_int((int)v->npairs));
    json_object_object_add(ord, "reproduced", json_object_new_int((int)v->reproduced));
    for (size_t i = 0; i < v->npairs; i++)
        if (!v->pairs[i].reproduced) {
            json_object *q = json_object_new_object();
            json_object_object_add(q, "faster",
                                   json_object_new_string(v->rows[v->pairs[i].faster].name));
            json_object_object_add(q, "slower",
                                   json_object_new_string(v->rows[v->pairs[i].slower].name));
            json_object_array_add(missed, q);
        }
    json_object_object_add(ord, "missed", missed);
    json_object_object_add(root, "ordering", ord);
    json_object *rej = json_object_new_array();
    for (size_t i = 0; i < ts_measured_rejected_count(v->measured); i++) {
        const ts_measured_rejected_t *r = ts_measured_rejected(v->measured, i);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "setting", json_object_new_string(r->name));
        json_object_object_add(o, "log", json_object_new_string(r->source));
        json_object_object_add(o, "execution_s", jnum(r->seconds));
        json_object_object_add(o, "clock_s", jnum(r->clock));
        json_object_array_add(rej, o);
    }
    json_object_object_add(root, "left_out", rej);
    double ratio = ts_measured_max_clock_ratio(v->measured);
    json_object_object_add(root, "max_clock_ratio", ratio > 0 ? jnum(ratio) : NULL);
    ts_outfile_t *f;
    ts_status st = ts_outfile_open(path, &f, err);
    if (st == TS_OK) {
        ts_json_fputs(
            json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED),
            ts_outfile_stream(f));
        fputc('\n', ts_outfile_stream(f));
        st = ts_outfile_commit(f, err);
    }
    json_object_put(root);
    return st;
}

ts_status ts_validate_write_csv(const ts_validate_t *v, const char *path, ts_error_t *err)
{
    ts_outfile_t *f;
    ts_status st = ts_outfile_open(path, &f, err);
    if (st != TS_OK)
        return st;
    FILE *fp = ts_outfile_stream(f);
    fprintf(fp, "setting,runs,predicted_s,measured_s,median_s,min_s,max_s,spread_s,error_pct,"
                "anchor\n");
    for (size_t i = 0; i < v->n; i++) {
        const ts_validate_row_t *r = &v->rows[i];
        fprintf(fp, "%s,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%d\n", r->name, r->measured.n,
                r->predicted, r->measured.trimmed_mean, r->measured.median, r->measured.min,
                r->measured.max, r->measured.spread, r->error_pct, r->is_anchor);
    }
    return ts_outfile_commit(f, err);
}

/* ---- the command --------------------------------------------------------------------- */

/* Run the sweep (sweep_cmd.h) on ARGS... --json TMP in this process and read its predictions.
 * The sweep's report goes to stderr so that stdout holds the validation table alone; its
 * workers are this process's children, and end with it (commands/pool.c). */
static ts_status run_sweep(int argc, char **argv, const ts_file_use_t *outs, ts_predictions_t *out,
                           ts_error_t *err)
{
    const char *tmpdir = ts_tmp_dir(); /* $TMPDIR unless empty, else /tmp */
    char dir[4096], json[4200], results[4200];
    snprintf(dir, sizeof dir, "%s/tunesim-validate.XXXXXX", tmpdir);
    if (!mkdtemp(dir))
        return ts_error_set(err, TS_EIO, "%s: cannot create a temporary directory: %s", dir,
                            strerror(errno));
    ts_tmp_register(dir, 1); /* removed with its files on INT / TERM */
    snprintf(json, sizeof json, "%s/predicted.json", dir);
    /* the sweep's results file (its resume record) goes into dir too, named so that it can
     * be removed with the directory */
    snprintf(results, sizeof results, "%s/predicted.results.jsonl", dir);
    char **args = calloc((size_t)argc + 6, sizeof *args);
    if (!args) {
        ts_tmp_remove(dir);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    args[0] = "sweep";
    for (int i = 0; i < argc; i++)
        args[1 + i] = argv[i];
    args[1 + argc] = "--json";
    args[2 + argc] = json;
    args[3 + argc] = "--results";
    args[4 + argc] = results;
    ts_error_t e;
    ts_error_clear(&e);
    ts_status st = ts_sweep_cmd_to(stderr, outs, SWEEP_MAX_ALSO, argc + 5, args, &e);
    if (st != TS_OK)
        st = ts_error_set(err, st == TS_EUSAGE ? TS_EARG : st, "the sweep after --: %s", e.msg);
    else
        st = ts_predictions_read(json, out, err);
    free(args);
    unlink(json);
    unlink(results);
    ts_tmp_remove(dir);
    return st;
}

/* The sweep after -- predicts into validate's own temporary files: an output of its own would
 * escape validate's check of its inputs and outputs (--csv over --measured-csv), and its
 * --json and --results would be replaced. */
static ts_status sweep_args_write_nothing(int argc, char **argv, ts_error_t *err)
{
    static const char *const outs[] = {"--csv",        "--json",  "--results", "--plot",
                                       "--emit-slurm", "--merge", NULL};
    for (int i = 0; i < argc; i++)
        for (int k = 0; outs[k]; k++) {
            size_t n = strlen(outs[k]);
            if (strncmp(argv[i], outs[k], n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
                return ts_error_set(err, TS_EUSAGE,
                                    "validate: the sweep after -- writes no files (%s): "
                                    "validate's --json and --csv are the outputs",
                                    outs[k]);
        }
    return TS_OK;
}

static const char USAGE_TEXT[] =
    "validate (--logs DIR | --manifest FILE | --measured-csv FILE)... "
    "(--predicted SWEEP.json | -- SWEEP_ARGS...) [--anchor NAME] [--max-clock-ratio R] "
    "[--json FILE] [--csv FILE]";

/* validate's options; the measured runs are read in command-line order on the second walk,
 * after the first has set --max-clock-ratio. */
enum {
    VO_LOGS,
    VO_MANIFEST,
    VO_MEASURED_CSV,
    VO_PREDICTED,
    VO_MAX_CLOCK_RATIO,
    VO_ANCHOR,
    VO_JSON,
    VO_CSV,
    VO__COUNT
};
static const ts_opt_t VALIDATE_OPTS[VO__COUNT] = {
    [VO_LOGS] = {"logs", 0, 1},
    [VO_MANIFEST] = {"manifest", 0, 1},
    [VO_MEASURED_CSV] = {"measured-csv", 0, 1},
    [VO_PREDICTED] = {"predicted", 0, 1},
    [VO_MAX_CLOCK_RATIO] = {"max-clock-ratio", 0, 1},
    [VO_ANCHOR] = {"anchor", 0, 1},
    [VO_JSON] = {"json", 0, 1},
    [VO_CSV] = {"csv", 0, 1},
};

typedef struct val_args_s {
    ts_measured_t *m;
    int pass, inputs;
    const char *predicted, *anchor, *json, *csv;
    const char *in[16]; /* the input files named (--manifest, --measured-csv), with their flags */
    const char *in_flag[16];
    int nin;
} val_args_t;

/* Keep an input file's name for the check that no output overwrites it. */
static void note_input(val_args_t *va, const char *flag, const char *path)
{
    if (va->nin < 16) {
        va->in_flag[va->nin] = flag;
        va->in[va->nin++] = path;
    }
}

static ts_status validate_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    val_args_t *va = ctx;
    if (va->pass == 0) {
        if (opt != VO_MAX_CLOCK_RATIO)
            return TS_OK;
        char *end = NULL;
        double r = ts_strtod_dec(v, &end);
        if (!end || end == v || *end || !(r >= 1) || !isfinite(r))
            return ts_error_set(err, TS_EUSAGE,
                                "validate: --max-clock-ratio expects a number >= 1, got '%s'", v);
        ts_measured_set_max_clock_ratio(va->m, r);
        return TS_OK;
    }
    switch (opt) {
    case -1:
        return ts_error_set(err, TS_EUSAGE, "validate: unexpected argument '%s'", v);
    case VO_LOGS:
        va->inputs++;
        return ts_measured_read_dir(va->m, v, err);
    case VO_MANIFEST:
        va->inputs++;
        note_input(va, "--manifest", v);
        return ts_check_input(v, "a manifest of measured runs", 0, err) == TS_OK
                   ? ts_measured_read_manifest(va->m, v, err)
                   : err->code;
    case VO_MEASURED_CSV:
        va->inputs++;
        note_input(va, "--measured-csv", v);
        /* By type first: read whole, a FIFO nobody writes or a device would never end. */
        return ts_check_input(v, "a CSV of measured runs", 0, err) == TS_OK
                   ? ts_measured_read_csv(va->m, v, err)
                   : err->code;
    case VO_PREDICTED:
        va->predicted = v;
        note_input(va, "--predicted", v);
        return TS_OK;
    case VO_ANCHOR:
        va->anchor = v;
        return TS_OK;
    case VO_JSON:
        va->json = v;
        return TS_OK;
    case VO_CSV:
        va->csv = v;
        return TS_OK;
    default: /* VO_MAX_CLOCK_RATIO: read on the first walk */
        return TS_OK;
    }
}

int ts_validate_cmd(int argc, char **argv, ts_error_t *err)
{
    const char *predicted = NULL, *anchor = NULL, *json = NULL, *csv = NULL;
    int sweep_at = -1, inputs = 0;
    ts_measured_t *m = NULL;
    ts_predictions_t pred = {0};
    ts_validate_t *v = NULL;
    ts_status st = ts_measured_new(&m, err);
    /* The sweep's arguments start after "--"; validate's own options stand before it. */
    int nown = 1;
    while (nown < argc && strcmp(argv[nown], "--") != 0)
        nown++;
    if (nown < argc)
        sweep_at = nown + 1;
    /* Two walks: --max-clock-ratio applies to every log, wherever it stands. */
    val_args_t va = {.m = m};
    for (va.pass = 0; va.pass < 2 && st == TS_OK; va.pass++)
        st = ts_opts_parse("validate", nown, argv, NULL, VALIDATE_OPTS, VO__COUNT, validate_opt,
                           &va, err);
    predicted = va.predicted;
    anchor = va.anchor;
    json = va.json;
    csv = va.csv;
    inputs = va.inputs;
    /* No output may overwrite an input, nor the other output; the sweep after -- checks them
     * against its own inputs too. */
    const ts_file_use_t outs[SWEEP_MAX_ALSO] = {{"--json", json, 1, NULL, 0},
                                                {"--csv", csv, 1, NULL, 0}};
    if (st == TS_OK) {
        ts_file_use_t uses[18];
        for (int i = 0; i < va.nin; i++)
            uses[i] = (ts_file_use_t){va.in_flag[i], va.in[i], 0, NULL, 0};
        uses[va.nin] = outs[0];
        uses[va.nin + 1] = outs[1];
        st = ts_check_files("validate", uses, va.nin + 2, err);
        /* nor any log read through --logs or a manifest */
        for (int i = 0; i < SWEEP_MAX_ALSO && st == TS_OK; i++)
            st = ts_measured_check_output(m, "validate", outs[i].flag, outs[i].path, err);
    }
    if (st == TS_OK && sweep_at >= 0 && sweep_at < argc)
        st = sweep_args_write_nothing(argc - sweep_at, argv + sweep_at, err);
    if (st == TS_OK)
        st = ts_measured_check_rejected(m, err);
    if (st == TS_OK && !inputs)
        st =
            ts_error_set(err, TS_EUSAGE, "validate: no measured runs given; usage: %s", USAGE_TEXT);
    if (st == TS_OK && !predicted == (sweep_at < 0 || sweep_at >= argc))
        st = ts_error_set(err, TS_EUSAGE,
                          "validate: give the predictions either as --predicted SWEEP.json or "
                          "as sweep arguments after --, not %s; usage: %s",
                          predicted ? "both" : "neither", USAGE_TEXT);
    if (st == TS_OK)
        st = predicted ? ts_predictions_read(predicted, &pred, err)
                       : run_sweep(argc - sweep_at, argv + sweep_at, outs, &pred, err);
    if (st == TS_OK)
        st = ts_validate_compute(m, &pred, anchor, &v, err);
    if (st == TS_OK && json)
        st = ts_validate_write_json(v, json, err);
    if (st == TS_OK && csv)
        st = ts_validate_write_csv(v, csv, err);
    if (st == TS_OK) {
        errno = 0;
        ts_validate_print(v, stdout);
        st = ts_report_check(stdout, NULL, err);
    }
    ts_validate_free(v);
    ts_predictions_free(&pred);
    ts_measured_free(m);
    return st;
}
