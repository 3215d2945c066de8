/* status.c - name and message lookups for the status-code table, the error record, and text
 * shown in messages. */
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsontext.h"

static const char *const status_names[] = {
#define TS__XX(name, msg) #name,
    TS_STATUS_MAP(TS__XX)
#undef TS__XX
};

static const char *const status_messages[] = {
#define TS__XX(name, msg) msg,
    TS_STATUS_MAP(TS__XX)
#undef TS__XX
};

enum { STATUS_COUNT = (int)(sizeof status_names / sizeof status_names[0]) };

static int status_index(ts_status code)
{
    int idx = -code;
    return (idx >= 0 && idx < STATUS_COUNT) ? idx : -1;
}

const char *ts_status_name(ts_status code)
{
    int idx = status_index(code);
    return idx < 0 ? "EUNKNOWN" : status_names[idx];
}

const char *ts_status_message(ts_status code)
{
    int idx = status_index(code);
    return idx < 0 ? "unknown status" : status_messages[idx];
}

/* Fit the n-byte message m into out (cap bytes). A message too long is nearly always one
 * long path: its middle gives way to "..." so that the file's name and what was expected,
 * at the end, both stay; only without such a word does the message's own middle go. */
static void fit_message(char *out, size_t cap, const char *m, size_t n)
{
    if (n < cap) {
        memcpy(out, m, n + 1);
        return;
    }
    size_t cut = n - (cap - 1) + 3; /* bytes to drop, "..." included */
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && m[j] != ' ')
            j++;
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j + 1;
    }
    size_t from, keep = 16; /* each side of a shortened word: its root and its file name */
    if (best_len >= cut + 2 * keep)
        from = best + (best_len - cut) / 2;
    else
        from = (n - cut) / 2;
    memcpy(out, m, from);
    memcpy(out + from, "...", 3);
    memcpy(out + from + 3, m + from + cut, n - from - cut + 1);
}

ts_status ts_error_set(ts_error_t *err, ts_status code, const char *fmt, ...)
{
    if (err) {
        /* Formatted apart first: the arguments may include err->msg itself. */
        char small[sizeof err->msg], *m = small;
        va_list ap, ap2;
        va_start(ap, fmt);
        va_copy(ap2, ap);
        int n = vsnprintf(small, sizeof small, fmt, ap);
        va_end(ap);
        if (n >= (int)sizeof small && (m = malloc((size_t)n + 1)) != NULL)
            vsnprintf(m, (size_t)n + 1, fmt, ap2);
        va_end(ap2);
        err->code = code;
        if (n < 0)
            snprintf(err->msg, sizeof err->msg, "%s", ts_status_message(code));
        else if (m)
            fit_message(err->msg, sizeof err->msg, m, (size_t)n);
        else /* out of memory for the long form: its start, as before */
            memcpy(err->msg, small, sizeof small);
        if (m != small)
            free(m);
        ts_one_line(err->msg);
    }
    return code;
}

char *ts_one_line(char *s)
{
    /* In place: what is shown is never longer than what it stands for. Besides the C0
     * controls, a C1 control (U+0080-U+009F: U+009B starts an escape on some terminals) and a
     * byte that starts no valid UTF-8 sequence (a Latin-1 file name, a sequence cut by a
     * message's "...") each become one '?'. */
    unsigned char *r = (unsigned char *)s, *w = r;
    while (*r) {
        size_t n = *r < 0x80 ? 1 : ts_utf8_seq_len(r);
        if (n == 0 || (n == 1 && iscntrl(*r)) || (n == 2 && r[0] == 0xc2 && r[1] < 0xa0)) {
            *w++ = '?';
            r += n ? n : 1;
        } else {
            memmove(w, r, n);
            w += n;
            r += n;
        }
    }
    *w = '\0';
    return s;
}

void ts_error_clear(ts_error_t *err)
{
    if (err) {
        err->code = TS_OK;
        err->msg[0] = '\0';
    }
}

const char *ts_shown(const char *s, char *buf, size_t n)
{
    size_t max = n - 1, len = strlen(s), k;
    int cut = len > max;
    if (cut) {
        max -= 3;
        /* Not within a UTF-8 sequence: back to its first byte (at most 3 back). */
        for (int b = 0; b < 3 && max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80; b++)
            max--;
    }
    for (k = 0; k < max && s[k]; k++)
        buf[k] = s[k];
    if (cut)
        memcpy(buf + k, "...", 3), k += 3;
    buf[k] = '\0';
    return ts_one_line(buf);
}
