/* sweep_slurm.c - tunesim sweep --emit-slurm DIR (a Slurm job array whose tasks each run some
 * of the sets with --only and --results) and --merge DIR (their results into one report). */
#include "sweep_impl.h"

/* ---- Slurm ---------------------------------------------------------------------------------- */

/* s in single quotes for bash ('\'' for a quote). */
static void sh_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", fp);
        else
            fputc(*s, fp);
    }
    fputc('\'', fp);
}

/* dir + pattern as one argument of an #SBATCH line: sbatch splits its own arguments at
 * blanks, honouring double quotes and backslashes (never a shell's single quotes), and
 * expands %j, %A, ... in file names, where "%%" is a '%'; pattern keeps its expansions. */
static void sbatch_path(FILE *fp, const char *s, const char *pattern)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        if (*s == '%')
            fputc('%', fp);
        fputc(*s, fp);
    }
    fputs(pattern, fp);
    fputc('"', fp);
}

/* The mark in every file --emit-slurm writes: a file in DIR without it is the user's. */
#define EMIT_MARK "written by `tunesim sweep --emit-slurm`"
static const char *const EMIT_FILES[] = {"sweep.sbatch", "merge.sh", "plan.json", "sweep.sets"};

ts_status ts__sweep_merge_check_output(const char *dir, const char *flag, const char *path,
                                       ts_error_t *err)
{
    char p[4200], parent[4200];
    for (size_t i = 0; i < sizeof EMIT_FILES / sizeof EMIT_FILES[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, EMIT_FILES[i]);
        if (ts_same_file(p, path))
            return ts_error_set(err, TS_EUSAGE,
                                "sweep --merge: %s %s is the merge's own %s (expected another "
                                "name: the merge could not run again)",
                                flag, path, EMIT_FILES[i]);
    }
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    snprintf(p, sizeof p, "%s/results", dir);
    if (ts_same_file(slash ? (parent[0] ? parent : "/") : ".", p))
        return ts_error_set(err, TS_EUSAGE,
                            "sweep --merge: %s %s is in %s, which holds the array tasks' results "
                            "(expected a file elsewhere)",
                            flag, path, p);
    return TS_OK;
}

/* Each file --emit-slurm would replace in dir must be one it wrote earlier: a merge.sh or
 * sweep.sets of the user's own in the same directory is never overwritten. */
static ts_status emit_check_owned(const char *dir, ts_error_t *err)
{
    for (size_t i = 0; i < sizeof EMIT_FILES / sizeof EMIT_FILES[0]; i++) {
        char path[4200], head[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, EMIT_FILES[i]);
        if (lstat(path, &sb) != 0)
            continue;
        size_t n = 0;
        FILE *fp = S_ISREG(sb.st_mode) ? fopen(path, "r") : NULL;
        if (fp) {
            n = fread(head, 1, sizeof head - 1, fp);
            fclose(fp);
        }
        head[n] = '\0';
        if (!strstr(head, EMIT_MARK))
            return ts_error_set(err, TS_EARG,
                                "%s: exists and tunesim did not write it: --emit-slurm "
                                "expected a new directory or one it wrote before (nothing was "
                                "written)",
                                path);
    }
    return TS_OK;
}

static ts_status mkdir_p(const char *path, ts_error_t *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *c = buf + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return ts_error_set(err, TS_EIO, "%s: cannot create: %s", buf, strerror(errno));
            *c = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return ts_error_set(err, TS_EIO, "%s: cannot create: %s", buf, strerror(errno));
    return TS_OK;
}

static ts_status write_text(const char *path, const char *text, size_t len, int exec,
                            ts_error_t *err)
{
    ts_outfile_t *of;
    ts_status st = ts_outfile_open(path, &of, err);
    if (st != TS_OK)
        return st;
    fwrite(text, 1, len, ts_outfile_stream(of));
    if (exec)
        fchmod(fileno(ts_outfile_stream(of)), 0755);
    return ts_outfile_commit(of, err);
}

