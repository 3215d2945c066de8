/* sets.c - parameter-set files (format in sets.h): a line-by-line parser that keeps going
 * after a mistake so that every mistake of a file is reported at once, and the API. Each
 * setting is checked by applying it alone to a default parameter set, with the same parsers
 * as the command line. The sets the sections make are in sets_expand.c. */
#include "sets_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/infile.h"
#include "../params/params_args.h"
#include "../platforms/placement.h"

static const char *const pl_words[] = {"nodes", "ppn", "nps", "map-by"};

/* ---- errors ------------------------------------------------------------------------------ */

static ts_status add_errorv(ts_sets_t *s, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static ts_status add_errorv(ts_sets_t *s, const char *fmt, va_list ap)
{
    if (s->nerrors >= MAX_ERRORS) {
        s->more_errors++;
        return TS_OK;
    }
    if (!s->errors && !(s->errors = calloc(MAX_ERRORS + 1, sizeof *s->errors)))
        return TS_ENOMEM;
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        return TS_ENOMEM;
    ts_one_line(msg); /* a message may quote a value, never a newline of it */
    for (int i = 0; i < s->nerrors; i++)
        if (strcmp(s->errors[i], msg) == 0) { /* a grid axis shared by many sets */
            free(msg);
            return TS_OK;
        }
    s->errors[s->nerrors++] = msg;
    return TS_OK;
}

ts_status ts_sets_add_error(ts_sets_t *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts_status st = add_errorv(s, fmt, ap);
    va_end(ap);
    return st;
}

int ts_sets_nerrors(const ts_sets_t *s)
{
    return s->nerrors + (s->more_errors ? 1 : 0);
}

const char *ts_sets_error(const ts_sets_t *s, int i)
{
    static const char more[] = "(more mistakes not shown)";
    return i < s->nerrors ? s->errors[i] : more;
}

/* ---- small helpers ----------------------------------------------------------------------- */

int ts_sets_valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > MAX_NAME)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '+' || *c == '-'))
            return 0;
    return 1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* Cut a comment: '#' at the start of the line or after a blank (a value never holds one). */
