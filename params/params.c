/* params.c - parameter sets: the table of params_table.h with its ranges and priors, a set as
 * one parsed value per table row, "did you mean", the typed reads and the listings. The value
 * parsers are in params_value.c; the readers of command lines (-x, --mca, --set, a pasted
 * mpirun line) in params_args.c. */
#include "params.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params_impl.h"
#include "params_prior.h"
#include "params_range.h"

/* ---- the table ------------------------------------------------------------------------ */

static const ts_param_def_t DEFS[TS_P__COUNT] = {
#define TS__DEF(id, name, type, def, unit, source, help)                                           \
    {TS_P_##id, name, def, unit, source, help, TS_PT_##type},
    TS_PARAM_TABLE(TS__DEF)
#undef TS__DEF
};

/* The table ids ("MCA_PML"): an id starting with MCA_ marks an Open MPI MCA parameter, which
 * users also export as OMPI_MCA_<name>. */
static const char *const ID_NAMES[TS_P__COUNT] = {
#define TS__IDNAME(id, name, type, def, unit, source, help) #id,
    TS_PARAM_TABLE(TS__IDNAME)
#undef TS__IDNAME
};

/* Valid ranges (params_range.h), by id; has = 0 where a row has none. */
static const struct prange {
    int has;
    double min, max;
} RANGES[TS_P__COUNT] = {
#define TS__RANGE(id, lo, hi) [TS_P_##id] = {1, (lo), (hi)},
    TS_PARAM_RANGES(TS__RANGE)
#undef TS__RANGE
};

const ts_param_def_t *ts_param_def(ts_param_id id)
{
    return ((unsigned)id < TS_P__COUNT) ? &DEFS[id] : NULL;
}

int ts_param_range(ts_param_id id, double *min, double *max)
{
    if ((unsigned)id >= TS_P__COUNT || !RANGES[id].has)
        return 0;
    *min = RANGES[id].min;
    *max = RANGES[id].max;
    return 1;
}

/* Priors of the uncertain parameters (params_prior.h), by id. */
static const struct {
    int has;
    double lo, hi;
    const char *why;
} PRIORS[TS_P__COUNT] = {
#define TS__PRIOR(id, lo, hi, why) [TS_P_##id] = {1, lo, hi, why},
    TS_PARAM_PRIORS(TS__PRIOR)
#undef TS__PRIOR
};

int ts_param_prior(ts_param_id id, double *lo, double *hi, const char **why)
{
    if ((unsigned)id >= TS_P__COUNT || !PRIORS[id].has)
        return 0;
    if (lo)
        *lo = PRIORS[id].lo;
    if (hi)
        *hi = PRIORS[id].hi;
    if (why)
        *why = PRIORS[id].why;
    return 1;
}

/* One bound in the syntax of the parameter's type, with the largest unit that shows it
 * exactly (sizes) or with a mantissa of at least 1 (times, rates). */
static void bound_text(ts_param_type t, double v, char *buf, size_t n)
{
    static const struct {
        const char *unit;
        double scale;
    } sizes[] = {{"gb", 1073741824.0}, {"mb", 1048576.0}, {"kb", 1024.0}},
      times[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}},
      rates[] = {{"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"KB/s", 1e3}};
    if (isinf(v)) {
        snprintf(buf, n, "inf");
        return;
    }
    switch (t) {
    case TS_PT_SIZE:
    case TS_PT_SIZE2:
        for (size_t u = 0; u < sizeof sizes / sizeof sizes[0]; u++)
            if (v >= sizes[u].scale && fmod(v, sizes[u].scale) == 0) {
                snprintf(buf, n, "%.15g%s", v / sizes[u].scale, sizes[u].unit);
                return;
            }
        snprintf(buf, n, "%.15gb", v);
        return;
    case TS_PT_TIME:
        for (size_t u = 0; u < sizeof times / sizeof times[0]; u++)
            if (v >= times[u].scale) {
                snprintf(buf, n, "%.15g%s", v / times[u].scale, times[u].unit);
                return;
            }
        snprintf(buf, n, v == 0 ? "0s" : "%.15gs", v);
        return;
    case TS_PT_BW:
        for (size_t u = 0; u < sizeof rates / sizeof rates[0]; u++)
            if (v >= rates[u].scale) {
                snprintf(buf, n, "%.15g%s", v / rates[u].scale, rates[u].unit);
                return;
            }
        snprintf(buf, n, "%.15gB/s", v);
        return;
    default:
        snprintf(buf, n, "%.15g", v);
        return;
    }
}

const char *ts_param_range_text(ts_param_id id, char *buf, size_t n)
{
    double lo, hi;
    if (n)
        buf[0] = '\0';
    if (!ts_param_range(id, &lo, &hi))
        return buf;
    char a[40], b[40];
    bound_text(DEFS[id].type, lo, a, sizeof a);
    bound_text(DEFS[id].type, hi, b, sizeof b);
    snprintf(buf, n, "%s .. %s", a, b);
    return buf;
}

const char *ts_param_prior_text(ts_param_id id, char *buf, size_t n)
{
    double lo, hi;
    if (n)
        buf[0] = '\0';
    if (!ts_param_prior(id, &lo, &hi, NULL))
        return buf;
    char a[40], b[40];
    bound_text(DEFS[id].type, lo, a, sizeof a);
    bound_text(DEFS[id].type, hi, b, sizeof b);
    snprintf(buf, n, "%s .. %s", a, b);
    return buf;
}

static int is_mca(ts_param_id id)
{
    return strncmp(ID_NAMES[id], "MCA_", 4) == 0;
}

int ts_param_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < TS_P__COUNT; i++)
        if (strcmp(DEFS[i].name, name) == 0)
            return i;
    if (strncmp(name, MCA_ENV_PREFIX, MCA_ENV_PREFIX_LEN) == 0)
        for (int i = 0; i < TS_P__COUNT; i++)
            if (is_mca((ts_param_id)i) && strcmp(DEFS[i].name, name + MCA_ENV_PREFIX_LEN) == 0)
                return i;
    return -1;
}

