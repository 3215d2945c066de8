/* params_args.c - parameters set the way users write them on a command line (see
 * params_args.h): mpirun's -x and --mca words, tunesim's --set and --model, and a whole pasted
 * mpirun line split as a shell would. Values go through the parameter table's parsers
 * (params.c, shared through params_impl.h). */
#include "params_args.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../common/numparse.h"
#include "model_file.h"
#include "params_impl.h"

/* Whether an unknown variable name claims to be a UCX, MXM or MCA setting (any case: UCX
 * ignores "ucx_tls", which is exactly the mistake to report). */
static int looks_like_param(const char *key)
{
    return strncasecmp(key, "UCX_", 4) == 0 || strncasecmp(key, "MXM_", 4) == 0 ||
           strncasecmp(key, MCA_ENV_PREFIX, MCA_ENV_PREFIX_LEN) == 0;
}

/* One -x word: "KEY=VALUE", or "KEY" for KEY's value in this environment. Other programs'
 * variables (WM_PROJECT_DIR, LD_LIBRARY_PATH) are skipped. */
static ts_status apply_export(ts_params_t *p, const char *word, ts_error_t *err)
{
    const char *eq = strchr(word, '=');
    size_t klen = eq ? (size_t)(eq - word) : strlen(word);
    char sw[72];
    if (klen == 0)
        return ts_error_set(err, TS_EUSAGE, "-x expects KEY=VALUE or KEY, got '%s'",
                            ts_shown(word, sw, sizeof sw));
    char *key = strndup(word, klen);
    if (!key)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    int id = ts_param_find(key);
    if (id < 0) {
        if (looks_like_param(key))
            st = ts__params_unknown(key, err);
    } else {
        const char *value = eq ? eq + 1 : getenv(key);
        if (!value)
            st = ts_error_set(err, TS_EARG, "-x %s: not set in this environment",
                              ts_shown(key, sw, sizeof sw));
        else
            st = ts_params_set_user(p, key, value, err);
    }
    free(key);
    return st;
}

/* One --set word: "KEY=VALUE". */
static ts_status apply_pair(ts_params_t *p, const char *word, ts_error_t *err)
{
    const char *eq = strchr(word, '=');
    char sw[72];
    if (!eq || eq == word)
        return ts_error_set(err, TS_EUSAGE, "--set expects KEY=VALUE, got '%s'",
                            ts_shown(word, sw, sizeof sw));
    char *key = strndup(word, (size_t)(eq - word));
    if (!key)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts_params_set_user(p, key, eq + 1, err);
    free(key);
    return st;
}

/* The what-if options (docs/what-if.md): each is one parameter, written the way users say it. */
static const struct {
    const char *option, *param;
} WHATIF[] = {
    {"--link-speed", "model.net.link_speed"},
    {"--memory-bandwidth", "model.cpu.memory_bandwidth"},
    {"--cpu-clock", "model.cpu.clock"},
    {"--balance", "model.cpu.balance"},
};

const char *ts_params_whatif_param(const char *option)
{
    for (size_t k = 0; k < sizeof WHATIF / sizeof WHATIF[0]; k++)
        if (strcmp(option, WHATIF[k].option) == 0)
            return WHATIF[k].param;
    return NULL;
}

/* One what-if option's value (a percentage for --balance; link names are the parameter's). */
static ts_status apply_whatif(ts_params_t *p, const char *param, const char *value, ts_error_t *err)
{
    char buf[64];
    size_t n = strlen(value);
    if (strcmp(param, "model.cpu.balance") == 0 && n > 1 && n < sizeof buf && value[n - 1] == '%') {
        char *end;
        double v = ts_strtod_dec(value, &end);
        if (end == value + n - 1) {
            snprintf(buf, sizeof buf, "%.15g", v / 100);
            value = buf;
        }
    }
    return ts_params_set(p, param, value, err);
}

/* If argv[i] is a settings option (-x, --mca, -mca, and --set when allow_set), apply it and
 * set *used to the words it took; otherwise *used = 0. */
