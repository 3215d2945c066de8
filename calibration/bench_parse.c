/* bench_parse.c - OSU / IMB / tunesim-probe text output into benchmark series (see
 * bench_parse.h). The tools print free-form header comments; what a fit needs from them
 * (ranks, nodes, the pair's locality, UCX settings) is read from the probe's key=value line
 * when present, else guessed from the words OSU users write ("2 nodes, 1 rank per node",
 * "4 nodes x 36 ranks = 144", IMB's "#processes = 2"). */
#include "bench_parse.h"

#include "../common/numparse.h"
#include "../common/infile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

static const char *const KIND_NAMES[TS_BENCH__COUNT] = {
    "latency",  "bw",        "reg",   "copy",    "allreduce",
    "alltoall", "allgather", "bcast", "written", "busy"};
static const char *const LOC_NAMES[TS_BLOC__COUNT] = {"unknown", "intra-socket", "cross-socket",
                                                      "inter-node"};

const char *ts_bench_kind_name(ts_bench_kind k)
{
    return (k >= 0 && k < TS_BENCH__COUNT) ? KIND_NAMES[k] : "?";
}
const char *ts_bench_loc_name(ts_bench_loc l)
{
    return (l >= 0 && l < TS_BLOC__COUNT) ? LOC_NAMES[l] : "?";
}
int ts_bench_kind_is_bw(ts_bench_kind k)
{
    return k == TS_BENCH_BW || k == TS_BENCH_COPY;
}
int ts_bench_kind_is_diff(ts_bench_kind k)
{
    return k == TS_BENCH_REG || k == TS_BENCH_WRITTEN || k == TS_BENCH_BUSY;
}

static void series_free(ts_bench_series_t *s)
{
    free(s->file);
    free(s->title);
    free(s->description);
    free(s->settings);
    free(s->settings_line);
    free(s->points);
    memset(s, 0, sizeof *s);
}

void ts_bench_set_clear(ts_bench_set_t *set)
{
    for (size_t i = 0; i < set->nseries; i++)
        series_free(&set->series[i]);
    free(set->series);
    set->series = NULL;
    set->nseries = 0;
}

/* Parser state for one file. */
typedef struct pstate_s {
    const char *name;
    ts_bench_series_t cur;
    int have;      /* cur is open */
    int columns;   /* the column header was seen */
    int ncols;     /* IMB: the columns its header names, each row's (0: OSU, the probe) */
    int value_col; /* 1-based column of the value */
    int loc_given; /* the probe said where the pair sits */
    int skipping;  /* inside a section no fit reads (the probe's per-call costs) */
    double scale;  /* to us, from the unit the column header names ("Latency (ms)") */
    /* UCX_* words of the description lines, with their lines: they join the settings when the
     * section ends, after its "settings:" lines' words. */
    char *ucx;
    int *ucx_line;
    ts_bench_set_t out;
} pstate_t;

static int append_text(char **dst, const char *sep, const char *text)
{
    size_t a = *dst ? strlen(*dst) : 0, b = strlen(text), c = strlen(sep);
    char *n = realloc(*dst, a + (a ? c : 0) + b + 1);
    if (!n)
        return -1;
    if (a) {
        memcpy(n + a, sep, c);
        a += c;
    }
    memcpy(n + a, text, b + 1);
    *dst = n;
    return 0;
}

/* Append the words of text to *dst (blank-separated, as cal_apply_settings splits them), each
 * with its line from lines (one for all of them when nlines is 1). */