/* ---- sets ------------------------------------------------------------------------------- */

/* A set holds each parameter's parsed value (params_value.c parses it), and the user's text
 * where one was given. */
typedef struct pslot {
    char *text; /* owned: the user's text; NULL while the parameter has its default */
    pvalue_t v;
} pslot_t;

struct ts_params_s {
    pslot_t slot[TS_P__COUNT];
    /* The model file applied last (owned, NULL if none: a grid holds a set per value, so no
     * room is kept for a name few sets have) and the platform it was made for ("" if none): a
     * replay on another platform is refused (ts_params_model_platform). */
    char *model_file, model_platform[64];
};

ts_status ts_params_new(ts_params_t **out)
{
    *out = NULL;
    ts_params_t *p = calloc(1, sizeof *p);
    if (!p)
        return TS_ENOMEM;
    /* Defaults go through the user's parser, so a bad default in the table cannot hide. */
    for (int i = 0; i < TS_P__COUNT; i++)
        if (ts__params_parse_value((ts_param_id)i, DEFS[i].default_text, &p->slot[i].v, NULL) !=
            TS_OK) {
            free(p);
            return TS_EARG;
        }
    *out = p;
    return TS_OK;
}

ts_status ts_params_copy(const ts_params_t *src, ts_params_t **out)
{
    *out = NULL;
    ts_params_t *p = malloc(sizeof *p);
    if (!p)
        return TS_ENOMEM;
    *p = *src;
    p->model_file = NULL;
    for (int i = 0; i < TS_P__COUNT; i++)
        if (src->slot[i].text && !(p->slot[i].text = strdup(src->slot[i].text))) {
            for (int k = i + 1; k < TS_P__COUNT; k++)
                p->slot[k].text = NULL; /* still src's: not ours to free */
            ts_params_free(p);
            return TS_ENOMEM;
        }
    if (src->model_file && !(p->model_file = strdup(src->model_file))) {
        ts_params_free(p);
        return TS_ENOMEM;
    }
    *out = p;
    return TS_OK;
}

void ts_params_free(ts_params_t *p)
{
    if (!p)
        return;
    for (int i = 0; i < TS_P__COUNT; i++)
        free(p->slot[i].text);
    free(p->model_file);
    free(p);
}

/* Exchange the contents of two sets (commits a parse done on a scratch copy). */
void ts__params_swap(ts_params_t *a, ts_params_t *b)
{
    ts_params_t t = *a;
    *a = *b;
    *b = t;
}

/* model.net.link_speed also takes a link's name: its data rate after line coding
 * (InfiniBand 4x: FDR 14.0625 and EDR 25.78125 Gbaud a lane, 64b/66b; HDR twice EDR, NDR
 * twice HDR; QDR 10 Gbaud, 8b/10b; Ethernet as named). The text keeps the name. */
