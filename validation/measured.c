/* measured.c - measured run times per setting: OpenFOAM logs, log directories, manifests,
 * CSV files, and their summary statistics (see measured.h). */
#include "measured.h"

#include "../common/numparse.h"
#include "../common/grow.h"
#include "../common/infile.h"
#include "../common/outfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct ts_measured_s {
    ts_measured_setting_t *set;
    size_t n, cap;
    double max_clock_ratio; /* 0: keep every log */
    ts_measured_rejected_t *rej;
    size_t nrej;
    char **files; /* the CSVs and manifests read, each once */
    size_t nfiles;
};

ts_status ts_measured_new(ts_measured_t **out, ts_error_t *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? TS_OK : ts_error_set(err, TS_ENOMEM, "out of memory");
}

void ts_measured_free(ts_measured_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        ts_measured_setting_t *s = &m->set[i];
        for (size_t j = 0; j < s->n; j++)
            free(s->sources[j]);
        free(s->sources);
        free(s->seconds);
        free(s->name);
    }
    free(m->set);
    for (size_t i = 0; i < m->nrej; i++) {
        free(m->rej[i].name);
        free(m->rej[i].source);
    }
    free(m->rej);
    for (size_t i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    free(m->files);
    free(m);
}

void ts_measured_set_max_clock_ratio(ts_measured_t *m, double ratio)
{
    m->max_clock_ratio = ratio;
}

double ts_measured_max_clock_ratio(const ts_measured_t *m)
{
    return m->max_clock_ratio;
}

size_t ts_measured_rejected_count(const ts_measured_t *m)
{
    return m->nrej;
}

const ts_measured_rejected_t *ts_measured_rejected(const ts_measured_t *m, size_t i)
{
    return i < m->nrej ? &m->rej[i] : NULL;
}

size_t ts_measured_count(const ts_measured_t *m)
{
    return m->n;
}

const ts_measured_setting_t *ts_measured_get(const ts_measured_t *m, size_t i)
{
    return i < m->n ? &m->set[i] : NULL;
}

const ts_measured_setting_t *ts_measured_find(const ts_measured_t *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->set[i].name, name) == 0)
            return &m->set[i];
    return NULL;
}

/* Setting names become table cells, CSV fields and JSON keys: keep them plain. */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64) /* a sets file's names: 1-64 characters (commands/sets.h) */
        return 0;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._+-:", *c))
            return 0;
    return 1;
}

