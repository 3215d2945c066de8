/* imb_cmd.c - `tunesim imb`: Intel MPI Benchmarks (IMB-MPI1) predicted for a cluster shape.
 * Each benchmark is synthesized as a trace per message size (traces/imb.h) for --nodes x
 * --ppn ranks, replayed under one parameter set (the command line's) or every set of a sets
 * file (imb_run.c: forked workers, each size once per group of sets that plan it alike), and
 * reported as IMB prints it: per message size its repetitions and t_min / t_max / t_avg over
 * the ranks, in microseconds. With several sets, a comparison of t_max per size and the set
 * with the least geometric mean of t_max over the sizes (the rule by which the study's step
 * method picks a winner, docs/imb.md). This file: the options, the sets, the reports. */
#include "imb_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/numparse.h"
#include "../common/outfile.h"
#include "../common/tmpfiles.h"
#include "../params/params_args.h"
#include "gnuplot.h"
#include "imb_impl.h"
#include "sets.h"

enum {
    IO_PLATFORM,
    IO_SETS,
    IO_CSV,
    IO_PLOT,
    IO_BENCH,
    IO_MSGLOG,
    IO_REPS,
    IO_BUDGET,
    IO_SYNC,
    IO_TIE,
    IO_JOBS,
    IO_NODES,
    IO_PPN,
    IO_NPS,
    IO_MAP_BY,
    IO__COUNT
};
static const ts_opt_t IMB_OPTS[IO__COUNT] = {
    [IO_PLATFORM] = {"platform", 0, 1}, [IO_SETS] = {"sets", 0, 1},
    [IO_CSV] = {"csv", 0, 1},           [IO_PLOT] = {"plot", 0, 1},
    [IO_BENCH] = {"bench", 0, 1},       [IO_MSGLOG] = {"msglog", 0, 1},
    [IO_REPS] = {"reps", 0, 1},         [IO_BUDGET] = {"budget", 0, 1},
    [IO_SYNC] = {"sync", 0, 1},         [IO_TIE] = {"tie", 0, 1},
    [IO_JOBS] = {"jobs", 'j', 1},       [IO_NODES] = {"nodes", 0, 1},
    [IO_PPN] = {"ppn", 0, 1},           [IO_NPS] = {"nps", 0, 1},
    [IO_MAP_BY] = {"map-by", 0, 1},
};

static ts_status imb_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    imb_opts_t *o = ctx;
    switch (opt) {
    case -1:
        return ts_error_set(err, TS_EUSAGE, "imb: unexpected argument '%s'", v);
    case IO_PLATFORM:
        o->platform = v;
        return TS_OK;
    case IO_SETS:
        o->sets = v;
        return TS_OK;
    case IO_CSV:
        o->csv = v;
        return TS_OK;
    case IO_PLOT:
        o->plot = v;
        return TS_OK;
    case IO_BENCH:
        o->bench = v;
        return TS_OK;
    case IO_MSGLOG:
        o->msglog = v;
        return TS_OK;
    case IO_REPS: {
        int n;
        if (ts_parse_int(v, 1, 1000, &n))
            return ts_error_set(err, TS_EUSAGE,
                                "imb: --reps expects 1 to 1000 repetitions per size, got '%s'", v);
        o->reps = n;
        return TS_OK;
    }
    case IO_BUDGET: {
        int n;
        if (ts_parse_int(v, 1, 1000000000, &n))
            return ts_error_set(err, TS_EUSAGE,
                                "imb: --budget expects a number of messages per size (1 to "
                                "1,000,000,000), got '%s'",
                                v);
        o->budget = n;
        return TS_OK;
    }
    case IO_SYNC:
        /* IMB_init.c takes on / 1 / enable / yes and off / 0 / disable / no */
        if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "enable") || !strcmp(v, "yes"))
            o->no_sync = 0;
        else if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "disable") || !strcmp(v, "no"))
            o->no_sync = 1;
        else
            return ts_error_set(err, TS_EUSAGE, "imb: --sync expects on or off, got '%s'", v);
        return TS_OK;
    case IO_TIE: {
        double t = -1;
        if (ts_parse_double(v, &t) || !(t >= 0 && t <= 100))
            return ts_error_set(err, TS_EUSAGE,
                                "imb: --tie expects a percentage from 0 to 100, got '%s'", v);
        o->tie = t;
        return TS_OK;
    }
    case IO_JOBS:
        if (ts_parse_int(v, 1, 256, &o->jobs))
            return ts_error_set(err, TS_EUSAGE, "imb: -j expects 1 to 256 workers, got '%s'", v);
        return TS_OK;
    default: /* IO_NODES .. IO_MAP_BY, in ts_opts_place's order */
        return ts_opts_place("imb", opt - IO_NODES, v, &o->place, err);
    }
}