static int append_words(char **dst, int **dst_line, const char *text, const int *lines,
                        size_t nlines)
{
    size_t have = 0, add = 0;
    for (const char *w = *dst ? *dst : ""; *(w += strspn(w, " \t")); w += strcspn(w, " \t"))
        have++;
    for (const char *w = text; *(w += strspn(w, " \t")); w += strcspn(w, " \t"))
        add++;
    if (add == 0)
        return 0;
    int *n = realloc(*dst_line, (have + add) * sizeof *n);
    if (!n)
        return -1;
    *dst_line = n;
    for (size_t k = 0; k < add; k++)
        n[have + k] = lines[nlines == 1 ? 0 : k];
    return append_text(dst, " ", text);
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The integer right before the word w (case-insensitive) in s, or -1. */
/* A rank or node count written in a header: a number up to 2^24 (what probe_keys accepts), or
 * -1 for anything else (a header's words are guesses, never trusted to size anything). */
static int count_at(const char *q)
{
    char *end;
    long n = strtol(q, &end, 10);
    return end == q || n < 0 || n > 1 << 24 ? -1 : (int)n;
}

static int number_before(const char *s, const char *w)
{
    size_t wl = strlen(w);
    for (const char *p = s; (p = strcasestr(p, w)) != NULL; p += wl) {
        const char *q = p;
        while (q > s && q[-1] == ' ')
            q--;
        const char *e = q;
        while (q > s && isdigit((unsigned char)q[-1]))
            q--;
        if (q < e && (q == s || !isalnum((unsigned char)q[-1])))
            return count_at(q);
    }
    return -1;
}

/* Collect the UCX settings a description line writes as KEY=VALUE (OSU headers often carry
 * them), with the line they are on. */
static int ucx_words(pstate_t *ps, const char *body, int line)
{
    for (const char *p = body; (p = strstr(p, "UCX_")) != NULL;) {
        size_t n = strcspn(p, " ;|)");
        if ((p == body || !isalnum((unsigned char)p[-1])) && memchr(p, '=', n)) {
            char *word = strndup(p, n); /* whole: a long UCX_TLS list is no less a setting */
            if (!word)
                return -1;
            size_t k = n;
            while (k > 0 && word[k - 1] == ',') /* "UCX_X=v, more words" */
                word[--k] = '\0';
            int bad = append_words(&ps->ucx, &ps->ucx_line, word, &line, 1);
            free(word);
            if (bad)
                return -1;
        }
        p += n;
    }
    return 0;
}

static void ucx_clear(pstate_t *ps)
{
    free(ps->ucx);
    free(ps->ucx_line);
    ps->ucx = NULL;
    ps->ucx_line = NULL;
}

/* Guess ranks, nodes and the pair's locality from the header words; the settings named in the
 * description join the section's. */
static int infer(pstate_t *ps)
{
    ts_bench_series_t *s = &ps->cur;
    const char *d = s->description ? s->description : "";
    int nodes = number_before(d, " node");
    int ppn = number_before(d, " rank per node");
    if (ppn < 0)
        ppn = number_before(d, " ranks per node");
    if (s->nodes <= 0 && nodes > 0)
        s->nodes = nodes;
    if (s->ranks <= 0) {
        const char *eq = strstr(d, "ranks =");
        if (eq)
            s->ranks = count_at(skip_ws(eq + 7)) > 0 ? count_at(skip_ws(eq + 7)) : 0;
        else if (ppn > 0 && s->nodes > 0 && (long long)ppn * s->nodes <= 1 << 24)
            s->ranks = ppn * s->nodes;
        else if (number_before(d, " ranks") > 0)
            s->ranks = number_before(d, " ranks");
    }
    if (!ps->loc_given &&
        (s->kind == TS_BENCH_LATENCY || s->kind == TS_BENCH_BW || ts_bench_kind_is_diff(s->kind))) {
        if (s->nodes >= 2)
            s->loc = TS_BLOC_INTER_NODE;
        else if (s->nodes == 1)
            s->loc = (strcasestr(d, "cross-socket") || strcasestr(d, "cross socket"))
                         ? TS_BLOC_CROSS_SOCKET
                         : TS_BLOC_INTRA_SOCKET;
    }
    if (ps->ucx) {
        size_t n = 0;
        for (const char *w = ps->ucx; *(w += strspn(w, " \t")); w += strcspn(w, " \t"))
            n++;
        if (append_words(&s->settings, &s->settings_line, ps->ucx, ps->ucx_line, n))
            return -1;
    }
    if (s->window <= 0)
        s->window = 64;
    return 0;
}

static ts_status finish(pstate_t *ps, ts_error_t *err)
{
    if (!ps->have)
        return TS_OK;
    ts_bench_series_t *s = &ps->cur;
    char sw[64];
    if (s->npoints == 0)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected data lines (SIZE VALUE) after the header '%s'",
                            ps->name, s->line, ts_shown(s->title, sw, sizeof sw));
    int bad = infer(ps);
    ucx_clear(ps);
    if (bad)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_bench_series_t *n = realloc(ps->out.series, (ps->out.nseries + 1) * sizeof *n);
    if (!n)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ps->out.series = n;
    n[ps->out.nseries++] = *s;
    memset(s, 0, sizeof *s);
    ps->have = 0;
    return TS_OK;
}