ts_status ts_measured_add(ts_measured_t *m, const char *name, double seconds, const char *source,
                          ts_error_t *err)
{
    if (!valid_name(name))
        return ts_error_set(err, TS_EARG,
                            "%s: setting name '%s': expected 1-64 letters, digits or ._+-:", source,
                            name);
    if (!(seconds >= 0) || !isfinite(seconds))
        return ts_error_set(err, TS_EARG, "%s: expected a non-negative time in seconds", source);
    if (seconds == 0)
        seconds = 0; /* -0 reads as 0: reports would print "-0.000" */
    ts_measured_setting_t *s = (ts_measured_setting_t *)ts_measured_find(m, name);
    if (!s) {
        if (TS_GROW(m->set, m->n, m->cap, 8) != 0)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        s = &m->set[m->n];
        memset(s, 0, sizeof *s);
        if (!(s->name = strdup(name)))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        m->n++;
    }
    double *v = realloc(s->seconds, (s->n + 1) * sizeof *v);
    if (!v)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    s->seconds = v;
    char **src = realloc(s->sources, (s->n + 1) * sizeof *src);
    if (!src)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    s->sources = src;
    if (!(src[s->n] = strdup(source)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    v[s->n++] = seconds;
    return TS_OK;
}

ts_status ts_foam_execution_time(const char *path, double *seconds, ts_error_t *err)
{
    double clock;
    return ts_foam_times(path, seconds, &clock, err);
}

ts_status ts_foam_times(const char *path, double *seconds, double *clock, ts_error_t *err)
{
    static const char KEY[] = "ExecutionTime";
    ts_status cs = ts_check_input(path, "an OpenFOAM log", 0, err);
    if (cs != TS_OK)
        return cs;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return ts_error_set(err, TS_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, found_line = 0;
    double found = -1, found_clock = -1;
    ts_status st = TS_OK;
    while (getline(&line, &cap, fp) >= 0) {
        lineno++;
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        /* "--> FOAM FATAL ERROR:" (or FATAL IO ERROR): the run stopped there, and its last
         * ExecutionTime is the time it had run, not the run's */
        if (strstr(s, "FOAM FATAL") && strstr(s, "ERROR")) {
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%ld: the run failed (FOAM FATAL ERROR): its time is no "
                              "measurement of the run (leave the log out)",
                              path, lineno);
            break;
        }
        if (strncmp(s, KEY, sizeof KEY - 1) != 0)
            continue;
        s += sizeof KEY - 1;
        while (*s == ' ')
            s++;
        if (*s != '=') /* another line that starts with the word: not the timing line */
            continue;
        s++;
        char *end;
        errno = 0;
        double x = ts_strtod_dec(s, &end);
        while (*end == ' ')
            end++;
        if (end == s || errno || !(x >= 0) || !isfinite(x) || *end != 's') {
            line[strcspn(line, "\r\n")] = '\0';
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%ld: expected 'ExecutionTime = SECONDS s', got '%.60s'", path,
                              lineno, line);
            break;
        }
        if (x > TS_MEASURED_MAX_S) { /* a sum of two would overflow to inf */
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%ld: ExecutionTime %g s is no run's (expected at most %g s)",
                              path, lineno, x, TS_MEASURED_MAX_S);
            break;
        }
        found = x;
        found_line = lineno;
        /* "ClockTime = Y s" follows on the same line in every OpenFOAM log; optional here. */
        found_clock = -1;
        const char *c = strstr(end, "ClockTime");
        if (c) {
            c += sizeof "ClockTime" - 1;
            while (*c == ' ')
                c++;
            if (*c == '=') {
                double y = ts_strtod_dec(c + 1, &end);
                if (end != c + 1 && y >= 0 && isfinite(y))
                    found_clock = y;
            }
        }
    }
    if (st == TS_OK && ferror(fp))
        st = ts_error_set(err, TS_EIO, "%s: read error", path);
    if (st == TS_OK && !found_line)
        st = ts_error_set(err, TS_ECORRUPT,
                          "%s: no 'ExecutionTime = X s' line (did the solver run an iteration?)",
                          path);
    free(line);
    fclose(fp);
    if (st == TS_OK) {
        *seconds = found;
        *clock = found_clock;
    }
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir's subdirectories (want_dirs) or of its regular *.log files; malloc'ed. */
static ts_status list_dir(const char *dir, int want_dirs, char ***out, size_t *n, ts_error_t *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return ts_error_set(err, TS_EIO, "%s: cannot open directory: %s", dir, strerror(errno));
    char **names = NULL;
    size_t cnt = 0, cap = 0;
    ts_status st = TS_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(e->d_name);
        if (!want_dirs && (len < 5 || strcmp(e->d_name + len - 4, ".log") != 0))
            continue;
        char path[4096];
        struct stat sb;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            stat(path, &sb) != 0)
            continue;
        if (want_dirs ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))
            continue;
        if (TS_GROW(names, cnt, cap, 16) != 0) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        if (!(names[cnt] = strdup(e->d_name))) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            break;
        }
        cnt++;
    }
    closedir(d);
    if (st != TS_OK) {
        for (size_t i = 0; i < cnt; i++)
            free(names[i]);
        free(names);
        return st;
    }
    if (cnt)
        qsort(names, cnt, sizeof *names, cmp_str);
    *out = names;
    *n = cnt;
    return TS_OK;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Add the execution time of one log to setting name. */
static ts_status add_log(ts_measured_t *m, const char *name, const char *path, ts_error_t *err)
{
    /* One log listed twice (a manifest's line repeated, two manifests) would count its run
     * twice. */
    for (size_t i = 0; i < m->n; i++)
        for (size_t j = 0; j < m->set[i].n; j++)
            if (ts_same_file(m->set[i].sources[j], path))
                return ts_error_set(err, TS_EARG,
                                    "%s: the same log as %s, read already (each run once)", path,
                                    m->set[i].sources[j]);
    for (size_t i = 0; i < m->nrej; i++)
        if (ts_same_file(m->rej[i].source, path))
            return ts_error_set(err, TS_EARG,
                                "%s: the same log as %s, read already (each run once)", path,
                                m->rej[i].source);
    double x, clock;
    ts_status st = ts_foam_times(path, &x, &clock, err);
    if (st != TS_OK)
        return st;
    /* ExecutionTime is the rank's CPU time, ClockTime the wall time: a run whose wall time
     * exceeds its CPU time by more than the ratio spent that long descheduled. OpenFOAM prints
     * ClockTime in whole seconds, hence the +1 (a run of 13.2 s CPU may show 14 s). */
    if (m->max_clock_ratio > 0 && clock >= 0 && clock > m->max_clock_ratio * x + 1) {
        ts_measured_rejected_t *r = realloc(m->rej, (m->nrej + 1) * sizeof *r);
        if (!r)
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        m->rej = r;
        r += m->nrej;
        r->name = strdup(name);
        r->source = strdup(path);
        r->seconds = x;
        r->clock = clock;
        if (!r->name || !r->source) {
            free(r->name);
            free(r->source);
            return ts_error_set(err, TS_ENOMEM, "out of memory");
        }
        m->nrej++;
        return TS_OK;
    }
    return ts_measured_add(m, name, x, path, err);
}

