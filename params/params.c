/* params.c - parameter sets: the table of params_table.h with its parsed defaults, one value
 * parser per type, "did you mean". The readers of command lines (-x, --mca, --set, a pasted
 * mpirun line) are in params_args.c.
 *
 * Above 800 lines on purpose: the value parsers, the typed getters and the changes' printing
 * all work on one private representation of a set (a value per table row, parsed once), which
 * this file keeps to itself; what reads words from outside already lives apart. */
#include "params.h"

#include <ctype.h>
#include <errno.h>
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

/* Per type: the name shown in listings, what an error says was expected, and the syntax
 * paragraph of docs/parameters.md. ENUM and TLS errors add their word lists. */
static const struct type_info {
    const char *name, *expected, *doc;
} TYPES[] = {
    [TS_PT_SIZE] = {"size", "a size: 8192, 16kb, 1mb, inf or auto",
                    "bytes as an integer with an optional suffix b, k or kb, m or mb, g or gb "
                    "(any case; powers of 1024: 16kb = 16384), or `inf` (never) or `auto` "
                    "(UCX decides; for MXM_ variables, MXM's own default, which tunesim does not "
                    "know)"},
    [TS_PT_SIZE2] = {"size2", "a size (8192, 16kb, 1mb, inf or auto) or intra:SIZE,inter:SIZE",
                     "a size for both on-host and off-host peers, or `intra:SIZE,inter:SIZE` "
                     "(either order); a part left out is `auto`, and a bare size in the list "
                     "(`inter:128kb,16kb`) applies to the part not named"},
    [TS_PT_TIME] = {"time", "a time: 275ns, 1.66us, 2ms or 0.5s",
                    "seconds as a decimal number with an optional suffix s, ms, us or ns "
                    "(`1.66us`); no suffix means seconds"},
    [TS_PT_BW] = {"bandwidth", "a bandwidth: 12254MB/s, 12.5GB/s, 100Gbps or auto",
                  "bytes per second as a decimal number with a unit B/s, KB/s, MB/s or GB/s "
                  "(powers of 1000, as UCX and OSU print them; also written Bps, MBps), KiB/s, "
                  "MiB/s or GiB/s (powers of 1024), or bits with a lower-case b (`100Gbps` = "
                  "12.5 GB/s); `auto` (UCX decides) reads as 0"},
    [TS_PT_INT] = {"integer", "an integer", "a decimal integer"},
    [TS_PT_DOUBLE] = {"number", "a number", "a decimal number (`1`, `0.5`, `2e-3`)"},
    [TS_PT_BOOL] = {"boolean", "a boolean: 1/0, y/n, yes/no, true/false or on/off",
                    "1/0, y/n, yes/no, true/false or on/off (any case)"},
    [TS_PT_ENUM] = {"choice", "one of",
                    "one word of the list in braces in the parameter's help (any case)"},
    [TS_PT_TLS] = {"transports", "a transport list",
                   "UCX_TLS syntax: a comma-separated list of transports and aliases: `all`, "
                   "`self`, `sm` or `shm` (posix, sysv, xpmem, knem, cma), `mm` (posix, sysv, "
                   "xpmem), `rc` (rc_mlx5, rc_verbs), `ud` (ud_mlx5, ud_verbs), `dc` (dc_mlx5), "
                   "`tcp`, or single transports; a leading `^` means all except the list"},
    [TS_PT_STRING] = {"text", "text without control characters",
                      "any text; recorded and printed, no effect on the models"},
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

/* ---- values ----------------------------------------------------------------------------- */

enum { ENUM_WORD_MAX = 24 };

/* A parsed value; which member is live follows the parameter's type. */
typedef union pvalue {
    uint64_t size[2];         /* SIZE: both equal; SIZE2: [0] intra (on-host), [1] inter */
    double num;               /* TIME (s), BW (bytes/s, 0 = auto), DOUBLE */
    int64_t i;                /* INT, BOOL (0/1) */
    unsigned tls;             /* TLS: ts_tl bits */
    char word[ENUM_WORD_MAX]; /* ENUM: the table's spelling of the chosen word */
} pvalue_t;

typedef struct pslot {
    char *text; /* owned: the user's text; NULL while the parameter has its default */
    pvalue_t v;
} pslot_t;

struct ts_params_s {
    pslot_t slot[TS_P__COUNT];
    /* The model file applied last and the platform it was made for ("" if none): a replay on
     * another platform is refused (ts_params_model_platform). */
    char model_file[4096], model_platform[64];
};

static int has_control(const char *s)
{
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            return 1;
    return 0;
}

/* Strict decimal number: [sign] digits [. digits] [e [sign] digits], at least one digit in
 * the mantissa. No hex, inf, nan or spaces (strtod would take them). Returns the end of the
 * number, or NULL when s does not start with one. */
static const char *scan_number(const char *s, int allow_sign, double *out)
{
    const char *q = s;
    if (allow_sign && (*q == '+' || *q == '-'))
        q++;
    int digits = 0;
    while (isdigit((unsigned char)*q))
        q++, digits++;
    if (*q == '.') {
        q++;
        while (isdigit((unsigned char)*q))
            q++, digits++;
    }
    if (!digits)
        return NULL;
    if (*q == 'e' || *q == 'E') {
        const char *e = q + 1;
        if (*e == '+' || *e == '-')
            e++;
        if (isdigit((unsigned char)*e)) {
            while (isdigit((unsigned char)*e))
                e++;
            q = e;
        }
    }
    char buf[64];
    size_t len = (size_t)(q - s);
    if (len >= sizeof buf)
        return NULL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    *out = strtod(buf, NULL);
    /* 1e-400 would read as 0 (and pass a range from 0) and 1e400 as inf: values nobody
     * means. A tiny but nonzero one is left to the parameter's range. */
    return !(errno == ERANGE && *out == 0) && isfinite(*out) ? q : NULL;
}

/* SIZE: "8192", "16kb", "1MB", "2007b", "inf", "infinity", "auto". */
static int parse_size(const char *s, uint64_t *out)
{
    if (strcasecmp(s, "auto") == 0) {
        *out = TS_SIZE_AUTO;
        return 1;
    }
    if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0) {
        *out = TS_SIZE_INF;
        return 1;
    }
    if (!isdigit((unsigned char)*s))
        return 0;
    uint64_t n = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (n > (UINT64_MAX - d) / 10)
            return 0;
        n = n * 10 + d;
    }
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {{"", 0},   {"b", 0},   {"k", 10}, {"kb", 10},
                 {"m", 20}, {"mb", 20}, {"g", 30}, {"gb", 30}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strcasecmp(s, units[u].suffix) != 0)
            continue;
        if (n > (TS_SIZE_INF - 1) >> units[u].shift)
            return 0; /* would overflow or reach the special values */
        *out = n << units[u].shift;
        return 1;
    }
    return 0;
}

