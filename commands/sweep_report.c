/* sweep_report.c - ranking the sets of a sweep and writing what users read: the table on
 * stdout, the CSV and JSON files (formats documented in README.md) and the gnuplot pictures.
 * Works only from the replay documents, so a merge of Slurm results and a local sweep give
 * the same bytes. */
#include "sweep_report.h"

#include "gnuplot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/jsontext.h"
#include "../common/outfile.h"

#define HOT_FUNCS  3 /* hot-spot functions in the table */
#define PLOT_FUNCS 8 /* functions in the stacked breakdown; the rest is "other MPI" */
#define MIX_SHOWN  3 /* transport/protocol pairs in the table's protocol mix */

/* ---- reading the replay documents ---------------------------------------------------------- */

static json_object *jget(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static double jnum(json_object *o, const char *key)
{
    json_object *v = jget(o, key);
    return v ? json_object_get_double(v) : NAN;
}

/* Simulated seconds of function f in a result; 0 if it was not called. */
static double func_time(json_object *result, const char *f)
{
    json_object *fn = jget(jget(result, "functions"), f);
    return fn ? jnum(fn, "time_s") : 0.0;
}

/* What a set is ranked by: the full run's ExecutionTime when the sweep scaled it (--profile),
 * else the replayed makespan; one ranking for the table, the files and the pictures. */
static double rank_time(json_object *result)
{
    return jget(result, "full_time_s") ? jnum(result, "full_time_s")
                                       : jnum(result, "predicted_time_s");
}

/* Ranking context: entries with results sorted by rank_time, ties by name. */
typedef struct rank_s {
    const ts_sweep_report_t *r;
    int n;             /* ranked entries */
    int *order;        /* their indices, best first */
    json_object *base; /* the baseline's result, or NULL */
    int nfuncs;
    const char **funcs; /* every function of every result: most total time first */
} rank_t;

/* Whether the ranking is by the full run (the sweep scaled its sets with --profile). */
static int by_full_run(const rank_t *k)
{
    return k->n && jget(k->r->entries[k->order[0]].result, "full_time_s") != NULL;
}

static int cmp_entry(const void *a, const void *b, void *ctx)
{
    const ts_sweep_report_t *r = ctx;
    const ts_sweep_entry_t *x = &r->entries[*(const int *)a];
    const ts_sweep_entry_t *y = &r->entries[*(const int *)b];
    double tx = rank_time(x->result), ty = rank_time(y->result);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return strcmp(x->name, y->name);
}

typedef struct fsum_s {
    const char *name;
    double total;
} fsum_t;

static int cmp_fsum(const void *a, const void *b)
{
    const fsum_t *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void rank_free(rank_t *k)
{
    free(k->order);
    free(k->funcs);
}

static ts_status rank_sets(const ts_sweep_report_t *r, rank_t *k)
{
    memset(k, 0, sizeof *k);
    k->r = r;
    k->order = malloc(((size_t)r->n + 1) * sizeof *k->order);
    if (!k->order)
        return TS_ENOMEM;
    for (int i = 0; i < r->n; i++) {
        if (!r->entries[i].result)
            continue;
        k->order[k->n++] = i;
        if (r->baseline && strcmp(r->entries[i].name, r->baseline) == 0)
            k->base = r->entries[i].result;
    }
    qsort_r(k->order, (size_t)k->n, sizeof *k->order, cmp_entry, (void *)r);
    /* The union of the functions, each with its time summed over the sets. */
    size_t cap = 16, n = 0;
    fsum_t *fs = malloc(cap * sizeof *fs);
    for (int i = 0; fs && i < k->n; i++) {
        json_object *funcs = jget(r->entries[k->order[i]].result, "functions");
        if (!funcs || !json_object_is_type(funcs, json_type_object))
            continue;
        json_object_object_foreach(funcs, name, val)
        {
            size_t j = 0;
            while (j < n && strcmp(fs[j].name, name) != 0)
                j++;
            if (j == n) {
                if (n == cap) {
                    fsum_t *g = realloc(fs, 2 * cap * sizeof *fs);
                    if (!g) {
                        free(fs);
                        fs = NULL;
                        break;
                    }
                    fs = g;
                    cap *= 2;
                }
                fs[n++] = (fsum_t){name, 0.0};
            }
            fs[j].total += jnum(val, "time_s");
        }
    }
    if (!fs)
        return TS_ENOMEM;
    qsort(fs, n, sizeof *fs, cmp_fsum);
    k->funcs = malloc((n + 1) * sizeof *k->funcs);
    if (!k->funcs) {
        free(fs);
        return TS_ENOMEM;
    }
    for (size_t j = 0; j < n; j++)
        k->funcs[j] = fs[j].name;
    k->nfuncs = (int)n;
    free(fs);
    return TS_OK;
}

/* Gain of result over the baseline in percent (positive: faster); NAN without a baseline. */
static double gain_of(const rank_t *k, json_object *result)
{
    double b = jnum(k->base, "predicted_time_s"), t = jnum(result, "predicted_time_s");
    return k->base && b > 0 ? 100.0 * (b - t) / b : NAN;
}

/* ---- the table ---------------------------------------------------------------------------- */

typedef struct mix_s {
    char name[64];
    double msgs;
} mix_t;

static int cmp_mix(const void *a, const void *b)
{
    const mix_t *x = a, *y = b;
    if (x->msgs != y->msgs)
        return x->msgs > y->msgs ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* "rc/eager_bcopy 61%, posix/eager_short 30%, ..." by share of messages. */
static void print_mix(FILE *fp, json_object *result)
{
    json_object *protos = jget(result, "protocols");
    mix_t mix[64];
    int n = 0;
    double all = 0;
    if (protos && json_object_is_type(protos, json_type_object)) {
        json_object_object_foreach(protos, tr, pj)
        {
            if (!json_object_is_type(pj, json_type_object))
                continue;
            json_object_object_foreach(pj, proto, c)
            {
                if (n == 64)
                    break;
                snprintf(mix[n].name, sizeof mix[n].name, "%s/%s", tr, proto);
                mix[n].msgs = jnum(c, "messages");
                all += mix[n++].msgs;
            }
        }
    }
    qsort(mix, (size_t)n, sizeof *mix, cmp_mix);
    for (int i = 0; i < n && i < MIX_SHOWN; i++) {
        double pct = all > 0 ? 100.0 * mix[i].msgs / all : 0.0;
        if (pct > 0 && pct < 0.5)
            fprintf(fp, "%s%s <1%%", i ? ", " : "", mix[i].name);
        else
            fprintf(fp, "%s%s %.0f%%", i ? ", " : "", mix[i].name, pct);
    }
    if (n > MIX_SHOWN)
        fprintf(fp, ", ...");
    if (!n)
        fprintf(fp, "-");
}

static void print_settings(FILE *fp, const ts_sweep_entry_t *e)
{
    size_t n = e->settings ? json_object_array_length(e->settings) : 0;
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s%s", i ? " " : "",
                json_object_get_string(json_object_array_get_idx(e->settings, i)));
    if (!n)
        fprintf(fp, "defaults");
    if (e->result)
        fprintf(fp, " (%d nodes x %d, NPS%d, %s)", (int)jnum(e->result, "nodes"),
                (int)jnum(e->result, "ppn"), (int)jnum(e->result, "nps"),
                json_object_get_string(jget(e->result, "map_by")));
}

void ts_sweep_print_table(const ts_sweep_report_t *r, FILE *fp)
{
    rank_t k;
    if (rank_sets(r, &k) != TS_OK) {
        rank_free(&k);
        fprintf(fp, "out of memory\n");
        return;
    }
    int namew = 4;
    for (int i = 0; i < r->n; i++)
        if ((int)strlen(r->entries[i].name) > namew)
            namew = (int)strlen(r->entries[i].name);
    /* Hot spots: the functions that take the most time in the baseline (else the best set). */
    json_object *ref = k.base ? k.base : (k.n ? r->entries[k.order[0]].result : NULL);
    fsum_t hot[HOT_FUNCS];
    int nhot = 0;
    for (int f = 0; ref && f < k.nfuncs; f++) {
        fsum_t c = {k.funcs[f], func_time(ref, k.funcs[f])};
        int j = nhot < HOT_FUNCS ? nhot++ : HOT_FUNCS;
        while (j > 0 && cmp_fsum(&c, &hot[j - 1]) < 0) {
            if (j < HOT_FUNCS)
                hot[j] = hot[j - 1];
            j--;
        }
        if (j < HOT_FUNCS)
            hot[j] = c;
    }
    char st[4200], sp[4200];
    fprintf(fp, "sweep       %s on %s: %d set%s, baseline %s%s\n",
            ts_shown(r->trace, st, sizeof st),
            ts_shown(r->platform ? r->platform : "?", sp, sizeof sp), r->n, r->n == 1 ? "" : "s",
            r->baseline ? r->baseline : "-",
            by_full_run(&k) ? "; ranked by the full run (its table below)" : "");
    fprintf(fp, "%4s  %-*s %13s %8s %13s", "rank", namew, "set", "predicted[s]", "gain[%]",
            "rank0[s]");
    for (int h = 0; h < nhot; h++) {
        char col[96];
        snprintf(col, sizeof col, "%s[s]", hot[h].name);
        fprintf(fp, " %*s", (int)strlen(col) > 12 ? (int)strlen(col) : 12, col);
    }
    fprintf(fp, "  protocols (share of messages)\n");
    for (int i = 0; i < k.n; i++) {
        const ts_sweep_entry_t *e = &r->entries[k.order[i]];
        double g = gain_of(&k, e->result);
        char gain[32] = "-";
        if (!isnan(g))
            snprintf(gain, sizeof gain, "%+.2f", g);
        fprintf(fp, "%4d  %-*s %13.6f %8s %13.6f", i + 1, namew, e->name,
                jnum(e->result, "predicted_time_s"), gain, jnum(e->result, "rank0_elapsed_s"));
        for (int h = 0; h < nhot; h++) {
            int w = (int)strlen(hot[h].name) + 3;
            fprintf(fp, " %*.6f", w > 12 ? w : 12, func_time(e->result, hot[h].name));
        }
        fprintf(fp, "  ");
        print_mix(fp, e->result);
        fprintf(fp, "\n");
    }
    fprintf(fp, "\nsettings\n");
    for (int i = 0; i < r->n; i++) {
        fprintf(fp, "  %-*s  ", namew, r->entries[i].name);
        print_settings(fp, &r->entries[i]);
        fprintf(fp, "\n");
    }
    /* Laid out as the settings above: the header once, then every set at the same indent. */
    int failed = 0;
    for (int i = 0; i < r->n; i++)
        if (!r->entries[i].result)
            fprintf(fp, "%s  %-*s  %s\n", failed++ ? "" : "\nfailed\n", namew, r->entries[i].name,
                    r->entries[i].error ? r->entries[i].error : "no result");
    rank_free(&k);
}

/* ---- JSON --------------------------------------------------------------------------------- */

/* A double printed with a fixed number of decimals (json-c would print 17 digits). */
static json_object *fixed_double(double v, int decimals)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return json_object_new_double_s(v, buf);
}

ts_status ts_sweep_write_json(const ts_sweep_report_t *r, const char *path, ts_error_t *err)
{
    rank_t k;
    if (rank_sets(r, &k) != TS_OK) {
        rank_free(&k);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    json_object *root = json_object_new_object();
    json_object_object_add(root, "trace", json_object_new_string(r->trace));
    json_object_object_add(root, "platform",
                           r->platform ? json_object_new_string(r->platform) : NULL);
    json_object_object_add(root, "baseline",
                           r->baseline ? json_object_new_string(r->baseline) : NULL);
    json_object *sets = json_object_new_array();
    for (int i = 0; i < k.n; i++) {
        const ts_sweep_entry_t *e = &r->entries[k.order[i]];
        json_object *s = json_object_new_object();
        json_object_object_add(s, "rank", json_object_new_int(i + 1));
        json_object_object_add(s, "name", json_object_new_string(e->name));
        json_object_object_add(s, "settings", json_object_get(e->settings));
        /* The replay's document as it is (whatever keys the engine reports), but for what the
         * top level already says. */
        json_object_object_foreach(e->result, key, val)
        {
            if (strcmp(key, "trace") != 0 && strcmp(key, "platform") != 0)
                json_object_object_add(s, key, json_object_get(val));
        }
        double g = gain_of(&k, e->result);
        json_object_object_add(s, "gain_vs_baseline_pct", isnan(g) ? NULL : fixed_double(g, 4));
        json_object_array_add(sets, s);
    }
    json_object_object_add(root, "sets", sets);
    json_object *failed = json_object_new_array();
    for (int i = 0; i < r->n; i++) {
        if (r->entries[i].result)
            continue;
        json_object *f = json_object_new_object();
        json_object_object_add(f, "name", json_object_new_string(r->entries[i].name));
        json_object_object_add(f, "settings", json_object_get(r->entries[i].settings));
        json_object_object_add(
            f, "error",
            json_object_new_string(r->entries[i].error ? r->entries[i].error : "no result"));
        json_object_array_add(failed, f);
    }
    json_object_object_add(root, "failed", failed);
    rank_free(&k);
    ts_outfile_t *of;
    ts_status st = ts_outfile_open(path, &of, err);
    if (st == TS_OK) {
        ts_json_fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_SPACED |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE),
                      ts_outfile_stream(of));
        fputc('\n', ts_outfile_stream(of));
        st = ts_outfile_commit(of, err);
    }
    json_object_put(root);
    return st;
}