/* --msglog [MIN:]MAX, as IMB takes it. */
static ts_status parse_msglog(const char *v, int *lo, int *hi, ts_error_t *err)
{
    const char *colon = strchr(v, ':');
    char a[16] = "0", b[16];
    if (colon) {
        snprintf(a, sizeof a, "%.*s", (int)(colon - v < 15 ? colon - v : 15), v);
        snprintf(b, sizeof b, "%s", colon + 1);
    } else {
        snprintf(b, sizeof b, "%s", v);
    }
    if (ts_parse_int(a, 0, 30, lo) || ts_parse_int(b, 0, 30, hi) || *lo > *hi)
        return ts_error_set(err, TS_EUSAGE,
                            "imb: --msglog expects [MIN:]MAX with 0 <= MIN <= MAX <= 30 "
                            "(sizes 2^MIN .. 2^MAX bytes), got '%s'",
                            v);
    return TS_OK;
}

/* --bench a,b,...: the benchmarks in IMB's order of the list. */
static ts_status parse_bench(const char *v, int *which, int *n, ts_error_t *err)
{
    *n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int b = ts_imb_parse(w);
        if (b < 0)
            return ts_error_set(err, TS_EUSAGE,
                                "imb: --bench: unknown benchmark '%s' (expected PingPong, "
                                "Alltoall, Allgather, Allreduce, Exchange)",
                                w);
        int dup = 0;
        for (int k = 0; k < *n; k++)
            dup |= which[k] == b;
        if (!dup)
            which[(*n)++] = b;
    }
    if (!*n)
        return ts_error_set(err, TS_EUSAGE, "imb: --bench names no benchmark");
    return TS_OK;
}

/* ---- the run ------------------------------------------------------------------------------- */

/* ---- reports ------------------------------------------------------------------------------- */

static const itask_t *task_of(const imb_t *m, int bench, int set)
{
    /* tasks run benchmark by benchmark, each over every set (ts_imb_cmd) */
    for (int b = 0; b < m->nbench && set >= 0 && set < m->nsets; b++)
        if (m->bench[b] == bench && (b + 1) * m->nsets <= m->ntasks)
            return &m->tasks[b * m->nsets + set];
    return NULL;
}

/* IMB's own table for one benchmark under one set. */
static void print_imb_table(const imb_t *m, const itask_t *tk, FILE *fp)
{
    const iset_t *s = &m->sets[tk->set];
    fprintf(fp, "#----------------------------------------------------------------\n");
    fprintf(fp, "# Benchmarking %s\n", ts_imb_name(tk->bench));
    fprintf(fp, "# #processes = %d\n", tk->bench == TS_IMB_PINGPONG ? 2 : m->nranks);
    if (tk->bench == TS_IMB_PINGPONG)
        fprintf(fp, "# ( %d additional processes waiting in MPI_Barrier)\n", m->nranks - 2);
    fprintf(fp, "# set %s: %s\n", s->name, s->settings);
    if (s->same_as >= 0)
        fprintf(fp, "# plans every message as set %s does: replayed once, its numbers\n",
                m->sets[s->same_as].name);
    /* The cap does not depend on the size (traces/imb.h): the largest count shows it. */
    fprintf(fp, "# timed repetitions replayed: min(#repetitions, %lld) (%s%lld messages a size)\n",
            (long long)ts_imb_reps_replayed(&m->spec[tk->bench], 0), m->o.reps ? "--reps; " : "",
            (long long)(m->o.budget ? m->o.budget : TS_IMB_MSG_BUDGET));
    fprintf(fp, "#----------------------------------------------------------------\n");
    if (!tk->ok) {
        fprintf(fp, "# failed: %s\n\n", tk->error ? tk->error : "?");
        return;
    }
    if (tk->bench == TS_IMB_PINGPONG)
        fprintf(fp, "%12s %12s %12s %12s\n", "#bytes", "#repetitions", "t[usec]", "Mbytes/sec");
    else
        fprintf(fp, "%12s %12s %12s %12s %12s%s\n", "#bytes", "#repetitions", "t_min[usec]",
                "t_max[usec]", "t_avg[usec]", tk->bench == TS_IMB_EXCHANGE ? "   Mbytes/sec" : "");
    for (int i = 0; i < tk->nsizes; i++) {
        const isize_t *z = &tk->sizes[i];
        if (tk->bench == TS_IMB_PINGPONG) {
            fprintf(fp, "%12llu %12lld %12.2f %12.2f\n", (unsigned long long)z->bytes,
                    (long long)z->reps, z->tmax * 1e6,
                    z->tmax > 0 ? (double)z->bytes / z->tmax / 1e6 : 0.0);
            continue;
        }
        fprintf(fp, "%12llu %12lld %12.2f %12.2f %12.2f", (unsigned long long)z->bytes,
                (long long)z->reps, z->tmin * 1e6, z->tmax * 1e6, z->tavg * 1e6);
        if (tk->bench == TS_IMB_EXCHANGE) /* IMB: 4 messages of #bytes per call and rank */
            fprintf(fp, " %12.2f", z->tmax > 0 ? 4.0 * (double)z->bytes / z->tmax / 1e6 : 0.0);
        fputc('\n', fp);
    }
    fputc('\n', fp);
}

