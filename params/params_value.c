/* params_value.c - the text of a parameter's value: one parser per type of the table
 * (params_table.h), with its range check and its error message, and the types' names and
 * syntax as listings and docs/parameters.md show them. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params_impl.h"

/* Per type: the name shown in listings, what an error says was expected, and the syntax
 * paragraph of docs/parameters.md. ENUM and TLS errors add their word lists. */
static const struct type_info {
    const char *name, *expected, *doc;
} TYPES[] = {
    [TS_PT_SIZE] =
        {"size", "a size: 8192, 16kb, 1mb, inf or auto",
         "bytes as an integer with an optional suffix b, k or kb, m or mb, g or gb "
         "(any case; powers of 1024: 16kb = 16384), or for UCX_ and MXM_ variables `inf` "
         "(never) or `auto` (UCX decides; for MXM_ variables, MXM's own default, which "
         "tunesim does not know); of the `model.*` sizes only those whose meaning says "
         "so take `inf`, and Open MPI's MCA sizes neither"},
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

const char *ts__params_type_name(ts_param_type t)
{
    return TYPES[t].name;
}

const char *ts__params_type_doc(ts_param_type t)
{
    return TYPES[t].doc;
}

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
    switch (ts_param_def(id)->type) {
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

/* Whether a size parameter takes "auto" or "inf" (v, one of them): UCX's and MXM's own
 * parameters as those libraries read sizes (memunits); of tunesim's model constants only the
 * four of HCOLL and HAN that models/coll.c reads inf in ("never", "unsegmented") and
 * flowless_bytes (every eager message flowless, a what-if), and none takes auto; Open MPI's
 * MCA sizes are plain numbers (mca_base_var). Elsewhere auto or inf would read as 2^64 - 1
 * bytes: a header, segment or short-message limit no one means. */
static int size_special_ok(ts_param_id id, uint64_t v)
{
    const char *name = ts_param_def(id)->name;
    if (strncmp(name, "UCX_", 4) == 0 || strncmp(name, "MXM_", 4) == 0)
        return 1;
    return v == TS_SIZE_INF &&
           (id == TS_P_HAN_SEGMENT || id == TS_P_HCOLL_SM_FRAGMENT ||
            id == TS_P_HCOLL_ALLREDUCE_LARGE || id == TS_P_HCOLL_ALLTOALL_PAIRWISE ||
            id == TS_P_NET_FLOWLESS_BYTES);
}

/* Parse text as a value of parameter id into *v. On error fills err (may be NULL) with
 * "NAME: bad value 'TEXT' (expected ...)" and returns TS_EARG. */
ts_status ts__params_parse_value(ts_param_id id, const char *text, pvalue_t *v, ts_error_t *err)
{
    const ts_param_def_t *d = ts_param_def(id);
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
    if (ok && (d->type == TS_PT_SIZE || d->type == TS_PT_SIZE2))
        for (int k = 0; k < 2; k++)
            if (v->size[k] >= TS_SIZE_INF && !size_special_ok(id, v->size[k])) {
                char range[96];
                ts_param_range_text(id, range, sizeof range);
                return ts_error_set(err, TS_EARG, "%s: bad value '%s' (expected a size, %s: %s)",
                                    d->name, ts_shown(text, sv, sizeof sv), range,
                                    v->size[k] == TS_SIZE_AUTO ? "it has no auto"
                                                               : "it has no inf");
            }
    if (ok && !in_range(id, v)) { /* the range's text only for the message: it costs printf */
        char range[96];
        ts_param_range_text(id, range, sizeof range);
        return ts_error_set(err, TS_EARG, "%s: value '%s' out of range (expected %s)", d->name,
                            ts_shown(text, sv, sizeof sv), range);
    }
    if (ok)
        return TS_OK;
    const char *expected = TYPES[d->type].expected;
    if (d->type == TS_PT_SIZE && !size_special_ok(id, TS_SIZE_INF))
        expected = "a size: 8192, 16kb, 1mb";
    else if (d->type == TS_PT_SIZE && !size_special_ok(id, TS_SIZE_AUTO))
        expected = "a size: 8192, 16kb, 1mb or inf";
    return ts_error_set(err, TS_EARG, "%s: bad value '%s' (expected %s)", d->name,
                        ts_shown(text, sv, sizeof sv), expected);
}