static void strip_comment(char *line)
{
    for (char *c = line; *c; c++)
        if (*c == '#' && (c == line || c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            return;
        }
}

/* Split line into words at blanks; '...' and "..." quote. Returns the count, or -1 for an
 * unterminated quote. *words holds pointers into buf (as long as the line, plus one). */
static int split_words(const char *line, char *buf, char **words, int max)
{
    int n = 0;
    const char *c = line;
    char *o = buf;
    while (*c) {
        while (*c == ' ' || *c == '\t')
            c++;
        if (!*c)
            break;
        if (n == max)
            return -1;
        words[n++] = o;
        while (*c && *c != ' ' && *c != '\t') {
            if (*c == '\'' || *c == '"') {
                char q = *c++;
                while (*c && *c != q)
                    *o++ = *c++;
                if (!*c)
                    return -1;
                c++;
            } else {
                *o++ = *c++;
            }
        }
        *o++ = '\0';
    }
    return n;
}

static int placement_key(const char *w)
{
    if (w[0] == '-' && w[1] == '-')
        w += 2;
    for (int k = 0; k < (int)(sizeof pl_words / sizeof pl_words[0]); k++)
        if (strcmp(w, pl_words[k]) == 0)
            return k;
    if (strcmp(w, "map_by") == 0)
        return PL_MAP_BY;
    return PL_NONE;
}

static void item_free(item_t *it)
{
    if (!it)
        return;
    for (int i = 0; i < it->nwords; i++)
        free(it->words[i]);
    free(it->words);
    free(it->ptext);
    free(it);
}

static item_t *item_words(int line, int n, char *const *words)
{
    item_t *it = calloc(1, sizeof *it);
    if (!it || !(it->words = calloc((size_t)n + 1, sizeof *it->words))) {
        free(it);
        return NULL;
    }
    it->line = line;
    it->pkey = PL_NONE;
    for (int i = 0; i < n; i++) {
        if (!(it->words[i] = strdup(words[i]))) {
            item_free(it);
            return NULL;
        }
        it->nwords = i + 1;
    }
    return it;
}

/* ---- building the structure -------------------------------------------------------------- */

static section_t *cur_section(ts_sets_t *s)
{
    return s->nsections ? &s->sections[s->nsections - 1] : NULL;
}

static ts_status add_entry(section_t *sec, item_t **values, int n)
{
    if (TS_GROW(sec->entries, (size_t)sec->nentries, sec->cap, 8) != 0)
        return TS_ENOMEM;
    item_t **v = malloc((size_t)n * sizeof *v);
    if (!v)
        return TS_ENOMEM;
    memcpy(v, values, (size_t)n * sizeof *v);
    sec->entries[sec->nentries++] = (entry_t){n, v};
    return TS_OK;
}

/* Check one item alone against the defaults: "PATH:LINE: [SECTION] message" if it fails. */
static ts_status check_item(ts_sets_t *s, const section_t *sec, const item_t *it, int *ok)
{
    *ok = 1;
    if (it->pkey != PL_NONE)
        return TS_OK;
    ts_params_t *p;
    if (ts_params_copy(s->defaults, &p) != TS_OK)
        return TS_ENOMEM;
    ts_error_t e;
    ts_error_clear(&e);
    ts_status st = ts_params_parse_args(p, it->nwords, it->words, NULL, &e);
    ts_params_free(p);
    if (st == TS_ENOMEM)
        return st;
    if (st != TS_OK) {
        *ok = 0;
        return ts_sets_add_error(s, "%s:%d: [%s] %s", s->path, it->line, sec->name, e.msg);
    }
    return TS_OK;
}

/* A placement value for key k: counts are positive integers, map-by a word placement knows. */
static item_t *placement_item(ts_sets_t *s, const section_t *sec, int line, int k,
                              const char *value, ts_status *st)
{
    *st = TS_OK;
    item_t *it = calloc(1, sizeof *it);
    if (!it) {
        *st = TS_ENOMEM;
        return NULL;
    }
    it->line = line;
    it->pkey = k;
    if (k == PL_MAP_BY) {
        ts_map_by m;
        ts_error_t e;
        ts_error_clear(&e);
        if (ts_map_by_parse(value, &m, &e) != TS_OK) {
            *st = ts_sets_add_error(s, "%s:%d: [%s] %s", s->path, line, sec->name, e.msg);
            item_free(it);
            return NULL;
        }
        if (!(it->ptext = strdup(value))) {
            *st = TS_ENOMEM;
            item_free(it);
            return NULL;
        }
        return it;
    }
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    long hi = k == PL_NPS ? 64 : 1L << 20;
    if (!*value || *end || errno || v < 1 || v > hi) {
        *st = ts_sets_add_error(s, "%s:%d: [%s] %s expects a whole number from 1 to %ld, got '%s'",
                                s->path, line, sec->name, pl_words[k], hi, value);
        item_free(it);
        return NULL;
    }
    it->pint = (int)v;
    return it;
}

static ts_status parse_header(ts_sets_t *s, char *line, int lineno)
{
    char *close = strchr(line, ']');
    char *rest = close ? trim(close + 1) : NULL;
    if (!close || *rest) {
        return ts_sets_add_error(s, "%s:%d: expected a section header [NAME] or [grid NAME]",
                                 s->path, lineno);
    }
    *close = '\0';
    char *in = trim(line + 1);
    int grid = 0, sec_bad = 0;
    if (strncmp(in, "grid", 4) == 0 && (in[4] == ' ' || in[4] == '\t')) {
        grid = 1;
        in = trim(in + 4);
    }
    if (!ts_sets_valid_name(in)) {
        /* Quote at most a screenful of a bad name: it may be megabytes long. */
        char shown[MAX_NAME + 4];
        ts_sets_add_error(s,
                          "%s:%d: set name '%s': expected 1-%d characters of A-Z a-z "
                          "0-9 . _ + -",
                          s->path, lineno, ts_shown(in, shown, sizeof shown), MAX_NAME);
        sec_bad = 1;
    }
    if (TS_GROW(s->sections, (size_t)s->nsections, s->seccap, 16) != 0)
        return TS_ENOMEM;
    section_t *sec = &s->sections[s->nsections];
    memset(sec, 0, sizeof *sec);
    if (!(sec->name = strdup(in)))
        return TS_ENOMEM;
    sec->line = lineno;
    sec->grid = grid;
    sec->bad_name = sec_bad;
    s->nsections++;
    return TS_OK;
}

/* A line of mpirun words: settings, and placement words (--nodes 2) left over by them. */
static ts_status parse_flags(ts_sets_t *s, section_t *sec, char *line, int lineno)
{
    size_t len = strlen(line);
    char *buf = malloc(len + 1);
    char **words = malloc((len / 2 + 2) * sizeof *words);
    unsigned char *used = calloc(len / 2 + 2, 1);
    ts_status st = TS_OK;
    if (!buf || !words || !used) {
        st = TS_ENOMEM;
        goto done;
    }
    int n = split_words(line, buf, words, (int)(len / 2 + 2));
    if (n < 0) {
        st = ts_sets_add_error(s, "%s:%d: [%s] unterminated quote", s->path, lineno, sec->name);
        goto done;
    }
    /* The environment is no part of a set: a sweep must mean the same on any machine. */
    for (int i = 0; i < n; i++)
        if (strcmp(words[i], "-x") == 0 && (i + 1 >= n || !strchr(words[i + 1], '='))) {
            st = ts_sets_add_error(s,
                                   "%s:%d: [%s] expected -x KEY=VALUE (a sets file does not read "
                                   "the environment)",
                                   s->path, lineno, sec->name);
            goto done;
        }
    ts_params_t *p;
    if (ts_params_copy(s->defaults, &p) != TS_OK) {
        st = TS_ENOMEM;
        goto done;
    }
    ts_error_t e;
    ts_error_clear(&e);
    ts_status pst = ts_params_parse_args(p, n, words, used, &e);
    ts_params_free(p);
    if (pst == TS_ENOMEM) {
        st = pst;
        goto done;
    }
    if (pst != TS_OK) {
        st = ts_sets_add_error(s, "%s:%d: [%s] %s", s->path, lineno, sec->name, e.msg);
        goto done;
    }
    /* Placement words, then the setting words in their order as one item. */
    char **pw = malloc(((size_t)n + 1) * sizeof *pw);
    if (!pw) {
        st = TS_ENOMEM;
        goto done;
    }
    int npw = 0;
    for (int i = 0; i < n && st == TS_OK; i++) {
        if (used[i]) {
            pw[npw++] = words[i];
            continue;
        }
        int k = words[i][0] == '-' && words[i][1] == '-' ? placement_key(words[i]) : PL_NONE;
        if (k == PL_NONE || i + 1 >= n) {
            st = ts_sets_add_error(s,
                                   "%s:%d: [%s] unexpected '%s' (expected -x KEY=VALUE, --mca "
                                   "KEY VALUE, --set KEY=VALUE, KEY=VALUE, or --nodes/--ppn/"
                                   "--nps/--map-by VALUE)",
                                   s->path, lineno, sec->name, words[i]);
            break;
        }
        item_t *it = placement_item(s, sec, lineno, k, words[++i], &st);
        if (it && (st = add_entry(sec, &it, 1)) != TS_OK)
            item_free(it);
    }
    if (st == TS_OK && npw) {
        item_t *it = item_words(lineno, npw, pw);
        if (!it || (st = add_entry(sec, &it, 1)) != TS_OK) {
            item_free(it);
            st = TS_ENOMEM;
        }
    }
    free(pw);
done:
    free(buf);
    free(words);
    free(used);
    return st;
}

/* KEY = VALUE, or in a grid KEY = V1 | V2 | ...; also "nps 2" for placement keys. */
static ts_status parse_pair(ts_sets_t *s, section_t *sec, char *line, int lineno)
{
    char *eq = strchr(line, '=');
    char *key, *value;
    /* "map-by core:PE=2": a placement line's value may hold '=' itself */
    size_t kw = strcspn(line, " \t");
    char after = line[kw];
    line[kw] = '\0';
    int plain = placement_key(line) != PL_NONE && after &&
                line[kw + 1 + strspn(line + kw + 1, " \t")] != '=';
    line[kw] = after;
    if (eq && !plain) {
        *eq = '\0';
        key = trim(line);
        value = trim(eq + 1);
    } else {
        key = line;
        value = line + strcspn(line, " \t");
        if (*value)
            *value++ = '\0';
        value = trim(value);
        if (placement_key(key) == PL_NONE || strpbrk(value, " \t") || !*value)
            return ts_sets_add_error(s,
                                     "%s:%d: [%s] expected KEY=VALUE, -x KEY=VALUE, --mca KEY "
                                     "VALUE or a placement line (nodes|ppn|nps|map-by VALUE)",
                                     s->path, lineno, sec->name);
    }
    if (!*key || strpbrk(key, " \t'\""))
        return ts_sets_add_error(s, "%s:%d: [%s] expected KEY=VALUE with a one-word KEY", s->path,
                                 lineno, sec->name);
    int nalt = 1;
    for (char *c = value; *c; c++)
        nalt += *c == '|';
    if (nalt > 1 && !sec->grid)
        return ts_sets_add_error(s,
                                 "%s:%d: [%s] alternatives 'A | B' are for grids: write the "
                                 "section as [grid %s]",
                                 s->path, lineno, sec->name, sec->name);
    item_t **items = calloc((size_t)nalt, sizeof *items);
    if (!items)
        return TS_ENOMEM;
    ts_status st = TS_OK;
    int k = placement_key(key), n = 0, bad = 0;
    for (char *v = value, *next; v && st == TS_OK; v = next) {
        next = strchr(v, '|');
        if (next)
            *next++ = '\0';
        v = trim(v);
        if (!*v || strpbrk(v, " \t")) {
            st =
                ts_sets_add_error(s, "%s:%d: [%s] %s: expected %s", s->path, lineno, sec->name, key,
                                  *v         ? "one word per value (no blanks)"
                                  : nalt > 1 ? "a value between each two bars ('A | B')"
                                             : "a value after '='");
            bad = 1;
            break;
        }
        item_t *it;
        if (k != PL_NONE) {
            it = placement_item(s, sec, lineno, k, v, &st);
        } else {
            char *pair;
            if (asprintf(&pair, "%s=%s", key, v) < 0) {
                st = TS_ENOMEM;
                break;
            }
            char *w[2] = {"--set", pair};
            it = item_words(lineno, 2, w);
            free(pair);
            if (!it) {
                st = TS_ENOMEM;
                break;
            }
            int ok;
            st = check_item(s, sec, it, &ok);
            if (!ok) {
                item_free(it);
                it = NULL;
            }
        }
        if (!it)
            bad = 1;
        else
            items[n++] = it;
    }
    if (st == TS_OK && !bad)
        st = add_entry(sec, items, n);
    else
        for (int i = 0; i < n; i++)
            item_free(items[i]);
    free(items);
    return st;
}

static ts_status parse_line(ts_sets_t *s, char *raw, int lineno)
{
    strip_comment(raw);
    char *line = trim(raw);
    if (!*line)
        return TS_OK;
    if (*line == '[')
        return parse_header(s, line, lineno);
    section_t *sec = cur_section(s);
    if (!sec)
        return ts_sets_add_error(s, "%s:%d: a setting before any [NAME] section", s->path, lineno);
    if (*line == '-')
        return parse_flags(s, sec, line, lineno);
    return parse_pair(s, sec, line, lineno);
}

/* ---- the API ------------------------------------------------------------------------------- */

ts_status ts_sets_open(const char *path, const char *text, ts_sets_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_status st = TS_OK;
    size_t size = text ? strlen(text) : 0;
    char *owned = text ? strdup(text) : ts_read_whole(path, &size, &st, err);
    if (!owned)
        return st != TS_OK ? st : ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_sets_t *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path)) || ts_params_new(&s->defaults) != TS_OK) {
        free(owned);
        ts_sets_free(s);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    int lineno = 0;
    /* Lines by length, not by NUL: a NUL byte must not hide the rest of its line. */
    for (size_t pos = 0; pos < size && st == TS_OK;) {
        char *line = owned + pos, *nl = memchr(line, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - line) : size - pos;
        line[len] = '\0';
        pos += len + 1;
        lineno++;
        if (strlen(line) != len)
            st =
                ts_sets_add_error(s, "%s:%d: a NUL byte in the line (expected text)", path, lineno);
        else
            st = parse_line(s, line, lineno);
    }
    free(owned);
    if (st == TS_OK && s->nsections == 0)
        st = ts_sets_add_error(s, "%s: no sets (expected sections [NAME] or [grid NAME])", path);
    if (st == TS_OK)
        st = ts__sets_expand(s);
    if (st != TS_OK) {
        ts_sets_free(s);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    *out = s;
    return TS_OK;
}

void ts_sets_free(ts_sets_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nsets; i++) {
        free(s->sets[i].name);
        free(s->sets[i].items);
    }
    free(s->sets);
    for (int i = 0; i < s->nsections; i++) {
        section_t *sec = &s->sections[i];
        for (int e = 0; e < sec->nentries; e++) {
            for (int v = 0; v < sec->entries[e].nvalues; v++)
                item_free(sec->entries[e].values[v]);
            free(sec->entries[e].values);
        }
        free(sec->entries);
        free(sec->name);
    }
    free(s->sections);
    for (int i = 0; i < s->nerrors; i++)
        free(s->errors[i]);
    free(s->errors);
    ts_params_free(s->defaults);
    free(s->path);
    free(s);
}