static ts_status begin(pstate_t *ps, int line, const char *title, ts_bench_kind kind, int value_col,
                       ts_error_t *err)
{
    ts_status st = finish(ps, err);
    if (st != TS_OK)
        return st;
    memset(&ps->cur, 0, sizeof ps->cur);
    ps->cur.file = strdup(ps->name);
    ps->cur.title = strdup(title);
    if (!ps->cur.file || !ps->cur.title) {
        series_free(&ps->cur);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    ps->cur.line = line;
    ps->cur.kind = kind;
    ps->have = 1;
    ps->skipping = 0;
    ps->columns = 0;
    ps->ncols = 0;
    ps->value_col = value_col;
    ps->scale = 1;
    ps->loc_given = 0;
    return TS_OK;
}

/* An OSU or probe title: the benchmark kind, or -1 when the title is not one we read. */
static int osu_kind(const char *t)
{
    if (strcasestr(t, "Bi-Directional") || strcasestr(t, "Multiple"))
        return -1; /* bibw, mbw_mr: not modelled */
    if (strcasestr(t, "Registration"))
        return TS_BENCH_REG;
    if (strcasestr(t, "Written Buffer"))
        return TS_BENCH_WRITTEN;
    if (strcasestr(t, "Busy Receiver"))
        return TS_BENCH_BUSY;
    if (strcasestr(t, "Copy Bandwidth"))
        return TS_BENCH_COPY;
    if (strcasestr(t, "Allreduce"))
        return TS_BENCH_ALLREDUCE;
    if (strcasestr(t, "All-to-All") || strcasestr(t, "Alltoall"))
        return TS_BENCH_ALLTOALL;
    if (strcasestr(t, "Allgather"))
        return TS_BENCH_ALLGATHER;
    if (strcasestr(t, "Broadcast") || strcasestr(t, "Bcast"))
        return TS_BENCH_BCAST;
    if (strcasestr(t, "Bandwidth Test"))
        return TS_BENCH_BW;
    if (strcasestr(t, "Latency Test"))
        return TS_BENCH_LATENCY;
    return -1;
}

/* "# tunesim-probe: key=value ..." */
static ts_status probe_keys(pstate_t *ps, int line, const char *body, ts_error_t *err)
{
    ts_bench_series_t *s = &ps->cur;
    char buf[1024];
    /* cut, the line would lose its last keys, or read nodes=12 as nodes=1 */
    if (strlen(body) >= sizeof buf)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: a tunesim-probe line of %zu characters: expected at most %zu",
                            ps->name, line, strlen(body), sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", body);
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(w, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        char *end;
        if (strcmp(w, "locality") == 0) {
            int k;
            for (k = 1; k < TS_BLOC__COUNT && strcmp(v, LOC_NAMES[k]) != 0; k++)
                ;
            if (k == TS_BLOC__COUNT)
                return ts_error_set(err, TS_ECORRUPT,
                                    "%s:%d: expected locality=intra-socket, cross-socket or "
                                    "inter-node, got '%s'",
                                    ps->name, line, v);
            s->loc = (ts_bench_loc)k;
            ps->loc_given = 1;
        } else if (strcmp(w, "ranks") == 0 || strcmp(w, "nodes") == 0 || strcmp(w, "window") == 0) {
            long n = strtol(v, &end, 10);
            if (!*v || *end || n <= 0 || n > 1 << 24)
                return ts_error_set(err, TS_ECORRUPT,
                                    "%s:%d: expected %s=a positive count, got '%s'", ps->name, line,
                                    w, v);
            *(w[0] == 'r' ? &s->ranks : w[0] == 'n' ? &s->nodes : &s->window) = (int)n;
        } else if (strcmp(w, "version") == 0 && strcmp(v, "1") != 0) {
            char sv[40];
            return ts_error_set(err, TS_ECORRUPT,
                                "%s:%d: tunesim-probe format version '%s' is not supported "
                                "(expected 1)",
                                ps->name, line, ts_shown(v, sv, sizeof sv));
        }
    }
    /* A pair on two nodes cannot come from a run on one. */
    if (s->loc == TS_BLOC_INTER_NODE && s->nodes == 1)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: locality=inter-node in a run on nodes=1 (expected nodes=2 or "
                            "more, or another locality)",
                            ps->name, line);
    return TS_OK;
}

/* The factor to us of the unit in a latency column header: OSU writes "Latency (us)" or
 * "Avg Latency(us)", but edited or other tools' files say "(ms)", and reading those as us
 * would make every message a thousand times faster. No unit at all is taken as us. */
static int latency_unit(const char *header, double *scale)
{
    static const struct {
        const char *name;
        double scale;
    } units[] = {{"us", 1},    {"usec", 1},    {"ms", 1e3}, {"msec", 1e3},
                 {"ns", 1e-3}, {"nsec", 1e-3}, {"s", 1e6},  {"sec", 1e6}};
    const char *open = strchr(header, '(');
    *scale = 1;
    if (!open)
        return 0;
    const char *close = strchr(open, ')');
    if (!close)
        return -1;
    size_t n = (size_t)(close - open - 1);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && strncmp(open + 1, units[i].name, n) == 0) {
            *scale = units[i].scale;
            return 0;
        }
    return -1;
}