/* Whether in, a file read, is out. */
static int is_output(const char *in, const char *out)
{
    struct stat sb;
    return stat(in, &sb) == 0 && S_ISREG(sb.st_mode) && ts_same_file(in, out);
}

ts_status ts_measured_check_output(const ts_measured_t *m, const char *cmd, const char *flag,
                                   const char *out, ts_error_t *err)
{
    const char *hit = NULL;
    for (size_t i = 0; out && !hit && i < m->n; i++)
        for (size_t j = 0; !hit && j < m->set[i].n; j++)
            if (is_output(m->set[i].sources[j], out))
                hit = m->set[i].sources[j];
    for (size_t i = 0; out && !hit && i < m->nrej; i++)
        if (is_output(m->rej[i].source, out))
            hit = m->rej[i].source;
    for (size_t i = 0; out && !hit && i < m->nfiles; i++)
        if (is_output(m->files[i], out))
            hit = m->files[i];
    return hit ? ts_error_set(err, TS_EUSAGE,
                              "%s: %s is both an input (a measured run's file) and an output "
                              "(%s %s): writing it would destroy the input",
                              cmd, hit, flag, out)
               : TS_OK;
}

ts_status ts_measured_check_rejected(const ts_measured_t *m, ts_error_t *err)
{
    for (size_t i = 0; i < m->nrej; i++)
        if (!ts_measured_find(m, m->rej[i].name))
            return ts_error_set(err, TS_EARG,
                                "setting '%s': every run was rejected (ClockTime more than %g x "
                                "ExecutionTime + 1 s, e.g. %s: %g s of %g s)",
                                m->rej[i].name, m->max_clock_ratio, m->rej[i].source,
                                m->rej[i].seconds, m->rej[i].clock);
    return TS_OK;
}

ts_status ts_measured_read_dir(ts_measured_t *m, const char *dir, ts_error_t *err)
{
    char **sets;
    size_t nsets;
    ts_status st = list_dir(dir, 1, &sets, &nsets, err);
    if (st != TS_OK)
        return st;
    if (nsets == 0)
        st = ts_error_set(err, TS_EARG, "%s: no setting directories (expected DIR/SETTING/*.log)",
                          dir);
    for (size_t i = 0; st == TS_OK && i < nsets; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, sets[i]);
        char **logs;
        size_t nlogs;
        if ((st = list_dir(sub, 0, &logs, &nlogs, err)) != TS_OK)
            break;
        if (nlogs == 0)
            st = ts_error_set(err, TS_EARG, "%s: no *.log files for setting '%s'", sub, sets[i]);
        for (size_t j = 0; st == TS_OK && j < nlogs; j++) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", sub, logs[j]);
            st = add_log(m, sets[i], path, err);
        }
        free_names(logs, nlogs);
    }
    free_names(sets, nsets);
    return st;
}

/* Split a line into whitespace-separated words in place (at most max). */
static size_t split_words(char *s, char **w, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(s, " \t\r\n"); tok && n < max; tok = strtok(NULL, " \t\r\n"))
        w[n++] = tok;
    return n;
}

/* A CSV or manifest given twice (two spellings of one path, a link) would count its runs
 * twice: refused; else noted. */
static ts_status note_file(ts_measured_t *m, const char *path, ts_error_t *err)
{
    for (size_t i = 0; i < m->nfiles; i++)
        if (ts_same_file(m->files[i], path))
            return ts_error_set(err, TS_EARG,
                                "%s: the same file as %s, read already (each run once)", path,
                                m->files[i]);
    return ts_strs_push(&m->files, &m->nfiles, path) == 0
               ? TS_OK
               : ts_error_set(err, TS_ENOMEM, "out of memory");
}

/* The first line's text after a UTF-8 byte order mark (spreadsheets' "CSV UTF-8" writes one). */
static char *after_bom(char *line, long lineno)
{
    return lineno == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0 ? line + 3 : line;
}

