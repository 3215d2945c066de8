/* platform.c - loading and validating `.platform` machine descriptions.
 *
 * The format, one setting per line:
 *
 *     # a comment; '#' also ends a line's value
 *     key = value
 *
 * Blank lines are ignored; every key may appear once. Keys (all required except where said):
 *
 *     nodes            default node count (a run may ask for another), integer >= 1
 *     sockets_per_node sockets (packages) per node, integer >= 1
 *     cores_per_socket cores per socket, integer >= 1, or `auto`: the cores this process may
 *                      run on (what `nproc` prints) divided by sockets_per_node
 *     nps_options      the NUMA-per-socket settings the BIOS offers, comma-separated ("1,2");
 *                      each must divide cores_per_socket
 *     nps              the default NPS, one of nps_options
 *     nic_socket       socket (0-based) of the RDMA adapter, or `none` for a machine without
 *                      network (one node only)
 *     core_speed       flop/s of one core (compute bursts are replayed as seconds x speed, so
 *                      the value must only agree with the engine's)
 *     upi_bandwidth    bytes/s of the socket-to-socket link, per direction; required when
 *                      sockets_per_node > 1, refused otherwise
 *
 * Optional keys, the references of the what-ifs (docs/what-if.md); a what-if the platform
 * gives no reference for is refused when asked:
 *
 *     link_rate        the NIC's data rate in bits/s (100e9 for EDR InfiniBand or 100 GbE):
 *                      model.net.link_speed scales model.net.bandwidth by its ratio to this
 *     memory_bandwidth bytes/s of one socket's memory, the DIMMs' peak (channels x transfers
 *                      x 8 bytes): model.cpu.memory_bandwidth's reference
 *     core_clock       the cores' base clock in Hz: model.cpu.clock's reference
 *
 * A key that is a parameter's name (`model.net.latency = 1.0us`) gives that parameter's
 * value on this platform, where the user does not set it: a machine's own latencies and
 * bandwidths, which the parameter table's defaults (BM.Optimized3.36's) do not describe.
 *
 * Every error is one line, "FILE:LINE: ..." or "FILE: missing key ...". */
#include "platform.h"

#include "../common/infile.h"
#include "../common/numparse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../params/params.h"
#include "../params/params_range.h"

#ifndef TS_PLATFORM_DIR
#define TS_PLATFORM_DIR "platforms"
#endif

#define PLATFORM_SUFFIX ".platform"
#define MAX_LINE        1024
#define MAX_NPS         64 /* NPS values are bits of a 64-bit mask */

struct ts_platform_s {
    char *name, *path;
    int nodes, sockets, cores_per_socket, nps, nic_socket;
    unsigned long long nps_mask; /* bit n: NPS n offered */
    char nps_text[128];
    double core_speed, upi_bw;
    double link_rate, mem_bw, core_clock; /* optional references: 0 = not given */
    int nparams;
    char **param_name, **param_value; /* parameter values of this machine (file order) */
};

/* The keys, in the order a missing one is reported. */
enum key_id {
    K_NODES,
    K_SOCKETS,
    K_CORES,
    K_NPS_OPTIONS,
    K_NPS,
    K_NIC_SOCKET,
    K_CORE_SPEED,
    K_UPI_BW,
    K_LINK_RATE,
    K_MEM_BW,
    K_CORE_CLOCK,
    K__COUNT
};

static const struct {
    const char *name;
    const char *expect; /* what a valid value is, for error messages */
} keys[K__COUNT] = {
    [K_NODES] = {"nodes", "an integer from 1 to 1000000"},
    [K_SOCKETS] = {"sockets_per_node", "an integer from 1 to 64"},
    [K_CORES] = {"cores_per_socket", "an integer from 1 to 4096, or auto"},
    [K_NPS_OPTIONS] = {"nps_options", "comma-separated integers from 1 to 63, e.g. 1,2"},
    [K_NPS] = {"nps", "an integer from 1 to 63"},
    [K_NIC_SOCKET] = {"nic_socket", "a socket number from 0, or none"},
    [K_CORE_SPEED] = {"core_speed", "a number of flop/s in 1 .. 1e18, e.g. 1e9"},
    [K_UPI_BW] = {"upi_bandwidth", "a number of bytes/s in 1 .. 1e14, e.g. 67.2e9"},
    [K_LINK_RATE] = {"link_rate", "a number of bits/s in 1 .. 1e15, e.g. 100e9"},
    [K_MEM_BW] = {"memory_bandwidth", "a number of bytes/s in 1 .. 1e14, e.g. 204.8e9"},
    [K_CORE_CLOCK] = {"core_clock", "a number of Hz in 1e6 .. 1e11, e.g. 3.0e9"},
};