/* SIZE2: a SIZE for both parts, or comma-separated "intra:SIZE", "inter:SIZE" and at most one
 * bare SIZE (for the part not named); a part left out is auto. */
static int parse_size2(const char *s, uint64_t out[2])
{
    if (!strchr(s, ':') && !strchr(s, ',')) {
        if (!parse_size(s, &out[0]))
            return 0;
        out[1] = out[0];
        return 1;
    }
    uint64_t part[2] = {TS_SIZE_AUTO, TS_SIZE_AUTO}, bare = TS_SIZE_AUTO;
    int named[2] = {0, 0}, have_bare = 0;
    while (1) {
        size_t len = strcspn(s, ",");
        char tok[64];
        if (len == 0 || len >= sizeof tok)
            return 0;
        memcpy(tok, s, len);
        tok[len] = '\0';
        char *colon = strchr(tok, ':');
        if (colon) {
            *colon = '\0';
            int k = strcasecmp(tok, "intra") == 0 ? 0 : strcasecmp(tok, "inter") == 0 ? 1 : -1;
            if (k < 0 || named[k] || !parse_size(colon + 1, &part[k]))
                return 0;
            named[k] = 1;
        } else {
            if (have_bare || !parse_size(tok, &bare))
                return 0;
            have_bare = 1;
        }
        if (!s[len])
            break;
        s += len + 1;
    }
    for (int k = 0; k < 2; k++)
        out[k] = named[k] ? part[k] : bare;
    return 1;
}

/* TIME: seconds, with an optional s/ms/us/ns suffix. */
static int parse_time(const char *s, double *out)
{
    double x;
    const char *end = scan_number(s, 0, &x);
    if (!end)
        return 0;
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (strcasecmp(end, units[u].suffix) == 0) {
            *out = x * units[u].scale;
            return 1;
        }
    return 0;
}

