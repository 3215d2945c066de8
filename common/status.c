/* status.c - name and message lookups for the status-code table, and the error record. */
#include "status.h"

#include <stdio.h>
#include <string.h>

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

ts_status ts_error_set(ts_error_t *err, ts_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void ts_error_clear(ts_error_t *err)
{
    if (err) {
        err->code = TS_OK;
        err->msg[0] = '\0';
    }
}