static ts_status comment_line(pstate_t *ps, int line, const char *raw, ts_error_t *err)
{
    const char *body = skip_ws(raw + 1);
    char sw[96];
    if (strncmp(body, "tunesim-probe ", 14) == 0 && strstr(body, "Per-call Test")) {
        /* tunesim-probe --percall: the CPU per MPI call, which the model's per-call defaults
         * come from (model.ucx.send_call / recv_call), not a latency curve to fit: its
         * rows are skipped up to the next section. */
        ts_status st = finish(ps, err);
        ps->skipping = 1;
        return st;
    }
    if (strncmp(body, "OSU MPI", 7) == 0 ||
        (strncmp(body, "tunesim-probe ", 14) == 0 && strstr(body, " Test"))) {
        int k = osu_kind(body);
        if (k < 0)
            return ts_error_set(err, TS_ECORRUPT,
                                "%s:%d: expected an OSU latency, bandwidth or collective "
                                "latency test, got '%s'",
                                ps->name, line, ts_shown(body, sw, sizeof sw));
        return begin(ps, line, body, (ts_bench_kind)k, 2, err);
    }
    if (strncmp(body, "Benchmarking ", 13) == 0) {
        const char *b = skip_ws(body + 13);
        static const struct {
            const char *name;
            ts_bench_kind kind;
            int col;
        } imb[] = {{"PingPong", TS_BENCH_LATENCY, 3},
                   {"Allreduce", TS_BENCH_ALLREDUCE, 5},
                   {"Alltoall", TS_BENCH_ALLTOALL, 5},
                   {"Allgather", TS_BENCH_ALLGATHER, 5},
                   {"Bcast", TS_BENCH_BCAST, 5}};
        for (size_t i = 0; i < sizeof imb / sizeof imb[0]; i++)
            if (strncmp(b, imb[i].name, strlen(imb[i].name)) == 0 &&
                (!b[strlen(imb[i].name)] || isspace((unsigned char)b[strlen(imb[i].name)]))) {
                char title[64];
                snprintf(title, sizeof title, "IMB %s", imb[i].name);
                return begin(ps, line, title, imb[i].kind, imb[i].col, err);
            }
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected IMB PingPong, Allreduce, Alltoall, Allgather or "
                            "Bcast, got '%s'",
                            ps->name, line, ts_shown(b, sw, sizeof sw));
    }
    if (!ps->have || !*body || strspn(body, "-=") == strlen(body))
        return TS_OK; /* rulers, and words before the first section */
    ts_bench_series_t *s = &ps->cur;
    if (strncmp(body, "tunesim-probe:", 14) == 0)
        return probe_keys(ps, line, body + 14, err);
    if (strncmp(body, "settings:", 9) == 0) {
        const char *v = skip_ws(body + 9);
        if (append_words(&s->settings, &s->settings_line, v, &line, 1))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        return TS_OK;
    }
    if (strncasecmp(body, "Size", 4) == 0 && isspace((unsigned char)body[4])) {
        int bw = strstr(body, "MB/s") != NULL;
        if (bw != ts_bench_kind_is_bw(s->kind))
            return ts_error_set(err, TS_ECORRUPT, "%s:%d: expected a %s column for '%s', got '%s'",
                                ps->name, line,
                                ts_bench_kind_is_bw(s->kind) ? "MB/s" : "latency (us)", s->title,
                                ts_shown(body, sw, sizeof sw));
        if (!bw && latency_unit(body, &ps->scale) != 0)
            return ts_error_set(err, TS_ECORRUPT,
                                "%s:%d: expected a latency column in us, ms, ns or s, got '%s'",
                                ps->name, line, ts_shown(body, sw, sizeof sw));
        ps->columns = 1;
        return TS_OK;
    }
    if (strncmp(body, "#processes", 10) == 0) {
        const char *eq = strchr(body, '=');
        if (eq && count_at(skip_ws(eq + 1)) > 0)
            s->ranks = count_at(skip_ws(eq + 1));
        return TS_OK;
    }
    if (append_text(&s->description, " | ", body) || ucx_words(ps, body, line))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    return TS_OK;
}

