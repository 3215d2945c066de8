/* status.h - the one status-code table of tunesim, and an error record that carries a
 * one-line, user-facing message (file, rank or record, what was expected).
 *
 * Library code returns a ts_status and fills a ts_error_t; only main() exits. */
#ifndef TS_STATUS_H
#define TS_STATUS_H

#include <stdarg.h>
#include <stddef.h>

/* X-macro: name, message. */
#define TS_STATUS_MAP(XX)                                                                          \
    XX(OK, "success")                                                                              \
    XX(ENOMEM, "out of memory")                                                                    \
    XX(EIO, "input/output error")                                                                  \
    XX(ENOENT, "no such file or directory")                                                        \
    XX(EARG, "invalid argument")                                                                   \
    XX(EUSAGE, "usage error")                                                                      \
    XX(ENOTTRACE, "not a trace")                                                                   \
    XX(ETRUNC, "truncated input")                                                                  \
    XX(ECORRUPT, "corrupt input")                                                                  \
    XX(EVERSION, "unsupported format version")                                                     \
    XX(EOTF2, "OTF2 library error")                                                                \
    XX(ENOMPI, "trace holds no MPI records")                                                       \
    XX(EUNMATCHED, "unmatched message")                                                            \
    XX(ECHILD, "child process failed")                                                             \
    XX(ENOITER, "no complete iteration")

/* Table positions, then the public codes: TS_OK == 0 and errors negative, in table order.
 * (The names are pasted, never expanded: ENOMEM and friends are also errno macros.) */
enum ts__status_index {
#define TS__XX(name, msg) TS__IDX_##name,
    TS_STATUS_MAP(TS__XX)
#undef TS__XX
        TS__IDX_COUNT
};
enum {
#define TS__XX(name, msg) TS_##name = -(int)TS__IDX_##name,
    TS_STATUS_MAP(TS__XX)
#undef TS__XX
};
typedef int ts_status;

/* Name ("ECORRUPT") and message ("corrupt input") of a code; never NULL. */
const char *ts_status_name(ts_status code);
const char *ts_status_message(ts_status code);

/* An error record: the code plus a one-line message for the user. */
typedef struct ts_error_s {
    ts_status code;
    char msg[512];
} ts_error_t;

/* Fill err (may be NULL) with code and a printf-style message; returns code so that callers
 * can write `return ts_error_set(err, TS_ECORRUPT, "%s: ...", path);`. The arguments may
 * include err->msg. A message longer than msg loses the middle of its longest word (a path)
 * to "...", so that its end, what was expected, stays. */
ts_status ts_error_set(ts_error_t *err, ts_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copy s into buf (size n > 4) for an error message: control characters and bytes that are not
 * UTF-8 become '?' (a terminal is not the input's to drive) and long text is cut with "...",
 * so that messages stay one short line. Returns buf. */
const char *ts_shown(const char *s, char *buf, size_t n);

/* Make a message one line of text in place: its control characters (a newline or a terminal
 * escape in a file name, C1 controls included) and each byte that starts no valid UTF-8
 * sequence become '?'. ts_error_set does it to every message. Returns s. */
char *ts_one_line(char *s);

/* Reset err to TS_OK with an empty message. */
void ts_error_clear(ts_error_t *err);

#endif