ts_status ts_measured_read_manifest(ts_measured_t *m, const char *path, ts_error_t *err)
{
    ts_status cs = ts_check_input(path, "a manifest of measured runs", 0, err);
    if (cs == TS_OK)
        cs = note_file(m, path, err);
    if (cs != TS_OK)
        return cs;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return ts_error_set(err, TS_EIO, "%s: cannot open: %s", path, strerror(errno));
    /* Relative log paths are relative to the manifest's directory. */
    char base[4096];
    snprintf(base, sizeof base, "%s", path);
    char *slash = strrchr(base, '/');
    if (slash)
        slash[1] = '\0';
    else
        base[0] = '\0';
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    ts_status st = TS_OK;
    ssize_t len;
    while (st == TS_OK && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            st = ts_error_set(err, TS_ECORRUPT, "%s:%ld: expected text, got a NUL byte", path,
                              lineno);
            break;
        }
        char *text = after_bom(line, lineno);
        char *hash = strchr(text, '#');
        if (hash)
            *hash = '\0';
        char *w[256];
        size_t n = split_words(text, w, 256);
        if (n == 0)
            continue;
        if (n == 1) {
            st = ts_error_set(err, TS_ECORRUPT, "%s:%ld: expected 'SETTING LOG [LOG...]'", path,
                              lineno);
            break;
        }
        if (n == 256) {
            st = ts_error_set(err, TS_ECORRUPT, "%s:%ld: more than 255 logs on one line", path,
                              lineno);
            break;
        }
        if (!valid_name(w[0])) {
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%ld: setting name '%s': expected 1-64 letters, digits or "
                              "._+-:",
                              path, lineno, w[0]);
            break;
        }
        for (size_t i = 1; st == TS_OK && i < n; i++) {
            char log[8192];
            snprintf(log, sizeof log, "%s%s", w[i][0] == '/' ? "" : base, w[i]);
            st = add_log(m, w[0], log, err);
        }
    }
    if (st == TS_OK && ferror(fp))
        st = ts_error_set(err, TS_EIO, "%s: read error", path);
    free(line);
    fclose(fp);
    return st;
}

/* Trim spaces at both ends in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

ts_status ts_measured_read_csv(ts_measured_t *m, const char *path, ts_error_t *err)
{
    ts_status cs = ts_check_input(path, "a CSV of measured runs", 0, err);
    if (cs == TS_OK)
        cs = note_file(m, path, err);
    if (cs != TS_OK)
        return cs;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return ts_error_set(err, TS_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, rows = 0;
    ts_status st = TS_OK;
    ssize_t len;
    while (st == TS_OK && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) { /* it would hide the rest of its line */
            st = ts_error_set(err, TS_ECORRUPT, "%s:%ld: expected text, got a NUL byte", path,
                              lineno);
            break;
        }
        char *text = after_bom(line, lineno);
        char *hash = strchr(text, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(text);
        if (!*s)
            continue;
        char *comma = strchr(s, ',');
        if (!comma || strchr(comma + 1, ',')) {
            st = ts_error_set(err, TS_ECORRUPT, "%s:%ld: expected 'setting,seconds'", path, lineno);
            break;
        }
        *comma = '\0';
        char *name = trim(s), *val = trim(comma + 1);
        if (rows == 0 && strcmp(name, "setting") == 0 && strcmp(val, "seconds") == 0) {
            rows++; /* the header */
            continue;
        }
        rows++;
        char *end;
        errno = 0;
        double x = ts_strtod_dec(val, &end);
        if (end == val || *end || errno || !(x >= 0) || !isfinite(x) || x > TS_MEASURED_MAX_S) {
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%ld: expected a non-negative number of seconds%s, got '%s'", path,
                              lineno,
                              errno == ERANGE         ? " (this one under- or overflows a double)"
                              : x > TS_MEASURED_MAX_S ? " (at most 1e9 s, 31 years)"
                                                      : "",
                              val);
            break;
        }
        char src[4200];
        snprintf(src, sizeof src, "%s:%ld", path, lineno);
        st = ts_measured_add(m, name, x, src, err);
    }
    if (st == TS_OK && ferror(fp))
        st = ts_error_set(err, TS_EIO, "%s: read error", path);
    if (st == TS_OK && rows == 0)
        st = ts_error_set(err, TS_ECORRUPT, "%s: no 'setting,seconds' rows", path);
    free(line);
    fclose(fp);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ts_runstats_compute(const double *v, size_t n, ts_runstats_t *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return;
    double stackbuf[64];
    double *s = n <= 64 ? stackbuf : malloc(n * sizeof *s);
    if (!s) { /* cannot sort: fall back to the plain mean, no trimming */
        double sum = 0, lo = v[0], hi = v[0];
        for (size_t i = 0; i < n; i++) {
            sum += v[i];
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
        out->trimmed_mean = out->median = sum / (double)n;
        out->min = lo;
        out->max = hi;
        out->spread = hi - lo;
        return;
    }
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    size_t k = n / 5;
    double sum = 0;
    for (size_t i = k; i < n - k; i++)
        sum += s[i];
    out->trimmed = k;
    out->trimmed_mean = sum / (double)(n - 2 * k);
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    out->min = s[0];
    out->max = s[n - 1];
    out->spread = s[n - 1] - s[0];
    if (s != stackbuf)
        free(s);
}
