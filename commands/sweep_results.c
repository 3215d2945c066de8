/* sweep_results.c - the results file of tunesim sweep: one line per finished set, each
 * verified by its checksum, so that a rerun skips the sets already done (sweep_impl.h). */
#include "sweep_impl.h"

#include "../common/infile.h"

#include <math.h>

/* A whole file, or NULL (callers report the failure in their own words). */
char *ts__sweep_read_file(const char *path, size_t *len)
{
    ts_status st;
    return ts_read_whole(path, len, &st, NULL);
}

const char *ts__sweep_jstr(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* Each results line ends in a checksum of the rest of it: the record's text up to its closing
 * brace, "key" (the set's settings, trace and placement) and "result" included, as the CRC-32
 * of CHECK_TAG's member. The line stays one JSON object. */
static const char CHECK_TAG[] = ",\"check\":\"";
enum { CHECK_LEN = sizeof CHECK_TAG - 1, CHECK_HEX = 8 };

static unsigned long text_crc(const char *s, size_t n)
{
    return crc32(0L, (const Bytef *)s, (uInt)n);
}

/* Whether line (NUL-terminated, no newline) ends in a checksum that matches the text before
 * it. */
static int line_verifies(const char *line, size_t len)
{
    /* ...}  becomes  ...,"check":"xxxxxxxx"}  : the tail is CHECK_LEN + 8 + 2 bytes. */
    if (len < 1 + CHECK_LEN + CHECK_HEX + 2 || strcmp(line + len - 2, "\"}") != 0)
        return 0;
    size_t at = len - 2 - CHECK_HEX - CHECK_LEN;
    if (memcmp(line + at, CHECK_TAG, CHECK_LEN) != 0)
        return 0;
    char hex[CHECK_HEX + 1], *end;
    memcpy(hex, line + at + CHECK_LEN, CHECK_HEX);
    hex[CHECK_HEX] = '\0';
    unsigned long want = strtoul(hex, &end, 16);
    if (*end)
        return 0;
    /* The checked text is the record as it was before the member was spliced in. */
    unsigned long crc = text_crc(line, at);
    crc = crc32(crc, (const Bytef *)"}", 1);
    return crc == want;
}

/* Parse a results file (JSON lines) into records, appended to arr. A line that is not a
 * complete record (the torn last line of an interrupted sweep) is skipped. A line that does
 * not verify (NUL bytes, edited, no checksum) is skipped with a note on stderr, so its set
 * runs again; the lines after it still count. */
/* A verified record can still carry what no replay writes (a hand-made line with its checksum
 * recomputed): every number finite, each time ("..._s") from 0 to 1e12 s, the predicted time a
 * number; the same within its nested objects and arrays (the functions' times and visits). */
static int value_sane(const char *key, json_object *v)
{
    size_t n = key ? strlen(key) : 0;
    int time = n > 2 && strcmp(key + n - 2, "_s") == 0;
    json_type t = json_object_get_type(v);
    if (t == json_type_double || t == json_type_int) {
        double x = json_object_get_double(v);
        return isfinite(x) && (!time || (x >= 0 && x <= 1e12));
    }
    if (t == json_type_object) {
        json_object_object_foreach(v, k, w) if (!value_sane(k, w)) return 0;
    } else if (t == json_type_array) {
        for (size_t i = 0; i < json_object_array_length(v); i++)
            if (!value_sane(key, json_object_array_get_idx(v, i)))
                return 0;
    }
    return 1;
}

static int result_sane(json_object *res)
{
    json_object *p;
    if (!json_object_object_get_ex(res, "predicted_time_s", &p) ||
        (json_object_get_type(p) != json_type_double && json_object_get_type(p) != json_type_int))
        return 0;
    return value_sane(NULL, res);
}

void ts__sweep_load_records(const char *path, json_object *arr, const char *skipped)
{
    size_t size = 0;
    char *text = ts__sweep_read_file(path, &size);
    int lineno = 0;
    for (size_t pos = 0; text && pos < size;) {
        char *line = text + pos;
        char *nl = memchr(line, '\n', size - pos);
        if (!nl)
            break; /* no newline: the line was still being written */
        *nl = '\0';
        size_t len = (size_t)(nl - line);
        pos += len + 1;
        lineno++;
        if (len == 0)
            continue;
        json_object *j = NULL, *res;
        int ok = strlen(line) == len && line_verifies(line, len);
        if (ok)
            j = json_tokener_parse(line);
        int rec = j && ts__sweep_jstr(j, "key") && json_object_object_get_ex(j, "result", &res) &&
                  json_object_is_type(res, json_type_object);
        if (rec && result_sane(res)) {
            json_object_array_add(arr, j);
        } else {
            json_object_put(j);
            char shown[4200];
            fprintf(stderr, "note: %s:%d: %s: %s\n", ts_shown(path, shown, sizeof shown), lineno,
                    strlen(line) != len ? "NUL bytes in the line"
                    : !ok               ? "the checksum does not match (edited or damaged)"
                    : !rec              ? "not a result record"
                                        : "a time that is not a number of seconds from 0 to 1e12",
                    skipped);
        }
    }
    free(text);
}

/* Give each selected set without a result the last record that matches its key. */
void ts__sweep_match_records(sweep_t *sw)
{
    size_t n = json_object_array_length(sw->records);
    for (size_t r = 0; r < n; r++) {
        json_object *rec = json_object_array_get_idx(sw->records, r);
        const char *key = ts__sweep_jstr(rec, "key");
        for (int i = 0; i < sw->n; i++)
            if (sw->s[i].key && strcmp(sw->s[i].key, key) == 0) {
                json_object *res;
                json_object_object_get_ex(rec, "result", &res);
                json_object_put(sw->s[i].result);
                sw->s[i].result = json_object_get(res);
            }
    }
}

/* ---- results file ---------------------------------------------------------------------------- */

char *ts__sweep_default_results_path(const sweep_opts_t *o)
{
    const char *base = o->json ? o->json : o->csv;
    struct stat sb;
    /* A report sent to a device or a pipe (/dev/stdout) has no directory of its own to keep
     * results beside it: none then, unless --results names one. */
    if (!base || (stat(base, &sb) == 0 && !S_ISREG(sb.st_mode)))
        return NULL;
    size_t n = strlen(base);
    const char *ext = o->json ? ".json" : ".csv";
    size_t e = strlen(ext);
    if (n > e && strcmp(base + n - e, ext) == 0)
        n -= e;
    char *p;
    return asprintf(&p, "%.*s.results.jsonl", (int)n, base) < 0 ? NULL : p;
}

ts_status ts__sweep_open_results(sweep_t *sw, ts_error_t *err)
{
    sw->results_fd = -1;
    if (!(sw->records = json_object_new_array()))
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    if (sw->o.results) {
        if (!(sw->results_path = strdup(sw->o.results)))
            return ts_error_set(err, TS_ENOMEM, "out of memory");
    } else {
        sw->results_path = ts__sweep_default_results_path(&sw->o);
    }
    if (!sw->results_path)
        return TS_OK;
    /* Read and appended to: a FIFO would block the sweep, a device take its records. */
    ts_status st = ts_check_input(sw->results_path, "a sweep results file (JSON lines)", 0, err);
    if (st != TS_OK)
        return st;
    ts__sweep_load_records(sw->results_path, sw->records, "its set runs again");
    ts__sweep_match_records(sw);
    sw->results_fd = open(sw->results_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (sw->results_fd < 0)
        return ts_error_set(err, TS_EIO, "%s: cannot open the results file: %s", sw->results_path,
                            strerror(errno));
    /* A torn last line (interrupted mid-write) must not glue onto the next record. */
    struct stat sb;
    if (fstat(sw->results_fd, &sb) == 0 && sb.st_size > 0) {
        char last = '\n';
        int rfd = open(sw->results_path, O_RDONLY | O_CLOEXEC);
        if (rfd >= 0) {
            if (pread(rfd, &last, 1, sb.st_size - 1) != 1)
                last = '\n';
            close(rfd);
        }
        if (last != '\n' && ts_write_all(sw->results_fd, "\n", 1) != TS_OK)
            return ts_error_set(err, TS_EIO, "%s: write failed: %s", sw->results_path,
                                strerror(errno));
    }
    return TS_OK;
}

/* One line per finished set, written whole by one write() and synced before the next set is
 * reported, so a crash leaves complete lines (and at most one torn one, which is skipped). */
ts_status ts__sweep_append_record(sweep_t *sw, const sset_t *s, ts_error_t *err)
{
    json_object *rec = json_object_new_object();
    json_object_object_add(rec, "key", json_object_new_string(s->key));
    json_object_object_add(rec, "name", json_object_new_string(s->name));
    json_object_object_add(rec, "settings", json_object_get(s->settings));
    json_object_object_add(rec, "result", json_object_get(s->result));
    ts_status st = TS_OK;
    if (sw->results_fd >= 0) {
        const char *txt = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN |
                                                                  JSON_C_TO_STRING_NOSLASHESCAPE);
        size_t tlen = strlen(txt);
        char *line;
        /* The record's text, its closing brace replaced by the checksum member and a brace. */
        if (tlen < 2 || txt[tlen - 1] != '}') {
            st = ts_error_set(err, TS_EIO, "%s: cannot format the record of set %s",
                              sw->results_path, s->name);
        } else if (asprintf(&line, "%.*s%s%08lx\"}\n", (int)(tlen - 1), txt, CHECK_TAG,
                            text_crc(txt, tlen)) < 0) {
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
        } else {
            if (ts_write_all(sw->results_fd, line, strlen(line)) != TS_OK ||
                fsync(sw->results_fd) != 0)
                st = ts_error_set(err, TS_EIO, "%s: write failed: %s", sw->results_path,
                                  strerror(errno));
            free(line);
        }
    }
    json_object_put(rec);
    return st;
}