static ts_status settings_option(ts_params_t *p, int argc, char **argv, int i, int allow_set,
                                 int *used, ts_error_t *err)
{
    const char *a = argv[i];
    *used = 0;
    if (strcmp(a, "-x") == 0) {
        if (i + 1 >= argc)
            return ts_error_set(err, TS_EUSAGE, "-x expects KEY=VALUE or KEY");
        *used = 2;
        return apply_export(p, argv[i + 1], err);
    }
    if (a[0] == '-' && a[1] == 'x' && a[2] != '\0' && a[2] != '-') { /* -xKEY=VALUE */
        *used = 1;
        return apply_export(p, a + 2, err);
    }
    if (strcmp(a, "--mca") == 0 || strcmp(a, "-mca") == 0) {
        if (i + 2 >= argc)
            return ts_error_set(err, TS_EUSAGE, "%s expects KEY VALUE", a);
        *used = 3;
        return ts_params_set_user(p, argv[i + 1], argv[i + 2], err);
    }
    for (size_t k = 0; allow_set && k < sizeof WHATIF / sizeof WHATIF[0]; k++)
        if (strcmp(a, WHATIF[k].option) == 0) {
            if (i + 1 >= argc)
                return ts_error_set(err, TS_EUSAGE, "%s expects a value (docs/what-if.md)", a);
            *used = 2;
            return apply_whatif(p, WHATIF[k].param, argv[i + 1], err);
        }
    if (allow_set && strcmp(a, "--set") == 0) {
        if (i + 1 >= argc)
            return ts_error_set(err, TS_EUSAGE, "--set expects KEY=VALUE");
        *used = 2;
        return apply_pair(p, argv[i + 1], err);
    }
    return TS_OK;
}