static const char *link_rate_of(const char *name)
{
    static const struct {
        const char *name, *rate;
    } LINKS[] = {
        {"QDR", "32Gbps"},     {"FDR", "54.54Gbps"},  {"EDR", "100Gbps"},    {"HDR100", "100Gbps"},
        {"HDR", "200Gbps"},    {"NDR", "400Gbps"},    {"25GbE", "25Gbps"},   {"50GbE", "50Gbps"},
        {"100GbE", "100Gbps"}, {"200GbE", "200Gbps"}, {"400GbE", "400Gbps"},
    };
    for (size_t k = 0; k < sizeof LINKS / sizeof LINKS[0]; k++)
        if (strcasecmp(name, LINKS[k].name) == 0)
            return LINKS[k].rate;
    return name;
}

ts_status ts__params_set_id(ts_params_t *p, ts_param_id id, const char *value, ts_error_t *err)
{
    pvalue_t v;
    ts_status st = ts__params_parse_value(
        id, id == TS_P_NET_LINK_SPEED ? link_rate_of(value) : value, &v, err);
    if (st != TS_OK)
        return st;
    char *text = strdup(value);
    if (!text)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    free(p->slot[id].text);
    p->slot[id].text = text;
    p->slot[id].v = v;
    return TS_OK;
}

/* ---- did you mean ----------------------------------------------------------------------- */

enum { NAME_MAX_LEN = 96, SUGGEST_MAX = 3, FAR = 1 << 20 };

/* Levenshtein distance, case-insensitive; text longer than NAME_MAX_LEN is FAR from all. */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned row[NAME_MAX_LEN + 1];
    if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
        return FAR;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            unsigned best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* How far key is from parameter id, trying the forms users write: the name, OMPI_MCA_<name>
 * for MCA parameters, and the name without its UCX_ / model. prefix. */
static unsigned name_distance(const char *key, ts_param_id id)
{
    const char *name = DEFS[id].name;
    unsigned d = edit_distance(key, name);
    if (is_mca(id)) {
        char env[NAME_MAX_LEN + 1];
        snprintf(env, sizeof env, "%s%s", MCA_ENV_PREFIX, name);
        unsigned e = edit_distance(key, env);
        d = e < d ? e : d;
    }
    const char *bare = strncmp(name, "UCX_", 4) == 0 || strncmp(name, "MXM_", 4) == 0 ? name + 4
                       : strncmp(name, "model.", 6) == 0                              ? name + 6
                                                                                      : name;
    if (bare != name) {
        unsigned e = edit_distance(key, bare);
        d = e < d ? e : d;
    }
    return d;
}

/* "unknown parameter 'KEY' (did you mean A, B or C?)": up to SUGGEST_MAX names within a
 * quarter of the key's length (at least 1 edit) and within one edit of the closest, closest
 * first, ties in table order. */
ts_status ts__params_unknown(const char *key, ts_error_t *err)
{
    size_t len = strlen(key);
    unsigned limit = len / 4 > 1 ? (unsigned)(len / 4) : 1;
    int ids[SUGGEST_MAX], n = 0;
    unsigned dist[SUGGEST_MAX];
    for (int i = 0; i < TS_P__COUNT; i++) {
        unsigned d = name_distance(key, (ts_param_id)i);
        if (d > limit || (n == SUGGEST_MAX && d >= dist[n - 1]))
            continue;
        int k = n < SUGGEST_MAX ? n++ : n - 1;
        for (; k > 0 && dist[k - 1] > d; k--)
            ids[k] = ids[k - 1], dist[k] = dist[k - 1];
        ids[k] = i, dist[k] = d;
    }
    while (n > 1 && dist[n - 1] > dist[0] + 1)
        n--; /* a far second guess only distracts from a near first one */
    char sk[72], hint[3 * (NAME_MAX_LEN + 16) + 32];
    size_t h = 0;
    hint[0] = '\0';
    int env_form = strncasecmp(key, MCA_ENV_PREFIX, MCA_ENV_PREFIX_LEN) == 0;
    for (int k = 0; k < n; k++) {
        const char *sep = k == 0 ? " (did you mean " : k + 1 < n ? ", " : " or ";
        int env = env_form && is_mca((ts_param_id)ids[k]);
        h += (size_t)snprintf(hint + h, sizeof hint - h, "%s%s%s", sep, env ? MCA_ENV_PREFIX : "",
                              DEFS[ids[k]].name);
    }
    if (n)
        snprintf(hint + h, sizeof hint - h, "?)");
    return ts_error_set(err, TS_EARG, "unknown parameter '%s'%s", ts_shown(key, sk, sizeof sk),
                        hint);
}

