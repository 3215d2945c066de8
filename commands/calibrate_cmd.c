/* calibrate_cmd.c - `tunesim calibrate` (see calibrate_cmd.h): inputs -> benchmark series
 * (calibration/bench_parse) -> fit (calibration/calibrate) -> model file (params/model_file,
 * written atomically) and the report on stdout. */
#include "calibrate_cmd.h"

#include "../common/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../calibration/bench_parse.h"
#include "../calibration/calibrate.h"
#include "../params/model_file.h"
#include "../params/params.h"
#include "../params/params_args.h"
#include "../platforms/platform.h"
#include "options.h"

/* calibrate's own options (the parameter words are the params layer's); operands are the
 * benchmark outputs, "-" among them. */
typedef struct calib_args_s {
    const char **inputs;
    int ninputs;
    const char *output, *platform;
} calib_args_t;

static const ts_opt_t CALIB_OPTS[] = {{"output", 'o', 1}, {"platform", 0, 1}};

static ts_status calib_opt(void *ctx, int opt, const char *v, ts_error_t *err)
{
    calib_args_t *ca = ctx;
    if (opt == 0)
        ca->output = v;
    else if (opt == 1 && !*v) /* "" would read as no platform: a model for any */
        return ts_error_set(err, TS_EUSAGE,
                            "calibrate: --platform expects a platform name or file, got an "
                            "empty one");
    else if (opt == 1)
        ca->platform = v;
    else
        ca->inputs[ca->ninputs++] = v;
    return TS_OK;
}