/* What the emitted files name: the job directory, the tunesim executable and the trace, all
 * absolute (the job runs elsewhere), and the split of the sets into array tasks. */
typedef struct emit_s {
    char dir[4096], exe[4096], trace[4096];
    int ntasks, chunk;
} emit_t;

/* The job directory with results/ and logs/, the absolute paths, and a copy of the sets file:
 * the sets file travels with the job, so later edits of the original do not change it. */
static ts_status emit_prepare(const sweep_t *sw, emit_t *em, ts_error_t *err)
{
    const char *d = sw->o.emit;
    char path[4200];
    /* A newline cannot be written in an #SBATCH line, quoted or not. */
    if (strchr(d, '\n'))
        return ts_error_set(err, TS_EARG,
                            "%s: --emit-slurm expected a directory whose name has no newline", d);
    ts_status st = mkdir_p(d, err);
    if (st == TS_OK && !realpath(d, em->dir))
        st = ts_error_set(err, TS_EIO, "%s: %s", d, strerror(errno));
    if (st == TS_OK)
        st = emit_check_owned(em->dir, err);
    if (st == TS_OK && !realpath(sw->o.trace, em->trace))
        st = ts_error_set(err, TS_EIO, "%s: %s", sw->o.trace, strerror(errno));
    ssize_t el = readlink("/proc/self/exe", em->exe, sizeof em->exe - 1);
    if (st == TS_OK && el <= 0)
        st = ts_error_set(err, TS_EIO, "cannot find the tunesim executable: %s", strerror(errno));
    if (st != TS_OK)
        return st;
    em->exe[el] = '\0';
    for (const char *sub = "results\0logs\0"; *sub && st == TS_OK; sub += strlen(sub) + 1) {
        snprintf(path, sizeof path, "%s/%s", em->dir, sub);
        st = mkdir_p(path, err);
    }
    size_t len;
    char *text = ts__sweep_read_file(sw->o.sets, &len);
    if (st == TS_OK && !text)
        st = ts_error_set(err, TS_EIO, "%s: cannot read: %s", sw->o.sets, strerror(errno));
    snprintf(path, sizeof path, "%s/sweep.sets", em->dir);
    char *marked = NULL;
    int ml = st == TS_OK ? asprintf(&marked, "# sweep.sets - " EMIT_MARK ": a copy of %s\n%.*s",
                                    strchr(sw->o.sets, '\n') ? "the sets file given" : sw->o.sets,
                                    (int)len, text)
                         : 0;
    if (ml < 0)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    if (st == TS_OK)
        st = write_text(path, marked, (size_t)ml, 0, err);
    free(marked);
    free(text);
    em->ntasks = sw->n < SLURM_MAX_TASKS ? sw->n : SLURM_MAX_TASKS;
    em->chunk = (sw->n + em->ntasks - 1) / em->ntasks;
    em->ntasks = (sw->n + em->chunk - 1) / em->chunk;
    return st;
}