static ts_status data_line(pstate_t *ps, int line, const char *raw, ts_error_t *err)
{
    char sw[96];
    const char *t = skip_ws(raw);
    if (ps->skipping)
        return TS_OK;
    if (!ps->have)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected a benchmark header ('# OSU MPI ... Test' or "
                            "'# Benchmarking ...') before data, got '%s'",
                            ps->name, line, ts_shown(t, sw, sizeof sw));
    if (*t == '#') { /* IMB's column header: "#bytes #repetitions t[usec] ..." */
        ps->columns = 1;
        ps->ncols = 0;
        for (const char *w = t; *w; w += strcspn(w, " \t")) {
            w += strspn(w, " \t");
            ps->ncols += *w != '\0';
        }
        return TS_OK;
    }
    if (!ps->columns)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected the column header ('# Size ...') before data, got "
                            "'%s'",
                            ps->name, line, ts_shown(t, sw, sizeof sw));
    char buf[512];
    if (strlen(t) >= sizeof buf) /* cut, it would read as something it does not say */
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: a data line of %zu characters (expected size and value "
                            "columns, at most %zu characters)",
                            ps->name, line, strlen(t), sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", t);
    char *tok[8], *save = NULL;
    int n = 0;
    for (char *w = strtok_r(buf, " \t", &save); w && n < 8; w = strtok_r(NULL, " \t", &save))
        tok[n++] = w;
    if (n < ps->value_col)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected %d columns (size ... value), got '%s'", ps->name, line,
                            ps->value_col, ts_shown(t, sw, sizeof sw));
    /* IMB prints every column of its header on every row: fewer is a row cut short (a file
     * cut inside it), whose value would be a prefix of the measured one. */
    if (ps->ncols && n != ps->ncols)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected the %d columns of IMB's header, got %d in '%s' (a "
                            "line cut short?)",
                            ps->name, line, ps->ncols, n, ts_shown(t, sw, sizeof sw));
    char *end;
    errno = 0;
    unsigned long long size = strtoull(tok[0], &end, 10);
    if (!isdigit((unsigned char)tok[0][0]) || *end || errno)
        return ts_error_set(err, TS_ECORRUPT, "%s:%d: expected a message size in bytes, got '%s'",
                            ps->name, line, ts_shown(tok[0], sw, sizeof sw));
    /* OSU, IMB and the probe print each size once, in increasing order: anything else is two
     * runs pasted into one section, whose points would weigh twice. */
    const ts_bench_series_t *cur = &ps->cur;
    if (cur->npoints && size <= cur->points[cur->npoints - 1].size)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: size %llu after %llu (expected sizes in increasing order, "
                            "each once)",
                            ps->name, line, size,
                            (unsigned long long)cur->points[cur->npoints - 1].size);
    const char *vs = tok[ps->value_col - 1];
    const char *what = ts_bench_kind_is_bw(ps->cur.kind) ? "bandwidth (MB/s)" : "time (us)";
    /* A difference below zero (noise, or an eager size in the busy-receiver test) is read;
     * the fit leaves such a point out (calibrate_predict.c). */
    int diff = ts_bench_kind_is_diff(ps->cur.kind);
    errno = 0;
    double v = ts_strtod_dec(vs, &end);
    if (end == vs || *end || isnan(v) || (v < 0 && !diff))
        return ts_error_set(err, TS_ECORRUPT, "%s:%d: expected a %s%s, got '%s'", ps->name, line,
                            diff ? "" : "non-negative ", what, ts_shown(vs, sw, sizeof sw));
    /* OSU's -c: a Validation column after the value */
    if (n > ps->value_col && strcmp(tok[ps->value_col], "Fail") == 0)
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: OSU's validation failed at %llu bytes: the benchmark's data "
                            "was wrong, so is its time",
                            ps->name, line, size);
    /* "1.7 ms": the unit would be dropped and the number read in the header's unit. */
    if (n > ps->value_col && isalpha((unsigned char)tok[ps->value_col][0]) &&
        strcmp(tok[ps->value_col], "Pass") != 0) {
        char both[96];
        snprintf(both, sizeof both, "%s %s", vs, tok[ps->value_col]);
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected a bare number, the unit in the column header, got "
                            "'%s'",
                            ps->name, line, ts_shown(both, sw, sizeof sw));
    }
    /* Denormals, underflows and overflows are damage, not measurements: nothing real is
     * below a picosecond (or 1 byte/s) or above 10^12 us (or 10^18 bytes/s). */
    v *= ts_bench_kind_is_bw(ps->cur.kind) ? 1 : ps->scale;
    if (errno == ERANGE || !isfinite(v) || (v != 0 && (fabs(v) < 1e-6 || fabs(v) > 1e12)))
        return ts_error_set(err, TS_ECORRUPT,
                            "%s:%d: expected a %s of 0 or between 1e-06 and 1e+12, got '%s' (out "
                            "of range)",
                            ps->name, line, what, ts_shown(vs, sw, sizeof sw));
    ts_bench_series_t *s = &ps->cur;
    ts_bench_point_t *p = realloc(s->points, (s->npoints + 1) * sizeof *p);
    if (!p)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    s->points = p;
    p[s->npoints++] = (ts_bench_point_t){(uint64_t)size, v, line};
    return TS_OK;
}

