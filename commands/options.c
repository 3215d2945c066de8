/* options.c - the commands' option layer (see options.h). getopt_long keeps its state in libc's
 * globals (optind, optarg, optopt); each walk starts afresh (optind = 0) and reads them only
 * here. */
#include "options.h"

#include "../params/params_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/numparse.h"

enum { LONG_BASE = 256 }; /* getopt_long's value for option k of the table: LONG_BASE + k */

/* The walk; prefix_end non-NULL: stop at the first operand (getopt's "+" mode), say where. */
static ts_status walk(const char *cmd, int argc, char **argv, const unsigned char *used,
                      const ts_opt_t *opts, int nopts, ts_opt_fn fn, void *ctx, int *prefix_end,
                      ts_error_t *err)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    struct option *lo = calloc((size_t)nopts + 1, sizeof *lo);
    char *shorts = calloc(2 * (size_t)nopts + 3, 1);
    if (!rest || !lo || !shorts) {
        free(rest);
        free(lo);
        free(shorts);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    int n = 0;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++)
        if (!used || !used[i])
            rest[n++] = argv[i];
    /* "-": operands come back in order (code 1), or "+": the walk stops at the first one;
     * ":": a missing value is ':' not '?'. */
    size_t ns = 0;
    shorts[ns++] = prefix_end ? '+' : '-';
    shorts[ns++] = ':';
    for (int k = 0; k < nopts; k++) {
        lo[k] = (struct option){opts[k].name,
                                opts[k].has_arg == 2 ? optional_argument
                                : opts[k].has_arg    ? required_argument
                                                     : no_argument,
                                NULL, LONG_BASE + k};
        if (opts[k].letter) {
            shorts[ns++] = (char)opts[k].letter;
            if (opts[k].has_arg)
                shorts[ns++] = ':';
            if (opts[k].has_arg == 2)
                shorts[ns++] = ':';
        }
    }
    opterr = 0;
    optind = 0;
    ts_status st = TS_OK;
    int c;
    while (st == TS_OK && (c = getopt_long(n, rest, shorts, lo, NULL)) != -1) {
        if (c == 1) {
            st = fn(ctx, -1, optarg, err);
        } else if (c >= LONG_BASE) {
            st = fn(ctx, c - LONG_BASE, optarg, err);
        } else if (c == '?' || c == ':') {
            /* Name the word as the user wrote it. */
            char shortname[3] = {'-', (char)optopt, '\0'};
            const char *word = optopt >= LONG_BASE ? rest[optind - 1]
                               : optopt            ? shortname
                                                   : rest[optind - 1];
            st =
                ts_error_set(err, TS_EUSAGE, "%s: unknown option or missing value '%s'", cmd, word);
        } else {
            int k = 0;
            while (k < nopts && opts[k].letter != c)
                k++;
            st = fn(ctx, k, optarg, err);
        }
    }
    if (prefix_end) /* rest is argv itself here (no used words) */
        *prefix_end = optind;
    else
        for (int i = optind; st == TS_OK && i < n; i++) /* after "--" */
            st = fn(ctx, -1, rest[i], err);
    free(rest);
    free(lo);
    free(shorts);
    return st;
}

ts_status ts_opts_parse(const char *cmd, int argc, char **argv, const unsigned char *used,
                        const ts_opt_t *opts, int nopts, ts_opt_fn fn, void *ctx, ts_error_t *err)
{
    return walk(cmd, argc, argv, used, opts, nopts, fn, ctx, NULL, err);
}

ts_status ts_opts_parse_prefix(const char *cmd, int argc, char **argv, const ts_opt_t *opts,
                               int nopts, ts_opt_fn fn, void *ctx, int *first_operand,
                               ts_error_t *err)
{
    *first_operand = argc;
    return walk(cmd, argc, argv, NULL, opts, nopts, fn, ctx, first_operand, err);
}

ts_status ts_opts_place(const char *cmd, int which, const char *v, ts_placement_opts_t *place,
                        ts_error_t *err)
{
    switch (which) {
    case TS_PLACE_NODES:
        if (ts_parse_int(v, 1, 1 << 20, &place->nodes))
            return ts_error_set(err, TS_EUSAGE, "%s: --nodes expects a count, got '%s'", cmd, v);
        return TS_OK;
    case TS_PLACE_PPN:
        if (ts_parse_int(v, 1, 1 << 20, &place->ppn))
            return ts_error_set(err, TS_EUSAGE, "%s: --ppn expects a count, got '%s'", cmd, v);
        return TS_OK;
    case TS_PLACE_NPS:
        if (ts_parse_int(v, 1, 64, &place->nps))
            return ts_error_set(err, TS_EUSAGE,
                                "%s: --nps expects NUMA domains per socket, 1 to 64 (the "
                                "platform's nps_options say which it offers), got '%s'",
                                cmd, v);
        return TS_OK;
    default: { /* TS_PLACE_MAP_BY: a bad value on the command line is a usage mistake */
        ts_status st = ts_map_by_layout(v, place, err);
        if (st != TS_OK && err)
            err->code = TS_EUSAGE;
        return st != TS_OK ? TS_EUSAGE : TS_OK;
    }
    }
}

ts_status ts_opts_scale_by(const char *cmd, const char *v, ts_xp_scale *scale, ts_error_t *err)
{
    if (strcmp(v, "compute") == 0)
        *scale = TS_XP_BY_COMPUTE;
    else if (strcmp(v, "visits") == 0)
        *scale = TS_XP_BY_VISITS;
    else
        return ts_error_set(err, TS_EUSAGE, "%s: --scale-by expects compute or visits, got '%s'",
                            cmd, v);
    return TS_OK;
}

ts_status ts_opts_parse_params(const char *cmd, int argc, char **argv, ts_params_t *params,
                               const ts_opt_t *opts, int nopts, ts_opt_fn fn, void *ctx,
                               ts_error_t *err)
{
    unsigned char *used = calloc((size_t)argc + 1, 1);
    if (!used)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts_params_parse_args(params, argc - 1, argv + 1, used + 1, err);
    if (st == TS_OK)
        st = ts_opts_parse(cmd, argc, argv, used, opts, nopts, fn, ctx, err);
    free(used);
    return st;
}

ts_file_use_t ts_opts_model_use(const ts_params_t *p, const char *flag)
{
    const char *m = ts_params_model_file(p);
    return (ts_file_use_t){flag, m && m[0] ? m : NULL, 0, "a tunesim model file", 0};
}

ts_file_use_t ts_opts_set_model_use(const ts_params_t *set, const char *name,
                                    const ts_params_t *base, char *flag, size_t n)
{
    snprintf(flag, n, "--model of set [%.100s]", name);
    ts_file_use_t u = ts_opts_model_use(set, flag);
    if (u.path && base && strcmp(u.path, ts_params_model_file(base)) == 0)
        u.path = NULL;
    return u;
}