/* A step's winner (docs/imb.md): the sizes at which the sets differ (the slowest t_max more
 * than IMB_DIFF above the fastest) are where the settings act; each set's geometric mean of
 * t_max over them ranks the sets; the sets within --tie (IMB_TIE by default) of the least are
 * ties the models
 * cannot separate, and the first of them in the sets file's order wins (a study lists its
 * defaults first, and keeps them where nothing differs significantly). No size differing:
 * every set ties and the first wins. */
#define IMB_DIFF 0.01
#define IMB_TIE  0.5 /* percent */

typedef struct verdict_s {
    int winner;
    int ndiff;          /* sizes at which the sets differ */
    double *g;          /* per set: geometric mean over them (seconds), 0 for a failed set */
    double best;        /* the least of them */
    int least;          /* the (first) set whose mean it is */
    unsigned char *tie; /* per set: within --tie of the least */
} verdict_t;

static int judge(const imb_t *m, int bench, verdict_t *v)
{
    v->winner = v->least = -1;
    v->ndiff = 0;
    v->best = 0;
    v->g = calloc((size_t)m->nsets, sizeof *v->g);
    v->tie = calloc((size_t)m->nsets, 1);
    if (!v->g || !v->tie)
        return -1;
    const itask_t *first = task_of(m, bench, 0);
    int ns = first ? first->nsizes : 0;
    double *lg = calloc((size_t)m->nsets, sizeof *lg);
    if (!lg)
        return -1;
    for (int i = 0; i < ns; i++) {
        double lo = INFINITY, hi = 0;
        int ok = 1;
        for (int s = 0; s < m->nsets; s++) {
            const itask_t *tk = task_of(m, bench, s);
            if (!tk || !tk->ok || i >= tk->nsizes || !(tk->sizes[i].tmax > 0)) {
                ok = 0;
                continue;
            }
            lo = fmin(lo, tk->sizes[i].tmax);
            hi = fmax(hi, tk->sizes[i].tmax);
        }
        if (!ok || !(hi > lo * (1 + IMB_DIFF)))
            continue;
        v->ndiff++;
        for (int s = 0; s < m->nsets; s++)
            lg[s] += log(task_of(m, bench, s)->sizes[i].tmax);
    }
    for (int s = 0; s < m->nsets; s++) {
        const itask_t *tk = task_of(m, bench, s);
        v->g[s] = tk && tk->ok ? (v->ndiff ? exp(lg[s] / v->ndiff) : 1) : 0;
        if (v->g[s] > 0 && (v->best == 0 || v->g[s] < v->best)) {
            v->best = v->g[s];
            v->least = s;
        }
    }
    free(lg);
    for (int s = 0; s < m->nsets; s++) {
        v->tie[s] = v->g[s] > 0 && v->g[s] <= v->best * (1 + m->o.tie / 100);
        if (v->tie[s] && v->winner < 0)
            v->winner = s;
    }
    return 0;
}

/* Several sets: t_max per size side by side, the sets' geometric means, the winner. */
static void print_comparison(const imb_t *m, int bench, FILE *fp)
{
    fprintf(fp, "# %s, t_max[usec] per set (%d ranks)\n%12s", ts_imb_name(bench), m->nranks,
            "#bytes");
    for (int s = 0; s < m->nsets; s++)
        fprintf(fp, " %14.14s", m->sets[s].name);
    fputc('\n', fp);
    /* The sizes from a set that replayed (a failed one's are not filled in); no winner
     * where any set failed: its missing sizes would make it look like a tie. */
    const itask_t *first = NULL;
    int failed = 0;
    for (int s = 0; s < m->nsets; s++) {
        const itask_t *tk = task_of(m, bench, s);
        if (tk && tk->ok && !first)
            first = tk;
        failed += !tk || !tk->ok;
    }
    int ns = first ? first->nsizes : 0;
    for (int i = 0; i < ns; i++) {
        fprintf(fp, "%12llu", (unsigned long long)first->sizes[i].bytes);
        for (int s = 0; s < m->nsets; s++) {
            const itask_t *tk = task_of(m, bench, s);
            if (tk && tk->ok && i < tk->nsizes)
                fprintf(fp, " %14.2f", tk->sizes[i].tmax * 1e6);
            else
                fprintf(fp, " %14s", "-");
        }
        fputc('\n', fp);
    }
    if (failed) {
        fprintf(fp, "# no winner: %d of %d sets failed (above)\n", failed, m->nsets);
        return;
    }
    verdict_t v;
    if (judge(m, bench, &v) == 0) {
        fprintf(fp, "%12s", "geomean");
        for (int s = 0; s < m->nsets; s++) {
            if (v.g[s] > 0 && v.ndiff)
                fprintf(fp, " %14.3f", v.g[s] * 1e6);
            else
                fprintf(fp, " %14s", "-");
        }
        fputc('\n', fp);
        if (v.winner >= 0) {
            if (v.ndiff && v.least == v.winner)
                fprintf(fp,
                        "# winner: %s (least geometric mean of t_max over the %d sizes at "
                        "which the sets differ by more than %.0f %%: %.3f us)\n",
                        m->sets[v.winner].name, v.ndiff, IMB_DIFF * 100, v.best * 1e6);
            else if (v.ndiff) /* a tie listed before the least: say whose the least is */
                fprintf(fp,
                        "# winner: %s (the first in the sets' order within %g %% of the least "
                        "geometric mean of t_max over the %d sizes at which the sets differ by "
                        "more than %.0f %%: %s %.3f us, %s %.3f us)\n",
                        m->sets[v.winner].name, m->o.tie, v.ndiff, IMB_DIFF * 100,
                        m->sets[v.least].name, v.best * 1e6, m->sets[v.winner].name,
                        v.g[v.winner] * 1e6);
            else
                fprintf(fp, "# winner: %s (the sets differ at no size by more than %.0f %%)\n",
                        m->sets[v.winner].name, IMB_DIFF * 100);
            int nt = 0;
            for (int s = 0; s < m->nsets; s++)
                if (v.tie[s] && s != v.winner)
                    nt++ ? fprintf(fp, ", %s", m->sets[s].name)
                         : fprintf(fp, "# ties within %g %%: %s", m->o.tie, m->sets[s].name);
            if (nt)
                fputc('\n', fp);
        }
    }
    free(v.g);
    free(v.tie);
    fputc('\n', fp);
}