ts_status ts_params_parse_args(ts_params_t *p, int argc, char **argv, unsigned char *consumed,
                               ts_error_t *err)
{
    /* Work on a copy so that a failure leaves p as it was. */
    ts_params_t *work;
    if (ts_params_copy(p, &work) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = TS_OK;
    /* --model FILE (a calibration, params/model_file.h) goes first, so that -x / --mca /
     * --set on the same command line override its values wherever they stand. */
    for (int i = 0; i < argc && st == TS_OK; i++)
        if (strcmp(argv[i], "--model") == 0) {
            if (i + 1 >= argc)
                st = ts_error_set(err, TS_EUSAGE, "--model expects FILE (a tunesim model file)");
            else
                st = ts_model_apply_file(argv[++i], work, err);
        }
    for (int i = 0; i < argc && st == TS_OK;) {
        int used;
        if (strcmp(argv[i], "--model") == 0) {
            if (consumed)
                consumed[i] = consumed[i + 1] = 1;
            i += 2;
            continue;
        }
        st = settings_option(work, argc, argv, i, 1, &used, err);
        if (st != TS_OK)
            break;
        if (used) {
            if (consumed)
                memset(consumed + i, 1, (size_t)used);
            i += used;
        } else if (consumed) {
            i++;
        } else {
            char sw[72];
            st = ts_error_set(err, TS_EUSAGE,
                              "unexpected argument '%s' (expected -x KEY=VALUE, --mca KEY VALUE "
                              "or --set KEY=VALUE)",
                              ts_shown(argv[i], sw, sizeof sw));
        }
    }
    if (st == TS_OK)
        ts__params_swap(p, work);
    ts_params_free(work);
    return st;
}

/* Split s into words as a POSIX shell does, without expansions: blanks separate words;
 * '...' is literal; "..." is literal but for \ before $ ` " \ and newline; \ outside quotes
 * quotes the next character, and \ newline joins lines; # at a word's start comments to the
 * end of the line. *words (one allocation, free() it) holds *n pointers into itself. */
static ts_status shell_split(const char *s, char ***words, int *n, ts_error_t *err)
{
    size_t len = strlen(s);
    /* Every word takes at least one input character, and its text plus terminator fit in
     * the input characters it takes plus the separator after it. */
    size_t nptr = len / 2 + 2;
    char **w = malloc(nptr * sizeof *w + len + 1);
    if (!w)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    char *out = (char *)(w + nptr), *o = out;
    int count = 0, in_word = 0;
    for (const char *c = s; *c;) {
        if (!in_word && (*c == ' ' || *c == '\t' || *c == '\n')) {
            c++;
            continue;
        }
        if (!in_word && *c == '#') {
            while (*c && *c != '\n')
                c++;
            continue;
        }
        if (!in_word) {
            w[count++] = o;
            in_word = 1;
        }
        if (*c == ' ' || *c == '\t' || *c == '\n') {
            *o++ = '\0';
            in_word = 0;
            c++;
        } else if (*c == '\\') {
            if (c[1] == '\n') {
                c += 2;
                if (o == w[count - 1])
                    count--, in_word = 0; /* a continuation alone is no word */
            } else if (c[1]) {
                *o++ = c[1];
                c += 2;
            } else {
                c++; /* a trailing backslash: nothing to quote */
            }
        } else if (*c == '\'') {
            const char *end = strchr(c + 1, '\'');
            if (!end) {
                free(w);
                return ts_error_set(err, TS_EARG, "unterminated ' in the command line");
            }
            memcpy(o, c + 1, (size_t)(end - c - 1));
            o += end - c - 1;
            c = end + 1;
        } else if (*c == '"') {
            for (c++; *c && *c != '"'; c++) {
                if (*c == '\\' && c[1] && strchr("$`\"\\\n", c[1])) {
                    if (c[1] != '\n')
                        *o++ = c[1];
                    c++;
                } else {
                    *o++ = *c;
                }
            }
            if (!*c) {
                free(w);
                return ts_error_set(err, TS_EARG, "unterminated \" in the command line");
            }
            c++;
        } else {
            *o++ = *c++;
        }
    }
    if (in_word)
        *o++ = '\0';
    *words = w;
    *n = count;
    return TS_OK;
}

/* mpirun's own options that tunesim reads or steps over. */
enum mpirun_opt {
    OPT_NP,
    OPT_PPN,
    OPT_MAP_BY,
    OPT_HOSTS,
    OPT_HOSTFILE,
    OPT_SKIP_ARG,
    OPT_SKIP_FLAG
};
static const struct {
    const char *name;
    enum mpirun_opt kind;
} MPIRUN_OPTS[] = {
    {"-n", OPT_NP},
    {"-np", OPT_NP},
    {"--np", OPT_NP},
    {"-c", OPT_NP},
    {"-N", OPT_PPN},
    {"--npernode", OPT_PPN},
    {"-npernode", OPT_PPN},
    {"--map-by", OPT_MAP_BY},
    {"-map-by", OPT_MAP_BY},
    {"-machinefile", OPT_HOSTFILE},
    {"--machinefile", OPT_HOSTFILE},
    {"-hostfile", OPT_HOSTFILE},
    {"--hostfile", OPT_HOSTFILE},
    {"-H", OPT_HOSTS},
    {"-host", OPT_HOSTS},
    {"--host", OPT_HOSTS},
    {"--bind-to", OPT_SKIP_ARG},
    {"-bind-to", OPT_SKIP_ARG},
    {"--rank-by", OPT_SKIP_ARG},
    {"-rank-by", OPT_SKIP_ARG},
    {"--prefix", OPT_SKIP_ARG},
    {"-wdir", OPT_SKIP_ARG},
    {"--wdir", OPT_SKIP_ARG},
    {"--report-bindings", OPT_SKIP_FLAG},
    {"-report-bindings", OPT_SKIP_FLAG},
    {"--oversubscribe", OPT_SKIP_FLAG},
    {"-oversubscribe", OPT_SKIP_FLAG},
    {"--allow-run-as-root", OPT_SKIP_FLAG},
    {"--tag-output", OPT_SKIP_FLAG},
    {"--display-map", OPT_SKIP_FLAG},
};

static const char *base_name(const char *word)
{
    const char *base = strrchr(word, '/');
    return base ? base + 1 : word;
}

enum { LAUNCHER_NONE, LAUNCHER_OMPI, LAUNCHER_SRUN, LAUNCHER_OTHER_MPI };

/* Which launcher word is: Open MPI's under any of its names (Debian's alternatives add
 * .openmpi: mpirun.openmpi), Slurm's srun, or another MPI's (MPICH / Intel MPI's hydra). */
static int launcher_kind(const char *word)
{
    const char *base = base_name(word);
    static const char *const ompi[] = {"mpirun", "mpiexec", "orterun", "prterun"};
    for (size_t k = 0; k < sizeof ompi / sizeof ompi[0]; k++) {
        size_t len = strlen(ompi[k]);
        if (strncmp(base, ompi[k], len) == 0 &&
            (base[len] == '\0' || strcmp(base + len, ".openmpi") == 0 ||
             strcmp(base + len, ".ompi") == 0))
            return LAUNCHER_OMPI;
    }
    if (strcmp(base, "srun") == 0)
        return LAUNCHER_SRUN;
    if (strncmp(base, "mpiexec.", 8) == 0 || strncmp(base, "mpirun.", 7) == 0 ||
        strcmp(base, "mpiexec_hydra") == 0 || strcmp(base, "aprun") == 0)
        return LAUNCHER_OTHER_MPI;
    return LAUNCHER_NONE;
}

/* Words before the launcher that only run it: sudo [-E] [-u USER], env [-i] [NAME=VALUE...],
 * time [-p], nice [-n N], command. Returns the index of the word after them. */
static int skip_prefixes(int n, char **w, int i)
{
    for (;;) {
        if (i >= n)
            return i;
        const char *b = base_name(w[i]);
        if (strcmp(b, "sudo") == 0 || strcmp(b, "time") == 0 || strcmp(b, "nice") == 0 ||
            strcmp(b, "env") == 0 || strcmp(b, "command") == 0) {
            int takes_value = strcmp(b, "sudo") == 0 || strcmp(b, "nice") == 0;
            i++;
            while (i < n && w[i][0] == '-' && strcmp(w[i], "--") != 0) {
                /* sudo -u USER, nice -n N: the next word is the option's */
                int v = takes_value && (strcmp(w[i], "-u") == 0 || strcmp(w[i], "-n") == 0 ||
                                        strcmp(w[i], "-g") == 0);
                i += v ? 2 : 1;
            }
            if (i < n && strcmp(w[i], "--") == 0)
                i++;
            continue;
        }
        return i;
    }
}

/* A leading NAME=VALUE word: the shell's environment assignment before the command. */
static int is_assignment(const char *word)
{
    if (!(isalpha((unsigned char)*word) || *word == '_'))
        return 0;
    while (isalnum((unsigned char)*word) || *word == '_')
        word++;
    return *word == '=';
}

/* "ppr:N:node" (optionally followed by ":modifiers"): N processes per node, else 0. */
static int ppr_per_node(const char *v)
{
    if (strncasecmp(v, "ppr:", 4) != 0 || !isdigit((unsigned char)v[4]))
        return 0;
    char *end;
    long n = strtol(v + 4, &end, 10);
    if (strncasecmp(end, ":node", 5) != 0 || (end[5] && end[5] != ':') || n <= 0 || n > 1000000)
        return 0;
    return (int)n;
}

static ts_status positive_count(const char *opt, const char *v, int *out, ts_error_t *err)
{
    int64_t n;
    char sv[72];
    if (!ts__params_parse_int(v, &n) || n <= 0 || n > 1000000000)
        return ts_error_set(err, TS_EARG, "mpirun %s: expected a positive count, got '%s'", opt,
                            ts_shown(v, sv, sizeof sv));
    *out = (int)n;
    return TS_OK;
}

/* "a,b:36,c" (-H / --host): the number of hosts named. */
static int count_hosts(const char *v)
{
    int n = *v ? 1 : 0;
    for (; *v; v++)
        n += *v == ',';
    return n;
}

/* srun's options, from word i to the program: -n / --ntasks, -N / --nodes,
 * --ntasks-per-node, --export=NAME=VALUE,... (ALL / NONE kept as words), --mpi, the rest
 * refused. */
static ts_status srun_words(ts_params_t *p, int n, char **w, int i, ts_mpirun_info_t *info,
                            ts_error_t *err)
{
    char sw[72];
    while (i < n && w[i][0] == '-' && strcmp(w[i], "--") != 0) {
        const char *o = w[i], *eq = strchr(o, '=');
        char name[40];
        size_t nl = eq ? (size_t)(eq - o) : strlen(o);
        if (nl >= sizeof name)
            return ts_error_set(err, TS_EARG, "unknown srun option '%s'",
                                ts_shown(o, sw, sizeof sw));
        memcpy(name, o, nl);
        name[nl] = '\0';
        int value = strcmp(name, "-n") == 0 || strcmp(name, "--ntasks") == 0 ||
                    strcmp(name, "-N") == 0 || strcmp(name, "--nodes") == 0 ||
                    strcmp(name, "--ntasks-per-node") == 0 || strcmp(name, "--export") == 0 ||
                    strcmp(name, "--mpi") == 0 || strcmp(name, "--cpu-bind") == 0 ||
                    strcmp(name, "-p") == 0 || strcmp(name, "--partition") == 0 ||
                    strcmp(name, "-t") == 0 || strcmp(name, "--time") == 0;
        if (!value)
            return ts_error_set(err, TS_EARG,
                                "unknown srun option '%s' (understood: -n, -N, --ntasks, "
                                "--nodes, --ntasks-per-node, --export, --mpi, --cpu-bind, -p, -t)",
                                ts_shown(o, sw, sizeof sw));
        const char *v = eq ? eq + 1 : i + 1 < n ? w[i + 1] : NULL;
        if (!v)
            return ts_error_set(err, TS_EARG, "srun %s expects a value", name);
        i += eq ? 1 : 2;
        ts_status st = TS_OK;
        if (strcmp(name, "-n") == 0 || strcmp(name, "--ntasks") == 0)
            st = positive_count(name, v, &info->ranks, err);
        else if (strcmp(name, "-N") == 0 || strcmp(name, "--nodes") == 0)
            st = positive_count(name, v, &info->nodes, err);
        else if (strcmp(name, "--ntasks-per-node") == 0)
            st = positive_count(name, v, &info->ppn, err);
        else if (strcmp(name, "--export") == 0) { /* NAME=VALUE items; ALL, NONE, names alone */
            char buf[1024];
            snprintf(buf, sizeof buf, "%s", v);
            const char *last = NULL;
            for (char *save = NULL, *it = strtok_r(buf, ",", &save); it && st == TS_OK;
                 it = strtok_r(NULL, ",", &save)) {
                if (strchr(it, '=')) {
                    st = apply_export(p, it, err);
                    last = it;
                } else if (last && strcmp(it, "ALL") != 0 && strcmp(it, "NONE") != 0 &&
                           !isupper((unsigned char)it[0])) {
                    /* Slurm splits --export at every comma: UCX_TLS=self,sm,rc exports
                     * UCX_TLS=self and the (empty) variables sm and rc. */
                    char sv2[72];
                    st = ts_error_set(err, TS_EARG,
                                      "srun --export: '%s' after %s: Slurm splits --export at "
                                      "every comma, so the value stops at the first one; set it "
                                      "in the environment (export NAME=a,b) and --export=ALL",
                                      ts_shown(it, sw, sizeof sw), ts_shown(last, sv2, sizeof sv2));
                }
            }
        }
        if (st != TS_OK)
            return st;
    }
    return TS_OK;
}

/* The options of a split mpirun line, from word i to the program. */
static ts_status mpirun_words(ts_params_t *p, int n, char **w, int i, ts_mpirun_info_t *info,
                              ts_error_t *err)
{
    char sw[72];
    i = skip_prefixes(n, w, i);
    while (i < n && is_assignment(w[i])) {
        ts_status st = apply_export(p, w[i++], err);
        if (st != TS_OK)
            return st;
        i = skip_prefixes(n, w, i);
    }
    int kind_l = i < n ? launcher_kind(w[i]) : LAUNCHER_NONE;
    if (kind_l == LAUNCHER_OTHER_MPI)
        return ts_error_set(err, TS_EARG,
                            "'%s' is another MPI's launcher (MPICH, Intel MPI): tunesim models "
                            "Open MPI with UCX; paste an mpirun or srun line",
                            ts_shown(w[i], sw, sizeof sw));
    /* mpirun's options alone (no launcher word) are fine, and so is an empty line; a program
     * that is no launcher is not. */
    if (kind_l == LAUNCHER_NONE && i < n && w[i][0] != '-')
        return ts_error_set(err, TS_EARG,
                            "'%s' is not a launcher (expected mpirun, mpiexec, orterun, prterun, "
                            "their .openmpi names, or srun, after any sudo / env / time)",
                            ts_shown(w[i], sw, sizeof sw));
    if (kind_l != LAUNCHER_NONE)
        i++;
    if (kind_l == LAUNCHER_SRUN)
        return srun_words(p, n, w, i, info, err);
    while (i < n && w[i][0] == '-') {
        if (strcmp(w[i], "--") == 0)
            break; /* the program follows */
        int used;
        ts_status st = settings_option(p, n, w, i, 0, &used, err);
        if (st == TS_EUSAGE) { /* a malformed mpirun line is its value's error, as below */
            st = TS_EARG;
            if (err)
                err->code = st;
        }
        if (st != TS_OK)
            return st;
        if (used) {
            i += used;
            continue;
        }
        /* Long options may also be written --name=value. */
        char name[40];
        const char *eq = strncmp(w[i], "--", 2) == 0 ? strchr(w[i], '=') : NULL;
        size_t nlen = eq ? (size_t)(eq - w[i]) : strlen(w[i]);
        size_t k = 0;
        if (nlen < sizeof name) {
            memcpy(name, w[i], nlen);
            name[nlen] = '\0';
            while (k < sizeof MPIRUN_OPTS / sizeof MPIRUN_OPTS[0] &&
                   strcmp(MPIRUN_OPTS[k].name, name) != 0)
                k++;
        } else {
            k = sizeof MPIRUN_OPTS / sizeof MPIRUN_OPTS[0];
        }
        if (k == sizeof MPIRUN_OPTS / sizeof MPIRUN_OPTS[0] ||
            (eq && MPIRUN_OPTS[k].kind == OPT_SKIP_FLAG))
            return ts_error_set(err, TS_EARG, "unknown mpirun option '%s'",
                                ts_shown(w[i], sw, sizeof sw));
        enum mpirun_opt kind = MPIRUN_OPTS[k].kind;
        if (kind == OPT_SKIP_FLAG) {
            i++;
            continue;
        }
        const char *v = eq ? eq + 1 : i + 1 < n ? w[i + 1] : NULL;
        if (!v)
            return ts_error_set(err, TS_EARG, "mpirun %s expects a value", name);
        i += eq ? 1 : 2;
        if (kind == OPT_NP) {
            st = positive_count(name, v, &info->ranks, err);
        } else if (kind == OPT_PPN) {
            st = positive_count(name, v, &info->ppn, err);
        } else if (kind == OPT_HOSTS) {
            info->nodes = count_hosts(v);
        } else if (kind == OPT_HOSTFILE) {
            snprintf(info->note, sizeof info->note,
                     "%s %s: the host file is not read; the nodes are --nodes (or the "
                     "platform's), the ranks per node -N or --ppn",
                     name, ts_shown(v, sw, sizeof sw));
        } else if (kind == OPT_MAP_BY) {
            if (strlen(v) >= sizeof info->map_by)
                return ts_error_set(err, TS_EARG, "mpirun %s: value '%s' is too long", name,
                                    ts_shown(v, sw, sizeof sw));
            strcpy(info->map_by, v);
            int ppn = ppr_per_node(v);
            if (ppn)
                info->ppn = ppn;
        }
        if (st != TS_OK)
            return st;
    }
    return TS_OK;
}

ts_status ts_params_parse_mpirun(ts_params_t *p, const char *cmdline, ts_mpirun_info_t *info,
                                 ts_error_t *err)
{
    char **w;
    int n;
    ts_status st = shell_split(cmdline, &w, &n, err);
    if (st != TS_OK)
        return st;
    ts_params_t *work;
    if (ts_params_copy(p, &work) != TS_OK) {
        free(w);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    ts_mpirun_info_t found;
    memset(&found, 0, sizeof found);
    st = mpirun_words(work, n, w, 0, &found, err);
    if (st == TS_OK) {
        ts__params_swap(p, work);
        if (info)
            *info = found;
    }
    ts_params_free(work);
    free(w);
    return st;
}