/* Parsing state: the values as read, and the line of each key (0 = absent). */
typedef struct parse_s {
    const char *path;
    int line[K__COUNT];
    int cores_auto;
    ts_params_t *scratch; /* checks the parameter lines' values */
} parse_t;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* A whole-string finite number in lo .. hi (lo > 0); 0 on success. The bounds keep SimGrid's
 * rates meaningful: a rate of 1e-300 bytes/s gave a run time of 1e302 s. */
static int parse_positive(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "1,2" into a bit mask; the text is kept (normalised, no spaces) for messages. */
static int parse_nps_list(char *s, ts_platform_t *pf)
{
    unsigned long long mask = 0;
    size_t used = 0;
    pf->nps_text[0] = '\0';
    for (char *tok = s;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        int v;
        if (ts_parse_int(trim(tok), 1, MAX_NPS - 1, &v) != 0 || (mask & (1ull << v)))
            return -1;
        mask |= 1ull << v;
        int n =
            snprintf(pf->nps_text + used, sizeof pf->nps_text - used, "%s%d", used ? "," : "", v);
        if (n < 0 || (size_t)n >= sizeof pf->nps_text - used)
            return -1;
        used += (size_t)n;
        if (!comma)
            break;
        tok = comma + 1;
    }
    pf->nps_mask = mask;
    return 0;
}

/* The CPUs this process may run on, as nproc counts them. */
static int online_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static ts_status bad_value(const parse_t *ps, enum key_id k, const char *value, ts_error_t *err)
{
    char sv[80];
    return ts_error_set(err, TS_EARG, "%s:%d: bad value '%s' for %s (expected %s)", ps->path,
                        ps->line[k], ts_shown(value, sv, sizeof sv), keys[k].name, keys[k].expect);
}

/* Store one key's value. */
static ts_status set_key(parse_t *ps, ts_platform_t *pf, enum key_id k, char *value,
                         ts_error_t *err)
{
    int ok = 0;
    switch (k) {
    case K_NODES:
        ok = ts_parse_int(value, 1, 1000000, &pf->nodes) == 0;
        break;
    case K_SOCKETS:
        ok = ts_parse_int(value, 1, 64, &pf->sockets) == 0;
        break;
    case K_CORES:
        if (strcmp(value, "auto") == 0) {
            ps->cores_auto = 1;
            ok = 1;
        } else {
            ok = ts_parse_int(value, 1, 4096, &pf->cores_per_socket) == 0;
        }
        break;
    case K_NPS_OPTIONS: {
        char copy[MAX_LINE];
        snprintf(copy, sizeof copy, "%s", value);
        ok = parse_nps_list(copy, pf) == 0;
        break;
    }
    case K_NPS:
        ok = ts_parse_int(value, 1, MAX_NPS - 1, &pf->nps) == 0;
        break;
    case K_NIC_SOCKET:
        if (strcmp(value, "none") == 0) {
            pf->nic_socket = -1;
            ok = 1;
        } else {
            ok = ts_parse_int(value, 0, 63, &pf->nic_socket) == 0;
        }
        break;
    case K_CORE_SPEED:
        ok = parse_positive(value, 1, 1e18, &pf->core_speed) == 0;
        break;
    case K_UPI_BW:
        ok = parse_positive(value, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX, &pf->upi_bw) == 0;
        break;
    case K_LINK_RATE:
        ok = parse_positive(value, 1, 1e15, &pf->link_rate) == 0;
        break;
    case K_MEM_BW:
        ok = parse_positive(value, TS_RANGE_BW_MIN, TS_RANGE_BW_MAX, &pf->mem_bw) == 0;
        break;
    case K_CORE_CLOCK:
        ok = parse_positive(value, 1e6, 1e11, &pf->core_clock) == 0;
        break;
    case K__COUNT:
        break;
    }
    return ok ? TS_OK : bad_value(ps, k, value, err);
}

/* A parameter's value on this platform: checked as `--set key=value` would be, kept as text. */
static ts_status param_line(parse_t *ps, ts_platform_t *pf, const char *key, const char *value,
                            int lineno, ts_error_t *err)
{
    for (int i = 0; i < pf->nparams; i++)
        if (strcmp(pf->param_name[i], key) == 0)
            return ts_error_set(err, TS_EARG, "%s:%d: duplicate parameter '%s'", ps->path, lineno,
                                key);
    if (!ps->scratch && ts_params_new(&ps->scratch) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", ps->path);
    ts_error_t e;
    if (ts_params_set_user(ps->scratch, key, value, &e) != TS_OK)
        return ts_error_set(err, TS_EARG, "%s:%d: %s", ps->path, lineno, e.msg);
    char **nn = realloc(pf->param_name, ((size_t)pf->nparams + 1) * sizeof *nn);
    if (nn)
        pf->param_name = nn;
    char **nv = nn ? realloc(pf->param_value, ((size_t)pf->nparams + 1) * sizeof *nv) : NULL;
    if (nv)
        pf->param_value = nv;
    if (!nn || !nv)
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", ps->path);
    pf->param_name[pf->nparams] = strdup(key);
    pf->param_value[pf->nparams] = strdup(value);
    pf->nparams++;
    if (!pf->param_name[pf->nparams - 1] || !pf->param_value[pf->nparams - 1])
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", ps->path);
    return TS_OK;
}

/* One non-comment line: "key = value". */
static ts_status parse_line(parse_t *ps, ts_platform_t *pf, char *text, int lineno, ts_error_t *err)
{
    char *eq = strchr(text, '=');
    char sk[80];
    if (!eq)
        return ts_error_set(err, TS_EARG, "%s:%d: expected 'key = value', got '%s'", ps->path,
                            lineno, ts_shown(text, sk, sizeof sk));
    *eq = '\0';
    char *key = trim(text), *value = trim(eq + 1);
    int k = 0;
    while (k < K__COUNT && strcmp(keys[k].name, key) != 0)
        k++;
    if (k == K__COUNT && ts_param_find(key) >= 0)
        return param_line(ps, pf, key, value, lineno, err);
    if (k == K__COUNT) {
        char known[512];
        size_t used = 0;
        for (int i = 0; i < K__COUNT && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     keys[i].name);
        return ts_error_set(err, TS_EARG,
                            "%s:%d: unknown key '%s' (known keys: %s; or a parameter's name)",
                            ps->path, lineno, ts_shown(key, sk, sizeof sk), known);
    }
    if (ps->line[k])
        return ts_error_set(err, TS_EARG, "%s:%d: duplicate key '%s' (first set on line %d)",
                            ps->path, lineno, key, ps->line[k]);
    ps->line[k] = lineno;
    if (*value == '\0')
        return ts_error_set(err, TS_EARG, "%s:%d: key '%s' has no value (expected %s)", ps->path,
                            lineno, key, keys[k].expect);
    return set_key(ps, pf, (enum key_id)k, value, err);
}

/* Checks that involve more than one key, once the whole file is read. */
static ts_status check_whole(parse_t *ps, ts_platform_t *pf, ts_error_t *err)
{
    const char *path = ps->path;
    for (int k = 0; k < K__COUNT; k++) {
        int required = k < K_UPI_BW || (k == K_UPI_BW && ps->line[K_SOCKETS] && pf->sockets > 1);
        if (required && !ps->line[k])
            return ts_error_set(err, TS_EARG, "%s: missing key '%s' (expected %s)%s", path,
                                keys[k].name, keys[k].expect,
                                k == K_UPI_BW ? " with more than one socket" : "");
    }
    if (pf->sockets == 1 && ps->line[K_UPI_BW])
        return ts_error_set(err, TS_EARG,
                            "%s:%d: upi_bandwidth is set but sockets_per_node = 1 (no "
                            "socket-to-socket link)",
                            path, ps->line[K_UPI_BW]);
    if (ps->cores_auto) {
        int n = online_cores();
        if (n % pf->sockets != 0)
            return ts_error_set(err, TS_EARG,
                                "%s:%d: cores_per_socket = auto: %d cores do not split over "
                                "%d sockets",
                                path, ps->line[K_CORES], n, pf->sockets);
        pf->cores_per_socket = n / pf->sockets;
    }
    for (int v = 1; v < MAX_NPS; v++)
        if ((pf->nps_mask & (1ull << v)) && pf->cores_per_socket % v != 0)
            return ts_error_set(err, TS_EARG,
                                "%s:%d: nps_options: %d cores per socket do not split into %d "
                                "NUMA domains",
                                path, ps->line[K_NPS_OPTIONS], pf->cores_per_socket, v);
    if (!ts_platform_nps_offered(pf, pf->nps))
        return ts_error_set(err, TS_EARG, "%s:%d: nps = %d is not offered (nps_options = %s)", path,
                            ps->line[K_NPS], pf->nps, pf->nps_text);
    if (pf->nic_socket >= pf->sockets)
        return ts_error_set(err, TS_EARG,
                            "%s:%d: nic_socket = %d, but sockets are numbered 0 to %d", path,
                            ps->line[K_NIC_SOCKET], pf->nic_socket, pf->sockets - 1);
    if (pf->nic_socket < 0 && pf->nodes > 1)
        return ts_error_set(err, TS_EARG,
                            "%s:%d: nodes = %d, but nic_socket = none (no network: one node "
                            "only)",
                            path, ps->line[K_NODES], pf->nodes);
    if ((long long)pf->sockets * pf->cores_per_socket > 1000000)
        return ts_error_set(err, TS_EARG, "%s:%d: %d x %d cores per node is too many", path,
                            ps->line[K_CORES], pf->sockets, pf->cores_per_socket);
    return TS_OK;
}

/* The name of a platform file: its base name without the suffix. */
static char *name_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base), sl = strlen(PLATFORM_SUFFIX);
    if (n > sl && strcmp(base + n - sl, PLATFORM_SUFFIX) == 0)
        n -= sl;
    return strndup(base, n);
}

