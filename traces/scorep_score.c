/* scorep_score.c - reading scorep-score's text output (what: scorep_score.h). */
#include "scorep_score.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/grow.h"
#include "../common/numparse.h"
#include "../common/infile.h"

struct ts_score_s {
    ts_score_row_t *rows;
    int n;
    size_t cap;
    char *text; /* the file's bytes, NUL-terminated: the parser's working copy */
};

#define ROW_FORMAT "'[flt] type max_buf visits time time%% time/visit region'"

void ts_score_free(ts_score_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        free((char *)s->rows[i].region);
    free(s->rows);
    free(s->text);
    free(s);
}

/* An unsigned integer with optional thousands separators ("1,863,394"): groups of three
 * digits after the first comma. 0 on success. */
static int parse_count(const char *tok, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0, group = -1; /* digits since the last comma; -1: no comma yet */
    if (!*tok)
        return -1;
    for (const char *p = tok; *p; p++) {
        if (*p == ',') {
            if (digits == 0 || (group >= 0 && group != 3) || (group < 0 && digits > 3))
                return -1;
            group = 0;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            return -1;
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        digits++;
        if (group >= 0)
            group++;
    }
    if (group >= 0 && group != 3)
        return -1;
    *out = v;
    return 0;
}

/* A non-negative finite decimal ("1707.00") up to 1e12 (a time in s or us, a percentage:
 * beyond that it is damage, and sums of such overflow); thousands separators are dropped
 * first. */
static int parse_real(const char *tok, double *out)
{
    char buf[64];
    size_t k = 0;
    for (const char *p = tok; *p && k + 1 < sizeof buf; p++)
        if (*p != ',')
            buf[k++] = *p;
    buf[k] = '\0';
    if (!k || !(isdigit((unsigned char)buf[0]) || buf[0] == '.'))
        return -1;
    char *end;
    errno = 0;
    double v = ts_strtod_dec(buf, &end);
    if (*end || errno || !isfinite(v) || v < 0 || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

static int is_header(char **tok, int ntok)
{
    for (int i = 0; i < ntok; i++)
        if (strcmp(tok[i], "type") == 0)
            for (int j = i + 1; j < ntok; j++)
                if (strcmp(tok[j], "region") == 0)
                    return 1;
    return 0;
}

static int is_type_word(const char *s)
{
    if (!*s || strlen(s) >= sizeof(((ts_score_row_t *)0)->type))
        return 0;
    for (const char *p = s; *p; p++)
        if (!isupper((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

/* Split line (modified in place) into at most max whitespace-separated tokens; *rest points
 * at what follows the 7th token's start (the region may hold spaces). */
static int split(char *line, char **tok, int max, char **starts)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        starts[n] = p;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static ts_status add_row(ts_score_t *s, const ts_score_row_t *row)
{
    if (TS_GROW(s->rows, (size_t)s->n, s->cap, 32) != 0)
        return TS_ENOMEM;
    s->rows[s->n++] = *row;
    return TS_OK;
}

/* Parse one row of line (lineno) into row; the region is the rest of the line after the
 * six fields before it. */
static ts_status parse_row(char *line, const char *name, int lineno, ts_score_row_t *row,
                           ts_error_t *err)
{
    /* Keep a copy of the line for the region (split writes NULs into it). */
    char *copy = strdup(line);
    if (!copy)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    char *tok[8], *starts[8];
    int n = split(line, tok, 8, starts);
    int at = 0;
    ts_status st = TS_OK;
    /* The flt column is empty unless scorep-score ran with a filter: then +, - or *. */
    if (n > 0 && (strcmp(tok[0], "+") == 0 || strcmp(tok[0], "-") == 0 || strcmp(tok[0], "*") == 0))
        at = 1;
    memset(row, 0, sizeof *row);
    row->line = lineno;
    static const char *const what[] = {"type", "max_buf", "visits", "time", "time%", "time/visit"};
    if (n - at < 7) {
        st = ts_error_set(err, TS_ECORRUPT, "%s:%d: %s: expected %d columns " ROW_FORMAT ", got %d",
                          name, lineno, n - at == 6 ? "missing region column" : "too few columns",
                          7, n - at);
        goto out;
    }
    if (!is_type_word(tok[at])) {
        st = ts_error_set(err, TS_ECORRUPT,
                          "%s:%d: %s '%.40s' is not a region type (ALL, MPI, "
                          "USR, ...): expected " ROW_FORMAT,
                          name, lineno, what[0], tok[at]);
        goto out;
    }
    snprintf(row->type, sizeof row->type, "%s", tok[at]);
    int bad = -1;
    if (parse_count(tok[at + 1], &row->max_buf))
        bad = 1;
    else if (parse_count(tok[at + 2], &row->visits))
        bad = 2;
    else if (parse_real(tok[at + 3], &row->time))
        bad = 3;
    else if (parse_real(tok[at + 4], &row->time_pct))
        bad = 4;
    else if (parse_real(tok[at + 5], &row->time_per_visit_us))
        bad = 5;
    if (bad > 0) {
        st = ts_error_set(err, TS_ECORRUPT, "%s:%d: %s '%.40s' is not a %s: expected " ROW_FORMAT,
                          name, lineno, what[bad], tok[at + bad],
                          bad >= 3 ? "number from 0 to 1e12" : "number");
        goto out;
    }
    /* The region: the rest of the original line from the seventh field, trailing blanks cut. */
    char *region = copy + (starts[at + 6] - line);
    size_t len = strlen(region);
    while (len && isspace((unsigned char)region[len - 1]))
        region[--len] = '\0';
    memmove(copy, region, len + 1);
    for (const char *c = copy; *c; c++)
        if (iscntrl((unsigned char)*c)) { /* no compiler or MPI names a region so */
            char sr[72];
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%d: region '%s' holds control characters: expected "
                              "scorep-score's region names",
                              name, lineno, ts_shown(copy, sr, sizeof sr));
            goto out;
        }
    row->region = copy;
    copy = NULL;
out:
    free(copy);
    return st;
}

ts_status ts_score_parse(const char *text, size_t len, const char *name, ts_score_t **out,
                         ts_error_t *err)
{
    *out = NULL;
    ts_score_t *s = calloc(1, sizeof *s);
    if (!s)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    s->text = malloc(len + 1);
    if (!s->text) {
        free(s);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    ts_status st = TS_OK;
    if (memchr(text, '\0', len))
        st = ts_error_set(err, TS_ECORRUPT,
                          "%s: holds NUL bytes: expected scorep-score's text "
                          "output",
                          name);
    /* Is there a header? Then everything before it is preamble. */
    int header_line = 0, lineno = 0;
    for (char *p = s->text; st == TS_OK && *p && !header_line;) {
        char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        char buf[512], *tok[16], *starts[16];
        snprintf(buf, sizeof buf, "%.*s", (int)(l < sizeof buf ? l : sizeof buf - 1), p);
        buf[strcspn(buf, "\r")] = '\0'; /* a CRLF file: the header's last word is "region" */
        lineno++;
        if (is_header(tok, split(buf, tok, 16, starts)))
            header_line = lineno;
        p = nl ? nl + 1 : p + l;
    }
    lineno = 0;
    for (char *p = s->text; st == TS_OK && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *q = p;
        while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[l - 1] = '\0';
        if (lineno > header_line && *q) {
            ts_score_row_t row;
            st = parse_row(p, name, lineno, &row, err);
            /* An MPI function or a group listed twice: which row is the run's is unknown, and
             * lookups would take the first. Other types may repeat a name (two static
             * functions of one name in two files). */
            if (st == TS_OK && (strcmp(row.type, "MPI") == 0 || ts_score_is_group(&row)) &&
                ts_score_find(s, row.type, row.region)) {
                char sr[72];
                st = ts_error_set(err, TS_ECORRUPT,
                                  "%s:%d: %s row '%s' appears twice: expected each MPI function "
                                  "and group once",
                                  name, lineno, row.type, ts_shown(row.region, sr, sizeof sr));
                free((char *)row.region);
            }
            if (st == TS_OK && add_row(s, &row) != TS_OK) {
                free((char *)row.region);
                st = ts_error_set(err, TS_ENOMEM, "out of memory");
            }
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (st == TS_OK && s->n == 0)
        st = ts_error_set(err, TS_ECORRUPT, "%s: %s: expected scorep-score's rows " ROW_FORMAT,
                          name, len == 0 ? "empty" : "no rows");
    if (st != TS_OK) {
        ts_score_free(s);
        return st;
    }
    *out = s;
    return TS_OK;
}

ts_status ts_score_read(const char *path, ts_score_t **out, ts_error_t *err)
{
    *out = NULL;
    /* scorep-score tables are small: refuse a huge file before reading it. */
    struct stat sb;
    if (stat(path, &sb) == 0 && sb.st_size > ((off_t)64 << 20))
        return ts_error_set(err, TS_EARG, "%s: larger than 64 MiB: not scorep-score's text output",
                            path);
    size_t len = 0;
    ts_status st;
    char *buf = ts_read_whole(path, &len, &st, err);
    if (!buf)
        return st;
    st = ts_score_parse(buf, len, path, out, err);
    free(buf);
    return st;
}

int ts_score_nrows(const ts_score_t *s)
{
    return s->n;
}

const ts_score_row_t *ts_score_row(const ts_score_t *s, int i)
{
    return (i >= 0 && i < s->n) ? &s->rows[i] : NULL;
}

const ts_score_row_t *ts_score_find(const ts_score_t *s, const char *type, const char *region)
{
    for (int i = 0; i < s->n; i++)
        if ((!type || strcmp(s->rows[i].type, type) == 0) && strcmp(s->rows[i].region, region) == 0)
            return &s->rows[i];
    return NULL;
}

int ts_score_is_group(const ts_score_row_t *row)
{
    return strcmp(row->type, row->region) == 0;
}