/* BW: [prefix][i](B|b)(/s|ps), prefix k/K, m/M, g/G, t/T; "i" makes it binary; lower-case
 * b counts bits. No unit: bytes/s. "auto" gives 0. A zero bandwidth is refused (the models
 * divide by it). */
static int parse_bw(const char *s, double *out)
{
    if (strcasecmp(s, "auto") == 0) {
        *out = 0;
        return 1;
    }
    double x;
    const char *u = scan_number(s, 0, &x);
    if (!u || !(x > 0))
        return 0;
    if (*u) {
        static const char prefixes[] = "kmgt";
        const char *pp = strchr(prefixes, tolower((unsigned char)*u));
        int power = 0;
        if (pp) { /* *u is not '\0' here, so pp is a real prefix */
            power = (int)(pp - prefixes) + 1;
            u++;
        }
        double base = 1000;
        if (power && *u == 'i')
            base = 1024, u++;
        for (int k = 0; k < power; k++)
            x *= base;
        if (*u == 'b')
            x /= 8;
        else if (*u != 'B')
            return 0;
        u++;
        if (strcmp(u, "/s") != 0 && strcmp(u, "ps") != 0)
            return 0;
    }
    *out = x;
    return isfinite(x) && x > 0;
}

int ts__params_parse_int(const char *s, int64_t *out)
{
    int neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    uint64_t n = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return 0;
        unsigned d = (unsigned)(*s - '0');
        if (n > (limit - d) / 10)
            return 0;
        n = n * 10 + d;
    }
    *out = !neg ? (int64_t)n : n > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)n;
    return 1;
}

static int parse_double(const char *s, double *out)
{
    const char *end = scan_number(s, 1, out);
    return end && !*end;
}