int ts_sets_count(const ts_sets_t *s)
{
    return s->nsets;
}
const char *ts_sets_name(const ts_sets_t *s, int i)
{
    return s->sets[i].name;
}
int ts_sets_line(const ts_sets_t *s, int i)
{
    return s->sets[i].line;
}
const ts_set_place_t *ts_sets_place(const ts_sets_t *s, int i)
{
    return &s->sets[i].place;
}

void ts_sets_place_over(const ts_sets_t *s, int i, ts_placement_opts_t *place)
{
    const ts_set_place_t *sp = ts_sets_place(s, i);
    if (sp->nodes)
        place->nodes = sp->nodes;
    if (sp->ppn)
        place->ppn = sp->ppn;
    if (sp->nps)
        place->nps = sp->nps;
    if (sp->map_by)
        ts_map_by_layout(sp->map_by, place, NULL); /* checked when parsed */
}

/* jo with set i's placement words of mask applied (bit k: nodes, ppn, nps, map-by). */
static ts_job_opts_t place_some(const ts_sets_t *s, int i, const ts_job_opts_t *jo, int mask)
{
    ts_job_opts_t o = *jo, all = *jo;
    ts_sets_place_over(s, i, &all.place);
    if (mask & 1)
        o.place.nodes = all.place.nodes;
    if (mask & 2)
        o.place.ppn = all.place.ppn;
    if (mask & 4)
        o.place.nps = all.place.nps;
    if (mask & 8) {
        o.place.map_by = all.place.map_by;
        o.place.ppr_n = all.place.ppr_n;
        o.place.ppr_obj = all.place.ppr_obj;
        o.place.pe = all.place.pe;
    }
    return o;
}