ts_status ts_bench_parse_stream(ts_bench_set_t *set, FILE *fp, const char *name, ts_error_t *err)
{
    pstate_t ps;
    memset(&ps, 0, sizeof ps);
    ps.name = name;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0;
    ts_status st = TS_OK;
    while (st == TS_OK && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        /* A UTF-8 byte order mark, as Windows editors write it, is not part of the text. */
        if (lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            memmove(line, line + 3, (size_t)len - 2);
            len -= 3;
        }
        if (strlen(line) != (size_t)len) {
            st = ts_error_set(err, TS_ECORRUPT, "%s:%d: expected text, got a NUL byte", name,
                              lineno);
            break;
        }
        const char *t = skip_ws(line);
        if (!*t)
            continue;
        st = line[0] == '#' ? comment_line(&ps, lineno, line, err)
                            : data_line(&ps, lineno, line, err);
    }
    free(line);
    if (st == TS_OK && ferror(fp))
        st = ts_error_set(err, TS_EIO, "%s: read error", name);
    if (st == TS_OK)
        st = finish(&ps, err);
    if (st == TS_OK && ps.out.nseries == 0)
        st = ts_error_set(err, TS_ECORRUPT,
                          "%s:%d: expected OSU, IMB or tunesim-probe output, found no "
                          "benchmark header",
                          name, lineno ? lineno : 1);
    ucx_clear(&ps);
    if (st != TS_OK) {
        series_free(&ps.cur);
        ts_bench_set_clear(&ps.out);
        return st;
    }
    ts_bench_series_t *n = realloc(set->series, (set->nseries + ps.out.nseries) * sizeof *n);
    if (!n) {
        ts_bench_set_clear(&ps.out);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    memcpy(n + set->nseries, ps.out.series, ps.out.nseries * sizeof *n);
    set->series = n;
    set->nseries += ps.out.nseries;
    free(ps.out.series);
    return TS_OK;
}

ts_status ts_bench_parse_file(ts_bench_set_t *set, const char *path, ts_error_t *err)
{
    int fd = ts_open_input(path); /* a FIFO nobody writes must not block */
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return ts_error_set(err, e == ENOENT ? TS_ENOENT : TS_EIO, "%s: cannot open: %s", path,
                            e == EISDIR ? "is a directory, expected a file" : strerror(e));
    }
    ts_status st = ts_bench_parse_stream(set, fp, path, err);
    fclose(fp);
    return st;
}