static ts_status parse_stream(FILE *fp, parse_t *ps, ts_platform_t *pf, ts_error_t *err)
{
    char buf[MAX_LINE + 2];
    int lineno = 0;
    while (fgets(buf, sizeof buf, fp)) {
        lineno++;
        size_t n = strlen(buf);
        if (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        else if (!feof(fp))
            /* fgets stops at the newline, so a shorter string ends in a NUL byte */
            return ts_error_set(err, TS_EARG,
                                n < MAX_LINE ? "%s:%d: a NUL byte in the line "
                                               "(expected text)"
                                             : "%s:%d: line longer than %d characters",
                                ps->path, lineno, MAX_LINE);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *text = trim(buf);
        if (*text == '\0')
            continue;
        ts_status st = parse_line(ps, pf, text, lineno, err);
        if (st != TS_OK)
            return st;
    }
    if (ferror(fp))
        return ts_error_set(err, TS_EIO, "%s: read error", ps->path);
    return check_whole(ps, pf, err);
}

ts_status ts_platform_open_file(const char *path, ts_platform_t **out, ts_error_t *err)
{
    *out = NULL;
    ts_status cs = ts_check_input(path, "a platform description", 0, err);
    if (cs != TS_OK)
        return cs;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return ts_error_set(err, errno == ENOENT ? TS_ENOENT : TS_EIO,
                            "%s: cannot open platform description: %s", path, strerror(errno));
    ts_platform_t *pf = calloc(1, sizeof *pf);
    if (!pf || !(pf->path = strdup(path)) || !(pf->name = name_of(path))) {
        fclose(fp);
        ts_platform_close(pf);
        return ts_error_set(err, TS_ENOMEM, "%s: out of memory", path);
    }
    parse_t ps = {.path = path};
    ts_status st = parse_stream(fp, &ps, pf, err);
    fclose(fp);
    ts_params_free(ps.scratch);
    if (st != TS_OK) {
        ts_platform_close(pf);
        return st;
    }
    *out = pf;
    return TS_OK;
}

static int valid_name(const char *name)
{
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
            return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a, b, c": the platform names in dir, sorted, into buf (empty when none or unreadable). */
static void list_platforms(const char *dir, char *buf, size_t size)
{
    buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[64];
    size_t count = 0, sl = strlen(PLATFORM_SUFFIX);
    struct dirent *e;
    while ((e = readdir(d)) && count < sizeof names / sizeof names[0]) {
        size_t n = strlen(e->d_name);
        if (n > sl && strcmp(e->d_name + n - sl, PLATFORM_SUFFIX) == 0)
            if ((names[count] = strndup(e->d_name, n - sl)))
                count++;
    }
    closedir(d);
    if (count > 1)
        qsort(names, count, sizeof names[0], cmp_str);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
}

ts_status ts_platform_open_name(const char *name, const char *dir, ts_platform_t **out,
                                ts_error_t *err)
{
    *out = NULL;
    if (!dir)
        dir = ts_platform_default_dir();
    if (!valid_name(name))
        return ts_error_set(err, TS_EARG,
                            "platform name '%s': expected letters, digits, '.', '_' or '-' "
                            "(give a path with '/' to load a file)",
                            name);
    size_t n = strlen(dir) + strlen(name) + sizeof PLATFORM_SUFFIX + 1;
    char *path = malloc(n);
    if (!path)
        return ts_error_set(err, TS_ENOMEM, "platform %s: out of memory", name);
    snprintf(path, n, "%s/%s%s", dir, name, PLATFORM_SUFFIX);
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        char avail[400];
        list_platforms(dir, avail, sizeof avail);
        ts_status st = ts_error_set(err, TS_ENOENT, "no platform '%s' in %s (available: %s)", name,
                                    dir, avail[0] ? avail : "none");
        free(path);
        return st;
    }
    ts_status st = ts_platform_open_file(path, out, err);
    free(path);
    return st;
}

int ts_platform_is_path(const char *name_or_path)
{
    size_t n = strlen(name_or_path), sl = strlen(PLATFORM_SUFFIX);
    return strchr(name_or_path, '/') ||
           (n >= sl && strcmp(name_or_path + n - sl, PLATFORM_SUFFIX) == 0);
}

ts_status ts_platform_open(const char *name_or_path, const char *dir, ts_platform_t **out,
                           ts_error_t *err)
{
    if (ts_platform_is_path(name_or_path))
        return ts_platform_open_file(name_or_path, out, err);
    return ts_platform_open_name(name_or_path, dir, out, err);
}

void ts_platform_close(ts_platform_t *pf)
{
    if (!pf)
        return;
    free(pf->name);
    free(pf->path);
    for (int i = 0; i < pf->nparams; i++) {
        free(pf->param_name[i]);
        free(pf->param_value[i]);
    }
    free(pf->param_name);
    free(pf->param_value);
    free(pf);
}

int ts_platform_param_count(const ts_platform_t *pf)
{
    return pf->nparams;
}

double ts_platform_link_rate(const ts_platform_t *pf)
{
    return pf->link_rate;
}

double ts_platform_memory_bandwidth(const ts_platform_t *pf)
{
    return pf->mem_bw;
}

double ts_platform_core_clock(const ts_platform_t *pf)
{
    return pf->core_clock;
}

ts_status ts_platform_apply_params(const ts_platform_t *pf, ts_params_t *p, ts_error_t *err)
{
    for (int i = 0; i < pf->nparams; i++) {
        int id = ts_param_find(pf->param_name[i]);
        if (id >= 0 && ts_params_is_set(p, (ts_param_id)id))
            continue;
        ts_error_t e;
        if (ts_params_set(p, pf->param_name[i], pf->param_value[i], &e) != TS_OK)
            return ts_error_set(err, TS_EARG, "%s: %s", pf->path, e.msg);
    }
    return TS_OK;
}

const char *ts_platform_default_dir(void)
{
    return TS_PLATFORM_DIR;
}
const char *ts_platform_name(const ts_platform_t *pf)
{
    return pf->name;
}
const char *ts_platform_path(const ts_platform_t *pf)
{
    return pf->path;
}
int ts_platform_nodes(const ts_platform_t *pf)
{
    return pf->nodes;
}
int ts_platform_sockets(const ts_platform_t *pf)
{
    return pf->sockets;
}
int ts_platform_cores_per_socket(const ts_platform_t *pf)
{
    return pf->cores_per_socket;
}
int ts_platform_cores_per_node(const ts_platform_t *pf)
{
    return pf->sockets * pf->cores_per_socket;
}
int ts_platform_nps(const ts_platform_t *pf)
{
    return pf->nps;
}
int ts_platform_nps_offered(const ts_platform_t *pf, int nps)
{
    return nps >= 1 && nps < MAX_NPS && (pf->nps_mask & (1ull << nps)) != 0;
}
const char *ts_platform_nps_options(const ts_platform_t *pf)
{
    return pf->nps_text;
}
int ts_platform_nic_socket(const ts_platform_t *pf)
{
    return pf->nic_socket;
}
double ts_platform_core_speed(const ts_platform_t *pf)
{
    return pf->core_speed;
}
double ts_platform_upi_bandwidth(const ts_platform_t *pf)
{
    return pf->sockets > 1 ? pf->upi_bw : 0;
}

int ts_platform_host_name(char *buf, size_t size, int node, int core)
{
    return snprintf(buf, size, "n%dc%d", node, core);
}