/* plan.json: what --merge needs without the trace. */
static ts_status emit_plan(const sweep_t *sw, const emit_t *em, ts_error_t *err)
{
    char path[4200];
    ts_status st;
    json_object *plan = json_object_new_object();
    json_object_object_add(plan, "note", json_object_new_string(EMIT_MARK));
    json_object_object_add(plan, "trace", json_object_new_string(sw->o.trace));
    json_object_object_add(plan, "platform", json_object_new_string(sw->platform_name));
    json_object_object_add(plan, "baseline",
                           json_object_new_string(sw->o.baseline ? sw->o.baseline : sw->s[0].name));
    json_object *arr = json_object_new_array();
    for (int i = 0; i < sw->n; i++) {
        json_object *s = json_object_new_object();
        json_object_object_add(s, "name", json_object_new_string(sw->s[i].name));
        json_object_object_add(s, "key", json_object_new_string(sw->s[i].key));
        json_object_object_add(s, "settings", json_object_get(sw->s[i].settings));
        json_object_array_add(arr, s);
    }
    json_object_object_add(plan, "sets", arr);
    const char *pj = json_object_to_json_string_ext(
        plan, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    snprintf(path, sizeof path, "%s/plan.json", em->dir);
    char *pjn;
    if (asprintf(&pjn, "%s\n", pj) < 0)
        st = ts_error_set(err, TS_ENOMEM, "out of memory");
    else
        st = write_text(path, pjn, strlen(pjn), 0, err);
    free(pjn);
    json_object_put(plan);
    return st;
}

/* sweep.sbatch: the Slurm job array, chunk sets per task. */
static ts_status emit_sbatch(const sweep_t *sw, const emit_t *em, ts_error_t *err)
{
    const char *dir = em->dir, *exe = em->exe, *trace = em->trace;
    int ntasks = em->ntasks, chunk = em->chunk;
    char path[4200];
    ts_status st;
    char *buf = NULL;
    size_t blen = 0;
    FILE *fp = open_memstream(&buf, &blen);
    if (!fp)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    fprintf(fp,
            "#!/bin/bash\n"
            "# sweep.sbatch - " EMIT_MARK ": a Slurm job array "
            "over the sets\n"
            "# of sweep.sets, %d set%s per task; task N replays its sets and writes\n"
            "# results/task-N.jsonl. Submit it and the merge step after it:\n"
            "#   job=$(sbatch --parsable sweep.sbatch) && "
            "sbatch --dependency=afterany:$job merge.sh\n"
            "# A task can also run here: SLURM_ARRAY_TASK_ID=0 bash sweep.sbatch\n",
            chunk, chunk == 1 ? "" : "s");
    fprintf(fp,
            "#SBATCH --job-name=tunesim-sweep\n#SBATCH --array=0-%d\n#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task=1\n#SBATCH --output=",
            ntasks - 1);
    sbatch_path(fp, dir, "/logs/sweep-%A_%a.out");
    fputc('\n', fp);
    fprintf(fp, "set -euo pipefail\ntunesim=${TUNESIM:-");
    sh_quote(fp, exe);
    fprintf(fp, "}\ndir=");
    sh_quote(fp, dir);
    fprintf(fp, "\nchunk=%d\nnames=(", chunk);
    for (int i = 0; i < sw->n; i++)
        fprintf(fp, "%s%s", i ? " " : "", sw->s[i].name); /* names need no quoting */
    fprintf(fp,
            ")\n"
            "task=${SLURM_ARRAY_TASK_ID:?run as a Slurm array task (or set "
            "SLURM_ARRAY_TASK_ID)}\n"
            /* Only plain task numbers: bash's arithmetic would read -1 as the last sets and 0x1
             * or 08 as other numbers than the results file's name says. */
            "case $task in *[!0-9]* | 0?* | ??????????*)\n"
            "    echo \"sweep.sbatch: no task '$task' (0-%d)\" >&2; exit 2 ;;\n"
            "esac\n"
            "only=()\n"
            "for name in \"${names[@]:$((task * chunk)):$chunk}\"; do only+=(--only "
            "\"$name\"); done\n"
            "if [ ${#only[@]} -eq 0 ]; then echo \"sweep.sbatch: no task $task (0-%d)\" >&2; "
            "exit 2; fi\n"
            "exec \"$tunesim\" sweep ",
            ntasks - 1, ntasks - 1);
    sh_quote(fp, trace);
    fprintf(fp, " --sets \"$dir/sweep.sets\"");
    if (sw->o.platform) {
        char pf[4096];
        fprintf(fp, " --platform ");
        /* A platform file by its absolute path; a platform name as it is. */
        sh_quote(fp,
                 strchr(sw->o.platform, '/') && realpath(sw->o.platform, pf) ? pf : sw->o.platform);
    }
    if (sw->o.place.nodes)
        fprintf(fp, " --nodes %d", sw->o.place.nodes);
    if (sw->o.place.ppn)
        fprintf(fp, " --ppn %d", sw->o.place.ppn);
    if (sw->o.place.nps)
        fprintf(fp, " --nps %d", sw->o.place.nps);
    if (sw->o.map_by_text) {
        fprintf(fp, " --map-by ");
        sh_quote(fp, sw->o.map_by_text);
    }
    fprintf(fp, " -j \"${SLURM_CPUS_PER_TASK:-1}\" \"${only[@]}\" \\\n"
                "    --results \"$dir/results/task-$task.jsonl\"\n");
    fclose(fp);
    snprintf(path, sizeof path, "%s/sweep.sbatch", dir);
    st = write_text(path, buf, blen, 1, err);
    free(buf);
    return st;
}

/* merge.sh: the step after the array that ranks the results. */
static ts_status emit_merge(const sweep_t *sw, const emit_t *em, ts_error_t *err)
{
    const char *dir = em->dir, *exe = em->exe;
    char path[4200];
    ts_status st;
    char *buf = NULL;
    size_t blen = 0;
    FILE *fp;
    if (!(fp = open_memstream(&buf, &blen)))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    fprintf(fp,
            "#!/bin/bash\n"
            "# merge.sh - " EMIT_MARK ": collects results/*.jsonl "
            "into the ranked\n"
            "# table (stdout) and sweep.json / sweep.csv%s. Run it after the array job\n"
            "# (sbatch --dependency=afterany:JOB merge.sh) or by hand: bash merge.sh\n",
            sw->o.plot ? " / the sweep pictures" : "");
    fprintf(fp, "#SBATCH --job-name=tunesim-merge\n#SBATCH --ntasks=1\n#SBATCH --output=");
    sbatch_path(fp, dir, "/logs/merge-%j.out");
    fputc('\n', fp);
    fprintf(fp, "set -euo pipefail\ntunesim=${TUNESIM:-");
    sh_quote(fp, exe);
    fprintf(fp, "}\ndir=");
    sh_quote(fp, dir);
    fprintf(fp,
            "\nexec \"$tunesim\" sweep --merge \"$dir\" --json \"$dir/sweep.json\" "
            "--csv \"$dir/sweep.csv\"%s\n",
            sw->o.plot ? " --plot \"$dir/sweep\"" : "");
    fclose(fp);
    snprintf(path, sizeof path, "%s/merge.sh", dir);
    st = write_text(path, buf, blen, 1, err);
    free(buf);
    return st;
}

/* --emit-slurm DIR: a job array and its merge step instead of a local run. */
ts_status ts__sweep_emit_slurm(sweep_t *sw, ts_error_t *err)
{
    emit_t em = {.ntasks = 0};
    ts_status st = emit_prepare(sw, &em, err);
    if (st == TS_OK)
        st = emit_plan(sw, &em, err);
    if (st == TS_OK)
        st = emit_sbatch(sw, &em, err);
    if (st == TS_OK)
        st = emit_merge(sw, &em, err);
    const char *dir = em.dir;
    int ntasks = em.ntasks, chunk = em.chunk;
    if (st == TS_OK) {
        char sbatch[4200], merge[4200];
        snprintf(sbatch, sizeof sbatch, "%s/sweep.sbatch", dir);
        snprintf(merge, sizeof merge, "%s/merge.sh", dir);
        fprintf(sw->o.out,
                "wrote %s/sweep.sbatch (%d array task%s, %d set%s each), %s/merge.sh and "
                "%s/plan.json\nsubmit: job=$(sbatch --parsable ",
                dir, ntasks, ntasks == 1 ? "" : "s", chunk, chunk == 1 ? "" : "s", dir, dir);
        /* A line to paste into a shell: the paths quoted like the scripts'. */
        sh_quote(sw->o.out, sbatch);
        fprintf(sw->o.out, ") && sbatch --dependency=afterany:$job ");
        sh_quote(sw->o.out, merge);
        fputc('\n', sw->o.out);
    }
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --merge DIR: the plan written by --emit-slurm and every results/ *.jsonl file. */
ts_status ts__sweep_merge(const sweep_opts_t *o, ts_error_t *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/plan.json", o->merge);
    ts_status cs = ts_check_input(path, "the plan --emit-slurm writes", 0, err);
    if (cs != TS_OK)
        return cs;
    char *text = ts__sweep_read_file(path, NULL);
    if (!text)
        return ts_error_set(err, TS_EIO, "%s: cannot read: %s (write it with --emit-slurm DIR)",
                            path, strerror(errno));
    json_object *plan = json_tokener_parse(text);
    free(text);
    json_object *sets;
    if (!plan || !ts__sweep_jstr(plan, "trace") ||
        !json_object_object_get_ex(plan, "sets", &sets) ||
        !json_object_is_type(sets, json_type_array)) {
        json_object_put(plan);
        return ts_error_set(err, TS_ECORRUPT,
                            "%s: expected the plan --emit-slurm writes "
                            "(trace, platform, baseline, sets)",
                            path);
    }
    json_object *records = json_object_new_array();
    snprintf(path, sizeof path, "%s/results", o->merge);
    DIR *dd = opendir(path);
    char **names = NULL;
    size_t nn = 0, cap = 0;
    for (struct dirent *de; dd && (de = readdir(dd));) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 6, ".jsonl") != 0)
            continue;
        if (TS_GROW(names, nn, cap, 64) != 0)
            break;
        names[nn++] = strdup(de->d_name);
    }
    if (dd)
        closedir(dd);
    /* In name order, so that a set reported twice resolves the same way every time. */
    if (nn)
        qsort(names, nn, sizeof *names, cmp_str);
    /* Each by type before it is opened: a FIFO there would block the merge or read as a task
     * that wrote nothing. */
    for (size_t i = 0; i < nn; i++) {
        char p[4600];
        snprintf(p, sizeof p, "%s/results/%s", o->merge, names[i] ? names[i] : "");
        if (names[i] && cs == TS_OK &&
            (cs = ts_check_input(p, "a results file of a sweep's task", 0, err)) == TS_OK)
            ts__sweep_load_records(p, records, "left out of the merge");
        free(names[i]);
    }
    if (cs != TS_OK) {
        free(names);
        json_object_put(records);
        json_object_put(plan);
        return cs;
    }
    free(names);
    size_t n = json_object_array_length(sets), nrec = json_object_array_length(records);
    ts_sweep_entry_t *e = calloc(n + 1, sizeof *e);
    int missing = 0;
    ts_status st = e ? TS_OK : ts_error_set(err, TS_ENOMEM, "out of memory");
    for (size_t i = 0; e && i < n; i++) {
        json_object *s = json_object_array_get_idx(sets, i), *st_arr = NULL;
        json_object_object_get_ex(s, "settings", &st_arr);
        e[i].name = ts__sweep_jstr(s, "name") ? ts__sweep_jstr(s, "name") : "?";
        e[i].settings = st_arr;
        e[i].error = "no result in DIR/results (did its array task run?)";
        const char *key = ts__sweep_jstr(s, "key");
        for (size_t r = 0; key && r < nrec; r++) {
            json_object *rec = json_object_array_get_idx(records, r), *res;
            if (strcmp(ts__sweep_jstr(rec, "key"), key) == 0 &&
                json_object_object_get_ex(rec, "result", &res))
                e[i].result = res;
        }
        missing += !e[i].result;
    }
    if (st == TS_OK)
        st = ts__sweep_report(ts__sweep_jstr(plan, "trace"), ts__sweep_jstr(plan, "platform"),
                              o->baseline ? o->baseline : ts__sweep_jstr(plan, "baseline"), o,
                              (int)n, e, err);
    if (st == TS_OK && missing)
        st = ts_error_set(err, TS_ECHILD,
                          "sweep --merge: %d of %d sets have no result in %s/results", missing,
                          (int)n, o->merge);
    free(e);
    json_object_put(records);
    json_object_put(plan);
    return st;
}