/* ---- CSV ------------------------------------------------------------------------------------ */

/* A CSV field: quoted when it holds a comma, quote, blank or line break (RFC 4180). */
static void csv_field(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\n\r ")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

ts_status ts_sweep_write_csv(const ts_sweep_report_t *r, const char *path, ts_error_t *err)
{
    rank_t k;
    if (rank_sets(r, &k) != TS_OK) {
        rank_free(&k);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    ts_outfile_t *of;
    ts_status st = ts_outfile_open(path, &of, err);
    if (st != TS_OK) {
        rank_free(&k);
        return st;
    }
    FILE *fp = ts_outfile_stream(of);
    /* The full run's ExecutionTime (sweep --profile / --iterations), where it was scaled. */
    int full = 0;
    for (int i = 0; i < k.n && !full; i++)
        full = jget(r->entries[k.order[i]].result, "full_time_s") != NULL;
    fprintf(fp,
            "rank,name,predicted_time_s,rank0_elapsed_s,gain_vs_baseline_pct,settings,"
            "nodes,ppn,nps,map_by%s",
            full ? ",full_time_s" : "");
    for (int f = 0; f < k.nfuncs; f++) {
        fputc(',', fp);
        char col[128];
        snprintf(col, sizeof col, "time_s:%s", k.funcs[f]);
        csv_field(fp, col);
    }
    fputc('\n', fp);
    for (int i = 0; i < k.n; i++) {
        const ts_sweep_entry_t *e = &r->entries[k.order[i]];
        fprintf(fp, "%d,", i + 1);
        csv_field(fp, e->name);
        fprintf(fp, ",%.9g,%.9g,", jnum(e->result, "predicted_time_s"),
                jnum(e->result, "rank0_elapsed_s"));
        double g = gain_of(&k, e->result);
        if (!isnan(g))
            fprintf(fp, "%.4f", g);
        fputc(',', fp);
        char *set = NULL;
        size_t len = 0;
        FILE *ms = open_memstream(&set, &len);
        if (ms) {
            size_t n = e->settings ? json_object_array_length(e->settings) : 0;
            for (size_t j = 0; j < n; j++)
                fprintf(ms, "%s%s", j ? " " : "",
                        json_object_get_string(json_object_array_get_idx(e->settings, j)));
            fclose(ms);
        }
        csv_field(fp, set ? set : "");
        free(set);
        fprintf(fp, ",%d,%d,%d,", (int)jnum(e->result, "nodes"), (int)jnum(e->result, "ppn"),
                (int)jnum(e->result, "nps"));
        csv_field(fp, json_object_get_string(jget(e->result, "map_by")));
        if (full)
            fprintf(fp, ",%.9g", jnum(e->result, "full_time_s"));
        for (int f = 0; f < k.nfuncs; f++)
            fprintf(fp, ",%.9g", func_time(e->result, k.funcs[f]));
        fputc('\n', fp);
    }
    rank_free(&k);
    return ts_outfile_commit(of, err);
}

/* ---- pictures (gnuplot) --------------------------------------------------------------------- */

int ts_sweep_have_gnuplot(void)
{
    return ts_gnuplot_available();
}

static ts_status write_plot_files(const ts_sweep_report_t *r, const rank_t *k, const char *dir,
                                  const char *title, ts_error_t *err)
{
    char path[4096];
    ts_status st;
    snprintf(path, sizeof path, "%s/bars.dat", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return ts_error_set(err, TS_EIO, "%s: cannot create: %s", path, strerror(errno));
    for (int i = 0; i < k->n; i++) {
        const ts_sweep_entry_t *e = &r->entries[k->order[i]];
        fprintf(fp, "%d \"%s\" %.9g\n", i, e->name, rank_time(e->result));
    }
    if ((st = ts_gnuplot_close(fp, path, err)) != TS_OK)
        return st;
    /* Functions that took simulated time somewhere (k->funcs is sorted by total time). */
    int timed = 0;
    for (int f = 0; f < k->nfuncs; f++) {
        double t = 0;
        for (int i = 0; i < k->n; i++)
            t += func_time(r->entries[k->order[i]].result, k->funcs[f]);
        if (t > 0)
            timed = f + 1;
    }
    int nf = timed < PLOT_FUNCS ? timed : PLOT_FUNCS;
    int other = timed > PLOT_FUNCS;
    snprintf(path, sizeof path, "%s/breakdown.dat", dir);
    if (!(fp = fopen(path, "w")))
        return ts_error_set(err, TS_EIO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(fp, "set");
    for (int f = 0; f < nf; f++)
        fprintf(fp, " \"%s\"", k->funcs[f]);
    if (other)
        fprintf(fp, " \"other MPI\"");
    int empty = nf + other == 0; /* no MPI time anywhere: one column of zeros */
    if (empty)
        fprintf(fp, " \"MPI\"");
    fputc('\n', fp);
    for (int i = 0; i < k->n; i++) {
        json_object *res = r->entries[k->order[i]].result;
        fprintf(fp, "\"%s\"", r->entries[k->order[i]].name);
        double rest = 0;
        for (int f = 0; f < timed; f++) {
            if (f < nf)
                fprintf(fp, " %.9g", func_time(res, k->funcs[f]));
            else
                rest += func_time(res, k->funcs[f]);
        }
        if (other)
            fprintf(fp, " %.9g", rest);
        if (empty)
            fprintf(fp, " 0");
        fputc('\n', fp);
    }
    if ((st = ts_gnuplot_close(fp, path, err)) != TS_OK)
        return st;

    snprintf(path, sizeof path, "%s/plot.gp", dir);
    if (!(fp = fopen(path, "w")))
        return ts_error_set(err, TS_EIO, "%s: cannot create: %s", path, strerror(errno));
    int width = 640 + 40 * k->n;
    if (width > 4000)
        width = 4000;
    fprintf(fp, "# generated by tunesim sweep --plot\n");
    fprintf(fp, "cd ");
    ts_gnuplot_quote(fp, dir);
    fprintf(fp, "\nset encoding utf8\nset termoption noenhanced\n"
                "set style fill solid 0.85 border -1\nset grid ytics\n"
                "set xtics rotate by -45 nomirror\nset key outside right top\n"
                "set yrange [0:*]\nset bmargin 8\n");
    /* Nine distinct colours (gnuplot's default cycle repeats after eight). */
    static const char *const colours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee",
                                          "#aa3377", "#bbbbbb", "#332288", "#999933"};
    for (int c = 0; c < 9; c++)
        fprintf(fp, "set linetype %d lc rgb '%s'\n", c + 1, colours[c]);
    const char *terms[2][2] = {{"pngcairo", "png"}, {"svg", "svg"}};
    for (int t = 0; t < 2; t++) {
        fprintf(fp, "set terminal %s size %d,600 noenhanced%s\n", terms[t][0], width,
                t == 0 ? " font 'sans,10'" : " font 'sans,10' background rgb 'white'");
        fprintf(fp, "set output 'bars.%s'\nset title ", terms[t][1]);
        ts_gnuplot_quote(fp, title);
        fprintf(fp, "\nset ylabel '%s'\nset boxwidth 0.7\nunset key\n",
                by_full_run(k) ? "predicted ExecutionTime, full run [s]" : "predicted time [s]");
        fprintf(fp, "plot 'bars.dat' using 1:3:xtic(2) with boxes lc rgb '#4477aa'\n"
                    "set output\n");
        fprintf(fp, "set output 'breakdown.%s'\nset title ", terms[t][1]);
        ts_gnuplot_quote(fp, "time in MPI per function, summed over ranks");
        fprintf(fp,
                "\nset ylabel 'simulated time [s]'\nset key outside right top\n"
                "set style data histograms\nset style histogram rowstacked\n"
                "set boxwidth 0.7 relative\n"
                "plot for [c=2:%d] 'breakdown.dat' using c:xtic(1) title columnheader(c)\n"
                "set output\n",
                nf + other + empty + 1);
    }
    if ((st = ts_gnuplot_close(fp, path, err)) != TS_OK)
        return st;
    return TS_OK;
}

typedef struct plot_ctx_s {
    const ts_sweep_report_t *r;
    const rank_t *k;
} plot_ctx_t;

static ts_status write_plot(void *ctx, const char *dir, ts_error_t *err)
{
    const plot_ctx_t *c = ctx;
    char title[512];
    snprintf(title, sizeof title, "%s: predicted %s per set (%s)", c->r->trace,
             by_full_run(c->k) ? "full run" : "time", c->r->platform ? c->r->platform : "");
    return write_plot_files(c->r, c->k, dir, title, err);
}

ts_status ts_sweep_write_plot(const ts_sweep_report_t *r, const char *prefix, ts_error_t *err)
{
    if (!ts_sweep_have_gnuplot())
        return ts_error_set(err, TS_EIO,
                            "--plot needs gnuplot, which is not installed "
                            "(Debian: apt-get install gnuplot-nox)");
    rank_t k;
    if (rank_sets(r, &k) != TS_OK) {
        rank_free(&k);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    if (k.n == 0) {
        rank_free(&k);
        return ts_error_set(err, TS_EARG, "--plot: no set has a result to plot");
    }
    static const char *const pics[4][2] = {{"bars.png", ".png"},
                                           {"bars.svg", ".svg"},
                                           {"breakdown.png", "-breakdown.png"},
                                           {"breakdown.svg", "-breakdown.svg"}};
    plot_ctx_t c = {r, &k};
    ts_status st = ts_gnuplot_render("--plot", prefix, write_plot, &c, pics, 4, err);
    rank_free(&k);
    return st;
}