ts_status ts_param_lookup(const char *name, ts_param_id *id, ts_error_t *err)
{
    int i = ts_param_find(name);
    if (i < 0)
        return ts__params_unknown(name, err);
    *id = (ts_param_id)i;
    return TS_OK;
}

ts_status ts_params_set(ts_params_t *p, const char *name, const char *value, ts_error_t *err)
{
    int id = ts_param_find(name);
    if (id < 0)
        return ts__params_unknown(name, err);
    return ts__params_set_id(p, (ts_param_id)id, value, err);
}

ts_status ts_params_set_user(ts_params_t *p, const char *name, const char *value, ts_error_t *err)
{
    int id = ts_param_find(name);
    size_t n = strlen(value);
    pvalue_t v;
    if (id >= 0 && DEFS[id].type == TS_PT_TIME && n > 0 &&
        (isdigit((unsigned char)value[n - 1]) || value[n - 1] == '.') &&
        ts__params_parse_value((ts_param_id)id, value, &v, NULL) == TS_OK && v.num != 0) {
        char sv[72];
        ts_shown(value, sv, sizeof sv);
        return ts_error_set(err, TS_EARG,
                            "%s: bad value '%s' (a time needs its unit: %ss, %sms, %sus or %sns; "
                            "only 0 goes without)",
                            DEFS[id].name, sv, sv, sv, sv, sv);
    }
    return ts_params_set(p, name, value, err);
}

/* ---- typed reads ------------------------------------------------------------------------ */

/* The slot of id if it exists and has type t (or t2), else NULL. */
static const pslot_t *slot_of(const ts_params_t *p, ts_param_id id, ts_param_type t,
                              ts_param_type t2)
{
    if (!p || (unsigned)id >= TS_P__COUNT || (DEFS[id].type != t && DEFS[id].type != t2))
        return NULL;
    return &p->slot[id];
}

uint64_t ts_params_size(const ts_params_t *p, ts_param_id id, int inter)
{
    const pslot_t *s = slot_of(p, id, TS_PT_SIZE, TS_PT_SIZE2);
    return s ? s->v.size[inter ? 1 : 0] : 0;
}

double ts_params_seconds(const ts_params_t *p, ts_param_id id)
{
    const pslot_t *s = slot_of(p, id, TS_PT_TIME, TS_PT_TIME);
    return s ? s->v.num : 0;
}

double ts_params_bw(const ts_params_t *p, ts_param_id id)
{
    const pslot_t *s = slot_of(p, id, TS_PT_BW, TS_PT_BW);
    return s ? s->v.num : 0;
}

int64_t ts_params_int(const ts_params_t *p, ts_param_id id)
{
    const pslot_t *s = slot_of(p, id, TS_PT_INT, TS_PT_INT);
    return s ? s->v.i : 0;
}

double ts_params_double(const ts_params_t *p, ts_param_id id)
{
    const pslot_t *s = slot_of(p, id, TS_PT_DOUBLE, TS_PT_DOUBLE);
    return s ? s->v.num : 0;
}

int ts_params_number(const ts_params_t *p, ts_param_id id, double *v)
{
    if ((unsigned)id >= TS_P__COUNT)
        return 0;
    ts_param_type t = DEFS[id].type;
    if (t != TS_PT_TIME && t != TS_PT_BW && t != TS_PT_DOUBLE)
        return 0;
    *v = p->slot[id].v.num;
    return 1;
}

ts_status ts_params_set_number(ts_params_t *p, ts_param_id id, double v, ts_error_t *err)
{
    double dummy;
    if (!ts_params_number(p, id, &dummy))
        return ts_error_set(err, TS_EARG, "%s: not a time, rate or number",
                            (unsigned)id < TS_P__COUNT ? DEFS[id].name : "?");
    /* %.17g reads back exactly; no unit is the base unit for all three types. */
    char text[40];
    snprintf(text, sizeof text, "%.17g", v);
    return ts_params_set(p, DEFS[id].name, text, err);
}

int ts_params_bool(const ts_params_t *p, ts_param_id id)
{
    const pslot_t *s = slot_of(p, id, TS_PT_BOOL, TS_PT_BOOL);
    return s ? (int)s->v.i : 0;
}