static ts_status write_csv(const imb_t *m, ts_outfile_t *of, ts_error_t *err)
{
    FILE *fp = ts_outfile_stream(of);
    fprintf(fp, "benchmark,set,ranks,bytes,repetitions,replayed,t_min_us,t_max_us,t_avg_us\n");
    for (int i = 0; i < m->ntasks; i++) {
        const itask_t *tk = &m->tasks[i];
        for (int k = 0; tk->ok && k < tk->nsizes; k++) {
            const isize_t *z = &tk->sizes[k];
            fprintf(fp, "%s,%s,%d,%llu,%lld,%lld,%.6f,%.6f,%.6f\n", ts_imb_name(tk->bench),
                    m->sets[tk->set].name, tk->bench == TS_IMB_PINGPONG ? 2 : m->nranks,
                    (unsigned long long)z->bytes, (long long)z->reps, (long long)z->replayed,
                    z->tmin * 1e6, z->tmax * 1e6, z->tavg * 1e6);
        }
    }
    return ts_outfile_commit(of, err);
}

/* --plot PREFIX: per benchmark, t_max against the size for every set, log-log, as the
 * study draws its steps (PREFIX-Allreduce.png and .svg, ...); size 0 is left out. */
static ts_status write_plot(void *ctx, const char *dir, ts_error_t *err)
{
    const imb_t *m = ctx;
    char path[4200];
    ts_status st;
    for (int b = 0; b < m->nbench; b++) {
        snprintf(path, sizeof path, "%s/%s.dat", dir, ts_imb_name(m->bench[b]));
        FILE *fp = fopen(path, "w");
        if (!fp)
            return ts_error_set(err, TS_EIO, "%s: cannot create: %s", path, strerror(errno));
        for (int s = 0; s < m->nsets; s++) {
            const itask_t *tk = task_of(m, m->bench[b], s);
            for (int i = 0; tk && tk->ok && i < tk->nsizes; i++)
                if (tk->sizes[i].bytes > 0 && tk->sizes[i].tmax > 0)
                    fprintf(fp, "%llu %.9g\n", (unsigned long long)tk->sizes[i].bytes,
                            tk->sizes[i].tmax * 1e6);
            fprintf(fp, "\n\n"); /* one gnuplot index per set */
        }
        if ((st = ts_gnuplot_close(fp, path, err)) != TS_OK)
            return st;
    }
    snprintf(path, sizeof path, "%s/plot.gp", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return ts_error_set(err, TS_EIO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(fp, "# generated by tunesim imb --plot\ncd ");
    ts_gnuplot_quote(fp, dir);
    fprintf(fp, "\nset encoding utf8\nset termoption noenhanced\nset logscale xy\n"
                "set grid xtics ytics\nset key outside right top\n"
                "set xlabel 'message size [bytes]'\nset ylabel 't_max [usec]'\n"
                "set format x '%%.0s%%cB'\n");
    static const char *const terms[2][2] = {{"pngcairo", "png"}, {"svg", "svg"}};
    for (int t = 0; t < 2; t++)
        for (int b = 0; b < m->nbench; b++) {
            const char *name = ts_imb_name(m->bench[b]);
            fprintf(fp, "set terminal %s size 900,560 noenhanced font 'sans,10'%s\n", terms[t][0],
                    t ? " background rgb 'white'" : "");
            fprintf(fp, "set output '%s.%s'\nset title ", name, terms[t][1]);
            char title[160];
            snprintf(title, sizeof title, "IMB %s, %d nodes x %d ranks: t_max per set", name,
                     m->o.place.nodes, m->o.place.ppn);
            ts_gnuplot_quote(fp, title);
            fprintf(fp, "\nplot");
            for (int s = 0; s < m->nsets; s++) {
                fprintf(fp, "%s '%s.dat' index %d using 1:2 with linespoints title ", s ? "," : "",
                        name, s);
                ts_gnuplot_quote(fp, m->sets[s].name);
            }
            fprintf(fp, "\nset output\n");
        }
    if ((st = ts_gnuplot_close(fp, path, err)) != TS_OK)
        return st;
    return TS_OK;
}

static ts_status plot(const imb_t *m, ts_error_t *err)
{
    char names[TS_IMB__COUNT * 2][2][48];
    const char *outs[TS_IMB__COUNT * 2][2];
    int n = 0;
    for (int b = 0; b < m->nbench; b++)
        for (int t = 0; t < 2; t++, n++) {
            const char *ext = t ? "svg" : "png", *name = ts_imb_name(m->bench[b]);
            snprintf(names[n][0], sizeof names[n][0], "%s.%s", name, ext);
            snprintf(names[n][1], sizeof names[n][1], "-%s.%s", name, ext);
            outs[n][0] = names[n][0];
            outs[n][1] = names[n][1];
        }
    return ts_gnuplot_render("--plot", m->o.plot, write_plot, (void *)m,
                             (const char *const(*)[2])outs, n, err);
}

/* ---- sets ---------------------------------------------------------------------------------- */

static char *describe(const ts_params_t *p, const ts_params_t *base, const ts_job_t *job)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *ms = open_memstream(&buf, &len);
    if (!ms)
        return NULL;
    char *ch = NULL;
    size_t chlen = 0;
    FILE *cs = open_memstream(&ch, &chlen);
    if (cs) {
        /* Against imb's own starting values: its -off_cache default is not the set's. */
        ts_params_print_changes_from(p, base, cs);
        fclose(cs);
    }
    for (char *c = ch; c && *c; c++)
        fputc(*c == '\n' ? ' ' : *c, ms);
    free(ch);
    const ts_placement_t *pl = ts_job_placement(job);
    char map[32];
    fprintf(ms, "(%d nodes x %d, NPS%d, %s)", ts_placement_nodes(pl), ts_placement_ppn(pl),
            ts_placement_nps(pl), ts_placement_map_text(pl, map, sizeof map));
    fclose(ms);
    return buf;
}

/* What a replay depends on besides the protocol model: every setting but UCX_TLS and the UCX
 * thresholds (which act only through the model: its transports and its protocol choice), the
 * platform and the placement. */
static char *set_key(const ts_params_t *p, const ts_job_opts_t *jo)
{
    char *ch = NULL, *buf = NULL;
    size_t chlen = 0, len = 0;
    FILE *cs = open_memstream(&ch, &chlen);
    if (!cs)
        return NULL;
    ts_params_print_changes(p, cs);
    fclose(cs);
    FILE *ms = open_memstream(&buf, &len);
    if (!ms) {
        free(ch);
        return NULL;
    }
    for (char *line = ch, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        static const char *const via_model[] = {"UCX_TLS=", "UCX_RNDV_THRESH=", "UCX_ZCOPY_THRESH=",
                                                "UCX_BCOPY_THRESH=", "UCX_RNDV_SEND_NBR_THRESH="};
        int skip = 0;
        for (size_t k = 0; k < sizeof via_model / sizeof *via_model; k++)
            skip |= strncmp(line, via_model[k], strlen(via_model[k])) == 0;
        if (!skip)
            fprintf(ms, "%s\n", line);
    }
    free(ch);
    fprintf(ms, "%s %d %d %d %d %d %d %d\n", jo->platform ? jo->platform : "", jo->place.nodes,
            jo->place.ppn, jo->place.nps, (int)jo->place.map_by, jo->place.ppr_n, jo->place.ppr_obj,
            jo->place.pe);
    fclose(ms);
    return buf;
}

static ts_status add_set(imb_t *m, const char *name, ts_params_t *p, const ts_job_opts_t *jo,
                         ts_error_t *err)
{
    iset_t *s = &m->sets[m->nsets];
    int me = m->nsets++;
    *s = (iset_t){.name = name,
                  .params = p,
                  .jo = *jo,
                  .same_as = -1,
                  .group_first = me,
                  .group_next = -1,
                  .group_last = me};
    /* Placed once here against the first benchmark's trace: a set that cannot be placed is
     * refused before anything runs. */
    ts_job_t *job = NULL;
    ts_status st = ts_job_prepare(m->trace[m->bench[0]][0], "imb", p, jo, &job, err);
    if (st == TS_OK && (!(s->settings = describe(p, m->base, job)) || !(s->key = set_key(p, jo))))
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_job_close(job);
    s->khash = 14695981039346656037ull;
    for (const char *c = s->key; st == TS_OK && *c; c++)
        s->khash = (s->khash ^ (unsigned char)*c) * 1099511628211ull;
    if (st == TS_OK)
        st = ts_proto_model_new(p, jo->place.nodes * jo->place.ppn, &s->pm, err);
    /* A step's grid often names transports that resolve alike (UCX_TLS=all and self,sm,rc
     * here): such sets are replayed once, which the report says. The group and the alike set
     * are looked up by hash; a hash shared by another key or model (a collision) falls back
     * to the scan. */
    if (st == TS_OK && ((!m->heads && !(m->heads = ts_u64map_new())) ||
                        (!m->alike && !(m->alike = ts_u64map_new()))))
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    if (st != TS_OK)
        return st;
    uint64_t ahash = (s->khash ^ ts_proto_model_hash(s->pm)) * 1099511628211ull;
    int g = (int)(intptr_t)ts_u64map_get(m->heads, s->khash) - 1;
    if (g >= 0 && strcmp(m->sets[g].key, s->key) != 0)
        for (g = 0; g < me && (m->sets[g].group_first != g || m->sets[g].khash != s->khash ||
                               strcmp(m->sets[g].key, s->key) != 0);
             g++)
            ;
    if (g < 0 || g >= me) { /* the first of its key */
        if (!ts_u64map_get(m->heads, s->khash) &&
            ts_u64map_put(m->heads, s->khash, (void *)(intptr_t)(me + 1)))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
    } else {
        iset_t *head = &m->sets[g];
        int j = (int)(intptr_t)ts_u64map_get(m->alike, ahash) - 1;
        if (j >= 0 && m->sets[j].group_first == g && ts_proto_model_same(m->sets[j].pm, s->pm))
            s->same_as = j;
        else if (j >= 0) /* a collision: the scan */
            for (j = g; j >= 0 && s->same_as < 0; j = m->sets[j].group_next)
                if (m->sets[j].same_as < 0 && ts_proto_model_same(m->sets[j].pm, s->pm))
                    s->same_as = j;
        s->group_first = g;
        m->sets[head->group_last].group_next = me;
        head->group_last = me;
    }
    if (s->same_as < 0 && !ts_u64map_get(m->alike, ahash) &&
        ts_u64map_put(m->alike, ahash, (void *)(intptr_t)(me + 1)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    return st;
}

static ts_status open_sets(imb_t *m, const ts_params_t *base, ts_sets_t **sets, ts_error_t *err)
{
    ts_job_opts_t jo = {.platform = m->o.platform, .place = m->o.place};
    if (!m->o.sets) {
        m->sets = calloc(1, sizeof *m->sets);
        ts_params_t *p;
        if (!m->sets || ts_params_copy(base, &p) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        return add_set(m, "settings", p, &jo, err);
    }
    ts_status st = ts_sets_open(m->o.sets, NULL, sets, err);
    if (st != TS_OK)
        return st;
    int n = ts_sets_count(*sets), nbad = ts_sets_nerrors(*sets);
    for (int i = 0; i < nbad; i++)
        fprintf(stderr, "tunesim: %s\n", ts_sets_error(*sets, i));
    if (!n && !nbad)
        return ts_error_set(err, TS_EARG, "imb: %s holds no set", m->o.sets);
    if (n && !(m->sets = calloc((size_t)n, sizeof *m->sets)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    /* Every set's mistake listed, one line each, as sweep lists them: the file's own (above),
     * then the placement and model-platform ones of the other sets; nothing runs. */
    int bad = nbad;
    for (int i = 0; i < n && st != TS_ENOMEM; i++) {
        ts_params_t *p;
        if (ts_params_copy(base, &p) != TS_OK)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        st = ts_sets_apply(*sets, i, p, err);
        if (st != TS_OK && st != TS_ENOMEM && nbad) { /* the set's mistake is listed above */
            ts_params_free(p);
            st = TS_OK;
            continue;
        }
        const ts_set_place_t *sp = ts_sets_place(*sets, i);
        ts_job_opts_t sj = jo;
        if (st == TS_OK && (sp->nodes || sp->ppn))
            st = ts_error_set(err, TS_EARG,
                              "%s:%d: [%s] imb takes the shape from --nodes and --ppn, not "
                              "from a set",
                              m->o.sets, sp->nodes ? sp->nodes_line : sp->ppn_line,
                              ts_sets_name(*sets, i));
        ts_sets_place_over(*sets, i, &sj.place); /* its nodes or ppn refused above */
        if (st == TS_OK) {                       /* add_set keeps p, even when it fails */
            if ((st = add_set(m, ts_sets_name(*sets, i), p, &sj, err)) != TS_OK &&
                st != TS_ENOMEM) {
                char msg[sizeof err->msg];
                snprintf(msg, sizeof msg, "%s", err->msg);
                st = ts_error_set(
                    err, st, "%s:%d: [%s] %s", m->o.sets,
                    ts_sets_job_line(*sets, i, m->trace[m->bench[0]][0], "imb", p, &jo),
                    ts_sets_name(*sets, i), msg);
                iset_t *f = &m->sets[--m->nsets]; /* the failed set leaves no trace */
                ts_params_free(f->params);
                ts_proto_model_free(f->pm);
                free(f->settings);
                free(f->key);
            }
        } else {
            ts_params_free(p);
        }
        if (st != TS_OK && st != TS_ENOMEM) {
            fprintf(stderr, "tunesim: %s\n", err->msg);
            bad++;
        }
    }
    if (st == TS_ENOMEM)
        return st;
    if (bad)
        return ts_error_set(err, TS_EARG, "imb: %d mistake%s in %s (listed above); nothing was run",
                            bad, bad == 1 ? "" : "s", m->o.sets);
    return TS_OK;
}

/* ---- the command --------------------------------------------------------------------------- */

int ts_imb_cmd(int argc, char **argv, ts_error_t *err)
{
    imb_t m = {.o = {.platform = "bm-optimized3.36", .tie = IMB_TIE, .jobs = 1}};
    ts_params_t *base = NULL;
    ts_sets_t *sets = NULL;
    ts_status st = ts_params_new(&base);
    if (st != TS_OK)
        return ts_error_set(err, st, "out of memory");
    /* IMB-MPI1 as the study ran it, with -off_cache: each repetition's buffer lies at a new
     * offset, so UCX registers every zero-copy and rendezvous buffer anew (a setting or a set
     * may say model.net.rcache=size for a run without -off_cache). */
    if (st == TS_OK)
        st = ts_params_set(base, "model.net.rcache", "none", err);
    /* IMB reduces MPI_FLOAT (IMB_mem_manager.c sets red_data_type; IMB_allreduce.c passes
     * size / 4 elements), where the table's default is OpenFOAM's doubles: Open MPI's
     * count-based fallbacks and the blocks of a scatter-reduce count floats. Alltoall,
     * Allgather and Exchange send MPI_BYTE, which no count-based rule of theirs sees. */
    if (st == TS_OK)
        st = ts_params_set(base, "model.coll.datatype_size", "4", err);
    /* What a set's description leaves out: the table's defaults and imb's own. */
    ts_params_t *imb_defaults = NULL;
    if (st == TS_OK && ts_params_copy(base, &imb_defaults) != TS_OK)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    if (st == TS_OK)
        st = ts_opts_parse_params("imb", argc, argv, base, IMB_OPTS, IO__COUNT, imb_opt, &m.o, err);
    if (st == TS_OK && (!m.o.place.nodes || !m.o.place.ppn))
        st = ts_error_set(err, TS_EUSAGE, "imb: --nodes N and --ppn P give the shape");
    if (st == TS_OK)
        st = parse_msglog(m.o.msglog ? m.o.msglog : "0:22", &m.lo, &m.hi, err);
    if (st == TS_OK)
        st = parse_bench(m.o.bench ? m.o.bench : "Alltoall,Allgather,Allreduce,Exchange", m.bench,
                         &m.nbench, err);
    if (st == TS_OK && (int64_t)m.o.place.nodes * m.o.place.ppn > 65536)
        st = ts_error_set(err, TS_EUSAGE, "imb: %d nodes x %d ranks: at most 65,536 ranks",
                          m.o.place.nodes, m.o.place.ppn);
    if (st == TS_OK && m.o.plot && !ts_gnuplot_available())
        st = ts_error_set(err, TS_EIO,
                          "imb: --plot needs gnuplot, which is not installed (Debian: apt-get "
                          "install gnuplot-nox)");
    /* The outputs, and the inputs they must not replace: --sets, --model and each set's. */
    char pics[TS_IMB__COUNT * 2][4200];
    ts_file_use_t uses[4 + TS_IMB__COUNT * 2 + 1] = {{"--sets", m.o.sets, 0, "a sets file", 0},
                                                     {"--csv", m.o.csv, 1, NULL, 0}};
    int nuses = 2;
    for (int b = 0; st == TS_OK && m.o.plot && b < m.nbench; b++)
        for (int t = 0; t < 2; t++, nuses++) {
            snprintf(pics[nuses - 2], sizeof pics[0], "%s-%s.%s", m.o.plot, ts_imb_name(m.bench[b]),
                     t ? "svg" : "png");
            uses[nuses] = (ts_file_use_t){"--plot", pics[nuses - 2], 1, NULL, 0};
        }
    if (st == TS_OK && m.o.plot && !m.o.plot[0])
        st = ts_error_set(err, TS_EUSAGE, "imb: --plot: expected a PREFIX, got an empty one");
    uses[nuses++] = ts_opts_model_use(base, "--model");
    if (ts_platform_is_path(m.o.platform))
        uses[nuses++] = (ts_file_use_t){"--platform", m.o.platform, 0, "a platform description", 0};
    if (st == TS_OK)
        st = ts_check_files("imb", uses, nuses, err);
    /* Every replay writes its platform under TMPDIR: one that cannot take a file is said once,
     * here, rather than by each replay. */
    if (st == TS_OK) {
        char probe[4200];
        FILE *tf = ts_tmp_stream("tunesim-imb", "", probe, sizeof probe, err);
        if (tf)
            fclose(tf);
        else
            st = err->code;
    }
    /* The output's temporary file first: an unwritable --csv fails before any replay. */
    ts_outfile_t *csv = NULL;
    if (st == TS_OK && m.o.csv)
        st = ts_outfile_open(m.o.csv, &csv, err);
    m.nranks = m.o.place.nodes * m.o.place.ppn;
    for (int i = 0; i < m.nbench && st == TS_OK; i++) {
        int b = m.bench[i];
        m.spec[b] = (ts_imb_spec_t){.bench = (ts_imb_bench)b,
                                    .nranks = m.nranks,
                                    .minlog = m.lo,
                                    .maxlog = m.hi,
                                    .reps_cap = m.o.reps,
                                    .msg_budget = m.o.budget,
                                    .no_sync = m.o.no_sync};
        m.nsizes[b] = ts_imb_sizes(&m.spec[b], NULL, 0);
        for (int k = 0; k < m.nsizes[b] && k < MAX_SIZES && st == TS_OK; k++) {
            ts_imb_spec_t one = m.spec[b];
            one.one_size = k + 1;
            char name[64];
            snprintf(name, sizeof name, "imb-%s-%d", ts_imb_name(b), m.nranks);
            st = ts_imb_trace(&one, name, &m.trace[b][k], err);
        }
    }
    m.base = imb_defaults;
    if (st == TS_OK)
        st = open_sets(&m, base, &sets, err);
    for (int i = 0; i < m.nsets && st == TS_OK; i++) {
        char flag[160];
        uses[nuses - 1] =
            ts_opts_set_model_use(m.sets[i].params, m.sets[i].name, base, flag, sizeof flag);
        if (uses[nuses - 1].path)
            st = ts_check_files("imb", uses + 1, nuses - 1, err);
    }
    if (st == TS_OK) {
        m.ntasks = m.nbench * m.nsets;
        m.tasks = calloc((size_t)m.ntasks, sizeof *m.tasks);
        if (!m.tasks)
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
        for (int i = 0; st == TS_OK && i < m.ntasks; i++)
            m.tasks[i] = (itask_t){.bench = m.bench[i / m.nsets], .set = i % m.nsets};
        if (st == TS_OK)
            st = ts__imb_run(&m, err);
    }
    int nfailed = 0;
    if (st == TS_OK) {
        char shown[4200];
        printf("# tunesim imb: IMB-MPI1 on %d nodes x %d ranks (%s), -msglog %d:%d; each size: "
               "one warm-up call, IMB's two barriers, then the timed calls%s; -off_cache: every "
               "buffer registered anew unless a set says model.net.rcache=size; Allreduce on "
               "MPI_FLOAT\n\n",
               m.o.place.nodes, m.o.place.ppn, ts_shown(m.o.platform, shown, sizeof shown), m.lo,
               m.hi,
               m.o.no_sync ? " back to back (-sync off)"
                           : ", a collective's each timed alone and followed by a barrier (-sync "
                             "on)");
        if (m.nreplayed < m.nunits)
            printf("# %d of the %d sizes under the sets replayed; each other took the numbers of "
                   "an earlier set's replay of its size, whose every message it plans alike "
                   "(exact: docs/imb.md, \"What is replayed\")\n\n",
                   m.nreplayed, m.nunits);
        for (int i = 0; i < m.ntasks; i++) {
            print_imb_table(&m, &m.tasks[i], stdout);
            nfailed += !m.tasks[i].ok;
        }
        for (int i = 0; m.nsets > 1 && i < m.nbench; i++)
            print_comparison(&m, m.bench[i], stdout);
        st = ts_report_check(stdout, NULL, err);
    }
    /* A run with failed replays writes no file: its CSV would replace a complete one. */
    if (st == TS_OK && nfailed)
        st = ts_error_set(err, TS_EARG, "imb: %d of %d replays failed (listed above)%s", nfailed,
                          m.ntasks, csv || m.o.plot ? "; no file written" : "");
    if (st == TS_OK && csv) {
        st = write_csv(&m, csv, err);
        csv = NULL;
    }
    ts_outfile_abort(csv);
    if (st == TS_OK && m.o.plot)
        st = plot(&m, err);
    for (int i = 0; i < m.ntasks; i++)
        free(m.tasks[i].error);
    free(m.tasks);
    for (int i = 0; i < m.nunits; i++) {
        free(m.units[i].error);
        free(m.units[i].asks);
    }
    free(m.units);
    for (int i = 0; i < m.nsets; i++) {
        ts_params_free(m.sets[i].params);
        ts_proto_model_free(m.sets[i].pm);
        free(m.sets[i].settings);
        free(m.sets[i].key);
    }
    free(m.sets);
    ts_u64map_free(m.heads);
    ts_u64map_free(m.alike);
    for (int b = 0; b < TS_IMB__COUNT; b++)
        for (int k = 0; k < MAX_SIZES; k++)
            if (m.trace[b][k])
                ts_trace_close(m.trace[b][k]);
    ts_sets_free(sets);
    ts_params_free(base);
    ts_params_free(imb_defaults);
    return st;
}