int ts_calibrate_cmd(FILE *out, int argc, char **argv, ts_error_t *err)
{
    /* Without --platform the model file names none ("") and replay takes it on any platform:
     * a placeholder name such as "unspecified" would be refused everywhere. */
    const char *output = NULL, *platform = "";
    ts_params_t *params = NULL;
    ts_bench_set_t set = {0};
    ts_calib_t *cal = NULL;
    ts_model_t *model = NULL;
    char *created = NULL;
    size_t created_len = 0, nfitted = 0;
    unsigned char *used = calloc((size_t)argc + 1, 1);
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    int ninputs = 0;
    ts_status st = TS_OK;
    if (!used || !inputs || ts_params_new(&params) != TS_OK) {
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
        goto done;
    }
    /* -x / --mca / --set / --model apply to every input (settings its header does not say). */
    st = ts_params_parse_args(params, argc - 1, argv + 1, used + 1, err);
    calib_args_t ca = {.inputs = inputs, .platform = platform};
    if (st == TS_OK)
        st = ts_opts_parse("calibrate", argc, argv, used, CALIB_OPTS, 2, calib_opt, &ca, err);
    output = ca.output;
    platform = ca.platform;
    ninputs = ca.ninputs;
    if (st == TS_OK && ninputs == 0)
        st = ts_error_set(err, TS_EUSAGE,
                          "calibrate: expected INPUTS (OSU, IMB or "
                          "tunesim-probe output files)");
    if (st == TS_OK && !output)
        st = ts_error_set(err, TS_EUSAGE, "calibrate: expected -o FILE for the model file");
    /* Each input a file (a FIFO nobody writes, /dev/zero never end), none of them the output. */
    ts_file_use_t *uses = st == TS_OK ? calloc((size_t)ninputs + 2, sizeof *uses) : NULL;
    if (st == TS_OK && !uses)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    if (st == TS_OK) {
        for (int i = 0; i < ninputs; i++)
            uses[i] =
                (ts_file_use_t){"INPUTS", inputs[i], 0, "an OSU, IMB or tunesim-probe output", 0};
        uses[ninputs] = (ts_file_use_t){"-o", output, 1, NULL, 0};
        uses[ninputs + 1] = ts_opts_model_use(params, "--model");
        st = ts_check_files("calibrate", uses, ninputs + 2, err);
    }
    free(uses);
    /* One file given twice would weigh its points twice. */
    for (int i = 0; i < ninputs && st == TS_OK; i++)
        for (int j = i + 1; j < ninputs && st == TS_OK; j++)
            if (ts_same_file(inputs[i], inputs[j]))
                st = ts_error_set(err, TS_EUSAGE,
                                  "calibrate: INPUTS %s and %s are the same file: give each "
                                  "once",
                                  inputs[i], inputs[j]);
    /* The platform the model file is for (replays elsewhere refuse it): one that exists (their
     * advice to give --platform NAME must work), and the one a --model given was made for. */
    char pfname[256];
    if (st == TS_OK && platform[0]) {
        ts_platform_t *pf = NULL;
        st = ts_platform_open(platform, NULL, &pf, err);
        if (st == TS_OK) {
            snprintf(pfname, sizeof pfname, "%s", ts_platform_name(pf));
            platform = pfname;
        }
        ts_platform_close(pf);
        const char *mp = ts_params_model_platform(params);
        if (st == TS_OK && mp[0] && strcmp(mp, platform) != 0)
            st = ts_error_set(err, TS_EARG,
                              "calibrate: %s: a model file made for platform '%s', but --platform "
                              "says '%s'",
                              ts_params_model_file(params), mp, platform);
    }
    for (int i = 0; i < ninputs && st == TS_OK; i++)
        st = ts_bench_parse_file(&set, inputs[i], err);
    if (st == TS_OK)
        st = ts_calibrate(&set, params, &cal, err);
    if (st != TS_OK)
        goto done;
    for (int i = 0; i < ninputs; i++) {
        size_t need = created_len + strlen(inputs[i]) + 3;
        char *n = realloc(created, need);
        if (!n) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            goto done;
        }
        created = n;
        created_len += (size_t)sprintf(created + created_len, "%s%s", i ? " " : "", inputs[i]);
    }
    if ((st = ts_calib_model(cal, platform, created, &model, err)) != TS_OK)
        goto done;
    nfitted = ts_model_nparams(model);
    /* UCX_PROTO_ENABLE given here is the platform's UCX (n before UCX 1.16): the fit
     * depends on the selection it names, and every replay on the platform runs with it. */
    if (ts_params_is_set(params, TS_P_UCX_PROTO_ENABLE) &&
        (st = ts_model_add_param(model, "UCX_PROTO_ENABLE",
                                 TS_PARAM_BOOL(params, UCX_PROTO_ENABLE) ? "y" : "n", NULL,
                                 "given to tunesim calibrate: the platform's UCX", err)) != TS_OK)
        goto done;
    /* Settings given for every input (UCX_TLS naming this machine's transports, ...) are
     * part of what the values mean: a replay for this machine wants the same. */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *ms = open_memstream(&buf, &len);
        int n = ms ? ts_params_print_changes(params, ms) : 0;
        if (ms)
            fclose(ms);
        if (!buf) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
            goto done;
        }
        for (char *c = buf; *c; c++)
            if (*c == '\n')
                *c = c[1] ? ' ' : '\0';
        if (n > 0) {
            char note[1200];
            snprintf(note, sizeof note,
                     "fitted under these settings for every input (use them when replaying "
                     "for this platform): %s",
                     buf);
            st = ts_model_add_note(model, note, err);
        }
        free(buf);
        if (st != TS_OK)
            goto done;
    }
    /* The report first, and checked: a report that cannot be written (a full disk) fails the
     * run before the model file replaces an earlier one. */
    errno = 0;
    ts_calib_report(cal, out);
    char after[4300], so[4200], sp[4200];
    snprintf(after, sizeof after, "; %s not written", ts_shown(output, so, sizeof so));
    if ((st = ts_report_check(out, after, err)) != TS_OK)
        goto done;
    if ((st = ts_model_write(model, output, err)) != TS_OK)
        goto done;
    fprintf(out,
            "\nwrote %s (%s%s%s): %zu fitted parameters; load it with "
            "--model %s\n",
            ts_shown(output, so, sizeof so),
            platform[0] ? "platform " : "for any platform: no --platform given",
            ts_shown(platform, sp, sizeof sp), platform[0] ? ", refused on others" : "", nfitted,
            so);
    st = ts_report_check(out, NULL, err);
done:
    ts_model_free(model);
    ts_calib_free(cal);
    ts_bench_set_clear(&set);
    ts_params_free(params);
    free(created);
    free(inputs);
    free(used);
    return st;
}