static int parse_bool(const char *s, int64_t *out)
{
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    static const char *const no[] = {"0", "n", "no", "false", "off"};
    for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++) {
        if (strcasecmp(s, yes[k]) == 0)
            return *out = 1, 1;
        if (strcasecmp(s, no[k]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* ENUM: the words are the {a|b|c} list in the help text (one place to keep them). Copies
 * the table's spelling of the word s names (any case) into word; 0 if none. */
static int parse_enum(const ts_param_def_t *d, const char *s, char word[ENUM_WORD_MAX])
{
    const char *w = strchr(d->help, '{'), *close = w ? strchr(w, '}') : NULL;
    if (!close)
        return 0;
    size_t slen = strlen(s);
    for (w++; w < close;) {
        size_t len = strcspn(w, "|}");
        if (len == slen && len < ENUM_WORD_MAX && strncasecmp(w, s, len) == 0) {
            memcpy(word, w, len);
            word[len] = '\0';
            return 1;
        }
        w += len + 1;
    }
    return 0;
}

/* The words of an ENUM's list as "a, b or c" (for error messages). */
static void enum_words(const ts_param_def_t *d, char *buf, size_t n)
{
    const char *open = strchr(d->help, '{'), *close = open ? strchr(open, '}') : NULL;
    size_t k = 0;
    buf[0] = '\0';
    for (const char *w = open ? open + 1 : NULL; close && w < close && k < n;) {
        size_t len = strcspn(w, "|}");
        const char *sep = w == open + 1 ? "" : w + len < close ? ", " : " or ";
        k += (size_t)snprintf(buf + k, n - k, "%s%.*s", sep, (int)len, w);
        w += len + 1;
    }
}

/* UCX_TLS words (UCX's aliases and the transports of ts_tl). */
#define TL_SM  (TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM | TS_TL_KNEM | TS_TL_CMA)
#define TL_MM  (TS_TL_POSIX | TS_TL_SYSV | TS_TL_XPMEM)
#define TL_ALL (TS_TL_SELF | TL_SM | TS_TL_RC | TS_TL_UD | TS_TL_DC | TS_TL_TCP)
static const struct {
    const char *name;
    unsigned bits;
} TLS_WORDS[] = {
    {"all", TL_ALL},        {"self", TS_TL_SELF},   {"sm", TL_SM},        {"shm", TL_SM},
    {"mm", TL_MM},          {"posix", TS_TL_POSIX}, {"sysv", TS_TL_SYSV}, {"xpmem", TS_TL_XPMEM},
    {"knem", TS_TL_KNEM},   {"cma", TS_TL_CMA},     {"rc", TS_TL_RC},     {"rc_mlx5", TS_TL_RC},
    {"rc_verbs", TS_TL_RC}, {"rc_x", TS_TL_RC},     {"ud", TS_TL_UD},     {"ud_mlx5", TS_TL_UD},
    {"ud_verbs", TS_TL_UD}, {"ud_x", TS_TL_UD},     {"dc", TS_TL_DC},     {"dc_mlx5", TS_TL_DC},
    {"dc_x", TS_TL_DC},     {"tcp", TS_TL_TCP},
};
enum { TLS_NWORDS = sizeof TLS_WORDS / sizeof TLS_WORDS[0] };

static void tls_words(char *buf, size_t n)
{
    size_t k = 0;
    for (int w = 0; w < TLS_NWORDS && k < n; w++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s",
                              w == 0               ? ""
                              : w + 1 < TLS_NWORDS ? ", "
                                                   : " or ",
                              TLS_WORDS[w].name);
}

/* TLS: 1 on success; 0 on bad syntax; -1 with the unknown word copied to bad; -2 when the
 * list leaves no transport. */
static int parse_tls(const char *s, unsigned *out, char *bad, size_t badn)
{
    int except = *s == '^';
    unsigned bits = 0;
    s += except;
    while (1) {
        size_t len = strcspn(s, ",");
        if (len == 0)
            return 0;
        int w = 0;
        while (w < TLS_NWORDS &&
               !(strlen(TLS_WORDS[w].name) == len && strncasecmp(TLS_WORDS[w].name, s, len) == 0))
            w++;
        if (w == TLS_NWORDS) {
            snprintf(bad, badn, "%.*s", (int)len, s);
            return -1;
        }
        bits |= TLS_WORDS[w].bits;
        if (!s[len])
            break;
        s += len + 1;
    }
    *out = except ? TL_ALL & ~bits : bits;
    return *out ? 1 : -2;
}

/* Whether a parsed value lies in the parameter's range; the special sizes and "auto" rates
 * are always allowed. */
static int in_range(ts_param_id id, const pvalue_t *v)
{
    double lo, hi;
    if (!ts_param_range(id, &lo, &hi))
        return 1;
    switch (DEFS[id].type) {
    case TS_PT_SIZE:
    case TS_PT_SIZE2:
        for (int k = 0; k < 2; k++)
            if (v->size[k] < TS_SIZE_INF && ((double)v->size[k] < lo || (double)v->size[k] > hi))
                return 0;
        return 1;
    case TS_PT_BW:
        return v->num == 0 || (v->num >= lo && v->num <= hi);
    case TS_PT_TIME:
    case TS_PT_DOUBLE:
        return v->num >= lo && v->num <= hi;
    case TS_PT_INT:
        return (double)v->i >= lo && (double)v->i <= hi;
    default:
        return 1;
    }
}

/* Parse text as a value of parameter id into *v. On error fills err (may be NULL) with
 * "NAME: bad value 'TEXT' (expected ...)" and returns TS_EARG. */
static ts_status parse_value(ts_param_id id, const char *text, pvalue_t *v, ts_error_t *err)
{
    const ts_param_def_t *d = &DEFS[id];
    char sv[72], extra[320];
    memset(v, 0, sizeof *v);
    if (has_control(text))
        return ts_error_set(err, TS_EARG, "%s: bad value '%s' (control characters)", d->name,
                            ts_shown(text, sv, sizeof sv));
    int ok = 0;
    switch (d->type) {
    case TS_PT_SIZE:
        ok = parse_size(text, &v->size[0]);
        v->size[1] = v->size[0];
        break;
    case TS_PT_SIZE2:
        ok = parse_size2(text, v->size);
        break;
    case TS_PT_TIME:
        ok = parse_time(text, &v->num);
        break;
    case TS_PT_BW:
        ok = parse_bw(text, &v->num);
        break;
    case TS_PT_INT:
        ok = ts__params_parse_int(text, &v->i);
        break;
    case TS_PT_DOUBLE:
        ok = parse_double(text, &v->num);
        break;
    case TS_PT_BOOL:
        ok = parse_bool(text, &v->i);
        break;
    case TS_PT_ENUM:
        ok = parse_enum(d, text, v->word);
        if (!ok) {
            enum_words(d, extra, sizeof extra);
            return ts_error_set(err, TS_EARG, "%s: bad value '%s' (expected one of %s)", d->name,
                                ts_shown(text, sv, sizeof sv), extra);
        }
        break;
    case TS_PT_TLS: {
        char bad[40];
        int r = parse_tls(text, &v->tls, bad, sizeof bad);
        ok = r == 1;
        if (r == -1 || r == 0) {
            tls_words(extra, sizeof extra);
            if (r == -1)
                return ts_error_set(err, TS_EARG,
                                    "%s: unknown transport '%s' in '%s' (expected %s; ^ excludes)",
                                    d->name, bad, ts_shown(text, sv, sizeof sv), extra);
            return ts_error_set(err, TS_EARG,
                                "%s: bad value '%s' (expected a comma-separated list of %s; ^ "
                                "excludes)",
                                d->name, ts_shown(text, sv, sizeof sv), extra);
        }
        if (r == -2)
            return ts_error_set(err, TS_EARG, "%s: bad value '%s' (leaves no transport)", d->name,
                                ts_shown(text, sv, sizeof sv));
        break;
    }
    case TS_PT_STRING:
        ok = 1;
        break;
    }
    if (ok && !in_range(id, v)) { /* the range's text only for the message: it costs printf */
        char range[96];
        ts_param_range_text(id, range, sizeof range);
        return ts_error_set(err, TS_EARG, "%s: value '%s' out of range (expected %s)", d->name,
                            ts_shown(text, sv, sizeof sv), range);
    }
    if (ok)
        return TS_OK;
    return ts_error_set(err, TS_EARG, "%s: bad value '%s' (expected %s)", d->name,
                        ts_shown(text, sv, sizeof sv), TYPES[d->type].expected);
}

/* ---- sets ------------------------------------------------------------------------------- */

ts_status ts_params_new(ts_params_t **out)
{
    *out = NULL;
    ts_params_t *p = calloc(1, sizeof *p);
    if (!p)
        return TS_ENOMEM;
    /* Defaults go through the user's parser, so a bad default in the table cannot hide. */
    for (int i = 0; i < TS_P__COUNT; i++)
        if (parse_value((ts_param_id)i, DEFS[i].default_text, &p->slot[i].v, NULL) != TS_OK) {
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
    for (int i = 0; i < TS_P__COUNT; i++)
        if (src->slot[i].text && !(p->slot[i].text = strdup(src->slot[i].text))) {
            for (int k = i + 1; k < TS_P__COUNT; k++)
                p->slot[k].text = NULL; /* still src's: not ours to free */
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
    ts_status st =
        parse_value(id, id == TS_P_NET_LINK_SPEED ? link_rate_of(value) : value, &v, err);
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
    snprintf(p->model_file, sizeof p->model_file, "%s", file);
    snprintf(p->model_platform, sizeof p->model_platform, "%s", platform);
}

const char *ts_params_model_file(const ts_params_t *p)
{
    return p->model_file;
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
    if (parse_value(id, DEFS[id].default_text, &d, NULL) != TS_OK)
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
          "Values outside a parameter's valid range (`auto` and `inf` aside) are refused; the "
          "ranges are in params/params_range.h.\n"
          "\n"
          "| name | type | default | valid range | unit | meaning | default from |\n"
          "|---|---|---|---|---|---|---|\n",
          fp);
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = &DEFS[i];
        char range[96];
        ts_param_range_text((ts_param_id)i, range, sizeof range);
        fprintf(fp, "| `%s` | %s | `%s` | %s | %s | ", d->name, TYPES[d->type].name,
                d->default_text, range[0] ? range : "-", d->unit);
        md_cell(fp, d->help);
        fputs(" | ", fp);
        md_cell(fp, d->source);
        fputs(" |\n", fp);
    }
    fputs("\n## Value syntax\n\n", fp);
    for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++)
        fprintf(fp, "- **%s**: %s.\n", TYPES[t].name, TYPES[t].doc);
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
        const char *col[NCOL] = {d->name,  TYPES[d->type].name,        d->default_text,
                                 range[i], d->unit[0] ? d->unit : "-", d->help};
        for (int c = 0; c < NCOL; c++)
            if ((int)strlen(col[c]) > w[c])
                w[c] = (int)strlen(col[c]);
    }
    fprintf(fp, "%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], head[0], w[1], head[1], w[2],
            head[2], w[3], head[3], w[4], head[4], w[5], head[5], "default from");
    for (int i = 0; i < TS_P__COUNT; i++) {
        const ts_param_def_t *d = &DEFS[i];
        fprintf(fp, "%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], d->name, w[1],
                TYPES[d->type].name, w[2], d->default_text, w[3], range[i], w[4],
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
            TYPES[d->type].name, d->default_text, range, d->unit[0] ? d->unit : "-");
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