const char *ts_params_str(const ts_params_t *p, ts_param_id id)
{
    if (!p || (unsigned)id >= TS_P__COUNT)
        return NULL;
    const pslot_t *s = &p->slot[id];
    if (DEFS[id].type == TS_PT_ENUM)
        return s->v.word;
    return s->text ? s->text : DEFS[id].default_text;
}

unsigned ts_params_tls(const ts_params_t *p)
{
    return p ? p->slot[TS_P_UCX_TLS].v.tls : 0;
}

void ts_params_note_model(ts_params_t *p, const char *file, const char *platform)
{
    free(p->model_file);
    p->model_file = file[0] ? strdup(file) : NULL; /* NULL also when out of memory: unnamed */
    snprintf(p->model_platform, sizeof p->model_platform, "%s", platform);
}

const char *ts_params_model_file(const ts_params_t *p)
{
    return p->model_file ? p->model_file : "";
}
const char *ts_params_model_platform(const ts_params_t *p)
{
    return p->model_platform;
}

int ts_params_is_set(const ts_params_t *p, ts_param_id id)
{
    return p && (unsigned)id < TS_P__COUNT && p->slot[id].text != NULL;
}

/* ---- output ----------------------------------------------------------------------------- */

/* Whether slot id of p holds the same value as the default. */
static int is_default_value(const ts_params_t *p, ts_param_id id)
{
    const pslot_t *s = &p->slot[id];
    if (!s->text)
        return 1;
    pvalue_t d;
    if (ts__params_parse_value(id, DEFS[id].default_text, &d, NULL) != TS_OK)
        return 0;
    switch (DEFS[id].type) {
    case TS_PT_SIZE:
    case TS_PT_SIZE2:
        return s->v.size[0] == d.size[0] && s->v.size[1] == d.size[1];
    case TS_PT_TIME:
    case TS_PT_BW:
    case TS_PT_DOUBLE:
        return s->v.num == d.num;
    case TS_PT_INT:
    case TS_PT_BOOL:
        return s->v.i == d.i;
    case TS_PT_ENUM:
        return strcmp(s->v.word, d.word) == 0;
    case TS_PT_TLS:
        return s->v.tls == d.tls;
    case TS_PT_STRING:
        return strcmp(s->text, DEFS[id].default_text) == 0;
    }
    return 0;
}

int ts_params_print_changes(const ts_params_t *p, FILE *fp)
{
    return ts_params_print_changes_from(p, NULL, fp);
}

int ts_params_print_changes_from(const ts_params_t *p, const ts_params_t *base, FILE *fp)
{
    int lines = 0;
    for (int i = 0; i < TS_P__COUNT; i++) {
        /* A slot without text holds its default; against a default, compare values (so
         * that "7GB/s" is the default "7000MB/s"), against a base's setting its text. */
        const char *t = p->slot[i].text ? p->slot[i].text : DEFS[i].default_text;
        const char *b = base ? base->slot[i].text : NULL;
        if (b ? strcmp(t, b) != 0 : !is_default_value(p, (ts_param_id)i)) {
            fprintf(fp, "%s=%s\n", DEFS[i].name, t);
            lines++;
        }
    }
    return lines;
}

/* Markdown table cell text: '|' would end the cell. */
static void md_cell(FILE *fp, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', fp);
        fputc(*s, fp);
    }
}

static void print_markdown(FILE *fp)
{
    fputs("<!-- Generated by `tunesim params --markdown` from params/params_table.h: do not "
          "edit; tests/test_params.c fails when it is stale. -->\n"
          "# tunesim parameters\n"
          "\n"
          "Every parameter tunesim knows, with its default and where the default comes from. "
          "Set UCX variables as mpirun does (`-x UCX_TLS=self,sm,rc`), Open MPI MCA parameters "
          "with `--mca NAME VALUE` (or `-x OMPI_MCA_NAME=VALUE`), and tunesim's own `model.*` "
          "constants with `--set NAME=VALUE`.\n"
          "\n"
          "Values outside a parameter's valid range (`auto` and `inf` aside, where a size "
          "takes them) are refused; the "
          "ranges are in params/params_range.h. A time says its unit (`--set "
          "model.net.latency=1.5us`; a bare `1` would be one second): only `0` goes without.\n"
          "\n"
          "| name | type | default | valid range | unit | meaning | default from |\n"
          "|---|---|---|---|---|---|---|\n",
          fp);
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = &DEFS[i];
        char range[96];
        ts_param_range_text((ts_param_id)i, range, sizeof range);
        fprintf(fp, "| `%s` | %s | `%s` | %s | %s | ", d->name, ts__params_type_name(d->type),
                d->default_text, range[0] ? range : "-", d->unit);
        md_cell(fp, d->help);
        fputs(" | ", fp);
        md_cell(fp, d->source);
        fputs(" |\n", fp);
    }
    fputs("\n## Value syntax\n\n", fp);
    for (int t = 0; t <= TS_PT_STRING; t++)
        fprintf(fp, "- **%s**: %s.\n", ts__params_type_name((ts_param_type)t),
                ts__params_type_doc((ts_param_type)t));
}