/* Whether the job prepares; if not, err says why. */
static int job_prepares(const ts_trace_t *t, const char *trace_name, const ts_params_t *params,
                        const ts_job_opts_t *o, ts_error_t *err)
{
    ts_job_t *job = NULL;
    int ok = ts_job_prepare(t, trace_name, params, o, &job, err) == TS_OK;
    ts_job_close(job);
    return ok;
}

int ts_sets_job_line(const ts_sets_t *s, int i, const ts_trace_t *t, const char *trace_name,
                     const ts_params_t *params, const ts_job_opts_t *jo)
{
    const ts_set_place_t *sp = ts_sets_place(s, i);
    const int lines[] = {sp->nodes_line, sp->ppn_line, sp->nps_line, sp->map_by_line};
    int best = 0;
    ts_error_t e;
    for (int k = 0; k < 4; k++) { /* the first word without which the job prepares */
        if (!lines[k] || (best && lines[k] > best))
            continue;
        ts_job_opts_t o = place_some(s, i, jo, 15 & ~(1 << k));
        if (job_prepares(t, trace_name, params, &o, &e))
            best = lines[k];
    }
    /* Two words each wrong: the first that alone, over the command line's placement, fails
     * as the whole set does (the message shown names it). */
    ts_error_t whole;
    ts_job_opts_t all = place_some(s, i, jo, 15);
    if (!best && !job_prepares(t, trace_name, params, &all, &whole))
        for (int k = 0; k < 4; k++) {
            if (!lines[k] || (best && lines[k] > best))
                continue;
            ts_job_opts_t o = place_some(s, i, jo, 1 << k);
            if (!job_prepares(t, trace_name, params, &o, &e) && strcmp(e.msg, whole.msg) == 0)
                best = lines[k];
        }
    /* A model file made for another platform: its --model line, when the job with all of the
     * set's placement goes through without the model's platform. */
    ts_params_t *bare = NULL;
    if (!best && ts_params_model_platform(params)[0] && ts_params_copy(params, &bare) == TS_OK) {
        ts_params_note_model(bare, "", "");
        if (job_prepares(t, trace_name, bare, &all, &e))
            for (int k = 0; k < s->sets[i].nitems; k++)
                for (int w = 0; w + 1 < s->sets[i].items[k]->nwords; w++)
                    if (strcmp(s->sets[i].items[k]->words[w], "--model") == 0)
                        best = s->sets[i].items[k]->line; /* the last one applies */
        ts_params_free(bare);
    }
    return best ? best : ts_sets_line(s, i);
}

int ts_sets_find(const ts_sets_t *s, const char *name)
{
    for (int i = 0; i < s->nsets; i++)
        if (strcmp(s->sets[i].name, name) == 0)
            return i;
    return -1;
}

ts_status ts_sets_apply(const ts_sets_t *s, int i, ts_params_t *p, ts_error_t *err)
{
    const set_t *set = &s->sets[i];
    /* Check on a copy first, so that a failure leaves p as it was. */
    ts_params_t *work;
    if (ts_params_copy(p, &work) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    for (int k = 0; k < set->nitems && st == TS_OK; k++) {
        const item_t *it = set->items[k];
        if (it->nwords)
            st = ts_params_parse_args(work, it->nwords, it->words, NULL, err);
        if (st != TS_OK && st != TS_ENOMEM) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = ts_error_set(err, TS_EARG, "%s:%d: [%s] %s", s->path, it->line, set->name, msg);
        }
    }
    ts_params_free(work);
    for (int k = 0; k < set->nitems && st == TS_OK; k++)
        if (set->items[k]->nwords)
            st = ts_params_parse_args(p, set->items[k]->nwords, set->items[k]->words, NULL, err);
    return st;
}