static void print_text(FILE *fp)
{
    enum { NCOL = 6 };
    static const char *const head[NCOL] = {"name",        "type", "default",
                                           "valid range", "unit", "meaning"};
    static char range[TS_P__COUNT][96];
    int w[NCOL];
    for (int c = 0; c < NCOL; c++)
        w[c] = (int)strlen(head[c]);
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = &DEFS[i];
        if (!ts_param_range_text((ts_param_id)i, range[i], sizeof range[i])[0])
            snprintf(range[i], sizeof range[i], "-");
        const char *col[NCOL] = {d->name,  ts__params_type_name(d->type), d->default_text,
                                 range[i], d->unit[0] ? d->unit : "-",    d->help};
        for (int c = 0; c < NCOL; c++)
            if ((int)strlen(col[c]) > w[c])
                w[c] = (int)strlen(col[c]);
    }
    fprintf(fp, "%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], head[0], w[1], head[1], w[2],
            head[2], w[3], head[3], w[4], head[4], w[5], head[5], "default from");
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = &DEFS[i];
        fprintf(fp, "%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], d->name, w[1],
                ts__params_type_name(d->type), w[2], d->default_text, w[3], range[i], w[4],
                d->unit[0] ? d->unit : "-", w[5], d->help, d->source);
    }
}

/* text from column `indent` on, wrapped at word boundaries before column `width`. */
static void print_wrapped(FILE *fp, const char *text, int indent, int width)
{
    int col = indent;
    fprintf(fp, "%*s", indent, "");
    for (const char *w = text; *w;) {
        while (*w == ' ')
            w++;
        int n = (int)strcspn(w, " ");
        if (!n)
            break;
        if (col > indent && col + 1 + n > width) {
            fprintf(fp, "\n%*s", indent, "");
            col = indent;
        }
        if (col > indent) {
            fputc(' ', fp);
            col++;
        }
        fprintf(fp, "%.*s", n, w);
        col += n;
        w += n;
    }
    fputc('\n', fp);
}

static void print_compact(FILE *fp)
{
    fprintf(fp, "%-44s %-12s %-17s %s\n", "name", "default", "valid range", "unit");
    fprintf(fp, "    meaning (`tunesim params NAME` for one in full, with the source of its "
                "default;\n    --wide: one line each, --markdown: docs/parameters.md)\n\n");
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = &DEFS[i];
        char range[96];
        if (!ts_param_range_text((ts_param_id)i, range, sizeof range)[0])
            snprintf(range, sizeof range, "-");
        fprintf(fp, "%-44s %-12s %-17s %s\n", d->name, d->default_text, range,
                d->unit[0] ? d->unit : "-");
        print_wrapped(fp, d->help, 4, 100);
    }
}

void ts_params_print_one(FILE *fp, ts_param_id id)
{
    const ts_param_def_t *d = &DEFS[id];
    char range[96];
    if (!ts_param_range_text(id, range, sizeof range)[0])
        snprintf(range, sizeof range, "-");
    fprintf(fp, "%s\n  type      %s\n  default   %s\n  range     %s\n  unit      %s\n", d->name,
            ts__params_type_name(d->type), d->default_text, range, d->unit[0] ? d->unit : "-");
    fprintf(fp, "  meaning\n");
    print_wrapped(fp, d->help, 4, 100);
    fprintf(fp, "  default from\n");
    print_wrapped(fp, d->source, 4, 100);
    const char *why;
    if (ts_param_prior(id, NULL, NULL, &why)) {
        char pr[96];
        fprintf(fp, "  uncertain %s (what tunesim fit may move it within)\n",
                ts_param_prior_text(id, pr, sizeof pr));
        print_wrapped(fp, why, 4, 100);
    }
}

void ts_params_print_table(FILE *fp, int format)
{
    if (format == TS_PTABLE_MARKDOWN)
        print_markdown(fp);
    else if (format == TS_PTABLE_COMPACT)
        print_compact(fp);
    else
        print_text(fp);
}
